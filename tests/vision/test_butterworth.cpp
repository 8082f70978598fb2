// Specification of the zero-phase Butterworth filter (Li et al. 2019 §4.2, docs/design.md §7): design and
// sosfiltfilt agree with scipy 1.10 (vectors from scripts/gen_filter_vectors.py).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "vcloe/core/error.hpp"
#include "vcloe/vision/butterworth.hpp"

using namespace vcloe;
using namespace vcloe::vision;

namespace {

std::vector<std::filesystem::path> vector_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(VCLOE_SOURCE_DIR "/tests/data/filter"))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST(Butterworth, DesignAndSosfiltfiltMatchScipyVectors) {
  const auto files = vector_files();
  ASSERT_GE(files.size(), 8u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    std::ifstream in(f);
    const nlohmann::json doc = nlohmann::json::parse(in);
    const SosFilter sos = butterworth_lowpass(doc["order"].get<int>(), doc["cutoff_hz"].get<double>(),
                                              doc["sample_rate_hz"].get<double>());
    const auto& ref = doc["sos"];
    ASSERT_EQ(sos.size(), ref.size());
    double sos_err = 0;
    for (std::size_t s = 0; s < sos.size(); ++s)
      for (std::size_t j = 0; j < 6; ++j)
        sos_err = std::max(sos_err, std::abs(sos[s][j] - ref[s][j].get<double>()));
    EXPECT_LT(sos_err, 1e-12);
    EXPECT_EQ(sosfiltfilt_default_padlen(sos), doc["padlen"].get<int>());

    const auto x = doc["x"].get<std::vector<double>>();
    const auto y_ref = doc["y"].get<std::vector<double>>();
    const auto y = sosfiltfilt(sos, x);
    ASSERT_EQ(y.size(), y_ref.size());
    double err = 0;
    for (std::size_t i = 0; i < y.size(); ++i) err = std::max(err, std::abs(y[i] - y_ref[i]));
    EXPECT_LE(err, 1e-9);
    std::cout << "[ measured ] " << f.stem().string() << ": max |sos - scipy| " << sos_err
              << ", max |sosfiltfilt - scipy| " << err << "\n";
  }
}

TEST(Butterworth, PassesDcAndRemovesAboveCutoffWithZeroPhase) {
  const double fs = 500;
  const SosFilter sos = butterworth_lowpass(8, 60, fs);
  std::vector<double> x(2000);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double t = static_cast<double>(i) / fs;
    x[i] = 0.5 + std::sin(2 * M_PI * 5 * t) + 0.3 * std::sin(2 * M_PI * 150 * t);
  }
  const auto y = sosfiltfilt(sos, x);
  double err = 0;  // the 5 Hz component passes unshifted, the 150 Hz one is gone
  for (std::size_t i = 200; i < 1800; ++i) {
    const double t = static_cast<double>(i) / fs;
    err = std::max(err, std::abs(y[i] - (0.5 + std::sin(2 * M_PI * 5 * t))));
  }
  EXPECT_LT(err, 1e-3);
}

TEST(Butterworth, BadOrderCutoffOrShortSignalAreClearErrors) {
  EXPECT_THROW(butterworth_lowpass(0, 10, 100), Error);
  EXPECT_THROW(butterworth_lowpass(4, 0, 100), Error);
  EXPECT_THROW(butterworth_lowpass(4, 50, 100), Error);  // at Nyquist
  EXPECT_THROW(butterworth_lowpass(8, 60, 100), Error);  // the paper's 60 Hz needs fs > 120 Hz
  const SosFilter sos = butterworth_lowpass(8, 60, 500);
  try {
    sosfiltfilt(sos, std::vector<double>(27, 1.0));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 27"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sosfiltfilt(sos, std::vector<double>(28, 1.0)).size(), 28u);
}
