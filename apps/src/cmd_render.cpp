// `vcloe render`: synthetic stereo image pairs of the markers along a trajectory (16-bit PNG)
// and their true poses as a trace, for the virtual rig (docs/vision.md, Rendering).
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <opencv2/imgcodecs.hpp>
#include <sstream>

#include "commands.hpp"
#include "vision_io.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/vision/pose.hpp"

namespace vcloe::app {

namespace fs = std::filesystem;

namespace {

// The markers the cameras see (in both images, at least a pixel across), before any image is
// written: a rig looking away (camera behind the markers, a focal length of 1e-300, distortion
// of 1e308) rendered empty images without a word, and `measure` then found no pose.
void check_markers_visible(const vision::StereoRig& rig, const vision::MarkerSet& markers,
                           const excitation::FourierTrajectory& reference, int frames, double rate,
                           const std::string& what) {
  int blind = 0, first_blind = -1;
  for (int k = 0; k < frames; ++k) {
    const vision::Transform T = vision::transform_from_pose(reference.pose(k / rate));
    const vision::MarkerView l = vision::view_markers(rig, markers, T, true), r = vision::view_markers(rig, markers, T, false);
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
    std::cerr << "vcloe: warning: " << blind << " of " << frames << " frames show fewer than 3 markers in both images "
              << "(first: frame " << first_blind << "); measure will find no pose there\n";
}

// Most pixels one render writes (both images of every frame): 10 Gpx, 400 frames of the default
// 4096x3000 rig, about 6 GB of PNG and some minutes; `--frames 6000` wrote 60 GB in 27 min.
constexpr double kMaxRenderPixels = 10e9;
// A 16-bit PNG of incompressible noise is 2 bytes a pixel plus a filter byte a row: the bound
// the free space is compared with (rendered markers on a dark field compress to about 0.6).
constexpr double kMaxPngBytesPerPixel = 2.01;

// Before anything is rendered: the pixels within kMaxRenderPixels, and their PNG bytes, at the
// most, within the free space of the output's file system.
void check_render_budget(const vision::StereoRig& rig, int frames, const std::string& out) {
  const double pixels = frames * (static_cast<double>(rig.left.width) * rig.left.height +
                                  static_cast<double>(rig.right.width) * rig.right.height);
  const double bytes = pixels * kMaxPngBytesPerPixel;
  auto size = [](const vision::Camera& c) { return std::to_string(c.width) + "x" + std::to_string(c.height); };
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

}  // namespace

void add_render_command(CLI::App& app) {
  struct Options {
    std::string rig, markers, reference, out;
    int frames = 5;
    double rate = 100, noise_dn = 6, blur_px = 0.8;
    std::vector<std::string> occluded;
    std::uint64_t seed = 1;
    bool force = false;

    // Every option's range, before any file is read or image allocated (the rig file bounds
    // the image size, vision::kMaxImagePixels).
    void validate() const {
      if (frames < 1 || frames > 100000) fail("--frames", "expected 1 to 100000 frames, got " + std::to_string(frames));
      if (!(rate > 0 && rate <= 1e5)) fail("--rate", "expected a frame rate in (0, 100000] Hz, got " + exact_number(rate));
      if (!(noise_dn >= 0 && noise_dn <= vision::kMaxDn))
        fail("--noise-dn", "expected a noise sigma in [0, 4095] DN (12-bit), got " + exact_number(noise_dn));
      if (!(blur_px > vision::kMinBlurPx && blur_px <= vision::kMaxBlurPx))
        fail("--blur-px", "expected a blur sigma in (0.1, 50] px, got " + exact_number(blur_px));
      if (fs::exists(out) && !fs::is_directory(out)) fail(out, "is a file; --out names the directory for the images");
    }
  };
  auto o = std::make_shared<Options>();
  o->rig = default_rig_file();
  o->markers = default_markers_file();
  o->reference = default_config_dir() + "/reference.yaml";
  CLI::App* cmd = app.add_subcommand(
      "render", "Write synthetic stereo image pairs of the markers along a trajectory (16-bit PNG) and their true poses");
  cmd->add_option("--rig", o->rig, "rig file with camera_from_base (the truth)")->capture_default_str();
  cmd->add_option("--markers", o->markers, "marker file")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory the platform follows")->capture_default_str();
  cmd->add_option("--out", o->out, "directory for left_NNNN.png, right_NNNN.png and truth.csv")->required();
  cmd->add_option("--frames", o->frames, "number of frames")->capture_default_str();
  cmd->add_option("--rate", o->rate, "frame rate (Hz)")->capture_default_str();
  cmd->add_option("--noise-dn", o->noise_dn, "sensor noise sigma (12-bit DN)")->capture_default_str();
  cmd->add_option("--blur-px", o->blur_px, "blur sigma (px)")->capture_default_str();
  cmd->add_option("--occlude", o->occluded, "marker names hidden in both images");
  cmd->add_option("--seed", o->seed, "noise seed")->capture_default_str();
  cmd->add_flag("--force", o->force, "overwrite existing files");
  cmd->callback([o] {
    o->validate();
    const vision::StereoRig rig = vision::load_rig(o->rig);
    if (!rig.T_C_O) fail(o->rig, "rendering needs camera_from_base (the virtual rig's truth)");
    const vision::MarkerSet markers = vision::load_markers(o->markers);
    for (const auto& name : o->occluded) {
      const auto& p = markers.platform.names;
      const auto& b = markers.base.names;
      if (std::find(p.begin(), p.end(), name) == p.end() && std::find(b.begin(), b.end(), name) == b.end())
        fail("--occlude", "no marker named '" + name + "' in " + o->markers);
    }
    const excitation::FourierTrajectory reference = excitation::load_trajectory(o->reference);
    if ((o->frames - 1) / o->rate > reference.duration)
      fail("--frames/--rate", std::to_string(o->frames) + " frames at " + exact_number(o->rate) + " Hz last " +
                                  exact_number((o->frames - 1) / o->rate) + " s, longer than the " +
                                  exact_number(reference.duration) + " s of " + o->reference);
    check_render_budget(rig, o->frames, o->out);
    check_markers_visible(rig, markers, reference, o->frames, o->rate, o->rig + " along " + o->reference);
    create_output_directory(o->out);
    const std::string trace_path = (fs::path(o->out) / "truth.csv").string();
    auto name = [&](const char* side, int k) {
      std::ostringstream n;
      n << side << "_" << std::setw(4) << std::setfill('0') << k << ".png";
      return (fs::path(o->out) / n.str()).string();
    };
    for (int k = 0; k < o->frames; ++k) check_output_path(name("left", k), o->force), check_output_path(name("right", k), o->force);
    for (const std::string& f : {trace_path, sidecar_path(trace_path)})
      check_output_path(f, o->force, {o->rig, o->markers, o->reference});
    PoseTrace trace;
    for (int k = 0; k < o->frames; ++k) {
      const double t = k / o->rate;
      const Vec6d chi = reference.pose(t);
      vision::RenderSettings s;
      s.seed = o->seed * 1000003u + static_cast<std::uint64_t>(k);
      s.noise_sigma_dn = o->noise_dn;
      s.blur_sigma_px = o->blur_px;
      s.occluded = o->occluded;
      const vision::StereoImages img = vision::render_markers(rig, markers, vision::transform_from_pose(chi), s);
      // Encoded in memory, then written under a temporary name and renamed: an interrupted
      // render leaves no torn image under its final name.
      for (const auto& [side, image] : {std::pair{"left", &img.left}, std::pair{"right", &img.right}}) {
        std::vector<uchar> png;
        if (!cv::imencode(".png", *image, png)) fail(name(side, k), "cannot encode the image");
        write_file_atomically(name(side, k), std::string(png.begin(), png.end()), o->force);
      }
      trace.time.push_back(t);
      trace.measured.push_back(chi);
      trace.reference.push_back(chi);
      trace.truth.push_back(chi);
    }
    trace.metadata = {{"format", "vcloe-trace-1"},
                      {"source", "render"},
                      {"software_version", VCLOE_VERSION},
                      {"camera_hz", o->rate},
                      {"note", "measured = reference = truth: the true poses of the rendered frames"},
                      {"rig", file_entry(o->rig)},
                      {"markers", file_entry(o->markers)},
                      {"reference", file_entry(o->reference)},
                      {"seed", o->seed},
                      {"noise_dn", o->noise_dn},
                      {"blur_px", o->blur_px}};
    write_trace(trace_path, trace, o->force);
    std::cout << "wrote " << o->frames << " image pairs (" << rig.left.width << "x" << rig.left.height
              << ", 16-bit PNG, 12-bit values) and " << trace_path << " to " << o->out << "\n";
  });
}

}  // namespace vcloe::app
