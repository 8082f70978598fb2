// Specification of oe_ident's fit coordinates (oe_ident/src/parameter_map.hpp): delta -> Lambda
// sets only the free entries, one coordinate per free parameter or tie group in registry order
// (sim/parameters.hpp), in log form, the platform's three moments through L (always a physical
// inertia), and initial() and jacobian() are the inverse and the derivative of lambda().
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../../oe_ident/src/parameter_map.hpp"
#include "../sim/sim_fixtures.hpp"

using namespace vcloe;
using namespace vcloe::oe_ident;

namespace {

// The priors with friction present, so that every entry is positive.
sim::LambdaVector<double> positive_priors() {
  sim::LambdaVector<double> l = test::default_priors();
  for (int i = 0; i < sim::kLegs; ++i) {
    l(sim::coulomb_index(i)) = 0.2 + 0.01 * i;
    l(sim::viscous_index(i)) = 0.3 - 0.01 * i;
  }
  return l;
}

std::vector<bool> free_as(const std::vector<ParameterSpec>& spec) {
  std::vector<bool> free(sim::kNumLambda);
  for (int k = 0; k < sim::kNumLambda; ++k) free[k] = spec[k].mode != Mode::Fixed;
  return free;
}

std::vector<double> random_delta(const ParameterMap& map, const std::vector<double>& around, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<double> d = around;
  for (int c = 0; c < map.size(); ++c) d[static_cast<std::size_t>(c)] += u(rng);
  return d;
}

}  // namespace

TEST(ParameterMap, InitialIsTheInverseOfLambdaForTheDefaultSpecification) {
  const auto spec = default_specification();
  const auto prior = positive_priors();
  const ParameterMap map = build_parameter_map(prior, free_as(spec), spec);
  const std::vector<double> d = map.initial(prior);
  const sim::LambdaVector<double> back = map.lambda(d.data());
  for (int k = 0; k < sim::kNumLambda; ++k)
    EXPECT_NEAR(back(k), prior(k), 1e-12 * std::abs(prior(k))) << sim::parameter_registry()[k].name;
}

// The platform's first moments are signed and 0 on a symmetric platform: linear coordinates
// (m c = m_p x 1 cm x delta), a zero prior starts at delta 0 and a negative value stays negative
// (a log coordinate could hold neither).
TEST(ParameterMap, FirstMomentsAreLinearCoordinatesThatHoldZeroAndNegativeValues) {
  const std::vector<ParameterSpec> spec(sim::kNumLambda);  // all free
  sim::LambdaVector<double> prior = positive_priors();
  prior(sim::first_moment_index(1)) = -0.05;
  const ParameterMap map = build_parameter_map(prior, free_as(spec), spec);
  const std::vector<double> d = map.initial(prior);
  const sim::LambdaVector<double> back = map.lambda(d.data());
  const Eigen::MatrixXd P = map.jacobian(d.data());
  const double scale = prior(sim::platform_index(0)) * kFirstMomentLength;
  for (int c = 0; c < map.size(); ++c) {
    const auto& co = map.coords[static_cast<std::size_t>(c)];
    if (co.members.front() < sim::first_moment_index(0) || co.members.front() > sim::first_moment_index(2)) continue;
    const int k = co.members.front();
    EXPECT_FALSE(co.log);
    EXPECT_NEAR(back(k), prior(k), 1e-15) << sim::parameter_registry()[k].name;
    EXPECT_DOUBLE_EQ(d[static_cast<std::size_t>(c)], prior(k) / scale);
    EXPECT_DOUBLE_EQ(P(k, c), scale);
  }
  EXPECT_EQ(back(sim::first_moment_index(0)), 0.0);
  EXPECT_LT(back(sim::first_moment_index(1)), 0.0);
}

TEST(ParameterMap, FixedEntriesKeepTheirBaseValueWhateverDelta) {
  const auto spec = default_specification();
  sim::LambdaVector<double> base = positive_priors();
  base(sim::kGainI) = 123.25;  // a value no coordinate could produce by accident
  std::vector<bool> free = free_as(spec);
  free[sim::kGainI] = false;
  const ParameterMap map = build_parameter_map(base, free, spec);
  const sim::LambdaVector<double> l = map.lambda(random_delta(map, map.initial(base), 1).data());
  for (int k = 0; k < sim::kNumLambda; ++k)
    if (!free[k]) {
      EXPECT_EQ(l(k), base(k)) << sim::parameter_registry()[k].name;
    }
  EXPECT_EQ(l(sim::kGainI), 123.25);
  for (const auto& c : map.coords)
    for (int m : c.members) EXPECT_TRUE(free[m]) << "a coordinate sets the fixed " << sim::parameter_registry()[m].name;
}

TEST(ParameterMap, TiedEntriesShareOneCoordinateAndMoveTogether) {
  std::vector<ParameterSpec> spec(sim::kNumLambda);  // all free
  for (int leg : {1, 4}) spec[sim::viscous_index(leg)] = {Mode::Tied, 7};
  const ParameterMap untied = build_parameter_map(positive_priors(), free_as(std::vector<ParameterSpec>(sim::kNumLambda)),
                                                  std::vector<ParameterSpec>(sim::kNumLambda));
  const ParameterMap map = build_parameter_map(positive_priors(), free_as(spec), spec);
  EXPECT_EQ(map.size(), untied.size() - 1);
  int tied_coord = -1;
  for (int c = 0; c < map.size(); ++c)
    if (map.coords[c].members.size() > 1) tied_coord = c;
  ASSERT_GE(tied_coord, 0);
  EXPECT_EQ(map.coords[tied_coord].members, (std::vector<int>{sim::viscous_index(1), sim::viscous_index(4)}));
  std::vector<double> d = random_delta(map, map.initial(positive_priors()), 2);
  const sim::LambdaVector<double> a = map.lambda(d.data());
  EXPECT_EQ(a(sim::viscous_index(1)), a(sim::viscous_index(4)));
  d[static_cast<std::size_t>(tied_coord)] += std::log(3.0);  // both triple, the others stay
  const sim::LambdaVector<double> b = map.lambda(d.data());
  EXPECT_NEAR(b(sim::viscous_index(1)), 3 * a(sim::viscous_index(1)), 1e-12);
  EXPECT_NEAR(b(sim::viscous_index(4)), 3 * a(sim::viscous_index(4)), 1e-12);
  for (int k = 0; k < sim::kNumLambda; ++k)
    if (k != sim::viscous_index(1) && k != sim::viscous_index(4)) {
      EXPECT_EQ(a(k), b(k));
    }
  // The tied start is the group's mean.
  const auto prior = positive_priors();
  EXPECT_NEAR(std::exp(map.initial(prior)[static_cast<std::size_t>(tied_coord)]),
              0.5 * (prior(sim::viscous_index(1)) + prior(sim::viscous_index(4))), 1e-12);
}

TEST(ParameterMap, CoordinatesFollowTheRegistryOrder) {
  const auto spec = default_specification();
  const ParameterMap map = build_parameter_map(positive_priors(), free_as(spec), spec);
  const auto& reg = sim::parameter_registry();
  EXPECT_EQ(reg[map.coords.front().members.front()].name, "m_p");
  EXPECT_EQ(reg[map.coords.back().members.front()].name, "ld");
  for (int c = 1; c < map.size(); ++c)
    EXPECT_LT(map.coords[c - 1].members.front(), map.coords[c].members.front()) << "coordinate " << c;
  // Each link's Ix and Iy are tied (default_specification): one coordinate for both.
  for (int leg = 0; leg < sim::kLegs; ++leg) {
    int found = 0;
    for (const auto& c : map.coords)
      if (c.members == std::vector<int>{sim::link_index(leg, 1), sim::link_index(leg, 2)}) ++found;
    EXPECT_EQ(found, 1) << "leg " << leg;
  }
}

TEST(ParameterMap, LogCoordinatesScaleTheValueAndFrictionStartsAboveZero) {
  std::vector<ParameterSpec> spec(sim::kNumLambda);
  sim::LambdaVector<double> prior = test::default_priors();
  prior(sim::coulomb_index(2)) = 0;  // a zero friction prior
  const ParameterMap map = build_parameter_map(prior, free_as(spec), spec);
  std::vector<double> d = map.initial(prior);
  int gain = -1, fc = -1;
  for (int c = 0; c < map.size(); ++c) {
    if (map.coords[c].members.front() == sim::kGainD) gain = c;
    if (map.coords[c].members.front() == sim::coulomb_index(2)) fc = c;
  }
  ASSERT_GE(gain, 0);
  ASSERT_GE(fc, 0);
  EXPECT_NEAR(map.lambda(d.data())(sim::coulomb_index(2)), 1e-3, 1e-15);  // the floor
  const double before = map.lambda(d.data())(sim::kGainD);
  d[static_cast<std::size_t>(gain)] += std::log(2.0);
  EXPECT_NEAR(map.lambda(d.data())(sim::kGainD), 2 * before, 1e-12 * before);
  d[static_cast<std::size_t>(fc)] = -60;  // friction tends to zero, never below
  EXPECT_GT(map.lambda(d.data())(sim::coulomb_index(2)), 0);
}

TEST(ParameterMap, PlatformMomentsObeyTheTriangleInequalitiesForAnyDelta) {
  const auto spec = default_specification();
  const ParameterMap map = build_parameter_map(positive_priors(), free_as(spec), spec);
  int platform = 0;
  for (const auto& c : map.coords) platform += c.platform_moment >= 0;
  ASSERT_EQ(platform, 3);
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-8, 3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> d = map.initial(positive_priors());
    for (int c = 0; c < map.size(); ++c)
      if (map.coords[c].platform_moment >= 0) d[static_cast<std::size_t>(c)] = u(rng);
    const sim::LambdaVector<double> l = map.lambda(d.data());
    const double Ix = l(sim::platform_index(1)), Iy = l(sim::platform_index(2)), Iz = l(sim::platform_index(3));
    EXPECT_LE(Ix, Iy + Iz);
    EXPECT_LE(Iy, Ix + Iz);
    EXPECT_LE(Iz, Ix + Iy);
  }
}

TEST(ParameterMap, JacobianIsTheDerivativeOfLambda) {
  const auto spec = default_specification();
  const ParameterMap map = build_parameter_map(positive_priors(), free_as(spec), spec);
  const std::vector<double> d = random_delta(map, map.initial(positive_priors()), 5);
  const Eigen::MatrixXd P = map.jacobian(d.data());
  ASSERT_EQ(P.rows(), sim::kNumLambda);
  ASSERT_EQ(P.cols(), map.size());
  for (int c = 0; c < map.size(); ++c) {
    const double h = 1e-6;
    std::vector<double> up = d, down = d;
    up[static_cast<std::size_t>(c)] += h;
    down[static_cast<std::size_t>(c)] -= h;
    const sim::LambdaVector<double> fd = (map.lambda(up.data()) - map.lambda(down.data())) / (2 * h);
    EXPECT_LE((P.col(c) - fd).cwiseAbs().maxCoeff(), 1e-7 * std::max(1.0, fd.cwiseAbs().maxCoeff())) << "coordinate " << c;
  }
}
