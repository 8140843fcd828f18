// Release sets: verify a folder of built files against the policy, and split
// it into one folder per distribution. See include/cuwheel/release/release.h.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "cuwheel/model/facts.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/wheel/metadata.h"
#include "cuwheel/wheel/pep508.h"
#include "cuwheel/release/release.h"
#include "cuwheel/wheel/wheel.h"

namespace fs = std::filesystem;

namespace cuwheel::release {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string join(const std::vector<std::string>& v, std::string_view sep = ", ") {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// Closes a libarchive reader on every path.
struct ArchiveReader {
  struct archive* a = archive_read_new();
  ~ArchiveReader() { archive_read_free(a); }
};

// The PKG-INFO of an sdist: `{stem}/PKG-INFO` (sdist format spec: one
// top-level folder named after the file). nullopt with `error` set when the
// archive is unreadable; empty optional with error empty when it is absent.
std::optional<std::string> read_pkg_info(const std::string& path, const std::string& stem, std::string& error) {
  ArchiveReader r;
  archive_read_support_filter_gzip(r.a);
  archive_read_support_format_tar(r.a);
  if (archive_read_open_filename(r.a, path.c_str(), 64 * 1024) != ARCHIVE_OK) {
    error = archive_error_string(r.a) ? archive_error_string(r.a) : "cannot open the archive";
    return std::nullopt;
  }
  const std::string want = stem + "/PKG-INFO";
  struct archive_entry* entry = nullptr;
  for (uint64_t n = 0; n < (1u << 20); ++n) {
    int rc = archive_read_next_header(r.a, &entry);
    if (rc == ARCHIVE_EOF) return std::nullopt;
    if (rc < ARCHIVE_WARN) {
      error = archive_error_string(r.a) ? archive_error_string(r.a) : "corrupt archive";
      return std::nullopt;
    }
    const char* name = archive_entry_pathname(entry);
    std::string_view nv = name ? name : "";
    if (nv.substr(0, 2) == "./") nv.remove_prefix(2);
    if (nv != want || archive_entry_filetype(entry) != AE_IFREG) continue;
    if (archive_entry_size_is_set(entry) && archive_entry_size(entry) > (1 << 20)) {
      error = want + " is larger than 1 MiB";
      return std::nullopt;
    }
    std::string data;
    char buf[16384];
    while (true) {
      la_ssize_t got = archive_read_data(r.a, buf, sizeof buf);
      if (got < 0) {
        error = archive_error_string(r.a) ? archive_error_string(r.a) : "corrupt archive";
        return std::nullopt;
      }
      if (got == 0) break;
      data.append(buf, static_cast<size_t>(got));
      if (data.size() > (1 << 20)) {
        error = want + " is larger than 1 MiB";
        return std::nullopt;
      }
    }
    return data;
  }
  error = "more than 1048576 members";
  return std::nullopt;
}

class Verifier {
 public:
  Verifier(const std::string& dir, const Policy& policy, VerifyReport& report)
      : dir_(dir), policy_(policy), r_(report), v_(report.selection.tag.version),
        vtext_(report.selection.tag.version_text) {}

  void expect() {
    for (const auto& d : r_.selection.distributions) {
      if (d.core) continue;
      std::string tag = policy_.plugin_tag.empty() ? "cp312-abi3" : policy_.plugin_tag;
      for (const auto& plat : policy_.platforms)
        r_.expected.push_back({d.normalized, "wheel", plat, d.file_prefix + "-" + vtext_ + "-" + tag + "-" + plat + ".whl", ""});
    }
    const std::string core_prefix = file_prefix(policy_.core);
    if (policy_.core_sdist)
      r_.expected.push_back({normalize_name(policy_.core), "sdist", "sdist", core_prefix + "-" + vtext_ + ".tar.gz", ""});
    for (const auto& tag : policy_.core_wheels)
      r_.expected.push_back({normalize_name(policy_.core), "wheel", tag, core_prefix + "-" + vtext_ + "-" + tag + ".whl", ""});
  }

  void file(const std::string& name) {
    std::error_code ec;
    fs::path path = fs::path(dir_) / name;
    if (fs::is_directory(path, ec)) {
      // actions/download-artifact puts each artifact in its own folder
      // unless told to merge them.
      add(name, "extra",
          "a folder (a release folder holds only wheels and sdists, side by side; with actions/download-artifact, "
          "set merge-multiple: true)");
      return;
    }
    if (!fs::is_regular_file(path, ec)) {
      add(name, "extra", "not a regular file (a release folder holds only wheels and sdists)");
      return;
    }
    if (ends_with(name, ".whl")) wheel(name, path.string());
    else if (ends_with(name, ".tar.gz")) sdist(name, path.string());
    else if (ends_with(name, ".zip"))
      add(name, "extra", "not part of a release set: sdists are .tar.gz (PEP 625 retired .zip sdists)");
    else
      add(name, "extra", "not a wheel (.whl) or an sdist (.tar.gz)");
  }

  void missing() {
    for (const auto& e : r_.expected) {
      if (!e.file.empty()) continue;
      std::string what = e.kind == "sdist" ? "the sdist of " + e.distribution
                                           : "the " + e.slot + " wheel of " + e.distribution;
      add(e.example, "missing", what + " " + vtext_ + " is missing (expected a file such as " + e.example + ")");
    }
  }

 private:
  void add(const std::string& file, std::string code, std::string message) {
    Finding f;
    f.rule = std::move(code);
    f.severity = Severity::error;
    f.member = file;
    f.message = std::move(message);
    r_.findings.push_back(std::move(f));
  }

  // The distribution a file-name part belongs to, or an extra finding.
  // Returns nullptr when the file is not part of this release.
  const Distribution* distribution(const std::string& file, const std::string& name_part, bool sdist) {
    const std::string norm = normalize_name(name_part);
    for (const auto& d : r_.selection.distributions)
      if (d.normalized == norm) {
        if (sdist && !d.core) {
          add(file, "extra", "plugin sdists are not released (" + d.normalized + " ships wheels only)");
          return nullptr;
        }
        if (sdist && !policy_.core_sdist) {
          add(file, "extra", "the policy ships no core sdist (core-sdist = false)");
          return nullptr;
        }
        return &d;
      }
    for (const auto& p : policy_.plugins)
      if (normalize_name(p.name) == norm) {
        add(file, "extra",
            normalize_name(p.name) + " is not released with " + vtext_ + " (plugins ship from " +
                (policy_.plugins_since ? policy_.plugins_since->to_string() : std::string("?")) + ", plugins-since)");
        return nullptr;
      }
    add(file, "extra", "distribution " + norm + " is not part of this release (" + join(names()) + ")");
    return nullptr;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& d : r_.selection.distributions) n.push_back(d.normalized);
    return n;
  }

  // File-name checks shared by wheels and sdists: normalized name, version.
  void name_and_version(const std::string& file, const Distribution& d, const std::string& name_part,
                        const std::string& version_part) {
    if (name_part != d.file_prefix)
      add(file, "not-normalized",
          "the name part \"" + name_part + "\" is not the normalized file-name form \"" + d.file_prefix +
              "\" (binary distribution format, PEP 625)");
    auto fv = Version::parse(version_part);
    if (!fv)
      add(file, "version-mismatch", "file name version \"" + version_part + "\" is not a PEP 440 version");
    else if (*fv != v_)
      add(file, "version-mismatch", "file name version " + fv->to_string() + " is not the release's " + vtext_);
    else if (version_part != vtext_)
      add(file, "not-normalized", "file name version \"" + version_part + "\" is not written normalized (" + vtext_ + ")");
  }

  void claim(const std::string& file, const Distribution& d, const std::string& kind, const std::string& slot) {
    for (auto& e : r_.expected)
      if (e.distribution == d.normalized && e.kind == kind && e.slot == slot) {
        if (!e.file.empty())
          add(file, "duplicate", "a second " + (kind == "sdist" ? std::string("sdist") : slot + " wheel") + " of " +
                                     d.normalized + " (already " + e.file + ")");
        else
          e.file = file;
        return;
      }
  }

  void metadata(const std::string& file, const Distribution& d, const std::string& name, const std::string& version,
                const std::vector<std::string>& requires_dist, const std::string& what) {
    if (normalize_name(name) != d.normalized)
      add(file, "name-mismatch", what + " Name \"" + name + "\" is not " + d.normalized);
    auto mv = Version::parse(version);
    if (!mv || *mv != v_)
      add(file, "version-mismatch", what + " Version \"" + version + "\" is not the release's " + vtext_);
    const std::string core_norm = normalize_name(policy_.core);
    if (!d.core) {
      bool found = false;
      for (const auto& text : requires_dist) {
        auto req = Requirement::parse(text);
        if (!req || req->normalized_name() != core_norm) continue;
        found = true;
        const auto& specs = req->specifier.specifiers;
        bool pinned = specs.size() == 1 && specs[0].op == Specifier::Op::kEqual && !specs[0].wildcard &&
                      specs[0].version == v_;
        if (!pinned)
          add(file, "core-pin",
              what + " Requires-Dist \"" + text + "\" does not pin " + core_norm + "==" + vtext_ +
                  " (a plugin works only with its own core release)");
      }
      if (!found)
        add(file, "core-pin", what + " has no Requires-Dist on " + core_norm + "; a plugin must pin " + core_norm + "==" + vtext_);
      return;
    }
    for (const auto& text : requires_dist) {
      auto req = Requirement::parse(text);
      if (!req) continue;
      const std::string rn = req->normalized_name();
      bool plugin = false;
      for (const auto& p : policy_.plugins) plugin = plugin || normalize_name(p.name) == rn;
      if (!plugin) continue;
      if (!r_.selection.plugins) {
        add(file, "core-pin", what + " Requires-Dist \"" + text + "\" names a plugin this release does not include");
        continue;
      }
      const auto& specs = req->specifier.specifiers;
      bool pinned = specs.size() == 1 && specs[0].op == Specifier::Op::kEqual && !specs[0].wildcard &&
                    specs[0].version == v_;
      if (!pinned)
        add(file, "core-pin",
            what + " Requires-Dist \"" + text + "\" does not pin " + rn + "==" + vtext_ +
                " (an older plugin would be installed with the new core)");
    }
  }

  void wheel(const std::string& file, const std::string& path) {
    auto fn = WheelFilename::parse(file);
    if (!fn) {
      add(file, "bad-filename", fn.error().message());
      return;
    }
    const Distribution* d = distribution(file, fn->distribution, false);
    if (!d) return;
    name_and_version(file, *d, fn->distribution, fn->version);
    std::vector<std::string> tags;
    for (const auto& t : fn->tags()) tags.push_back(t.to_string());
    std::string slot;
    if (d->core) {
      for (const auto& want : policy_.core_wheels)
        if (std::find(tags.begin(), tags.end(), want) != tags.end()) {
          slot = want;
          break;
        }
      if (slot.empty())
        add(file, "tag-mismatch",
            "tags " + join(tags) + " match none of the core's wheels (core-wheels: " + join(policy_.core_wheels) + ")");
    } else {
      for (const auto& plat : policy_.platforms)
        if (std::find(fn->platform_tags.begin(), fn->platform_tags.end(), plat) != fn->platform_tags.end()) {
          slot = plat;
          break;
        }
      if (slot.empty())
        add(file, "tag-mismatch",
            "platform " + join(fn->platform_tags, ".") + " is none of the plugin platforms (" + join(policy_.platforms) + ")");
      if (!policy_.plugin_tag.empty()) {
        bool has = false;
        for (const auto& py : fn->python_tags)
          for (const auto& abi : fn->abi_tags) has = has || py + "-" + abi == policy_.plugin_tag;
        if (!has)
          add(file, "tag-mismatch",
              "python-abi " + join(fn->python_tags, ".") + "-" + join(fn->abi_tags, ".") + " is not the plugin-tag " +
                  policy_.plugin_tag);
      }
    }
    if (!slot.empty()) claim(file, *d, "wheel", slot);

    auto w = Wheel::open(path);
    if (!w) {
      add(file, "unreadable", w.error().message());
      return;
    }
    WarningSink warnings;
    auto summary = read_wheel_summary(*w, warnings);
    if (!summary) {
      add(file, "unreadable", summary.error().message());
      return;
    }
    std::vector<std::string> wheel_tags = summary->wheel_tags, name_tags = tags;
    std::sort(wheel_tags.begin(), wheel_tags.end());
    std::sort(name_tags.begin(), name_tags.end());
    if (wheel_tags != name_tags)
      add(file, "tag-mismatch",
          summary->dist_info + "/WHEEL Tag lines (" + join(wheel_tags) + ") differ from the file name's tags (" +
              join(name_tags) + ")");
    metadata(file, *d, summary->name, summary->version, summary->requires_dist, summary->dist_info + "/METADATA");
  }

  void sdist(const std::string& file, const std::string& path) {
    const std::string stem = file.substr(0, file.size() - 7);
    size_t dash = stem.rfind('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == stem.size()) {
      add(file, "bad-filename", "not an sdist name {name}-{version}.tar.gz (PEP 625)");
      return;
    }
    const std::string name_part = stem.substr(0, dash), version_part = stem.substr(dash + 1);
    if (!is_valid_name(name_part)) {
      add(file, "bad-filename", "\"" + name_part + "\" is not a distribution name (PEP 625: {name}-{version}.tar.gz)");
      return;
    }
    const Distribution* d = distribution(file, name_part, true);
    if (!d) return;
    name_and_version(file, *d, name_part, version_part);
    claim(file, *d, "sdist", "sdist");
    std::string error;
    auto pkg_info = read_pkg_info(path, stem, error);
    if (!pkg_info) {
      if (!error.empty()) add(file, "unreadable", error);
      else add(file, "bad-sdist", "no " + stem + "/PKG-INFO (an sdist holds one folder named after the file, with PKG-INFO)");
      return;
    }
    WarningSink warnings;
    auto md = CoreMetadata::parse(ByteView(reinterpret_cast<const uint8_t*>(pkg_info->data()), pkg_info->size()),
                                  stem + "/PKG-INFO", warnings);
    if (!md) {
      add(file, "bad-sdist", md.error().message());
      return;
    }
    metadata(file, *d, md->name, md->version, md->requires_dist, stem + "/PKG-INFO");
  }

  const std::string& dir_;
  const Policy& policy_;
  VerifyReport& r_;
  const Version& v_;
  const std::string& vtext_;
};

}  // namespace

bool VerifyReport::any_unreadable() const {
  for (const auto& f : findings)
    if (f.rule == "unreadable") return true;
  return false;
}

std::string VerifyReport::distribution_of(const std::string& file) const {
  for (const auto& e : expected)
    if (e.file == file) return e.distribution;
  return "";
}

Expected<VerifyReport> verify_release(const std::string& dir, std::string_view version, const Policy& policy) {
  std::string tag = std::string(version);
  if (policy.tag_prefix.empty() || tag.rfind(policy.tag_prefix, 0) != 0) tag = policy.tag_prefix + tag;
  auto sel = select(tag, policy);
  if (!sel) {
    // The messages speak of the tag; the caller gave a version.
    std::string msg = sel.error().message();
    const std::string quoted = "tag \"" + tag + "\"";
    if (tag != version && msg.rfind(quoted, 0) == 0)
      msg = "version \"" + std::string(version) + "\" (the tag " + tag + ")" + msg.substr(quoted.size());
    return Error(msg);
  }
  VerifyReport report;
  report.selection = std::move(*sel);

  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error(dir + ": not a folder");
  fs::directory_iterator it(dir, ec);
  if (ec) return Error(dir + ": cannot list the folder: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Error(dir + ": cannot list the folder: " + ec.message());
    report.files.push_back(it->path().filename().string());
  }
  if (ec) return Error(dir + ": cannot list the folder: " + ec.message());
  std::sort(report.files.begin(), report.files.end());

  Verifier v(dir, policy, report);
  v.expect();
  for (const auto& f : report.files) v.file(f);
  v.missing();
  std::stable_sort(report.findings.begin(), report.findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.member, a.rule) < std::tie(b.member, b.rule);
  });
  for (auto& f : report.findings) f.path = dir;
  return report;
}

// ---------------------------------------------------------------------------

Expected<std::vector<SplitAction>> split_release(const std::string& dir, const VerifyReport& report,
                                                 const std::string& out, bool copy) {
  static std::atomic<unsigned> counter{0};
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec)) return Error(out + ": exists and is not a folder");
  {
    // The input folder is never written to: OUT may not be DIR or inside it
    // (a later verify of DIR would see the split folders as extras).
    fs::path in_abs = fs::weakly_canonical(fs::absolute(dir, ec), ec);
    fs::path out_abs = fs::weakly_canonical(fs::absolute(out, ec), ec);
    if (!ec) {
      auto [i, o] = std::mismatch(in_abs.begin(), in_abs.end(), out_abs.begin(), out_abs.end());
      if (i == in_abs.end())
        return Error(out + ": is " + (o == out_abs.end() ? "the input folder" : "inside the input folder " + dir) +
                     "; split into a folder outside it (nothing was written)");
    }
    ec.clear();
  }
  // Check every destination folder before writing anything, so that a
  // failure cannot leave the plugins split without their core, and an upload
  // folder never holds a file of another release.
  std::map<std::string, std::set<std::string>> wanted;  // distribution -> file names
  for (const auto& e : report.expected)
    if (!e.file.empty()) wanted[e.distribution].insert(e.file);
  for (const auto& [dist, files] : wanted) {
    fs::path dest_dir = fs::path(out) / dist;
    if (!fs::exists(fs::symlink_status(dest_dir, ec))) continue;
    if (!fs::is_directory(fs::symlink_status(dest_dir, ec)))
      return Error(dest_dir.string() + ": exists and is not a folder (nothing was written)");
    for (const auto& entry : fs::directory_iterator(dest_dir, ec)) {
      std::string name = entry.path().filename().string();
      if (!files.count(name))
        return Error(dest_dir.string() + ": holds " + name +
                     ", which is not a file of this release; empty the folder first (nothing was written)");
      std::error_code sec;
      if (!fs::is_regular_file(fs::symlink_status(entry.path(), sec)))
        return Error(entry.path().string() + ": exists and is not a regular file, so it cannot be replaced (nothing was written)");
    }
    if (ec) return Error(dest_dir.string() + ": cannot read the folder: " + ec.message());
  }
  std::vector<SplitAction> actions;
  // Files this run created (not replaced): removed again when a later one
  // fails, so that a failed split leaves no partial set behind.
  std::vector<std::string> created;
  auto fail = [&created](Error e) -> Error {
    for (const auto& f : created) ::unlink(f.c_str());
    return e;
  };
  for (const auto& e : report.expected) {
    if (e.file.empty()) continue;
    fs::path dest_dir = fs::path(out) / e.distribution;
    fs::create_directories(dest_dir, ec);
    if (ec) return fail(Error(dest_dir.string() + ": cannot create the folder: " + ec.message()));
    const std::string src = (fs::path(dir) / e.file).string();
    const std::string dest = (dest_dir / e.file).string();
    struct stat before;
    const bool existed = ::lstat(dest.c_str(), &before) == 0;
    SplitAction action{e.file, dest, false};
    if (!copy) {
      // link(2) a temporary name, then rename(2) it over the destination:
      // the destination is replaced atomically, the input stays as it is.
      const std::string tmp = dest + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
      ::unlink(tmp.c_str());
      // AT_SYMLINK_FOLLOW: a file in DIR that is a symbolic link is linked
      // as the file it names (link(2) would link the symlink itself, whose
      // relative target means nothing in OUT).
      if (::linkat(AT_FDCWD, src.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        if (::rename(tmp.c_str(), dest.c_str()) != 0) {
          int err = errno;
          ::unlink(tmp.c_str());
          return fail(Error(dest + ": rename: " + std::strerror(err)));
        }
        // rename(2) does nothing when both names are links to one file.
        struct stat st;
        if (::lstat(tmp.c_str(), &st) == 0) ::unlink(tmp.c_str());
        action.linked = true;
      }
    }
    if (!action.linked) {
      auto data = read_whole_file(src, size_t{16} << 30);
      if (!data) return fail(data.error());
      if (auto st = write_file_atomic(dest, *data, 0644); !st) return fail(st.error());
    }
    if (!existed) created.push_back(dest);
    actions.push_back(std::move(action));
  }
  return actions;
}

}  // namespace cuwheel::release
