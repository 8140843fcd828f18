// cuwheel: entry point. Declares the subcommands and hands each its options.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "cli.h"

namespace cuwheel::cli {

std::vector<Command>& registered_commands() {
  static std::vector<Command> commands;
  return commands;
}

}  // namespace cuwheel::cli

int main(int argc, char** argv) {
  using namespace cuwheel::cli;
  CLI::App app{"cuwheel: read and check Python wheels that carry NVIDIA CUDA code"};
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("cuwheel: error: ") + e.what() + "\nRun 'cuwheel --help' or 'cuwheel COMMAND --help' for usage.\n";
  });
  app.set_version_flag("--version", "cuwheel " CUWHEEL_VERSION);
  app.require_subcommand(1);

  ListOptions list;
  auto* cmd_list = app.add_subcommand("list", "List the device code (SASS, PTX, ...) in ELF files, archives, wheels or directories");
  cmd_list->add_flag("--elf", list.elf, "List ELF (SASS) entries");
  cmd_list->add_flag("--ptx", list.ptx, "List PTX entries");
  cmd_list->add_flag("--all", list.all, "Also list relocatable fatbins (like cuobjdump -all)");
  cmd_list->add_option("--format", list.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "cuobjdump"}))
      ->default_str("text");
  cmd_list->add_option("PATH", list.paths, "ELF file, static archive, fatbin, cubin, wheel or directory")->required();

  ShowOptions show;
  auto* cmd_show = app.add_subcommand("show", "Show load-time facts (soname, NEEDED, RUNPATH, CUDA runtime) and a device-code summary");
  cmd_show->add_option("--format", show.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_str("text");
  cmd_show->add_option("PATH", show.paths, "ELF file, static archive, wheel or directory")->required();

  CheckOptions check;
  auto* cmd_check = app.add_subcommand("check", "Check wheels (or libraries, or an installed environment) against a policy");
  cmd_check->add_option("--policy", check.policy, "Policy file (default: cuwheel.toml or [tool.cuwheel] in the nearest pyproject.toml)");
  // Split by run_check, which rejects an empty item (CLI11's delimiter drops it).
  cmd_check->add_option("--select", check.select, "Only these rules (comma-separated names or codes)")->allow_extra_args(false);
  cmd_check->add_option("--ignore", check.ignore, "Never these rules (comma-separated)")->allow_extra_args(false);
  cmd_check->add_option("--format", check.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "sarif", "github"}))
      ->default_str("text");
  cmd_check->add_option("--cuda-major", check.cuda_major, "CUDA major the wheel targets")
      ->check(CLI::Validator([](std::string& s) { return decimal_number_error(s); }, "", "decimal"))
      ->check(CLI::IsMember({12, 13}));
  cmd_check->add_option("--sass", check.sass, "SASS every device-code library must carry, e.g. sm_75,sm_80,sm_90");
  cmd_check->add_flag("--sass-exact", check.sass_exact, "Also flag SASS not in --sass");
  cmd_check->add_option("--ptx", check.ptx, "Required PTX: newest, none, or compute_NN,...");
  cmd_check->add_option("--gpus", check.gpus, "GPUs every device-code library must run on, e.g. sm_80,sm_89");
  cmd_check->add_option("--min-driver", check.min_driver, "Oldest NVIDIA driver to support, e.g. 570.26");
  cmd_check->add_option("--max-size", check.max_size, "Largest wheel size, e.g. 200MB");
  cmd_check->add_option("--max-installed-size", check.max_installed_size, "Largest installed size (sum of uncompressed members), e.g. 1GB");
  cmd_check->add_option("--entry-point", check.entry_points, "GROUP:NAME (or NAME, any group) the wheel must declare (repeatable)")->allow_extra_args(false);
  cmd_check->add_option("--exports", check.exports, "Allowed exported symbols, glob patterns, comma-separated");
  cmd_check->add_option("--license-file", check.license_files, "Files that must be in the wheel, comma-separated");
  cmd_check->add_option("--pin", check.pins, "DIST=exact: Requires-Dist must pin DIST with ==")->allow_extra_args(false);
  cmd_check->add_option("--severity", check.severity, "RULE=error|warning|off")->allow_extra_args(false);
  cmd_check->add_option("PATH", check.paths, "Wheel, folder of wheels, shared library or installed environment")->required();

  app.add_subcommand("rules", "List the check rules");
  std::string rule_name;
  auto* cmd_rule = app.add_subcommand("rule", "Print a rule's documentation");
  cmd_rule->add_option("NAME", rule_name, "Rule name or code")->required();

  std::vector<Command> extra = registered_commands();
  std::stable_sort(extra.begin(), extra.end(), [](const Command& a, const Command& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, int (*)()>> extra_apps;
  for (const Command& c : extra) extra_apps.emplace_back(c.setup(app), c.run);

  reject_empty_values(&app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUnreadable;
  }
  std::ios::sync_with_stdio(false);
  // Decoded payloads are large and short-lived, and decoding runs on several
  // threads: serve every buffer over 1 MiB from its own mapping, so freeing
  // it returns the memory at once (glibc otherwise raises the threshold
  // after the first large free and keeps the memory in per-thread arenas).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  if (*cmd_list) return run_list(list);
  if (*cmd_show) return run_show(show);
  if (*cmd_check) return run_check(check);
  if (app.got_subcommand("rules")) return run_rules();
  if (*cmd_rule) return run_rule(rule_name);
  for (auto& [sub, run] : extra_apps)
    if (*sub) return run();
  return kExitUnreadable;
}
