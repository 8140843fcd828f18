// cuwheel: the dynamic loader's cache, /etc/ld.so.cache.
//
// ld.so(8) looks a library up by soname in this cache (after DT_RPATH,
// LD_LIBRARY_PATH and DT_RUNPATH, before the trusted folders). `run
// --hide-driver` reads it to find every NVIDIA driver library the loader
// could load (host/hide_driver.h); the loading model of a wheel will read
// it for the same search order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"

namespace cuwheel {

/// One library in the loader's cache: the name the loader looks up (the
/// soname, e.g. "libcuda.so.1") and the path it loads for it.
struct LdCacheEntry {
  std::string soname;
  std::string path;
  /// FLAG_* bits of dl-cache.h: low byte the type (FLAG_ELF_LIBC6 = 3),
  /// high byte the architecture (FLAG_X8664_LIB64 = 0x0300, ...).
  int32_t flags = 0;
  /// Only in the new format (0 in the old one).
  uint64_t hwcap = 0;
};

/// Parses an ld.so.cache image as written by ldconfig(8) (glibc
/// elf/cache.c, read by elf/dl-cache.c; layouts in sysdeps/generic/
/// dl-cache.h). Two formats are accepted:
///   - new ("glibc-ld.so.cache1.1", glibc >= 2.32 writes only this): a
///     48-byte header {magic[17], version[3], u32 nlibs, u32 len_strings,
///     u8 flags (2 = little-endian), u8 pad[3], u32 extension_offset,
///     u32 unused[3]} then nlibs 24-byte entries {i32 flags, u32 key,
///     u32 value, u32 osversion, u64 hwcap}; key and value are offsets of
///     NUL-terminated strings from the start of this header.
///   - old ("ld.so-1.7.0"): {magic[11], pad, u32 nlibs} then 12-byte
///     entries {i32 flags, u32 key, u32 value}; when a new-format header
///     follows (at the next 8-byte boundary), its entries are used, as
///     dl-cache.c does; otherwise the old entries, whose strings start
///     after the entry array.
/// `name` is used in messages only. Errors (naming `name` and the offset):
/// unknown magic, a big-endian cache (flags byte 3), an entry array or a
/// string past the end of the image. An entry whose strings cannot be read
/// is an error too: a cache that lies about one entry is not trusted.
/// Little-endian hosts only, like the rest of cuwheel (bytes.h).
Expected<std::vector<LdCacheEntry>> parse_ld_so_cache(ByteView image, const std::string& name);

}  // namespace cuwheel
