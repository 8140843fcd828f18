// printable(), declared in cuwheel/base/bytes.h.
#include <cstdint>
#include <string>

#include "cuwheel/base/bytes.h"

namespace cuwheel {

namespace {
// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629 section 4: no
// overlong forms, no surrogates, nothing above U+10FFFF), or 0 when the
// bytes there are not one. `cp` receives the code point.
size_t utf8_sequence(std::string_view s, size_t i, uint32_t& cp) {
  const auto b = [&s](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n;
  uint32_t min;
  if (c < 0x80) {
    cp = c;
    return 1;
  } else if (c >= 0xc2 && c <= 0xdf) {
    n = 2, cp = c & 0x1f, min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, cp = c & 0x0f, min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

// Code points shown escaped although they are well-formed: C0 controls and
// DEL, C1 controls (Unicode 15, chapter 23.1), the line and paragraph
// separators, and the bidirectional formatting characters (Unicode
// Standard Annex #9, section 2), which reorder what a terminal shows.
bool shown_escaped(uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f ||
         cp == 0x061c;
}
}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto escape = [&out](unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  };
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = utf8_sequence(s, i, cp);
    if (n == 0) {
      escape(static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if (shown_escaped(cp)) {
      for (size_t k = 0; k < n; ++k) escape(static_cast<unsigned char>(s[i + k]));
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace cuwheel

