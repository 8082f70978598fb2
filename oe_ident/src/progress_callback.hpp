#pragma once
// oe_ident/src/progress_callback.hpp — the Ceres iteration callback behind identify's live
// progress line (vcloe/oe_ident/progress.hpp): one IterationProgress per LM iteration.
#include <ceres/iteration_callback.h>

#include <chrono>

#include "vcloe/oe_ident/problem.hpp"

namespace vcloe::oe_ident {

// The live progress line (IdentificationOptions::progress) after each LM iteration.
class ProgressCallback : public ceres::IterationCallback {
 public:
  ProgressCallback(const IdentificationOptions& o, std::chrono::steady_clock::time_point start, std::size_t stage)
      : o_(o), start_(start), stage_(stage), stage_start_(std::chrono::steady_clock::now()) {}

  ceres::CallbackReturnType operator()(const ceres::IterationSummary& s) override {
    const IdentificationOptions& o = o_;
    IterationProgress p;
    p.stage = static_cast<int>(stage_) + 1;
    p.stages = static_cast<int>(o.horizons.size());
    p.horizon = o.horizons[stage_];
    p.iteration = s.iteration;
    p.cost = s.cost;
    p.accepted = s.iteration == 0 || s.step_is_successful;
    p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (s.iteration > 0 && s.step_is_successful && s.cost > 0) {
      previous_ = last_;
      last_ = s.cost_change / s.cost;
    }
    const bool final_stage = p.stage == p.stages;
    p.iterations_left = iterations_to_tolerance(previous_, last_, final_stage ? o.tol1 : o.stage_tol1,
                                                o.max_iterations - s.iteration);
    if (p.iterations_left >= 0 && s.iteration > 0) {
      const double per_iteration = std::chrono::duration<double>(std::chrono::steady_clock::now() - stage_start_).count() / s.iteration;
      p.seconds_left = p.iterations_left * per_iteration;
      // Later stages: ten iterations each, at this stage's cost per iteration scaled by the
      // share of the records they fit (a rough figure, said to be one).
      for (std::size_t k = stage_ + 1; k < o.horizons.size(); ++k)
        p.seconds_left += 10 * per_iteration * o.horizons[k] / o.horizons[stage_];
    }
    o.progress(p);
    return ceres::SOLVER_CONTINUE;
  }

 private:
  const IdentificationOptions& o_;
  std::chrono::steady_clock::time_point start_;
  std::size_t stage_;
  std::chrono::steady_clock::time_point stage_start_;
  double previous_ = -1, last_ = -1;  // relative cost decreases of the last two accepted steps
};

}  // namespace vcloe::oe_ident
