#pragma once
// vcloe/core/input_ledger.hpp — what a command read, hashed from the bytes it parsed.
//
// While an InputLedger is open (one per command: apps/main opens it), every file read through
// read_input_file (every reader of vcloe's own files) is recorded by its resolved path with the
// SHA-256 of the very bytes returned to the parser. The hash a command records (file_record:
// trace sidecars, reports) is then that of what it parsed — never of what is on disk after a
// fit or a run, when the file may have been edited or replaced — and a file read a second time
// with other bytes is refused naming it. A file this process writes itself is forgotten.
#include <optional>
#include <string>

namespace vcloe {

class InputLedger {
 public:
  InputLedger();
  ~InputLedger();
  InputLedger(const InputLedger&) = delete;
  InputLedger& operator=(const InputLedger&) = delete;
};

// Called by read_input_file with the bytes it read: recorded, or compared with an earlier read
// of the same file (a vcloe::Error naming it if they differ). Nothing without an open ledger.
void note_input_read(const std::string& path, const std::string& bytes);
// The same with a hash already taken (sha256_file of a file not parsed).
void note_input_hash(const std::string& path, const std::string& sha256);
// The SHA-256 of the bytes this command read from `path`, if it read it under an open ledger.
std::optional<std::string> hash_of_bytes_read(const std::string& path);
// `path` written by this process: what it read there before is no longer an input's content.
void forget_input(const std::string& path);

}  // namespace vcloe
