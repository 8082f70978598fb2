#include "vcloe/sim/robot.hpp"

// The one writer of robot files (the reader is robot.cpp): what identify and calibrate write,
// checked to load before it is written. Format: docs/robot-file.md.

#include <filesystem>
#include <iomanip>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/sealed_json.hpp"
#include "vcloe/core/trace.hpp"  // sha256

namespace vcloe::sim {

namespace {

// A vector as a YAML flow sequence of exact numbers.
template <typename V>
void put_vector(std::ostream& o, const V& v) {
  o << "[";
  for (int k = 0; k < v.size(); ++k) o << (k ? ", " : "") << exact_number(v(k));
  o << "]";
}

// The geometry and limits: legs, marker frame, home, limits, gravity, centres of mass.
void put_kinematics(std::ostream& o, const RobotModel& m) {
  o << "name: " << m.name << "\nlegs:\n";
  for (const Leg& leg : m.legs) {
    o << "  - base_joint: ";
    put_vector(o, leg.base_joint);
    o << "\n    axis: ";
    put_vector(o, leg.axis);
    o << "\n    wrench: ";
    put_vector(o, leg.wrench);
    o << "\n    link_length: " << exact_number(leg.link_length) << "\n    platform_joint: ";
    put_vector(o, leg.platform_joint);
    o << "\n";
    if (leg.encoder_offset != 0) o << "    encoder_offset: " << exact_number(leg.encoder_offset) << "\n";
  }
  if (m.marker_frame != Vec6d::Zero()) {  // written only when set: files without it stay as they were
    o << "marker_frame: ";
    put_vector(o, m.marker_frame);
    o << "\n";
  }
  o << "home: ";
  put_vector(o, m.home);
  o << "\nlimits:\n  joint: " << exact_number(m.joint_limit) << "\n  min_transmission: " << exact_number(m.min_transmission)
    << "\n  min_parallel_conditioning: " << exact_number(m.min_parallel_conditioning) << "\n";
  o << "gravity: ";
  put_vector(o, m.gravity);
  o << "\ncom:\n  wrench: " << exact_number(m.wrench_com) << "\n  link: " << exact_number(m.link_com) << "\n";
}

// The dynamic parameters Lambda: inertia (with the platform's first moments when set), friction, drive gains.
void put_dynamics(std::ostream& o, const RobotModel& m, const LambdaVector<double>& lambda) {
  o << "inertia:  # [m, Ix, Iy, Iz] per body\n  platform: ";
  put_vector(o, lambda.segment<4>(platform_index(0)));
  const Vec3d h = lambda.segment<3>(first_moment_index(0));
  if (h != Vec3d::Zero()) {  // written only when set: files without it stay as they were
    const Vec3d c = 1e3 * platform_com(lambda);
    o << "\n  platform_first_moment: ";
    put_vector(o, h);
    o << "  # m c (kg*m): centre of mass c = [" << std::setprecision(4) << c.x() << ", " << c.y() << ", " << c.z()
      << "] mm in E" << std::setprecision(6);
  }
  o << "\n  wrenches:\n";
  for (int i = 0; i < kLegs; ++i) {
    o << "    - ";
    put_vector(o, lambda.segment<4>(wrench_index(i, 0)));
    o << "\n";
  }
  o << "  links:\n";
  for (int i = 0; i < kLegs; ++i) {
    o << "    - ";
    put_vector(o, lambda.segment<4>(link_index(i, 0)));
    o << "\n";
  }
  o << "friction:\n  coulomb: ";
  put_vector(o, lambda.segment<kLegs>(coulomb_index(0)));
  o << "\n  viscous: ";
  put_vector(o, lambda.segment<kLegs>(viscous_index(0)));
  o << "\n  epsilon: " << exact_number(m.friction_epsilon) << "\n";
  o << "drive_pid:\n  lp: " << exact_number(lambda(kGainP)) << "\n  li: " << exact_number(lambda(kGainI))
    << "\n  ld: " << exact_number(lambda(kGainD)) << "\n";
}

}  // namespace

std::string robot_to_yaml(const RobotModel& m, const LambdaVector<double>& lambda) {
  std::ostringstream o;
  o << "# vcloe robot description (format: docs/robot-file.md). SI units: m, rad, kg, kg*m^2, N*m.\n";
  put_kinematics(o, m);
  put_dynamics(o, m, lambda);
  return o.str();
}

std::string loadable_robot_yaml(const RobotModel& model, const LambdaVector<double>& lambda, const std::string& name,
                                const std::vector<std::string>& fitted_to) {
  const std::string text = robot_to_yaml(model, lambda);
  const std::string draft = "the fitted model";
  try {
    (void)parse_robot(text, draft, /*require_consistent_inertia=*/true);
  } catch (const Error& e) {
    std::string what = e.what();  // "the fitted model:44: key '…': …": the key and range, not a line of a draft
    if (const auto key = what.find("key '"); what.rfind(draft, 0) == 0 && key != std::string::npos) what = what.substr(key);
    if (fitted_to.empty()) fail(name, "not written: the model would not load (" + what + ")");
    std::string others;
    for (std::size_t k = 1; k < fitted_to.size(); ++k) others += (k == 1 ? " (with " : ", ") + fitted_to[k];
    if (!others.empty()) others += ")";
    fail(fitted_to.front(), "the parameters fitted to its poses" + others + " are none a robot can have (" + what + "); " + name +
                    " not written: are these poses of this robot, in m and rad, their columns in order?");
  }
  return text;
}

namespace {
const std::string kCalibratedFrom = "#   from robot file ";
const std::string kSealLine = "# content_sha256: ";
}  // namespace

std::string sealed_calibrated_text(const std::string& text) { return text + kSealLine + sha256(text) + "\n"; }

void check_calibrated_seal(const std::string& text, const std::string& file) {
  if (calibrated_from(text).none()) return;
  const std::string again = ": a calibrated robot file edited since vcloe calibrate kinematics wrote it is not read; calibrate "
                            "again, or delete its comment head to use it as a robot file of your own";
  const std::size_t at = text.rfind("\n" + kSealLine);
  const std::string sealed = at == std::string::npos ? "" : text.substr(at + 1 + kSealLine.size());
  if (at == std::string::npos || sealed.size() < 64 || sealed.find_first_not_of("\r\n", 64) != std::string::npos)
    fail(file, "its head says it was calibrated, but its last line is no seal ('" + kSealLine + "<SHA-256>')" + again);
  const std::string now = sha256(text.substr(0, at + 1));
  if (sealed.substr(0, 64) != now)
    fail(file, "its head says it was calibrated, but the content is not the one sealed (SHA-256 " + now.substr(0, 12) +
                   "..., sealed " + sealed.substr(0, 12) + "...)" + again);
}

void check_identified_as_reported(const std::string& text, const std::string& file) {
  const std::string report = file + ".report.json";
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(report, ec))) return;
  const nlohmann::json j = read_sealed_json_file(report, "run vcloe identify again");
  const nlohmann::json* recorded = j.contains("inputs") && j["inputs"].is_object() && j["inputs"].contains("model")
                                       ? &j["inputs"]["model"] : nullptr;
  const std::string sha = recorded && recorded->is_object() && recorded->contains("sha256") && (*recorded)["sha256"].is_string()
                              ? (*recorded)["sha256"].get<std::string>() : "";
  if (sha.empty()) fail(report, "key 'inputs.model.sha256': missing: expected the SHA-256 of the model identified");
  const std::string now = sha256(text);
  if (now != sha)
    fail(file, "is not the model its identification report " + report + " records (SHA-256 " + now.substr(0, 12) +
                   "…, recorded " + sha.substr(0, 12) + "…): edited since vcloe identify wrote it? identify again, "
                   "or move the report away to use the file as a robot file of your own");
}

std::string calibrated_from_line(const FileRecord& source) {
  return kCalibratedFrom + source.path + " (SHA-256 " + source.sha256 + ")\n";
}

FileRecord calibrated_from(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line) && (line.empty() || line[0] == '#');) {
    if (line.rfind(kCalibratedFrom, 0) != 0) continue;
    const std::string rest = line.substr(kCalibratedFrom.size());
    const std::size_t open = rest.rfind(" (SHA-256 ");
    if (open == std::string::npos || rest.back() != ')') continue;
    return {rest.substr(0, open), rest.substr(open + 10, rest.size() - open - 11)};
  }
  return {};
}

}  // namespace vcloe::sim
