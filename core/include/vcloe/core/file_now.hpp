#pragma once
// vcloe/core/file_now.hpp — a file an output records (FileRecord) against the file there now:
// the one test of "still as recorded" for every reader that draws or re-runs from a recorded file.
#include "vcloe/core/file_record.hpp"

namespace vcloe {

enum class FileNow {
  AsRecorded,  // a regular file whose SHA-256 now is the recorded one
  Changed,     // a regular file with another SHA-256
  Gone,        // none recorded, not there, or not a regular file
};
FileNow file_now(const FileRecord& recorded);

}  // namespace vcloe
