#pragma once
// vcloe/excitation/criteria.hpp — how well a trajectory excites the dynamic parameters.
//
// H stacks the regressor Gamma (eq. 25) over sampled poses of a trajectory (eq. 26). Columns
// the model structure cannot excite are found by QR (Li et al. 2019 §4: |R_ii| < eps, on
// unit-norm columns) and named; the criteria are computed on the columns that remain:
//   observability index  O_in = (sigma_1 ... sigma_p)^(1/p) / sqrt(m)   (eq. 39)
//   d-optimality         log det(H^T H) = 2 sum log sigma_i
//   condition number     sigma_1 / sigma_p (smaller is better)
#include <string>
#include <vector>

#include "vcloe/excitation/fourier.hpp"

namespace vcloe::excitation {

enum class Criterion { ObservabilityIndex, LogDet, ConditionNumber };
std::string to_string(Criterion c);
Criterion criterion_from_string(const std::string& name, const std::string& where);

// H (6m x 64) over m = round(span / period) samples of [0, span), span = one fundamental
// period when it fits in the duration (the series repeats), else the duration.
// Returns false if some sample is unreachable.
bool stack_regressor(const sim::RobotModel& model, const FourierTrajectory& trajectory, double sample_period,
                     Eigen::MatrixXd& H);

struct Unexcited {
  int parameter;                 // registry index
  bool zero_column;              // no effect on any generalized force along this trajectory
  std::vector<int> combined_with;  // otherwise: the kept parameters it is a combination of
};

struct ColumnReport {
  std::vector<int> kept;         // registry indices of the columns the criteria use
  std::vector<Unexcited> dropped;
  std::string describe() const;  // "Ix_w1 (not excited), Iz_w1 (only with m_w1), ..."
};

// QR in registry order on unit-norm columns: a column whose |R_ii| < eps * max |R_jj| is a
// combination of earlier ones (or zero) and is dropped (Li et al. 2019 §4, eps = 1e-3).
ColumnReport excited_columns(const Eigen::MatrixXd& H, double eps = 1e-3);

struct CriterionValues {
  double observability_index = 0;  // eq. (39)
  double log_det = 0;
  double condition_number = 0;
  int columns = 0;
  int samples = 0;
  double value(Criterion c) const;
};

// Criteria of H restricted to `columns`; with scale_columns each column is divided by its norm
// first (unit-free criteria). Returns zeros if a kept column is identically zero.
CriterionValues evaluate_criteria(const Eigen::MatrixXd& H, const std::vector<int>& columns, bool scale_columns);

}  // namespace vcloe::excitation
