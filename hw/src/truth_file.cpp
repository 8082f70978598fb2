#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/hw/truth_family.hpp"

namespace vcloe::hw {

std::optional<SettingProblem> RandomTruthOptions::problem() const { return family.problem(); }

void RandomTruthOptions::validate(const std::string& where) const {
  throw_if(problem(), where);
  // The output: the file system, so here and not in problem() (which stays pure).
  check_output_path(out, force, {{priors, "--priors"}});
}

Report write_random_truth(const RandomTruthOptions& o) {
  o.validate();
  const sim::RobotFile truth = random_truth(sim::load_robot(o.priors), o.seed, o.family);
  const TruthFamily& f = o.family;
  std::ostringstream out;
  out << "# vcloe truth random --seed " << o.seed << (f.far ? " --far" : "") << (f.unmodelled ? " --unmodelled" : "")
      << (f.realistic ? " --realistic" : "")
      << " around " << o.priors << "\n# platform +-" << f.platform * 100 << " %, crank and link moments +-"
      << f.bodies * 100 << " % per leg, friction " << f.friction_low << "-" << f.friction_high
      << " x per joint, gains +-" << f.gains * 100 << " %, masses of cranks and links as weighed (= priors)";
  if (f.far) out << "; then platform mass, moments, friction and gains each x one factor in " << f.far_low << "-" << f.far_high;
  if (f.unmodelled)
    out << ", joint centres and link lengths +-" << f.tolerance * 1e3 << " mm, backlash " << f.backlash * 1e3 << " mrad";
  if (f.realistic)
    out << "\n# realistic: joint centres, crank and link lengths +-" << f.geometry * 1e3 << " mm, encoder zeros +-"
        << f.encoder * 1e3 << " mrad, marker frame +-" << f.marker_position * 1e3 << " mm / +-" << f.marker_angle * 1e3
        << " mrad, camera-to-base sigma " << f.base_position * 1e6 << " um / " << f.base_angle * 1e6
        << " urad, latency " << f.latency_low * 1e3 << " ... " << f.latency_high * 1e3 << " ms (jitter sigma "
        << f.latency_jitter * 1e3 << " ms), platform centre of mass +-" << f.com * 1e3 << " mm";
  out << "\n" << sim::robot_to_yaml(truth.model, truth.lambda) << virtual_rig_to_yaml(random_rig(o.seed, f));
  write_file_atomically(o.out, out.str(), o.force);  // whole or not at all, never over an input
  return {nlohmann::json::object(), "wrote " + o.out + "\n"};
}

}  // namespace vcloe::hw
