// cuwheel command-line tool: what the commands share.
//
// The commands are rows of one table (commands.h, commands.cc); each lives
// in its own cmd_<name>.cc, which binds its options to state it owns and
// uses the helpers declared here (cli_common.cc): messages, the progress
// line, walking inputs, the JSON document of list and show. main.cc builds
// the CLI11 app from the table and runs the command given. A command's run
// returns the process exit status:
//   0  success
//   1  findings (check; a failed gate or verification in the others)
//   2  an input could not be read, or a usage error
// (run, which runs another program, also passes that program's status on.)
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace CLI {
class App;
}

#include "cuwheel/base/diagnostic.h"
#include "cuwheel/check/check.h"
#include "cuwheel/model/inputs.h"

namespace cuwheel::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUnreadable = 2;

/// Returns "" when `text` is a decimal integer without sign or leading zero
/// ("12"), else the reason. CLI11 alone would read "012" as octal and
/// "0x0c" as hexadecimal; use it as a validator before a numeric check.
std::string decimal_number_error(const std::string& text);

/// Prints "cuwheel: error: <where>: <message>" to stderr.
void print_error(const std::string& where, const std::string& message);
/// Prints "cuwheel: warning: <where>: <message>" to stderr.
void print_warning(const std::string& where, const std::string& message);
/// Prints "cuwheel: note: <where>: <message>" to stderr.
void print_note(const std::string& where, const std::string& message);

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

/// The report of `command`'s diagnostics in `format` ("sarif" or
/// "github"), through the renderers `check` uses
/// (cuwheel/render/report.h): `inputs` inputs read, the severities
/// counted from `diagnostics`. Member, location, message and hint go
/// through printable() (cuwheel/base/bytes.h) as in every other output.
/// `unreadable`: some input could not be read (the command exits 2), so
/// SARIF says the run did not execute successfully.
std::string render_diagnostics(const std::string& format, const std::string& command,
                               std::vector<Diagnostic> diagnostics, size_t inputs, bool unreadable = false);

/// What a command reports when an input could not be read (it exits 2),
/// in `format`: for "sarif" and "github" the report of one diagnostic per
/// entry of `unreadable` (the command's `rule`, an error; path, location
/// and message from the entry), with SARIF's executionSuccessful false;
/// "" for the other formats, whose documents the command builds itself.
struct UnreadableInput {
  std::string path;      ///< the file that could not be read ("" when it is no file)
  std::string location;  ///< where, when there is no path (a repository URL)
  std::string message;
  std::string hint;
};
std::string render_unreadable(const std::string& format, const std::string& command, const char* rule,
                              const std::vector<UnreadableInput>& unreadable, size_t inputs);

/// The "unreadable" list of a command's JSON document when an input could
/// not be read: [{"where": path or location, "message": ...}], the shape
/// `check`'s JSON summary uses.
nlohmann::ordered_json unreadable_json(const std::vector<UnreadableInput>& unreadable);

/// The --format values of a command whose findings can also be reported
/// as SARIF or GitHub annotations: {"text", "json", "sarif", "github"}.
std::vector<std::string> report_formats();

/// The policy of `check` and `repair`: the file `--policy` names, else
/// the nearest cuwheel.toml or pyproject.toml with [tool.cuwheel] from the
/// working folder (check::find_policy_file), else the built-in defaults.
/// false, after printing the error, when the file cannot be read.
bool read_policy(const std::string& policy_flag, check::Policy& out);

/// Makes an empty value ("--toolkit ''") a usage error for every option of
/// `app` and of its subcommands, at any depth; call it once every command
/// is set up.
void reject_empty_values(CLI::App* app);

}  // namespace cuwheel::cli
