// oe_ident/src/identifiability.cpp — QR at the start, SVD at the solution, covariance
// (identifiability.hpp).
#include "identifiability.hpp"

#include <Eigen/SVD>
#include <cmath>

#include "vcloe/excitation/criteria.hpp"

namespace vcloe::oe_ident {

namespace {

// Coordinate c leaves the fit: its members (or the latency offset) marked with `why`.
void leave_out(const ParameterMap& map, int c, const std::string& why, FitStatus& st) {
  const ParameterMap::Coord& co = map.coords[static_cast<std::size_t>(c)];
  if (co.latency) {
    st.latency_free = false;
    st.latency_status = why;
  }
  for (int m : co.members) {
    st.free[m] = false;
    st.status[m] = why;
  }
}

}  // namespace

std::set<int> analyse_start(const Eigen::MatrixXd& J0, const ParameterMap& map, double qr_eps, FitStatus& st) {
  const auto& reg = sim::parameter_registry();
  const excitation::ColumnReport rep = excitation::excited_columns(J0, qr_eps);
  std::set<int> dropped;
  for (const auto& u : rep.dropped) {
    dropped.insert(u.parameter);
    if (u.zero_column) {
      leave_out(map, u.parameter, "not excited (no effect on the pose trace)", st);
      continue;
    }
    std::string with;
    for (int c : u.combined_with) {
      if (map.coords[static_cast<std::size_t>(c)].latency) with += (with.empty() ? "" : ", ") + std::string(kLatencyName);
      for (int m2 : map.coords[static_cast<std::size_t>(c)].members) {
        with += (with.empty() ? "" : ", ") + reg[m2].name;
        st.combination.insert(m2);
      }
    }
    leave_out(map, u.parameter, "only in combination with " + with, st);
  }
  return dropped;
}

std::vector<int> analyse_solution(const Eigen::MatrixXd& J, const ParameterMap& map, double rank_tolerance,
                                  FitStatus& st, std::vector<double>* singular_values) {
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(J, Eigen::ComputeThinV);
  const Eigen::VectorXd sv = svd.singularValues();
  if (singular_values) singular_values->assign(sv.data(), sv.data() + sv.size());
  std::set<int> null_coords;
  for (int i = 0; i < map.size(); ++i) {
    if (sv(i) >= rank_tolerance * sv(0)) continue;
    int worst = 0;
    svd.matrixV().col(i).cwiseAbs().maxCoeff(&worst);
    null_coords.insert(worst);
  }
  std::vector<int> kept;
  for (int c = 0; c < map.size(); ++c) {
    if (!null_coords.count(c)) {
      kept.push_back(c);
      continue;
    }
    leave_out(map, c, "unidentifiable at the solution (null space of the Jacobian)", st);
  }
  return kept;
}

Eigen::MatrixXd kept_columns(const Eigen::MatrixXd& J, const std::vector<int>& kept) {
  Eigen::MatrixXd Jk(J.rows(), static_cast<Eigen::Index>(kept.size()));
  for (std::size_t c = 0; c < kept.size(); ++c) Jk.col(static_cast<Eigen::Index>(c)) = J.col(kept[c]);
  return Jk;
}

Eigen::MatrixXd lambda_covariance(const Eigen::MatrixXd& cov_kept, const std::vector<int>& kept, const ParameterMap& map,
                                  const std::vector<double>& delta) {
  const Eigen::MatrixXd P_full = map.jacobian(delta.data());
  Eigen::MatrixXd P(sim::kNumLambda, static_cast<Eigen::Index>(kept.size()));
  for (std::size_t c = 0; c < kept.size(); ++c) P.col(static_cast<Eigen::Index>(c)) = P_full.col(kept[c]);
  return P * cov_kept * P.transpose();
}

}  // namespace vcloe::oe_ident
