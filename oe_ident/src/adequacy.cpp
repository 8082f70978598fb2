// oe_ident/src/adequacy.cpp — the model-adequacy verdict (adequacy.hpp).
#include "vcloe/oe_ident/adequacy.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace vcloe::oe_ident {

namespace {
const char* const kChannel[6] = {"x", "y", "z", "alpha", "beta", "gamma"};

ChannelResidual channel(const std::vector<double>& r, std::size_t first_row, std::size_t n, int c, double scale) {
  double mean = 0, sq = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const double v = r[first_row + 6 * j + static_cast<std::size_t>(c)];
    mean += v / static_cast<double>(n);
    sq += v * v / static_cast<double>(n);
  }
  double c0 = 0, c1 = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const double v = r[first_row + 6 * j + static_cast<std::size_t>(c)] - mean;
    c0 += v * v;
    if (j > 0) c1 += v * (r[first_row + 6 * (j - 1) + static_cast<std::size_t>(c)] - mean);
  }
  ChannelResidual out;
  out.rms_over_noise = std::sqrt(sq) * scale;
  out.lag1 = c0 > 0 ? c1 / c0 : 0;
  return out;
}
}  // namespace

double Adequacy::sigma_scale() const { return std::sqrt(std::max(1.0, chi2_per_dof)); }

double ChannelResidual::model_share() const {
  const double by_level = rms_over_noise > 1 ? 1 - 1 / (rms_over_noise * rms_over_noise) : 0;
  return std::clamp(std::max(by_level, lag1), 0.0, 1.0);
}

const char* Adequacy::name(Verdict v) {
  switch (v) {
    case Verdict::NoiseLevel: return "noise level";
    case Verdict::ModelErrorVisible: return "model error visible";
    case Verdict::ModelErrorDominates: return "model error dominates";
  }
  return "";
}

std::string Adequacy::summary() const {
  std::ostringstream s;
  s.precision(2);
  switch (verdict) {
    case Verdict::NoiseLevel:
      s << "The residual is camera noise: the model explains the traces to the declared noise level.";
      break;
    case Verdict::ModelErrorVisible:
      s << "Model error is visible but on the whole smaller than the camera noise (" << 100 * mean_share
        << " % of the residual variance on average, " << 100 * worst_share << " % on " << worst_channel
        << "); the sigma include it.";
      break;
    case Verdict::ModelErrorDominates:
      s << "Model error dominates: " << 100 * mean_share << " % of the residual variance on average ("
        << 100 * worst_share << " % on " << worst_channel
        << ") is not camera noise. The twin does not model something this robot does; the sigma are widened by it "
           "(x" << sigma_scale() << "), and the values are the best fit of an imperfect model, not the robot's own.";
      break;
  }
  return s.str();
}

Adequacy adequacy_of(const std::vector<std::array<ChannelResidual, 6>>& experiments) {
  Adequacy a;
  a.experiments = experiments;
  double share_sum = 0, chi2_sum = 0;
  for (std::size_t e = 0; e < experiments.size(); ++e)
    for (std::size_t c = 0; c < 6; ++c) {
      const double share = experiments[e][c].model_share();
      share_sum += share;
      chi2_sum += experiments[e][c].rms_over_noise * experiments[e][c].rms_over_noise;
      if (share > a.worst_share) {
        a.worst_share = share;
        a.worst_channel = std::string(kChannel[c]) + " of experiment " + std::to_string(e + 1);
      }
    }
  const double channels = 6.0 * static_cast<double>(std::max<std::size_t>(1, experiments.size()));
  a.mean_share = share_sum / channels;
  a.chi2_per_dof = chi2_sum / channels;
  a.verdict = a.mean_share > kDominantShare                                       ? Verdict::ModelErrorDominates
              : a.mean_share > kVisibleShare || a.worst_share > kDominantShare ? Verdict::ModelErrorVisible
                                                                                : Verdict::NoiseLevel;
  return a;
}

Adequacy assess_adequacy(const std::vector<double>& r, const std::vector<std::size_t>& frames,
                         const std::vector<std::array<double, 6>>& scale) {
  std::vector<std::array<ChannelResidual, 6>> experiments;
  std::size_t row = 0;
  for (std::size_t e = 0; e < frames.size(); ++e) {
    std::array<ChannelResidual, 6> ch{};
    for (int c = 0; c < 6; ++c)
      ch[static_cast<std::size_t>(c)] = channel(r, row, frames[e], c, scale[e][static_cast<std::size_t>(c)]);
    experiments.push_back(ch);
    row += 6 * frames[e];
  }
  return adequacy_of(experiments);
}

}  // namespace vcloe::oe_ident
