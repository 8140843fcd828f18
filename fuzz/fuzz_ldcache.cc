// libFuzzer target: the ld.so.cache reader (host/ldcache.h). Any input must
// parse or fail with an Error, never read out of bounds; what parses must
// hold only NUL-free strings no longer than ldconfig's PATH_MAX.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "cuwheel/host/ldcache.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = cuwheel::parse_ld_so_cache(cuwheel::ByteView(data, size), "ld.so.cache");
  if (r) {
    for (const auto& e : *r) {
      if (e.soname.size() > 4096 || e.path.size() > 4096) std::abort();
      if (e.soname.find('\0') != std::string::npos || e.path.find('\0') != std::string::npos) std::abort();
    }
  } else if (r.error().message().empty()) {
    std::abort();
  }
  return 0;
}
