// libFuzzer target: architecture lists (include/cuwheel/cuda/arch.h). The first
// byte picks the form (or detection) and a release; the rest is the list.
// Whatever parses must format and re-parse to the same targets in every
// form it can be written in, and the release checks must not crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cuwheel/cuda/arch.h"

using namespace cuwheel::arch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto parsed = (selector & 7) < 4 ? parse(text, static_cast<Form>(selector & 3)) : parse_any(text);
  (void)parse_release(text);
  const auto& releases = known_releases();
  const Release& rel = releases[(selector >> 3) % releases.size()];
  if (!parsed) return 0;
  for (const auto& t : *parsed) {
    (void)check_known(t);
    (void)check_buildable(t, rel);
    if (!t.sass && !t.ptx) std::abort();  // every parsed target builds something
  }
  for (Form f : {Form::kTorch, Form::kCmake, Form::kGencode, Form::kList}) {
    auto s = format(*parsed, f);
    if (!s) continue;
    auto back = parse(*s, f);
    if (!back || *back != *parsed) std::abort();  // round trip
  }
  (void)release_list(rel);
  return 0;
}
