// cuwheel: the one bounded reader every parser uses.
//
// All bounds checks in cuwheel live here. A ByteView is a non-owning view of
// bytes (a mapped file, an archive member, a decompressed payload). Reads go
// through load_le<T>() / slice() / Cursor, which check `offset + length`
// without overflow and read with memcpy, so unaligned fields (archive
// members start at even offsets; fatbin entries have no alignment guarantee,
// fatbin-format.md section 9) are safe. Every CUDA host is little-endian
// (fatbin-format.md section 9, "Big-endian"), so only LE reads exist.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace cuwheel {

using ByteView = std::span<const uint8_t>;

/// True when [offset, offset+length) lies inside a buffer of `size` bytes.
/// Never overflows.
constexpr bool in_bounds(uint64_t size, uint64_t offset, uint64_t length) {
  return offset <= size && length <= size - offset;
}

/// The sub-view [offset, offset+length), or nullopt when out of bounds.
inline std::optional<ByteView> slice(ByteView v, uint64_t offset, uint64_t length) {
  if (!in_bounds(v.size(), offset, length)) return std::nullopt;
  return v.subspan(static_cast<size_t>(offset), static_cast<size_t>(length));
}

/// Reads a little-endian unsigned integer of type T at `offset`.
/// Returns false (and leaves `out` unchanged) when out of bounds.
template <class T>
bool load_le(ByteView v, uint64_t offset, T& out) {
  static_assert(std::is_unsigned_v<T> || std::is_same_v<T, uint8_t>);
  if (!in_bounds(v.size(), offset, sizeof(T))) return false;
  T value;
  std::memcpy(&value, v.data() + offset, sizeof(T));  // host is LE (x86-64, aarch64, ppc64le)
  out = value;
  return true;
}

/// Reads a NUL-terminated string starting at `offset`, at most `max_len`
/// bytes. Returns nullopt when offset is out of bounds or no NUL occurs
/// before the end of the view (or within max_len).
inline std::optional<std::string_view> load_cstr(ByteView v, uint64_t offset,
                                                 uint64_t max_len = UINT64_MAX) {
  if (offset >= v.size()) return std::nullopt;
  uint64_t avail = v.size() - offset;
  if (avail > max_len) avail = max_len;
  const void* nul = std::memchr(v.data() + offset, 0, static_cast<size_t>(avail));
  if (!nul) return std::nullopt;
  size_t n = static_cast<const uint8_t*>(nul) - (v.data() + offset);
  return std::string_view(reinterpret_cast<const char*>(v.data() + offset), n);
}

/// Checked a + b: stores the sum in `out`; returns true on overflow.
constexpr bool add_overflow(uint64_t a, uint64_t b, uint64_t& out) {
  return __builtin_add_overflow(a, b, &out);
}
/// Checked a * b: stores the product in `out`; returns true on overflow.
constexpr bool mul_overflow(uint64_t a, uint64_t b, uint64_t& out) {
  return __builtin_mul_overflow(a, b, &out);
}

/// Sequential reader with a sticky failure flag (as LLVM's
/// DataExtractor::Cursor): after the first out-of-bounds read every later
/// read returns 0 and ok() stays false, so callers check once at the end.
class Cursor {
 public:
  Cursor(ByteView v, uint64_t offset = 0) : v_(v), pos_(offset) {}

  template <class T>
  T read() {
    T out{};
    if (!ok_ || !load_le(v_, pos_, out)) {
      ok_ = false;
      return T{};
    }
    pos_ += sizeof(T);
    return out;
  }
  /// Reads a 32- or 64-bit word depending on `is64` (ELF class-dependent fields).
  uint64_t read_word(bool is64) { return is64 ? read<uint64_t>() : read<uint32_t>(); }
  void skip(uint64_t n) {
    uint64_t np;
    if (add_overflow(pos_, n, np) || np > v_.size()) ok_ = false;
    else pos_ = np;
  }
  uint64_t offset() const { return pos_; }
  bool ok() const { return ok_; }

 private:
  ByteView v_;
  uint64_t pos_;
  bool ok_ = true;
};

/// Returns a printable copy of text read from input (a member name, a file
/// path, a soname, a symbol, a RUNPATH entry, a metadata string), for every
/// text-like output: the one escaping function of the tool.
///
/// Kept as is: well-formed UTF-8 (RFC 3629 section 4) that is printable,
/// so `café.so` stays `café.so`. Shown as `\xNN`, byte by byte: C0
/// controls (0x00-0x1f, so a newline cannot start a new output line that a
/// CI runner reads as a workflow command, and ESC cannot drive a
/// terminal), DEL (0x7f), C1 controls (U+0080-U+009F), the line and
/// paragraph separators (U+2028, U+2029), the bidirectional formatting
/// characters (Unicode Standard Annex #9: U+061C, U+200E, U+200F,
/// U+202A-U+202E, U+2066-U+2069), and every byte that is not part of a
/// well-formed sequence (a stray continuation byte, an overlong form, a
/// surrogate, a truncated sequence). A backslash is not escaped, so the
/// function is idempotent: printable(printable(s)) == printable(s).
/// Output layers apply it to names; JSON and SARIF writers escape instead
/// through the JSON encoder.
std::string printable(std::string_view s);

}  // namespace cuwheel
