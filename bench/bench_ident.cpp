// Benchmarks of the closed loop and the identification's Jacobian: the twin over the default
// 20 s experiment at 1 kHz (real-time factor = 20 s / time) and the forward sensitivities of
// all 67 parameters over the same run (jacobian cost ratio = their time / the twin's).
#include <benchmark/benchmark.h>

#include "vcloe/excitation/fourier.hpp"
#include "vcloe/oe_ident/sensitivity.hpp"

using namespace vcloe;

namespace {
const sim::RobotModel& robot() {
  static const sim::RobotModel m = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml");
  return m;
}
const servo::PreparedReference& reference() {
  static const servo::PreparedReference ref = [] {
    const auto tr = excitation::load_trajectory(std::string(VCLOE_SOURCE_DIR) + "/config/reference.yaml");
    return servo::prepare_reference(robot(), servo::LoopTiming{}, tr.duration, [&](double t) {
      const auto s = tr.sample(t);
      return servo::ReferenceSample{s.chi, s.chi_dot};
    });
  }();
  return ref;
}
}  // namespace

static void BM_Twin20s(benchmark::State& state) {
  for (auto _ : state) {
    auto r = servo::simulate_twin<double>(robot(), robot().lambda, reference(), servo::OuterGains{});
    benchmark::DoNotOptimize(r);
  }
  state.counters["realtime_factor"] = benchmark::Counter(20.0 * static_cast<double>(state.iterations()),
                                                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Twin20s)->Unit(benchmark::kMillisecond);

static void BM_Sensitivity67x20s(benchmark::State& state) {
  const Eigen::MatrixXd P = Eigen::MatrixXd::Identity(sim::kNumLambda, sim::kNumLambda);
  for (auto _ : state) {
    auto r = oe_ident::simulate_twin_sensitivity(robot(), robot().lambda, reference(), servo::OuterGains{}, P);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_Sensitivity67x20s)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
