// Specification of the identifiability analysis (oe_ident/src/identifiability.hpp): on a
// weighted Jacobian whose null space is known, exactly the coordinates that span it are marked
// unidentifiable (at the solution, SVD) or dropped as not excited / only in combination (at the
// start, QR), independent columns are kept, and each tolerance is the cut it says it is.
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <random>

#include "../../oe_ident/src/identifiability.hpp"

using namespace vcloe;
using namespace vcloe::oe_ident;

namespace {

// Coordinates c = 0..q-1, each setting one registry entry (members[c]; a vector for a tie).
ParameterMap map_of(const std::vector<std::vector<int>>& members) {
  ParameterMap map;
  map.base = sim::LambdaVector<double>::Ones();
  for (const auto& m : members) {
    ParameterMap::Coord c;
    c.members = m;
    map.coords.push_back(c);
  }
  return map;
}

Eigen::MatrixXd random_columns(int rows, int cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0, 1);
  Eigen::MatrixXd J(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) J(i, j) = n(rng);
  return J;
}

const int kA = sim::kGainP, kB = sim::kGainI, kC = sim::kGainD, kD = sim::coulomb_index(0);
const std::string kNull = "unidentifiable at the solution (null space of the Jacobian)";

}  // namespace

TEST(Identifiability, IndependentColumnsAreAllIdentifiable) {
  const ParameterMap map = map_of({{kA}, {kB}, {kC}, {kD}});
  FitStatus st;
  std::vector<double> sv;
  EXPECT_EQ(analyse_solution(random_columns(40, 4, 1), map, 1e-7, st, &sv), (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(sv.size(), 4u);
  for (std::size_t i = 1; i < sv.size(); ++i) EXPECT_GE(sv[i - 1], sv[i]);  // largest first
  for (int k : {kA, kB, kC, kD}) {
    EXPECT_TRUE(st.free[k]);
    EXPECT_EQ(st.status[k], "");
  }
  FitStatus st0;
  EXPECT_TRUE(analyse_start(random_columns(40, 4, 1), map, 1e-3, st0).empty());
}

TEST(Identifiability, AZeroColumnIsUnidentifiableAtTheSolution) {
  const ParameterMap map = map_of({{kA}, {kB}, {kC}});
  Eigen::MatrixXd J = random_columns(30, 3, 2);
  J.col(1).setZero();
  FitStatus st;
  EXPECT_EQ(analyse_solution(J, map, 1e-7, st), (std::vector<int>{0, 2}));
  EXPECT_FALSE(st.free[kB]);
  EXPECT_EQ(st.status[kB], kNull);
  EXPECT_TRUE(st.free[kA] && st.free[kC]);
}

TEST(Identifiability, AScaledPairLosesTheCoordinateDominatingTheNullDirection) {
  // Column 2 = 3 x column 0: the null direction is (3, 0, -1) / sqrt(10), dominated by coordinate 0.
  const ParameterMap map = map_of({{kA}, {kB}, {kC}});
  Eigen::MatrixXd J = random_columns(30, 3, 3);
  J.col(2) = 3 * J.col(0);
  FitStatus st;
  EXPECT_EQ(analyse_solution(J, map, 1e-7, st), (std::vector<int>{1, 2}));
  EXPECT_EQ(st.status[kA], kNull);
  EXPECT_TRUE(st.free[kB] && st.free[kC]);
}

TEST(Identifiability, OfTwoEqualColumnsExactlyOneIsDroppedWithAllItsTiedMembers) {
  const ParameterMap map = map_of({{kA}, {kB, kD}, {kC}});
  Eigen::MatrixXd J = random_columns(30, 3, 4);
  J.col(2) = J.col(1);
  FitStatus st;
  const std::vector<int> kept = analyse_solution(J, map, 1e-7, st);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept.front(), 0);
  if (kept.back() == 2) {  // coordinate 1 dropped: both members of its tie
    EXPECT_FALSE(st.free[kB] || st.free[kD]);
    EXPECT_EQ(st.status[kD], kNull);
  } else {
    EXPECT_EQ(kept.back(), 1);
    EXPECT_FALSE(st.free[kC]);
  }
}

TEST(Identifiability, TheRankToleranceIsTheCut) {
  // Column 2 = column 0 + 1e-5 x another direction: a singular value ratio near 1e-5 (a nearly
  // dependent pair), identifiable under a 1e-7 cut, not under 1e-3.
  const ParameterMap map = map_of({{kA}, {kB}, {kC}});
  Eigen::MatrixXd J = random_columns(30, 4, 5);
  J.col(2) = J.col(0) + 1e-5 * J.col(3);
  J.conservativeResize(Eigen::NoChange, 3);
  FitStatus loose, strict;
  std::vector<double> sv;
  EXPECT_EQ(analyse_solution(J, map, 1e-7, loose, &sv).size(), 3u);
  const double ratio = sv.back() / sv.front();
  EXPECT_GT(ratio, 1e-7);
  EXPECT_LT(ratio, 1e-3);
  EXPECT_EQ(analyse_solution(J, map, 1e-3, strict).size(), 2u);
  EXPECT_EQ(analyse_solution(J, map, 0.99 * ratio, loose).size(), 3u);
  FitStatus just;
  EXPECT_EQ(analyse_solution(J, map, 1.01 * ratio, just).size(), 2u);
}

TEST(Identifiability, AtTheStartZeroColumnsAreNotExcitedAndDependentOnesNamedWithTheirPartners) {
  // Registry-order QR: coordinate 1 (zero) is not excited; coordinate 3 = 2 x coordinate 0 is
  // identifiable only in combination with it.
  const ParameterMap map = map_of({{kA}, {kB}, {kC}, {kD}});
  Eigen::MatrixXd J = random_columns(30, 4, 6);
  J.col(1).setZero();
  J.col(3) = 2 * J.col(0);
  FitStatus st;
  EXPECT_EQ(analyse_start(J, map, 1e-3, st), (std::set<int>{1, 3}));
  EXPECT_EQ(st.status[kB], "not excited (no effect on the pose trace)");
  EXPECT_EQ(st.status[kD], "only in combination with " + sim::parameter_registry()[kA].name);
  EXPECT_FALSE(st.free[kB] || st.free[kD]);
  EXPECT_TRUE(st.free[kA] && st.free[kC]);
  EXPECT_EQ(st.combination, (std::set<int>{kA}));
}

TEST(Identifiability, AtTheStartTheQrToleranceIsTheCut) {
  // Column 2 = column 0 + 1e-2 x a direction orthogonal to columns 0 and 1 (relative to their
  // norms): a pivot ratio near 1e-2, kept under eps 1e-3 and dropped under eps 1e-1.
  const ParameterMap map = map_of({{kA}, {kB}, {kC}});
  Eigen::MatrixXd J = random_columns(30, 4, 7);
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(J.leftCols(2));
  const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(30, 2);
  J.col(3) -= Q * (Q.transpose() * J.col(3));
  J.col(2) = J.col(0) + 1e-2 * J.col(0).norm() / J.col(3).norm() * J.col(3);
  J.conservativeResize(Eigen::NoChange, 3);
  FitStatus keep, drop;
  EXPECT_TRUE(analyse_start(J, map, 1e-3, keep).empty());
  EXPECT_EQ(analyse_start(J, map, 1e-1, drop), (std::set<int>{2}));
  EXPECT_EQ(drop.status[kC], "only in combination with " + sim::parameter_registry()[kA].name);
}
