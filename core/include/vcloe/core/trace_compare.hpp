#pragma once
// vcloe/core/trace_compare.hpp — per-axis differences of two pose traces (seed 004 Table 3
// form): RMS and max of A - B in mm and mrad, at A's timestamps; B is linearly interpolated
// when the time grids differ.
#include <array>
#include <string>

#include "vcloe/core/trace.hpp"

namespace vcloe {

enum class TraceColumns { Measured, Truth, Reference };
TraceColumns trace_columns_from_string(const std::string& name);
const std::vector<Vec6d>& columns_of(const PoseTrace& t, TraceColumns which, const std::string& name);

struct TraceDifference {
  std::array<double, 3> rms_mm{}, max_mm{};      // x, y, z
  std::array<double, 3> rms_mrad{}, max_mrad{};  // alpha, beta, gamma
  std::size_t samples = 0;
  bool interpolated = false;  // B resampled onto A's times
};

// Throws vcloe::Error if B does not cover A's time span or a column set is missing.
TraceDifference compare_traces(const PoseTrace& a, const PoseTrace& b, TraceColumns which_a, TraceColumns which_b,
                               const std::string& name_a = "A", const std::string& name_b = "B");

}  // namespace vcloe
