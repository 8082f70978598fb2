#include "vcloe/excitation/fourier.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <optional>
#include <random>
#include <sstream>

#include <Eigen/LU>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/sim/kinematics.hpp"

namespace vcloe::excitation {

namespace {
const char* const kAxes[6] = {"x", "y", "z", "alpha", "beta", "gamma"};
}  // namespace

TrajectorySample FourierTrajectory::sample(double t) const {
  TrajectorySample out;
  out.t = t;
  out.chi = offset;
  out.chi_dot.setZero();
  out.chi_ddot.setZero();
  for (int l = 1; l <= harmonics(); ++l) {
    const double w = kTwoPi * f0 * l;  // eq. (37)
    const double sn = std::sin(w * t), cs = std::cos(w * t);
    const auto sl = s.col(l - 1), cl = c.col(l - 1);
    out.chi += (sn * sl - cs * cl) / w;
    out.chi_dot += cs * sl + sn * cl;
    out.chi_ddot += w * (-sn * sl + cs * cl);
  }
  out.v = twist_from_pose_rate<double>(out.chi, out.chi_dot);               // eq. (2)
  out.v_dot = twist_rate_from_pose<double>(out.chi, out.chi_dot, out.chi_ddot);  // eq. (38)
  return out;
}

std::optional<SettingProblem> MotionLimits::problem() const {
  // "<key>: expected ..., got ...".
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  // Positive, and within what a robot's joints and a check of its motion have (session 22's
  // probe: a limit of 1e300 is a typo, not "no limit"): a second between checks resolves no motion
  // of a robot, 1000 rad/s is beyond a drive's motor before its gearbox (about 10^4 rpm).
  auto positive = [&](const char* name, double x, double most, const char* unit) -> std::optional<SettingProblem> {
    if (std::isfinite(x) && x > 0 && x <= most) return std::nullopt;
    return bad(name, std::string("expected a positive limit of at most ") + exact_number(most) + " " + unit + ", got " +
                         exact_number(x));
  };
  std::optional<SettingProblem> p = positive("sample_period", sample_period, 1.0, "s");
  if (!p) p = positive("max_joint_velocity", max_joint_velocity, 1e3, "rad/s");
  if (!p) p = positive("max_joint_acceleration", max_joint_acceleration, 1e6, "rad/s^2");
  if (!p) p = positive("max_joint_error_gain", max_joint_error_gain, 1e6, "rad/rad");
  if (!p && !(min_transmission >= 0 && min_transmission < 1))
    p = bad("min_transmission", "expected a margin in [0, 1), got " + exact_number(min_transmission));
  if (!p && !(min_parallel_conditioning >= 0 && min_parallel_conditioning < 1))
    p = bad("min_parallel_conditioning", "expected a margin in [0, 1), got " + exact_number(min_parallel_conditioning));
  return p;
}

void MotionLimits::validate(const std::string& where) const { throw_if(problem(), where); }

std::optional<SettingProblem> RandomTrajectoryOptions::problem() const {
  auto bad = [](const std::string& key, const std::string& what) { return SettingProblem{key, key + ": " + what}; };
  if (harmonics < 1 || harmonics > kMaxHarmonics)
    return bad("harmonics", "expected 1 to " + std::to_string(kMaxHarmonics) + ", got " + std::to_string(harmonics));
  if (!(duration >= kMinDuration && duration <= kMaxDuration))
    return bad("duration", "expected [" + exact_number(kMinDuration) + ", " + exact_number(kMaxDuration) + "] s, got " +
                               exact_number(duration));
  if (!(std::isfinite(f0) && f0 >= kMinF0))
    return bad("f0", "expected a fundamental frequency of at least one cycle a day (" + exact_number(kMinF0) +
                         " Hz), got " + exact_number(f0));
  // The fastest harmonic within what the samples of the limit check resolve (check_trajectory's
  // unresolved_harmonic), so that a feasible draw can exist at all.
  const double resolved = kResolvedCyclesPerSample / limits.sample_period;
  if (!(f0 * harmonics <= resolved) && limits.sample_period > 0)
    return bad("f0", "expected at most " + exact_number(resolved / harmonics) + " Hz: harmonic " +
                         std::to_string(harmonics) + " must be at most " + exact_number(resolved) + " Hz, what the " +
                         exact_number(limits.sample_period) + " s samples of the limit check resolve, got " +
                         exact_number(f0));
  if (!(position_amplitude > 0 && position_amplitude <= 10))
    return bad("position_amplitude", "expected a position amplitude in (0, 10] m, got " + exact_number(position_amplitude));
  if (!(angle_amplitude > 0 && angle_amplitude <= M_PI))
    return bad("angle_amplitude", "expected an angle amplitude in (0, pi] rad, got " + exact_number(angle_amplitude));
  if (start_at_rest && harmonics < 2)
    return bad("harmonics", "a reference that starts at rest needs at least 2 harmonics, got " + std::to_string(harmonics));
  return limits.problem();
}

void RandomTrajectoryOptions::validate(const std::string& where) const { throw_if(problem(), where); }

namespace {

// The magnitudes a pose and its rates have on a parallel robot (docs/trajectory-file.md), each
// value at its own key ("axes.x.s[0]", "offset[3]"): 1e308 is refused where it is written, not as
// the "velocity inf" or the "leg cannot close" it would become (session 22's probe, class 3).
std::optional<SettingProblem> magnitude_problem(const FourierTrajectory& tr) {
  for (int i = 0; i < 6; ++i) {
    const bool linear = i < 3;
    const double most_offset = linear ? kMaxOffsetPosition : kMaxOffsetAngle;
    if (!(std::abs(tr.offset(i)) <= most_offset))
      return SettingProblem{"offset[" + std::to_string(i) + "]",
                            "expected " + (linear ? "a position of at most " + exact_number(most_offset) + " m" : std::string("an angle of at most pi rad")) +
                                " in magnitude, got " + exact_number(tr.offset(i))};
    const double most = linear ? kMaxCoefficientLinear : kMaxCoefficientAngular;
    for (const auto& [name, m] : {std::pair<const char*, const Eigen::Matrix<double, 6, Eigen::Dynamic>*>{"s", &tr.s}, {"c", &tr.c}})
      for (Eigen::Index l = 0; l < m->cols(); ++l)
        if (!(std::abs((*m)(i, l)) <= most))
          return SettingProblem{std::string("axes.") + kAxes[i] + "." + name + "[" + std::to_string(l) + "]",
                                "expected a coefficient of at most " + exact_number(most) + (linear ? " m/s" : " rad/s") +
                                    " in magnitude, got " + exact_number((*m)(i, l))};
  }
  return std::nullopt;
}

}  // namespace

std::optional<SettingProblem> FourierTrajectory::problem() const {
  auto bad = [](const char* key, const std::string& message) { return SettingProblem{key, message}; };
  if (!(f0 >= kMinF0) || !std::isfinite(f0))
    return bad("f0", "fundamental frequency f0 must be at least one cycle a day (" + exact_number(kMinF0) + " Hz)");
  if (!(duration >= kMinDuration) || !std::isfinite(duration))
    return bad("duration", "duration must be at least " + exact_number(kMinDuration) + " s");
  if (duration > kMaxDuration)
    return bad("duration", "duration " + exact_number(duration) + " s is longer than the " +
                               exact_number(kMaxDuration) + " s (a day) a trajectory may last");
  if (harmonics() < 1) return bad("axes", "at least one harmonic is required");
  if (harmonics() > kMaxHarmonics)
    return bad("axes", std::to_string(harmonics()) + " harmonics: at most " + std::to_string(kMaxHarmonics));
  if (s.cols() != c.cols()) return bad("axes", "s and c must have the same number of harmonics");
  if (!s.allFinite() || !c.allFinite() || !offset.allFinite()) return bad("axes", "non-finite coefficient");
  return magnitude_problem(*this);
}

void FourierTrajectory::validate(const std::string& where) const { throw_if(problem(), where); }

static FourierTrajectory parse_document(const YamlDoc& doc) {
  const YamlNode root = doc.root();
  root.reject_unknown_keys({"f0", "duration", "offset", "axes", "notes"});
  FourierTrajectory tr;
  tr.f0 = root.get_double("f0");
  if (!(tr.f0 >= kMinF0))
    root.at("f0").fail("expected a fundamental frequency of at least one cycle a day (" + exact_number(kMinF0) +
                       " Hz), got " + exact_number(tr.f0));
  tr.duration = root.get_double("duration");
  if (!(tr.duration >= kMinDuration && tr.duration <= kMaxDuration))
    root.at("duration").fail("expected a duration in [" + exact_number(kMinDuration) + ", " + exact_number(kMaxDuration) +
                             "] s, got " + exact_number(tr.duration));
  tr.offset = root.get_vector("offset", 6);
  const YamlNode axes = root.at("axes");
  axes.reject_unknown_keys({"x", "y", "z", "alpha", "beta", "gamma"});
  int n = -1;
  for (int i = 0; i < 6; ++i) {
    const YamlNode a = axes.at(kAxes[i]);
    a.reject_unknown_keys({"s", "c"});
    const Eigen::VectorXd si = a.at("s").as_vector(n);
    if (n < 0) {
      n = static_cast<int>(si.size());
      if (n == 0) a.at("s").fail("at least one harmonic is required");
      tr.s.resize(6, n);
      tr.c.resize(6, n);
    }
    tr.s.row(i) = si.transpose();
    tr.c.row(i) = a.at("c").as_vector(n).transpose();
  }
  root.fail_if(tr.problem());  // every other bound of the struct, at its key in this file
  return tr;
}

FourierTrajectory load_trajectory(const std::string& file) { return parse_document(YamlDoc::load(file)); }

FourierTrajectory parse_trajectory(const std::string& yaml_text, const std::string& name) {
  return parse_document(YamlDoc::parse(yaml_text, name));
}

std::string trajectory_to_yaml(const FourierTrajectory& tr) {
  std::ostringstream o;
  const auto num = [](double x) { return exact_number(x); };
  o << "# vcloe pose-space Fourier trajectory, Li et al. 2019 eq. (37); format: docs/trajectory-file.md\n";
  o << "f0: " << num(tr.f0) << "          # fundamental frequency (Hz)\n";
  o << "duration: " << num(tr.duration) << "    # s\n";
  o << "offset: [";
  for (int i = 0; i < 6; ++i) o << (i ? ", " : "") << num(tr.offset(i));
  o << "]   # chi0 (m, rad)\n";
  o << "axes:   # s, c per harmonic l = 1..n (m/s for x, y, z; rad/s for alpha, beta, gamma)\n";
  for (int i = 0; i < 6; ++i) {
    o << "  " << kAxes[i] << ":\n";
    for (const char* which : {"s", "c"}) {
      const auto& M = which[0] == 's' ? tr.s : tr.c;
      o << "    " << which << ": [";
      for (int l = 0; l < tr.harmonics(); ++l) o << (l ? ", " : "") << num(M(i, l));
      o << "]\n";
    }
  }
  return o.str();
}

namespace {

// A failed check: when, which joint (-1: none in particular), why.
struct Failure {
  double t;
  int joint;
  std::string why;
};

FeasibilityReport failed(FeasibilityReport r, const Failure& f) {
  r.feasible = false;
  r.time = f.t;
  r.joint = f.joint;
  std::ostringstream s;
  s << std::setprecision(4) << f.why << " at t = " << f.t << " s";
  r.reason = s.str();
  return r;
}

void require_bounded_sample_count(const FourierTrajectory& tr, const MotionLimits& limits) {
  if (!(tr.duration / limits.sample_period <= 1e7))
    fail("trajectory", "its " + exact_number(tr.duration) + " s would need " +
                           exact_number(std::ceil(tr.duration / limits.sample_period)) + " limit checks at one every " +
                           exact_number(limits.sample_period) + " s (limits.sample_period); at most 10^7: up to " +
                           exact_number(1e7 * limits.sample_period) + " s at this period");
}

// A harmonic faster than the samples of the check resolve.
std::optional<Failure> unresolved_harmonic(const FourierTrajectory& tr, const MotionLimits& limits) {
  const double fastest = tr.f0 * tr.harmonics(), resolved = kResolvedCyclesPerSample / limits.sample_period;
  if (!(fastest > resolved)) return std::nullopt;
  std::ostringstream s;
  s << std::setprecision(4) << "harmonic " << tr.harmonics() << " at " << fastest << " Hz is faster than the "
    << limits.sample_period * 1e3 << " ms samples of this check resolve (at most " << resolved
    << " Hz): a peak could pass between samples";
  return Failure{0, -1, s.str()};
}

// The pose at t: reachable, within the joint range and the margins (recorded in r).
std::optional<Failure> check_pose_margins(const sim::RobotModel& model, const Vec6d& chi, double t,
                                          const MotionLimits& limits, FeasibilityReport& r) {
  const sim::PoseCheck pc = sim::check_pose(model, chi);
  if (pc.status == sim::PoseStatus::Unreachable || pc.status == sim::PoseStatus::JointLimit)
    return Failure{t, pc.leg, pc.describe()};
  if (pc.min_transmission < limits.min_transmission) {
    std::ostringstream s;
    s << std::setprecision(4) << "transmission " << pc.min_transmission << " below the trajectory margin "
      << limits.min_transmission;
    return Failure{t, -1, s.str()};
  }
  if (pc.parallel_conditioning < limits.min_parallel_conditioning) {
    std::ostringstream s;
    s << std::setprecision(4) << "J_a2 conditioning " << pc.parallel_conditioning << " below the trajectory margin "
      << limits.min_parallel_conditioning;
    return Failure{t, -1, s.str()};
  }
  r.min_transmission = std::min(r.min_transmission, pc.min_transmission);
  r.min_parallel_conditioning = std::min(r.min_parallel_conditioning, pc.parallel_conditioning);
  r.max_abs_theta = std::max(r.max_abs_theta, pc.theta.cwiseAbs().maxCoeff());
  if (!pc.ok()) return Failure{t, pc.leg, pc.describe()};
  return std::nullopt;
}

// How far a joint error moves the platform (recorded in r.joint_error), within the limit.
std::optional<Failure> check_joint_error_gain(const sim::RobotModel& model, const Mat6d& J_ad, double t,
                                              const MotionLimits& limits, FeasibilityReport& r) {
  // delta [h; phi] = J_ad^-1 delta theta (eq. 8 inverted); the pose passed the
  // singularity check, so J_ad is well conditioned here.
  const Mat6d pose_per_joint = J_ad.fullPivLu().inverse();
  for (int i = 0; i < sim::kLegs; ++i) {
    const double d = pose_per_joint.col(i).head<3>().norm(), a = pose_per_joint.col(i).tail<3>().norm();
    auto& g = r.joint_error;
    g.max_displacement = std::max(g.max_displacement, d);
    g.max_rotation = std::max(g.max_rotation, a);
    g.min_ratio = std::min(g.min_ratio, d / a);
    g.max_ratio = std::max(g.max_ratio, d / a);
    const double crank = model.legs[i].wrench.norm();
    if (a > limits.max_joint_error_gain || d / crank > limits.max_joint_error_gain) {
      std::ostringstream s;
      s << std::setprecision(3) << "near-singular geometry: 1 mrad at joint " << i + 1 << " turns the platform " << a
        << " mrad and moves it " << d << " mm, " << d / crank << " x the crank tip's motion (limit "
        << limits.max_joint_error_gain << " for each)";
      return Failure{t, i, s.str()};
    }
  }
  return std::nullopt;
}

// Joint velocities and accelerations (their peaks recorded in r) within the limits.
std::optional<Failure> check_joint_rates(const Vec6d& qd, const Vec6d& qdd, double t, const MotionLimits& limits,
                                         FeasibilityReport& r) {
  for (int i = 0; i < sim::kLegs; ++i) {
    r.max_abs_theta_dot = std::max(r.max_abs_theta_dot, std::abs(qd(i)));
    r.max_abs_theta_ddot = std::max(r.max_abs_theta_ddot, std::abs(qdd(i)));
    if (std::abs(qd(i)) > limits.max_joint_velocity) {
      std::ostringstream s;
      s << std::setprecision(4) << "joint " << i + 1 << " velocity " << qd(i) << " rad/s exceeds the limit "
        << limits.max_joint_velocity << " rad/s";
      return Failure{t, i, s.str()};
    }
    if (std::abs(qdd(i)) > limits.max_joint_acceleration) {
      std::ostringstream s;
      s << std::setprecision(4) << "joint " << i + 1 << " acceleration " << qdd(i) << " rad/s^2 exceeds the limit "
        << limits.max_joint_acceleration << " rad/s^2";
      return Failure{t, i, s.str()};
    }
  }
  return std::nullopt;
}

}  // namespace

FeasibilityReport check_feasibility(const sim::RobotModel& model, const FourierTrajectory& tr,
                                    const MotionLimits& limits) {
  tr.validate("trajectory");
  limits.validate("motion limits");
  require_bounded_sample_count(tr, limits);
  FeasibilityReport r;
  const int n = static_cast<int>(std::ceil(tr.duration / limits.sample_period - 1e-9));
  if (const auto f = unresolved_harmonic(tr, limits)) return failed(r, *f);
  for (int k = 0; k <= n; ++k) {
    const double t = std::min(k * limits.sample_period, tr.duration);
    const TrajectorySample smp = tr.sample(t);
    ++r.samples;
    if (const auto f = check_pose_margins(model, smp.chi, t, limits, r)) return failed(r, *f);
    // Joint rates: theta_dot = J_ad v, theta_ddot = J_ad v_dot + J_ad_dot v.
    sim::Kinematics<double> kin;
    sim::compute_kinematics<double>(model, smp.chi, smp.v, kin);
    const Vec6d qd = kin.J_ad() * smp.v;
    const Vec6d qdd = kin.J_ad() * smp.v_dot + kin.J_ad_dot() * smp.v;
    if (const auto f = check_joint_error_gain(model, kin.J_ad(), t, limits, r)) return failed(r, *f);
    if (const auto f = check_joint_rates(qd, qdd, t, limits, r)) return failed(r, *f);
  }
  return r;
}

namespace {

// chi_dot(0) = sum_l s_il and chi_ddot(0) = 2 pi f0 sum_l l c_il (eq. 37 at t = 0): each axis's
// s projected onto sum_l s_il = 0 and its c onto sum_l l c_il = 0 (x - a (a.x) / (a.a)).
void start_at_rest(FourierTrajectory& tr) {
  const int n = tr.harmonics();
  Eigen::RowVectorXd ones = Eigen::RowVectorXd::Ones(n), l = Eigen::RowVectorXd::LinSpaced(n, 1.0, n);
  for (int i = 0; i < 6; ++i) {
    tr.s.row(i) -= ones * (tr.s.row(i).dot(ones) / ones.squaredNorm());
    tr.c.row(i) -= l * (tr.c.row(i).dot(l) / l.squaredNorm());
  }
}

}  // namespace

FourierTrajectory random_feasible_trajectory(const sim::RobotModel& model, std::uint64_t seed,
                                             const RandomTrajectoryOptions& o) {
  o.validate("random trajectory");
  std::mt19937_64 rng(seed);
  // Uniform in [-1, 1] from raw bits, identical on every platform (no distribution objects).
  auto uniform = [&rng] { return 2.0 * (static_cast<double>(rng() >> 11) * 0x1.0p-53) - 1.0; };
  FourierTrajectory tr;
  tr.f0 = o.f0;
  tr.duration = o.duration;
  tr.offset = model.home;
  tr.s.resize(6, o.harmonics);
  tr.c.resize(6, o.harmonics);
  for (int i = 0; i < 6; ++i)
    for (int l = 0; l < o.harmonics; ++l) {
      tr.s(i, l) = uniform();
      tr.c(i, l) = uniform();
    }
  if (o.start_at_rest) start_at_rest(tr);
  // Scale each axis so that its largest excursion from chi0 equals the requested amplitude.
  const int n = 2000;
  Vec6d peak = Vec6d::Zero();
  for (int k = 0; k <= n; ++k) {
    const Vec6d d = tr.pose(k * (1.0 / o.f0) / n) - tr.offset;
    peak = peak.cwiseMax(d.cwiseAbs());
  }
  for (int i = 0; i < 6; ++i) {
    const double target = i < 3 ? o.position_amplitude : o.angle_amplitude;
    const double scale = target / std::max(peak(i), 1e-12);
    tr.s.row(i) *= scale;
    tr.c.row(i) *= scale;
  }
  std::string why;
  for (int attempt = 0; attempt < 40; ++attempt) {
    const FeasibilityReport r = check_feasibility(model, tr, o.limits);
    if (r.feasible) return tr;
    why = r.reason;
    tr.s *= 0.85;
    tr.c *= 0.85;
  }
  fail("random trajectory", "no feasible trajectory found for seed " + std::to_string(seed) +
                                " (amplitudes shrunk 40 times, to 0.15 % of the request; still " + why +
                                "): check the limits");
}

}  // namespace vcloe::excitation
