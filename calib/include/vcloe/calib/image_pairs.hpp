#pragma once
// vcloe/calib/image_pairs.hpp — which images make a stereo pair and which frame each is: the
// one scan of an image folder or pair list (`vcloe measure`, `calibrate stereo|base`,
// `vision serve --source images:`). docs/vision.md, "Pipeline".
#include <string>
#include <vector>

namespace vcloe::calib {

// Largest frame number an image name may carry: 10^7 frames, 27.8 h at 100 Hz.
inline constexpr long kMaxFrameNumber = 10'000'000;

struct ImagePair {
  std::string left, right;  // paths
  long frame = -1;          // the last number in the left image's name (left_0007.png: 7), -1 if none
};

// A directory: files named left*/right* (any image extension), paired by the rest of the name
// (left_07.png <-> right_07.png; names equal but for case, left_07.png and left_07.PNG, are
// refused: one camera's frame twice). A regular file: a list with one "LEFT RIGHT" pair per line
// (paths relative to the list's directory; '#' comments). Errors name what is unpaired. When
// every left name carries a frame number the pairs are in frame order (left_10 after left_9),
// otherwise in name (or list) order. A frame number above kMaxFrameNumber (leading zeros aside)
// is an error naming the file: `vcloe measure` puts frame N at N / rate.
std::vector<ImagePair> find_image_pairs(const std::string& dir_or_list);

}  // namespace vcloe::calib
