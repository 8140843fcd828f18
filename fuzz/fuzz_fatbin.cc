// libFuzzer target: the fatbin reader on raw bytes. Walks the input as a
// fatbin region, scans it for containers, parses a container at offset 0,
// then decodes every entry (whole and prefix, with a small output cap so a
// compression bomb cannot slow the run) and reads the decoded payloads as
// cubin and PTX.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuwheel/cuda/releases.h"
#include "cuwheel/object/cubin.h"
#include "cuwheel/object/fatbin.h"

using namespace cuwheel;

namespace {

constexpr uint64_t kMaxOutput = 16u << 20;

void read_entries(const std::vector<fatbin::Container>& cs) {
  for (const auto& c : cs) {
    for (const auto& e : c.entries) {
      (void)e.arch_name();
      (void)fatbin::kind_name(e.kind);
      if (!e.stored.empty()) (void)e.stored[e.stored.size() - 1];  // ASan checks the view
      auto pre = fatbin::decode_prefix(e, 64);
      if (pre) (void)cubin::read_cubin_header(*pre);
      auto d = fatbin::decode(e, kMaxOutput);
      if (!d) continue;
      (void)cubin::read_cubin(*d, true);
      auto p = cubin::read_ptx(*d, true);
      if (p.version) {
        (void)cuda::release_for_ptx({p.version->first, p.version->second});
        (void)cuda::min_driver_for_ptx({p.version->first, p.version->second});
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteView bytes(data, size);
  std::vector<fatbin::Container> partial;
  auto region = fatbin::parse_region(bytes, 0, &partial);
  read_entries(region ? *region : partial);
  read_entries(fatbin::scan(bytes, 0x1000));
  auto c = fatbin::parse_container(bytes, 0, 0);
  if (c) read_entries({*c});
  // The payload as a cubin or PTX by itself.
  (void)cubin::read_cubin(bytes, true);
  (void)cubin::read_ptx(bytes, false);
  return 0;
}
