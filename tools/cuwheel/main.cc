// cuwheel: entry point.
//
// The commands are rows of one table (commands.cc). main() turns each row
// into a CLI11 subcommand, "toolkit lock" under the group row "toolkit",
// and lets the row's setup add its options, bound to state its
// cmd_<name>.cc owns (only for the command named on the command line). Then it parses the arguments: a usage error or --help
// ends the run here, with exit status 2 or 0. Otherwise it tunes the
// process for reading large inputs and calls the run of the one command
// given, whose return value is the exit status (cli.h).
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "base/suggest.h"
#include "cuwheel/base/bytes.h"
#include "commands.h"

int main(int argc, char** argv) {
  using namespace cuwheel::cli;
  CLI::App app{"cuwheel: read and check Python wheels that carry NVIDIA CUDA code"};
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    // The parser quotes arguments, which may come from input (a glob of
    // file names): escaped like every other name, and bounded.
    std::string what = cuwheel::printable(e.what());
    if (what.size() > 2000) what = what.substr(0, 2000) + "... (message cut)";
    return "cuwheel: error: " + what + "\nRun 'cuwheel --help' or 'cuwheel COMMAND --help' for usage.\n";
  });
  app.set_version_flag("-V,--version", "cuwheel " CUWHEEL_VERSION);
  app.require_subcommand(1);

  // Only the command named on the command line gets its options: the top
  // level takes no option with a value, so the first two words that do not
  // start with '-' are the command ("check") or the group and its leaf
  // ("toolkit lock"). Building every command's options took most of the
  // start-up time (bench/startup.sh); the other commands are still listed,
  // with their descriptions, by --help, and a misspelt one is still refused.
  std::vector<std::string> words;
  for (int i = 1; i < argc && words.size() < 2; ++i)
    if (argv[i][0] != '-') words.push_back(argv[i]);
  // An unknown command (or group leaf) is named, with the nearest one; the
  // parser alone would only say that a subcommand is required.
  {
    std::vector<std::string_view> tops, leaves;
    std::string group;
    for (const Command& c : commands()) {
      std::string_view n = c.name;
      size_t space = n.find(' ');
      if (space == std::string_view::npos) tops.push_back(n);
      else if (!words.empty() && n.substr(0, space) == words[0]) leaves.push_back(n.substr(space + 1));
    }
    auto unknown = [](const std::string& prefix, const std::string& word, const std::vector<std::string_view>& known) {
      std::string hint = cuwheel::suggest::nearest(word, known);
      std::fprintf(stderr, "cuwheel: error: unknown command '%s%s'%s\nRun 'cuwheel --help' for the commands.\n",
                   prefix.c_str(), cuwheel::printable(word).c_str(),
                   hint.empty() ? "" : (" (did you mean \"" + prefix + hint + "\"?)").c_str());
      return kExitUnreadable;
    };
    if (!words.empty() && std::find(tops.begin(), tops.end(), words[0]) == tops.end())
      return unknown("", words[0], tops);
    if (!leaves.empty() && words.size() == 2 && std::find(leaves.begin(), leaves.end(), words[1]) == leaves.end())
      return unknown(words[0] + " ", words[1], leaves);
  }
  auto named = [&](const std::string& full) {
    return (!words.empty() && full == words[0]) || (words.size() == 2 && full == words[0] + " " + words[1]);
  };

  std::vector<CLI::App*> subs;  // subs[i] is the subcommand of commands()[i]
  for (const Command& c : commands()) {
    CLI::App* parent = &app;
    std::string name = c.name;
    for (size_t space; (space = name.find(' ')) != std::string::npos; name.erase(0, space + 1))
      parent = parent->get_subcommand(name.substr(0, space));
    CLI::App* sub = parent->add_subcommand(name, c.desc);
    if (c.setup && named(c.name)) c.setup(sub);
    if (!c.run) sub->require_subcommand(1);
    subs.push_back(sub);
  }
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
  for (size_t i = 0; i < subs.size(); ++i)
    if (commands()[i].run && *subs[i]) return commands()[i].run();
  return kExitUnreadable;
}
