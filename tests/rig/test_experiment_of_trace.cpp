// Specification of a measured trace as the fit's experiment (rig::to_experiment,
// docs/identification.md "What identify checks of its traces"): each row is paired with the
// exposure it measured by its time; the frames a live rig's sidecar lists as unmeasured
// (stream.invalid_frames, stream.missing_frames) have no row after the one reader and no pose in
// the experiment, the others keep theirs; a gap the sidecar does not record, or a trace that ends
// before the trajectory without listing its last frames, is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "vcloe/core/error.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/rig/setup.hpp"
#include "../test_support.hpp"

using namespace vcloe;
namespace fs = std::filesystem;

namespace test_experiment_of_trace {

namespace {

std::string eot_config(const std::string& name) { return std::string(VCLOE_SOURCE_DIR) + "/config/" + name; }

struct Recorded {
  rig::ExperimentSetup setup;
  PoseTrace trace;  // one row per exposure, as control writes it
  fs::path dir;
};

Recorded record(const std::string& name) {
  Recorded r;
  r.dir = fs::temp_directory_path() / ("vcloe-experiment-of-trace-" + name);
  fs::remove_all(r.dir);
  fs::create_directories(r.dir);
  const std::string reference = (r.dir / "r.yaml").string(), truth = eot_config("truth.yaml");
  excitation::RandomTrajectoryOptions o;
  o.duration = 0.5;
  const sim::RobotFile robot = sim::load_robot(truth, true);
  std::ofstream(reference) << excitation::trajectory_to_yaml(excitation::random_feasible_trajectory(robot.model, 7, o));
  r.setup = rig::load_setup(eot_config("robot.yaml"), "", reference);
  r.trace = rig::virtual_trace(r.setup, robot, rig::VirtualRun{}, truth);
  return r;
}

// The trace written with a rig sidecar's stream record listing `invalid` and `missing`, then read
// by the one reader (which leaves those rows out).
PoseTrace as_rig_trace(const Recorded& r, PoseTrace t, std::vector<std::int64_t> invalid, std::vector<std::int64_t> missing) {
  StreamRecord s;
  s.poses_received = t.size();
  s.invalid_frames = std::move(invalid), s.missing_frames = std::move(missing);
  t.metadata.stream = s;
  const std::string path = (r.dir / "rig.csv").string();
  write_trace(path, t, true);
  return read_trace(path);
}

}  // namespace

TEST(ExperimentOfTrace, AFrameTheRigDidNotMeasureHasNoPoseAndTheOthersKeepTheirExposures) {
  const Recorded r = record("gaps");
  const std::size_t n = r.setup.reference.exposure_times.size();
  ASSERT_EQ(r.trace.size(), n);
  const PoseTrace read = as_rig_trace(r, r.trace, {3, 17}, {18});
  ASSERT_EQ(read.size(), n - 3);
  const oe_ident::Experiment e = rig::to_experiment(r.setup, read, "rig.csv");
  ASSERT_EQ(e.measured.size(), n - 3);
  ASSERT_EQ(e.frames.size(), n - 3);
  std::size_t j = 0;
  for (std::size_t x = 0; x < n; ++x) {
    if (x == 3 || x == 17 || x == 18) continue;
    ASSERT_EQ(e.frames[j], x) << "pose " << j;
    ASSERT_EQ(e.measured[j], r.trace.measured[x]) << "pose " << j;
    ++j;
  }
  // Every exposure measured: no list (measured[j] is exposure j).
  EXPECT_TRUE(rig::to_experiment(r.setup, r.trace, "full.csv").frames.empty());
  // The last frame listed as unmeasured: the experiment ends at the one before.
  const oe_ident::Experiment last = rig::to_experiment(r.setup, as_rig_trace(r, r.trace, {static_cast<std::int64_t>(n - 1)}, {}), "rig.csv");
  ASSERT_EQ(last.frames.size(), n - 1);
  EXPECT_EQ(last.frames.back(), n - 2);
}

TEST(ExperimentOfTrace, AGapNoSidecarRecordsOrAnEarlyEndIsRefusedAtItsLine) {
  const Recorded r = record("refused");
  const std::size_t n = r.setup.reference.exposure_times.size();
  PoseTrace dropped = r.trace;  // row of exposure 5 taken out, nothing recorded of it
  for (auto* column : {&dropped.reference, &dropped.measured, &dropped.command, &dropped.truth})
    if (!column->empty()) column->erase(column->begin() + 5);
  dropped.time.erase(dropped.time.begin() + 5);
  const std::string gap = test::error_of([&] { rig::to_experiment(r.setup, dropped, "d.csv"); });
  EXPECT_NE(gap.find("d.csv:7: time " + exact_number(r.trace.time[6]) + " s does not match exposure " +
                     exact_number(r.trace.time[5]) + " s of the experiment"),
            std::string::npos)
      << gap;
  dropped.metadata.stream = StreamRecord{};  // a rig trace that records frames left out, none of them this one
  dropped.metadata.stream->invalid_frames = {2};
  PoseTrace shifted = dropped;  // a row between two exposures
  shifted.time[7] += 0.3 * (shifted.time[8] - shifted.time[7]);
  const std::string between = test::error_of([&] { rig::to_experiment(r.setup, shifted, "s.csv"); });
  EXPECT_NE(between.find("s.csv:9: time " + exact_number(shifted.time[7]) + " s does not match exposure"), std::string::npos)
      << between;
  // The trace stops before the trajectory's end, its last frames not listed: refused.
  PoseTrace early = as_rig_trace(r, r.trace, {2}, {});
  for (auto* column : {&early.reference, &early.measured, &early.command, &early.truth})
    if (!column->empty()) column->resize(early.size() - 4);
  early.time.resize(early.time.size() - 4);
  const std::string end = test::error_of([&] { rig::to_experiment(r.setup, early, "e.csv"); });
  EXPECT_NE(end.find("e.csv: has " + std::to_string(n - 5) + " rows up to t = " + exact_number(early.time.back()) +
                     " s but the reference exposes " + std::to_string(n) + " frames"),
            std::string::npos)
      << end;
  EXPECT_NE(end.find("too short for the trajectory"), std::string::npos) << end;
}

}  // namespace test_experiment_of_trace
