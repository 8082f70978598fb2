// Specification of `vcloe report` and `identify --report` (vcloe/report/html.hpp,
// docs/report.md): one self-contained HTML file — every figure embedded, nothing fetched —
// with every parameter in its table, the verdict, the inputs' hashes and the validation; in a
// real browser (headless Chromium, tests/apps/report_browser.py) it renders, every image loads,
// the console is clean and the parameter table has 70 rows (one per parameter of Lambda). Bad inputs are refused naming the
// file and key; an existing report is not overwritten without --force.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <tuple>

#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../test_support.hpp"
#include "cli_fixtures.hpp"
#include "../../workflow/src/calibration_output.hpp"
#include "vcloe/calib/kinematic_model.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "vcloe/control/predict.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/report/calibration.hpp"
#include "vcloe/report/identification.hpp"
#include "vcloe/sim/parameters.hpp"
#include "vcloe/sim/robot.hpp"

namespace fs = std::filesystem;
using cli_test::run_vcloe;
using cli_test::CommandResult;

namespace {

// A quick identification (2 s records, one LM iteration) with its report and a validation (2 s).
struct Identified {
  fs::path dir, report_json, validation, html, plain;
};

Identified identified(const std::string& name) {
  Identified r;
  r.dir = cli_test::fresh_dir("vcloe-cli-report", name);
  const fs::path ref = r.dir / "short.yaml", plain = r.dir / "plain.csv", loaded = r.dir / "loaded.csv",
                 settings = r.dir / "quick.yaml", model = r.dir / "model.yaml";
  EXPECT_EQ(run_vcloe("trajectory random --seed 4 --duration 2 --out " + ref.string()).status, 0);
  EXPECT_EQ(run_vcloe("run --reference " + ref.string() + " --out " + plain.string()).status, 0);
  EXPECT_EQ(run_vcloe("run --seed 2 --payload-mass 5 --payload-inertia 0.02 0.02 0.03 --reference " + ref.string() + " --out " +
                  loaded.string()).status, 0);
  std::ofstream(settings) << "anchor: {type: payload}\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n"
                             "stopping: {max_iterations: 1}\nhorizons: [1.0]\n"
                             "start: {check: false}\n";  // (no second start: not what this specifies)
  r.html = r.dir / "identify-report.html";
  const CommandResult id = run_vcloe("identify --quiet --config " + settings.string() + " --measured " + plain.string() +
                                 " --payload-trace " + loaded.string() + " --out " + model.string() + " --report " +
                                 r.html.string());
  EXPECT_EQ(id.status, 0) << id.out;
  r.report_json = model.string() + ".report.json";
  r.plain = plain;
  r.validation = r.dir / "validation.json";
  EXPECT_EQ(run_vcloe("validate --n 1 --duration 2 --model " + model.string() + " --out " + r.validation.string()).status, 0);
  return r;
}

}  // namespace

TEST(CliReport, OneSelfContainedFileWithEveryParameterTheVerdictAndTheInputs) {
  const Identified r = identified("content");
  const fs::path out = r.dir / "report.html", calibration = r.dir / "calibration.json";
  vcloe::report::CalibrationReport cal;  // a calibration result as `calibrate kinematics --result` writes it
  // Of the identification's robot file (a calibration of another one is refused: probe 18, class K).
  cal.robot = vcloe::report::read_identification_report(r.report_json.string()).inputs.robot;
  cal.poses = {"/rig/static.csv", std::string(64, 'b')};
  // Started at the drawn geometry of that robot file, as calibrate starts (the reader checks it).
  const vcloe::calib::KinematicVector drawn =
      vcloe::calib::nominal_parameters(vcloe::sim::load_robot(cal.robot.path).model).vector();
  // Of the virtual robot the traces were run on: its truth in the fit's gauge as calibrate writes it.
  cal.truth = vcloe::file_record(cli_test::config_dir + "truth.yaml"), cal.camera_residual = vcloe::Vec6d::Zero();
  const vcloe::calib::KinematicVector truth = vcloe::workflow::detail::truth_in_gauge(
      vcloe::sim::load_robot(cal.robot.path).model, drawn, vcloe::sim::load_robot(cal.truth->path).model, *cal.camera_residual);
  for (int k = 0; k < vcloe::report::kCalibrationParameters; ++k)
    cal.parameters.push_back({"q" + std::to_string(k), "m", drawn(k), drawn(k) + 1e-5, 2e-6, "identified", truth(k)});
  cal.combinations = {{"base", "a common translation of the base joints is the camera-to-base translation", 3, true}};
  cal.null_space = {3, 0, 69, {}, 120};  // the combination above is the whole null space, as the writer counts it
  cal.summary = vcloe::report::calibration_summary_of(cal.parameters);  // the writer's function
  cal.residual.frame_noise << 2e-5, 2e-5, 2e-5, 5e-5, 5e-5, 5e-5;
  cal.residual.mean_noise = cal.residual.frame_noise / 5, cal.residual.rms = 0.7 * cal.residual.mean_noise;  // 25 frames a pose
  cal.residual.dof = 6 * 30 - 69, cal.residual.chi2 = 0.49 * cal.residual.dof, cal.residual.adequate_ratio = 1.2;
  cal.residual.ratio = 0.7, cal.residual.adequate = true;  // its verdict the writer's sentence
  cal.residual.verdict = vcloe::report::calibration_verdict(cal.residual.rms, cal.residual.mean_noise, 0.7, true);
  cal.poses_used = 30;
  std::ofstream(calibration) << vcloe::sealed_json_text(vcloe::report::to_json(cal), "c.json");
  const CommandResult c = run_vcloe("report --identification " + r.report_json.string() + " --validation " +
                                r.validation.string() + " --calibration " + calibration.string() + " --servo-alone " +
                                r.plain.string() + " --out " + out.string());
  ASSERT_EQ(c.status, 0) << c.out;
  vcloe::report::CalibrationReport other = cal;
  other.robot = {"/rig/robot.yaml", std::string(64, 'a')};
  std::ofstream(r.dir / "other.json") << vcloe::sealed_json_text(vcloe::report::to_json(other), "other.json");
  const CommandResult refused = run_vcloe("report --identification " + r.report_json.string() + " --calibration " +
                                          (r.dir / "other.json").string() + " --out " + (r.dir / "other.html").string());
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.out.find("other.json: is a calibration of /rig/robot.yaml (SHA-256 aaaaaaaaaaaa...), not of "),
            std::string::npos) << refused.out;
  // Its starts and its truth are those of the files it records (probe 29): one edited is refused at its key.
  for (const auto& [k, truth_edited] : {std::pair{0, false}, {2, true}}) {
    vcloe::report::CalibrationReport edited = cal;
    if (truth_edited) *edited.parameters[k].truth_in_gauge += 3e-3;
    else edited.parameters[k].start += 10e-3;
    edited.summary = vcloe::report::calibration_summary_of(edited.parameters);
    std::ofstream(r.dir / "edited.json") << vcloe::sealed_json_text(vcloe::report::to_json(edited), "edited.json");
    const CommandResult e = run_vcloe("report --identification " + r.report_json.string() + " --calibration " +
                                      (r.dir / "edited.json").string() + " --out " + (r.dir / "edited.html").string());
    EXPECT_EQ(e.status, 2) << e.out;
    EXPECT_NE(e.out.find("edited.json: key 'parameters[" + std::to_string(k) + "]." + (truth_edited ? "truth_in_gauge" : "start") +
                         "' (q" + std::to_string(k) + "): "),
              std::string::npos)
        << e.out;
    EXPECT_FALSE(fs::exists(r.dir / "edited.html"));
  }
  const std::string html = cli_test::read_file(out);
  const std::string table = html.substr(html.find("<table id=\"parameters\">"));
  const std::string body = table.substr(0, table.find("</tbody>"));
  // (Counted with find: std::regex recurses per character and overflows on megabytes of base64.)
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(body, "<tr class="), vcloe::sim::kNumLambda);
  EXPECT_NE(html.find("Model adequacy: "), std::string::npos);
  EXPECT_NE(html.find("SHA-256 "), std::string::npos);
  EXPECT_NE(html.find("Validation on fresh trajectories"), std::string::npos);
  EXPECT_NE(html.find("Observability index"), std::string::npos);
  // The sections beyond the fit: the torques the model predicts, the run's tracking, the calibration.
  EXPECT_NE(html.find("<section id=\"torques\">"), std::string::npos);
  const std::string tracking = html.substr(html.find("<section id=\"tracking\">"));
  EXPECT_NE(tracking.substr(0, tracking.find("</table>")).find("<tr><td>servo alone</td><td><code>" + r.plain.string() +
                                                               "</code></td><td>the visual servo alone</td>"),
            std::string::npos);
  const std::string calibrated = html.substr(html.find("<table id=\"calibration-parameters\">"));
  EXPECT_EQ(count(calibrated.substr(0, calibrated.find("</tbody>")), "<tr class="), 72);
  EXPECT_NE(html.find("a common translation of the base joints is the camera-to-base translation"), std::string::npos);
  // Self-contained: every image a data URI, nothing loaded from anywhere.
  const int images = count(html, "src=\"");
  EXPECT_EQ(count(html, "src=\"data:image/png;base64,"), images);
  EXPECT_GE(images, 9);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_TRUE(fs::exists(r.html)) << "identify --report writes the same report";
  // A prediction's sigma band is of the identification report it records, as it was (probe 29).
  const fs::path pred = r.dir / "pred.csv";
  ASSERT_EQ(run_vcloe("predict --model " + (r.dir / "model.yaml").string() + " --reference " + (r.dir / "short.yaml").string() +
                      " --out " + pred.string()).status, 0);
  const std::string with_prediction = "report --identification " + r.report_json.string() + " --servo-alone " +
                                      r.plain.string() + " --prediction " + pred.string() + " --force --out ";
  ASSERT_EQ(run_vcloe(with_prediction + (r.dir / "p.html").string()).status, 0);
  nlohmann::json side = nlohmann::json::parse(cli_test::read_file(pred.string() + ".meta.json"));
  // A torque or a sigma edited with the CSV's hash made again (probe 31, P013, P014): the
  // prediction made again from the files it records differs at that cell, refused there.
  const std::string csv = cli_test::read_file(pred);
  for (const auto& [column, line] : {std::pair{1, 3}, {1 + vcloe::control::kLoadSize, 5}}) {
    std::vector<std::string> lines;
    std::stringstream in(csv);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::vector<std::string> cells;
    std::stringstream row(lines[static_cast<std::size_t>(line - 1)]);
    for (std::string c; std::getline(row, c, ',');) cells.push_back(c);
    cells[static_cast<std::size_t>(column)] = "777.5";
    std::string joined, text;
    for (const std::string& c : cells) joined += (joined.empty() ? "" : ",") + c;
    lines[static_cast<std::size_t>(line - 1)] = joined;
    for (const std::string& l : lines) text += l + "\n";
    std::ofstream(pred) << text;
    nlohmann::json rehashed = side;
    rehashed["csv_sha256"] = vcloe::sha256(text);
    std::ofstream(pred.string() + ".meta.json") << rehashed.dump(2);
    vcloe::test::seal_again(pred.string() + ".meta.json");  // the re-prediction, behind the seal
    const std::string name = column == 1 ? "tau1" : "sigma_tau1";
    cli_test::expect_refused({{with_prediction + (r.dir / "q.html").string(),
                               pred.string() + ":" + std::to_string(line) + ": column '" + name + "': 777.5, but the files it records predict "}});
  }
  std::ofstream(pred) << csv;
  // Without a run of its reference nothing says which reference it is along (probe 32, p11).
  cli_test::expect_refused({{"report --identification " + r.report_json.string() + " --prediction " + pred.string() +
                                 " --out " + (r.dir / "q.html").string(),
                             "--prediction: the loads are drawn beside the runs of their reference"}});
  side["band"]["sha256"] = std::string(64, '1');
  std::ofstream(pred.string() + ".meta.json") << side.dump(2);
  vcloe::test::seal_again(pred.string() + ".meta.json");
  const CommandResult edited = run_vcloe(with_prediction + (r.dir / "q.html").string());
  EXPECT_EQ(edited.status, 2) << edited.out;
  EXPECT_NE(edited.out.find(pred.string() + " (--prediction): draws its sigma band from " + r.report_json.string() +
                            " (SHA-256 111111111111…), which is gone or has changed since"),
            std::string::npos)
      << edited.out;
  EXPECT_FALSE(fs::exists(r.dir / "q.html"));
}

TEST(CliReport, RendersInHeadlessChromiumWithEveryImageAndNoConsoleError) {
  const Identified r = identified("browser");
  const fs::path shot = r.dir / "screenshot.png";
  const std::string cmd = "/usr/bin/python3 " + std::string(VCLOE_SOURCE_DIR) + "/tests/apps/report_browser.py " +
                          r.html.string() + " " + shot.string() + " --rows " + std::to_string(vcloe::sim::kNumLambda) + " 2>&1";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(status, 0) << cmd;
}

TEST(CliReport, BadInputsAreRefusedNamingTheFileAndAReportIsNotOverwritten) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-report", "refusals");
  const fs::path garbage = d / "garbage.json", partial = d / "partial.json", out = d / "r.html";
  std::ofstream(garbage) << "{ not json";
  std::ofstream(partial) << vcloe::sealed_json_text({{"parameters", nlohmann::json::array()}}, "partial.json");
  struct Case {
    std::string args, expected;
  } cases[] = {
      {"--identification " + (d / "missing.json").string(), "missing.json"},
      {"--identification " + garbage.string(), "garbage.json: not valid JSON"},
      {"--identification " + partial.string(), "partial.json: key 'inputs': missing"},
      {"--identification " + d.string(), "is a directory"},
  };
  for (const Case& c : cases) {
    const CommandResult r = run_vcloe("report " + c.args + " --out " + out.string());
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expected), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_FALSE(fs::exists(out));
  }
  std::ofstream(out) << "mine";
  const CommandResult exists = run_vcloe("report --identification " + garbage.string() + " --out " + out.string());
  EXPECT_EQ(exists.status, 2);
  EXPECT_NE(exists.out.find("--force"), std::string::npos) << exists.out;
  EXPECT_EQ(cli_test::read_file(out), "mine");
  // A report under an image's name, and a parameter whose value is a string (it showed as an
  // identified infinity).
  const CommandResult png = run_vcloe("report --identification " + garbage.string() + " --out " + (d / "r.png").string());
  EXPECT_NE(png.out.find("r.png: expected an HTML file name (.html or .htm), got '.png'"), std::string::npos) << png.out;
  nlohmann::json bad = {{"inputs", nlohmann::json::object()}, {"adequacy", nlohmann::json::object()},
                        {"before_rms_all", 1}, {"after_rms_all", 1}, {"singular_values", nlohmann::json::array()},
                        {"parameters", nlohmann::json::array()}};
  for (int k = 0; k < vcloe::sim::kNumLambda; ++k)
    bad["parameters"].push_back({{"name", vcloe::sim::parameter_registry()[static_cast<std::size_t>(k)].name},
                                 {"prior", 1.0},
                                 {"value", 1.0}});
  bad["parameters"][0]["value"] = "nan";
  std::ofstream(d / "bad.json") << vcloe::sealed_json_text(bad, "bad.json");
  const CommandResult typed = run_vcloe("report --identification " + (d / "bad.json").string() + " --out " + (d / "b.html").string());
  EXPECT_EQ(typed.status, 2) << typed.out;
  EXPECT_NE(typed.out.find("bad.json: key 'parameters[0].value': expected a number, got \"nan\""), std::string::npos) << typed.out;
}

namespace test_cli_report {

TEST(CliReport, FilesChangedSinceTheFitOrAnotherModelsValidationAreRefusedBeforeDrawing) {
  // `vcloe report` drew a re-recorded trace, an edited model or another model's validation under
  // the tables of the old fit.
  const Identified r = identified("hashes");
  const fs::path model = r.dir / "model.yaml", other = r.dir / "other.yaml", html = r.dir / "r.html";
  const std::string model_text = cli_test::read_file(model);
  std::ofstream(other) << model_text << "# edited\n";
  const fs::path v2 = r.dir / "other-validation.json";
  ASSERT_EQ(run_vcloe("validate --n 1 --duration 2 --model " + other.string() + " --out " + v2.string()).status, 0);
  const std::string report = "report --identification " + r.report_json.string() + " --out " + html.string();
  CommandResult c = run_vcloe(report + " --validation " + v2.string());
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find(v2.string() + ": is the validation of another model than " + model.string()), std::string::npos) << c.out;
  // The model edited since the fit.
  std::ofstream(model) << model_text << "# edited\n";
  c = run_vcloe(report);
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find(model.string() + ": has changed since " + r.report_json.string() + " was written (its identified model"),
            std::string::npos)
      << c.out;
  // Probe 19's R and D: the measured trace's hash in capitals is the same hash (the model's, edited,
  // is the first refused); a recorded input that is no regular file is refused, not read for ever.
  const nlohmann::json original = nlohmann::json::parse(cli_test::read_file(r.report_json));
  ASSERT_EQ(::mkfifo((r.dir / "fifo").c_str(), 0600), 0);
  for (const auto& [key, value, expected] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"sha256", "", model.string() + ": has changed since"},
           {"path", "/dev/zero", "/dev/zero: is a device, pipe or socket, expected a regular file"},
           {"path", (r.dir / "fifo").string(), (r.dir / "fifo").string() + ": is a device, pipe or socket"}}) {
    nlohmann::json edited = original;
    std::string& field = edited["inputs"]["measured"][key].get_ref<std::string&>();
    if (value.empty())
      for (char& ch : field) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    else
      field = value;
    const fs::path json = r.dir / "edited.report.json";
    std::ofstream(json) << vcloe::sealed_json_text(edited, json.string());  // sealed again: the field's own check
    cli_test::expect_refused({{"report --identification " + json.string() + " --out " + html.string(), expected}}, 5.0);
  }
  // Probe 31's C, D and E: a figure of the report edited by hand (the after-fit RMS, a parameter's
  // flag, the Ceres termination) is refused by the seal (the one reader's, also predict's) before anything is drawn.
  for (const auto& edit : std::vector<std::function<void(nlohmann::json&)>>{
           [](nlohmann::json& j) { j["after_rms_all"][0]["mm"][0] = 0.0101; },
           [](nlohmann::json& j) { j["parameters"][0]["flagged"] = false; },
           [](nlohmann::json& j) { j["termination"] = "NO_CONVERGENCE"; }}) {
    nlohmann::json edited = original;
    edit(edited);
    const fs::path json = r.dir / "hand.report.json";
    std::ofstream(json) << edited.dump(2);
    cli_test::expect_refused({{"report --identification " + json.string() + " --out " + html.string(),
                               "hand.report.json: key 'content_sha256': the content is not the one sealed"}},
                             5.0);
  }
  std::ofstream(model) << model_text;  // as fitted again
  // The measured trace recorded again under its name.
  const fs::path plain = r.dir / "plain.csv";
  ASSERT_EQ(run_vcloe("run --seed 7 --reference " + (r.dir / "short.yaml").string() + " --out " + plain.string() + " --force").status, 0);
  c = run_vcloe(report);
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find(plain.string() + ": has changed since " + r.report_json.string() + " was written (its measured trace"),
            std::string::npos)
      << c.out;
  EXPECT_FALSE(fs::exists(html));
}

}  // namespace test_cli_report
