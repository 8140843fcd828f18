// Fuzz target: the build-identity parsers (identity strings, nvcc's version
// banner, CUDA_VERSION lines of cuda.h). A parsed identity must print back
// as the same text (its canonical form is unique).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cuwheel/release/identity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  auto id = cuwheel::identity::parse_identity(s);
  if (id && id->str() != s) __builtin_trap();
  (void)cuwheel::identity::parse_nvcc_version(s);
  (void)cuwheel::identity::parse_version_header(s, "CUDA_VERSION");
  return 0;
}
