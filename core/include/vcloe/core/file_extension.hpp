#pragma once
// vcloe/core/file_extension.hpp — the one way a file's format is told from its name.
#include <string>

namespace vcloe {

// A file name's extension in lower case (`P.PNG` -> `.png`, `r.Html` -> `.html`, none -> ""):
// every check of an extension (plot formats, HTML reports, image folders) compares this.
std::string file_extension(const std::string& path);

}  // namespace vcloe
