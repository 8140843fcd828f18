// libFuzzer target: the ar archive reader, then the device-code reader on
// every member (as `list` does for a static library).
#include <cstddef>
#include <cstdint>

#include "cuwheel/object/archive.h"
#include "cuwheel/object/devicecode.h"

using namespace cuwheel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteView bytes(data, size);
  (void)archive::has_magic(bytes);
  auto members = archive::read(bytes);
  if (!members) return 0;
  for (const auto& m : *members) {
    if (!m.data.empty()) (void)m.data[m.data.size() - 1];  // ASan checks the view
    if (!looks_like_object(m.data)) continue;
    WarningSink warnings;
    (void)read_device_code(m.data, Depth::full, &warnings);
  }
  return 0;
}
