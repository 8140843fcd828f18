// Test helpers: build fatbin containers, fatbin entries, minimal ELF images
// and ar archives in memory, field by field, so that each test states the
// exact bytes it feeds a reader (and a malformed field is one argument).
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace cuwheel::testing {

using Bytes = std::vector<uint8_t>;

template <class T>
void put_le(Bytes& b, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) b.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i)));
}

template <class T>
void poke_le(Bytes& b, size_t at, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) b[at + i] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i));
}

inline void append(Bytes& b, const Bytes& more) { b.insert(b.end(), more.begin(), more.end()); }
inline void append(Bytes& b, const std::string& s) { b.insert(b.end(), s.begin(), s.end()); }
inline Bytes bytes_of(const std::string& s) { return Bytes(s.begin(), s.end()); }

/// One fatbin entry: the 64-byte header (fatbin-format.md section 3), then
/// `extra` (the string area inside the header), then the payload.
struct EntrySpec {
  uint16_t kind = 2;                 // ELF
  uint16_t version = 0x0101;
  std::optional<uint32_t> header_size;   // default 0x40 + extra.size()
  std::optional<uint64_t> payload_size;  // default payload.size()
  uint32_t compressed_size = 0;
  uint32_t options_offset = 0;
  uint16_t code_major = 0, code_minor = 0;
  uint32_t arch = 80;
  uint32_t ident_offset = 0, ident_size = 0;
  uint64_t flags = 0x11;             // 64-bit, Linux
  uint64_t uncompressed_size = 0;
  Bytes extra;
  Bytes payload;
};

inline Bytes entry_bytes(const EntrySpec& e) {
  Bytes b;
  put_le<uint16_t>(b, e.kind);
  put_le<uint16_t>(b, e.version);
  put_le<uint32_t>(b, e.header_size.value_or(0x40 + static_cast<uint32_t>(e.extra.size())));
  put_le<uint64_t>(b, e.payload_size.value_or(e.payload.size()));
  put_le<uint32_t>(b, e.compressed_size);
  put_le<uint32_t>(b, e.options_offset);
  put_le<uint16_t>(b, e.code_minor);
  put_le<uint16_t>(b, e.code_major);
  put_le<uint32_t>(b, e.arch);
  put_le<uint32_t>(b, e.ident_offset);
  put_le<uint32_t>(b, e.ident_size);
  put_le<uint64_t>(b, e.flags);
  put_le<uint64_t>(b, 0);  // okey
  put_le<uint64_t>(b, e.uncompressed_size);
  append(b, e.extra);
  append(b, e.payload);
  return b;
}

/// A container header (magic, version, header size, fat_size) then `body`.
inline Bytes container_bytes(const Bytes& body, std::optional<uint64_t> fat_size = std::nullopt,
                             uint32_t magic = 0xBA55ED50, uint16_t version = 1, uint16_t hsize = 16) {
  Bytes b;
  put_le<uint32_t>(b, magic);
  put_le<uint16_t>(b, version);
  put_le<uint16_t>(b, hsize);
  put_le<uint64_t>(b, fat_size.value_or(body.size()));
  append(b, body);
  return b;
}

inline Bytes container_of(std::initializer_list<EntrySpec> entries) {
  Bytes body;
  for (const auto& e : entries) append(body, entry_bytes(e));
  return container_bytes(body);
}

/// One section of a test ELF image.
struct SectionSpec {
  std::string name;
  uint32_t type = 1;  // SHT_PROGBITS
  Bytes data;
  uint32_t link = 0, info = 0;
  uint64_t entsize = 0;
  uint64_t flags = 0;
};

/// A little-endian ELF64 image: header, the sections' data, then the section
/// header table (null section first, `.shstrtab` last).
inline Bytes elf64_image(uint16_t type, uint16_t machine, uint32_t e_flags, uint8_t osabi, uint8_t abiversion,
                         const std::vector<SectionSpec>& sections) {
  Bytes b(64, 0);
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::memcpy(b.data(), ident, sizeof ident);
  b[7] = osabi;
  b[8] = abiversion;
  poke_le<uint16_t>(b, 16, type);
  poke_le<uint16_t>(b, 18, machine);
  poke_le<uint32_t>(b, 20, 1);
  poke_le<uint32_t>(b, 48, e_flags);
  poke_le<uint16_t>(b, 52, 64);
  poke_le<uint16_t>(b, 58, 64);  // e_shentsize
  std::string shstrtab(1, '\0');
  std::vector<uint32_t> name_off;
  std::vector<uint64_t> data_off;
  for (const auto& s : sections) {
    name_off.push_back(static_cast<uint32_t>(shstrtab.size()));
    shstrtab += s.name + '\0';
    while (b.size() % 8) b.push_back(0);
    data_off.push_back(b.size());
    append(b, s.data);
  }
  uint32_t shstr_name = static_cast<uint32_t>(shstrtab.size());
  shstrtab += ".shstrtab";
  shstrtab += '\0';
  uint64_t shstr_off = b.size();
  append(b, shstrtab);
  while (b.size() % 8) b.push_back(0);
  const uint64_t shoff = b.size();
  auto shdr = [&](uint32_t name, uint32_t stype, uint64_t flags, uint64_t off, uint64_t size, uint32_t link,
                  uint32_t info, uint64_t entsize) {
    put_le<uint32_t>(b, name);
    put_le<uint32_t>(b, stype);
    put_le<uint64_t>(b, flags);
    put_le<uint64_t>(b, 0);  // addr
    put_le<uint64_t>(b, off);
    put_le<uint64_t>(b, size);
    put_le<uint32_t>(b, link);
    put_le<uint32_t>(b, info);
    put_le<uint64_t>(b, 1);
    put_le<uint64_t>(b, entsize);
  };
  shdr(0, 0, 0, 0, 0, 0, 0, 0);
  for (size_t i = 0; i < sections.size(); ++i) {
    const auto& s = sections[i];
    shdr(name_off[i], s.type, s.flags, data_off[i], s.data.size(), s.link, s.info, s.entsize);
  }
  shdr(shstr_name, 3, 0, shstr_off, shstrtab.size() - 0, 0, 0, 0);
  poke_le<uint64_t>(b, 40, shoff);
  poke_le<uint16_t>(b, 60, static_cast<uint16_t>(sections.size() + 2));
  poke_le<uint16_t>(b, 62, static_cast<uint16_t>(sections.size() + 1));
  return b;
}

/// One ELF64 symbol (st_name, st_info, st_other, st_shndx, st_value, st_size).
inline Bytes elf64_symbol(uint32_t name, uint8_t info, uint8_t other, uint16_t shndx, uint64_t value = 0,
                          uint64_t size = 0) {
  Bytes b;
  put_le<uint32_t>(b, name);
  b.push_back(info);
  b.push_back(other);
  put_le<uint16_t>(b, shndx);
  put_le<uint64_t>(b, value);
  put_le<uint64_t>(b, size);
  return b;
}

/// One ar member: the 60-byte header with `name` and `size_field` (default
/// the data size), the data, and a pad byte to an even offset.
inline Bytes ar_member(const std::string& name, const Bytes& data, std::optional<std::string> size_field = {}) {
  auto pad = [](std::string s, size_t n) {
    s.resize(n, ' ');
    return s;
  };
  std::string h = pad(name, 16) + pad("0", 12) + pad("0", 6) + pad("0", 6) + pad("644", 8) +
                  pad(size_field.value_or(std::to_string(data.size())), 10) + "`\n";
  Bytes b = bytes_of(h);
  append(b, data);
  if (data.size() % 2) b.push_back('\n');
  return b;
}

inline Bytes ar_archive(std::initializer_list<Bytes> members, const std::string& magic = "!<arch>\n") {
  Bytes b = bytes_of(magic);
  for (const auto& m : members) append(b, m);
  return b;
}

}  // namespace cuwheel::testing
