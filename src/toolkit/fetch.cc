// `toolkit download` and `toolkit verify`: the locked RPMs, checked file by
// file against the lock and the pinned repository key
// (cuwheel/toolkit/fetch.h).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "cuwheel/base/fileio.h"
#include "cuwheel/toolkit/rpm.h"
#include "cuwheel/base/source.h"
#include "cuwheel/base/digest.h"
#include "cuwheel/toolkit/fetch.h"
#include "cuwheel/toolkit/http.h"

namespace cuwheel::toolkit {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxKeyBytes = uint64_t{1} << 20;

std::string hex_lower(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string last_component(const std::string& s) {
  std::string t = s;
  while (!t.empty() && t.back() == '/') t.pop_back();
  size_t slash = t.rfind('/');
  return slash == std::string::npos ? t : t.substr(slash + 1);
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// The checks of one file on disk: size, SHA-256, then (with a verifier) the
// RPM's header signature and payload digest, and that the signed header
// names the locked package. `status` is rejected for a mismatch,
// unavailable when the file cannot be read.
struct Check {
  FileOutcome::Status status = FileOutcome::Status::verified;
  std::string message;
  std::string nevra;
};

Check check_file(const std::string& path, const LockedRpm& rpm, const rpm::SignatureVerifier* verifier) {
  Check c;
  auto blob = Blob::map_file(path);
  if (!blob) {
    c.status = FileOutcome::Status::unavailable;
    c.message = blob.error().message();
    return c;
  }
  ByteView bytes = blob->view();
  if (bytes.size() != rpm.size) {
    c.status = FileOutcome::Status::rejected;
    c.message = "size " + std::to_string(bytes.size()) + " bytes, the lock pins " + std::to_string(rpm.size);
    return c;
  }
  auto digest = sha256(bytes);
  std::string got = hex_lower(digest.data(), digest.size());
  if (got != lower(rpm.sha256)) {
    c.status = FileOutcome::Status::rejected;
    c.message = "sha256 " + got + ", the lock pins " + lower(rpm.sha256);
    return c;
  }
  if (!verifier) return c;
  auto pkg = rpm::read_package(bytes);
  if (!pkg) {
    c.status = FileOutcome::Status::rejected;
    c.message = "not a readable RPM: " + pkg.error().message();
    return c;
  }
  c.nevra = pkg->nevra();
  if (auto s = rpm::verify_package(*pkg, verifier); !s) {
    c.status = FileOutcome::Status::rejected;
    c.message = s.error().message();
    return c;
  }
  std::string evr = (pkg->epoch ? std::to_string(pkg->epoch) + ":" : "") + pkg->version + "-" + pkg->release;
  if (pkg->name != rpm.name || evr != rpm.evr || pkg->arch != rpm.arch) {
    c.status = FileOutcome::Status::rejected;
    c.message = "signed header names " + c.nevra + ", the lock pins " + rpm.name + "-" + rpm.evr + "." + rpm.arch;
  }
  return c;
}

Status write_sums(const std::string& dest, const LockedToolkit& tk) {
  std::vector<std::pair<std::string, std::string>> lines;
  for (const auto& r : tk.rpms) {
    auto name = local_name(r);
    if (!name) return name.error();
    lines.emplace_back(*name, lower(r.sha256));
  }
  std::sort(lines.begin(), lines.end());
  std::string text;
  for (const auto& [name, sha] : lines) text += sha + "  " + name + "\n";
  return write_file_atomic(dest + "/SHA256SUMS", text);
}

// Builds the verifier from key bytes, naming `where` in errors.
// Callers check rpm::SignatureVerifier::engine_available() first, so an
// error here is about the key itself (key-rejected).
Expected<rpm::SignatureVerifier> make_verifier(const std::string& key, const LockedToolkit& tk,
                                               const std::string& where) {
  auto v = rpm::SignatureVerifier::create(key, tk.key_fingerprint);
  if (!v) return v.error().context(where);
  return v;
}

}  // namespace

const char* to_string(FileOutcome::Status s) {
  switch (s) {
    case FileOutcome::Status::downloaded: return "downloaded";
    case FileOutcome::Status::reused: return "reused";
    case FileOutcome::Status::verified: return "verified";
    case FileOutcome::Status::rejected: return "rejected";
    case FileOutcome::Status::unavailable: return "unavailable";
  }
  return "unavailable";
}

bool FetchReport::ok() const {
  if (!key_rejected.empty() || !sums.problems.empty() || !unlocked.empty()) return false;
  for (const auto& f : files)
    if (f.status == FileOutcome::Status::rejected || f.status == FileOutcome::Status::unavailable) return false;
  return true;
}

bool FetchReport::any_rejected() const {
  if (!key_rejected.empty() || !sums.problems.empty() || !unlocked.empty()) return true;
  for (const auto& f : files)
    if (f.status == FileOutcome::Status::rejected) return true;
  return false;
}

std::vector<Diagnostic> FetchReport::diagnostics(const std::string& folder) const {
  std::vector<Diagnostic> out;
  auto add = [&](const char* rule, const std::string& member, const std::string& message) {
    Diagnostic d;
    d.rule = rule;
    d.severity = Severity::error;
    d.path = folder;
    d.member = member;
    d.message = message;
    out.push_back(std::move(d));
  };
  if (!key_rejected.empty()) add("key-rejected", "", key_rejected);
  for (const auto& f : files) {
    if (f.status == FileOutcome::Status::rejected) add("rpm-rejected", f.file, f.file + ": " + f.message);
    else if (f.status == FileOutcome::Status::unavailable) add("rpm-unavailable", f.file, f.file + ": " + f.message);
  }
  for (const auto& u : unlocked)
    add("unlocked-file", u, u + ": not a file of the lock for " + toolkit + " (`dnf install " + folder +
                                "/*.rpm` would install it too); left in place");
  for (const auto& p : sums.problems) out.push_back(p);
  return out;
}

Expected<std::string> local_name(const LockedRpm& rpm) {
  std::string name = last_component(rpm.location);
  if (name.empty() || name == "." || name == ".." || name.find('\0') != std::string::npos)
    return Error("lock entry " + rpm.name + ": location '" + rpm.location + "' names no file");
  return name;
}

Expected<std::vector<std::string>> unlocked_entries(const LockedToolkit& tk, const std::string& dir) {
  std::set<std::string> allowed{"SHA256SUMS"};
  for (const auto& r : tk.rpms)
    if (auto name = local_name(r)) allowed.insert(*name);
  if (!tk.key_url.empty()) allowed.insert(last_component(tk.key_url));
  std::vector<std::string> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!allowed.count(name)) out.push_back(std::move(name));
  }
  if (ec) return Error(dir + ": cannot list the folder: " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

Expected<FetchReport> download_toolkit(const LockedToolkit& tk, const std::string& dest, bool signatures,
                                       const FetchProgress& progress) {
  FetchReport report;
  report.toolkit = tk.name;
  std::error_code ec;
  fs::create_directories(dest, ec);
  if (ec || !fs::is_directory(dest)) return Error(dest + ": cannot create folder" + (ec ? ": " + ec.message() : ""));

  std::optional<rpm::SignatureVerifier> verifier;
  if (signatures && !tk.key_fingerprint.empty()) {
    if (tk.key_url.empty())
      return Error("toolkit " + tk.name + ": the lock pins key fingerprint " + tk.key_fingerprint +
                   " but has no key_url");
    if (auto ok = rpm::SignatureVerifier::engine_available(); !ok)
      return ok.error().context("signature checks need gpg (Debian/Ubuntu: gnupg; RHEL: gnupg2)");
    auto key = http_get(tk.key_url, kMaxKeyBytes);
    if (!key) return key.error().context("repository key");
    auto v = make_verifier(*key, tk, "repository key " + tk.key_url);
    if (!v) {
      report.key_rejected = v.error().message();
      std::error_code ec2;
      fs::remove(dest + "/SHA256SUMS", ec2);  // nothing here may look verified
      return report;
    }
    verifier.emplace(std::move(*v));
    report.key_file = last_component(tk.key_url);
    report.key_fingerprint = verifier->fingerprint();
    if (auto s = write_file_atomic(dest + "/" + report.key_file, *key); !s) return s.error();
  }
  const rpm::SignatureVerifier* vp = verifier ? &*verifier : nullptr;

  // Temporaries of an earlier download that was killed ("<locked file>.part.<pid>",
  // never a user's file): removed, so a cancelled CI job does not leave the
  // folder failing verification until someone deletes them by hand.
  {
    std::set<std::string> locked;
    for (const auto& r : tk.rpms)
      if (auto name = local_name(r)) locked.insert(*name);
    std::error_code lec;
    std::vector<fs::path> stale;
    for (fs::directory_iterator it(dest, lec), end; !lec && it != end; it.increment(lec)) {
      const std::string n = it->path().filename().string();
      size_t at = n.rfind(".part.");
      if (at == std::string::npos || !locked.count(n.substr(0, at))) continue;
      std::string_view pid = std::string_view(n).substr(at + 6);
      if (pid.empty() || pid.find_first_not_of("0123456789") != std::string_view::npos) continue;
      if (it->is_regular_file(lec)) stale.push_back(it->path());
    }
    for (const auto& f : stale) fs::remove(f, lec);
  }

  for (size_t i = 0; i < tk.rpms.size(); ++i) {
    const LockedRpm& r = tk.rpms[i];
    FileOutcome out;
    auto name = local_name(r);
    if (!name) {
      out.file = r.location;
      out.status = FileOutcome::Status::unavailable;
      out.message = name.error().message();
      report.files.push_back(out);
      continue;
    }
    out.file = *name;
    out.signature_checked = vp != nullptr;
    if (progress) progress(out.file, i, tk.rpms.size());
    std::string final_path = dest + "/" + out.file;
    std::string note;
    if (exists(final_path)) {
      Check c = check_file(final_path, r, vp);
      if (c.status == FileOutcome::Status::verified) {
        out.status = FileOutcome::Status::reused;
        out.nevra = c.nevra;
        report.files.push_back(out);
        continue;
      }
      // A cached file that is not the pinned one is never used, and never
      // left under its final name.
      note = "cached copy rejected (" + c.message + "), downloaded again";
      fs::remove(final_path, ec);
    }
    std::string part = final_path + ".part." + std::to_string(::getpid());
    std::string url = join_url(tk.repo, r.location);
    auto got = http_download(url, part, r.size);
    if (!got) {
      fs::remove(part, ec);
      std::string msg = got.error().message();
      // Only a body longer than the pin stops the transfer with this text.
      bool too_long = msg.size() > 6 && msg.ends_with("larger than " + std::to_string(r.size) + " bytes");
      out.status = too_long ? FileOutcome::Status::rejected : FileOutcome::Status::unavailable;
      out.message = too_long ? "download is larger than the pinned size " + std::to_string(r.size) + " bytes" : msg;
      report.files.push_back(out);
      continue;
    }
    Check c = check_file(part, r, vp);
    if (c.status != FileOutcome::Status::verified) {
      fs::remove(part, ec);
      out.status = c.status;
      out.message = "download from " + url + ": " + c.message;
      report.files.push_back(out);
      continue;
    }
    if (::rename(part.c_str(), final_path.c_str()) != 0) {
      fs::remove(part, ec);
      out.status = FileOutcome::Status::unavailable;
      out.message = final_path + ": rename failed";
      report.files.push_back(out);
      continue;
    }
    out.status = FileOutcome::Status::downloaded;
    out.nevra = c.nevra;
    out.message = note;
    report.files.push_back(out);
  }

  // Listed after the fetches, so this run's own partial files are gone.
  auto extra = unlocked_entries(tk, dest);
  if (!extra) return extra.error();
  report.unlocked = std::move(*extra);
  if (report.ok()) {
    if (auto s = write_sums(dest, tk); !s) return s.error();
    report.sums_written = true;
  } else {
    fs::remove(dest + "/SHA256SUMS", ec);  // an earlier, complete list would now be a lie
  }
  return report;
}

SumsCheck check_sums(std::string_view text, const std::string& path, const LockedToolkit& tk) {
  SumsCheck out;
  out.present = true;
  // The lock's names and digests; a lock entry without a usable name is
  // reported by verify itself, not here.
  std::map<std::string, std::string> pinned;
  for (const auto& r : tk.rpms)
    if (auto name = local_name(r)) pinned.emplace(*name, lower(r.sha256));
  std::map<std::string, size_t> listed;  // name -> first line
  auto problem = [&](const char* rule, size_t line, std::string file, const std::string& what) {
    SumsProblem p;
    p.rule = rule;
    p.severity = Severity::error;
    p.path = path;
    p.member = std::move(file);
    p.line = line;
    p.message = path + ":" + std::to_string(line) + ": " + what;
    out.problems.push_back(std::move(p));
  };
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    size_t n = ++out.lines;
    // GNU sha256sum: "<digest> <' ' or '*'><name>"; a line starting with
    // '\\' carries an escaped name, which download never writes.
    bool ok = line.size() > 66 && line[64] == ' ' && (line[65] == ' ' || line[65] == '*');
    for (size_t i = 0; ok && i < 64; ++i) ok = std::isxdigit(static_cast<unsigned char>(line[i])) != 0;
    std::string name = ok ? std::string(line.substr(66)) : "";
    if (!ok || name.find('/') != std::string::npos || name == "." || name == ".." ||
        name.find('\r') != std::string::npos || name.find('\0') != std::string::npos) {
      std::string shown(line.substr(0, 80));
      for (char& c : shown)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
      problem("sums-malformed-line", n, "", "not a sha256sum line (\"<64 hex digits>  <file name>\"): \"" + shown +
                         (line.size() > 80 ? "..." : "") + "\"");
      continue;
    }
    std::string sha = lower(std::string(line.substr(0, 64)));
    auto [first, inserted] = listed.emplace(name, n);
    if (!inserted) {
      problem("sums-listed-twice", n, name, name + " is listed twice (first on line " + std::to_string(first->second) + ")");
      continue;
    }
    auto pin = pinned.find(name);
    if (pin == pinned.end()) {
      problem("sums-unknown-file", n, name, name + " is listed but is not a file of the lock for " + tk.name);
      continue;
    }
    if (sha != pin->second) problem("sums-digest-mismatch", n, name, name + ": sha256 " + sha + ", the lock pins " + pin->second);
  }
  for (const auto& r : tk.rpms) {
    auto name = local_name(r);
    if (name && !listed.count(*name)) {
      SumsProblem p;
      p.rule = "sums-missing-file";
      p.severity = Severity::error;
      p.path = path;
      p.member = *name;
      p.message = path + ": does not list " + *name + ", a file of the lock for " + tk.name;
      out.problems.push_back(std::move(p));
    }
  }
  return out;
}

Expected<FetchReport> verify_toolkit(const LockedToolkit& tk, const std::string& dir, bool signatures) {
  FetchReport report;
  report.toolkit = tk.name;
  if (!fs::is_directory(dir)) return Error(dir + ": not a folder");
  // SHA256SUMS is what extract unpacks: when present it must say what the
  // lock says, whatever the files themselves hold.
  const std::string sums_path = dir + "/SHA256SUMS";
  if (exists(sums_path)) {
    auto text = read_whole_file(sums_path, size_t{16} << 20);
    if (!text) return text.error();
    report.sums = check_sums(*text, sums_path, tk);
  }
  // Whatever else is in the folder would be installed by `dnf install DIR/*.rpm`.
  auto extra = unlocked_entries(tk, dir);
  if (!extra) return extra.error();
  report.unlocked = std::move(*extra);
  std::optional<rpm::SignatureVerifier> verifier;
  if (signatures) {
    if (tk.key_fingerprint.empty())
      return Error("toolkit " + tk.name + ": --signatures given but the lock pins no key fingerprint");
    if (tk.key_url.empty())
      return Error("toolkit " + tk.name + ": the lock pins key fingerprint " + tk.key_fingerprint +
                   " but has no key_url");
    report.key_file = last_component(tk.key_url);
    std::string key_path = dir + "/" + report.key_file;
    if (auto ok = rpm::SignatureVerifier::engine_available(); !ok)
      return ok.error().context("signature checks need gpg (Debian/Ubuntu: gnupg; RHEL: gnupg2)");
    auto key = read_whole_file(key_path, kMaxKeyBytes);
    if (!key) return key.error();
    auto v = make_verifier(*key, tk, key_path);
    if (!v) {
      report.key_rejected = v.error().message();
      return report;
    }
    verifier.emplace(std::move(*v));
    report.key_fingerprint = verifier->fingerprint();
  }
  const rpm::SignatureVerifier* vp = verifier ? &*verifier : nullptr;
  for (const auto& r : tk.rpms) {
    FileOutcome out;
    auto name = local_name(r);
    if (!name) {
      out.file = r.location;
      out.message = name.error().message();
      report.files.push_back(out);
      continue;
    }
    out.file = *name;
    out.signature_checked = vp != nullptr;
    std::string path = dir + "/" + out.file;
    if (!exists(path)) {
      out.status = FileOutcome::Status::unavailable;
      out.message = path + ": missing";
      report.files.push_back(out);
      continue;
    }
    Check c = check_file(path, r, vp);
    out.status = c.status;
    out.nevra = c.nevra;
    out.message = c.message;
    report.files.push_back(out);
  }
  return report;
}

}  // namespace cuwheel::toolkit
