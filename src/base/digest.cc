#include "cuwheel/base/digest.h"

#include <openssl/evp.h>

namespace cuwheel {

namespace {
constexpr char kB64Url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int b64url_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}
}  // namespace

std::string base64url_nopad(ByteView data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    uint32_t v = (uint32_t{data[i]} << 16) | (uint32_t{data[i + 1]} << 8) | data[i + 2];
    out += kB64Url[(v >> 18) & 63];
    out += kB64Url[(v >> 12) & 63];
    out += kB64Url[(v >> 6) & 63];
    out += kB64Url[v & 63];
  }
  size_t rest = data.size() - i;
  if (rest == 1) {
    uint32_t v = uint32_t{data[i]} << 16;
    out += kB64Url[(v >> 18) & 63];
    out += kB64Url[(v >> 12) & 63];
  } else if (rest == 2) {
    uint32_t v = (uint32_t{data[i]} << 16) | (uint32_t{data[i + 1]} << 8);
    out += kB64Url[(v >> 18) & 63];
    out += kB64Url[(v >> 12) & 63];
    out += kB64Url[(v >> 6) & 63];
  }
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  // Strip padding, but only from the end and at most two characters.
  size_t pad = 0;
  while (!text.empty() && text.back() == '=') {
    text.remove_suffix(1);
    if (++pad > 2) return std::nullopt;
  }
  if (text.size() % 4 == 1) return std::nullopt;
  if (pad && (text.size() + pad) % 4 != 0) return std::nullopt;
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = b64url_value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

struct Digest::Impl {
  EVP_MD_CTX* ctx = nullptr;
  ~Impl() {
    if (ctx) EVP_MD_CTX_free(ctx);
  }
};

Digest::Digest(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Digest::Digest(Digest&&) noexcept = default;
Digest& Digest::operator=(Digest&&) noexcept = default;
Digest::~Digest() = default;

Expected<Digest> Digest::create(std::string_view algorithm) {
  const EVP_MD* md = nullptr;
  if (algorithm == "sha256") md = EVP_sha256();
  else if (algorithm == "sha384") md = EVP_sha384();
  else if (algorithm == "sha512") md = EVP_sha512();
  else return Error("unsupported hash algorithm '" + printable(algorithm) + "'");
  auto impl = std::make_unique<Impl>();
  impl->ctx = EVP_MD_CTX_new();
  if (!impl->ctx || EVP_DigestInit_ex(impl->ctx, md, nullptr) != 1)
    return Error("libcrypto: cannot initialise " + std::string(algorithm));
  return Digest(std::move(impl));
}

void Digest::update(ByteView data) {
  if (!impl_ || !impl_->ctx) return;
  EVP_DigestUpdate(impl_->ctx, data.data(), data.size());
}

std::string Digest::finish() {
  if (!impl_ || !impl_->ctx) return {};
  unsigned char buf[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(impl_->ctx, buf, &len);
  EVP_MD_CTX_free(impl_->ctx);
  impl_->ctx = nullptr;
  return std::string(reinterpret_cast<char*>(buf), len);
}

std::array<uint8_t, 32> sha256(ByteView data) {
  std::array<uint8_t, 32> out{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

Expected<std::string> record_hash(std::string_view algorithm, ByteView data) {
  auto d = Digest::create(algorithm);
  if (!d) return d.error();
  d->update(data);
  std::string raw = d->finish();
  return std::string(algorithm) + "=" +
         base64url_nopad(ByteView(reinterpret_cast<const uint8_t*>(raw.data()), raw.size()));
}

}  // namespace cuwheel
