// Fuzz target: the architecture-list scanner (cuda/arch_scan.h). Any bytes
// give settings whose lines are in range and ascending, whose columns lie
// within their line, and whose values parse or fail cleanly in their form.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cuwheel/cuda/arch_scan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cuwheel::arch;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  uint64_t lines = 1;
  for (char c : text) lines += c == '\n';
  uint64_t last = 0;
  for (const auto& s : scan_arch_settings(text)) {
    if (s.line < 1 || s.line > lines || s.line < last || s.column < 1 || s.value.empty()) __builtin_trap();
    if (s.value.size() > text.size() + 9) __builtin_trap();  // "-gencode " + a cut of the text
    last = s.line;
    (void)parse(s.value, s.form);
  }
  return 0;
}
