// `vcloe filter`: zero-phase Butterworth low-pass (scipy sosfiltfilt) of a trace's measured
// poses, offline only (vision::filter_trace; docs/vision.md, Zero-phase filter).
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "vcloe/vision/filter_trace.hpp"

namespace vcloe::app {

void add_filter_command(CLI::App& app) {
  auto o = std::make_shared<vision::FilterTraceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "filter", "Zero-phase Butterworth low-pass (scipy sosfiltfilt) of a trace's measured poses, offline only");
  cmd->add_option("trace", o->in, "trace CSV to filter (docs/traces.md)")->required();
  cmd->add_option("--out", o->out, "filtered trace CSV to write")->required();
  cmd->add_option("--order", o->order, "filter order (seed 004: 8)")->capture_default_str();
  const CLI::Option* cutoff =
      cmd->add_option("--cutoff", o->cutoff,
                      "cut-off frequency (Hz; seed 004: 60; if not given and not below the trace's Nyquist\n"
                      "frequency, 0.6 x Nyquist, with a note)")
          ->capture_default_str();
  cmd->add_flag("--force", o->force, "overwrite an existing output");
  cmd->callback([o, cutoff] {
    o->cutoff_given = cutoff->count() > 0;
    std::cout << vision::filter_trace(*o, std::cout).text;
  });
}

}  // namespace vcloe::app
