// Specification of issue 27's input classes of session 17's probe, each stopped in one place
// (docs/robustness.md, "Five classes more"): messages that name what the user gave (the command
// line's unknown word, a file of another kind, the option or key a bound is about), an option
// the mode does not use, a model of another robot, numbers that were silently wrong, and an
// experiment file of comments only. Each test tries several cases of its class.
#include <nlohmann/json.hpp>

#include "../test_support.hpp"
#include "cli_fixtures.hpp"
#include "vcloe/sim/robot.hpp"

namespace fs = std::filesystem;
using namespace cli_test;

namespace {

// A 1 s reference for the tests below.
std::string input_reference(const fs::path& d) {
  const std::string ref = (d / "ref.yaml").string();
  const CommandResult r = run_vcloe("trajectory random --seed 5 --duration 1 --out " + ref);
  EXPECT_EQ(r.status, 0) << r.out;
  return ref;
}

// `text` with every `from` replaced by `to` (at least one must be there).
std::string input_edit(std::string text, const std::string& from, const std::string& to) {
  EXPECT_NE(text.find(from), std::string::npos) << from;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

void input_write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string input_robot_serve(const fs::path& d, const std::string& ref) {
  const std::string ipc = "ipc://" + d.string() + "/";
  return "robot serve --reference " + ref + " --camera-stream " + ipc + "c --poses " + ipc + "p --commands " + ipc +
         "m --status " + ipc + "s --start-timeout 1";
}

}  // namespace

// CLI11 said the requirement a mistyped word left unmet: `vcloe frobnicate` was "A subcommand is
// required", `--ref X` was "--reference is required", a file named -a.csv was "a is required".
// main.cpp's one error handler names the word and what was expected there.
TEST(CliMechanism, AnUnknownWordOnTheCommandLineIsNamedWithWhatWasExpected) {
  expect_refused({{"frobnicate", "unknown command 'frobnicate' for `vcloe`; `vcloe --help` lists the commands"},
                  {"calibrate kinematix", "unknown command 'kinematix' for `vcloe calibrate` (did you mean kinematics?)"},
                  {"simulate --ref x.yaml", "unknown option '--ref' for `vcloe simulate` (did you mean --reference?)"},
                  {"simulate --reference x.yaml --out o.csv --forse", "unknown option '--forse' for `vcloe simulate`"},
                  {"compare -a.csv -a.csv", "unknown option '-a.csv' for `vcloe compare`; `vcloe compare --help` lists "
                                            "its options (a file whose name starts with '-': write ./-a.csv)"}},
                 5.0);
}

// A file of another kind was read as this kind and refused for what it then seemed to hold: a
// PNG as YAML ("a carriage return that ends no line"), a static-pose trace as a pose trace
// ("settled_s: non-finite"), a .pub file as --keys (advice to write keys into it), one image as
// both of a pair ("no valid pose"). The one YAML reader, the sidecar's format (one check for
// every CSV with a sidecar) and the key and pair readers say what the file is.
TEST(CliMechanism, AFileOfAnotherKindIsSaidAsSuch) {
  const fs::path d = fresh_dir("vcloe-mechanism-input", "kind");
  input_write(d / "pic.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  const std::string pic = (d / "pic.png").string();
  input_write(d / "st.csv", "x,y,z,alpha,beta,gamma,settled_s\n0,0,0,0,0,0,nan\n");
  input_write(d / "st.csv.meta.json", R"({"format": "vcloe-static-poses-1", "source": "virtual"})");
  input_write(d / "t.csv", "time,x\n0,0\n");
  input_write(d / "t.csv.meta.json", R"({"format": "vcloe-trace-1", "source": "twin"})");
  input_write(d / "listen.pub", "public abc\n");
  fs::create_directories(d / "img");
  input_write(d / "img" / "left_0000.png", "not an image");
  fs::create_hard_link(d / "img" / "left_0000.png", d / "img" / "right_0000.png");
  const std::string st = (d / "st.csv").string(), t = (d / "t.csv").string();
  expect_refused({{"trajectory check " + pic, pic + ": is a PNG image, not a YAML text file"},
                  {"trajectory check --robot " + pic + " " + config_dir + "reference.yaml", pic + ": is a PNG image"},
                  {"compare " + st + " " + st, st + ": is not a pose trace: its sidecar " + st +
                                                   ".meta.json says it is a \"vcloe-static-poses-1\" file (source \"virtual\")"},
                  {"calibrate kinematics --poses " + t + " --out " + (d / "c.yaml").string(), t + ": is not a static-pose trace"},
                  {"simulate --reference " + config_dir + "reference.yaml --precorrection " + t + " --out " + (d / "o.csv").string(),
                   t + ": is not a pre-corrected command"},
                  {"rig listen --endpoint ipc://" + (d / "x").string() + " --keys " + (d / "listen.pub").string() + " --seconds 0.1",
                   (d / "listen.pub").string() + ": is a file, not a directory of the rig's keys"},
                  {"measure --images " + (d / "img").string() + " --out " + (d / "m.csv").string(),
                   "left_0000.png and right_0000.png are the same file"}},
                 5.0);
}

// Refusals that named neither the option nor the file's key: --stand-at outside the joint range
// (as "virtual robot: no pose … at its encoders"), an experiment whose gains make the twin diverge
// ("twin: stopped …"), f0 outside f0_range (a seed the user never gave), a rig translation of
// 1e300 m (blamed on camera_from_base), a pre-correction sidecar's rate (blamed on a CSV row).
TEST(CliMechanism, ARefusalNamesTheOptionOrKeyItIsAbout) {
  const fs::path d = fresh_dir("vcloe-mechanism-input", "names");
  const std::string ref = input_reference(d), serve = input_robot_serve(d, ref);
  input_write(d / "e.yaml", "outer_pid: {ki: 1e5}\n");
  input_write(d / "x.yaml", "optimize_f0: true\nf0: 5\n");
  input_write(d / "g.yaml", input_edit(read_file(config_dir + "rig.yaml"), "translation: [-0.6873677601021246,",
                                       "translation: [1e300,"));
  const std::string out = " --out " + (d / "o.csv").string();
  expect_refused({{serve + " --stand-at 5 5 5 5 5 5", "--stand-at: joint 1 at 5 rad is outside the joint range +-0.9948 rad"},
                  {serve + " --stand-at 0 0 0.9949 0 0 0", "--stand-at: joint 3 at 0.9949 rad is outside the joint range"},
                  {"rig run --reference " + ref + out + " --stand-at 0 0 0 0 0 -1", "--stand-at: joint 6 at -1 rad"},
                  {"simulate --experiment " + (d / "e.yaml").string() + " --reference " + ref + out,
                   " under the controller of " + (d / "e.yaml").string() + " (outer_pid: kp, ki, kd)"},
                  {"excite --config " + (d / "x.yaml").string() + " --out " + (d / "t.yaml").string(),
                   "x.yaml:2: key 'f0': 5 Hz is outside f0_range [0.05, 0.3] Hz"},
                  {"render --rig " + (d / "g.yaml").string() + " --reference " + ref + " --frames 1 --out " + (d / "img").string(),
                   "g.yaml:21: key 'right_from_left.translation': expected a translation of at most 100 m"}},
                 5.0);
  EXPECT_FALSE(fs::exists(d / "o.csv"));
  const fs::path pc = d / "pc.csv";
  ASSERT_EQ(run_vcloe("precorrect --model " + config_dir + "truth.yaml --reference " + ref + " --out " + pc.string()).status, 0);
  nlohmann::json meta = nlohmann::json::parse(read_file(pc.string() + ".meta.json"));
  meta["controller_hz"] = 2000.0;
  input_write(pc.string() + ".meta.json", meta.dump(2));
  vcloe::test::seal_again(pc.string() + ".meta.json");  // the check behind the seal
  expect_refused({{"simulate --reference " + ref + " --precorrection " + pc.string() + out,
                   pc.string() + ".meta.json: key 'controller_hz': 2000 Hz, but the rows of " + pc.string() + " are 0.001 s apart"}});
}

// Accepted without a word: a rate limit of 1e12 rad/s (the robot's limit switched off), every
// platform marker occluded (images of no pose: now a warning), lp: 1e-401 read as 0. (--measure beside --poses:
// CliHostile.AnOptionTheChosenModeDoesNotUseIsRefusedNotIgnored, the class's test.)
TEST(CliMechanism, WhatWasSilentlyAcceptedIsRefused) {
  const fs::path d = fresh_dir("vcloe-mechanism-input", "silent");
  const std::string ref = input_reference(d), serve = input_robot_serve(d, ref);
  input_write(d / "r.yaml", input_edit(read_file(config_dir + "robot.yaml"), "  lp: 360.0", "  lp: 1e-401"));
  expect_refused({{serve + " --max-command-speed 1e12", "--max-command-speed: expected at most 99.48 rad/s, got 1e+12"},
                  {serve + " --max-command-speed 100", "--max-command-speed: expected at most 99.48 rad/s"},
                  {"trajectory check --robot " + (d / "r.yaml").string() + " " + ref,
                   "key 'drive_pid.lp': expected a number a double can hold, got '1e-401'"}},
                 5.0);
  // Every platform marker occluded: said (a warning; such images are how measure's flags are tested).
  const CommandResult blind = run_vcloe("render --reference " + ref + " --frames 1 --out " + (d / "img").string() +
                                        " --occlude P1 P2 P3 P4 P5 P6 P7");
  EXPECT_EQ(blind.status, 0) << blind.out;
  EXPECT_NE(blind.out.find("vcloe: warning: --occlude hides 7 of the 7 platform markers"), std::string::npos) << blind.out;
}

// validate ran a model of another geometry and scored it near its floor; predict and precorrect
// refused the same file. One check now (rig::check_model_of_robot) for every --model beside a
// robot file; a calibration of that very robot file (its head names it with the SHA-256 it has)
// is the model of that robot.
TEST(CliMechanism, AModelOfAnotherRobotIsRefusedByEveryCommandAndACalibrationOfItAccepted) {
  const fs::path d = fresh_dir("vcloe-mechanism-input", "model");
  const std::string ref = input_reference(d), robot = config_dir + "robot.yaml", text = read_file(robot);
  const std::string other = input_edit(text, "link_length: 0.276075890767297", "link_length: 0.28");
  input_write(d / "m.yaml", other);
  const std::string m = (d / "m.yaml").string();
  FILE* p = popen(("sha256sum '" + robot + "'").c_str(), "r");
  char hash[65] = {};
  ASSERT_EQ(std::fread(hash, 1, 64, p), 64u);
  pclose(p);
  // A calibrated file is read sealed (sim::check_calibrated_seal): this one as calibrate kinematics would seal it.
  input_write(d / "cal.yaml", vcloe::sim::sealed_calibrated_text("# calibrated\n#   from robot file " + robot + " (SHA-256 " + hash + ")\n" + other));
  input_write(d / "copy.yaml", text + "# a copy with one more line\n");
  const std::string another = "is a model of another robot: geometry of leg 1 differs from ";
  expect_refused({{"validate --model " + m + " --n 1", m + ": " + another + robot + " (--priors)"},
                  {"predict --model " + m + " --reference " + ref, m + ": " + another + robot + " (--robot)"},
                  {"precorrect --model " + m + " --reference " + ref + " --out " + (d / "p.csv").string(), another},
                  {"predict --model " + (d / "cal.yaml").string() + " --robot " + (d / "copy.yaml").string() + " --reference " + ref,
                   "; it is calibrated from " + robot}},
                 5.0);
  const CommandResult cal = run_vcloe("predict --model " + (d / "cal.yaml").string() + " --reference " + ref);
  EXPECT_EQ(cal.status, 0) << cal.out;
}

// Every key of an experiment file is optional, yet an empty one or one of comments only was
// refused ("expected a YAML map at the top level"); now all defaults, as the other files whose
// keys are all optional (the one YAML reader).
TEST(CliMechanism, AnExperimentFileOfCommentsOnlyIsAllDefaults) {
  const fs::path d = fresh_dir("vcloe-mechanism-input", "empty");
  const std::string ref = input_reference(d);
  const CommandResult defaults = run_vcloe("kinematics --reference " + ref);
  ASSERT_EQ(defaults.status, 0) << defaults.out;
  for (const std::string text : {"", "# all defaults\n", "\n  # indented comment\n\n"}) {
    input_write(d / "e.yaml", text);
    const CommandResult r = run_vcloe("kinematics --reference " + ref + " --experiment " + (d / "e.yaml").string());
    EXPECT_EQ(r.status, 0) << text << r.out;
    EXPECT_EQ(r.out, defaults.out) << text;
  }
}
