#pragma once
// Internal to core: writing all of a text to a file descriptor, and how a failed write is said —
// shared by the one writer (output_file.cpp) and the recordings (streamed_file.cpp).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace vcloe::file_io {

// Writes all of `text` to fd; the errno of the failure, or 0.
inline int write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// "write failed: <the system's reason>", with what a full disk or a file-size limit means.
inline std::string write_failure(int e) {
  const char* why = e == ENOSPC || e == EDQUOT ? " (disk full or over quota)"
                    : e == EFBIG              ? " (larger than the file-size limit, ulimit -f)"
                                              : "";
  return std::string("write failed: ") + std::strerror(e) + why;
}

}  // namespace vcloe::file_io
