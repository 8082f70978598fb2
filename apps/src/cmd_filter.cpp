// `vcloe filter`: zero-phase Butterworth low-pass (scipy sosfiltfilt) of a trace's measured
// poses, offline only (seed 004 §4.2; docs/vision.md, Zero-phase filter).
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "vision_io.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/core/yaml_reader.hpp"
#include "vcloe/vision/butterworth.hpp"

namespace vcloe::app {

namespace fs = std::filesystem;

void add_filter_command(CLI::App& app) {
  struct Options {
    std::string in, out;
    int order = 8;
    double cutoff = 60;
    bool cutoff_given = false;
    bool force = false;

    void validate() const {
      if (order < 1 || order > 64) fail("--order", "expected a filter order of 1 to 64, got " + std::to_string(order));
      if (!(cutoff > 0 && std::isfinite(cutoff))) fail("--cutoff", "expected a positive frequency in Hz, got " + exact_number(cutoff));
      for (const std::string& f : {out, sidecar_path(out)}) check_output_path(f, force, {in, sidecar_path(in)});
    }
    // The cut-off for a trace sampled at fs_hz over span_s: --cutoff if given and valid (else an
    // error explaining the bound); the default 60 Hz if below Nyquist, else 0.6 x Nyquist with a
    // note. Below one cycle over the record the filter would return the mean: refused.
    double cutoff_for(double fs_hz, double span_s) const {
      const double nyquist = fs_hz / 2, lowest = 1 / span_s;
      const std::string rate = " of " + in + " (samples at " + exact_number(fs_hz) + " Hz)";
      double c = cutoff;
      if (cutoff_given && !(cutoff < nyquist))
        fail("--cutoff", "expected a cut-off below the Nyquist frequency " + exact_number(nyquist) + " Hz" + rate +
                             ", got " + exact_number(cutoff) + " Hz");
      if (!cutoff_given && !(cutoff < nyquist)) {
        c = 0.6 * nyquist;
        std::cout << "note: the default cut-off " << exact_number(cutoff) << " Hz is not below the Nyquist frequency "
                  << exact_number(nyquist) << " Hz" << rate << "; using " << exact_number(c)
                  << " Hz (0.6 x Nyquist); choose with --cutoff\n";
      }
      if (c < lowest)
        fail("--cutoff", exact_number(c) + " Hz is below one cycle over the " + exact_number(span_s) + " s record" + rate +
                             " (at least " + exact_number(lowest) + " Hz): the filter would return the mean");
      return c;
    }
  };
  auto o = std::make_shared<Options>();
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
    o->validate();
    PoseTrace t = read_trace(o->in);
    if (t.size() < 2) fail(o->in, "needs at least 2 samples to filter");
    const double span = t.time.back() - t.time.front();
    const double dt = span / static_cast<double>(t.size() - 1);
    for (std::size_t k = 1; k < t.size(); ++k)
      if (std::abs(t.time[k] - t.time[k - 1] - dt) > 1e-6 * dt + 1e-9)
        fail(o->in, "samples are not uniformly spaced (row " + std::to_string(k + 1) + ": step " +
                        exact_number(t.time[k] - t.time[k - 1]) + " s, mean " + exact_number(dt) +
                        " s); the filter needs a uniform rate (invalid frames leave gaps)");
    const double fs_hz = 1.0 / dt;
    const double cutoff_hz = o->cutoff_for(fs_hz, span);
    const vision::SosFilter sos = vision::butterworth_lowpass(o->order, cutoff_hz, fs_hz);
    for (int axis = 0; axis < 6; ++axis) {
      std::vector<double> x(t.size());
      for (std::size_t k = 0; k < t.size(); ++k) x[k] = t.measured[k](axis);
      if (axis >= 3)  // unwrap the angles so a +-pi crossing is not filtered as a jump
        for (std::size_t k = 1; k < x.size(); ++k) x[k] -= 2 * M_PI * std::round((x[k] - x[k - 1]) / (2 * M_PI));
      const std::vector<double> y = vision::sosfiltfilt(sos, x);
      for (std::size_t k = 0; k < t.size(); ++k)
        t.measured[k](axis) = axis >= 3 ? std::remainder(y[k], 2 * M_PI) : y[k];
    }
    t.metadata["filter"] = {{"type", "butterworth low-pass, zero-phase (scipy sosfiltfilt: odd padding, steady-state initial conditions)"},
                            {"order", o->order},
                            {"cutoff_hz", cutoff_hz},
                            {"sample_rate_hz", fs_hz},
                            {"padlen", vision::sosfiltfilt_default_padlen(sos)},
                            {"input", file_entry(o->in)}};
    write_trace(o->out, t, o->force);
    std::cout << "filtered the measured poses of " << o->in << " (" << t.size() << " samples at " << fixed(fs_hz, 3)
              << " Hz) with an order-" << o->order << " zero-phase Butterworth at " << cutoff_hz << " Hz\nwrote "
              << o->out << " and " << sidecar_path(o->out) << "\n";
  });
}

}  // namespace vcloe::app
