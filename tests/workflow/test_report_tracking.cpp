// Specification of the tracking section's inputs (workflow::read_tracking_inputs): runs of one
// reference on one robot, each driven as its option says, and `vcloe predict`'s CSV along that
// reference — checked through the SHA-256 their sidecars record (core/provenance.hpp) before
// anything is drawn, each refusal one line naming the files; a run not given is none.
#include <gtest/gtest.h>

#include "../test_support.hpp"
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
  t.metadata.precorrection = command;
  const std::string path = (dir / name).string();
  write_trace(path, t, true);
  return path;
}

std::string write_prediction(const std::filesystem::path& dir, const FileRecord& reference) {
  control::PredictionFile f;
  f.period = 0.01, f.reference = reference, f.model = {"/m/identified.yaml", std::string(64, 'd')};
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

const FileRecord kCommand{"/c/pre.csv", std::string(64, 'e')};
const FileRecord kLearnt{"/c/learnt.csv", std::string(64, 'f')};

}  // namespace

TEST(ReportTracking, RunsOfOneReferenceAndThePredictionAlongItAreReadInTheirRoles) {
  const auto d = test::fresh_directory("vcloe-report-tracking-inputs", "ok");
  workflow::TrackingFiles files;
  files.servo_alone = write_run(d, "servo.csv", kReference);
  files.learnt = write_run(d, "learnt.csv", kReference, kLearnt);  // no pre-corrected run: none
  files.prediction = write_prediction(d, kReference);
  const workflow::TrackingInputs in = workflow::read_tracking_inputs(files);
  ASSERT_EQ(in.runs.size(), 2u);
  EXPECT_EQ(in.runs[0].kind, report::RunKind::servo_alone);
  EXPECT_EQ(in.runs[0].driven_with, "the visual servo alone");
  EXPECT_EQ(in.runs[1].kind, report::RunKind::learnt);
  EXPECT_EQ(in.runs[1].driven_with.rfind("pre-corrected with learnt.csv (SHA-256 ffffffffffff", 0), 0u);
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
  files.precorrected = write_run(d, "pre.csv", kOtherReference, kCommand);
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
  robot.learnt = write_run(d, "learnt.csv", kReference, kLearnt, {"/robots/other.yaml", std::string(64, '9')});
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(robot); }).find("on another, /robots/other.yaml"), std::string::npos);
  workflow::TrackingFiles servo;  // a pre-corrected run given as the servo alone, and the reverse
  servo.servo_alone = write_run(d, "pre.csv", kReference, kCommand);
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(servo); })
                .find("pre.csv (--servo-alone): ran pre-corrected with /c/pre.csv"), std::string::npos);
  workflow::TrackingFiles pre;
  pre.precorrected = write_run(d, "plain.csv", kReference);
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(pre); })
                .find("plain.csv (--precorrected): ran the visual servo alone"), std::string::npos);
  workflow::TrackingFiles same;  // the pre-corrected command given again as the learnt one
  same.precorrected = write_run(d, "a.csv", kReference, kCommand);
  same.learnt = write_run(d, "b.csv", kReference, kCommand);
  EXPECT_NE(test::error_of([&] { workflow::read_tracking_inputs(same); }).find("b.csv (--learnt): ran the same command as "),
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
