// `vcloe calibrate stereo|base`, `vcloe render`, `vcloe measure`, `vcloe filter`: the camera side
// of the method (seed 004 §3.1 and §4.2, DESIGN.md §7; docs/vision.md).
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <sstream>

#include "commands.hpp"
#include "vcloe/calib/camera_to_base.hpp"
#include "vcloe/calib/stereo_calibration.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/excitation/fourier.hpp"
#include "vcloe/vision/butterworth.hpp"
#include "vcloe/vision/pose.hpp"

namespace vcloe::app {

namespace {

namespace fs = std::filesystem;
using vision::Transform;

std::string default_rig_file() { return default_config_dir() + "/rig.yaml"; }
std::string default_markers_file() { return default_config_dir() + "/markers.yaml"; }

nlohmann::json file_entry(const std::string& path) { return {{"path", path}, {"sha256", sha256_file(path)}}; }

nlohmann::json transform_json(const Transform& T) {
  const Vec3d r = vision::rotation_vector(T.linear());
  const Vec3d t = T.translation();
  return {{"rotation_vector", {r.x(), r.y(), r.z()}}, {"translation", {t.x(), t.y(), t.z()}}};
}

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

// Images read as stored (8- or 16-bit grayscale).
cv::Mat read_gray(const std::string& path) {
  cv::Mat m = cv::imread(path, cv::IMREAD_ANYDEPTH | cv::IMREAD_GRAYSCALE);
  if (m.empty()) fail(path, "cannot read the image");
  return m;
}

void refuse_existing(const std::string& path, bool force) {
  if (!force && fs::exists(path)) fail(path, "exists; pass --force to overwrite");
}

// ---------------------------------------------------------------- calibrate stereo

void add_calibrate_stereo(CLI::App& parent) {
  struct Options {
    std::string images, board, out;
    double square = 0;
    bool json = false, force = false, fix_k3 = false;
    double max_view_rms = 1.0;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = parent.add_subcommand(
      "stereo", "Stereo intrinsics and extrinsics from left*/right* chessboard image pairs; writes a rig file");
  cmd->add_option("--images", o->images, "directory of left*/right* images, or a list file of 'LEFT RIGHT' lines")
      ->required();
  cmd->add_option("--board", o->board, "inner corners COLSxROWS, e.g. 9x6")->required();
  cmd->add_option("--square", o->square, "square size (m)")->required();
  cmd->add_option("--out", o->out, "rig file to write (docs/vision.md)")->required();
  cmd->add_option("--max-view-rms", o->max_view_rms, "reject views above this per-view RMS (px)")->capture_default_str();
  cmd->add_flag("--fix-k3", o->fix_k3, "estimate k1, k2, p1, p2 only (k3 = 0), for narrow fields of view");
  cmd->add_flag("--json", o->json, "print the result as JSON");
  cmd->add_flag("--force", o->force, "overwrite an existing rig file");
  cmd->callback([o] {
    refuse_existing(o->out, o->force);
    const vision::ChessboardSpec board = calib::parse_board(o->board, o->square);
    calib::StereoCalibrationSettings s;
    s.max_view_rms_px = o->max_view_rms;
    s.fix_k3 = o->fix_k3;
    const calib::StereoCalibration c = calib::calibrate_stereo(calib::find_image_pairs(o->images), board, s);
    std::ostringstream header;
    header << "Written by `vcloe calibrate stereo` from " << o->images << " (" << c.pairs_used << " pairs, board "
           << o->board << ", square " << o->square << " m).\nRMS reprojection " << c.rms_px
           << " px, average epipolar error " << c.epipolar_px
           << " px. No camera_from_base yet: run `vcloe calibrate base`.";
    write_file_atomically(o->out, vision::rig_to_yaml(c.rig, header.str()), o->force);
    if (o->json) {
      nlohmann::json views = nlohmann::json::array();
      for (const auto& v : c.views)
        views.push_back({{"name", v.name}, {"used", v.used}, {"rms_left_px", v.rms_left_px},
                         {"rms_right_px", v.rms_right_px}, {"rejected", v.rejected}});
      auto cam = [](const vision::Camera& k) {
        return nlohmann::json{{"focal_px", {k.fx, k.fy}},
                              {"principal_point_px", {k.cx, k.cy}},
                              {"distortion", k.distortion}};
      };
      const nlohmann::json j = {{"rms_px", c.rms_px},
                                {"epipolar_px", c.epipolar_px},
                                {"pairs_used", c.pairs_used},
                                {"per_view", views},
                                {"left_rms_px", c.left_rms_px},
                                {"right_rms_px", c.right_rms_px},
                                {"left", cam(c.rig.left)},
                                {"right", cam(c.rig.right)},
                                {"baseline_m", c.rig.T_R_C.translation().norm()},
                                {"baseline_sigma_m", c.baseline_sigma_m},
                                {"right_from_left", transform_json(c.rig.T_R_C)},
                                {"out", o->out}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << "stereo calibration from " << c.pairs_used << " of " << c.views.size() << " pairs\n"
                << "  RMS reprojection error " << fixed(c.rms_px, 4) << " px, average epipolar error "
                << fixed(c.epipolar_px, 4) << " px\n"
                << "  left  f = (" << fixed(c.rig.left.fx, 2) << ", " << fixed(c.rig.left.fy, 2) << ") px, c = ("
                << fixed(c.rig.left.cx, 2) << ", " << fixed(c.rig.left.cy, 2) << ") px\n"
                << "  right f = (" << fixed(c.rig.right.fx, 2) << ", " << fixed(c.rig.right.fy, 2) << ") px, c = ("
                << fixed(c.rig.right.cx, 2) << ", " << fixed(c.rig.right.cy, 2) << ") px\n"
                << "  baseline " << fixed(c.rig.T_R_C.translation().norm() * 1e3, 3) << " mm (+- "
                << fixed(c.baseline_sigma_m * 1e3, 3) << ")\n";
      for (const auto& v : c.views)
        std::cout << "  " << std::left << std::setw(24) << v.name << std::right
                  << (v.used ? "used  rms L " + fixed(v.rms_left_px, 3) + " px, R " + fixed(v.rms_right_px, 3) + " px"
                             : "rejected: " + v.rejected)
                  << "\n";
      std::cout << "wrote " << o->out << "\n";
    }
  });
}

// ---------------------------------------------------------------- calibrate base

struct BaseResult {
  calib::TransformEstimate direct;
  std::optional<calib::HandEyeEstimate> hand_eye;
  std::optional<Transform> truth;
  int frames = 0, poses = 0;
};

void add_calibrate_base(CLI::App& parent) {
  struct Options {
    std::string rig, markers, images, commanded, reference, out;
    int frames = 50, poses = 30;
    double noise_px = 0.05;
    std::uint64_t seed = 1;
    bool json = false, force = false;
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
    if (!o->out.empty()) refuse_existing(o->out, o->force);
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
      if (o->frames < 1 || o->poses < 3) fail("--frames/--poses", "need at least 1 frame and 3 poses");
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
      std::vector<Vec6d> poses;
      if (!o->commanded.empty()) {
        const PoseTrace t = read_trace(o->commanded);
        poses = t.reference.empty() ? t.measured : t.reference;
        if (poses.size() != pairs.size())
          fail(o->commanded, "has " + std::to_string(poses.size()) + " poses for " + std::to_string(pairs.size()) +
                                 " image pairs; expected one per pair");
      }
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        const vision::PoseMeasurement m = pipeline.measure_images(read_gray(pairs[k].left), read_gray(pairs[k].right));
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

// ---------------------------------------------------------------- render

void add_render_command(CLI::App& app) {
  struct Options {
    std::string rig, markers, reference, out;
    int frames = 5;
    double rate = 100, noise_dn = 6, blur_px = 0.8;
    std::vector<std::string> occluded;
    std::uint64_t seed = 1;
    bool force = false;
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
    if (o->frames < 1 || o->frames > 100000) fail("--frames", "expected 1..100000");
    if (!(o->rate > 0)) fail("--rate", "expected a positive frame rate (Hz)");
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
    fs::create_directories(o->out);
    const std::string trace_path = (fs::path(o->out) / "truth.csv").string();
    auto name = [&](const char* side, int k) {
      std::ostringstream n;
      n << side << "_" << std::setw(4) << std::setfill('0') << k << ".png";
      return (fs::path(o->out) / n.str()).string();
    };
    for (int k = 0; k < o->frames; ++k) refuse_existing(name("left", k), o->force), refuse_existing(name("right", k), o->force);
    refuse_existing(trace_path, o->force);
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
      if (!cv::imwrite(name("left", k), img.left) || !cv::imwrite(name("right", k), img.right))
        fail(o->out, "cannot write the images");
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

// ---------------------------------------------------------------- measure

void add_measure_command(CLI::App& app) {
  struct Options {
    std::string rig, markers, images, out, truth;
    double rate = 100, max_fre_mm = 0.5;
    bool json = false, force = false, base_per_frame = false;
  };
  auto o = std::make_shared<Options>();
  o->rig = default_rig_file();
  o->markers = default_markers_file();
  CLI::App* cmd = app.add_subcommand("measure", "Platform poses T_O_E from stereo image pairs (left*/right*, name order)");
  cmd->add_option("--images", o->images, "directory of left*/right* image pairs, or a list file")->required();
  cmd->add_option("--rig", o->rig, "calibrated rig file (with camera_from_base)")->capture_default_str();
  cmd->add_option("--markers", o->markers, "marker file")->capture_default_str();
  cmd->add_option("--rate", o->rate, "frame rate (Hz): pair k is at time k / rate")->capture_default_str();
  cmd->add_option("--max-fre-mm", o->max_fre_mm, "poses with a larger registration error are invalid (mm)")
      ->capture_default_str();
  cmd->add_flag("--base-per-frame", o->base_per_frame, "T_C_O from each frame's base markers, not the rig file");
  cmd->add_option("--truth", o->truth, "trace of the true poses (e.g. from vcloe render): error statistics");
  cmd->add_option("--out", o->out, "trace CSV of the valid poses (docs/traces.md)");
  cmd->add_flag("--json", o->json, "print per-frame results as JSON");
  cmd->add_flag("--force", o->force, "overwrite an existing trace");
  cmd->callback([o] {
    if (!(o->rate > 0)) fail("--rate", "expected a positive frame rate (Hz)");
    if (!(o->max_fre_mm > 0)) fail("--max-fre-mm", "expected a positive threshold (mm)");
    if (!o->out.empty()) refuse_existing(o->out, o->force), refuse_existing(sidecar_path(o->out), o->force);
    vision::PipelineSettings settings;
    settings.max_fre_m = o->max_fre_mm * 1e-3;
    settings.base_per_frame = o->base_per_frame;
    const vision::PosePipeline pipeline(vision::load_rig(o->rig), vision::load_markers(o->markers), settings);
    const auto pairs = calib::find_image_pairs(o->images);
    std::optional<PoseTrace> truth;
    if (!o->truth.empty()) {
      truth = read_trace(o->truth);
      if (truth->size() != pairs.size())
        fail(o->truth, "has " + std::to_string(truth->size()) + " poses for " + std::to_string(pairs.size()) +
                           " image pairs; expected one per pair");
    }
    PoseTrace trace;
    nlohmann::json frames = nlohmann::json::array();
    Vec6d sum_sq = Vec6d::Zero();
    double fre_sum = 0, fre_max = 0;
    int valid = 0;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const vision::PoseMeasurement m = pipeline.measure_images(read_gray(pairs[k].left), read_gray(pairs[k].right));
      const double t = static_cast<double>(k) / o->rate;
      nlohmann::json f = {{"frame", k},
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
          const Vec6d& tp = truth->truth.empty() ? truth->measured[k] : truth->truth[k];
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

// ---------------------------------------------------------------- filter

void add_filter_command(CLI::App& app) {
  struct Options {
    std::string in, out;
    int order = 8;
    double cutoff = 60;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "filter", "Zero-phase Butterworth low-pass (scipy sosfiltfilt) of a trace's measured poses, offline only");
  cmd->add_option("trace", o->in, "trace CSV to filter (docs/traces.md)")->required();
  cmd->add_option("--out", o->out, "filtered trace CSV to write")->required();
  cmd->add_option("--order", o->order, "filter order (seed 004: 8)")->capture_default_str();
  cmd->add_option("--cutoff", o->cutoff, "cut-off frequency (Hz; seed 004: 60)")->capture_default_str();
  cmd->add_flag("--force", o->force, "overwrite an existing output");
  cmd->callback([o] {
    if (fs::exists(o->out) && fs::equivalent(o->in, o->out)) fail(o->out, "is the input trace; choose another --out");
    PoseTrace t = read_trace(o->in);
    if (t.size() < 2) fail(o->in, "needs at least 2 samples to filter");
    const double span = t.time.back() - t.time.front();
    const double dt = span / static_cast<double>(t.size() - 1);
    for (std::size_t k = 1; k < t.size(); ++k)
      if (std::abs(t.time[k] - t.time[k - 1] - dt) > 1e-6 * dt + 1e-9)
        fail(o->in, "samples are not uniformly spaced (row " + std::to_string(k + 1) + ": step " +
                        std::to_string(t.time[k] - t.time[k - 1]) + " s, mean " + std::to_string(dt) +
                        " s); the filter needs a uniform rate (invalid frames leave gaps)");
    const double fs_hz = 1.0 / dt;
    const vision::SosFilter sos = vision::butterworth_lowpass(o->order, o->cutoff, fs_hz);
    for (int axis = 0; axis < 6; ++axis) {
      std::vector<double> x(t.size());
      for (std::size_t k = 0; k < t.size(); ++k) x[k] = t.measured[k](axis);
      if (axis >= 3)  // unwrap the angles so a +-pi crossing is not filtered as a jump
        for (std::size_t k = 1; k < x.size(); ++k) x[k] -= 2 * M_PI * std::round((x[k] - x[k - 1]) / (2 * M_PI));
      const std::vector<double> y = vision::sosfiltfilt(sos, x);
      for (std::size_t k = 0; k < t.size(); ++k)
        t.measured[k](axis) = axis >= 3 ? std::remainder(y[k], 2 * M_PI) : y[k];
    }
    t.metadata["filter"] = {{"type", "butterworth low-pass, zero-phase (scipy sosfiltfilt: odd padding, steady-state initial conditions)"},
                            {"order", o->order},
                            {"cutoff_hz", o->cutoff},
                            {"sample_rate_hz", fs_hz},
                            {"padlen", vision::sosfiltfilt_default_padlen(sos)},
                            {"input", file_entry(o->in)}};
    write_trace(o->out, t, o->force);
    std::cout << "filtered the measured poses of " << o->in << " (" << t.size() << " samples at " << fixed(fs_hz, 3)
              << " Hz) with an order-" << o->order << " zero-phase Butterworth at " << o->cutoff << " Hz\nwrote "
              << o->out << " and " << sidecar_path(o->out) << "\n";
  });
}

}  // namespace

void add_vision_commands(CLI::App& app) {
  CLI::App* calibrate = app.add_subcommand("calibrate", "Calibrate the stereo rig or the camera-to-base transform");
  calibrate->require_subcommand(1);
  add_calibrate_stereo(*calibrate);
  add_calibrate_base(*calibrate);
  add_render_command(app);
  add_measure_command(app);
  add_filter_command(app);
}

}  // namespace vcloe::app
