// The identification report's derived figures and sentences — model adequacy, convergence, the
// termination and the step counts — checked against the fields they are made of, by the writer's
// own functions (identification_consistency.hpp).
#include <cstdio>
#include <cstring>

#include "identification_consistency.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/oe_ident/adequacy.hpp"
#include "vcloe/oe_ident/convergence.hpp"

namespace vcloe::report::detail {

namespace {

using oe_ident::ConvergenceCheck;

// The adequacy as identify derives it from each channel's rms_over_noise and lag1
// (oe_ident::adequacy_of): every share, the worst and mean, chi2, the scale, the verdict, its sentence.
void check_adequacy(const AdequacyEntry& a, const JsonNode& n) {
  std::vector<std::array<oe_ident::ChannelResidual, 6>> channels;
  for (const AdequacyEntry::Experiment& e : a.experiments) {
    channels.emplace_back();
    for (std::size_t c = 0; c < 6; ++c) channels.back()[c] = {e.rms_over_noise[c], e.lag1[c]};
  }
  const oe_ident::Adequacy want = oe_ident::adequacy_of(channels);
  for (std::size_t e = 0; e < channels.size(); ++e)
    for (std::size_t c = 0; c < 6; ++c)
      if (!same_figure(a.experiments[e].model_share[c], channels[e][c].model_share()))
        n["experiments"][e]["model_share"][c].refuse(
            "the channel's share max(1 - 1/rms_over_noise^2, lag1) within [0, 1], " + exact_number(channels[e][c].model_share()) +
            " (rms_over_noise " + exact_number(channels[e][c].rms_over_noise) + ", lag1 " + exact_number(channels[e][c].lag1) + ")");
  if (!same_figure(a.worst_model_share, want.worst_share))
    n["worst_model_share"].refuse("the largest model_share of the experiments, " + exact_number(want.worst_share));
  if (a.worst_channel != want.worst_channel) n["worst_channel"].refuse("\"" + want.worst_channel + "\", the channel of the largest model_share");
  if (!same_figure(a.mean_model_share, want.mean_share))
    n["mean_model_share"].refuse("the mean model_share over the channels, " + exact_number(want.mean_share));
  if (!same_figure(a.chi2_per_dof, want.chi2_per_dof))
    n["chi2_per_dof"].refuse("the mean rms_over_noise^2 over the channels, " + exact_number(want.chi2_per_dof));
  if (!same_figure(a.sigma_scale, want.sigma_scale()))
    n["sigma_scale"].refuse("sqrt(max(1, chi2_per_dof)) = " + exact_number(want.sigma_scale()));
  const std::string verdict = oe_ident::Adequacy::name(want.verdict);
  if (a.verdict != verdict)
    n["verdict"].refuse("\"" + verdict + "\", the verdict of mean_model_share " + exact_number(want.mean_share) +
                        " and worst_model_share " + exact_number(want.worst_share));
  if (a.summary != want.summary()) n["summary"].refuse("the sentence of its verdict and figures, \"" + want.summary() + "\"");
}

oe_ident::Convergence convergence_of(const std::string& verdict) {
  for (auto v : {oe_ident::Convergence::Converged, oe_ident::Convergence::Stuck, oe_ident::Convergence::NotChecked})
    if (verdict == ConvergenceCheck::name(v)) return v;
  return oe_ident::Convergence::NotChecked;  // (read_convergence took one of the three)
}

// The end point's figures as check_end_point derives them, the second start's presence as the
// verdict needs it, and the summary the writer's sentence of them (ConvergenceCheck::summary).
void check_convergence(const ConvergenceEntry& c, const JsonNode& n) {
  const double over = ConvergenceCheck::over_noise(c.end_cost, c.noise_cost);
  if (!same_figure(c.end_over_noise, over))
    n["end_over_noise"].refuse("sqrt(end_cost / max(noise_cost, 1)) = " + exact_number(over) + " (end_cost " +
                               exact_number(c.end_cost) + ", noise_cost " + exact_number(c.noise_cost) + ")");
  const bool ran = c.second_start_cost != -1;
  if (ran && !(c.second_start_cost >= 0)) n["second_start_cost"].refuse("-1 (no second start) or a cost of at least 0");
  if (!ran && c.verdict == "stuck") n["second_start_cost"].refuse("the cost a second start found: the verdict \"stuck\" is that start's");
  if (ran && c.verdict == "not checked") n["second_start_cost"].refuse("-1: the verdict \"not checked\" is of no second start");
  const double removed = ran ? ConvergenceCheck::removed(c.end_cost, c.second_start_cost, c.noise_cost) : 0.0;
  if (!same_figure(c.removed_share, removed))
    n["removed_share"].refuse(std::string(ran ? "(end_cost - second_start_cost) / (end_cost - noise_cost) = " : "0 (no second start ran): ") +
                              exact_number(removed));
  ConvergenceCheck k;
  k.end_over_noise = c.end_over_noise, k.second_start_cost = c.second_start_cost, k.end_cost = c.end_cost;
  k.noise_cost = c.noise_cost, k.removed_share = c.removed_share, k.escapes = c.escapes;
  k.verdict = convergence_of(c.verdict);
  const std::string want = k.summary();
  if (c.summary == want) return;
  for (auto v : {oe_ident::Convergence::Converged, oe_ident::Convergence::Stuck, oe_ident::Convergence::NotChecked}) {
    k.verdict = v;
    if (c.summary == k.summary())  // the sentence of another verdict: the verdict is what disagrees
      n["verdict"].refuse(std::string("\"") + ConvergenceCheck::name(v) + "\", the verdict its summary states");
  }
  n["summary"].refuse("the sentence of its verdict and figures, \"" + want + "\"");
}

// Ceres' brief report (solver.cc: "Ceres Solver Report: Iterations: %d, Initial cost: %e, Final
// cost: %e, Termination: %s") of the last stage, whose iterations the report's count includes, or
// for a stuck fit oe_ident::kStuckTermination and Ceres' message. identify refuses a FAILURE.
void check_termination(const IdentificationReport& r, const JsonNode& root) {
  const std::string& t = r.termination;
  const JsonNode n = root["termination"];
  const std::string stuck = oe_ident::kStuckTermination;
  if (r.convergence.stuck() != (t.rfind(stuck, 0) == 0 && !t.empty() && t.back() == ')'))
    n.refuse(r.convergence.stuck() ? "\"" + stuck + "<Ceres' message>)\" (convergence.verdict is \"stuck\")"
                                   : std::string("Ceres' report of the last stage (convergence.verdict is not \"stuck\")"));
  if (r.convergence.stuck()) return;
  int steps = 0, end = 0;
  double initial = 0, final_cost = 0;
  char type[32] = {0};
  const bool brief = std::sscanf(t.c_str(), "Ceres Solver Report: Iterations: %d, Initial cost: %lf, Final cost: %lf, Termination: %31s%n",
                                 &steps, &initial, &final_cost, type, &end) == 4 && static_cast<std::size_t>(end) == t.size();
  const std::string kind = type;
  if (!brief || !(kind == "CONVERGENCE" || kind == "NO_CONVERGENCE" || kind == "USER_SUCCESS"))
    n.refuse("Ceres' report \"Ceres Solver Report: Iterations: <n>, Initial cost: <c>, Final cost: <c>, Termination: "
             "CONVERGENCE | NO_CONVERGENCE | USER_SUCCESS\"");
  if (steps < 1 || steps - 1 > r.iterations)
    n.refuse("at most iterations + 1 = " + std::to_string(r.iterations + 1) + " Ceres iterations of the last stage (at least 1)");
}

}  // namespace

void check_derived_fields(const IdentificationReport& r, const JsonNode& root) {
  check_adequacy(r.adequacy, root["adequacy"]);
  check_convergence(r.convergence, root["convergence"]);
  check_termination(r, root);
  if (r.rejected_steps > r.iterations)
    root["rejected_steps"].refuse("at most iterations (" + std::to_string(r.iterations) + "): each rejected step is an iteration");
}

}  // namespace vcloe::report::detail
