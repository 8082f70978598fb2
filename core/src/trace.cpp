#include "vcloe/core/trace.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>
#include <sstream>

#include "vcloe/core/error.hpp"
#include "vcloe/core/yaml_reader.hpp"

namespace vcloe {

namespace {

const char* const kPose[6] = {"x", "y", "z", "alpha", "beta", "gamma"};

std::vector<std::string> columns_for(const std::string& prefix) {
  std::vector<std::string> c;
  for (const char* p : kPose) c.push_back(prefix + p);
  return c;
}
std::vector<std::string> command_columns() {
  std::vector<std::string> c;
  for (int i = 1; i <= 6; ++i) c.push_back("cmd_theta" + std::to_string(i));
  return c;
}

}  // namespace

std::string sidecar_path(const std::string& trace_path) { return trace_path + ".meta.json"; }

void write_file_atomically(const std::string& path, const std::string& text, bool force) {
  namespace fs = std::filesystem;
  if (fs::exists(path) && !force) fail(path, "exists; pass --force to overwrite");
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) fail(path, "cannot write (directory missing or not writable?)");
    out << text;
    out.flush();
    if (!out) fail(path, "write failed");
  }
  fs::rename(tmp, path);
}

void write_trace(const std::string& path, const PoseTrace& t, bool force) {
  const std::size_t n = t.time.size();
  if (n == 0) fail(path, "refusing to write an empty trace");
  auto check = [&](const std::vector<Vec6d>& v, const char* what, bool required) {
    if ((required || !v.empty()) && v.size() != n)
      fail(path, std::string(what) + " has " + std::to_string(v.size()) + " rows, time has " + std::to_string(n));
  };
  check(t.measured, "measured", true);
  check(t.reference, "reference", false);
  check(t.command, "command", false);
  check(t.truth, "truth", false);
  if (!force) {
    if (std::filesystem::exists(path)) fail(path, "exists; pass --force to overwrite");
    if (std::filesystem::exists(sidecar_path(path))) fail(sidecar_path(path), "exists; pass --force to overwrite");
  }
  std::vector<std::string> header = {"time"};
  auto add = [&](const std::vector<std::string>& c) { header.insert(header.end(), c.begin(), c.end()); };
  if (!t.reference.empty()) add(columns_for("ref_"));
  add(columns_for(""));
  if (!t.command.empty()) add(command_columns());
  if (!t.truth.empty()) add(columns_for("true_"));
  std::string out;
  out.reserve(n * 200);
  for (std::size_t c = 0; c < header.size(); ++c) out += (c ? "," : "") + header[c];
  out += '\n';
  auto put = [&](const Vec6d& v) {
    for (int c = 0; c < 6; ++c) out += "," + exact_number(v(c));
  };
  for (std::size_t i = 0; i < n; ++i) {
    out += exact_number(t.time[i]);
    if (!t.reference.empty()) put(t.reference[i]);
    put(t.measured[i]);
    if (!t.command.empty()) put(t.command[i]);
    if (!t.truth.empty()) put(t.truth[i]);
    out += '\n';
  }
  write_file_atomically(path, out, force);
  write_file_atomically(sidecar_path(path), t.metadata.dump(2) + "\n", force);
}

PoseTrace read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, std::filesystem::exists(path) ? "cannot read" : "file not found");
  std::string line;
  if (!std::getline(in, line)) fail(path, "empty file (expected a header row)");
  std::vector<std::string> header;
  {
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) header.push_back(cell);
  }
  auto find = [&](const std::string& name) {
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == name) return static_cast<int>(c);
    return -1;
  };
  auto group = [&](const std::vector<std::string>& names, bool required) {
    std::array<int, 6> idx{};
    int found = 0;
    for (int c = 0; c < 6; ++c) found += (idx[static_cast<std::size_t>(c)] = find(names[static_cast<std::size_t>(c)])) >= 0;
    if (found == 6) return std::optional<std::array<int, 6>>(idx);
    if (found > 0 || required) {
      for (int c = 0; c < 6; ++c)
        if (idx[static_cast<std::size_t>(c)] < 0)
          fail(path + ":1", "missing column '" + names[static_cast<std::size_t>(c)] + "'");
    }
    return std::optional<std::array<int, 6>>();
  };
  const int time_col = find("time");
  if (time_col < 0) fail(path + ":1", "missing column 'time'");
  const auto meas = group(columns_for(""), true);
  const auto ref = group(columns_for("ref_"), false);
  const auto cmd = group(command_columns(), false);
  const auto tru = group(columns_for("true_"), false);

  PoseTrace t;
  std::vector<double> row(header.size());
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    std::size_t col = 0, start = 0;
    for (; col < header.size(); ++col) {
      const std::size_t end = line.find(',', start);
      const std::string cell = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
      double v = 0;
      const auto r = std::from_chars(cell.data(), cell.data() + cell.size(), v);
      if (r.ec != std::errc() || r.ptr != cell.data() + cell.size())
        fail(path + ":" + std::to_string(line_no), "column '" + header[col] + "': expected a number, got '" + cell + "'");
      if (!std::isfinite(v))
        fail(path + ":" + std::to_string(line_no), "column '" + header[col] + "': non-finite value '" + cell + "'");
      row[col] = v;
      if (end == std::string::npos) {
        ++col;
        break;
      }
      start = end + 1;
      if (col + 1 == header.size())
        fail(path + ":" + std::to_string(line_no), "more than the " + std::to_string(header.size()) + " columns of the header");
    }
    if (col != header.size())
      fail(path + ":" + std::to_string(line_no),
           "expected " + std::to_string(header.size()) + " columns, got " + std::to_string(col));
    const double time = row[static_cast<std::size_t>(time_col)];
    if (!t.time.empty() && !(time > t.time.back()))
      fail(path + ":" + std::to_string(line_no), "time " + exact_number(time) + " s does not increase (previous " +
                                                     exact_number(t.time.back()) + " s)");
    t.time.push_back(time);
    auto take = [&](const std::array<int, 6>& idx) {
      Vec6d v;
      for (int c = 0; c < 6; ++c) v(c) = row[static_cast<std::size_t>(idx[static_cast<std::size_t>(c)])];
      return v;
    };
    t.measured.push_back(take(*meas));
    if (ref) t.reference.push_back(take(*ref));
    if (cmd) t.command.push_back(take(*cmd));
    if (tru) t.truth.push_back(take(*tru));
  }
  if (t.time.empty()) fail(path, "no data rows");
  const std::string meta = sidecar_path(path);
  if (std::filesystem::exists(meta)) {
    std::ifstream m(meta);
    try {
      t.metadata = nlohmann::json::parse(m);
    } catch (const nlohmann::json::exception& e) {
      fail(meta, std::string("invalid JSON: ") + e.what());
    }
    t.has_sidecar = true;
  }
  return t;
}

// ---- SHA-256 (FIPS 180-4) ----------------------------------------------------------------

std::string sha256(const std::string& bytes) {
  static const std::uint32_t K[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
      0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
      0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
      0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
      0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
      0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
      0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m = bytes;
  const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
  m += static_cast<char>(0x80);
  while (m.size() % 64 != 56) m += '\0';
  for (int i = 7; i >= 0; --i) m += static_cast<char>((bits >> (8 * i)) & 0xff);
  auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (std::size_t off = 0; off < m.size(); off += 64) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = (static_cast<std::uint32_t>(static_cast<unsigned char>(m[off + 4 * i])) << 24) |
             (static_cast<std::uint32_t>(static_cast<unsigned char>(m[off + 4 * i + 1])) << 16) |
             (static_cast<std::uint32_t>(static_cast<unsigned char>(m[off + 4 * i + 2])) << 8) |
             static_cast<std::uint32_t>(static_cast<unsigned char>(m[off + 4 * i + 3]));
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const std::uint32_t ch = (e & f) ^ (~e & g);
      const std::uint32_t t1 = hh + S1 + ch + K[i] + w[i];
      const std::uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const std::uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
      const std::uint32_t t2 = S0 + mj;
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  std::ostringstream hex;
  hex << std::hex;
  for (std::uint32_t v : h) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", v);
    hex << buf;
  }
  return hex.str();
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot read (for its hash)");
  std::stringstream s;
  s << in.rdbuf();
  return sha256(s.str());
}

}  // namespace vcloe
