// rpm::SignatureVerifier: OpenPGP detached-signature checks with GPGME
// against one pinned key, in a private GnuPG home that holds only that key.
//
// GPGME drives the gpg binary (gpgme(3), "Engine Configuration"): the home
// directory is set per context with gpgme_ctx_set_engine_info, so the
// user's keyring is never read or written. Verification result semantics
// are those of gpgme_op_verify_result: a signature's `status` is
// GPG_ERR_NO_ERROR only when it is cryptographically good and the key is
// neither expired nor revoked; trust (the VALID summary bit) is not used,
// because the trust decision here is the pinned fingerprint.
#include <gpgme.h>
#include <stdlib.h>

#include <cctype>
#include <filesystem>
#include <memory>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "cuwheel/base/fileio.h"
#include "cuwheel/toolkit/rpm.h"

namespace cuwheel::rpm {

namespace {

std::string normalise_fingerprint(std::string_view fpr) {
  std::string out;
  for (char c : fpr) {
    if (c == ' ') continue;
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

bool is_hex40(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string gpg_message(gpgme_error_t err) {
  return std::string(gpgme_strsource(err)) + ": " + gpgme_strerror(err);
}

struct DataDeleter {
  void operator()(gpgme_data_t d) const { gpgme_data_release(d); }
};
using DataPtr = std::unique_ptr<gpgme_data, DataDeleter>;

Expected<DataPtr> data_from(const void* p, size_t n) {
  gpgme_data_t d = nullptr;
  // copy = 0: GPGME reads the caller's buffer, which outlives the call.
  gpgme_error_t err = gpgme_data_new_from_mem(&d, static_cast<const char*>(p), n, 0);
  if (err) return Error("GPGME data buffer: " + gpg_message(err));
  return DataPtr(d);
}

}  // namespace

struct SignatureVerifier::Impl {
  std::string home;                       // private GnuPG home (removed by ~Impl)
  gpgme_ctx_t ctx = nullptr;
  std::string fingerprint;                // primary, 40 upper-case hex
  std::vector<std::string> accepted;      // primary and subkey fingerprints
  ~Impl() {
    if (ctx) gpgme_release(ctx);
    // gpg may still be releasing a lock file in the home as the context
    // goes away; try again briefly rather than leave the folder behind.
    for (int attempt = 0; !home.empty() && attempt < 5; ++attempt) {
      std::error_code ec;
      std::filesystem::remove_all(home, ec);
      if (!std::filesystem::exists(home, ec)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
};

SignatureVerifier::SignatureVerifier(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SignatureVerifier::SignatureVerifier(SignatureVerifier&&) noexcept = default;
SignatureVerifier& SignatureVerifier::operator=(SignatureVerifier&&) noexcept = default;
SignatureVerifier::~SignatureVerifier() = default;

const std::string& SignatureVerifier::fingerprint() const { return impl_->fingerprint; }

Status SignatureVerifier::engine_available() {
  static std::once_flag once;
  static const char* version = nullptr;
  std::call_once(once, [] { version = gpgme_check_version(nullptr); });
  if (!version) return Error("GPGME could not be initialised");
  if (gpgme_error_t err = gpgme_engine_check_version(GPGME_PROTOCOL_OpenPGP))
    return Error("GnuPG engine unavailable: " + gpg_message(err));
  return Ok{};
}

Expected<SignatureVerifier> SignatureVerifier::create(std::string_view key, std::string_view fingerprint) {
  std::string pinned = normalise_fingerprint(fingerprint);
  if (!is_hex40(pinned))
    return Error("pinned fingerprint '" + std::string(fingerprint) + "' is not 40 hexadecimal digits");
  if (auto ok = engine_available(); !ok) return ok.error();

  auto impl = std::make_unique<Impl>();
  const char* tmp = getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/cuwheel-gnupg-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) return Error("cannot create a private GnuPG home in " + tmpl);
  impl->home = buf.data();
  // Public-key import and verification need no gpg-agent; without this gpg
  // starts one per home, which would outlive the removed folder.
  if (auto s = write_file_atomic(impl->home + "/gpg.conf", "no-autostart\n", 0600); !s) return s.error();

  if (gpgme_error_t err = gpgme_new(&impl->ctx)) return Error("GPGME context: " + gpg_message(err));
  if (gpgme_error_t err = gpgme_set_protocol(impl->ctx, GPGME_PROTOCOL_OpenPGP))
    return Error("GPGME protocol: " + gpg_message(err));
  if (gpgme_error_t err =
          gpgme_ctx_set_engine_info(impl->ctx, GPGME_PROTOCOL_OpenPGP, nullptr, impl->home.c_str()))
    return Error("GPGME home directory: " + gpg_message(err));
  gpgme_set_offline(impl->ctx, 1);  // never fetch keys or CRLs

  auto key_data = data_from(key.data(), key.size());
  if (!key_data) return key_data.error();
  if (gpgme_error_t err = gpgme_op_import(impl->ctx, key_data->get()))
    return Error("key import: " + gpg_message(err));
  gpgme_import_result_t ir = gpgme_op_import_result(impl->ctx);
  if (!ir || ir->considered == 0 || !ir->imports) return Error("no OpenPGP public key in the key data");

  // Every key now in the private keyring must be the pinned one.
  std::vector<std::string> primaries;
  if (gpgme_error_t err = gpgme_op_keylist_start(impl->ctx, nullptr, 0))
    return Error("key listing: " + gpg_message(err));
  for (;;) {
    gpgme_key_t k = nullptr;
    gpgme_error_t err = gpgme_op_keylist_next(impl->ctx, &k);
    if (gpg_err_code(err) == GPG_ERR_EOF) break;
    if (err) return Error("key listing: " + gpg_message(err));
    if (k->subkeys && k->subkeys->fpr) {
      primaries.push_back(normalise_fingerprint(k->subkeys->fpr));
      for (gpgme_subkey_t s = k->subkeys; s; s = s->next)
        if (s->fpr) impl->accepted.push_back(normalise_fingerprint(s->fpr));
    }
    gpgme_key_unref(k);
  }
  gpgme_op_keylist_end(impl->ctx);
  if (primaries.empty()) return Error("no OpenPGP public key in the key data");
  if (primaries.size() != 1) {
    std::string all;
    for (const auto& p : primaries) all += (all.empty() ? "" : ", ") + p;
    return Error("key data holds " + std::to_string(primaries.size()) + " keys (" + all +
                 "), expected only the pinned " + pinned);
  }
  if (primaries[0] != pinned)
    return Error("key fingerprint " + primaries[0] + " is not the pinned " + pinned);
  impl->fingerprint = pinned;
  return SignatureVerifier(std::move(impl));
}

Status SignatureVerifier::verify_detached(ByteView signature, ByteView data) const {
  auto sig = data_from(signature.data(), signature.size());
  if (!sig) return sig.error();
  auto text = data_from(data.data(), data.size());
  if (!text) return text.error();
  if (gpgme_error_t err = gpgme_op_verify(impl_->ctx, sig->get(), text->get(), nullptr))
    return Error("signature could not be checked (" + gpg_message(err) + ")");
  gpgme_verify_result_t vr = gpgme_op_verify_result(impl_->ctx);
  if (!vr || !vr->signatures) return Error("no OpenPGP signature in the signature data");
  for (gpgme_signature_t s = vr->signatures; s; s = s->next) {
    std::string fpr = s->fpr ? normalise_fingerprint(s->fpr) : "";
    bool ours = false;
    for (const auto& a : impl_->accepted) {
      // gpg reports the full fingerprint, or only the 16-hex key id when the
      // signature lacks an issuer-fingerprint subpacket (RFC 4880bis 5.2.3.28).
      if (!fpr.empty() && a.size() >= fpr.size() && a.compare(a.size() - fpr.size(), fpr.size(), fpr) == 0)
        ours = true;
    }
    gpg_err_code_t code = gpg_err_code(s->status);
    if (code == GPG_ERR_NO_PUBKEY || !ours)
      return Error("signature by key " + (fpr.empty() ? std::string("(unknown)") : fpr) +
                   ", which is not the pinned key " + impl_->fingerprint);
    if (code == GPG_ERR_BAD_SIGNATURE) return Error("bad signature by the pinned key");
    if (code != GPG_ERR_NO_ERROR)
      return Error("signature by the pinned key not accepted (" + gpg_message(s->status) + ")");
  }
  return Ok{};
}

}  // namespace cuwheel::rpm
