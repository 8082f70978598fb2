#pragma once
// vcloe/core/input_file.hpp — the one way vcloe reads an input file whole: every reader of a YAML
// file, a trace, a sidecar or report (JSON), a key file, an image list or an image goes through it.
//
// The file's size is taken from the opened descriptor (fstat) and checked against the bound of its
// kind before a byte is read: a 50 GB sparse trace was read whole (never ended), a 600 MB YAML
// file under a memory limit ended in "internal error: std::bad_alloc" (session 23's probe, A).
// Memory running out while the file is read or parsed is said of the file, in one line.
#include <cstdint>
#include <new>
#include <optional>
#include <string>

#include "vcloe/core/error.hpp"

namespace vcloe {

// What an input file is, for its size bound (docs/robustness.md "Every file read").
enum class InputKind {
  Yaml,       // settings, robot, reference, experiment, payload, model, rig, markers: 16 MiB
  Trace,      // a CSV of samples (pose trace, prediction, pre-correction, static poses): kMaxSeriesBytes
  Json,       // a sidecar, report, validation, study or calibration: 64 MiB
  KeyFile,    // a rig key: 1 MiB
  ImageList,  // a list of image pairs: 64 MiB
  Image,      // a camera image: 1 GiB
};

// The largest file of `kind` read, in bytes.
std::uint64_t input_size_bound(InputKind kind);
// "a file of N bytes; a trace of at most M bytes expected" when `bytes` exceeds the bound.
std::optional<std::string> input_size_problem(std::uint64_t bytes, InputKind kind);

// The bytes of `path`, after require_input_file and the size bound of `kind`, recorded in the
// input ledger (input_ledger.hpp): a reader's path version reads with it and hands the text to
// its parse-from-string version (one parser per file kind).
std::string read_input_file(const std::string& path, InputKind kind);

// "not enough memory to read <path> (N bytes)": std::bad_alloc while `path` is read or parsed.
[[noreturn]] void fail_out_of_memory(const std::string& path);

// read_input_file handed to `parse` (a callable taking the bytes): std::bad_alloc in either is
// fail_out_of_memory, never an internal error.
template <class Parse>
auto parse_input_file(const std::string& path, InputKind kind, Parse&& parse) -> decltype(parse(std::string())) {
  try {
    const std::string bytes = read_input_file(path, kind);
    return parse(bytes);
  } catch (const std::bad_alloc&) {
    fail_out_of_memory(path);
  }
}

}  // namespace vcloe
