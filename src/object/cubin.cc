// Cubin and PTX payload facts. See include/cuwheel/object/cubin.h.
#include "cuwheel/object/cubin.h"

#include <cctype>
#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

#include "cuwheel/object/elf.h"

namespace cuwheel::cubin {

std::string CubinInfo::arch_name() const {
  return "sm_" + std::to_string(sm) + (arch_a ? "a" : "");
}

namespace {

// Applies the e_flags layout chosen by the ABI version (section 5). When
// the ABI byte is neither 7 nor 8, a low byte in the SM range 0x14..0x5a
// means the v7 layout (public parsers do the same).
void decode_flags(CubinInfo& c) {
  bool v8 = c.abi_version >= 8;
  if (c.abi_version != 7 && c.abi_version != 8) {
    uint32_t low = c.e_flags & 0xff;
    v8 = !(low >= 0x14 && low <= 0x5a);
  }
  if (v8) {
    c.sm = (c.e_flags >> 8) & 0xff;
  } else {
    c.sm = c.e_flags & 0xff;
    // 0x800 is "a" (EF_CUDA_ACCELERATORS_V1) only from sm_90 on, the first
    // arch-specific target. Older cubins can carry the bit with another
    // meaning: libcublas.so.12 (nvidia-cublas-cu12 12.9.3.13) holds an sm_50
    // cubin with e_flags 0x3c0d32 that cuobjdump lists as sm_50.
    c.arch_a = (c.e_flags & 0x800) != 0 && c.sm >= 90;
    uint32_t vsm = (c.e_flags >> 16) & 0xff;
    if (vsm) c.virtual_sm = vsm;
  }
}


// ABI v8, CUDA 12.8 and 12.9: 'a' is e_flags bit 0x8 (measured on ptxas
// 12.9.86 output: sm_100a 0x0600640a, sm_100 0x06006402).
constexpr uint32_t kEfCudaAccelV8 = 0x8;

enum class ARule { eflags, compat };

// Which field carries 'a' in an ABI v8 cubin (fatbin-format.md section 5).
// ptxas writes a note of owner "NVIDIA Corp" whose descriptor starts
// {u16 version, u16 sm, u16 toolkit}: CUDA 12.8/12.9 name it
// `.note.nv.cuver` with version 1, CUDA 13 `.note.nv.cuinfo` with version 2
// and toolkit 130 (13.0) or later. cuobjdump 13.5 reads 'a' from e_flags
// bit 0x8 when that note says version < 2 or toolkit < 130, and from
// `.nv.compat` otherwise (also when there is no such note); it goes by the
// descriptor alone, not the section's name nor n_type, measured on patched
// copies of both toolkits' cubins (docs/cuobjdump-behaviour.md).
Expected<ARule> a_rule(const elf::File& f) {
  for (const auto& s : f.sections()) {
    // .note.nv.tkinfo (n_type 2000) holds the tool's name and command line.
    if (s.type != 7 /*SHT_NOTE*/ || s.name == ".note.nv.tkinfo") continue;
    auto v = f.section_data(s);
    if (!v) return v.error();
    // Elf32_Nhdr {namesz, descsz, type}, the name padded to 4 bytes.
    uint32_t namesz = 0, descsz = 0, ntype = 0;
    if (!load_le(*v, 0, namesz) || !load_le(*v, 4, descsz) || !load_le(*v, 8, ntype)) continue;
    static constexpr std::string_view kOwner("NVIDIA Corp\0", 12);
    if (namesz != kOwner.size() || !in_bounds(v->size(), 12, namesz)) continue;
    if (std::string_view(reinterpret_cast<const char*>(v->data()) + 12, namesz) != kOwner) continue;
    if (ntype == 2000) continue;
    const uint64_t desc = 12 + ((namesz + 3u) & ~3u);
    uint16_t version = 0, toolkit = 0;
    if (descsz < 6 || !load_le(*v, desc, version) || !load_le(*v, desc + 4, toolkit)) continue;
    return version < 2 || toolkit < 130 ? ARule::eflags : ARule::compat;
  }
  return ARule::compat;
}

// `.nv.compat` holds records in the `.nv.info` layout (fatbin-format.md
// section 5): {u8 format, u8 attribute, u16 value-or-size}; format 4
// (EIFMT_SVAL) is followed by `size` bytes of data, formats 1-3 are 4
// bytes in all, the value of format 2 (EIFMT_BVAL) in the first byte after
// the attribute. Attribute 0x09 with value 1 marks an 'a' cubin.
Expected<bool> compat_arch_a(const elf::File& f) {
  const elf::Section* s = f.find_section(".nv.compat");
  if (!s) return false;
  auto v = f.section_data(*s);
  if (!v) return v.error();
  bool a = false;
  uint64_t p = 0;
  while (p + 4 <= v->size()) {
    uint8_t fmt = (*v)[p], attr = (*v)[p + 1];
    uint16_t val = 0;
    load_le(*v, p + 2, val);
    if (fmt == 2 && attr == 0x09) a = ((*v)[p + 2] == 1);
    if (fmt == 4) {
      if (!in_bounds(v->size(), p + 4, val)) break;
      p += 4 + uint64_t{val};
    } else if (fmt >= 1 && fmt <= 3) {
      p += 4;
    } else {
      break;
    }
  }
  return a;
}

}  // namespace

Expected<CubinInfo> read_cubin_header(ByteView d) {
  if (!elf::File::has_magic(d)) return Error("cubin: not an ELF image (bad magic at offset 0x0)");
  if (d.size() < 52) return Error("cubin: ELF header truncated (" + std::to_string(d.size()) + " bytes)");
  CubinInfo c;
  c.is64 = d[4] == 2;
  c.osabi = d[7];
  c.abi_version = d[8];
  uint16_t machine = 0;
  load_le(d, 16, c.elf_type);
  load_le(d, 18, machine);
  if (machine != elf::EM_CUDA) return Error("cubin: e_machine " + std::to_string(machine) + " is not EM_CUDA (190)");
  if (!load_le(d, c.is64 ? 48 : 36, c.e_flags)) return Error("cubin: ELF header truncated");
  decode_flags(c);
  return c;
}

namespace {
uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}
}  // namespace

Expected<CubinInfo> read_cubin(ByteView d, bool want_kernels, bool keep_names) {
  auto hdr = read_cubin_header(d);
  if (!hdr) return hdr;
  CubinInfo c = *hdr;
  auto f = elf::File::parse(d);
  if (!f) return f.error().context("cubin");
  if (c.abi_version >= 8) {
    auto rule = a_rule(*f);
    if (!rule) return rule.error().context("cubin");
    if (*rule == ARule::eflags) {
      c.arch_a = (c.e_flags & kEfCudaAccelV8) != 0;
    } else {
      auto a = compat_arch_a(*f);
      if (!a) return a.error().context("cubin");
      c.arch_a = *a;
    }
  }
  const auto& secs = f->sections();
  for (size_t i = 0; i < secs.size() && c.rela_link_error.empty(); ++i) {
    if (secs[i].type != elf::SHT_RELA) continue;
    const uint32_t link = secs[i].link;
    if (link < secs.size() && secs[link].type == elf::SHT_SYMTAB) continue;
    c.rela_link_error = "section " + std::to_string(i) + " (" + secs[i].name + ") links to section " +
                        std::to_string(link) +
                        (link < secs.size() ? " (" + secs[link].name + ")" : std::string(", past the section table")) +
                        ", not a symbol table";
  }
  if (want_kernels) {
    auto syms = f->static_symbols();
    if (!syms) return syms.error().context("cubin");
    for (const auto& s : *syms)
      if (s.type == 2 /*STT_FUNC*/ && (s.other & 0x10) && !s.name.empty()) c.kernels.push_back(s.name);
    if (c.kernels.empty()) {
      // Fallback: a per-kernel `.nv.info.<name>` section marks an entry.
      for (const auto& s : f->sections())
        if (s.name.rfind(".nv.info.", 0) == 0 && s.name.size() > 9) c.kernels.push_back(s.name.substr(9));
    }
    c.kernel_count = c.kernels.size();
    if (!keep_names) {
      c.kernel_hashes.reserve(c.kernels.size());
      for (const auto& k : c.kernels) c.kernel_hashes.push_back(fnv1a(k));
      std::vector<std::string>().swap(c.kernels);
    }
  }
  return c;
}

namespace {

// The header fields cubin_tables_from() and cubin_reads_within() need
// (ELF gABI "ELF Header": e_phoff, e_shoff, e_phentsize, e_phnum,
// e_shentsize, e_shnum, e_shstrndx).
struct Tables {
  bool is64 = false;
  uint64_t phoff = 0, shoff = 0;
  uint16_t phentsize = 0, phnum = 0, shentsize = 0, shnum = 0, shstrndx = 0;
};

std::optional<Tables> tables_of(ByteView d) {
  if (!elf::File::has_magic(d) || d.size() < 64) return std::nullopt;
  Tables t;
  t.is64 = d[4] == 2;
  if (t.is64) {
    if (!load_le(d, 32, t.phoff) || !load_le(d, 40, t.shoff)) return std::nullopt;
  } else {
    uint32_t ph = 0, sh = 0;
    if (!load_le(d, 28, ph) || !load_le(d, 32, sh)) return std::nullopt;
    t.phoff = ph;
    t.shoff = sh;
  }
  const uint64_t at = t.is64 ? 54 : 42;
  if (!load_le(d, at, t.phentsize) || !load_le(d, at + 2, t.phnum) || !load_le(d, at + 4, t.shentsize) ||
      !load_le(d, at + 6, t.shnum) || !load_le(d, at + 8, t.shstrndx))
    return std::nullopt;
  return t;
}

}  // namespace

uint64_t cubin_tables_from(ByteView head, uint64_t prefix_size) {
  auto t = tables_of(head);
  if (!t) return UINT64_MAX;
  uint64_t from = UINT64_MAX;
  for (uint64_t off : {t->phoff, t->shoff})
    if (off >= prefix_size) from = std::min(from, off);
  return from;
}

bool cubin_reads_within(ByteView d, const std::vector<std::pair<uint64_t, uint64_t>>& kept) {
  auto covered = [&](uint64_t off, uint64_t len) {
    if (off > d.size() || len > d.size() - off) return false;
    for (const auto& [b, e] : kept)
      if (off >= b && off + len <= e) return true;
    return len == 0;
  };
  if (!covered(0, 64)) return false;
  auto t = tables_of(d);
  if (!t) return false;
  const uint64_t sh_size = t->is64 ? 64 : 40, ph_size = t->is64 ? 56 : 32;
  // Extended numbering (e_shnum 0 with a table, SHN_XINDEX) and odd entry
  // sizes are left to the whole-image path.
  if (t->shoff == 0 || t->shnum == 0 || t->shentsize != sh_size || t->shstrndx >= t->shnum) return false;
  if (!covered(t->shoff, uint64_t{t->shnum} * sh_size)) return false;
  if (t->phoff != 0 && t->phnum != 0) {
    if (t->phentsize != ph_size || !covered(t->phoff, uint64_t{t->phnum} * ph_size)) return false;
  }
  // The section name table, read from the raw header before parse() uses it.
  uint32_t type = 0;
  uint64_t off = 0, size = 0;
  const uint64_t h = t->shoff + uint64_t{t->shstrndx} * sh_size;
  if (!load_le(d, h + 4, type)) return false;
  if (t->is64) {
    if (!load_le(d, h + 24, off) || !load_le(d, h + 32, size)) return false;
  } else {
    uint32_t o32 = 0, s32 = 0;
    if (!load_le(d, h + 16, o32) || !load_le(d, h + 20, s32)) return false;
    off = o32;
    size = s32;
  }
  if (type == elf::SHT_NOBITS || !covered(off, size)) return false;
  auto f = elf::File::parse(d);
  if (!f) return false;
  for (const auto& p : f->segments())
    if (p.type == elf::PT_DYNAMIC) return false;
  const auto& secs = f->sections();
  auto data_kept = [&](const elf::Section& s) { return s.type == elf::SHT_NOBITS || covered(s.offset, s.size); };
  for (const auto& s : secs) {
    if (s.type == elf::SHT_DYNAMIC) return false;
    if (s.type == 7 /*SHT_NOTE*/ || s.name == ".nv.compat") {
      if (!data_kept(s)) return false;
    } else if (s.type == elf::SHT_SYMTAB) {
      if (!data_kept(s)) return false;
      if (s.link < secs.size() && !data_kept(secs[s.link])) return false;
    }
  }
  return true;
}

namespace {

// Returns the next directive-significant token list of a PTX line.
std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_word(std::string_view s, std::string_view w) {
  return s.size() > w.size() && s.substr(0, w.size()) == w &&
         std::isspace(static_cast<unsigned char>(s[w.size()]));
}

}  // namespace

namespace {

// read_ptx(); with `decided`, also whether the facts found are final (see
// read_ptx_head).
PtxInfo scan_ptx(ByteView text, bool want_entries, bool* decided) {
  PtxInfo info;
  if (decided) *decided = false;
  const char* b = reinterpret_cast<const char*>(text.data());
  size_t n = text.size();
  if (n == 0) return info;  // an empty view may have a null data(); memchr(nullptr, ...) is undefined
  // The text ends at its first NUL. Reading the whole of it, find that
  // first; reading the header only, each header line is checked instead,
  // so a large PTX is not scanned to its end.
  if (want_entries)
    if (const void* nul = std::memchr(b, 0, n)) n = static_cast<const char*>(nul) - b;
  std::string_view all(b, n);
  bool in_block_comment = false;
  size_t pos = 0;
  bool header_done = false;
  while (pos < all.size()) {
    size_t eol = all.find('\n', pos);
    if (eol == std::string_view::npos) eol = all.size();
    std::string_view line = all.substr(pos, eol - pos);
    pos = eol + 1;
    // Facts are final once a line ends the header: later lines change
    // nothing without entries wanted. A line cut by the end of a prefix
    // may read otherwise whole, so it settles nothing.
    const bool whole_line = eol < all.size();
    if (!want_entries) {
      size_t nul = line.find('\0');
      if (nul != std::string_view::npos) {
        line = line.substr(0, nul);
        pos = all.size();  // the text ends here
        if (decided) *decided = true;
      }
    }
    // Strip comments. Most lines of a large PTX (instructions) have no '/'
    // at all and are used as they are; only the rest are copied.
    std::string clean;
    std::string_view l;
    if (!in_block_comment && line.find('/') == std::string_view::npos) {
      l = trim(line);
    } else {
      for (size_t i = 0; i < line.size(); ++i) {
        if (in_block_comment) {
          if (line[i] == '*' && i + 1 < line.size() && line[i + 1] == '/') { in_block_comment = false; ++i; }
          continue;
        }
        if (line[i] == '/' && i + 1 < line.size() && line[i + 1] == '/') break;
        if (line[i] == '/' && i + 1 < line.size() && line[i + 1] == '*') { in_block_comment = true; ++i; continue; }
        clean.push_back(line[i]);
      }
      l = trim(clean);
    }
    if (l.empty()) continue;
    if (!header_done && starts_word(l, ".version")) {
      std::string_view v = trim(l.substr(8));
      int maj = 0, min = 0;
      size_t dot = v.find('.');
      if (dot != std::string_view::npos && dot > 0) {
        bool ok = true;
        for (size_t i = 0; i < v.size(); ++i)
          if (i != dot && !std::isdigit(static_cast<unsigned char>(v[i]))) ok = false;
        if (ok && v.size() - dot - 1 > 0 && v.size() < 12) {
          maj = std::stoi(std::string(v.substr(0, dot)));
          min = std::stoi(std::string(v.substr(dot + 1)));
          info.version = std::make_pair(maj, min);
        }
      }
    } else if (!header_done && starts_word(l, ".target")) {
      std::string_view t = trim(l.substr(7));
      while (!t.empty()) {
        size_t comma = t.find(',');
        std::string_view one = trim(t.substr(0, comma));
        if (!one.empty()) info.targets.emplace_back(one);
        if (comma == std::string_view::npos) break;
        t = t.substr(comma + 1);
      }
    } else if (!header_done && starts_word(l, ".address_size")) {
      std::string_view v = trim(l.substr(13));
      if (v == "64") info.address_size = 64;
      else if (v == "32") info.address_size = 32;
    } else if (l[0] == '.' && !starts_word(l, ".version") && !starts_word(l, ".target") &&
               !starts_word(l, ".address_size")) {
      if (decided && !header_done && (whole_line || *decided)) *decided = true;
      header_done = true;
      if (!want_entries) {
        if (info.version && !info.targets.empty()) break;
        continue;
      }
    }
    if (want_entries) {
      // `.entry name(` possibly after `.visible` / `.weak`.
      size_t e = l.find(".entry");
      if (e != std::string_view::npos && (e == 0 || std::isspace(static_cast<unsigned char>(l[e - 1]))) &&
          e + 6 < l.size() && std::isspace(static_cast<unsigned char>(l[e + 6]))) {
        std::string_view rest = trim(l.substr(e + 6));
        size_t end = 0;
        while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) || rest[end] == '_' ||
                                     rest[end] == '$' || rest[end] == '.'))
          ++end;
        if (end) info.entries.emplace_back(rest.substr(0, end));
      }
    }
  }
  return info;
}

}  // namespace

PtxInfo read_ptx(ByteView text, bool want_entries) { return scan_ptx(text, want_entries, nullptr); }

PtxInfo read_ptx_head(ByteView head, bool* decided) { return scan_ptx(head, false, decided); }

}  // namespace cuwheel::cubin
