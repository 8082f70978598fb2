#include "vcloe/excitation/criteria.hpp"

#include <Eigen/QR>
#include <Eigen/SVD>
#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/sim/dynamics.hpp"

namespace vcloe::excitation {

std::string to_string(Criterion c) {
  switch (c) {
    case Criterion::ObservabilityIndex:
      return "observability_index";
    case Criterion::LogDet:
      return "log_det";
    case Criterion::ConditionNumber:
      return "condition_number";
  }
  return "?";
}

Criterion criterion_from_string(const std::string& name, const std::string& where) {
  if (name == "observability_index" || name == "O_in") return Criterion::ObservabilityIndex;
  if (name == "log_det" || name == "d_optimality") return Criterion::LogDet;
  if (name == "condition_number") return Criterion::ConditionNumber;
  fail(where, "unknown criterion '" + name + "' (expected observability_index, log_det or condition_number)");
}

bool stack_regressor(const sim::RobotModel& model, const FourierTrajectory& tr, double sample_period,
                     Eigen::MatrixXd& H) {
  const double period = 1.0 / tr.f0;
  const double span = period <= tr.duration + 1e-9 ? period : tr.duration;
  const int m = std::max(1, static_cast<int>(std::lround(span / sample_period)));
  H.resize(6 * m, sim::kNumXi);
  sim::Regressor<double> Gamma;
  for (int k = 0; k < m; ++k) {
    const TrajectorySample s = tr.sample(span * k / m);
    if (!sim::regressor<double>(model, s.chi, s.v, s.v_dot, Gamma)) return false;  // eq. (25)
    H.middleRows<6>(6 * k) = Gamma;                                                  // eq. (26)
  }
  return true;
}

ColumnReport excited_columns(const Eigen::MatrixXd& H, double eps) {
  ColumnReport report;
  const Eigen::Index n = H.cols();
  const double largest = H.colwise().norm().maxCoeff();
  // Gram-Schmidt QR in registry order (numerically: Householder on the kept set so far).
  std::vector<int> kept;
  Eigen::MatrixXd Q;  // orthonormal basis of the kept columns (unit-norm scaled)
  for (Eigen::Index j = 0; j < n; ++j) {
    const double norm = H.col(j).norm();
    if (norm <= 1e-12 * largest) {
      report.dropped.push_back({static_cast<int>(j), true, {}});
      continue;
    }
    Eigen::VectorXd r = H.col(j) / norm;
    if (Q.cols() > 0) {
      r -= Q * (Q.transpose() * r);
      r -= Q * (Q.transpose() * r);  // re-orthogonalise
    }
    const double rjj = r.norm();  // |R_jj| of the unit column
    if (rjj < eps) {
      // A combination of kept columns: find which ones by least squares.
      Eigen::MatrixXd K(H.rows(), static_cast<Eigen::Index>(kept.size()));
      for (std::size_t i = 0; i < kept.size(); ++i) K.col(static_cast<Eigen::Index>(i)) = H.col(kept[i]);
      const Eigen::VectorXd beta = K.colPivHouseholderQr().solve(H.col(j));
      Unexcited u{static_cast<int>(j), false, {}};
      for (std::size_t i = 0; i < kept.size(); ++i) {
        const double share = std::abs(beta(static_cast<Eigen::Index>(i))) * H.col(kept[i]).norm() / norm;
        if (share > 1e-3) u.combined_with.push_back(kept[i]);
      }
      report.dropped.push_back(u);
      continue;
    }
    kept.push_back(static_cast<int>(j));
    Q.conservativeResize(H.rows(), Q.cols() + 1);
    Q.col(Q.cols() - 1) = r / rjj;
  }
  report.kept = kept;
  return report;
}

std::string ColumnReport::describe() const {
  const auto& reg = sim::parameter_registry();
  std::string out;
  for (const Unexcited& u : dropped) {
    if (!out.empty()) out += ", ";
    out += reg[u.parameter].name;
    if (u.zero_column) {
      out += " (not excited)";
    } else {
      out += " (only with";
      for (int k : u.combined_with) out += " " + reg[k].name;
      out += ")";
    }
  }
  return out.empty() ? "none" : out;
}

double CriterionValues::value(Criterion c) const {
  switch (c) {
    case Criterion::ObservabilityIndex:
      return observability_index;
    case Criterion::LogDet:
      return log_det;
    case Criterion::ConditionNumber:
      return condition_number;
  }
  return 0;
}

CriterionValues evaluate_criteria(const Eigen::MatrixXd& H, const std::vector<int>& columns, bool scale_columns) {
  CriterionValues v;
  v.columns = static_cast<int>(columns.size());
  v.samples = static_cast<int>(H.rows() / 6);
  if (columns.empty()) return v;
  Eigen::MatrixXd K(H.rows(), v.columns);
  for (int i = 0; i < v.columns; ++i) {
    K.col(i) = H.col(columns[i]);
    if (scale_columns) {
      const double n = K.col(i).norm();
      if (n <= 0) return v;
      K.col(i) /= n;
    }
  }
  // Singular values of K are those of R in K = QR: a small square SVD instead of a tall one.
  const Eigen::MatrixXd R = K.householderQr().matrixQR().topRows(v.columns).triangularView<Eigen::Upper>();
  const Eigen::VectorXd sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(R).singularValues();
  if (!(sigma(v.columns - 1) > 0)) return v;
  const double sum_log = sigma.array().log().sum();
  v.observability_index = std::exp(sum_log / v.columns) / std::sqrt(static_cast<double>(v.samples));  // eq. (39)
  v.log_det = 2 * sum_log;
  v.condition_number = sigma(0) / sigma(v.columns - 1);
  return v;
}

}  // namespace vcloe::excitation
