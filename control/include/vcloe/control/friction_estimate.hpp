#pragma once
// vcloe/control/friction_estimate.hpp — each joint's friction level from what one trial measured,
// for learning (Abdellatif & Heimann 2006 §5.2: the learnt command; here the model it is
// pre-corrected with). The drive torques are not measured, but the drives' law is known (the
// model's gains, eq. 31): along the commanded and the measured joint motion it gives the torque
// the drives produced; the model's rigid-body inverse dynamics (Li et al. 2019 eqs. 17-23, its Xi
// without friction) along the measured motion gives what the mechanism needed; per joint i the
// difference is fitted by linear least squares (docs/control.md, "Friction learnt"):
//   tau_drive,i - tau_rigid,i = f_c,i tanh(theta_dot_i / eps) + f_v,i theta_dot_i      (eq. 24)
//                               + c_i + a_i tau_rigid,i + m_i theta_ddot_i            (nuisance)
// The nuisance terms take up what the model's rigid body and gains get wrong (a constant: the
// gravity's and the integrators' start; a scale: the gains' and the inertias' overall error; the
// joint's own inertia): the friction is what correlates with the sign and the rate of the motion.
// The torques are in the model's units (its gains): what the model's pre-correction, through the
// same gains' inverse, turns back into the command the drives need.
//
// Guards: a joint that does not move both ways (each direction faster than 3 eps on a fraction of
// the frames) or whose Coulomb column is nearly a combination of the others (variance inflation
// above a bound) keeps the model's values; estimates are kept within physical bounds (non-negative,
// no larger than the largest torque the drive produced over the trial).
#include <array>
#include <string>
#include <vector>

#include "vcloe/servo/reference.hpp"
#include "vcloe/sim/parameters.hpp"
#include "vcloe/sim/robot.hpp"

namespace vcloe::control {

// What one trial gives the estimate: the measured pose at each exposure (frame j exposed at tick
// j * ticks_per_frame) and the command the drives received at each controller tick.
struct MeasuredTrial {
  std::vector<Vec6d> measured;  // chi_m per exposure (m, rad)
  std::vector<Vec6d> command;   // U per tick (rad)
};

struct FrictionFitOptions {
  double smoothing_hz = 4;            // zero-phase Butterworth on the measured poses before differentiating
  double edge = 0.2;                  // s dropped at each end (the filter's edges)
  double min_moving_fraction = 0.05;  // of the frames, in each direction, faster than 3 eps
  double max_inflation = 100;         // variance inflation of the Coulomb column (1: independent of the others)
  bool apply_viscous = true;          // use the fitted f_v (else its column stays in the fit, the model's f_v kept)
};

struct JointFriction {
  double coulomb = 0, viscous = 0;  // N m, N m s / rad: the values to use
  double fitted_viscous = 0;        // the fit's f_v (used when apply_viscous)
  bool estimated = false;           // false: the model's kept (`why` says why)
  bool viscous_estimated = false;   // the fitted f_v used
  bool clamped = false;             // an estimate outside the physical bounds, held at the bound
  double inflation = 0;             // of the Coulomb column
  double moving_fraction = 0;       // the smaller of the two directions' fractions of the frames
  std::string why;                  // in words, for the progress line
};
using FrictionEstimate = std::array<JointFriction, 6>;

// The estimate from a trial of `clock` (its timing: the controller and camera rates), the model's
// Xi and gains in `lambda` (its friction: the fallback). Throws vcloe::Error when the measured
// poses are fewer than the fit needs or a smoothed pose is not reachable.
FrictionEstimate estimate_friction(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                   const servo::TickClock& clock, const MeasuredTrial& trial,
                                   const FrictionFitOptions& options = {});

// lambda with the estimate's friction.
sim::LambdaVector<double> with_friction(const sim::LambdaVector<double>& lambda, const FrictionEstimate& estimate);

// One line per joint, in words: what was estimated, or which value was kept and why.
std::string describe(const FrictionEstimate& estimate, const sim::LambdaVector<double>& model);

}  // namespace vcloe::control
