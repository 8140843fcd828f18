#include "base/toml_safe.h"

#include <cstdint>

#include "cuwheel/base/fileio.h"

namespace cuwheel::tomlsafe {

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
