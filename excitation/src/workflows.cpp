#include "vcloe/excitation/workflows.hpp"

#include <limits>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/seed_range.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/sim/parameters.hpp"

namespace vcloe::excitation {

using nlohmann::json;

json feasibility_json(const FeasibilityReport& r) {
  const bool measured = r.passed() > 0;  // else null: no sample passed, nothing measured
  auto figure = [&](double v) { return measured ? json(v) : json(); };
  json j = {{"feasible", r.feasible},
            {"reason", r.reason},
            {"time", r.time},
            {"joint", r.joint + 1},
            {"samples", r.samples},
            {"samples_passed", r.passed()},
            {"max_abs_theta", figure(r.max_abs_theta)},
            {"max_abs_theta_dot", figure(r.max_abs_theta_dot)},
            {"max_abs_theta_ddot", figure(r.max_abs_theta_ddot)},
            {"min_transmission", figure(r.min_transmission)},
            {"min_parallel_conditioning", figure(r.min_parallel_conditioning)}};
  const auto& g = r.joint_error;
  if (g.max_rotation > 0)  // at least one pose passed the singularity checks
    j["joint_error"] = {{"max_displacement_mm_per_mrad", g.max_displacement},
                        {"max_rotation_mrad_per_mrad", g.max_rotation},
                        {"displacement_over_rotation_m", {g.min_ratio, g.max_ratio}}};
  return j;
}

std::string feasibility_text(const FeasibilityReport& r) {
  std::ostringstream s;
  s << (r.feasible ? "feasible" : "NOT feasible: " + r.reason) << "\n"
    << "  samples checked        " << r.samples << "\n";
  if (r.passed() == 0) return s.str() + "  (no sample passed: nothing measured)\n";
  s << "  max |theta|            " << r.max_abs_theta << " rad\n"
    << "  max |theta_dot|        " << r.max_abs_theta_dot << " rad/s\n"
    << "  max |theta_ddot|       " << r.max_abs_theta_ddot << " rad/s^2\n"
    << "  min transmission       " << r.min_transmission << "\n"
    << "  min J_a2 conditioning  " << r.min_parallel_conditioning << "\n";
  const auto& g = r.joint_error;
  if (g.max_rotation > 0)
    s << "  1 mrad at one joint    moves the platform <= " << g.max_displacement << " mm, turns it <= "
      << g.max_rotation << " mrad (displacement/rotation " << g.min_ratio << " to " << g.max_ratio << " m)\n";
  return s.str();
}

Report write_random_trajectory(const RandomTrajectoryFileOptions& o) {
  o.random.validate("trajectory random options");
  check_output_path(o.out, o.force, {{o.robot, "--robot"}});
  const sim::RobotModel robot = sim::load_robot(o.robot).model;
  const FourierTrajectory tr = random_feasible_trajectory(robot, o.seed, o.random);
  write_file_atomically(o.out, trajectory_to_yaml(tr), o.force);
  std::ostringstream s;
  s << "wrote " << o.out << " (" << tr.harmonics() << " harmonics, f0 " << tr.f0 << " Hz, " << tr.duration
    << " s, seed " << o.seed << ")\n";
  // The amplitudes are shrunk until the trajectory is feasible: say so when they were.
  Vec6d peak = Vec6d::Zero();
  for (int k = 0; k <= 2000; ++k) peak = peak.cwiseMax((tr.pose(k / (2000 * tr.f0)) - tr.offset).cwiseAbs());
  const double reached_position = peak.head<3>().maxCoeff(), reached_angle = peak.tail<3>().maxCoeff();
  if (reached_position < 0.99 * o.random.position_amplitude || reached_angle < 0.99 * o.random.angle_amplitude)
    s << "amplitudes shrunk to fit the limits: largest excursion " << reached_position << " m and " << reached_angle
      << " rad (requested " << o.random.position_amplitude << " m, " << o.random.angle_amplitude << " rad)\n";
  return {json::object(), s.str() + feasibility_text(check_feasibility(robot, tr, o.random.limits))};
}

namespace {
nlohmann::json tracking_json(const ExcitationProblem& problem, const ExcitationResult& result);
std::string tracking_text(const ExcitationProblem& problem, const ExcitationResult& result);
}  // namespace

TrajectoryCheck check_trajectory_file(const std::string& robot_file, const std::string& trajectory_file,
                                      const MotionLimits& limits, const std::optional<TwinCheckFiles>& twin) {
  limits.validate("trajectory check options");
  const sim::RobotFile robot = sim::load_robot(robot_file);
  const FourierTrajectory tr = load_trajectory(trajectory_file);
  const FeasibilityReport r = check_feasibility(robot.model, tr, limits);
  TrajectoryCheck c{{feasibility_json(r), feasibility_text(r)},
                    r.feasible ? "" : trajectory_file + ": trajectory not feasible: " + r.reason};
  if (!twin || !r.feasible) return c;
  ExcitationResult result;
  const ExcitationProblem p = twin->config.empty() ? ExcitationProblem{} : load_excitation_settings(twin->config);
  const TwinLoop loop{robot.lambda, twin->experiment.empty() ? servo::ExperimentConfig{} : servo::load_experiment(twin->experiment)};
  result.tracking = check_tracking(robot.model, loop, tr, p.tracking);
  result.tracking_effort.checks = 1;
  c.report.json["tracking"] = tracking_json(p, result);
  c.report.text += tracking_text(p, result);
  if (!result.tracking->ok) c.failure = trajectory_file + ": " + result.tracking->reason;
  return c;
}

std::optional<SettingProblem> ExciteOptions::problem() const {
  // The seed is carried as 64 bits (it was a long: 2^63 and above were stored as 2^63 - 1, silently).
  if (seed_given) return seed_range_problem("--seed", seed, 1, std::numeric_limits<std::uint64_t>::max() - 1);
  return std::nullopt;
}

void ExciteOptions::validate(const std::string& where) const {
  // The output first (as always): the file system, so here and not in problem(), which stays pure.
  check_output_path(out, force, {{robot, "--robot"}, {config, "--config"}, {experiment, "--experiment"}});
  throw_if(problem(), where);
}

namespace {

ExcitationProgress progress_line(std::ostream* out) {
  if (!out) return [](const std::string&, int, double) {};
  return [out](const std::string& stage, int evaluations, double best) {
    *out << "\r  " << stage << " search: " << evaluations << " evaluations, best cost " << best << "   " << std::flush;
  };
}

json unexcited_json(const ColumnReport& columns) {
  const auto& reg = sim::parameter_registry();
  json unexcited = json::array();
  for (const auto& u : columns.dropped) {
    json with = json::array();
    for (int k : u.combined_with) with.push_back(reg[k].name);
    unexcited.push_back({{"name", reg[u.parameter].name},
                         {"reason", u.zero_column ? "not excited" : "only as a combination"},
                         {"combined_with", with}});
  }
  return unexcited;
}

// The result's twin motion per case (tracking.hpp): how close to the safety stop it comes.
json tracking_json(const ExcitationProblem& problem, const ExcitationResult& result) {
  json j = {{"enabled", result.tracking.has_value()}, {"required_margin", problem.tracking.margin},
            {"checks", result.tracking_effort.checks}, {"refused", result.tracking_effort.refused},
            {"check_seconds", result.tracking_effort.seconds}};
  if (!result.tracking) return j;
  j["margin"] = result.tracking->margin;
  json cases = json::array();
  for (const TrackingCase& c : result.tracking->cases)
    cases.push_back({{"name", c.name}, {"margin", c.margin}, {"min_transmission", c.min_transmission},
                     {"min_parallel_conditioning", c.min_parallel_conditioning}, {"max_abs_theta", c.max_abs_theta}});
  j["cases"] = cases;
  return j;
}

std::string tracking_text(const ExcitationProblem& problem, const ExcitationResult& result) {
  if (!result.tracking) return "  twin's motion        not checked (tracking.enabled: false)\n";
  std::ostringstream s;
  s << "  twin's motion        margin to the safety stop (1 = at the stop; required " << problem.tracking.margin
    << "), " << result.tracking_effort.checks << " twin checks (" << result.tracking_effort.refused
    << " refused a candidate, " << result.tracking_effort.seconds << " s)\n";
  for (const TrackingCase& c : result.tracking->cases) s << "    " << c.name << ": " << c.margin << "\n";
  return s.str();
}

Report excite_report(const ExcitationProblem& problem, const ExcitationResult& result, const std::string& out) {
  Report r;
  r.json = {{"criterion", to_string(problem.criterion)},
            {"initial", result.initial},
            {"final", result.final},
            {"evaluations", result.evaluations},
            {"seconds", result.seconds},
            {"unexcited_parameters", unexcited_json(result.columns)},
            {"columns_used", result.columns.kept.size()},
            {"observability_index", result.values.observability_index},
            {"log_det", result.values.log_det},
            {"condition_number", result.values.condition_number},
            {"f0", result.trajectory.f0},
            {"harmonics", result.trajectory.harmonics()},
            {"seed", problem.seed},
            {"max_abs_theta", result.feasibility.max_abs_theta},
            {"tracking", tracking_json(problem, result)},
            {"out", out}};
  std::ostringstream s;
  s << "wrote " << out << "\n"
    << "  criterion            " << to_string(problem.criterion) << "\n"
    << "  initial (median of " << problem.baseline_trajectories << " random feasible) " << result.initial << "\n"
    << "  final                " << result.final << "  (x" << result.final / result.initial << ")\n"
    << "  O_in / log det / cond " << result.values.observability_index << " / " << result.values.log_det << " / "
    << result.values.condition_number << "\n"
    << "  evaluations          " << result.evaluations << " in " << result.seconds << " s\n"
    << "  columns used         " << result.columns.kept.size() << " of " << sim::kNumXi << "\n"
    << "  cannot excite        " << result.columns.describe() << "\n"
    << tracking_text(problem, result);
  r.text = s.str();
  return r;
}

}  // namespace

ExciteRun excite(const ExciteOptions& o, std::ostream* progress) {
  o.validate();
  const sim::RobotFile robot = sim::load_robot(o.robot);
  ExciteRun run;
  run.problem = o.config.empty() ? ExcitationProblem{} : load_excitation_settings(o.config);
  if (o.seed_given) run.problem.seed = o.seed;
  // The loop it will run in: the twin at the robot file's values under the experiment's controller.
  const TwinLoop loop{robot.lambda, o.experiment.empty() ? servo::ExperimentConfig{} : servo::load_experiment(o.experiment)};
  run.result = optimize_excitation(robot.model, run.problem, progress_line(progress), &loop);
  if (progress) *progress << "\n";
  write_file_atomically(o.out, trajectory_to_yaml(run.result.trajectory), o.force);
  run.report = excite_report(run.problem, run.result, o.out);
  return run;
}

}  // namespace vcloe::excitation
