// `cuwheel toolkit download|verify|extract|check`: getting the pinned CUDA
// toolkit onto a build machine and checking it before the build. Library
// side: include/cuwheel/toolkit/fetch.h. Docs: docs/toolkit.md.
//
//   download  fetch the locked RPMs into a folder, every digest and
//             signature checked; writes SHA256SUMS
//   verify    the same checks offline, on a folder restored from a cache
//   extract   unpack the verified RPMs into a CUDA_HOME tree
//   check     nvcc's release, EULA.txt, and a kernel compiled and linked
//
// Exit status: 0 all good; 1 a check said no (a digest, size, signature,
// fingerprint, release, licence or compile failure); 2 an input could not
// be read (lock, folder, network, 404) or a usage error.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/toolkit/fetch.h"
#include "cuwheel/toolkit/lock.h"

namespace cuwheel::cli {

namespace {

using json = nlohmann::ordered_json;
namespace tk = cuwheel::toolkit;

struct Options {
  std::string lock = "cuwheel-toolkit.lock";
  std::string name;
  std::string dest;
  std::string dir;
  std::string prefix;
  std::string into;
  std::string release;
  std::string host_compiler;
  bool signatures = false;
  bool no_signatures = false;
  std::string format = "text";
};
Options g;

json document(const std::string& command) {
  json doc;
  doc["schema"] = 1;
  doc["tool"] = "cuwheel " CUWHEEL_VERSION;
  doc["command"] = command;
  return doc;
}

void print_json(const json& doc) {
  std::cout << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

// An input the command could not read, or an output it could not write
// (exit status 2): the error on stderr, and in json, sarif and github the
// document that says so (toolkit/unreadable, CW815; docs/rules/toolkit/unreadable.md).
// `path` is the file or folder concerned ("" when the message is no file's).
int unreadable(const std::string& command, const std::string& path, const std::string& message,
               const std::string& hint) {
  print_error(command, message);
  std::vector<UnreadableInput> u{{path, "", message, hint}};
  if (g.format == "json") {
    json doc = document(command);
    doc["unreadable"] = unreadable_json(u);
    print_json(doc);
  } else {
    std::cout << render_unreadable(g.format, "toolkit", "unreadable", u, 1);
    std::cout.flush();
  }
  return kExitUnreadable;
}

const char* const kLockHint = "give the lock `cuwheel toolkit lock` wrote (--lock), and a --name it holds";

// Reads the lock and finds --name; reports the error (unreadable()) and
// returns nullptr.
const tk::LockedToolkit* load_toolkit(tk::Lock& lock, const std::string& where) {
  auto l = tk::read_lock(g.lock);
  if (!l) {
    unreadable(where, g.lock, l.error().message(), kLockHint);
    return nullptr;
  }
  lock = std::move(*l);
  if (g.name.empty()) {
    if (lock.toolkits.size() == 1) return &lock.toolkits[0];
    unreadable(where, g.lock, g.lock + ": holds " + std::to_string(lock.toolkits.size()) +
                           " toolkits; choose one with --name", kLockHint);
    return nullptr;
  }
  const tk::LockedToolkit* t = lock.find(g.name);
  if (!t) unreadable(where, g.lock, g.lock + ": no toolkit named '" + g.name + "'", kLockHint);
  return t;
}

json report_json(const std::string& command, const tk::FetchReport& r, const std::string& folder) {
  json doc = document(command);
  doc["toolkit"] = r.toolkit;
  doc["folder"] = folder;
  doc["ok"] = r.ok();
  doc["key"] = r.key_fingerprint.empty() ? json(nullptr)
                                         : json{{"file", r.key_file}, {"fingerprint", r.key_fingerprint}};
  if (!r.key_rejected.empty()) doc["key_rejected"] = r.key_rejected;
  json files = json::array();
  for (const auto& f : r.files) {
    json j;
    j["file"] = f.file;
    j["status"] = tk::to_string(f.status);
    j["nevra"] = f.nevra.empty() ? json(nullptr) : json(f.nevra);
    j["signature_checked"] = f.signature_checked;
    j["message"] = f.message.empty() ? json(nullptr) : json(f.message);
    files.push_back(j);
  }
  doc["files"] = files;
  doc["unlocked"] = r.unlocked;
  doc["sha256sums_written"] = r.sums_written;
  return doc;
}

// verify: what DIR/SHA256SUMS said (null when the folder has none).
json sums_json(const tk::SumsCheck& s) {
  if (!s.present) return json(nullptr);
  json problems = json::array();
  for (const auto& p : s.problems)
    problems.push_back({{"line", p.line ? json(*p.line) : json(nullptr)},
                        {"file", p.member.empty() ? json(nullptr) : json(p.member)},
                        {"message", p.message}});
  return json{{"lines", s.lines}, {"agrees", s.problems.empty()}, {"problems", problems}};
}

// Prints a download/verify report and returns the exit status.
int finish_fetch(const std::string& command, const tk::FetchReport& r, const std::string& folder,
                 bool verify = false) {
  if (g.format == "sarif" || g.format == "github") {
    bool unavailable = false;
    for (const auto& f : r.files) unavailable |= f.status == tk::FileOutcome::Status::unavailable;
    std::cout << render_diagnostics(g.format, "toolkit", r.diagnostics(folder), 1, unavailable);
    std::cout.flush();
  } else if (g.format == "json") {
    json doc = report_json(command, r, folder);
    if (verify) doc["sha256sums"] = sums_json(r.sums);
    print_json(doc);
  } else {
    if (!r.key_rejected.empty()) print_error(command, r.key_rejected);
    for (const auto& p : r.sums.problems) print_error(command, p.message);
    for (const auto& u : r.unlocked)
      print_error(command, printable(folder + "/" + u) + ": not a file of the lock for " + r.toolkit +
                               " (`dnf install " + printable(folder) + "/*.rpm` would install it too); left in place");
    size_t good = 0;
    for (const auto& f : r.files) {
      bool ok = f.status != tk::FileOutcome::Status::rejected && f.status != tk::FileOutcome::Status::unavailable;
      if (!ok) {
        print_error(command, f.file + ": " + f.message);
        continue;
      }
      ++good;
      if (!f.message.empty()) print_warning(command, f.file + ": " + f.message);
      std::cout << tk::to_string(f.status) << " " << f.file;
      if (!f.nevra.empty()) std::cout << " (" << f.nevra << (f.signature_checked ? ", signature good" : "") << ")";
      std::cout << "\n";
    }
    if (r.key_rejected.empty()) {
      std::cout << r.toolkit << ": " << good << " of " << r.files.size() << " files good in " << folder;
      if (!r.key_fingerprint.empty()) std::cout << ", signed by " << r.key_fingerprint;
      if (!r.unlocked.empty())
        std::cout << "; " << r.unlocked.size() << (r.unlocked.size() == 1 ? " name" : " names")
                  << " in the folder not in the lock";
      if (r.sums_written) std::cout << "; wrote " << folder << "/SHA256SUMS";
      std::cout << "\n";
    }
    if (verify) {
      if (!r.sums.present)
        std::cout << "no " << folder << "/SHA256SUMS: the files were checked against the lock only\n";
      else if (r.sums.problems.empty())
        std::cout << folder << "/SHA256SUMS agrees with the lock (" << r.sums.lines << " lines)\n";
      else
        std::cout << folder << "/SHA256SUMS disagrees with the lock: " << r.sums.problems.size() << " problem"
                  << (r.sums.problems.size() == 1 ? "" : "s") << "\n";
    }
  }
  if (r.ok()) return kExitOk;
  return r.any_rejected() ? kExitFindings : kExitUnreadable;
}

void add_lock(CLI::App* cmd) {
  cmd->add_option("--lock", g.lock, "Lock file written by `cuwheel toolkit lock`")->capture_default_str();
  cmd->add_option("--name", g.name, "Toolkit in the lock (e.g. cu12); optional when it holds one");
}

void add_format(CLI::App* cmd, bool reports = false) {
  if (reports)
    cmd->add_option("--format", g.format, "Output format: text, json, or sarif / github (the problems as a report)")
        ->check(CLI::IsMember(report_formats()))
        ->capture_default_str();
  else
    cmd->add_option("--format", g.format, "Output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
}

}  // namespace

int run_toolkit_download() {
  const std::string where = "toolkit download";
  tk::Lock lock;
  const tk::LockedToolkit* t = load_toolkit(lock, where);
  if (!t) return kExitUnreadable;
  if (t->key_fingerprint.empty() && !g.no_signatures)
    print_warning(where, g.lock + ": toolkit " + t->name + " pins no key fingerprint: signatures are not checked");
  auto r = tk::download_toolkit(*t, g.dest, !g.no_signatures);
  if (!r) return unreadable(where, g.dest, r.error().message(), "--dest must be a folder that can be created and written");
  return finish_fetch(where, *r, g.dest);
}

int run_toolkit_verify() {
  const std::string where = "toolkit verify";
  tk::Lock lock;
  const tk::LockedToolkit* t = load_toolkit(lock, where);
  if (!t) return kExitUnreadable;
  auto r = tk::verify_toolkit(*t, g.dir, g.signatures);
  if (!r) return unreadable(where, g.dir, r.error().message(), "give the folder `cuwheel toolkit download` filled");
  return finish_fetch(where, *r, g.dir, /*verify=*/true);
}

int run_toolkit_extract() {
  const std::string where = "toolkit extract";
  auto r = tk::extract_toolkit(g.dir, g.into, g.release);
  if (!r) {
    // A digest mismatch is a verification failure; the rest is unreadable input.
    if (r.error().message().find(", SHA256SUMS records ") == std::string::npos)
      return unreadable(where, g.dir, r.error().message(), "give the folder `cuwheel toolkit verify` passed");
    print_error(where, r.error().message());
    return kExitFindings;
  }
  if (g.format == "json") {
    json doc = document(where);
    doc["prefix"] = g.into;
    doc["release"] = r->release;
    doc["packages"] = r->packages;
    doc["files"] = r->files;
    doc["directories"] = r->directories;
    doc["symlinks"] = r->symlinks;
    doc["hardlinks"] = r->hardlinks;
    doc["skipped"] = r->skipped;
    print_json(doc);
  } else {
    for (const auto& s : r->skipped) print_warning(where, s + ": outside /usr/local/cuda-" + r->release + "/, not extracted");
    std::cout << "extracted CUDA " << r->release << " from " << r->packages.size() << " packages into " << g.into
              << " (" << r->files << " files, " << r->symlinks << " symbolic links, " << r->hardlinks
              << " hard links)\n";
  }
  return kExitOk;
}

int run_toolkit_check() {
  const std::string where = "toolkit check";
  tk::CheckOptions opts;
  opts.release = g.release;
  if (opts.release.empty()) {
    tk::Lock lock;
    const tk::LockedToolkit* t = load_toolkit(lock, where);
    if (!t) return kExitUnreadable;
    opts.release = t->release;
  }
  opts.host_compiler = g.host_compiler;
  if (opts.host_compiler.empty()) {
    const char* h = std::getenv("CUDAHOSTCXX");
    if (h) opts.host_compiler = h;
  }
  auto r = tk::check_toolkit(g.prefix, opts);
  if (!r) return unreadable(where, g.prefix, r.error().message(), "give the root of the extracted toolkit (CUDA_HOME)");
  if (g.format == "sarif" || g.format == "github") {
    std::cout << render_diagnostics(g.format, "toolkit", r->diagnostics(g.prefix), 1);
    std::cout.flush();
  } else if (g.format == "json") {
    json doc = document(where);
    doc["prefix"] = g.prefix;
    doc["release"] = opts.release;
    doc["nvcc_release"] = r->nvcc_release.empty() ? json(nullptr) : json(r->nvcc_release);
    doc["nvcc_version"] = r->nvcc_version.empty() ? json(nullptr) : json(r->nvcc_version);
    doc["host_compiler"] = opts.host_compiler.empty() ? json(nullptr) : json(opts.host_compiler);
    doc["ok"] = r->ok();
    json steps = json::array();
    for (const auto& s : r->steps) {
      json j{{"step", s.name}, {"ok", s.ok}, {"message", s.message}};
      if (!s.ok && !s.output.empty()) j["output"] = s.output;
      steps.push_back(j);
    }
    doc["steps"] = steps;
    print_json(doc);
  } else {
    for (const auto& s : r->steps) {
      if (s.ok) {
        std::cout << "ok " << s.name << ": " << s.message << "\n";
      } else {
        if (!s.output.empty()) std::cerr << s.output;
        print_error(where, s.message);
      }
    }
  }
  return r->ok() ? kExitOk : kExitFindings;
}

void setup_toolkit_download(CLI::App* cmd) {
  add_lock(cmd);
  cmd->add_option("--dest", g.dest, "Download folder (created if needed; files already there are reused only when verified)")
      ->required();
  cmd->add_flag("--no-signatures", g.no_signatures, "Check sizes and digests only (not the repository key's signatures)");
  add_format(cmd, true);
}

void setup_toolkit_verify(CLI::App* cmd) {
  cmd->add_option("DIR", g.dir, "Folder written by `toolkit download`")->required();
  add_lock(cmd);
  cmd->add_flag("--signatures", g.signatures,
                "Also check every header signature with the stored key (which must have the pinned fingerprint)");
  add_format(cmd, true);
}

void setup_toolkit_extract(CLI::App* cmd) {
  cmd->add_option("DIR", g.dir, "Folder written by `toolkit download` (its SHA256SUMS names the RPMs)")->required();
  cmd->add_option("--into", g.into, "New folder that becomes CUDA_HOME (/usr/local/cuda-X.Y/ maps to it)")->required();
  cmd->add_option("--release", g.release, "Require packages of this CUDA release X.Y");
  add_format(cmd);
}

void setup_toolkit_check(CLI::App* cmd) {
  cmd->add_option("PREFIX", g.prefix, "Toolkit root (CUDA_HOME)")->required();
  cmd->add_option("--release", g.release, "Pinned CUDA release X.Y (default: the lock's release for --name)");
  add_lock(cmd);
  cmd->add_option("--host-compiler", g.host_compiler, "Host C++ compiler for nvcc -ccbin (default: $CUDAHOSTCXX)");
  add_format(cmd, true);
}

}  // namespace cuwheel::cli
