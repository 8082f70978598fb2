#include "vcloe/vision/render_pairs.hpp"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/seed_range.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/vision/opencv_io.hpp"
#include "vcloe/vision/pose.hpp"
#include "vcloe/vision/render.hpp"

namespace vcloe::vision {

namespace fs = std::filesystem;

std::optional<SettingProblem> RenderPairsOptions::problem() const {
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  if (frames < 1 || frames > 100000) return bad("--frames", "expected 1 to 100000 frames, got " + std::to_string(frames));
  if (!(rate > 0 && rate <= 1e5)) return bad("--rate", "expected a frame rate in (0, 100000] Hz, got " + exact_number(rate));
  if (!(noise_dn >= 0 && noise_dn <= kMaxDn))
    return bad("--noise-dn", "expected a noise sigma in [0, 4095] DN (12-bit), got " + exact_number(noise_dn));
  if (!(blur_px > kMinBlurPx && blur_px <= kMaxBlurPx))
    return bad("--blur-px", "expected a blur sigma in (0.1, 50] px, got " + exact_number(blur_px));
  // The frames' seeds (render_pairs) within what each camera's noise seed can carry (render.hpp).
  return seed_range_problem("--seed", seed, static_cast<std::uint64_t>(frames), kMaxRenderSeed, 0, kFrameSeedStride);
}

void RenderPairsOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // --out: the file system, so here and not in problem() (which stays pure).
  if (fs::exists(out) && !fs::is_directory(out)) fail(out, "is a file; --out names the directory for the images");
}

namespace {

// The markers the cameras see (in both images, at least a pixel across), before any image is
// written: a rig looking away (camera behind the markers, a focal length of 1e-300, distortion
// of 1e308) rendered empty images without a word, and `measure` then found no pose.
void check_markers_visible(const StereoRig& rig, const MarkerSet& markers, const PosePath& reference, int frames,
                           double rate, const std::string& what, std::ostream& warnings) {
  int blind = 0, first_blind = -1;
  for (int k = 0; k < frames; ++k) {
    const Transform T = transform_from_pose(reference.pose(k / rate));
    const MarkerView l = view_markers(rig, markers, T, true), r = view_markers(rig, markers, T, false);
    int both = 0;
    for (std::size_t i = 0; i < l.names.size(); ++i)
      for (std::size_t j = 0; j < r.names.size(); ++j)
        both += l.names[i] == r.names[j] && l.radii_px[i] >= 1 && r.radii_px[j] >= 1;
    if (both < 3 && blind++ == 0) first_blind = k;
  }
  if (blind == frames)
    fail(what, "no frame shows 3 markers in both images (camera_from_base, focal_px or distortion cannot see "
               "them); nothing written");
  if (blind > 0)
    warnings << "vcloe: warning: " << blind << " of " << frames << " frames show fewer than 3 markers in both images "
             << "(first: frame " << first_blind << "); measure will find no pose there\n";
}

// A 16-bit PNG of incompressible noise is 2 bytes a pixel plus a filter byte a row: the bound
// the free space is compared with (rendered markers on a dark field compress to about 0.6).
constexpr double kMaxPngBytesPerPixel = 2.01;

// Before anything is rendered: the pixels within kMaxRenderPixels, and their PNG bytes, at the
// most, within the free space of the output's file system.
void check_render_budget(const StereoRig& rig, int frames, const std::string& out) {
  const double pixels = frames * (static_cast<double>(rig.left.width) * rig.left.height +
                                  static_cast<double>(rig.right.width) * rig.right.height);
  const double bytes = pixels * kMaxPngBytesPerPixel;
  auto size = [](const Camera& c) { return std::to_string(c.width) + "x" + std::to_string(c.height); };
  const std::string what = std::to_string(frames) + " stereo frames of " + size(rig.left) +
                           (size(rig.left) == size(rig.right) ? "" : " and " + size(rig.right)) + " px";
  auto gb = [](double b) { return fixed(b / 1e9, b < 10e9 ? 1 : 0) + " GB"; };
  if (pixels > kMaxRenderPixels)
    fail("--frames", what + " would be " + fixed(pixels / 1e9, 1) + " Gpx (up to " + gb(bytes) +
                         " of 16-bit PNG); at most " + exact_number(kMaxRenderPixels / 1e9) +
                         " Gpx; render fewer frames or a smaller image_size");
  fs::path existing = fs::absolute(out);
  std::error_code ec;
  while (!fs::exists(existing, ec) && existing.has_relative_path()) existing = existing.parent_path();
  const fs::space_info space = fs::space(existing, ec);
  if (!ec && bytes > static_cast<double>(space.available))
    fail("--out", what + " need up to " + gb(bytes) + " of 16-bit PNG, but " + existing.string() + " has " +
                      gb(static_cast<double>(space.available)) + " free");
}

void check_occluded(const RenderPairsOptions& o, const MarkerSet& markers, std::ostream& warnings) {
  for (const auto& name : o.occluded) {
    const auto& p = markers.platform.names;
    const auto& b = markers.base.names;
    if (std::find(p.begin(), p.end(), name) == p.end() && std::find(b.begin(), b.end(), name) == b.end())
      fail("--occlude", "no marker named '" + name + "' in " + o.markers);
  }
  // Images in which no pose can be measured: said (a warning, as for frames the rig sees too few
  // markers in: such images are what a test of measure's flags is made of), not written without a word.
  const auto& p = markers.platform.names;
  const long visible = std::count_if(p.begin(), p.end(), [&](const std::string& n) {
    return std::find(o.occluded.begin(), o.occluded.end(), n) == o.occluded.end();
  });
  const int least = PipelineSettings{}.min_markers;
  if (visible < least)
    warnings << "vcloe: warning: --occlude hides " << p.size() - static_cast<std::size_t>(visible) << " of the "
             << p.size() << " platform markers of " << o.markers << ", leaving " << visible << ", fewer than the "
             << least << " a pose needs: measure will find no pose in any of these images\n";
}

std::string image_name(const std::string& dir, const char* side, int k) {
  std::ostringstream n;
  n << side << "_" << std::setw(4) << std::setfill('0') << k << ".png";
  return (fs::path(dir) / n.str()).string();
}

// Encoded in memory, then written to its temporary in the render's group (placed with the
// others at the end): an interrupted or failed render leaves no image under its final name.
void write_png(FileGroup& set, const std::string& path, const cv::Mat& image) {
  std::vector<uchar> png;
  if (!opencv_io(path, "encode the image").encode_png(image, png)) fail(path, "cannot encode the image");
  set.add(path, std::string(png.begin(), png.end()));
}

TraceMetadata truth_metadata(const RenderPairsOptions& o) {
  TraceMetadata m;
  m.format = kTraceFormat, m.source = "render", m.software_version = defaults::software_version();
  m.camera_hz = o.rate;
  m.note = "measured = reference = truth: the true poses of the rendered frames";
  m.rig = file_record(o.rig), m.markers = file_record(o.markers), m.reference = file_record(o.reference);
  m.seed = o.seed;
  m.noise_dn = o.noise_dn, m.blur_px = o.blur_px;
  return m;
}

}  // namespace

Report render_pairs(const RenderPairsOptions& o, const PosePathLoader& load_reference, std::ostream& warnings) {
  o.validate();
  const StereoRig rig = load_rig(o.rig);
  if (!rig.T_C_O) fail(o.rig, "rendering needs camera_from_base (the virtual rig's truth)");
  const MarkerSet markers = load_markers(o.markers);
  check_occluded(o, markers, warnings);
  const PosePath reference = load_reference(o.reference);
  if ((o.frames - 1) / o.rate > reference.duration)
    fail("--frames/--rate", std::to_string(o.frames) + " frames at " + exact_number(o.rate) + " Hz last " +
                                exact_number((o.frames - 1) / o.rate) + " s, longer than the " +
                                exact_number(reference.duration) + " s of " + o.reference);
  check_render_budget(rig, o.frames, o.out);
  check_markers_visible(rig, markers, reference, o.frames, o.rate, o.rig + " along " + o.reference, warnings);
  create_output_directory(o.out);
  const std::string trace_path = (fs::path(o.out) / "truth.csv").string();
  IoPlan plan(o.force);
  plan.input(o.rig, "--rig").input(o.markers, "--markers").input(o.reference, "--reference");
  for (int k = 0; k < o.frames; ++k)
    plan.output(image_name(o.out, "left", k), "an image of --out").output(image_name(o.out, "right", k), "an image of --out");
  plan.output_trace(trace_path, "the truth of --out").output_folder(o.out, "--out").check();
  // The images and the truth are one set (measure reads them together): written as one group, so
  // a failure anywhere (a disk filling partway) leaves the folder as it was, never a mix of two
  // renders under --force nor frames without their truth (probe 26's class D).
  FileGroup set("the " + std::to_string(2 * o.frames) + " images and truth.csv of " + o.out);
  PoseTrace trace;
  for (int k = 0; k < o.frames; ++k) {
    const double t = k / o.rate;
    const Vec6d chi = reference.pose(t);
    RenderSettings s;
    s.seed = o.seed * kFrameSeedStride + static_cast<std::uint64_t>(k);  // in range: problem()
    s.noise_sigma_dn = o.noise_dn;
    s.blur_sigma_px = o.blur_px;
    s.occluded = o.occluded;
    const StereoImages img = render_markers(rig, markers, transform_from_pose(chi), s);
    write_png(set, image_name(o.out, "left", k), img.left);
    write_png(set, image_name(o.out, "right", k), img.right);
    for (auto* column : {&trace.measured, &trace.reference, &trace.truth}) column->push_back(chi);
    trace.time.push_back(t);
  }
  trace.metadata = truth_metadata(o);
  for (const FileText& f : trace_files(trace_path, trace)) set.add(f.path, f.text);
  set.commit(o.force);
  std::ostringstream text;
  text << "wrote " << o.frames << " image pairs (" << rig.left.width << "x" << rig.left.height
       << ", 16-bit PNG, 12-bit values) and " << trace_path << " to " << o.out << "\n";
  return {nlohmann::json::object(), text.str()};
}

}  // namespace vcloe::vision
