#pragma once
// vcloe/sim/robot.hpp — the immutable description of a 6-RSS robot (geometry, limits, the
// constants of the dynamics) and the robot file that gives it together with parameter values.
//
// Structure and parameter values are kept apart (as Pinocchio's Model/Data, Drake's parameters
// in the Context): a RobotModel never holds Lambda; the 70 values (inertia, the platform's first
// moments, friction, drive gains; parameters.hpp) travel explicitly as a LambdaVector — priors, truth or identified.
//
// Frames (docs/design.md §3, docs/model.md): O base, E platform. Leg i: actuated revolute
// joint at B_i about axis s_i, wrench (crank) B_i -> T_i, link (rod) T_i -> A_i of fixed
// length, A_i = E + R a_i. All lengths in m, angles in rad, masses in kg, inertias in kg*m^2.
// A RobotModel is never modified by an algorithm: per-evaluation state lives elsewhere.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "vcloe/core/file_record.hpp"
#include "vcloe/core/rotation.hpp"
#include "vcloe/sim/parameters.hpp"

namespace vcloe::sim {

struct Leg {
  Vec3d base_joint;      // B_i in O (m)
  Vec3d axis;            // s_i, unit, in O
  Vec3d wrench;          // crank vector B_i -> T_i at theta_i = 0, in O (m), perpendicular to s_i
  double link_length;    // |A_i - T_i| (m)
  Vec3d platform_joint;  // a_i in E (m)
  int branch = 1;        // +1/-1: which of the two IK solutions; fixed by the home pose
  // The encoder's zero: it reads the true crank angle + encoder_offset (rad). Optional, 0 by
  // default; the virtual robot and the twin close their drives on it (docs/robot-file.md).
  double encoder_offset = 0.0;
};

// Bounds of the optional kinematic-calibration keys (docs/robot-file.md): an encoder zero or a
// marker frame beyond them is a mounting error, not a calibration offset.
inline constexpr double kMaxEncoderOffset = 0.1;    // rad
inline constexpr double kMaxMarkerOffset = 0.05;    // m, per coordinate
inline constexpr double kMaxMarkerRotation = 0.2;   // rad, per angle
// Bound of the platform's centre of mass off E (the first moments of Lambda over its mass), per
// coordinate; it must also lie inside the platform (below the platform joints' largest radius).
inline constexpr double kMaxPlatformCom = 0.05;     // m

struct RobotModel {
  std::string name;
  std::string source;  // file it was loaded from ("" if built in code)
  std::array<Leg, kLegs> legs;

  Vec6d home = Vec6d::Zero();                // home pose chi (m, rad)
  double joint_limit = 0.9948;               // |theta_i| <= joint_limit (rad), Li et al. 2019 §3.3
  double min_transmission = 0.2;             // leg (serial) singularity margin, see docs/model.md
  double min_parallel_conditioning = 0.05;   // parallel singularity margin, see docs/model.md
  Vec3d gravity = Vec3d(0.0, 0.0, -9.81);    // m/s^2 in O
  double wrench_com = 0.5;                   // COM at fraction of B_i -> T_i (symmetric centre)
  double link_com = 0.5;                     // COM at fraction of T_i -> A_i (symmetric centre)
  double friction_epsilon = 0.01;            // rad/s: Coulomb sign(q_dot) ~ tanh(q_dot / eps)
  // The pose of the measured marker frame in the platform frame E [x, y, z, alpha, beta, gamma]
  // (m, rad; the convention of poses, core/rotation.hpp): the camera measures this frame, not E.
  // Optional, zero by default; the virtual robot's camera and the twin's report it.
  Vec6d marker_frame = Vec6d::Zero();
};

// Each leg's encoder zero (Leg::encoder_offset): the encoders read the crank angles + these.
Vec6d encoder_offsets(const RobotModel& model);

// The platform's centre of mass in E, c = [mx_p, my_p, mz_p] / m_p (m), and its inertia tensor
// about that centre along E's axes, I_c = diag(Ix_p, Iy_p, Iz_p) - m (|c|^2 1 - c c^T) (the
// parallel-axis theorem; Lambda's platform moments are about E).
Vec3d platform_com(const LambdaVector<double>& lambda);
Mat3d platform_inertia_at_com(const LambdaVector<double>& lambda);

// What a robot file gives: the structure and one set of parameter values
// Lambda = [Xi (67); lp, li, ld] in parameter-registry order.
struct RobotFile {
  RobotModel model;
  LambdaVector<double> lambda = LambdaVector<double>::Zero();
};

// Loads and validates a robot file. Every problem is a vcloe::Error naming file, line and key.
// Inertial consistency (triangle inequalities) is only reported here, not enforced: priors
// such as Li et al.'s (2019) Table 1 violate it. Use check_physical_consistency() where it is required.
// With require_consistent_inertia, a body violating positivity or the triangle inequalities
// is an error naming its key (use for models an engine must load, e.g. truth files).
RobotFile load_robot(const std::string& file, bool require_consistent_inertia = false);
RobotFile parse_robot(const std::string& yaml_text, const std::string& name,
                       bool require_consistent_inertia = false);

// Writes a robot file that load_robot reads back to the same model and values.
std::string robot_to_yaml(const RobotModel& model, const LambdaVector<double>& lambda);
// robot_to_yaml for a model an engine must load (identified models): read back with
// require_consistent_inertia first. A model it would refuse was fitted to data no robot of this
// kind makes: the error names the data (`fitted_to`: the traces, the first one first), what no
// robot has (the loader's key and range, without a line of a file never written) and `name`
// ("run.csv: the parameters fitted to its poses are none a robot can have (…); m.yaml not written").
std::string loadable_robot_yaml(const RobotModel& model, const LambdaVector<double>& lambda, const std::string& name,
                                const std::vector<std::string>& fitted_to);

// The head line of a calibrated robot file naming the robot file it was calibrated from (written
// by `vcloe calibrate kinematics`), and that file read back from a robot file's text (none if it
// has no such line): a calibrated file describes the plant, the file it came from the controller
// that ran on it (rig::controller_of_run, docs/calibration.md).
std::string calibrated_from_line(const FileRecord& source);
FileRecord calibrated_from(const std::string& robot_text);
// A calibrated robot file is a result, sealed like the JSON results (core/sealed_json.hpp): its
// last line is "# content_sha256: <SHA-256 of the text above it>". load_robot refuses a file whose
// head says it was calibrated (calibrated_from) and whose content is not the one sealed — its
// geometry edited by hand was fitted as calibrated, or failed inside the solver (probe 33, C).
// Deleting the comment head makes it a robot file of one's own.
std::string sealed_calibrated_text(const std::string& text);
void check_calibrated_seal(const std::string& robot_text, const std::string& file);
// A robot file beside an identification report (`<file>.report.json`, sealed) is the model that
// report records (its `inputs.model.sha256`): an identified model edited since (m_p 26.5 -> 60 kg)
// was simulated, pre-corrected from, learnt and validated as if identified (probes 33, B and 36,
// M01). load_robot checks it for every command; moving the report away makes the file one's own.
void check_identified_as_reported(const std::string& robot_text, const std::string& file);

// The first leg (0-based) whose geometry — base joint, axis, crank, link length, platform joint —
// differs between two robots by more than `tolerance` (m, or unit-vector components); -1 if none:
// whether a model, a trace or a command was made for this robot.
int first_differing_leg(const RobotModel& a, const RobotModel& b, double tolerance = 1e-9);

// How far a kinematic calibration may move the geometry of the robot file it was calibrated
// from, at most: it corrects a built robot's departures from its drawings (+-0.5 mm a coordinate,
// `truth random --realistic`; docs/calibration.md), its own 1-sigma tens to hundreds of um. A
// geometry further away is no calibration of that file: an edited or copied file, or poses that
// do not determine it. The one bound: `calibrate kinematics` writes nothing beyond it, and every
// reader of a calibrated file refuses one beyond it (rig::check_calibration_geometry).
inline constexpr double kCalibrationReach = 5e-3;  // m, and unit-vector components of the axes
// "" if `calibrated` is within kCalibrationReach of `drawn`, else what moved furthest, e.g.
// "the geometry of leg 3 (its base joint) moved 7.6 mm".
std::string calibration_reach_problem(const RobotModel& calibrated, const RobotModel& drawn);

// Physical consistency of Xi: positive masses, positive principal moments obeying the
// triangle inequalities (Ix + Iy >= Iz and permutations), non-negative friction, positive
// gains. Returns human-readable violations naming the parameter; empty if consistent.
std::vector<std::string> check_physical_consistency(const LambdaVector<double>& lambda,
                                                    double relative_tolerance = 1e-9);

// The principal moments nearest to I — least squares weighted by `weight`, a zero weight keeping
// that moment — that are positive (those that move at least 1e-3 of the largest) and obey the
// triangle inequalities with a relative margin: Ia + Ib >= (1 + margin) Ic for every c. The exact
// solution of this convex problem in three variables (every active set is tried). Nothing if the
// kept moments allow no solution (one of them not positive, or too large for the others' range).
std::optional<Vec3d> project_consistent_moments(const Vec3d& I, const Vec3d& weight, double margin);
// The same with equal weights on the moments marked free; I unchanged if there is no solution
// (check the result with moments_consistent).
Vec3d nearest_consistent_moments(const Vec3d& I, const std::array<bool, 3>& free = {true, true, true},
                                 double margin = 1e-6);
// Positive, and no moment larger than the sum of the other two (MuJoCo's rule, no tolerance).
bool moments_consistent(const Vec3d& I);

}  // namespace vcloe::sim
