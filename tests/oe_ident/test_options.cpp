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
  EXPECT_NE(e.find("id.yaml:4: key 'loss.scale': expected a positive scale"), std::string::npos) << e;
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
