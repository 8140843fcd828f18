// cuwheel command-line tool: the command table.
//
// Every command is one row of the table in commands.cc, in the order
// `cuwheel --help` lists them. main.cc adds one CLI11 subcommand per row,
// named and described from the row, lets the row's `setup` add its options,
// parses, and calls the `run` of the command given. Each cmd_<name>.cc
// exports the setup_* and run_* of its commands, declared below.
#pragma once

#include <span>

namespace CLI {
class App;
}

namespace cuwheel::cli {

/// One command. `name` is the command as typed: "list", or "toolkit lock"
/// for a leaf of a group. A group ("toolkit") is a row without `run`,
/// placed before its leaves; it needs exactly one of them.
struct Command {
  const char* name;
  const char* desc;               ///< its line in --help
  void (*setup)(CLI::App* cmd);   ///< adds its options to `cmd` (nullptr: none)
  int (*run)();                   ///< runs it after a successful parse; returns kExit* (cli.h)
};

/// The table, in the order `cuwheel --help` lists the commands.
std::span<const Command> commands();

// cmd_list.cc, cmd_show.cc, cmd_check.cc (check, rules, rule)
void setup_list(CLI::App* cmd);
int run_list();
void setup_show(CLI::App* cmd);
int run_show();
void setup_check(CLI::App* cmd);
int run_check();
void setup_rules(CLI::App* cmd);
int run_rules();
void setup_rule(CLI::App* cmd);
int run_rule();
// cmd_diff.cc, cmd_matrix.cc, cmd_arch.cc
void setup_diff(CLI::App* cmd);
int run_diff();
void setup_matrix(CLI::App* cmd);
int run_matrix();
void setup_arch(CLI::App* cmd);
int run_arch();
// cmd_policy.cc
void setup_policy(CLI::App* cmd);
int run_policy();
// cmd_release.cc
void setup_release_select(CLI::App* cmd);
int run_release_select();
void setup_release_verify(CLI::App* cmd);
int run_release_verify();
void setup_release_split(CLI::App* cmd);
int run_release_split();
void setup_release_plan(CLI::App* cmd);
int run_release_plan();
// cmd_identity.cc
void setup_identity_show(CLI::App* cmd);
int run_identity_show();
void setup_identity_check(CLI::App* cmd);
int run_identity_check();
void setup_identity_stamp(CLI::App* cmd);
int run_identity_stamp();
// cmd_repair.cc
void setup_repair(CLI::App* cmd);
int run_repair();

// cmd_probe.cc
void setup_probe(CLI::App* cmd);
int run_probe();
// cmd_run.cc
void setup_run(CLI::App* cmd);
int run_run();
// cmd_toolkit_lock.cc, cmd_toolkit_fetch.cc
void setup_toolkit_lock(CLI::App* cmd);
int run_toolkit_lock();
void setup_toolkit_download(CLI::App* cmd);
int run_toolkit_download();
void setup_toolkit_verify(CLI::App* cmd);
int run_toolkit_verify();
void setup_toolkit_extract(CLI::App* cmd);
int run_toolkit_extract();
void setup_toolkit_check(CLI::App* cmd);
int run_toolkit_check();

}  // namespace cuwheel::cli
