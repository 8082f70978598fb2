#include "vcloe/oe_ident/config.hpp"

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"

namespace vcloe::oe_ident {

std::vector<int> match_parameters(const std::string& pattern) {
  std::vector<int> out;
  const auto& reg = sim::parameter_registry();
  const bool prefix = !pattern.empty() && pattern.back() == '*';
  const std::string stem = prefix ? pattern.substr(0, pattern.size() - 1) : pattern;
  for (std::size_t k = 0; k < reg.size(); ++k)
    if (prefix ? reg[k].name.rfind(stem, 0) == 0 : reg[k].name == stem) out.push_back(static_cast<int>(k));
  return out;
}

static std::vector<int> parameters_of(const YamlNode& n) {
  const std::vector<int> m = match_parameters(n.as_string());
  if (m.empty()) n.fail("no parameter named '" + n.as_string() + "' (names as in docs/identification.md, e.g. m_p, Ix_l3, fc2, lp, or a prefix with '*')");
  return m;
}

static IdentificationConfig parse_document(const YamlDoc& doc) {
  const YamlNode root = doc.root();
  root.reject_unknown_keys({"anchor", "payload", "noise_sigma", "free", "fixed", "tied", "loss", "stopping",
                            "rank_tolerance", "rel_sigma_flag", "qr_eps", "threads", "notes", "horizons",
                            "prior_log_sigma", "initial_trust_region"});
  IdentificationConfig cfg;
  IdentificationOptions& o = cfg.options;
  o.spec = default_specification();

  // fixed / free / tied replace the defaults for the parameters they name.
  if (auto f = root.find("fixed"))
    for (std::size_t i = 0; i < f->size(); ++i)
      for (int k : parameters_of(f->at(i))) o.spec[static_cast<std::size_t>(k)] = {Mode::Fixed, -1};
  if (auto f = root.find("free"))
    for (std::size_t i = 0; i < f->size(); ++i)
      for (int k : parameters_of(f->at(i))) o.spec[static_cast<std::size_t>(k)] = {Mode::Free, -1};
  if (auto t = root.find("tied"))
    for (std::size_t g = 0; g < t->size(); ++g) {
      const YamlNode group = t->at(g);
      std::vector<int> members;
      for (std::size_t i = 0; i < group.size(); ++i)
        for (int k : parameters_of(group.at(i))) members.push_back(k);
      if (members.size() < 2) group.fail("a tie group needs at least two parameters");
      const auto kind = sim::parameter_registry()[static_cast<std::size_t>(members[0])].kind;
      for (int k : members) {
        if (sim::parameter_registry()[static_cast<std::size_t>(k)].kind != kind)
          group.fail("tied parameters must be of one kind (all masses, all inertias, ...)");
        o.spec[static_cast<std::size_t>(k)] = {Mode::Tied, static_cast<int>(g)};
      }
    }

  if (auto a = root.find("anchor")) {
    a->reject_unknown_keys({"type", "parameter", "value"});
    const std::string type = a->get_string("type", "none");
    if (type == "none") {
      o.anchor.kind = AnchorKind::None;
    } else if (type == "known_parameter") {
      o.anchor.kind = AnchorKind::KnownParameter;
      const std::vector<int> k = parameters_of(a->at("parameter"));
      if (k.size() != 1) a->at("parameter").fail("the anchor names exactly one parameter");
      o.anchor.parameter = k[0];
      const auto kind = sim::parameter_registry()[static_cast<std::size_t>(k[0])].kind;
      if (kind != sim::ParameterKind::Mass && kind != sim::ParameterKind::GainP && kind != sim::ParameterKind::GainI &&
          kind != sim::ParameterKind::GainD)
        a->at("parameter").fail("the anchor must be a mass or a joint PID gain");
      o.anchor.value = a->get_double("value");
      if (!(o.anchor.value > 0)) a->at("value").fail("expected a positive value (SI)");
    } else if (type == "payload") {
      o.anchor.kind = AnchorKind::Payload;
    } else {
      a->at("type").fail("expected none, known_parameter or payload, got '" + type + "'");
    }
  }
  if (auto p = root.find("payload")) {
    p->reject_unknown_keys({"mass", "inertia"});
    Payload pl;
    pl.mass = p->get_double("mass");
    if (!(pl.mass > 0)) p->at("mass").fail("expected a positive mass in kg");
    pl.inertia = p->get_vector("inertia", 3);
    for (int k = 0; k < 3; ++k)
      if (!(pl.inertia(k) >= 0)) p->at("inertia").fail("principal moments must be non-negative");
    cfg.payload = pl;
  }
  if (o.anchor.kind == AnchorKind::Payload && !cfg.payload)
    root.at("anchor").fail("a payload anchor needs the payload's mass and inertia under 'payload'");
  if (auto n = root.find("noise_sigma")) {
    n->reject_unknown_keys({"position", "angle"});
    const double p = n->get_double("position", o.sigma(0)), a = n->get_double("angle", o.sigma(3));
    if (!(p > 0) || !(a > 0)) n->fail("noise levels must be positive (m, rad)");
    o.sigma << p, p, p, a, a, a;
  }
  if (auto l = root.find("loss")) {
    l->reject_unknown_keys({"type", "scale"});
    const std::string type = l->get_string("type", "squared");
    if (type == "squared") o.loss = Loss::Squared;
    else if (type == "huber") o.loss = Loss::Huber;
    else if (type == "cauchy") o.loss = Loss::Cauchy;
    else l->at("type").fail("expected squared, huber or cauchy");
    o.loss_scale = l->get_double("scale", o.loss_scale);
  }
  if (auto s = root.find("stopping")) {
    s->reject_unknown_keys({"tol1", "tol2", "max_iterations", "stage_tol1"});
    o.tol1 = s->get_double("tol1", o.tol1);
    o.stage_tol1 = s->get_double("stage_tol1", o.stage_tol1);
    if (!(o.stage_tol1 > 0)) s->at("stage_tol1").fail("expected a positive relative cost change");
    o.tol2 = s->get_double("tol2", o.tol2);
    o.max_iterations = s->get_int("max_iterations", o.max_iterations);
    if (!(o.tol1 > 0) || !(o.tol2 > 0) || o.max_iterations < 1) s->fail("tolerances must be positive, iterations >= 1");
  }
  o.rank_tolerance = root.get_double("rank_tolerance", o.rank_tolerance);
  o.rel_sigma_flag = root.get_double("rel_sigma_flag", o.rel_sigma_flag);
  o.qr_eps = root.get_double("qr_eps", o.qr_eps);
  o.threads = root.get_int("threads", o.threads);
  if (auto h = root.find("horizons")) {
    const Eigen::VectorXd v = h->as_vector();
    o.horizons.assign(v.data(), v.data() + v.size());
    if (o.horizons.empty() || o.horizons.back() != 1.0) h->fail("expected increasing fractions in (0, 1] ending with 1");
    for (std::size_t i = 0; i < o.horizons.size(); ++i)
      if (!(o.horizons[i] > 0 && o.horizons[i] <= 1) || (i > 0 && !(o.horizons[i] > o.horizons[i - 1])))
        h->fail("expected increasing fractions in (0, 1] ending with 1");
  }
  o.prior_log_sigma = root.get_double("prior_log_sigma", o.prior_log_sigma);
  if (!(o.prior_log_sigma >= 0)) root.at("prior_log_sigma").fail("expected a non-negative width (0 = no prior)");
  o.initial_trust_region = root.get_double("initial_trust_region", o.initial_trust_region);
  if (!(o.initial_trust_region > 0)) root.at("initial_trust_region").fail("expected a positive radius");
  return cfg;
}

IdentificationConfig load_identification_config(const std::string& file) { return parse_document(YamlDoc::load(file)); }
IdentificationConfig parse_identification_config(const std::string& text, const std::string& name) {
  return parse_document(YamlDoc::parse(text, name));
}

}  // namespace vcloe::oe_ident
