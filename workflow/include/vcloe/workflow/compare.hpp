#pragma once
// `vcloe compare`: per-axis RMS and max of the pose difference of two traces (Li et al. 2019,
// Table 3 form), printed as a table or JSON, optionally plotted (Fig. 12 form).
#include <string>

namespace vcloe::workflow {

struct CompareOptions {
  std::string a, b, plot, columns = "measured", columns_b;  // columns_b empty: as a
  bool json = false, force = false;

  void validate() const;  // the plot's path checked before any work
};

void compare(const CompareOptions& options);

}  // namespace vcloe::workflow
