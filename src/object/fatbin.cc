// Fat binary reader. See include/cuwheel/object/fatbin.h; section numbers refer to
// the project's fatbin format notes.
#include "cuwheel/object/fatbin.h"

#include <lz4.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>


#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

namespace cuwheel::fatbin {

Compression Entry::compression() const {
  if (flags & kFlagZstd) return Compression::zstd;
  if (flags & kFlagLz4) return Compression::lz4;
  if (flags & kFlagCompressLegacy) return Compression::legacy;
  return Compression::none;
}

std::string Entry::arch_name() const {
  std::string s = "sm_" + std::to_string(arch);
  if (arch_a()) s += "a";
  else if (arch_f()) s += "f";
  return s;
}

std::string kind_name(uint16_t kind) {
  switch (kind) {
    case kPtx: return "ptx";
    case kElf: return "elf";
    case kOldCubin: return "old-cubin";
    case kLtoIr: return "ltoir";
    case kMercury: return "mercury";
    case kIndex: return "index";
    case kRelocatablePtx: return "relocatable-ptx";
    case kTileIr: return "tile-ir";
    case kConcatenated: return "concatenated";
    default: return "kind-" + hex(kind);
  }
}

namespace {

// Reads the 64-byte entry header at data[pos] (section 3). `limit` is the
// end of the enclosing container inside `data`.
Expected<Entry> parse_entry(ByteView data, uint64_t pos, uint64_t limit, uint64_t base) {
  const std::string where = "entry at " + hex(base + pos);
  if (!in_bounds(limit, pos, kEntryHeaderSize))
    return Error(where + ": 64-byte header extends past the end of the container (" + hex(base + limit) + ")");
  Entry e;
  e.offset = base + pos;
  Cursor c(data, pos);
  e.kind = c.read<uint16_t>();
  e.version = c.read<uint16_t>();
  e.header_size = c.read<uint32_t>();
  e.payload_size = c.read<uint64_t>();
  e.compressed_size = c.read<uint32_t>();
  e.options_offset = c.read<uint32_t>();
  e.code_minor = c.read<uint16_t>();
  e.code_major = c.read<uint16_t>();
  e.arch = c.read<uint32_t>();
  e.ident_offset = c.read<uint32_t>();
  e.ident_size = c.read<uint32_t>();
  e.flags = c.read<uint64_t>();
  e.okey = c.read<uint64_t>();
  e.uncompressed_size = c.read<uint64_t>();
  if (!c.ok()) return Error(where + ": truncated header");
  if (e.header_size < kEntryHeaderSize)
    return Error(where + ": header_size " + hex(e.header_size) + " is smaller than 0x40");
  uint64_t payload_start, payload_end;
  if (add_overflow(pos, e.header_size, payload_start) || payload_start > limit)
    return Error(where + ": header_size " + hex(e.header_size) + " extends past the end of the container (" + hex(base + limit) + ")");
  if (add_overflow(payload_start, e.payload_size, payload_end) || payload_end > limit)
    return Error(where + ": payload of " + hex(e.payload_size) + " bytes at " + hex(base + payload_start) +
                 " extends past the end of the container (" + hex(base + limit) + ")");
  ByteView header = data.subspan(static_cast<size_t>(pos), e.header_size);
  if (e.ident_offset != 0) {
    auto s = slice(header, e.ident_offset, e.ident_size);
    if (!s || e.ident_offset < kEntryHeaderSize)
      return Error(where + ": identifier (" + std::to_string(e.ident_size) + " bytes at +" + hex(e.ident_offset) +
                   ") lies outside the entry header (" + hex(e.header_size) + " bytes)");
    e.identifier.assign(reinterpret_cast<const char*>(s->data()), s->size());
    // Producers may count a trailing NUL; names never contain one.
    auto nul = e.identifier.find('\0');
    if (nul != std::string::npos) e.identifier.resize(nul);
  }
  if (e.options_offset != 0) {
    uint32_t ooff = 0, olen = 0;
    if (e.options_offset < kEntryHeaderSize || !load_le(header, e.options_offset, ooff) ||
        !load_le(header, uint64_t(e.options_offset) + 4, olen))
      return Error(where + ": ptxas-options descriptor at +" + hex(e.options_offset) + " lies outside the entry header");
    if (olen) {
      // The descriptor's offset is relative to the descriptor itself in
      // observed files; accept either that or an entry-relative offset.
      auto s = slice(header, uint64_t(e.options_offset) + ooff, olen);
      if (!s) s = slice(header, ooff, olen);
      if (!s) return Error(where + ": ptxas options (" + std::to_string(olen) + " bytes) lie outside the entry header");
      e.ptxas_options.assign(reinterpret_cast<const char*>(s->data()), s->size());
      auto nul = e.ptxas_options.find('\0');
      if (nul != std::string::npos) e.ptxas_options.resize(nul);
    }
  }
  uint64_t stored = e.payload_size;
  if (e.compression() != Compression::none && e.compressed_size != 0) {
    if (e.compressed_size > e.payload_size)
      return Error(where + ": compressed size " + hex(e.compressed_size) + " exceeds the stored payload size " + hex(e.payload_size));
    stored = e.compressed_size;
  }
  e.stored = data.subspan(static_cast<size_t>(payload_start), static_cast<size_t>(stored));
  return e;
}

}  // namespace

Expected<Container> parse_container(ByteView data, uint64_t pos, uint64_t base) {
  const std::string where = "fatbin container at " + hex(base + pos);
  uint32_t magic = 0;
  uint16_t version = 0, hsize = 0;
  uint64_t fat_size = 0;
  if (!load_le(data, pos, magic) || !load_le(data, pos + 4, version) || !load_le(data, pos + 6, hsize) ||
      !load_le(data, pos + 8, fat_size))
    return Error(where + ": truncated header (" + std::to_string(data.size() > pos ? data.size() - pos : 0) + " bytes left)");
  if (magic != kContainerMagic) return Error(where + ": bad magic " + hex(magic) + " (expected 0xba55ed50)");
  if (hsize < kContainerHeaderSize)
    return Error(where + ": header size " + hex(hsize) + " is smaller than 0x10");
  uint64_t first, end;
  if (add_overflow(pos, hsize, first) || add_overflow(first, fat_size, end) || end > data.size())
    return Error(where + ": fat_size " + hex(fat_size) + " extends past the end of the data (" + hex(base + data.size()) + ")");
  Container c;
  c.offset = base + pos;
  c.fat_size = fat_size;
  uint64_t p = first;
  while (p < end) {
    if (end - p < kEntryHeaderSize) {
      // Trailing padding shorter than a header: only zeros are acceptable.
      bool zeros = std::all_of(data.begin() + p, data.begin() + end, [](uint8_t b) { return b == 0; });
      if (zeros) break;
    }
    auto e = parse_entry(data, p, end, base);
    if (!e) return e.error().context(where);
    p += e->header_size + e->payload_size;  // no overflow: checked in parse_entry
    c.entries.push_back(std::move(*e));
  }
  return c;
}

Expected<std::vector<Container>> parse_region(ByteView region, uint64_t base, std::vector<Container>* partial,
                                              const RegionHooks* hooks) {
  std::vector<Container> out;
  uint64_t p = 0;
  while (p < region.size()) {
    // Skip zero padding between containers (alignment to 8 bytes).
    uint32_t word = 0;
    if (!load_le(region, p, word) || word == 0) {
      uint64_t q = p;
      while (q < region.size() && region[q] == 0) ++q;
      if (q >= region.size()) break;
      // Fewer than 4 bytes left and not all zero: parse_container reports
      // the truncated header (looping here would never advance).
      if (q > p) {
        p = q;
        continue;
      }
    }
    if (hooks && hooks->known && hooks->known(base + p)) {
      // Already read through a wrapper: step over it by its header alone,
      // so a large section is not touched twice.
      uint16_t hsize = 0;
      uint64_t fat_size = 0, next;
      if (load_le(region, p + 6, hsize) && load_le(region, p + 8, fat_size) && hsize >= kContainerHeaderSize &&
          !add_overflow(p + hsize, fat_size, next) && next <= region.size()) {
        if (hooks->parsed) hooks->parsed(region.subspan(p, next - p));
        p = next;
        continue;
      }
    }
    auto c = parse_container(region, p, base);
    if (!c) {
      if (partial) *partial = out;
      return c.error();
    }
    p = c->end() - base;
    if (hooks && hooks->parsed) hooks->parsed(region.subspan(c->offset - base, c->end() - c->offset));
    out.push_back(std::move(*c));
  }
  return out;
}

std::vector<Container> scan(ByteView bytes, uint64_t base) {
  std::vector<Container> out;
  static const uint8_t magic[4] = {0x50, 0xED, 0x55, 0xBA};
  uint64_t p = 0;
  while (p + kContainerHeaderSize <= bytes.size()) {
    // The magic's last byte (0xBA) is rare in code and data, and memchr is
    // the fastest vectorised search glibc has (several times glibc's
    // memmem for a 4-byte needle, which dominated listing libcublasLt's
    // 400 MB of data sections): find it, then compare the other three.
    uint64_t hit = UINT64_MAX;
    for (uint64_t q = p + 3; q < bytes.size();) {
      const void* it = memchr(bytes.data() + q, magic[3], bytes.size() - q);
      if (!it) break;
      q = static_cast<uint64_t>(static_cast<const uint8_t*>(it) - bytes.data());
      if (std::memcmp(bytes.data() + q - 3, magic, 3) == 0) {
        hit = q - 3;
        break;
      }
      ++q;
    }
    if (hit == UINT64_MAX) break;
    uint16_t version = 0, hsize = 0;
    load_le(bytes, hit + 4, version);
    load_le(bytes, hit + 6, hsize);
    bool ok = version == 1 && hsize == kContainerHeaderSize;
    if (ok) {
      auto c = parse_container(bytes, hit, base);
      if (c && !c->entries.empty()) {
        const Entry& e = c->entries.front();
        bool known = e.kind == kPtx || e.kind == kElf || e.kind == kLtoIr || e.kind == kOldCubin;
        if (known && e.version == 0x0101) {
          p = c->end() - base;
          out.push_back(std::move(*c));
          continue;
        }
      }
    }
    p = hit + 1;
  }
  return out;
}

namespace {

constexpr uint64_t kShfAlloc = 0x2, kShfExecInstr = 0x4;  // gABI sh_flags

Origin origin_of(const std::string& name) {
  if (name == ".nv_fatbin" || name == "__nv_fatbin" || name == "__fatbin") return Origin::executable;
  if (name == "__nv_relfatbin") return Origin::relocatable;
  return Origin::other;
}

}  // namespace

Expected<std::vector<Located>> find_in_elf(const elf::File& f, WarningSink* warnings,
                                           std::optional<Error>* stopped,
                                           const std::function<void(ByteView)>& parsed, bool data_sections) {
  std::vector<Located> out;
  ByteView d = f.data();
  const auto& secs = f.sections();
  std::map<uint64_t, bool> seen;  // container file offset -> referenced

  // 1. Wrapper records (section 1.4).
  const uint64_t rec = f.is64() ? 24 : 16;
  std::vector<elf::Symbol> symtab;
  bool symtab_loaded = false;
  for (uint32_t si = 0; si < secs.size(); ++si) {
    const auto& s = secs[si];
    if (s.name != ".nvFatBinSegment") continue;
    auto sd = f.section_data(s);
    if (!sd) return sd.error();
    std::vector<elf::Relocation> rels;
    if (f.type() == elf::ET_REL) {
      auto r = f.relocations_for(si);
      if (!r) return r.error().context(".nvFatBinSegment relocations");
      rels = std::move(*r);
    } else if (s.addr != 0) {
      auto r = f.dynamic_relocations_in(s.addr, s.addr + s.size, parsed);
      if (!r) return r.error().context("dynamic relocations");
      rels = std::move(*r);
    }
    for (uint64_t off = 0; off + rec <= sd->size(); off += rec) {
      const std::string where = ".nvFatBinSegment record at " + hex(s.offset + off);
      uint32_t magic = 0, version = 0;
      load_le(*sd, off, magic);
      load_le(*sd, off + 4, version);
      if (magic != kWrapperMagic) {
        if (warnings) warnings->warn(where + ": bad magic " + hex(magic) + "; skipped");
        continue;
      }
      uint64_t word = 0;
      if (f.is64()) load_le(*sd, off + 8, word);
      else { uint32_t w = 0; load_le(*sd, off + 8, w); word = w; }
      std::optional<uint64_t> target;  // file offset
      if (f.type() == elf::ET_REL) {
        for (const auto& r : rels) {
          if (r.offset != off + 8) continue;
          if (!symtab_loaded) {
            auto st = f.static_symbols();
            if (!st) return st.error().context(".symtab");
            symtab = std::move(*st);
            symtab_loaded = true;
          }
          if (r.symbol >= symtab.size()) break;
          const auto& sym = symtab[r.symbol];
          if (sym.shndx == 0 || sym.shndx >= secs.size()) break;
          const auto& ts = secs[sym.shndx];
          // S + A (+ the REL implicit addend) is modular ELF arithmetic: do it
          // unsigned, so a hostile value wraps (and then fails the check).
          uint64_t rel = sym.value + static_cast<uint64_t>(r.addend) + (f.is64() ? 0 : word);
          if (rel >= ts.size) break;
          target = ts.offset + rel;
          break;
        }
      } else {
        uint64_t addr = word;
        const uint64_t where_addr = s.addr + off + 8;
        for (const auto& r : rels) {
          if (r.offset != where_addr) continue;
          if (f.is_relative_reloc(r.type)) {
            if (addr == 0) addr = static_cast<uint64_t>(r.addend);
          } else if (f.is_absolute_reloc(r.type) && r.symbol != 0) {
            addr = 0;  // symbolic pointer: cuobjdump reads it as 0 and skips it
          }
        }
        if (addr != 0) {
          auto o = f.vaddr_to_offset(addr);
          if (!o) {
            if (warnings) warnings->warn(where + ": data pointer " + hex(addr) + " is not in any loaded segment; skipped");
            continue;
          }
          target = *o;
        }
      }
      if (!target) {
        if (warnings) warnings->warn(where + ": data pointer is unresolved (symbolic or null); skipped");
        continue;
      }
      // Version 2 wrappers (nvcc 13 writes them) also point at a list of
      // prelinked fatbins; cuobjdump lists only the `data` container, and the
      // section walk below still finds every container in the section.
      (void)version;
      // Bound the container by the section that holds it.
      const elf::Section* holder = nullptr;
      for (const auto& h : secs)
        if (h.type != elf::SHT_NOBITS && *target >= h.offset && *target - h.offset < h.size) {
          holder = &h;
          break;
        }
      ByteView region = d;
      uint64_t base = 0;
      if (holder) {
        auto hd = f.section_data(*holder);
        if (!hd) return hd.error();
        region = *hd;
        base = holder->offset;
      }
      auto c = *target < d.size()
                   ? parse_container(region, *target - base, base)
                   : Expected<Container>(Error("data pointer leads to " + hex(*target) + ", outside the file"));
      if (!c) {
        Error err = c.error().context(where + " -> " + (holder ? holder->name : std::string("file")));
        if (!stopped) return err;
        *stopped = err;
        return out;
      }
      if (parsed) parsed(d.subspan(c->offset, c->end() - c->offset));
      if (seen.count(c->offset)) continue;  // two wrappers, one container
      seen[c->offset] = true;
      Located l;
      l.section = holder ? holder->name : "";
      l.origin = origin_of(l.section);
      l.via_wrapper = true;
      l.container = std::move(*c);
      out.push_back(std::move(l));
    }
  }

  // 2. Section walk: containers no wrapper references.
  bool any_section = false;
  for (const auto& s : secs) {
    Origin o = origin_of(s.name);
    if (o == Origin::other || s.type == elf::SHT_NOBITS) continue;
    any_section = true;
    if (s.flags & elf::SHF_COMPRESSED) {
      if (warnings) warnings->warn(s.name + " is SHF_COMPRESSED; not read");
      continue;
    }
    auto sd = f.section_data(s);
    if (!sd) return sd.error();
    std::vector<Container> partial;
    RegionHooks hooks;
    hooks.known = [&seen](uint64_t off) { return seen.count(off) != 0; };
    hooks.parsed = parsed;
    auto cs = parse_region(*sd, s.offset, &partial, &hooks);
    if (!cs) {
      if (warnings) warnings->warn(s.name + ": " + cs.error().message());
      cs = std::move(partial);
    }
    for (auto& c : *cs) {
      if (seen.count(c.offset)) continue;
      seen[c.offset] = false;
      if (warnings && f.type() != elf::ET_REL)
        warnings->warn(s.name + ": container at " + hex(c.offset) + " is not referenced by any .nvFatBinSegment record");
      Located l;
      l.section = s.name;
      l.origin = o;
      l.container = std::move(c);
      out.push_back(std::move(l));
    }
  }

  // 3. Other allocated data sections (.ldata, .rodata, .data, ...): a
  // library may keep containers there and load them itself. Only the
  // strict scan counts, as for files without section headers.
  for (const auto& s : secs) {
    if (!data_sections) break;
    if (origin_of(s.name) != Origin::other || s.type != elf::SHT_PROGBITS) continue;
    if (!(s.flags & kShfAlloc) || (s.flags & kShfExecInstr) || (s.flags & elf::SHF_COMPRESSED)) continue;
    if (s.size < kContainerHeaderSize || !in_bounds(d.size(), s.offset, s.size)) continue;
    for (auto& c : scan(d.subspan(s.offset, s.size), s.offset)) {
      if (seen.count(c.offset)) continue;
      seen[c.offset] = false;
      if (parsed) parsed(d.subspan(c.offset, c.end() - c.offset));
      Located l;
      l.section = s.name;
      l.origin = Origin::data;
      l.container = std::move(c);
      out.push_back(std::move(l));
    }
  }

  // 4. No section headers: scan loaded segments (section 1.6).
  if (!f.has_section_headers() && !any_section) {
    for (const auto& p : f.segments()) {
      if (p.type != elf::PT_LOAD || !in_bounds(d.size(), p.offset, p.filesz)) continue;
      for (auto& c : scan(d.subspan(p.offset, p.filesz), p.offset)) {
        if (seen.count(c.offset)) continue;
        seen[c.offset] = false;
        Located l;
        l.origin = Origin::other;
        l.container = std::move(c);
        out.push_back(std::move(l));
      }
    }
  }
  return out;
}

namespace {
// A raw LZ4 block of n bytes decodes to at most about 255 n bytes.
uint64_t lz4_expansion_bound(uint64_t stored) { return stored * 256 + 64; }
constexpr uint64_t kDefaultMaxOutput = 1ull << 30;  // decode()'s default max_output
}  // namespace

uint64_t decode_bound(const Entry& e) {
  if (e.uncompressed_size > kDefaultMaxOutput) return 0;
  switch (e.compression()) {
    case Compression::lz4: return std::min<uint64_t>(e.uncompressed_size, lz4_expansion_bound(e.stored.size()));
    case Compression::zstd: return e.uncompressed_size;
    default: return 0;
  }
}

namespace {

// One ZSTD decompression context per thread, reused for every entry: a
// fresh context allocates its workspace (and, when streaming, a window
// buffer) each time, which for thousands of entries is mostly page faults.
ZSTD_DCtx* thread_dctx() {
  struct Holder {
    ZSTD_DCtx* ctx = ZSTD_createDCtx();
    ~Holder() { ZSTD_freeDCtx(ctx); }
  };
  thread_local Holder h;
  if (h.ctx) ZSTD_DCtx_reset(h.ctx, ZSTD_reset_session_and_parameters);
  return h.ctx;
}

// The checks every ZSTD payload gets before a byte is decoded, in this
// order: the declared size within the limit, a ZSTD frame, and a frame
// content size (when the frame records one) equal to the entry header's.
// Returns the thread's context, reset.
Expected<ZSTD_DCtx*> zstd_prologue(const Entry& e, const std::string& where, uint64_t max_output) {
  if (e.uncompressed_size > max_output)
    return Error(where + ": declared uncompressed size " + hex(e.uncompressed_size) + " exceeds the limit " + hex(max_output));
  unsigned long long declared = ZSTD_getFrameContentSize(e.stored.data(), e.stored.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR) return Error(where + ": not a ZSTD frame");
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != e.uncompressed_size)
    return Error(where + ": ZSTD frame declares " + hex(declared) + " bytes but the entry header says " + hex(e.uncompressed_size));
  ZSTD_DCtx* dctx = thread_dctx();
  if (!dctx) return Error("out of memory");
  return dctx;
}

// The size the data could plausibly hold (cubins compress about 10-60x): a
// payload that declares more is decoded in steps, so a lying header costs
// only what the data really decodes to.
uint64_t zstd_plausible_size(const Entry& e) { return std::max<uint64_t>(1u << 20, uint64_t(e.stored.size()) * 256); }

}  // namespace

uint8_t* DecodeBuffer::reserve(size_t n) {
  if (size_ < n) {
    data_.reset();
    size_ = 0;
    data_.reset(new uint8_t[n]);  // default-initialised: not cleared
    size_ = n;
  }
  return data_.get();
}

uint8_t* DecodeBuffer::grow(size_t n, size_t keep) {
  if (size_ >= n) return data_.get();
  std::unique_ptr<uint8_t[]> bigger(new uint8_t[n]);
  if (keep) std::memcpy(bigger.get(), data_.get(), std::min(keep, size_));
  data_ = std::move(bigger);
  size_ = n;
  return data_.get();
}

void DecodeBuffer::trim(size_t max_kept) {
  if (size_ > max_kept) {
    data_.reset();
    size_ = 0;
  }
}

Expected<ByteView> decode_into(const Entry& e, DecodeBuffer& buffer, uint64_t max_output) {
  const std::string where = "entry at " + hex(e.offset);
  switch (e.compression()) {
    case Compression::none:
      return e.stored;
    case Compression::legacy:
      return Error(where + ": legacy compression (flag 0x1000) is not supported");
    case Compression::lz4: {
      uint64_t cap = std::min<uint64_t>(e.uncompressed_size, max_output);
      if (e.uncompressed_size > max_output)
        return Error(where + ": declared uncompressed size " + hex(e.uncompressed_size) + " exceeds the limit " + hex(max_output));
      if (e.stored.size() > INT32_MAX || cap > INT32_MAX) return Error(where + ": LZ4 block too large");
      // An LZ4 block expands at most ~255 times (one length byte adds at
      // most 255 output bytes), so a declared size beyond that is a lie:
      // allocate for what the stored bytes can produce, not for the header.
      const uint64_t room = std::min<uint64_t>(cap, lz4_expansion_bound(e.stored.size()));
      uint8_t* out = buffer.reserve(static_cast<size_t>(room));
      int n = LZ4_decompress_safe(reinterpret_cast<const char*>(e.stored.data()), reinterpret_cast<char*>(out),
                                  static_cast<int>(e.stored.size()), static_cast<int>(room));
      if (n < 0) return Error(where + ": LZ4 block is corrupt or larger than the declared size " + hex(cap));
      return ByteView(out, static_cast<size_t>(n));
    }
    case Compression::zstd: {
      const uint64_t cap = e.uncompressed_size;
      auto ctx = zstd_prologue(e, where, max_output);
      if (!ctx) return ctx.error();
      ZSTD_DCtx* dctx = *ctx;
      const unsigned long long declared = ZSTD_getFrameContentSize(e.stored.data(), e.stored.size());
      const uint64_t plausible = zstd_plausible_size(e);
      // The common case, a frame that declares its plausible size: one call
      // straight into the buffer (no window buffer). Anything unusual
      // (several frames, a size that does not match, corruption) is decoded
      // again in steps, which gives the precise error.
      if (declared == cap && cap <= plausible) {
        size_t frame = ZSTD_findFrameCompressedSize(e.stored.data(), e.stored.size());
        if (!ZSTD_isError(frame)) {
          uint8_t* out = buffer.reserve(static_cast<size_t>(cap));
          size_t r = ZSTD_decompressDCtx(dctx, out, static_cast<size_t>(cap), e.stored.data(), frame);
          if (!ZSTD_isError(r) && r == cap) return ByteView(out, r);
          ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
        }
      }
      // Decode in steps, growing the buffer as output arrives (up to cap).
      // Output room of this call: the buffer may be larger from an earlier
      // entry, but never beyond what this entry may produce.
      size_t room = static_cast<size_t>(std::min<uint64_t>(cap, plausible));
      uint8_t* out = buffer.reserve(room);
      ZSTD_inBuffer in{e.stored.data(), e.stored.size(), 0};
      size_t produced = 0;
      for (;;) {
        ZSTD_outBuffer ob{out, room, produced};
        const size_t in_before = in.pos;
        size_t r = ZSTD_decompressStream(dctx, &ob, &in);
        const bool progress = ob.pos != produced || in.pos != in_before;
        produced = ob.pos;
        if (ZSTD_isError(r)) return Error(where + ": ZSTD frame: " + ZSTD_getErrorName(r));
        if (r == 0) break;  // frame complete
        if (produced == room) {
          if (room >= cap) return Error(where + ": ZSTD frame decodes to more than the declared size " + hex(cap));
          room = static_cast<size_t>(std::min<uint64_t>(cap, uint64_t(room) * 2));
          out = buffer.grow(room, produced);
        } else if (in.pos == in.size || !progress) {
          return Error(where + ": ZSTD frame: truncated (decoded " + hex(produced) + " bytes)");
        }
      }
      return ByteView(out, produced);
    }
  }
  return Error(where + ": unknown compression");
}

namespace {
// Where decoded bytes that are not kept go, one per thread.
std::vector<uint8_t>& discard_buffer() {
  thread_local std::vector<uint8_t> step;
  step.resize(1u << 20);
  return step;
}
}  // namespace

Expected<ByteView> decode_head(const Entry& e, DecodeBuffer& buffer, uint64_t keep, uint64_t max_output) {
  if (e.compression() != Compression::zstd) return decode_into(e, buffer, max_output);
  // decode_into()'s ZSTD case, step for step, with the output past `keep`
  // dropped: the same checks in the same order, the same errors.
  const std::string where = "entry at " + hex(e.offset);
  const uint64_t cap = e.uncompressed_size;
  auto ctx = zstd_prologue(e, where, max_output);
  if (!ctx) return ctx.error();
  ZSTD_DCtx* dctx = *ctx;
  const uint64_t plausible = zstd_plausible_size(e);
  // decode_into() decodes in one call when it can, and again in steps when
  // that fails; both decode the same first frame, so decoding in steps
  // alone gives the same bytes or the same error. `room` is the buffer
  // decode_into() would have at this point; only `keep` bytes of it exist.
  keep = std::min(keep, cap);
  uint8_t* const head = buffer.reserve(static_cast<size_t>(std::max<uint64_t>(keep, 1)));
  std::vector<uint8_t>& sink = discard_buffer();
  uint64_t room = std::min<uint64_t>(cap, plausible);
  ZSTD_inBuffer in{e.stored.data(), e.stored.size(), 0};
  uint64_t produced = 0;
  for (;;) {
    uint8_t* dst;
    size_t len;
    if (produced < keep) {
      dst = head + produced;
      len = static_cast<size_t>(std::min(room, keep) - produced);
    } else {
      dst = sink.data();
      len = static_cast<size_t>(std::min<uint64_t>(room - produced, sink.size()));
    }
    ZSTD_outBuffer ob{dst, len, 0};
    const size_t in_before = in.pos;
    size_t r = ZSTD_decompressStream(dctx, &ob, &in);
    const bool progress = ob.pos != 0 || in.pos != in_before;
    produced += ob.pos;
    if (ZSTD_isError(r)) return Error(where + ": ZSTD frame: " + ZSTD_getErrorName(r));
    if (r == 0) break;  // frame complete
    if (produced == room) {
      if (room >= cap) return Error(where + ": ZSTD frame decodes to more than the declared size " + hex(cap));
      room = std::min<uint64_t>(cap, room * 2);
    } else if (ob.pos == len) {
      continue;  // this piece of the room is full: decode_into() would still be writing
    } else if (in.pos == in.size || !progress) {
      return Error(where + ": ZSTD frame: truncated (decoded " + hex(produced) + " bytes)");
    }
  }
  return ByteView(head, static_cast<size_t>(std::min(produced, keep)));
}

PartialBuffer::~PartialBuffer() {
  if (data_) munmap(data_, size_);
}

Expected<PartialImage> decode_partial(const Entry& e, PartialBuffer& buf, uint64_t prefix,
                                      const std::function<uint64_t(ByteView)>& tail_from, uint64_t max_output) {
  const std::string where = "entry at " + hex(e.offset);
  if (e.compression() != Compression::zstd) return Error(where + ": not a ZSTD payload");
  const uint64_t cap = e.uncompressed_size;
  auto ctx = zstd_prologue(e, where, max_output);
  if (!ctx) return ctx.error();
  if (cap == 0) return Error(where + ": ZSTD payload of 0 bytes");
  ZSTD_DCtx* dctx = *ctx;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // Give back what the last payload wrote past its prefix (its tail).
  if (buf.data_ && buf.dirty_to_ > buf.dirty_from_) {
    const uint64_t from = buf.dirty_from_ / page * page;
    madvise(buf.data_ + from, static_cast<size_t>(std::min<uint64_t>(buf.dirty_to_, buf.size_) - from), MADV_DONTNEED);
  }
  buf.dirty_from_ = buf.dirty_to_ = 0;
  if (buf.size_ < cap) {
    if (buf.data_) munmap(buf.data_, buf.size_);
    buf.data_ = nullptr;
    buf.size_ = 0;
    // Rounded up to 64 MiB, so that growing payloads do not remap each time.
    const uint64_t want = (cap + (64u << 20) - 1) / (64u << 20) * (64u << 20);
    void* m = mmap(nullptr, static_cast<size_t>(want), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return Error(where + ": cannot map " + hex(want) + " bytes for decoding");
    buf.data_ = static_cast<uint8_t*>(m);
    buf.size_ = static_cast<size_t>(want);
  }
  uint8_t* const out = buf.data_;
  prefix = std::min(prefix, cap);
  uint64_t tail = UINT64_MAX;  // known once the prefix is complete
  bool asked = false;
  auto ask = [&](uint64_t have) {
    if (asked) return;
    asked = true;
    tail = std::min(tail_from(ByteView(out, static_cast<size_t>(have))), cap);
    if (tail < prefix) tail = prefix;
  };
  thread_local std::vector<uint8_t> step;
  step.resize(1u << 20);
  ZSTD_inBuffer in{e.stored.data(), e.stored.size(), 0};
  uint64_t produced = 0;
  for (;;) {
    // The prefix is decoded straight into place; past it, through `step`,
    // keeping only what falls in [tail, cap).
    const bool in_prefix = produced < prefix;
    ZSTD_outBuffer ob = in_prefix ? ZSTD_outBuffer{out + produced, static_cast<size_t>(prefix - produced), 0}
                                  : ZSTD_outBuffer{step.data(), step.size(), 0};
    const size_t in_before = in.pos;
    size_t r = ZSTD_decompressStream(dctx, &ob, &in);
    if (ZSTD_isError(r)) return Error(where + ": ZSTD frame: " + ZSTD_getErrorName(r));
    if (ob.pos > cap - produced) return Error(where + ": ZSTD frame decodes to more than the declared size " + hex(cap));
    const uint64_t b = produced, en = produced + ob.pos;
    produced = en;
    if (produced >= prefix) ask(prefix);
    if (in_prefix) {
      if (r == 0) break;
      if (ob.pos == 0 && (in.pos == in.size || in.pos == in_before))
        return Error(where + ": ZSTD frame: truncated (decoded " + hex(produced) + " bytes)");
      continue;
    }
    if (asked && en > tail) {
      const uint64_t from = std::max(b, tail);
      std::memcpy(out + from, step.data() + (from - b), static_cast<size_t>(en - from));
      if (buf.dirty_to_ == 0) buf.dirty_from_ = from;
      buf.dirty_to_ = en;
    }
    if (r == 0) break;  // frame complete
    if (ob.pos == 0 && (in.pos == in.size || in.pos == in_before))
      return Error(where + ": ZSTD frame: truncated (decoded " + hex(produced) + " bytes)");
  }
  if (produced != cap)
    return Error(where + ": ZSTD frame decodes to " + hex(produced) + " bytes, not the declared " + hex(cap));
  ask(produced);
  PartialImage img;
  img.view = ByteView(out, static_cast<size_t>(cap));
  img.kept.push_back({0, prefix});
  if (tail < cap) {
    if (tail == prefix) img.kept.back().second = cap;
    else img.kept.push_back({tail, cap});
  }
  return img;
}

Expected<std::vector<uint8_t>> decode(const Entry& e, uint64_t max_output) {
  DecodeBuffer buffer;
  auto v = decode_into(e, buffer, max_output);
  if (!v) return v.error();
  return std::vector<uint8_t>(v->begin(), v->end());
}

Expected<std::vector<uint8_t>> decode_prefix(const Entry& e, size_t n) {
  const std::string where = "entry at " + hex(e.offset);
  switch (e.compression()) {
    case Compression::none: {
      size_t k = std::min(n, e.stored.size());
      return std::vector<uint8_t>(e.stored.begin(), e.stored.begin() + k);
    }
    case Compression::lz4: {
      if (e.stored.size() > INT32_MAX) return Error(where + ": LZ4 block too large");
      std::vector<uint8_t> out(n);
      int got = LZ4_decompress_safe_partial(reinterpret_cast<const char*>(e.stored.data()),
                                            reinterpret_cast<char*>(out.data()), static_cast<int>(e.stored.size()),
                                            static_cast<int>(n), static_cast<int>(n));
      if (got < 0) return Error(where + ": LZ4 block is corrupt");
      out.resize(static_cast<size_t>(got));
      return out;
    }
    case Compression::zstd: {
      ZSTD_DCtx* dctx = thread_dctx();
      if (!dctx) return Error("out of memory");
      std::vector<uint8_t> out(n);
      ZSTD_inBuffer in{e.stored.data(), e.stored.size(), 0};
      ZSTD_outBuffer ob{out.data(), out.size(), 0};
      while (ob.pos < ob.size) {
        const size_t out_before = ob.pos, in_before = in.pos;
        size_t r = ZSTD_decompressStream(dctx, &ob, &in);
        if (ZSTD_isError(r)) return Error(where + ": ZSTD frame: " + ZSTD_getErrorName(r));
        if (r == 0) break;                                         // frame complete
        if (ob.pos == out_before && in.pos == in_before) break;   // no progress: truncated input
      }
      out.resize(ob.pos);
      return out;
    }
    case Compression::legacy:
      return Error(where + ": legacy compression (flag 0x1000) is not supported");
  }
  return Error(where + ": unknown compression");
}

}  // namespace cuwheel::fatbin
