#pragma once
// Shared by the live rig's specifications (test_cli_rig_*.cpp): a file's text, a reference,
// the time since a start, a flooding publisher, stamped messages, and the test as the controller
// beside a real robot and vision.
#include <zmq.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "cli_fixtures.hpp"
#include "rig_processes.hpp"
#include "vcloe/bridge/transport.hpp"
#include "vcloe/rig/handshake.hpp"

namespace cli_test {

namespace fs = std::filesystem;
namespace bridge = vcloe::bridge;
using namespace std::chrono_literals;

inline std::string text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline fs::path reference(const fs::path& dir, int seconds) {
  const fs::path ref = dir / "reference.yaml";
  EXPECT_EQ(cli_test::run_vcloe("trajectory random --seed 4 --duration " + std::to_string(seconds) + " --out " + ref.string())
                .status,
            0);
  return ref;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A PUB socket that keeps everything it is given (a test flooding a subscriber).
inline zmq::socket_t publisher(zmq::context_t& ctx, const std::string& endpoint) {
  zmq::socket_t s(ctx, zmq::socket_type::pub);
  s.set(zmq::sockopt::sndhwm, 1000000);
  s.bind(endpoint);
  return s;
}

// Stamps and sends a well-formed message (one sequence per type, as a Publisher does).
struct Stamper {
  std::map<bridge::MessageType, std::uint64_t> next;
  void send(zmq::socket_t& socket, bridge::Message m) {
    std::visit([&](auto& v) { v.header.sequence = next[bridge::type_of(m)]++, v.header.publish_ns = bridge::steady_now_ns(); }, m);
    socket.send(zmq::buffer(bridge::encode(m)), zmq::send_flags::none);
  }
};

// The hello a role's process sends on the default robot and experiment files and `reference`:
// the test in that role's place (docs/protocol.md, "Handshake"). The robot and control state
// their clock (the roles' default, lockstep, unless said): a hello stating none is refused.
inline bridge::HelloMessage hello_as(bridge::Role role, const fs::path& reference,
                                     const std::string& experiment = config_dir + "experiment.yaml",
                                     bridge::HelloClock clock = bridge::HelloClock::Lockstep) {
  return vcloe::rig::hello_of(role, {experiment, reference.string(), config_dir + "robot.yaml", std::nullopt, ""},
                              role == bridge::Role::Vision ? bridge::HelloClock::NotStated : clock);
}

// The test as the controller says its end (after which a finished robot exits).
inline bridge::EndMessage controller_end() {
  bridge::EndMessage e;
  e.role = bridge::Role::Control;
  return e;
}

// What the test-controller sends for a pose: a command, or (none) a heartbeat only.
inline std::optional<bridge::CommandMessage> as_optional(const bridge::CommandMessage& c) { return c; }
inline std::optional<bridge::CommandMessage> as_optional(const std::optional<bridge::CommandMessage>& c) { return c; }

inline bridge::CommandMessage hold_command(std::int64_t frame, const vcloe::Vec6d& hold) {
  bridge::CommandMessage c;
  c.frame = frame;
  c.theta = hold;
  return c;
}

// The test as the controller, beside a real robot and vision: one command per pose that reaches
// the controller in the 2 s run (frames 0..198), made by `command(frame, hold)` from the start
// hold (returning none sends a heartbeat instead); `after(command_socket, sent)` may send more
// after each. With `early`, a command for frame 0 goes with each hello, before the run (a
// controller that does not wait for its pose). Returns the robot's final status.
template <typename Command, typename After>
bridge::StatusMessage run_as_controller(const std::string& name, const std::string& robot_options, Command command,
                                        After after, std::string& robot_output, int& vision_status, bool early = false) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", name);
  const fs::path ref = reference(d, 2);
  const RigStreams s(d);
  zmq::context_t ctx;
  zmq::socket_t commands = publisher(ctx, s.commands);
  bridge::Subscriber poses(ctx, s.poses, bridge::Subscriber::Keep::All);
  bridge::Subscriber status(ctx, s.status, bridge::Subscriber::Keep::All);
  Process robot("robot serve " + robot_options + " --reference " + ref.string() + s.robot(), d / "robot.log");
  Process vision("vision serve" + s.vision(), d / "vision.log");
  Stamper stamp;
  std::optional<vcloe::Vec6d> hold;
  std::optional<bridge::StatusMessage> stop;
  bool heard_poses = false, running = false;
  for (const auto t0 = std::chrono::steady_clock::now(); !stop && seconds_since(t0) < 60;) {
    bridge::Subscriber::wait_any({&poses, &status}, 2ms);
    while (auto m = status.receive(0ms))
      if (const auto* st = std::get_if<bridge::StatusMessage>(&*m)) {
        if (!hold) hold = st->theta;  // the start hold: the robot stands there
        running = running || st->state == bridge::RobotState::Running;
        if (st->state == bridge::RobotState::Stopped) stop = *st;
      }
    while (auto m = poses.receive(0ms)) {
      heard_poses = true;
      const auto* p = std::get_if<bridge::PoseMessage>(&*m);
      if (!p || !hold || p->frame >= 199) continue;
      const std::optional<bridge::CommandMessage> c = as_optional(command(p->frame, *hold));
      if (!c) {
        stamp.send(commands, bridge::HeartbeatMessage{});
        continue;
      }
      stamp.send(commands, *c);
      after(commands, *c);
    }
    if (!running && heard_poses && hold) {
      stamp.send(commands, hello_as(bridge::Role::Control, ref, config_dir + "experiment.yaml",
                                    robot_options.find("--clock realtime") != std::string::npos
                                        ? bridge::HelloClock::Realtime
                                        : bridge::HelloClock::Lockstep));
      if (early) stamp.send(commands, hold_command(0, *hold));
    }
  }
  stamp.send(commands, controller_end());
  robot.wait();
  robot_output = robot.output();
  vision_status = vision.wait();
  EXPECT_TRUE(stop) << robot_output;
  return stop.value_or(bridge::StatusMessage{});
}


}  // namespace cli_test
