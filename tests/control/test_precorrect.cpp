// Specification of control/precorrect: the inverse of the drives' law returns the torques asked
// for, the correction replaces exactly the feedforward the outer law holds, and the twin whose
// model made the pre-correction follows the reference far closer than under the servo alone.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "../test_support.hpp"
#include "control_fixtures.hpp"
#include "vcloe/control/precorrect.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/control/precorrection_file.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"

using namespace vcloe;

namespace {

servo::OuterGains zero_gains() {
  servo::OuterGains g;
  g.kp.setZero(), g.ki.setZero(), g.kd.setZero();
  return g;
}

}  // namespace

TEST(InverseDrives, CommandsMakeTheDrivesLawOutputTheTorquesAskedFor) {
  // Random torques and encoder angles tick by tick: servo::InnerPid (eq. 31, the twin's drives),
  // started holding the same torque, outputs exactly the torques the inverse was asked for.
  const sim::LambdaVector<double>& lambda = control_test::priors().lambda;
  const servo::DriveGains<double> g = servo::drive_gains<double>(lambda);
  const double Tc = 1e-3;
  std::mt19937 rng(21);
  std::normal_distribution<double> n(0.0, 1.0);
  Vec6d hold;
  for (int i = 0; i < 6; ++i) hold(i) = 5 * n(rng);
  control::InverseDrives inverse(g, Tc, hold);
  servo::InnerPid<double> pid;
  pid.start_holding(g, hold);
  double worst = 0;
  for (int k = 0; k < 2000; ++k) {
    Vec6d tau, theta;
    for (int i = 0; i < 6; ++i) tau(i) = 10 * n(rng), theta(i) = 0.5 * n(rng);
    const Vec6d U = inverse.command(tau, theta);
    worst = std::max(worst, (pid.update(g, U, theta, Tc) - tau).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst, 1e-9);
}

TEST(Precorrect, WithZeroGainsTheIdealCommandIsTheHeldIkFeedforward) {
  // The outer law on a perfect run with zero gains commands IK of the start pose until the first
  // frame arrives, then IK(chi_d) at the arrival of the last frame arrived (servo/reference.hpp).
  const servo::LoopTiming timing;
  const excitation::FourierTrajectory tr = control_test::random_reference(4, 1.0);
  const servo::PreparedReference ref = servo::prepare_reference(control_test::priors().model, timing, tr);
  const std::vector<Vec6d> ideal = control::ideal_commands(ref, zero_gains());
  ASSERT_EQ(ideal.size(), static_cast<std::size_t>(ref.clock.total_ticks));
  Vec6d held = ref.start_theta;
  for (int k = 0; k < ref.clock.total_ticks; ++k) {
    if (const int j = ref.clock.arriving_at(k); j >= 0) {
      Vec6d theta;
      ASSERT_TRUE(sim::inverse_kinematics<double>(control_test::priors().model, tr.pose(ref.clock.time(k)), theta));
      held = theta;
    }
    ASSERT_LT((ideal[static_cast<std::size_t>(k)] - held).norm(), 1e-12) << k;
  }
}

namespace {

// The twin of `model` on `ref` under the pre-correction `command`, with the outer `gains`.
servo::LoopResult<double> precorrected_twin(const sim::RobotFile& model, const servo::PreparedReference& ref,
                                            const servo::OuterGains& gains, const std::vector<Vec6d>& command) {
  const std::vector<Vec6d> correction = control::correction_of(ref, gains, command);
  servo::TwinRobot<double> twin(model.model, model.lambda, ref.clock.timing, ref.start_pose);
  control::PrecorrectedRobot<servo::TwinRobot<double>> corrected(twin, correction);
  servo::VisualServo<double> outer(ref, gains);
  servo::ExactPose camera;
  return servo::run_loop<double>(corrected, outer, camera);
}

}  // namespace

TEST(Precorrect, TheTwinOfTheModelFollowsItsPreCorrectedReference) {
  // The twin (modeled drives, our dynamics) with the very model of the pre-correction: alone
  // (zero outer gains) and inside the outer loop, what remains is the zero-order hold's and
  // RK4's error, far below the servo alone's; the outer loop adds nothing on a run that follows.
  const sim::RobotFile& model = control_test::priors();
  const servo::LoopTiming timing;
  const excitation::FourierTrajectory tr = control_test::random_reference(5, 4.0);
  const servo::PreparedReference ref = servo::prepare_reference(model.model, timing, tr);
  const control::PreCorrection pc = control::precorrect(model.model, model.lambda, ref.clock, control::motion_of(tr));
  const auto alone = servo::simulate_twin<double>(model.model, model.lambda, ref, servo::OuterGains{});
  const auto open = precorrected_twin(model, ref, zero_gains(), pc.command);
  const auto inside = precorrected_twin(model, ref, servo::OuterGains{}, pc.command);
  ASSERT_TRUE(alone.ok && open.ok && inside.ok) << alone.failure << open.failure << inside.failure;
  // From 1 s on: a random reference starts moving at t = 0 while the robot stands (a step in
  // velocity no command can follow); the first second is that step's transient (docs/control.md).
  const auto a = control_test::tracking_rms(ref, alone, 1.0), o = control_test::tracking_rms(ref, open, 1.0),
             i = control_test::tracking_rms(ref, inside, 1.0);
  std::printf("twin from 1 s: servo alone %.4f mm %.4f mrad, pre-corrected alone %.5f mm %.5f mrad, inside %.5f mm %.5f mrad\n",
              a.position * 1e3, a.angle * 1e3, o.position * 1e3, o.angle * 1e3, i.position * 1e3, i.angle * 1e3);
  EXPECT_LT(o.position, a.position / 100);
  EXPECT_LT(o.angle, a.angle / 100);
  EXPECT_LT(i.position, a.position / 100);
  EXPECT_LT(i.angle, a.angle / 100);
}

TEST(Precorrect, OnTheVirtualRobotTheTrueModelInsideTheLoopBeatsTheServoAlone) {
  // MuJoCo with its own drives' firmware and friction, the exact camera: the pre-correction made
  // with the true parameters, inside the outer loop.
  const servo::LoopTiming timing;
  const excitation::FourierTrajectory tr = control_test::random_reference(6, 4.0);
  const servo::PreparedReference ref = servo::prepare_reference(control_test::priors().model, timing, tr);
  const sim::RobotFile& truth = control_test::truth();
  const control::PreCorrection pc = control::precorrect(truth.model, truth.lambda, ref.clock, control::motion_of(tr));
  const std::vector<Vec6d> correction = control::correction_of(ref, servo::OuterGains{}, pc.command);
  const auto alone = control_test::run_on_virtual_robot(ref, truth, servo::OuterGains{}, nullptr);
  const auto inside = control_test::run_on_virtual_robot(ref, truth, servo::OuterGains{}, &correction);
  ASSERT_TRUE(alone.loop.ok && inside.loop.ok) << alone.loop.failure << inside.loop.failure;
  const auto a = control_test::tracking_rms(ref, alone.loop, 1.0), p = control_test::tracking_rms(ref, inside.loop, 1.0);
  std::printf("virtual robot from 1 s: servo alone %.4f mm %.4f mrad, pre-corrected (truth) %.5f mm %.5f mrad\n",
              a.position * 1e3, a.angle * 1e3, p.position * 1e3, p.angle * 1e3);
  EXPECT_LT(p.position, a.position / 5);
  EXPECT_LT(p.angle, a.angle / 5);
}

TEST(PrecorrectionFile, ReadsBackWhatWasWrittenAndRefusesAnotherReference) {
  const auto dir = std::filesystem::temp_directory_path() / ("vcloe-precorrection-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "p.csv").string(), ref_a = (dir / "a.yaml").string(), ref_b = (dir / "b.yaml").string();
  std::ofstream(ref_a) << "a\n";
  std::ofstream(ref_b) << "b\n";
  control::PrecorrectionFile f;
  f.controller_hz = 1000;
  f.command = {Vec6d::Constant(0.1), Vec6d::Constant(-0.2), Vec6d::LinSpaced(6, 0.0, 0.5)};
  f.reference = file_record(ref_a);
  f.software_version = "test";
  control::write_precorrection(path, f, false);
  const control::PrecorrectionFile back = control::read_precorrection(path);
  ASSERT_EQ(back.command.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(back.command[k], f.command[k]);
  EXPECT_EQ(back.reference, f.reference);
  EXPECT_EQ(back.loop, control::kLoopServo);
  EXPECT_NO_THROW(control::check_precorrection_for(back, path, ref_a, 1000, 3));
  EXPECT_NE(test::error_of([&] { control::check_precorrection_for(back, path, ref_b, 1000, 3); }).find("another reference"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { control::check_precorrection_for(back, path, ref_a, 500, 3); }).find("500 Hz"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { control::check_precorrection_for(back, path, ref_a, 1000, 4); }).find("needs 4"),
            std::string::npos);
  f.loop = control::kLoopDrives;  // learnt on the drives' loop alone: recorded
  control::write_precorrection(path, f, true);
  EXPECT_EQ(control::read_precorrection(path).loop, control::kLoopDrives);
  {
    nlohmann::json side = nlohmann::json::parse(read_input_file(sidecar_path(path), InputKind::Json));
    side["loop"] = "outer";
    std::ofstream(sidecar_path(path)) << side.dump();
    test::seal_again(sidecar_path(path));  // the check behind the seal
    EXPECT_NE(test::error_of([&] { control::read_precorrection(path); }).find("loop"), std::string::npos);
    side.erase("loop");  // a file of before the key: inside the servo
    std::ofstream(sidecar_path(path)) << side.dump();
    test::seal_again(sidecar_path(path));  // the check behind the seal
    EXPECT_EQ(control::read_precorrection(path).loop, control::kLoopServo);
    // A learnt command's sidecar is vcloe learn's: a key missing there names that writer (probe 26's k6-p01).
    side["kind"] = control::kKindLearnt;
    std::ofstream(sidecar_path(path)) << side.dump();
    test::seal_again(sidecar_path(path));  // the check behind the seal
    EXPECT_EQ(test::error_of([&] { control::read_precorrection(path); }),
              sidecar_path(path) + ": key 'truth': missing (written by vcloe learn)");
    side["kind"] = control::kKindPrecorrection;
    side.erase("ticks");
    std::ofstream(sidecar_path(path)) << side.dump();
    test::seal_again(sidecar_path(path));  // the check behind the seal
    EXPECT_EQ(test::error_of([&] { control::read_precorrection(path); }),
              sidecar_path(path) + ": key 'ticks': missing (written by vcloe precorrect)");
    side["ticks"] = 3;
    std::ofstream(sidecar_path(path)) << side.dump();
    test::seal_again(sidecar_path(path));  // the check behind the seal
  }
  std::ofstream(path, std::ios::app) << "0.003,0,0,0,0,0,0\n";  // the CSV changed behind its sidecar
  EXPECT_NE(test::error_of([&] { control::read_precorrection(path); }).find("does not belong to its sidecar"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// The pre-correction CSV is read by the one numeric CSV reader (core/csv_table.hpp), as traces
// are: a file a spreadsheet saved with CRLF line ends, a byte-order mark, spaces around cells and
// '+' signs reads back the same commands (each was "expected the header" or "expected a finite
// number"); a cell beyond any angle names its column.
TEST(PrecorrectionFile, ASpreadsheetsSavedCopyReadsBackTheSameCommands) {
  const auto dir = std::filesystem::temp_directory_path() / ("vcloe-precorrection-csv-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "p.csv").string(), ref = (dir / "a.yaml").string();
  std::ofstream(ref) << "a\n";
  control::PrecorrectionFile f;
  f.controller_hz = 1000;
  f.command = {Vec6d::Constant(0.1), Vec6d::Constant(-0.2), Vec6d::LinSpaced(6, 0.0, 0.5)};
  f.reference = file_record(ref);
  f.software_version = "test";
  control::write_precorrection(path, f, false);
  const std::string csv = read_input_file(path, InputKind::Trace);
  // The CSV replaced behind its sidecar, the sidecar's hash made to match (a user's edit).
  auto rewrite = [&](const std::string& text) {
    const std::string side = sidecar_path(path);
    std::string meta = read_input_file(side, InputKind::Json);
    const std::size_t at = meta.find("\"csv_sha256\": \"") + 15;
    meta.replace(at, 64, sha256(text));
    std::ofstream(side, std::ios::trunc) << meta;
    test::seal_again(side);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  };
  std::string edited = "\xEF\xBB\xBF";
  for (std::size_t start = 0; start < csv.size();) {
    const std::size_t end = csv.find('\n', start);
    std::string line = csv.substr(start, end - start);
    start = end + 1;
    for (std::size_t c = line.find(','); c != std::string::npos; c = line.find(',', c + 4)) line.replace(c, 1, " , ");
    if (line[0] != 't') line = "+" + line;
    edited += line + "\r\n";
  }
  rewrite(edited);
  const control::PrecorrectionFile back = control::read_precorrection(path);
  ASSERT_EQ(back.command.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(back.command[k], f.command[k]);
  std::string huge = csv;
  huge.replace(huge.rfind(',') + 1, std::string::npos, "1e300\n");
  rewrite(huge);
  EXPECT_EQ(test::error_of([&] { control::read_precorrection(path); }),
            path + ":4: column 'cmd_theta6': 1e300 is beyond any value a vcloe table holds (at most 1e+06 in the column's unit: s, m, rad, "
                   "N·m, N)");
  std::filesystem::remove_all(dir);
}
