// SHA-256 of traces and configuration files (trace.hpp): OpenSSL's libcrypto, not our own.
#include <fstream>
#include <memory>
#include <openssl/evp.h>

#include "vcloe/core/error.hpp"
#include "vcloe/core/input_ledger.hpp"
#include "vcloe/core/trace.hpp"

namespace vcloe {

// ---- SHA-256 (FIPS 180-4), computed by OpenSSL's libcrypto (EVP digest API) ---------------

namespace {

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

// A context ready for SHA-256 input; a failure inside OpenSSL is a vcloe::Error.
DigestContext sha256_context() {
  DigestContext ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    fail("OpenSSL libcrypto", "cannot initialise the SHA-256 digest");
  return ctx;
}

void sha256_update(EVP_MD_CTX* ctx, const char* data, std::size_t size) {
  if (EVP_DigestUpdate(ctx, data, size) != 1) fail("OpenSSL libcrypto", "SHA-256 update failed");
}

// The digest in lower-case hex.
std::string sha256_hex(EVP_MD_CTX* ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx, digest, &size) != 1) fail("OpenSSL libcrypto", "SHA-256 finalisation failed");
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0x0f];
  }
  return hex;
}

}  // namespace

std::string sha256(const std::string& bytes) {
  const DigestContext ctx = sha256_context();
  sha256_update(ctx.get(), bytes.data(), bytes.size());
  return sha256_hex(ctx.get());
}

// Streams the file in 64 KiB chunks: a large trace is never held in memory whole.
std::string sha256_file(const std::string& path) {
  if (auto read = hash_of_bytes_read(path)) return *read;  // what this command parsed (input_ledger.hpp)
  std::string hash = sha256_file_now(path);
  note_input_hash(path, hash);
  return hash;
}

std::string sha256_file_now(const std::string& path) {
  require_input_file(path);  // a FIFO or /dev/zero recorded as an input would be read for ever
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot read (for its hash)");
  const DigestContext ctx = sha256_context();
  std::vector<char> chunk(64 * 1024);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::streamsize got = in.gcount();
    if (got > 0) sha256_update(ctx.get(), chunk.data(), static_cast<std::size_t>(got));
  }
  if (in.bad()) fail(path, "cannot read (for its hash)");
  return sha256_hex(ctx.get());
}

}  // namespace vcloe
