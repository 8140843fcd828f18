// Helpers declared in cuwheel/base/expected.h.
#include <cstdint>
#include <cstdio>
#include <string>

#include "cuwheel/base/expected.h"

namespace cuwheel {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace cuwheel
