// The drives' loop as a model sees it, and its inverse (drives_model.hpp).
#include "vcloe/control/drives_model.hpp"

#include <algorithm>

#include "vcloe/control/precorrect.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/sim/dynamics.hpp"

namespace vcloe::control {

DrivesModel drives_model(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                         const servo::PreparedReference& reference) {
  DrivesModel d;
  d.gains = servo::drive_gains<double>(lambda);
  d.controller_period = reference.clock.timing.controller_period();
  check_drives_invertible(d.gains, d.controller_period, "learning's model");
  d.ticks_per_frame = reference.clock.timing.ticks_per_frame();
  const sim::XiVector<double> xi = lambda.head<sim::kNumXi>();
  for (int i = 0; i < sim::kLegs; ++i) d.viscous(i) = xi(sim::viscous_index(i));
  d.inertia.reserve(reference.reference_at_exposure.size());
  for (std::size_t j = 0; j < reference.reference_at_exposure.size(); ++j) {
    sim::Kinematics<double> k;
    const Vec6d chi = sim::platform_pose_of_marker(model, reference.reference_at_exposure[j]);  // E under the marker
    if (!sim::compute_kinematics<double>(model, chi, Vec6d::Zero(), k))
      fail("learning's model", "the reference's pose at frame " + std::to_string(j) + " is not reachable");
    sim::DynamicsTerms<double> terms;
    sim::compute_dynamics_terms<double>(model, k, Vec6d::Zero(), xi, terms);
    // tau_a = J_ad^-T M v_dot with v_dot = J_ad^-1 theta_ddot (eqs. 8, 23; the rates' J_ad_dot term
    // is second order in the change).
    const Mat6d inv = k.J_ad().inverse();
    d.inertia.push_back(inv.transpose() * terms.M * inv);
  }
  if (d.inertia.empty()) fail("learning's model", "the reference has no frame");
  return d;
}

namespace {

// The second difference of x at tick k, from the interior: at either end that of its neighbour
// (a smooth change extended smoothly; a one-sided second difference would read the end's slope as
// an acceleration impulse and ask the drives for a jump).
Vec6d second_difference(const std::vector<Vec6d>& x, std::size_t k) {
  if (x.size() < 3) return Vec6d::Zero();
  const std::size_t c = std::clamp<std::size_t>(k, 1, x.size() - 2);
  return x[c + 1] - 2 * x[c] + x[c - 1];
}

}  // namespace

std::vector<Vec6d> invert_drives(const DrivesModel& d, const std::vector<Vec6d>& x) {
  const std::size_t n = x.size();
  const double Tc = d.controller_period;
  InverseDrives inverse(d.gains, Tc, Vec6d::Zero());
  std::vector<Vec6d> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    // Central differences inside, one-sided at the ends.
    const std::size_t lo = k > 0 ? k - 1 : k, hi = k + 1 < n ? k + 1 : k;
    const Vec6d rate = hi > lo ? Vec6d((x[hi] - x[lo]) / (static_cast<double>(hi - lo) * Tc)) : Vec6d::Zero();
    const Vec6d accel = second_difference(x, k) / (Tc * Tc);
    const Mat6d& m = d.inertia[std::min(k / static_cast<std::size_t>(d.ticks_per_frame), d.inertia.size() - 1)];
    out[k] = inverse.command(m * accel + d.viscous.cwiseProduct(rate), x[k]);
  }
  return out;
}

std::complex<double> drives_response(const DrivesModel& d, std::size_t frame, int joint, double omega) {
  const std::complex<double> s(0, omega);
  const double m = d.inertia[std::min(frame, d.inertia.size() - 1)](joint, joint), b = d.viscous(joint);
  const std::complex<double> pid = d.gains.ld * s * s + d.gains.lp * s + d.gains.li;
  return pid / (m * s * s * s + b * s * s + pid);
}

}  // namespace vcloe::control
