#pragma once
// vcloe/calib/measure.hpp — `vcloe measure`: platform poses T_O_E from a folder (or list) of
// stereo image pairs through the pose pipeline, written as a trace, with error statistics
// against a true trace (Li et al. 2019 §3.1, eqs. 27-28; docs/vision.md, Pipeline). Also the image
// checks every command reading image pairs shares.
#include <optional>
#include <string>
#include <vector>

#include "vcloe/calib/image_pairs.hpp"
#include "vcloe/core/settings.hpp"
#include "vcloe/vision/pose.hpp"
#include "vcloe/vision/report.hpp"

namespace vcloe::calib {

// Before any pair is measured: every image's file checked (vision::image_file_size) and, where
// its header tells (PNG), its size compared with the rig file's camera — an image of another
// size gave "no valid pose" or "0 of 1 frames valid" without saying why.
void check_image_pairs(const std::vector<ImagePair>& pairs, const vision::StereoRig& rig, const std::string& rig_file);

// One pair read (vision::read_image, as stored), each image's size compared with the rig
// file's camera, and measured.
vision::PoseMeasurement measure_pair(const vision::PosePipeline& pipeline, const ImagePair& pair,
                                     const std::string& rig_file);

struct MeasureOptions {
  std::string rig, markers, images, out, truth;  // out, truth: optional
  double rate = 100, max_fre_mm = 0.5;           // Hz; mm
  bool force = false, base_per_frame = false;

  // problem(): the rate and threshold's ranges (core/settings.hpp, the messages beginning with
  // the option); validate(): those, then the outputs (never an input: the file system).
  std::optional<SettingProblem> problem() const;
  void validate(const std::string& where = "") const;
};

// Pair k is frame N (the number in its names, else k) at N / rate; every pair measured, the
// valid poses written to `out` (with its sidecar) if given. The report: per-frame results
// (json "per_frame") and the summary, and as text one line a frame and the summary.
Report measure_folder(const MeasureOptions& options);

}  // namespace vcloe::calib
