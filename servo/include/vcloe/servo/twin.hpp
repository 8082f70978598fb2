#pragma once
// vcloe/servo/twin.hpp — the digital twin: modeled drives (the inner joint PID, eq. 31, at the
// controller rate) on the rigid-body plant (eq. 40), a CommandedRobot that runs in the same loop
// as the real robot. Lambda (70, registry order) in any scalar type, so the identification can
// differentiate the simulated pose trace (ceres::Jet, or the forward sensitivities of oe_ident).
#include <type_traits>

#include "vcloe/servo/corrected_robot.hpp"
// The robot file's kinematic calibration acts where it acts on the virtual robot (hw/, rig/
// virtual_camera.hpp): the drives close eq. (31) on the encoders (crank angle + encoder_offset),
// the camera reports the marker frame (marker_frame), and the robot stands where its drives hold
// the reference's start command.
#include "vcloe/servo/loop.hpp"
#include "vcloe/servo/pose_history.hpp"
#include "vcloe/servo/rigid_plant.hpp"
#include "vcloe/sim/dynamics.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::servo {

// The model of the drives' built-in controllers: eq. (31) on the encoder angles and the held
// command, one update per controller period. pid() keeps the last update's error terms.
template <typename T>
class ModeledDrives {
 public:
  ModeledDrives(const DriveGains<T>& gains, double controller_period) : gains_(gains), dt_(controller_period) {}
  const DriveGains<T>& gains() const { return gains_; }
  const InnerPid<T>& pid() const { return pid_; }
  bool first_update() const { return first_; }  // the last update had no previous sample
  const Vec6<T>& torque() const { return tau_; }

  // Drives that have been holding the robot at rest: their integrals carry tau_hold.
  void start_holding(const Vec6<T>& tau_hold) { pid_.start_holding(gains_, tau_hold); }

  const Vec6<T>& update(const Vec6<T>& U, const Vec6<T>& theta) {
    first_ = !pid_.has_previous;
    tau_ = pid_.update(gains_, U, theta, dt_);
    return tau_;
  }

 private:
  DriveGains<T> gains_;
  double dt_;
  InnerPid<T> pid_;
  bool first_ = true;
  Vec6<T> tau_ = Vec6<T>::Zero();
};

template <typename T>
class TwinRobot {
 public:
  enum class Start { Holding, Unpowered };

  // The experiment starts with the robot standing at the start pose, its drives holding it
  // against gravity (docs/loop.md): the modeled drives' integrals carry this model's holding
  // torques J_ad^-T G. Start::Unpowered starts them at zero (validate-model's rigid comparison).
  TwinRobot(const sim::RobotModel& model, const sim::LambdaVector<T>& lambda, const LoopTiming& timing,
            const Vec6d& start_pose, Start start = Start::Holding)
      : plant_(model, lambda.template head<sim::kNumXi>(), timing, start_pose.cast<T>()),
        drives_(drive_gains<T>(lambda), timing.controller_period()),
        offsets_(sim::encoder_offsets(model)),
        has_offsets_(offsets_ != Vec6d::Zero()) {
    Vec6<T> tau_hold;
    if (start == Start::Holding && sim::holding_torques<T>(model, plant_.pose(), plant_.xi(), tau_hold))
      drives_.start_holding(tau_hold);
  }

  Vec6<T> pose() const { return plant_.pose(); }
  const std::string& failure() const { return failure_.empty() ? plant_.failure() : failure_; }
  RigidPlant<T>& plant() { return plant_; }
  const RigidPlant<T>& plant() const { return plant_; }
  const ModeledDrives<T>& drives() const { return drives_; }

  // One controller period: encoders (crank angles + encoder_offset), the drives' torque, held
  // over the plant's RK4 steps.
  bool step(const Vec6<T>& U) {
    Vec6<T> theta;
    if (!plant_.joint_angles(theta)) {
      failure_ = plant_.describe_state(drives_.torque());
      return false;
    }
    if (has_offsets_) theta += offsets_.cast<T>();
    return plant_.advance(drives_.update(U, theta));
  }

 private:
  RigidPlant<T> plant_;
  ModeledDrives<T> drives_;
  Vec6d offsets_;
  bool has_offsets_;
  std::string failure_;
};

// A pose observer of simulate_twin that never stops the run.
struct NoPoseObserver {
  template <typename Pose>
  bool operator()(const TickRecord&, const Pose&) const { return true; }
};

// Where the twin of `model` stands before a run of `ref`: the pose whose encoders read the
// start hold (start_hold: the reference's start command, plus a pre-correction's first tick; its
// drives have been holding it), found from the reference's start pose (kept bit for bit when the
// encoders read the command there: the reference prepared on this model, no encoder offsets, no
// correction). False, with `chi` unchanged, if no such pose is found.
inline bool twin_standing_pose(const sim::RobotModel& model, const PreparedReference& ref, Vec6d& chi) {
  Vec6d x = ref.start_pose;
  if (!sim::pose_at_encoders(model, start_hold(ref), x)) return false;
  chi = x;
  return true;
}
inline constexpr const char* kNoStandingPose = "no pose of the model has the start hold (the reference's start command, plus a pre-correction's first tick) at its encoders";

// The twin's pose trace at the exposure times of `ref` (the camera is the pose itself, or the
// marker frame's). A
// diverging or non-finite run returns ok = false with the time and reason; never NaN poses.
// latency_offset (s): the pose stream's true latency minus the configured one; frame j then
// reports the pose at t_j - latency_offset (ShiftedExposure, pose_history.hpp) and the outer
// loop acts on it, as on the real rig: `measured` is that, `true_pose` the pose at t_j. At 0
// the camera is ExactPose (measured == true_pose). With ref.command_correction the twin's position
// interface receives the command plus the tick's correction (CorrectedRobot).
// The camera reports the marker frame (MarkerPose); the outer loop servoes what it reports.
// `observe(tick, pose)` is called after each tick with the twin's true pose at the end of it (the
// pose the next tick's exposure records); false stops the run (run_loop's observer,
// `observer_failure`): a caller that only needs a verdict stops at the first pose it refuses.
template <typename T, typename PoseObserver = NoPoseObserver>
LoopResult<T> simulate_twin(const sim::RobotModel& model, const sim::LambdaVector<T>& lambda,
                            const PreparedReference& ref, const OuterGains& gains, double latency_offset = 0,
                            PoseObserver&& observe = {}, const std::string& observer_failure = "stopped by its observer") {
  Vec6d start;
  if (!twin_standing_pose(model, ref, start)) {
    LoopResult<T> out;
    out.ok = false;
    out.failure = kNoStandingPose;
    return out;
  }
  TwinRobot<T> twin(model, lambda, ref.clock.timing, start);
  CorrectedRobot<TwinRobot<T>, T> corrected(twin, ref.command_correction);
  VisualServo<T> outer(ref, gains);
  auto run = [&](auto& camera, auto&& watch) {
    return ref.command_correction.empty() ? run_loop<T>(twin, outer, camera, watch, observer_failure)
                                          : run_loop<T>(corrected, outer, camera, watch, observer_failure);
  };
  auto loop = [&](auto& camera) {
    if constexpr (std::is_same_v<std::decay_t<PoseObserver>, NoPoseObserver>) return run(camera, NoObserver{});
    else return run(camera, [&](const TickRecord& tick) { return observe(tick, twin.pose()); });
  };
  if (latency_offset != 0) {
    ShiftedExposure<T> shifted(ref.clock, twin.pose(), latency_offset, model.marker_frame);
    return loop(shifted);
  }
  MarkerPose camera{model.marker_frame};
  return loop(camera);
}

}  // namespace vcloe::servo
