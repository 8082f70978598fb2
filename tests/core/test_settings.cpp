// Specification of the settings convention (core/settings.hpp): throw_if is silent without a
// problem and throws "<where>: <message>" with one, the message alone when where is empty.
#include <gtest/gtest.h>

#include "../test_support.hpp"
#include "vcloe/core/settings.hpp"

using namespace vcloe;
using vcloe::test::error_of;

TEST(Settings, ThrowIfIsSilentWithoutAProblem) { EXPECT_NO_THROW(throw_if(std::nullopt, "exp.yaml")); }

TEST(Settings, ThrowIfNamesWhereThenTheMessage) {
  const SettingProblem p{"timing.substeps", "timing.substeps must be between 1 and 1000"};
  EXPECT_EQ(error_of([&] { throw_if(p, "exp.yaml"); }), "exp.yaml: timing.substeps must be between 1 and 1000");
  EXPECT_EQ(error_of([&] { throw_if(p, ""); }), "timing.substeps must be between 1 and 1000");
}
