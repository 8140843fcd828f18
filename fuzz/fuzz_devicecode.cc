// libFuzzer target: the device-code reader end to end. Reads the input as
// one object (host ELF, raw fatbin or cubin) at full depth, summarises it,
// and renders the cuobjdump listing for it both as a lone object file and as
// the only member of an archive, in every listing mode.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuwheel/render/cuobjdump.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/model/facts.h"

using namespace cuwheel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteView bytes(data, size);
  (void)looks_like_object(bytes);
  WarningSink warnings;
  auto dc = read_device_code(bytes, Depth::full, &warnings);
  if (dc) {
    (void)summarize(*dc);
    for (const auto& e : dc->entries) {
      (void)e.header_arch();
      (void)e.ptx_isa();
      (void)e.virtual_arch();
    }
  }
  std::vector<cuobjdump::ObjectCode> objects(1);
  objects[0].code = dc;
  const cuobjdump::Mode modes[] = {{true, false, false}, {false, true, false}, {true, true, true}, {false, false, false}};
  for (const auto& mode : modes) {
    (void)cuobjdump::render("lib/libfuzz.so.1", "/home/user", cuobjdump::FileKind::object, objects, mode);
  }
  objects[0].member = "fuzz.o";
  for (const auto& mode : modes) {
    (void)cuobjdump::render("libfuzz.a", "/home/user", cuobjdump::FileKind::archive, objects, mode);
  }
  return 0;
}
