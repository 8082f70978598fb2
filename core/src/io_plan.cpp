// The one input/output check of a command (output_file.hpp: IoPlan).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <optional>
#include <map>
#include <set>

#include "vcloe/core/error.hpp"
#include "vcloe/core/recorded_files.hpp"
#include "vcloe/core/output_file.hpp"
#include "vcloe/core/subprocess.hpp"

namespace vcloe {

namespace {

namespace fs = std::filesystem;

// What makes two names one file: device and inode of what exists (through links), else the
// resolved absolute path of a file not yet there.
struct Identity {
  std::optional<std::pair<dev_t, ino_t>> node;
  std::string resolved;
};

Identity identity_of(const std::string& path) {
  Identity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) id.node = std::pair{st.st_dev, st.st_ino};
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(fs::absolute(path, ec), ec);
  id.resolved = ec ? fs::absolute(path, ec).lexically_normal().string() : resolved.string();
  return id;
}

bool same_file(const Identity& a, const Identity& b) {
  if (a.node && b.node) return *a.node == *b.node;
  return a.resolved == b.resolved;
}

std::string named(const std::string& path, const std::string& role) {
  return role.empty() ? path : path + ", " + role;
}

// The output's directory tried for real, as the writer will use it: a temporary file created
// there (create_beside) and removed. A read-only mount (EROFS), a directory without
// write permission (EACCES), no inode left (ENOSPC) are said now, with the system's reason,
// not after the work.
void check_directory_takes_a_file(const std::string& path, const std::string& dir) {
  const NewFile probe = create_beside(path, 0600);  // the writer's own way: no existing file touched
  if (probe.fd < 0)
    fail(path, "cannot be written: its directory " + dir + " takes no new file (" + std::strerror(probe.error) + ")");
  ::close(probe.fd);
  if (!probe.name.empty()) ::unlink(probe.name.c_str());  // the name it just made
}

// Why an output's directory is not one: a file on its way ("m.csv/o.yaml": m.csv is a file; probe
// 27, class A), else missing.
std::string not_a_directory(const fs::path& parent) {
  fs::path prefix;
  for (const fs::path& part : parent) {
    prefix /= part;
    std::error_code ec;
    const fs::file_status st = fs::status(prefix, ec);
    if (!fs::exists(st)) break;
    if (!fs::is_directory(st)) return prefix.string() + " is a file, not a directory";
  }
  return "its directory " + parent.string() + " does not exist";
}

// The output's own shape: name length, directory, no directory/device/pipe in the way.
void check_output_shape(const std::string& path) {
  if (path.empty()) fail("(empty output path)", "expected a file name");
  const fs::path p(path);
  // Room for the companions written beside it: <name>.meta.json, .report.json, .tmp-<pid>.
  if (const std::size_t n = p.filename().string().size(); n > kMaxOutputNameLength)
    fail(path, "a file name of " + std::to_string(n) + " characters; at most " + std::to_string(kMaxOutputNameLength) +
                   " (the system's 255 less room for the files written beside it)");
  const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  const fs::file_status dir = fs::status(parent, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
    fail(path, "its directory cannot be used: " + ec.message());
  if (!fs::is_directory(dir)) fail(path, not_a_directory(parent));
  const fs::file_status st = fs::status(p, ec);  // a symbolic-link loop, a name too long: said, not thrown
  if (ec && ec != std::errc::no_such_file_or_directory) fail(path, "cannot be written: " + ec.message());
  if (fs::is_directory(st)) fail(path, "is a directory, expected a file name");
  if (fs::exists(st) && !fs::is_regular_file(st)) fail(path, "is a device, pipe or socket, expected a file name");
}

// A name with a control character (a newline, a tab, an escape) cannot be said on one line — in
// what vcloe prints, in the sidecars and reports that record it — so no output takes one (probe
// 33, e06: `wrote s` and `.csv` on two lines). Said escaped (fail).
void check_output_name(const std::string& path) {
  if (std::any_of(path.begin(), path.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    fail(path, "a name with a control character (a newline, a tab, ...), which what vcloe prints and records "
               "could not say on one line; choose another name");
}

// An output folder holds nothing but this command's outputs: anything else there (an earlier
// run's frames beyond this one's) would be read with them as one folder.
void check_folder(const std::string& dir, const std::string& role, const std::vector<Identity>& out) {
  {
    std::set<std::pair<dev_t, ino_t>> nodes;  // a set: render writes thousands of images in one folder
    std::set<std::string> names;
    for (const Identity& o : out) {
      if (o.node) nodes.insert(*o.node);
      names.insert(o.resolved);
    }
    std::error_code ec;
    std::vector<std::string> other;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const Identity id = identity_of(it->path().string());
      if (id.node ? !nodes.count(*id.node) : !names.count(id.resolved)) other.push_back(it->path().filename().string());
    }
    if (other.empty()) return;
    std::sort(other.begin(), other.end());
    std::string list;
    for (std::size_t k = 0; k < other.size() && k < 4; ++k) list += (k ? ", " : "") + other[k];
    if (other.size() > 4) list += ", ...";
    fail(dir, "holds " + std::to_string(other.size()) + " file(s) this command does not write (" + list +
                     "), which would be read with what it writes as one folder (" + named(dir, role) +
                     "); remove them or choose another directory — --force replaces only the files it writes");
  }
}

// What a reader may open beside a file without being told: a trace's sidecar, a model's report.
constexpr const char* kSidecar = ".meta.json";
constexpr const char* kReport = ".report.json";
constexpr const char* kCompanions[] = {kSidecar, kReport};

// The outputs seen so far, found by what makes two names one file (same_file: the same device
// and inode, or the same resolved path), in log time: a study declares thousands.
class OutputsSeen {
 public:
  // The index of an earlier output that is `id`'s file, if any; else `id` is kept as `index`.
  std::optional<std::size_t> add(const Identity& id, std::size_t index) {
    if (id.node)
      if (auto it = nodes_.find(*id.node); it != nodes_.end()) return it->second;
    if (auto it = names_.find(id.resolved); it != names_.end()) return it->second;
    if (id.node) nodes_.emplace(*id.node, index);
    names_.emplace(id.resolved, index);
    return std::nullopt;
  }

 private:
  std::map<std::pair<dev_t, ino_t>, std::size_t> nodes_;
  std::map<std::string, std::size_t> names_;
};

bool exists_as_entry(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

// An output named as the companion of a file there that this command does not write
// (`predict --out x.csv.meta.json` beside the trace x.csv): it would take that file's sidecar or
// report away, so it is refused even with --force (probe 33, o09).
void check_not_a_companion(const std::string& path, const std::vector<Identity>& outputs) {
  for (const char* companion : kCompanions) {
    const std::string suffix = companion;
    if (path.size() <= suffix.size() || path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string owner = path.substr(0, path.size() - suffix.size());
    const Identity id = identity_of(owner);
    if (!exists_as_entry(owner) || std::any_of(outputs.begin(), outputs.end(), [&](const Identity& o) { return same_file(o, id); }))
      continue;
    fail(path, "is the " + std::string(suffix == kSidecar ? "sidecar" : "identification report") + " of " + owner +
                   ", which this command does not write; refusing to replace it even with --force (give the output "
                   "its own name)");
  }
}

// A program and its temporary directory, as the step that runs it will need them.
void check_program(const std::string& name, const std::string& path, const std::string& role, const std::string& install) {
  const std::string who = role.empty() ? "it" : role;
  if (find_program(name).empty())
    fail(path, who + " needs " + name + ", which is not found on PATH; " + install + "; nothing was run");
  const TemporaryDirectory tried(path, who);  // made and removed: TMPDIR missing, read-only or full is said now
}

}  // namespace

// Every file read comes with the companions a reader may open beside it without being told
// (a trace's sidecar, a model's identification report): inputs too, whichever reader runs.
// The files those companions record (a trace's reference, a pre-corrected command's model, the
// trace a model was identified from: files_recorded_in) are inputs too, with their companions:
// the recording that names them is the user's, and is void once one of them is replaced. One
// level: what a recorded file's own companions record is not followed.
// A directory read (a --keys directory, a folder of images): every file in it is read.
IoPlan& IoPlan::input(const std::string& path, const std::string& role) {
  if (path.empty()) return *this;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return input_folder(path, role);
  auto with_companions = [&](const std::string& file, const std::string& as) {
    inputs_.push_back({file, as});
    for (const char* companion : kCompanions) inputs_.push_back({file + companion, "the companion of " + named(file, as)});
  };
  with_companions(path, role);
  for (const char* companion : kCompanions)
    for (const RecordedInput& r : files_recorded_in(path + companion, path))
      with_companions(r.path, "the " + r.key + " recorded in " + path + companion);
  return *this;
}

IoPlan& IoPlan::input_trace(const std::string& path, const std::string& role) { return input(path, role); }

IoPlan& IoPlan::input_folder(const std::string& dir, const std::string& role) {
  if (dir.empty()) return *this;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return input(dir, role);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (std::error_code e2; fs::is_regular_file(it->path(), e2))
      input(it->path().string(), role.empty() ? "in " + dir : role + " " + dir);
  return *this;
}

IoPlan& IoPlan::within(const std::string& dir) {
  within_ = dir;
  return *this;
}

namespace {
// The directories between `dir` and the file `path` names under it, refused if one is a symbolic link.
void check_stays_within(const std::string& path, const std::string& dir) {
  const fs::path rel = fs::path(path).lexically_relative(dir);
  if (rel.empty() || *rel.begin() == "..") return;  // not under it
  fs::path at = dir;
  for (auto part = rel.begin(); std::next(part) != rel.end(); ++part) {
    at /= *part;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(at, ec)))
      fail(at.string(), "is a symbolic link (to " + fs::read_symlink(at, ec).string() + "), not a directory of its own: " + path +
                            " would be written where it points, outside " + dir + "; remove it");
  }
}
}  // namespace

IoPlan& IoPlan::output(const std::string& path, const std::string& role) {
  if (!path.empty()) outputs_.push_back({path, role});
  return *this;
}

IoPlan& IoPlan::output_folder(const std::string& dir, const std::string& role) {
  if (!dir.empty()) folders_.push_back({dir, role});
  return *this;
}

IoPlan& IoPlan::recording(const std::string& path, const std::string& role) {
  if (!path.empty()) outputs_.push_back({path, role, true});
  return *this;
}

IoPlan& IoPlan::output_trace(const std::string& path, const std::string& role) {
  if (path.empty()) return *this;
  output(path, role);
  return output(path + kSidecar, "the sidecar of " + path);
}

IoPlan& IoPlan::output_model(const std::string& path, const std::string& role) {
  if (path.empty()) return *this;
  output(path, role);
  return output(path + kReport, "the report of " + path);
}

IoPlan& IoPlan::planned(const std::string& path, const std::string& role, Written what) {
  if (path.empty()) return *this;
  outputs_.push_back({path, role, false, true});
  if (what == Written::trace) outputs_.push_back({path + kSidecar, "the sidecar of " + path, false, true});
  if (what == Written::model) outputs_.push_back({path + kReport, "the report of " + path, false, true});
  return *this;
}

IoPlan& IoPlan::program(const std::string& name, const std::string& path, const std::string& role,
                        const std::string& install) {
  if (!path.empty()) programs_.push_back({name, path, role, install});
  return *this;
}

std::vector<std::string> IoPlan::output_paths() const {
  std::vector<std::string> paths;
  for (const Entry& o : outputs_) paths.push_back(o.path);
  return paths;
}

void IoPlan::check() const {
  std::vector<Identity> in;
  for (const Entry& e : inputs_) in.push_back(identity_of(e.path));
  std::vector<Identity> out;
  OutputsSeen seen;
  std::set<std::string> tried;  // each output directory tried once (render: thousands of images in one)
  for (const Entry& f : folders_) check_output_name(f.path);
  for (const Entry& o : outputs_) {
    check_output_name(o.path);
    if (!within_.empty()) check_stays_within(o.path, within_);
    if (!o.planned) {  // a planned output: whoever writes it checks its shape and folder, when it does
      check_output_shape(o.path);
      const fs::path p(o.path);
      const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
      if (tried.insert(dir).second) check_directory_takes_a_file(o.path, dir);
    }
    // Identity first: a file that is one of this command's inputs (or outputs) is refused as
    // such, whatever it holds — a reference named like control's partial is an input, not an
    // earlier recording (probe 24's E).
    const Identity id = identity_of(o.path);
    for (std::size_t i = 0; i < inputs_.size(); ++i)
      if (same_file(id, in[i]))
        fail(o.path, "is also an input of this command (" + named(inputs_[i].path, inputs_[i].role) +
                         "); refusing to overwrite it even with --force");
    if (const auto k = seen.add(id, out.size()))
      fail(o.path, "is also another output of this command (" + named(outputs_[*k].path, outputs_[*k].role) +
                       "); two outputs cannot share one file");
    if (!o.planned) {
      if (being_recorded(o.path))
        fail(o.path, kBeingRecorded);
      if (o.recording && holds_a_recording(o.path)) fail(o.path, earlier_recording_kept(o.path));
    }
    out.push_back(id);
  }
  for (const Entry& o : outputs_)
    if (!o.planned) check_not_a_companion(o.path, out);
  for (const Entry& f : folders_) check_folder(f.path, f.role, out);
  if (!force_)
    for (const Entry& o : outputs_)
      if (!o.planned && exists_as_entry(o.path)) fail(o.path, "exists; pass --force to overwrite");
  for (const Program& p : programs_) check_program(p.name, p.path, p.role, p.install);
}

void check_output_path(const std::string& path, bool force, const std::vector<NamedInput>& inputs, const std::string& role) {
  IoPlan plan(force);
  for (const NamedInput& i : inputs) plan.input(i.path, i.role);
  plan.output(path, role).check();
}

void create_output_directory(const std::string& dir) {
  if (dir.empty()) fail("(empty directory name)", "expected a directory");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail(dir, "cannot create the directory (" + ec.message() + ")");
}

void create_inner_directory(const std::string& dir) {
  std::error_code ec;
  fs::path link(dir);
  if (!link.has_filename()) link = link.parent_path();  // "D/truth-1/": lstat of "D/truth-1" (a slash follows the link)
  if (fs::is_symlink(fs::symlink_status(link, ec)))
    fail(link.string(), "is a symbolic link (to " + fs::read_symlink(link, ec).string() + "), not a directory of its own: the " +
                            "files written here would land where it points, outside the output directory; remove it");
  create_output_directory(dir);
}

}  // namespace vcloe
