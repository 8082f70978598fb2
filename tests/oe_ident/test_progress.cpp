// Specification of identify's progress line (oe_ident/progress.hpp): what it says, and the
// estimate of the iterations left from the trend of the relative cost decrease (eq. 35).
#include <gtest/gtest.h>

#include "vcloe/oe_ident/progress.hpp"

using namespace vcloe::oe_ident;

TEST(Progress, TheEstimateExtrapolatesTheDecreaseGeometricallyToTheStoppingRule) {
  // 0.1 then 0.01: a factor 10 per iteration; tol 1e-3 is one more iteration away.
  EXPECT_EQ(iterations_to_tolerance(0.1, 0.01, 1e-3, 40), 1);
  EXPECT_EQ(iterations_to_tolerance(0.1, 0.05, 1e-3, 40), 6);  // halving: 0.05 / 2^6 < 1e-3
  EXPECT_EQ(iterations_to_tolerance(0.1, 0.05, 1e-3, 4), 4);   // capped by the iterations left
  EXPECT_EQ(iterations_to_tolerance(0.01, 0.02, 1e-3, 7), 7);  // not converging: the cap
  EXPECT_EQ(iterations_to_tolerance(0.1, 5e-4, 1e-3, 40), 0);  // already below the rule
  EXPECT_EQ(iterations_to_tolerance(-1, 0.01, 1e-3, 40), -1);  // one decrease: no trend yet
}

TEST(Progress, TheLineSaysStageIterationCostAcceptanceTimeAndWhatIsLeft) {
  IterationProgress p;
  p.stage = 2;
  p.stages = 2;
  p.horizon = 1.0;
  p.iteration = 7;
  p.cost = 1234.5;
  p.accepted = false;
  p.elapsed_s = 23.14;
  EXPECT_EQ(p.line(), "stage 2/2 (100 %) it  7  cost 1.2345e+03    rejected    23.1 s");
  p.iterations_left = 4;
  p.seconds_left = 12.2;
  EXPECT_NE(p.line().find("~4 it, ~12 s left"), std::string::npos) << p.line();
  p.cost = 1.7976931348623157e308;  // Ceres' cost of a trial point where the twin failed
  EXPECT_NE(p.line().find("(twin failed)"), std::string::npos) << p.line();
}
