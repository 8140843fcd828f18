#include "base/toml_safe.h"

#include <cstdint>
#include <optional>

#include "cuwheel/base/fileio.h"

namespace cuwheel::tomlsafe {

namespace {

// toml++ 3.3.0 parses dotted keys, table headers, arrays and inline tables
// recursively: a key of ~105,000 parts (`k.k.k... = 1`, 220 KB) or arrays
// nested that deep overflow the stack (SIGSEGV). Before it sees the text,
// count outside strings and comments the dots of one key (between two of
// `= [ ] { } ,` and line ends) and the nesting of `[`/`{`; no document the
// project reads comes near the limit.
constexpr size_t kMaxKeyParts = 128, kMaxNesting = 128;

std::optional<Error> structure_error(std::string_view s, const std::string& source) {
  size_t line = 1, dots = 0, depth = 0;
  auto at = [&](const std::string& what) { return Error(source + ":" + std::to_string(line) + ": " + what); };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      dots = 0;
      continue;
    }
    if (c == '#') {
      while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      const bool multi = s.compare(i, 3, std::string(3, c)) == 0;
      const bool escapes = c == '"';
      i += multi ? 3 : 1;
      for (; i < s.size(); ++i) {
        if (s[i] == '\n') {
          ++line;
          if (!multi) break;  // an unterminated string: toml++ reports it
        }
        if (escapes && s[i] == '\\') {
          ++i;
          if (i < s.size() && s[i] == '\n') ++line;
          continue;
        }
        if (s[i] == c && (!multi || s.compare(i, 3, std::string(3, c)) == 0)) {
          if (multi) {
            i += 2;
            while (i + 1 < s.size() && s[i + 1] == c) ++i;  // """" ends with a quote inside
          }
          break;
        }
      }
      continue;
    }
    if (c == '.') {
      if (++dots > kMaxKeyParts) return at("a key or table header of more than " + std::to_string(kMaxKeyParts) + " dotted parts");
    } else if (c == '=' || c == ',' || c == '[' || c == ']' || c == '{' || c == '}') {
      dots = 0;
      if (c == '[' || c == '{') {
        if (++depth > kMaxNesting) return at("arrays, inline tables and headers nested deeper than " + std::to_string(kMaxNesting) + " levels");
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

Expected<std::string> safe_text(std::string_view text, const std::string& source) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0, line = 1;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') ++line;
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool valid = len != 0 && i + len <= text.size();
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
    for (size_t k = 1; valid && k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xc0) != 0x80) valid = false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid.
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (valid && (cp < kMin[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)) valid = false;
    if (!valid) return Error(source + ":" + std::to_string(line) + ": not valid UTF-8 (TOML files are UTF-8)");
    if ((cp >= 0xa1 && cp <= 0x499) || (cp >= 0x2c5e && cp <= 0x3057 && cp != 0x3000) || (cp >= 0xfb26 && cp <= 0xfefe))
      out += "\xEF\xBF\xBD";
    else
      out.append(text.substr(i, len));
    i += len;
  }
  if (auto e = structure_error(out, source)) return *e;
  return out;
}

Expected<toml::table> parse(std::string_view text, const std::string& source) {
  auto safe = safe_text(text, source);
  if (!safe) return safe.error();
  auto parsed = toml::parse(std::string_view(*safe), std::string_view(source));
  if (!parsed) {
    const auto& err = parsed.error();
    return Error(source + ":" + std::to_string(err.source().begin.line) + ": " + std::string(err.description()));
  }
  return std::move(parsed).table();
}

Expected<toml::table> parse_file(const std::string& path) {
  auto text = read_whole_file(path, size_t{64} << 20);
  if (!text) return text.error();
  return parse(*text, path);
}

}  // namespace cuwheel::tomlsafe
