// libFuzzer target: the RPM v4 reader (lead, signature and main headers,
// tag accessors) and the digest checks, as `toolkit download|verify` run
// them on a downloaded file (signatures need a key and are not fuzzed).
#include <cstddef>
#include <cstdint>

#include "cuwheel/toolkit/rpm.h"

using namespace cuwheel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteView bytes(data, size);
  auto pkg = rpm::read_package(bytes);
  if (!pkg) return 0;
  (void)pkg->nevra();
  for (const rpm::Header* h : {&pkg->signature, &pkg->header}) {
    for (const auto& e : h->index) {
      (void)h->string_array(e.tag);
      (void)h->int32(e.tag);
      (void)h->bin(e.tag);
    }
  }
  (void)rpm::check_header_digest(*pkg);
  (void)rpm::check_payload_digest(*pkg);
  (void)rpm::header_signature(*pkg);
  if (!pkg->payload.empty()) (void)pkg->payload[pkg->payload.size() - 1];  // ASan checks the view
  return 0;
}
