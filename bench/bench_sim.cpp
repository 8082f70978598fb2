// Benchmarks of the analytic model (sim/): IK, inverse dynamics, regressor, forward dynamics
// and one RK4 plant step, on the default robot at a representative moving state.
#include <benchmark/benchmark.h>

#include "vcloe/hw/mujoco_model.hpp"
#include "vcloe/sim/dynamics_direct.hpp"
#include "vcloe/sim/plant.hpp"

using namespace vcloe;
using namespace vcloe::sim;

namespace {
const RobotFile& robot_file() {
  static const RobotFile f = load_robot(std::string(VCLOE_SOURCE_DIR) + "/config/robot.yaml");
  return f;
}
const RobotModel& robot() { return robot_file().model; }
XiVector<double> priors_xi() { return robot_file().lambda.head<kNumXi>(); }
Vec6d pose() { return robot().home + (Vec6d() << 0.01, -0.008, 0.005, 0.03, -0.02, 0.05).finished(); }
Vec6d twist() { return (Vec6d() << 0.05, 0.02, -0.03, 0.2, -0.1, 0.3).finished(); }
Vec6d accel() { return (Vec6d() << 0.5, -0.2, 0.3, 1.0, 2.0, -1.5).finished(); }
}  // namespace

static void BM_InverseKinematics(benchmark::State& state) {
  Vec6d theta;
  const Vec6d chi = pose();
  for (auto _ : state) {
    benchmark::DoNotOptimize(inverse_kinematics<double>(robot(), chi, theta));
    benchmark::DoNotOptimize(theta);
  }
}
BENCHMARK(BM_InverseKinematics);

static void BM_Kinematics(benchmark::State& state) {
  Kinematics<double> k;
  for (auto _ : state) benchmark::DoNotOptimize(compute_kinematics<double>(robot(), pose(), twist(), k));
}
BENCHMARK(BM_Kinematics);

static void BM_InverseDynamics(benchmark::State& state) {
  const XiVector<double> xi = priors_xi();
  Vec6d tau;
  for (auto _ : state) {
    benchmark::DoNotOptimize(inverse_dynamics<double>(robot(), pose(), twist(), accel(), xi, tau));
    benchmark::DoNotOptimize(tau);
  }
}
BENCHMARK(BM_InverseDynamics);

static void BM_InverseDynamicsDirect(benchmark::State& state) {
  const XiVector<double> xi = priors_xi();
  Vec6d tau;
  for (auto _ : state) {
    benchmark::DoNotOptimize(inverse_dynamics_direct<double>(robot(), pose(), twist(), accel(), xi, tau));
    benchmark::DoNotOptimize(tau);
  }
}
BENCHMARK(BM_InverseDynamicsDirect);

static void BM_Regressor(benchmark::State& state) {
  Regressor<double> Gamma;
  for (auto _ : state) {
    benchmark::DoNotOptimize(regressor<double>(robot(), pose(), twist(), accel(), Gamma));
    benchmark::DoNotOptimize(Gamma);
  }
}
BENCHMARK(BM_Regressor);

static void BM_ForwardDynamics(benchmark::State& state) {
  const XiVector<double> xi = priors_xi();
  const Vec6d tau_a = (Vec6d() << 1, -2, 0.5, 3, -1, 2).finished();
  Vec6d a;
  for (auto _ : state) {
    benchmark::DoNotOptimize(forward_dynamics<double>(robot(), pose(), twist(), tau_a, xi, a));
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_ForwardDynamics);

static void BM_PlantRk4Step(benchmark::State& state) {
  const XiVector<double> xi = priors_xi();
  const Vec6d tau_a = (Vec6d() << 1, -2, 0.5, 3, -1, 2).finished();
  PlantState<double> x0 = make_state<double>(pose(), twist());
  for (auto _ : state) {
    PlantState<double> x = x0;
    benchmark::DoNotOptimize(integrate_held<double>(robot(), xi, tau_a, 1e-3, 1, x));
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_PlantRk4Step);

// For scale: one MuJoCo step (RK4, 0.25 ms) of the same robot. The virtual robot needs four of
// them per millisecond where the twin takes one 1 ms RK4 step (BM_PlantRk4Step).
static void BM_MujocoStep(benchmark::State& state) {
  std::vector<std::string> notes;
  hw::MujocoRobot mujoco = hw::MujocoRobot::build(robot(), hw::engine_consistent(robot(), robot_file().lambda, notes));
  const Vec6d tau = (Vec6d() << 1, -2, 0.5, 3, -1, 2).finished();
  mujoco.set_state(pose(), twist());
  for (auto _ : state) benchmark::DoNotOptimize(mujoco.step(tau, 1));
}
BENCHMARK(BM_MujocoStep);

BENCHMARK_MAIN();
