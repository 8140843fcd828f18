// HTTP(S), file:// and local-path reads for `cuwheel toolkit` (see
// include/cuwheel/toolkit/http.h for the contract).
#include "cuwheel/toolkit/http.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>

#include "cuwheel/base/digest.h"

namespace cuwheel::toolkit {

namespace {

// A consumer of body bytes; returns "" to continue or a reason to stop.
using Sink = std::function<std::string(const char* data, size_t n)>;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string to_hex(const std::string& raw) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() * 2);
  for (unsigned char c : raw) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// file:///abs/path -> /abs/path (RFC 8089: only an empty or "localhost"
// authority names this machine), with percent-escapes decoded.
Expected<std::string> file_url_path(const std::string& url) {
  std::string rest = url.substr(7);
  if (starts_with(rest, "localhost/")) rest = rest.substr(9);
  if (rest.empty() || rest[0] != '/') return Error(url + ": file:// URL must name an absolute path on this machine");
  std::string out;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(rest[i]);
    }
  }
  return out;
}

Status read_local(const std::string& shown, const std::string& path, uint64_t max_bytes, const Sink& sink) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error(shown + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(shown + ": not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return Error(shown + ": larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::string buf(1 << 16, '\0');
  uint64_t total = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return Error(shown + ": read error at offset " + std::to_string(total) + ": " + std::strerror(e));
    }
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (total > max_bytes) {
      ::close(fd);
      return Error(shown + ": larger than " + std::to_string(max_bytes) + " bytes");
    }
    std::string why = sink(buf.data(), static_cast<size_t>(n));
    if (!why.empty()) {
      ::close(fd);
      return Error(shown + ": " + why);
    }
  }
  ::close(fd);
  return Ok{};
}

struct Transfer {
  const Sink* sink;
  uint64_t max_bytes;
  uint64_t total = 0;
  std::string stop_reason;
};

size_t on_body(char* data, size_t size, size_t nmemb, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * nmemb;
  t->total += n;
  if (t->total > t->max_bytes) {
    t->stop_reason = "larger than " + std::to_string(t->max_bytes) + " bytes";
    return 0;  // a short count makes curl stop with CURLE_WRITE_ERROR
  }
  std::string why = (*t->sink)(data, n);
  if (!why.empty()) {
    t->stop_reason = why;
    return 0;
  }
  return n;
}

Status read_remote(const std::string& url, uint64_t max_bytes, const Sink& sink) {
  // An https:// URL needs the CA store; an http:// one may still redirect to
  // https://, so a missing store is reported then, with curl's message.
  auto ca = find_ca_certificates();
  if (!ca && starts_with(lower(url.substr(0, 8)), "https://")) return Error(url + ": " + ca.error().message());
  global_init();
  CURL* h = curl_easy_init();
  if (!h) return Error(url + ": cannot initialise libcurl");
  Transfer t{&sink, max_bytes, 0, {}};
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  if (ca) {
    if (!ca->file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, ca->file.c_str());
    if (!ca->dir.empty()) curl_easy_setopt(h, CURLOPT_CAPATH, ca->dir.c_str());
  }
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "cuwheel-toolkit");
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  // Refuse a declared body over the limit before it starts.
  curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(
                                                     max_bytes > INT64_MAX ? INT64_MAX : max_bytes));
  CURLcode rc = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(h);
  if (!t.stop_reason.empty()) return Error(url + ": " + t.stop_reason);
  if (rc == CURLE_FILESIZE_EXCEEDED) return Error(url + ": larger than " + std::to_string(max_bytes) + " bytes");
  if (rc != CURLE_OK) {
    std::string msg = errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
    if (!ca && (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE))
      msg += " (" + ca.error().message() + ")";
    return Error(url + ": " + msg);
  }
  if (status >= 400) return Error(url + ": HTTP " + std::to_string(status));
  return Ok{};
}

// Dispatches on the scheme.
Status read_any(const std::string& url, uint64_t max_bytes, const Sink& sink) {
  if (is_remote_url(url)) return read_remote(url, max_bytes, sink);
  if (starts_with(url, "file://")) {
    auto path = file_url_path(url);
    if (!path) return path.error();
    return read_local(url, *path, max_bytes, sink);
  }
  if (url.find("://") != std::string::npos)
    return Error(url + ": unsupported URL scheme (use http://, https://, file:// or a path)");
  return read_local(url, url, max_bytes, sink);
}

}  // namespace

Expected<CaCertificates> find_ca_certificates(const std::string& root) {
  auto exists = [](const std::string& path, bool dir) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 && (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
  };
  CaCertificates out;
  struct Var { const char* name; bool dir; };
  for (Var v : {Var{"SSL_CERT_FILE", false}, Var{"SSL_CERT_DIR", true}, Var{"CURL_CA_BUNDLE", false}}) {
    const char* value = std::getenv(v.name);
    if (!value || !*value) continue;
    if (!exists(value, v.dir))
      return Error(std::string(v.name) + "=" + value + ": no such " + (v.dir ? "folder" : "file") +
                   " (the CA certificates for HTTPS)");
    std::string& slot = v.dir ? out.dir : out.file;
    if (slot.empty()) slot = value;
  }
  if (!out.file.empty() || !out.dir.empty()) return out;
  static const char* const kBundles[] = {
      "/etc/ssl/certs/ca-certificates.crt",                 // Debian, Ubuntu, Alpine
      "/etc/pki/tls/certs/ca-bundle.crt",                   // RHEL, AlmaLinux, Fedora
      "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // RHEL's extracted store
      "/etc/ssl/ca-bundle.pem",                             // SUSE
      "/etc/ssl/cert.pem",                                  // Alpine, LibreSSL
  };
  std::string looked;
  for (const char* path : kBundles) {
    if (exists(root + path, false)) {
      out.file = root + path;
      return out;
    }
    looked += looked.empty() ? "" : ", ";
    looked += root + path;
  }
  return Error("no CA certificates for HTTPS on this machine (looked at SSL_CERT_FILE, SSL_CERT_DIR, "
               "CURL_CA_BUNDLE and " + looked + "); install the ca-certificates package or set SSL_CERT_FILE");
}

bool is_remote_url(const std::string& url) {
  std::string l = lower(url.substr(0, 8));
  return starts_with(l, "http://") || starts_with(l, "https://");
}

std::string join_url(const std::string& base, const std::string& location) {
  if (location.find("://") != std::string::npos) return location;
  if (base.empty()) return location;
  std::string rel = location;
  while (starts_with(rel, "./")) rel = rel.substr(2);
  if (base.back() == '/') return base + rel;
  return base + "/" + rel;
}

Expected<std::string> http_get(const std::string& url, uint64_t max_bytes) {
  std::string body;
  Sink sink = [&body](const char* data, size_t n) {
    body.append(data, n);
    return std::string();
  };
  Status st = read_any(url, max_bytes, sink);
  if (!st) return st.error();
  return body;
}

Expected<Download> http_download(const std::string& url, const std::string& dest_path, uint64_t max_bytes,
                                 const std::string& expect_sha256, uint64_t expect_size) {
  static std::atomic<unsigned> counter{0};
  std::string part = dest_path + ".part." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Error(dest_path + ": cannot create " + part + ": " + std::strerror(errno));
  auto digest = Digest::create("sha256");
  if (!digest) {
    ::close(fd);
    ::unlink(part.c_str());
    return digest.error();
  }
  uint64_t size = 0;
  Sink sink = [&](const char* data, size_t n) -> std::string {
    digest->update(ByteView(reinterpret_cast<const uint8_t*>(data), n));
    size_t put = 0;
    while (put < n) {
      ssize_t w = ::write(fd, data + put, n - put);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return "cannot write " + part + ": " + std::strerror(errno);
      put += static_cast<size_t>(w);
    }
    size += n;
    return std::string();
  };
  auto fail = [&](Error e) -> Expected<Download> {
    ::close(fd);
    ::unlink(part.c_str());
    return e;
  };
  Status st = read_any(url, max_bytes, sink);
  if (!st) return fail(st.error());
  std::string sha = to_hex(digest->finish());
  if (expect_size != UINT64_MAX && size != expect_size)
    return fail(Error(url + ": size " + std::to_string(size) + ", expected " + std::to_string(expect_size)));
  if (!expect_sha256.empty() && sha != lower(expect_sha256))
    return fail(Error(url + ": sha256 " + sha + ", expected " + lower(expect_sha256)));
  if (::fsync(fd) != 0) return fail(Error(dest_path + ": fsync failed: " + std::strerror(errno)));
  if (::close(fd) != 0) {
    int e = errno;
    ::unlink(part.c_str());
    return Error(dest_path + ": close failed: " + std::strerror(e));
  }
  if (::rename(part.c_str(), dest_path.c_str()) != 0) {
    int e = errno;
    ::unlink(part.c_str());
    return Error(dest_path + ": rename failed: " + std::strerror(e));
  }
  return Download{size, sha};
}

}  // namespace cuwheel::toolkit
