// The ELF editor (include/cuwheel/repair/elfedit.h). Offsets and layouts:
// gABI ELF-64 (Elf64_Ehdr 64 bytes, Elf64_Phdr 56, Elf64_Shdr 64,
// Elf64_Dyn 16, Elf64_Sym 24) and LSB "Symbol Versioning" (Elf64_Verneed
// and Elf64_Vernaux 16 bytes each, Elf64_Verdef 20, Elf64_Verdaux 8,
// versym 2).
#include "cuwheel/repair/elfedit.h"

#include "cuwheel/base/fileio.h"
#include "cuwheel/base/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

namespace cuwheel::repair {

namespace {

constexpr int64_t DT_NULL = 0, DT_NEEDED = 1, DT_STRTAB = 5, DT_SYMTAB = 6, DT_STRSZ = 10, DT_SYMENT = 11,
                  DT_SONAME = 14, DT_RPATH = 15, DT_HASH = 4, DT_RUNPATH = 29, DT_VERSYM = 0x6ffffff0,
                  DT_VERDEF = 0x6ffffffc, DT_VERDEFNUM = 0x6ffffffd, DT_VERNEED = 0x6ffffffe,
                  DT_VERNEEDNUM = 0x6fffffff, DT_AUXILIARY = 0x7ffffffd, DT_FILTER = 0x7fffffff,
                  DT_CONFIG = 0x6ffffefa, DT_DEPAUDIT = 0x6ffffefb, DT_AUDIT = 0x6ffffefc;
constexpr uint32_t PT_LOAD = 1, PT_DYNAMIC = 2, PT_PHDR = 6;
constexpr uint32_t SHT_STRTAB = 3, SHT_DYNAMIC = 6, SHT_DYNSYM = 11, SHT_GNU_VERNEED = 0x6ffffffe;
constexpr uint16_t EM_AARCH64 = 183, EM_PPC64 = 21;
constexpr uint64_t kPhdr = 56, kShdr = 64, kDyn = 16, kSym = 24;

bool is_string_tag(int64_t t) {
  return t == DT_NEEDED || t == DT_SONAME || t == DT_RPATH || t == DT_RUNPATH || t == DT_AUXILIARY ||
         t == DT_FILTER || t == DT_CONFIG || t == DT_DEPAUDIT || t == DT_AUDIT;
}

const char* tag_name(int64_t t) {
  switch (t) {
    case DT_NEEDED: return "DT_NEEDED";
    case DT_SONAME: return "DT_SONAME";
    case DT_RPATH: return "DT_RPATH";
    case DT_RUNPATH: return "DT_RUNPATH";
    default: return "string tag";
  }
}

uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) { std::memcpy(b.data() + at, &v, 2); }
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void put64(std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }
ElfPatch patch16(uint64_t off, uint16_t v) { ElfPatch p{off, std::vector<uint8_t>(2)}; put16(p.bytes, 0, v); return p; }
ElfPatch patch32(uint64_t off, uint32_t v) { ElfPatch p{off, std::vector<uint8_t>(4)}; put32(p.bytes, 0, v); return p; }

struct Phdr {
  uint64_t at;  // file offset of the header
  uint32_t type, flags;
  uint64_t offset, vaddr, paddr, filesz, memsz, align;
};
struct Shdr {
  uint64_t at;
  uint32_t type;
  uint64_t flags, addr, offset, size;
  uint32_t link, info;
};
struct Dyn {
  int64_t tag;  // d_tag is signed (Elf64_Sxword); read as unsigned and cast
  uint64_t val;
  std::optional<std::string> str;  // string tags: the value as a string (new or old)
  bool added = false;              // not in the input: its string has no old place
};
// A reference into .dynstr outside the dynamic table: a symbol name or a
// version name or file.
struct StrRef {
  uint64_t field;  // file offset of the 32-bit field
  uint32_t str;    // offset into .dynstr
};
struct Verneed {
  uint64_t at;  // file offset of the Elf64_Verneed
  uint16_t version;
  uint32_t file;
  uint32_t next;
  std::vector<uint16_t> others;            // vna_other of its Vernaux entries
  std::vector<std::vector<uint8_t>> auxs;  // each Elf64_Vernaux, as read (16 bytes)
};

class Editor {
 public:
  Editor(ByteView d, const ElfEdits& e) : d_(d), e_(e) {}

  Expected<ElfEditPlan> run() {
    if (auto s = read_headers(); !s) return s.error();
    if (auto s = read_dynamic(); !s) return s.error();
    if (auto s = read_refs(); !s) return s.error();
    if (auto s = apply_edits(); !s) return s.error();
    if (!plan_.result.changed) {
      plan_.patches.clear();
      plan_.result.size = d_.size();
      return plan_;
    }
    if (auto s = lay_out(); !s) return s.error();
    return plan_;
  }

 private:
  template <class T>
  bool get(uint64_t off, T& v) const { return load_le(d_, off, v); }
  Error err(const std::string& what, uint64_t off) const { return Error(what + " (at " + hex(off) + ")"); }

  std::optional<uint64_t> to_offset(uint64_t vaddr, uint64_t n) const {
    for (const auto& p : ph_)
      if (p.type == PT_LOAD && vaddr >= p.vaddr && vaddr - p.vaddr < p.filesz && n <= p.filesz - (vaddr - p.vaddr))
        return p.offset + (vaddr - p.vaddr);
    return std::nullopt;
  }
  std::optional<std::string_view> str_at(uint64_t off) const {
    if (off >= dynstr_.size()) return std::nullopt;
    return load_cstr(dynstr_, off);
  }

  Status read_headers() {
    if (d_.size() < 64 || std::memcmp(d_.data(), "\x7f" "ELF", 4) != 0) return Error("not an ELF file");
    if (d_[4] != 2) return Error("32-bit ELF: only 64-bit ELF is edited");
    if (d_[5] != 1) return Error("big-endian ELF: only little-endian ELF is edited");
    uint16_t phentsize = 0, phnum = 0, shentsize = 0, shnum = 0;
    get(0x12, machine_);
    get(0x20, phoff_);
    get(0x28, shoff_);
    get(0x36, phentsize);
    get(0x38, phnum);
    get(0x3a, shentsize);
    get(0x3c, shnum);
    if (phnum == 0 || phentsize != kPhdr) return err("no program header table of 56-byte entries", 0x36);
    if (phnum == 0xffff) return err("extended program header numbering is not edited", 0x38);
    if (!in_bounds(d_.size(), phoff_, uint64_t{phnum} * kPhdr)) return err("program headers run past the end", 0x20);
    for (uint16_t i = 0; i < phnum; ++i) {
      Phdr p{};
      p.at = phoff_ + i * kPhdr;
      get(p.at, p.type);
      get(p.at + 4, p.flags);
      get(p.at + 8, p.offset);
      get(p.at + 16, p.vaddr);
      get(p.at + 24, p.paddr);
      get(p.at + 32, p.filesz);
      get(p.at + 40, p.memsz);
      get(p.at + 48, p.align);
      if (p.type == PT_LOAD && !in_bounds(d_.size(), p.offset, p.filesz))
        return err("PT_LOAD segment runs past the end of the file", p.at);
      // The new segment is aligned like the others: an alignment that is no
      // power of two or above 64 MiB (real files use 4 KiB to 2 MiB), or an
      // address range that wraps, is no file to extend.
      uint64_t end = 0;
      if (p.type == PT_LOAD && (p.align > (uint64_t{1} << 26) || (p.align & (p.align - 1)) != 0 ||
                                add_overflow(p.vaddr, p.memsz, end) || end > (uint64_t{1} << 62)))
        return err("PT_LOAD segment with alignment " + hex(p.align) + " or address range " + hex(p.vaddr) + "+" +
                       hex(p.memsz) + " that cannot be extended",
                   p.at);
      ph_.push_back(p);
    }
    // Section headers are optional (a stripped file may lack them).
    if (shoff_ && shnum && shentsize == kShdr && in_bounds(d_.size(), shoff_, uint64_t{shnum} * kShdr)) {
      for (uint16_t i = 0; i < shnum; ++i) {
        Shdr s{};
        s.at = shoff_ + i * kShdr;
        get(s.at + 4, s.type);
        get(s.at + 8, s.flags);
        get(s.at + 16, s.addr);
        get(s.at + 24, s.offset);
        get(s.at + 32, s.size);
        get(s.at + 40, s.link);
        get(s.at + 44, s.info);
        sh_.push_back(s);
      }
    }
    return Ok{};
  }

  Status read_dynamic() {
    const Phdr* dyn = nullptr;
    for (const auto& p : ph_)
      if (p.type == PT_DYNAMIC) dyn = &p;
    if (!dyn) return Error("no PT_DYNAMIC: not a dynamically linked file");
    if (!in_bounds(d_.size(), dyn->offset, dyn->filesz)) return err("PT_DYNAMIC runs past the end of the file", dyn->at);
    dyn_off_ = dyn->offset;
    dyn_cap_ = dyn->filesz / kDyn;
    bool terminated = false;
    for (uint64_t i = 0; i < dyn_cap_; ++i) {
      Dyn e{};
      uint64_t tag = 0;
      get(dyn_off_ + i * kDyn, tag);
      e.tag = static_cast<int64_t>(tag);
      get(dyn_off_ + i * kDyn + 8, e.val);
      if (e.tag == DT_NULL) {
        terminated = true;
        break;
      }
      dyn_.push_back(e);
    }
    if (!terminated) return err("the dynamic table has no DT_NULL", dyn_off_);
    uint64_t strtab = 0, strsz = 0;
    for (const auto& e : dyn_) {
      if (e.tag == DT_STRTAB) strtab = e.val;
      if (e.tag == DT_STRSZ) strsz = e.val;
    }
    if (!strtab || !strsz) return err("no DT_STRTAB or DT_STRSZ", dyn_off_);
    auto off = to_offset(strtab, strsz);
    if (!off) return err("DT_STRTAB " + hex(strtab) + " (" + std::to_string(strsz) + " bytes) is not mapped by a PT_LOAD", dyn_off_);
    strtab_vaddr_ = strtab;
    strtab_off_ = *off;
    dynstr_ = d_.subspan(*off, strsz);
    for (auto& e : dyn_) {
      if (!is_string_tag(e.tag)) continue;
      auto s = str_at(e.val);
      if (!s) return err(std::string(tag_name(e.tag)) + " string at " + hex(e.val) + " is outside .dynstr", dyn_off_);
      e.str = std::string(*s);
    }
    orig_ = dyn_;
    return Ok{};
  }

  // Every other reference into .dynstr: symbol names, version files and names.
  Status read_refs() {
    auto val = [&](int64_t tag) -> std::optional<uint64_t> {
      for (const auto& e : dyn_)
        if (e.tag == tag) return e.val;
      return std::nullopt;
    };
    // Dynamic symbols: counted by the .dynsym section, else by DT_HASH.
    uint64_t nsyms = 0;
    for (const auto& s : sh_)
      if (s.type == SHT_DYNSYM) nsyms = s.size / kSym;
    if (auto symtab = val(DT_SYMTAB)) {
      if (!nsyms)
        if (auto h = val(DT_HASH))
          if (auto ho = to_offset(*h, 8)) {
            uint32_t nchain = 0;
            get(*ho + 4, nchain);
            nsyms = nchain;
          }
      if (!nsyms)
        if (auto g = val(0x6ffffef5 /*DT_GNU_HASH*/)) nsyms = gnu_hash_count(*g);
      if (!nsyms)
        return Error("no .dynsym section header, DT_HASH or readable DT_GNU_HASH: the dynamic symbols cannot be counted");
      auto so = to_offset(*symtab, nsyms * kSym);
      if (!so) return err("DT_SYMTAB (" + std::to_string(nsyms) + " symbols) is not mapped by a PT_LOAD", dyn_off_);
      for (uint64_t i = 0; i < nsyms; ++i) {
        uint32_t name = 0;
        get(*so + i * kSym, name);
        if (name) refs_.push_back({*so + i * kSym, name});
      }
      nsyms_ = nsyms;
      if (auto vs = val(DT_VERSYM)) {
        auto vo = to_offset(*vs, nsyms * 2);
        if (!vo) return err("DT_VERSYM is not mapped by a PT_LOAD", dyn_off_);
        versym_off_ = *vo;
      }
    }
    // Version needs.
    if (auto vn = val(DT_VERNEED)) {
      const uint64_t count = val(DT_VERNEEDNUM).value_or(0);
      auto base = to_offset(*vn, 16);
      if (!base) return err("DT_VERNEED is not mapped by a PT_LOAD", dyn_off_);
      verneed_vaddr_ = *vn;
      uint64_t at = *base;
      for (uint64_t i = 0; i < count; ++i) {
        if (!in_bounds(d_.size(), at, 16)) return err("Elf64_Verneed runs past the end", at);
        if (++records_ > kMaxVersionRecords) return err("more than a million version records", at);
        Verneed v{};
        v.at = at;
        uint16_t cnt = 0;
        uint32_t aux = 0;
        get(at, v.version);
        get(at + 2, cnt);
        get(at + 4, v.file);
        get(at + 8, aux);
        get(at + 12, v.next);
        refs_.push_back({at + 4, v.file});
        uint64_t a = at + aux;
        for (uint16_t k = 0; k < cnt; ++k) {
          if (!in_bounds(d_.size(), a, 16)) return err("Elf64_Vernaux runs past the end", a);
          if (++records_ > kMaxVersionRecords) return err("more than a million version records", a);
          uint16_t other = 0;
          uint32_t name = 0, next = 0;
          get(a + 6, other);
          get(a + 8, name);
          get(a + 12, next);
          refs_.push_back({a + 8, name});
          v.others.push_back(static_cast<uint16_t>(other & 0x7fff));
          v.auxs.emplace_back(d_.begin() + static_cast<std::ptrdiff_t>(a), d_.begin() + static_cast<std::ptrdiff_t>(a + 16));
          if (!next) break;
          a += next;
        }
        if (!str_at(v.file)) return err("vn_file outside .dynstr", at + 4);
        verneed_.push_back(v);
        if (!v.next) break;
        at += v.next;
      }
    }
    // Version definitions.
    if (auto vd = val(DT_VERDEF)) {
      const uint64_t count = val(DT_VERDEFNUM).value_or(0);
      auto base = to_offset(*vd, 20);
      if (!base) return err("DT_VERDEF is not mapped by a PT_LOAD", dyn_off_);
      uint64_t at = *base;
      for (uint64_t i = 0; i < count; ++i) {
        if (!in_bounds(d_.size(), at, 20)) return err("Elf64_Verdef runs past the end", at);
        if (++records_ > kMaxVersionRecords) return err("more than a million version records", at);
        uint16_t cnt = 0;
        uint32_t aux = 0, next = 0;
        get(at + 6, cnt);
        get(at + 12, aux);
        get(at + 16, next);
        uint64_t a = at + aux;
        for (uint16_t k = 0; k < cnt; ++k) {
          if (!in_bounds(d_.size(), a, 8)) return err("Elf64_Verdaux runs past the end", a);
          if (++records_ > kMaxVersionRecords) return err("more than a million version records", a);
          uint32_t name = 0, anext = 0;
          get(a, name);
          get(a + 4, anext);
          refs_.push_back({a, name});
          if (!anext) break;
          a += anext;
        }
        if (!next) break;
        at += next;
      }
    }
    return Ok{};
  }

  // The number of dynamic symbols a DT_GNU_HASH table implies: one past
  // the last symbol of the longest chain of the highest bucket (the
  // table's layout: nbuckets, symoffset, bloom_size, bloom_shift, the bloom
  // words, the buckets, then one chain word per hashed symbol, the last of
  // a chain with bit 0 set). 0 when the table is unreadable.
  uint64_t gnu_hash_count(uint64_t vaddr) const {
    auto h = to_offset(vaddr, 16);
    if (!h) return 0;
    uint32_t nbuckets = 0, symoffset = 0, bloom = 0;
    get(*h, nbuckets);
    get(*h + 4, symoffset);
    get(*h + 8, bloom);
    const uint64_t buckets = *h + 16 + uint64_t{bloom} * 8;
    uint32_t top = 0;
    for (uint64_t i = 0; i < nbuckets; ++i) {
      uint32_t b = 0;
      if (!get(buckets + i * 4, b)) return 0;
      top = std::max(top, b);
    }
    if (top < symoffset) return symoffset;
    const uint64_t chains = buckets + uint64_t{nbuckets} * 4;
    for (uint64_t i = top; i < top + (uint64_t{1} << 24); ++i) {
      uint32_t c = 0;
      if (!get(chains + (i - symoffset) * 4, c)) return 0;
      if (c & 1) return i + 1;
    }
    return 0;
  }

  static Status valid_name(const std::string& what, const std::string& s) {
    if (s.empty()) return Error(what + ": empty");
    if (s.find('\0') != std::string::npos) return Error(what + ": holds a NUL byte");
    return Ok{};
  }

  Status apply_edits() {
    ElfEditResult& r = plan_.result;
    std::set<std::string> removing(e_.remove_needed.begin(), e_.remove_needed.end());
    for (const auto& rn : e_.replace_needed) {
      const std::string& from = rn.first;
      const std::string& to = rn.second;
      if (auto s = valid_name("new NEEDED for " + from, to); !s) return s;
      if (removing.count(from)) return Error("NEEDED " + from + " is both replaced and removed");
      bool found = false;
      for (auto& e : dyn_)
        if (e.tag == DT_NEEDED && e.str == from) {
          found = true;
          if (from != to) {
            e.str = to;
            r.changes.push_back("DT_NEEDED " + from + " -> " + to);
          }
        }
      if (!found) {
        // Already done (an edited file edited again), or the half of a
        // rename that patchelf --replace-needed leaves behind: DT_NEEDED
        // already names `to` while .gnu.version_r still names `from`, and
        // the version needs follow DT_NEEDED.
        bool done = std::any_of(dyn_.begin(), dyn_.end(), [&](const Dyn& e) { return e.tag == DT_NEEDED && e.str == to; });
        if (!done) return Error("no DT_NEEDED " + from + " to replace");
      }
      for (auto& v : verneed_)
        if (str_at(v.file) == std::string_view(from) && from != to) {
          vn_file_new_[v.at] = to;
          r.changes.push_back(".gnu.version_r file " + from + " -> " + to);
        }
    }
    for (const auto& name : e_.remove_needed) {
      auto it = std::find_if(dyn_.begin(), dyn_.end(), [&](const Dyn& e) { return e.tag == DT_NEEDED && e.str == name; });
      if (it == dyn_.end()) continue;  // not there (any more): nothing to do
      dyn_.erase(it);
      r.changes.push_back("DT_NEEDED " + name + " removed");
      for (size_t i = 0; i < verneed_.size(); ++i)
        if (str_at(verneed_[i].file) == std::string_view(name)) {
          removed_verneed_.push_back(i);
          r.changes.push_back(".gnu.version_r entry of " + name + " removed; its symbols' versions dropped");
        }
    }
    if (e_.soname) {
      if (auto s = valid_name("SONAME", *e_.soname); !s) return s;
      auto it = std::find_if(dyn_.begin(), dyn_.end(), [](const Dyn& e) { return e.tag == DT_SONAME; });
      if (it == dyn_.end()) {
        add_entry({DT_SONAME, 0, *e_.soname, true});
        r.changes.push_back("DT_SONAME " + *e_.soname + " added");
      } else if (it->str != *e_.soname) {
        r.changes.push_back("DT_SONAME " + *it->str + " -> " + *e_.soname);
        it->str = *e_.soname;
      }
    }
    if (e_.search_path) {
      if (auto s = valid_name("search path", *e_.search_path); !s) return s;
      const int64_t want = e_.runpath ? DT_RUNPATH : DT_RPATH;
      bool kept = false;
      for (auto it = dyn_.begin(); it != dyn_.end();) {
        if (it->tag != DT_RPATH && it->tag != DT_RUNPATH) {
          ++it;
          continue;
        }
        if (kept) {
          r.changes.push_back(std::string(tag_name(it->tag)) + " '" + *it->str + "' removed");
          it = dyn_.erase(it);
          continue;
        }
        kept = true;
        if (it->tag != want || it->str != *e_.search_path) {
          r.changes.push_back(std::string(tag_name(it->tag)) + " '" + *it->str + "' -> " + tag_name(want) + " '" +
                              *e_.search_path + "'");
          it->tag = want;
          it->str = *e_.search_path;
        }
        ++it;
      }
      if (!kept) {
        add_entry({want, 0, *e_.search_path, true});
        r.changes.push_back(std::string(tag_name(want)) + " '" + *e_.search_path + "' added");
      }
    }
    r.changed = !r.changes.empty();
    return Ok{};
  }

  // The loader does not care about the order of the entries.
  void add_entry(Dyn e) { dyn_.push_back(std::move(e)); }

  // Works out the strings, the dynamic table and, when needed, the new segment.
  Status lay_out() {
    // The strings to write: dynamic entries whose string changed or that
    // are new, and vn_file fields.
    struct Want {
      std::string value;
      std::vector<uint64_t> fields;  // 4-byte vn_file fields to point at it
      size_t dyn_index = SIZE_MAX;   // the entry whose d_val gets it
      uint64_t old = UINT64_MAX;     // the offset the reference had
    };
    std::vector<Want> wants;
    for (size_t i = 0; i < dyn_.size(); ++i) {
      const Dyn& e = dyn_[i];
      if (!e.str) continue;
      if (!e.added && str_at(e.val) == std::string_view(*e.str)) continue;  // unchanged (a retag keeps its string)
      wants.push_back({*e.str, {}, i, e.added ? UINT64_MAX : e.val});
    }
    for (const auto& [at, value] : vn_file_new_) {
      uint32_t old = 0;
      get(at + 4, old);
      wants.push_back({value, {at + 4}, SIZE_MAX, old});
    }
    // Where each string goes: an existing identical string, in place over
    // the old one, or appended to a new .dynstr.
    std::vector<uint8_t> extra;  // appended to the old .dynstr's bytes
    std::map<std::string, uint64_t> placed;
    std::vector<ElfPatch> string_patches;
    // Every reference's span, for the sharing test.
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // [start, end] inclusive of NUL
    auto span_of = [&](uint64_t off) -> std::pair<uint64_t, uint64_t> {
      auto s = str_at(off);
      return {off, off + (s ? s->size() : 0)};
    };
    for (const auto& ref : refs_) spans.push_back(span_of(ref.str));
    for (const auto& e : orig_)
      if (e.str) spans.push_back(span_of(e.val));
    auto find_existing = [&](const std::string& v) -> std::optional<uint64_t> {
      // A string of a reference the edit keeps (a symbol or version name,
      // an entry it does not touch): reusing it is read-only sharing.
      for (const auto& ref : refs_)
        if (str_at(ref.str) == std::string_view(v) && !vn_file_new_.count(ref.field - 4) && !overwritten_.count(ref.str))
          return ref.str;
      for (const auto& e : dyn_)
        if (e.str && *e.str == v && !e.added && str_at(e.val) == std::string_view(v) && !overwritten_.count(e.val))
          return e.val;
      return std::nullopt;
    };
    for (auto& w : wants) {
      uint64_t where = UINT64_MAX;
      if (auto it = placed.find(w.value); it != placed.end()) where = it->second;
      else if (auto ex = find_existing(w.value)) where = *ex;
      else if (w.old != UINT64_MAX && can_overwrite(w.old, w.value, spans, wants)) {
        where = w.old;
        auto olds = str_at(w.old);
        ElfPatch p{strtab_off_ + w.old, std::vector<uint8_t>(olds->size() + 1, 0)};
        std::memcpy(p.bytes.data(), w.value.data(), w.value.size());
        string_patches.push_back(std::move(p));
        overwritten_.insert(w.old);
        plan_.result.changes.push_back("'" + w.value + "' written in place of '" + std::string(*olds) + "'");
      } else {
        where = dynstr_.size() + extra.size();
        extra.insert(extra.end(), w.value.begin(), w.value.end());
        extra.push_back(0);
      }
      placed[w.value] = where;
      if (w.dyn_index != SIZE_MAX) dyn_[w.dyn_index].val = where;
      for (uint64_t f : w.fields) vn_field_.emplace_back(f, static_cast<uint32_t>(where));
    }
    if (dynstr_.size() + extra.size() > UINT32_MAX) return Error(".dynstr would exceed 4 GiB");
    const bool new_strtab = !extra.empty();

    // Version needs to unlink (remove_needed).
    std::vector<ElfPatch> ver_patches;
    std::set<uint16_t> dropped;
    if (!removed_verneed_.empty()) {
      std::vector<bool> gone(verneed_.size(), false);
      for (size_t i : removed_verneed_) gone[i] = true;
      std::vector<size_t> keep;
      for (size_t i = 0; i < verneed_.size(); ++i)
        if (!gone[i]) keep.push_back(i);
        else dropped.insert(verneed_[i].others.begin(), verneed_[i].others.end());
      // The kept entries, packed from the table's start (where DT_VERNEED
      // and the section header point): each Elf64_Verneed followed by its
      // Elf64_Vernaux records, offsets rewritten, the rest zeroed.
      const uint64_t start = verneed_[0].at;
      uint64_t old_end = start;
      for (const auto& v : verneed_) old_end = std::max<uint64_t>(old_end, v.at + 16 + 16 * v.auxs.size());
      std::vector<uint8_t> packed;
      for (size_t k = 0; k < keep.size(); ++k) {
        const Verneed& v = verneed_[keep[k]];
        const size_t at = packed.size();
        packed.resize(at + 16 + 16 * v.auxs.size(), 0);
        put16(packed, at, v.version);
        put16(packed, at + 2, static_cast<uint16_t>(v.auxs.size()));
        uint32_t file = v.file;
        for (const auto& [field, value] : vn_field_)
          if (field == v.at + 4) file = value;
        put32(packed, at + 4, file);
        put32(packed, at + 8, v.auxs.empty() ? 0 : 16);
        put32(packed, at + 12, k + 1 < keep.size() ? static_cast<uint32_t>(16 + 16 * v.auxs.size()) : 0);
        for (size_t j = 0; j < v.auxs.size(); ++j) {
          std::memcpy(packed.data() + at + 16 + 16 * j, v.auxs[j].data(), 16);
          put32(packed, at + 16 + 16 * j + 12, j + 1 < v.auxs.size() ? 16 : 0);
        }
        // A vn_file rewritten by replace_needed follows its entry.
        for (auto& [field, value] : vn_field_)
          if (field == v.at + 4) field = start + at + 4;
      }
      packed.resize(old_end - start, 0);
      ver_patches.push_back({start, packed});
      for (auto& e : dyn_)
        if (e.tag == DT_VERNEEDNUM) e.val = keep.size();
      if (keep.empty()) {
        // No version needs left: without version definitions either, the
        // versym table must go too (glibc builds no version array for the
        // object, then indexes it while relocating: a crash at dlopen).
        const bool defs = std::any_of(dyn_.begin(), dyn_.end(), [](const Dyn& e) { return e.tag == DT_VERDEF; });
        dyn_.erase(std::remove_if(dyn_.begin(), dyn_.end(),
                                  [&](const Dyn& e) {
                                    return e.tag == DT_VERNEED || e.tag == DT_VERNEEDNUM || (!defs && e.tag == DT_VERSYM);
                                  }),
                   dyn_.end());
        if (!defs) plan_.result.changes.push_back("DT_VERSYM removed: no version needs or definitions are left");
      }
      for (const auto& s : sh_)
        if (s.type == SHT_GNU_VERNEED) ver_patches.push_back(patch32(s.at + 44, static_cast<uint32_t>(keep.size())));
      // Symbols of the dropped versions become unversioned (global).
      if (versym_off_)
        for (uint64_t i = 0; i < nsyms_; ++i) {
          uint16_t v = 0;
          get(*versym_off_ + i * 2, v);
          if (dropped.count(static_cast<uint16_t>(v & 0x7fff))) ver_patches.push_back(patch16(*versym_off_ + i * 2, 1));
        }
    }

    // The new segment, when one is needed: [the sections that followed the
    // program header table][.dynstr copy][.dynamic copy]. The program
    // header table grows by one entry where it is (in the first PT_LOAD,
    // after the ELF header, as a linker puts it: objcopy and strip expect
    // it there) over the bytes of the sections that followed it; those move
    // into the new segment as one block, so their layout is kept.
    const uint64_t new_vaddr_base = next_vaddr();
    const uint64_t seg_off = align_up(d_.size(), page());
    const bool move_dyn = dyn_.size() + 1 > dyn_cap_;
    const bool append = new_strtab || move_dyn;
    auto dyn_bytes = [&](uint64_t slots) {
      std::vector<uint8_t> b(slots * kDyn, 0);
      for (size_t i = 0; i < dyn_.size(); ++i) {
        put64(b, i * kDyn, static_cast<uint64_t>(dyn_[i].tag));
        put64(b, i * kDyn + 8, dyn_[i].val);
      }
      return b;
    };
    auto& P = plan_.patches;
    P.insert(P.end(), string_patches.begin(), string_patches.end());
    P.insert(P.end(), ver_patches.begin(), ver_patches.end());
    for (const auto& [field, value] : vn_field_) P.push_back(patch32(field, value));
    if (!append) {
      P.push_back({dyn_off_, dyn_bytes(dyn_cap_)});
      plan_.result.size = d_.size();
      return Ok{};
    }
    if (sh_.empty()) return Error("no section headers: the sections after the program headers cannot be found to move");

    // The block: every allocated section overlapping the table's new entry,
    // and every one overlapping those.
    const uint64_t ph_end = phoff_ + ph_.size() * kPhdr, ph_new_end = ph_end + kPhdr;
    uint64_t lo = ph_end, hi = ph_new_end;
    std::vector<size_t> movers;
    {
      std::vector<size_t> cand;
      for (size_t i = 0; i < sh_.size(); ++i)
        if ((sh_[i].flags & 2) && sh_[i].type != 8 /*NOBITS*/ && sh_[i].size != 0) cand.push_back(i);
      std::sort(cand.begin(), cand.end(), [&](size_t x, size_t y) { return sh_[x].offset < sh_[y].offset; });
      // In offset order, each section that starts before the block's end
      // and ends after its start joins it (and may extend its end).
      // A segment other than a PT_LOAD (PT_NOTE over several note
      // sections, PT_INTERP, PT_GNU_PROPERTY) that the block cuts into
      // moves whole: the block grows to its end, and the sweep goes on.
      for (bool grew = true; grew;) {
        grew = false;
        for (size_t i : cand) {
          const Shdr& sh = sh_[i];
          if (sh.offset >= hi) break;
          uint64_t end = 0;
          if (add_overflow(sh.offset, sh.size, end)) end = UINT64_MAX;
          if (end <= lo || std::find(movers.begin(), movers.end(), i) != movers.end()) continue;
          movers.push_back(i);
          lo = std::min(lo, sh.offset);
          hi = std::max(hi, end);
          grew = true;
        }
        for (const auto& h : ph_) {
          if (h.type == PT_LOAD || h.type == PT_PHDR || h.filesz == 0) continue;
          uint64_t end = 0;
          if (add_overflow(h.offset, h.filesz, end)) continue;
          if (h.offset < hi && end > lo && end > hi) {
            hi = end;
            grew = true;
          }
        }
      }
    }
    const Phdr* interp = nullptr;
    for (const auto& h : ph_)
      if (h.type == 3) interp = &h;
    for (size_t i : movers) {
      const Shdr& sh = sh_[i];
      if (!in_bounds(d_.size(), sh.offset, sh.size))
        return Error("the section at " + hex(sh.offset) + " (" + std::to_string(sh.size) + " bytes) runs past the end of the file");
      const bool movable = sh.type == 7 /*NOTE*/ || sh.type == 5 /*HASH*/ || sh.type == 0x6ffffff6 /*GNU_HASH*/ ||
                           sh.type == SHT_DYNSYM || (sh.type == SHT_STRTAB && sh.offset == strtab_off_) ||
                           sh.type == 0x6fffffff || sh.type == SHT_GNU_VERNEED || sh.type == 0x6ffffffd ||
                           sh.type == 4 /*RELA*/ || sh.type == 9 /*REL*/ || (interp && sh.addr == interp->vaddr);
      if (!movable || lo < ph_end)
        return Error("the section at " + hex(sh.offset) + " (type " + hex(sh.type) +
                     ") follows the program headers and cannot be moved to make room for one more");
    }
    const Phdr* first = nullptr;
    for (const auto& h : ph_)
      if (h.type == PT_LOAD && h.offset <= phoff_ && ph_new_end <= h.offset + h.filesz && hi <= h.offset + h.filesz)
        first = &h;
    if (!first) return Error("the program header table is not in a PT_LOAD segment with room for one more entry");
    const uint64_t lo_vaddr = first->vaddr + (lo - first->offset), hi_vaddr = lo_vaddr + (hi - lo);

    std::vector<uint8_t>& t = plan_.tail;
    const uint64_t block_at = lo % 64;  // same alignment modulo 64 as where it was
    t.resize(block_at, 0);
    t.insert(t.end(), d_.begin() + static_cast<std::ptrdiff_t>(lo), d_.begin() + static_cast<std::ptrdiff_t>(hi));
    const uint64_t delta_off = seg_off + block_at - lo;
    const uint64_t delta_vaddr = new_vaddr_base + block_at - lo_vaddr;
    auto in_block = [&](uint64_t vaddr) { return vaddr >= lo_vaddr && vaddr < hi_vaddr; };
    static const int64_t kAddrTags[] = {DT_HASH, DT_STRTAB, DT_SYMTAB, 7 /*RELA*/, 17 /*REL*/, 23 /*JMPREL*/,
                                        0x6ffffef5 /*GNU_HASH*/, DT_VERSYM, DT_VERDEF, DT_VERNEED, 36 /*RELR*/};
    for (auto& e : dyn_)
      if (std::find(std::begin(kAddrTags), std::end(kAddrTags), e.tag) != std::end(kAddrTags) && in_block(e.val))
        e.val += delta_vaddr;
    uint64_t dynstr_at = 0, dyn_at = 0;
    const uint64_t dynstr_size = dynstr_.size() + extra.size();
    uint64_t dynstr_vaddr = 0;
    if (new_strtab) {
      dynstr_at = t.size();
      t.insert(t.end(), dynstr_.begin(), dynstr_.end());
      // In-place patches of the old .dynstr apply to the copy as well.
      for (const auto& sp : string_patches)
        std::memcpy(t.data() + dynstr_at + (sp.offset - strtab_off_), sp.bytes.data(), sp.bytes.size());
      t.insert(t.end(), extra.begin(), extra.end());
      dynstr_vaddr = new_vaddr_base + dynstr_at;
      for (auto& e : dyn_) {
        if (e.tag == DT_STRTAB) e.val = dynstr_vaddr;
        if (e.tag == DT_STRSZ) e.val = dynstr_size;
      }
    }
    uint64_t dyn_slots = dyn_cap_;
    if (move_dyn) {
      t.resize(align_up(t.size(), 16), 0);
      dyn_at = t.size();
      dyn_slots = dyn_.size() + 4;  // spare DT_NULLs, so the next added tag fits in place
      auto b = dyn_bytes(dyn_slots);
      t.insert(t.end(), b.begin(), b.end());
    } else {
      P.push_back({dyn_off_, dyn_bytes(dyn_cap_)});
    }
    const uint64_t seg_size = t.size();

    // Program headers: the old ones (what moved pointed at its new place),
    // the new PT_LOAD after the last PT_LOAD; written where they were.
    std::vector<Phdr> ph = ph_;
    for (auto& h : ph) {
      if (h.type == PT_LOAD) continue;
      if (h.type == PT_PHDR) {
        h.filesz += kPhdr;
        h.memsz += kPhdr;
        continue;
      }
      if (h.type == PT_DYNAMIC && move_dyn) {
        h.offset = seg_off + dyn_at;
        h.vaddr = h.paddr = new_vaddr_base + dyn_at;
        h.filesz = h.memsz = dyn_slots * kDyn;
        continue;
      }
      if (h.filesz && in_block(h.vaddr)) {
        if (h.vaddr + h.filesz > hi_vaddr)
          return Error("program header of type " + hex(h.type) + " at " + hex(h.offset) +
                       " reaches past the sections that must move to make room for one more program header");
        h.offset += delta_off;
        h.vaddr += delta_vaddr;
        h.paddr += delta_vaddr;
      }
    }
    Phdr load{};
    load.type = PT_LOAD;
    // PF_R, and PF_W when .dynamic moves here: glibc before 2.35 adjusts
    // .dynamic's d_ptr values in place.
    load.flags = move_dyn ? (4 | 2) : 4;
    load.offset = seg_off;
    load.vaddr = load.paddr = new_vaddr_base;
    load.filesz = load.memsz = seg_size;
    load.align = page();
    size_t last_load = 0;
    for (size_t i = 0; i < ph.size(); ++i)
      if (ph[i].type == PT_LOAD) last_load = i;
    ph.insert(ph.begin() + static_cast<std::ptrdiff_t>(last_load + 1), load);
    if (ph.size() > 0xfffe) return Error("too many program headers");
    std::vector<uint8_t> table(ph.size() * kPhdr);
    for (size_t i = 0; i < ph.size(); ++i) {
      const size_t at = i * kPhdr;
      put32(table, at, ph[i].type);
      put32(table, at + 4, ph[i].flags);
      put64(table, at + 8, ph[i].offset);
      put64(table, at + 16, ph[i].vaddr);
      put64(table, at + 24, ph[i].paddr);
      put64(table, at + 32, ph[i].filesz);
      put64(table, at + 40, ph[i].memsz);
      put64(table, at + 48, ph[i].align);
    }
    plan_.tail_offset = seg_off;
    P.push_back(patch16(0x38, static_cast<uint16_t>(ph.size())));
    // Section headers: what moved gets its new place, and the table is
    // sorted by file offset again (the moved sections last), because
    // objcopy and strip lay a file out in section order and would move a
    // section that sits out of order; every section index in the file is
    // renumbered to match (sh_link, sh_info of relocation and SHF_INFO_LINK sections,
    // e_shstrndx, st_shndx of .dynsym and .symtab).
    if (!sh_.empty()) {
      std::vector<std::vector<uint8_t>> raw;
      for (const auto& sh : sh_) raw.emplace_back(d_.begin() + static_cast<std::ptrdiff_t>(sh.at),
                                                  d_.begin() + static_cast<std::ptrdiff_t>(sh.at + kShdr));
      for (size_t i = 0; i < sh_.size(); ++i) {
        const Shdr& sh = sh_[i];
        if (new_strtab && sh.type == SHT_STRTAB && sh.offset == strtab_off_ && sh.size == dynstr_.size()) {
          put64(raw[i], 16, dynstr_vaddr);
          put64(raw[i], 24, seg_off + dynstr_at);
          put64(raw[i], 32, dynstr_size);
        }
        if (move_dyn && sh.type == SHT_DYNAMIC) {
          put64(raw[i], 16, new_vaddr_base + dyn_at);
          put64(raw[i], 24, seg_off + dyn_at);
          put64(raw[i], 32, dyn_slots * kDyn);
        }
        if (std::find(movers.begin(), movers.end(), i) != movers.end() &&
            !(new_strtab && sh.type == SHT_STRTAB && sh.offset == strtab_off_)) {
          put64(raw[i], 16, sh.addr + delta_vaddr);
          put64(raw[i], 24, sh.offset + delta_off);
        }
      }
      auto off_of = [&](size_t i) {
        uint64_t o = 0;
        std::memcpy(&o, raw[i].data() + 24, 8);
        return o;
      };
      std::vector<size_t> order(sh_.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin() + 1, order.end(), [&](size_t x, size_t y) { return off_of(x) < off_of(y); });
      std::vector<uint32_t> new_index(sh_.size());
      for (size_t k = 0; k < order.size(); ++k) new_index[order[k]] = static_cast<uint32_t>(k);
      bool renumber = false;
      for (size_t k = 0; k < order.size(); ++k) renumber |= order[k] != k;
      bool xindex = false;
      for (const auto& sh : sh_) xindex |= sh.type == 18;  // SHT_SYMTAB_SHNDX: indices elsewhere; keep the order
      if (xindex) renumber = false;
      auto remap = [&](uint32_t i) { return i < new_index.size() ? new_index[i] : i; };
      std::vector<uint8_t> table(sh_.size() * kShdr);
      for (size_t k = 0; k < order.size(); ++k) {
        std::vector<uint8_t> h = raw[renumber ? order[k] : k];
        if (renumber) {
          uint32_t link = 0, info = 0;
          uint64_t flags = 0;
          std::memcpy(&link, h.data() + 40, 4);
          std::memcpy(&info, h.data() + 44, 4);
          std::memcpy(&flags, h.data() + 8, 8);
          uint32_t type = 0;
          std::memcpy(&type, h.data() + 4, 4);
          put32(h, 40, remap(link));
          // sh_info is a section index for SHT_REL and SHT_RELA (gABI: the
          // section the relocations apply to; older linkers leave
          // SHF_INFO_LINK unset) and wherever SHF_INFO_LINK says so.
          if ((flags & 0x40) || ((type == 4 || type == 9) && info != 0)) put32(h, 44, remap(info));
        }
        std::memcpy(table.data() + k * kShdr, h.data(), kShdr);
      }
      P.push_back({shoff_, table});
      // How far each moved section's addresses moved, by its old index.
      std::map<uint16_t, uint64_t> moved_by;
      for (size_t i = 0; i < sh_.size() && i < 0xff00; ++i) {
        const Shdr& sh = sh_[i];
        if (new_strtab && sh.type == SHT_STRTAB && sh.offset == strtab_off_ && sh.size == dynstr_.size())
          moved_by[static_cast<uint16_t>(i)] = dynstr_vaddr - sh.addr;
        else if (move_dyn && sh.type == SHT_DYNAMIC)
          moved_by[static_cast<uint16_t>(i)] = new_vaddr_base + dyn_at - sh.addr;
        else if (std::find(movers.begin(), movers.end(), i) != movers.end())
          moved_by[static_cast<uint16_t>(i)] = delta_vaddr;
      }
      if (renumber || !moved_by.empty()) {
        uint16_t shstrndx = 0;
        get(0x3e, shstrndx);
        if (renumber && shstrndx && shstrndx < 0xff00)
          P.push_back(patch16(0x3e, static_cast<uint16_t>(remap(shstrndx))));
        for (const auto& sh : sh_) {
          if (sh.type != SHT_DYNSYM && sh.type != 2 /*SHT_SYMTAB*/) continue;
          if (!in_bounds(d_.size(), sh.offset, sh.size)) continue;
          for (uint64_t at = sh.offset; at + kSym <= sh.offset + sh.size; at += kSym) {
            uint16_t shndx = 0;
            get(at + 6, shndx);
            if (renumber && shndx != 0 && shndx < 0xff00 && remap(shndx) != shndx)
              P.push_back(patch16(at + 6, static_cast<uint16_t>(remap(shndx))));
            // A symbol in a section that moved (section symbols, _DYNAMIC)
            // moves with it.
            if (auto it = moved_by.find(shndx); it != moved_by.end()) {
              uint64_t value = 0;
              get(at + 8, value);
              std::vector<uint8_t> b(8);
              put64(b, 0, value + it->second);
              P.push_back({at + 8, b});
            }
          }
        }
      }
    }
    // Patches of bytes that moved apply to their copy in the block; then the
    // grown program header table goes over the block's old place.
    for (size_t k = 0, n = P.size(); k < n; ++k) {
      const ElfPatch& pt = P[k];
      if (pt.offset >= lo && pt.offset + pt.bytes.size() <= hi)
        std::memcpy(t.data() + block_at + (pt.offset - lo), pt.bytes.data(), pt.bytes.size());
    }
    P.push_back({phoff_, table});
    plan_.result.appended = true;
    plan_.result.size = seg_off + seg_size;
    plan_.result.changes.push_back("new PT_LOAD at " + hex(seg_off) + " (vaddr " + hex(new_vaddr_base) + ", " +
                                   std::to_string(seg_size) + " bytes): " + std::to_string(movers.size()) +
                                   " section(s) moved from after the program headers" + (new_strtab ? ", .dynstr" : "") +
                                   (move_dyn ? ", .dynamic" : ""));
    return Ok{};
  }

  // The old string at `off` may be overwritten with `value` when it is long
  // enough and every other reference whose span meets its bytes is itself
  // being rewritten to the same value from the same offset.
  bool can_overwrite(uint64_t off, const std::string& value, const std::vector<std::pair<uint64_t, uint64_t>>& spans,
                     const auto& wants) const {
    if (overwritten_.count(off)) return false;
    auto old = str_at(off);
    if (!old || value.size() > old->size()) return false;
    const uint64_t end = off + old->size();
    size_t users = 0;  // references that point exactly here
    for (const auto& [s, e] : spans) {
      if (e < off || s > end) continue;  // disjoint
      if (s != off) return false;       // shares bytes (a suffix-merged string)
      ++users;
    }
    size_t rewritten = 0;
    for (const auto& w : wants)
      if (w.old == off) {
        if (w.value != value) return false;
        rewritten += w.fields.empty() ? 1 : w.fields.size();
      }
    // Every user of these bytes must be among the rewritten ones. The
    // spans count each original dynamic entry and each reference once.
    return users <= rewritten;
  }

  uint64_t page() const {
    uint64_t p = 0x1000;
    for (const auto& h : ph_)
      if (h.type == PT_LOAD) p = std::max(p, h.align);
    if (machine_ == EM_AARCH64 || machine_ == EM_PPC64) p = std::max<uint64_t>(p, 0x10000);
    return p;
  }
  // One page past the last segment: a gap, so that nothing read past the
  // end of the writable segment (eu-elflint's relocation check adds the
  // symbol's size) lands in the new read-only one.
  uint64_t next_vaddr() const {
    uint64_t end = 0;
    for (const auto& h : ph_)
      if (h.type == PT_LOAD) end = std::max(end, h.vaddr + h.memsz);
    return align_up(end, page()) + page();
  }

  ByteView d_;
  const ElfEdits& e_;
  ElfEditPlan plan_;
  uint16_t machine_ = 0;
  uint64_t phoff_ = 0, shoff_ = 0;
  std::vector<Phdr> ph_;
  std::vector<Shdr> sh_;
  uint64_t dyn_off_ = 0, dyn_cap_ = 0;
  std::vector<Dyn> dyn_, orig_;
  uint64_t strtab_vaddr_ = 0, strtab_off_ = 0;
  ByteView dynstr_;
  std::vector<StrRef> refs_;
  std::vector<Verneed> verneed_;
  uint64_t verneed_vaddr_ = 0;
  uint64_t nsyms_ = 0;
  std::optional<uint64_t> versym_off_;
  std::map<uint64_t, std::string> vn_file_new_;  // Elf64_Verneed offset -> new file name
  std::vector<size_t> removed_verneed_;
  std::vector<std::pair<uint64_t, uint32_t>> vn_field_;
  std::set<uint64_t> overwritten_;
  // Version records read, bounded: a hostile table of self-overlapping
  // entries must not take quadratic time.
  static constexpr uint64_t kMaxVersionRecords = 1u << 20;
  uint64_t records_ = 0;
};

}  // namespace

Expected<ElfEditPlan> plan_elf_edit(ByteView file, const ElfEdits& edits) { return Editor(file, edits).run(); }

std::vector<uint8_t> apply_elf_edit(ByteView file, const ElfEditPlan& plan) {
  std::vector<uint8_t> out(file.begin(), file.end());
  for (const auto& p : plan.patches)
    if (p.offset + p.bytes.size() <= out.size()) std::memcpy(out.data() + p.offset, p.bytes.data(), p.bytes.size());
  if (!plan.tail.empty()) {
    out.resize(plan.tail_offset, 0);
    out.insert(out.end(), plan.tail.begin(), plan.tail.end());
  }
  return out;
}

Expected<ElfEditResult> edit_elf_file(const std::string& in, const std::string& out, const ElfEdits& edits) {
  auto blob = Blob::map_file(in);
  if (!blob) return blob.error();
  auto plan = plan_elf_edit(blob->view(), edits);
  if (!plan) return plan.error().context(in);
  struct stat st{}, ost{};
  if (::stat(in.c_str(), &st) != 0) return Error(in + ": stat: " + std::strerror(errno));
  if (::stat(out.c_str(), &ost) == 0 && ost.st_dev == st.st_dev && ost.st_ino == st.st_ino)
    return Error(out + ": is the input; the input is never written");
  int src = ::open(in.c_str(), O_RDONLY | O_CLOEXEC);
  if (src < 0) return Error(in + ": open: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{src};
  auto dst = AtomicFile::create(out, st.st_mode & 07777);
  if (!dst) return dst.error();
  const std::string& tmp = dst->temp_path();
  // The unchanged bytes, by the kernel where it can; then the patches and
  // the new segment. Any failure leaves no file behind (~AtomicFile).
  if (auto s = copy_file_bytes(src, 0, dst->fd(), 0, static_cast<uint64_t>(st.st_size), in); !s) return s.error();
  for (const auto& p : plan->patches)
    if (auto s = pwrite_all(dst->fd(), p.offset, p.bytes.data(), p.bytes.size(), tmp); !s) return s.error();
  if (!plan->tail.empty()) {
    if (::ftruncate(dst->fd(), static_cast<off_t>(plan->tail_offset)) != 0)
      return Error(tmp + ": ftruncate: " + std::strerror(errno));
    if (auto s = pwrite_all(dst->fd(), plan->tail_offset, plan->tail.data(), plan->tail.size(), tmp); !s)
      return s.error();
  }
  if (auto s = dst->commit(); !s) return s.error();
  return plan->result;
}

}  // namespace cuwheel::repair
