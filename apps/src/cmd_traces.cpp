// `vcloe simulate`, `vcloe run`, `vcloe compare`: pose traces from the twin and the robot, and
// their per-axis differences (seed 004 Table 3 and Fig. 12 forms).
#include <iomanip>
#include <iostream>

#include "camera_option.hpp"
#include "commands.hpp"
#include "pose_plot.hpp"
#include "experiment_setup.hpp"
#include "vcloe/core/error.hpp"
#include "vcloe/core/trace_compare.hpp"

namespace vcloe::app {

namespace {

void print_written(const std::string& path, const PoseTrace& t) {
  std::cout << "wrote " << path << " (" << t.size() << " poses, " << t.time.back() << " s) and "
            << sidecar_path(path) << "\n";
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  struct Options {
    std::string model, experiment, reference, out;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  o->model = default_robot_file();
  o->experiment = default_config_dir() + "/experiment.yaml";
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Run the twin (modeled joint PID + our dynamics) under the visual-servo loop and write its pose trace");
  cmd->add_option("--model", o->model, "robot file with the parameters to simulate")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory file (docs/trajectory-file.md)")->required();
  cmd->add_option("--out", o->out, "trace CSV to write (docs/traces.md)")->required();
  cmd->add_flag("--force", o->force, "overwrite existing output");
  cmd->callback([o] {
    const ExperimentSetup s = load_setup(o->model, o->experiment, o->reference);
    const PoseTrace t = twin_trace(s, s.lambda);
    write_trace(o->out, t, o->force);
    print_written(o->out, t);
  });
}

void add_run_command(CLI::App& app) {
  struct Options {
    std::string backend = "virtual", robot, truth, experiment, reference, out;
    std::uint64_t seed = 1;
    double noise_position = 2e-5, noise_angle = 5e-5;
    double payload_mass = 0;
    std::vector<double> payload_inertia;
    bool force = false;
    CameraOption camera;
  };
  auto o = std::make_shared<Options>();
  o->robot = default_robot_file();
  o->truth = default_config_dir() + "/truth.yaml";
  o->experiment = default_config_dir() + "/experiment.yaml";
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a reference on the robot under the visual-servo loop and record the measured pose trace");
  cmd->add_option("--backend", o->backend, "robot backend (virtual: the MuJoCo virtual robot)")
      ->check(CLI::IsMember({"virtual"}))
      ->capture_default_str();
  cmd->add_option("--truth", o->truth, "the virtual robot's truth file (never read by the twin)")->capture_default_str();
  cmd->add_option("--robot", o->robot, "robot file the reference is checked against")->capture_default_str();
  cmd->add_option("--experiment", o->experiment, "timing and outer controller")->capture_default_str();
  cmd->add_option("--reference", o->reference, "trajectory file")->required();
  cmd->add_option("--out", o->out, "trace CSV to write")->required();
  cmd->add_option("--seed", o->seed, "measurement-noise seed")->capture_default_str();
  cmd->add_option("--noise-position", o->noise_position, "camera noise sigma per position channel (m)")
      ->capture_default_str();
  cmd->add_option("--noise-angle", o->noise_angle, "camera noise sigma per angle channel (rad)")->capture_default_str();
  add_camera_options(cmd, o->camera);
  cmd->add_option("--payload-mass", o->payload_mass, "known payload bolted to the platform (kg)");
  cmd->add_option("--payload-inertia", o->payload_inertia, "its principal moments Ix Iy Iz (kg*m^2)")->expected(3);
  cmd->add_flag("--force", o->force, "overwrite existing output");
  cmd->callback([o] {
    const ExperimentSetup s = load_setup(o->robot, o->experiment, o->reference);
    const sim::RobotFile truth = sim::load_robot(o->truth, true);
    VirtualRun vo;
    vo.seed = o->seed;
    if (!(o->noise_position >= 0) || !(o->noise_angle >= 0)) fail("--noise-*", "noise must be non-negative");
    vo.noise_sigma << o->noise_position, o->noise_position, o->noise_position, o->noise_angle, o->noise_angle,
        o->noise_angle;
    std::optional<oe_ident::Payload> payload;
    if (o->payload_mass > 0) {
      oe_ident::Payload p;
      p.mass = o->payload_mass;
      if (o->payload_inertia.size() == 3) p.inertia = Vec3d(o->payload_inertia[0], o->payload_inertia[1], o->payload_inertia[2]);
      payload = p;
    }
    const auto add_camera_metadata = install_camera(o->camera, vo);
    PoseTrace t = virtual_trace(s, truth, vo, o->truth, payload);
    add_camera_metadata(t);
    write_trace(o->out, t, o->force);
    print_written(o->out, t);
  });
}

void add_compare_command(CLI::App& app) {
  struct Options {
    std::string a, b, plot, columns = "measured", columns_b;
    bool json = false, force = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Per-axis RMS and max of the pose difference of two traces (mm, mrad; Table 3 form), optional plot");
  cmd->add_option("a", o->a, "trace A (its timestamps are used)")->required();
  cmd->add_option("b", o->b, "trace B (interpolated if its times differ)")->required();
  cmd->add_option("--columns", o->columns, "which poses of A: measured, truth or reference")->capture_default_str();
  cmd->add_option("--columns-b", o->columns_b, "which poses of B (default: as A)");
  cmd->add_option("--plot", o->plot, "plot the six pose components of both (.png, .svg, .pdf)");
  cmd->add_flag("--json", o->json, "print the result as JSON");
  cmd->add_flag("--force", o->force, "overwrite an existing plot");
  cmd->callback([o] {
    const PoseTrace a = read_trace(o->a), b = read_trace(o->b);
    const TraceColumns wa = trace_columns_from_string(o->columns);
    const TraceColumns wb = o->columns_b.empty() ? wa : trace_columns_from_string(o->columns_b);
    const TraceDifference d = compare_traces(a, b, wa, wb, o->a, o->b);
    if (o->json) {
      const nlohmann::json j = {{"rms_mm", d.rms_mm},     {"max_mm", d.max_mm},     {"rms_mrad", d.rms_mrad},
                                {"max_mrad", d.max_mrad}, {"samples", d.samples}, {"interpolated", d.interpolated}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << std::fixed << std::setprecision(4) << "A = " << o->a << "\nB = " << o->b << "\n"
                << d.samples << " samples" << (d.interpolated ? " (B linearly interpolated onto A's times)" : "") << "\n"
                << "          x (mm)    y (mm)    z (mm)   alpha (mrad) beta (mrad) gamma (mrad)\n"
                << "RMS   " << std::setw(9) << d.rms_mm[0] << " " << std::setw(9) << d.rms_mm[1] << " " << std::setw(9)
                << d.rms_mm[2] << "   " << std::setw(9) << d.rms_mrad[0] << "   " << std::setw(9) << d.rms_mrad[1]
                << "   " << std::setw(9) << d.rms_mrad[2] << "\n"
                << "max   " << std::setw(9) << d.max_mm[0] << " " << std::setw(9) << d.max_mm[1] << " " << std::setw(9)
                << d.max_mm[2] << "   " << std::setw(9) << d.max_mrad[0] << "   " << std::setw(9) << d.max_mrad[1]
                << "   " << std::setw(9) << d.max_mrad[2] << "\n";
    }
    if (!o->plot.empty()) {
      plot_pose_series({{"A: " + o->a, a.time, columns_of(a, wa, o->a)}, {"B: " + o->b, b.time, columns_of(b, wb, o->b)}},
                       o->plot, "Pose traces", o->force);
    }
  });
}

}  // namespace vcloe::app
