// `vcloe vision serve` (rig::serve_vision): the vision role of the live rig (docs/protocol.md,
// "Processes"): a pose stream, one frame per pose, with its exposure time, registration error,
// markers used and a valid flag. Sources:
//   virtual          the virtual camera: the virtual robot's true pose at each exposure (its
//                    camera stream), measured by the same camera models as `vcloe run`
//                    (Gaussian pose noise, or marker centroids through the stereo pipeline);
//   images:DIR       a folder of stereo image pairs (e.g. `vcloe render` output) replayed at
//                    the camera rate through the pose pipeline;
//   camera:L,R       two OpenCV VideoCapture devices (indices or device paths) grabbed in pairs.
// Frame j of every source is counted from the robot's start (its status turning to running).
#include <zmq.hpp>

#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>
#include <vector>
#include <opencv2/imgproc.hpp>

#include "vcloe/calib/image_pairs.hpp"
#include "vcloe/calib/measure.hpp"
#include "vcloe/core/defaults.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/rig/common.hpp"
#include "vcloe/rig/handshake.hpp"
#include "vcloe/rig/roles.hpp"
#include "vcloe/rig/serve.hpp"
#include "vcloe/servo/timing.hpp"
#include "vcloe/vision/opencv_io.hpp"
#include "vcloe/vision/pose.hpp"

namespace vcloe::rig {

namespace {

// A camera of camera:LEFT,RIGHT given as a number: Video4Linux's /dev/videoN.
bool is_device_index(const std::string& name) {
  return !name.empty() && name.size() < 6 && name.find_first_not_of("0123456789") == std::string::npos;
}

// camera:LEFT,RIGHT before anything opens: two devices, each of them there (a number is
// /dev/videoN), and not one device twice (0 and /dev/video0, a /dev/v4l/by-id link to it).
std::optional<SettingProblem> cameras_problem(const std::string& source) {
  if (source.rfind("camera:", 0) != 0) return std::nullopt;
  const std::string devices = source.substr(7);
  const std::size_t comma = devices.find(',');
  if (comma == std::string::npos)
    return SettingProblem{"--source", "--source: camera:LEFT,RIGHT needs two devices, got '" + devices + "'"};
  std::string path[2], name[2] = {devices.substr(0, comma), devices.substr(comma + 1)};
  for (int i = 0; i < 2; ++i) {
    path[i] = is_device_index(name[i]) ? "/dev/video" + std::to_string(std::stoi(name[i])) : name[i];
    if (path[i].rfind("/dev/", 0) != 0) continue;  // a GStreamer pipeline or a URL: OpenCV's to open
    std::error_code ec;
    if (!std::filesystem::exists(path[i], ec))
      return SettingProblem{"--source", "--source: camera '" + name[i] + "' does not exist" +
                                            (path[i] != name[i] ? " (" + path[i] + ")" : "")};
    path[i] = std::filesystem::canonical(path[i], ec).string();
  }
  if (path[0] == path[1])
    return SettingProblem{"--source", "--source: '" + name[0] + "' and '" + name[1] + "' are one device (" + path[0] +
                                          "); expected the left and the right camera"};
  return std::nullopt;
}

// --source as the server will take it, before anything opens: one of the three forms, the
// cameras (cameras_problem), and images:DIR's folder or list file read as the replay reads it —
// every problem said under --source (an empty DIR was ": no such directory or list file").
std::optional<SettingProblem> source_problem(const std::string& source) {
  if (source == "virtual") return std::nullopt;
  if (source.rfind("camera:", 0) == 0) return cameras_problem(source);
  if (source.rfind("images:", 0) != 0)
    return SettingProblem{"--source", "--source: expected virtual, images:DIR or camera:LEFT,RIGHT, got '" + source + "'"};
  if (source.size() == 7)
    return SettingProblem{"--source", "--source: images:DIR needs the folder or list file of image pairs after "
                                      "'images:', got 'images:'"};
  try {
    (void)calib::find_image_pairs(source.substr(7));
  } catch (const Error& e) {
    return SettingProblem{"--source", "--source: " + std::string(e.what())};
  }
  return std::nullopt;
}

std::string rig_file_of(const VisionServeOptions& o) { return o.rig.empty() ? defaults::rig_file() : o.rig; }

// Everything vision serve reads and checks before it binds a socket: the options, the experiment,
// and its source's files — the virtual camera (--camera stereo's rig and markers), or the pose
// pipeline's rig and markers and images:DIR's pairs. serve_vision's first step and
// check_vision_serve's whole (rig run's check before any role starts).
struct VisionPrepared {
  servo::LoopTiming timing;
  VirtualRun virtual_run;                         // --source virtual
  std::optional<vision::PosePipeline> pipeline;   // images: and camera:
  std::vector<calib::ImagePair> pairs;            // images:
};

VisionPrepared prepare_vision(const VisionServeOptions& o) {
  o.validate();
  VisionPrepared p{servo::load_experiment(o.experiment).timing, VirtualRun{}, std::nullopt, {}};
  if (o.source == "virtual") {
    VirtualRun& vo = p.virtual_run;
    vo.seed = o.seed;
    defaults::check_camera_noise(o.noise_position, o.noise_angle);
    vo.noise_sigma << o.noise_position, o.noise_position, o.noise_position, o.noise_angle, o.noise_angle, o.noise_angle;
    install_camera(o.camera, vo);
    return p;
  }
  p.pipeline.emplace(vision::load_rig(rig_file_of(o)),
                     vision::load_markers(o.markers.empty() ? defaults::markers_file() : o.markers));
  if (o.source.rfind("images:", 0) == 0) {
    p.pairs = calib::find_image_pairs(o.source.substr(7));
    calib::check_image_pairs(p.pairs, p.pipeline->rig(), rig_file_of(o));
  }
  return p;
}

class VisionServer {
 public:
  VisionServer(const VisionServeOptions& o, VisionPrepared prepared)
      : o_(o),
        prepared_(std::move(prepared)),
        timing_(prepared_.timing),
        files_{o.experiment, "", "", std::nullopt, ""},
        hello_(hello_of(bridge::Role::Vision, files_)),
        security_(context_, o.endpoints, "vision"),
        poses_(context_, o.endpoints.poses, 1000, security_.publisher()),
        status_(context_, o.endpoints.status, bridge::Subscriber::Keep::All, 1000, security_.subscriber("robot"),
                bridge::Stream::Status) {}

  void serve() {
    if (o_.source == "virtual") return serve_virtual();
    if (o_.source.rfind("images:", 0) == 0) return serve_images();
    if (o_.source.rfind("camera:", 0) == 0) return serve_cameras(o_.source.substr(7));
    fail("--source", "expected virtual, images:DIR or camera:LEFT,RIGHT, got '" + o_.source + "'");
  }

 private:
  const VisionServeOptions& o_;
  VisionPrepared prepared_;
  servo::LoopTiming timing_;
  RunFiles files_;
  bridge::HelloMessage hello_;  // vision's files (the experiment), by SHA-256 (rig/handshake.hpp)
  zmq::context_t context_;
  RoleSecurity security_;  // --keys: CURVE on every socket
  bridge::Publisher poses_;
  bridge::Subscriber status_;
  bridge::RobotState robot_state_ = bridge::RobotState::Waiting;
  double last_robot_ = now_s();
  std::uint64_t published_ = 0, invalid_ = 0;
  std::int64_t last_frame_ = -1;
  const bridge::Subscriber* camera_ = nullptr;  // the virtual camera's stream, when served
  bool robot_hello_ = false, robot_ended_ = false;

  // The robot's hello (checked against this role's files) and end, from either of its streams.
  void on_robot(const bridge::Message& m, const std::string& endpoint) {
    if (const auto* h = std::get_if<bridge::HelloMessage>(&m)) {
      if (const std::string why = hello_problem(hello_, files_, *h, bridge::Role::Robot, endpoint); !why.empty())
        fail("vision serve", why);
      robot_hello_ = true;
    }
    if (const auto* e = std::get_if<bridge::EndMessage>(&m)) robot_ended_ = robot_ended_ || e->role == bridge::Role::Robot;
  }

  // SIGINT/SIGTERM/SIGHUP (the operator, `rig run` passing on its own, a closed session) end the stream at once: the
  // robot, which got it too or hears the silence, comes to its controlled stop.
  void read_status() {
    if (const int sig = interrupting_signal()) {
      summary();
      fail("vision serve", "interrupted by " + signal_name(sig));
    }
    while (auto m = status_.receive(std::chrono::milliseconds(0))) {
      on_robot(*m, o_.endpoints.status);
      if (const auto* s = std::get_if<bridge::StatusMessage>(&*m)) {
        robot_state_ = s->state;
        last_robot_ = now_s();
        if (s->reason == bridge::StopReason::HandshakeRefused)
          fail("vision serve", "the robot refused the handshake (its line says why); nothing was published");
      }
    }
    for (const std::string& v : {version_problem(status_, "the robot", o_.endpoints.status, "vision"),
                                  camera_ ? version_problem(*camera_, "the robot", o_.endpoints.camera, "vision") : ""})
      if (!v.empty()) fail("vision serve", v);
    if (robot_state_ != bridge::RobotState::Waiting && !robot_ended_ && now_s() - last_robot_ > o_.robot_timeout)
      fail("vision serve", "nothing from the robot on " + o_.endpoints.status + " for " +
                               exact_number(o_.robot_timeout) + " s");
  }

  // Hellos on the pose stream from when the robot's hello is heard until it runs (docs/protocol.md,
  // "Handshake"): they tell the robot and the controller that this stream is connected and which
  // experiment it runs. A robot on another experiment is refused here, by name.
  void wait_for_start(bridge::Subscriber* camera) {
    bool heard = false;
    const double end = now_s() + o_.start_timeout;
    while (robot_state_ != bridge::RobotState::Running) {
      if (now_s() > end)
        fail("vision serve", start_timeout_message(robot_hello_ ? "the robot did not start"
                                                                : "no hello from the robot on " + o_.endpoints.status,
                                                   o_.start_timeout, poses_.refused_peers(), &status_));
      read_status();
      if (camera && !heard)  // up to the first message only: a truth pose of the run may follow
        if (auto m = camera->receive(std::chrono::milliseconds(0))) {
          heard = true;
          on_robot(*m, o_.endpoints.camera);
        }
      // Running (or stopped) now: on at once, not after one more handshake period (the robot's
      // pose timeout counts from its first tick).
      if (robot_state_ == bridge::RobotState::Stopped || robot_state_ == bridge::RobotState::Running) return;
      if ((heard || !camera) && robot_hello_) poses_.publish(hello_);
      bridge::Subscriber::wait_any({&status_}, micros(kHandshakePeriod));
    }
  }

  void publish(std::int64_t frame, std::int64_t exposure_ns, const vision::PoseMeasurement& m) {
    bridge::PoseMessage p;
    p.header.exposure_ns = exposure_ns;
    p.frame = frame;
    p.valid = m.valid;
    p.pose = m.valid ? m.chi : Vec6d::Zero();
    p.registration_error = m.valid ? m.fre_m : 0.0;
    p.markers_used = static_cast<std::uint32_t>(m.markers_used.size());
    publish(p);
  }
  void publish(const bridge::PoseMessage& p) {
    poses_.publish(p);
    ++published_;
    invalid_ += !p.valid;
    last_frame_ = p.frame;
  }

  void serve_virtual() {
    bridge::Subscriber camera(context_, o_.endpoints.camera, bridge::Subscriber::Keep::All, 1000,
                              security_.subscriber("robot"), bridge::Stream::Camera);
    VisionRole role = VisionRole::of(prepared_.virtual_run);
    camera_ = &camera;
    wait_for_start(&camera);
    for (bool camera_ended = false;;) {
      while (auto m = camera.receive(std::chrono::milliseconds(0))) {
        on_robot(*m, o_.endpoints.camera);
        camera_ended = camera_ended || std::holds_alternative<bridge::EndMessage>(*m);
        if (const auto* truth = std::get_if<bridge::PoseMessage>(&*m)) {
          last_robot_ = now_s();
          publish(role.on_truth(*truth));
        }
      }
      // The robot's end on the camera stream comes after its last exposure (on the status
      // stream it may overtake them): every pose is out.
      if (camera_ended) return summary(&camera);
      read_status();
      if (robot_state_ == bridge::RobotState::Stopped && !bridge::Subscriber::wait_any({&camera}, micros(0.05)))
        return summary(&camera);
      bridge::Subscriber::wait_any({&camera, &status_}, micros(0.01));
    }
  }

  std::string rig_file() const { return rig_file_of(o_); }

  void serve_images() {
    const vision::PosePipeline& p = *prepared_.pipeline;
    const std::vector<calib::ImagePair>& pairs = prepared_.pairs;
    wait_for_start(nullptr);
    const double start = now_s(), period = timing_.camera_period();
    for (std::size_t k = 0; k < pairs.size() && robot_state_ == bridge::RobotState::Running; ++k) {
      const double exposure = start + static_cast<double>(k) * period;
      while (now_s() < exposure) bridge::Subscriber::wait_any({&status_}, micros(exposure - now_s()));
      publish(static_cast<std::int64_t>(k), static_cast<std::int64_t>(exposure * 1e9),
              calib::measure_pair(p, pairs[k], rig_file()));
      read_status();
    }
    summary();
  }

  void serve_cameras(const std::string& devices) {
    const auto comma = devices.find(',');
    if (comma == std::string::npos) fail("--source", "camera:LEFT,RIGHT needs two devices, got '" + devices + "'");
    const vision::PosePipeline& p = *prepared_.pipeline;
    vision::VideoDevice left = open_device(devices.substr(0, comma)), right = open_device(devices.substr(comma + 1));
    wait_for_start(nullptr);
    cv::Mat l, r;
    auto gray = [](const cv::Mat& m) {
      if (m.channels() == 1) return m;
      cv::Mat g;
      cv::cvtColor(m, g, cv::COLOR_BGR2GRAY);
      return g;
    };
    for (std::int64_t j = 0; robot_state_ == bridge::RobotState::Running; ++j) {
      if (!left.grab() || !right.grab()) fail("--source", "a camera stopped delivering frames (" + devices + ")");
      const std::int64_t exposure = bridge::steady_now_ns();
      left.retrieve(l);
      right.retrieve(r);
      publish(j, exposure, p.measure_images(gray(l), gray(r)));
      read_status();
    }
    summary();
  }

  // A device index or a /dev path is a Video4Linux camera (opened with that backend only: probing
  // every backend also tries FireWire and USB still-camera libraries, which leak on failure); any
  // other name goes to OpenCV as it is (a GStreamer pipeline, a stream URL). A device that does
  // not exist, or one given as both cameras, was refused before (cameras_problem).
  // Opened through OpenCV's camera plugin (vision/opencv_io.hpp), which silences OpenCV's own
  // "[ WARN … cap_v4l.cpp …]" lines: vcloe says what failed.
  static vision::VideoDevice open_device(const std::string& name) {
    const bool index = is_device_index(name), device = name.rfind("/dev/", 0) == 0;
    vision::VideoDevice c(index ? std::stoi(name) : -1, name, device, "--source");
    if (!c.is_open()) fail("--source", "cannot open camera '" + name + "' (a device index or path OpenCV can open)");
    return c;
  }

  // The end of the stream (docs/protocol.md, "The end"): this role's end message after its last
  // pose (kept for the subscribers a moment after: the socket lingers), then its line.
  void summary(const bridge::Subscriber* camera = nullptr) {
    poses_.publish(bridge::EndMessage{{}, bridge::Role::Vision, last_frame_, published_});
    poses_.linger(std::chrono::milliseconds(200));
    std::cout << "vision serve: published " << published_ << " poses (" << invalid_ << " invalid); malformed frames: "
              << "camera " << (camera ? camera->malformed() : 0) << ", status " << status_.malformed()
              << "; peers refused " << poses_.refused_peers() << "\n"
              << std::flush;
  }
};

}  // namespace

void VisionServeOptions::validate(const std::string& where) const {
  // The time options against the experiment file's camera period (rig_times_problem, the one place).
  const double period = servo::load_experiment(experiment).timing.camera_period();
  RigTimes t{start_timeout, std::nullopt, std::nullopt, std::nullopt, robot_timeout};
  t.vision_robot_option = "--robot-timeout";
  throw_if(rig_times_problem(t, period, experiment), where);
  // The endpoints: an ipc path is looked at (lstat), so here and not in problem(), which stays pure.
  throw_if(endpoints_problem(endpoints, source == "virtual" ? "cps" : "ps", "cs"), where);
  throw_if(source_problem(source), where);  // the devices and images looked at: here, not in problem()
}

void check_vision_serve(const VisionServeOptions& o) { (void)prepare_vision(o); }

void serve_vision(const VisionServeOptions& options) {
  VisionPrepared prepared = prepare_vision(options);
  catch_interrupts();
  VisionServer server(options, std::move(prepared));
  server.serve();
}

}  // namespace vcloe::rig
