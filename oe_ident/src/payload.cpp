// oe_ident/src/payload.cpp — the payload's checks and parser (payload.hpp).
#include "vcloe/oe_ident/payload.hpp"

#include <cmath>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/sim/payload.hpp"

namespace vcloe::oe_ident {

using sim::payload_problem;

Payload make_payload(double mass, const Vec3d& inertia, const std::string& where) {
  if (const auto p = payload_problem(mass, inertia)) fail(where, p->message);
  return Payload{mass, inertia};
}

Payload parse_payload(const YamlNode& node) {
  node.reject_unknown_keys({"mass", "inertia", "notes"});
  const double mass = node.get_double("mass");
  const Vec3d inertia = node.get_vector("inertia", 3);
  if (const auto p = payload_problem(mass, inertia)) node.at(p->key).fail(p->message);
  return Payload{mass, inertia};
}

Payload parse_payload(const std::string& yaml_text, const std::string& name) {
  return parse_payload(YamlDoc::parse(yaml_text, name).root());
}

Payload load_payload(const std::string& file) { return parse_payload(YamlDoc::load(file).root()); }

sim::LambdaVector<double> with_payload(const sim::LambdaVector<double>& lambda, const std::optional<Payload>& payload) {
  return payload ? sim::with_platform_payload(lambda, payload->mass, payload->inertia) : lambda;
}

}  // namespace vcloe::oe_ident
