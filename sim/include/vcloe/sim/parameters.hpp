#pragma once
// vcloe/sim/parameters.hpp — the parameter registry: the only place that knows the order.
//
// Xi (67, Li et al. 2019 eq. 25): per body [m, Ix, Iy, Iz] for the platform, wrenches 1-6, links 1-6,
// then Coulomb fc1-6 and viscous fv1-6 joint friction, then the platform's first moments
// [mx, my, mz] = m c (kg*m; c its centre of mass in E). Lambda (70, eq. 32) appends the inner
// joint PID gains lp, li, ld. A crank's or link's moments are principal moments at its centre of
// mass in its body frame; the platform's are about E along E's axes, the reference point of its
// first moments (the standard parameters, linear in the dynamics: Mata et al. 2008 §2) — with
// c = 0, E is the centre of mass (docs/design.md §3; frames in docs/model.md).
#include <Eigen/Core>
#include <string>
#include <string_view>
#include <vector>

namespace vcloe::sim {

inline constexpr int kLegs = 6;
inline constexpr int kNumXi = 67;
inline constexpr int kNumLambda = 70;

template <typename T> using XiVector = Eigen::Matrix<T, kNumXi, 1>;
template <typename T> using LambdaVector = Eigen::Matrix<T, kNumLambda, 1>;

enum class BodyKind { Platform, Wrench, Link };
enum class ParameterKind { Mass, Inertia, Coulomb, Viscous, GainP, GainI, GainD, FirstMoment };

// Index arithmetic, k = 0 (m), 1 (Ix), 2 (Iy), 3 (Iz); leg = 0..5.
constexpr int platform_index(int k) { return k; }
constexpr int wrench_index(int leg, int k) { return 4 + 4 * leg + k; }
constexpr int link_index(int leg, int k) { return 28 + 4 * leg + k; }
constexpr int coulomb_index(int leg) { return 52 + leg; }
constexpr int viscous_index(int leg) { return 58 + leg; }
constexpr int first_moment_index(int k) { return 64 + k; }  // k = 0, 1, 2: m c_x, m c_y, m c_z
inline constexpr int kGainP = 67, kGainI = 68, kGainD = 69;

struct ParameterInfo {
  std::string name;   // "m_p", "Ix_w3", "fc2", "lp", ...
  std::string unit;   // SI: "kg", "kg*m^2", "kg*m", "N*m", "N*m*s/rad", "N*m/rad", "N*m/(rad*s)"
  ParameterKind kind;
  BodyKind body = BodyKind::Platform;  // meaningful for Mass/Inertia
  int leg = -1;                        // 0..5 for wrench, link and friction entries
  std::string description;
};

// All 70 entries of Lambda, in order.
const std::vector<ParameterInfo>& parameter_registry();
// Index of a name, or -1.
int parameter_index(std::string_view name);

}  // namespace vcloe::sim
