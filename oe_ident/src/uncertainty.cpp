// oe_ident/src/uncertainty.cpp — noise, sandwich and sub-fit covariance terms (uncertainty.hpp).
#include "vcloe/oe_ident/uncertainty.hpp"

#include <Eigen/Dense>

#include <algorithm>

namespace vcloe::oe_ident {

namespace {

using Rows = std::vector<Eigen::Index>;

// The rows of frames [a, b) of every experiment, or of experiment e only (e >= 0).
Rows rows_of(const UncertaintyInput& in, double a, double b, int only) {
  Rows rows;
  Eigen::Index first = 0;
  for (std::size_t e = 0; e < in.frames.size(); ++e) {
    const auto n = static_cast<double>(in.frames[e]);
    if (only < 0 || static_cast<int>(e) == only)
      for (auto j = static_cast<Eigen::Index>(a * n); j < static_cast<Eigen::Index>(b * n); ++j)
        for (int c = 0; c < 6; ++c) rows.push_back(first + 6 * j + c);
    first += 6 * static_cast<Eigen::Index>(in.frames[e]);
  }
  return rows;
}

// The Gauss-Newton step of the fit of `rows` alone, from the solution, within the columns of
// B, with the fit's weak prior (curvature 1 / prior_log_sigma^2 per coordinate) so that what
// these rows do not determine stays where it is.
Eigen::VectorXd subfit_step(const UncertaintyInput& in, const Rows& rows, const Eigen::MatrixXd& B) {
  Eigen::MatrixXd A(static_cast<Eigen::Index>(rows.size()), B.cols());
  Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    A.row(static_cast<Eigen::Index>(i)) = in.J.row(rows[i]) * B;
    y(static_cast<Eigen::Index>(i)) = -in.r[static_cast<std::size_t>(rows[i])];
  }
  Eigen::MatrixXd N = A.transpose() * A;
  if (in.prior_log_sigma > 0) N.diagonal().array() += 1 / (in.prior_log_sigma * in.prior_log_sigma);
  return B * N.ldlt().solve(A.transpose() * y);
}

// Variance of the mean of the parts' estimates: sum (d_k - mean)(d_k - mean)^T / (K (K - 1)).
Eigen::MatrixXd spread(const std::vector<Eigen::VectorXd>& d) {
  const auto K = static_cast<double>(d.size());
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(d.front().size());
  for (const auto& x : d) mean += x / K;
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(mean.size(), mean.size());
  for (const auto& x : d) S += (x - mean) * (x - mean).transpose();
  return S / (K * (K - 1));
}

constexpr int kRecordParts = 4;

// The sub-fit partitions: the experiments (when there are several) and the records' quarters.
Eigen::MatrixXd subfit_covariance(const UncertaintyInput& in) {
  const Eigen::Index q = in.J.cols();
  Eigen::MatrixXd total = Eigen::MatrixXd::Zero(q, q);
  const Eigen::MatrixXd all = Eigen::MatrixXd::Identity(q, q);
  if (in.frames.size() > 1) {
    // An experiment that cannot fix the scale alone (no payload under a payload anchor) is
    // compared along every direction but the common scale: every coordinate is a log, so the
    // scale is the direction (1, ..., 1).
    const bool all_fix = std::all_of(in.fixes_scale.begin(), in.fixes_scale.end(), [](bool b) { return b; });
    Eigen::MatrixXd B = all;
    if (!all_fix) {
      Eigen::MatrixXd V(q, q);
      V.col(0).setOnes();
      V.rightCols(q - 1) = all.leftCols(q - 1);
      const Eigen::MatrixXd Q = V.householderQr().householderQ();
      B = Q.rightCols(q - 1);
    }
    std::vector<Eigen::VectorXd> d;
    for (std::size_t e = 0; e < in.frames.size(); ++e) d.push_back(subfit_step(in, rows_of(in, 0, 1, static_cast<int>(e)), B));
    total += spread(d);
  }
  // Quarters, not halves: an excitation of two periods has identical halves, its quarters hold
  // the different half-periods (other speeds, other directions).
  std::vector<Eigen::VectorXd> parts;
  for (int k = 0; k < kRecordParts; ++k)
    parts.push_back(subfit_step(in, rows_of(in, double(k) / kRecordParts, double(k + 1) / kRecordParts, -1), all));
  total += spread(parts);
  return total;
}

}  // namespace

CovarianceTerms coordinate_covariance(const UncertaintyInput& in) {
  const Eigen::Index q = in.J.cols(), N = in.J.rows();
  const Eigen::MatrixXd Hinv = (in.J.transpose() * in.J).ldlt().solve(Eigen::MatrixXd::Identity(q, q));
  const Eigen::Map<const Eigen::VectorXd> r(in.r.data(), static_cast<Eigen::Index>(in.r.size()));
  CovarianceTerms t;
  t.camera = r.squaredNorm() / static_cast<double>(std::max<Eigen::Index>(1, N - q)) * Hinv;
  // Block sandwich: scores of blocks of block_frames frames (per experiment), mean removed.
  std::vector<Eigen::VectorXd> scores;
  Eigen::Index first = 0;
  for (std::size_t n : in.frames) {
    const auto frames = static_cast<Eigen::Index>(n);
    for (Eigen::Index a = 0; a < frames; a += in.block_frames) {
      const Eigen::Index rows = 6 * (std::min(frames, a + in.block_frames) - a);
      scores.push_back(in.J.middleRows(first + 6 * a, rows).transpose() * r.segment(first + 6 * a, rows));
    }
    first += 6 * frames;
  }
  const Eigen::MatrixXd Omega = spread(scores) * static_cast<double>(scores.size() * scores.size());
  t.sandwich = Hinv * Omega * Hinv;
  t.subfits = subfit_covariance(in);
  return t;
}

}  // namespace vcloe::oe_ident
