// The files that are not written in one go (output_file.hpp): a recording as it grows
// (StreamedFile, and what tells an earlier or a live recording), a private directory of
// temporaries (TemporaryDirectory).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"
#include "write_all.hpp"

namespace vcloe {

using file_io::write_all;
using file_io::write_failure;

TemporaryDirectory::TemporaryDirectory(const std::string& where, const std::string& who) {
  const char* env = std::getenv("TMPDIR");
  const std::string base = env && *env ? env : "/tmp";
  // Absolute: a relative TMPDIR ("t") is used by children in other working directories (gnuplot).
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(base, ec);
  std::string pattern = (ec ? std::filesystem::path(base) : absolute).string() + "/vcloe-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    fail(where, who + " needs a directory for temporary files: " + std::string(env && *env ? "TMPDIR=" : "") + base +
                    ": " + std::strerror(errno));
  path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

StreamedFile::~StreamedFile() {
  if (fd_ >= 0) ::close(fd_);
}

void StreamedFile::open(const std::string& path, bool force) {
  close();
  path_ = path;
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::symlink_status(path, ec);
  if (std::filesystem::is_directory(st)) fail(path, "is a directory, expected a file name");
  if (std::filesystem::exists(st)) {
    if (being_recorded(path)) fail(path, kBeingRecorded);
    if (!force) fail(path, "exists; pass --force to overwrite");
    if (holds_a_recording(path)) fail(path, earlier_recording_kept(path));
    if (::unlink(path.c_str()) != 0) {
      const int e = errno;
      fail(path, "cannot replace it (" + std::string(std::strerror(e)) + ")");
    }
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int e = errno;
    fail(path, "cannot be written (" + std::string(std::strerror(e)) + ")");
  }
  (void)::flock(fd_, LOCK_EX | LOCK_NB);  // the mark of a live recording (being_recorded); ours, just made
}

// Anything after the first line (a header): rows a run recorded. Read without following a link
// or blocking on a pipe; a link, an unreadable or empty file, a header alone hold none.
bool holds_a_recording(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool rows = false;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    char buf[4096];
    bool header_ended = false;
    for (ssize_t n; !rows && (n = ::read(fd, buf, sizeof buf)) > 0;)
      for (ssize_t i = 0; i < n && !rows; ++i) {
        if (header_ended) rows = true;
        else header_ended = buf[i] == '\n';
      }
  }
  ::close(fd);
  return rows;
}

std::string earlier_recording_kept(const std::string& path) {
  return "holds an earlier recording (rows after its header line), which --force does not discard: keep it under "
         "another name (e.g. mv " + path + " " + path + ".kept) or remove it, then run again";
}

bool being_recorded(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec))) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

void StreamedFile::write(const std::string& text) {
  if (fd_ < 0) fail(path_, "not open for writing");
  const off_t before = ::lseek(fd_, 0, SEEK_CUR);
  if (const int e = write_all(fd_, text); e != 0) {
    // What was written of `text` goes again: the file keeps whole writes (rows) only, never one
    // cut short by a full disk or a file-size limit (session 29's probe 30, C).
    if (before >= 0 && ::ftruncate(fd_, before) == 0) (void)::lseek(fd_, before, SEEK_SET);
    fail(path_, write_failure(e));
  }
}

void StreamedFile::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace vcloe
