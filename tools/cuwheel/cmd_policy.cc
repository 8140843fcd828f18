// `cuwheel policy`: validates policy files without checking anything, for a
// pre-commit hook and for a packager editing one: the [tool.cuwheel] table
// of a pyproject.toml or a cuwheel.toml, with its [matrix] and [release]
// tables, each read by the loader the command that uses it reads it with
// (check::load_policy, matrix::load_policy, release::load_policy), so the
// hook refuses exactly what `check`, `matrix` and `release` would refuse.
//
// Exit status: 0 every file is a valid policy (or a pyproject.toml without
// a [tool.cuwheel] table: nothing to validate, said on stderr); 2 a file is
// missing, unreadable, not TOML, or holds an invalid key or value (the
// message names FILE:LINE and the key). Every file is validated.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "base/toml_safe.h"
#include "cli.h"
#include "commands.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/check/check.h"
#include "cuwheel/release/matrix.h"
#include "cuwheel/release/release.h"

namespace cuwheel::cli {

namespace {

struct PolicyOptions {
  std::vector<std::string> files;
} g_opts;

// The tables of `root` that hold the policy: [tool.cuwheel] in a
// pyproject.toml; in a cuwheel.toml the top level (or [tool.cuwheel]).
const toml::table* policy_table(const toml::table& root, bool pyproject) {
  const toml::table* t = nullptr;
  if (const auto* tool = root.get_as<toml::table>("tool")) t = tool->get_as<toml::table>("cuwheel");
  if (!t && !pyproject) t = &root;
  return t;
}

// Validates one file; prints its verdict. Returns false when it is invalid.
bool validate(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    print_error(printable(file), "not a policy file (missing, or not a regular file)");
    return false;
  }
  auto parsed = tomlsafe::parse_file(file);
  if (!parsed) {
    print_error("", printable(parsed.error().message()));
    return false;
  }
  const bool pyproject = std::filesystem::path(file).filename() == "pyproject.toml";
  // `tool` and `tool.cuwheel` must be tables where they exist: check would
  // refuse anything else ("no [tool.cuwheel] table").
  if (const auto* tool = parsed->get("tool")) {
    const auto* cw = tool->is_table() ? tool->as_table()->get("cuwheel") : nullptr;
    if (!tool->is_table() || (cw && !cw->is_table())) {
      const auto& bad = !tool->is_table() ? *tool : *cw;
      print_error("", printable(file) + ":" + std::to_string(bad.source().begin.line) + ": " +
                          (!tool->is_table() ? "tool" : "tool.cuwheel") + " must be a table");
      return false;
    }
  }
  const toml::table* t = policy_table(*parsed, pyproject);
  if (!t) {
    print_note(file, "no [tool.cuwheel] table (nothing to validate)");
    return true;
  }
  // The other commands' tables must be tables: check::load_policy takes
  // their names as known keys and leaves their values to those commands.
  const toml::table* top_level = pyproject ? t : &*parsed;
  for (const char* key : {"matrix", "release", "repair"})
    for (const toml::table* where : {t, top_level})
      if (const auto* v = where->get(key); v && !v->is_table()) {
        print_error("", printable(file) + ":" + std::to_string(v->source().begin.line) + ": " + key +
                            " must be a table ([" + (where == t && pyproject ? "tool.cuwheel." : "") + key + "])");
        return false;
      }
  std::string parts;
  bool ok = true;
  auto fail = [&](const std::string& message) {
    print_error("", printable(message));
    ok = false;
  };
  if (auto p = check::load_policy(file); !p) fail(p.error().message());
  else parts = "check";
  // [matrix] / [release]: at the top level of a cuwheel.toml, or under
  // [tool.cuwheel] (the only place in a pyproject.toml).
  const toml::table* top = pyproject ? t : &*parsed;
  if (t->get_as<toml::table>("matrix") || (top && top->get_as<toml::table>("matrix"))) {
    if (auto m = matrix::load_policy(file); !m) fail(m.error().message());
    else parts += ", matrix";
  }
  if (t->get_as<toml::table>("release") || (top && top->get_as<toml::table>("release"))) {
    if (auto r = release::load_policy(file); !r) fail(r.error().message());
    else parts += ", release";
  }
  if (ok) std::printf("%s: valid policy (%s)\n", printable(file).c_str(), parts.c_str());
  return ok;
}

}  // namespace

int run_policy() {
  std::vector<std::string> files = g_opts.files;
  if (files.empty()) {
    std::string found = check::find_policy_file(".");
    if (found.empty()) {
      print_note("policy", "no cuwheel.toml, and no pyproject.toml with a [tool.cuwheel] table, in this folder or "
                           "its parents: the built-in policy applies");
      return kExitOk;
    }
    files.push_back(found);
  }
  bool all_ok = true;
  for (const auto& f : files) all_ok = validate(f) && all_ok;
  std::fflush(stdout);
  return all_ok ? kExitOk : kExitUnreadable;
}

void setup_policy(CLI::App* cmd) {
  cmd->add_option("FILE", g_opts.files,
                  "Policy files: pyproject.toml ([tool.cuwheel]) or cuwheel.toml (default: the one check would use)");
  cmd->footer(
      "Validates each policy as check, matrix and release read it, and checks nothing else.\n"
      "Exit status: 0 every file is valid (a pyproject.toml without [tool.cuwheel] has nothing to validate);\n"
      "2 a file is missing, not TOML, or holds an unknown key or a bad value (FILE:LINE named).");
}

}  // namespace cuwheel::cli
