#pragma once
// vcloe/oe_ident/uncertainty.hpp — the covariance of the fit coordinates at the solution, honest
// about what the data cannot tell apart from model error (docs/design.md §9, issue #13;
// docs/identification.md "Honest uncertainty"). Three terms, added:
//
//   noise      H^-1 Omega H^-1, Omega = sum over blocks b of s_b s_b^T, s_b = J_b^T r_b the
//              score of a block of consecutive frames (a block sandwich, i.e. the HAC
//              covariance of coloured residuals; H = J^T J);
//   sub-fits   the disagreement between the fits of parts of the data, each a Gauss-Newton
//              step from the solution on that part alone (with the fit's weak prior): the two experiments (with a payload
//              anchor, along every direction but the common scale, which only both fix) and the
//              four quarters of the records. A model error that acts differently on different
//              parts (loads, speeds) shows here and nowhere else.
//
// All in fit coordinates (logs), J weighted by the camera sigma, r = (measured - twin) / sigma.
#include <Eigen/Core>
#include <vector>

namespace vcloe::oe_ident {

struct CovarianceTerms {
  Eigen::MatrixXd camera;    // s^2 H^-1: white camera noise at the residual's level (for comparison)
  Eigen::MatrixXd sandwich;  // block sandwich
  Eigen::MatrixXd subfits;   // sum over the partitions of the variance of their parts' mean
  Eigen::MatrixXd total() const { return sandwich + subfits; }
};

struct UncertaintyInput {
  const Eigen::MatrixXd& J;                // rows of all experiments in turn, the kept coordinates' columns
  const std::vector<double>& r;
  std::vector<std::size_t> frames;         // per experiment (rows 6 x frames)
  std::vector<bool> fixes_scale;           // per experiment: its data alone fixes the scale
  int block_frames = 100;                  // sandwich block length
  double prior_log_sigma = 0;              // the fit's weak prior (0: none), kept in the sub-fits
};

CovarianceTerms coordinate_covariance(const UncertaintyInput& in);

}  // namespace vcloe::oe_ident
