// The JSON results vcloe writes and reads back (docs/identification.md): the identification
// report (identify's .report.json), the validation result (validate --out), the study
// (study.json) and the kinematic calibration's result (calibrate kinematics --result). Each typed reader either refuses in one line naming the file, or returns a
// value that its one writer writes and the reader reads back to the same bytes.
#include "fuzz_support.hpp"
#include "vcloe/core/json_file.hpp"
#include "vcloe/report/calibration.hpp"
#include "vcloe/report/identification.hpp"
#include "vcloe/report/study.hpp"
#include "vcloe/report/validation.hpp"

namespace {

template <typename Read, typename Write>
void check(const std::string& text, const std::string& name, Read&& read, Write&& write) {
  using namespace vcloe;
  const auto value = fuzz::read_or_refuse(name, [&] { return read(parse_json(text, name), name); });
  if (value) fuzz::check_round_trip(*value, name, [&](const std::string& t) { return read(parse_json(t, name), name); }, write);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vcloe::report;
  const std::string text = vcloe::fuzz::text_of(data, size);
  check(text, "m.report.json", identification_from_json, [](const IdentificationReport& r) { return to_json(r).dump(); });
  check(text, "v.json", validation_from_json, [](const ValidationResult& r) { return to_json(r).dump(); });
  check(text, "c.json", calibration_from_json, [](const CalibrationReport& r) { return to_json(r).dump(); });
  check(text, "study.json", study_from_json, [](const StudyResult& r) { return study_json(r.rows, r.summary, r.settings).dump(); });
  return 0;
}
