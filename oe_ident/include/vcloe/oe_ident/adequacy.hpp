#pragma once
// vcloe/oe_ident/adequacy.hpp — is the model adequate? The residual measured - twin at the
// solution compared with the camera noise the traces declare (docs/design.md §9): per
// experiment and pose channel the RMS in noise sigmas and the lag-1 autocorrelation. Camera
// noise is white (lag-1 ~ 0) at the declared level; model error is slow (lag-1 ~ 1) and adds
// variance. Their shares, and a verdict in words.
#include <array>
#include <string>
#include <vector>

namespace vcloe::oe_ident {

struct ChannelResidual {
  double rms_over_noise = 0;  // RMS of the residual / the declared camera sigma
  double lag1 = 0;            // lag-1 autocorrelation of the residual (mean removed)
  // Share of the residual variance that is not the declared camera noise, estimated two ways
  // and the larger taken: 1 - 1/ratio^2 (level) and lag1 (whiteness).
  double model_share() const;
};

enum class Verdict { NoiseLevel, ModelErrorVisible, ModelErrorDominates };

struct Adequacy {
  std::vector<std::array<ChannelResidual, 6>> experiments;  // x, y, z, alpha, beta, gamma
  Verdict verdict = Verdict::NoiseLevel;
  std::string worst_channel;  // "beta of experiment 1"
  double worst_share = 0;     // its model_share()
  double mean_share = 0;      // model_share() averaged over channels and experiments: the verdict's
  double chi2_per_dof = 1;    // mean of rms_over_noise^2 over channels and experiments
  // The scale factor of the sigma (the Particle Data Group's, the Birge ratio): sqrt(chi2_per_dof)
  // when the residual exceeds the declared noise, else 1 (docs/identification.md).
  double sigma_scale() const;
  std::string summary() const;  // the verdict in plain words, one sentence
  static const char* name(Verdict v);  // "noise level", "model error visible", "model error dominates"
};

// Mean share above kDominantShare (model error carries more of the residual variance than the
// camera noise, over the channels): it dominates; mean above kVisibleShare or some channel
// above kDominantShare: model error visible.
constexpr double kVisibleShare = 0.2;
constexpr double kDominantShare = 0.5;

// The adequacy of per-channel residuals (their shares, worst and mean, chi2 per dof and the
// verdict): the one derivation, used by assess_adequacy and by the report's reader to check the
// figures a report holds against its channels (report/identification_consistency.hpp).
Adequacy adequacy_of(const std::vector<std::array<ChannelResidual, 6>>& experiments);

// r: weighted residuals (measured - twin) / weight, rows 6 j + c of each experiment in turn,
// frames[e] rows of 6 per experiment e; scale[e][c] = weight / declared camera sigma.
Adequacy assess_adequacy(const std::vector<double>& r, const std::vector<std::size_t>& frames,
                         const std::vector<std::array<double, 6>>& scale);

}  // namespace vcloe::oe_ident
