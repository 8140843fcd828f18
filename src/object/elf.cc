// ELF reader. See include/cuwheel/object/elf.h for the contract.
#include "cuwheel/object/elf.h"

#include <algorithm>
#include <cstring>

namespace cuwheel::elf {

namespace {

constexpr uint16_t SHN_XINDEX = 0xffff;
constexpr uint16_t PN_XNUM = 0xffff;
constexpr int64_t DT_NULL = 0, DT_NEEDED = 1, DT_HASH = 4, DT_STRTAB = 5, DT_SYMTAB = 6,
                  DT_RELA = 7, DT_RELASZ = 8, DT_RELAENT = 9, DT_STRSZ = 10, DT_SYMENT = 11,
                  DT_SONAME = 14, DT_RPATH = 15, DT_REL = 17, DT_RELSZ = 18, DT_RUNPATH = 29,
                  DT_FLAGS = 30, DT_GNU_HASH = 0x6ffffef5, DT_VERSYM = 0x6ffffff0,
                  DT_FLAGS_1 = 0x6ffffffb, DT_VERDEF = 0x6ffffffc, DT_VERDEFNUM = 0x6ffffffd,
                  DT_VERNEED = 0x6ffffffe, DT_VERNEEDNUM = 0x6fffffff;

// A hostile file can claim millions of entries; these caps bound the work to
// what the file's own size allows (each entry needs its bytes in the file).
bool table_fits(ByteView data, uint64_t off, uint64_t count, uint64_t entsize) {
  uint64_t total;
  if (mul_overflow(count, entsize, total)) return false;
  return in_bounds(data.size(), off, total);
}

}  // namespace

bool File::has_magic(ByteView d) {
  return d.size() >= 4 && d[0] == 0x7f && d[1] == 'E' && d[2] == 'L' && d[3] == 'F';
}

std::optional<std::string> truncated_header_tables(ByteView b) {
  if (!File::has_magic(b) || b.size() < 0x34 || b[5] != 1) return std::nullopt;
  const bool is64 = b[4] == 2;
  if (is64 && b.size() < 0x40) return std::nullopt;
  auto rd = [&b](size_t off, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(uint8_t(b[off + i])) << (8 * i);
    return v;
  };
  uint64_t phoff = is64 ? rd(0x20, 8) : rd(0x1C, 4), shoff = is64 ? rd(0x28, 8) : rd(0x20, 4);
  uint64_t phentsize = rd(is64 ? 0x36 : 0x2A, 2), phnum = rd(is64 ? 0x38 : 0x2C, 2);
  uint64_t shentsize = rd(is64 ? 0x3A : 0x2E, 2), shnum = rd(is64 ? 0x3C : 0x30, 2);
  const uint64_t size = b.size();
  auto past_end = [size](uint64_t off, uint64_t bytes) { return off > size || bytes > size - off; };
  // Both products are below 2^32 (16-bit factors).
  if (shoff != 0 && past_end(shoff, std::max<uint64_t>(shnum, 1) * shentsize))
    return "truncated ELF file: section header table at " + hex(shoff) + " ends past the end of the file (" +
           hex(size) + " bytes)";
  if (phoff != 0 && phnum != 0 && past_end(phoff, phnum * phentsize))
    return "truncated ELF file: program header table at " + hex(phoff) + " ends past the end of the file (" +
           hex(size) + " bytes)";
  return std::nullopt;
}

std::vector<std::string> split_path_list(std::string_view raw) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= raw.size()) {
    size_t end = raw.find(':', start);
    if (end == std::string_view::npos) end = raw.size();
    if (end > start) out.emplace_back(raw.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Expected<File> File::parse(ByteView d, WarningSink* warnings) {
  if (!has_magic(d)) return Error("not an ELF file (bad magic at offset 0x0)");
  if (d.size() < 16) return Error("truncated ELF identification (" + std::to_string(d.size()) + " bytes)");
  File f;
  f.data_ = d;
  const uint8_t cls = d[4], enc = d[5];
  if (cls != 1 && cls != 2) return Error("unsupported ELF class " + std::to_string(cls) + " at offset 0x4");
  if (enc != 1) return Error(enc == 2 ? "big-endian ELF is not supported (offset 0x5)"
                                      : "invalid ELF data encoding " + std::to_string(enc) + " at offset 0x5");
  f.is64_ = cls == 2;
  f.osabi_ = d[7];
  f.abiversion_ = d[8];
  const uint64_t ehsize = f.is64_ ? 64 : 52;
  if (d.size() < ehsize) return Error("truncated ELF header: " + std::to_string(d.size()) + " bytes, need " + std::to_string(ehsize));

  Cursor c(d, 16);
  f.type_ = c.read<uint16_t>();
  f.machine_ = c.read<uint16_t>();
  f.version_ = c.read<uint32_t>();
  c.read_word(f.is64_);  // e_entry
  uint64_t phoff = c.read_word(f.is64_);
  uint64_t shoff = c.read_word(f.is64_);
  f.flags_ = c.read<uint32_t>();
  uint16_t ehsize_field = c.read<uint16_t>();
  uint16_t phentsize = c.read<uint16_t>();
  uint64_t phnum = c.read<uint16_t>();
  uint16_t shentsize = c.read<uint16_t>();
  uint64_t shnum = c.read<uint16_t>();
  uint32_t shstrndx = c.read<uint16_t>();
  if (!c.ok()) return Error("truncated ELF header");

  const uint64_t want_sh = f.is64_ ? 64 : 40, want_ph = f.is64_ ? 56 : 32;

  // The header's own sizes must be the class's (ELF gABI, "ELF Header":
  // e_ehsize, e_phentsize, e_shentsize; 52/32/40 for ELFCLASS32, 64/56/64
  // for ELFCLASS64). A mismatch means EI_CLASS or the header is damaged
  // (a 64-bit library with EI_CLASS flipped to 1 reads as garbage): every
  // later field would be misread, so the file is unreadable, not "no
  // device code". The entry sizes matter only when there is a table.
  const char* cls_name = f.is64_ ? "ELFCLASS64" : "ELFCLASS32";
  const uint64_t at_eh = f.is64_ ? 0x34 : 0x28, at_ph = at_eh + 2, at_sh = at_eh + 6;
  if (ehsize_field != ehsize)
    return Error("e_ehsize " + std::to_string(ehsize_field) + " at offset " + hex(at_eh) + " is not the " + cls_name +
                 " header size " + std::to_string(ehsize) + " (EI_CLASS at offset 0x4 is " + std::to_string(cls) + ")");
  if (phoff != 0 && phnum != 0 && phentsize != want_ph)
    return Error("e_phentsize " + std::to_string(phentsize) + " at offset " + hex(at_ph) + " is not the " + cls_name +
                 " program header size " + std::to_string(want_ph));
  if (shoff != 0 && shentsize != want_sh)
    return Error("e_shentsize " + std::to_string(shentsize) + " at offset " + hex(at_sh) + " is not the " + cls_name +
                 " section header size " + std::to_string(want_sh));

  // Section headers. Extended numbering: section 0 carries the real counts.
  bool sections_ok = shoff != 0;
  if (sections_ok && !in_bounds(d.size(), shoff, want_sh)) {
    if (warnings) warnings->warn("section header table at " + hex(shoff) + " lies outside the file (" + hex(d.size()) + " bytes); section headers ignored");
    sections_ok = false;
  }
  if (sections_ok) {
    Cursor s0(d, shoff);
    s0.skip(f.is64_ ? 32 : 20);  // to sh_size
    uint64_t size0 = s0.read_word(f.is64_);
    uint32_t link0 = s0.read<uint32_t>();
    uint32_t info0 = s0.read<uint32_t>();
    if (shnum == 0) shnum = size0;
    if (shstrndx == SHN_XINDEX) shstrndx = link0;
    if (phnum == PN_XNUM) phnum = info0;
    if (!table_fits(d, shoff, shnum, want_sh)) {
      if (warnings) warnings->warn("section header table (" + std::to_string(shnum) + " entries at " + hex(shoff) + ") extends past the end of the file; section headers ignored");
      sections_ok = false;
    }
  }
  if (sections_ok) {
    f.sections_.reserve(static_cast<size_t>(shnum));
    std::vector<uint32_t> name_offs;
    name_offs.reserve(static_cast<size_t>(shnum));
    for (uint64_t i = 0; i < shnum; ++i) {
      Cursor sc(d, shoff + i * want_sh);
      Section s;
      uint32_t name_off = sc.read<uint32_t>();
      s.type = sc.read<uint32_t>();
      s.flags = sc.read_word(f.is64_);
      s.addr = sc.read_word(f.is64_);
      s.offset = sc.read_word(f.is64_);
      s.size = sc.read_word(f.is64_);
      s.link = sc.read<uint32_t>();
      s.info = sc.read<uint32_t>();
      s.addralign = sc.read_word(f.is64_);
      s.entsize = sc.read_word(f.is64_);
      name_offs.push_back(name_off);
      f.sections_.push_back(std::move(s));
    }
    if (shstrndx < f.sections_.size() && f.sections_[shstrndx].type != SHT_NOBITS &&
        in_bounds(d.size(), f.sections_[shstrndx].offset, f.sections_[shstrndx].size)) {
      ByteView strtab = d.subspan(f.sections_[shstrndx].offset, f.sections_[shstrndx].size);
      for (size_t i = 0; i < f.sections_.size(); ++i) {
        auto nm = load_cstr(strtab, name_offs[i]);
        if (nm) f.sections_[i].name = std::string(*nm);
        else if (warnings) warnings->warn("section name at .shstrtab offset " + hex(name_offs[i]) + " is unreadable");
      }
    } else if (shnum && warnings) {
      warnings->warn("section name table (e_shstrndx " + std::to_string(shstrndx) + ") is unreadable");
    }
  }

  // Program headers.
  if (phoff != 0 && phnum != 0) {
    if (phentsize != want_ph || !table_fits(d, phoff, phnum, want_ph)) {
      if (warnings) warnings->warn("program header table (" + std::to_string(phnum) + " entries of " + std::to_string(phentsize) + " bytes at " + hex(phoff) + ") is unreadable; ignored");
    } else {
      f.segments_.reserve(static_cast<size_t>(phnum));
      for (uint64_t i = 0; i < phnum; ++i) {
        Cursor pc(d, phoff + i * want_ph);
        Segment p;
        p.type = pc.read<uint32_t>();
        if (f.is64_) {
          p.flags = pc.read<uint32_t>();
          p.offset = pc.read<uint64_t>();
          p.vaddr = pc.read<uint64_t>();
          pc.read<uint64_t>();
          p.filesz = pc.read<uint64_t>();
          p.memsz = pc.read<uint64_t>();
          p.align = pc.read<uint64_t>();
        } else {
          p.offset = pc.read<uint32_t>();
          p.vaddr = pc.read<uint32_t>();
          pc.read<uint32_t>();
          p.filesz = pc.read<uint32_t>();
          p.memsz = pc.read<uint32_t>();
          p.flags = pc.read<uint32_t>();
          p.align = pc.read<uint32_t>();
        }
        f.segments_.push_back(p);
      }
    }
  }

  if (Status st = f.parse_dynamic(warnings); !st) return st.error();
  return f;
}

const Section* File::find_section(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

Expected<ByteView> File::section_data(const Section& s) const {
  if (s.type == SHT_NOBITS) return ByteView{};
  if (!in_bounds(data_.size(), s.offset, s.size))
    return Error("section " + (s.name.empty() ? std::string("<unnamed>") : s.name) + " (" + hex(s.size) +
                 " bytes at " + hex(s.offset) + ") extends past the end of the file (" + hex(data_.size()) + " bytes)");
  return data_.subspan(static_cast<size_t>(s.offset), static_cast<size_t>(s.size));
}

std::optional<uint64_t> File::vaddr_to_offset(uint64_t vaddr) const {
  for (const auto& p : segments_) {
    if (p.type != PT_LOAD) continue;
    if (vaddr >= p.vaddr && vaddr - p.vaddr < p.filesz) return p.offset + (vaddr - p.vaddr);
  }
  if (segments_.empty()) {
    for (const auto& s : sections_) {
      if (s.addr == 0 || s.type == SHT_NOBITS) continue;
      if (vaddr >= s.addr && vaddr - s.addr < s.size) return s.offset + (vaddr - s.addr);
    }
  }
  return std::nullopt;
}

Expected<ByteView> File::dyn_table(uint64_t vaddr, uint64_t size, const char* what) const {
  auto off = vaddr_to_offset(vaddr);
  if (!off) return Error(std::string(what) + " address " + hex(vaddr) + " is not in any loaded segment");
  if (!in_bounds(data_.size(), *off, size))
    return Error(std::string(what) + " (" + hex(size) + " bytes at " + hex(*off) + ") extends past the end of the file");
  return data_.subspan(static_cast<size_t>(*off), static_cast<size_t>(size));
}

Expected<std::string_view> File::dyn_string(uint64_t offset) const {
  auto s = load_cstr(dynstr_, offset);
  if (!s) return Error("dynamic string at offset " + hex(offset) + " lies outside the string table (" + hex(dynstr_.size()) + " bytes)");
  return *s;
}

Status File::parse_dynamic(WarningSink* warnings) {
  // Locate the dynamic table: SHT_DYNAMIC section, else PT_DYNAMIC.
  ByteView dyn;
  const Section* dsec = nullptr;
  for (const auto& s : sections_)
    if (s.type == SHT_DYNAMIC) { dsec = &s; break; }
  if (dsec) {
    auto v = section_data(*dsec);
    if (!v) return v.error();
    dyn = *v;
  } else {
    for (const auto& p : segments_) {
      if (p.type != PT_DYNAMIC) continue;
      if (!in_bounds(data_.size(), p.offset, p.filesz))
        return Error("PT_DYNAMIC (" + hex(p.filesz) + " bytes at " + hex(p.offset) + ") extends past the end of the file");
      dyn = data_.subspan(static_cast<size_t>(p.offset), static_cast<size_t>(p.filesz));
      break;
    }
  }
  if (dyn.empty()) return Ok{};
  DynamicInfo& di = dynamic_;
  di.present = true;
  const uint64_t entsz = is64_ ? 16 : 8;
  std::vector<uint64_t> needed_offs;
  std::optional<uint64_t> soname_off, rpath_off, runpath_off;
  for (uint64_t off = 0; off + entsz <= dyn.size(); off += entsz) {
    Cursor c(dyn, off);
    int64_t tag = is64_ ? static_cast<int64_t>(c.read<uint64_t>()) : static_cast<int32_t>(c.read<uint32_t>());
    uint64_t val = c.read_word(is64_);
    if (tag == DT_NULL) break;
    switch (tag) {
      case DT_NEEDED: needed_offs.push_back(val); break;
      case DT_SONAME: soname_off = val; break;
      case DT_RPATH: rpath_off = val; break;
      case DT_RUNPATH: runpath_off = val; break;
      case DT_FLAGS: di.flags = val; break;
      case DT_FLAGS_1: di.flags_1 = val; break;
      case DT_STRTAB: di.strtab = val; break;
      case DT_STRSZ: di.strsz = val; break;
      case DT_SYMTAB: di.symtab = val; break;
      case DT_SYMENT: di.syment = val; break;
      case DT_HASH: di.hash = val; break;
      case DT_GNU_HASH: di.gnu_hash = val; break;
      case DT_RELA: di.rela = val; break;
      case DT_RELASZ: di.relasz = val; break;
      case DT_RELAENT: di.relaent = val; break;
      case DT_REL: di.rel = val; break;
      case DT_RELSZ: di.relsz = val; break;
      case DT_VERSYM: di.versym = val; break;
      case DT_VERDEF: di.verdef = val; break;
      case DT_VERDEFNUM: di.verdefnum = val; break;
      case DT_VERNEED: di.verneed = val; break;
      case DT_VERNEEDNUM: di.verneednum = val; break;
      default: break;
    }
  }
  // String table: the section .dynamic links to, else DT_STRTAB/DT_STRSZ.
  if (dsec && dsec->link < sections_.size() && sections_[dsec->link].type == SHT_STRTAB) {
    auto v = section_data(sections_[dsec->link]);
    if (!v) return v.error().context(".dynstr");
    dynstr_ = *v;
  } else if (di.strtab) {
    auto v = dyn_table(di.strtab, di.strsz, "DT_STRTAB");
    if (!v) return v.error();
    dynstr_ = *v;
  } else if (!needed_offs.empty() || soname_off || rpath_off || runpath_off) {
    return Error("dynamic section has names but no string table");
  }
  for (uint64_t o : needed_offs) {
    auto s = dyn_string(o);
    if (!s) return s.error().context("DT_NEEDED");
    di.needed.emplace_back(*s);
  }
  auto take = [&](std::optional<uint64_t> o, std::optional<std::string>& out, const char* what) -> Status {
    if (!o) return Ok{};
    auto s = dyn_string(*o);
    if (!s) return s.error().context(what);
    out = std::string(*s);
    return Ok{};
  };
  if (auto st = take(soname_off, di.soname, "DT_SONAME"); !st) return st;
  if (auto st = take(rpath_off, di.rpath, "DT_RPATH"); !st) return st;
  if (auto st = take(runpath_off, di.runpath, "DT_RUNPATH"); !st) return st;
  (void)warnings;
  return Ok{};
}

namespace {

Symbol read_symbol(Cursor& c, bool is64, ByteView strtab) {
  Symbol s;
  uint32_t name = c.read<uint32_t>();
  if (is64) {
    uint8_t info = c.read<uint8_t>();
    s.other = c.read<uint8_t>();
    s.shndx = c.read<uint16_t>();
    s.value = c.read<uint64_t>();
    s.size = c.read<uint64_t>();
    s.bind = info >> 4;
    s.type = info & 0xf;
  } else {
    s.value = c.read<uint32_t>();
    s.size = c.read<uint32_t>();
    uint8_t info = c.read<uint8_t>();
    s.other = c.read<uint8_t>();
    s.shndx = c.read<uint16_t>();
    s.bind = info >> 4;
    s.type = info & 0xf;
  }
  auto nm = load_cstr(strtab, name);
  if (nm) s.name = std::string(*nm);
  return s;
}

}  // namespace

Expected<std::vector<Symbol>> File::static_symbols() const {
  std::vector<Symbol> out;
  for (const auto& s : sections_) {
    if (s.type != SHT_SYMTAB) continue;
    auto tab = section_data(s);
    if (!tab) return tab.error();
    ByteView strtab;
    if (s.link < sections_.size()) {
      auto st = section_data(sections_[s.link]);
      if (!st) return st.error();
      strtab = *st;
    }
    const uint64_t esz = is64_ ? 24 : 16;
    uint64_t n = tab->size() / esz;
    out.reserve(out.size() + static_cast<size_t>(n));
    for (uint64_t i = 0; i < n; ++i) {
      Cursor c(*tab, i * esz);
      out.push_back(read_symbol(c, is64_, strtab));
    }
  }
  return out;
}

Expected<std::vector<Symbol>> File::dynamic_symbols(WarningSink* warnings) const {
  std::vector<Symbol> out;
  const uint64_t esz = is64_ ? 24 : 16;
  ByteView tab, versym;
  const Section* dynsym = nullptr;
  for (const auto& s : sections_)
    if (s.type == SHT_DYNSYM) { dynsym = &s; break; }
  if (dynsym) {
    auto v = section_data(*dynsym);
    if (!v) return v.error().context(".dynsym");
    tab = *v;
  } else if (dynamic_.symtab) {
    // No section headers: size the table from the hash tables.
    uint64_t count = 0;
    if (dynamic_.hash) {
      auto h = dyn_table(dynamic_.hash, 8, "DT_HASH");
      if (!h) return h.error();
      uint32_t nchain = 0;
      load_le(*h, 4, nchain);
      count = nchain;
    } else if (dynamic_.gnu_hash) {
      // GNU hash: the highest symbol index reachable from the buckets + chains.
      auto hoff = vaddr_to_offset(dynamic_.gnu_hash);
      if (!hoff) return Error("DT_GNU_HASH address " + hex(dynamic_.gnu_hash) + " is not mapped");
      ByteView h = data_.subspan(std::min<uint64_t>(*hoff, data_.size()));
      uint32_t nbuckets = 0, symoffset = 0, bloom_size = 0;
      if (!load_le(h, 0, nbuckets) || !load_le(h, 4, symoffset) || !load_le(h, 8, bloom_size))
        return Error("DT_GNU_HASH header is truncated");
      uint64_t buckets = 16 + uint64_t(bloom_size) * (is64_ ? 8 : 4);
      uint32_t maxsym = 0;
      for (uint64_t b = 0; b < nbuckets; ++b) {
        uint32_t v = 0;
        if (!load_le(h, buckets + b * 4, v)) return Error("DT_GNU_HASH bucket table is truncated");
        maxsym = std::max(maxsym, v);
      }
      if (maxsym >= symoffset) {
        uint64_t chains = buckets + uint64_t(nbuckets) * 4;
        uint64_t i = maxsym;
        for (;; ++i) {
          uint32_t v = 0;
          if (!load_le(h, chains + (i - symoffset) * 4, v)) return Error("DT_GNU_HASH chain is truncated");
          if (v & 1) break;
        }
        count = i + 1;
      } else {
        count = symoffset;
      }
    }
    uint64_t bytes;
    if (mul_overflow(count, esz, bytes)) return Error("dynamic symbol count overflows");
    auto v = dyn_table(dynamic_.symtab, bytes, "DT_SYMTAB");
    if (!v) return v.error();
    tab = *v;
  } else {
    return out;
  }
  ByteView strtab = dynstr_;
  if (dynsym && dynsym->link < sections_.size()) {
    auto st = section_data(sections_[dynsym->link]);
    if (st) strtab = *st;
  }
  uint64_t n = tab.size() / esz;
  // Versions.
  for (const auto& s : sections_)
    if (s.type == SHT_GNU_VERSYM) {
      auto v = section_data(s);
      if (v) versym = *v;
      break;
    }
  if (versym.empty() && dynamic_.versym) {
    auto v = dyn_table(dynamic_.versym, n * 2, "DT_VERSYM");
    if (v) versym = *v;
  }
  // Version index -> (name, file), from the definitions and the needs.
  std::vector<std::pair<std::string, std::string>> names;
  auto put = [&](uint16_t idx, std::string_view name, std::string_view file) {
    idx &= 0x7fff;
    if (names.size() <= idx) names.resize(idx + 1);
    names[idx] = {std::string(name), std::string(file)};
  };
  if (auto st = walk_verdef(put); !st && warnings) warnings->warn(st.error().message());
  if (auto st = walk_verneed(put); !st && warnings) warnings->warn(st.error().message());
  out.reserve(static_cast<size_t>(n));
  for (uint64_t i = 0; i < n; ++i) {
    Cursor c(tab, i * esz);
    Symbol s = read_symbol(c, is64_, strtab);
    uint16_t vs = 0;
    if (load_le(versym, i * 2, vs)) {
      uint16_t idx = vs & 0x7fff;
      s.version_hidden = (vs & 0x8000) != 0;
      if (idx >= 2 && idx < names.size()) {
        s.version = names[idx].first;
        s.version_file = names[idx].second;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

ByteView File::version_table(uint32_t sh_type, uint64_t dt_addr, uint64_t& count) const {
  for (const auto& s : sections_)
    if (s.type == sh_type) {
      if (!count) count = s.info;
      auto v = section_data(s);
      return v ? *v : ByteView{};
    }
  if (dt_addr) {
    auto off = vaddr_to_offset(dt_addr);
    if (off && *off < data_.size()) return data_.subspan(static_cast<size_t>(*off));
  }
  return {};
}

// Walks .gnu.version_d (LSB "Symbol Versioning": Elf_Verdef / Elf_Verdaux).
// `count` bounds the walk, so a cyclic vd_next cannot loop forever.
Status File::walk_verdef(const VersionVisitor& visit) const {
  uint64_t count = dynamic_.verdefnum;
  ByteView vd = version_table(SHT_GNU_VERDEF, dynamic_.verdef, count);
  uint64_t pos = 0;
  for (uint64_t i = 0; i < count && !vd.empty(); ++i) {
    Cursor c(vd, pos);
    c.skip(4);
    uint16_t ndx = c.read<uint16_t>();
    uint16_t cnt = c.read<uint16_t>();
    c.skip(4);
    uint32_t aux = c.read<uint32_t>();
    uint32_t next = c.read<uint32_t>();
    if (!c.ok()) return Error(".gnu.version_d: entry " + std::to_string(i) + " at offset " + hex(pos) + " is truncated");
    if (cnt) {
      uint32_t nm = 0;
      if (!load_le(vd, pos + aux, nm)) return Error(".gnu.version_d: verdaux at offset " + hex(pos + aux) + " is truncated");
      auto s = dyn_string(nm);
      if (!s) return s.error().context(".gnu.version_d");
      visit(ndx, *s, {});
    }
    if (!next) break;
    pos += next;
  }
  return Ok{};
}

// Walks .gnu.version_r (Elf_Verneed / Elf_Vernaux), bounded by the counts.
Status File::walk_verneed(const VersionVisitor& visit) const {
  uint64_t count = dynamic_.verneednum;
  ByteView vn = version_table(SHT_GNU_VERNEED, dynamic_.verneed, count);
  // In a well-formed table the 16-byte Verneed and Vernaux records never
  // share bytes, so at most size/16 of them exist. Chains that overlap
  // (vn_next or vna_next smaller than a record) could otherwise revisit the
  // same bytes up to 65535 times per entry: quadratic time and output.
  const uint64_t max_records = vn.size() / 16;
  uint64_t records = 0;
  auto overlap = [&] {
    return Error(".gnu.version_r: more than " + std::to_string(max_records) + " records in " + hex(vn.size()) +
                 " bytes (overlapping vn_next/vna_next chains)");
  };
  uint64_t pos = 0;
  for (uint64_t i = 0; i < count && !vn.empty(); ++i) {
    if (++records > max_records) return overlap();
    Cursor c(vn, pos);
    c.skip(2);
    uint16_t cnt = c.read<uint16_t>();
    uint32_t file = c.read<uint32_t>();
    uint32_t aux = c.read<uint32_t>();
    uint32_t next = c.read<uint32_t>();
    if (!c.ok()) return Error(".gnu.version_r: entry " + std::to_string(i) + " at offset " + hex(pos) + " is truncated");
    auto fname = dyn_string(file);
    if (!fname) return fname.error().context(".gnu.version_r entry " + std::to_string(i));
    uint64_t apos = pos + aux;
    for (uint16_t j = 0; j < cnt; ++j) {
      if (++records > max_records) return overlap();
      Cursor a(vn, apos);
      a.skip(6);
      uint16_t other = a.read<uint16_t>();
      uint32_t nm = a.read<uint32_t>();
      uint32_t anext = a.read<uint32_t>();
      if (!a.ok()) return Error(".gnu.version_r: vernaux at offset " + hex(apos) + " is truncated");
      auto s = dyn_string(nm);
      if (!s) return s.error().context(".gnu.version_r");
      visit(other, *s, *fname);
      if (!anext) break;
      apos += anext;
    }
    if (!next) break;
    pos += next;
  }
  return Ok{};
}

Expected<std::vector<VersionNeed>> File::version_needs() const {
  std::vector<VersionNeed> out;
  Status st = walk_verneed([&](uint16_t, std::string_view name, std::string_view file) {
    if (out.empty() || out.back().file != file) out.push_back(VersionNeed{std::string(file), {}});
    out.back().versions.emplace_back(name);
  });
  if (!st) return st.error();
  return out;
}

Expected<std::vector<std::string>> File::version_definitions() const {
  std::vector<std::string> out;
  Status st = walk_verdef([&](uint16_t, std::string_view name, std::string_view) { out.emplace_back(name); });
  if (!st) return st.error();
  return out;
}

bool File::is_relative_reloc(uint32_t t) const {
  switch (machine_) {
    case EM_X86_64: return t == 8;
    case EM_AARCH64: return t == 1027;
    case EM_PPC64: return t == 22;
    case EM_386: return t == 8;
    case EM_ARM: return t == 23;
    default: return false;
  }
}

bool File::is_absolute_reloc(uint32_t t) const {
  switch (machine_) {
    case EM_X86_64: return t == 1;
    case EM_AARCH64: return t == 257;
    case EM_PPC64: return t == 38;
    case EM_386: return t == 1;
    case EM_ARM: return t == 2;
    default: return false;
  }
}

Expected<std::vector<Relocation>> File::read_relocs(ByteView table, bool rela, uint64_t entsize,
                                                    uint64_t lo, uint64_t hi,
                                                    const std::function<void(ByteView)>& done) const {
  std::vector<Relocation> out;
  const uint64_t want = is64_ ? (rela ? 24 : 16) : (rela ? 12 : 8);
  if (entsize == 0) entsize = want;
  if (entsize < want) return Error("relocation entry size " + std::to_string(entsize) + " is smaller than " + std::to_string(want));
  for (uint64_t off = 0; off + entsize <= table.size(); off += entsize) {
    Cursor c(table, off);
    Relocation r;
    r.offset = c.read_word(is64_);
    uint64_t info = c.read_word(is64_);
    if (is64_) {
      r.type = static_cast<uint32_t>(info & 0xffffffff);
      r.symbol = static_cast<uint32_t>(info >> 32);
    } else {
      r.type = static_cast<uint32_t>(info & 0xff);
      r.symbol = static_cast<uint32_t>(info >> 8);
    }
    if (rela) r.addend = is64_ ? static_cast<int64_t>(c.read<uint64_t>()) : static_cast<int32_t>(c.read<uint32_t>());
    if (r.offset >= lo && r.offset < hi) out.push_back(r);
    // Hand back each scanned 8 MiB stretch.
    constexpr uint64_t kStretch = 8u << 20;
    if (done && (off + entsize) % kStretch < entsize && off + entsize >= kStretch)
      done(table.subspan(static_cast<size_t>(off + entsize - kStretch), static_cast<size_t>(kStretch)));
  }
  return out;
}

Expected<std::vector<Relocation>> File::dynamic_relocations_in(uint64_t lo, uint64_t hi,
                                                               const std::function<void(ByteView)>& done) const {
  std::vector<Relocation> out;
  bool found = false;
  for (const auto& s : sections_) {
    if ((s.type != SHT_RELA && s.type != SHT_REL) || !(s.flags & 0x2 /*SHF_ALLOC*/)) continue;
    found = true;
    auto v = section_data(s);
    if (!v) return v.error();
    auto r = read_relocs(*v, s.type == SHT_RELA, s.entsize, lo, hi, done);
    if (!r) return r.error().context(s.name);
    out.insert(out.end(), r->begin(), r->end());
  }
  if (found) return out;
  if (dynamic_.rela && dynamic_.relasz) {
    auto v = dyn_table(dynamic_.rela, dynamic_.relasz, "DT_RELA");
    if (!v) return v.error();
    auto r = read_relocs(*v, true, dynamic_.relaent, lo, hi, done);
    if (!r) return r.error();
    out.insert(out.end(), r->begin(), r->end());
  }
  if (dynamic_.rel && dynamic_.relsz) {
    auto v = dyn_table(dynamic_.rel, dynamic_.relsz, "DT_REL");
    if (!v) return v.error();
    auto r = read_relocs(*v, false, 0, lo, hi, done);
    if (!r) return r.error();
    out.insert(out.end(), r->begin(), r->end());
  }
  return out;
}

Expected<std::vector<Relocation>> File::relocations_for(uint32_t target_index) const {
  std::vector<Relocation> out;
  for (const auto& s : sections_) {
    if ((s.type != SHT_RELA && s.type != SHT_REL) || s.info != target_index) continue;
    auto v = section_data(s);
    if (!v) return v.error();
    auto r = read_relocs(*v, s.type == SHT_RELA, s.entsize, 0, UINT64_MAX);
    if (!r) return r.error().context(s.name);
    out.insert(out.end(), r->begin(), r->end());
  }
  return out;
}

}  // namespace cuwheel::elf
