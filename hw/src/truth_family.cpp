#include "vcloe/hw/truth_family.hpp"

#include <cmath>
#include <cstdio>
#include <random>

#include "vcloe/core/error.hpp"

namespace vcloe::hw {

std::optional<SettingProblem> TruthFamily::problem() const {
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  auto spread = [](double v) { return v >= 0 && v < 1; };
  if (!spread(platform)) return bad("platform", "expected a relative spread in [0, 1), got " + exact_number(platform));
  if (!spread(bodies)) return bad("bodies", "expected a relative spread in [0, 1), got " + exact_number(bodies));
  if (!spread(gains)) return bad("gains", "expected a relative spread in [0, 1), got " + exact_number(gains));
  if (!(friction_low > 0 && friction_high >= friction_low && friction_high < 1e3))
    return SettingProblem{"friction_low", "friction_low, friction_high: expected 0 < low <= high < 1000"};
  if (!(tolerance >= 0 && tolerance <= 0.01)) return bad("tolerance", "expected a length in [0, 0.01] m, got " + exact_number(tolerance));
  if (!(far_low > 0 && far_high >= far_low && far_high <= 100))
    return SettingProblem{"far_low", "far_low, far_high: expected 0 < low <= high <= 100"};
  if (!(backlash >= 0 && backlash <= 0.02)) return bad("backlash", "expected a play in [0, 0.02] rad, got " + exact_number(backlash));
  return realistic_problem();
}

// The magnitudes of a realistic rig, within the bounds of the files that hold them
// (docs/robot-file.md, hw/virtual_rig.hpp): 3 sigma for the Gaussian ones.
std::optional<SettingProblem> TruthFamily::realistic_problem() const {
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  if (!(geometry >= 0 && geometry <= 0.01)) return bad("geometry", "expected a length in [0, 0.01] m");
  if (!(encoder >= 0 && encoder <= sim::kMaxEncoderOffset)) return bad("encoder", "expected an angle in [0, 0.1] rad");
  if (!(marker_position >= 0 && marker_position <= sim::kMaxMarkerOffset))
    return bad("marker_position", "expected a length in [0, 0.05] m");
  if (!(marker_angle >= 0 && marker_angle <= sim::kMaxMarkerRotation))
    return bad("marker_angle", "expected an angle in [0, 0.2] rad");
  // Bounds printed as the numbers compared (exact_number): a rounded 0.0167 read as allowed.
  auto sigma = [&](const std::string& key, double v, double three_sigma, const char* unit) -> std::optional<SettingProblem> {
    if (v >= 0 && v <= three_sigma / 3) return std::nullopt;
    return bad(key, "expected a sigma in [0, " + exact_number(three_sigma / 3) + "] " + unit + " (3 sigma within " +
                        exact_number(three_sigma) + "), got " + exact_number(v));
  };
  if (auto p = sigma("base_position", base_position, 0.01, "m")) return p;
  if (auto p = sigma("base_angle", base_angle, 0.05, "rad")) return p;
  if (!(latency_low >= -0.05 && latency_high >= latency_low && latency_high <= 0.05))
    return SettingProblem{"latency_low", "latency_low, latency_high: expected -0.05 <= low <= high <= 0.05 s"};
  if (auto p = sigma("latency_jitter", latency_jitter, 0.05, "s")) return p;
  if (!(com >= 0 && com <= 0.05)) return bad("com", "expected a length in [0, 0.05] m");
  return std::nullopt;
}

void TruthFamily::validate(const std::string& where) const { throw_if(problem(), where); }

namespace {

class Draw {
 public:
  explicit Draw(std::uint64_t seed) : rng_(seed) {}
  double around(double spread) { return std::uniform_real_distribution<double>(1 - spread, 1 + spread)(rng_); }
  double log_uniform(double low, double high) {
    return std::exp(std::uniform_real_distribution<double>(std::log(low), std::log(high))(rng_));
  }
  double within(double half_width) { return std::uniform_real_distribution<double>(-half_width, half_width)(rng_); }
  double between(double low, double high) { return std::uniform_real_distribution<double>(low, high)(rng_); }
  double gaussian(double sigma) { return sigma > 0 ? std::normal_distribution<double>(0, sigma)(rng_) : 0.0; }

 private:
  std::mt19937_64 rng_;
};

// Moments of the body whose mass is at `first` scaled, then made consistent.
void vary_moments(sim::LambdaVector<double>& lambda, int first, double spread, Draw& draw) {
  Vec3d I(lambda(first + 1), lambda(first + 2), lambda(first + 3));
  for (int k = 0; k < 3; ++k) I(k) *= draw.around(spread);
  I = sim::nearest_consistent_moments(I, {true, true, true}, 0.02);  // 2 %: clear of the engine's 0.99 rule
  for (int k = 0; k < 3; ++k) lambda(first + 1 + k) = I(k);
}

// The groups of a far-off truth (TruthFamily::far) each scaled by one factor, then every body's
// moments made consistent again (a common factor keeps a consistent body consistent).
void scale_groups(sim::LambdaVector<double>& l, std::uint64_t seed, double low, double high) {
  Draw far(seed ^ 0x9e3779b97f4a7c15ULL);  // its own stream
  const double mass = far.log_uniform(low, high), moments = far.log_uniform(low, high);
  const double friction = far.log_uniform(low, high), gains = far.log_uniform(low, high);
  l(sim::platform_index(0)) *= mass;
  auto body = [&](int first) { l.segment<3>(first + 1) *= moments; };
  body(sim::platform_index(0));
  for (int i = 0; i < sim::kLegs; ++i) {
    body(sim::wrench_index(i, 0));
    body(sim::link_index(i, 0));
    l(sim::coulomb_index(i)) *= friction;
    l(sim::viscous_index(i)) *= friction;
  }
  for (int g : {sim::kGainP, sim::kGainI, sim::kGainD}) l(g) *= gains;
}

// A realistic robot's kinematics (TruthFamily::realistic): joint centres, crank and link
// lengths, encoder zeros and the marker frame, from a stream of their own.
void realistic_kinematics(sim::RobotModel& m, std::uint64_t seed, const TruthFamily& f) {
  Draw draw(seed ^ 0x3c6ef372fe94f82bULL);
  for (sim::Leg& leg : m.legs) {
    for (int k = 0; k < 3; ++k) leg.base_joint(k) += draw.within(f.geometry);
    for (int k = 0; k < 3; ++k) leg.platform_joint(k) += draw.within(f.geometry);
    const double r = leg.wrench.norm();
    leg.wrench *= (r + draw.within(f.geometry)) / r;  // the crank's length; still perpendicular to the axis
    leg.link_length += draw.within(f.geometry);
    leg.encoder_offset = draw.within(f.encoder);
  }
  for (int k = 0; k < 3; ++k) m.marker_frame(k) = draw.within(f.marker_position);
  for (int k = 3; k < 6; ++k) m.marker_frame(k) = draw.within(f.marker_angle);
}

// The realistic departures of the rig's own stream (camera-to-base, latency) and the platform's
// centre of mass in E drawn last from it (first moments of the robot file since the model has
// them; the stream and the order are those of the truths drawn before: a seed draws the same c).
void realistic_rig(std::uint64_t seed, const TruthFamily& f, VirtualRig& rig, Vec3d& platform_com) {
  Draw draw(seed ^ 0xa54ff53a5f1d36f1ULL);
  for (int k = 0; k < 3; ++k) rig.camera_from_base_error(k) = draw.gaussian(f.base_position);
  for (int k = 3; k < 6; ++k) rig.camera_from_base_error(k) = draw.gaussian(f.base_angle);
  rig.latency_offset = draw.between(f.latency_low, f.latency_high);
  rig.latency_jitter = f.latency_jitter;
  for (int k = 0; k < 3; ++k) platform_com(k) = draw.within(f.com);
}

}  // namespace

VirtualRig random_rig(std::uint64_t seed, const TruthFamily& f) {
  f.validate("truth family");
  VirtualRig rig;
  Vec3d platform_com = Vec3d::Zero();
  if (f.realistic) realistic_rig(seed, f, rig, platform_com);
  if (f.unmodelled) rig.backlash = f.backlash;
  rig.validate("truth family: seed " + std::to_string(seed));
  return rig;
}

namespace {

// The platform's drawn centre of mass c leaves it moments about c no body has (a --com inside its
// range [0, 0.05] m, too far for this platform's moments: "truth family: seed 5 drew an inconsistent
// body", without naming --com; session 21's probe, B): said of --com, with the largest fraction of
// this draw's c the body allows. A body inconsistent without its c is the other draws' concern.
void check_com_drawn(const sim::LambdaVector<double>& l, const Vec3d& c, std::uint64_t seed, double com) {
  if (c.isZero(0) || sim::check_physical_consistency(l).empty()) return;
  auto at = [&](double s) {
    sim::LambdaVector<double> m = l;
    for (int k = 0; k < 3; ++k) m(sim::first_moment_index(k)) = l(sim::first_moment_index(k)) * s;
    return sim::check_physical_consistency(m).empty();
  };
  if (!at(0)) return;
  double lo = 0, hi = 1;
  for (int i = 0; i < 40; ++i) (at((lo + hi) / 2) ? lo : hi) = (lo + hi) / 2;
  char got[160];
  std::snprintf(got, sizeof got, "[%.4g, %.4g, %.4g] m", c.x(), c.y(), c.z());
  fail("--com", exact_number(com) + " m: seed " + std::to_string(seed) + " drew the platform's centre of mass at " + got +
                    " off E, about which its moments are no body's (" + sim::check_physical_consistency(l).front() +
                    "); this draw's platform allows " + std::to_string(static_cast<int>(std::floor(lo * 100))) +
                    " % of that offset: give a smaller --com (this draw passes at " +
                    exact_number(std::floor(lo * com * 1e4) / 1e4) + " m) or another seed");
}

}  // namespace

sim::RobotFile random_truth(const sim::RobotFile& priors, std::uint64_t seed, const TruthFamily& f) {
  f.validate("truth family");
  Draw draw(seed);
  sim::RobotFile truth = priors;
  sim::LambdaVector<double>& l = truth.lambda;
  l(sim::platform_index(0)) *= draw.around(f.platform);
  vary_moments(l, sim::platform_index(0), f.platform, draw);
  for (int i = 0; i < sim::kLegs; ++i) {
    vary_moments(l, sim::wrench_index(i, 0), f.bodies, draw);
    vary_moments(l, sim::link_index(i, 0), f.bodies, draw);
    l(sim::coulomb_index(i)) *= draw.log_uniform(f.friction_low, f.friction_high);
    l(sim::viscous_index(i)) *= draw.log_uniform(f.friction_low, f.friction_high);
  }
  for (int g : {sim::kGainP, sim::kGainI, sim::kGainD}) l(g) *= draw.around(f.gains);
  if (f.far) scale_groups(l, seed, f.far_low, f.far_high);
  if (f.unmodelled) {
    for (sim::Leg& leg : truth.model.legs) {
      for (int k = 0; k < 3; ++k) leg.base_joint(k) += draw.within(f.tolerance);
      for (int k = 0; k < 3; ++k) leg.platform_joint(k) += draw.within(f.tolerance);
      leg.link_length += draw.within(f.tolerance);
    }
  }
  if (f.realistic) {
    realistic_kinematics(truth.model, seed, f);
    VirtualRig rig;
    Vec3d c;
    realistic_rig(seed, f, rig, c);
    for (int k = 0; k < 3; ++k) l(sim::first_moment_index(k)) = l(sim::platform_index(0)) * c(k);
    check_com_drawn(l, c, seed, f.com);
  }
  truth.model.name = priors.model.name + "-truth-" + std::to_string(seed) + (f.far ? "-far" : "") +
                     (f.unmodelled ? "-unmodelled" : "") + (f.realistic ? "-realistic" : "");
  if (const auto issues = sim::check_physical_consistency(l); !issues.empty())
    fail("truth family", "seed " + std::to_string(seed) + " drew an inconsistent body: " + issues.front());
  // Through the robot file's own reader: a truth is what `vcloe truth random` writes and the
  // virtual robot loads (geometry checked at the home pose, inertia consistency required).
  const std::string name = "truth of seed " + std::to_string(seed);
  try {
    return sim::parse_robot(sim::robot_to_yaml(truth.model, l), name, true);
  } catch (const Error& e) {  // said of the options that drew it, not of a line of a file never written (probe 33, tr03)
    std::string why = e.what();
    if (const std::size_t key = why.find("key '"); key != std::string::npos) why.erase(0, key);
    if (!f.far) fail("truth family", name + " is no robot a robot file holds (" + why + ")");
    fail("--far-low, --far-high", name + " is no robot a robot file holds (" + why + "): factors of " + exact_number(f.far_low) +
                                      " to " + exact_number(f.far_high) + " scale the platform's mass and moments, the friction and the "
                                      "gains past what the robot file's reader accepts; expected factors nearer 1");
  }
}

}  // namespace vcloe::hw
