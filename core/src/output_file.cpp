// The one writer and the one input/output check (output_file.hpp).
#include "vcloe/core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "vcloe/core/error.hpp"
#include "vcloe/core/input_ledger.hpp"

namespace vcloe {

namespace {

namespace fs = std::filesystem;

std::string errno_text(int e) { return std::strerror(e); }

fs::path parent_of(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); }

// Removes `path.tmp-<pid>` files whose writer process no longer exists (killed mid-write).
// Another live writer's file, and anything not named so, is left alone.
void remove_stale_temporaries(const std::string& path) {
  const fs::path p(path);
  const std::string prefix = p.filename().string() + ".tmp-";
  std::error_code ec;
  for (fs::directory_iterator it(parent_of(p), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    pid_t pid = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (r.ec != std::errc() || r.ptr != digits.data() + digits.size() || pid <= 0) continue;
    if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) fs::remove(it->path(), ec);
  }
}

// What is left of the old file after a failure, for the message.
std::string old_file_note(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec)) ? "; " + path + " is left as it was" : "; nothing was written";
}

// Writes all of `text` to fd; the errno of the failure, or 0.
int write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// Creates the temporary file anew (never through a link), writes and syncs it; its name.
std::string write_temporary(const std::string& path, const std::string& text) {
  remove_stale_temporaries(path);
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  ::unlink(tmp.c_str());  // our own name: a leftover of this process id, or a planted link
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0)
    fail(path, "cannot be written (" + errno_text(errno) + "; directory missing or not writable?)" + old_file_note(path));
  int e = write_all(fd, text);
  if (e == 0 && ::fsync(fd) != 0) e = errno;
  if (::close(fd) != 0 && e == 0) e = errno;
  if (e != 0) {
    ::unlink(tmp.c_str());
    fail(path, "write failed: " + errno_text(e) + (e == ENOSPC || e == EDQUOT || e == EFBIG ? " (disk full or over quota)" : "") +
                   old_file_note(path));
  }
  return tmp;
}

// The directory's entry made durable (the rename survives a power loss).
void sync_directory(const std::string& path) {
  const int fd = ::open(parent_of(fs::path(path)).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// rename(2) replaces the name itself: a symbolic link there is replaced, its target untouched.
void move_into_place(const std::string& tmp, const std::string& path) {
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot replace it (" + errno_text(e) + ")" + old_file_note(path));
  }
  sync_directory(path);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text, bool force) {
  write_files_atomically({{path, text}}, force);
}

void write_files_atomically(const std::vector<FileText>& files, bool force) {
  for (const FileText& f : files) {
    if (f.path.empty()) fail("(empty output path)", "expected a file name");
    std::error_code ec;
    const fs::file_status link = fs::symlink_status(f.path, ec);
    if (fs::is_directory(link) || (fs::is_symlink(link) && fs::is_directory(fs::status(f.path, ec))))
      fail(f.path, "is a directory, expected a file name");
    if (fs::exists(link) && !force) fail(f.path, "exists; pass --force to overwrite");
  }
  std::vector<std::string> tmp;
  try {
    for (const FileText& f : files) tmp.push_back(write_temporary(f.path, f.text));
  } catch (const Error&) {
    for (const std::string& t : tmp) ::unlink(t.c_str());
    throw;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    move_into_place(tmp[i], files[i].path);
    forget_input(files[i].path);
  }
}

TemporaryDirectory::TemporaryDirectory(const std::string& where, const std::string& who) {
  const char* env = std::getenv("TMPDIR");
  const std::string base = env && *env ? env : "/tmp";
  std::string pattern = base + "/vcloe-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    fail(where, who + " needs a directory for temporary files: " + std::string(env && *env ? "TMPDIR=" : "") + base +
                    ": " + errno_text(errno));
  path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

StreamedFile::~StreamedFile() {
  if (fd_ >= 0) ::close(fd_);
}

void StreamedFile::open(const std::string& path, bool force) {
  close();
  path_ = path;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (fs::is_directory(st)) fail(path, "is a directory, expected a file name");
  if (fs::exists(st)) {
    if (!force) fail(path, "exists; pass --force to overwrite");
    if (::unlink(path.c_str()) != 0) fail(path, "cannot replace it (" + errno_text(errno) + ")");
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd_ < 0) fail(path, "cannot be written (" + errno_text(errno) + ")");
}

void StreamedFile::write(const std::string& text) {
  if (fd_ < 0) fail(path_, "not open for writing");
  if (const int e = write_all(fd_, text); e != 0) fail(path_, "write failed: " + errno_text(e));
}

void StreamedFile::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace vcloe
