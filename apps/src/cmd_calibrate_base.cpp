// `vcloe calibrate base`: the camera-to-base transform T_C_O from the base markers, cross-checked
// by robot-world/hand-eye calibration (seed 004 §3.1, eq. 28; docs/vision.md, Camera-to-base).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

#include "commands.hpp"
#include "vision_io.hpp"
#include "vcloe/calib/camera_to_base.hpp"
#include "vcloe/calib/image_pairs.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/vision/pose.hpp"

namespace vcloe::app {

namespace {

using vision::Transform;

struct BaseResult {
  calib::TransformEstimate direct;
  std::optional<calib::HandEyeEstimate> hand_eye;
  std::optional<Transform> truth;
  int frames = 0, poses = 0;
};

}  // namespace

void add_calibrate_base_command(CLI::App& parent) {
  struct Options {
    std::string rig, markers, images, commanded, reference, out;
    int frames = 50, poses = 30;
    double noise_px = 0.05;
    std::uint64_t seed = 1;
    bool json = false, force = false;

    // Counts and noise bounded before any work (a huge --poses ran for minutes): 10^5 frames
    // take about 6 s, 10^4 poses about 1 s.
    void validate() const {
      if (frames < 1 || frames > 100000) fail("--frames", "expected 1 to 100000 frames, got " + std::to_string(frames));
      if (poses < 3 || poses > 10000) fail("--poses", "expected 3 to 10000 poses, got " + std::to_string(poses));
      if (!(noise_px >= 0 && noise_px <= 10))
        fail("--noise-px", "expected a centroid noise sigma in [0, 10] px, got " + exact_number(noise_px));
      if (!commanded.empty() && images.empty()) fail("--commanded", "needs --images (the pairs it was commanded for)");
      if (!out.empty()) check_output_path(out, force, {rig, markers, commanded, reference, images});
    }
  };
  auto o = std::make_shared<Options>();
  o->rig = default_rig_file();
  o->markers = default_markers_file();
  o->reference = default_config_dir() + "/reference.yaml";
  CLI::App* cmd = parent.add_subcommand(
      "base",
      "Camera-to-base transform T_C_O from the base markers, cross-checked by robot-world/hand-eye calibration");
  cmd->add_option("--rig", o->rig, "rig file (its camera_from_base is the virtual rig's truth)")->capture_default_str();
  cmd->add_option("--markers", o->markers, "marker file")->capture_default_str();
  cmd->add_option("--images", o->images, "directory of left*/right* marker image pairs (default: the virtual rig)");
  cmd->add_option("--commanded", o->commanded,
                  "with --images: trace whose reference (else measured) poses were commanded for each pair, in "
                  "name order (enables the hand-eye cross-check)");
  cmd->add_option("--reference", o->reference, "virtual rig: trajectory the hand-eye poses are taken from")
      ->capture_default_str();
  cmd->add_option("--frames", o->frames, "virtual rig: frames of the base markers to average")->capture_default_str();
  cmd->add_option("--poses", o->poses, "virtual rig: robot poses for the hand-eye cross-check")->capture_default_str();
  cmd->add_option("--noise-px", o->noise_px, "virtual rig: centroid noise sigma (px)")->capture_default_str();
  cmd->add_option("--seed", o->seed, "virtual rig: noise seed")->capture_default_str();
  cmd->add_option("--out", o->out, "rig file to write with the estimated camera_from_base");
  cmd->add_flag("--json", o->json, "print the result as JSON");
  cmd->add_flag("--force", o->force, "overwrite an existing rig file");
  cmd->callback([o] {
    o->validate();
    const vision::StereoRig rig = vision::load_rig(o->rig);
    const vision::MarkerSet markers = vision::load_markers(o->markers);
    vision::StereoRig uncalibrated = rig;
    uncalibrated.T_C_O.reset();
    vision::PipelineSettings settings;
    settings.base_per_frame = true;
    const vision::PosePipeline pipeline(uncalibrated, markers, settings);
    BaseResult r;
    std::vector<vision::BodyMeasurement> base;
    std::vector<Transform> measured, commanded;
    if (o->images.empty()) {
      if (!rig.T_C_O) fail(o->rig, "the virtual rig needs camera_from_base (its truth)");
      r.truth = rig.T_C_O;
      const excitation::FourierTrajectory reference = excitation::load_trajectory(o->reference);
      vision::CentroidNoiseModel model(rig, pipeline, o->noise_px, o->seed);
      const Transform home = vision::transform_from_pose(reference.offset);
      for (int k = 0; k < o->frames; ++k) base.push_back(model.measure(home).base);
      for (int k = 0; k < o->poses; ++k) {
        const Transform T_O_E = vision::transform_from_pose(reference.pose(reference.duration * k / o->poses));
        const vision::PoseMeasurement m = model.measure(T_O_E);
        if (!m.platform.valid) continue;
        measured.push_back(m.platform.T_C_B);
        commanded.push_back(T_O_E);
      }
    } else {
      const auto pairs = calib::find_image_pairs(o->images);
      check_image_pairs(pairs, rig, o->rig);
      std::vector<Vec6d> poses;
      if (!o->commanded.empty()) {
        const PoseTrace t = read_trace(o->commanded);
        poses = t.reference.empty() ? t.measured : t.reference;
        if (poses.size() != pairs.size())
          fail(o->commanded, "has " + std::to_string(poses.size()) + " poses for " + std::to_string(pairs.size()) +
                                 " image pairs; expected one per pair");
      }
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        const vision::PoseMeasurement m = measure_pair(pipeline, pairs[k], o->rig);
        base.push_back(m.base);
        if (!poses.empty() && m.platform.valid) {
          measured.push_back(m.platform.T_C_B);
          commanded.push_back(vision::transform_from_pose(poses[k]));
        }
      }
    }
    r.frames = static_cast<int>(std::count_if(base.begin(), base.end(), [](const auto& b) { return b.valid; }));
    r.direct = calib::camera_to_base_from_markers(base);
    r.poses = static_cast<int>(measured.size());
    std::string no_hand_eye = "needs >= 3 robot poses: --commanded with --images";
    if (measured.size() >= 3) {
      try {
        r.hand_eye = calib::camera_to_base_hand_eye(measured, commanded);
      } catch (const Error& e) {
        no_hand_eye = e.what();
      }
    }

    nlohmann::json j = {{"frames_used", r.frames},
                        {"from_base_markers",
                         {{"camera_from_base", transform_json(r.direct.T)},
                          {"sigma_mm", r.direct.sigma_position_m * 1e3},
                          {"sigma_mrad", r.direct.sigma_rotation_rad * 1e3}}}};
    std::ostringstream text;
    text << "camera-to-base from the base markers (" << r.frames << " frames): sigma "
         << fixed(r.direct.sigma_position_m * 1e3, 4) << " mm, " << fixed(r.direct.sigma_rotation_rad * 1e3, 4)
         << " mrad\n";
    if (r.hand_eye) {
      const auto d = calib::difference(r.direct.T, r.hand_eye->camera_to_base.T);
      const auto dc = calib::difference(r.direct.T, r.hand_eye->closed_form_T_C_O);
      const double sp = std::hypot(r.direct.sigma_position_m, r.hand_eye->camera_to_base.sigma_position_m);
      const double sr = std::hypot(r.direct.sigma_rotation_rad, r.hand_eye->camera_to_base.sigma_rotation_rad);
      const bool agree = d.position_m <= 3 * sp && d.rotation_rad <= 3 * sr;
      j["hand_eye"] = {{"poses", r.poses},
                       {"camera_from_base", transform_json(r.hand_eye->camera_to_base.T)},
                       {"sigma_mm", r.hand_eye->camera_to_base.sigma_position_m * 1e3},
                       {"sigma_mrad", r.hand_eye->camera_to_base.sigma_rotation_rad * 1e3},
                       {"closed_form_camera_from_base", transform_json(r.hand_eye->closed_form_T_C_O)},
                       {"marker_frame_from_platform", transform_json(r.hand_eye->T_M_E)}};
      j["disagreement"] = {{"mm", d.position_m * 1e3},
                           {"mrad", d.rotation_rad * 1e3},
                           {"closed_form_mm", dc.position_m * 1e3},
                           {"closed_form_mrad", dc.rotation_rad * 1e3},
                           {"expected_mm", sp * 1e3},
                           {"expected_mrad", sr * 1e3},
                           {"within_3_sigma", agree}};
      text << "hand-eye cross-check (" << r.poses << " poses, cv::calibrateRobotWorldHandEye + least squares): sigma "
           << fixed(r.hand_eye->camera_to_base.sigma_position_m * 1e3, 4) << " mm, "
           << fixed(r.hand_eye->camera_to_base.sigma_rotation_rad * 1e3, 4) << " mrad\n"
           << "disagreement " << fixed(d.position_m * 1e3, 4) << " mm, " << fixed(d.rotation_rad * 1e3, 4)
           << " mrad (expected " << fixed(sp * 1e3, 4) << " mm, " << fixed(sr * 1e3, 4) << " mrad: "
           << (agree ? "agree" : "DISAGREE") << " within 3 sigma); OpenCV closed form alone "
           << fixed(dc.position_m * 1e3, 4) << " mm, " << fixed(dc.rotation_rad * 1e3, 4) << " mrad\n";
    } else {
      text << "no hand-eye cross-check: " << no_hand_eye << "\n";
      j["hand_eye"] = {{"skipped", no_hand_eye}};
    }
    if (r.truth) {
      const auto e = calib::difference(r.direct.T, *r.truth);
      j["truth_error"] = {{"from_base_markers_mm", e.position_m * 1e3}, {"from_base_markers_mrad", e.rotation_rad * 1e3}};
      text << "virtual rig truth: base markers " << fixed(e.position_m * 1e3, 4) << " mm, "
           << fixed(e.rotation_rad * 1e3, 4) << " mrad";
      if (r.hand_eye) {
        const auto h = calib::difference(r.hand_eye->camera_to_base.T, *r.truth);
        j["truth_error"]["hand_eye_mm"] = h.position_m * 1e3;
        j["truth_error"]["hand_eye_mrad"] = h.rotation_rad * 1e3;
        text << "; hand-eye " << fixed(h.position_m * 1e3, 4) << " mm, " << fixed(h.rotation_rad * 1e3, 4) << " mrad";
      }
      text << "\n";
    }
    if (!o->out.empty()) {
      vision::StereoRig out = rig;
      out.T_C_O = r.direct.T;
      write_file_atomically(o->out,
                            vision::rig_to_yaml(out, "Written by `vcloe calibrate base` from " +
                                                         (o->images.empty() ? std::string("the virtual rig") : o->images) +
                                                         ": camera_from_base from the base markers."),
                            o->force);
      j["out"] = o->out;
      text << "wrote " << o->out << "\n";
    }
    std::cout << (o->json ? j.dump(2) + "\n" : text.str());
  });
}

}  // namespace vcloe::app
