#include "vcloe/oe_ident/sensitivity.hpp"
#include "stage_linearization.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/sim/dynamics_direct.hpp"
#include "vcloe/servo/rigid_plant.hpp"
#include "vcloe/sim/plant.hpp"

#include <ceres/jet.h>

#include <atomic>
#include <thread>

#include <Eigen/SparseCore>

namespace vcloe::oe_ident {

namespace {

using Jet = ceres::Jet<double, 12>;
using Mat = Eigen::MatrixXd;

using detail::linearize;
using detail::StageLinearization;
using detail::xi_entries;
using detail::XiEntry;

// d pose_of_attached(chi, marker) / d chi: how the marker frame's pose moves with E's.
Mat6d marker_jacobian(const Vec6d& chi, const Vec6d& marker) {
  using Jet6 = ceres::Jet<double, 6>;
  Vec6<Jet6> x;
  for (int i = 0; i < 6; ++i) x(i) = Jet6(chi(i), i);
  const Vec6<Jet6> m = pose_of_attached<Jet6>(x, marker);
  Mat6d J;
  for (int i = 0; i < 6; ++i) J.row(i) = m(i).v.transpose();
  return J;
}

// What the sensitivity recursion needs from one controller tick of the nominal run (the loop's
// tick record, the modeled drives' last update and the plant's RK4 stages).
struct TickInput {
  int exposure = -1, update = -1;  // frame exposed / arriving at this tick
  bool inner_had_previous = false;
  Vec6d e, e_dot, integral, tau;   // inner PID error, its difference quotient, integral (eq. 31)
  std::vector<sim::PlantState<double>> stages;  // 4 per RK4 substep, stage 0 = the tick's state
};

// The forward sensitivity S = d x / d delta of the discrete closed loop, advanced chunk by chunk
// as the nominal loop runs: (2) linearise every RK4 stage of the chunk, independent of each
// other, on `threads` cores; (3) push S through the controllers, the hold and the RK4 map.
class SensitivityRecursion {
 public:
  SensitivityRecursion(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                       const servo::PreparedReference& ref, const servo::OuterGains& gains, const Mat& P,
                       int threads)
      : model_(model), ref_(ref), gains_(gains), q_(static_cast<int>(P.cols())), threads_(std::max(1, threads)),
        xi_(lambda.head<sim::kNumXi>()),  // constants: Xi directions use Gamma
        P_xi_(P.topRows(sim::kNumXi).sparseView()), xi_entries_(xi_entries(P)),
        P_lp_(P.row(sim::kGainP)), P_li_(P.row(sim::kGainI)), P_ld_(P.row(sim::kGainD)),
        g_(servo::drive_gains<double>(lambda)), marker_frame_(model.marker_frame) {
    for (Mat* m : {&S_x_, &S_int_, &S_prev_meas_, &S_U_, &S_I_, &S_U_prev_, &S_theta_prev_}) m->setZero(6, q_);
    S_x_.setZero(12, q_);
    ticks_.reserve(kChunk);
    read_at(0, nullptr, -1);
  }

  // Frame j is read at t_j - latency_offset (servo::ShiftedExposure), between the ticks around
  // it: its sensitivity is the same interpolation of S at those ticks. With offset_column >= 0
  // (P's column there zero), that column is d/d latency_offset: the explicit -d chi/dt of the
  // interpolation (the poses in `history`, the nominal run's) at the read, then the loop's.
  void read_at(double latency_offset, const servo::PoseHistory<double>* history, int offset_column) {
    const servo::TickClock& clock = ref_.clock;
    reads_.clear();
    for (int j = 0; j < clock.frames(); ++j)
      reads_.push_back(servo::interpolate_ticks(clock.time(clock.exposure_tick(j)) - latency_offset,
                                                clock.timing.controller_period(), clock.total_ticks));
    S_measured_.assign(reads_.size(), Mat());
    direct_done_.assign(reads_.size(), false);
    history_ = history;
    offset_column_ = offset_column;
  }

  // The drives start holding the robot at rest (servo::TwinRobot): I0 = tau_hold / li with
  // tau_hold = J_ad^-T Gamma(chi0, 0, 0) Xi (eqs. 23, 25), so dI0 = (J_ad^-T Gamma0 dXi - I0 dli) / li.
  // start_pose: where the twin stands (servo::twin_standing_pose), fixed by the geometry alone.
  bool start(const Vec6d& I0, const Vec6d& start_pose) {
    poses_.assign(1, start_pose);
    sim::Kinematics<double> k0;
    if (!sim::compute_kinematics<double>(model_, start_pose, Vec6d::Zero(), k0)) return false;
    sim::Regressor<double> Gamma0;
    sim::compute_regressor<double>(model_, k0, Vec6d::Zero(), Vec6d::Zero(), Gamma0);
    const Eigen::Matrix<double, 6, sim::kNumXi> H = k0.J_ad().transpose().partialPivLu().solve(Gamma0);
    if (g_.li != 0) S_I_ = (H * P_xi_ - I0 * P_li_) / g_.li;
    return true;
  }

  // On one core, each RK4 stage is linearised as the nominal run reaches it, and the plant takes
  // its x_dot from that linearisation (sim::StageDerivative): the same f to the bit (the same
  // kinematics, M, factorisation and solve as sim::plant_derivative), computed once per stage
  // instead of twice. On several cores the chunk's stages are linearised in parallel instead.
  void fuse_with(servo::RigidPlant<double>& plant) {
    if (threads_ > 1) return;
    fused_ = true;
    plant.record_stages(false);
    plant.set_stage_derivative([this](const sim::PlantState<double>& x, const Vec6d& tau, sim::PlantState<double>& f) {
      StageLinearization& L = slot(stage_++);
      if (!linearize(model_, xi_, xi_entries_, x, tau, L)) return false;
      f = L.f;
      return true;
    });
  }

  // The loop's observer: called after each tick of the nominal run.
  bool on_tick(const servo::TickRecord& t, const servo::TwinRobot<double>& twin) {
    TickInput& in = next_slot();
    in.exposure = t.exposed;
    in.update = t.arrived;
    const auto& pid = twin.drives().pid();
    in.inner_had_previous = !twin.drives().first_update();
    in.e = pid.e;
    in.e_dot = pid.e_dot;
    in.integral = pid.integral;
    in.tau = twin.drives().torque();
    if (!fused_) in.stages = twin.plant().stages();
    if (marker_frame_ != Vec6d::Zero()) poses_.push_back(twin.pose());
    return used_ < kChunk || process();
  }

  // After the last tick: the reads that need the pose after it, then every frame's derivative.
  bool finish() {
    if (!process()) return false;
    collect(tick_);
    for (std::size_t j = 0; j < reads_.size(); ++j) d_pose.push_back(measured(static_cast<int>(j)));
    return true;
  }
  std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>> d_pose;

 private:
  static constexpr int kChunk = 250;
  const sim::RobotModel& model_;
  const servo::PreparedReference& ref_;
  const servo::OuterGains& gains_;
  int q_, threads_;
  sim::XiVector<double> xi_;
  Eigen::SparseMatrix<double> P_xi_;
  std::vector<XiEntry> xi_entries_;
  Eigen::RowVectorXd P_lp_, P_li_, P_ld_;
  servo::DriveGains<double> g_;
  Vec6d marker_frame_;          // the camera reports this frame's pose (servo::MarkerPose)
  std::vector<Vec6d> poses_;    // with a marker frame: the nominal pose at each tick's start
  Mat S_x_, S_int_, S_prev_meas_, S_U_, S_I_, S_U_prev_, S_theta_prev_, S_stage_, S_tau_, S_e_, S_theta_;
  std::vector<Mat> S_measured_;                   // per frame: d (what the camera read) / d delta
  std::vector<servo::TickInterpolation> reads_;   // per frame: where it was read among the ticks
  std::vector<bool> direct_done_;                 // the explicit latency term added
  const servo::PoseHistory<double>* history_ = nullptr;
  int offset_column_ = -1;
  std::size_t first_open_ = 0;  // the first frame still waiting for a tick's S
  int tick_ = 0;                // the tick advance() is at
  std::vector<TickInput> ticks_;
  int used_ = 0;
  bool fused_ = false;  // stages linearised during the nominal run (fuse_with)
  int stage_ = 0;       // then: the next stage's slot in lin_
  std::vector<StageLinearization> lin_;
  sim::Rk4<Mat> rk4_;

  int substeps_per_tick() const { return ref_.clock.timing.substeps; }

  TickInput& next_slot() {
    if (used_ == static_cast<int>(ticks_.size())) ticks_.emplace_back();
    return ticks_[static_cast<std::size_t>(used_++)];
  }

  bool process() {
    const bool ok = fused_ || linearize_chunk();
    if (ok)
      for (int i = 0; i < used_; ++i) advance(ticks_[static_cast<std::size_t>(i)], i);
    used_ = 0;
    stage_ = 0;
    return ok;
  }

  StageLinearization& slot(int index) {
    const auto k = static_cast<std::size_t>(index);
    if (k >= lin_.size()) lin_.resize(k + 1);
    if (lin_[k].dvdot_P.cols() != q_) lin_[k].dvdot_P.resize(6, q_);
    return lin_[k];
  }

  // Pass 2: every stage of the chunk, split over the cores.
  bool linearize_chunk() {
    const int per_tick = used_ > 0 ? static_cast<int>(ticks_[0].stages.size()) : 0, stages = used_ * per_tick;
    if (stages > 0) slot(stages - 1);  // every slot sized before the threads start
    std::atomic<bool> ok{true};
    auto work = [&](int part) {
      for (int idx = part; idx < stages && ok; idx += threads_) {
        TickInput& r = ticks_[static_cast<std::size_t>(idx / per_tick)];
        const sim::PlantState<double>& x = r.stages[static_cast<std::size_t>(idx % per_tick)];
        if (!linearize(model_, xi_, xi_entries_, x, r.tau, slot(idx))) ok = false;
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads_; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& t : pool) t.join();
    return ok;
  }

  // S_x_ (the state at the start of tick k) into the frames read at or just before it.
  void collect(int k) {
    for (std::size_t j = first_open_; j < reads_.size() && reads_[j].tick <= k; ++j) {
      const servo::TickInterpolation& w = reads_[j];
      if (w.tick == k) S_measured_[j] = w.weight == 0 ? Mat(S_x_.topRows<6>()) : Mat((1 - w.weight) * S_x_.topRows<6>());
      else if (w.tick + 1 == k && w.weight > 0) S_measured_[j] += w.weight * S_x_.topRows<6>();
    }
    while (first_open_ < reads_.size() && reads_[first_open_].tick < k) ++first_open_;
  }

  // Frame j's derivative, complete once its ticks are collected (at its arrival at the latest).
  const Mat& measured(int j) {
    const auto f = static_cast<std::size_t>(j);
    const servo::TickInterpolation& w = reads_[f];
    if (direct_done_[f]) return S_measured_[f];
    direct_done_[f] = true;
    if (offset_column_ >= 0 && w.moving)  // chi_m = pose(t_j - offset): d chi_m / d offset = -d pose / dt
      S_measured_[f].col(offset_column_) -=
          ((*history_)[w.tick + 1] - (*history_)[w.tick]) / ref_.clock.timing.controller_period();
    if (marker_frame_ != Vec6d::Zero()) {  // the camera reports T_OE T_EM of the pose read
      const Vec6d& p0 = poses_[static_cast<std::size_t>(w.tick)];
      const Vec6d read = w.weight == 0 ? p0 : Vec6d(p0 + w.weight * (poses_[static_cast<std::size_t>(w.tick) + 1] - p0));
      S_measured_[f] = marker_jacobian(read, marker_frame_) * S_measured_[f];
    }
    return S_measured_[f];
  }

  // Pass 3: one tick of the recursion through the outer law, the inner law, the hold and RK4.
  void advance(const TickInput& r, int i) {
    const double Tc = ref_.clock.timing.controller_period(), Tcam = ref_.clock.timing.camera_period();
    collect(tick_++);
    if (r.update >= 0) {
      // eq. (30): e = chi_d - m, e_dot = chi_dot_d - (m - m_prev)/Tcam, int += e Tcam.
      const servo::OuterReference& o = ref_.updates[static_cast<std::size_t>(r.update)];
      const Mat& S_m = measured(r.update);
      const Mat S_edot = r.update > 0 ? Mat(-(S_m - S_prev_meas_) / Tcam) : Mat::Zero(6, q_);
      S_int_ -= S_m * Tcam;
      S_U_ = o.J_theta * (gains_.kd.asDiagonal() * S_edot - gains_.kp.asDiagonal() * S_m +
                          gains_.ki.asDiagonal() * S_int_);
      S_prev_meas_ = S_m;
    }
    // eq. (31) with theta = IK(chi): d theta = J_theta d chi.
    const Mat6d& J_theta = lin_[static_cast<std::size_t>(i * substeps_per_tick() * 4)].J_theta;  // the tick's pose
    S_theta_.noalias() = J_theta * S_x_.topRows<6>();
    S_e_ = S_U_ - S_theta_;
    S_I_ += S_e_ * Tc;
    S_tau_ = g_.lp * S_e_ + g_.li * S_I_;
    if (r.inner_had_previous) S_tau_ += g_.ld / Tc * ((S_U_ - S_U_prev_) - (S_theta_ - S_theta_prev_));
    S_tau_ += r.e * P_lp_ + r.integral * P_li_ + r.e_dot * P_ld_;
    S_U_prev_ = S_U_;
    S_theta_prev_ = S_theta_;
    // The RK4 map differentiated: the variational equation dS/dt = A S + B dtau + dv_dot/dXi P
    // stepped by the same RK4 step, its stages at the nominal run's stages.
    const int per_step = 4, substeps = ref_.clock.timing.substeps;
    const double h = Tc / substeps;
    for (int sub = 0; sub < substeps; ++sub) {
      int stage = 0;
      auto variational = [&](const Mat& S, Mat& K, double) {
        const StageLinearization& L = lin_[static_cast<std::size_t>((i * substeps + sub) * per_step + stage++)];
        // A = [0 0 I 0; 0 d(J_e^-1 w)/dphi 0 J_e^-1; -M^-1 dr/dx]: its zero blocks are skipped.
        K.topRows<3>() = S.middleRows<3>(6);
        K.middleRows<3>(3).noalias() = L.A.block<3, 2>(3, 3).lazyProduct(S.middleRows<2>(3));
        K.middleRows<3>(3).noalias() += L.A.block<3, 3>(3, 9).lazyProduct(S.bottomRows<3>());
        K.bottomRows<6>().noalias() = L.A.bottomRows<6>() * S;
        K.bottomRows<6>().noalias() += L.B_tau * S_tau_;
        K.bottomRows<6>() += L.dvdot_P;
      };
      rk4_.step(variational, S_x_, h);
    }
  }
};

// The nominal run with `camera`, the recursion as its observer.
template <typename Camera>
TwinSensitivity run_sensitivity(servo::TwinRobot<double>& twin, const servo::PreparedReference& ref,
                                const servo::OuterGains& gains, Camera& camera, SensitivityRecursion& recursion) {
  TwinSensitivity out;
  servo::VisualServo<double> outer(ref, gains);
  // The correction is fixed (no parameter's): it moves the nominal run, not the recursion.
  servo::CorrectedRobot<servo::TwinRobot<double>> corrected(twin, ref.command_correction);
  auto observe = [&](const servo::TickRecord& t) { return recursion.on_tick(t, twin); };
  const char* const why = "the twin's linearisation failed";
  out.trace = ref.command_correction.empty() ? servo::run_loop<double>(twin, outer, camera, observe, why)
                                             : servo::run_loop<double>(corrected, outer, camera, observe, why);
  if (out.trace.ok && !recursion.finish()) {
    out.trace.ok = false;
    out.trace.failure = "the twin's linearisation failed";
  }
  if (out.trace.ok) out.d_pose = std::move(recursion.d_pose);
  return out;
}

}  // namespace

TwinSensitivity simulate_twin_sensitivity(const sim::RobotModel& model, const sim::LambdaVector<double>& lambda,
                                          const servo::PreparedReference& ref, const servo::OuterGains& gains,
                                          const Eigen::MatrixXd& P, int threads, double latency_offset,
                                          int offset_column) {
  Vec6d start;
  if (!servo::twin_standing_pose(model, ref, start)) {
    TwinSensitivity out;
    out.trace.ok = false;
    out.trace.failure = servo::kNoStandingPose;
    return out;
  }
  servo::TwinRobot<double> twin(model, lambda, ref.clock.timing, start);
  twin.plant().record_stages(true);
  SensitivityRecursion recursion(model, lambda, ref, gains, P, threads);
  recursion.fuse_with(twin.plant());
  if (!recursion.start(twin.drives().pid().integral, start)) {
    TwinSensitivity out;
    out.trace.ok = false;
    out.trace.failure = "the start pose is outside the workspace";
    return out;
  }
  if (latency_offset == 0 && offset_column < 0) {
    servo::MarkerPose camera{model.marker_frame};
    return run_sensitivity(twin, ref, gains, camera, recursion);
  }
  if (offset_column >= 0 && !(offset_column < P.cols() && P.col(offset_column).isZero(0)))
    fail("sensitivity", "the latency offset's column of P must exist and be zero");
  servo::ShiftedExposure<double> camera(ref.clock, twin.pose(), latency_offset, model.marker_frame);
  recursion.read_at(latency_offset, &camera.history(), offset_column);
  return run_sensitivity(twin, ref, gains, camera, recursion);
}

}  // namespace vcloe::oe_ident
