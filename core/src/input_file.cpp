#include "vcloe/core/input_file.hpp"

#include "vcloe/core/input_ledger.hpp"
#include "vcloe/core/series_size.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vcloe {

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

struct KindBound {
  const char* noun;
  std::uint64_t bytes;
};

// Each bound is far above the largest legitimate file measured (docs/robustness.md "Every file
// read"); a trace's is the series bound a run held in memory has (series_size.hpp).
KindBound bound_of(InputKind kind) {
  switch (kind) {
    case InputKind::Yaml: return {"a YAML file", 16 * kMiB};
    case InputKind::Trace: return {"a trace", static_cast<std::uint64_t>(kMaxSeriesBytes)};
    case InputKind::Json: return {"a JSON file", 64 * kMiB};
    case InputKind::KeyFile: return {"a key file", 1 * kMiB};
    case InputKind::ImageList: return {"an image list", 64 * kMiB};
    case InputKind::Image: return {"an image file", 1024 * kMiB};
  }
  return {"a file", 0};
}

std::string in_units(std::uint64_t bytes) {
  if (bytes % kMiB != 0) return std::to_string(bytes) + " bytes";
  const std::uint64_t mib = bytes / kMiB;
  return std::to_string(bytes) + " bytes (" + (mib % 1024 == 0 ? std::to_string(mib / 1024) + " GiB" : std::to_string(mib) + " MiB") + ")";
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads to the end of `fd`, `size` bytes expected; a file grown past the bound of `kind` while
// read is refused as one found that large.
std::string read_to_end(int fd, const std::string& path, std::uint64_t size, InputKind kind) {
  std::string bytes(static_cast<std::size_t>(size) + 1, '\0');  // one more: a file grown since fstat
  std::size_t got = 0;
  for (;;) {
    if (got == bytes.size()) {
      if (auto p = input_size_problem(got, kind)) fail(path, *p);  // at least `got` bytes now
      bytes.resize(bytes.size() + 64 * 1024);
    }
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, std::string("read failed: ") + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

}  // namespace

std::uint64_t input_size_bound(InputKind kind) { return bound_of(kind).bytes; }

std::optional<std::string> input_size_problem(std::uint64_t bytes, InputKind kind) {
  const KindBound b = bound_of(kind);
  if (bytes <= b.bytes) return std::nullopt;
  return "a file of " + std::to_string(bytes) + " bytes; " + b.noun + " of at most " + in_units(b.bytes) + " expected";
}

void fail_out_of_memory(const std::string& path) {
  struct stat st{};
  const std::string size = ::stat(path.c_str(), &st) == 0 ? " (" + std::to_string(st.st_size) + " bytes)" : "";
  throw Error("not enough memory to read " + path + size);
}

std::string read_input_file(const std::string& path, InputKind kind) {
  require_input_file(path);
  // O_NONBLOCK: a pipe put in the file's place since the check is refused below, not waited on.
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) fail(path, std::string("cannot open for reading: ") + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) fail(path, std::string("cannot read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path, "is a device, pipe or socket, expected a regular file");
  if (auto p = input_size_problem(static_cast<std::uint64_t>(st.st_size), kind)) fail(path, *p);
  std::string bytes;
  try {
    bytes = read_to_end(fd.get(), path, static_cast<std::uint64_t>(st.st_size), kind);
  } catch (const std::bad_alloc&) {
    fail_out_of_memory(path);
  }
  note_input_read(path, bytes);  // the hash of what the caller parses (input_ledger.hpp)
  return bytes;
}

}  // namespace vcloe
