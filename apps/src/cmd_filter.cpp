// `vcloe filter`: zero-phase Butterworth low-pass (scipy sosfiltfilt) of a trace's measured
// poses, offline only (vision::filter_trace; docs/vision.md, Zero-phase filter).
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "vcloe/vision/filter_trace.hpp"

namespace vcloe::app {

void add_filter_command(CLI::App& app) {
  auto o = std::make_shared<vision::FilterTraceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "filter", "Zero-phase Butterworth low-pass (scipy sosfiltfilt) of a trace's measured poses, offline only");
  cmd->add_option("trace", o->in, "trace CSV to filter (docs/traces.md)")->required();
  add_out_option(cmd, o->out, "filtered trace CSV to write")->required();
  cmd->add_option("--order", o->order, "filter order (Li et al. 2019: 8)")->capture_default_str();
  const CLI::Option* cutoff =
      cmd->add_option("--cutoff", o->cutoff,
                      "cut-off frequency (Hz; Li et al. 2019: 60; if not given and not below the trace's Nyquist\n"
                      "frequency, 0.6 x Nyquist, with a note)")
          ->capture_default_str();
  add_force_flag(cmd, o->force, "overwrite an existing output");
  cmd->callback([o, cutoff] {
    o->cutoff_given = cutoff->count() > 0;
    std::cout << vision::filter_trace(*o, std::cout).text;
  });
}

}  // namespace vcloe::app
