#include "vcloe/rig/launch.hpp"

#include <signal.h>
#include <unistd.h>

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
#include "vcloe/oe_ident/plausible.hpp"

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
void start(ChildGroup& group, const std::string& role, std::vector<std::string> args) {
  static const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  args.insert(args.begin(), self);
  group.start(role, args);
}

void append(std::vector<std::string>& to, const std::vector<std::string>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

// --keys to every role; --plain-tcp only to a role that binds a stream other hosts reach (`bound`,
// "cpks"): to the others it would have no effect, which they refuse (open_tcp_problem).
std::vector<std::string> security_args(const RigEndpoints& e, const std::string& bound) {
  std::vector<std::string> a;
  if (!e.keys.empty()) a = {"--keys", e.keys};
  RigEndpoints plain = e;
  plain.keys.clear();
  plain.plain_tcp = false;
  if (e.plain_tcp && open_tcp_problem(plain, bound)) a.push_back("--plain-tcp");  // one needs it
  return a;
}

std::vector<std::string> endpoint_args(const RigEndpoints& e) {
  std::vector<std::string> a = {"--camera-stream", e.camera, "--poses", e.poses, "--commands", e.commands,
                                "--status", e.status};
  append(a, security_args(e, "cs"));  // the robot binds the camera and status streams
  return a;
}


std::vector<std::string> payload_args(const RigRun& r) {
  if (!r.payload) return {};
  const Vec3d& I = r.payload->inertia;
  return {"--payload-mass", number(r.payload->mass), "--payload-inertia", number(I(0)), number(I(1)), number(I(2))};
}

std::vector<std::string> robot_args(const RigRun& r, const RigEndpoints& e) {
  std::vector<std::string> a = {"robot", "serve", "--truth", r.truth, "--robot", r.robot, "--experiment", r.experiment,
                                "--reference", r.reference, "--clock", r.clock, "--pose-timeout",
                                number(r.timeouts.pose), "--heartbeat-timeout", number(r.timeouts.heartbeat),
                                "--start-timeout", number(r.start_timeout), "--hold", number(r.hold),
                                "--move-speed", number(r.move_speed)};
  if (r.stand_at) {
    a.push_back("--stand-at");
    for (int i = 0; i < 6; ++i) a.push_back(number((*r.stand_at)(i)));
  }
  append(a, endpoint_args(e));
  append(a, payload_args(r));
  if (!r.precorrection.empty()) append(a, {"--precorrection", r.precorrection});
  return a;
}

std::vector<std::string> vision_args(const RigRun& r, const RigEndpoints& e) {
  std::vector<std::string> a = {"vision", "serve", "--source", "virtual", "--experiment", r.experiment, "--seed",
                                std::to_string(r.seed), "--noise-position", number(r.noise_position),
                                "--noise-angle", number(r.noise_angle), "--camera", r.camera.model,
                                "--camera-stream", e.camera, "--poses", e.poses, "--status", e.status,
                                "--robot-timeout", number(r.vision_robot_timeout), "--start-timeout",
                                number(r.start_timeout)};
  append(a, security_args(e, "p"));  // vision binds the pose stream
  if (r.camera.model == "stereo") append(a, {"--centroid-noise-px", number(r.camera.centroid_noise_px)});
  if (!r.camera.rig.empty()) append(a, {"--camera-rig", r.camera.rig});
  if (!r.camera.markers.empty()) append(a, {"--camera-markers", r.camera.markers});
  return a;
}

std::vector<std::string> control_args(const RigRun& r, const RigEndpoints& e) {
  std::vector<std::string> a = {"control", "--robot", r.robot, "--experiment", r.experiment, "--reference",
                                r.reference, "--out", r.out, "--clock", r.clock,
                                "--robot-timeout", number(r.robot_timeout), "--start-timeout", number(r.start_timeout),
                                "--poses", e.poses, "--commands", e.commands, "--status", e.status};
  append(a, security_args(e, "k"));  // control binds the command stream
  a.push_back("--keep-partial-on-interrupt");  // an interrupted run's rows stay in TRACE.partial
  if (r.force) a.push_back("--force");
  append(a, payload_args(r));
  if (!r.precorrection.empty()) append(a, {"--precorrection", r.precorrection});
  return a;
}

// After an interruption: one line saying so and what was kept, then this process ends by the
// same signal (the status a shell expects of an interrupted command: 130, 143).
[[noreturn]] void report_interrupted(int sig, const RigRun& r) {
  const std::string partial = r.out + ".partial";
  std::ifstream in(partial);
  long lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  const std::string kept = lines > 1 ? "the " + std::to_string(lines - 1) + " poses recorded are kept in " + partial
                                     : "nothing was recorded";
  std::cout << std::flush;
  std::cerr << "vcloe: error: rig run: interrupted by " << signal_name(sig)
            << ": robot, vision and control have ended (the robot at its controlled stop); " << kept << "; " << r.out
            << " not written (only a run that ends is)\n"
            << std::flush;
  std::signal(sig, SIG_DFL);
  raise(sig);
  std::_Exit(128 + sig);
}

// What each role would refuse after all three had started (4 to 6 lines, seconds later), refused
// here first by the roles' own calls: the keys each role loads (bridge::load_role_keys, as
// RoleSecurity does) and the pre-correction against the run (use_precorrection, as robot serve
// and control do). The endpoints: check_endpoints in run_rig, once they are final.
void check_what_the_roles_check(const RigRun& r) {
  if (!r.endpoints.keys.empty())
    for (const char* role : {"robot", "vision", "control"}) try {
        (void)bridge::load_role_keys(r.endpoints.keys, role);
      } catch (const Error& e) {
        fail("--keys", e.what());
      }
  ExperimentSetup s = load_setup(r.robot, r.experiment, r.reference);
  if (r.payload)  // the robot's check (robot serve) of what it is to carry
    if (const std::string why = oe_ident::implausible_for_robot(sim::load_robot(r.truth, true).lambda, r.truth, r.payload,
                                                                "--payload-mass/--payload-inertia");
        !why.empty())
      throw Error(why);
  if (!r.precorrection.empty()) use_precorrection(s, r.precorrection);  // the start hold: its first tick
  if (r.stand_at) {  // the robot's move to start (robot serve's check), which control and vision wait through
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

void run_rig(const RigRun& r) {
  r.validate();
  IoPlan(r.force).input(r.robot, "--robot").input(r.experiment, "--experiment").input(r.reference, "--reference")
      .input(r.truth, "--truth").input(r.camera.rig, "--camera-rig").input(r.camera.markers, "--camera-markers")
      .input_trace(r.precorrection, "--precorrection").input(r.endpoints.keys, "a key of --keys")
      .output_trace(r.out, "--out").recording(r.out + ".partial", "the recording of --out while it runs").check();
  if (r.transport != "ipc" && r.transport != "tcp") fail("--endpoints", "expected ipc or tcp");
  check_what_the_roles_check(r);
  std::string dir;
  RigEndpoints e;
  if (r.transport == "ipc") {
    // A directory only this user can open (mkdtemp: mode 0700): no other user reaches the sockets.
    std::string pattern = (std::filesystem::temp_directory_path() / "vcloe-rig-XXXXXX").string();
    if (!mkdtemp(pattern.data())) fail("rig run", "cannot create a directory for the ipc endpoints in /tmp");
    dir = pattern;
    e = ipc_endpoints(dir);
  } else {
    e = tcp_endpoints();
  }
  const std::vector<std::pair<const std::string*, std::string*>> streams = {
      {&r.endpoints.camera, &e.camera}, {&r.endpoints.poses, &e.poses}, {&r.endpoints.commands, &e.commands},
      {&r.endpoints.status, &e.status}};
  for (const auto& [given, fresh] : streams)
    if (!given->empty()) *fresh = *given;
  e.keys = r.endpoints.keys;
  e.plain_tcp = r.endpoints.plain_tcp;
  check_endpoints(e, "cpks", "cpks");  // each stream bound by one role, connected to by another
  throw_if(open_tcp_problem(e, "cpks"), "");
  std::cout << "rig run: endpoints --camera-stream " << e.camera << " --poses " << e.poses << " --commands "
            << e.commands << " --status " << e.status << "\n"
            << std::flush;
  // Once one role has failed or rig run is interrupted (the signal passed on to each at once: the
  // robot comes to its controlled stop, control keeps its rows, vision ends), the others get 5 s,
  // then SIGTERM, then SIGKILL: no role outlives the rig.
  std::vector<ChildGroup::Ended> ended;
  {
    ChildGroup roles;
    start(roles, "robot", robot_args(r, e));
    start(roles, "vision", vision_args(r, e));
    start(roles, "control", control_args(r, e));
    ended = roles.wait_all(5.0);
  }
  if (!dir.empty()) std::filesystem::remove_all(dir);
  if (const int sig = ended.front().exit.interrupted_by) report_interrupted(sig, r);
  std::string failed;
  for (const ChildGroup::Ended& c : ended)
    if (!c.exit.ok()) failed += (failed.empty() ? "" : ", ") + c.name + " (" + c.exit.describe() + ")";
  if (!failed.empty()) fail("rig run", "ended with " + failed + "; see their messages above");
}

}  // namespace vcloe::rig
