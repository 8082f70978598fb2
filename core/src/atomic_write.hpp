#pragma once
// The one writer's two halves (output_file.cpp), for write_trace: a trace and its sidecar are
// both written complete under temporary names before either is renamed.
#include <string>

namespace vcloe {
// `path.tmp-<pid>` created anew, written and fsync'd; its name. The temporary is removed on failure.
std::string write_temporary_file(const std::string& path, const std::string& text);
// rename(2) over `path` (a link there replaced, never followed) and the directory fsync'd.
void rename_into_place(const std::string& tmp, const std::string& path);
}  // namespace vcloe
