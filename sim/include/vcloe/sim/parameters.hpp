#pragma once
// vcloe/sim/parameters.hpp — the parameter registry: the only place that knows the order.
//
// Xi (64, Li et al. 2019 eq. 25): per body [m, Ix, Iy, Iz] for the platform, wrenches 1-6, links 1-6,
// then Coulomb fc1-6 and viscous fv1-6 joint friction. Lambda (67, eq. 32) appends the inner
// joint PID gains lp, li, ld. Inertias are principal moments at the body's centre of mass in
// its body frame (docs/design.md §3; frames in docs/model.md).
#include <Eigen/Core>
#include <string>
#include <string_view>
#include <vector>

namespace vcloe::sim {

inline constexpr int kLegs = 6;
inline constexpr int kNumXi = 64;
inline constexpr int kNumLambda = 67;

template <typename T> using XiVector = Eigen::Matrix<T, kNumXi, 1>;
template <typename T> using LambdaVector = Eigen::Matrix<T, kNumLambda, 1>;

enum class BodyKind { Platform, Wrench, Link };
enum class ParameterKind { Mass, Inertia, Coulomb, Viscous, GainP, GainI, GainD };

// Index arithmetic, k = 0 (m), 1 (Ix), 2 (Iy), 3 (Iz); leg = 0..5.
constexpr int platform_index(int k) { return k; }
constexpr int wrench_index(int leg, int k) { return 4 + 4 * leg + k; }
constexpr int link_index(int leg, int k) { return 28 + 4 * leg + k; }
constexpr int coulomb_index(int leg) { return 52 + leg; }
constexpr int viscous_index(int leg) { return 58 + leg; }
inline constexpr int kGainP = 64, kGainI = 65, kGainD = 66;

struct ParameterInfo {
  std::string name;   // "m_p", "Ix_w3", "fc2", "lp", ...
  std::string unit;   // SI: "kg", "kg*m^2", "N*m", "N*m*s/rad", "N*m/rad", "N*m/(rad*s)"
  ParameterKind kind;
  BodyKind body = BodyKind::Platform;  // meaningful for Mass/Inertia
  int leg = -1;                        // 0..5 for wrench, link and friction entries
  std::string description;
};

// All 67 entries of Lambda, in order.
const std::vector<ParameterInfo>& parameter_registry();
// Index of a name, or -1.
int parameter_index(std::string_view name);

}  // namespace vcloe::sim
