#include "vcloe/sim/parameters.hpp"

namespace vcloe::sim {

namespace {
std::vector<ParameterInfo> build_registry() {
  std::vector<ParameterInfo> r;
  r.reserve(kNumLambda);
  const char* moment[] = {"Ix", "Iy", "Iz"};
  auto add_body = [&](BodyKind body, int leg, const std::string& suffix, const std::string& what) {
    r.push_back({"m_" + suffix, "kg", ParameterKind::Mass, body, leg, "mass of the " + what});
    for (int k = 0; k < 3; ++k) {
      r.push_back({std::string(moment[k]) + "_" + suffix, "kg*m^2", ParameterKind::Inertia, body, leg,
                   std::string("principal moment about the ") + "xyz"[k] + " axis of the " + what});
    }
  };
  add_body(BodyKind::Platform, -1, "p", "platform (end-effector)");
  for (int i = 0; i < kLegs; ++i)
    add_body(BodyKind::Wrench, i, "w" + std::to_string(i + 1), "wrench (crank) " + std::to_string(i + 1));
  for (int i = 0; i < kLegs; ++i)
    add_body(BodyKind::Link, i, "l" + std::to_string(i + 1), "link (rod) " + std::to_string(i + 1));
  for (int i = 0; i < kLegs; ++i)
    r.push_back({"fc" + std::to_string(i + 1), "N*m", ParameterKind::Coulomb, BodyKind::Wrench, i,
                 "Coulomb friction of actuated joint " + std::to_string(i + 1)});
  for (int i = 0; i < kLegs; ++i)
    r.push_back({"fv" + std::to_string(i + 1), "N*m*s/rad", ParameterKind::Viscous, BodyKind::Wrench, i,
                 "viscous friction of actuated joint " + std::to_string(i + 1)});
  for (int k = 0; k < 3; ++k)
    r.push_back({std::string("m") + "xyz"[k] + "_p", "kg*m", ParameterKind::FirstMoment, BodyKind::Platform, -1,
                 std::string("first moment m c_") + "xyz"[k] + " of the platform about E (c: its centre of mass in E)"});
  r.push_back({"lp", "N*m/rad", ParameterKind::GainP, BodyKind::Platform, -1, "inner joint PID proportional gain"});
  r.push_back({"li", "N*m/(rad*s)", ParameterKind::GainI, BodyKind::Platform, -1, "inner joint PID integral gain"});
  r.push_back({"ld", "N*m*s/rad", ParameterKind::GainD, BodyKind::Platform, -1, "inner joint PID derivative gain"});
  return r;
}
}  // namespace

const std::vector<ParameterInfo>& parameter_registry() {
  static const std::vector<ParameterInfo> registry = build_registry();
  return registry;
}

int parameter_index(std::string_view name) {
  const auto& r = parameter_registry();
  for (std::size_t i = 0; i < r.size(); ++i)
    if (r[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace vcloe::sim
