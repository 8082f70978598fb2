#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

#include "vcloe/core/output_file.hpp"
#include "vcloe/calib/camera_to_base.hpp"
#include "vcloe/calib/image_pairs.hpp"
#include "vcloe/calib/measure.hpp"
#include "vcloe/calib/workflows.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe::calib {

using nlohmann::json;

using vision::Transform;
using vision::transform_json;

std::optional<SettingProblem> CalibrateBaseOptions::problem() const {
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  if (frames < 1 || frames > 100000) return bad("--frames", "expected 1 to 100000 frames, got " + std::to_string(frames));
  if (poses < 3 || poses > 10000) return bad("--poses", "expected 3 to 10000 poses, got " + std::to_string(poses));
  if (auto p = defaults::centroid_noise_problem(noise_px, "--noise-px")) return p;
  if (!commanded.empty() && images.empty()) return bad("--commanded", "needs --images (the pairs it was commanded for)");
  return std::nullopt;
}

void CalibrateBaseOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // The output: the file system, so here and not in problem() (which stays pure).
  if (out.empty()) return;
  IoPlan(force).input(rig, "--rig").input(markers, "--markers").input(commanded, "--commanded")
      .input(reference, "--reference").input_folder(images, "--images").output(out, "--out").check();
}

namespace {

// What the frames gave: each frame's base markers, and the platform poses measured with the
// poses commanded for them (the hand-eye pairs).
struct Samples {
  std::vector<vision::BodyMeasurement> base;
  std::vector<Transform> measured, commanded;
};

Samples virtual_rig(const CalibrateBaseOptions& o, const vision::StereoRig& rig, const vision::PosePipeline& pipeline,
                    const PosePathLoader& load_reference) {
  const PosePath reference = load_reference(o.reference);
  vision::CentroidNoiseModel model(rig, pipeline, o.noise_px, o.seed);
  Samples s;
  const Transform home = vision::transform_from_pose(reference.home);
  for (int k = 0; k < o.frames; ++k) s.base.push_back(model.measure(home).base);
  for (int k = 0; k < o.poses; ++k) {
    const Transform T_O_E = vision::transform_from_pose(reference.pose(reference.duration * k / o.poses));
    const vision::PoseMeasurement m = model.measure(T_O_E);
    if (!m.platform.valid) continue;
    s.measured.push_back(m.platform.T_C_B);
    s.commanded.push_back(T_O_E);
  }
  return s;
}

Samples image_pairs(const CalibrateBaseOptions& o, const vision::StereoRig& rig, const vision::PosePipeline& pipeline) {
  const auto pairs = find_image_pairs(o.images);
  check_image_pairs(pairs, rig, o.rig);
  std::vector<Vec6d> poses;
  if (!o.commanded.empty()) {
    const PoseTrace t = read_trace(o.commanded);
    poses = t.reference.empty() ? t.measured : t.reference;
    if (poses.size() != pairs.size())
      fail(o.commanded, "has " + std::to_string(poses.size()) + " poses for " + std::to_string(pairs.size()) +
                            " image pairs; expected one per pair");
  }
  Samples s;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const vision::PoseMeasurement m = measure_pair(pipeline, pairs[k], o.rig);
    s.base.push_back(m.base);
    if (!poses.empty() && m.platform.valid) {
      s.measured.push_back(m.platform.T_C_B);
      s.commanded.push_back(vision::transform_from_pose(poses[k]));
    }
  }
  return s;
}

struct BaseResult {
  TransformEstimate direct;
  std::optional<HandEyeEstimate> hand_eye;
  std::string no_hand_eye;  // why there is none
  std::optional<Transform> truth;
  int frames = 0, poses = 0;
};

BaseResult estimate(const Samples& s) {
  BaseResult r;
  r.frames = static_cast<int>(std::count_if(s.base.begin(), s.base.end(), [](const auto& b) { return b.valid; }));
  r.direct = camera_to_base_from_markers(s.base);
  r.poses = static_cast<int>(s.measured.size());
  r.no_hand_eye = "needs >= 3 robot poses: --commanded with --images";
  if (s.measured.size() >= 3) {
    try {
      r.hand_eye = camera_to_base_hand_eye(s.measured, s.commanded);
    } catch (const Error& e) {
      r.no_hand_eye = e.what();
    }
  }
  return r;
}

// Why there is no verdict: the estimate whose sigma is not measured, and the least that gives one.
std::string no_verdict(const BaseResult& r) {
  if (!r.direct.sigma_measured())
    return "no verdict: the base markers' sigma is not measured from " + std::to_string(r.frames) +
           " frame (--frames 2 or more give one)";
  return "no verdict: the hand-eye sigma is not measured from " + std::to_string(r.poses) + " poses (the fit's 12 unknowns "
         "match either kind of residual exactly; --poses " + std::to_string(kHandEyePosesForSigma) + " or more give one)";
}

void report_hand_eye(const BaseResult& r, Report& out) {
  if (!r.hand_eye) {
    out.text += "no hand-eye cross-check: " + r.no_hand_eye + "\n";
    out.json["hand_eye"] = {{"skipped", r.no_hand_eye}};
    return;
  }
  const TransformEstimate& h = r.hand_eye->camera_to_base;
  const auto d = difference(r.direct.T, h.T);
  const auto dc = difference(r.direct.T, r.hand_eye->closed_form_T_C_O);
  // Against sigmas of both estimates, or no verdict at all (never against the one measured alone).
  const double sp = std::hypot(r.direct.sigma_position_m, h.sigma_position_m);
  const double sr = std::hypot(r.direct.sigma_rotation_rad, h.sigma_rotation_rad);
  const bool judged = h.sigma_measured() && r.direct.sigma_measured();
  const bool agree = judged && d.position_m <= 3 * sp && d.rotation_rad <= 3 * sr;
  out.json["hand_eye"] = {{"poses", r.poses},
                          {"camera_from_base", transform_json(h.T)},
                          {"sigma_mm", finite_or_null(h.sigma_position_m * 1e3)},
                          {"sigma_mrad", finite_or_null(h.sigma_rotation_rad * 1e3)},
                          {"closed_form_camera_from_base", transform_json(r.hand_eye->closed_form_T_C_O)},
                          {"marker_frame_from_platform", transform_json(r.hand_eye->T_M_E)}};
  out.json["disagreement"] = {{"mm", d.position_m * 1e3},          {"mrad", d.rotation_rad * 1e3},
                              {"closed_form_mm", dc.position_m * 1e3}, {"closed_form_mrad", dc.rotation_rad * 1e3},
                              {"expected_mm", finite_or_null(sp * 1e3)}, {"expected_mrad", finite_or_null(sr * 1e3)},
                              {"within_3_sigma", judged ? nlohmann::json(agree) : nlohmann::json()}};
  if (!judged) out.json["disagreement"]["no_verdict"] = no_verdict(r);
  std::ostringstream text;
  text << "hand-eye cross-check (" << r.poses << " poses, cv::calibrateRobotWorldHandEye + least squares): sigma "
       << (h.sigma_measured() ? fixed(h.sigma_position_m * 1e3, 4) + " mm, " + fixed(h.sigma_rotation_rad * 1e3, 4) + " mrad"
                              : std::string("not measured"))
       << "\n"
       << "disagreement " << fixed(d.position_m * 1e3, 4) << " mm, " << fixed(d.rotation_rad * 1e3, 4) << " mrad ("
       << (judged ? "expected " + fixed(sp * 1e3, 4) + " mm, " + fixed(sr * 1e3, 4) + " mrad: " +
                        (agree ? "agree" : "DISAGREE") + " within 3 sigma"
                  : no_verdict(r))
       << "); OpenCV closed form alone " << fixed(dc.position_m * 1e3, 4) << " mm, " << fixed(dc.rotation_rad * 1e3, 4)
       << " mrad\n";
  out.text += text.str();
}

void report_truth(const BaseResult& r, Report& out) {
  if (!r.truth) return;
  const auto e = difference(r.direct.T, *r.truth);
  out.json["truth_error"] = {{"from_base_markers_mm", e.position_m * 1e3},
                             {"from_base_markers_mrad", e.rotation_rad * 1e3}};
  out.text += "virtual rig truth: base markers " + fixed(e.position_m * 1e3, 4) + " mm, " +
              fixed(e.rotation_rad * 1e3, 4) + " mrad";
  if (r.hand_eye) {
    const auto h = difference(r.hand_eye->camera_to_base.T, *r.truth);
    out.json["truth_error"]["hand_eye_mm"] = h.position_m * 1e3;
    out.json["truth_error"]["hand_eye_mrad"] = h.rotation_rad * 1e3;
    out.text += "; hand-eye " + fixed(h.position_m * 1e3, 4) + " mm, " + fixed(h.rotation_rad * 1e3, 4) + " mrad";
  }
  out.text += "\n";
}

Report report(const BaseResult& r) {
  Report out;
  out.json = {{"frames_used", r.frames},
              {"from_base_markers",
               {{"camera_from_base", transform_json(r.direct.T)},
                {"sigma_mm", finite_or_null(r.direct.sigma_position_m * 1e3)},
                {"sigma_mrad", finite_or_null(r.direct.sigma_rotation_rad * 1e3)}}}};
  out.text = "camera-to-base from the base markers (" + std::to_string(r.frames) + " frames): sigma " +
             (r.direct.sigma_measured() ? fixed(r.direct.sigma_position_m * 1e3, 4) + " mm, " +
                                              fixed(r.direct.sigma_rotation_rad * 1e3, 4) + " mrad"
                                        : std::string("not measured (one frame)")) +
             "\n";
  report_hand_eye(r, out);
  report_truth(r, out);
  return out;
}

}  // namespace

Report calibrate_base_workflow(const CalibrateBaseOptions& o, const PosePathLoader& load_reference) {
  o.validate();
  const vision::StereoRig rig = vision::load_rig(o.rig);
  const vision::MarkerSet markers = vision::load_markers(o.markers);
  vision::StereoRig uncalibrated = rig;
  uncalibrated.T_C_O.reset();
  vision::PipelineSettings settings;
  settings.base_per_frame = true;
  const vision::PosePipeline pipeline(uncalibrated, markers, settings);
  if (o.images.empty() && !rig.T_C_O) fail(o.rig, "the virtual rig needs camera_from_base (its truth)");
  BaseResult r = estimate(o.images.empty() ? virtual_rig(o, rig, pipeline, load_reference) : image_pairs(o, rig, pipeline));
  if (o.images.empty()) r.truth = rig.T_C_O;
  Report out = report(r);
  if (!o.out.empty()) {
    vision::StereoRig written = rig;
    written.T_C_O = r.direct.T;
    write_file_atomically(o.out,
                          vision::rig_to_yaml(written, "Written by `vcloe calibrate base` from " +
                                                           (o.images.empty() ? std::string("the virtual rig") : o.images) +
                                                           ": camera_from_base from the base markers."),
                          o.force);
    out.json["out"] = o.out;
    out.text += "wrote " + o.out + "\n";
  }
  return out;
}

}  // namespace vcloe::calib
