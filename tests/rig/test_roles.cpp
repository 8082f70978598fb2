// Specification of rig/roles: the live rig's three roles, stepped together in one process over
// memory streams, record the trace of the in-process loop to the last bit; and each role keeps
// its part of the schedule (servo::TickClock) when a message is missing or invalid.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "../test_support.hpp"
#include "vcloe/bridge/safety.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/rig/roles.hpp"
#include "vcloe/rig/serve.hpp"
#include "vcloe/rig/transport.hpp"
#include "vcloe/servo/timing.hpp"
#include "vcloe/sim/kinematics.hpp"
#include "vcloe/sim/robot.hpp"

using namespace vcloe;

namespace {

std::string config(const std::string& name) { return std::string(VCLOE_SOURCE_DIR) + "/config/" + name; }

// The default reference, cut to `seconds`, on the default robot and experiment.
rig::ExperimentSetup short_setup(double seconds) {
  excitation::FourierTrajectory trajectory = excitation::load_trajectory(config("reference.yaml"));
  trajectory.duration = seconds;
  rig::ExperimentSetup s = rig::make_setup(sim::load_robot(config("robot.yaml")),
                                           servo::load_experiment(config("experiment.yaml")), trajectory, "reference");
  s.robot_file = config("robot.yaml");
  s.experiment_file = config("experiment.yaml");
  s.reference_file = config("reference.yaml");
  return s;
}

bool same_bits(const std::vector<Vec6d>& a, const std::vector<Vec6d>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec6d)) == 0);
}

bridge::PoseMessage pose_of(std::int64_t frame, const Vec6d& pose, bool valid = true) {
  bridge::PoseMessage p;
  p.frame = frame;
  p.pose = pose;
  p.valid = valid;
  return p;
}

}  // namespace

TEST(RigRoles, SteppedTogetherTheyRecordTheInProcessRunsTraceToTheLastBit) {
  const rig::ExperimentSetup s = short_setup(1.0);
  const sim::RobotFile truth = sim::load_robot(config("truth.yaml"), true);
  rig::VirtualRun run;
  run.seed = 7;
  const PoseTrace loop = rig::virtual_trace(s, truth, run, config("truth.yaml"));
  const PoseTrace roles = rig::stepped_trace(s, truth, run);
  ASSERT_EQ(roles.size(), loop.size());
  EXPECT_GT(roles.size(), 50u);
  EXPECT_EQ(std::memcmp(roles.time.data(), loop.time.data(), loop.time.size() * sizeof(double)), 0);
  EXPECT_TRUE(same_bits(roles.reference, loop.reference));
  EXPECT_TRUE(same_bits(roles.measured, loop.measured));
  EXPECT_TRUE(same_bits(roles.command, loop.command));
  EXPECT_EQ(roles.metadata.source, "rig");
}

TEST(RigRoles, TheRobotHoldsThePreviousCommandWhenAFramesCommandHasNotArrived) {
  const rig::ExperimentSetup s = short_setup(0.5);
  const servo::TickClock& c = s.reference.clock;
  rig::RobotSchedule robot(c, s.reference.start_theta);
  const Vec6d first = Vec6d::Constant(0.01), third = Vec6d::Constant(0.03);
  robot.take(0, first);
  std::vector<Vec6d> applied(static_cast<std::size_t>(c.total_ticks));
  for (; !robot.finished(); robot.advance()) {
    const int arrived = robot.begin_tick();
    if (arrived == 2) robot.take(2, third);  // frame 1's command never comes
    applied[static_cast<std::size_t>(robot.tick())] = robot.apply_due(arrived);
  }
  const auto at = [&](int tick) { return applied[static_cast<std::size_t>(tick)]; };
  EXPECT_EQ(at(c.arrival_tick(0) - 1), s.reference.start_theta);  // before frame 0's arrival: the start hold
  EXPECT_EQ(at(c.arrival_tick(0)), first);
  EXPECT_EQ(at(c.arrival_tick(1)), first) << "frame 1's command is missing: frame 0's is held";
  EXPECT_EQ(at(c.arrival_tick(2) - 1), first);
  EXPECT_EQ(at(c.arrival_tick(2)), third);
  EXPECT_EQ(robot.late(), c.updates() - 2) << "every frame but 0 and 2 came without its command";
  // The first late frames are kept for the robot's summary: 1, then 3, 4, ... up to the bound.
  const std::vector<std::int64_t>& late = robot.first_late_frames();
  ASSERT_EQ(late.size(), rig::RobotSchedule::kLateFramesKept);
  EXPECT_EQ(late[0], 1);
  for (std::size_t i = 1; i < late.size(); ++i) EXPECT_EQ(late[i], static_cast<std::int64_t>(i) + 2);
}

TEST(RigRoles, TheRobotTakesCommandsInFrameOrderWithinTheRunOnly) {
  const rig::ExperimentSetup s = short_setup(0.5);
  rig::RobotSchedule robot(s.reference.clock, s.reference.start_theta);
  EXPECT_EQ(robot.frame_problem(0), "");
  EXPECT_EQ(robot.frame_problem(1), "");  // one frame of slack for a camera's own clock
  // A command answers the pose of its frame: one for a frame not yet exposed is refused (it was
  // taken, and the honest next one refused as "after" it).
  EXPECT_NE(robot.frame_problem(2).find("command for frame 2 before its pose: the newest frame exposed is 0"),
            std::string::npos);
  while (robot.tick() < s.reference.clock.exposure_tick(3)) robot.advance();
  robot.take(3, Vec6d::Zero());
  EXPECT_NE(robot.frame_problem(3), "");
  EXPECT_NE(robot.frame_problem(2), "");
  EXPECT_EQ(robot.frame_problem(4), "");
  EXPECT_NE(robot.frame_problem(s.reference.clock.updates()), "");
}

TEST(RigRoles, ControlHoldsItsCommandOnAnInvalidPoseAndTheTraceRepeatsTheLastValidPose) {
  const rig::ExperimentSetup s = short_setup(0.5);
  rig::ControlRole control(s);
  const Vec6d p0 = s.reference.start_pose + Vec6d::Constant(1e-4);
  const auto c0 = control.on_pose(pose_of(0, p0));
  ASSERT_TRUE(c0.has_value());
  const auto c1 = control.on_pose(pose_of(1, Vec6d::Constant(5.0), false));
  ASSERT_TRUE(c1.has_value());
  EXPECT_EQ(c1->theta, c0->theta) << "an invalid pose holds U";
  EXPECT_FALSE(control.on_pose(pose_of(1, p0)).has_value()) << "a frame already acted on";
  control.record(pose_of(0, p0), 0);
  control.record(pose_of(1, Vec6d::Constant(5.0), false), 0);
  control.record(pose_of(3, p0 * 2), 0);  // frame 2 never recorded
  EXPECT_EQ(control.emit_rows(true), 4u);
  const PoseTrace& t = control.trace();
  EXPECT_EQ(t.measured[1], p0);
  EXPECT_EQ(t.measured[2], p0);
  EXPECT_EQ(t.measured[3], p0 * 2);
  EXPECT_EQ(control.invalid(), std::vector<std::int64_t>{1});
  EXPECT_EQ(control.missing(), std::vector<std::int64_t>{2});
}

// A pose the drives cannot have reached since the last valid one (a source that jumps, or turns to
// other units) is told before anything answers it; an honest motion, or a large one spread over
// the frames between, is not.
TEST(RigRoles, ControlTellsAPoseNoDriveCouldHaveReachedSinceTheLastOne) {
  const rig::ExperimentSetup s = short_setup(0.5);
  rig::ControlRole control(s);
  const Vec6d p0 = s.reference.start_pose;
  ASSERT_EQ(control.unreachable(pose_of(0, p0)), "");
  ASSERT_TRUE(control.on_pose(pose_of(0, p0)).has_value());
  Vec6d near = p0, jump = p0, tilt = p0, gone = p0;
  near(0) += 1e-3;   // 1 mm in a camera period: within the drives' reach
  jump(0) += 50e-3;  // 50 mm in one period
  tilt(3) += 0.3;    // 0.3 rad of roll in one period
  gone(2) += 5.0;    // out of reach (metres read as ... anything)
  EXPECT_EQ(control.unreachable(pose_of(1, near)), "");
  EXPECT_NE(control.unreachable(pose_of(1, jump)).find("would have moved"), std::string::npos);
  EXPECT_NE(control.unreachable(pose_of(1, tilt)).find("would have moved"), std::string::npos);
  EXPECT_NE(control.unreachable(pose_of(1, gone)).find("out of the robot's reach"), std::string::npos);
  EXPECT_EQ(control.unreachable(pose_of(1, jump, false)), "") << "an invalid pose holds U: nothing to judge";
  EXPECT_EQ(control.unreachable(pose_of(40, jump)), "") << "50 mm over 40 frames is within reach";
  ASSERT_TRUE(control.on_pose(pose_of(1, near)).has_value());
  Vec6d back = near;
  back(0) -= 2e-3;
  EXPECT_EQ(control.unreachable(pose_of(2, back)), "") << "judged from the last valid pose acted on";
}

// Probe 35, D: a peer whose pose stayed at the reference's start while the commands moved on
// wound the outer loop up until its command left the joint range, and control called the pose
// "none the robot can have". The pose within the range is said as a pose that did not follow; a
// pose out of the range is the pose's own fault (""), as before.
TEST(RigRoles, ACommandOutOfRangeAnsweringAPoseWithinItIsSaidAsAPoseThatDidNotFollow) {
  const rig::ExperimentSetup s = short_setup(0.5);
  rig::ControlRole control(s);
  const Vec6d p0 = s.reference.start_pose;
  const double limit = s.model.joint_limit;
  const std::string said = control.pose_not_followed(pose_of(3, p0), limit);
  EXPECT_NE(said.find("the pose itself is within the joint range"), std::string::npos) << said;
  EXPECT_NE(said.find("did not follow the commands"), std::string::npos) << said;
  Vec6d theta;
  ASSERT_TRUE(sim::inverse_kinematics<double>(s.model, p0, theta));
  EXPECT_EQ(control.pose_not_followed(pose_of(3, p0), 0.5 * theta.cwiseAbs().maxCoeff()), "")
      << "a pose whose own joints are out of the range is the cause";
  EXPECT_EQ(control.pose_not_followed(pose_of(3, p0, false), limit), "") << "an invalid pose holds U";
}

TEST(RigRoles, ARunningStatusWhoseTickGoesBackIsSaid) {
  // Probe 35, L-control-tickback: running ticks 500 then 3 went unmentioned.
  EXPECT_EQ(rig::running_tick_problem(3, -1), "") << "the first running status";
  EXPECT_EQ(rig::running_tick_problem(500, 500), "") << "an adapter that repeats its tick";
  EXPECT_EQ(rig::running_tick_problem(501, 500), "");
  EXPECT_EQ(rig::running_tick_problem(3, 500), "went back from tick 500 to 3 (a robot restarted, or another one on the stream?)");
}

// Probe 23, class D: x = 2e6 m or z = 1e300 (finite, valid) is refused at the same check, as a
// value no trace holds; the run then ends before that frame, so the trace up to there (rows 0 to
// 19, never the refused pose) can be written: it ended at the trace writer's "row 21 ... absurd".
TEST(RigRoles, ControlRefusesAPoseNoTraceCanHoldAndItsTraceEndsBeforeIt) {
  const rig::ExperimentSetup s = short_setup(0.5);
  const Vec6d p0 = s.reference.start_pose;
  Vec6d far = p0, huge = p0, angle = p0;
  far(0) = 2e6, huge(2) = 1e300, angle(3) = 2e6;
  for (const Vec6d& absurd : {far, huge, angle}) {
    rig::ControlRole control(s);
    for (std::int64_t j = 0; j < 3; ++j) {
      ASSERT_EQ(control.unreachable(pose_of(j, p0)), "");
      ASSERT_TRUE(control.on_pose(pose_of(j, p0)).has_value());
      control.record(pose_of(j, p0), 0);
    }
    EXPECT_NE(control.unreachable(pose_of(3, absurd)).find("holds a value beyond 1e+06 (m or rad), which no trace holds"),
              std::string::npos)
        << absurd.transpose();
    control.record(pose_of(3, absurd), 0);
    control.record(pose_of(4, p0), 0);  // received before the run stopped
    control.end_at(3);
    EXPECT_EQ(control.emit_rows(true), 3u) << "the rows of the frames the controller took";
    EXPECT_NO_THROW(write_trace((vcloe::test::fresh_directory("vcloe-roles", "absurd") / "o.csv").string(),
                                control.trace(), true));
  }
}

TEST(RigRoles, AMemoryStreamDeliversEachMessageOnceInOrder) {
  rig::MemoryStream stream;
  stream.publish(pose_of(4, Vec6d::Zero()));
  stream.publish(bridge::HeartbeatMessage{});
  const auto a = stream.receive(), b = stream.receive();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(std::get<bridge::PoseMessage>(*a).frame, 4);
  EXPECT_TRUE(std::holds_alternative<bridge::HeartbeatMessage>(*b));
  EXPECT_FALSE(stream.receive().has_value());
}

// The move to the start (docs/protocol.md, "Move to start"): a robot standing off the start is
// brought there through the safety monitor's rate limit of the run, never held back or stopped
// by it at any move speed within the limit; a ramp faster than the limit is held back.
TEST(RigRoles, ARobotStandingOffTheStartReachesItThroughTheRateLimitWithoutAStop) {
  const rig::ExperimentSetup s = short_setup(1.0);
  const sim::RobotFile truth = sim::load_robot(config("truth.yaml"), true);
  const double Tc = s.experiment.timing.controller_period(), Tcam = s.experiment.timing.camera_period();
  Vec6d stand = s.reference.start_theta;
  stand(0) += 0.2, stand(3) -= 0.15, stand(5) += 0.05;
  for (const double speed : {0.5, 2.0}) {
    hw::VirtualRobotOptions opt = rig::virtual_robot_options(s, {}, {});
    opt.start_command = stand;
    hw::VirtualRobot robot(truth.model, truth.lambda, s.reference.start_pose, opt);
    bridge::SafetyMonitor monitor(bridge::SafetyLimits{}, Tcam, Tc);
    monitor.set_applied(stand);
    rig::StartRamp ramp(stand, s.reference.start_theta, speed, Tc);
    EXPECT_NEAR(ramp.ticks(), 0.2 / (speed * Tc), 1.0) << "the largest move, 0.2 rad, at " << speed << " rad/s";
    int ticks = 0;
    while (!ramp.done()) {
      ASSERT_TRUE(robot.step(monitor.limit(ramp.next()))) << robot.failure();
      ++ticks;
    }
    for (int k = 0; k < 2000 && (robot.joint_angles() - s.reference.start_theta).cwiseAbs().maxCoeff() > 1e-3; ++k)
      ASSERT_TRUE(robot.step(monitor.limit(s.reference.start_theta))) << robot.failure();
    EXPECT_FALSE(monitor.stop()) << speed;
    EXPECT_EQ(monitor.limited_ticks(), 0u) << "the ramp within the limit is never held back, at " << speed << " rad/s";
    EXPECT_EQ(ticks, ramp.ticks());
    EXPECT_EQ(monitor.applied(), s.reference.start_theta) << "the command ends exactly at the start hold";
    EXPECT_LE((robot.joint_angles() - s.reference.start_theta).cwiseAbs().maxCoeff(), 1e-3) << speed;
  }
  // Faster than the limit, the same monitor decides: a ramp 2 v Tc a tick uses up the allowance
  // (one camera period's reach, 0.1 rad) in 10 ticks, then runs ahead of the command applied by
  // v Tc a tick: over 0.3 rad at most 50 mrad ahead, held back, not stopped; over 0.6 rad further
  // ahead than that reach: stopped (reason 5).
  for (const double far : {0.3, 0.6}) {
    bridge::SafetyMonitor monitor(bridge::SafetyLimits{}, Tcam, Tc);
    Vec6d off = s.reference.start_theta;
    off(0) += far;
    monitor.set_applied(off);
    rig::StartRamp fast(off, s.reference.start_theta, 20.0, Tc);
    while (!fast.done() && !monitor.stop()) monitor.limit(fast.next());
    EXPECT_GT(monitor.limited_ticks(), 0u) << far;
    EXPECT_EQ(monitor.stop().has_value(), far > 0.45) << far;
    if (monitor.stop()) {
      EXPECT_EQ(monitor.stop()->reason, bridge::StopReason::CommandRateLimit);
    }
  }
  EXPECT_THROW(rig::StartRamp(stand, stand, 0.0, Tc), Error);
  EXPECT_EQ(rig::StartRamp(stand, stand, 1.0, Tc).ticks(), 0) << "standing at the start: nothing moves";
}

TEST(RigRoles, VisionPassesACameraPosesInvalidFlagOnAndNeverPublishesNaNAsValid) {
  // Probe 19's J: a camera-stream pose marked invalid (NaN fields allowed then) was measured and
  // published as valid. Invalid in, or not finite in or out: invalid out, its fields zero.
  const Vec6d nan = Vec6d::Constant(std::nan(""));
  Vec6d pose_out = Vec6d::Constant(0.01);
  rig::VisionRole vision([&](int, const Vec6d& truth) { return truth.allFinite() ? pose_out : nan; });
  const Vec6d good = Vec6d::Constant(0.02);
  EXPECT_TRUE(vision.on_truth(pose_of(1, good)).valid);
  for (const auto& [truth, why] : {std::pair{pose_of(2, good, false), "marked invalid"},
                                   std::pair{pose_of(3, nan, false), "invalid, NaN"},
                                   std::pair{pose_of(4, nan, true), "NaN marked valid"}}) {
    const bridge::PoseMessage p = vision.on_truth(truth);
    EXPECT_FALSE(p.valid) << why;
    EXPECT_TRUE(p.pose.allFinite() && p.pose.isZero()) << why;
    EXPECT_EQ(p.frame, truth.frame) << why;
  }
  pose_out = nan;  // a measurement that failed
  EXPECT_FALSE(vision.on_truth(pose_of(5, good)).valid);
}

TEST(RigRoles, ARobotsStopTickIsCheckedAgainstTheRunsTicks) {
  // Probe 19's E2: a stop tick of 2^62, 3 (after running ticks to 490) or 1500 (at once after 490)
  // became the sidecar's stopped.time_s unchecked.
  const rig::ExperimentSetup s = short_setup(2.0);
  const servo::TickClock& clock = s.reference.clock;
  const int tpf = clock.timing.ticks_per_frame();
  const std::int64_t last = 49 * tpf;
  EXPECT_EQ(rig::stop_tick_problem(clock, last, last, 0.001), "");
  EXPECT_EQ(rig::stop_tick_problem(clock, last + tpf, last, 0.001), "");
  EXPECT_EQ(rig::stop_tick_problem(clock, last + 200, last, 0.3), "") << "a realtime robot ticking on";
  for (const std::int64_t bad : {std::int64_t{1} << 62, std::int64_t{3}, last - 1, last + 10 * tpf,
                                 std::int64_t{clock.total_ticks} + 1, std::int64_t{-5}})
    EXPECT_NE(rig::stop_tick_problem(clock, bad, last, 0.001).find("stop tick " + std::to_string(bad)),
              std::string::npos)
        << bad;
  EXPECT_NE(rig::stop_tick_problem(clock, clock.total_ticks + 1, last, 1e6), "") << "never past the run's end";
}

TEST(RigRoles, AStopTickAheadOfTheFramesReceivedIsTheStopsTimeWithTheFramesNeverReceivedSaid) {
  // Probe 19's peer-ctl-stop-tick-future left open: a plausible tick ahead of the frames received
  // was taken without a word. rig::stopped_record is where the tick becomes stopped.time_s.
  const rig::ExperimentSetup s = short_setup(2.0);
  const servo::TickClock& clock = s.reference.clock;
  const int tpf = clock.timing.ticks_per_frame();
  const double Tc = clock.timing.controller_period();
  const std::int64_t last = 49 * tpf;  // running up to frame 49's exposure; frames 0 to 49 received
  const StoppedRecord on_time = rig::stopped_record(clock, "safety stop", 50, last + tpf / 2, last, 0.001);
  EXPECT_EQ(on_time.reason, "safety stop");
  EXPECT_DOUBLE_EQ(on_time.time_s, (last + tpf / 2) * Tc);
  const StoppedRecord ahead = rig::stopped_record(clock, "safety stop", 50, last + tpf + 1, last, 0.001);
  EXPECT_DOUBLE_EQ(ahead.time_s, (last + tpf + 1) * Tc) << "the robot's stop time all the same";
  EXPECT_NE(ahead.reason.find("; frame 50, exposed before the stop by the robot's tick"), std::string::npos) << ahead.reason;
  const StoppedRecord later = rig::stopped_record(clock, "safety stop", 48, last + tpf + 1, last, 0.001);
  EXPECT_NE(later.reason.find("frames 48 to 50,"), std::string::npos) << later.reason;
  EXPECT_EQ(later.frames, 48);
  const StoppedRecord far = rig::stopped_record(clock, "safety stop", 50, 1500, last, 0.001);
  EXPECT_DOUBLE_EQ(far.time_s, last * Tc) << "a tick it cannot have reached: the last running tick's time";
  EXPECT_NE(far.reason.find("stop tick 1500 is outside"), std::string::npos) << far.reason;
}

TEST(RigRoles, TheMoveToStartIsFollowedAlongItsPathAndMustEndAtTheStart) {
  // Probe 19 left open: --stand-at 0.99 0 0 0 0 0 passed every check, the move ended with the
  // drives at the start hold and the platform in another assembly mode (beta -0.88 rad), and the
  // run stopped at frame 2.
  // rig::move_path_problem (robot serve's and rig run's move_to_start_problem) follows it first.
  const sim::RobotFile truth = sim::load_robot(config("truth.yaml"), true);
  const sim::RobotModel robot = sim::load_robot(config("robot.yaml")).model;
  Vec6d start_pose;  // the probe's reference's start (`vcloe kinematics --reference`)
  start_pose << 0.017864572926042883, -0.004981767443919784, 0.19942353323632, -0.010660687432943931,
      -0.030586301358040253, -0.03474074357372973;
  Vec6d hold;
  ASSERT_TRUE(sim::inverse_kinematics<double>(robot, start_pose, hold));
  hold += sim::encoder_offsets(robot);
  EXPECT_EQ(rig::move_path_problem(truth.model, Vec6d::Unit(0) * 0.1, hold, start_pose), "");
  EXPECT_EQ(rig::move_path_problem(truth.model, hold, hold, start_pose), "") << "standing at the start";
  EXPECT_NE(rig::move_path_problem(truth.model, Vec6d::Unit(0) * 0.99, hold, start_pose).find("another assembly mode"),
            std::string::npos);
  EXPECT_NE(rig::move_path_problem(truth.model, Vec6d::Unit(3) * -0.99, hold, start_pose), "") << "joint 4, the other way";
}

TEST(RigRoles, TheRobotHasSettledAtTheStartOnlyWhenStillWithinTheToleranceForACameraPeriod) {
  // Reaching 1 mrad once is not settled: a joint swinging through the start is still moving.
  const double Tc = 0.001, Tcam = 0.01;
  const Vec6d start = Vec6d::Constant(0.2);
  rig::StartSettle settle(10, Tcam);
  int settled_at = -1;
  for (int k = 0; k < 2000 && settled_at < 0; ++k) {  // a decaying swing: 0.1 rad at 5 Hz, time constant 0.1 s
    const double t = k * Tc, swing = 0.1 * std::exp(-t / 0.1) * std::cos(2 * M_PI * 5 * t);
    if (settle.update(start + Vec6d::Unit(1) * swing, start, Tc)) settled_at = k;
  }
  ASSERT_GT(settled_at, 0);
  // At 5 Hz the swing's speed is 2 pi 5 = 31.4 times its amplitude: under 0.1 rad/s (1 mrad per
  // camera period) only once the amplitude is under 3.2 mrad (t >= 0.345 s); every swing is within
  // 1 mrad from t = 0.46 s, and settled a camera period later at the latest.
  EXPECT_GE(settled_at * Tc, 0.345);
  EXPECT_LE(settled_at * Tc, 0.48);
  rig::StartSettle still(10, Tcam);
  int n = 0;
  while (!still.update(start, start, Tc)) ++n;
  EXPECT_EQ(n, 10) << "standing still at the start: one camera period and the first reading";
  rig::StartSettle moving(10, Tcam);
  for (int k = 0; k < 100; ++k)  // creeping at 0.2 rad/s through the start: never settled
    EXPECT_FALSE(moving.update(start + Vec6d::Unit(0) * (0.2 * (k - 50) * Tc * 0.1), start, Tc * 0.1)) << k;
  EXPECT_NE(moving.describe().find("joint 1 "), std::string::npos) << moving.describe();
}

TEST(RigRoles, EveryStandAtTheCheckAcceptsTheVirtualRobotStandsAt) {
  // Probe 19's E: --stand-at 0.99 0 0 0 0 0 passed rig::stand_at_problem (FK from the home pose)
  // and the virtual robot then refused it without naming --stand-at (FK from the start pose).
  const rig::ExperimentSetup s = short_setup(1.0);
  const std::string truth_file = config("truth.yaml");
  const sim::RobotFile truth = sim::load_robot(truth_file, true);
  Vec6d far_roll = Vec6d::Zero();
  far_roll << 0.6, -0.6, 0.6, -0.6, 0.6, -0.6;
  // The start poses the robot looks from: the reference's, and the start pose of the probe's
  // reference (`vcloe kinematics --reference` of it), from which FK to 0.99 rad on joint 1 failed.
  Vec6d probes_start;
  probes_start << 0.017864572926042883, -0.004981767443919784, 0.19942353323632, -0.010660687432943931,
      -0.030586301358040253, -0.03474074357372973;
  int accepted = 0;
  for (const Vec6d& stand : {Vec6d(Vec6d::Unit(0) * 0.99), Vec6d(Vec6d::Unit(3) * 0.99), Vec6d(Vec6d::Constant(0.5)),
                             far_roll})
    for (const Vec6d& start_pose : {s.reference.start_pose, probes_start}) {
      if (rig::stand_at_problem(stand, truth_file)) continue;  // refused up front, in one line: fine
      ++accepted;
      hw::VirtualRobotOptions opt = rig::virtual_robot_options(s, {}, {});
      opt.start_command = stand;
      Vec6d chi;
      EXPECT_NO_THROW(chi = hw::standing_pose(truth.model, truth.lambda, start_pose, opt)) << stand.transpose();
      Vec6d theta;
      ASSERT_TRUE(sim::inverse_kinematics<double>(truth.model, chi, theta)) << stand.transpose();
      EXPECT_LT((theta + sim::encoder_offsets(truth.model) - stand).cwiseAbs().maxCoeff(), 1e-3) << stand.transpose();
    }
  EXPECT_GE(accepted, 4) << "0.99 on joint 1 (the probe's case) passes the check";
}
