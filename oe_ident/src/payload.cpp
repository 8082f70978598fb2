// oe_ident/src/payload.cpp — the payload's checks and parser (payload.hpp).
#include "vcloe/oe_ident/payload.hpp"

#include <cmath>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/sim/payload.hpp"

namespace vcloe::oe_ident {

namespace {

struct PayloadProblem {
  const char* key;  // "mass" or "inertia"
  std::string message;
};

std::optional<PayloadProblem> payload_problem(double mass, const Vec3d& I) {
  if (!(std::isfinite(mass) && mass > 0))
    return PayloadProblem{"mass", "expected a finite positive payload mass in kg, got " + exact_number(mass)};
  if (!(mass >= kMinPayloadMass && mass <= kMaxPayloadMass))
    return PayloadProblem{"mass", "expected a payload mass in [0.001, 10000] kg (a scale anchor the poses can feel, "
                                  "a load a robot can carry), got " + exact_number(mass)};
  std::ostringstream got;
  got << "got [" << exact_number(I(0)) << ", " << exact_number(I(1)) << ", " << exact_number(I(2)) << "]";
  if (!(I.allFinite() && (I.array() >= 0).all()))
    return PayloadProblem{"inertia", "expected finite non-negative principal moments in kg*m^2, " + got.str()};
  if (I.maxCoeff() > kMaxPayloadInertia)
    return PayloadProblem{"inertia", "expected principal moments of at most 10000 kg*m^2, " + got.str()};
  for (int k = 0; k < 3; ++k)
    if (I((k + 1) % 3) + I((k + 2) % 3) < I(k))
      return PayloadProblem{"inertia", std::string("principal moments violate the triangle inequality (I") + "xyz"[k] +
                                           " exceeds the sum of the other two), " + got.str()};
  return std::nullopt;
}

}  // namespace

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
