// `vcloe measure`: platform poses T_O_E from stereo image pairs through the pose pipeline, with
// error statistics against a true trace (seed 004 §3.1, eqs. 27-28; docs/vision.md, Pipeline).
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "vision_io.hpp"
#include "vcloe/calib/image_pairs.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/vision/pose.hpp"

namespace vcloe::app {

namespace fs = std::filesystem;

void add_measure_command(CLI::App& app) {
  struct Options {
    std::string rig, markers, images, out, truth;
    double rate = 100, max_fre_mm = 0.5;
    bool json = false, force = false, base_per_frame = false;

    void validate() const {
      if (!(rate >= 1e-3 && rate <= 1e5)) fail("--rate", "expected a frame rate in [0.001, 100000] Hz, got " + exact_number(rate));
      if (!(max_fre_mm > 0 && max_fre_mm <= 1000))
        fail("--max-fre-mm", "expected a threshold in (0, 1000] mm, got " + exact_number(max_fre_mm));
      if (!out.empty())
        for (const std::string& f : {out, sidecar_path(out)}) check_output_path(f, force, {rig, markers, truth, sidecar_path(truth), images});
    }
  };
  auto o = std::make_shared<Options>();
  o->rig = default_rig_file();
  o->markers = default_markers_file();
  CLI::App* cmd = app.add_subcommand("measure", "Platform poses T_O_E from stereo image pairs (left*/right*, name order)");
  cmd->add_option("--images", o->images, "directory of left*/right* image pairs, or a list file")->required();
  cmd->add_option("--rig", o->rig, "calibrated rig file (with camera_from_base)")->capture_default_str();
  cmd->add_option("--markers", o->markers, "marker file")->capture_default_str();
  cmd->add_option("--rate", o->rate, "frame rate (Hz): frame N (the number in the image names, else the\n"
                                      "pair's position in name order) is at time N / rate")->capture_default_str();
  cmd->add_option("--max-fre-mm", o->max_fre_mm, "poses with a larger registration error are invalid (mm)")
      ->capture_default_str();
  cmd->add_flag("--base-per-frame", o->base_per_frame, "T_C_O from each frame's base markers, not the rig file");
  cmd->add_option("--truth", o->truth, "trace of the true poses (e.g. from vcloe render): error statistics");
  cmd->add_option("--out", o->out, "trace CSV of the valid poses (docs/traces.md)");
  cmd->add_flag("--json", o->json, "print per-frame results as JSON");
  cmd->add_flag("--force", o->force, "overwrite an existing trace");
  cmd->callback([o] {
    o->validate();
    vision::PipelineSettings settings;
    settings.max_fre_m = o->max_fre_mm * 1e-3;
    settings.base_per_frame = o->base_per_frame;
    const vision::PosePipeline pipeline(vision::load_rig(o->rig), vision::load_markers(o->markers), settings);
    const auto pairs = calib::find_image_pairs(o->images);
    check_image_pairs(pairs, pipeline.rig(), o->rig);
    // Pair k's frame: the number in its names (left_0007.png is frame 7, at 7 / rate), so a
    // missing pair leaves a gap instead of shifting every later time; without numbers, k.
    const bool numbered = std::all_of(pairs.begin(), pairs.end(), [](const auto& p) { return p.frame >= 0; });
    std::vector<long> frame(pairs.size()), missing;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      frame[k] = numbered ? pairs[k].frame : static_cast<long>(k);
      if (k > 0 && frame[k] == frame[k - 1])
        fail(pairs[k].left, "has the frame number " + std::to_string(frame[k]) + " of " + pairs[k - 1].left +
                                " too; expected one image pair per frame");
      for (long f = k > 0 ? frame[k - 1] + 1 : frame[k]; f < frame[k] && missing.size() < 1000; ++f) missing.push_back(f);
    }
    std::optional<PoseTrace> truth;
    if (!o->truth.empty()) {
      truth = read_trace(o->truth);
      if (static_cast<long>(truth->size()) <= frame.back())
        fail(o->truth, "has " + std::to_string(truth->size()) + " poses, but the image pairs run to frame " +
                           std::to_string(frame.back()) + "; expected one pose per frame");
    }
    PoseTrace trace;
    nlohmann::json frames = nlohmann::json::array();
    Vec6d sum_sq = Vec6d::Zero();
    double fre_sum = 0, fre_max = 0;
    int valid = 0;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const vision::PoseMeasurement m = measure_pair(pipeline, pairs[k], o->rig);
      const double t = static_cast<double>(frame[k]) / o->rate;
      nlohmann::json f = {{"frame", frame[k]},
                          {"left", fs::path(pairs[k].left).filename().string()},
                          {"time_s", t},
                          {"valid", m.valid},
                          {"fre_mm", m.fre_m * 1e3},
                          {"markers_used", m.markers_used},
                          {"left_blobs", m.left_blobs},
                          {"right_blobs", m.right_blobs}};
      if (m.valid) {
        ++valid;
        fre_sum += m.fre_m;
        fre_max = std::max(fre_max, m.fre_m);
        f["pose"] = {m.chi(0), m.chi(1), m.chi(2), m.chi(3), m.chi(4), m.chi(5)};
        trace.time.push_back(t);
        trace.measured.push_back(m.chi);
        if (truth) {
          const std::size_t row = static_cast<std::size_t>(frame[k]);
          if (std::abs(truth->time[row] - t) > 1e-9)
            fail(o->truth + ":" + std::to_string(row + 2), "time " + exact_number(truth->time[row]) + " s is not frame " +
                                                               std::to_string(frame[k]) + " at " + exact_number(t) +
                                                               " s (--rate " + exact_number(o->rate) + " Hz)");
          const Vec6d& tp = truth->truth.empty() ? truth->measured[row] : truth->truth[row];
          trace.truth.push_back(tp);
          const Vec6d e = vision::pose_error(m.T_O_E, vision::transform_from_pose(tp));
          sum_sq += e.cwiseProduct(e);
        }
      } else {
        f["reason"] = m.reason;
      }
      frames.push_back(f);
    }
    nlohmann::json j = {{"frames", pairs.size()},
                        {"missing_frames", missing},
                        {"valid", valid},
                        {"fre_mm_mean", valid ? fre_sum / valid * 1e3 : 0.0},
                        {"fre_mm_max", fre_max * 1e3}};
    if (truth && valid) {
      const Vec6d rms = (sum_sq / valid).cwiseSqrt();
      j["error_rms_mm"] = {rms(0) * 1e3, rms(1) * 1e3, rms(2) * 1e3};
      j["error_rms_mrad"] = {rms(3) * 1e3, rms(4) * 1e3, rms(5) * 1e3};
    }
    if (!o->out.empty()) {
      if (trace.size() == 0) fail(o->images, "no valid pose: nothing to write");
      trace.metadata = {{"format", "vcloe-trace-1"},
                        {"source", "measure"},
                        {"software_version", VCLOE_VERSION},
                        {"camera_hz", o->rate},
                        {"rig", file_entry(o->rig)},
                        {"markers", file_entry(o->markers)},
                        {"frames", pairs.size()},
                        {"missing_frames", missing},
                        {"invalid_frames", static_cast<int>(pairs.size()) - valid}};
      write_trace(o->out, trace, o->force);
      j["out"] = o->out;
    }
    if (o->json) {
      j["per_frame"] = frames;
      std::cout << j.dump(2) << "\n";
      return;
    }
    for (const auto& f : frames) {
      std::cout << std::left << std::setw(18) << f["left"].get<std::string>() << std::right;
      if (f["valid"].get<bool>()) {
        const auto p = f["pose"];
        std::cout << "x " << fixed(p[0].get<double>() * 1e3, 4) << " y " << fixed(p[1].get<double>() * 1e3, 4)
                  << " z " << fixed(p[2].get<double>() * 1e3, 4) << " mm, angles " << fixed(p[3].get<double>() * 1e3, 4)
                  << " " << fixed(p[4].get<double>() * 1e3, 4) << " " << fixed(p[5].get<double>() * 1e3, 4)
                  << " mrad, FRE " << fixed(f["fre_mm"].get<double>() * 1e3, 2) << " um, "
                  << f["markers_used"].size() << " markers\n";
      } else {
        std::cout << "INVALID: " << f["reason"].get<std::string>() << "\n";
      }
    }
    if (!missing.empty()) {
      std::cout << "no image pair for frame" << (missing.size() > 1 ? "s" : "");
      for (std::size_t i = 0; i < missing.size() && i < 20; ++i) std::cout << " " << missing[i];
      std::cout << (missing.size() > 20 ? " ..." : "") << " (the other frames keep their times)\n";
    }
    std::cout << valid << " of " << pairs.size() << " frames valid, FRE mean " << fixed(j["fre_mm_mean"].get<double>() * 1e3, 2)
              << " um, max " << fixed(fre_max * 1e6, 2) << " um\n";
    if (j.contains("error_rms_mm"))
      std::cout << "error vs truth RMS: position [" << fixed(j["error_rms_mm"][0].get<double>(), 5) << ", "
                << fixed(j["error_rms_mm"][1].get<double>(), 5) << ", " << fixed(j["error_rms_mm"][2].get<double>(), 5)
                << "] mm, rotation [" << fixed(j["error_rms_mrad"][0].get<double>(), 5) << ", "
                << fixed(j["error_rms_mrad"][1].get<double>(), 5) << ", "
                << fixed(j["error_rms_mrad"][2].get<double>(), 5) << "] mrad\n";
    if (!o->out.empty()) std::cout << "wrote " << o->out << " and " << sidecar_path(o->out) << "\n";
  });
}

}  // namespace vcloe::app
