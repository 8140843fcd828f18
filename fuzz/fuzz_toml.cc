// libFuzzer target: the TOML shield (src/base/toml_safe.h) and every policy
// reader behind it: check's policy (pyproject.toml [tool.cuwheel] or
// cuwheel.toml), the release and matrix policies, and the toolkit lock
// file. Any bytes: no crash (a 105,000-part dotted key overflowed toml++'s
// stack before the shield), no hang, and an error is a message.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/toml_safe.h"
#include "cuwheel/check/check.h"
#include "cuwheel/release/matrix.h"
#include "cuwheel/release/release.h"
#include "cuwheel/toolkit/lock.h"

using namespace cuwheel;

namespace {

template <typename T>
void must_explain(const Expected<T>& r) {
  if (!r && r.error().message().empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  must_explain(tomlsafe::parse(text, "fuzz.toml"));
  must_explain(release::parse_policy(text, "pyproject.toml"));
  must_explain(matrix::parse_policy(text, "pyproject.toml"));
  // The readers that take a path read the same bytes through a memfd.
  int fd = memfd_create("fuzz.toml", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t off = 0;
  while (off < size) {
    ssize_t w = write(fd, data + off, size - off);
    if (w <= 0) break;
    off += static_cast<size_t>(w);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  must_explain(check::load_policy(path));
  must_explain(toolkit::read_lock(path));
  close(fd);
  return 0;
}
