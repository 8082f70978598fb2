#include "vcloe/core/experiment_file.hpp"

#include <cmath>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"

namespace vcloe {

namespace {
bool is_whole(double x) { return std::abs(x - std::round(x)) < 1e-9 * std::max(1.0, std::abs(x)); }
}  // namespace

int LoopTiming::ticks_per_frame() const { return static_cast<int>(std::lround(controller_hz / camera_hz)); }
int LoopTiming::latency_ticks() const { return static_cast<int>(std::lround(latency * controller_hz)); }

std::optional<SettingProblem> LoopTiming::problem() const {
  // "timing.<key> <what>": the key, and the message that begins with it.
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + " " + what}; };
  if (!(controller_hz > 0 && controller_hz <= 1e5)) return bad("timing.controller_hz", "must be in (0, 100000] Hz");
  // 1e-300 Hz overflowed the ticks per frame (SIGFPE); 1e-3 Hz left the outer loop idle for 1000 s
  // and the twin diverged without naming the setting.
  if (!(camera_hz >= 1)) return bad("timing.camera_hz", "must be at least 1 Hz (got " + exact_number(camera_hz) + " Hz)");
  if (camera_hz > controller_hz || !is_whole(controller_hz / camera_hz))
    return bad("timing.camera_hz", "must divide timing.controller_hz (got " + exact_number(camera_hz) + " and " +
                                       exact_number(controller_hz) + " Hz)");
  if (!(latency >= 0 && latency <= 86400) || !is_whole(latency * controller_hz))
    return bad("timing.latency", "must be a multiple of the controller period, in [0, 86400] s: " +
                                     exact_number(1.0 / controller_hz) + " s (got " + exact_number(latency) + " s)");
  if (substeps < 1 || substeps > 1000) return bad("timing.substeps", "must be between 1 and 1000");
  // Each bound alone allowed 10^8 RK4 steps per simulated second (100 kHz x 1000): 40 min for 2 s.
  if (controller_hz * substeps > kMaxStepsPerSecond)
    return SettingProblem{"timing.substeps", "timing.controller_hz x timing.substeps is " +
                                                 exact_number(controller_hz * substeps) +
                                                 " integration steps per second; at most 10^6 (a step of 1 us)"};
  return std::nullopt;
}

void LoopTiming::validate(const std::string& where) const { throw_if(problem(), where); }

static Vec6d per_axis(const YamlNode& n) {
  if (n.is_sequence()) return n.as_vector(6);
  return Vec6d::Constant(n.as_double());
}

static ExperimentConfig parse_document(const YamlDoc& doc) {
  const YamlNode root = doc.root();
  root.reject_unknown_keys({"timing", "outer_pid", "notes"});
  ExperimentConfig cfg;
  cfg.source = doc.file();
  if (auto t = root.find("timing")) {
    t->reject_unknown_keys({"controller_hz", "camera_hz", "latency", "substeps"});
    cfg.timing.controller_hz = t->get_double("controller_hz", cfg.timing.controller_hz);
    cfg.timing.camera_hz = t->get_double("camera_hz", cfg.timing.camera_hz);
    cfg.timing.latency = t->get_double("latency", cfg.timing.latency);
    cfg.timing.substeps = t->get_int("substeps", cfg.timing.substeps);
    root.fail_if(cfg.timing.problem());
  }
  if (auto o = root.find("outer_pid")) {
    o->reject_unknown_keys({"kp", "ki", "kd", "form"});
    if (auto k = o->find("kp")) cfg.outer.kp = per_axis(*k);
    if (auto k = o->find("ki")) cfg.outer.ki = per_axis(*k);
    if (auto k = o->find("kd")) cfg.outer.kd = per_axis(*k);
    const std::string form = o->get_string("form", "feedforward");
    if (form == "feedforward") cfg.outer.literal = false;
    else if (form == "literal") cfg.outer.literal = true;
    else o->at("form").fail("expected 'feedforward' or 'literal', got '" + form + "'");
    for (const char* key : {"kp", "ki", "kd"}) {
      const Vec6d& g = key[1] == 'p' ? cfg.outer.kp : key[1] == 'i' ? cfg.outer.ki : cfg.outer.kd;
      if ((g.array() < 0).any())  // a negative gain feeds the error back with the wrong sign
        o->at(key).fail("expected non-negative gains (per axis or one for all)");
      if ((g.array() > 1e6).any())  // dimensionless, 1/s, s: 1e308 made the loop non-finite
        o->at(key).fail("expected gains of at most 1e6 (per axis or one for all)");
    }
    if (cfg.outer.literal && (cfg.outer.ki.array() <= 0).any())
      o->at("ki").fail("the literal form needs positive ki on every axis (its integrator holds the pose)");
  }
  return cfg;
}

ExperimentConfig load_experiment(const std::string& file) { return parse_document(YamlDoc::load(file)); }
ExperimentConfig parse_experiment(const std::string& text, const std::string& name) {
  return parse_document(YamlDoc::parse(text, name));
}

}  // namespace vcloe
