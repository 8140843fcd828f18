// ar archive reader. See include/cuwheel/object/archive.h.
#include "cuwheel/object/archive.h"

#include <cstring>
#include <string_view>

namespace cuwheel::archive {

namespace {

constexpr char kMagic[] = "!<arch>\n";
constexpr char kThin[] = "!<thin>\n";
constexpr uint64_t kHeader = 60;

std::string_view field(ByteView d, uint64_t off, uint64_t len) {
  std::string_view s(reinterpret_cast<const char*>(d.data() + off), static_cast<size_t>(len));
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool parse_decimal(std::string_view s, uint64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  out = v;
  return true;
}

}  // namespace

bool has_magic(ByteView d) {
  return d.size() >= 8 && (std::memcmp(d.data(), kMagic, 8) == 0 || std::memcmp(d.data(), kThin, 8) == 0);
}

Expected<std::vector<Member>> read(ByteView d) {
  if (d.size() >= 8 && std::memcmp(d.data(), kThin, 8) == 0)
    return Error("thin archive: member data is not stored in the archive");
  if (d.size() < 8 || std::memcmp(d.data(), kMagic, 8) != 0) return Error("not an ar archive (bad magic at offset 0x0)");
  std::vector<Member> out;
  std::string_view longnames;
  uint64_t p = 8;
  while (p < d.size()) {
    if (d.size() - p == 1 && d[p] == '\n') break;  // stray final pad
    const std::string where = "ar member header at " + hex(p);
    if (!in_bounds(d.size(), p, kHeader)) return Error(where + ": truncated (" + std::to_string(d.size() - p) + " bytes left)");
    if (d[p + 58] != '`' || d[p + 59] != '\n') return Error(where + ": bad terminator (expected \"`\\n\")");
    std::string_view name = field(d, p, 16);
    uint64_t size = 0;
    if (!parse_decimal(field(d, p + 48, 10), size)) return Error(where + ": size field is not a decimal number");
    uint64_t data_off = p + kHeader;
    if (!in_bounds(d.size(), data_off, size))
      return Error(where + ": size " + std::to_string(size) + " runs past the end of the file (" + hex(d.size()) + ")");
    ByteView body = d.subspan(static_cast<size_t>(data_off), static_cast<size_t>(size));
    Member m;
    m.header_offset = p;
    m.data_offset = data_off;
    m.data = body;
    bool skip = false;
    if (name == "/" || name == "/SYM64/" || name.rfind("__.SYMDEF", 0) == 0) {
      skip = true;
    } else if (name == "//") {
      longnames = std::string_view(reinterpret_cast<const char*>(body.data()), body.size());
      skip = true;
    } else if (name.size() > 1 && name[0] == '/' ) {
      uint64_t off = 0;
      if (!parse_decimal(name.substr(1), off)) return Error(where + ": bad long-name reference \"" + printable(name) + "\"");
      if (off >= longnames.size()) return Error(where + ": long-name offset " + std::to_string(off) + " is outside the name table");
      std::string_view rest = longnames.substr(static_cast<size_t>(off));
      size_t end = rest.find("/\n");
      if (end == std::string_view::npos) end = rest.find('\n');
      if (end == std::string_view::npos) end = rest.size();
      m.name = std::string(rest.substr(0, end));
    } else if (name.rfind("#1/", 0) == 0) {
      uint64_t n = 0;
      if (!parse_decimal(name.substr(3), n) || n > size) return Error(where + ": bad BSD long-name length \"" + printable(name) + "\"");
      std::string nm(reinterpret_cast<const char*>(body.data()), static_cast<size_t>(n));
      auto nul = nm.find('\0');
      if (nul != std::string::npos) nm.resize(nul);
      m.name = nm;
      m.data = body.subspan(static_cast<size_t>(n));
      m.data_offset = data_off + n;
      if (m.name.rfind("__.SYMDEF", 0) == 0) skip = true;
    } else {
      if (!name.empty() && name.back() == '/') name.remove_suffix(1);
      m.name = std::string(name);
    }
    if (!skip) out.push_back(std::move(m));
    p = data_off + size + (size & 1);
  }
  return out;
}

}  // namespace cuwheel::archive
