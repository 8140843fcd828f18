// `toolkit extract`: the payloads of verified RPMs unpacked into a
// CUDA_HOME tree with libarchive, without rpm and without root
// (cuwheel/toolkit/fetch.h describes the path mapping).
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>
#include <system_error>

#include "cuwheel/base/digest.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/base/source.h"
#include "cuwheel/toolkit/fetch.h"

namespace cuwheel::toolkit {

namespace fs = std::filesystem;

namespace {

struct ReadDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriteDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};

std::string hex_lower(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

// Parses sha256sum(1) output: "<64 hex> <space or '*'><name>" per line.
Expected<std::vector<std::pair<std::string, std::string>>> read_sums(const std::string& path) {
  auto text = read_whole_file(path, 16u << 20);
  if (!text) return text.error();
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(*text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    bool ok = line.size() > 66 && (line[64] == ' ') && (line[65] == ' ' || line[65] == '*');
    for (size_t i = 0; ok && i < 64; ++i) ok = std::isxdigit(static_cast<unsigned char>(line[i])) != 0;
    std::string name = ok ? line.substr(66) : "";
    if (!ok || name.find('/') != std::string::npos || name == "." || name == "..")
      return Error(path + ":" + std::to_string(n) + ": not a sha256sum line for a file in this folder");
    std::string sha = line.substr(0, 64);
    for (char& c : sha) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.emplace_back(sha, name);
  }
  if (out.empty()) return Error(path + ": lists no files");
  return out;
}

// True when `p` (relative, normalised) stays inside its root.
bool stays_inside(const fs::path& p) {
  if (p.is_absolute()) return false;
  for (const auto& c : p)
    if (c == "..") return false;
  return true;
}

struct Mapper {
  std::string release;        // X.Y once known
  std::string prefix_in_rpm;  // "usr/local/cuda-X.Y/"
};

// Maps a member name to the path under the toolkit root; "" = skip (outside
// the toolkit prefix or an ancestor of it). Errors for a release clash or a
// name with "..".
Expected<std::string> map_member(Mapper& m, std::string name, bool& outside) {
  outside = false;
  while (name.starts_with("./")) name.erase(0, 2);
  while (name.starts_with("/")) name.erase(0, 1);
  while (name.ends_with("/")) name.pop_back();
  fs::path p(name);
  for (const auto& c : p)
    if (c == "..") return Error("member name contains '..'");
  if (name.empty() || name == "usr" || name == "usr/local") return std::string();
  static const std::regex kPrefix(R"(^usr/local/cuda-([0-9]+\.[0-9]+)(/.*)?$)");
  std::smatch sm;
  if (!std::regex_match(name, sm, kPrefix)) {
    outside = true;
    return std::string();
  }
  std::string rel = sm[1].str();
  if (m.release.empty()) {
    m.release = rel;
  } else if (rel != m.release) {
    return Error("installs under /usr/local/cuda-" + rel + "/, but the toolkit being unpacked is " + m.release);
  }
  std::string rest = sm[2].matched ? sm[2].str() : "";
  while (rest.starts_with("/")) rest.erase(0, 1);
  return rest;  // "" = the prefix folder itself
}

// Rewrites a symlink target; errors for targets that leave the tree.
Expected<std::string> map_link(const Mapper& m, const std::string& member_rel, const std::string& target) {
  fs::path link_dir = fs::path(member_rel).parent_path();
  if (!target.empty() && target[0] == '/') {
    std::string root = "/usr/local/cuda-" + m.release;
    if (target != root && !target.starts_with(root + "/"))
      return Error("symbolic link to " + target + ", outside /usr/local/cuda-" + m.release + "/");
    fs::path inside =
        fs::path(target.substr(root.size() == target.size() ? target.size() : root.size() + 1)).lexically_normal();
    // "/usr/local/cuda-X.Y/.." starts with the prefix and still leaves it.
    if (!inside.empty() && inside != "." && !stays_inside(inside))
      return Error("symbolic link to " + target + " leaves the toolkit tree");
    fs::path rel = inside.lexically_relative(link_dir);
    if (rel.empty()) rel = ".";
    return rel.string();
  }
  fs::path resolved = (link_dir / target).lexically_normal();
  if (!stays_inside(resolved) && resolved != ".")
    return Error("symbolic link to " + target + " leaves the toolkit tree");
  return target;
}

Status extract_one(const std::string& rpm_path, const std::string& root, Mapper& m, ExtractReport& rep,
                   const std::string& display) {
  std::unique_ptr<archive, ReadDeleter> in(archive_read_new());
  std::unique_ptr<archive, WriteDeleter> out(archive_write_disk_new());
  if (!in || !out) return Error(display + ": libarchive allocation failed");
  archive_read_support_filter_all(in.get());  // the rpm filter strips lead and headers
  archive_read_support_format_cpio(in.get());
  archive_read_support_format_empty(in.get());
  // No ARCHIVE_EXTRACT_OWNER: files belong to whoever runs the command.
  int flags = ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
              ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_UNLINK;
  archive_write_disk_set_options(out.get(), flags);
  if (archive_read_open_filename(in.get(), rpm_path.c_str(), 1 << 16) != ARCHIVE_OK)
    return Error(display + ": " + archive_error_string(in.get()));
  for (;;) {
    archive_entry* e = nullptr;
    int r = archive_read_next_header(in.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r < ARCHIVE_WARN) return Error(display + ": " + archive_error_string(in.get()));
    const char* raw = archive_entry_pathname(e);
    std::string member = raw ? raw : "";
    bool outside = false;
    auto rel = map_member(m, member, outside);
    if (!rel) return Error(display + ": " + member + ": " + rel.error().message());
    if (outside) {
      rep.skipped.push_back(display + ": " + member);
      continue;
    }
    if (rel->empty()) continue;
    std::string dest = root + "/" + *rel;
    archive_entry_set_pathname(e, dest.c_str());
    archive_entry_set_perm(e, archive_entry_perm(e) & 0777);
    if (const char* hl = archive_entry_hardlink(e)) {
      bool hl_outside = false;
      auto hrel = map_member(m, hl, hl_outside);
      if (!hrel || hl_outside || hrel->empty())
        return Error(display + ": " + member + ": hard link to " + hl + " outside the toolkit prefix");
      archive_entry_set_hardlink(e, (root + "/" + *hrel).c_str());
      ++rep.hardlinks;
    }
    mode_t type = archive_entry_filetype(e);
    if (type == AE_IFLNK) {
      const char* t = archive_entry_symlink(e);
      auto target = map_link(m, *rel, t ? t : "");
      if (!target) return Error(display + ": " + member + ": " + target.error().message());
      archive_entry_set_symlink(e, target->c_str());
      ++rep.symlinks;
    } else if (type == AE_IFDIR) {
      ++rep.directories;
    } else if (type == AE_IFREG) {
      if (!archive_entry_hardlink(e)) ++rep.files;
    } else {
      return Error(display + ": " + member + ": not a regular file, folder or link (device, FIFO or socket)");
    }
    if (archive_write_header(out.get(), e) < ARCHIVE_WARN)
      return Error(display + ": " + member + ": " + archive_error_string(out.get()));
    if (archive_entry_size(e) > 0 && type == AE_IFREG) {
      const void* buf;
      size_t size;
      la_int64_t off;
      for (;;) {
        int rr = archive_read_data_block(in.get(), &buf, &size, &off);
        if (rr == ARCHIVE_EOF) break;
        if (rr < ARCHIVE_WARN) return Error(display + ": " + member + ": " + archive_error_string(in.get()));
        if (archive_write_data_block(out.get(), buf, size, off) < ARCHIVE_WARN)
          return Error(display + ": " + member + ": " + archive_error_string(out.get()));
      }
    }
    if (archive_write_finish_entry(out.get()) < ARCHIVE_WARN)
      return Error(display + ": " + member + ": " + archive_error_string(out.get()));
  }
  if (archive_write_close(out.get()) != ARCHIVE_OK)
    return Error(display + ": " + archive_error_string(out.get()));
  return Ok{};
}

// Every symbolic link under `root`, resolved through the file system (links
// to links included; a dangling tail is resolved lexically), must stay under
// `root`. `shown` names the prefix in messages.
Status links_stay_inside(const std::string& root, const std::string& shown) {
  std::error_code ec;
  fs::path base = fs::canonical(root, ec);
  if (ec) return Error(root + ": " + ec.message());
  fs::recursive_directory_iterator it(base, fs::directory_options::none, ec), end;
  if (ec) return Error(root + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Error(root + ": " + ec.message());
    if (!it->is_symlink(ec)) continue;
    fs::path rel = it->path().lexically_relative(base);
    fs::path to = fs::weakly_canonical(it->path(), ec);
    if (ec) return Error(shown + "/" + rel.string() + ": symbolic link cannot be resolved: " + ec.message());
    fs::path inside = to.lexically_relative(base);
    if (inside.empty() || !(inside == "." || stays_inside(inside)))
      return Error(shown + "/" + rel.string() + ": symbolic link resolves outside the toolkit tree (through " +
                   "another link)");
  }
  return Ok{};
}

}  // namespace

Expected<ExtractReport> extract_toolkit(const std::string& dir, const std::string& prefix,
                                        const std::string& release) {
  static const std::regex kRelease(R"(^[0-9]+\.[0-9]+$)");
  if (!release.empty() && !std::regex_match(release, kRelease))
    return Error("release '" + release + "' is not X.Y");
  std::error_code ec;
  fs::path target = fs::absolute(prefix, ec).lexically_normal();
  if (ec) return Error(prefix + ": " + ec.message());
  while (!target.empty() && target.filename().empty()) target = target.parent_path();  // trailing '/'
  if (fs::exists(fs::symlink_status(target))) {
    if (!fs::is_directory(fs::symlink_status(target)) || !fs::is_empty(target, ec))
      return Error(prefix + ": exists and is not an empty folder (extract into a new folder)");
  }
  auto sums = read_sums(dir + "/SHA256SUMS");
  if (!sums) return sums.error();

  ExtractReport rep;
  // Digests first: nothing is unpacked from a folder that fails them.
  std::vector<std::string> rpms;
  for (const auto& [sha, name] : *sums) {
    if (!name.ends_with(".rpm")) continue;
    std::string path = dir + "/" + name;
    auto blob = Blob::map_file(path);
    if (!blob) return blob.error();
    auto d = sha256(blob->view());
    std::string got = hex_lower(d.data(), d.size());
    if (got != sha) return Error(path + ": sha256 " + got + ", SHA256SUMS records " + sha);
    rpms.push_back(name);
  }
  if (rpms.empty()) return Error(dir + "/SHA256SUMS: lists no .rpm file");

  fs::create_directories(target.parent_path(), ec);
  fs::path parent = fs::canonical(target.parent_path(), ec);
  if (ec) return Error(target.parent_path().string() + ": " + ec.message());
  fs::path final_dir = parent / target.filename();
  std::string work = final_dir.string() + ".part." + std::to_string(::getpid());
  fs::remove_all(work, ec);
  if (!fs::create_directory(work, ec)) return Error(work + ": cannot create: " + ec.message());
  auto fail = [&](Error e) -> Expected<ExtractReport> {
    std::error_code ec2;
    fs::remove_all(work, ec2);
    return e;
  };

  Mapper m;
  m.release = release;
  for (const auto& name : rpms) {
    if (auto s = extract_one(dir + "/" + name, work, m, rep, name); !s) return fail(s.error());
    rep.packages.push_back(name);
  }
  if (m.release.empty()) return fail(Error(dir + ": no package installs under /usr/local/cuda-X.Y/"));
  // Each link was checked on its own; a chain (a link through a link to "."
  // and then "..") can still climb out, so resolve every link as the kernel
  // would and refuse the tree if one lands outside it.
  if (auto s = links_stay_inside(work, prefix); !s) return fail(s.error());
  rep.release = m.release;
  if (fs::exists(fs::symlink_status(final_dir))) {
    if (::rmdir(final_dir.c_str()) != 0) return fail(Error(prefix + ": cannot replace the empty folder"));
  }
  if (::rename(work.c_str(), final_dir.c_str()) != 0)
    return fail(Error(prefix + ": rename from " + work + " failed: " + std::strerror(errno)));
  return rep;
}

}  // namespace cuwheel::toolkit
