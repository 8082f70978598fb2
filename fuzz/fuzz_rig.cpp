// Stereo rig file (docs/vision.md, "Rig file"): vision::parse_rig, and rig_to_yaml's output
// read back: cameras exactly, transforms to 1e-9 rad and 1e-12 m (a rotation is written as a
// rotation vector, which a read-write cycle may change in its last digit).
#include "fuzz_support.hpp"
#include "vcloe/vision/camera.hpp"

namespace {

using namespace vcloe::vision;

bool same_camera(const Camera& a, const Camera& b) {
  return a.width == b.width && a.height == b.height && a.fx == b.fx && a.fy == b.fy && a.cx == b.cx &&
         a.cy == b.cy && a.distortion == b.distortion;
}
bool same_transform(const Transform& a, const Transform& b) {
  return rotation_angle_between(a, b) <= 1e-9 && translation_between(a, b) <= 1e-12;
}
bool same_rig(const StereoRig& a, const StereoRig& b) {
  return same_camera(a.left, b.left) && same_camera(a.right, b.right) && same_transform(a.T_R_C, b.T_R_C) &&
         a.T_C_O.has_value() == b.T_C_O.has_value() && (!a.T_C_O || same_transform(*a.T_C_O, *b.T_C_O));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = vcloe::fuzz::text_of(data, size);
  const auto read = [](const std::string& t) { return parse_rig(t, "rig.yaml"); };
  const auto rig = vcloe::fuzz::read_or_refuse("rig.yaml", [&] { return read(text); });
  if (rig)
    vcloe::fuzz::check_round_trip(*rig, "rig.yaml", read, [](const StereoRig& r) { return rig_to_yaml(r, "fuzz"); },
                                  same_rig);
  return 0;
}
