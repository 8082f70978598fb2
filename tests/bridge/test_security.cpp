// Specification of the rig's keys (bridge/security.hpp, docs/protocol.md "Keys"): over tcp on
// 127.0.0.1, a subscriber without the rig's key, or with a key the publisher was not given,
// receives nothing of a stream (commands, poses, status alike: each is a Publisher) and is
// counted; a subscriber with the key receives every message; a publisher impersonating another
// reaches no keyed subscriber; key files are checked and private; a tcp endpoint other hosts can
// reach is refused without keys.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>
#include <zmq.hpp>

#include "../test_support.hpp"
#include "vcloe/bridge/security.hpp"
#include "vcloe/core/input_file.hpp"
#include "vcloe/bridge/transport.hpp"
#include "vcloe/core/error.hpp"

using namespace vcloe::bridge;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace test_security {

namespace {

fs::path key_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("vcloe-keys-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  return d;
}

// Publishes heartbeats for `seconds` while `sub` listens; how many it received.
int heard(Publisher& pub, Subscriber& sub, double seconds = 0.4) {
  int n = 0;
  for (const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
       std::chrono::steady_clock::now() < end;) {
    pub.publish(HeartbeatMessage{});
    while (sub.receive(2ms)) ++n;
  }
  return n;
}

std::string thrown(const std::function<void()>& f) { return vcloe::test::error_of(f); }

}  // namespace

TEST(Keys, OneCommandMakesAPrivatePairPerRoleAndEachRoleLoadsItsOwn) {
  ASSERT_TRUE(curve_available()) << "Debian's libzmq has CURVE (libsodium)";
  const fs::path d = key_dir("make");
  const std::string written = write_rig_keys(d.string(), false);
  for (const char* role : kRoles) {
    struct stat st{};
    ASSERT_EQ(stat((d / (std::string(role) + ".key")).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << role;
    EXPECT_NE(written.find(std::string(role) + ".pub"), std::string::npos);
    const RoleKeys k = load_role_keys(d.string(), role);
    EXPECT_EQ(k.own.public_key.size(), 40u);
    EXPECT_EQ(k.public_keys.size(), 4u) << "the three roles' and the listener's";
  }
  EXPECT_EQ(load_role_keys(d.string(), kListener).own.public_key, load_role_keys(d.string(), "vision").public_keys.at(kListener));
  fs::remove(d / (std::string(kListener) + ".pub"));  // keys made before the listener had its own
  EXPECT_EQ(load_role_keys(d.string(), "vision").public_keys.size(), 3u);
  EXPECT_NE(load_role_keys(d.string(), "robot").own.secret_key, load_role_keys(d.string(), "control").own.secret_key);
  // Never replaced without --force; a readable secret, a broken line, a missing key: named.
  EXPECT_NE(thrown([&] { write_rig_keys(d.string(), false); }).find("exists; --force replaces"), std::string::npos);
  chmod((d / "vision.key").c_str(), 0644);
  EXPECT_NE(thrown([&] { load_role_keys(d.string(), "vision"); }).find("mode 644); chmod 600 it"), std::string::npos);
  std::ofstream(d / "control.pub") << "public not-a-key\n";
  EXPECT_NE(thrown([&] { load_role_keys(d.string(), "robot"); }).find("control.pub:1: expected 'public <40-character"),
            std::string::npos);
  fs::remove(d / "robot.key");
  EXPECT_NE(thrown([&] { load_role_keys(d.string(), "robot"); }).find("robot.key: not found"), std::string::npos);
  EXPECT_NO_THROW(write_rig_keys(d.string(), true));
  EXPECT_NO_THROW(load_role_keys(d.string(), "robot"));
  EXPECT_NO_THROW(load_role_keys(d.string(), kListener));
}

TEST(Keys, OverTcpOnlyASubscriberWithAnAllowedKeyReceivesAndTheOthersAreCounted) {
  const fs::path d = key_dir("tcp");
  write_rig_keys(d.string(), false);
  const RoleKeys robot = load_role_keys(d.string(), "robot"), control = load_role_keys(d.string(), "control");
  zmq::context_t ctx;
  // The robot's status stream: control may subscribe, nobody else.
  Authenticator zap(ctx, {control.public_keys.at("control")});
  Security server{robot.own, "", &zap};
  Publisher status(ctx, "tcp://127.0.0.1:*", 1000, server);
  const std::string e = status.bound();
  Subscriber allowed(ctx, e, Subscriber::Keep::All, 1000, Security{control.own, robot.own.public_key});
  Subscriber plain(ctx, e, Subscriber::Keep::All);                                         // no key at all
  Subscriber stranger(ctx, e, Subscriber::Keep::All, 1000, Security{make_key_pair(), robot.own.public_key});
  Subscriber vision(ctx, e, Subscriber::Keep::All, 1000,  // a rig key, but not one given to this stream
                    Security{load_role_keys(d.string(), "vision").own, robot.own.public_key});
  int got_allowed = 0, got_plain = 0, got_stranger = 0, got_vision = 0;
  for (const auto end = std::chrono::steady_clock::now() + 600ms; std::chrono::steady_clock::now() < end;) {
    status.publish(HeartbeatMessage{});
    std::this_thread::sleep_for(2ms);
    while (allowed.receive(0ms)) ++got_allowed;
    while (plain.receive(0ms)) ++got_plain;
    while (stranger.receive(0ms)) ++got_stranger;
    while (vision.receive(0ms)) ++got_vision;
  }
  EXPECT_GT(got_allowed, 50);
  EXPECT_EQ(got_plain, 0);
  EXPECT_EQ(got_stranger, 0);
  EXPECT_EQ(got_vision, 0);
  EXPECT_GE(status.refused_peers(), 3u) << "each refused handshake counted";
  EXPECT_GE(zap.refused(), 2u) << "the two wrong keys reached the allow-list and were refused";
}

TEST(Keys, AnImpostorPublisherReachesNoKeyedSubscriber) {
  const fs::path d = key_dir("impostor");
  write_rig_keys(d.string(), false);
  const RoleKeys robot = load_role_keys(d.string(), "robot"), control = load_role_keys(d.string(), "control");
  zmq::context_t ctx;
  // Someone binds the command port first, plain or with a key of its own: the robot (a keyed
  // subscriber expecting control's public key) hears nothing of it.
  Authenticator zap(ctx, {robot.public_keys.at("robot")});
  Publisher plain_impostor(ctx, "tcp://127.0.0.1:*");
  Subscriber robot_a(ctx, plain_impostor.bound(), Subscriber::Keep::All, 1000,
                     Security{robot.own, control.public_keys.at("control")});
  EXPECT_EQ(heard(plain_impostor, robot_a), 0);
  Publisher keyed_impostor(ctx, "tcp://127.0.0.1:*", 1000, Security{make_key_pair(), "", &zap});
  Subscriber robot_b(ctx, keyed_impostor.bound(), Subscriber::Keep::All, 1000,
                     Security{robot.own, control.public_keys.at("control")});
  EXPECT_EQ(heard(keyed_impostor, robot_b), 0);
  // The real controller's publisher: heard.
  Publisher commands(ctx, "tcp://127.0.0.1:*", 1000, Security{control.own, "", &zap});
  Subscriber robot_c(ctx, commands.bound(), Subscriber::Keep::All, 1000,
                     Security{robot.own, control.public_keys.at("control")});
  EXPECT_GT(heard(commands, robot_c), 10);
}

TEST(Keys, ATcpEndpointOtherHostsCanReachIsRefusedWithoutKeys) {
  zmq::context_t ctx;
  for (const std::string e : {"tcp://0.0.0.0:*", "tcp://*:*"}) {
    EXPECT_NE(thrown([&] { Publisher p(ctx, e); }).find("without keys"), std::string::npos) << e;
    Security allowed;
    allowed.plain_tcp = true;
    EXPECT_NO_THROW(Publisher(ctx, e, 1000, allowed)) << e;
  }
  EXPECT_TRUE(loopback_tcp("tcp://127.0.0.1:5555"));
  EXPECT_TRUE(loopback_tcp("tcp://localhost:5555"));
  EXPECT_FALSE(loopback_tcp("tcp://192.168.1.2:5555"));
  EXPECT_NO_THROW(Publisher(ctx, "tcp://127.0.0.1:*"));
  // Keys without an authenticator would let any key in: refused.
  EXPECT_NE(thrown([&] { Publisher p(ctx, "tcp://127.0.0.1:*", 1000, Security{make_key_pair(), ""}); })
                .find("without an authenticator"),
            std::string::npos);
}

TEST(Keys, AnIpcSocketIsOpenToItsUserOnly) {
  zmq::context_t ctx;
  const fs::path p = key_dir("ipc-mode");
  Publisher pub(ctx, "ipc://" + p.string());
  struct stat st{};
  ASSERT_EQ(stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u) << "no access for group or others";
}

}  // namespace test_security

namespace test_security {

TEST(Keys, AKeySetOthersMayWriteOrOnePairSharedByRolesIsRefused) {
  // Probe 19's Q: a keys directory or a .pub anyone may write lets anyone's key in; one pair
  // copied to every role lets any role's holder be taken for another.
  const fs::path d = key_dir("open");
  write_rig_keys(d.string(), false);
  ASSERT_NO_THROW(load_role_keys(d.string(), "robot"));
  chmod(d.c_str(), 0777);
  EXPECT_NE(thrown([&] { load_role_keys(d.string(), "robot"); }).find("others may write this directory"), std::string::npos);
  chmod(d.c_str(), 0770);
  EXPECT_NE(thrown([&] { load_role_keys(d.string(), "vision"); }).find("mode 770"), std::string::npos);
  chmod(d.c_str(), 0700);
  for (const char* pub : {"control.pub", "robot.pub", "listen.pub"}) {
    chmod((d / pub).c_str(), 0666);
    const std::string e = thrown([&] { load_role_keys(d.string(), "vision"); });
    EXPECT_NE(e.find(std::string(pub) + ": others may write this public key (mode 666)"), std::string::npos) << e;
    chmod((d / pub).c_str(), 0644);
  }
  ASSERT_NO_THROW(load_role_keys(d.string(), "vision"));
  for (const char* role : {"vision", "listen"}) {  // robot's pair copied over another role's
    fs::copy_file(d / "robot.key", d / (std::string(role) + ".key"), fs::copy_options::overwrite_existing);
    fs::copy_file(d / "robot.pub", d / (std::string(role) + ".pub"), fs::copy_options::overwrite_existing);
    const std::string e = thrown([&] { load_role_keys(d.string(), "control"); });
    EXPECT_NE(e.find("holds the same public key as"), std::string::npos) << e;
    EXPECT_NE(e.find("every role needs its own pair"), std::string::npos) << e;
    write_rig_keys(d.string(), true);
  }
  fs::remove_all(d);
}

TEST(Keys, AKeyFileWhosePublicKeyIsNotItsSecretsIsRefusedWhenRead) {
  // Probe 34, K007: robot.key with the public line of one pair and the secret line of another
  // started the rig; every peer was refused for 30 s, robot.key never named.
  const fs::path d = key_dir("mixed");
  write_rig_keys(d.string(), false);
  std::ifstream robot(d / "robot.key"), vision(d / "vision.key");
  std::string robot_public, robot_secret, vision_public, vision_secret;
  std::getline(robot, robot_public), std::getline(robot, robot_secret);
  std::getline(vision, vision_public), std::getline(vision, vision_secret);
  { std::ofstream(d / "robot.key", std::ios::trunc) << robot_public << "\n" << vision_secret << "\n"; }
  const std::string e = thrown([&] { load_role_keys(d.string(), "robot"); });
  EXPECT_EQ(e, (d / "robot.key").string() + ":1: its public key is not the one of its secret key (line 2): a key pair is "
                                            "written whole by `vcloe rig keys`");
  ASSERT_NO_THROW(load_role_keys(d.string(), "vision"));  // the other roles' files are whole
  fs::remove_all(d);
}

TEST(Keys, AKeyThatIsNoRegularFileIsRefusedBeforeItIsOpened) {
  // Probe 20's H: a FIFO as control.key was read for ever (rig run hung); a link to /dev/zero got
  // "chmod 600 it", advice that would chmod the device. A .pub likewise (a FIFO's open blocks).
  const fs::path d = key_dir("special");
  write_rig_keys(d.string(), false);
  struct Case {
    const char* file;
    const char* role;
    bool fifo;
  };
  for (const Case c : {Case{"control.key", "control", true}, Case{"control.key", "control", false},
                       Case{"robot.pub", "vision", true}, Case{"vision.pub", "robot", false},
                       Case{"listen.pub", "robot", true}}) {
    const fs::path f = d / c.file;
    fs::remove(f);
    if (c.fifo) {
      ASSERT_EQ(mkfifo(f.c_str(), 0600), 0);
    } else {
      fs::create_symlink("/dev/zero", f);
    }
    const std::string e = thrown([&] { load_role_keys(d.string(), c.role); });  // returns: no hang
    EXPECT_NE(e.find(std::string(c.file) + ": is a device, pipe or socket, expected a regular file"), std::string::npos)
        << c.file << (c.fifo ? " fifo: " : " link: ") << e;
    EXPECT_EQ(e.find("chmod"), std::string::npos) << e;
    fs::remove(f);
    write_rig_keys(d.string(), true);
  }
  EXPECT_NO_THROW(load_role_keys(d.string(), "control"));
  fs::remove_all(d);
}

}  // namespace test_security

namespace test_security {

TEST(Keys, AKeyFileWithCrlfLineEndsIsReadAsEveryOtherTextFileIs) {
  // keys-key-crlf: a key file passed through an editor or a transfer that wrote CRLF was refused
  // ("expected 'secret <40-character Z85 key>'"); every other text reader takes CRLF.
  ASSERT_TRUE(curve_available());
  const fs::path d = key_dir("crlf");
  write_rig_keys(d.string(), true);
  const RoleKeys before = load_role_keys(d.string(), "control");
  for (const char* name : {"control.key", "robot.pub"}) {
    std::string text = vcloe::read_input_file((d / name).string(), vcloe::InputKind::KeyFile), crlf;
    for (const char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    std::ofstream(d / name, std::ios::trunc) << crlf;
  }
  const RoleKeys after = load_role_keys(d.string(), "control");
  EXPECT_EQ(after.own.secret_key, before.own.secret_key);
  EXPECT_EQ(after.public_keys.at("robot"), before.public_keys.at("robot"));
}

}  // namespace test_security
