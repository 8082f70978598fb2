#include "vcloe/hw/virtual_rig.hpp"

#include <cmath>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"

namespace vcloe::hw {

bool VirtualRig::camera_departs() const {
  return camera_from_base_error != Vec6d::Zero() || latency_offset != 0 || latency_jitter != 0;
}

bool VirtualRig::any() const { return camera_departs() || backlash != 0; }

std::optional<SettingProblem> VirtualRig::problem() const {
  auto bad = [](const std::string& key, const std::string& what) {
    return SettingProblem{"virtual_rig." + key, "virtual_rig." + key + ": " + what};
  };
  if (!(camera_from_base_error.head<3>().cwiseAbs().maxCoeff() <= 0.01 &&
        camera_from_base_error.tail<3>().cwiseAbs().maxCoeff() <= 0.05))
    return bad("camera_from_base_error", "expected at most 0.01 m and 0.05 rad per coordinate (a residual, not a frame)");
  if (!(std::abs(latency_offset) <= 0.05)) return bad("latency_offset", "expected at most 0.05 s in magnitude");
  if (!(latency_jitter >= 0 && latency_jitter <= 0.05 / 3))  // the bound printed is the one compared
    return bad("latency_jitter", "expected a standard deviation in [0, " + exact_number(0.05 / 3) +
                                     "] s (3 sigma within 0.05 s), got " + exact_number(latency_jitter));
  if (!(backlash >= 0 && backlash <= 0.02)) return bad("backlash", "expected a play in [0, 0.02] rad");
  if (!(backlash_torque > 0 && backlash_torque <= 100)) return bad("backlash_torque", "expected a torque in (0, 100] N*m");
  return std::nullopt;
}

void VirtualRig::validate(const std::string& where) const { throw_if(problem(), where); }

VirtualRig read_virtual_rig(const YamlNode& root) {
  VirtualRig rig;
  const auto n = root.find("virtual_rig");
  if (!n) return rig;
  n->reject_unknown_keys(
      {"camera_from_base_error", "latency_offset", "latency_jitter", "platform_com", "backlash", "backlash_torque"});
  if (auto v = n->find("camera_from_base_error")) rig.camera_from_base_error = v->as_vector(6);
  rig.latency_offset = n->get_double("latency_offset", 0);
  rig.source = n->has("latency_offset") ? n->at("latency_offset").where() : n->where();
  rig.latency_jitter = n->get_double("latency_jitter", 0);
  if (auto v = n->find("platform_com"))  // a model parameter since the twin has it
    v->fail("moved to the robot file: write its first moments m c as 'inertia.platform_first_moment' (kg*m; "
            "docs/robot-file.md)");
  rig.backlash = n->get_double("backlash", 0);
  rig.backlash_torque = n->get_double("backlash_torque", rig.backlash_torque);
  root.fail_if(rig.problem());
  return rig;
}

VirtualRig load_virtual_rig(const std::string& truth_file) {
  const YamlDoc doc = YamlDoc::load(truth_file);
  return read_virtual_rig(doc.root());
}

std::string virtual_rig_to_yaml(const VirtualRig& r) {
  if (!r.any()) return "";
  std::ostringstream o;
  auto vec = [&](const auto& v) {
    o << "[";
    for (int k = 0; k < v.size(); ++k) o << (k ? ", " : "") << exact_number(v(k));
    o << "]";
  };
  o << "virtual_rig:  # read by the virtual robot only (docs/virtual-robot.md)\n  camera_from_base_error: ";
  vec(r.camera_from_base_error);
  o << "\n  latency_offset: " << exact_number(r.latency_offset) << "\n  latency_jitter: " << exact_number(r.latency_jitter)
    << "\n  backlash: " << exact_number(r.backlash) << "\n  backlash_torque: " << exact_number(r.backlash_torque) << "\n";
  return o.str();
}

}  // namespace vcloe::hw
