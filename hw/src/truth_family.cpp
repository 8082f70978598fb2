#include "vcloe/hw/truth_family.hpp"

#include <cmath>
#include <random>

#include "vcloe/core/error.hpp"

namespace vcloe::hw {

std::optional<SettingProblem> TruthFamily::problem() const {
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  auto spread = [](double v) { return v >= 0 && v < 1; };
  if (!spread(platform)) return bad("platform", "expected a relative spread in [0, 1)");
  if (!spread(bodies)) return bad("bodies", "expected a relative spread in [0, 1)");
  if (!spread(gains)) return bad("gains", "expected a relative spread in [0, 1)");
  if (!(friction_low > 0 && friction_high >= friction_low && friction_high < 1e3))
    return SettingProblem{"friction_low", "friction_low, friction_high: expected 0 < low <= high < 1000"};
  if (!(tolerance >= 0 && tolerance <= 0.01)) return bad("tolerance", "expected a length in [0, 0.01] m");
  if (!(far_low > 0 && far_high >= far_low && far_high <= 100))
    return SettingProblem{"far_low", "far_low, far_high: expected 0 < low <= high <= 100"};
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
  truth.model.name = priors.model.name + "-truth-" + std::to_string(seed) + (f.far ? "-far" : "") +
                     (f.unmodelled ? "-unmodelled" : "");
  if (const auto issues = sim::check_physical_consistency(l); !issues.empty())
    fail("truth family", "seed " + std::to_string(seed) + " drew an inconsistent body: " + issues.front());
  // Through the robot file's own reader: a truth is what `vcloe truth random` writes and the
  // virtual robot loads (geometry checked at the home pose, inertia consistency required).
  return sim::parse_robot(sim::robot_to_yaml(truth.model, l), "truth of seed " + std::to_string(seed), true);
}

}  // namespace vcloe::hw
