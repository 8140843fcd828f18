// ld.so.cache reader. Layouts: glibc sysdeps/generic/dl-cache.h (struct
// cache_file, cache_file_new, file_entry, file_entry_new); how the loader
// reads them: glibc elf/dl-cache.c (_dl_load_cache_lookup); how ldconfig
// writes them: glibc elf/cache.c (save_cache).
#include <cstring>
#include <string_view>

#include "cuwheel/base/bytes.h"
#include "cuwheel/host/ldcache.h"

namespace cuwheel {

namespace {

constexpr std::string_view kMagicOld = "ld.so-1.7.0";              // CACHEMAGIC
constexpr std::string_view kMagicNew = "glibc-ld.so.cache1.1";     // CACHEMAGIC_VERSION_NEW
constexpr uint64_t kOldHeader = 16;   // magic[11] + padding to 4 + u32 nlibs
constexpr uint64_t kOldEntry = 12;    // i32 flags, u32 key, u32 value
constexpr uint64_t kNewHeader = 48;   // see hide_driver.h
constexpr uint64_t kNewEntry = 24;    // i32 flags, u32 key, u32 value, u32 osversion, u64 hwcap
constexpr uint8_t kEndianLittle = 2;  // cache_file_new.flags: cache_file_new_flags_endian_little
constexpr uint8_t kEndianBig = 3;
// A real cache holds a few thousand entries; the bound only keeps a lying
// count from asking for more entries than bytes.
constexpr uint64_t kMaxEntries = 1u << 20;
// Paths are at most PATH_MAX (4096) in ldconfig.
constexpr uint64_t kMaxString = 4096;

bool starts_with(ByteView v, std::string_view magic) {
  return v.size() >= magic.size() && std::memcmp(v.data(), magic.data(), magic.size()) == 0;
}

Expected<std::string> read_string(ByteView strings, uint32_t offset, const std::string& what) {
  std::optional<std::string_view> s = load_cstr(strings, offset, kMaxString);
  if (!s) return Error(what + " at string offset " + hex(offset) + " is past the end or not terminated");
  return std::string(*s);
}

// The new-format table at `base` (offset of its header in `image`).
Expected<std::vector<LdCacheEntry>> parse_new(ByteView image, uint64_t base) {
  ByteView v = image.subspan(static_cast<size_t>(base));
  uint32_t nlibs = 0, len_strings = 0;
  uint8_t endian = 0;
  if (!load_le(v, 20, nlibs) || !load_le(v, 24, len_strings) || !load_le(v, 28, endian) ||
      v.size() < kNewHeader)
    return Error("new-format header at " + hex(base) + " is truncated");
  if (endian == kEndianBig) return Error("new-format header at " + hex(base) + ": big-endian cache (flags 3) is not supported");
  if (endian != 0 && endian != kEndianLittle)
    return Error("new-format header at " + hex(base) + ": endianness flag " + std::to_string(endian) +
                 " is neither 0, 2 (little) nor 3 (big)");
  uint64_t bytes = 0;
  if (nlibs > kMaxEntries || mul_overflow(nlibs, kNewEntry, bytes) || !in_bounds(v.size(), kNewHeader, bytes))
    return Error("new-format header at " + hex(base) + ": " + std::to_string(nlibs) +
                 " entries of 24 bytes do not fit in the " + std::to_string(v.size() - kNewHeader) +
                 " bytes that follow");
  std::vector<LdCacheEntry> out;
  out.reserve(nlibs);
  for (uint32_t i = 0; i < nlibs; ++i) {
    const uint64_t at = kNewHeader + uint64_t{i} * kNewEntry;
    uint32_t flags = 0, key = 0, value = 0;
    uint64_t hwcap = 0;
    (void)load_le(v, at, flags);
    (void)load_le(v, at + 4, key);
    (void)load_le(v, at + 8, value);
    (void)load_le(v, at + 16, hwcap);
    const std::string where = "entry " + std::to_string(i) + " at " + hex(base + at);
    auto soname = read_string(v, key, where + ": name");
    if (!soname) return soname.error();
    auto path = read_string(v, value, where + ": path");
    if (!path) return path.error();
    out.push_back({std::move(*soname), std::move(*path), static_cast<int32_t>(flags), hwcap});
  }
  return out;
}

}  // namespace

Expected<std::vector<LdCacheEntry>> parse_ld_so_cache(ByteView image, const std::string& name) {
  auto fail = [&](const Error& e) { return e.context(name); };
  if (starts_with(image, kMagicNew)) {
    auto r = parse_new(image, 0);
    if (!r) return fail(r.error());
    return r;
  }
  if (!starts_with(image, kMagicOld))
    return fail(Error("not an ld.so.cache: the first bytes are neither \"glibc-ld.so.cache1.1\" nor \"ld.so-1.7.0\""));

  uint32_t nlibs = 0;
  if (!load_le(image, 12, nlibs)) return fail(Error("old-format header is truncated"));
  uint64_t bytes = 0, end = 0;
  if (nlibs > kMaxEntries || mul_overflow(nlibs, kOldEntry, bytes) || add_overflow(kOldHeader, bytes, end) ||
      end > image.size())
    return fail(Error("old-format header: " + std::to_string(nlibs) + " entries of 12 bytes do not fit in " +
                      std::to_string(image.size()) + " bytes"));
  // dl-cache.c: the new table, if any, follows at ALIGN_CACHE(end), the
  // alignment of struct cache_file_new (8, for its u64 hwcap).
  const uint64_t aligned = (end + 7) & ~uint64_t{7};
  if (aligned <= image.size() && starts_with(image.subspan(static_cast<size_t>(aligned)), kMagicNew)) {
    auto r = parse_new(image, aligned);
    if (!r) return fail(r.error());
    return r;
  }
  // Old format only: strings follow the entry array, offsets from there.
  ByteView strings = image.subspan(static_cast<size_t>(end));
  std::vector<LdCacheEntry> out;
  out.reserve(nlibs);
  for (uint32_t i = 0; i < nlibs; ++i) {
    const uint64_t at = kOldHeader + uint64_t{i} * kOldEntry;
    uint32_t flags = 0, key = 0, value = 0;
    (void)load_le(image, at, flags);
    (void)load_le(image, at + 4, key);
    (void)load_le(image, at + 8, value);
    const std::string where = "old-format entry " + std::to_string(i) + " at " + hex(at);
    auto soname = read_string(strings, key, where + ": name");
    if (!soname) return fail(soname.error());
    auto path = read_string(strings, value, where + ": path");
    if (!path) return fail(path.error());
    out.push_back({std::move(*soname), std::move(*path), static_cast<int32_t>(flags), 0});
  }
  return out;
}

}  // namespace cuwheel
