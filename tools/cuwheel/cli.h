// cuwheel command-line tool: shared declarations.
//
// main.cc declares the subcommands (a table of name, help and handler) with
// CLI11 and fills one options struct per subcommand; each handler lives in
// its own cmd_<name>.cc and returns the process exit status:
//   0  success
//   1  findings (reserved for `check`)
//   2  an input could not be read, or a usage error
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace CLI {
class App;
}

#include "cuwheel/model/inputs.h"

namespace cuwheel::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUnreadable = 2;

struct ListOptions {
  bool elf = false;
  bool ptx = false;
  bool all = false;
  std::string format = "text";  ///< text | json | cuobjdump
  std::vector<std::string> paths;
};

struct ShowOptions {
  std::string format = "text";  ///< text | json
  std::vector<std::string> paths;
};

struct CheckOptions {
  std::string policy;            ///< --policy FILE ("" = search)
  std::vector<std::string> select, ignore;
  std::string format = "text";   ///< text | json | sarif | github
  std::optional<int> cuda_major;
  std::string sass, ptx, gpus, min_driver, max_size, exports, license_files;
  std::string max_installed_size;  ///< --max-installed-size SIZE
  std::vector<std::string> entry_points;  ///< --entry-point GROUP:NAME (repeatable)
  std::vector<std::string> pins;  ///< DIST=exact
  std::vector<std::string> severity;  ///< RULE=error|warning|off
  bool sass_exact = false;
  std::vector<std::string> paths;
};

int run_list(const ListOptions& opts);
int run_check(const CheckOptions& opts);
int run_rules();
int run_rule(const std::string& name);
int run_show(const ShowOptions& opts);

/// Self-registering subcommands. A cmd_<name>.cc for a newer subcommand
/// defines one static `CommandRegistration`; main.cc calls every `setup`
/// (in `order`, so `cuwheel --help` lists them predictably) before parsing,
/// and runs the one whose subcommand was given. `setup` adds the subcommand
/// to `app` and binds its options to state the file owns; `run` returns the
/// exit status (kExit*).
struct Command {
  int order;                                  ///< position in --help, after list/show/check/rules/rule
  CLI::App* (*setup)(CLI::App& app);          ///< adds the subcommand, returns it
  int (*run)();                               ///< runs it after a successful parse
};
/// The registered commands (order of registration, sorted by main.cc).
std::vector<Command>& registered_commands();
struct CommandRegistration {
  explicit CommandRegistration(Command c) { registered_commands().push_back(c); }
};

/// The command group `name` (e.g. "toolkit" for `cuwheel toolkit lock`):
/// returns the existing subcommand of `app` with that name, or adds it with
/// `help` and require_subcommand(1). Lets several cmd_*.cc files add
/// subcommands to one group; each registers its leaf subcommands.
CLI::App* command_group(CLI::App& app, const std::string& name, const std::string& help);

/// Returns "" when `text` is a decimal integer without sign or leading zero
/// ("12"), else the reason. CLI11 alone would read "012" as octal and
/// "0x0c" as hexadecimal; use it as a validator before a numeric check.
std::string decimal_number_error(const std::string& text);

/// Prints "cuwheel: error: <where>: <message>" to stderr.
void print_error(const std::string& where, const std::string& message);
/// Prints "cuwheel: warning: <where>: <message>" to stderr.
void print_warning(const std::string& where, const std::string& message);

/// A one-line progress indicator on stderr, shown only when stderr is a
/// terminal and the run has lasted over a second. A ticker thread redraws
/// it every 200 ms with the current input and the elapsed time, so one slow
/// file shows progress too; clear() erases it before normal output.
class Progress {
 public:
  Progress();
  ~Progress();
  /// Sets the current item (`done` of `total`, in the caller's unit).
  void update(const std::string& label, uint64_t done, uint64_t total);
  /// Erases the line (call before writing to stdout/stderr).
  void clear();

 private:
  void draw_locked();
  struct State;
  std::unique_ptr<State> st_;
};

/// Walks each path with `visitor` (cuwheel/model/inputs.h), updating `progress`;
/// `missing(path, error)` is called for a path that cannot be opened at all.
void walk_paths(const std::vector<std::string>& paths, InputVisitor& visitor, Progress& progress,
                const std::function<void(const std::string&, const Error&)>& missing);

/// Prints the JSON document shared by list and show: {"schema": 1, "tool",
/// "command", "inputs"}; bytes that are not UTF-8 are replaced, never fatal.
void print_json_document(const std::string& command, nlohmann::ordered_json inputs);

/// Makes an empty value ("--toolkit ''") a usage error for every option of
/// `app` and of its subcommands, at any depth; call it once every command
/// is set up.
void reject_empty_values(CLI::App* app);

}  // namespace cuwheel::cli
