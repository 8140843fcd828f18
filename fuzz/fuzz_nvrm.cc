// libFuzzer target: the kernel driver version reader (host/driver.h,
// parse_nvrm_version). Any text must give a dotted decimal version of two
// or three parts, or an Error with a message free of control characters.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cuwheel/host/driver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = cuwheel::host::parse_nvrm_version(text, "version");
  if (r) {
    int dots = 0;
    if (r->empty() || r->front() == '.' || r->back() == '.') std::abort();
    for (char c : *r) {
      if (c == '.') ++dots;
      else if (c < '0' || c > '9') std::abort();
    }
    if (dots < 1 || dots > 2) std::abort();
  } else {
    const std::string& m = r.error().message();
    if (m.empty()) std::abort();
    for (unsigned char c : m)
      if (c < 0x20 || c == 0x7f) std::abort();
  }
  return 0;
}
