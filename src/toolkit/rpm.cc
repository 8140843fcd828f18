// RPM v4 package reader (format notes in include/cuwheel/toolkit/rpm.h).
#include "cuwheel/toolkit/rpm.h"

#include <cstring>

#include "cuwheel/base/digest.h"

namespace cuwheel::rpm {

namespace {

constexpr uint8_t kLeadMagic[4] = {0xed, 0xab, 0xee, 0xdb};
constexpr uint8_t kHeaderMagic[4] = {0x8e, 0xad, 0xe8, 0x01};
constexpr uint64_t kLeadSize = 96;
constexpr uint64_t kHeaderPreamble = 16;
constexpr uint64_t kIndexEntrySize = 16;
// rpm's lib/header.c: hdrchkTags(il) ((il) & 0xff000000) in old versions,
// HEADER_TAGS_MAX 0x0000ffff and HEADER_DATA_MAX 0x0fffffff in rpm 4.13+.
constexpr uint32_t kMaxTags = 0xffff;
constexpr uint32_t kMaxData = 0x0fffffff;
constexpr uint16_t kSigTypeHeader = 5;  // RPMSIGTYPE_HEADERSIG
constexpr uint32_t kPgpHashSha256 = 8;  // RFC 4880 section 9.4

bool load_be32(ByteView v, uint64_t off, uint32_t& out) {
  if (!in_bounds(v.size(), off, 4)) return false;
  const uint8_t* p = v.data() + off;
  out = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
  return true;
}

bool load_be16(ByteView v, uint64_t off, uint16_t& out) {
  if (!in_bounds(v.size(), off, 2)) return false;
  out = static_cast<uint16_t>((v[off] << 8) | v[off + 1]);
  return true;
}

const char* type_name(uint32_t t) {
  switch (t) {
    case 0: return "NULL";
    case 1: return "CHAR";
    case 2: return "INT8";
    case 3: return "INT16";
    case 4: return "INT32";
    case 5: return "INT64";
    case 6: return "STRING";
    case 7: return "BIN";
    case 8: return "STRING_ARRAY";
    case 9: return "I18NSTRING";
  }
  return "unknown type";
}

std::string to_hex(const uint8_t* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// Parses the header whose magic is at `off`. `what` names it in messages.
Expected<Header> read_header(ByteView file, uint64_t off, const std::string& what) {
  std::string at = what + " at " + hex(off);
  if (!in_bounds(file.size(), off, kHeaderPreamble))
    return Error(at + ": file ends inside the header preamble (file size " + hex(file.size()) + ")");
  if (std::memcmp(file.data() + off, kHeaderMagic, 4) != 0)
    return Error(at + ": bad header magic (expected 8e ad e8 01)");
  uint32_t il = 0, dl = 0;
  (void)load_be32(file, off + 8, il);
  (void)load_be32(file, off + 12, dl);
  if (il == 0) return Error(at + ": index count is 0");
  if (il > kMaxTags)
    return Error(at + ": index count " + std::to_string(il) + " exceeds " + std::to_string(kMaxTags));
  if (dl > kMaxData)
    return Error(at + ": data size " + std::to_string(dl) + " exceeds " + std::to_string(kMaxData));
  uint64_t index_off = off + kHeaderPreamble;
  uint64_t index_len = uint64_t{il} * kIndexEntrySize;
  uint64_t store_off = index_off + index_len;
  if (!in_bounds(file.size(), index_off, index_len))
    return Error(at + ": index (" + std::to_string(il) + " entries) ends past end of file (" +
                 hex(file.size()) + ")");
  if (!in_bounds(file.size(), store_off, dl))
    return Error(at + ": data store (" + std::to_string(dl) + " bytes) ends past end of file (" +
                 hex(file.size()) + ")");
  Header h;
  h.file_offset = off;
  h.bytes = file.subspan(off, kHeaderPreamble + index_len + dl);
  h.store = file.subspan(store_off, dl);
  h.index.reserve(il);
  for (uint32_t i = 0; i < il; ++i) {
    IndexEntry e;
    uint64_t p = index_off + uint64_t{i} * kIndexEntrySize;
    (void)load_be32(file, p, e.tag);
    (void)load_be32(file, p + 4, e.type);
    (void)load_be32(file, p + 8, e.offset);
    (void)load_be32(file, p + 12, e.count);
    if (e.offset > dl)
      return Error(at + ": index entry " + std::to_string(i) + " (tag " + std::to_string(e.tag) +
                   "): offset " + hex(e.offset) + " outside data store (" + std::to_string(dl) +
                   " bytes)");
    h.index.push_back(e);
  }
  return h;
}

std::string tag_label(uint32_t tag) { return "tag " + std::to_string(tag); }

// Reads `count` NUL-terminated strings starting at `e.offset`.
Expected<std::vector<std::string>> read_strings(const Header& h, const IndexEntry& e) {
  std::vector<std::string> out;
  uint64_t p = e.offset;
  // count is attacker-controlled: each string needs at least one byte.
  if (e.count > h.store.size() - std::min<uint64_t>(p, h.store.size()))
    return Error(tag_label(e.tag) + ": " + std::to_string(e.count) + " strings cannot fit in the data store");
  for (uint32_t i = 0; i < e.count; ++i) {
    if (p >= h.store.size())
      return Error(tag_label(e.tag) + ": string " + std::to_string(i) + " at " + hex(p) +
                   " outside data store");
    const void* nul = std::memchr(h.store.data() + p, 0, h.store.size() - p);
    if (!nul)
      return Error(tag_label(e.tag) + ": string at " + hex(p) + " has no NUL before the end of the data store");
    size_t len = static_cast<const uint8_t*>(nul) - (h.store.data() + p);
    out.emplace_back(reinterpret_cast<const char*>(h.store.data() + p), len);
    p += len + 1;
  }
  return out;
}

}  // namespace

const IndexEntry* Header::find(uint32_t tag) const {
  for (const auto& e : index)
    if (e.tag == tag) return &e;
  return nullptr;
}

Expected<std::vector<std::string>> Header::string_array(uint32_t tag) const {
  const IndexEntry* e = find(tag);
  if (!e) return Error(tag_label(tag) + ": absent");
  if (e->type == static_cast<uint32_t>(Type::string)) {
    IndexEntry one = *e;
    one.count = 1;
    return read_strings(*this, one);
  }
  if (e->type != static_cast<uint32_t>(Type::string_array) &&
      e->type != static_cast<uint32_t>(Type::i18nstring))
    return Error(tag_label(tag) + ": type " + type_name(e->type) + ", expected a string");
  return read_strings(*this, *e);
}

Expected<std::string> Header::string(uint32_t tag) const {
  auto v = string_array(tag);
  if (!v) return v.error();
  if (v->empty()) return Error(tag_label(tag) + ": empty string array");
  return std::move((*v)[0]);
}

Expected<std::vector<uint32_t>> Header::int32(uint32_t tag) const {
  const IndexEntry* e = find(tag);
  if (!e) return Error(tag_label(tag) + ": absent");
  if (e->type != static_cast<uint32_t>(Type::int32))
    return Error(tag_label(tag) + ": type " + type_name(e->type) + ", expected INT32");
  if (!in_bounds(store.size(), e->offset, uint64_t{e->count} * 4))
    return Error(tag_label(tag) + ": " + std::to_string(e->count) + " INT32 values at " + hex(e->offset) +
                 " outside data store");
  std::vector<uint32_t> out(e->count);
  for (uint32_t i = 0; i < e->count; ++i) (void)load_be32(store, e->offset + uint64_t{i} * 4, out[i]);
  return out;
}

Expected<ByteView> Header::bin(uint32_t tag) const {
  const IndexEntry* e = find(tag);
  if (!e) return Error(tag_label(tag) + ": absent");
  if (e->type != static_cast<uint32_t>(Type::bin))
    return Error(tag_label(tag) + ": type " + type_name(e->type) + ", expected BIN");
  auto s = slice(store, e->offset, e->count);
  if (!s)
    return Error(tag_label(tag) + ": " + std::to_string(e->count) + " bytes at " + hex(e->offset) +
                 " outside data store");
  return *s;
}

std::string Package::nevra() const {
  std::string s = name + "-";
  if (epoch) s += std::to_string(epoch) + ":";
  return s + version + "-" + release + "." + arch;
}

Expected<Package> read_package(ByteView file) {
  Package pkg;
  if (file.size() < kLeadSize)
    return Error("lead: file is " + std::to_string(file.size()) + " bytes, shorter than the 96-byte lead");
  if (std::memcmp(file.data(), kLeadMagic, 4) != 0)
    return Error("lead: bad magic (expected ed ab ee db): not an RPM package");
  pkg.lead.major = file[4];
  pkg.lead.minor = file[5];
  (void)load_be16(file, 6, pkg.lead.type);
  {
    const char* n = reinterpret_cast<const char*>(file.data() + 10);
    pkg.lead.name.assign(n, strnlen(n, 66));
  }
  (void)load_be16(file, 78, pkg.lead.signature_type);
  if (pkg.lead.major < 3)
    return Error("lead: format version " + std::to_string(pkg.lead.major) + " is older than 3");
  if (pkg.lead.signature_type != kSigTypeHeader)
    return Error("lead: signature type " + std::to_string(pkg.lead.signature_type) +
                 " is not 5 (header-style signature)");
  if (pkg.lead.type != 0) return Error("lead: source package (type 1), expected a binary package");

  auto sig = read_header(file, kLeadSize, "signature header");
  if (!sig) return sig.error();
  pkg.signature = std::move(*sig);
  uint64_t after_sig = kLeadSize + pkg.signature.bytes.size();
  uint64_t pad = (8 - (pkg.signature.store.size() % 8)) % 8;  // rpm's lib/signature.c: pad to 8
  auto main = read_header(file, after_sig + pad, "main header");
  if (!main) return main.error();
  pkg.header = std::move(*main);
  pkg.payload_offset = pkg.header.file_offset + pkg.header.bytes.size();
  pkg.payload = file.subspan(pkg.payload_offset);

  auto need = [&](uint32_t tag, const char* label, std::string& out) -> Status {
    auto s = pkg.header.string(tag);
    if (!s) return Error(std::string("main header: ") + label + ": " + s.error().message());
    out = std::move(*s);
    return Ok{};
  };
  if (auto s = need(kTagName, "NAME", pkg.name); !s) return s.error();
  if (auto s = need(kTagVersion, "VERSION", pkg.version); !s) return s.error();
  if (auto s = need(kTagRelease, "RELEASE", pkg.release); !s) return s.error();
  if (pkg.header.find(kTagArch)) {
    if (auto s = need(kTagArch, "ARCH", pkg.arch); !s) return s.error();
  }
  if (pkg.header.find(kTagEpoch)) {
    auto e = pkg.header.int32(kTagEpoch);
    if (!e) return Error("main header: EPOCH: " + e.error().message());
    if (!e->empty()) pkg.epoch = (*e)[0];
  }
  pkg.payload_compressor = "gzip";
  if (pkg.header.find(kTagPayloadCompressor)) {
    if (auto s = need(kTagPayloadCompressor, "PAYLOADCOMPRESSOR", pkg.payload_compressor); !s)
      return s.error();
  }
  return pkg;
}

Status check_header_digest(const Package& pkg) {
  if (!pkg.signature.find(kSigTagSha256)) return Ok{};
  auto want = pkg.signature.string(kSigTagSha256);
  if (!want) return Error("signature header: SHA256 header digest: " + want.error().message());
  auto got = sha256(pkg.header.bytes);
  std::string got_hex = to_hex(got.data(), got.size());
  if (lower(*want) != got_hex)
    return Error("main header SHA-256 is " + got_hex + ", the signature header records " + *want);
  return Ok{};
}

Status check_payload_digest(const Package& pkg) {
  if (!pkg.header.find(kTagPayloadDigest))
    return Error("main header records no payload digest (PAYLOADDIGEST, tag 5092)");
  auto want = pkg.header.string(kTagPayloadDigest);
  if (!want) return Error("main header: PAYLOADDIGEST: " + want.error().message());
  uint32_t algo = kPgpHashSha256;  // rpm's default when the tag is absent
  if (pkg.header.find(kTagPayloadDigestAlgo)) {
    auto a = pkg.header.int32(kTagPayloadDigestAlgo);
    if (!a || a->empty()) return Error("main header: PAYLOADDIGESTALGO is malformed");
    algo = (*a)[0];
  }
  if (algo != kPgpHashSha256)
    return Error("payload digest algorithm " + std::to_string(algo) + " is not SHA-256 (8)");
  auto got = sha256(pkg.payload);
  std::string got_hex = to_hex(got.data(), got.size());
  if (lower(*want) != got_hex)
    return Error("payload SHA-256 is " + got_hex + ", the signed header records " + *want);
  return Ok{};
}

Expected<ByteView> header_signature(const Package& pkg) {
  for (uint32_t tag : {kSigTagRsa, kSigTagDsa}) {
    if (!pkg.signature.find(tag)) continue;
    auto b = pkg.signature.bin(tag);
    if (!b) return Error("signature header: " + b.error().message());
    if (b->empty()) return Error("signature header: tag " + std::to_string(tag) + " is empty");
    return *b;
  }
  return Error("package is not signed (no RSA or DSA header signature, tags 268/267)");
}

Status verify_package(const Package& pkg, const SignatureVerifier* verifier) {
  if (auto s = check_header_digest(pkg); !s) return s;
  if (verifier) {
    auto sig = header_signature(pkg);
    if (!sig) return sig.error();
    if (auto s = verifier->verify_detached(*sig, pkg.header.bytes); !s)
      return s.error().context("header signature");
  }
  return check_payload_digest(pkg);
}

}  // namespace cuwheel::rpm
