// An output directory claimed before any work (output_file.hpp: OutputDirectory).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "vcloe/core/error.hpp"
#include "vcloe/core/output_file.hpp"

namespace vcloe {

namespace {

namespace fs = std::filesystem;

bool is_a_directory(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

OutputDirectory::OutputDirectory(const std::string& dir, bool force, const std::string& option, const std::string& what)
    : path_(dir) {
  if (dir.empty()) fail("(empty directory name)", "expected a directory");
  try {
    fs::path p(dir);
    while (p.has_relative_path() && p.filename().empty()) p = p.parent_path();  // "d/" is d
    std::vector<fs::path> missing;  // the parents not there yet, nearest first (made as mkdir -p)
    std::error_code ec;
    for (fs::path q = p.parent_path(); !q.empty() && q != q.root_path() && !fs::exists(fs::symlink_status(q, ec));
         q = q.parent_path())
      missing.push_back(q);
    for (auto q = missing.rbegin(); q != missing.rend(); ++q) make(*q, false, force, option, what);
    made_self_ = make(p, true, force, option, what);
  } catch (...) {
    release();  // a refusal leaves no directory this command made
    throw;
  }
}

// mkdir(2) of one directory; true if this call made it. A parent already there is used; the
// output directory itself already there is refused without force: of two commands given one new
// directory, exactly one makes it (the other is told it exists, as a file written meanwhile is).
bool OutputDirectory::make(const fs::path& p, bool claim, bool force, const std::string& option, const std::string& what) {
  if (::mkdir(p.c_str(), 0777) == 0) {
    made_.push_back(p.string());
    return true;
  }
  const int error = errno;
  if (error != EEXIST) fail(p.string(), "cannot create the directory (" + std::string(std::strerror(error)) + ")");
  if (!is_a_directory(p)) fail(p.string(), claim ? "is a file; " + option + " names a directory" : "is a file, expected a directory");
  if (claim && !force) fail(path_, "exists; pass --force to overwrite " + what + " in it");
  return false;
}

OutputDirectory::OutputDirectory(OutputDirectory&& other) noexcept
    : path_(std::move(other.path_)), made_(std::move(other.made_)), made_self_(other.made_self_) {
  other.made_.clear();
}

OutputDirectory::~OutputDirectory() { release(); }

void OutputDirectory::release() noexcept {
  for (auto d = made_.rbegin(); d != made_.rend(); ++d)
    if (::rmdir(d->c_str()) != 0) break;  // not empty (the command wrote there): kept, and its parents
  made_.clear();
}

}  // namespace vcloe
