// cuwheel: message digests and the base64 form RECORD files use.
//
// PEP 376 / PEP 627 (RECORD) and the binary distribution format spec (PEP
// 427) write a file hash as `<algorithm>=<digest>`, where the digest is the
// URL-safe base64 encoding (RFC 4648 section 5) of the raw digest bytes with
// the trailing `=` padding removed. SHA-256 is the default; the spec lets
// installers accept any hashlib.algorithms_guaranteed algorithm except MD5
// and SHA-1, so sha384 and sha512 are offered too. Digests are computed with
// OpenSSL's libcrypto (EVP interface).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"

namespace cuwheel {

/// URL-safe base64 (alphabet A-Z a-z 0-9 - _) of `data`, without `=` padding
/// (RFC 4648 section 5, as Python's urlsafe_b64encode(...).rstrip(b"=")).
std::string base64url_nopad(ByteView data);

/// Decodes URL-safe base64 with or without padding. Returns nullopt on a
/// character outside the alphabet, misplaced padding, or a length that no
/// encoding produces (length % 4 == 1).
std::optional<std::string> base64url_decode(std::string_view text);

/// SHA-256 of `data` (FIPS 180-4), 32 raw bytes.
std::array<uint8_t, 32> sha256(ByteView data);

/// Incremental digest over data fed in pieces (so a large member can be
/// hashed chunk by chunk). Algorithms: "sha256", "sha384", "sha512"
/// (lowercase, as written in RECORD). Move-only.
class Digest {
 public:
  /// Starts a digest. Errors: the algorithm is not one of the above (MD5 and
  /// SHA-1 are refused on purpose, as the spec forbids them), or libcrypto
  /// fails to initialise.
  static Expected<Digest> create(std::string_view algorithm);

  Digest(Digest&&) noexcept;
  Digest& operator=(Digest&&) noexcept;
  ~Digest();

  /// Feeds bytes.
  void update(ByteView data);
  /// Finishes and returns the raw digest bytes. The Digest is spent after.
  std::string finish();

 private:
  struct Impl;
  explicit Digest(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The RECORD form of the digest of `data` under `algorithm`, e.g.
/// record_hash("sha256", bytes) == "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU"
/// for empty input. Errors as Digest::create.
Expected<std::string> record_hash(std::string_view algorithm, ByteView data);

}  // namespace cuwheel
