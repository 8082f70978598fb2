#pragma once
// vcloe/vision/markers.hpp — retro-reflective marker layouts, labelling of triangulated points by
// distance matrix, and rigid registration (Umeyama, no scale, no reflection).
//
// A body (the platform, frame E; the base, frame O) carries >= 4 non-coplanar markers whose
// pairwise distances are all different, so a set of triangulated points is labelled by matching
// its distance matrix against the layout's (docs/vision.md, "Marker file").
#include <string>
#include <vector>

#include "vcloe/vision/camera.hpp"

namespace vcloe::vision {

struct MarkerLayout {
  std::string body;                 // "platform" or "base"
  std::vector<std::string> names;   // unique
  std::vector<Vec3d> positions;     // in the body's frame (m)
  std::size_t size() const { return positions.size(); }
};

struct MarkerSet {
  double diameter = 0.008;          // m, spherical markers
  double min_distance_gap = 0.004;  // m, smallest gap between two pairwise distances of a body
  MarkerLayout platform;            // in E
  MarkerLayout base;                // in O
};

MarkerSet load_markers(const std::string& path);
MarkerSet parse_markers(const std::string& yaml_text, const std::string& name);

// Checks a layout: >= 4 markers, non-coplanar (smallest principal extent >= 5 mm), every
// pairwise distance >= 20 mm and any two pairwise distances at least `min_gap` apart. Returns
// an empty string if fine, else what is wrong.
std::string layout_problem(const MarkerLayout& layout, double min_gap);

// Result of labelling: point index per marker (-1: not found).
struct Labelling {
  std::vector<int> point_of_marker;
  int labelled = 0;
  double max_distance_error = 0;    // m, worst |measured - layout| distance among labelled pairs
};

// Labels `points` against `layout`: the largest set of markers whose pairwise distances all
// agree with the layout within `tolerance` (m), ties broken by the smallest squared distance
// error. `exclusive[k]` lists ids that may not be used twice (e.g. the left and right image
// detections a stereo point came from); pass empty to allow any combination. Returns
// labelled = 0 if fewer than `min_markers` can be labelled.
Labelling label_by_distances(const MarkerLayout& layout, const std::vector<Vec3d>& points,
                             double tolerance, int min_markers,
                             const std::vector<std::vector<int>>& exclusive = {});

// Rigid fit p_measured ~ T * p_model without scaling or reflection (Eigen::umeyama).
struct RigidFit {
  Transform T = Transform::Identity();
  double fre_rms = 0;               // fiducial registration error, RMS of residual norms (m)
  std::vector<double> residuals;    // m, per point
};
RigidFit fit_rigid(const std::vector<Vec3d>& model, const std::vector<Vec3d>& measured);

}  // namespace vcloe::vision
