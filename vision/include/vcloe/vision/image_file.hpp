#pragma once
// vcloe/vision/image_file.hpp — the one place image files are read (measure, calibrate stereo
// and base, vision serve), checked before a decoder sees them: OpenCV's and libpng's own
// messages (an assertion on a PNG header claiming 10^10 px, "libpng error: Read Error" printed
// beside ours for a truncated file) never reach the user (docs/robustness.md).
#include <opencv2/core.hpp>
#include <optional>
#include <string>

namespace vcloe::vision {

// Width and height of a PNG file from its header, after checking what can be checked without
// decoding: a regular file (not a device, pipe or directory), the PNG signature, IHDR first,
// every chunk within the file up to IEND (a truncated file is named as such), at most
// kMaxImagePixels (camera.hpp). std::nullopt for a file that is not a PNG (its size is known
// once decoded). Throws vcloe::Error naming the file.
std::optional<cv::Size> image_file_size(const std::string& path);

// How a read image is returned: as stored (8- or 16-bit grayscale, the pose pipeline) or
// converted to 8-bit (the chessboard corner finder).
enum class ImageDepth { AsStored, EightBit };

// The image, grayscale, after image_file_size's checks and every PNG chunk's CRC; a file OpenCV
// cannot decode is a vcloe::Error naming it, never OpenCV's text (std::cerr is held back while
// OpenCV decodes: not for a thread while another writes to std::cerr).
cv::Mat read_image(const std::string& path, ImageDepth depth = ImageDepth::AsStored);

}  // namespace vcloe::vision
