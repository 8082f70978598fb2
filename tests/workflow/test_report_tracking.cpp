// Specification of the tracking section's inputs (workflow::read_tracking_inputs): runs of one
// reference on one robot, each driven as its option says, and `vcloe predict`'s CSV along that
// reference — checked through the SHA-256 their sidecars record (core/provenance.hpp) before
// anything is drawn, each refusal one line naming the files; a run not given is none.
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "../test_support.hpp"
#include "vcloe/control/precorrection_file.hpp"
#include "vcloe/control/prediction_file.hpp"
#include "vcloe/core/trace.hpp"
#include "vcloe/workflow/report.hpp"

using namespace vcloe;

namespace test_report_tracking {

namespace {

const FileRecord kReference{"/refs/r.yaml", std::string(64, 'a')};
const FileRecord kOtherReference{"/refs/other.yaml", std::string(64, 'b')};
const FileRecord kTruth{"/robots/truth.yaml", std::string(64, 'c')};

// A virtual run's trace along `reference`, pre-corrected with `command` when given.
std::string write_run(const std::filesystem::path& dir, const std::string& name, const FileRecord& reference,
                      const std::optional<FileRecord>& command = std::nullopt, const FileRecord& truth = kTruth) {
  PoseTrace t;
  for (int k = 0; k < 20; ++k) {
    Vec6d ref = Vec6d::Constant(0.01 * k);
    t.time.push_back(0.01 * k);
    t.reference.push_back(ref);
    t.measured.push_back(ref + Vec6d::Constant(1e-4));
  }
  t.metadata.source = "virtual", t.metadata.reference = reference, t.metadata.truth = truth;
  t.metadata.seed = 1, t.metadata.engine = EngineRecord{"MuJoCo 2.2", 0.00025};
  t.metadata.precorrection = command;
  const std::string path = (dir / name).string();
  write_trace(path, t, true);
  return path;
}

std::string write_prediction(const std::filesystem::path& dir, const FileRecord& reference) {
  control::PredictionFile f;
  f.period = 0.01, f.reference = reference, f.model = {"/m/identified.yaml", std::string(64, 'd')};
  f.band = {"/m/identified.yaml.report.json", std::string(64, '1')};  // the sigma_ columns' covariance
  for (int n = 0; n < 5; ++n) {
    control::LoadVector load;
    for (int r = 0; r < control::kLoadSize; ++r) load(r) = r + 0.5 * n;
    f.load.push_back(load);
    f.sigma.push_back(control::LoadVector::Constant(0.1));
  }
  const std::string path = (dir / "p.csv").string();
  control::write_prediction(path, f, true);
  return path;
}

// A command of `kind` along kReference, written once (the report opens the command a run records
// to tell a model's pre-correction from a learnt one): its record as a run's sidecar holds it.
FileRecord command_of(const std::string& kind, const std::string& name, const FileRecord& truth = kTruth) {
  const auto d = test::fresh_directory("vcloe-report-tracking-commands", kind + "-" + name);
  control::PrecorrectionFile f;
  f.controller_hz = 100, f.reference = kReference, f.kind = kind;
  if (kind == control::kKindLearnt) f.truth = truth;
  f.command = {Vec6d::Zero(), Vec6d::Constant(kind == control::kKindLearnt ? 0.02 : 0.01)};  // two commands
  const std::string path = (d / name).string();
  control::write_precorrection(path, f, true);
  return FileRecord{path, sha256_file_now(path)};
}
const FileRecord& command() {
  static const FileRecord r = command_of(control::kKindPrecorrection, "pre.csv");
  return r;
}
const FileRecord& learnt() {
  static const FileRecord r = command_of(control::kKindLearnt, "learnt.csv");
  return r;
}

}  // namespace

TEST(ReportTracking, RunsOfOneReferenceAndThePredictionAlongItAreReadInTheirRoles) {
  const auto d = test::fresh_directory("vcloe-report-tracking-inputs", "ok");
  workflow::TrackingFiles files;
  files.servo_alone = write_run(d, "servo.csv", kReference);
  files.learnt = write_run(d, "learnt.csv", kReference, learnt());  // no pre-corrected run: none
  files.prediction = write_prediction(d, kReference);
  const workflow::TrackingInputs in = workflow::read_tracking_inputs(files);
  ASSERT_EQ(in.runs.size(), 2u);
  EXPECT_EQ(in.runs[0].kind, report::RunKind::servo_alone);
  EXPECT_EQ(in.runs[0].driven_with, "the visual servo alone");
  EXPECT_EQ(in.runs[1].kind, report::RunKind::learnt);
  EXPECT_EQ(in.runs[1].driven_with.rfind("pre-corrected with learnt.csv (SHA-256 " + learnt().sha256.substr(0, 12), 0), 0u);
  ASSERT_TRUE(in.loads);
  ASSERT_EQ(in.loads->torque.time.size(), 5u);
  EXPECT_DOUBLE_EQ(in.loads->torque.time[4], 0.04);
  EXPECT_DOUBLE_EQ(in.loads->torque.identified[4](5), 5 + 2.0);       // tau6 at n = 4
  EXPECT_DOUBLE_EQ(in.loads->force[4](0), 6 + 2.0);                   // fB1_x
  EXPECT_DOUBLE_EQ(in.loads->force_sigma[1](53), 0.1);
  EXPECT_EQ(in.prediction_model.path, "/m/identified.yaml");
}

TEST(ReportTracking, ARunOfAnotherReferenceIsRefusedNamingBoth) {
  const auto d = test::fresh_directory("vcloe-report-tracking-inputs", "reference");
  workflow::TrackingFiles files;
  files.servo_alone = write_run(d, "servo.csv", kReference);
  files.precorrected = write_run(d, "pre.csv", kOtherReference, command());
  const std::string e = test::error_of([&] { workflow::read_tracking_inputs(files); });
  EXPECT_EQ(e, files.precorrected + " (--precorrected): does not belong with " + files.servo_alone + " (--servo-alone): " +
                   files.servo_alone + " ran the reference /refs/r.yaml (SHA-256 aaaaaaaaaaaa…), " + files.precorrected +
                   " another, /refs/other.yaml (SHA-256 bbbbbbbbbbbb…) (the runs compared must be of one reference on one robot)");
  // A prediction along another reference than the runs'.
  files.precorrected.clear();
  files.prediction = write_prediction(d, kOtherReference);
  const std::string p = test::error_of([&] { workflow::read_tracking_inputs(files); });
  EXPECT_EQ(p.rfind(files.prediction + " (--prediction): is not along the reference of " + files.servo_alone, 0), 0u) << p;
  EXPECT_NE(p.find("/refs/other.yaml"), std::string::npos) << p;
}

TEST(ReportTracking, ARunOfAnotherRobotOrDrivenOtherwiseThanItsOptionSaysIsRefused) {
  const auto d = test::fresh_directory("vcloe-report-tracking-inputs", "roles");
  workflow::TrackingFiles robot;
  robot.servo_alone = write_run(d, "servo.csv", kReference);
  robot.learnt = write_run(d, "learnt.csv", kReference, learnt(), {"/robots/other.yaml", std::string(64, '9')});
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(robot); }).find("on another, /robots/other.yaml"), std::string::npos);
  workflow::TrackingFiles servo;  // a pre-corrected run given as the servo alone, and the reverse
  servo.servo_alone = write_run(d, "pre.csv", kReference, command());
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(servo); })
                .find("pre.csv (--servo-alone): ran pre-corrected with " + command().path), std::string::npos);
  workflow::TrackingFiles pre;
  pre.precorrected = write_run(d, "plain.csv", kReference);
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(pre); })
                .find("plain.csv (--precorrected): ran the visual servo alone"), std::string::npos);
  workflow::TrackingFiles same;  // the pre-corrected command given again as the learnt one
  same.precorrected = write_run(d, "a.csv", kReference, command());
  same.learnt = write_run(d, "b.csv", kReference, command());
  // (a command is a model's or learnt: given in both roles, one of them is refused for its kind)
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(same); }).find("b.csv (--learnt): ran the pre-correction "),
            std::string::npos);
  workflow::TrackingFiles bare;  // no sidecar: nothing to check it against
  bare.servo_alone = write_run(d, "bare.csv", kReference);
  std::filesystem::remove(sidecar_path(bare.servo_alone));
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(bare); }).find("bare.csv (--servo-alone): has no sidecar"),
            std::string::npos);
}

}  // namespace test_report_tracking

namespace test_report_tracking {

TEST(ReportTracking, APredictionEditedSinceItWasWrittenOrWithoutItsSidecarIsRefused) {
  const auto d = test::fresh_directory("vcloe-report-tracking-inputs", "prediction");
  workflow::TrackingFiles files;
  files.prediction = write_prediction(d, kReference);
  std::string csv = test::file_text(files.prediction);
  csv.replace(csv.find("\n0.01,") + 1, 4, "0.02");  // a row's time edited by hand
  std::ofstream(files.prediction, std::ios::binary) << csv;
  EXPECT_EQ(test::error_of([&] { workflow::read_tracking_inputs(files); }),
            files.prediction + ": does not belong to its sidecar " + files.prediction +
                ".meta.json (the sidecar records the SHA-256 of another CSV)");
  std::filesystem::remove(sidecar_path(files.prediction));  // `vcloe predict` before it wrote one
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(files); }).find(files.prediction + ".meta.json"),
            std::string::npos);
}

}  // namespace test_report_tracking

namespace test_report_tracking {

namespace {

// A run along kReference whose sidecar `edit` changes (its experiment, payload, duration).
template <typename Edit>
std::string write_run_edited(const std::filesystem::path& dir, const std::string& name,
                             const std::optional<FileRecord>& command, Edit edit) {
  const std::string path = write_run(dir, name, kReference, command);
  PoseTrace t = read_trace(path);
  t.metadata.controller_hz = 1000, t.metadata.camera_hz = 100, t.metadata.latency_s = 0.01, t.metadata.duration_s = 0.2;
  t.metadata.experiment = FileRecord{};  // the built-in experiment, as `run` records it without --experiment
  edit(t.metadata);
  write_trace(path, t, true);
  return path;
}

}  // namespace

TEST(ReportTracking, RunsUnderAnotherExperimentOrPayloadOrCutShortAreRefusedNamingWhatDiffers) {
  // Session 21's probe, class T: each was drawn and divided by the other, exit 0.
  const auto d = test::fresh_directory("vcloe-report-tracking-inputs", "conditions");
  const auto same = [](TraceMetadata&) {};
  struct Case {
    void (*edit)(TraceMetadata&);
    std::string says;
  };
  const std::vector<Case> cases = {
      {[](TraceMetadata& m) { m.controller_hz = 500, m.latency_s = 0.02; }, "its controller rate is 500 Hz, not 1000 Hz"},
      {[](TraceMetadata& m) { m.latency_s = 0.02; }, "its latency is 0.02 s, not 0.01 s"},
      {[](TraceMetadata& m) { m.payload = PayloadRecord{5, Vec3d(0.02, 0.02, 0.03)}; },
       "it carried a payload of 5 kg (moments 0.02, 0.02, 0.03 kg m^2), not no payload"},
      {[](TraceMetadata& m) { m.experiment = FileRecord{"/e/fast.yaml", std::string(64, '7')}; },
       "SERVO ran the built-in experiment, PRE the experiment /e/fast.yaml (SHA-256 777777777777…): one outer "
       "controller was expected"}};
  for (const Case& c : cases) {
    workflow::TrackingFiles files;
    files.servo_alone = write_run_edited(d, "servo.csv", std::nullopt, same);
    files.precorrected = write_run_edited(d, "pre.csv", command(), c.edit);
    const std::string e = test::error_of([&] { workflow::read_tracking_inputs(files); });
    std::string says = c.says;  // the files' names in it
    if (const auto at = says.find("SERVO"); at != std::string::npos) says.replace(at, 5, files.servo_alone);
    if (const auto at = says.find("PRE"); at != std::string::npos) says.replace(at, 3, files.precorrected);
    EXPECT_EQ(e, files.precorrected + " (--precorrected): does not belong with " + files.servo_alone +
                     " (--servo-alone): " + says + " (the runs compared differ only in how they were driven)");
  }
  // A run holding 0.2 s of its 2 s: not the run; the whole runs are taken. A sidecar re-made so
  // is refused by the one trace reader (and not written: Trace.ASidecarsDurationIsHeldToTheRowsOfItsCsv);
  // a run that stopped early has such rows, and is said so here.
  workflow::TrackingFiles cut;
  cut.servo_alone = write_run_edited(d, "cut.csv", std::nullopt, [](TraceMetadata& m) {
    m.duration_s = 2, m.stopped = StoppedRecord{"the operator stopped it", 20, 0.19};
  });
  const std::string e = test::error_of([&] { workflow::read_tracking_inputs(cut); });
  EXPECT_EQ(e.rfind(cut.servo_alone + " (--servo-alone): holds rows up to t = 0.19", 0), 0u) << e;
  EXPECT_NE(e.find(" s of the 2 s its sidecar records (duration_s): the run stopped; its RMS is not comparable with a "
                   "whole run's"),
            std::string::npos)
      << e;
  workflow::TrackingFiles whole;
  whole.servo_alone = write_run_edited(d, "servo.csv", std::nullopt, same);
  whole.precorrected = write_run_edited(d, "pre.csv", command(), same);
  EXPECT_EQ(workflow::read_tracking_inputs(whole).runs.size(), 2u);
}

TEST(ReportTracking, APredictionBesideRunsThatCarriedAPayloadIsRefused) {
  // Probe 33, r10: predict's loads are of the bare platform; drawn beside a run with 5 kg on it
  // they were said to be "along the runs' reference", the payload unsaid.
  const auto d = test::fresh_directory("vcloe-report-tracking-inputs", "payload");
  workflow::TrackingFiles files;
  files.servo_alone = write_run_edited(d, "servo.csv", std::nullopt, [](TraceMetadata& m) { m.payload = PayloadRecord{5, Vec3d::Zero()}; });
  files.prediction = write_prediction(d, kReference);
  const std::string e = test::error_of([&] { workflow::read_tracking_inputs(files); });
  EXPECT_EQ(e.rfind(files.prediction + " (--prediction): is of the platform without a payload (vcloe predict has none), but " +
                        files.servo_alone + " (--servo-alone) carried ",
                    0),
            0u)
      << e;
  files.servo_alone = write_run_edited(d, "servo.csv", std::nullopt, [](TraceMetadata&) {});
  EXPECT_TRUE(workflow::read_tracking_inputs(files).loads.has_value());
}

TEST(ReportTracking, APredictionWhoseReferenceChangedSinceIsRefusedNotDrawnUnchecked) {
  // Session 30 left it: a prediction whose recorded reference (robot file, experiment) changed
  // since could not be predicted again and was drawn as written. Now refused by name.
  const auto d = test::fresh_directory("vcloe-report-tracking-inputs", "changed");
  const std::string path = (d / "r.yaml").string();
  std::ofstream(path) << "# the reference now\n";
  const FileRecord changed{path, std::string(64, 'e')};  // recorded, another SHA-256 than the file's now
  workflow::TrackingFiles files;
  files.servo_alone = write_run(d, "servo.csv", changed);
  files.prediction = write_prediction(d, changed);
  EXPECT_EQ(test::error_of([&] { workflow::read_tracking_inputs(files); }),
            files.prediction + " (--prediction): was predicted from the reference " + path +
                " (SHA-256 eeeeeeeeeeee…), which has changed since: run vcloe predict again");
}

TEST(ReportTracking, APredictionsBandIsTheCovarianceOfItsOwnModelNeverAnothersOrNone) {
  const auto d = test::fresh_directory("vcloe-report-tracking-inputs", "band");
  workflow::TrackingFiles files;
  files.prediction = write_prediction(d, kReference);
  EXPECT_TRUE(workflow::read_tracking_inputs(files).loads->band);
  const auto edited = [&](void (*edit)(control::PredictionFile&)) {
    files.prediction = write_prediction(d, kReference);
    control::PredictionFile f = control::read_prediction(files.prediction);
    edit(f);
    control::write_prediction(files.prediction, f, true);
    return test::error_of([&] { workflow::read_tracking_inputs(files); });
  };
  const std::string side = files.prediction + ".meta.json: key 'band': expected ";
  EXPECT_EQ(edited([](control::PredictionFile& f) { f.band = {"/m/other.yaml.report.json", std::string(64, '2')}; })
                .rfind(side + "the identification report of the prediction's model, /m/identified.yaml.report.json", 0),
            0u);
  EXPECT_EQ(edited([](control::PredictionFile& f) {
              f.band = {"/m/identified.yaml.report.json", std::string(64, '1')};
              for (auto& s : f.sigma) s.setZero();
            }).rfind(side + "null: the CSV's sigma_ columns are all zero, there is no band", 0),
            0u);
  EXPECT_EQ(edited([](control::PredictionFile& f) {
              f.band = {};
              f.sigma[2](7) = 0.3;
            }).rfind(side + "the report the CSV's sigma_ columns come from", 0),
            0u);
}

}  // namespace test_report_tracking

namespace test_report_tracking {

TEST(ReportTracking, ALearntCommandAndAModelsPreCorrectionAreTakenOnlyInTheirOwnRoles) {
  // Session 21's probe, L: `report --learnt/--precorrected` could not tell a learnt command from a
  // pre-correction and accepted either in the place of the other. The kind is the command's sidecar's.
  const auto d = test::fresh_directory("vcloe-report-tracking-inputs", "kinds");
  workflow::TrackingFiles swapped;
  swapped.precorrected = write_run(d, "l.csv", kReference, learnt());
  EXPECT_EQ(test::error_of([&] { workflow::read_tracking_inputs(swapped); }),
            swapped.precorrected + " (--precorrected): ran the learnt command " + learnt().path + " (kind \"learnt\" in " +
                learnt().path + ".meta.json: vcloe learn on /robots/truth.yaml), not a model's pre-correction: give it as "
                "--learnt");
  workflow::TrackingFiles reverse;
  reverse.learnt = write_run(d, "p.csv", kReference, command());
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(reverse); })
                .find(reverse.learnt + " (--learnt): ran the pre-correction " + command().path + " (kind \"precorrection\""),
            std::string::npos);
  // Learnt on one virtual robot, run on another: not that robot's learnt command.
  workflow::TrackingFiles other;
  other.learnt = write_run(d, "o.csv", kReference, learnt(), {"/robots/t2.yaml", std::string(64, '5')});
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(other); })
                .find("learnt on the virtual robot /robots/truth.yaml (SHA-256 cccccccccccc…) on another, /robots/t2.yaml"),
            std::string::npos);
  // A command edited since the run: what drove it cannot be told.
  const FileRecord edited = command_of(control::kKindLearnt, "edited.csv");
  workflow::TrackingFiles changed;
  changed.learnt = write_run(d, "e.csv", kReference, edited);
  std::ofstream(edited.path, std::ios::app) << "0.02,0,0,0,0,0,0\n";
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(changed); }).find("which has changed since the run"),
            std::string::npos);
  // Each in its own role: read.
  workflow::TrackingFiles right;
  right.precorrected = write_run(d, "a.csv", kReference, command());
  right.learnt = write_run(d, "b.csv", kReference, learnt());
  EXPECT_EQ(workflow::read_tracking_inputs(right).runs.size(), 2u);
}

}  // namespace test_report_tracking
