// libFuzzer target: the text parsers. The first byte picks the parser; the
// rest is its input. Parsed values are re-serialized and re-parsed where a
// round trip must hold, so the fuzzer also checks consistency.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cuwheel/base/digest.h"
#include "cuwheel/wheel/metadata.h"
#include "cuwheel/wheel/pep440.h"
#include "cuwheel/wheel/pep508.h"

using namespace cuwheel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  ByteView body(data + 1, size - 1);
  std::string_view text(reinterpret_cast<const char*>(body.data()), body.size());
  WarningSink warnings;
  switch (selector % 9) {
    case 0: (void)CoreMetadata::parse(body, "METADATA", warnings); break;
    case 1: (void)WheelInfo::parse(body, "WHEEL", warnings); break;
    case 2: {
      auto rec = Record::parse(body, "RECORD", warnings);
      for (const auto& e : rec.entries) (void)verify_record_entry(e, body);
      break;
    }
    case 3: (void)parse_entry_points(body, "entry_points.txt", warnings); break;
    case 4: {
      auto v = Version::parse(text);
      if (v) {
        // Normalization is idempotent and preserves equality.
        auto again = Version::parse(v->to_string());
        if (!again || !(*again == *v) || again->to_string() != v->to_string()) std::abort();
      }
      break;
    }
    case 5: {
      auto s = SpecifierSet::parse(text);
      if (s) {
        (void)s->contains("13.0.2");
        (void)s->contains("2.11.0+cu130", true);
        auto again = SpecifierSet::parse(s->to_string());
        if (!again) std::abort();
      }
      break;
    }
    case 6: {
      auto r = Requirement::parse(text);
      if (r) {
        (void)r->behind_extras();
        if (r->marker) (void)r->marker->evaluate(MarkerEnvironment::linux_cpython());
        auto again = Requirement::parse(r->to_string());
        if (!again) std::abort();
      }
      break;
    }
    case 7: (void)WheelFilename::parse(text); break;
    case 8: {
      (void)base64url_decode(text);
      (void)base64url_nopad(body);
      break;
    }
  }
  return 0;
}
