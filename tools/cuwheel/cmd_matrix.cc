// `cuwheel matrix`: filters a generated build matrix by a release policy and
// prints the GitHub Actions `{"include": [...]}` matrix. docs/matrix.md.
//
// Exit status: 0 ok; 1 a guard fired (each printed as
// "cuwheel: error[<guard>]: ..."); 2 the matrix or the policy cannot be
// read, or a usage error. With -o FILE a failed run leaves no FILE: an
// earlier matrix there must not pass for this run's result.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <map>

#include "cli.h"
#include "commands.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/release/matrix.h"

namespace cuwheel::cli {

namespace {

using json = nlohmann::ordered_json;

struct MatrixOptions {
  std::string input;
  std::string policy;
  std::string python;
  std::vector<std::string> trains;   // ARCH=cu126,cu130
  std::vector<std::string> fields;   // ROLE=NAME
  std::vector<std::string> generator;  // KEY=VALUE
  std::string arch;
  std::string toolkit;
  std::string format = "text";
  std::string output;
  bool pr = false;
  bool verbose = false;
} g_opts;

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      while (!cur.empty() && cur.back() == ' ') cur.pop_back();
      size_t b = cur.find_first_not_of(' ');
      if (b != std::string::npos) out.push_back(cur.substr(b));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  return out;
}

bool split_assignment(const std::string& s, std::string& k, std::string& v) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  k = s.substr(0, eq);
  v = s.substr(eq + 1);
  return true;
}

// Messages quote the input (values, paths, flags): printed escaped.
void error(const std::string& where, const std::string& message) {
  print_error(printable(where), printable(message));
}

bool g_wrote = false;  // emit() wrote this run's result to --output

// An input that cannot be read (the policy, the toolkit, the generator's
// output): the error on stderr, and with --format sarif|github the report
// of it (matrix/unreadable, CW511) on stdout; with --format json the
// document {"ok": false, "unreadable": [...]}, which like any JSON
// document of a failed run is this run's result (stdout or -o FILE).
int emit(const std::string& text);
int unreadable(const std::string& path, const std::string& message, const std::string& hint,
               const std::string& where = "") {
  error(where, message);
  const auto& o = g_opts;
  std::vector<UnreadableInput> u{{path, "", message, hint}};
  if (o.format == "json") {
    json doc = {{"schema", 1}, {"tool", "cuwheel " CUWHEEL_VERSION}, {"command", "matrix"}, {"ok", false},
                {"unreadable", unreadable_json(u)}};
    emit(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } else {
    std::cout << render_unreadable(o.format, "matrix", "unreadable", u, 1);
    std::cout.flush();
  }
  return kExitUnreadable;
}

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

int run_matrix_once() {
  const auto& o = g_opts;
  // 1. The policy: --policy, else cuwheel.toml / pyproject.toml upwards; flags on top.
  matrix::Policy policy;
  std::string file = o.policy.empty() ? matrix::find_policy_file(".") : o.policy;
  if (!file.empty()) {
    auto p = matrix::load_policy(file);
    if (!p) return unreadable(file, p.error().message(), "fix the policy file (TOML, docs/matrix.md)");
    policy = std::move(*p);
  }
  if (!o.python.empty()) {
    policy.python = split_commas(o.python);
    for (const auto& py : policy.python)
      if (matrix::python_less(py, "0.0")) {
        error("--python", "\"" + py + "\" is not a version such as 3.12");
        return kExitUnreadable;
      }
  }
  if (!o.trains.empty()) {
    policy.trains.clear();
    std::map<std::string, std::string> given;  // arch -> the --trains value that named it
    for (const auto& t : o.trains) {
      std::string arch, list;
      if (!split_assignment(t, arch, list) || split_commas(list).empty()) {
        error("--trains", "\"" + t + "\" is not ARCH=TRAIN,..., e.g. x86_64=cu126,cu130");
        return kExitUnreadable;
      }
      // One --trains per architecture, as one key per architecture in
      // [matrix.trains]: a second one would otherwise replace or merge
      // silently, and either guess can be wrong.
      if (auto [it, inserted] = given.emplace(arch, t); !inserted) {
        error("--trains", "\"" + it->second + "\" and \"" + t + "\" both give the trains of " + arch +
                              ": give one --trains per architecture, e.g. " + arch + "=" +
                              it->second.substr(it->second.find('=') + 1) + "," + list);
        return kExitUnreadable;
      }
      for (const auto& tr : split_commas(list))
        if (matrix::classify_build(tr).kind != matrix::Build::Kind::kCuda) {
          error("--trains", "\"" + tr + "\" is not a CUDA train such as cu126");
          return kExitUnreadable;
        }
      policy.trains.emplace_back(arch, split_commas(list));
    }
  }
  for (const auto& fa : o.fields)
    if (auto st = policy.fields.set(fa); !st) {
      error("--field", st.error().message());
      return kExitUnreadable;
    }
  if (policy.trains.empty()) {
    error("matrix", "no trains: give a policy with [matrix] trains (docs/matrix.md) or --trains x86_64=cu126,cu130");
    return kExitUnreadable;
  }
  if (policy.python.empty()) {
    error("matrix", "no Python allowlist: give python = [...] in the policy or --python 3.10,3.11,...");
    return kExitUnreadable;
  }

  matrix::Options opts;
  opts.pr = o.pr;
  if (!o.arch.empty()) opts.arch = o.arch;
  for (const auto& g : o.generator) {
    std::string k, v;
    if (!split_assignment(g, k, v)) {
      error("--generator-input", "\"" + g + "\" is not KEY=VALUE, e.g. with-cuda=enable");
      return kExitUnreadable;
    }
    opts.generator.emplace_back(k, v);
  }
  if (!o.toolkit.empty()) {
    auto t = matrix::detect_toolkit(o.toolkit);
    if (!t) return unreadable(o.toolkit, t.error().message(), "give the prefix of an installed CUDA toolkit", "--toolkit");
    opts.toolkit = *t;
  }

  // 2. The generator's output.
  std::string name = o.input == "-" ? "<stdin>" : o.input;
  Expected<std::string> text = std::string();
  if (o.input == "-") text = std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  else text = read_file_or_pipe(o.input, size_t{256} << 20);
  const char* generator_hint = "give the JSON the matrix generator printed: {\"include\": [...]}, a list of rows, or one row";
  if (!text) return unreadable(name, text.error().message(), generator_hint);
  bool single_row = false;
  auto rows = matrix::parse_rows(*text, name, &single_row);
  if (!rows) return unreadable(name, rows.error().message(), generator_hint);

  // A build job checking its own row: the other rows are not there to offer.
  if (single_row) opts.check_offered = false;

  // 3. Filter and report.
  matrix::Result res = matrix::filter(*rows, policy, opts);
  // SARIF or GitHub annotations: the guards' report on stdout (no text
  // lines on stderr); the matrix goes only to -o FILE, and only when no
  // guard failed.
  if (o.format == "sarif" || o.format == "github") {
    std::vector<Diagnostic> diags = res.findings;
    for (auto& d : diags) d.path = name;
    std::cout << render_diagnostics(o.format, "matrix", diags, 1);
    std::cout.flush();
    if (!res.findings.empty()) return kExitFindings;
    if (o.output.empty()) return kExitOk;
    return emit(res.matrix().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }

  // The library has escaped the messages; the input's name is escaped here.
  const std::string shown = printable(name);
  for (const auto& f : res.findings)
    std::fprintf(stderr, "cuwheel: error[%s]: %s: %s\n", f.rule.c_str(), shown.c_str(), f.message.c_str());

  // Dropped rows, grouped by reason (in order of first appearance).
  std::vector<std::pair<std::string, size_t>> groups;
  for (const auto& d : res.dropped) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == d.reason; });
    if (it == groups.end()) groups.emplace_back(d.reason, 1);
    else ++it->second;
  }

  if (o.format == "json") {
    json doc;
    doc["schema"] = 1;
    doc["tool"] = "cuwheel " CUWHEEL_VERSION;
    doc["command"] = "matrix";
    doc["input"] = name;
    doc["policy"] = policy.source.empty() ? json(nullptr) : json(policy.source);
    doc["pr"] = o.pr;
    doc["arch"] = o.arch.empty() ? json(nullptr) : json(o.arch);
    doc["toolkit"] = opts.toolkit ? json{{"version", std::to_string(opts.toolkit->major) + "." +
                                                         std::to_string(opts.toolkit->minor)},
                                        {"source", opts.toolkit->source}}
                                  : json(nullptr);
    doc["rows_in"] = res.rows_in;
    doc["rows_kept"] = res.include.size();
    doc["rows_dropped"] = res.dropped.size();
    doc["rows_failed"] = res.rows_failed;
    doc["matrix"] = res.matrix();
    json dropped = json::array();
    for (const auto& d : res.dropped)
      dropped.push_back({{"row", d.row}, {"build_name", d.build.empty() ? json(nullptr) : json(d.build)},
                         {"reason", d.reason}});
    doc["dropped"] = dropped;
    json findings = json::array();
    for (const auto& f : res.findings)
      findings.push_back({{"rule", f.rule}, {"severity", "error"}, {"row", f.index ? json(*f.index) : json(nullptr)},
                          {"message", f.message}});
    doc["findings"] = findings;
    doc["ok"] = res.findings.empty();
    int rc = emit(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    if (rc != kExitOk) return rc;
    return res.findings.empty() ? kExitOk : kExitFindings;
  }

  // Every row is counted once: kept + dropped + failed a guard = rows in.
  std::string failed = res.rows_failed ? ", " + std::to_string(res.rows_failed) + " failed a guard" : "";
  std::fprintf(stderr, "cuwheel: matrix: %zu rows in, %zu kept%s, %zu dropped%s\n", res.rows_in, res.include.size(),
               o.pr ? " (pull-request representative)" : "", res.dropped.size(), failed.c_str());
  for (const auto& [reason, n] : groups) std::fprintf(stderr, "  %zu x %s\n", n, reason.c_str());
  if (o.verbose)
    for (const auto& d : res.dropped)
      std::fprintf(stderr, "  dropped row %d%s: %s\n", d.row,
                   d.build.empty() ? "" : (" (" + printable(d.build) + ")").c_str(), d.reason.c_str());
  if (!res.findings.empty()) {
    std::fprintf(stderr, "cuwheel: matrix: %zu guard%s failed; no matrix written\n", res.findings.size(),
                 res.findings.size() == 1 ? "" : "s");
    return kExitFindings;
  }
  return emit(res.matrix().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

// Whether -o names `input` (the same path, or the same file by
// std::filesystem::equivalent, through a link or another spelling).
bool same_file(const std::string& output, const std::string& input) {
  if (input.empty() || input == "-") return false;
  if (output == input) return true;
  std::error_code ec;
  return std::filesystem::equivalent(output, input, ec) && !ec;
}

}  // namespace

int run_matrix() {
  g_wrote = false;
  // Refused before anything is read or written: a failed run removes its
  // -o FILE, and a successful one replaces it, either way the input.
  if (!g_opts.output.empty())
    for (const auto& [what, path] : {std::pair<const char*, const std::string&>{"the matrix input", g_opts.input},
                                     {"the policy", g_opts.policy}})
      if (same_file(g_opts.output, path)) {
        error("--output", g_opts.output + " is " + what + " " + path +
                              ": write the result to another file (a failed run removes -o FILE)");
        return kExitUnreadable;
      }
  if ((g_opts.format == "sarif" || g_opts.format == "github") && !g_opts.output.empty() && names_standard_output(g_opts.output)) {
    error("--output", "--format " + g_opts.format + " writes its report on stdout: give -o a file for the matrix");
    return kExitUnreadable;
  }
  int rc = run_matrix_once();
  // A matrix left by an earlier run must not pass for this run's result:
  // a run that fails (guard, unreadable input, usage) leaves no -o FILE.
  if (rc != kExitOk && !g_wrote && remove_stale_output(g_opts.output))
    std::fprintf(stderr, "cuwheel: matrix: removed the earlier %s\n", printable(g_opts.output).c_str());
  return rc;
}

void setup_matrix(CLI::App* cmd) {
  cmd->add_option("MATRIX", g_opts.input, "The generator's JSON output: a list of rows or {\"include\": [...]} (- for stdin)")
      ->required();
  cmd->add_option("--policy", g_opts.policy,
                  "Policy file (default: [matrix] in cuwheel.toml or [tool.cuwheel.matrix] in pyproject.toml, searched upwards)");
  cmd->add_option("--python", g_opts.python, "Python allowlist, overrides the policy's: 3.10,3.11,3.12");
  cmd->add_option("--trains", g_opts.trains, "Trains per CPU architecture, overrides the policy's: x86_64=cu126,cu130 (repeatable, once per architecture)");
  cmd->add_option("--field", g_opts.fields, "Rename a row field: desired_cuda=cuda_version (repeatable)");
  cmd->add_option("--generator-input", g_opts.generator,
                  "A generator input the workflow passes, checked for its accepted spelling: with-cuda=enable (repeatable)");
  cmd->add_option("--arch", g_opts.arch, "Keep only rows of this CPU architecture or empty kind (x86_64, aarch64, jetson)");
  cmd->add_flag("--pr", g_opts.pr, "Pull-request mode: keep one representative row");
  cmd->add_option("--toolkit", g_opts.toolkit,
                  "CUDA toolkit folder, cuda.h or nvcc: fail when its major differs from a kept row's");
  cmd->add_option("--format", g_opts.format,
                  "text (the matrix on stdout), json (matrix, dropped rows, findings), or sarif / github (the guards' "
                  "report on stdout; the matrix only to -o FILE)")
      ->check(CLI::IsMember(report_formats()));
  cmd->add_option("-o,--output", g_opts.output,
                  "Write the result to FILE (atomically; '-' or /dev/stdout is stdout; a pipe or character device is written through (a FIFO waits for its reader), a "
                  "symlink's target replaced) instead of stdout; a run that fails (exit 1 or 2) removes an "
                  "existing FILE, so an earlier matrix cannot pass for this run's");
  cmd->add_flag("-v,--verbose", g_opts.verbose, "List every dropped row");
}

}  // namespace cuwheel::cli
