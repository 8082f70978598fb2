// What `vcloe identify` costs on a generated case: a truth file (default config/truth.yaml, the
// demo's virtual robot; or any `vcloe truth random` output) run on the virtual robot over the
// default excitation (config/excitation-default.yaml) with camera noise seed 1, and again with
// the known 5 kg payload under seed 2 — the traces of `vcloe demo` and `vcloe study` — then the
// fit with config/identify.yaml. Prints the fit's CPU seconds (user + sys, all threads: the
// issue's load-independent measure), its iterations, the identified count and the final cost.
//
//   build/bench/bench_identify [TRUTH.yaml]
#include <glog/logging.h>

#include <iostream>

#include "vcloe/hw/virtual_rig.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/rig/setup.hpp"

using namespace vcloe;

namespace {

const std::string kSource = VCLOE_SOURCE_DIR;

// The virtual robot's trace of `truth` under noise `seed`, as `vcloe run` records it.
PoseTrace record(const rig::ExperimentSetup& setup, const sim::RobotFile& truth, const std::string& truth_file,
                 std::uint64_t seed, const std::optional<oe_ident::Payload>& payload) {
  rig::VirtualRun run;
  run.seed = seed;
  run.departures = hw::load_virtual_rig(truth_file);
  return rig::virtual_trace(setup, truth, run, truth_file, payload);
}

}  // namespace

int main(int argc, char** argv) {
  FLAGS_minloglevel = 3;  // Ceres' per-step warnings (a trial step whose twin failed), as vcloe's main
  try {
    const std::string truth_file = argc > 1 ? argv[1] : kSource + "/config/truth.yaml";
    const sim::RobotFile truth = sim::load_robot(truth_file, true);
    const rig::ExperimentSetup setup = rig::load_setup(kSource + "/config/robot.yaml", kSource + "/config/experiment.yaml",
                                                       kSource + "/config/excitation-default.yaml");
    oe_ident::IdentificationConfig cfg = oe_ident::load_identification_config(kSource + "/config/identify.yaml");
    const PoseTrace measured = record(setup, truth, truth_file, 1, std::nullopt);
    const PoseTrace with_payload = record(setup, truth, truth_file, 2, cfg.payload);
    const std::vector<oe_ident::Experiment> exps = {rig::to_experiment(setup, measured, "measured"),
                                                    rig::to_experiment(setup, with_payload, "payload", cfg.payload)};
    const oe_ident::IdentificationResult r =
        oe_ident::identify(setup.model, setup.lambda, setup.experiment.outer, exps, cfg.options);
    std::cout << "truth " << truth_file << "\nidentify: " << r.iterations << " iterations, " << r.cpu_seconds
              << " CPU-s (user + sys), " << r.seconds << " s wall, " << r.identified_count << " of 67 identified, "
              << r.termination << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "bench_identify: " << e.what() << "\n";
    return 1;
  }
}
