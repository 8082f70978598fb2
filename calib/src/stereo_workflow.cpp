#include <iomanip>
#include <sstream>

#include "vcloe/core/output_file.hpp"
#include "vcloe/calib/stereo_calibration.hpp"
#include "vcloe/calib/workflows.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe::calib {

using nlohmann::json;


void CalibrateStereoOptions::validate() const {
  IoPlan(force).input_folder(images, "--images").output(out, "--out").check();
}

namespace {

json camera_json(const vision::Camera& k) {
  return {{"focal_px", {k.fx, k.fy}}, {"principal_point_px", {k.cx, k.cy}}, {"distortion", k.distortion}};
}

json stereo_json(const StereoCalibration& c, const std::string& out) {
  json views = json::array();
  for (const auto& v : c.views)
    views.push_back({{"name", v.name}, {"used", v.used}, {"rms_left_px", v.rms_left_px},
                     {"rms_right_px", v.rms_right_px}, {"rejected", v.rejected}});
  return {{"rms_px", c.rms_px},
          {"epipolar_px", c.epipolar_px},
          {"pairs_used", c.pairs_used},
          {"per_view", views},
          {"left_rms_px", c.left_rms_px},
          {"right_rms_px", c.right_rms_px},
          {"left", camera_json(c.rig.left)},
          {"right", camera_json(c.rig.right)},
          {"baseline_m", c.rig.T_R_C.translation().norm()},
          {"baseline_sigma_m", c.baseline_sigma_m},
          {"right_from_left", vision::transform_json(c.rig.T_R_C)},
          {"out", out}};
}

std::string stereo_text(const StereoCalibration& c, const std::string& out) {
  std::ostringstream s;
  auto camera = [&](const char* side, const vision::Camera& k) {
    s << "  " << side << " f = (" << fixed(k.fx, 2) << ", " << fixed(k.fy, 2) << ") px, c = (" << fixed(k.cx, 2) << ", "
      << fixed(k.cy, 2) << ") px\n";
  };
  s << "stereo calibration from " << c.pairs_used << " of " << c.views.size() << " pairs\n"
    << "  RMS reprojection error " << fixed(c.rms_px, 4) << " px, average epipolar error " << fixed(c.epipolar_px, 4)
    << " px\n";
  camera("left ", c.rig.left);
  camera("right", c.rig.right);
  s << "  baseline " << fixed(c.rig.T_R_C.translation().norm() * 1e3, 3) << " mm (+- "
    << fixed(c.baseline_sigma_m * 1e3, 3) << ")\n";
  for (const auto& v : c.views)
    s << "  " << std::left << std::setw(24) << v.name << std::right
      << (v.used ? "used  rms L " + fixed(v.rms_left_px, 3) + " px, R " + fixed(v.rms_right_px, 3) + " px"
                 : "rejected: " + v.rejected)
      << "\n";
  s << "wrote " << out << "\n";
  return s.str();
}

}  // namespace

Report calibrate_stereo_files(const CalibrateStereoOptions& o) {
  o.validate();
  const vision::ChessboardSpec board = parse_board(o.board, o.square);
  StereoCalibrationSettings s;
  s.max_view_rms_px = o.max_view_rms;
  s.fix_k3 = o.fix_k3;
  s.validate();
  const StereoCalibration c = calibrate_stereo(find_image_pairs(o.images), board, s);
  std::ostringstream header;
  header << "Written by `vcloe calibrate stereo` from " << o.images << " (" << c.pairs_used << " pairs, board "
         << o.board << ", square " << o.square << " m).\nRMS reprojection " << c.rms_px << " px, average epipolar error "
         << c.epipolar_px << " px. No camera_from_base yet: run `vcloe calibrate base`.";
  write_file_atomically(o.out, vision::rig_to_yaml(c.rig, header.str()), o.force);
  return {stereo_json(c, o.out), stereo_text(c, o.out)};
}

}  // namespace vcloe::calib
