// calib/src/image_pairs.cpp — find_image_pairs (image_pairs.hpp): a folder's left*/right*
// images paired by name, or a list file of pairs; frame numbers from the names.
#include "vcloe/calib/image_pairs.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/core/file_extension.hpp"

namespace vcloe::calib {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_image(const fs::path& p) {
  const std::string e = file_extension(p.string());
  return e == ".png" || e == ".jpg" || e == ".jpeg" || e == ".bmp" || e == ".tif" || e == ".tiff" ||
         e == ".pgm" || e == ".ppm";
}

// The last run of digits in a file name's stem: "left_0007.png" -> 7, "left.png" -> -1; above
// kMaxFrameNumber an error (such names once fell back to name order, every time shifted).
long frame_number(const std::string& path) {
  const std::string stem = fs::path(path).stem().string();
  const std::size_t end = stem.find_last_of("0123456789");
  if (end == std::string::npos) return -1;
  std::size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(stem[begin - 1]))) --begin;
  const std::size_t first = std::min(stem.find_first_not_of('0', begin), end);  // leading zeros aside
  const std::string digits = stem.substr(first, end - first + 1);
  if (digits.size() > 8 || std::stol(digits) > kMaxFrameNumber)
    throw Error(path + ": frame number " + digits + " (the last number in the name) is above 10^7; expected frame "
                "numbers 0 to " + std::to_string(kMaxFrameNumber) + " (27.8 h at 100 Hz)");
  return std::stol(digits);
}

// The pairs a list file names, one "LEFT RIGHT" a line (# comments), relative to its folder.
// The paths of a list line: separated by blanks, each either plain or in double quotes (a path
// with spaces: "a b/left 0.png"); a CR at the end (CRLF) is a line end.
std::vector<std::string> list_line_paths(std::string line, const std::string& at) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < line.size();) {
    if (std::isspace(static_cast<unsigned char>(line[i]))) {
      ++i;
      continue;
    }
    if (line[i] == '"') {
      const std::size_t close = line.find('"', i + 1);
      if (close == std::string::npos) throw Error(at + ": a quote opened at column " + std::to_string(i + 1) + " is not closed");
      paths.push_back(line.substr(i + 1, close - i - 1));
      i = close + 1;
      continue;
    }
    std::size_t end = i;
    while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
    paths.push_back(line.substr(i, end - i));
    i = end;
  }
  return paths;
}

std::vector<ImagePair> pairs_of_list(const std::string& where, const fs::path& p) {
  std::vector<ImagePair> pairs;
  std::istringstream in(read_input_file(p.string(), InputKind::ImageList));
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (const auto h = line.find('#'); h != std::string::npos) line.resize(h);
    const std::vector<std::string> names = list_line_paths(line, where + ":" + std::to_string(n));
    if (names.empty()) continue;
    if (names.size() != 2)
      throw Error(where + ":" + std::to_string(n) + ": expected 'LEFT_IMAGE RIGHT_IMAGE' (a path with spaces in double "
                  "quotes: \"left 01.png\" \"right 01.png\"), got " + std::to_string(names.size()) + " paths");
    const std::string &a = names[0], &b = names[1];
    auto resolve = [&](const std::string& f) {
      const fs::path q = fs::path(f).is_absolute() ? fs::path(f) : p.parent_path() / f;
      if (!fs::exists(q)) throw Error(where + ":" + std::to_string(n) + ": no such image '" + q.string() + "'");
      return q.string();
    };
    pairs.push_back({resolve(a), resolve(b)});
  }
  return pairs;
}

// A folder's left*/right* images paired by what follows "left"/"right" in the name (case aside).
std::vector<ImagePair> pairs_of_folder(const std::string& where, const fs::path& p) {
  std::vector<ImagePair> pairs;
  std::map<std::string, std::string> left, right;
  for (const auto& e : fs::directory_iterator(p)) {
    if (!is_image(e.path())) continue;
    const std::string l = lower(e.path().filename().string());
    const bool is_left = l.rfind("left", 0) == 0;
    if (!is_left && l.rfind("right", 0) != 0) continue;
    // A device, pipe or directory under an image's name is named, not passed over.
    require_input_file(e.path().string());
    // Names equal but for case (left_0000.png, left_0000.PNG): one camera's frame twice.
    std::string& slot = is_left ? left[l.substr(4)] : right[l.substr(5)];
    if (!slot.empty())
      throw Error(where + ": " + fs::path(std::min(slot, e.path().string())).filename().string() + " and " +
                  fs::path(std::max(slot, e.path().string())).filename().string() +
                  " are one camera's image of one frame under two names (they differ only in case); expected one");
    slot = e.path().string();
  }
  std::string unpaired;
  for (const auto& [key, file] : left) {
    if (auto it = right.find(key); it != right.end()) pairs.push_back({file, it->second});
    else unpaired += " " + fs::path(file).filename().string();
  }
  for (const auto& [key, file] : right)
    if (!left.count(key)) unpaired += " " + fs::path(file).filename().string();
  if (!unpaired.empty()) throw Error(where + ": images without a left/right partner:" + unpaired);
  return pairs;
}

}  // namespace

std::vector<ImagePair> find_image_pairs(const std::string& where) {
  const fs::path p(where);
  if (!fs::exists(p)) throw Error(where + ": no such directory or list file");
  if (!fs::is_regular_file(p) && !fs::is_directory(p))
    throw Error(where + ": expected a directory of images or a list file, got a device or pipe");
  std::vector<ImagePair> pairs = fs::is_regular_file(p) ? pairs_of_list(where, p) : pairs_of_folder(where, p);
  if (pairs.empty()) throw Error(where + ": no left*/right* image pairs found");
  for (const ImagePair& q : pairs) {  // one file as both images (a link, a list naming it twice): no stereo pair
    std::error_code ec;
    if (fs::equivalent(q.left, q.right, ec))
      throw Error(where + ": " + fs::path(q.left).filename().string() + " and " + fs::path(q.right).filename().string() +
                  " are the same file; a stereo pair needs the images of two cameras");
  }
  bool numbered = true;
  for (ImagePair& q : pairs) numbered = (q.frame = frame_number(q.left)) >= 0 && numbered;
  if (numbered)
    std::stable_sort(pairs.begin(), pairs.end(), [](const ImagePair& a, const ImagePair& b) { return a.frame < b.frame; });
  return pairs;
}

}  // namespace vcloe::calib
