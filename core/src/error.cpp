#include "vcloe/core/error.hpp"

namespace vcloe {

void fail(const std::string& where, const std::string& what) {
  throw Error(where.empty() ? what : where + ": " + what);
}

}  // namespace vcloe
