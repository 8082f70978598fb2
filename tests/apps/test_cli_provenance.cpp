// Specification of what `vcloe identify` checks of the traces it is given, before any fitting
// (docs/traces.md, docs/robustness.md): the robot each was recorded on (its robot file found,
// unchanged, readable, the same geometry) unless --accept-robot-mismatch, and the payload each
// was recorded with against the payload given for it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "vcloe/core/trace.hpp"

namespace fs = std::filesystem;
using cli_test::CommandResult;
using cli_test::run_vcloe;

namespace {

const std::string& config = cli_test::config_dir;

// A 2 s reference, its run without and with the default payload (5 kg), and settings that
// stop after one iteration: every check is reached in well under a minute.
struct Runs {
  fs::path dir, reference, plain, loaded, settings;
};

Runs make_runs(const std::string& name, const std::string& robot = config + "robot.yaml") {
  Runs r;
  r.dir = cli_test::fresh_dir("vcloe-cli-provenance", name);
  r.reference = r.dir / "short.yaml";
  r.plain = r.dir / "plain.csv";
  r.loaded = r.dir / "loaded.csv";
  r.settings = r.dir / "quick.yaml";
  EXPECT_EQ(run_vcloe("trajectory random --seed 4 --duration 2 --out " + r.reference.string()).status, 0);
  EXPECT_EQ(run_vcloe("run --robot " + robot + " --reference " + r.reference.string() + " --out " + r.plain.string()).status, 0);
  EXPECT_EQ(run_vcloe("run --seed 2 --payload-mass 5 --payload-inertia 0.02 0.02 0.03 --reference " + r.reference.string() +
                  " --out " + r.loaded.string()).status, 0);
  std::ofstream(r.settings) << "anchor: {type: payload}\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n"
                               "stopping: {max_iterations: 1}\nhorizons: [1.0]\n"
                             "start: {check: false}\n";  // (no second start: not what this specifies)
  return r;
}

std::string identify(const Runs& r, const fs::path& measured, const fs::path& loaded, const std::string& more = "") {
  return "identify --config " + r.settings.string() + " --measured " + measured.string() + " --payload-trace " +
         loaded.string() + " --out " + (r.dir / "m.yaml").string() + " --force " + more;
}

}  // namespace

TEST(CliProvenance, ATraceWhoseRobotFileChangedMovedOrWasNotRecordedIsRefusedUnlessAccepted) {
  const Runs base = make_runs("robot");
  const fs::path robot = base.dir / "my-robot.yaml";
  fs::copy_file(config + "robot.yaml", robot);
  const Runs r = make_runs("robot-runs", robot.string());
  // Changed since the recording (same geometry or not, the recorded one cannot be known now).
  std::ofstream(robot, std::ios::app) << "# edited after the run\n";
  CommandResult c = run_vcloe(identify(r, r.plain, r.loaded));
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("plain.csv: was recorded with the robot file " + robot.string() +
                       ", which has changed since (SHA-256 differs); pass --accept-robot-mismatch"),
            std::string::npos)
      << c.out;
  // Moved away.
  fs::rename(robot, base.dir / "elsewhere.yaml");
  c = run_vcloe(identify(r, r.plain, r.loaded));
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("my-robot.yaml: recorded in " + r.plain.string() + ".meta.json as the robot file, not found"),
            std::string::npos)
      << c.out;
  // No sidecar at all (an external CSV): nothing shows which robot it was recorded on.
  const fs::path bare = r.dir / "bare.csv";
  fs::copy_file(r.plain, bare);
  c = run_vcloe(identify(r, bare, r.loaded));  // (was "its sidecar does not record the reference file")
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("bare.csv: has no sidecar recording its reference file (" + bare.string() +
                       ".meta.json); pass --reference"),
            std::string::npos)
      << c.out;
  c = run_vcloe(identify(r, bare, r.loaded, "--reference " + r.reference.string()));
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("bare.csv: has no sidecar recording its robot file"), std::string::npos) << c.out;
  // The user's explicit override: fitted, with a warning naming what was not checked.
  c = run_vcloe(identify(r, r.plain, r.loaded, "--accept-robot-mismatch --json"));
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("vcloe: warning: " + r.plain.string() + ": cannot be checked"), std::string::npos) << c.out;
}

TEST(CliProvenance, APayloadThatDisagreesWithTheRecordedOneIsRefusedNamingBoth) {
  const Runs r = make_runs("payload");
  const fs::path seven = r.dir / "seven.yaml";
  std::ofstream(seven) << "mass: 7\ninertia: [0.02, 0.02, 0.03]\n";
  CommandResult c = run_vcloe(identify(r, r.plain, r.loaded, "--payload " + seven.string()));
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find(seven.string() + ": payload mass 7 kg disagrees with the 5 kg recorded in " + r.loaded.string() +
                       ".meta.json"),
            std::string::npos)
      << c.out;
  // The runs swapped, and a run without the payload given as the one with it.
  c = run_vcloe(identify(r, r.loaded, r.plain));
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("loaded.csv: was recorded with a payload"), std::string::npos) << c.out;
  c = run_vcloe(identify(r, r.plain, r.plain));
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("plain.csv: was recorded without a payload"), std::string::npos) << c.out;
}

// A recording an older vcloe wrote (its sidecar without the CSV's hash and the seal) is refused by
// every reader, naming `vcloe seal`; the sealed copy seal writes beside it is identified, and the
// original is left as it was (docs/traces.md, "Sealed sidecars"). What the seal refuses, seal
// refuses too: an edit of a sealed sidecar is no older vcloe's.
TEST(CliProvenance, ARecordingAnOlderVcloeWroteIsRefusedUntilSealedAndItsSealedCopyIsIdentified) {
  const Runs r = make_runs("unbound");
  const std::string sidecar = r.plain.string() + ".meta.json";
  nlohmann::json meta = nlohmann::json::parse(std::ifstream(sidecar));
  meta["source"] = "rig";  // an edit, the seal kept: refused, by seal too
  std::ofstream(sidecar) << meta.dump(2);
  const fs::path copy = r.dir / "adopted.csv";
  CommandResult c = run_vcloe("seal " + r.plain.string() + " --out " + copy.string());
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find(sidecar + ": key 'content_sha256': the content is not the one sealed"), std::string::npos) << c.out;
  meta["source"] = "virtual";
  meta.erase("csv_sha256");  // as written before the hash and the seal were recorded
  meta.erase("content_sha256");
  std::ofstream(sidecar) << meta.dump(2);
  const std::string old = cli_test::read_file(sidecar);
  c = run_vcloe(identify(r, r.plain, r.loaded, "--json"));
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find(sidecar + ": key 'content_sha256': missing: not a file as this vcloe writes it"), std::string::npos)
      << c.out;
  EXPECT_NE(c.out.find("; vcloe seal " + r.plain.string() + " --out COPY.csv seals a copy"), std::string::npos) << c.out;
  // What every reader checks behind the seal, seal checks: a run relabelled a twin is made again
  // and differs (probe 36, SE12b), and nothing is written.
  meta["source"] = "twin";
  std::ofstream(sidecar) << meta.dump(2);
  c = run_vcloe("seal " + r.plain.string() + " --out " + copy.string());
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("but the twin of the files its sidecar records"), std::string::npos) << c.out;
  EXPECT_FALSE(fs::exists(copy));
  meta["source"] = "virtual";
  std::ofstream(sidecar) << meta.dump(2);
  c = run_vcloe("seal " + r.plain.string() + " --out " + copy.string());
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("wrote " + copy.string() + " and " + copy.string() + ".meta.json: a sealed copy of "), std::string::npos)
      << c.out;
  EXPECT_EQ(cli_test::read_file(copy.string()), cli_test::read_file(r.plain.string())) << "the CSV byte for byte";
  EXPECT_EQ(cli_test::read_file(sidecar), old) << "the original left as it was";
  c = run_vcloe(identify(r, copy, r.loaded, "--json"));
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_EQ(c.out.find("records no SHA-256"), std::string::npos) << c.out;
}

TEST(CliProvenance, AnExperimentOrReferenceOtherThanTheRecordedOneIsRefusedNamingBoth) {
  // Another latency than the recorded one fitted a model "model error dominates" without saying
  // why; another reference ran 20 s and ended "leg 1 cannot close".
  const Runs r = make_runs("experiment");
  const fs::path late = r.dir / "late.yaml";
  std::ofstream(late) << "timing: {latency: 0.02}\n";
  CommandResult c = run_vcloe(identify(r, r.plain, r.loaded, "--experiment " + late.string()));
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_EQ(c.out.rfind("vcloe: error: ", 0), 0u) << c.out;  // the only line: no priors warning before it
  EXPECT_NE(c.out.find("plain.csv: was recorded with latency_s 0.01 (" + r.plain.string() + ".meta.json), but " +
                       late.string() + " gives 0.02: the twin would run another experiment than the one measured"),
            std::string::npos)
      << c.out;
  const fs::path other = r.dir / "other.yaml";
  ASSERT_EQ(run_vcloe("trajectory random --seed 5 --duration 2 --out " + other.string()).status, 0);
  c = run_vcloe(identify(r, r.plain, r.loaded, "--reference " + other.string()));
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("plain.csv:2: the reference columns (ref_*) at t = 0 s differ from " + other.string() +
                       ": the trace ran another reference"),
            std::string::npos)
      << c.out;
}

TEST(CliProvenance, SettingsThatLeaveNothingToFitAreTheOnlyLineNoPriorsWarningBeforeIt) {
  // The probe's id17b and id27: the default priors' consistency warning came first, then the error.
  const Runs r = make_runs("nothing-to-fit");
  for (const std::string anchor : {"{type: payload}\nfixed: [\"*\"]", "{type: none}"}) {
    std::ofstream(r.settings) << "anchor: " << anchor << "\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n";
    const CommandResult c = run_vcloe(identify(r, r.plain, r.loaded));
    EXPECT_EQ(c.status, 2) << c.out;
    EXPECT_EQ(c.out.rfind("vcloe: error: identify: no ", 0), 0u) << c.out;
    EXPECT_EQ(c.out.find("warning"), std::string::npos) << c.out;
  }
}

namespace test_cli_provenance {

TEST(CliProvenance, AnExperimentWhoseGainsDifferFromTheRecordedOneIsRefusedAndTheSameOneAccepted) {
  // Outer gains 10 % off the recorded experiment's: the timing matched, so it fitted silently.
  const Runs r = make_runs("gains");
  const std::string base = cli_test::read_file(config + "experiment.yaml");
  struct Case {
    std::string name, from, to, expected;
  };
  for (const Case& k : {Case{"kp.yaml", "kp: 0.3 ", "kp: 0.33 ", "outer_pid.kp[0] is 0.33, but "},
                        Case{"ki.yaml", "ki: 2.4 ", "ki: [2.4, 2.4, 2.4, 2.4, 2.4, 2.64] ", "outer_pid.ki[5] is 2.64, but "},
                        Case{"kd.yaml", "kd: 0.001 ", "kd: 0.0011 ", "outer_pid.kd[0] is 0.0011, but "}}) {
    std::string text = base;
    ASSERT_NE(text.find(k.from), std::string::npos) << k.from;
    text.replace(text.find(k.from), k.from.size(), k.to);
    std::ofstream(r.dir / k.name) << text;
    const CommandResult c = run_vcloe(identify(r, r.plain, r.loaded, "--experiment " + (r.dir / k.name).string()));
    EXPECT_EQ(c.status, 2) << c.out;
    EXPECT_NE(c.out.find(k.expected + r.plain.string() + " was recorded with "), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("the twin would run another controller than the one measured"), std::string::npos) << c.out;
  }
  // The same experiment under another name and with other comments: the same controller, accepted.
  std::ofstream(r.dir / "same.yaml") << "# a copy\n" << base;
  const CommandResult same = run_vcloe(identify(r, r.plain, r.loaded, "--json --experiment " + (r.dir / "same.yaml").string()));
  EXPECT_EQ(same.status, 0) << same.out;
}

TEST(CliProvenance, NoiseFreeTracesThatRunRecordsAreIdentified) {
  // `run --noise-* 0` records noise_sigma 0; identify refused it ("expected a positive number").
  const Runs r = make_runs("noisefree");
  const fs::path clean = r.dir / "clean.csv", loaded = r.dir / "clean-loaded.csv";
  ASSERT_EQ(run_vcloe("run --noise-position 0 --noise-angle 0 --reference " + r.reference.string() + " --out " + clean.string()).status, 0);
  ASSERT_EQ(run_vcloe("run --seed 2 --noise-position 0 --noise-angle 0 --payload-mass 5 --payload-inertia 0.02 0.02 0.03 "
                      "--reference " + r.reference.string() + " --out " + loaded.string()).status, 0);
  const CommandResult c = run_vcloe(identify(r, clean, loaded, "--json"));
  EXPECT_EQ(c.status, 0) << c.out;
  // A negative declared noise is still no camera's.
  const std::string sidecar = clean.string() + ".meta.json";
  nlohmann::json meta = nlohmann::json::parse(std::ifstream(sidecar));
  meta["noise_sigma"][0] = -1e-5;
  std::ofstream(sidecar) << meta.dump(2);
  const CommandResult bad = run_vcloe(identify(r, clean, loaded));
  EXPECT_EQ(bad.status, 2) << bad.out;
}

}  // namespace test_cli_provenance

// Recorded inputs that do not belong together (probe 19's class F), through the one check
// (core/provenance.hpp): identify's two experiments recorded on two virtual robots, or one on the
// twin and one on a virtual robot, refused before any fitting naming both; compare of two
// references said (and not of one).
TEST(CliProvenance, RecordingsOfTwoRobotsAreNotOneIdentificationAndTwoReferencesAreSaid) {
  const fs::path d = cli_test::fresh_dir("vcloe-cli-provenance", "together");
  const std::string ref = (d / "r.yaml").string(), ref2 = (d / "r2.yaml").string(), t5 = (d / "t5.yaml").string();
  ASSERT_EQ(run_vcloe("trajectory random --seed 4 --duration 0.5 --out " + ref).status, 0);
  ASSERT_EQ(run_vcloe("trajectory random --seed 5 --duration 0.5 --out " + ref2).status, 0);
  ASSERT_EQ(run_vcloe("truth random --seed 5 --out " + t5).status, 0);
  const std::string payload = " --seed 2 --payload-mass 5 --payload-inertia 0.02 0.02 0.03 --reference " + ref;
  ASSERT_EQ(run_vcloe("run --reference " + ref + " --out " + (d / "plain.csv").string()).status, 0);
  ASSERT_EQ(run_vcloe("run --truth " + t5 + payload + " --out " + (d / "loaded5.csv").string()).status, 0);
  ASSERT_EQ(run_vcloe("simulate --reference " + ref + " --out " + (d / "twin.csv").string()).status, 0);
  ASSERT_EQ(run_vcloe("run --reference " + ref2 + " --out " + (d / "other.csv").string()).status, 0);
  const fs::path settings = d / "quick.yaml";
  std::ofstream(settings) << "anchor: {type: payload}\npayload: {mass: 5, inertia: [0.02, 0.02, 0.03]}\n"
                             "stopping: {max_iterations: 1}\nhorizons: [1.0]\n";
  auto identify_pair = [&](const std::string& measured, const std::string& loaded) {
    return run_vcloe("identify --quiet --config " + settings.string() + " --measured " + (d / measured).string() +
                     " --payload-trace " + (d / loaded).string() + " --out " + (d / "m.yaml").string());
  };
  CommandResult c = identify_pair("plain.csv", "loaded5.csv");
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("loaded5.csv: does not belong with " + (d / "plain.csv").string() + " (--measured): "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("truth.yaml (SHA-256 "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find(", " + (d / "loaded5.csv").string() + " on another, " + t5 + " (SHA-256 "), std::string::npos) << c.out;
  EXPECT_FALSE(fs::exists(d / "m.yaml"));
  c = identify_pair("twin.csv", "loaded5.csv");
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("twin.csv was recorded on source \"twin\", "), std::string::npos) << c.out;
  // Probe 24's D: a payload trace along another reference (one robot) was fitted on its own
  // reference and the report recorded only the first: refused before the fit, naming both
  // traces and both references — with the references recorded, or one given as --reference.
  ASSERT_EQ(run_vcloe("run --seed 2 --payload-mass 5 --payload-inertia 0.02 0.02 0.03 --reference " + ref2 + " --out " +
                      (d / "loaded-r2.csv").string()).status, 0);
  for (const std::string& given : {std::string(), " --reference " + ref}) {
    c = run_vcloe("identify --quiet --config " + settings.string() + " --measured " + (d / "plain.csv").string() +
                  " --payload-trace " + (d / "loaded-r2.csv").string() + given + " --out " + (d / "m.yaml").string());
    EXPECT_EQ(c.status, 2) << c.out;
    EXPECT_EQ(c.out, "vcloe: error: " + (d / "loaded-r2.csv").string() + ": does not belong with " + (d / "plain.csv").string() +
                         " (--measured): " + (d / "plain.csv").string() + " ran the reference " + ref + " (SHA-256 " +
                         vcloe::sha256_file_now(ref).substr(0, 12) + "…), " + (d / "loaded-r2.csv").string() + " another, " +
                         ref2 + " (SHA-256 " + vcloe::sha256_file_now(ref2).substr(0, 12) +
                         "…): one reference was expected (the two experiments of one identification)\n")
        << given;
    EXPECT_FALSE(fs::exists(d / "m.yaml"));
  }
  // Probe 27's E: a payload trace run under other outer gains (another experiment, one robot and
  // reference) was fitted as if one controller had run both: refused before the fit, naming both.
  std::string experiment = cli_test::read_file(cli_test::config_dir + "experiment.yaml");
  const std::size_t ki = experiment.find("ki: 2.4");
  ASSERT_NE(ki, std::string::npos);
  std::ofstream(d / "e2.yaml") << experiment.replace(ki, 7, "ki: 1.2");
  ASSERT_EQ(run_vcloe("run --experiment " + (d / "e2.yaml").string() + payload + " --out " + (d / "loaded-e2.csv").string()).status, 0);
  c = identify_pair("plain.csv", "loaded-e2.csv");
  EXPECT_EQ(c.status, 2) << c.out;
  EXPECT_NE(c.out.find("loaded-e2.csv: does not belong with " + (d / "plain.csv").string() + " (--measured): "), std::string::npos)
      << c.out;
  EXPECT_NE(c.out.find("loaded-e2.csv the experiment " + (d / "e2.yaml").string() + " (SHA-256 "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find(": one outer controller was expected (the two experiments of one identification)\n"), std::string::npos)
      << c.out;
  EXPECT_FALSE(fs::exists(d / "m.yaml"));
  // compare: two references said, exit 0; one reference (a run and its twin): nothing said.
  c = run_vcloe("compare " + (d / "plain.csv").string() + " " + (d / "other.csv").string());
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("vcloe: warning: " + (d / "plain.csv").string() + " ran the reference " + ref), std::string::npos) << c.out;
  c = run_vcloe("compare " + (d / "plain.csv").string() + " " + (d / "twin.csv").string());
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_EQ(c.out.find("warning"), std::string::npos) << c.out;
}
