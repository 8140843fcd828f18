// Fuzz target: the check baseline reader (render/baseline.h). A baseline
// that parses is applied to a few findings; what it removes can never be
// more than it holds or than there are findings, and a baseline written
// from findings reads back with one entry each.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cuwheel/render/baseline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cuwheel::check;
  std::string_view s(reinterpret_cast<const char*>(data), size);
  auto b = parse_baseline(s, "fuzz.json");
  std::vector<Finding> fs(3);
  fs[0].rule = "unresolved-needed";
  fs[0].path = "p-1.0-py3-none-any.whl";
  fs[1] = fs[0];
  fs[2].rule = std::string(s.substr(0, 64));
  fs[2].path = std::string(s.substr(0, 200));
  fs[2].member = std::string(s.substr(size / 2, 200));
  fs[2].message = std::string(s);
  size_t held = 0;
  if (b)
    for (const auto& [fp, n] : *b) held += n;
  std::vector<Finding> copy = fs;
  const size_t removed = b ? apply_baseline(copy, *b) : 0;
  if (removed > held || removed > fs.size() || copy.size() + removed != fs.size()) __builtin_trap();
  auto again = parse_baseline(render_baseline(fs), "again.json");
  if (!again) __builtin_trap();
  size_t n = 0;
  for (const auto& [fp, k] : *again) n += k;
  if (n != fs.size()) __builtin_trap();
  return 0;
}
