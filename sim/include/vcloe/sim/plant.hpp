#pragma once
// vcloe/sim/plant.hpp — the rigid robot as a continuous plant x = [chi; v_E] driven by joint
// torques tau_a, integrated with Boost.Odeint's fixed-step RK4 (docs/design.md §5).
//
//   chi_dot = blkdiag(I, J_e^-1) v_E,   v_E_dot = forward dynamics (eq. 40)
//
// Fixed steps keep the output a smooth function of the parameters (adaptive steps do not).
// A state that leaves the workspace or turns non-finite is reported, never propagated.
#include <boost/numeric/odeint/algebra/vector_space_algebra.hpp>
#include <boost/numeric/odeint/external/eigen/eigen_algebra.hpp>
#include <boost/numeric/odeint/external/eigen/eigen_resize.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta4.hpp>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "vcloe/sim/dynamics.hpp"

namespace vcloe::sim {

template <typename T> using PlantState = Eigen::Matrix<T, 12, 1>;

template <typename T>
PlantState<T> make_state(const Vec6<T>& chi, const Vec6<T>& v) {
  PlantState<T> x;
  x << chi, v;
  return x;
}

// x_dot for held torques. Returns false if chi is unreachable or the result non-finite.
template <typename T>
bool plant_derivative(const RobotModel& model, const XiVector<T>& xi, const PlantState<T>& x,
                      const Vec6<T>& tau_a, PlantState<T>& x_dot) {
  const Vec6<T> chi = x.template head<6>();
  const Vec6<T> v = x.template tail<6>();
  Kinematics<T> k;
  if (!compute_kinematics<T>(model, chi, v, k)) return false;
  x_dot.template segment<3>(0) = v.template head<3>();
  x_dot.template segment<3>(3) =
      euler_rate_jacobian<T>(chi(3), chi(4)).inverse() * v.template tail<3>();  // eq. (2)
  x_dot.template tail<6>() = forward_dynamics<T>(model, k, v, tau_a, xi);
  using std::isfinite;
  for (int i = 0; i < 12; ++i)
    if (!isfinite(x_dot(i))) return false;
  return true;
}

// The one fixed-step integrator of the project: classic RK4 steps of length h (Boost.Odeint's
// runge_kutta4) of an autonomous system(x, dx_dt, t), which is evaluated at the four stages in
// order (t = 0, h/2, h/2, h). The state is any Eigen vector or matrix: the plant's 12-vector,
// or the 12 x q sensitivity matrix of the variational equation (oe_ident). Keeping one Rk4
// keeps the stepper's stage buffers between steps.
template <typename State>
class Rk4 {
 public:
  template <typename System>
  void step(System&& system, State& x, double h) {
    stepper_.do_step(system, x, 0.0, h);
  }

 private:
  // Coefficients and time stay double (a Jet only rides in the state).
  boost::numeric::odeint::runge_kutta4<State, double, State, double, boost::numeric::odeint::vector_space_algebra>
      stepper_;
};

// What evaluates x_dot at a stage in place of plant_derivative, with its contract (false where
// the plant leaves its domain or x_dot is not finite). The forward sensitivities (oe_ident)
// linearise each stage as the nominal run reaches it and hand back the f of that linearisation:
// the kinematics, M and its factorisation are then computed once per stage, not twice.
template <typename T>
using StageDerivative = std::function<bool(const PlantState<T>& x, const Vec6<T>& tau_a, PlantState<T>& x_dot)>;

// Advances x by `substeps` RK4 steps of dt each with tau_a held (zero-order hold). If `stages`
// is given, the states at which the plant was evaluated are appended to it (4 per step).
// Returns false, leaving x at the last good state, if the plant leaves its domain; `failed_at`
// (if given) then receives the state at which it did (describe_plant_failure says why).
// `derivative`, if given and set, replaces plant_derivative.
template <typename T>
bool integrate_held(const RobotModel& model, const XiVector<T>& xi, const Vec6<T>& tau_a, double dt, int substeps,
                    PlantState<T>& x, std::vector<PlantState<T>>* stages = nullptr,
                    PlantState<T>* failed_at = nullptr, const StageDerivative<T>* derivative = nullptr) {
  bool ok = true;
  const bool replaced = derivative != nullptr && *derivative;
  auto system = [&](const PlantState<T>& s, PlantState<T>& ds, double /*t*/) {
    if (stages) stages->push_back(s);
    if (!ok || !(replaced ? (*derivative)(s, tau_a, ds) : plant_derivative<T>(model, xi, s, tau_a, ds))) {
      if (ok && failed_at) *failed_at = s;
      ok = false;
      ds.setZero();
    }
  };
  Rk4<PlantState<T>> rk4;
  for (int n = 0; n < substeps; ++n) {
    PlantState<T> next = x;
    rk4.step(system, next, dt);
    if (!ok) return false;
    x = next;
  }
  return true;
}

// Why the plant failed at state x under the held torques tau (both as plain numbers): which
// leg could not close, or which quantity turned non-finite, at which pose and speed, under
// which largest drive torque — for the user ("leg 3 cannot close at x 12.1 y ... mm ...").
std::string describe_plant_failure(const RobotModel& model, const PlantState<double>& x, const Vec6d& tau);

// The value of a scalar that may be a ceres::Jet (its real part), for messages.
template <typename T>
double scalar_value(const T& x) {
  if constexpr (std::is_arithmetic_v<T>) return x;
  else return x.a;
}

}  // namespace vcloe::sim
