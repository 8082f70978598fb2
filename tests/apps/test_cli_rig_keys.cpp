// Specification of the rig's keys end to end (docs/protocol.md, "Keys"): over tcp on 127.0.0.1
// with `--keys`, the rig's own run records the trace it records without keys, byte for byte; a
// controller without the rig's key, bound first on the command port, moves nothing, and hears
// neither the poses nor the status.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zmq.hpp>

#include "cli_fixtures.hpp"
#include "rig_fixtures.hpp"
#include "rig_processes.hpp"
#include "vcloe/bridge/transport.hpp"

using namespace cli_test;  // the rig fixtures (rig_fixtures.hpp)
namespace bridge = vcloe::bridge;

namespace {

// Four tcp endpoints on 127.0.0.1 on ports free now (held open until all four are found).
RigStreams tcp_streams() {
  std::vector<int> fds;
  std::vector<std::string> e;
  for (int k = 0; k < 4; ++k) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof a;
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
    fds.push_back(fd);
    e.push_back("tcp://127.0.0.1:" + std::to_string(ntohs(a.sin_port)));
  }
  for (const int fd : fds) close(fd);
  RigStreams s(fs::temp_directory_path());
  s.camera = e[0], s.poses = e[1], s.commands = e[2], s.status = e[3];
  return s;
}

}  // namespace

TEST(RigRun, OverTcpWithKeysTheRigRecordsTheSameTraceAsWithout) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "keys-same");
  const fs::path ref = reference(d, 1);
  ASSERT_EQ(cli_test::run_vcloe("rig keys --dir " + (d / "keys").string()).status, 0);
  const auto plain = cli_test::run_vcloe("rig run --seed 3 --reference " + ref.string() + " --out " + (d / "plain.csv").string());
  ASSERT_EQ(plain.status, 0) << plain.out;
  const auto keyed = cli_test::run_vcloe("rig run --endpoints tcp --keys " + (d / "keys").string() +
                                         " --seed 3 --reference " + ref.string() + " --out " + (d / "keyed.csv").string());
  ASSERT_EQ(keyed.status, 0) << keyed.out;
  EXPECT_EQ(text(d / "keyed.csv"), text(d / "plain.csv"));
  EXPECT_NE(keyed.out.find("peers refused 0"), std::string::npos) << keyed.out;
}

TEST(RigRun, AControllerWithoutTheRigsKeyMovesNothingAndHearsNothing) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "keys-impostor");
  const fs::path ref = reference(d, 2);
  const std::string keys = (d / "keys").string();
  ASSERT_EQ(cli_test::run_vcloe("rig keys --dir " + keys).status, 0);
  const RigStreams s = tcp_streams();
  zmq::context_t ctx;
  zmq::socket_t commands = publisher(ctx, s.commands);  // bound first: the impostor holds the port
  bridge::Subscriber poses(ctx, s.poses, bridge::Subscriber::Keep::All);
  bridge::Subscriber status(ctx, s.status, bridge::Subscriber::Keep::All);
  Process robot("robot serve --keys " + keys + " --start-timeout 2 --reference " + ref.string() + s.robot(),
                d / "robot.log");
  Process vision("vision serve --keys " + keys + " --start-timeout 3" + s.vision(), d / "vision.log");
  Stamper stamp;
  int heard = 0;
  for (const auto t0 = std::chrono::steady_clock::now(); seconds_since(t0) < 2.5;) {
    stamp.send(commands, bridge::HeartbeatMessage{});
    bridge::CommandMessage c;
    c.frame = 0;
    c.theta(0) = 0.3;
    stamp.send(commands, c);
    std::this_thread::sleep_for(5ms);
    while (poses.receive(0ms)) ++heard;
    while (status.receive(0ms)) ++heard;
  }
  EXPECT_EQ(robot.wait(), 2);
  EXPECT_NE(robot.output().find("no hello from the controller on " + s.commands + " within 2 s"), std::string::npos) << robot.output();
  // The impostor's subscriber to the robot's status was refused: said, or the user sees only silence (probe 28, k7-21).
  EXPECT_NE(robot.output().find("refused meanwhile for its keys"), std::string::npos) << robot.output();
  EXPECT_EQ(robot.output().find("Running"), std::string::npos);
  EXPECT_EQ(heard, 0) << "the impostor heard the rig's poses or status";
  EXPECT_EQ(vision.wait(), 2) << vision.output();  // the robot never started
}

TEST(RigRun, RigListenWithTheRigsKeysHearsAKeyedPoseStreamAndWithoutThemNothing) {
  const fs::path d = cli_test::fresh_dir("vcloe-rig", "keys-listen");
  const fs::path ref = reference(d, 2);
  const std::string keys = (d / "keys").string();
  ASSERT_EQ(cli_test::run_vcloe("rig keys --dir " + keys).status, 0);
  const RigStreams s = tcp_streams();
  Process keyed("rig listen --keys " + keys + " --endpoint " + s.poses + " --seconds 20 --frames 50 --json", d / "keyed.log");
  Process plain("rig listen --endpoint " + s.poses + " --seconds 6 --json", d / "plain.log");
  const auto r = cli_test::run_vcloe("rig run --clock realtime --pose-timeout 0.2 --heartbeat-timeout 0.2 --endpoints tcp --keys " +
                                     keys + " --poses " + s.poses + " --reference " + ref.string() + " --out " +
                                     (d / "trace.csv").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(keyed.wait(), 0) << keyed.output();
  EXPECT_NE(keyed.output().find("\"poses\": 50"), std::string::npos) << keyed.output();
  EXPECT_EQ(plain.wait(), 2) << plain.output();
  EXPECT_NE(plain.output().find("no pose received"), std::string::npos) << plain.output();
}
