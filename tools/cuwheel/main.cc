// cuwheel: entry point. Declares the subcommands and hands each its options.
#include <malloc.h>
#include <algorithm>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cstdio>
#include <iostream>

#include "cli.h"
#include "cuwheel/base/bytes.h"

namespace cuwheel::cli {

namespace {
// Readers' messages often start with the file name already; do not repeat it.
std::string located(const std::string& where, const std::string& message) {
  if (where.empty()) return message;
  if (message.rfind(where + ": ", 0) == 0) return message;
  return where + ": " + message;
}
}  // namespace

std::vector<Command>& registered_commands() {
  static std::vector<Command> commands;
  return commands;
}

CLI::App* command_group(CLI::App& app, const std::string& name, const std::string& help) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (sub->get_name() == name) return sub;
  CLI::App* group = app.add_subcommand(name, help);
  group->require_subcommand(1);
  return group;
}

std::string decimal_number_error(const std::string& text) {
  if (text.empty()) return "an empty value is not allowed";
  for (char c : text)
    if (c < '0' || c > '9') return "\"" + text + "\" is not a decimal number";
  if (text.size() > 1 && text[0] == '0') return "\"" + text + "\" has a leading zero";
  return "";
}

// Messages carry names read from input (member names, paths, sonames):
// printable() keeps a control character in one from reaching the terminal
// or a CI log as itself (include/cuwheel/base/bytes.h).
void print_error(const std::string& where, const std::string& message) {
  std::fprintf(stderr, "cuwheel: error: %s\n", printable(located(where, message)).c_str());
}

void print_warning(const std::string& where, const std::string& message) {
  std::fprintf(stderr, "cuwheel: warning: %s\n", printable(located(where, message)).c_str());
}

struct Progress::State {
  bool enabled = false;
  bool shown = false;
  bool stop = false;
  std::string label;
  uint64_t done = 0, total = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::mutex mu;
  std::condition_variable cv;
  std::thread ticker;
};

Progress::Progress() : st_(std::make_unique<State>()) {
  st_->enabled = isatty(STDERR_FILENO) != 0;
  if (!st_->enabled) return;
  st_->ticker = std::thread([this] {
    std::unique_lock<std::mutex> lock(st_->mu);
    while (!st_->stop) {
      st_->cv.wait_for(lock, std::chrono::milliseconds(200));
      if (st_->stop) break;
      if (std::chrono::steady_clock::now() - st_->start >= std::chrono::seconds(1) && !st_->label.empty())
        draw_locked();
    }
  });
}

Progress::~Progress() {
  if (st_->ticker.joinable()) {
    {
      std::lock_guard<std::mutex> lock(st_->mu);
      st_->stop = true;
    }
    st_->cv.notify_all();
    st_->ticker.join();
  }
  clear();
}

void Progress::update(const std::string& label, uint64_t done, uint64_t total) {
  if (!st_->enabled) return;
  std::lock_guard<std::mutex> lock(st_->mu);
  st_->label = label;
  st_->done = done;
  st_->total = total;
}

void Progress::draw_locked() {
  const std::string label = printable(st_->label);
  std::string l = label.size() > 60 ? "..." + label.substr(label.size() - 57) : label;
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - st_->start).count();
  if (st_->total > 1)
    std::fprintf(stderr, "\r\033[K[%3d%%] %s (%llds)", static_cast<int>(st_->done * 100 / st_->total), l.c_str(),
                 static_cast<long long>(secs));
  else
    std::fprintf(stderr, "\r\033[Kreading %s (%llds)", l.c_str(), static_cast<long long>(secs));
  std::fflush(stderr);
  st_->shown = true;
}

void Progress::clear() {
  if (!st_->enabled) return;
  std::lock_guard<std::mutex> lock(st_->mu);
  if (st_->shown) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    st_->shown = false;
  }
}

void walk_paths(const std::vector<std::string>& paths, InputVisitor& visitor, Progress& progress,
                const std::function<void(const std::string&, const Error&)>& missing) {
  for (size_t i = 0; i < paths.size(); ++i) {
    progress.update(paths[i], i, paths.size());
    Status st = walk_input(paths[i], WalkOptions{}, visitor);
    if (!st) missing(paths[i], st.error());
  }
  progress.clear();
}

void print_json_document(const std::string& command, nlohmann::ordered_json inputs) {
  nlohmann::ordered_json doc;
  doc["schema"] = 1;
  doc["tool"] = "cuwheel " CUWHEEL_VERSION;
  doc["command"] = command;
  doc["inputs"] = std::move(inputs);
  std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

namespace {
// An option given an empty value ("--toolkit ''", "--max-growth ''") is a
// usage error in every subcommand: in CI it is what an unset variable
// becomes, and treating it as "not given" would silently turn a check off.
void reject_empty_values(CLI::App* app) {
  for (CLI::Option* opt : app->get_options([](CLI::Option* o) {
         return o->get_type_size() != 0 && !o->get_positional();
       }))
    opt->check(CLI::Validator(
        [](std::string& value) { return value.empty() ? std::string("an empty value is not allowed") : std::string(); },
        "", "non-empty"));
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) reject_empty_values(sub);
}
}  // namespace

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
