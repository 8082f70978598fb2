#pragma once
// oe_ident/src/identifiability.hpp — what the data can and cannot determine: QR of the
// weighted Jacobian at the start, SVD null space at the solution, and the covariance of the
// identified values mapped to Lambda (the terms: uncertainty.hpp).
#include <set>
#include <string>
#include <vector>

#include "parameter_map.hpp"
#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

// Which Lambda entries are fitted, and for the others why not.
struct FitStatus {
  std::vector<bool> free = std::vector<bool>(sim::kNumLambda, true);
  std::vector<std::string> status = std::vector<std::string>(sim::kNumLambda);  // why not free
  std::set<int> combination;  // fitted, but identifiable only in combination with others
  bool latency_free = true;   // the latency offset is a coordinate (LatencyOptions::fit)
  std::string latency_status; // why not, when it is not
};

// Structural identifiability at the start: QR (registry order) of the weighted Jacobian's
// unit-norm columns (excitation::excited_columns with qr_eps). Zero columns are not excited;
// dependent ones identifiable only in combination. Both leave the fit (marked in `st`) and are
// never reported as identified. Returns the dropped coordinates of `map`.
std::set<int> analyse_start(const Eigen::MatrixXd& J0, const ParameterMap& map, double qr_eps, FitStatus& st);

// Identifiability at the solution: directions of the weighted Jacobian with singular values
// below rank_tolerance * the largest are unidentifiable; the coordinate dominating each is
// marked so in `st` (its value is where the damped fit left it, i.e. near the start). Returns
// the other coordinates, in order.
// singular_values (when non-null): the weighted Jacobian's, largest first.
std::vector<int> analyse_solution(const Eigen::MatrixXd& J, const ParameterMap& map, double rank_tolerance,
                                  FitStatus& st, std::vector<double>* singular_values = nullptr);

// The columns `kept` of J.
Eigen::MatrixXd kept_columns(const Eigen::MatrixXd& J, const std::vector<int>& kept);

// A covariance of the kept coordinates mapped to Lambda (70 x 70) through dLambda/ddelta.
Eigen::MatrixXd lambda_covariance(const Eigen::MatrixXd& cov_kept, const std::vector<int>& kept, const ParameterMap& map,
                                  const std::vector<double>& delta);

}  // namespace vcloe::oe_ident
