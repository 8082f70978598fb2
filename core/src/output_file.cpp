// The one writer and the one input/output check (output_file.hpp).
#include "vcloe/core/output_file.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "vcloe/core/error.hpp"
#include "vcloe/core/file_extension.hpp"
#include "vcloe/core/input_ledger.hpp"
#include "write_all.hpp"

namespace vcloe {

using file_io::write_all;
using file_io::write_failure;

namespace {

namespace fs = std::filesystem;

std::string errno_text(int e) { return std::strerror(e); }

fs::path parent_of(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); }

// A fresh name beside `path` for its content: `path.tmp-<pid>`, then `path.tmp-<pid>-2`, … —
// whatever holds a name already (a user's file, a link, another writer's) is passed over, never
// removed: `make(name)` returns 0 once it has made the name, or the errno (EEXIST: try the next).
template <class Make>
std::pair<std::string, int> fresh_name(const std::string& path, Make make) {
  const std::string base = path + ".tmp-" + std::to_string(::getpid());
  for (int n = 1;; ++n) {
    std::string name = n == 1 ? base : base + "-" + std::to_string(n);
    const int e = make(name);
    if (e != EEXIST || n == 1000) return {std::move(name), e};
  }
}

// What is left of the old file after a failure, for the message.
std::string old_file_note(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec)) ? "; " + path + " is left as it was" : "; nothing was written";
}

// The same for a group that failed before any of its files was put in place: the set named
// ("nothing was written" of one file read as "of the command" while its other output was there:
// session 21's probe, class O). `members` empty: a group of one file.
std::string group_note(const std::string& members, const std::string& path) {
  if (members.empty()) return old_file_note(path);
  return "; written together, none of " + members + " was (an old one is left as it was)";
}

// The names of a group as its messages say them: "A", "A and B", "A, B and C".
std::string member_names(const std::vector<FileText>& files) {
  if (files.size() == 1) return "";
  std::string names;
  for (std::size_t i = 0; i < files.size(); ++i)
    names += (i == 0 ? "" : i + 1 == files.size() ? " and " : ", ") + files[i].path;
  return names;
}

// `path` is (still) the file of that device and inode, not followed if a link.
bool is_ours_inode(const std::string& path, dev_t device, ino_t inode) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && st.st_dev == device && st.st_ino == inode;
}

}  // namespace

// (Named, not anonymous: FileGroup::State holds them.)
namespace file_group {

// A file descriptor closed with its owner.
class OwnedFd {
 public:
  explicit OwnedFd(int fd = -1) : fd_(fd) {}
  OwnedFd(OwnedFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  OwnedFd& operator=(OwnedFd&& o) noexcept {
    reset();
    fd_ = std::exchange(o.fd_, -1);
    return *this;
  }
  ~OwnedFd() { reset(); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// A file complete, anonymous (O_TMPFILE: `anonymous` open, `path` empty) until it is given a
// name, and what identifies it (to take back only our own).
struct Temporary {
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
  OwnedFd anonymous;
};

}  // namespace file_group

namespace {

using file_group::OwnedFd;
using file_group::Temporary;

// Removes a temporary this process made, and nothing else: a named one only while its name is
// still our file; an anonymous one vanishes with its descriptor.
void discard(Temporary& t) {
  t.anonymous.reset();
  if (!t.path.empty() && is_ours_inode(t.path, t.device, t.inode)) ::unlink(t.path.c_str());
}


// Creates the temporary file anew (never through a link, never an existing file), writes and
// syncs it: anonymous in the target's directory, or named where O_TMPFILE is not supported.
Temporary write_temporary(const std::string& path, const std::string& text, const std::string& group) {
  Temporary t;
  NewFile made = create_beside(path, 0666);
  if (made.fd < 0)
    fail(path, "cannot be written (" + errno_text(made.error) + (made.error == ENOENT ? ": its directory is missing" : "") +
                   ")" + group_note(group, path));
  const int fd = made.fd;
  t.path = made.name;
  if (made.name.empty()) t.anonymous = OwnedFd(fd);
  int e = write_all(fd, text);
  struct stat st {};
  if (e == 0 && ::fstat(fd, &st) != 0) e = errno;
  if (e == 0 && ::fsync(fd) != 0) e = errno;
  t.device = st.st_dev;
  t.inode = st.st_ino;
  if (!made.name.empty() && ::close(fd) != 0 && e == 0) e = errno;
  if (e != 0) {
    discard(t);
    fail(path, write_failure(e) + group_note(group, path));
  }
  return t;
}

// An anonymous temporary linked to a fresh name beside `path` (linkat never replaces), just
// before it is renamed over `path`: a write killed before this left nothing behind.
void name_temporary(Temporary& t, const std::string& path, const std::string& group) {
  if (!t.path.empty()) return;
  const std::string proc = "/proc/self/fd/" + std::to_string(t.anonymous.get());
  auto [name, e] = fresh_name(path, [&](const std::string& n) {
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, n.c_str(), AT_SYMLINK_FOLLOW) == 0) return 0;
    if (errno != ENOENT) return errno;  // ENOENT: no /proc; linked by the descriptor itself
    return ::linkat(t.anonymous.get(), "", AT_FDCWD, n.c_str(), AT_EMPTY_PATH) == 0 ? 0 : errno;
  });
  if (e != 0) fail(path, "cannot be put in place (" + errno_text(e) + ")" + group_note(group, path));
  t.path = name;
  t.anonymous.reset();
}

// The directory's entry made durable (the rename survives a power loss).
void sync_directory(const std::string& path) {
  const int fd = ::open(parent_of(fs::path(path)).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Held while a group's files are renamed: every vcloe writer renames its group under flock(2)
// on the directory, so two writers of one pair with --force never interleave (the CSV of one
// beside the sidecar of the other, which the reader then refuses). Held for the renames only;
// where the directory cannot be locked (a file system without flock) the renames go on unlocked.
class RenameLock {
 public:
  explicit RenameLock(const std::string& path)
      : fd_(::open(parent_of(fs::path(path)).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    while (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~RenameLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  RenameLock(const RenameLock&) = delete;
  RenameLock& operator=(const RenameLock&) = delete;

 private:
  int fd_;
};

// rename(2) replaces the name itself: a symbolic link there is replaced, its target untouched.
void move_into_place(const std::string& tmp, const std::string& path) {
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot replace it (" + errno_text(e) + ")" + old_file_note(path));
  }
}

// rename(2) that never replaces: renameat2's RENAME_NOREPLACE (Linux 3.15), else, on a file
// system without it, link(2) (which never replaces either) and unlink(2). 0 or the errno.
int rename_no_replace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  if (::link(from.c_str(), to.c_str()) != 0) return errno;
  ::unlink(from.c_str());
  return 0;
}

bool is_ours(const std::string& path, const Temporary& t) { return is_ours_inode(path, t.device, t.inode); }

// Where a group's file is kept when its name was taken meanwhile: `o.csv` -> `o.kept-<pid>.csv`,
// and a companion named after another file of the group keeps that relation
// (`o.csv.meta.json` -> `o.kept-<pid>.csv.meta.json`).
std::string kept_name(const std::vector<std::string>& files, const std::string& path) {
  std::string base = path;
  for (const std::string& f : files)
    if (f.size() < base.size() && path.compare(0, f.size(), f) == 0) base = f;
  const fs::path b(base);
  const std::string kept = (b.parent_path() / (b.stem().string() + ".kept-" + std::to_string(::getpid()) +
                                               b.extension().string())).string();
  return kept + path.substr(base.size());
}

// Without --force: every file renamed without replacing, or none (see the header).
void place_without_replacing(const std::vector<std::string>& files, std::vector<Temporary>& tmp,
                             const std::string& group) {
  std::size_t placed = 0;
  int e = 0;
  for (; placed < files.size(); ++placed)
    if ((e = rename_no_replace(tmp[placed].path, files[placed])) != 0) break;
  if (e == 0) return;
  for (std::size_t j = 0; j < placed; ++j)  // taken back, if still ours
    if (is_ours(files[j], tmp[j])) rename_no_replace(files[j], tmp[j].path);
  const std::string& taken = files[placed];
  if (e != EEXIST) {
    for (Temporary& t : tmp) discard(t);
    fail(taken, "cannot be put in place (" + errno_text(e) + ")" + group_note(group, taken));
  }
  std::vector<std::string> kept;  // all of the group, or none
  for (std::size_t j = 0; j < files.size(); ++j) {
    const std::string k = kept_name(files, files[j]);
    if (kept.size() == j && rename_no_replace(tmp[j].path, k) == 0) kept.push_back(k);
    else discard(tmp[j]);
  }
  if (kept.size() != files.size())
    for (const std::string& k : kept) ::unlink(k.c_str());
  std::string where = "this command's result could not be kept beside it";
  if (kept.size() == files.size()) {
    std::string base = files.front();
    for (const std::string& f : files) base = f.size() < base.size() ? f : base;
    where = "this command's result is kept as " + kept_name(files, base);
    if (files.size() > 1) where += " (and its " + std::to_string(files.size() - 1) + " companion" + (files.size() > 2 ? "s" : "") + ")";
  }
  fail(taken, "exists (written meanwhile by another command?) and is not replaced without --force; " + where);
}

// A name a file of a group may have: not empty, no directory (nor a link to one).
void check_file_name(const std::string& path) {
  if (path.empty()) fail("(empty output path)", "expected a file name");
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  if (fs::is_directory(link) || (fs::is_symlink(link) && fs::is_directory(fs::status(path, ec))))
    fail(path, "is a directory, expected a file name");
}

// How many temporaries a group keeps anonymous (one open descriptor each): a quarter of the
// process's descriptors; the ones after are given their names at once.
std::size_t anonymous_bound() {
  struct rlimit r {};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 256;
  return std::max<std::size_t>(16, static_cast<std::size_t>(r.rlim_cur / 4));
}

}  // namespace

struct FileGroup::State {
  std::string members;
  std::vector<std::string> paths;
  std::vector<file_group::Temporary> tmp;
  std::size_t anonymous = 0, anonymous_bound = vcloe::anonymous_bound();
};

FileGroup::FileGroup(std::string members) : state_(std::make_unique<State>()) { state_->members = std::move(members); }

FileGroup::~FileGroup() {
  for (Temporary& t : state_->tmp) discard(t);
}

void FileGroup::add(const std::string& path, const std::string& text) {
  State& g = *state_;
  check_file_name(path);
  Temporary t = write_temporary(path, text, g.members);
  if (t.path.empty() && ++g.anonymous > g.anonymous_bound) {
    try {
      name_temporary(t, path, g.members);
    } catch (const Error&) {
      discard(t);
      throw;
    }
  }
  g.paths.push_back(path);
  g.tmp.push_back(std::move(t));
}

void FileGroup::commit(bool force) {
  State& g = *state_;
  if (g.paths.empty()) return;
  std::vector<Temporary> tmp = std::move(g.tmp);
  g.tmp.clear();
  const std::vector<std::string>& files = g.paths;
  std::optional<RenameLock> lock;
  try {
    lock.emplace(files.front());
    for (std::size_t i = 0; i < files.size(); ++i) name_temporary(tmp[i], files[i], g.members);
  } catch (const Error&) {
    for (Temporary& t : tmp) discard(t);
    throw;
  }
  if (!force) place_without_replacing(files, tmp, g.members);
  for (std::size_t i = 0; force && i < files.size(); ++i) {
    try {
      move_into_place(tmp[i].path, files[i]);
    } catch (const Error&) {
      for (std::size_t j = i + 1; j < files.size(); ++j) discard(tmp[j]);
      throw;
    }
  }
  std::set<std::string> directories;  // each synced once: a render puts thousands of files in one
  for (const std::string& f : files) {
    if (directories.insert(parent_of(fs::path(f)).string()).second) sync_directory(f);
    forget_input(f);
  }
}

std::string file_extension(const std::string& path) {
  std::string e = fs::path(path).extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

void write_file_atomically(const std::string& path, const std::string& text, bool force) {
  write_files_atomically({{path, text}}, force);
}

void write_files_atomically(const std::vector<FileText>& files, bool force) {
  for (const FileText& f : files) check_file_name(f.path);
  FileGroup group(member_names(files));
  for (const FileText& f : files) group.add(f.path, f.text);
  group.commit(force);
}
NewFile create_beside(const std::string& path, mode_t mode) {
  NewFile f;
  f.fd = ::open(parent_of(fs::path(path)).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
  if (f.fd >= 0) return f;
  f.error = errno;
  if (f.error != EOPNOTSUPP && f.error != EISDIR) return f;  // EISDIR: a kernel without O_TMPFILE
  return create_named_beside(path, mode);
}

NewFile create_named_beside(const std::string& path, mode_t mode) {
  NewFile f;
  std::tie(f.name, f.error) = fresh_name(path, [&](const std::string& n) {
    f.fd = ::open(n.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    return f.fd >= 0 ? 0 : errno;
  });
  if (f.fd < 0) f.name.clear();
  return f;
}

}  // namespace vcloe
