// `cuwheel toolkit lock`: pins the closed set of RPMs a CUDA build needs
// from an NVIDIA-style RPM repository into a TOML lock (docs/toolkit.md).
//
// The run, in order:
//  1. read the existing lock (a broken lock is never overwritten);
//  2. read repodata/repomd.xml and the primary metadata it names, checking
//     the primary file's checksum before decompressing or parsing it;
//  3. only when the resolution would leave file requirements that no file
//     primary.xml lists meets, read filelists.xml the same way (streamed,
//     keeping only the required paths);
//  4. resolve the requested packages of --release into a closed set plus
//     the requirements left to the system;
//  5. upsert the toolkit --name (other toolkits are kept as they are) and
//     write the lock atomically, only if its text changed.
//
// Exit status: 0 locked (or unchanged); 1 the resolution failed (a package
// missing for the release, a requirement in NVIDIA's namespace that nothing
// meets, --check found the lock out of date); 2 the repository or the lock
// (or its filelists) cannot be read, or a usage error.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/toolkit/http.h"
#include "cuwheel/toolkit/lock.h"
#include "cuwheel/toolkit/repo.h"

namespace cuwheel::cli {

namespace {

using json = nlohmann::ordered_json;

struct LockOptions {
  std::string repo;
  std::string release;
  std::vector<std::string> packages;
  std::string name;
  std::string lock = "cuwheel-toolkit.lock";
  std::string arch = "x86_64";
  std::string key_url;
  std::string key_fingerprint;
  std::string format = "text";
  bool check = false;
} g;

bool valid_release(const std::string& r) {
  size_t dot = r.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == r.size()) return false;
  return std::all_of(r.begin(), r.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) &&
         r.find('.', dot + 1) == std::string::npos;
}

bool valid_name(const std::string& n) {
  return !n.empty() && std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// Upper-case 40 hex digits with spaces removed ("610C 7B14 ..." is how gpg
// prints it), or "" when that is not a fingerprint.
std::string normal_fingerprint(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == ' ') continue;
    if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'))) return "";
    out.push_back(c);
  }
  return out.size() == 40 ? out : "";
}

std::string human_size(uint64_t bytes) {
  char buf[32];
  if (bytes >= (uint64_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  return buf;
}

json toolkit_json(const toolkit::LockedToolkit& t, const std::vector<std::string>& reasons) {
  json rpms = json::array();
  for (size_t i = 0; i < t.rpms.size(); ++i) {
    const auto& r = t.rpms[i];
    json e = {{"name", r.name}, {"evr", r.evr},         {"arch", r.arch},
              {"location", r.location}, {"sha256", r.sha256}, {"size", r.size}};
    if (i < reasons.size()) e["reason"] = reasons[i];
    rpms.push_back(std::move(e));
  }
  return {{"name", t.name},         {"release", t.release},   {"repo", t.repo},
          {"key_url", t.key_url},   {"key_fingerprint", t.key_fingerprint},
          {"requested", t.requested}, {"external", t.external}, {"rpms", std::move(rpms)}};
}

json filelists_json(const toolkit::FilelistsRead& f) {
  return {{"needed", f.needed},
          {"read", f.read},
          {"location", f.location.empty() ? json(nullptr) : json(f.location)},
          {"wanted", f.wanted},
          {"found", f.found}};
}

void print_json(const json& body) {
  json doc = {{"schema", 1}, {"tool", "cuwheel " CUWHEEL_VERSION}, {"command", "toolkit lock"}};
  for (auto it = body.begin(); it != body.end(); ++it) doc[it.key()] = it.value();
  std::cout << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

int usage(const std::string& where, const std::string& msg) {
  print_error(where, msg);
  return kExitUnreadable;
}

}  // namespace

int run_toolkit_lock() {
  const bool as_json = g.format == "json";
  const bool as_report = g.format == "sarif" || g.format == "github";
  // --format sarif|github: the problems below as a report on stdout (they
  // are printed on stderr in every format).
  std::vector<Diagnostic> problems_found;
  // A repository is a URL, not a file of the checkout: it goes in the
  // location, and the diagnostic has no path.
  auto report = [&](const char* rule, const std::string& path, const std::string& message, const std::string& hint,
                    const std::string& location = "") {
    problems_found.push_back(Diagnostic{rule, Severity::error, path, "", location, message, hint});
  };
  auto emit_report = [&] {
    if (as_report) std::cout << render_diagnostics(g.format, "toolkit", problems_found, 1);
  };
  // The lock, the repository or the lock's new text could not be read or
  // written (exit status 2): the error on stderr, and in json, sarif and
  // github the document that says so (docs/rules/toolkit/unreadable.md).
  auto unreadable = [&](const std::string& where, const std::string& message, UnreadableInput u) {
    print_error(where, message);
    u.message = message;
    if (as_json)
      print_json({{"ok", false}, {"lock", g.lock}, {"unreadable", unreadable_json({u})}});
    else
      std::cout << render_unreadable(g.format, "toolkit", "unreadable", {u}, 1);
    return kExitUnreadable;
  };
  if (!valid_release(g.release)) return usage("--release", "'" + g.release + "' is not a CUDA release X.Y");
  if (!valid_name(g.name)) return usage("--name", "'" + g.name + "' must be letters, digits, '-' or '_' (e.g. cu12)");
  if (g.packages.empty()) return usage("--packages", "no package names");
  for (const auto& p : g.packages)
    if (p.empty() || p.find_first_of(" \t/") != std::string::npos)
      return usage("--packages", "'" + p + "' is not a package name");
  std::string fingerprint;
  if (!g.key_fingerprint.empty()) {
    fingerprint = normal_fingerprint(g.key_fingerprint);
    if (fingerprint.empty()) return usage("--key-fingerprint", "'" + g.key_fingerprint + "' is not 40 hex digits");
  }
  if (!g.key_url.empty() && fingerprint.empty())
    return usage("--key-url",
                 "needs --key-fingerprint: pin the fingerprint NVIDIA publishes, not one read from the "
                 "downloaded key");
  if (!fingerprint.empty() && g.key_url.empty())
    return usage("--key-fingerprint", "needs --key-url (where download fetches the key)");

  // 1. The existing lock, if any.
  toolkit::Lock lock;
  std::string old_text;
  struct stat st {};
  bool exists = ::stat(g.lock.c_str(), &st) == 0;
  if (exists) {
    auto l = toolkit::read_lock(g.lock);
    if (!l)
      return unreadable(g.lock, l.error().message() + " (not overwritten)",
                        {g.lock, "", "", "fix the lock's text (it is TOML, docs/toolkit.md) or remove it and lock again"});
    lock = std::move(*l);
    auto t = read_whole_file(g.lock);
    if (t) old_text = std::move(*t);
  } else if (g.check) {
    print_error(g.lock, "no lock file to check");
    report("lock-out-of-date", g.lock, "no lock file to check", "create it: run the same command without --check");
    emit_report();
    if (as_json) print_json({{"ok", false}, {"lock", g.lock}, {"changed", true}, {"errors", {"no lock file to check"}}});
    return kExitFindings;
  }

  // 2. The repository's metadata.
  auto repo = toolkit::load_repository(g.repo);
  const UnreadableInput repo_input{"", g.repo, "", "check the --repo URL or folder: it must hold repodata/repomd.xml"};
  if (!repo) return unreadable("--repo", repo.error().message(), repo_input);

  // 3. filelists.xml, when primary.xml's file lists cannot answer a file
  //    requirement.
  toolkit::ResolveRequest req{g.release, g.packages, g.arch};
  auto files = toolkit::read_filelists_if_needed(*repo, req);
  if (!files) return unreadable("--repo", files.error().message(), repo_input);
  if (files->needed && !files->read)
    print_warning(g.repo,
                  "repomd.xml lists no filelists: file requirements outside primary.xml's file lists are "
                  "taken as external");

  // 4. The closed set.
  auto res = toolkit::resolve(*repo, req);
  if (!res) {
    std::vector<std::string> problems;
    std::istringstream lines(res.error().message());
    for (std::string line; std::getline(lines, line);) {
      problems.push_back(line);
      print_error(g.repo, line);
      report("lock-unresolvable", "", line,
             "check the package names and --release against the repository, or add the missing packages", g.repo);
    }
    emit_report();
    if (as_json)
      print_json({{"ok", false}, {"lock", g.lock}, {"errors", problems}, {"filelists", filelists_json(*files)}});
    return kExitFindings;
  }

  // 5. The toolkit entry, upserted into the lock.
  toolkit::LockedToolkit t;
  t.name = g.name;
  t.release = g.release;
  t.repo = g.repo.empty() || g.repo.back() == '/' ? g.repo : g.repo + "/";
  t.key_url = g.key_url;
  t.key_fingerprint = fingerprint;
  if (g.key_url.empty()) {
    // Re-locking without key options keeps the key recorded before.
    if (const auto* old = lock.find(g.name)) {
      t.key_url = old->key_url;
      t.key_fingerprint = old->key_fingerprint;
    }
  }
  t.requested = res->requested;
  t.external = res->external;
  uint64_t total = 0;
  for (const auto& p : res->packages) {
    t.rpms.push_back({p.name, toolkit::format_evr(p.evr), p.arch, p.location, p.checksum, p.size});
    total += p.size;
  }
  json tk_json = toolkit_json(t, res->reasons);
  lock.upsert(std::move(t));
  std::string text = toolkit::format_lock(lock);
  bool changed = text != old_text;

  if (g.check) {
    if (as_json) print_json({{"ok", !changed}, {"lock", g.lock}, {"changed", changed}, {"toolkit", tk_json},
                 {"filelists", filelists_json(*files)}});
    if (changed) {
      print_error(g.lock, "toolkit " + g.name + " is out of date with " + g.repo + " (re-run without --check)");
      report("lock-out-of-date", g.lock, "toolkit " + g.name + " is out of date with " + g.repo,
             "re-run without --check and commit the new lock");
      emit_report();
      return kExitFindings;
    }
    emit_report();
    if (as_report) return kExitOk;
    if (!as_json) std::cout << g.lock << ": " << g.name << " is up to date\n";
    return kExitOk;
  }
  if (changed) {
    if (auto w = write_output(g.lock, text); !w)
      return unreadable(g.lock, w.error().message(),
                        {g.lock, "", "", "the lock's folder must exist and be writable; the old lock is unchanged"});
  }
  if (as_report) {
    emit_report();
    return kExitOk;
  }
  if (as_json) {
    print_json({{"ok", true}, {"lock", g.lock}, {"changed", changed}, {"toolkit", tk_json},
                {"filelists", filelists_json(*files)}});
    return kExitOk;
  }
  for (const auto& r : tk_json["rpms"])
    std::cout << "  " << r["name"].get<std::string>() << " " << r["evr"].get<std::string>() << " "
              << r["arch"].get<std::string>() << "  " << human_size(r["size"].get<uint64_t>()) << "\n";
  for (const auto& e : tk_json["external"]) std::cout << "  external: " << e.get<std::string>() << "\n";
  if (files->read) {
    // The file requirements of this set that only filelists.xml answered.
    std::set<std::string> found(files->found.begin(), files->found.end());
    std::set<std::string> met;
    for (const auto& p : res->packages)
      for (const auto& r : p.requires_)
        if (found.count(r.name))
          for (const auto& q : res->packages)
            if (std::find(q.files.begin(), q.files.end(), r.name) != q.files.end()) met.insert(r.name + " in " + q.name);
    std::cout << "  filelists: read " << files->location;
    if (met.empty()) std::cout << "; no file requirement of this set is met there";
    for (auto it = met.begin(); it != met.end(); ++it) std::cout << (it == met.begin() ? "; " : ", ") << *it;
    std::cout << "\n";
  }
  std::cout << g.lock << ": " << g.name << " = CUDA " << g.release << ", " << res->packages.size() << " RPMs, "
            << human_size(total) << ", " << res->external.size() << " external requirements"
            << (changed ? " (written)" : " (unchanged)") << "\n";
  return kExitOk;
}

void setup_toolkit_lock(CLI::App* cmd) {
  cmd->add_option("--repo", g.repo, "Repository base: https:// or file:// URL, or a folder holding repodata/")
      ->required();
  cmd->add_option("--release", g.release, "CUDA release X.Y (selects cuda-<name>-X-Y)")->required();
  cmd->add_option("--packages", g.packages, "Packages to pin: short (cuda-nvcc) or full (cuda-nvcc-12-9) names")
      ->delimiter(',')
      ->required();
  cmd->add_option("--name", g.name, "Toolkit key in the lock (cu12, cu13, ...)")->required();
  cmd->add_option("--lock", g.lock, "Lock file to create or update")->capture_default_str();
  cmd->add_option("--arch", g.arch, "Main architecture (noarch is always accepted)")->capture_default_str();
  cmd->add_option("--key-url", g.key_url, "URL of the repository's signing key (recorded for download)");
  cmd->add_option("--key-fingerprint", g.key_fingerprint, "The key's 40-hex OpenPGP fingerprint, as NVIDIA publishes it");
  cmd->add_flag("--check", g.check, "Write nothing; exit 1 if the lock differs from a fresh resolution");
  cmd->add_option("--format", g.format, "Output: text, json, or sarif / github (the problems as a report)")
      ->check(CLI::IsMember(report_formats()))
      ->capture_default_str();
}

}  // namespace cuwheel::cli
