#include "vcloe/rig/transport.hpp"

namespace vcloe::rig {

// Out of line: GCC 12 reports a false -Wmaybe-uninitialized on the variant's copy when inlined.
void MemoryStream::publish(const bridge::Message& message) { queue_.push_back(message); }

std::optional<bridge::Message> MemoryStream::receive() {
  if (queue_.empty()) return std::nullopt;
  bridge::Message m = queue_.front();
  queue_.pop_front();
  return m;
}

}  // namespace vcloe::rig
