// Benchmarks of the closed loop and the identification's Jacobian: the twin over the default
// 20 s experiment at 1 kHz (real-time factor = 20 s / time), the virtual robot (MuJoCo, the
// truth file) under the same loop and reference, and the forward sensitivities of all 67
// parameters over the same run (jacobian cost ratio = their time / the twin's).
#include <benchmark/benchmark.h>

#include "vcloe/excitation/fourier.hpp"
#include "vcloe/hw/virtual_robot.hpp"
#include "vcloe/oe_ident/sensitivity.hpp"

using namespace vcloe;

namespace {
const sim::RobotFile& robot_file() {
  static const sim::RobotFile f = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml");
  return f;
}
const sim::RobotModel& robot() { return robot_file().model; }
const sim::LambdaVector<double>& priors() { return robot_file().lambda; }
const servo::PreparedReference& reference() {
  static const servo::PreparedReference ref = [] {
    const auto tr = excitation::load_trajectory(std::string(VCLOE_SOURCE_DIR) + "/config/reference.yaml");
    return servo::prepare_reference(robot(), servo::LoopTiming{}, tr);
  }();
  return ref;
}
}  // namespace

static void BM_Twin20s(benchmark::State& state) {
  for (auto _ : state) {
    auto r = servo::simulate_twin<double>(robot(), priors(), reference(), servo::OuterGains{});
    benchmark::DoNotOptimize(r);
  }
  state.counters["realtime_factor"] = benchmark::Counter(20.0 * static_cast<double>(state.iterations()),
                                                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Twin20s)->Unit(benchmark::kMillisecond);

// The same run on the virtual robot: MuJoCo (RK4, 0.25 ms steps) with the drives' PID at 1 kHz,
// noise off. The goal: the twin at least 3x faster per simulated second.
static void BM_VirtualRobot20s(benchmark::State& state) {
  static const sim::RobotFile truth = sim::load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/truth.yaml", true);
  for (auto _ : state) {
    hw::VirtualRobot robot(truth.model, truth.lambda, reference().start_pose, {});
    servo::VisualServo<double> outer(reference(), servo::OuterGains{});
    servo::ExactPose camera;
    auto r = servo::run_loop<double>(robot, outer, camera);
    if (!r.ok) state.SkipWithError(r.failure.c_str());
    benchmark::DoNotOptimize(r);
  }
  state.counters["realtime_factor"] = benchmark::Counter(20.0 * static_cast<double>(state.iterations()),
                                                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_VirtualRobot20s)->Unit(benchmark::kMillisecond)->Iterations(2);

static void BM_Sensitivity67x20s(benchmark::State& state) {
  const Eigen::MatrixXd P = Eigen::MatrixXd::Identity(sim::kNumLambda, sim::kNumLambda);
  for (auto _ : state) {
    auto r = oe_ident::simulate_twin_sensitivity(robot(), priors(), reference(), servo::OuterGains{}, P);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_Sensitivity67x20s)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
