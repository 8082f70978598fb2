// `vcloe study --slurm` (study_slurm.hpp): the study as a Slurm job array and a merge job.
#include "vcloe/workflow/study_slurm.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <sstream>

#include "study_files.hpp"
#include "study_reference.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/subprocess.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/report/study.hpp"

namespace vcloe::workflow {

namespace fs = std::filesystem;

namespace {

// Options the scripts set themselves: given again they would break the one-truth-per-task
// layout, the logs or the merge's dependency.
constexpr const char* kReserved[] = {"--array", "--output", "--error", "--dependency", "--wrap", "--parsable", "--wait"};

std::string absolute(const std::string& path) { return path.empty() ? path : fs::absolute(path).lexically_normal().string(); }

// The `vcloe study` words every task shares (all but --shard and --dir).
std::vector<std::string> shared_study_words(const StudyOptions& o) {
  std::vector<std::string> w = {"study", "--truths", std::to_string(o.truths), "--seed", std::to_string(o.seed), "--n",
                                std::to_string(o.n), "--reference", o.reference, "--priors", o.priors};
  if (!o.config.empty()) w.insert(w.end(), {"--config", o.config});
  if (!o.experiment.empty()) w.insert(w.end(), {"--experiment", o.experiment});
  if (o.unmodelled) w.push_back("--unmodelled");
  if (o.far) w.push_back("--far");
  if (o.departures.realistic) {
    const std::vector<std::string> r = realistic_words(o);
    w.insert(w.end(), r.begin(), r.end());
    const CalibrateKinematicsOptions& c = o.calibration;
    w.insert(w.end(), {"--calibration-poses", std::to_string(c.count), "--calibration-candidates", std::to_string(c.candidates),
                       "--calibration-move", exact_number(c.move_s), "--calibration-settle", exact_number(c.settle_s),
                       "--calibration-hold", exact_number(c.measure_s)});
  }
  w.insert(w.end(), {"--validation-duration", exact_number(o.validation_duration), "--quiet"});
  return w;
}

std::string script(const std::string& what, const std::string& line) {
  return "#!/bin/sh\n# " + what + ", written by `vcloe study --slurm` (docs/identification.md, \"Studies on a Slurm\n" +
         "# cluster\"); its sbatch options are given on sbatch's command line (study_slurm.cpp).\n" + line + "\n";
}

std::string command_line(const std::string& exe, const std::vector<std::string>& words) {
  std::string line = "exec " + shell_word(exe, "the vcloe executable");
  for (const std::string& w : words) line += " " + shell_word(w, w);
  return line;
}

// A Slurm job id: a whole number Slurm's 32-bit job_id holds, 0 and its NO_VAL (0xfffffffe) and
// above excluded (session 28's probe, G: a stand-in's "0" and a 23-digit answer were taken).
bool is_job_id(const std::string& number) {
  std::uint64_t v = 0;
  const char* end = number.data() + number.size();
  const auto [at, ec] = std::from_chars(number.data(), end, v);
  return !number.empty() && ec == std::errc() && at == end && v >= 1 && v < 0xfffffffeULL;
}

// The job id as --parsable prints it ("<id>" or "<id>;<cluster>"); nothing if none was printed.
std::string job_id(const std::string& printed) {
  std::istringstream lines(printed);
  std::string line, id;
  while (std::getline(lines, line)) {
    const std::string number = line.substr(0, line.find(';'));
    if (is_job_id(number)) id = number;
  }
  return id;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A file's text on one line, for an error.
std::string one_line(const std::string& path) {
  std::string text = read_text(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// Submits `script` with the user's options and `extra` (core's run_child: by argument vector, an
// interrupt passed on); its job id. sbatch's output goes to <script>.submitted and its errors to
// <script>.refused. With --wait (in `extra`) sbatch returns the job's own exit status: `waited`
// then says whether the job succeeded.
std::string submit(const StudyOptions& o, std::vector<std::string> extra, const std::string& script, bool* waited = nullptr) {
  const std::string sbatch = find_program(o.slurm.sbatch);
  if (sbatch.empty()) fail("study --slurm", "'" + o.slurm.sbatch + "' not found on PATH: run it where Slurm's sbatch is");
  std::vector<std::string> argv = {sbatch, "--parsable"};
  for (const std::string& option : o.slurm.sbatch_options) argv.push_back("--" + option);
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(script);
  const std::string out = SlurmFiles::submitted(script), err = SlurmFiles::refused(script);
  const ChildExit e = run_child(argv, {"", out, err});
  const std::string id = job_id(read_text(out));
  if (!e.ok() && !waited) fail(script, "sbatch refused it (" + e.describe() + "): " + one_line(err));
  if (id.empty())  // an sbatch that ignores --parsable, or a stand-in (probe 27, class F)
    fail(script, "sbatch (" + e.describe() + ") printed '" + one_line(out) + "' where a job id was expected (sbatch --parsable " +
                     "prints the id alone, a whole number from 1 to 4294967293)" + (read_text(err).empty() ? "" : "; it said: " + one_line(err)));
  if (waited) *waited = e.ok();
  return id;
}

}  // namespace

std::string shell_word(const std::string& text, const std::string& option) {
  if (text.find_first_of("\n\r") != std::string::npos)
    fail(option, "a line break cannot be written into a batch script; rename it");
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::optional<SettingProblem> slurm_problem(const StudyOptions& o) {
  auto name_char = [](char c) { return std::islower(static_cast<unsigned char>(c)) || c == '-'; };
  for (const std::string& option : o.slurm.sbatch_options) {
    if (option.find_first_of("\n\r") != std::string::npos)
      return SettingProblem{"--slurm-option", "--slurm-option: an sbatch option cannot hold a line break"};
    const std::string name = option.substr(0, option.find('='));
    if (name.empty() || name.front() == '-' || !std::all_of(name.begin(), name.end(), name_char))
      return SettingProblem{"--slurm-option", "--slurm-option: expected an sbatch option's long name and value without "
                                              "the dashes, such as partition=batch, got '" + option + "'"};
    for (const char* reserved : kReserved)
      if ("--" + name == reserved)
        return SettingProblem{"--slurm-option", "--slurm-option: --" + name + " is set by vcloe study --slurm itself"};
  }
  if (o.shards != 1) return SettingProblem{"--shard", "--shard: --slurm makes the shards itself (one truth per task)"};
  return std::nullopt;
}

SlurmScripts slurm_scripts(const StudyOptions& o, const std::string& exe) {
  const std::string n = std::to_string(o.truths);
  const SlurmFiles files{o.dir};
  SlurmScripts s;  // the task's --dir: SlurmFiles::shard(K), K the task's number as the shell has it
  s.array = script("Task K of the job array: truth K of " + n,
                   command_line(exe, shared_study_words(o)) + " --shard \"$SLURM_ARRAY_TASK_ID/" + n + "\" --dir " +
                       shell_word(o.dir, "--dir") + SlurmFiles::kShard + "\"$SLURM_ARRAY_TASK_ID\"");
  std::vector<std::string> merge = {"study", "merge", "--force", "--out", o.dir};
  for (int k = 1; k <= o.truths; ++k) merge.push_back(files.shard(k));
  s.merge = script("The shards' tables joined", command_line(exe, merge));
  return s;
}

void study_on_slurm(StudyOptions o) {
  for (std::string* path : {&o.dir, &o.reference, &o.priors, &o.config, &o.experiment}) *path = absolute(*path);
  const OutputDirectory dir = o.validate();
  const SlurmFiles files{o.dir};
  const StudyFiles tables{o.dir};
  create_inner_directory(files.folder());
  excite_once(o);
  const SlurmScripts scripts = slurm_scripts(o, fs::read_symlink("/proc/self/exe").string());
  const std::string array = files.array(), merge = files.merge();
  write_file_atomically(array, scripts.array, true);
  write_file_atomically(merge, scripts.merge, true);
  const std::string array_job = submit(o, {"--job-name=vcloe-study", "--array=1-" + std::to_string(o.truths),
                                           "--output=" + files.task_logs()}, array);
  std::cout << "submitted job array " << array_job << " (" << o.truths << " tasks, one truth each; logs in "
            << files.folder() << "/)\n" << std::flush;
  std::vector<std::string> after = {"--job-name=vcloe-study-merge", "--dependency=afterany:" + array_job,
                                    "--output=" + files.merge_log()};
  if (!o.slurm.wait) {
    const std::string merge_job = submit(o, after, merge);
    std::cout << "submitted merge job " << merge_job << ": when it ends, the table is " << tables.table() << "\n";
    return;
  }
  after.push_back("--wait");
  bool merged = false;
  const std::string merge_job = submit(o, after, merge, &merged);
  if (!merged)
    fail("merge job " + merge_job, "failed: see " + files.merge_log() + " and the tasks' logs truth-K.out in " + files.folder());
  const report::StudyResult result = report::read_study(tables.json());
  std::cout << "\n" << report::markdown_table(result.rows, result.summary) << "wrote " << tables.table() << " and "
            << tables.json() << " (merge job " << merge_job << ")\n";
}

}  // namespace vcloe::workflow
