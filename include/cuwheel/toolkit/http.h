// Fetching repository files for `cuwheel toolkit`: one small HTTP(S) GET
// helper over libcurl that also reads `file://` URLs and plain paths, so a
// repository can be given as https://developer.download.nvidia.com/..., as a
// loopback test server, or as a local mirror folder, and every caller reads
// it the same way.
//
// Behaviour common to both functions:
//  - Schemes: http://, https://, file:// (an absolute path, percent-escapes
//    decoded, RFC 8089) and anything without "://", read as a local path.
//    Other schemes (ftp://, scp://, ...) are refused. Redirects are
//    followed (at most 10), but only to http/https.
//  - An HTTP status of 400 or more is an error ("HTTP 404"); so is a body
//    larger than `max_bytes` (the transfer is stopped as soon as it is
//    exceeded, never buffered first).
//  - Timeouts: 30 s to connect; a transfer slower than 1 byte/s for 60 s is
//    abandoned (CURLOPT_LOW_SPEED_LIMIT/TIME), so a stalled server never
//    hangs the tool. No overall limit: large RPMs on slow links still finish.
//  - TLS certificates are verified against the system's CA store, found by
//    find_ca_certificates() below rather than by a path compiled into
//    libcurl (the wheel's static libcurl has none, and Debian, RHEL/Alma and
//    SUSE keep the store in different places); proxies come from the usual
//    environment variables (https_proxy, no_proxy, ... as curl(1) documents).
//  - Error messages start with the URL or path.
#pragma once

#include <cstdint>
#include <string>

#include "cuwheel/base/expected.h"

namespace cuwheel::toolkit {

/// True when `url` names a network resource (http:// or https://).
bool is_remote_url(const std::string& url);

/// Resolves `location` (a path relative to a repository, as repodata's
/// <location href> gives it) against `base` (a URL or folder, with or
/// without a trailing '/'). A `location` that is itself a URL is returned
/// as is. Example: join_url("https://h/rhel8/x86_64", "repodata/repomd.xml")
/// is "https://h/rhel8/x86_64/repodata/repomd.xml".
std::string join_url(const std::string& base, const std::string& location);

/// The CA certificates HTTPS is verified against.
struct CaCertificates {
  std::string file;  ///< a PEM bundle ("" = none)
  std::string dir;   ///< a hashed certificate folder, c_rehash layout ("" = none)
};

/// Finds the system's CA certificates the way OpenSSL-based tools do on
/// Linux. In order: the environment variables SSL_CERT_FILE / SSL_CERT_DIR
/// (OpenSSL's names) and CURL_CA_BUNDLE (curl's), taken as given; then the
/// first existing regular file of /etc/ssl/certs/ca-certificates.crt
/// (Debian, Ubuntu, Alpine), /etc/pki/tls/certs/ca-bundle.crt (RHEL,
/// AlmaLinux, Fedora: manylinux_2_28's images),
/// /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem (RHEL's source of that
/// file), /etc/ssl/ca-bundle.pem (SUSE), /etc/ssl/cert.pem (Alpine,
/// macOS-style), under `root` (a folder prefix for tests; "" = /).
/// Errors: an environment variable naming something that does not exist
/// (naming the variable and path); no store found (listing every place
/// looked at, and saying to install the ca-certificates package or set
/// SSL_CERT_FILE).
Expected<CaCertificates> find_ca_certificates(const std::string& root = "");

/// Reads the whole resource at `url` into memory.
/// Errors: unsupported scheme, connection/TLS/timeout failures (curl's
/// message), an https:// URL with no CA certificates on the machine
/// (find_ca_certificates' message), HTTP status >= 400, local file missing or not regular, more
/// than `max_bytes` bytes.
Expected<std::string> http_get(const std::string& url, uint64_t max_bytes);

/// What http_download wrote.
struct Download {
  uint64_t size = 0;    ///< bytes written
  std::string sha256;   ///< SHA-256 of those bytes, 64 lower-case hex digits
};

/// Streams the resource at `url` to `dest_path`, hashing it on the way
/// (SHA-256, FIPS 180-4). The bytes go to "<dest_path>.part.<pid>" in the
/// same folder, are fsync'ed and renamed over `dest_path` only when the
/// transfer is complete and, if given, match `expect_sha256` (64 hex digits,
/// either case) and `expect_size` (bytes; UINT64_MAX = not checked). On any
/// error the partial file is removed and `dest_path` is left as it was.
/// Errors: those of http_get, plus "size N, expected M" / "sha256 X,
/// expected Y" (naming the URL) and file-system failures (naming the path).
Expected<Download> http_download(const std::string& url, const std::string& dest_path,
                                 uint64_t max_bytes, const std::string& expect_sha256 = "",
                                 uint64_t expect_size = UINT64_MAX);

}  // namespace cuwheel::toolkit
