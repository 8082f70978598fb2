// Specification of the uncertainty terms (vcloe/oe_ident/uncertainty.hpp) and the model
// adequacy verdict (vcloe/oe_ident/adequacy.hpp) on linear problems whose answer is known.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <random>

#include "vcloe/oe_ident/adequacy.hpp"
#include "vcloe/oe_ident/uncertainty.hpp"

using namespace vcloe::oe_ident;

namespace {

// Rows 6 j + c of `frames` frames, q columns of smooth regressors (sines of several periods).
Eigen::MatrixXd regressors(std::size_t frames, int q) {
  Eigen::MatrixXd J(static_cast<Eigen::Index>(6 * frames), q);
  for (Eigen::Index i = 0; i < J.rows(); ++i)
    for (int k = 0; k < q; ++k) J(i, k) = std::sin(0.003 * static_cast<double>(i) * (k + 1) + k) + 0.1 * ((i + k) % 7);
  return J;
}

// The least-squares residual of y on J: what a fit leaves.
std::vector<double> residual(const Eigen::MatrixXd& J, const Eigen::VectorXd& y) {
  const Eigen::VectorXd theta = J.colPivHouseholderQr().solve(y);
  const Eigen::VectorXd r = y - J * theta;
  return {r.data(), r.data() + r.size()};
}

}  // namespace

// White residuals: the sandwich agrees with the camera term (within the estimate's spread), and
// the sub-fits see nothing systematic.
TEST(Uncertainty, WhiteNoiseGivesTheCameraCovariance) {
  const std::size_t n = 2000;
  const Eigen::MatrixXd J = regressors(n, 3);
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0, 1);
  Eigen::VectorXd y(J.rows());
  for (Eigen::Index i = 0; i < y.size(); ++i) y(i) = noise(rng);
  const std::vector<double> r = residual(J, y);
  const CovarianceTerms t = coordinate_covariance({J, r, {n}, {true}, 100});
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(std::sqrt(t.sandwich(k, k) / t.camera(k, k)), 1.0, 0.35) << k;
    EXPECT_LT(t.subfits(k, k), 2 * t.camera(k, k)) << k;
  }
}

// A model error that acts differently on the two halves of the record (the data follow one
// parameter value in the first half and another in the second): the camera term is blind to
// it, the sub-fit term covers the difference.
TEST(Uncertainty, SubFitsCoverWhatChangesBetweenHalves) {
  const std::size_t n = 2000;
  const Eigen::MatrixXd J = regressors(n, 2);
  std::mt19937 rng(4);
  std::normal_distribution<double> noise(0, 1);
  Eigen::VectorXd y(J.rows());
  for (Eigen::Index i = 0; i < y.size(); ++i) y(i) = J(i, 0) * (i < y.size() / 2 ? 0.9 : 1.1) + J(i, 1) + noise(rng);
  const std::vector<double> r = residual(J, y);
  const CovarianceTerms t = coordinate_covariance({J, r, {n}, {true}, 100});
  // The quarters' own estimates are 0.9, 0.9, 1.1, 1.1: the sigma of their mean is
  // sqrt(4 * 0.1^2 / (4 * 3)) = 0.058.
  EXPECT_NEAR(std::sqrt(t.subfits(0, 0)), 0.058, 0.01);
  EXPECT_LT(std::sqrt(t.camera(0, 0)), 0.02);
  EXPECT_GT(std::sqrt(t.total()(0, 0)), 3 * std::sqrt(t.camera(0, 0)));
}

// Two experiments, one of which cannot fix the scale (all coordinates are logs: the scale is
// the direction (1, 1, ...)): their disagreement along the scale is not counted, along the
// other directions it is.
TEST(Uncertainty, ExperimentsAreComparedAlongEveryDirectionButTheScale) {
  const std::size_t n = 1000;
  const Eigen::MatrixXd J1 = regressors(n, 2), J2 = regressors(n, 2) * 1.3;
  Eigen::MatrixXd J(J1.rows() + J2.rows(), 2);
  J << J1, J2;
  auto disagreement = [&](double a2, double b2) {  // experiment 2's own values of (a, b); experiment 1's are (1, 1)
    Eigen::VectorXd y(J.rows());
    for (Eigen::Index i = 0; i < J1.rows(); ++i) y(i) = J1(i, 0) + J1(i, 1);
    for (Eigen::Index i = 0; i < J2.rows(); ++i) y(J1.rows() + i) = J2(i, 0) * a2 + J2(i, 1) * b2;
    const std::vector<double> r = residual(J, y);
    return coordinate_covariance({J, r, {n, n}, {false, true}, 100}).subfits;
  };
  const Eigen::MatrixXd scale = disagreement(1.1, 1.1), shape = disagreement(1.1, 0.9);
  EXPECT_GT(shape(0, 0), 100 * scale(0, 0));
}

// Declared-noise residuals are noise level; a slow error twice the noise dominates and scales
// the sigma by the Birge ratio; the trace's own declared noise is the yardstick (scale).
TEST(Adequacy, TellsCameraNoiseFromModelError) {
  const std::size_t n = 2000;
  std::mt19937 rng(5);
  std::normal_distribution<double> noise(0, 1);
  std::vector<double> white(6 * n), slow(6 * n);
  for (std::size_t i = 0; i < 6 * n; ++i) {
    white[i] = noise(rng);
    slow[i] = white[i] + 2 * std::sin(0.01 * static_cast<double>(i / 6) + static_cast<double>(i % 6));
  }
  const std::vector<std::array<double, 6>> one = {{1, 1, 1, 1, 1, 1}};
  const Adequacy a = assess_adequacy(white, {n}, one);
  EXPECT_EQ(a.verdict, Verdict::NoiseLevel) << a.summary();
  EXPECT_NEAR(a.sigma_scale(), 1.0, 0.05);
  const Adequacy b = assess_adequacy(slow, {n}, one);
  EXPECT_EQ(b.verdict, Verdict::ModelErrorDominates) << b.summary();
  EXPECT_GT(b.experiments[0][0].lag1, 0.6);
  EXPECT_NEAR(b.sigma_scale(), std::sqrt(1 + 2.0), 0.15);  // noise 1 + sine of amplitude 2 (variance 2)
  EXPECT_NE(b.summary().find("Model error dominates"), std::string::npos);
  // The same white residual against a declared noise half as large: not camera noise.
  const Adequacy c = assess_adequacy(white, {n}, {{2, 2, 2, 2, 2, 2}});
  EXPECT_NE(c.verdict, Verdict::NoiseLevel);
}
