#include "vcloe/vision/markers.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"

namespace vcloe::vision {

namespace {

MarkerLayout read_layout(const YamlNode& n, const std::string& body) {
  MarkerLayout L;
  L.body = body;
  if (!n.is_sequence()) n.fail("expected a list of {name, position} markers");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YamlNode m = n.at(i);
    m.reject_unknown_keys({"name", "position"});
    const std::string name = m.at("name").as_string();
    if (name.empty() || !seen.insert(name).second) m.at("name").fail("expected a unique, non-empty marker name");
    const Eigen::VectorXd p = m.get_vector("position", 3);
    if (!p.allFinite() || p.norm() > 5) m.at("position").fail("expected a position in m (|p| <= 5 m)");
    L.names.push_back(name);
    L.positions.push_back(p);
  }
  return L;
}

MarkerSet read_markers(const YamlNode& root) {
  root.reject_unknown_keys({"format", "diameter", "min_distance_gap", "platform", "base"});
  if (root.has("format") && root.at("format").as_string() != "vcloe-markers-1")
    root.at("format").fail("expected 'vcloe-markers-1'");
  MarkerSet s;
  s.diameter = root.get_double("diameter");
  if (!(s.diameter > 0.0005 && s.diameter < 0.1)) root.at("diameter").fail("expected a marker diameter in (0.0005, 0.1) m");
  s.min_distance_gap = root.get_double("min_distance_gap", 0.004);
  if (!(s.min_distance_gap >= 0.001)) root.at("min_distance_gap").fail("expected at least 0.001 m");
  s.platform = read_layout(root.at("platform"), "platform");
  s.base = read_layout(root.at("base"), "base");
  for (const auto* L : {&s.platform, &s.base}) {
    const std::string problem = layout_problem(*L, s.min_distance_gap);
    if (!problem.empty()) root.at(L->body).fail(problem);
  }
  return s;
}

}  // namespace

MarkerSet load_markers(const std::string& path) { return read_markers(YamlDoc::load(path).root()); }
MarkerSet parse_markers(const std::string& text, const std::string& name) {
  return read_markers(YamlDoc::parse(text, name).root());
}

std::string layout_problem(const MarkerLayout& L, double min_gap) {
  const std::size_t n = L.size();
  if (n < 4) return "expected at least 4 markers, got " + std::to_string(n);
  Vec3d mean = Vec3d::Zero();
  for (const auto& p : L.positions) mean += p;
  mean /= static_cast<double>(n);
  Eigen::MatrixXd Q(3, static_cast<int>(n));
  for (std::size_t i = 0; i < n; ++i) Q.col(static_cast<int>(i)) = L.positions[i] - mean;
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(Q);
  const double thickness = svd.singularValues()(2) / std::sqrt(static_cast<double>(n));
  if (thickness < 0.005)
    return "markers are (nearly) coplanar: RMS distance from their best plane is " +
           std::to_string(thickness * 1000) + " mm, expected >= 5 mm";
  struct Pair {
    double d;
    std::size_t i, j;
  };
  std::vector<Pair> pairs;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const double d = (L.positions[i] - L.positions[j]).norm();
      if (d < 0.02)
        return "markers " + L.names[i] + " and " + L.names[j] + " are " + std::to_string(d * 1000) +
               " mm apart, expected >= 20 mm";
      pairs.push_back({d, i, j});
    }
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.d < b.d; });
  for (std::size_t k = 1; k < pairs.size(); ++k)
    if (pairs[k].d - pairs[k - 1].d < min_gap)
      return "pairwise distances are not unique enough for labelling: |" + L.names[pairs[k - 1].i] +
             L.names[pairs[k - 1].j] + "| = " + std::to_string(pairs[k - 1].d * 1000) + " mm and |" +
             L.names[pairs[k].i] + L.names[pairs[k].j] + "| = " + std::to_string(pairs[k].d * 1000) +
             " mm differ by less than min_distance_gap = " + std::to_string(min_gap * 1000) + " mm";
  return "";
}

namespace {

struct LabelSearch {
  const MarkerLayout& layout;
  const std::vector<Vec3d>& points;
  double tol;
  const std::vector<std::vector<int>>& exclusive;
  Eigen::MatrixXd D_layout, D_points;
  std::vector<int> current, best;
  std::vector<char> used;
  std::vector<std::set<int>> exclusive_used;
  int best_count = 0;
  double best_cost = std::numeric_limits<double>::infinity();

  bool compatible_exclusive(int j) const {
    if (exclusive.empty()) return true;
    for (std::size_t k = 0; k < exclusive.size(); ++k)
      if (exclusive_used[k].count(exclusive[k][static_cast<std::size_t>(j)])) return false;
    return true;
  }
  void mark_exclusive(int j, bool on) {
    if (exclusive.empty()) return;
    for (std::size_t k = 0; k < exclusive.size(); ++k) {
      const int id = exclusive[k][static_cast<std::size_t>(j)];
      if (on) exclusive_used[k].insert(id);
      else exclusive_used[k].erase(id);
    }
  }

  void search(std::size_t i, int count, double cost) {
    const int remaining = static_cast<int>(layout.size() - i);
    if (count + remaining < best_count) return;
    if (i == layout.size()) {
      if (count > best_count || (count == best_count && cost < best_cost)) {
        best_count = count;
        best_cost = cost;
        best = current;
      }
      return;
    }
    for (int j = 0; j < static_cast<int>(points.size()); ++j) {
      if (used[static_cast<std::size_t>(j)] || !compatible_exclusive(j)) continue;
      double c = cost;
      bool ok = true;
      for (std::size_t k = 0; k < i && ok; ++k) {
        const int pk = current[k];
        if (pk < 0) continue;
        const double e = D_points(j, pk) - D_layout(static_cast<int>(i), static_cast<int>(k));
        if (std::abs(e) > tol) ok = false;
        c += e * e;
      }
      if (!ok) continue;
      current[i] = j;
      used[static_cast<std::size_t>(j)] = 1;
      mark_exclusive(j, true);
      search(i + 1, count + 1, c);
      mark_exclusive(j, false);
      used[static_cast<std::size_t>(j)] = 0;
      current[i] = -1;
    }
    search(i + 1, count, cost);  // marker i not seen
  }
};

}  // namespace

Labelling label_by_distances(const MarkerLayout& layout, const std::vector<Vec3d>& points,
                             double tolerance, int min_markers,
                             const std::vector<std::vector<int>>& exclusive) {
  for (const auto& e : exclusive)
    if (e.size() != points.size()) throw Error("label_by_distances: one exclusive id per point expected");
  LabelSearch s{layout, points, tolerance, exclusive, {}, {}, {}, {}, {}, {}};
  const int n = static_cast<int>(layout.size()), m = static_cast<int>(points.size());
  s.D_layout.resize(n, n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k)
      s.D_layout(i, k) = (layout.positions[static_cast<std::size_t>(i)] - layout.positions[static_cast<std::size_t>(k)]).norm();
  s.D_points.resize(m, m);
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < m; ++k)
      s.D_points(i, k) = (points[static_cast<std::size_t>(i)] - points[static_cast<std::size_t>(k)]).norm();
  s.current.assign(layout.size(), -1);
  s.best.assign(layout.size(), -1);
  s.used.assign(points.size(), 0);
  s.exclusive_used.resize(exclusive.size());
  s.best_count = std::max(min_markers, 1);  // only accept sets of at least min_markers
  s.search(0, 0, 0.0);

  Labelling out;
  out.point_of_marker.assign(layout.size(), -1);
  if (s.best_cost == std::numeric_limits<double>::infinity()) return out;
  out.point_of_marker = s.best;
  out.labelled = s.best_count;
  for (std::size_t i = 0; i < layout.size(); ++i)
    for (std::size_t k = i + 1; k < layout.size(); ++k) {
      const int a = s.best[i], b = s.best[k];
      if (a < 0 || b < 0) continue;
      out.max_distance_error = std::max(
          out.max_distance_error,
          std::abs(s.D_points(a, b) - s.D_layout(static_cast<int>(i), static_cast<int>(k))));
    }
  return out;
}

RigidFit fit_rigid(const std::vector<Vec3d>& model, const std::vector<Vec3d>& measured) {
  if (model.size() != measured.size() || model.size() < 3)
    throw Error("fit_rigid: expected >= 3 corresponding points, got " + std::to_string(model.size()) +
                " and " + std::to_string(measured.size()));
  const int n = static_cast<int>(model.size());
  Eigen::Matrix3Xd src(3, n), dst(3, n);
  for (int i = 0; i < n; ++i) {
    src.col(i) = model[static_cast<std::size_t>(i)];
    dst.col(i) = measured[static_cast<std::size_t>(i)];
  }
  RigidFit fit;
  fit.T = Transform(Eigen::umeyama(src, dst, false));  // rotation has det +1 (reflection fixed)
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const double r = (fit.T * src.col(i) - dst.col(i)).norm();
    fit.residuals.push_back(r);
    sum += r * r;
  }
  fit.fre_rms = std::sqrt(sum / n);
  return fit;
}

}  // namespace vcloe::vision
