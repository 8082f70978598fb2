// The kinematic calibration result's one writer and one reader (calibration.hpp).
#include <algorithm>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/json_node.hpp"
#include "vcloe/report/calibration.hpp"
#include "identification_consistency.hpp"

namespace vcloe::report {

using nlohmann::json;
using Node = vcloe::JsonNode;

namespace {

constexpr const char* kFormat = "vcloe-kinematic-calibration-2";
constexpr const char* kNotFromCalibrate = "(not written by `vcloe calibrate kinematics --result`, or by an older vcloe? run it again)";

json vec6(const Vec6d& v) { return {v(0), v(1), v(2), v(3), v(4), v(5)}; }

json parameter_json(const CalibrationParameter& p) {
  json j = {{"name", p.name}, {"unit", p.unit},   {"start", p.start},
            {"value", p.value}, {"sigma", p.sigma}, {"status", p.status}};
  if (p.truth_in_gauge) j["truth_in_gauge"] = *p.truth_in_gauge;
  return j;
}

Vec6d read_vec6(const Node& n, bool non_negative) {
  const auto a = n.fixed<6>(non_negative);
  return Vec6d(a[0], a[1], a[2], a[3], a[4], a[5]);
}

CalibrationParameter read_parameter(const Node& p) {
  CalibrationParameter out;
  out.name = p.need("name").string();
  out.unit = p.need("unit").one_of({"m", "rad"});
  out.start = p.need("start").number();
  out.value = p.need("value").number();
  out.sigma = p.need("sigma").non_negative();
  // The statuses the fit writes (calib/src/kinematic_analysis.cpp): free text drew as one.
  out.status = p.need("status").one_of({"identified", "not identified", "fixed",
                                        "not identifiable: the encoder offset carries it (kept as drawn)"});
  if (!p["truth_in_gauge"].is_null()) out.truth_in_gauge = p["truth_in_gauge"].number();
  return out;
}

CalibrationCombination read_combination(const Node& c) {
  return {c.need("name").string(), c.need("meaning").string(), c.need("dimension").integer(1, kCalibrationParameters),
          c.need("in_null_space").boolean()};
}

CalibrationNullSpace read_null_space(const Node& n) {
  CalibrationNullSpace out;
  out.dimension = n.need("dimension").integer(0, kCalibrationParameters);
  out.unnamed = n.need("unnamed").integer(0, out.dimension);
  out.unnamed_largest = n.need("unnamed_largest").strings();
  out.free_directions = n.need("free_directions").integer(0, kCalibrationParameters);
  out.condition_number = n.present("condition_number").bound();
  if (!(out.condition_number >= 1 || out.free_directions == 0))
    n["condition_number"].refuse("a condition number of at least 1");
  return out;
}

CalibrationResidual read_residual(const Node& r) {
  CalibrationResidual out;
  out.rms = read_vec6(r.need("rms"), true);
  out.mean_noise = read_vec6(r.need("mean_noise"), true);
  out.frame_noise = read_vec6(r.need("frame_noise"), true);
  out.chi2 = r.need("chi2").non_negative();
  out.dof = r.need("dof").integer(1, 6 << 20);
  out.ratio = r.need("ratio").non_negative();
  out.adequate_ratio = r.need("adequate_ratio").positive();
  out.adequate = r.need("adequate").boolean();
  out.verdict = r.need("verdict").string();
  // The ratio and the flag are the writer's functions of chi2, dof and the limit
  // (calib/src/kinematic_analysis.cpp, analyse_solution): an edit of one alone is refused.
  if (const double want = std::sqrt(out.chi2 / out.dof); !detail::same_figure(out.ratio, want))
    r["ratio"].refuse("sqrt(chi2 / dof) = " + exact_number(want) + " (chi2 " + exact_number(out.chi2) + ", dof " +
                      std::to_string(out.dof) + ")");
  if (out.adequate != (out.ratio <= out.adequate_ratio))
    r["adequate"].refuse(std::string(out.adequate ? "false" : "true") + ": ratio " + exact_number(out.ratio) +
                         (out.adequate ? " is above" : " is within") + " adequate_ratio " + exact_number(out.adequate_ratio));
  // Each axis's mean noise is its frame noise over the same sqrt of the poses' frames (mean 1/frames <= 1).
  const double scale = out.frame_noise(0) > 0 ? out.mean_noise(0) / out.frame_noise(0) : 0;
  for (int c = 0; c < 6; ++c)
    if (!(out.frame_noise(c) > 0) || !detail::same_figure(out.mean_noise(c), out.frame_noise(c) * scale) || !(scale > 0 && scale <= 1))
      r["mean_noise"][static_cast<std::size_t>(c)].refuse(
          "frame_noise x sqrt(mean 1/frames over the poses), one factor in (0, 1] for the six axes (" +
          exact_number(scale) + " on x), with every frame_noise positive");
  // The verdict is the writer's sentence of `adequate` (calib/src/kinematic_analysis.cpp, verdict_of):
  // a flag edited against it would be drawn beside a verdict that says the opposite.
  const std::string head = out.adequate ? "residual at the camera noise" : "model error dominates";
  if (out.verdict.rfind(head, 0) != 0)
    r["verdict"].refuse("a verdict beginning \"" + head + "…\" (adequate is " + (out.adequate ? "true" : "false") + ")");
  // ... and the whole sentence the writer's of its figures: a ratio edited alone disagrees with it.
  const std::string want = calibration_verdict(out.rms, out.mean_noise, out.ratio, out.adequate);
  if (out.verdict != want)
    r["verdict"].refuse("the sentence of residual.ratio " + exact_number(out.ratio) + ", rms and mean_noise, \"" + want + "\"");
  return out;
}

std::vector<CalibrationGroup> read_groups(const Node& s) {
  s.object();
  std::vector<CalibrationGroup> out;
  for (const auto& item : s.value().items()) {
    const Node g = s[item.key()];
    CalibrationGroup c{item.key(), g.need("unit").one_of({"m", "rad"}), g.need("sigma").non_negative(), std::nullopt};
    if (!g["error"].is_null()) c.error = g["error"].non_negative();
    out.push_back(c);
  }
  return out;
}

// The null space as the named combinations found in it and the unnamed directions make it up
// (calib/kinematic_identifiability.cpp): the drawn "N directions, N - unnamed named" lists them.
void check_null_space_parts(const CalibrationReport& r, const Node& root) {
  int named = 0;
  for (const CalibrationCombination& c : r.combinations) named += c.in_null_space ? c.dimension : 0;
  const CalibrationNullSpace& n = r.null_space;
  if (named + n.unnamed != n.dimension)
    root["combinations"].refuse("combinations in the null space whose dimensions sum to null_space.dimension - unnamed = " +
                                std::to_string(n.dimension - n.unnamed) + " (dimension " + std::to_string(n.dimension) +
                                ", unnamed " + std::to_string(n.unnamed) + "); theirs sum to " + std::to_string(named));
  if (n.unnamed_largest.size() != static_cast<std::size_t>(n.unnamed))
    root["null_space"]["unnamed_largest"].refuse("one entry per unnamed direction (" + std::to_string(n.unnamed) + ")");
}

// The fit's free directions (calib: free_directions): the 72 less the rank of the combinations'
// constraints (one row per direction) and of the fixed parameters, which may overlap them; a
// parameter "identified" has a sigma (an identified one of sigma 0 drew an empty error/sigma).
void check_parameters_and_directions(const CalibrationReport& r, const Node& root) {
  int constrained = 0, fixed = 0;
  for (const CalibrationCombination& c : r.combinations) constrained += c.dimension;
  for (std::size_t k = 0; k < r.parameters.size(); ++k) {
    const CalibrationParameter& p = r.parameters[k];
    fixed += p.status == "fixed";
    if (p.status == "identified" && !(p.sigma > 0 && std::isfinite(p.sigma)))
      root["parameters"][k]["sigma"].refuse("a positive sigma: the parameter's status is \"identified\"");
    // Kept at its start by the fit (outside its free directions: only rounding moves it).
    const bool kept = p.status == "fixed" || p.status.rfind("not identifiable:", 0) == 0;
    if (kept && !(std::abs(p.value - p.start) <= 1e-12 * (1 + std::abs(p.start))))
      root["parameters"][k]["value"].refuse("its start, " + exact_number(p.start) + ": the status \"" + p.status +
                                            "\" is of a parameter the fit kept where it started");
  }
  const int high = kCalibrationParameters - constrained, low = high - fixed, got = r.null_space.free_directions;
  if (got < low || got > high)
    root["null_space"]["free_directions"].refuse(
        (low == high ? std::to_string(high) : "from " + std::to_string(low) + " to " + std::to_string(high)) + ": the " +
        std::to_string(kCalibrationParameters) + " parameters less the combinations' " + std::to_string(constrained) +
        " directions" + (fixed ? " and up to " + std::to_string(fixed) + " fixed" : std::string()));
}

// The summary recomputed from the parameters (calibration_summary_of, the writer's function).
void check_summary(const CalibrationReport& r, const Node& summary) {
  const std::vector<CalibrationGroup> want = calibration_summary_of(r.parameters);
  std::string kinds;
  for (const CalibrationGroup& g : want) kinds += (kinds.empty() ? "" : ", ") + g.name;
  if (r.summary.size() != want.size()) summary.refuse("the " + std::to_string(want.size()) + " kinds " + kinds);
  for (std::size_t k = 0; k < want.size(); ++k) {
    const CalibrationGroup &w = want[k], &g = r.summary[k];
    const Node n = summary[g.name];
    if (g.name != w.name) summary.refuse("the " + std::to_string(want.size()) + " kinds " + kinds + " (no \"" + g.name + "\")");
    if (g.unit != w.unit) n["unit"].refuse("\"" + w.unit + "\", the unit of the " + w.name);
    if (!detail::same_figure(g.sigma, w.sigma))
      n["sigma"].refuse("the largest sigma of the " + w.name + " in parameters, " + exact_number(w.sigma));
    if (g.error.has_value() != w.error.has_value())
      n["error"].refuse(w.error ? "the largest |value - truth_in_gauge| of the " + w.name + ", " + exact_number(*w.error)
                                : std::string("nothing: the parameters have no truth_in_gauge"));
    if (w.error && !detail::same_figure(*g.error, *w.error))
      n["error"].refuse("the largest |value - truth_in_gauge| of the " + w.name + " in parameters, " + exact_number(*w.error));
  }
}

}  // namespace

json to_json(const CalibrationReport& r) {
  json j;
  j["format"] = kFormat;
  j["inputs"] = {{"robot", to_json(r.robot)}, {"poses", to_json(r.poses)},
                 {"truth", r.truth ? to_json(*r.truth) : json(nullptr)},
                 {"camera_residual", r.camera_residual ? vec6(*r.camera_residual) : json(nullptr)}};
  j["parameters"] = json::array();
  for (const CalibrationParameter& p : r.parameters) j["parameters"].push_back(parameter_json(p));
  j["combinations"] = json::array();
  for (const CalibrationCombination& c : r.combinations)
    j["combinations"].push_back(
        {{"name", c.name}, {"meaning", c.meaning}, {"dimension", c.dimension}, {"in_null_space", c.in_null_space}});
  const CalibrationNullSpace& n = r.null_space;
  j["null_space"] = {{"dimension", n.dimension},         {"unnamed", n.unnamed},
                     {"unnamed_largest", n.unnamed_largest}, {"free_directions", n.free_directions},
                     {"condition_number", finite_or_null(n.condition_number)}};
  const CalibrationResidual& e = r.residual;
  j["residual"] = {{"rms", vec6(e.rms)},     {"mean_noise", vec6(e.mean_noise)}, {"frame_noise", vec6(e.frame_noise)},
                   {"chi2", e.chi2},         {"dof", e.dof},                     {"ratio", e.ratio},
                   {"adequate_ratio", e.adequate_ratio}, {"adequate", e.adequate}, {"verdict", e.verdict}};
  j["summary"] = json::object();
  for (const CalibrationGroup& g : r.summary) {
    j["summary"][g.name] = {{"sigma", g.sigma}, {"unit", g.unit}};
    if (g.error) j["summary"][g.name]["error"] = *g.error;
  }
  j["poses"] = r.poses_used, j["iterations"] = r.iterations, j["cpu_seconds"] = r.cpu_seconds;
  return j;
}

CalibrationReport calibration_from_json(const json& document, const std::string& file) {
  const Node root = Node::root(document, file, kNotFromCalibrate);
  if (root.need("format").string() != kFormat) root["format"].refuse(std::string("\"") + kFormat + "\"");
  CalibrationReport r;
  const Node in = root.need("inputs");
  r.robot = in.need("robot").file_record();
  r.poses = in.need("poses").file_record();
  if (!in.present("truth").is_null()) r.truth = in["truth"].file_record();
  if (!in.present("camera_residual").is_null()) r.camera_residual = read_vec6(in["camera_residual"], false);
  if (r.truth.has_value() != r.camera_residual.has_value())
    in["camera_residual"].refuse(r.truth ? "the camera-to-base residual the truth's run was given (6 numbers): inputs.truth is given"
                                         : "null: there is no inputs.truth");
  const Node params = root.need("parameters");
  params.array_size(kCalibrationParameters);
  for (std::size_t k = 0; k < static_cast<std::size_t>(kCalibrationParameters); ++k)
    r.parameters.push_back(read_parameter(params[k]));
  const Node combos = root.need("combinations");
  for (std::size_t k = 0, n = combos.array_size(); k < n; ++k) r.combinations.push_back(read_combination(combos[k]));
  r.null_space = read_null_space(root.need("null_space"));
  r.residual = read_residual(root.need("residual"));
  r.summary = read_groups(root.need("summary"));
  check_null_space_parts(r, root);  // derived fields: of the primary ones, or refused
  check_parameters_and_directions(r, root);
  check_summary(r, root["summary"]);
  r.poses_used = root.need("poses").integer(1, 1 << 20);
  if (r.residual.dof != 6 * r.poses_used - r.null_space.free_directions)
    root["residual"]["dof"].refuse("6 x poses - null_space.free_directions = " +
                                   std::to_string(6 * r.poses_used - r.null_space.free_directions));
  r.iterations = root.need("iterations").integer(0, 1 << 30);
  r.cpu_seconds = root.need("cpu_seconds").non_negative();
  return r;
}

void check_residual_of_poses(const CalibrationReport& c, const std::string& file, const std::vector<int>& frames) {
  const CalibrationResidual& e = c.residual;
  double inverse = 0;
  for (int f : frames) inverse += 1.0 / f;
  const double n = static_cast<double>(frames.size()), m = std::sqrt(inverse / n);
  const auto [least, most] = std::minmax_element(frames.begin(), frames.end());
  double per_frame = 0;  // sum over the axes of (rms / frame_noise)^2
  for (int k = 0; k < 6; ++k) {
    if (!detail::same_figure(e.mean_noise(k), e.frame_noise(k) * m))
      fail(file, "key 'residual.mean_noise[" + std::to_string(k) + "]': " + exact_number(e.mean_noise(k)) +
                     ", but the frames per pose of its static-pose file give frame_noise x sqrt(mean 1/frames) = " +
                     exact_number(e.frame_noise(k) * m) + ": the file does not describe those poses; run vcloe calibrate kinematics again");
    per_frame += e.rms(k) * e.rms(k) / (e.frame_noise(k) * e.frame_noise(k));
  }
  const double low = *least * n * per_frame, high = *most * n * per_frame;
  if (e.chi2 < low * (1 - 1e-9) || e.chi2 > high * (1 + 1e-9))
    fail(file, "key 'residual.chi2': " + exact_number(e.chi2) + ", but its rms and the " + std::to_string(frames.size()) +
                   " poses' frames (" + std::to_string(*least) + " to " + std::to_string(*most) + " each) give " +
                   (low == high ? exact_number(low) : "from " + exact_number(low) + " to " + exact_number(high)) +
                   ": the file does not describe those poses; run vcloe calibrate kinematics again");
}

CalibrationReport read_calibration_report(const std::string& file) {
  return calibration_from_json(read_sealed_json_file(file, "run vcloe calibrate kinematics again"), file);
}

}  // namespace vcloe::report
