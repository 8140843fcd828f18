// `cuwheel arch`: converts a GPU architecture list between
// TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES, nvcc -gencode flags and a
// plain sm_/compute_ list, validates it against a CUDA release, and prints a
// release's release list. docs/arch.md.
//
// Exit status (one rule, docs/arch.md "Exit status"): 0 ok; 1 an entry is
// a well-formed architecture that does not exist (sm_0, sm_99, sm_80a) or
// that the --release toolkit cannot build, i.e. the validation said no; 2
// the text cannot be read as an architecture at all (sm_x, 9.0+ptx, a named
// set such as Hopper or all-major), or a usage error (--release 12.7, a
// PTX-only entry asked for in torch form).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "cli.h"
#include "commands.h"
#include "cuwheel/cuda/arch.h"
#include "cuwheel/cuda/arch_scan.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/base/diagnostic.h"
#include "cuwheel/base/fileio.h"

namespace cuwheel::cli {

namespace {

using json = nlohmann::ordered_json;

struct ArchOptions {
  std::vector<std::string> list;  // joined with spaces
  std::string from = "auto";      // auto | torch | cmake | gencode | list
  std::string to = "list";        // torch | cmake | gencode | list | json
  std::string format = "text";    // text | json
  std::string release;
  bool release_list = false;
  bool scan = false;              // --scan: LIST are files to search for lists
  std::string output;
} g_opts;

// An entry the validation refused (error) or warns about: the one
// diagnostic type, with the entry ("sm_50") as its location.
Diagnostic arch_finding(const char* rule, Severity severity, const std::string& entry, const std::string& message) {
  Diagnostic d;
  d.rule = rule;
  d.severity = severity;
  d.location = entry;
  d.message = message;
  return d;
}

const char* variant_name(arch::Variant v) {
  return v == arch::Variant::kA ? "a" : v == arch::Variant::kF ? "f" : "";
}

json targets_json(const std::vector<arch::Target>& ts) {
  json out = json::array();
  for (const auto& t : ts)
    out.push_back({{"sm", t.sm_name()},
                   {"compute", t.compute_name()},
                   {"cc", t.cc_name()},
                   {"variant", variant_name(t.variant)},
                   {"sass", t.sass},
                   {"ptx", t.ptx},
                   {"family", std::string(arch::family_name(t.sm))}});
  return out;
}

// Messages quote the input list and flags: printed escaped.
void error(const std::string& where, const std::string& message) {
  print_error(printable(where), printable(message));
}

bool g_wrote = false;  // emit() wrote this run's result

// Writes `text` to --output (atomically) or stdout.
int emit(const std::string& text) {
  g_wrote = true;
  if (g_opts.output.empty() || g_opts.output == "-") {
    std::cout << text;
    std::cout.flush();
    return kExitOk;
  }
  if (auto st = write_output(g_opts.output, text); !st) {
    error("--output", st.error().message());
    return kExitUnreadable;
  }
  return kExitOk;
}

// --release X.Y, when given, into `out`; false (the error printed) when
// it is not a release of the table.
bool release_flag(std::optional<arch::Release>& out) {
  if (g_opts.release.empty()) return true;
  auto r = arch::parse_release(g_opts.release);
  if (!r) {
    error("--release", r.error().message());
    return false;
  }
  out = *r;
  return true;
}

int run_arch_once() {
  const auto& o = g_opts;
  bool want_json = o.format == "json" || o.to == "json";
  std::optional<arch::Form> to_form;
  if (o.to != "json") to_form = arch::parse_form(o.to);

  std::optional<arch::Release> release;
  if (!release_flag(release)) return kExitUnreadable;

  std::vector<arch::Target> targets;
  std::string input_text;
  std::optional<arch::Form> input_form;
  if (o.release_list) {
    if (!release) {
      error("--release-list", "needs --release X.Y (the toolkit whose release list to print)");
      return kExitUnreadable;
    }
    if (!o.list.empty()) {
      error("--release-list", "takes no architecture list");
      return kExitUnreadable;
    }
    targets = arch::release_list(*release);
  } else {
    if (o.list.empty()) {
      error("arch", "give an architecture list (or - to read it from stdin), or --release-list --release X.Y");
      return kExitUnreadable;
    }
    if (o.list.size() == 1 && o.list[0] == "-") {
      input_text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
      for (const auto& a : o.list) input_text += (input_text.empty() ? "" : " ") + a;
    }
    if (o.from == "auto") {
      auto f = arch::detect_form(input_text);
      if (!f) {
        error("arch", f.error().message());
        return kExitUnreadable;
      }
      input_form = *f;
    } else {
      input_form = arch::parse_form(o.from);
    }
    auto parsed = arch::parse(input_text, *input_form);
    if (!parsed) {
      error(std::string(arch::to_string(*input_form)) + " form", parsed.error().message());
      return kExitUnreadable;
    }
    targets = std::move(*parsed);
  }

  std::vector<Diagnostic> findings, warnings;
  for (const auto& t : targets) {
    std::string entry = t.sass ? t.sm_name() : t.compute_name();
    if (auto e = arch::check_known(t)) findings.push_back(arch_finding("unknown-arch", Severity::error, entry, *e));
    else if (release) {
      if (auto b = arch::check_buildable(t, *release)) findings.push_back(arch_finding("not-buildable", Severity::error, entry, *b));
      else if (auto d = arch::check_deprecated(t, *release)) warnings.push_back(arch_finding("deprecated-arch", Severity::warning, entry, *d));
    }
  }
  // SARIF or GitHub annotations: the entries' report on stdout; the
  // converted list only to -o FILE, and only when no entry was rejected.
  if (o.format == "sarif" || o.format == "github") {
    std::vector<Diagnostic> diags = findings;
    diags.insert(diags.end(), warnings.begin(), warnings.end());
    std::cout << render_diagnostics(o.format, "arch", diags, 1);
    std::cout.flush();
    if (!findings.empty()) return kExitFindings;
    if (o.output.empty()) return kExitOk;
    auto text = arch::format(targets, *to_form);
    if (!text) {
      error("--to " + o.to, text.error().message());
      return kExitUnreadable;
    }
    return emit(*text + "\n");
  }

  for (const auto& w : warnings) std::fprintf(stderr, "cuwheel: warning[%s]: %s\n", w.rule.c_str(), printable(w.message).c_str());

  if (want_json) {
    json doc;
    doc["schema"] = 1;
    doc["tool"] = "cuwheel " CUWHEEL_VERSION;
    doc["command"] = "arch";
    doc["input"] = input_form ? json{{"form", std::string(arch::to_string(*input_form))}, {"text", input_text}}
                              : json(nullptr);
    doc["release"] = release ? json(release->to_string()) : json(nullptr);
    doc["release_list"] = o.release_list;
    doc["targets"] = targets_json(targets);
    json forms = json::object();
    for (arch::Form f : {arch::Form::kTorch, arch::Form::kCmake, arch::Form::kGencode, arch::Form::kList}) {
      auto s = arch::format(targets, f);
      forms[std::string(arch::to_string(f))] = s ? json(*s) : json(nullptr);
    }
    doc["forms"] = forms;
    json fs = json::array();
    for (const auto& f : findings) fs.push_back({{"rule", f.rule}, {"entry", f.location}, {"message", f.message}});
    doc["findings"] = fs;
    json ws = json::array();
    for (const auto& w : warnings) ws.push_back({{"rule", w.rule}, {"entry", w.location}, {"message", w.message}});
    doc["warnings"] = ws;
    doc["ok"] = findings.empty();
    for (const auto& f : findings) std::fprintf(stderr, "cuwheel: error[%s]: %s\n", f.rule.c_str(), printable(f.message).c_str());
    int rc = emit(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    if (rc != kExitOk) return rc;
    return findings.empty() ? kExitOk : kExitFindings;
  }

  for (const auto& f : findings) std::fprintf(stderr, "cuwheel: error[%s]: %s\n", f.rule.c_str(), printable(f.message).c_str());
  if (!findings.empty()) {
    std::fprintf(stderr, "cuwheel: %zu of %zu architectures rejected%s\n", findings.size(), targets.size(),
                 release ? (" for CUDA " + release->to_string()).c_str() : "");
    return kExitFindings;
  }
  auto text = arch::format(targets, *to_form);
  if (!text) {
    error("--to " + o.to, text.error().message());
    return kExitUnreadable;
  }
  return emit(*text + "\n");
}

// True when parse() refused a named set (CMake's native/all/all-major, a
// PyTorch family name, torch's All): valid for the build tools, but not a
// fixed list.
bool names_a_set(const std::string& message) { return message.find("is a named architecture set") != std::string::npos; }

// --scan: every architecture list in the files (cuda/arch_scan.h), each
// parsed in its form and checked as a list given on the command line is.
int run_arch_scan() {
  const auto& o = g_opts;
  std::optional<arch::Release> release;
  if (!release_flag(release)) return kExitUnreadable;
  if (o.list.empty()) {
    error("--scan", "give the files to search for architecture lists (CMakeLists.txt, *.cmake, scripts, CI workflows)");
    return kExitUnreadable;
  }
  std::vector<Diagnostic> diags;
  std::vector<UnreadableInput> unreadable;
  std::vector<std::string> left_out;  // per file, when over the cap
  bool left_out_error = false;
  size_t settings = 0, files_with = 0;
  auto add = [&](const char* rule, Severity sev, const std::string& file, const arch::ArchSetting& s,
                 const std::string& message, const std::string& hint) {
    Diagnostic d;
    d.rule = rule;
    d.severity = sev;
    d.path = file;
    d.location = s.variable + " at column " + std::to_string(s.column);
    d.line = s.line;
    d.message = message;
    d.hint = hint;
    diags.push_back(std::move(d));
  };
  for (const auto& file : o.list) {
    auto text = read_whole_file(file, size_t{64} << 20);
    if (!text) {
      unreadable.push_back({file, "", text.error().message(), ""});
      continue;
    }
    auto found = arch::scan_arch_settings(*text);
    settings += found.size();
    if (!found.empty()) ++files_with;
    // At most kMaxPerFile findings of a file are listed (a generated or
    // hostile file can hold millions); the rest still count for the exit
    // status, and stderr says how many were left out.
    constexpr size_t kMaxPerFile = 50;
    const size_t first = diags.size();
    for (const auto& s : found) {
      auto parsed = arch::parse(s.value, s.form);
      if (!parsed) {
        const std::string& m = parsed.error().message();
        if (names_a_set(m))
          add("arch-list-not-explicit", Severity::warning, file, s, m,
              "a named set depends on the toolkit (or, for native, the build machine's GPU) that builds it");
        else
          add("invalid-arch-list", Severity::error, file, s, m,
              "see `cuwheel arch --help` for the " + std::string(arch::to_string(s.form)) + " form");
        continue;
      }
      for (const auto& t : *parsed) {
        if (auto e = arch::check_known(t)) add("unknown-arch", Severity::error, file, s, *e, "");
        else if (release) {
          // A warning here, not an error: build files often hold one list
          // per toolkit release behind a version check the scanner cannot
          // evaluate (apex's setup.py: 6.0;...;7.0 for CUDA 11.x, 7.5;... for
          // 13.0), so a list another release cannot build is not wrong.
          if (auto b = arch::check_buildable(t, *release))
            add("not-buildable", Severity::warning, file, s, *b,
                "if this list is used with CUDA " + release->to_string() + ", drop the architecture; if it belongs to "
                "another toolkit release, nothing is wrong");
          else if (auto d = arch::check_deprecated(t, *release))
            add("deprecated-arch", Severity::warning, file, s, *d, "");
        }
      }
    }
    if (diags.size() - first > kMaxPerFile) {
      size_t extra = diags.size() - first - kMaxPerFile;
      for (size_t i = first + kMaxPerFile; i < diags.size(); ++i)
        left_out_error = left_out_error || diags[i].severity == Severity::error;
      diags.resize(first + kMaxPerFile);
      left_out.push_back(printable(file) + ": " + std::to_string(extra) + " more finding" + (extra == 1 ? "" : "s") +
                         " not listed (at most " + std::to_string(kMaxPerFile) + " per file)");
    }
  }
  bool has_error = left_out_error;
  for (const auto& d : diags) has_error = has_error || d.severity == Severity::error;
  if (o.format == "sarif" || o.format == "github") {
    std::vector<Diagnostic> all = diags;
    for (const auto& u : unreadable)
      all.push_back(Diagnostic{"unreadable", Severity::error, u.path, "", "", u.message, ""});
    std::cout << render_diagnostics(o.format, "arch", all, o.list.size(), !unreadable.empty());
    std::cout.flush();
  } else {
    for (const auto& d : diags)
      std::printf("%s:%llu:%s: %s[%s]: %s\n", printable(d.path).c_str(), static_cast<unsigned long long>(*d.line),
                  d.location.substr(d.location.rfind(' ') + 1).c_str(),
                  d.severity == Severity::error ? "error" : "warning", d.rule.c_str(), printable(d.message).c_str());
    std::fflush(stdout);
  }
  for (const auto& u : unreadable) print_error(printable(u.path), printable(u.message));
  for (const auto& l : left_out) std::fprintf(stderr, "cuwheel: arch --scan: %s\n", l.c_str());
  std::fprintf(stderr, "cuwheel: arch --scan: %zu architecture list%s in %zu of %zu file%s%s\n", settings,
               settings == 1 ? "" : "s", files_with, o.list.size(), o.list.size() == 1 ? "" : "s",
               settings == 0 ? " (nothing to check)" : "");
  if (!unreadable.empty()) return kExitUnreadable;
  return has_error ? kExitFindings : kExitOk;
}

}  // namespace

int run_arch() {
  g_wrote = false;
  if (g_opts.scan) {
    if (g_opts.release_list || !g_opts.output.empty() || g_opts.from != "auto" || g_opts.to != "list" ||
        g_opts.format == "json") {
      error("--scan", "takes files, --release and --format text|sarif|github only");
      return kExitUnreadable;
    }
    return run_arch_scan();
  }
  if (g_opts.format == "sarif" || g_opts.format == "github") {
    if (!g_opts.output.empty() && names_standard_output(g_opts.output)) {
      error("--output", "--format " + g_opts.format + " writes its report on stdout: give -o a file for the list");
      return kExitUnreadable;
    }
    if (g_opts.to == "json") {
      error("--to json", "--format " + g_opts.format + " reports the entries; the JSON document is --format json");
      return kExitUnreadable;
    }
  }
  int rc = run_arch_once();
  // As matrix: a run that fails leaves no -o FILE, so an earlier result
  // cannot pass for this run's.
  if (rc != kExitOk && !g_wrote && remove_stale_output(g_opts.output))
    std::fprintf(stderr, "cuwheel: arch: removed the earlier %s\n", printable(g_opts.output).c_str());
  return rc;
}

void setup_arch(CLI::App* cmd) {
  cmd->add_option("LIST", g_opts.list,
                  "The architecture list, e.g. \"7.5;8.0;9.0+PTX\" (quote it; several words are joined; - reads stdin)");
  cmd->add_option("--from", g_opts.from, "Form of the input (default: detected)")
      ->check(CLI::IsMember({"auto", "torch", "cmake", "gencode", "list"}));
  cmd->add_option("--to", g_opts.to, "Form of the output: torch, cmake, gencode, list (default) or json")
      ->check(CLI::IsMember({"torch", "cmake", "gencode", "list", "json"}));
  cmd->add_option("--format", g_opts.format,
                  "text (the list in --to form), json (every form, and findings), or sarif / github (the entries' "
                  "report on stdout; the list only to -o FILE)")
      ->check(CLI::IsMember(report_formats()));
  cmd->add_option("--release", g_opts.release, "CUDA toolkit release the list is built with, e.g. 12.8: each entry must be buildable by it");
  cmd->add_flag("--scan", g_opts.scan,
                "LIST names files: find the architecture lists set in them (TORCH_CUDA_ARCH_LIST, "
                "CMAKE_CUDA_ARCHITECTURES, CUDA_ARCHITECTURES, -gencode) and check each, reporting FILE:LINE "
                "(docs/arch.md, \"Linting a source tree\")");
  cmd->add_flag("--release-list", g_opts.release_list,
                "Print the release list of --release: SASS for each of its architectures, PTX for the last (docs/arch.md)");
  cmd->add_option("-o,--output", g_opts.output,
                  "Write the result to FILE (atomically; '-' or /dev/stdout is stdout; a pipe or character device is written through (a FIFO waits for its reader), a "
                  "symlink's target replaced) instead of stdout; a run that fails (exit 1 or 2) removes an "
                  "existing FILE, so an earlier result cannot pass for this run's");
  cmd->footer(
      "Exit status: 0 ok; 1 an entry is well-formed but names no real architecture (sm_0, sm_99, sm_80a) or one the\n"
      "--release toolkit cannot build; 2 the text cannot be read as an architecture in its form (sm_x, 9.0+ptx,\n"
      "Hopper, all-major), or a usage error. With --scan: 1 a list in a file is malformed or names an architecture\n"
      "that does not exist (or that --release cannot build); 2 a file cannot be read (the others are still scanned).");
  // nvcc flags start with '-': they are given after "--" (docs/arch.md).
}

}  // namespace cuwheel::cli
