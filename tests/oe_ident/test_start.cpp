// Specification of the start independent of the priors and of the stuck test
// (oe_ident/src/start_search.hpp, vcloe/oe_ident/convergence.hpp): from priors 0.35-2.5x off
// per family the search lands in the truth's neighbourhood on a short noise-free problem; an
// end point a second start beats clearly is labelled stuck; an end point at the minimum of data
// with an error no parameter explains is not.
#include <gtest/gtest.h>

#include <cmath>

#include "../../oe_ident/src/start_search.hpp"
#include "../sim/sim_fixtures.hpp"
#include "fit_fixtures.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/servo/twin.hpp"

using namespace vcloe;
using namespace vcloe::oe_ident;
using vcloe::test::default_robot;

// This file's helpers in their own namespace: the test program is one unity build.
namespace test_start {

// OutputError and PrefixCost keep a reference to the gains: one object that outlives them.
const servo::OuterGains kGains{};

namespace {

servo::PreparedReference start_reference(double duration, std::uint64_t seed) { return test::fit_reference(duration, seed); }

// A truth near the priors, friction per joint different.
sim::LambdaVector<double> start_truth() {
  sim::LambdaVector<double> t = test::default_priors();
  t(sim::platform_index(0)) *= 1.08;
  for (int k = 1; k < 4; ++k) t(sim::platform_index(k)) *= 0.9 + 0.05 * k;
  for (int i = 0; i < sim::kLegs; ++i) {
    t(sim::coulomb_index(i)) = 0.8 + 0.15 * i;
    t(sim::viscous_index(i)) = 0.6 - 0.05 * i;
  }
  t(sim::kGainP) *= 1.2;
  t(sim::kGainI) *= 0.8;
  t(sim::kGainD) *= 1.25;
  return t;
}

const Payload kPayload{5.0, Vec3d(0.02, 0.02, 0.03)};

Experiment start_measure(const sim::LambdaVector<double>& lambda, const servo::PreparedReference& ref,
                         std::optional<Payload> payload) {
  const auto r = servo::simulate_twin<double>(default_robot(), with_payload(lambda, payload), ref, servo::OuterGains{});
  EXPECT_TRUE(r.ok);
  return Experiment{payload ? "payload run" : "run", ref, r.true_pose, payload, std::nullopt, {}};
}

// The platform's mass and moments, the friction and the gains free; the legs known.
std::vector<bool> start_free() {
  std::vector<bool> free(sim::kNumLambda, false);
  for (int k = 0; k < 4; ++k) free[static_cast<std::size_t>(sim::platform_index(k))] = true;
  for (int i = 0; i < sim::kLegs; ++i) free[static_cast<std::size_t>(sim::coulomb_index(i))] = free[static_cast<std::size_t>(sim::viscous_index(i))] = true;
  for (int g : {sim::kGainP, sim::kGainI, sim::kGainD}) free[static_cast<std::size_t>(g)] = true;
  return free;
}

// Priors far from the truth: each family by its own factor (0.35-2.5).
sim::LambdaVector<double> far_priors(const sim::LambdaVector<double>& t) {
  sim::LambdaVector<double> p = t;
  p(sim::platform_index(0)) *= 0.45;
  for (int k = 1; k < 4; ++k) p(sim::platform_index(k)) *= 2.2;
  for (int i = 0; i < sim::kLegs; ++i) {
    p(sim::coulomb_index(i)) *= 2.5;
    p(sim::viscous_index(i)) *= 0.35;
  }
  p(sim::kGainP) *= 0.5;
  p(sim::kGainI) *= 2.4;
  p(sim::kGainD) *= 0.6;
  return p;
}

IdentificationOptions start_options() {
  IdentificationOptions o;
  o.spec = std::vector<ParameterSpec>(sim::kNumLambda);
  o.anchor = {AnchorKind::Payload, -1, 0};
  o.horizons = {1.0};
  return o;
}

struct StartProblem {
  sim::LambdaVector<double> truth = start_truth();
  servo::PreparedReference ref = start_reference(2.0, 11);
  std::vector<Experiment> exps{start_measure(truth, ref, std::nullopt), start_measure(truth, ref, kPayload)};
  IdentificationOptions o = start_options();
  ParameterMap map_at(const sim::LambdaVector<double>& base) const {
    return build_parameter_map(base, start_free(), o.spec);
  }
};

double log_error(double value, double truth) { return std::abs(std::log(value / truth)); }

}  // namespace

// DISABLED: the specification the start should meet, and does not yet. Measured on this code
// (session of issue #25): the search lands at m_p 9.3 kg (truth 25.9), the platform moments
// 2.9x, ld 2.4x and the Coulomb coefficients 0.63x their truths; its cost falls only from
// 1.8e6 to 2.1e5 (not below 1e-2 of it). The coordinate search along one direction at a time
// does not cross the valleys between mass, moments and gains on a 2 s record. Enabled again
// when the start meets it (docs/identification.md, "A start independent of the priors").
TEST(StartSearch, DISABLED_FindsTheTruthsNeighbourhoodFromFarPriors) {
  const StartProblem p;
  const sim::LambdaVector<double> priors = far_priors(p.truth);
  const std::vector<bool> free = start_free();
  for (int k = 0; k < sim::kNumLambda; ++k)  // the premise: every free parameter at least 1.5x off
    if (free[static_cast<std::size_t>(k)]) {
      ASSERT_GT(log_error(priors(k), p.truth(k)), std::log(1.5)) << k;
    }
  StartRecord record;
  const sim::LambdaVector<double> start =
      search_start(default_robot(), servo::OuterGains{}, p.exps, p.o, p.map_at(priors), priors, record);
  const auto& reg = sim::parameter_registry();
  for (int k = 0; k < sim::kNumLambda; ++k)
    if (free[static_cast<std::size_t>(k)]) {
      EXPECT_LT(log_error(start(k), p.truth(k)), std::log(1.3))
          << reg[static_cast<std::size_t>(k)].name << ": start " << start(k) << ", truth " << p.truth(k);
    }
  EXPECT_TRUE(record.searched);
  EXPECT_LT(record.cost_at_start, 1e-2 * record.cost_at_priors);
  EXPECT_EQ(record.directions.size(), record.factors.size());
  EXPECT_LE(record.evaluations, 1 + 2 * 2 * 3 * static_cast<int>(record.directions.size()));
}

TEST(ConvergenceCheck, AnEndPointASecondStartBeatsClearlyIsStuck) {
  // The fit "ended" with the gains far off (a local minimum as far as the check knows): the
  // second start from there finds the truth's valley, removing most of the cost: stuck.
  const StartProblem p;
  sim::LambdaVector<double> end = p.truth;
  end(sim::kGainP) *= 0.5;
  end(sim::kGainI) *= 2.0;
  const ParameterMap map = p.map_at(end);
  const std::vector<double> d = map.initial(end);
  PrefixCost whole(default_robot(), kGains, p.exps, map, p.o, 1.0);
  std::vector<double> r(static_cast<std::size_t>(whole.residuals()));
  TwinRuns runs(OutputError(default_robot(), kGains, p.exps, map, p.o.sigma), 2);
  ASSERT_TRUE(runs.evaluate(d.data(), r.data(), nullptr));
  std::vector<double> better;
  const ConvergenceCheck c = check_end_point(default_robot(), kGains, p.exps, p.o, map, d, r, better);
  EXPECT_EQ(c.verdict, Convergence::Stuck) << c.summary();
  EXPECT_GT(c.removed_share, 0.9);
  EXPECT_LT(c.second_start_cost, 0.1 * c.end_cost);
  EXPECT_NE(c.summary().find("STUCK"), std::string::npos);
  // The stuck test turned off (start.check: false): no second start, and the verdict says so.
  IdentificationOptions off = p.o;
  off.start.check = false;
  std::vector<double> none;
  const ConvergenceCheck u = check_end_point(default_robot(), kGains, p.exps, off, map, d, r, none);
  EXPECT_EQ(u.verdict, Convergence::NotChecked) << u.summary();
  EXPECT_EQ(u.second_start_cost, -1);
  EXPECT_TRUE(none.empty());
  EXPECT_NEAR(u.end_over_noise, c.end_over_noise, 1e-12 * c.end_over_noise);
}

TEST(ConvergenceCheck, AFitAtItsMinimumWithModelErrorIsNotStuck) {
  // Data with an error no parameter explains (a constant 4-sigma offset in x and y and a slow
  // drift in alpha, as a calibration error would leave): the residual at the truth is well
  // above the noise, so the second start runs, and finds nothing clearly better: converged.
  StartProblem p;
  for (Experiment& e : p.exps)
    for (std::size_t j = 0; j < e.measured.size(); ++j) {
      const double t = e.reference.exposure_times[j];
      e.measured[j](0) += 4 * p.o.sigma(0);
      e.measured[j](1) -= 4 * p.o.sigma(1);
      e.measured[j](3) += 5 * p.o.sigma(3) * std::sin(2 * M_PI * 0.1 * t);
    }
  const ParameterMap map = p.map_at(p.truth);
  const std::vector<double> d = map.initial(p.truth);
  TwinRuns runs(OutputError(default_robot(), kGains, p.exps, map, p.o.sigma), 2);
  std::vector<double> r(static_cast<std::size_t>(runs.num_residuals()));
  ASSERT_TRUE(runs.evaluate(d.data(), r.data(), nullptr));
  std::vector<double> better;
  const ConvergenceCheck c = check_end_point(default_robot(), kGains, p.exps, p.o, map, d, r, better);
  EXPECT_GT(c.end_over_noise, p.o.start.check_above_noise);  // the second start did run
  EXPECT_GE(c.second_start_cost, 0.0);
  EXPECT_EQ(c.verdict, Convergence::Converged) << c.summary();
  EXPECT_LT(c.removed_share, p.o.start.stuck_share);
}

}  // namespace test_start
