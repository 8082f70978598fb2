// Specification of the fitted latency offset (oe_ident/problem.hpp LatencyOptions,
// docs/identification.md "Latency offset"): the pose stream's true latency minus the configured
// one, a nuisance parameter beside Lambda. Its coordinate stays inside its bounds; the forward
// sensitivities of the twin whose camera reads between ticks — every Lambda column and the
// offset's own — are central differences of simulate_twin; identify() recovers the offset of a
// trace recorded late or early (within 0.2 ms and 3 sigma), the dynamic parameters as well as
// with the offset known, and ~0 where there is none; the option is range-checked and read from
// the settings file.
#include <gtest/gtest.h>

#include <random>

#include "../../oe_ident/src/parameter_map.hpp"
#include "../sim/sim_fixtures.hpp"
#include "../test_support.hpp"
#include "fit_fixtures.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/oe_ident/problem.hpp"
#include "vcloe/oe_ident/sensitivity.hpp"

using namespace vcloe;
using namespace vcloe::oe_ident;

namespace latency_test {

// Parameters off the priors (friction present), the legs as the priors.
sim::LambdaVector<double> off_priors() {
  sim::LambdaVector<double> t = test::default_priors();
  t(sim::platform_index(1)) *= 1.1;
  t(sim::platform_index(3)) *= 0.9;
  for (int i = 0; i < sim::kLegs; ++i) {
    t(sim::coulomb_index(i)) = 0.18 + 0.02 * i;
    t(sim::viscous_index(i)) = 0.25 - 0.01 * i;
  }
  t(sim::kGainP) *= 1.15;
  t(sim::kGainD) *= 0.9;
  return t;
}

// A trace of the twin at `lambda` whose camera was `offset` late (s), with the default camera
// noise (seed `seed`).
Experiment late_trace(const servo::PreparedReference& ref, const sim::LambdaVector<double>& lambda, double offset,
                      std::uint64_t seed) {
  const auto r = servo::simulate_twin<double>(test::default_robot(), lambda, ref, servo::OuterGains{}, offset);
  EXPECT_TRUE(r.ok) << r.failure;
  Experiment e;
  e.name = "late run";
  e.reference = ref;
  servo::GaussianPoseNoise noise(IdentificationOptions{}.sigma, seed);
  for (std::size_t j = 0; j < r.measured.size(); ++j) e.measured.push_back(noise.measure(0, r.measured[j]));
  return e;
}

const std::vector<int>& fitted_parameters() {
  static const std::vector<int> k = {sim::platform_index(1), sim::platform_index(2), sim::platform_index(3),
                                     sim::coulomb_index(0),  sim::viscous_index(0),  sim::kGainP,
                                     sim::kGainI,            sim::kGainD};
  return k;
}

// The platform's moments, one leg's friction and the gains from 15 % off the truth (the rest
// known), m_p the anchor; the latency offset fitted, or held at `held`.
// With `starts` > 1 the first horizon also from the other latency starts, above
// `starts_above_noise` camera sigmas (LatencyOptions).
IdentificationResult fit(const Experiment& e, const sim::LambdaVector<double>& truth, std::optional<double> held,
                         int starts = 1, double starts_above_noise = 0) {
  IdentificationOptions o;
  o.anchor = {AnchorKind::KnownParameter, sim::platform_index(0), truth(sim::platform_index(0))};
  o.horizons = {0.35, 1.0};
  o.start.check = false;  // not the stuck test's subject
  sim::LambdaVector<double> start = truth;
  for (int k = 0; k < sim::kNumLambda; ++k) o.spec[k].mode = Mode::Fixed;
  for (int k : fitted_parameters()) {
    o.spec[k].mode = Mode::Free;
    start(k) *= 1.15;
  }
  o.latency = {!held.has_value(), held.value_or(0.0), ""};
  o.latency.starts = starts;
  o.latency.starts_above_noise = starts_above_noise;
  return identify(test::default_robot(), start, servo::OuterGains{}, {e}, o);
}

}  // namespace latency_test

using namespace latency_test;

TEST(LatencyOffset, ItsCoordinateStaysInsideItsBoundsAndLeavesLambdaAlone) {
  ParameterMap map = build_parameter_map(test::default_priors(), std::vector<bool>(sim::kNumLambda, true),
                                         default_specification());
  const int q = map.size();
  add_latency_coordinate(map, -4e-3, 5e-3, 1.2e-3);
  ASSERT_EQ(map.size(), q + 1);
  EXPECT_EQ(map.latency.coord, q);
  std::vector<double> d = map.initial(test::default_priors());
  EXPECT_NEAR(map.latency_offset(d.data()), 1.2e-3, 1e-15);
  EXPECT_EQ(map.jacobian(d.data()).col(q).norm(), 0.0) << "no entry of Lambda moves with it";
  const sim::LambdaVector<double> before = map.lambda(d.data());
  for (const double u : {-40.0, -1.0, 0.3, 40.0}) {
    d[static_cast<std::size_t>(q)] = u;
    const double offset = map.latency_offset(d.data());
    EXPECT_TRUE(offset >= -4e-3 && offset <= 5e-3) << u;
    EXPECT_EQ(map.lambda(d.data()), before);
    const double h = 1e-6;
    d[static_cast<std::size_t>(q)] = u + h;
    const double up = map.latency_offset(d.data());
    d[static_cast<std::size_t>(q)] = u - h;
    const double fd = (up - map.latency_offset(d.data())) / (2 * h);
    d[static_cast<std::size_t>(q)] = u;
    EXPECT_NEAR(map.latency_derivative(d.data()), fd, 1e-9 * 5e-3 + 1e-6 * std::abs(fd)) << u;
  }
  EXPECT_EQ(test::error_of([&] { add_latency_coordinate(map, -4e-3, 5e-3, 6e-3); }),
            "identify: the latency offset's start 0.006 s is not within its bounds [-0.004, 0.005] s");
  // A start on a bound (offset 0 under a configured latency of 0) begins just inside it: finite.
  ParameterMap edge;
  add_latency_coordinate(edge, -0.0, 5e-3, 0.0);
  const std::vector<double> d0 = edge.initial(sim::LambdaVector<double>::Ones());
  EXPECT_TRUE(std::isfinite(d0[0]));
  EXPECT_GE(edge.latency_offset(d0.data()), 0.0);
  EXPECT_LT(edge.latency_offset(d0.data()), 1e-5);
}

TEST(LatencyOffset, SensitivitiesOfTheLateCameraAreCentralDifferencesOfTheTwin) {
  const servo::PreparedReference ref = test::fit_reference(0.6, 31);
  const sim::LambdaVector<double> lambda = off_priors();
  const double offset = 1.3e-3;
  const std::vector<int> params = {sim::platform_index(0), sim::platform_index(2), sim::coulomb_index(1),
                                   sim::viscous_index(4),  sim::kGainP,            sim::kGainI,
                                   sim::kGainD};
  const int oc = static_cast<int>(params.size());  // the offset's column, after Lambda's
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(sim::kNumLambda, oc + 1);
  for (int c = 0; c < oc; ++c) P(params[static_cast<std::size_t>(c)], c) = 1;
  const TwinSensitivity s = simulate_twin_sensitivity(test::default_robot(), lambda, ref, servo::OuterGains{}, P, 2, offset, oc);
  ASSERT_TRUE(s.trace.ok) << s.trace.failure;
  const auto nominal = servo::simulate_twin<double>(test::default_robot(), lambda, ref, servo::OuterGains{}, offset);
  for (std::size_t j = 0; j < nominal.measured.size(); ++j) ASSERT_EQ(s.trace.measured[j], nominal.measured[j]) << j;
  for (int c = 0; c <= oc; ++c) {
    const int p = c < oc ? params[static_cast<std::size_t>(c)] : -1;
    // 1e-4 relative: ld's central difference on this reference is still 2e-3 off at 1e-3 (its
    // error falls as h^2, the sensitivity's does not move: measured); the offset's step stays
    // within one tick's interval.
    const double h = p >= 0 ? 1e-4 * std::max(std::abs(lambda(p)), 1e-3) : 1e-7;
    sim::LambdaVector<double> up = lambda, down = lambda;
    if (p >= 0) {
      up(p) += h;
      down(p) -= h;
    }
    const double o_up = p >= 0 ? offset : offset + h, o_down = p >= 0 ? offset : offset - h;
    const auto ru = servo::simulate_twin<double>(test::default_robot(), up, ref, servo::OuterGains{}, o_up);
    const auto rd = servo::simulate_twin<double>(test::default_robot(), down, ref, servo::OuterGains{}, o_down);
    ASSERT_TRUE(ru.ok && rd.ok);
    double err = 0, scale = 0;
    for (std::size_t j = 0; j < ru.measured.size(); ++j) {
      const Vec6d fd = (ru.measured[j] - rd.measured[j]) / (2 * h);
      err = std::max(err, (s.d_pose[j].col(c) - fd).cwiseAbs().maxCoeff());
      scale = std::max(scale, fd.cwiseAbs().maxCoeff());
    }
    EXPECT_GT(scale, 0.0) << (p >= 0 ? sim::parameter_registry()[p].name : "latency offset");
    EXPECT_LE(err, 1e-4 * scale + 1e-9) << (p >= 0 ? sim::parameter_registry()[p].name : "latency offset") << " scale "
                                         << scale;
  }
}

// Seeds 41-44 (trajectory) and 141-144 (camera noise), chosen once and not tuned.
TEST(LatencyOffset, IdentifyRecoversItAndTheDynamicsAsWellAsWithItKnown) {
  const sim::LambdaVector<double> truth = off_priors();
#ifdef VCLOE_SANITIZED  // each fit 35-45x slower there (docs/robustness.md): the first offset only, the same record
  const std::vector<double> offsets = {-2e-3};
#else
  const std::vector<double> offsets = {-2e-3, 1.5e-3, 3e-3, 0.0};
#endif
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const double offset = offsets[i];
    const servo::PreparedReference ref = test::fit_reference(2.0, 41 + i);
    const Experiment e = late_trace(ref, truth, offset, 141 + i);
    const IdentificationResult fitted = fit(e, truth, std::nullopt);
    const IdentificationResult known = fit(e, truth, offset);
    const LatencyResult& l = fitted.latency;
    ASSERT_TRUE(l.fitted) << l.status;
    EXPECT_EQ(l.status, "fitted");
    EXPECT_LT(std::abs(l.value - offset), 0.2e-3) << "true " << offset << " fitted " << l.value;
    EXPECT_LT(std::abs(l.value - offset), 3 * l.sigma) << "true " << offset << " fitted " << l.value << " +- " << l.sigma;
    EXPECT_GT(l.sigma, 0.0);
    EXPECT_FALSE(known.latency.fitted);
    EXPECT_EQ(known.latency.value, offset);
    int identified = 0;  // the offset is not one of the 70: the count is Lambda's
    for (const ParameterResult& p : fitted.parameters) identified += p.identified;
    EXPECT_EQ(fitted.identified_count, identified);
    EXPECT_LE(identified, static_cast<int>(fitted_parameters().size()));
    if (std::getenv("VCLOE_VERBOSE")) {
      std::cerr << "offset " << offset << " fitted " << l.value << " +- " << l.sigma << " (camera " << l.sigma_camera << ")\n";
      for (int k : fitted_parameters()) {
        const ParameterResult& p = fitted.parameters[static_cast<std::size_t>(k)];
        const ParameterResult& q = known.parameters[static_cast<std::size_t>(k)];
        std::cerr << "  " << sim::parameter_registry()[k].name << " truth " << truth(k) << " fitted " << p.value << " +- "
                  << p.sigma << " " << p.status << " | known " << q.value << " +- " << q.sigma << " " << q.status << "\n";
      }
    }
    for (int k : fitted_parameters()) {  // fitting the offset moves no parameter by its sigma
      const ParameterResult& p = fitted.parameters[static_cast<std::size_t>(k)];
      EXPECT_LT(std::abs(p.value - known.parameters[static_cast<std::size_t>(k)].value), p.sigma)
          << sim::parameter_registry()[k].name << " offset " << offset;
      EXPECT_LT(std::abs(p.value - truth(k)), 3 * p.sigma) << sim::parameter_registry()[k].name << " offset " << offset;
    }
  }
}

TEST(LatencyOffset, TheOptionIsCheckedAndReadFromTheSettingsFile) {
  IdentificationOptions o;
  o.anchor = {AnchorKind::KnownParameter, sim::platform_index(0), 1.0};
  o.latency.offset = 0.2;
  EXPECT_EQ(test::error_of([&] { o.validate(); }),
            "identification option 'latency.offset': expected a latency offset (s) in [-0.05, 0.05], got 0.2");
  const auto cfg = parse_identification_config("latency: {fit: false, offset: 0.002}\n", "id.yaml");
  EXPECT_FALSE(cfg.options.latency.fit);
  EXPECT_EQ(cfg.options.latency.offset, 0.002);
  EXPECT_TRUE(load_identification_config(std::string(VCLOE_SOURCE_DIR) + "/config/identify.yaml").options.latency.fit);
  EXPECT_NE(test::error_of([] { parse_identification_config("latency: {fitted: true}\n", "id.yaml"); }).find("id.yaml:1"),
            std::string::npos);
  // Inside its bounds from the experiment's timing: half the 10 ms camera period, and not later
  // than the 10 ms configured latency.
  const servo::PreparedReference ref = test::fit_reference(0.3, 3);
  Experiment e{"run", ref, std::vector<Vec6d>(ref.exposure_times.size(), ref.start_pose), std::nullopt, std::nullopt, {}};
  const LatencyBounds b = latency_bounds({e});
  EXPECT_DOUBLE_EQ(b.low, -5e-3);
  EXPECT_DOUBLE_EQ(b.high, 5e-3);
  o.latency.offset = 6e-3;
  EXPECT_EQ(test::error_of([&] { check_identification_inputs({e}, o); }),
            "identification option 'latency.offset': expected a start within the fitted offset's bounds [-0.005, "
            "0.005] s (half a camera period, and no earlier than minus the configured latency), got 0.006 s; "
            "latency.fit: false holds it at any causal value");
  // Read from a file, the message names the file, line and key (it was the option's name alone).
  o.latency = parse_identification_config("notes: x\nlatency:\n  fit: true\n  offset: 0.02\n", "l3.yaml").options.latency;
  EXPECT_EQ(test::error_of([&] { check_identification_inputs({e}, o); }).rfind("l3.yaml:4: key 'latency.offset': expected", 0),
            0u);
  o.latency = {false, 6e-3, ""};
  EXPECT_EQ(test::error_of([&] { check_identification_inputs({e}, o); }), "");
  // An experiment with no latency: its bounds are [-0, 0.005] and the default start 0 is in them
  // (it was refused: every trace of a zero-latency experiment failed under the default settings).
  Experiment e0 = e;
  e0.reference.clock.timing.latency = 0;
  o.latency = {true, 0.0, ""};
  EXPECT_EQ(test::error_of([&] { check_identification_inputs({e0}, o); }), "");
  o.latency = {false, -11e-3, ""};
  EXPECT_NE(test::error_of([&] { check_identification_inputs({e}, o); }).find("expected at least -0.01 s"),
            std::string::npos);
}



// The first horizon's latency starts (LatencyOptions::starts, docs/identification.md): the
// configured start first, then the centres of equal parts of the bounds, none within a tenth of a
// part of one before; the coordinate set to each reads back as that offset.
TEST(LatencyOffset, TheFirstHorizonStartsFromTheConfiguredOffsetAndEqualPartsOfTheBounds) {
  ParameterMap map;
  add_latency_coordinate(map, -5e-3, 5e-3, 0.0);
  const std::vector<double> from_zero = latency_starts(map.latency, 5);
  const std::vector<double> expected = {0.0, -4e-3, -2e-3, 2e-3, 4e-3};  // 0 is also the middle part's centre
  ASSERT_EQ(from_zero.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_NEAR(from_zero[k], expected[k], 1e-15) << k;
  map.latency.value = 1.9e-3;  // within a tenth of a part (0.2 ms) of 2 ms: that centre is left out
  EXPECT_EQ(latency_starts(map.latency, 5).size(), 5u);
  map.latency.value = 1.2e-3;
  EXPECT_EQ(latency_starts(map.latency, 5).size(), 6u);
  EXPECT_EQ(latency_starts(map.latency, 1), std::vector<double>({1.2e-3}));  // one start: the configured one
  std::vector<double> d = {0.0};
  for (double offset : latency_starts(map.latency, 5)) {
    map.set_latency_offset(d, offset);
    EXPECT_NEAR(map.latency_offset(d.data()), offset, 1e-12) << offset;
  }
  // Every command's default: five starts, the four others only when the first from the configured
  // offset ends above 1.45 x the camera noise, each to the stage's own rule; the keys as read.
  const LatencyOptions def = load_identification_config(std::string(VCLOE_SOURCE_DIR) + "/config/identify.yaml").options.latency;
  EXPECT_EQ(def.starts, 5);
  EXPECT_EQ(def.starts_above_noise, 1.45);
  EXPECT_EQ(def.start_iterations, 0);
  const LatencyOptions read =
      parse_identification_config("latency: {starts: 3, starts_above_noise: 0, start_iterations: 8}\n", "id.yaml").options.latency;
  EXPECT_EQ(read.starts, 3);
  EXPECT_EQ(read.starts_above_noise, 0.0);
  EXPECT_EQ(read.start_iterations, 8);
}

// The other starts run only when the fit from the configured offset ends its first horizon
// above latency.starts_above_noise x the camera noise (docs/identification.md, "Latency offset"):
// on a twin's own short trace (3 ms late, default camera noise) a bound above what the fit from 0
// ends at keeps the one start, a bound below it runs all five, and the figure it decides on is
// recorded either way (the first fit from 0 ms the same in both).
TEST(LatencyOffset, TheOtherStartsRunOnlyWhenTheConfiguredOneEndsAboveTheBound) {
  const sim::LambdaVector<double> truth = off_priors();
  const Experiment e = late_trace(test::fit_reference(0.4, 45), truth, 3e-3, 145);
  const IdentificationResult near = fit(e, truth, std::nullopt, 5, 100);
  const double over = near.start.latency_over_noise;
  EXPECT_GT(over, 0.7);  // sqrt(2 cost / residuals): about the noise, a few sigmas on this short start
  EXPECT_LT(over, 5.0);
  EXPECT_EQ(near.start.latency_starts, std::vector<double>({0.0}));
  const IdentificationResult below = fit(e, truth, std::nullopt, 5, 0.9 * over);
  EXPECT_EQ(below.start.latency_starts.size(), 5u);
  EXPECT_EQ(below.start.latency_over_noise, over);  // the same first fit from 0 ms
  EXPECT_EQ(below.start.latency_costs[0], near.start.latency_costs[0]);
  EXPECT_GT(below.iterations, near.iterations);
}
