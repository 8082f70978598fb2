#include "vcloe/rig/launch.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

#include "vcloe/bridge/security.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/subprocess.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/rig/roles.hpp"
#include "vcloe/rig/serve.hpp"
#include "vcloe/rig/setup.hpp"
#include "vcloe/servo/corrected_robot.hpp"
#include "vcloe/servo/timing.hpp"

namespace vcloe::rig {

namespace {

std::string number(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// `vcloe ROLE …` started by this very program, as core's ChildGroup starts any child: by argument
// vector, with the parent-death signal (a role ends when `rig run` does, even by SIGKILL).
void start(ChildGroup& group, const std::string& role, std::vector<std::string> args, const ChildIo& io) {
  static const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  args.insert(args.begin(), self);
  group.start(role, args, io);
}

// The whole text of a file, "" if it cannot be read.
std::string read_text_if_any(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return in ? text.str() : "";
}

// rig run's private directory (/tmp/vcloe-rig-XXXXXX, mode 0700): made at once, removed with
// everything in it when rig run leaves run_rig, by an error or the end. A rig run killed by
// SIGKILL cannot remove its own: its file `pid` names it, and the next rig run removes every
// such directory of this user whose rig run is no longer running (remove_abandoned).
class RigDirectory {
 public:
  RigDirectory() {
    const std::filesystem::path tmp = std::filesystem::temp_directory_path();
    remove_abandoned(tmp);
    std::string pattern = (tmp / "vcloe-rig-XXXXXX").string();
    if (!mkdtemp(pattern.data())) fail("rig run", "cannot create a directory for the ipc endpoints in /tmp");
    path_ = pattern;
    std::ofstream(path_ + "/pid") << ::getpid() << "\n";
  }
  ~RigDirectory() { remove(); }
  void remove() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  RigDirectory(const RigDirectory&) = delete;
  RigDirectory& operator=(const RigDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;

  // The directories of rig runs that ended without removing theirs: this user's, with a `pid`
  // file naming a process that no longer exists (kill(pid, 0): ESRCH). One without the file (made
  // before it was written) is left alone: nothing says whether its rig run still runs.
  static void remove_abandoned(const std::filesystem::path& tmp) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      struct stat st {};
      if (name.rfind("vcloe-rig-", 0) != 0 || ::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
          st.st_uid != ::getuid())
        continue;
      long pid = 0;
      if (!(std::ifstream(it->path() / "pid") >> pid) || pid <= 0) continue;
      if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
      std::error_code ignored;
      std::filesystem::remove_all(it->path(), ignored);
    }
  }
};

void append(std::vector<std::string>& to, const std::vector<std::string>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

// A role's endpoints: the rig's, with --plain-tcp only for a role that binds a stream other hosts
// reach (`bound`, "cpks"): to the others it would have no effect, which they refuse (open_tcp_problem).
RigEndpoints role_endpoints(const RigEndpoints& e, const std::string& bound) {
  RigEndpoints role = e, plain = e;
  plain.keys.clear();
  plain.plain_tcp = false;
  role.plain_tcp = e.plain_tcp && open_tcp_problem(plain, bound).has_value();  // one needs it
  return role;
}

// Each role's options for this run: what rig run checks before any starts (check_robot_serve,
// check_vision_serve, check_control: the roles' own first steps) and what its arguments say
// (robot_args, …: written from these options, so the check and the process cannot differ).
RobotServeOptions robot_role_options(const RigRun& r, const RigEndpoints& e) {
  RobotServeOptions o;
  o.truth = r.truth, o.robot = r.robot, o.experiment = r.experiment, o.reference = r.reference, o.clock = r.clock;
  o.timeouts = r.timeouts, o.start_timeout = r.start_timeout, o.hold = r.hold, o.move_speed = r.move_speed;
  o.stand_at = r.stand_at, o.payload = r.payload, o.precorrection = r.precorrection;
  o.endpoints = role_endpoints(e, "cs");  // the robot binds the camera and status streams
  return o;
}

VisionServeOptions vision_role_options(const RigRun& r, const RigEndpoints& e) {
  VisionServeOptions o;
  o.source = "virtual", o.experiment = r.experiment, o.seed = r.seed;
  o.noise_position = r.noise_position, o.noise_angle = r.noise_angle, o.camera = r.camera;
  o.robot_timeout = r.vision_robot_timeout, o.start_timeout = r.start_timeout;
  o.endpoints = role_endpoints(e, "p");  // vision binds the pose stream
  return o;
}

ControlOptions control_role_options(const RigRun& r, const RigEndpoints& e) {
  ControlOptions o;
  o.robot = r.robot, o.experiment = r.experiment, o.reference = r.reference, o.out = r.out, o.clock = r.clock;
  o.robot_timeout = r.robot_timeout, o.start_timeout = r.start_timeout, o.force = r.force;
  o.keep_partial_on_interrupt = true;  // an interrupted run's rows stay in TRACE.partial
  o.payload = r.payload, o.precorrection = r.precorrection;
  o.endpoints = role_endpoints(e, "k");  // control binds the command stream
  return o;
}

std::vector<std::string> security_args(const RigEndpoints& e) {
  std::vector<std::string> a;
  if (!e.keys.empty()) a = {"--keys", e.keys};
  if (e.plain_tcp) a.push_back("--plain-tcp");
  return a;
}

std::vector<std::string> payload_args(const std::optional<oe_ident::Payload>& payload) {
  if (!payload) return {};
  const Vec3d& I = payload->inertia;
  return {"--payload-mass", number(payload->mass), "--payload-inertia", number(I(0)), number(I(1)), number(I(2))};
}

std::vector<std::string> robot_args(const RobotServeOptions& o) {
  std::vector<std::string> a = {"robot", "serve", "--truth", o.truth, "--robot", o.robot, "--experiment", o.experiment,
                                "--reference", o.reference, "--clock", o.clock, "--pose-timeout",
                                number(o.timeouts.pose), "--heartbeat-timeout", number(o.timeouts.heartbeat),
                                "--start-timeout", number(o.start_timeout), "--hold", number(o.hold),
                                "--move-speed", number(o.move_speed)};
  if (o.stand_at) {
    a.push_back("--stand-at");
    for (int i = 0; i < 6; ++i) a.push_back(number((*o.stand_at)(i)));
  }
  const RigEndpoints& e = o.endpoints;
  append(a, {"--camera-stream", e.camera, "--poses", e.poses, "--commands", e.commands, "--status", e.status});
  append(a, security_args(e));
  append(a, payload_args(o.payload));
  if (!o.precorrection.empty()) append(a, {"--precorrection", o.precorrection});
  return a;
}

std::vector<std::string> vision_args(const VisionServeOptions& o) {
  std::vector<std::string> a = {"vision", "serve", "--source", o.source, "--experiment", o.experiment, "--seed",
                                std::to_string(o.seed), "--noise-position", number(o.noise_position),
                                "--noise-angle", number(o.noise_angle), "--camera", o.camera.model,
                                "--camera-stream", o.endpoints.camera, "--poses", o.endpoints.poses, "--status",
                                o.endpoints.status, "--robot-timeout", number(o.robot_timeout), "--start-timeout",
                                number(o.start_timeout)};
  append(a, security_args(o.endpoints));
  if (o.camera.model == "stereo") append(a, {"--centroid-noise-px", number(o.camera.centroid_noise_px)});
  if (!o.camera.rig.empty()) append(a, {"--camera-rig", o.camera.rig});
  if (!o.camera.markers.empty()) append(a, {"--camera-markers", o.camera.markers});
  return a;
}

std::vector<std::string> control_args(const ControlOptions& o) {
  std::vector<std::string> a = {"control", "--robot", o.robot, "--experiment", o.experiment, "--reference",
                                o.reference, "--out", o.out, "--clock", o.clock,
                                "--robot-timeout", number(o.robot_timeout), "--start-timeout", number(o.start_timeout),
                                "--poses", o.endpoints.poses, "--commands", o.endpoints.commands, "--status",
                                o.endpoints.status};
  append(a, security_args(o.endpoints));
  if (o.keep_partial_on_interrupt) a.push_back("--keep-partial-on-interrupt");
  if (o.force) a.push_back("--force");
  append(a, payload_args(o.payload));
  if (!o.precorrection.empty()) append(a, {"--precorrection", o.precorrection});
  return a;
}

// After an interruption: one line saying so and what was kept, then this process ends by the
// same signal (the status a shell expects of an interrupted command: 130, 143).
// What the recording left under its partial name: "the N poses recorded are kept in OUT.partial",
// or "" when it holds no pose.
std::string partial_kept(const RigRun& r) {
  const std::string partial = r.out + ".partial";
  std::ifstream in(partial);
  long lines = 0;  // whole lines only: a row cut short is no pose kept
  for (std::string line; std::getline(in, line) && !in.eof();) ++lines;
  return lines > 1 ? "the " + std::to_string(lines - 1) + " poses recorded are kept in " + partial : "";
}

[[noreturn]] void report_interrupted(int sig, const RigRun& r) {
  std::string kept = partial_kept(r);
  if (kept.empty()) kept = "nothing was recorded";
  std::cout << std::flush;
  std::cerr << "vcloe: error: rig run: interrupted by " << signal_name(sig)
            << ": robot, vision and control have ended (the robot at its controlled stop); " << kept << "; " << r.out
            << " not written (only a run that ends is)\n"
            << std::flush;
  std::signal(sig, SIG_DFL);
  raise(sig);
  std::_Exit(128 + sig);
}

// What the roles refuse only once they run, refused here before any starts: the keys each role
// loads as it opens its sockets (bridge::load_role_keys, as RoleSecurity does), and the time
// options against the move to the start rig run's roles wait through. Every file each role
// reads: its own first step (check_robot_serve, …) in run_rig, once the endpoints are final.
void check_what_the_roles_check(const RigRun& r) {
  if (!r.endpoints.keys.empty())
    for (const char* role : {"robot", "vision", "control"}) try {
        (void)bridge::load_role_keys(r.endpoints.keys, role);
      } catch (const Error& e) {
        fail("--keys", e.what());
      }
  if (r.stand_at) {  // the robot's move to start, which control and vision wait through
    ExperimentSetup s = load_setup(r.robot, r.experiment, r.reference);
    if (!r.precorrection.empty()) use_precorrection(s, r.precorrection);  // the start hold: its first tick
    const double speed = std::min(r.move_speed, RobotServeOptions{}.max_command_speed);
    throw_if(move_to_start_problem(*r.stand_at, s, r.move_speed, RobotServeOptions{}.max_command_speed, r.truth), "");
    const double Tc = s.experiment.timing.controller_period();
    const double move_s = StartRamp(*r.stand_at, servo::start_hold(s.reference), speed, Tc).ticks() * Tc;
    throw_if(rig_times_problem(r.times(move_s), s.experiment.timing.camera_period(), r.experiment), "");
  }
}

}  // namespace

RigTimes RigRun::times(double move_s) const {
  RigTimes t{start_timeout, timeouts.pose, timeouts.heartbeat, robot_timeout, vision_robot_timeout, hold};
  t.move_s = move_s;
  return t;
}

std::optional<SettingProblem> RigRun::problem() const {
  if (auto p = defaults::camera_noise_problem(noise_position, noise_angle)) return p;
  return camera.problem();
}

void RigRun::validate(const std::string& where) const {
  throw_if(problem(), where);
  // The timeouts against the experiment's camera period: a file read, so not in problem().
  const double period = servo::load_experiment(experiment).timing.camera_period();
  throw_if(rig_times_problem(times(), period, experiment), where);  // the move to start: check_what_the_roles_check
  if (!(move_speed > 0 && std::isfinite(move_speed)))
    throw_if(SettingProblem{"--move-speed", "--move-speed: expected a positive speed (rad/s)"}, where);
  if (stand_at && !stand_at->allFinite())
    throw_if(SettingProblem{"--stand-at", "--stand-at: expected six finite joint angles (rad)"}, where);
  if (stand_at) throw_if(stand_at_problem(*stand_at, truth), where);  // before any process starts
}

namespace {

// The endpoints of the run: fresh ones (ipc sockets in `dir`, or free tcp ports), replaced by those
// given, each bound by one role and connected to by another.
RigEndpoints final_endpoints(const RigRun& r, const std::string& dir) {
  RigEndpoints e = r.transport == "ipc" ? ipc_endpoints(dir) : tcp_endpoints();
  const std::vector<std::pair<const std::string*, std::string*>> streams = {
      {&r.endpoints.camera, &e.camera}, {&r.endpoints.poses, &e.poses}, {&r.endpoints.commands, &e.commands},
      {&r.endpoints.status, &e.status}};
  for (const auto& [given, fresh] : streams)
    if (!given->empty()) *fresh = *given;
  e.keys = r.endpoints.keys;
  e.plain_tcp = r.endpoints.plain_tcp;
  check_endpoints(e, "cpks", "cpks", "cpks");  // each stream bound by one role, connected to by another
  throw_if(open_tcp_problem(e, "cpks"), "");
  return e;
}

// The roles' ends said once: the standard error of each role that ended on its own (the first
// failure, its own words), none of those rig run stopped because of it (their "interrupted"
// lines), then one line naming the role that failed — "its message above" only of a role that
// printed one (a role killed by a signal prints nothing: said so) — and what the recording kept.
void report_roles(const std::vector<ChildGroup::Ended>& ended, const std::string& dir, const std::string& kept) {
  std::string failed, stopped;
  int failures = 0, said = 0;
  for (const ChildGroup::Ended& c : ended) {
    const std::string text = c.exit.stopped ? "" : read_text_if_any(dir + "/" + c.name + ".stderr");
    std::cerr << text << std::flush;
    if (c.exit.ok()) continue;
    std::string& list = c.exit.stopped ? stopped : failed;
    const bool silent = text.find_first_not_of(" \n") == std::string::npos;
    if (!c.exit.stopped) ++failures, said += silent ? 0 : 1;
    list += (list.empty() ? "" : ", ") + c.name +
            (c.exit.stopped ? "" : " (" + c.exit.describe() + (silent ? ", with no message of its own" : "") + ")");
  }
  if (failed.empty() && stopped.empty()) return;
  const std::string rest = (stopped.empty() ? "" : "; " + stopped + " stopped") + (kept.empty() ? "" : "; " + kept);
  if (failed.empty()) fail("rig run", "ended with " + stopped + " stopped" + (kept.empty() ? "" : "; " + kept));
  const std::string above = said == 0 ? "" : said == 1 && failures == 1 ? ", its message above" : ", their messages above";
  fail("rig run", "ended with " + failed + above + rest);
}

}  // namespace

void run_rig(const RigRun& r) {
  r.validate();
  IoPlan(r.force).input(r.robot, "--robot").input(r.experiment, "--experiment").input(r.reference, "--reference")
      .input(r.truth, "--truth").input(r.camera.rig, "--camera-rig").input(r.camera.markers, "--camera-markers")
      .input_trace(r.precorrection, "--precorrection").input(r.endpoints.keys, "a key of --keys")
      .output_trace(r.out, "--out").recording(r.out + ".partial", "the recording of --out while it runs").check();
  if (r.transport != "ipc" && r.transport != "tcp") fail("--endpoints", "expected ipc or tcp");
  check_what_the_roles_check(r);
  // A directory only this user can open (mkdtemp: mode 0700) for the ipc sockets (no other user
  // reaches them) and the roles' standard error; removed whatever happens next.
  RigDirectory dir;
  const RigEndpoints e = final_endpoints(r, dir.path());
  const RobotServeOptions robot = robot_role_options(r, e);
  const VisionServeOptions vision = vision_role_options(r, e);
  const ControlOptions control = control_role_options(r, e);
  check_robot_serve(robot);  // what each role checks first, before any starts: one line
  check_vision_serve(vision);
  check_control(control);
  std::cout << "rig run: endpoints --camera-stream " << e.camera << " --poses " << e.poses << " --commands "
            << e.commands << " --status " << e.status << "\n"
            << std::flush;
  // Once one role has failed the others are stopped at once (SIGTERM: the robot comes to its
  // controlled stop, control keeps its rows, vision ends; SIGKILL 5 s later); rig run's own
  // interruption is passed on to each: no role outlives the rig.
  std::vector<ChildGroup::Ended> ended;
  {
    ChildGroup roles;
    auto io = [&dir](const char* role) { return ChildIo{"", "", dir.path() + "/" + role + ".stderr"}; };
    start(roles, "robot", robot_args(robot), io("robot"));
    start(roles, "vision", vision_args(vision), io("vision"));
    start(roles, "control", control_args(control), io("control"));
    ended = roles.wait_all(5.0, 0, true);
  }
  if (const int sig = ended.front().exit.interrupted_by) {  // each role says how it ended, then rig run
    for (const ChildGroup::Ended& c : ended) std::cerr << read_text_if_any(dir.path() + "/" + c.name + ".stderr");
    dir.remove();  // report_interrupted ends the process by the signal: no destructor runs
    report_interrupted(sig, r);
  }
  report_roles(ended, dir.path(), partial_kept(r));
}

}  // namespace vcloe::rig
