#pragma once
// vcloe/core/output_file.hpp — how every command writes a file and decides what it may write.
//
// One writer: every file a command leaves (traces, sidecars, YAML, JSON, HTML, PNG, CSV) is
// written by write_file_atomically — a temporary file in the same directory, written, fsync'd,
// renamed over the name, the directory fsync'd — so the old file is intact on any failure (a
// full disk, a quota, a kill) and a symbolic link at the name is replaced, never written
// through. A file that grows while a run records (control's TRACE.partial) is a StreamedFile:
// created anew, never opened through a link.
//
// One input/output check: each command collects every file it reads (given, recorded in
// sidecars and reports, the images of a folder, companions) and every file it writes in an
// IoPlan and checks it before any work: outputs that are inputs (the same file under any name:
// device and inode; for files not yet there, the resolved path) or that are each other are
// refused naming both.
#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace vcloe {

// Writes `text` to `path` through a temporary file in the same directory: anonymous (Linux's
// O_TMPFILE), written, fsync'd, then linked to a fresh name (`path.tmp-<pid>`, or `-2`, `-3`, …
// after it when a name is taken) and renamed over `path`; where the file system has no O_TMPFILE
// it is created under that fresh name (O_EXCL, O_NOFOLLOW) instead. No file this process did not
// create is ever removed: a write killed between the link and the rename leaves its
// `path.tmp-<pid>`, which no command deletes (a user's file of that name is never touched);
// every failure (no directory, a directory in the way, the disk full, a file-size limit: the
// system's own reason) is a vcloe::Error saying that the old file, if any, is left as it was.
// Without `force` the last step never replaces a file (renameat2 RENAME_NOREPLACE, else link(2)):
// a file that appeared at the name while the command ran (another writer) is left as it is, and
// this command's result is kept beside it as `<stem>.kept-<pid><ext>` and said so in the error.
void write_file_atomically(const std::string& path, const std::string& text, bool force);

// Files that belong together (a trace and its sidecar, a model and its report), written as one:
// every file complete under its temporary name first, then renamed in the order given (put the
// one that records the others' hashes first: a kill between renames leaves a pair whose hashes
// disagree, refused on read, never a silently mismatched one). On any failure before the first
// rename nothing is replaced; without `force`, both or neither: if one name is taken meanwhile,
// the ones already renamed are taken back and the whole group is kept under `.kept-<pid>` names
// (a companion `X.meta.json` of `X` as `X'.meta.json` of the kept `X'`, so the pair still reads).
// A group is renamed under flock(2) on its directory: two writers of one pair with `force`
// never leave the CSV of one beside the sidecar of the other.
struct FileText {
  std::string path, text;
};
void write_files_atomically(const std::vector<FileText>& files, bool force);

// A group produced one file at a time and placed as one (render's images and their truth, a
// set of hundreds of MB): add() writes that file's complete temporary beside its name at once
// (fsync'd, not held in memory; anonymous while the group holds fewer than a quarter of the
// process's descriptors, named `path.tmp-<pid>` at once after that), commit() places every file
// as write_files_atomically does (it is a FileGroup: the same order, flock, RENAME_NOREPLACE
// without force, the group taken back and kept on a collision). A failure in any add() or before
// commit's first rename leaves every name as it was and no temporary beside it; the error names
// the set: "written together, none of <members> was" (`members`, e.g. "the 12 images and
// truth.csv of img"; empty: a group of one file, "… is left as it was" / "nothing was written").
// The destructor discards every temporary not placed (a group abandoned by an exception).
class FileGroup {
 public:
  explicit FileGroup(std::string members = "");
  ~FileGroup();
  FileGroup(const FileGroup&) = delete;
  FileGroup& operator=(const FileGroup&) = delete;
  void add(const std::string& path, const std::string& text);  // throws vcloe::Error (disk full, ...)
  void commit(bool force);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// A file written as it grows, each write reaching the file at once (a live recording). Opening
// removes an existing entry at the name (a file, or a symbolic link — the link, never its
// target) when `force`, and creates the file anew (O_EXCL | O_NOFOLLOW). An earlier recording
// there (holds_a_recording: rows after its header, e.g. an interrupted run's TRACE.partial) is
// the user's data: refused even with `force` (earlier_recording_kept says how to keep it). The file is held under
// flock(2) while open, so another command sees it is live (being_recorded) and refuses it even
// with --force, instead of advising --force and clobbering the recording.
class StreamedFile {
 public:
  StreamedFile() = default;
  StreamedFile(const StreamedFile&) = delete;
  StreamedFile& operator=(const StreamedFile&) = delete;
  ~StreamedFile();
  void open(const std::string& path, bool force);
  void write(const std::string& text);  // throws vcloe::Error naming the file (disk full, ...)
  void close();
  bool is_open() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
  std::string path_;
};

// A private directory for intermediate files (plot data, figures before they are embedded):
// made by mkdtemp(3) under TMPDIR (else /tmp), mode 0700, removed with everything in it when the
// object goes. Throws vcloe::Error "<where>: <who> needs a directory for temporary files:
// TMPDIR=<dir>: <reason>" if it cannot be made.
class TemporaryDirectory {
 public:
  TemporaryDirectory(const std::string& where, const std::string& who);
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A new empty file beside `path` (in its directory), for writing: anonymous (O_TMPFILE; `name`
// empty) where the file system has it, else created under a fresh name (`path.tmp-<pid>[-N]`,
// O_EXCL, O_NOFOLLOW: never an existing file or a link). `fd` -1 and `error` the errno if neither
// can be made. The caller closes `fd`, and removes `name` if it keeps no file.
struct NewFile {
  int fd = -1;
  int error = 0;
  std::string name;
};
NewFile create_beside(const std::string& path, mode_t mode);
// The fallback alone: always under a fresh name.
NewFile create_named_beside(const std::string& path, mode_t mode);

// Longest output file name: the system's 255 less room for <name>.meta.json.tmp-<pid>.
inline constexpr std::size_t kMaxOutputNameLength = 231;

// The files one command reads and writes, checked together before any work.
class IoPlan {
 public:
  explicit IoPlan(bool force) : force_(force) {}
  // A file read (empty: ignored), with the companions any reader may open beside it (`.meta.json`,
  // `.report.json`). `role` names it in messages ("--robot", "recorded in x.meta.json"). A
  // directory read (a --keys directory): every file in it, as input_folder.
  IoPlan& input(const std::string& path, const std::string& role = "");
  // A trace read: the CSV and its sidecar (`.meta.json`) — input() says it already.
  IoPlan& input_trace(const std::string& path, const std::string& role = "");
  // Every regular file of a directory read as a folder of images (a file: itself).
  IoPlan& input_folder(const std::string& dir, const std::string& role = "");
  // A file written (empty: ignored).
  IoPlan& output(const std::string& path, const std::string& role = "");
  // A trace written: the CSV and its sidecar.
  IoPlan& output_trace(const std::string& path, const std::string& role = "");
  // A model written: the YAML file and its identification report (`<model>.report.json`).
  IoPlan& output_model(const std::string& path, const std::string& role = "");
  // A file an orchestrating command (study, demo) or one of its steps will write in the directory
  // it makes, declared before any step runs (`what`: the file alone, or with its companion as a
  // trace or a model writes it): checked here against every input and every other output, even
  // with force. Its directory, its shape and whether it may be replaced are checked by whoever
  // writes it, when it does (the directory may not exist yet; OutputDirectory has claimed
  // whether the command's directory may be used).
  enum class Written { file, trace, model };
  IoPlan& planned(const std::string& path, const std::string& role, Written what = Written::file);
  // The outputs declared so far, in order (companions included).
  std::vector<std::string> output_paths() const;
  // A directory whose files are read as one folder (render's images): it may hold nothing but
  // this plan's outputs, even with force (an earlier run's extra frames would be read with them).
  IoPlan& output_folder(const std::string& dir, const std::string& role = "");
  // A recording written as it grows (a StreamedFile: control's TRACE.partial): an output that,
  // even with force, may not replace an earlier recording (holds_a_recording).
  IoPlan& recording(const std::string& path, const std::string& role = "");
  // A program a step of the command runs for `path` (gnuplot drawing a figure of it), on files
  // in a private temporary directory (TemporaryDirectory): found on PATH, and such a directory
  // made and removed under TMPDIR, with the outputs, before any work — a fit of minutes never
  // ends in "gnuplot not found" (probe 25's B). `install`: how to get it, said when it is missing.
  IoPlan& program(const std::string& name, const std::string& path, const std::string& role, const std::string& install);
  // The directory the command claimed for its files (a study's --dir, OutputDirectory): every
  // output under it stays in it — no directory between it and an output's name may be a symbolic
  // link, through which the command's writes (with force, over any file of the same name) would
  // land outside (session 29's probe, D). Checked by check() for every output, planned or not.
  IoPlan& within(const std::string& dir);
  // Each output: its name fits, its directory exists and takes a new file (one is created and
  // removed there: a read-only mount, a directory without write permission, no inode left are
  // said with the system's reason before any work), it is no directory, device or pipe, it
  // does not exist unless force; it is no input, no other output and no recording in progress
  // (being_recorded) or earlier recording (holds_a_recording, for recording()), even with
  // force — identity first: an output that is an input is refused as an input, whatever it
  // holds; a planned() output only against the inputs and the other outputs. Throws
  // vcloe::Error naming both files of a collision. Then each program().
  void check() const;

 private:
  struct Entry {
    std::string path, role;
    bool recording = false;
    bool planned = false;  // written later, in a directory that may not exist yet (planned())
  };
  struct Program {
    std::string name, path, role, install;
  };
  bool force_;
  std::string within_;
  std::vector<Entry> inputs_, outputs_, folders_;
  std::vector<Program> programs_;
};

// True if `path` is a StreamedFile another process holds open (a recording in progress).
bool being_recorded(const std::string& path);
// The one refusal of an output being_recorded, with or without --force (probe 34, O002: without
// it the advice was "pass --force", which would overwrite the recording).
inline constexpr char kBeingRecorded[] =
    "is being recorded by another running command (it holds the file open); choose another name — --force would "
    "overwrite a recording in progress";
// True if `path` is a regular file with anything after its first line (the header): rows an
// earlier run recorded. earlier_recording_kept: the refusal's text (what to do with it).
bool holds_a_recording(const std::string& path);
std::string earlier_recording_kept(const std::string& path);

// One output (the file of option `role`) checked alone against `inputs`, each {path, its option}:
// an IoPlan of one output, whose refusal names the input's option ("(ex.yaml, --experiment)").
struct NamedInput {
  std::string path, role;
};
void check_output_path(const std::string& path, bool force, const std::vector<NamedInput>& inputs = {},
                       const std::string& role = "--out");

// Creates an output directory and its parents (as mkdir -p); an empty name, a loop, a file in
// the way or a place the system refuses is a vcloe::Error naming it.
void create_output_directory(const std::string& dir);
// A directory a command makes inside the output directory it claimed (a study's truth-K/, its
// slurm/): made, or used when it is a real directory — never through a symbolic link, which would
// carry the command's writes (with --force, over any file of the same name) out of that directory
// (session 29's probe, D). A link there is refused naming it and where it points.
void create_inner_directory(const std::string& dir);

// An output directory given as `option` (study --dir, study merge --out, demo --dir), claimed
// before any work: made with mkdir(2) (its missing parents too, as mkdir -p), so that of two
// commands given one new directory at once exactly one has it. Without `force` a directory
// already there is refused ("exists; pass --force to overwrite <what> in it"), with `force` it
// is used; a file there is refused as such ("is a file; --dir names a directory"). Held for the
// command's run: when it goes (a later check refused, the command failed or ended), each
// directory it made that is still empty is removed — a refusal leaves nothing behind, a
// directory with files in it is kept. Throws vcloe::Error naming the directory.
class OutputDirectory {
 public:
  OutputDirectory(const std::string& dir, bool force, const std::string& option, const std::string& what);
  OutputDirectory(OutputDirectory&& other) noexcept;
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;
  OutputDirectory& operator=(OutputDirectory&&) = delete;
  ~OutputDirectory();
  const std::string& path() const { return path_; }
  bool made() const { return made_self_; }  // this command made it (else: there, used with force)

 private:
  bool make(const std::filesystem::path& p, bool claim, bool force, const std::string& option, const std::string& what);
  void release() noexcept;
  std::string path_;
  std::vector<std::string> made_;  // the directories made, outermost first
  bool made_self_ = false;
};

}  // namespace vcloe
