// `cuwheel identity show|check|stamp`: the build identity of the current
// configuration (CUDA major from the toolkit plus declared flags), the keyed
// folder for generated sources, and the stamp of the last completed build.
// Library side: include/cuwheel/release/identity.h. Docs: docs/identity.md.
//
//   show   prints the identity, its parts and the keyed folder
//   check  exit 0 when the stamp equals the identity, 1 when it differs or
//          is missing (rebuild), 2 when it cannot be read
//   stamp  writes the stamp atomically; call it after a successful build
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli.h"
#include "commands.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/release/identity.h"

namespace cuwheel::cli {

namespace {

// Messages quote flags, paths and file contents: printed escaped.
void print_error_escaped(const std::string& where, const std::string& message) {
  print_error(printable(where), printable(message));
}

using json = nlohmann::ordered_json;
namespace id = cuwheel::identity;

// Options shared by the three leaves (only one runs per process).
struct IdentityOptions {
  std::string toolkit;
  std::optional<int> cuda_major;
  std::vector<std::string> flags;
  std::string format = "text";
  std::string generated_root;
  std::string stamp = "build/.build-identity";
};
IdentityOptions g_opts;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The configuration's identity, and the toolkit it was read from (absent
// with --cuda-major). Prints the error and returns nullopt on failure.
struct Current {
  id::Identity identity;
  std::optional<id::ToolkitVersion> toolkit;
};
// `why`, when given, receives the message when the toolkit's version could
// not be read (a malformed flag is a usage error and leaves it empty).
std::optional<Current> current_identity(std::string* why = nullptr) {
  Current cur;
  int major = 0;
  if (g_opts.cuda_major) {
    major = *g_opts.cuda_major;
  } else {
    id::ToolkitQuery q;
    q.prefix = g_opts.toolkit;
    q.cuda_home = env("CUDA_HOME");
    q.cuda_path = env("CUDA_PATH");
    q.path_env = env("PATH");
    auto tk = id::detect_toolkit(q);
    if (!tk) {
      print_error_escaped("identity", tk.error().message());
      if (why) *why = tk.error().message();
      return std::nullopt;
    }
    major = tk->major;
    cur.toolkit = *tk;
  }
  auto ident = id::make_identity(major, g_opts.flags);
  if (!ident) {
    print_error_escaped("identity", ident.error().message());
    return std::nullopt;
  }
  cur.identity = *ident;
  return cur;
}

json base_document(const std::string& command, const Current& cur) {
  json doc;
  doc["schema"] = 1;
  doc["tool"] = "cuwheel " CUWHEEL_VERSION;
  doc["command"] = command;
  doc["identity"] = cur.identity.str();
  doc["cuda_major"] = cur.identity.cuda_major;
  doc["components"] = cur.identity.components;
  if (cur.toolkit) {
    doc["toolkit"] = {{"version", std::to_string(cur.toolkit->major) + "." + std::to_string(cur.toolkit->minor)},
                      {"source", cur.toolkit->source}};
  } else {
    doc["toolkit"] = nullptr;
  }
  return doc;
}

void print_json(const json& doc) {
  std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

std::string toolkit_line(const Current& cur) {
  if (!cur.toolkit) return std::to_string(cur.identity.cuda_major) + " (--cuda-major)";
  return std::to_string(cur.identity.cuda_major) + " (toolkit " + std::to_string(cur.toolkit->major) + "." +
         std::to_string(cur.toolkit->minor) + ", from " + printable(cur.toolkit->source) + ")";
}

const char* state_name(id::StampCheck::State s) {
  switch (s) {
    case id::StampCheck::State::kMatches: return "matches";
    case id::StampCheck::State::kDiffers: return "differs";
    case id::StampCheck::State::kMissing: return "missing";
    case id::StampCheck::State::kMalformed: return "malformed";
  }
  return "missing";
}

// Adds the options every leaf shares.
void add_common(CLI::App* cmd, std::vector<std::string> formats) {
  auto* tk = cmd->add_option("--toolkit", g_opts.toolkit,
                             "CUDA toolkit prefix (default: CUDA_HOME, CUDA_PATH, then nvcc on PATH)");
  auto* major = cmd->add_option("--cuda-major", g_opts.cuda_major, "State the CUDA major instead of detecting it")
                    ->check(CLI::Validator([](std::string& s) { return decimal_number_error(s); }, "", "decimal"))
                    ->check(CLI::Range(1, 999));
  tk->excludes(major);
  cmd->add_option("--flag", g_opts.flags,
                  "A declared flag (NAME) or axis (NAME=VALUE) that changes generated sources, e.g. coverage")
      ->allow_extra_args(false);
  cmd->add_option("--format", g_opts.format, "Output format")->check(CLI::IsMember(formats))->capture_default_str();
}

}  // namespace

int run_identity_show() {
  if (g_opts.format == "dir" && g_opts.generated_root.empty()) {
    print_error_escaped("identity show", "--format dir needs --generated-root");
    return kExitUnreadable;
  }
  auto cur = current_identity();
  if (!cur) return kExitUnreadable;
  std::string dir = g_opts.generated_root.empty() ? "" : id::keyed_dir(g_opts.generated_root, cur->identity);
  if (g_opts.format == "json") {
    json doc = base_document("identity show", *cur);
    doc["generated_dir"] = dir.empty() ? json(nullptr) : json(dir);
    print_json(doc);
  } else if (g_opts.format == "name") {
    std::cout << cur->identity.str() << "\n";
  } else if (g_opts.format == "dir") {
    std::cout << dir << "\n";
  } else {
    std::string comps;
    for (const auto& c : cur->identity.components) comps += (comps.empty() ? "" : " ") + c;
    std::cout << "identity       " << cur->identity.str() << "\n"
              << "cuda major     " << toolkit_line(*cur) << "\n"
              << "components     " << (comps.empty() ? "-" : comps) << "\n";
    if (!dir.empty()) std::cout << "generated dir  " << printable(dir) << "\n";
  }
  return kExitOk;
}

// identity check could not read the toolkit's version or the stamp (exit
// status 2): the error on stderr, and in json, sarif and github the
// document that says so (docs/rules/identity/unreadable.md).
int identity_unreadable(const UnreadableInput& u) {
  if (g_opts.format == "json") {
    json doc = {{"schema", 1}, {"tool", "cuwheel " CUWHEEL_VERSION}, {"command", "identity check"},
                {"unreadable", unreadable_json({u})}};
    print_json(doc);
  } else {
    std::cout << render_unreadable(g_opts.format, "identity", "unreadable", {u}, 1);
  }
  return kExitUnreadable;
}

int run_identity_check() {
  std::string why;
  auto cur = current_identity(&why);
  if (!cur && why.empty()) return kExitUnreadable;
  if (!cur)
    return identity_unreadable({g_opts.toolkit, g_opts.toolkit.empty() ? "toolkit" : "", why,
                                "give the toolkit with --toolkit, or its major with --cuda-major"});
  auto r = id::check_stamp(g_opts.stamp, cur->identity);
  if (!r) {
    print_error_escaped("identity check", r.error().message());
    return identity_unreadable({g_opts.stamp, "", r.error().message(),
                                "the stamp must be a readable file: remove it and rebuild, or fix its permissions"});
  }
  if (g_opts.format == "sarif" || g_opts.format == "github") {
    std::cout << render_diagnostics(g_opts.format, "identity", id::stamp_diagnostics(*r, g_opts.stamp), 1);
  } else if (g_opts.format == "json") {
    json doc = base_document("identity check", *cur);
    doc["stamp"] = g_opts.stamp;
    doc["state"] = state_name(r->state);
    doc["recorded"] = r->state == id::StampCheck::State::kMissing ? json(nullptr) : json(r->recorded);
    doc["changes"] = r->changes;
    doc["rebuild"] = r->rebuild();
    doc["message"] = r->message;
    print_json(doc);
  } else {
    std::cout << r->message << "\n";
    for (const auto& c : r->changes) std::cout << "  " << c << "\n";
  }
  return r->rebuild() ? kExitFindings : kExitOk;
}

int run_identity_stamp() {
  auto cur = current_identity();
  if (!cur) return kExitUnreadable;
  auto st = id::write_stamp(g_opts.stamp, cur->identity);
  if (!st) {
    print_error_escaped("identity stamp", st.error().message());
    return kExitUnreadable;
  }
  if (g_opts.format == "json") {
    json doc = base_document("identity stamp", *cur);
    doc["stamp"] = g_opts.stamp;
    print_json(doc);
  } else {
    std::cout << "wrote " << printable(g_opts.stamp) << ": " << cur->identity.str() << "\n";
  }
  return kExitOk;
}

void setup_identity_show(CLI::App* cmd) {
  add_common(cmd, {"text", "json", "name", "dir"});
  cmd->add_option("--generated-root", g_opts.generated_root,
                  "Folder for generated sources, keyed by the identity (e.g. build/cython -> build/cython/cu13)");
}

void setup_identity_check(CLI::App* cmd) {
  add_common(cmd, report_formats());
  cmd->add_option("--stamp", g_opts.stamp, "Stamp file of the last completed build")->capture_default_str();
}

void setup_identity_stamp(CLI::App* cmd) {
  add_common(cmd, {"text", "json"});
  cmd->add_option("--stamp", g_opts.stamp, "Stamp file to write")->capture_default_str();
}

}  // namespace cuwheel::cli
