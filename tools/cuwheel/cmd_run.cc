// `cuwheel run --hide-driver [--also PATH]... [--dry-run] -- CMD ARGS...`:
// runs CMD where the NVIDIA driver cannot be loaded (hide_driver.h), for a
// CPU-fallback test on a machine that has a GPU. docs/hide-driver.md.
//
// Exit status: CMD's own (128 + N when signal N ended it; 127 when CMD is
// not found, 126 when it cannot be executed, as a shell reports them);
// 125 when the driver could not be hidden, so nothing ran (as GNU env(1)
// and timeout(1) use 125 for their own failures, out of CMD's way); 2 for a
// usage error; with --dry-run, 0.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "cuwheel/host/hide_driver.h"

namespace cuwheel::cli {

namespace {

using json = nlohmann::ordered_json;

constexpr int kExitNotHidden = 125;

struct RunOptions {
  bool hide_driver = false;
  bool dry_run = false;
  std::vector<std::string> also;
  std::string format = "text";
  std::string root;
  std::vector<std::string> command;
};

RunOptions g_opts;

// CLI11 passes everything after "--" to CMD but also takes a CMD given
// without it, where an option of CMD could be read as ours; require "--".
// /proc/self/cmdline (proc(5)) holds argv, each NUL-terminated; its size
// is not known in advance, so it is read until EOF.
bool double_dash_given() {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;  // cannot tell: trust the parse
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) text.append(buf, static_cast<size_t>(n));
  close(fd);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\0', pos);
    if (end == std::string::npos) end = text.size();
    if (text.compare(pos, end - pos, "--") == 0) return true;
    pos = end + 1;
  }
  return false;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

void print_plan_text(const HidePlan& plan) {
  std::printf("would hide %zu path%s (", plan.targets.size(), plan.targets.size() == 1 ? "" : "s");
  if (plan.ld_so_cache.empty())
    std::printf("no ld.so.cache");
  else
    std::printf("%s: %zu entries", plan.ld_so_cache.c_str(), plan.ld_so_cache_entries);
  std::printf("; %zu folders searched)\n", plan.searched.size());
  for (const auto& t : plan.targets)
    std::printf("  %-9s  %s\n             via %s\n", to_string(t.kind), t.path.c_str(), joined(t.via).c_str());
}

void print_plan_json(const HidePlan& plan, const std::vector<std::string>& warnings) {
  json doc;
  doc["schema"] = 1;
  doc["tool"] = "cuwheel " CUWHEEL_VERSION;
  doc["command"] = "run";
  json hide;
  hide["ld_so_cache"] = plan.ld_so_cache.empty() ? json(nullptr) : json(plan.ld_so_cache);
  hide["ld_so_cache_entries"] = plan.ld_so_cache_entries;
  hide["searched"] = plan.searched;
  json targets = json::array();
  for (const auto& t : plan.targets) targets.push_back({{"path", t.path}, {"kind", to_string(t.kind)}, {"via", t.via}});
  hide["targets"] = std::move(targets);
  doc["hide_driver"] = std::move(hide);
  doc["warnings"] = warnings;
  std::cout << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace

void setup_run(CLI::App* sub) {
  sub->add_flag("--hide-driver", g_opts.hide_driver,
                "Cover every driver library the loader can find and /dev/nvidia* (required)");
  sub->add_option("--also", g_opts.also, "Cover this file or folder too (repeatable)")->allow_extra_args(false);
  sub->add_flag("--dry-run,--list", g_opts.dry_run, "Print what would be hidden and run nothing");
  sub->add_option("--format", g_opts.format, "Output of --dry-run: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  sub->add_option("--root", g_opts.root, "With --dry-run: read this tree instead of / (an image, a test tree)");
  sub->add_option("CMD", g_opts.command, "The command and its arguments, after --");
  sub->footer(
      "Exit status: CMD's (128+N for signal N, 127 not found, 126 not executable); "
      "125 when the driver could not be hidden; 2 usage error.");
}

int run_run() {
  const RunOptions& o = g_opts;
  if (!o.hide_driver) {
    print_error("run", "--hide-driver is required (it is the only mode of `cuwheel run` so far)");
    return kExitUnreadable;
  }
  if (!o.root.empty() && !o.dry_run) {
    print_error("run", "--root only reads another tree; it needs --dry-run");
    return kExitUnreadable;
  }
  if (o.format == "json" && !o.dry_run) {
    print_error("run", "--format json describes the plan; it needs --dry-run");
    return kExitUnreadable;
  }
  if (!o.dry_run && o.command.empty()) {
    print_error("run", "no command: cuwheel run --hide-driver -- CMD [ARGS...]");
    return kExitUnreadable;
  }
  if (!o.command.empty() && !double_dash_given()) {
    print_error("run", "put the command after --: cuwheel run --hide-driver -- " + o.command.front() + " ...");
    return kExitUnreadable;
  }

  HideDriverInputs in;
  in.root = o.root.empty() ? "/" : o.root;
  if (const char* llp = std::getenv("LD_LIBRARY_PATH")) in.ld_library_path = llp;
  if (char* cwd = getcwd(nullptr, 0)) {
    in.cwd = cwd;
    std::free(cwd);
  }
  in.also = o.also;
  WarningSink warnings([](const std::string& m) { print_warning("run", m); });
  auto plan = plan_hide_driver(in, warnings);
  if (!plan) {
    print_error("run", plan.error().message());
    return kExitUnreadable;
  }
  if (o.dry_run) {
    if (o.format == "json")
      print_plan_json(*plan, warnings.messages());
    else
      print_plan_text(*plan);
    return kExitOk;
  }

  if (plan->targets.empty())
    print_warning("run", "no NVIDIA driver library or device found; running the command as it is");
  std::fflush(stdout);
  std::fflush(stderr);
  auto outcome = run_with_driver_hidden(*plan, o.command);
  if (!outcome) {
    print_error("run", outcome.error().message());
    return kExitNotHidden;
  }
  if (!outcome->exec_error.empty()) print_error("run", outcome->exec_error);
  return outcome->status;
}

}  // namespace cuwheel::cli
