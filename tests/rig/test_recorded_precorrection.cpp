// Specification of a pre-corrected run's trace (docs/traces.md, docs/control.md): the sidecar
// records the pre-correction that drove the robot, and whatever re-runs the twin on the trace —
// identification above all — drives it with the same command; a recorded pre-correction that is
// gone or has changed is refused in one line naming the sidecar and the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "vcloe/control/precorrect.hpp"
#include "vcloe/control/precorrection_file.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/oe_ident/problem.hpp"
#include "vcloe/oe_ident/sensitivity.hpp"
#include "vcloe/rig/roles.hpp"
#include "vcloe/rig/setup.hpp"
#include "../test_support.hpp"

using namespace vcloe;
namespace fs = std::filesystem;

namespace {

std::string rp_config(const std::string& name) { return std::string(VCLOE_SOURCE_DIR) + "/config/" + name; }

// A 2 s random reference and the truth's pre-correction for it, written in `dir`.
struct PrecorrectedFiles {
  std::string reference, precorrection;
};
PrecorrectedFiles write_precorrected(const fs::path& dir, std::uint64_t seed) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  const sim::RobotFile truth = sim::load_robot(rp_config("truth.yaml"), true);
  excitation::RandomTrajectoryOptions o;
  o.duration = 2;
  PrecorrectedFiles f{(dir / "r.yaml").string(), (dir / "p.csv").string()};
  std::ofstream(f.reference) << excitation::trajectory_to_yaml(excitation::random_feasible_trajectory(truth.model, seed, o));
  const rig::ExperimentSetup s = rig::load_setup(rp_config("robot.yaml"), "", f.reference);
  control::PrecorrectionFile p;
  p.controller_hz = s.experiment.timing.controller_hz;
  p.command = control::precorrect(truth.model, truth.lambda, s.reference.clock, control::motion_of(s.trajectory)).command;
  p.model = file_record(rp_config("truth.yaml")), p.reference = file_record(f.reference);
  control::write_precorrection(f.precorrection, p, true);
  return f;
}

}  // namespace

TEST(RecordedPrecorrection, TheTwinOfTheTruthReplaysAPreCorrectedVirtualRunAtTheCameraNoise) {
  const fs::path dir = fs::temp_directory_path() / "vcloe-recorded-precorrection";
  const PrecorrectedFiles f = write_precorrected(dir, 11);
  const std::string truth_file = rp_config("truth.yaml"), trace = (dir / "m.csv").string();
  rig::ExperimentSetup run = rig::load_setup(rp_config("robot.yaml"), "", f.reference);
  rig::use_precorrection(run, f.precorrection);
  rig::VirtualRun vo;
  vo.seed = 3;
  write_trace(trace, rig::virtual_trace(run, sim::load_robot(truth_file, true), vo, truth_file), true);

  const PoseTrace measured = read_trace(trace);
  ASSERT_TRUE(measured.metadata.precorrection);
  EXPECT_EQ(measured.metadata.precorrection->sha256, sha256_file_now(f.precorrection));
  // As identify reads it: a fresh setup on the priors, the recorded pre-correction taken up.
  rig::ExperimentSetup fit = rig::load_setup(rp_config("robot.yaml"), "", f.reference);
  EXPECT_NE(test::error_of([&] { rig::to_experiment(fit, measured, trace); }).find("was recorded with the pre-corrected command"),
            std::string::npos);
  rig::use_recorded_precorrection(fit, measured, trace);
  oe_ident::Experiment e = rig::to_experiment(fit, measured, trace);
  const sim::RobotFile truth = sim::load_robot(truth_file, true);
  const std::array<double, 6> with = oe_ident::rms_error(truth.model, truth.lambda, fit.experiment.outer, e);
  e.reference.command_correction.clear();
  const std::array<double, 6> without = oe_ident::rms_error(truth.model, truth.lambda, fit.experiment.outer, e);
  // The floor: the same on a run without pre-correction (the engines' difference and the noise).
  rig::ExperimentSetup plain = rig::load_setup(rp_config("robot.yaml"), "", f.reference);
  const oe_ident::Experiment p = rig::to_experiment(plain, rig::virtual_trace(plain, truth, vo, truth_file), "plain");
  const std::array<double, 6> floor = oe_ident::rms_error(truth.model, truth.lambda, plain.experiment.outer, p);
  for (int c = 0; c < 6; ++c) {
    std::printf("axis %d: measured - twin(truth) %.4f with the correction, %.4f without; uncorrected run %.4f (mm, mrad)\n",
                c, with[c], without[c], floor[c]);
    EXPECT_LT(with[c], 2 * floor[c]) << c;
    EXPECT_GT(without[c], 5 * floor[c]) << c;
  }
}

TEST(RecordedPrecorrection, TheSensitivitiesRunTheCorrectedTwin) {
  const fs::path dir = fs::temp_directory_path() / "vcloe-recorded-precorrection-sens";
  const PrecorrectedFiles f = write_precorrected(dir, 12);
  rig::ExperimentSetup s = rig::load_setup(rp_config("robot.yaml"), "", f.reference);
  const Eigen::MatrixXd P = Eigen::MatrixXd::Identity(sim::kNumLambda, 1);
  const auto plain = oe_ident::simulate_twin_sensitivity(s.model, s.lambda, s.reference, s.experiment.outer, P);
  rig::use_precorrection(s, f.precorrection);
  const auto sens = oe_ident::simulate_twin_sensitivity(s.model, s.lambda, s.reference, s.experiment.outer, P);
  const auto twin = servo::simulate_twin<double>(s.model, s.lambda, s.reference, s.experiment.outer);
  ASSERT_TRUE(sens.trace.ok && twin.ok && plain.trace.ok);
  double same = 0, moved = 0;
  for (std::size_t j = 0; j < twin.measured.size(); ++j) {
    same = std::max(same, (sens.trace.measured[j] - twin.measured[j]).cwiseAbs().maxCoeff());
    moved = std::max(moved, (plain.trace.measured[j] - twin.measured[j]).cwiseAbs().maxCoeff());
  }
  EXPECT_EQ(same, 0.0);
  EXPECT_GT(moved, 1e-5);
}

TEST(RecordedPrecorrection, ARecordedCorrectionGoneOrChangedIsRefusedNamingSidecarAndFile) {
  const fs::path dir = fs::temp_directory_path() / "vcloe-recorded-precorrection-gone";
  const PrecorrectedFiles f = write_precorrected(dir, 13);
  rig::ExperimentSetup run = rig::load_setup(rp_config("robot.yaml"), "", f.reference);
  rig::use_precorrection(run, f.precorrection);
  const PoseTrace twin = rig::twin_trace(run, run.lambda);
  const std::string trace = (dir / "t.csv").string();
  write_trace(trace, twin, true);
  const PoseTrace t = read_trace(trace);
  rig::ExperimentSetup fit = rig::load_setup(rp_config("robot.yaml"), "", f.reference);
  std::ofstream(f.precorrection, std::ios::app) << "\n";  // changed
  const std::string changed = test::error_of([&] { rig::use_recorded_precorrection(fit, t, trace); });
  EXPECT_NE(changed.find(sidecar_path(trace)), std::string::npos) << changed;
  EXPECT_NE(changed.find("p.csv, which has changed since"), std::string::npos) << changed;
  fs::remove(f.precorrection);
  const std::string gone = test::error_of([&] { rig::use_recorded_precorrection(fit, t, trace); });
  EXPECT_NE(gone.find(sidecar_path(trace)), std::string::npos) << gone;
  EXPECT_NE(gone.find("p.csv"), std::string::npos) << gone;
  EXPECT_NE(gone.find("not found"), std::string::npos) << gone;
  EXPECT_EQ(gone.find('\n'), std::string::npos);
}

TEST(RecordedPrecorrection, ACommandLearntOnTheDrivesLoopRunsOnlyWithTheOuterGainsZero) {
  const fs::path dir = fs::temp_directory_path() / "vcloe-recorded-precorrection-drives";
  const PrecorrectedFiles f = write_precorrected(dir, 17);
  control::PrecorrectionFile p = control::read_precorrection(f.precorrection);
  p.loop = control::kLoopDrives;  // as `vcloe learn --loop drives` writes it
  control::write_precorrection(f.precorrection, p, true);
  rig::ExperimentSetup run = rig::load_setup(rp_config("robot.yaml"), "", f.reference);
  const std::string refused = test::error_of([&] { rig::use_precorrection(run, f.precorrection); });
  EXPECT_NE(refused.find("p.csv: was learnt on the drives' loop alone"), std::string::npos) << refused;
  EXPECT_NE(refused.find("outer gains zero"), std::string::npos) << refused;
  EXPECT_TRUE(run.reference.command_correction.empty());
  const std::string experiment = (dir / "e.yaml").string();
  std::ofstream(experiment) << "outer_pid:\n  kp: 0\n  ki: 0\n  kd: 0\n";
  rig::ExperimentSetup drives = rig::load_setup(rp_config("robot.yaml"), experiment, f.reference);
  rig::use_precorrection(drives, f.precorrection);
  // With the outer gains zero the correction is the command less the held IK feedforward.
  EXPECT_EQ(drives.reference.command_correction, control::correction_of(drives.reference, drives.experiment.outer, p.command));
  fs::remove_all(dir);
}

TEST(RecordedPrecorrection, TheRigsRolesApplyItAsTheInProcessRunToTheLastBit) {
  const fs::path dir = fs::temp_directory_path() / "vcloe-recorded-precorrection-roles";
  const PrecorrectedFiles f = write_precorrected(dir, 14);
  const std::string truth_file = rp_config("truth.yaml");
  const sim::RobotFile truth = sim::load_robot(truth_file, true);
  rig::ExperimentSetup s = rig::load_setup(rp_config("robot.yaml"), "", f.reference);
  rig::use_precorrection(s, f.precorrection);
  rig::VirtualRun run;
  run.seed = 5;
  const PoseTrace loop = rig::virtual_trace(s, truth, run, truth_file), roles = rig::stepped_trace(s, truth, run);
  ASSERT_EQ(roles.size(), loop.size());
  bool same = true;
  for (std::size_t j = 0; j < loop.size(); ++j)
    same = same && roles.measured[j] == loop.measured[j] && roles.command[j] == loop.command[j];
  EXPECT_TRUE(same);
  ASSERT_TRUE(roles.metadata.precorrection);
  EXPECT_EQ(roles.metadata.precorrection->sha256, loop.metadata.precorrection->sha256);
}

namespace {

// A 2 s random reference, started at rest or not, written as `name` in `dir`.
std::string reference_file(const fs::path& dir, const std::string& name, bool at_rest) {
  fs::create_directories(dir);
  excitation::RandomTrajectoryOptions o;
  o.duration = 2;
  o.start_at_rest = at_rest;
  const std::string path = (dir / name).string();
  std::ofstream(path) << excitation::trajectory_to_yaml(
      excitation::random_feasible_trajectory(sim::load_robot(rp_config("robot.yaml")).model, 3, o));
  return path;
}

std::string followable_error(const rig::ExperimentSetup& s, std::size_t jump_at) {
  std::vector<Vec6d> command(s.reference.clock.total_ticks, s.reference.start_theta);
  for (std::size_t k = jump_at; k < command.size(); ++k) command[k] += Vec6d::Constant(0.3);
  try {
    rig::check_command_followable(s, command, "m.yaml: key 'drive_pid'");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(RecordedPrecorrection, ACommandThatCannotFollowAReferenceStartingToMoveBlamesItsStart) {
  // learn-not-at-rest: trial 2 "at t = 0 s: it moves faster than the joint rate limit" with no
  // file named, and precorrect blamed "model.yaml: key 'drive_pid'" for the same reference. In the
  // first camera period of a reference that does not start at rest, its start is the cause.
  const fs::path d = fs::temp_directory_path() / ("vcloe-not-at-rest-" + std::to_string(::getpid()));
  const std::string moving = reference_file(d, "moving.yaml", false), resting = reference_file(d, "resting.yaml", true);
  const rig::ExperimentSetup m = rig::load_setup(rp_config("robot.yaml"), "", moving);
  const rig::ExperimentSetup r = rig::load_setup(rp_config("robot.yaml"), "", resting);
  EXPECT_NE(rig::not_at_rest(m), "");
  EXPECT_EQ(rig::not_at_rest(r), "");
  // A step at the first tick after t = 0 (the robot stands where the command starts: servo::start_hold).
  const std::string at_start = followable_error(m, 1);
  EXPECT_EQ(at_start.rfind(moving + " does not start at rest (|chi_dot(0)| ", 0), 0u) << at_start;
  EXPECT_NE(at_start.find("trajectory random --at-rest"), std::string::npos) << at_start;
  EXPECT_NE(at_start.find("m.yaml: key 'drive_pid' at t = 0.001 s: "), std::string::npos) << at_start;
  // Later in the run, or on a reference at rest, the command's maker is named as before.
  EXPECT_EQ(followable_error(m, 1000).rfind("m.yaml: key 'drive_pid': at t = 1 s", 0), 0u) << followable_error(m, 1000);
  EXPECT_EQ(followable_error(r, 1).rfind("m.yaml: key 'drive_pid': at t = 0.001 s", 0), 0u) << followable_error(r, 1);
  fs::remove_all(d);
}
