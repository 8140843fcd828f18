// cuwheel: the RPM v4 package reader, and the checks that tie a package to
// the key that signed it.
//
// File layout (rpm.org, "RPM v4 package format" (docs/manual/format_v4.md);
// rpm's lib/header.c, lib/rpmlead.c, lib/package.c; checked against
// packages built with rpmbuild 4.18):
//
//   offset 0   lead, 96 bytes: magic ed ab ee db, major, minor, type (u16),
//              archnum (u16), name[66], osnum (u16), signature_type (u16,
//              5 = RPMSIGTYPE_HEADERSIG), reserved[16]
//   offset 96  signature header, then zero padding to a multiple of 8
//   then       main header (no padding)
//   then       payload: a cpio archive, compressed as the main header's
//              PAYLOADCOMPRESSOR (1125) says, up to the end of the file
//
// A header ("header structure" in rpm's terms) is: magic 8e ad e8 01, 4
// reserved bytes, index count `il` (u32), data size `dl` (u32), `il` index
// entries of 16 bytes {tag, type, offset, count}, then the `dl`-byte data
// store. All integers are big-endian. Like rpm's hdrchkTags/hdrchkData, at
// most 0xffff entries and 256 MiB of data are accepted.
//
// What is signed: rpm 4.14 and later sign the main header alone (its bytes
// from the magic to the end of its data store); the header records the
// SHA-256 of the compressed payload (PAYLOADDIGEST 5092, algorithm in 5093,
// 8 = SHA-256 as in RFC 4880 section 9.4). So a valid header signature plus
// a matching payload digest covers every byte of the package. The OpenPGP
// signature packet sits in the signature header's RSA (268) tag for RSA keys
// and in its DSA (267) tag for DSA and ECC keys; the legacy header+payload
// signatures (1002, 1005) may be absent and are not used.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"

namespace cuwheel::rpm {

/// Signature-header tags (rpm's lib/rpmtag.h, RPMSIGTAG_*).
inline constexpr uint32_t kSigTagSize = 1000;          ///< INT32: header+payload size
inline constexpr uint32_t kSigTagDsa = 267;            ///< BIN: OpenPGP signature of the header (DSA/ECC)
inline constexpr uint32_t kSigTagRsa = 268;            ///< BIN: OpenPGP signature of the header (RSA)
inline constexpr uint32_t kSigTagSha1 = 269;           ///< STRING: SHA-1 hex of the header
inline constexpr uint32_t kSigTagSha256 = 273;         ///< STRING: SHA-256 hex of the header
inline constexpr uint32_t kSigTagPgp = 1002;           ///< BIN: legacy header+payload signature (RSA)
inline constexpr uint32_t kSigTagGpg = 1005;           ///< BIN: legacy header+payload signature (DSA)

/// Main-header tags (RPMTAG_*).
inline constexpr uint32_t kTagName = 1000;
inline constexpr uint32_t kTagVersion = 1001;
inline constexpr uint32_t kTagRelease = 1002;
inline constexpr uint32_t kTagEpoch = 1003;
inline constexpr uint32_t kTagArch = 1022;
inline constexpr uint32_t kTagPayloadFormat = 1124;       ///< STRING: "cpio"
inline constexpr uint32_t kTagPayloadCompressor = 1125;   ///< STRING: "gzip", "xz", "zstd", ...
inline constexpr uint32_t kTagPayloadDigest = 5092;       ///< STRING_ARRAY: hex digest of the compressed payload
inline constexpr uint32_t kTagPayloadDigestAlgo = 5093;   ///< INT32: OpenPGP hash id (8 = SHA-256)
inline constexpr uint32_t kTagPayloadDigestAlt = 5097;    ///< STRING_ARRAY: hex digest of the uncompressed payload

/// Header data types (rpm's rpmTagType).
enum class Type : uint32_t {
  null = 0, char_ = 1, int8 = 2, int16 = 3, int32 = 4, int64 = 5,
  string = 6, bin = 7, string_array = 8, i18nstring = 9,
};

/// One 16-byte index entry of a header.
struct IndexEntry {
  uint32_t tag = 0;
  uint32_t type = 0;    ///< a Type value (unknown values are kept, never read)
  uint32_t offset = 0;  ///< into the data store, bytes
  uint32_t count = 0;   ///< number of values (bytes for BIN)
};

/// One parsed header. Views point into the buffer given to read_package.
struct Header {
  uint64_t file_offset = 0;         ///< offset of the header magic in the file, bytes
  ByteView bytes;                   ///< magic .. end of data store (what rpm signs and digests)
  ByteView store;                   ///< the data store alone
  std::vector<IndexEntry> index;    ///< in file order

  /// The entry for `tag`, or nullptr.
  const IndexEntry* find(uint32_t tag) const;
  /// A STRING (or the first string of an I18NSTRING / STRING_ARRAY). Errors:
  /// tag absent, wrong type, offset outside the store, no NUL before its end.
  Expected<std::string> string(uint32_t tag) const;
  /// A STRING_ARRAY / I18NSTRING (or a STRING as one element). Errors as string().
  Expected<std::vector<std::string>> string_array(uint32_t tag) const;
  /// An INT32 array. Errors: absent, wrong type, outside the store.
  Expected<std::vector<uint32_t>> int32(uint32_t tag) const;
  /// A BIN value (`count` bytes). Errors: absent, wrong type, outside the store.
  Expected<ByteView> bin(uint32_t tag) const;
};

/// The 96-byte lead (informational: rpm itself ignores most of it).
struct Lead {
  uint8_t major = 0, minor = 0;   ///< format version, 3.0 or 4.0 in practice
  uint16_t type = 0;              ///< 0 binary, 1 source
  std::string name;               ///< NUL-terminated name field (NEVR as rpmbuild writes it)
  uint16_t signature_type = 0;    ///< 5 = header-style signature (the only one accepted)
};

/// A whole package. Views point into the buffer given to read_package.
struct Package {
  Lead lead;
  Header signature;          ///< the signature header
  Header header;             ///< the main header
  uint64_t payload_offset = 0;  ///< bytes from the start of the file
  ByteView payload;          ///< the compressed payload, to the end of the file

  std::string name, version, release, arch;  ///< from the main header
  uint32_t epoch = 0;                        ///< 0 when the header has no EPOCH
  std::string payload_compressor;            ///< "gzip" when the tag is absent (rpm's default)

  /// "name-[epoch:]version-release.arch".
  std::string nevra() const;
};

/// Parses `file` (a whole .rpm). Errors name the structure and offset:
/// "lead: bad magic", "signature header at 0x60: index count 70000 exceeds
/// 65535", "main header at 0x1a8: data store (12 bytes) ends past end of
/// file (0x1b0)", "main header: NAME: offset 0x40 outside data store", and
/// a source package or a lead that announces no header-style signature.
Expected<Package> read_package(ByteView file);

/// Checks the signature header's SHA-256 header digest (273), when present,
/// against the main header bytes. Errors: mismatch (both values in the
/// message), malformed tag. Returns Ok when the tag is absent.
Status check_header_digest(const Package& pkg);

/// Checks PAYLOADDIGEST (5092) against SHA-256 of `pkg.payload`. Errors:
/// the header records no payload digest, an algorithm other than 8
/// (SHA-256), a mismatch (both values in the message).
Status check_payload_digest(const Package& pkg);

/// The OpenPGP signature over the main header: the RSA tag (268), else the
/// DSA tag (267). Errors: neither present ("package is not signed").
Expected<ByteView> header_signature(const Package& pkg);

/// Verifies OpenPGP detached signatures made by one pinned key, with GPGME
/// (gpgme(3), "Verify"): a private GnuPG home (mkdtemp under $TMPDIR, or
/// /tmp, removed by the destructor) holds only that key. Move-only.
class SignatureVerifier {
 public:
  /// Imports `key` (an ASCII-armoured or binary OpenPGP public key block)
  /// and accepts it only when exactly one primary key was imported and its
  /// fingerprint equals `fingerprint` (40 hex digits, OpenPGP v4, RFC 4880
  /// section 12.2; compared case-insensitively, spaces ignored). Errors:
  /// fingerprint not 40 hex, GPGME or gpg unavailable, no key in the data,
  /// "key fingerprint 0123… is not the pinned 89AB…".
  static Expected<SignatureVerifier> create(std::string_view key, std::string_view fingerprint);

  /// Whether signatures can be checked on this machine at all: GPGME
  /// initialises and finds a usable gpg (gpgme(3), "Engine Version Check").
  /// Errors: "GPGME could not be initialised", "GnuPG engine unavailable:
  /// ...". A failure here is the machine's, not the key's: callers report it
  /// as an environment error (exit status 2), never as a rejected key.
  static Status engine_available();

  SignatureVerifier(SignatureVerifier&&) noexcept;
  SignatureVerifier& operator=(SignatureVerifier&&) noexcept;
  ~SignatureVerifier();

  /// The accepted primary key fingerprint (40 upper-case hex digits).
  const std::string& fingerprint() const;

  /// Verifies `signature` (an OpenPGP signature packet) over `data`.
  /// Accepted only when GPGME reports exactly good status (GPG_ERR_NO_ERROR)
  /// by the pinned key or one of its subkeys. Errors: "signature by key
  /// 1234ABCD… which is not the pinned key", "bad signature", "signature
  /// could not be checked (...)".
  Status verify_detached(ByteView signature, ByteView data) const;

 private:
  struct Impl;
  explicit SignatureVerifier(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// All checks on one package: the header digest, the header signature by
/// `verifier`'s key (skipped when verifier is null), the payload digest.
/// Errors are the first failing check's message.
Status verify_package(const Package& pkg, const SignatureVerifier* verifier);

}  // namespace cuwheel::rpm
