#include "vcloe/calib/measure.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <sstream>

#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/vision/image_file.hpp"

namespace vcloe::calib {

namespace fs = std::filesystem;
using nlohmann::json;


namespace {

void require_rig_size(const std::string& image, cv::Size size, const vision::Camera& camera, const char* side,
                      const std::string& rig_file) {
  if (size.width != camera.width || size.height != camera.height)
    fail(image, std::to_string(size.width) + "x" + std::to_string(size.height) + " px, but " + rig_file + " gives the " +
                    side + " camera " + std::to_string(camera.width) + "x" + std::to_string(camera.height));
}

}  // namespace

void check_image_pairs(const std::vector<ImagePair>& pairs, const vision::StereoRig& rig, const std::string& rig_file) {
  for (const ImagePair& p : pairs) {
    const auto left = vision::image_file_size(p.left), right = vision::image_file_size(p.right);
    if (left) require_rig_size(p.left, *left, rig.left, "left", rig_file);
    if (right) require_rig_size(p.right, *right, rig.right, "right", rig_file);
  }
}

vision::PoseMeasurement measure_pair(const vision::PosePipeline& pipeline, const ImagePair& pair,
                                     const std::string& rig_file) {
  const cv::Mat left = vision::read_image(pair.left), right = vision::read_image(pair.right);
  require_rig_size(pair.left, left.size(), pipeline.rig().left, "left", rig_file);
  require_rig_size(pair.right, right.size(), pipeline.rig().right, "right", rig_file);
  return pipeline.measure_images(left, right);
}

std::optional<SettingProblem> MeasureOptions::problem() const {
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  if (!(rate >= 1e-3 && rate <= 1e5))
    return bad("--rate", "expected a frame rate in [0.001, 100000] Hz, got " + exact_number(rate));
  if (!(max_fre_mm > 0 && max_fre_mm <= 1000))
    return bad("--max-fre-mm", "expected a threshold in (0, 1000] mm, got " + exact_number(max_fre_mm));
  return std::nullopt;
}

void MeasureOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // The outputs: the file system, so here and not in problem() (which stays pure).
  std::error_code ec;  // a list file of pairs, or a folder of images
  const std::string images_are = std::filesystem::is_directory(images, ec) ? "an image of --images" : "--images (the list of pairs)";
  if (!out.empty())
    IoPlan(force).input(rig, "--rig").input(markers, "--markers").input_trace(truth, "--truth")
        .input_folder(images, images_are)
        .output_trace(out, "--out")
        .check();
}

namespace {

// Pair k's frame: the number in its names (left_0007.png is frame 7, at 7 / rate), so a missing
// pair leaves a gap instead of shifting every later time; without numbers, k. `missing`: the
// frames without a pair (the first 1000).
std::vector<long> frame_numbers(const std::vector<ImagePair>& pairs, std::vector<long>& missing) {
  const bool numbered = std::all_of(pairs.begin(), pairs.end(), [](const auto& p) { return p.frame >= 0; });
  std::vector<long> frame(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    frame[k] = numbered ? pairs[k].frame : static_cast<long>(k);
    if (k > 0 && frame[k] == frame[k - 1])
      fail(pairs[k].left, "has the frame number " + std::to_string(frame[k]) + " of " + pairs[k - 1].left +
                              " too; expected one image pair per frame");
    for (long f = k > 0 ? frame[k - 1] + 1 : frame[k]; f < frame[k] && missing.size() < 1000; ++f) missing.push_back(f);
  }
  return frame;
}

std::optional<PoseTrace> read_truth(const std::string& file, long last_frame) {
  if (file.empty()) return std::nullopt;
  PoseTrace truth = read_trace(file);
  if (static_cast<long>(truth.size()) <= last_frame)
    fail(file, "has " + std::to_string(truth.size()) + " poses, but the image pairs run to frame " +
                   std::to_string(last_frame) + "; expected one pose per frame");
  return truth;
}

// The frames measured: the valid poses as a trace, per-frame JSON, and the statistics.
struct Measured {
  PoseTrace trace;
  json frames = json::array();
  Vec6d sum_sq = Vec6d::Zero();
  double fre_sum = 0, fre_max = 0;
  int valid = 0;
};

json frame_json(long frame, const ImagePair& pair, double t, const vision::PoseMeasurement& m) {
  return {{"frame", frame},
          {"left", fs::path(pair.left).filename().string()},
          {"time_s", t},
          {"valid", m.valid},
          {"fre_mm", m.fre_m * 1e3},
          {"markers_used", m.markers_used},
          {"left_blobs", m.left_blobs},
          {"right_blobs", m.right_blobs}};
}

// A valid pose's error against the true trace's row for its frame (whose time must be the frame's).
void add_truth(Measured& r, const MeasureOptions& o, const PoseTrace& truth, long frame, double t,
               const vision::PoseMeasurement& m) {
  const std::size_t row = static_cast<std::size_t>(frame);
  if (std::abs(truth.time[row] - t) > 1e-9)
    fail(o.truth + ":" + std::to_string(row + 2), "time " + exact_number(truth.time[row]) + " s is not frame " +
                                                      std::to_string(frame) + " at " + exact_number(t) + " s (--rate " +
                                                      exact_number(o.rate) + " Hz)");
  const Vec6d& tp = truth.truth.empty() ? truth.measured[row] : truth.truth[row];
  r.trace.truth.push_back(tp);
  const Vec6d e = vision::pose_error(m.T_O_E, vision::transform_from_pose(tp));
  r.sum_sq += e.cwiseProduct(e);
}

Measured measure_frames(const MeasureOptions& o, const vision::PosePipeline& pipeline,
                        const std::vector<ImagePair>& pairs, const std::vector<long>& frame,
                        const std::optional<PoseTrace>& truth) {
  Measured r;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const vision::PoseMeasurement m = measure_pair(pipeline, pairs[k], o.rig);
    const double t = static_cast<double>(frame[k]) / o.rate;
    json f = frame_json(frame[k], pairs[k], t, m);
    if (m.valid) {
      ++r.valid;
      r.fre_sum += m.fre_m;
      r.fre_max = std::max(r.fre_max, m.fre_m);
      f["pose"] = {m.chi(0), m.chi(1), m.chi(2), m.chi(3), m.chi(4), m.chi(5)};
      r.trace.time.push_back(t);
      r.trace.measured.push_back(m.chi);
      if (truth) add_truth(r, o, *truth, frame[k], t, m);
    } else {
      f["reason"] = m.reason;
    }
    r.frames.push_back(f);
  }
  return r;
}

std::string frames_text(const json& frames) {
  std::ostringstream s;
  for (const auto& f : frames) {
    s << std::left << std::setw(18) << f["left"].get<std::string>() << std::right;
    if (f["valid"].get<bool>()) {
      const auto p = f["pose"];
      s << "x " << fixed(p[0].get<double>() * 1e3, 4) << " y " << fixed(p[1].get<double>() * 1e3, 4) << " z "
        << fixed(p[2].get<double>() * 1e3, 4) << " mm, angles " << fixed(p[3].get<double>() * 1e3, 4) << " "
        << fixed(p[4].get<double>() * 1e3, 4) << " " << fixed(p[5].get<double>() * 1e3, 4) << " mrad, FRE "
        << fixed(f["fre_mm"].get<double>() * 1e3, 2) << " um, " << f["markers_used"].size() << " markers\n";
    } else {
      s << "INVALID: " << f["reason"].get<std::string>() << "\n";
    }
  }
  return s.str();
}

std::string summary_text(const json& j, const std::vector<long>& missing, double fre_max, const std::string& out) {
  std::ostringstream s;
  if (!missing.empty()) {
    s << "no image pair for frame" << (missing.size() > 1 ? "s" : "");
    for (std::size_t i = 0; i < missing.size() && i < 20; ++i) s << " " << missing[i];
    s << (missing.size() > 20 ? " ..." : "") << " (the other frames keep their times)\n";
  }
  s << j["valid"].get<int>() << " of " << j["frames"].get<std::size_t>() << " frames valid, FRE mean "
    << fixed(j["fre_mm_mean"].get<double>() * 1e3, 2) << " um, max " << fixed(fre_max * 1e6, 2) << " um\n";
  auto axes = [&](const char* key) {
    return fixed(j[key][0].get<double>(), 5) + ", " + fixed(j[key][1].get<double>(), 5) + ", " +
           fixed(j[key][2].get<double>(), 5);
  };
  if (j.contains("error_rms_mm"))
    s << "error vs truth RMS: position [" << axes("error_rms_mm") << "] mm, rotation [" << axes("error_rms_mrad")
      << "] mrad\n";
  if (!out.empty()) s << "wrote " << out << " and " << sidecar_path(out) << "\n";
  return s.str();
}

}  // namespace

Report measure_folder(const MeasureOptions& o) {
  o.validate();
  vision::PipelineSettings settings;
  settings.max_fre_m = o.max_fre_mm * 1e-3;
  settings.base_per_frame = o.base_per_frame;
  const vision::PosePipeline pipeline(vision::load_rig(o.rig), vision::load_markers(o.markers), settings);
  const auto pairs = find_image_pairs(o.images);
  check_image_pairs(pairs, pipeline.rig(), o.rig);
  std::vector<long> missing;
  const std::vector<long> frame = frame_numbers(pairs, missing);
  const std::optional<PoseTrace> truth = read_truth(o.truth, frame.back());
  Measured r = measure_frames(o, pipeline, pairs, frame, truth);
  Report report;
  json& j = report.json;
  j = {{"frames", pairs.size()},
       {"missing_frames", missing},
       {"valid", r.valid},
       {"fre_mm_mean", r.valid ? r.fre_sum / r.valid * 1e3 : 0.0},
       {"fre_mm_max", r.fre_max * 1e3}};
  if (truth && r.valid) {
    const Vec6d rms = (r.sum_sq / r.valid).cwiseSqrt();
    j["error_rms_mm"] = {rms(0) * 1e3, rms(1) * 1e3, rms(2) * 1e3};
    j["error_rms_mrad"] = {rms(3) * 1e3, rms(4) * 1e3, rms(5) * 1e3};
  }
  if (!o.out.empty()) {
    if (r.trace.size() == 0) fail(o.images, "no valid pose: nothing to write");
    TraceMetadata& m = r.trace.metadata;
    m.format = kTraceFormat, m.source = "measure", m.software_version = defaults::software_version();
    m.camera_hz = o.rate;
    m.rig = file_record(o.rig), m.markers = file_record(o.markers);
    m.frames = pairs.size();
    m.missing_frames = std::vector<std::int64_t>(missing.begin(), missing.end());
    m.invalid_frames = static_cast<int>(pairs.size()) - r.valid;
    write_trace(o.out, r.trace, o.force);
    j["out"] = o.out;
  }
  report.text = frames_text(r.frames) + summary_text(j, missing, r.fre_max, o.out);
  j["per_frame"] = r.frames;
  return report;
}

}  // namespace vcloe::calib
