// excitation/src/settings.cpp — the excitation settings file (docs/excitation-file.md), read
// into an ExcitationProblem (optimizer.hpp) and validated by its problem(), each bound under the
// file's own key. Every key is optional; unknown keys are refused.
#include <cmath>
#include <utility>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/excitation/optimizer.hpp"

namespace vcloe::excitation {

namespace {

// The evaluation budgets of an excitation problem.
std::optional<SettingProblem> budget_problem(const ExcitationProblem& e) {
  auto bad = [](const char* key, const std::string& message) { return SettingProblem{key, message}; };
  // Each bound under the file's own key (docs/excitation-file.md), so the reader names its line.
  for (const auto& [key, n] : {std::pair{"evaluations.global", e.global_evaluations},
                               std::pair{"evaluations.local", e.local_evaluations}})
    if (n < 0 || n > 10'000'000)
      return bad(key, std::string(key) + ": expected an evaluation budget in [0, 10^7] (above, it would run for days), got " +
                          std::to_string(n));
  if (e.global_evaluations + e.local_evaluations < 1)
    return bad("evaluations", "evaluations: expected at least one (global + local); with none nothing is optimised");
  if (e.baseline_trajectories < 1 || e.baseline_trajectories > 10'000)
    return bad("baseline_trajectories", "baseline_trajectories: expected 1 to 10^4 random trajectories for the "
                                        "baseline, got " + std::to_string(e.baseline_trajectories));
  return std::nullopt;
}

// tracking: {enabled, margin, payload: {mass, inertia}, family: {platform, gains}} (tracking.hpp).
void parse_tracking(const YamlNode& t, TrackingSettings& s) {
  t.reject_unknown_keys({"enabled", "margin", "payload", "family"});
  s.enabled = t.get_bool("enabled", s.enabled);
  s.margin = t.get_double("margin", s.margin);
  if (auto pl = t.find("payload")) {
    pl->reject_unknown_keys({"mass", "inertia"});
    s.payload_mass = pl->get_double("mass", s.payload_mass);
    if (auto i = pl->find("inertia")) s.payload_inertia = i->as_vector(3);
    else if (s.payload_mass == 0) s.payload_inertia.setZero();  // `mass: 0` alone: no payload, not the default's moments
  }
  if (auto f = t.find("family")) {
    f->reject_unknown_keys({"platform", "gains"});
    s.platform = f->get_double("platform", s.platform);
    s.gains = f->get_double("gains", s.gains);
  }
}

ExcitationProblem parse_settings_document(const YamlDoc& doc) {
  const std::string& file = doc.file();
  ExcitationProblem p;
  const YamlNode r = doc.root();
  r.reject_unknown_keys({"harmonics", "f0", "optimize_f0", "f0_range", "duration", "criterion", "scale_columns",
                         "qr_eps", "regressor_period", "check_period", "limits", "amplitude", "seed", "evaluations",
                         "baseline_trajectories", "tracking", "notes"});
  p.harmonics = r.get_int("harmonics", p.harmonics);
  p.f0 = r.get_double("f0", p.f0);
  p.optimize_f0 = r.get_bool("optimize_f0", p.optimize_f0);
  if (auto range = r.find("f0_range")) {
    const Eigen::VectorXd v = range->as_vector(2);
    p.f0_min = v(0);
    p.f0_max = v(1);
  }
  p.duration = r.get_double("duration", p.duration);
  if (auto c = r.find("criterion")) p.criterion = criterion_from_string(c->as_string(), c->where());
  p.scale_columns = r.get_bool("scale_columns", p.scale_columns);
  p.qr_eps = r.get_double("qr_eps", p.qr_eps);
  p.regressor_period = r.get_double("regressor_period", p.regressor_period);
  p.check_period = r.get_double("check_period", p.check_period);
  if (auto lim = r.find("limits")) {
    lim->reject_unknown_keys({"sample_period", "max_joint_velocity", "max_joint_acceleration", "min_transmission",
                              "min_parallel_conditioning"});
    p.limits.min_transmission = lim->get_double("min_transmission", p.limits.min_transmission);
    p.limits.min_parallel_conditioning = lim->get_double("min_parallel_conditioning", p.limits.min_parallel_conditioning);
    p.limits.sample_period = lim->get_double("sample_period", p.limits.sample_period);
    p.limits.max_joint_velocity = lim->get_double("max_joint_velocity", p.limits.max_joint_velocity);
    p.limits.max_joint_acceleration = lim->get_double("max_joint_acceleration", p.limits.max_joint_acceleration);
  }
  if (auto a = r.find("amplitude")) {
    a->reject_unknown_keys({"position", "angle"});
    p.max_position_amplitude = a->get_double("position", p.max_position_amplitude);
    p.max_angle_amplitude = a->get_double("angle", p.max_angle_amplitude);
  }
  if (r.has("seed")) {
    if (r.at("seed").as_int() < 0) r.at("seed").fail("expected a non-negative seed");
    p.seed = static_cast<std::uint64_t>(r.at("seed").as_int());
  }
  if (auto e = r.find("evaluations")) {
    e->reject_unknown_keys({"global", "local"});
    p.global_evaluations = e->get_int("global", p.global_evaluations);
    p.local_evaluations = e->get_int("local", p.local_evaluations);
  }
  p.baseline_trajectories = r.get_int("baseline_trajectories", p.baseline_trajectories);
  if (auto t = r.find("tracking")) parse_tracking(*t, p.tracking);
  p.source = file;
  r.fail_if(p.problem());  // at the key's line, as the reader's own errors are
  return p;
}

}  // namespace

ExcitationProblem load_excitation_settings(const std::string& file) { return parse_settings_document(YamlDoc::load(file)); }

ExcitationProblem parse_excitation_settings(const std::string& yaml_text, const std::string& name) {
  return parse_settings_document(YamlDoc::parse(yaml_text, name));
}

std::optional<SettingProblem> ExcitationProblem::problem() const {
  auto bad = [](const char* key, const std::string& message) { return SettingProblem{key, message}; };
  if (harmonics < 1 || harmonics > kMaxHarmonics)
    return bad("harmonics", "harmonics must be between 1 and " + std::to_string(kMaxHarmonics) + " (got " +
                                std::to_string(harmonics) + ")");
  if (!(f0 > 0) || !std::isfinite(f0)) return bad("f0", "f0 must be a positive frequency in Hz");
  if (optimize_f0 && !(f0_min > 0 && f0_max > f0_min))  // the file's key: f0_range [f0_min, f0_max]
    return bad("f0_range", "f0_range: expected [lowest, highest] Hz with 0 < lowest < highest, got [" +
                               exact_number(f0_min) + ", " + exact_number(f0_max) + "]");
  if (optimize_f0 && !(f0 >= f0_min && f0 <= f0_max))  // the search starts at f0 and stays in the range
    return bad("f0", "f0: " + exact_number(f0) + " Hz is outside f0_range [" + exact_number(f0_min) + ", " +
                         exact_number(f0_max) + "] Hz, the range optimize_f0 searches from f0");
  if (!(duration >= kMinDuration && duration <= kMaxDuration))
    return bad("duration", "duration: expected a time in [" + exact_number(kMinDuration) + ", " + exact_number(kMaxDuration) +
                               "] s, got " + exact_number(duration));
  if (!(regressor_period > 0) || !(check_period > 0))
    return bad(regressor_period > 0 ? "check_period" : "regressor_period", "sample periods must be positive");
  // Samples per trajectory: enough rows for the 64 columns of H (6 per sample), and a bound on
  // the work (limits.sample_period 1e-9 asked for 2e9 samples and never ended).
  auto samples = [&](double period) { return duration / period; };
  if (!(samples(regressor_period) >= 11 && samples(regressor_period) <= 1e4))
    return SettingProblem{"regressor_period",
                          "regressor_period: expected 11 to 10^4 regressor samples over the " + exact_number(duration) +
                              " s of duration (6 rows each for 64 parameters), got " +
                              exact_number(samples(regressor_period)) + " at " + exact_number(regressor_period) + " s",
                          {"duration"}};
  if (!(samples(check_period) >= 10 && samples(check_period) <= 1e5))
    return SettingProblem{"check_period",
                          "check_period: expected 10 to 10^5 limit checks over the " + exact_number(duration) +
                              " s of duration, got " + exact_number(samples(check_period)) + " at " +
                              exact_number(check_period) + " s",
                          {"duration"}};
  if (!(samples(limits.sample_period) <= 1e7))
    return SettingProblem{"limits.sample_period",
                          "limits.sample_period: expected at most 10^7 samples over the " + exact_number(duration) +
                              " s of duration, got " + exact_number(samples(limits.sample_period)),
                          {"duration"}};
  if (!(qr_eps > 0 && qr_eps < 1))
    return bad("qr_eps", "qr_eps: expected a pivot ratio in (0, 1) (0 keeps numerically null columns), got " +
                             exact_number(qr_eps));
  if (!(max_position_amplitude > 0 && max_position_amplitude <= 10))
    return bad("amplitude.position", "amplitude.position: expected a position amplitude in (0, 10] m, got " +
                                         exact_number(max_position_amplitude));
  if (!(max_angle_amplitude > 0 && max_angle_amplitude <= M_PI))
    return bad("amplitude.angle", "amplitude.angle: expected an angle amplitude in (0, pi] rad, got " +
                                      exact_number(max_angle_amplitude));
  if (auto p = limits.problem()) return SettingProblem{"limits." + p->key, "limits." + p->message};  // the file's key
  if (auto p = tracking.problem()) return p;  // its keys already the file's (tracking.*)
  return budget_problem(*this);
}

void ExcitationProblem::validate(const std::string& where) const { throw_if(problem(), where); }

}  // namespace vcloe::excitation
