#include "vcloe/sim/kinematics.hpp"
#include "vcloe/sim/safety.hpp"

#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>
#include <limits>
#include <sstream>

#include "vcloe/core/error.hpp"

namespace vcloe::sim {

namespace {

int sign_of(double x) { return (x > 0) - (x < 0); }

// Parallel singularity: J_a2 rows [l^T, (a x l)^T] (Li et al. 2019 §2.1, eq. 7) with l normalised
// and the moment part divided by the mean platform radius, so the ratio of singular values is
// unit-free. Neither scaling changes the sign of its determinant (positive factors of rows, of columns).
Mat6d normalised_closure(const RobotModel& model, const Kinematics<double>& k) {
  double radius = 0;
  for (const Leg& leg : model.legs) radius += leg.platform_joint.norm() / kLegs;
  Mat6d Ja2;
  for (int i = 0; i < kLegs; ++i) {
    const auto& g = k.geometry[i];
    const Vec3d lhat = g.l.normalized();
    Ja2.row(i) << lhat.transpose(), g.a.cross(lhat).transpose() / radius;
  }
  return Ja2;
}

}  // namespace

std::string PoseCheck::describe() const {
  std::ostringstream s;
  s.precision(4);
  switch (status) {
    case PoseStatus::Ok:
      return "ok";
    case PoseStatus::Unreachable:
      s << "leg " << leg + 1 << " cannot close (pose outside the workspace)";
      break;
    case PoseStatus::JointLimit:
      s << "joint " << leg + 1 << " at " << theta(leg) << " rad is outside the joint range";
      break;
    case PoseStatus::LegSingular:
      s << "leg " << leg + 1 << " near a serial singularity (transmission " << min_transmission << ")";
      break;
    case PoseStatus::ParallelSingular:
      s << "near a parallel singularity (J_a2 conditioning " << parallel_conditioning << ")";
      break;
    case PoseStatus::OtherAssemblyMode:
      s << "in another assembly mode than the home pose (det J_a2 of the other sign: the platform on the far side "
           "of a parallel singularity, e.g. mirrored through the base plane)";
      break;
  }
  return s.str();
}

PoseCheck check_pose(const RobotModel& model, const Vec6d& chi) {
  PoseCheck c;
  Kinematics<double> k;
  int failing = -1;
  if (!compute_geometry<double>(model, chi, k, &failing)) {
    c.status = PoseStatus::Unreachable;
    c.leg = failing;
    return c;
  }
  c.theta = k.theta();
  // Joint range (Li et al. 2019 §3.3).
  for (int i = 0; i < kLegs; ++i) {
    if (std::abs(c.theta(i)) > model.joint_limit) {
      c.status = PoseStatus::JointLimit;
      c.leg = i;
      return c;
    }
  }
  // Serial (leg) singularity: J_a1 = diag((w x l).s) loses rank when crank and link align in
  // the plane normal to s. Transmission index = |sin| of their angle, in [0, 1].
  c.min_transmission = 1.0;
  int worst_leg = 0;
  for (int i = 0; i < kLegs; ++i) {
    const auto& g = k.geometry[i];
    const Vec3d w_perp = g.w - g.w.dot(g.s) * g.s;
    const double t = std::abs(g.m) / (w_perp.norm() * g.l.norm());
    if (t < c.min_transmission) {
      c.min_transmission = t;
      worst_leg = i;
    }
  }
  const Mat6d Ja2 = normalised_closure(model, k);
  const Eigen::JacobiSVD<Mat6d> svd(Ja2);
  c.parallel_conditioning = svd.singularValues()(5) / svd.singularValues()(0);
  if (c.min_transmission < model.min_transmission) {
    c.status = PoseStatus::LegSingular;
    c.leg = worst_leg;
  } else if (c.parallel_conditioning < model.min_parallel_conditioning) {
    c.status = PoseStatus::ParallelSingular;
  } else if (sign_of(Ja2.determinant()) != assembly_mode(model, model.home)) {
    c.status = PoseStatus::OtherAssemblyMode;
  }
  return c;
}

int assembly_mode(const RobotModel& model, const Vec6d& chi) {
  Kinematics<double> k;
  if (!compute_geometry<double>(model, chi, k)) return 0;
  return sign_of(normalised_closure(model, k).determinant());
}

RobotModel safety_envelope(const RobotModel& model, double joint_range_margin, double margin_scale) {
  RobotModel e = model;
  e.joint_limit += joint_range_margin;
  e.min_transmission *= margin_scale;
  e.min_parallel_conditioning *= margin_scale;
  return e;
}

ForwardKinematicsResult forward_kinematics(const RobotModel& model, const Vec6d& theta, const Vec6d& guess,
                                           double tolerance, int max_iterations) {
  // Newton on f(chi) = IK(chi) - theta with df/dchi = J_theta (eq. 29), with step halving
  // whenever a full step leaves the workspace or does not reduce |f|.
  ForwardKinematicsResult r;
  r.chi = guess;
  auto residual = [&](const Vec6d& chi, Kinematics<double>& k, Vec6d& f) {
    if (!compute_kinematics<double>(model, chi, Vec6d::Zero(), k)) return false;
    f = k.theta() - theta;
    for (int i = 0; i < kLegs; ++i) f(i) = detail::wrap_angle(f(i));
    return true;
  };
  Kinematics<double> k;
  Vec6d f;
  if (!residual(r.chi, k, f)) return r;
  for (r.iterations = 0; r.iterations < max_iterations; ++r.iterations) {
    r.residual = f.cwiseAbs().maxCoeff();
    if (r.residual <= tolerance) {
      r.converged = true;
      return r;
    }
    const Vec6d step = J_theta<double>(k, r.chi).partialPivLu().solve(f);
    double scale = 1.0;
    for (; scale > 1e-4; scale *= 0.5) {
      Kinematics<double> k_try;
      Vec6d f_try;
      const Vec6d chi_try = r.chi - scale * step;
      if (residual(chi_try, k_try, f_try) && f_try.norm() < f.norm()) {
        r.chi = chi_try;
        k = k_try;
        f = f_try;
        break;
      }
    }
    if (scale <= 1e-4) return r;  // no descent: a singular configuration or no solution nearby
  }
  r.residual = f.cwiseAbs().maxCoeff();
  r.converged = r.residual <= tolerance;
  return r;
}

bool pose_at_encoders(const RobotModel& model, const Vec6d& encoders, Vec6d& chi) {
  const Vec6d theta = encoders - encoder_offsets(model);
  Vec6d theta_now;
  if (!inverse_kinematics<double>(model, chi, theta_now)) return false;
  if ((theta - theta_now).cwiseAbs().maxCoeff() <= 1e-12) return true;  // it stands there already
  const ForwardKinematicsResult fk = forward_kinematics(model, theta, chi);
  if (fk.converged) chi = fk.chi;
  return fk.converged;
}

Vec6d platform_pose_of_marker(const RobotModel& model, const Vec6d& marker) {
  if (model.marker_frame == Vec6d::Zero()) return marker;
  return (Rigid<double>::of(marker) * Rigid<double>::of(model.marker_frame).inverse()).pose();
}

bool encoders_at_marker(const RobotModel& model, const Vec6d& marker, Vec6d& encoders) {
  Vec6d theta;
  if (!inverse_kinematics<double>(model, platform_pose_of_marker(model, marker), theta)) return false;
  const Vec6d offsets = encoder_offsets(model);
  encoders = offsets == Vec6d::Zero() ? theta : Vec6d(theta + offsets);
  return true;
}

PoseCheck check_encoders(const RobotModel& model, const Vec6d& encoders, Vec6d& chi) {
  PoseCheck c;
  c.theta = encoders - encoder_offsets(model);
  // More than kFarTurns turns beyond the joint range (an encoder count or micro-radians typed as
  // rad): no drive reads that, and FK is not looked for at all (NaN pose, the joint range told).
  const double far = model.joint_limit + kFarTurns * 2 * M_PI;
  bool beyond = false;
  for (int i = 0; i < kLegs; ++i) beyond = beyond || !(std::abs(c.theta(i)) <= far);
  if (beyond || !pose_at_encoders(model, encoders, chi)) chi.setConstant(std::numeric_limits<double>::quiet_NaN());
  for (int i = 0; i < kLegs; ++i)
    if (!(std::abs(c.theta(i)) <= model.joint_limit)) {
      c.status = PoseStatus::JointLimit;
      c.leg = i;
      return c;
    }
  if (!chi.allFinite()) {
    c.status = PoseStatus::Unreachable;
    return c;
  }
  return check_pose(model, chi);
}

std::string joint_range_problem(const RobotModel& model, const Vec6d& encoders, const PoseCheck& c,
                                const std::string& limits_of) {
  if (c.status != PoseStatus::JointLimit) return "";
  const int i = c.leg;
  return "joint " + std::to_string(i + 1) + " at " + exact_number(encoders(i)) + " rad is outside the joint range +-" +
         exact_number(model.joint_limit) + " rad" + (c.theta(i) != encoders(i) ? " less its encoder_offset" : "") +
         " (limits.joint of " + limits_of + ")";
}

}  // namespace vcloe::sim
