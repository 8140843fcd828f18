// `cuwheel diff OLD.whl NEW.whl`: what changed between two builds of a
// wheel (include/cuwheel/release/diff.h), and a growth gate for CI:
// `--max-growth 10%` or `--max-growth 50MB` on the wheel file,
// `--max-installed-growth` on the installed size. Exit status 0 within the
// limits (or none given), 1 over a limit, 2 when a wheel cannot be read or
// a flag is invalid. docs/diff.md.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "cli.h"
#include "commands.h"
#include "cuwheel/release/diff.h"
#include "cuwheel/render/diff.h"

namespace cuwheel::cli {

namespace {

struct DiffOptions {
  std::string old_path, new_path;
  std::string max_growth, max_installed_growth;
  std::string format = "text";
  size_t top = 20;  ///< members listed in text (0: all)
};
DiffOptions g_opts;

}  // namespace

int run_diff() {
  const DiffOptions& o = g_opts;
  std::vector<diff::Gate> gates;
  auto add_gate = [&gates](const std::string& text, const char* flag, const char* what) {
    if (text.empty()) return true;
    auto g = diff::parse_growth_limit(text);
    if (!g) {
      print_error(flag, "\"" + text + "\" is neither a percentage (10%) nor a size (50MB)");
      return false;
    }
    gates.push_back(diff::Gate{what, flag, *g});
    return true;
  };
  if (!add_gate(o.max_growth, "--max-growth", "wheel size") ||
      !add_gate(o.max_installed_growth, "--max-installed-growth", "installed size"))
    return kExitUnreadable;
  // Both wheels are read, so that a run reports every one it cannot read.
  auto old_model = diff::read_diff_wheel(o.old_path);
  auto new_model = diff::read_diff_wheel(o.new_path);
  std::vector<UnreadableInput> unreadable;
  for (const auto* m : {&old_model, &new_model})
    if (!*m) {
      const std::string& path = m == &old_model ? o.old_path : o.new_path;
      print_error("", m->error().message());
      unreadable.push_back({path, "", m->error().message(),
                            "check that the file is a complete wheel (a truncated download or a Git LFS pointer is not)"});
    }
  if (!unreadable.empty()) {
    if (o.format == "json") {
      nlohmann::ordered_json doc = {{"schema", 1}, {"tool", "cuwheel " CUWHEEL_VERSION}, {"command", "diff"},
                                    {"unreadable", unreadable_json(unreadable)}};
      std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      std::cout << render_unreadable(o.format, "diff", "unreadable", unreadable, 2);
    }
    return kExitUnreadable;
  }
  auto d = diff::diff_models(*old_model, *new_model);
  // Installers keep the last copy of a repeated name; it is what is compared.
  for (const auto& du : d.duplicates)
    print_warning(du.path, du.member + " is stored " + std::to_string(du.copies) +
                               " times; installers keep the last copy, which is the one compared");
  bool exceeded = false;
  for (auto& g : gates) {
    bool file = g.flag == "--max-growth";
    g.old_size = file ? d.old_file_size : d.old_installed;
    g.new_size = file ? d.new_file_size : d.new_installed;
    g.exceeded = diff::exceeds(g.limit, g.old_size, g.new_size);
    exceeded |= g.exceeded;
  }
  if (o.format == "sarif" || o.format == "github")
    std::cout << render_diagnostics(o.format, "diff", render::diff_diagnostics(d, gates), 2);
  else if (o.format == "json")
    std::cout << render::render_diff_json(d, gates);
  else
    std::cout << render::render_diff_text(d, gates, o.top);
  std::cout.flush();
  return exceeded ? kExitFindings : kExitOk;
}

void setup_diff(CLI::App* cmd) {
  cmd->add_option("OLD", g_opts.old_path, "The earlier build (.whl)")->required();
  cmd->add_option("NEW", g_opts.new_path, "The later build (.whl)")->required();
  cmd->add_option("--max-growth", g_opts.max_growth, "Exit 1 when the wheel file grew by more than this: 10% or 50MB");
  cmd->add_option("--max-installed-growth", g_opts.max_installed_growth,
                  "Exit 1 when the installed size grew by more than this: 10% or 50MB");
  cmd->add_option("--top", g_opts.top, "Members listed in text output, largest change first (0: all)")
      ->check(CLI::Validator([](std::string& s) { return decimal_number_error(s); }, "", "decimal"))
      ->default_str("20");
  cmd->add_option("--format", g_opts.format, "Output: text, json, or sarif / github (the exceeded gates and duplicate members as a report)")
      ->check(CLI::IsMember(report_formats()))
      ->default_str("text");
}

}  // namespace cuwheel::cli
