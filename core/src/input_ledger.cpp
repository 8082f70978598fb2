// What a command read (input_ledger.hpp).
#include "vcloe/core/input_ledger.hpp"

#include <filesystem>
#include <map>
#include <mutex>

#include "vcloe/core/error.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe {

namespace {

struct Ledger {
  std::mutex mutex;
  int open = 0;
  std::map<std::string, std::string> sha256;  // resolved path -> hash of the bytes read
};

Ledger& ledger() {
  static Ledger l;
  return l;
}

std::string key_of(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? std::filesystem::absolute(path).lexically_normal().string() : p.string();
}

}  // namespace

InputLedger::InputLedger() {
  const std::lock_guard<std::mutex> lock(ledger().mutex);
  ++ledger().open;
}

InputLedger::~InputLedger() {
  const std::lock_guard<std::mutex> lock(ledger().mutex);
  if (--ledger().open == 0) ledger().sha256.clear();
}

void note_input_hash(const std::string& path, const std::string& hash) {
  Ledger& l = ledger();
  const std::lock_guard<std::mutex> lock(l.mutex);
  if (l.open == 0) return;
  const auto [it, fresh] = l.sha256.emplace(key_of(path), hash);
  if (!fresh && it->second != hash)
    fail(path, "changed while this command was running (read twice, with different contents: edited or replaced "
               "meanwhile); nothing recorded from it, run the command again");
}

void note_input_read(const std::string& path, const std::string& bytes) {
  if (ledger().open == 0) return;
  note_input_hash(path, sha256(bytes));
}

std::optional<std::string> hash_of_bytes_read(const std::string& path) {
  Ledger& l = ledger();
  const std::lock_guard<std::mutex> lock(l.mutex);
  if (l.open == 0) return std::nullopt;
  const auto it = l.sha256.find(key_of(path));
  if (it == l.sha256.end()) return std::nullopt;
  return it->second;
}

void forget_input(const std::string& path) {
  Ledger& l = ledger();
  const std::lock_guard<std::mutex> lock(l.mutex);
  if (l.open > 0) l.sha256.erase(key_of(path));
}

}  // namespace vcloe
