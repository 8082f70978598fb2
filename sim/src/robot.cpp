#include "vcloe/sim/robot.hpp"
#include "vcloe/sim/gyration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include <Eigen/Eigenvalues>

#include "vcloe/core/error.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::sim {

namespace {

Vec3d read_vec3(const YamlNode& n) { return n.as_vector(3); }

// A per-leg quantity: either one value for all six legs or a list of six.
std::array<double, kLegs> read_per_leg_scalar(const YamlNode& n) {
  std::array<double, kLegs> out{};
  if (n.is_sequence()) {
    const Eigen::VectorXd v = n.as_vector(kLegs);
    for (int i = 0; i < kLegs; ++i) out[i] = v(i);
  } else {
    out.fill(n.as_double());
  }
  return out;
}

// A body's [m, Ix, Iy, Iz]: either one list for all six bodies or a list of six lists.
std::array<Eigen::Vector4d, kLegs> read_per_leg_body(const YamlNode& n) {
  std::array<Eigen::Vector4d, kLegs> out;
  if (n.size() > 0 && n.at(std::size_t{0}).is_sequence()) {
    if (n.size() != kLegs) n.fail("expected [m, Ix, Iy, Iz] or a list of six such lists");
    for (int i = 0; i < kLegs; ++i) out[i] = n.at(static_cast<std::size_t>(i)).as_vector(4);
  } else {
    out.fill(n.as_vector(4));
  }
  return out;
}

// What any robot this tool is for can have; beyond, a value is a typo or abuse, and the
// arithmetic of the dynamics overflows (docs/robot-file.md).
constexpr double kMaxMass = 1e5, kMinMoment = 1e-12, kMaxLength = 100, kMaxGravity = 100, kMaxFriction = 1e6,
                 kMaxGain = 1e8;
// The smooth sign's velocity scale: at most a third of the joints' top speed (defaults::kMaxJointVelocity,
// 3 rad/s), where tanh reaches 99.5 % of the Coulomb level; at 1e300 the Coulomb friction vanished unsaid.
constexpr double kMaxFrictionEpsilon = 1;

void require_positive_body(const YamlNode& n, const Eigen::Vector4d& b, bool consistent) {
  if (consistent) {
    const char* names = "xyz";
    for (int k = 0; k < 3; ++k) {
      const int p = 1 + (k + 1) % 3, q = 1 + (k + 2) % 3;
      if (b(p) + b(q) < b(1 + k)) {
        std::ostringstream s;
        s << "inconsistent inertia: triangle inequality violated, I" << names[p - 1] << " + I" << names[q - 1]
          << " = " << b(p) + b(q) << " < I" << names[k] << " = " << b(1 + k) << " kg*m^2";
        n.fail(s.str());
      }
    }
  }
  // Any robot's body: mass (0, 1e5] kg, moments [1e-12, 1e5] (1e-300 could not rotate, 1e308 overflowed).
  if (!(b(0) > 0 && b(0) <= kMaxMass)) n.fail("mass must be in (0, 1e5] kg, got " + exact_number(b(0)));
  for (int k = 1; k < 4; ++k)
    if (!(b(k) >= kMinMoment && b(k) <= kMaxMass))
      n.fail(std::string("principal moment I") + "xyz"[k - 1] + " must be in [1e-12, 1e5] kg*m^2, got " +
             exact_number(b(k)));
}

// A body's mass against its moments and size: sqrt(I_max / m) in [span / 50, 3 span] (span: the platform
// joints' circle, the crank's or link's length; robot.hpp). Grams typed as kg move it 31.6x; the default
// priors are at 0.15-0.5 span, `truth random --far`'s draws at 0.036-2.04 span (docs/robot-file.md).
void require_plausible_body(const YamlNode& n, const Eigen::Vector4d& b, double span, const std::string& span_is) {
  const double largest = b.tail<3>().maxCoeff(), r = std::sqrt(largest / b(0)), lo = kMinGyrationPerSpan * span;
  if (r >= lo && r <= kMaxGyrationPerSpan * span) return;
  auto three = [](double x) { std::ostringstream o; o << std::setprecision(3) << x; return o.str(); };
  n.fail("mass " + exact_number(b(0)) + " kg with a largest moment of " + exact_number(largest) +
         " kg*m^2 is a radius of gyration of " + three(r) + " m, expected " + three(lo) + " to " +
         three(kMaxGyrationPerSpan * span) + " m for a body spanning " + three(span) + " m (" + span_is + "): kg and "
         "kg*m^2 expected (" + (r < lo ? "a mass in grams, or moments in kg*cm^2?)" : "a mass in tonnes, or moments in g*m^2?)"));
}

// One entry of `legs`, read into `leg` (its other fields keep their defaults).
void read_leg(const YamlNode& n, Leg& leg) {
  n.reject_unknown_keys({"base_joint", "axis", "wrench", "link_length", "platform_joint", "encoder_offset"});
  leg.base_joint = read_vec3(n.at("base_joint"));
  const Vec3d axis = read_vec3(n.at("axis"));
  const double largest = axis.cwiseAbs().maxCoeff();  // scaled first: [0, 0, 1e308] is a direction too
  if (!(largest > 0) || (axis / largest).norm() < 1e-9 || axis.norm() / largest < 1e-9)
    n.at("axis").fail("axis must be a non-zero vector");
  // Normalised, unless it already is to rounding: a written file reads back bit for bit
  // (normalising a normalised vector again can move its last bit; found by fuzz/fuzz_robot).
  leg.axis = std::abs(axis.norm() - 1) < 1e-15 ? axis : (axis / largest).normalized();
  leg.wrench = read_vec3(n.at("wrench"));
  if (leg.wrench.norm() < 1e-6) n.at("wrench").fail("wrench (crank) vector must be non-zero");
  if (std::abs(leg.wrench.dot(leg.axis)) > 1e-9 * leg.wrench.norm())
    n.at("wrench").fail("wrench (crank) vector must be perpendicular to the joint axis");
  leg.link_length = n.at("link_length").as_double();
  if (!(leg.link_length > 0 && leg.link_length <= kMaxLength))
    n.at("link_length").fail("expected a positive length in m, at most 100");
  leg.platform_joint = read_vec3(n.at("platform_joint"));
  for (const char* key : {"base_joint", "wrench", "platform_joint"})
    if (read_vec3(n.at(key)).cwiseAbs().maxCoeff() > kMaxLength)
      n.at(key).fail("expected coordinates within 100 m of the origin");
  if (auto offset = n.find("encoder_offset")) {
    leg.encoder_offset = offset->as_double();
    if (!(std::abs(leg.encoder_offset) <= kMaxEncoderOffset))
      offset->fail("expected an encoder zero offset of at most 0.1 rad in magnitude, got " +
                   exact_number(leg.encoder_offset));
  }
}

// The optional marker frame: its pose in E, small (a calibration offset, not another frame).
void read_marker_frame(const YamlNode& root, RobotModel& model) {
  const auto n = root.find("marker_frame");
  if (!n) return;
  model.marker_frame = n->as_vector(6);
  if (!(model.marker_frame.head<3>().cwiseAbs().maxCoeff() <= kMaxMarkerOffset))
    n->fail("expected marker frame coordinates of at most 0.05 m in magnitude");
  if (!(model.marker_frame.tail<3>().cwiseAbs().maxCoeff() <= kMaxMarkerRotation))
    n->fail("expected marker frame angles of at most 0.2 rad in magnitude");
}

// The optional sections gravity, com and limits.
void read_environment(const YamlNode& root, RobotModel& model) {
  if (auto g = root.find("gravity")) {
    model.gravity = read_vec3(*g);
    if (model.gravity.norm() > kMaxGravity) g->fail("expected gravity of at most 100 m/s^2");
  }
  if (auto com = root.find("com")) {
    com->reject_unknown_keys({"wrench", "link"});
    model.wrench_com = com->get_double("wrench", 0.5);
    model.link_com = com->get_double("link", 0.5);
    if (!(model.wrench_com >= 0 && model.wrench_com <= 1)) com->at("wrench").fail("expected a fraction in [0, 1]");
    if (!(model.link_com >= 0 && model.link_com <= 1)) com->at("link").fail("expected a fraction in [0, 1]");
  }
  if (auto lim = root.find("limits")) {
    lim->reject_unknown_keys({"joint", "min_transmission", "min_parallel_conditioning"});
    model.joint_limit = lim->get_double("joint", model.joint_limit);
    model.min_transmission = lim->get_double("min_transmission", model.min_transmission);
    model.min_parallel_conditioning =
        lim->get_double("min_parallel_conditioning", model.min_parallel_conditioning);
    if (!(model.joint_limit > 0 && model.joint_limit < 3.14159))
      lim->at("joint").fail("expected a joint range half-width in (0, pi) rad");
    if (!(model.min_transmission > 0 && model.min_transmission < 1))
      lim->at("min_transmission").fail("expected a value in (0, 1)");
    if (!(model.min_parallel_conditioning > 0 && model.min_parallel_conditioning < 1))
      lim->at("min_parallel_conditioning").fail("expected a value in (0, 1)");
  }
}

// The platform's first moments m c (kg*m, optional): its centre of mass c small (E moved by what
// the drawings leave out), inside the platform (below the platform joints' largest radius) and,
// where consistency is required, with an inertia about c that a body can have.
void read_first_moment(const YamlNode& n, const RobotModel& model, bool consistent, LambdaVector<double>& lambda) {
  const Vec3d h = read_vec3(n);
  for (int k = 0; k < 3; ++k) lambda(first_moment_index(k)) = h(k);
  const Vec3d c = platform_com(lambda);
  const std::string got = " (c = first moment / mass = [" + exact_number(c.x()) + ", " + exact_number(c.y()) + ", " +
                          exact_number(c.z()) + "] m)";
  if (!(c.cwiseAbs().maxCoeff() <= kMaxPlatformCom))
    n.fail("expected the platform's centre of mass within 0.05 m of E per coordinate" + got);
  double radius = 0;
  for (const Leg& leg : model.legs) radius = std::max(radius, leg.platform_joint.norm());
  if (!(c.norm() < radius))
    n.fail("expected the platform's centre of mass inside the platform, |c| below the platform joints' radius " +
           exact_number(radius) + " m" + got);
  if (!consistent) return;
  const Vec3d I = Eigen::SelfAdjointEigenSolver<Mat3d>(platform_inertia_at_com(lambda)).eigenvalues();
  if (!moments_consistent(I))
    n.fail("inconsistent inertia: the platform's principal moments about its centre of mass [" + exact_number(I(0)) +
           ", " + exact_number(I(1)) + ", " + exact_number(I(2)) +
           "] kg*m^2 are not positive or violate the triangle inequality" + got);
}

// Inertial parameters -> Xi.
void read_inertia(const YamlNode& inertia, const RobotModel& model, bool consistent, LambdaVector<double>& lambda) {
  inertia.reject_unknown_keys({"platform", "platform_first_moment", "wrenches", "links"});
  const Eigen::Vector4d platform = inertia.at("platform").as_vector(4);
  require_positive_body(inertia.at("platform"), platform, consistent);
  require_plausible_body(inertia.at("platform"), platform, body_span(model, platform_index(0)), "the platform joints' circle");
  for (int k = 0; k < 4; ++k) lambda(platform_index(k)) = platform(k);
  if (auto h = inertia.find("platform_first_moment")) read_first_moment(*h, model, consistent, lambda);
  const auto wrenches = read_per_leg_body(inertia.at("wrenches"));
  const auto links = read_per_leg_body(inertia.at("links"));
  for (int i = 0; i < kLegs; ++i) {
    require_positive_body(inertia.at("wrenches"), wrenches[i], consistent);
    require_positive_body(inertia.at("links"), links[i], consistent);
    require_plausible_body(inertia.at("wrenches"), wrenches[i], body_span(model, wrench_index(i, 0)), "the crank's length");
    require_plausible_body(inertia.at("links"), links[i], body_span(model, link_index(i, 0)), "the link's length");
    for (int k = 0; k < 4; ++k) {
      lambda(wrench_index(i, k)) = wrenches[i](k);
      lambda(link_index(i, k)) = links[i](k);
    }
  }
}

void read_friction(const YamlNode& friction, RobotModel& model, LambdaVector<double>& lambda) {
  friction.reject_unknown_keys({"coulomb", "viscous", "epsilon"});
  const auto fc = read_per_leg_scalar(friction.at("coulomb"));
  const auto fv = read_per_leg_scalar(friction.at("viscous"));
  for (int i = 0; i < kLegs; ++i) {
    if (!(fc[i] >= 0 && fc[i] <= kMaxFriction)) friction.at("coulomb").fail("friction must be in [0, 1e6]");
    if (!(fv[i] >= 0 && fv[i] <= kMaxFriction)) friction.at("viscous").fail("friction must be in [0, 1e6]");
    lambda(coulomb_index(i)) = fc[i];
    lambda(viscous_index(i)) = fv[i];
  }
  model.friction_epsilon = friction.get_double("epsilon", model.friction_epsilon);
  if (!(model.friction_epsilon > 0 && model.friction_epsilon <= kMaxFrictionEpsilon))
    friction.at("epsilon").fail("expected a velocity scale in (0, " + exact_number(kMaxFrictionEpsilon) + "] rad/s, got " +
                                exact_number(model.friction_epsilon));
}

// The drives' built-in PID (eq. 31): lp, li, ld. (kp, ki, kd name the outer gains of the
// experiment file; robot files before version 0.2 used them here.)
void read_drive_pid(const YamlNode& root, LambdaVector<double>& lambda) {
  if (root.find("joint_pid"))
    root.at("joint_pid").fail("renamed: write 'drive_pid: {lp, li, ld}' (kp, ki, kd are the outer visual-servo "
                              "gains of the experiment file)");
  const YamlNode pid = root.at("drive_pid");
  pid.reject_unknown_keys({"lp", "li", "ld"});
  lambda(kGainP) = pid.get_double("lp");
  lambda(kGainI) = pid.get_double("li");
  lambda(kGainD) = pid.get_double("ld");
  for (const char* key : {"lp", "li", "ld"})
    if (!(pid.get_double(key) >= 0 && pid.get_double(key) <= kMaxGain)) pid.at(key).fail("gain must be in [0, 1e8]");
}

// Home pose: reachable, inside the joint range, away from singularities. It also fixes
// each leg's IK branch: the solution nearer theta = 0.
void read_home(const YamlNode& home, RobotModel& model) {
  model.home = home.as_vector(6);
  for (int i = 0; i < kLegs; ++i) {
    Leg& leg = model.legs[i];
    const Vec3d d = model.home.head<3>() + rotation_of<double>(model.home) * leg.platform_joint - leg.base_joint;
    double up = 0, down = 0;
    if (!leg_angle<double>(leg, d, +1, up) || !leg_angle<double>(leg, d, -1, down))
      home.fail("unreachable home pose: leg " + std::to_string(i + 1) + " cannot close (link length " +
                exact_number(leg.link_length) + " m)");
    leg.branch = std::abs(up) <= std::abs(down) ? +1 : -1;
  }
  const PoseCheck check = check_pose(model, model.home);
  if (!check.ok()) home.fail("home pose not usable: " + check.describe());
}

RobotFile parse_document(const YamlDoc& doc, bool consistent) {
  const YamlNode root = doc.root();
  root.reject_unknown_keys(
      {"name", "legs", "home", "limits", "gravity", "com", "inertia", "friction", "drive_pid", "joint_pid", "notes",
       "marker_frame", "virtual_rig"});  // virtual_rig: a truth file's, read by hw::read_virtual_rig only
  RobotFile file;
  RobotModel& model = file.model;
  model.source = doc.file();
  model.name = root.get_string("name", "unnamed");
  const YamlNode legs = root.at("legs");
  if (legs.size() != kLegs) legs.fail("expected a list of 6 legs, got " + std::to_string(legs.size()));
  for (int i = 0; i < kLegs; ++i) read_leg(legs.at(static_cast<std::size_t>(i)), model.legs[i]);
  read_environment(root, model);
  read_marker_frame(root, model);
  read_inertia(root.at("inertia"), model, consistent, file.lambda);
  read_friction(root.at("friction"), model, file.lambda);
  read_drive_pid(root, file.lambda);
  read_home(root.at("home"), model);
  return file;
}

}  // namespace

RobotFile load_robot(const std::string& file, bool require_consistent_inertia) {
  return parse_input_file(file, InputKind::Yaml, [&](const std::string& text) {
    check_calibrated_seal(text, file);
    check_identified_as_reported(text, file);
    return parse_document(YamlDoc::parse(text, file), require_consistent_inertia);
  });
}

RobotFile parse_robot(const std::string& yaml_text, const std::string& name, bool require_consistent_inertia) {
  return parse_document(YamlDoc::parse(yaml_text, name), require_consistent_inertia);
}

Vec6d encoder_offsets(const RobotModel& model) {
  Vec6d o;
  for (int i = 0; i < kLegs; ++i) o(i) = model.legs[static_cast<std::size_t>(i)].encoder_offset;
  return o;
}

int first_differing_leg(const RobotModel& a, const RobotModel& b, double tolerance) {
  for (int i = 0; i < kLegs; ++i) {
    const Leg &p = a.legs[i], &q = b.legs[i];
    if ((p.base_joint - q.base_joint).norm() > tolerance || (p.axis - q.axis).norm() > tolerance ||
        (p.wrench - q.wrench).norm() > tolerance || std::abs(p.link_length - q.link_length) > tolerance ||
        (p.platform_joint - q.platform_joint).norm() > tolerance)
      return i;
  }
  return -1;
}

std::string calibration_reach_problem(const RobotModel& calibrated, const RobotModel& drawn) {
  if (first_differing_leg(calibrated, drawn, kCalibrationReach) < 0) return "";
  double furthest = 0;
  std::string what;
  for (int i = 0; i < kLegs; ++i) {
    const Leg &p = calibrated.legs[i], &q = drawn.legs[i];
    const std::pair<const char*, double> parts[] = {
        {"its base joint", (p.base_joint - q.base_joint).norm()}, {"its axis", (p.axis - q.axis).norm()},
        {"its crank", (p.wrench - q.wrench).norm()}, {"its link length", std::abs(p.link_length - q.link_length)},
        {"its platform joint", (p.platform_joint - q.platform_joint).norm()}};
    for (const auto& [part, d] : parts)
      if (!(d <= furthest)) furthest = d, what = "leg " + std::to_string(i + 1) + " (" + part + ")";
  }
  char moved[64];
  std::snprintf(moved, sizeof moved, "%.1f mm", furthest * 1e3);
  return "the geometry of " + what + " moved " + moved + ", more than the " + exact_number(kCalibrationReach * 1e3) +
         " mm a calibration corrects";
}

}  // namespace vcloe::sim
