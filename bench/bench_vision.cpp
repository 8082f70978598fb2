// Benchmarks of the pose pipeline (vision/): one rendered 4096x3000 16-bit stereo pair of the
// default rig to a platform pose (detection, centroids, undistortion, matching, triangulation,
// labelling, registration), its stages, and the centroid-only path. Reports ms per frame.
#include <benchmark/benchmark.h>

#include "vcloe/vision/pose.hpp"

using namespace vcloe;
using namespace vcloe::vision;

namespace {
const StereoRig& rig() {
  static const StereoRig r = load_rig(std::string(VCLOE_SOURCE_DIR) + "/config/rig.yaml");
  return r;
}
const MarkerSet& markers() {
  static const MarkerSet m = load_markers(std::string(VCLOE_SOURCE_DIR) + "/config/markers.yaml");
  return m;
}
const PosePipeline& pipeline() {
  static const PosePipeline p(rig(), markers());
  return p;
}
Transform pose() { return transform_from_pose((Vec6d() << 0.01, -0.008, 0.185, 0.03, -0.02, 0.05).finished()); }
const StereoImages& images() {
  static const StereoImages img = render_markers(rig(), markers(), pose(), RenderSettings{});
  return img;
}
}  // namespace

static void BM_ImagePairToPose(benchmark::State& state) {
  const StereoImages& img = images();
  for (auto _ : state) {
    const PoseMeasurement m = pipeline().measure_images(img.left, img.right);
    if (!m.valid) state.SkipWithError(m.reason.c_str());
    benchmark::DoNotOptimize(m.T_O_E);
  }
}
BENCHMARK(BM_ImagePairToPose)->Unit(benchmark::kMillisecond);

static void BM_DetectBlobsOneImage(benchmark::State& state) {
  const StereoImages& img = images();
  for (auto _ : state) benchmark::DoNotOptimize(detect_blobs(img.left));
}
BENCHMARK(BM_DetectBlobsOneImage)->Unit(benchmark::kMillisecond);

static void BM_CentroidsToPose(benchmark::State& state) {
  std::vector<Vec2d> l = view_markers(rig(), markers(), pose(), true).pixels;
  std::vector<Vec2d> r = view_markers(rig(), markers(), pose(), false).pixels;
  for (auto _ : state) benchmark::DoNotOptimize(pipeline().measure_centroids(l, r));
}
BENCHMARK(BM_CentroidsToPose)->Unit(benchmark::kMicrosecond);

static void BM_RenderStereoPair(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(render_markers(rig(), markers(), pose(), RenderSettings{}));
}
BENCHMARK(BM_RenderStereoPair)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
