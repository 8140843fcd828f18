// cuwheel: entry point. Declares the subcommands and hands each its options.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "cli.h"

namespace cuwheel::cli {

void print_error(const std::string& where, const std::string& message) {
  std::fprintf(stderr, "cuwheel: error: %s%s%s\n", where.c_str(), where.empty() ? "" : ": ", message.c_str());
}

void print_warning(const std::string& where, const std::string& message) {
  std::fprintf(stderr, "cuwheel: warning: %s%s%s\n", where.c_str(), where.empty() ? "" : ": ", message.c_str());
}

Progress::Progress() : enabled_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { clear(); }

void Progress::update(const std::string& label, uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1)) return;
  if (shown_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  std::string l = label.size() > 50 ? "..." + label.substr(label.size() - 47) : label;
  int pct = total ? static_cast<int>(done * 100 / total) : 0;
  std::fprintf(stderr, "\r\033[K[%3d%%] %s", pct, l.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void Progress::clear() {
  if (shown_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }
}

std::string json_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out;
}

}  // namespace cuwheel::cli

int main(int argc, char** argv) {
  using namespace cuwheel::cli;
  CLI::App app{"cuwheel: read, check and release Python wheels that carry NVIDIA CUDA code"};
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUnreadable;
  }
  std::ios::sync_with_stdio(false);
  if (*cmd_list) return run_list(list);
  if (*cmd_show) return run_show(show);
  return kExitUnreadable;
}
