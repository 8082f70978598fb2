#pragma once
// The identification report's fields that others of the same file determine (identification.hpp):
// compared by its one reader after every field was read on its own (identification_json.cpp).
#include "vcloe/core/json_node.hpp"
#include "vcloe/report/identification.hpp"

namespace vcloe::report::detail {

// Equal within the rounding of one derivation (the files hold every number to 17 digits).
bool same_figure(double a, double b);

// Refuses, naming the key, a parameter whose derived fields are not those of its primary ones:
// rel_sigma and interval95 by identify's own rule (oe_ident/spread.hpp: sigma / |value| and
// value * exp(+-1.96 rel_sigma) in the fit's log coordinates, Li et al. 2019, §4; a first moment
// against at least m_p x 1 mm, value +- 1.96 sigma), identified / flagged / status as the fit sets
// them, a status of the fixed set, and identified_count the number identified. `params` is the
// node of r.parameters.
// The model-adequacy verdict of node n: one of the three the fit writes (oe_ident::Adequacy::name),
// else refused naming the key (the identification report's and the study's readers).
std::string adequacy_verdict(const vcloe::JsonNode& n);

// Refuses, naming the key, a derived figure or sentence that is not what the writer derives from
// the file's own fields (identification_derived.cpp): adequacy (oe_ident::adequacy_of), convergence
// (oe_ident::ConvergenceCheck), termination (Ceres' report, or oe_ident::kStuckTermination),
// rejected_steps at most iterations.
void check_derived_fields(const IdentificationReport& r, const JsonNode& root);

// Refuses a latency offset whose status is not the writer's for `fitted` (a fitted one's by
// oe_ident::LatencyResult::fitted_status) or that holds a sigma without being fitted.
void check_latency(const LatencyEntry& l, const JsonNode& n);

void check_parameters_consistent(const IdentificationReport& r, const vcloe::JsonNode& params, const vcloe::JsonNode& root);

}  // namespace vcloe::report::detail
