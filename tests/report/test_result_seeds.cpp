// The fuzz seeds of our JSON results (fuzz/corpus/results/, scripts/fuzz) are files vcloe writes
// now: each read by its one reader and written back to the same document. A change of a result's
// format or of its reader's checks that leaves a seed behind turns this red, instead of leaving
// the fuzzer to start from refusals (docs/robustness.md, "Fuzzing").
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "vcloe/core/json_file.hpp"
#include "vcloe/report/calibration.hpp"
#include "vcloe/report/identification.hpp"
#include "vcloe/report/study.hpp"
#include "vcloe/report/validation.hpp"

namespace test_result_seeds {

namespace fs = std::filesystem;
using namespace vcloe;

// The document read, written by the one writer and read again: the same text written.
template <typename Read, typename Write>
void reads_back(const fs::path& file, Read&& read, Write&& write) {
  const std::string written = write(read(read_json_file(file.string()), file.string()));
  EXPECT_EQ(write(read(parse_json(written, file.string()), file.string())), written);
}

TEST(ResultSeeds, EverySeedOfTheResultsFuzzerIsAFileItsReaderReads) {
  const fs::path dir = fs::path(VCLOE_SOURCE_DIR) / "fuzz/corpus/results";
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path f = entry.path();
    const std::string name = f.filename().string();
    SCOPED_TRACE(name);
    try {
      if (name.ends_with(".report.json"))
        reads_back(f, report::identification_from_json, [](const report::IdentificationReport& r) { return report::to_json(r).dump(); });
      else if (name.starts_with("validation"))
        reads_back(f, report::validation_from_json, [](const report::ValidationResult& r) { return report::to_json(r).dump(); });
      else if (name.starts_with("calibration"))
        reads_back(f, report::calibration_from_json, [](const report::CalibrationReport& r) { return report::to_json(r).dump(); });
      else if (name.starts_with("study"))
        reads_back(f, report::study_from_json,
                   [](const report::StudyResult& r) { return report::study_json(r.rows, r.summary, r.settings).dump(); });
      else
        ADD_FAILURE() << name << ": not a result the fuzzer's seeds are named after (*.report.json, validation*, calibration*, study*)";
      ++seen;
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GE(seen, 4);  // one of each kind at least
}

}  // namespace test_result_seeds
