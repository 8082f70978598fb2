#pragma once
// vcloe/control/precorrect.hpp — nonlinear pre-correction (Abdellatif & Heimann 2006 §5.1.2,
// their Fig. 7): the drives' built-in controller cannot be opened, only their position command
// changed. The model's inverse dynamics along the reference gives the torques tau_k the drives
// must hold over each controller period (predict.hpp, averaged over the period: the drives hold
// their torque, zero-order); the inverse of the drives' law (eq. 31 in the loop's discrete time,
// servo::InnerPid: backward differences, integral by rectangles, no derivative at the first
// update, integrators holding the model's holding torque at the start) gives the command U_k that
// makes them output tau_k while the joints are at theta_d(t_k) = IK(chi_d(t_k)):
//   tau_k = lp e_k + li (I_{k-1} + Tc e_k) + ld (e_k - e_{k-1}) / Tc,   e_k = U_k - theta_k
//   =>  e_k = (tau_k - li I_{k-1} + ld e_{k-1} / Tc) / (lp + li Tc + ld / Tc),   U_k = theta_k + e_k
// (a stable recursion for positive gains: |ld / Tc| < lp + li Tc + ld / Tc).
// On a calibrated model (docs/calibration.md) the reference is the pose of its marker frame, the
// frame the camera measures and the loop servoes, and the drives servo the encoders, which read
// crank + encoder zero: theta_d are the encoders that put the marker frame on chi_d
// (sim::encoders_at_marker) and the torques those of E's motion under it (platform_motion). A
// model without a marker frame and encoder zeros gives theta_d = IK(chi_d) of E, bit for bit.
//
// With the visual servo (eq. 30, IK feedforward form) the pre-corrected command replaces, inside
// the outer loop and tick by tick, what the outer law commands on a perfect run: the drives receive
//   U_k = q_c(t_k) + (U_outer,k - U_ideal,k)
// and the outer loop still closes around the camera (PrecorrectedRobot; docs/control.md).
#include <string>
#include <vector>

#include "vcloe/control/predict.hpp"
#include "vcloe/servo/controllers.hpp"
#include "vcloe/servo/corrected_robot.hpp"
#include "vcloe/servo/loop.hpp"

namespace vcloe::control {

// Throws vcloe::Error at `where` (the model file's drive_pid) unless the drives' law with these
// gains has an inverse (lp + li Tc > 0, ld >= 0).
void check_drives_invertible(const servo::DriveGains<double>& gains, double controller_period, const std::string& where);

// The inverse of eq. (31): one call per controller tick, in order.
class InverseDrives {
 public:
  // tau_hold: the torque the drives' integrators hold at the start (servo::InnerPid::start_holding).
  InverseDrives(const servo::DriveGains<double>& gains, double controller_period, const Vec6d& tau_hold);
  // The command that makes the drives output `tau` with their encoders at `theta`.
  Vec6d command(const Vec6d& tau, const Vec6d& theta);

 private:
  servo::DriveGains<double> g_;
  double dt_;
  Vec6d integral_ = Vec6d::Zero(), previous_error_ = Vec6d::Zero();
  bool has_previous_ = false;
};

// The pre-corrected command of a run of `clock` along `motion`, one entry per controller tick.
struct PreCorrection {
  double period = 0;                // controller period (s)
  std::vector<Vec6d> command;       // q_c(t_k) (rad): what the drives are commanded
  std::vector<Vec6d> theta;         // theta_d(t_k): the encoders with the marker frame on chi_d(t_k) (rad)
  std::vector<Vec6d> torque;        // tau_k the drives are to hold over tick k (N*m)
};
// Throws vcloe::Error naming the time of a pose the model cannot reach, or gains the inverse
// does not exist for (lp + li Tc + ld / Tc must be positive).
PreCorrection precorrect(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                         const servo::TickClock& clock, const Motion& motion);

// The pre-correction's first-tick step of `model` along `motion`: q_c(0) - theta_d(0), the command
// off the encoders on the reference's start that makes the drives output the first tick's torque
// (PreparedReference::start_step; the robot stands at the first command less it: servo::start_hold).
// Computed over the first tick only.
Vec6d start_step(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda, const servo::TickClock& clock,
                 const Motion& motion);

// The command the outer law (eq. 30) holds at each tick when the robot follows the reference
// exactly — its camera sees chi_d at every exposure — run through servo::run_loop: the held IK
// feedforward, plus the PID's answer to what the schedule alone makes of a perfect run (the pose
// exposed a latency before the reference it is compared with, its backward-difference rate). With
// zero gains, the held IK feedforward alone.
std::vector<Vec6d> ideal_commands(const servo::PreparedReference& reference, const servo::OuterGains& gains);

// A servo::CommandedRobot whose position interface receives the pre-corrected command: the outer
// loop's U less what it holds on a perfect run, plus q_c(t_k) — so a robot that follows exactly
// is commanded q_c, and the outer loop answers only to the robot's departures from the reference.
// With zero outer gains it is the pre-correction alone (the drives' loop only). servo's, the one.
template <class Robot>
using PrecorrectedRobot = servo::CorrectedRobot<Robot>;

// q_c(t_k) - ideal_commands(reference, gains)[k]; the command must cover the reference's ticks.
std::vector<Vec6d> correction_of(const servo::PreparedReference& reference, const servo::OuterGains& gains,
                                 const std::vector<Vec6d>& command);

}  // namespace vcloe::control
