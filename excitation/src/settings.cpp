// excitation/src/settings.cpp — the excitation settings file (docs/excitation-file.md), read
// into an ExcitationProblem (optimizer.hpp). Every key is optional; unknown keys are refused.
#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/excitation/optimizer.hpp"

namespace vcloe::excitation {

namespace {

// tracking: {enabled, margin, payload: {mass, inertia}, family: {platform, gains}} (tracking.hpp).
void parse_tracking(const YamlNode& t, TrackingSettings& s) {
  t.reject_unknown_keys({"enabled", "margin", "payload", "family"});
  s.enabled = t.get_bool("enabled", s.enabled);
  s.margin = t.get_double("margin", s.margin);
  if (auto pl = t.find("payload")) {
    pl->reject_unknown_keys({"mass", "inertia"});
    s.payload_mass = pl->get_double("mass", s.payload_mass);
    if (auto i = pl->find("inertia")) s.payload_inertia = i->as_vector(3);
    else if (s.payload_mass == 0) s.payload_inertia.setZero();  // `mass: 0` alone: no payload, not the default's moments
  }
  if (auto f = t.find("family")) {
    f->reject_unknown_keys({"platform", "gains"});
    s.platform = f->get_double("platform", s.platform);
    s.gains = f->get_double("gains", s.gains);
  }
}

ExcitationProblem parse_settings_document(const YamlDoc& doc) {
  const std::string& file = doc.file();
  ExcitationProblem p;
  const YamlNode r = doc.root();
  r.reject_unknown_keys({"harmonics", "f0", "optimize_f0", "f0_range", "duration", "criterion", "scale_columns",
                         "qr_eps", "regressor_period", "check_period", "limits", "amplitude", "seed", "evaluations",
                         "baseline_trajectories", "tracking", "notes"});
  p.harmonics = r.get_int("harmonics", p.harmonics);
  p.f0 = r.get_double("f0", p.f0);
  p.optimize_f0 = r.get_bool("optimize_f0", p.optimize_f0);
  if (auto range = r.find("f0_range")) {
    const Eigen::VectorXd v = range->as_vector(2);
    p.f0_min = v(0);
    p.f0_max = v(1);
  }
  p.duration = r.get_double("duration", p.duration);
  if (auto c = r.find("criterion")) p.criterion = criterion_from_string(c->as_string(), c->where());
  p.scale_columns = r.get_bool("scale_columns", p.scale_columns);
  p.qr_eps = r.get_double("qr_eps", p.qr_eps);
  p.regressor_period = r.get_double("regressor_period", p.regressor_period);
  p.check_period = r.get_double("check_period", p.check_period);
  if (auto lim = r.find("limits")) {
    lim->reject_unknown_keys({"sample_period", "max_joint_velocity", "max_joint_acceleration", "min_transmission",
                              "min_parallel_conditioning"});
    p.limits.min_transmission = lim->get_double("min_transmission", p.limits.min_transmission);
    p.limits.min_parallel_conditioning = lim->get_double("min_parallel_conditioning", p.limits.min_parallel_conditioning);
    p.limits.sample_period = lim->get_double("sample_period", p.limits.sample_period);
    p.limits.max_joint_velocity = lim->get_double("max_joint_velocity", p.limits.max_joint_velocity);
    p.limits.max_joint_acceleration = lim->get_double("max_joint_acceleration", p.limits.max_joint_acceleration);
  }
  if (auto a = r.find("amplitude")) {
    a->reject_unknown_keys({"position", "angle"});
    p.max_position_amplitude = a->get_double("position", p.max_position_amplitude);
    p.max_angle_amplitude = a->get_double("angle", p.max_angle_amplitude);
  }
  if (r.has("seed")) {
    if (r.at("seed").as_int() < 0) r.at("seed").fail("expected a non-negative seed");
    p.seed = static_cast<std::uint64_t>(r.at("seed").as_int());
  }
  if (auto e = r.find("evaluations")) {
    e->reject_unknown_keys({"global", "local"});
    p.global_evaluations = e->get_int("global", p.global_evaluations);
    p.local_evaluations = e->get_int("local", p.local_evaluations);
  }
  p.baseline_trajectories = r.get_int("baseline_trajectories", p.baseline_trajectories);
  if (auto t = r.find("tracking")) parse_tracking(*t, p.tracking);
  p.source = file;
  r.fail_if(p.problem());  // at the key's line, as the reader's own errors are
  return p;
}

}  // namespace

ExcitationProblem load_excitation_settings(const std::string& file) { return parse_settings_document(YamlDoc::load(file)); }

ExcitationProblem parse_excitation_settings(const std::string& yaml_text, const std::string& name) {
  return parse_settings_document(YamlDoc::parse(yaml_text, name));
}

}  // namespace vcloe::excitation
