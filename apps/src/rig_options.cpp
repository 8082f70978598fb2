#include "rig_options.hpp"

namespace vcloe::app {

void add_endpoint_options(CLI::App* cmd, rig::RigEndpoints& e, const std::string& which) {
  const auto check = [](const std::string& s) { return rig::endpoint_problem(s); };
  if (which.find('c') != std::string::npos)
    cmd->add_option("--camera-stream", e.camera, "true poses of the virtual robot, for the virtual camera")
        ->capture_default_str()
        ->check(check);
  if (which.find('p') != std::string::npos)
    cmd->add_option("--poses", e.poses, "the measured pose stream (vision publishes)")->capture_default_str()->check(check);
  if (which.find('k') != std::string::npos)
    cmd->add_option("--commands", e.commands, "the joint commands (control publishes)")->capture_default_str()->check(check);
  if (which.find('s') != std::string::npos)
    cmd->add_option("--status", e.status, "the robot's status (robot publishes)")->capture_default_str()->check(check);
  add_key_options(cmd, e);
}

void add_key_options(CLI::App* cmd, rig::RigEndpoints& e) {
  cmd->add_option("--keys", e.keys, "the rig's CURVE keys (`vcloe rig keys --dir DIR`): only their holders connect")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--plain-tcp", e.plain_tcp, "allow a tcp endpoint other hosts can reach without --keys");
}

void add_timeout_options(CLI::App* cmd, rig::TimeoutOptions& t) {
  cmd->add_option("--pose-timeout", t.pose,
                  "stop when the pose stream is silent this long (s; 0: 2 camera periods realtime, 2 s lockstep)")
      ->capture_default_str();
  cmd->add_option("--heartbeat-timeout", t.heartbeat,
                  "stop when the controller is silent this long (s; 0: 2 camera periods realtime, 2 s lockstep)")
      ->capture_default_str();
}

}  // namespace vcloe::app
