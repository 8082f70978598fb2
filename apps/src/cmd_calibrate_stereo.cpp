// `vcloe calibrate stereo`: stereo intrinsics and extrinsics from chessboard image pairs, written
// as a rig file (the stereo rig replacing seed 004 §3.1's CMM; docs/vision.md, Stereo calibration).
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "vision_io.hpp"
#include "vcloe/calib/stereo_calibration.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/vision/camera.hpp"

namespace vcloe::app {

void add_calibrate_stereo_command(CLI::App& parent) {
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
    check_output_path(o->out, o->force, {o->images});
    const vision::ChessboardSpec board = calib::parse_board(o->board, o->square);
    calib::StereoCalibrationSettings s;
    s.max_view_rms_px = o->max_view_rms;
    s.fix_k3 = o->fix_k3;
    s.validate();
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

}  // namespace vcloe::app
