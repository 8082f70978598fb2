// Specification of IdentificationOptions::validate and the payload checks: every setting out of
// range is refused in one place — by identify() and by the settings-file parser alike — with a
// message naming the option (and, from a file, the file, line and key).
#include <gtest/gtest.h>

#include <functional>

#include "../sim/sim_fixtures.hpp"
#include "../test_support.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/oe_ident/config.hpp"
#include "vcloe/oe_ident/payload.hpp"
#include "vcloe/oe_ident/plausible.hpp"
#include "vcloe/oe_ident/problem.hpp"

using namespace vcloe;
using namespace vcloe::oe_ident;
using vcloe::test::error_of;

namespace {

struct BadSetting {
  const char* option;                                 // the name the message must carry
  std::function<void(IdentificationOptions&)> apply;  // the bad value, set in the struct
  const char* yaml;                                   // the same in a settings file
};

const std::vector<BadSetting>& bad_settings() {
  static const std::vector<BadSetting> list = {
      {"threads", [](IdentificationOptions& o) { o.threads = 0; }, "threads: 0\n"},
      {"threads", [](IdentificationOptions& o) { o.threads = 100000; }, "threads: 100000\n"},
      {"loss.scale", [](IdentificationOptions& o) { o.loss = Loss::Huber, o.loss_scale = 0; },
       "loss: {type: huber, scale: 0}\n"},
      {"loss.scale", [](IdentificationOptions& o) { o.loss = Loss::Cauchy, o.loss_scale = -2; },
       "loss: {type: cauchy, scale: -2}\n"},
      {"rank_tolerance", [](IdentificationOptions& o) { o.rank_tolerance = -1e-7; }, "rank_tolerance: -1.0e-7\n"},
      {"rel_sigma_flag", [](IdentificationOptions& o) { o.rel_sigma_flag = 0; }, "rel_sigma_flag: 0\n"},
      {"rel_sigma_flag", [](IdentificationOptions& o) { o.rel_sigma_flag = -0.15; }, "rel_sigma_flag: -0.15\n"},
      {"qr_eps", [](IdentificationOptions& o) { o.qr_eps = 0; }, "qr_eps: 0\n"},
      {"qr_eps", [](IdentificationOptions& o) { o.qr_eps = -1e-3; }, "qr_eps: -1.0e-3\n"},
      {"horizons", [](IdentificationOptions& o) { o.horizons = {0.35, 0.9}; }, "horizons: [0.35, 0.9]\n"},
      {"horizons", [](IdentificationOptions& o) { o.horizons = {0.5, 0.35, 1.0}; }, "horizons: [0.5, 0.35, 1.0]\n"},
      {"noise_sigma.angle", [](IdentificationOptions& o) { o.sigma(4) = 0; }, "noise_sigma: {angle: 0}\n"},
      {"stopping.tol1", [](IdentificationOptions& o) { o.tol1 = 0; }, "stopping: {tol1: 0}\n"},
      {"stopping.max_iterations", [](IdentificationOptions& o) { o.max_iterations = 0; }, "stopping: {max_iterations: 0}\n"},
      {"prior_log_sigma", [](IdentificationOptions& o) { o.prior_log_sigma = -0.7; }, "prior_log_sigma: -0.7\n"},
      {"initial_trust_region", [](IdentificationOptions& o) { o.initial_trust_region = 0; }, "initial_trust_region: 0\n"},
      {"min_relative_decrease", [](IdentificationOptions& o) { o.min_relative_decrease = 1; }, nullptr},
      {"latency.starts", [](IdentificationOptions& o) { o.latency.starts = 0; }, "latency: {starts: 0}\n"},
      {"latency.starts", [](IdentificationOptions& o) { o.latency.starts = 51; }, "latency: {starts: 51}\n"},
      {"latency.starts_above_noise", [](IdentificationOptions& o) { o.latency.starts_above_noise = -1; },
       "latency: {starts_above_noise: -1}\n"},
      {"latency.start_iterations", [](IdentificationOptions& o) { o.latency.start_iterations = -1; },
       "latency: {start_iterations: -1}\n"},
      // Session 23: the upper (and lowest) bounds of the real-valued keys bounded from below alone before.
      {"noise_sigma.position", [](IdentificationOptions& o) { o.sigma(1) = 1e300; }, "noise_sigma: {position: 1.0e300}\n"},
      {"noise_sigma.position", [](IdentificationOptions& o) { o.sigma(0) = 1e-300; }, "noise_sigma: {position: 1.0e-300}\n"},
      {"noise_sigma.angle", [](IdentificationOptions& o) { o.sigma(5) = 3; }, "noise_sigma: {angle: 3}\n"},
      {"loss.scale", [](IdentificationOptions& o) { o.loss_scale = 1e300; }, "loss: {type: huber, scale: 1.0e300}\n"},
      {"loss.scale", [](IdentificationOptions& o) { o.loss_scale = 1e-300; }, "loss: {type: cauchy, scale: 1.0e-300}\n"},
      {"stopping.tol1", [](IdentificationOptions& o) { o.tol1 = 1; }, "stopping: {tol1: 1}\n"},
      {"stopping.stage_tol1", [](IdentificationOptions& o) { o.stage_tol1 = 1e300; }, "stopping: {stage_tol1: 1.0e300}\n"},
      {"stopping.tol2", [](IdentificationOptions& o) { o.tol2 = 2; }, "stopping: {tol2: 2}\n"},
      {"prior_log_sigma", [](IdentificationOptions& o) { o.prior_log_sigma = 1e300; }, "prior_log_sigma: 1.0e300\n"},
      {"prior_log_sigma", [](IdentificationOptions& o) { o.prior_log_sigma = 1e-300; }, "prior_log_sigma: 1.0e-300\n"},
      {"initial_trust_region", [](IdentificationOptions& o) { o.initial_trust_region = 1e17; }, "initial_trust_region: 1.0e17\n"},
      {"initial_trust_region", [](IdentificationOptions& o) { o.initial_trust_region = 1e-300; }, "initial_trust_region: 1.0e-300\n"},
      {"rel_sigma_flag", [](IdentificationOptions& o) { o.rel_sigma_flag = 1e300; }, "rel_sigma_flag: 1.0e300\n"},
      {"start.check_above_noise", [](IdentificationOptions& o) { o.start.check_above_noise = 1e9; },
       "start: {check_above_noise: 1.0e9}\n"},
      {"anchor.value",
       [](IdentificationOptions& o) { o.anchor = {AnchorKind::KnownParameter, sim::parameter_index("m_p"), 0}; },
       "anchor: {type: known_parameter, parameter: m_p, value: 0}\n"},
      {"anchor.parameter",
       [](IdentificationOptions& o) { o.anchor = {AnchorKind::KnownParameter, sim::parameter_index("fc1"), 1}; },
       "anchor: {type: known_parameter, parameter: fc1, value: 1}\n"},
  };
  return list;
}

}  // namespace

TEST(IdentificationOptions, DefaultsAndTheDefaultFileAreValid) {
  EXPECT_FALSE(IdentificationOptions{}.problem().has_value());
  EXPECT_NO_THROW(IdentificationOptions{}.validate());
  const auto cfg = load_identification_config(std::string(VCLOE_SOURCE_DIR) + "/config/identify.yaml");
  EXPECT_NO_THROW(cfg.options.validate());
}

TEST(IdentificationOptions, EachSettingOutOfRangeIsRefusedNamingTheOption) {
  for (const BadSetting& b : bad_settings()) {
    IdentificationOptions o;
    b.apply(o);
    const auto bad = o.problem();
    ASSERT_TRUE(bad.has_value()) << b.option;
    EXPECT_EQ(bad->key, b.option);
    const std::string e = error_of([&] { o.validate(); });
    EXPECT_NE(e.find(std::string("identification option '") + b.option + "'"), std::string::npos) << e;
    EXPECT_NE(e.find("expected"), std::string::npos) << e;
  }
}

TEST(IdentificationOptions, IdentifyRefusesThemBeforeAnyRun) {
  for (const BadSetting& b : bad_settings()) {
    IdentificationOptions o;
    o.anchor = {AnchorKind::KnownParameter, sim::parameter_index("m_p"), 1.0};
    b.apply(o);
    const std::string e = error_of([&] {  // no experiment: the options are checked first
      identify(test::default_robot(), test::default_priors(), servo::OuterGains{}, {}, o);
    });
    EXPECT_NE(e.find(std::string("'") + b.option + "'"), std::string::npos) << e;
  }
}

TEST(IdentificationOptions, TheSettingsFileReportsThemAtTheirKey) {
  for (const BadSetting& b : bad_settings()) {
    if (!b.yaml) continue;  // not a settings-file key
    const std::string e = error_of([&] { parse_identification_config(b.yaml, "id.yaml"); });
    EXPECT_EQ(e.rfind("id.yaml:1: key '", 0), 0u) << e;
    EXPECT_NE(e.find(b.option), std::string::npos) << e;
  }
  // The key itself where the file has it: its line and dotted path.
  const std::string e = error_of([] { parse_identification_config("threads: 2\nloss:\n  type: huber\n  scale: 0\n", "id.yaml"); });
  EXPECT_NE(e.find("id.yaml:4: key 'loss.scale': expected a scale (in sigmas) in [0.001, 1000], got 0"), std::string::npos) << e;
}

// Session 23: every real-valued key has both ends (docs/identification.md, "The settings' ranges"):
// the ends themselves are taken, a value beyond them refused at its line and key with the range.
TEST(IdentificationOptions, EveryRealValuedKeyIsBoundedOnBothSidesAndItsEndsAreTaken) {
  const char* ends =
      "noise_sigma: {position: 1.0e-9, angle: 0.1}\nloss: {type: cauchy, scale: 1.0e-3}\n"
      "stopping: {tol1: 0.999, stage_tol1: 1.0e-300, tol2: 0.999}\nprior_log_sigma: 100\n"
      "initial_trust_region: 1.0e16\nrel_sigma_flag: 10\nstart: {check_above_noise: 1000}\n";
  EXPECT_NO_THROW(parse_identification_config(ends, "id.yaml"));
  EXPECT_NO_THROW(parse_identification_config("noise_sigma: {position: 0.01, angle: 1.0e-9}\nloss: {scale: 1000}\n"
                                              "prior_log_sigma: 1.0e-3\ninitial_trust_region: 1.0e-32\n",
                                              "id.yaml"));
  EXPECT_EQ(parse_identification_config("prior_log_sigma: 0\n", "id.yaml").options.prior_log_sigma, 0);  // no prior
  struct Case {
    const char* yaml;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"threads: 2\nnoise_sigma:\n  position: 20\n",
            "id.yaml:3: key 'noise_sigma.position': expected a camera noise (m) in [1e-09, 0.01], got 20"},
           {"stopping:\n  tol1: 1.0e-3\n  tol2: 1\n",
            "id.yaml:3: key 'stopping.tol2': expected a relative parameter change in (0, 1), got 1"},
           {"prior_log_sigma: 1.0e-6\n",
            "id.yaml:1: key 'prior_log_sigma': expected 0 (no prior) or a width of log(value / start) in [0.001, 100], got 1e-06"},
           {"initial_trust_region: 1.0e300\n",
            "id.yaml:1: key 'initial_trust_region': expected a radius (1 / initial damping) in [1e-32, 1e+16], got 1e+300"},
           {"rel_sigma_flag: 15\n", "id.yaml:1: key 'rel_sigma_flag': expected a relative standard deviation in (0, 10], got 15"},
           {"start:\n  check_above_noise: 1.0e9\n",
            "id.yaml:2: key 'start.check_above_noise': expected camera sigmas (0: always; start.check: false for never) in [0, "
            "1000], got 1e+09"}}) {
    const std::string e = error_of([&] { parse_identification_config(c.yaml, "id.yaml"); });
    EXPECT_EQ(e, c.message);
  }
}

// The stuck test turned off is said by its own key, and the verdict says it was not checked
// (a threshold of 1e9 said "converged ... close enough to the noise" of any end).
TEST(IdentificationOptions, TheStuckTestIsTurnedOffByItsKeyAndTheVerdictSaysSo) {
  const auto cfg = parse_identification_config("start: {check: false}\n", "id.yaml");
  EXPECT_FALSE(cfg.options.start.check);
  EXPECT_TRUE(parse_identification_config("start: {check: true}\n", "id.yaml").options.start.check);
  ConvergenceCheck c;
  c.end_over_noise = 40;
  EXPECT_EQ(c.summary(), "The end point was not checked for a lower minimum (start.check: false): the fit ends at 40 x the camera noise.");
}

TEST(Payload, MakePayloadRefusesWhatNoBodyCanBe) {
  EXPECT_NO_THROW(make_payload(5.0, Vec3d(0.02, 0.02, 0.03), "test"));
  EXPECT_NO_THROW(make_payload(1.0, Vec3d::Zero(), "test"));  // a point mass
  for (double m : {0.0, -1.0, std::nan(""), 1e-300, 1e300}) {
    const std::string e = error_of([&] { make_payload(m, Vec3d(0.02, 0.02, 0.03), "--payload-mass"); });
    EXPECT_EQ(e.rfind("--payload-mass: ", 0), 0u) << e;
    EXPECT_NE(e.find("mass"), std::string::npos) << e;
  }
  EXPECT_NE(error_of([] { make_payload(5.0, Vec3d(0.02, -0.01, 0.03), "w"); }).find("non-negative"), std::string::npos);
  EXPECT_NE(error_of([] { make_payload(5.0, Vec3d(0.01, 0.01, 0.03), "w"); }).find("triangle inequality"),
            std::string::npos);
  EXPECT_NE(error_of([] { make_payload(1e-300, Vec3d::Zero(), "w"); }).find("expected a payload mass in [0.001, 10000] kg"),
            std::string::npos);
  EXPECT_NE(error_of([] { make_payload(5.0, Vec3d(1e5, 1e5, 1e5), "w"); }).find("at most 10000 kg*m^2"), std::string::npos);
}

TEST(Payload, APayloadOrKnownValueImplausibleForTheRobotIsRefusedBeforeAnyWork) {
  // Probe 19's units typed wrong: `run --payload-mass 5000` (grams) and an anchor m_p of 24000
  // were blamed on the drives or the priors after the run or fit failed. One check of what the
  // user types against the robot's priors (oe_ident/plausible.hpp), every command's.
  const sim::LambdaVector<double> priors = test::default_priors();  // m_p 24 kg, lp 360 N*m/rad
  auto payload = [&](double mass) {
    return implausible_for_robot(priors, "robot.yaml", Payload{mass, Vec3d(0.1, 0.1, 0.15)}, "--payload-mass");
  };
  EXPECT_EQ(payload(5.0), "");
  EXPECT_EQ(payload(240.0), "") << "ten times the platform: the bound itself";
  EXPECT_EQ(payload(5000.0), "--payload-mass: payload mass 5000 kg is 208 times the platform's 24 kg "
                             "(robot.yaml): expected a load in kg this robot carries, 0.001 to 240 kg (10 times the "
                             "platform's mass; a mass in grams?)");
  EXPECT_NE(payload(240.5), "");
  auto known = [&](const std::string& name, double value) {
    return implausible_for_robot(priors, "robot.yaml", std::nullopt, "",
                                 Anchor{AnchorKind::KnownParameter, sim::parameter_index(name), value}, "c.yaml");
  };
  EXPECT_EQ(known("m_p", 20), "");
  EXPECT_EQ(known("lp", 300), "");
  EXPECT_EQ(known("m_p", 24000), "c.yaml: key 'anchor.value': m_p 24000 kg is 1000 times its prior 24 kg (robot.yaml): "
                                 "expected the known value in kg, 2.4 to 240 kg (within a factor 10 of the prior; grams "
                                 "typed as kg?)");
  EXPECT_NE(known("m_p", 0.024).find("kg typed as tonnes?"), std::string::npos);
  EXPECT_NE(known("lp", 3.6e5).find("key 'anchor.value': lp 360000 N*m/rad"), std::string::npos);
  EXPECT_EQ(implausible_for_robot(priors, "robot.yaml", std::nullopt, "", Anchor{}, ""), "") << "nothing typed";
}

TEST(Payload, OneParserForTheSettingsKeyAndThePayloadFile) {
  auto parse = [](const std::string& text) { return parse_payload(YamlDoc::parse(text, "p.yaml").root()); };
  const Payload p = parse("mass: 5\ninertia: [0.02, 0.02, 0.03]\nnotes: steel disc\n");
  EXPECT_EQ(p.mass, 5.0);
  EXPECT_EQ(p.inertia, Vec3d(0.02, 0.02, 0.03));
  EXPECT_NE(error_of([&] { parse("mass: 5\ninertia: [0.02, 0.02, 0.03]\ncolour: red\n"); }).find("colour"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse("mass: 0\ninertia: [0.02, 0.02, 0.03]\n"); }).find("p.yaml:1: key 'mass'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse("mass: 5\ninertia: [0.1, 0.02, 0.03]\n"); }).find("p.yaml:2: key 'inertia'"),
            std::string::npos);
  // The same parser behind the settings file's 'payload:' key.
  const std::string e = error_of([] { parse_identification_config("payload:\n  mass: -5\n  inertia: [0, 0, 0]\n", "id.yaml"); });
  EXPECT_NE(e.find("id.yaml:2: key 'payload.mass'"), std::string::npos) << e;
}

TEST(Payload, AFuzzFoundControlByteInASyntaxErrorIsAOneLineError) {
  // fuzz/fuzz_payload: yaml-cpp's "unknown escape character" message quotes the raw byte.
  // Its NUL byte is now refused first (a file with control characters is no YAML text), on one line.
  const std::string file = test::fuzz_input("payload-control-char-in-a-syntax-error.yaml");
  std::string e = error_of([&] { load_payload(file); });
  EXPECT_EQ(e.rfind(file + ": is a binary file, not a YAML text file (byte 0x00 at offset 72", 0), 0u) << e;
  EXPECT_EQ(e.find_first_of(std::string("\r\n\x7f", 3)), std::string::npos) << e;
  e = error_of([] { parse_payload(std::string("mass: 5\ninertia: \"\\\x01\x7f\"\n"), "p.yaml"); });
  EXPECT_EQ(e, "p.yaml: is a binary file, not a YAML text file (byte 0x01 at offset 19 is a control character)");
  EXPECT_EQ(e.find_first_of(std::string("\x01\x7f", 2)), std::string::npos) << e;
}
