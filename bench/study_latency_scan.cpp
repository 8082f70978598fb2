// The output error of a model as a function of the latency offset (docs/identification.md,
// "Latency offset"): the weighted cost 0.5 sum (r / sigma)^2 of measured - twin over the traces,
// the twin of MODEL under the controller of CONTROLLER, its camera at each offset of a grid —
// where the fit's one coordinate can be trapped (a cost not convex in the offset).
//
//   build/bench/study_latency_scan MODEL CONTROLLER MEASURED [PAYLOAD_TRACE] [--from MS --to MS --step MS --horizon SHARE]
#include <glog/logging.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "vcloe/oe_ident/config.hpp"
#include "vcloe/rig/setup.hpp"

using namespace vcloe;

int main(int argc, char** argv) {
  FLAGS_minloglevel = 3;
  try {
    std::vector<std::string> pos;
    double from = -5, to = 5, step = 0.25, horizon = 1;
    for (int i = 1; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--from") && i + 1 < argc) from = std::stod(argv[++i]);
      else if (!std::strcmp(argv[i], "--to") && i + 1 < argc) to = std::stod(argv[++i]);
      else if (!std::strcmp(argv[i], "--step") && i + 1 < argc) step = std::stod(argv[++i]);
      else if (!std::strcmp(argv[i], "--horizon") && i + 1 < argc) horizon = std::stod(argv[++i]);
      else pos.push_back(argv[i]);
    }
    if (pos.size() < 3) throw std::runtime_error("usage: MODEL CONTROLLER MEASURED [PAYLOAD_TRACE]");
    const std::string src = VCLOE_SOURCE_DIR;
    const rig::ExperimentSetup s =
        rig::load_setup(pos[0], src + "/config/experiment.yaml", src + "/config/excitation-default.yaml", pos[1]);
    const oe_ident::IdentificationConfig cfg = oe_ident::load_identification_config(src + "/config/identify.yaml");
    std::vector<oe_ident::Experiment> exps = {rig::to_experiment(s, read_trace(pos[2]), pos[2])};
    if (pos.size() > 3) exps.push_back(rig::to_experiment(s, read_trace(pos[3]), pos[3], cfg.payload));
    for (auto& e : exps) e = oe_ident::prefix_of(e, horizon);  // the first `horizon` share of each record
    std::printf("offset_ms cost  rms per experiment (x y z mm, a b g mrad)\n");
    for (double ms = from; ms <= to + 1e-9; ms += step) {
      double cost = 0;
      std::string rms;
      for (const auto& e : exps) {
        const auto r = oe_ident::rms_error(s.model, s.lambda, s.experiment.outer, e, "scan", 1e-3 * ms);
        const double n = static_cast<double>(e.measured.size());
        for (int c = 0; c < 6; ++c) {
          const double sig = cfg.options.sigma(c) * (c < 3 ? 1e3 : 1e3);
          cost += 0.5 * n * (r[static_cast<std::size_t>(c)] / sig) * (r[static_cast<std::size_t>(c)] / sig);
          char b[32];
          std::snprintf(b, sizeof b, " %.4f", r[static_cast<std::size_t>(c)]);
          rms += b;
        }
        rms += " |";
      }
      std::printf("%+.3f %.6g %s\n", ms, cost, rms.c_str());
      std::fflush(stdout);
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "study_latency_scan: " << e.what() << "\n";
    return 1;
  }
}
