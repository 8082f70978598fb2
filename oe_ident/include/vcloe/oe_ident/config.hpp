#pragma once
// vcloe/oe_ident/config.hpp — the identification settings file (docs/identification.md):
// which parameters are fixed or tied, the scale anchor, the payload, noise levels, loss and
// the stopping rules of eq. (35).
#include <optional>
#include <string>

#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

struct IdentificationConfig {
  IdentificationOptions options;
  std::optional<Payload> payload;  // the known payload of a payload experiment
};

// Every key is optional; defaults are default_specification(), no anchor (identify refuses),
// and the noise levels of IdentificationOptions. Errors name file, line and key.
IdentificationConfig load_identification_config(const std::string& file);
IdentificationConfig parse_identification_config(const std::string& yaml_text, const std::string& name);

// Registry indices matching a name or a pattern with a trailing '*' ("m_l*"); empty if none.
std::vector<int> match_parameters(const std::string& pattern);

}  // namespace vcloe::oe_ident
