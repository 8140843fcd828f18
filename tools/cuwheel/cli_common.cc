// cuwheel command-line tool: the helpers the subcommands share (cli.h):
// messages, the progress line, walking inputs, the JSON document of list and
// show, and the check CLI11 is given on every option.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/render/report.h"

namespace cuwheel::cli {

namespace {
// Readers' messages often start with the file name already; do not repeat it.
std::string located(const std::string& where, const std::string& message) {
  if (where.empty()) return message;
  if (message.rfind(where + ": ", 0) == 0) return message;
  return where + ": " + message;
}
}  // namespace

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
namespace {
// A message quotes input (a policy value, a name); one line of the log
// stays readable whatever the input: at most 2,000 bytes, the cut said.
std::string bounded(std::string s) {
  constexpr size_t kMax = 2000;
  if (s.size() <= kMax) return s;
  const size_t all = s.size();
  s.resize(kMax);
  return s + "... (message cut: " + std::to_string(all) + " bytes in all)";
}
}  // namespace

void print_error(const std::string& where, const std::string& message) {
  std::fprintf(stderr, "cuwheel: error: %s\n", bounded(printable(located(where, message))).c_str());
}

void print_warning(const std::string& where, const std::string& message) {
  std::fprintf(stderr, "cuwheel: warning: %s\n", bounded(printable(located(where, message))).c_str());
}

std::string render_diagnostics(const std::string& format, const std::string& command,
                               std::vector<Diagnostic> diagnostics, size_t inputs, bool unreadable) {
  check::ReportSummary summary;
  summary.command = command;
  summary.inputs = inputs;
  summary.incomplete = unreadable;
  for (auto& d : diagnostics) {
    d.member = printable(d.member);
    d.location = printable(d.location);
    d.message = printable(d.message);
    d.hint = printable(d.hint);
  }
  for (const auto& d : diagnostics)
    (d.severity == Severity::error ? summary.errors : d.severity == Severity::note ? summary.notes : summary.warnings)++;
  return format == "sarif" ? check::render_sarif(diagnostics, summary) : check::render_github(diagnostics, summary);
}

std::string render_unreadable(const std::string& format, const std::string& command, const char* rule,
                              const std::vector<UnreadableInput>& unreadable, size_t inputs) {
  if (format != "sarif" && format != "github") return "";
  std::vector<Diagnostic> diags;
  for (const auto& u : unreadable)
    diags.push_back(Diagnostic{rule, Severity::error, u.path, "", u.location, u.message, u.hint});
  return render_diagnostics(format, command, std::move(diags), inputs, true);
}

nlohmann::ordered_json unreadable_json(const std::vector<UnreadableInput>& unreadable) {
  auto list = nlohmann::ordered_json::array();
  for (const auto& u : unreadable)
    list.push_back({{"where", u.path.empty() ? u.location : u.path}, {"message", u.message}});
  return list;
}

std::vector<std::string> report_formats() { return {"text", "json", "sarif", "github"}; }

void print_note(const std::string& where, const std::string& message) {
  std::fprintf(stderr, "cuwheel: note: %s\n", bounded(printable(located(where, message))).c_str());
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

bool read_policy(const std::string& policy_flag, check::Policy& out) {
  const std::string file = policy_flag.empty() ? check::find_policy_file(".") : policy_flag;
  if (file.empty()) return true;
  auto p = check::load_policy(file);
  if (!p) {
    print_error("", p.error().message());
    return false;
  }
  out = std::move(*p);
  return true;
}

}  // namespace cuwheel::cli
