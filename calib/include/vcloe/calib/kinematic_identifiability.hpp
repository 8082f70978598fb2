#pragma once
// vcloe/calib/kinematic_identifiability.hpp — what static poses can and cannot tell about the
// geometry (docs/calibration.md, "What is identifiable"): the named combinations the measurement
// model cannot separate, built as exact re-descriptions of the same robot (each leaves every
// predicted measurement unchanged), the gauge that fixes them, the Jacobian of one pose, and the
// SVD check that the numerical null space of the Jacobian is exactly the named one.
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "vcloe/calib/kinematic_model.hpp"

namespace vcloe::calib {

using Matrix = Eigen::MatrixXd;

// A family of parameter changes that describe the same robot: `directions` (72 × dimension)
// at the parameters they were built at, and what they mean in words.
struct NamedCombination {
  std::string name;     // "base translation", ...
  std::string meaning;  // the sentence a report prints
  Matrix directions;
  // What fixes it: the constraint rows (each 72) removed from the fit's free directions.
  Matrix constraints;
  // The exact re-descriptions, one per direction: parameters → the same robot moved by `amount`.
  std::vector<std::function<KinematicVector(const KinematicVector&, double amount)>> changes;
};

// The combinations of the measurement model at parameters p (needs the robot's joint axes):
// a common translation of the base joints = the camera-to-base translation (3); if every joint
// axis is parallel, a common turn of the base joints about it with the same change of every
// encoder offset = the camera-to-base rotation about it (1); a common rigid motion of the
// platform joints = the marker frame (6); each crank's direction about its axis = its encoder
// offset (6).
std::vector<NamedCombination> named_combinations(const sim::RobotModel& nominal, const KinematicVector& p);

// The same robot as x described in the gauge of `reference` (the gauge the fit of a start at
// `reference` reports in): x moved along every named combination until its constraints hold.
// This is how an estimate is compared with a truth.
KinematicVector in_gauge(const sim::RobotModel& nominal, const KinematicVector& reference, KinematicVector x);

// Orthonormal basis (72 × k) of the parameter changes the fit may make: orthogonal to every
// combination's constraints and to the unit vector of every index in `fixed`.
Matrix free_directions(const std::vector<NamedCombination>& combinations, const std::vector<int>& fixed);

// d(predicted measurement)/d(parameters) at one pose (6 × 72); false if FK fails there.
bool measurement_jacobian(const LegFrames& frames, const KinematicVector& p, const Vec6d& theta, Vec6d& guess,
                          Eigen::Matrix<double, 6, kKinematicParameters>& J);

// The numerical null space of a (whitened) Jacobian J (rows × 72), columns scaled to unit norm,
// compared with the named combinations.
struct NullSpaceCheck {
  int dimension = 0;                 // singular values below tolerance × the largest
  std::vector<bool> named_found;     // per combination: all its directions in the null space
  int unnamed = 0;                   // null directions no named combination explains
  std::vector<std::string> unnamed_largest;  // for each: its three largest entries, by name
  double tolerance = 1e-8;
};
NullSpaceCheck check_null_space(const Matrix& J, const std::vector<NamedCombination>& combinations,
                                double tolerance = 1e-8);

}  // namespace vcloe::calib
