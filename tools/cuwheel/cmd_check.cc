// `cuwheel check`, `cuwheel rules`, `cuwheel rule NAME`.
//
// check: builds a model per input (check.h), applies the policy's rules and
// prints the findings. Exit status 0 when no error-level finding, 1 when
// there is one, 2 when an input (or the policy) cannot be read.
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <tuple>

#include "cli.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/check/diagnostics.h"
#include "cuwheel/wheel/pep508.h"
#include "commands.h"
#include "cuwheel/check/check.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/render/baseline.h"
#include "cuwheel/render/report.h"

namespace cuwheel::cli {

namespace {

struct CheckOptions {
  std::string policy;            ///< --policy FILE ("" = search)
  std::vector<std::string> select, ignore;
  std::string format = "text";   ///< text | json | sarif | github
  std::optional<int> cuda_major;
  std::string sass, ptx, gpus, min_driver, max_size, exports, license_files;
  std::string max_installed_size;  ///< --max-installed-size SIZE
  std::vector<std::string> entry_points;  ///< --entry-point GROUP:NAME (repeatable)
  std::vector<std::string> pins;  ///< DIST=exact
  std::vector<std::string> severity;  ///< RULE=error|warning|note|off
  bool sass_exact = false;
  std::vector<std::string> paths;
  std::vector<std::string> deps;  ///< --deps: wheels (or folders of wheels) that only say what they provide
  // Output controls (text; --statistics and --baseline also JSON/SARIF/GitHub).
  bool statistics = false;        ///< --statistics: counts per rule instead of the findings
  bool quiet = false;             ///< -q/--quiet: errors only, no summary line
  std::string max_findings;       ///< --max-findings N ("" = all)
  std::string baseline;           ///< --baseline FILE: findings it accepts are left out
  std::string write_baseline;     ///< --write-baseline FILE: accept today's findings
  std::string color = "auto";     ///< --color auto|always|never
};
CheckOptions g_opts;
std::string g_rule_name;  ///< `cuwheel rule NAME`

// A comma-list flag's value: an empty item (",,", a trailing comma) is a
// usage error naming the flag, never a silently shorter list.
bool split_flag(const std::string& flag, const std::string& value, std::vector<std::string>& out) {
  auto items = check::split_comma_list(value);
  if (!items) {
    print_error(flag, items.error().message());
    return false;
  }
  out = std::move(*items);
  return true;
}

// Resolves rule names/codes, with a suggestion for typos.
bool resolve_rules(std::vector<std::string>& names, const char* flag) {
  for (const auto& n : names)
    if (n.empty()) {
      print_error(flag, "a rule name is empty");
      return false;
    }
  for (auto& n : names) {
    const check::RuleInfo* r = check::find_rule(n);
    if (!r) {
      std::string hint = check::suggest_rule(n);
      print_error(flag, "unknown rule \"" + n + "\"" + (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
      return false;
    }
    n = std::string(r->name);
  }
  return true;
}

}  // namespace

void setup_check(CLI::App* cmd) {
  cmd->add_option("--policy", g_opts.policy, "Policy file (default: cuwheel.toml or [tool.cuwheel] in the nearest pyproject.toml)");
  // Split by run_check, which rejects an empty item (CLI11's delimiter drops it).
  cmd->add_option("--select", g_opts.select, "Only these rules (comma-separated names or codes)")->allow_extra_args(false);
  cmd->add_option("--ignore", g_opts.ignore, "Never these rules (comma-separated)")->allow_extra_args(false);
  cmd->add_option("--format", g_opts.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "sarif", "github"}))
      ->default_str("text");
  cmd->add_option("--cuda-major", g_opts.cuda_major, "CUDA major the wheel targets")
      ->check(CLI::Validator([](std::string& s) { return decimal_number_error(s); }, "", "decimal"))
      ->check(CLI::IsMember({12, 13}));
  cmd->add_option("--sass", g_opts.sass, "SASS every device-code library must carry, e.g. sm_75,sm_80,sm_90");
  cmd->add_flag("--sass-exact", g_opts.sass_exact, "Also flag SASS not in --sass");
  cmd->add_option("--ptx", g_opts.ptx, "Required PTX: newest, none, or compute_NN,...");
  cmd->add_option("--gpus", g_opts.gpus, "GPUs every device-code library must run on, e.g. sm_80,sm_89");
  cmd->add_option("--min-driver", g_opts.min_driver, "Oldest NVIDIA driver to support, e.g. 570.26");
  cmd->add_option("--max-size", g_opts.max_size, "Largest wheel size, e.g. 200MB");
  cmd->add_option("--max-installed-size", g_opts.max_installed_size, "Largest installed size (sum of uncompressed members), e.g. 1GB");
  cmd->add_option("--entry-point", g_opts.entry_points, "GROUP:NAME (or NAME, any group) the wheel must declare (repeatable)")->allow_extra_args(false);
  cmd->add_option("--exports", g_opts.exports, "Allowed exported symbols, glob patterns, comma-separated");
  cmd->add_option("--license-file", g_opts.license_files, "Files that must be in the wheel, comma-separated");
  cmd->add_option("--pin", g_opts.pins, "DIST=exact: Requires-Dist must pin DIST with ==")->allow_extra_args(false);
  cmd->add_option("--severity", g_opts.severity, "RULE=error|warning|note|off")->allow_extra_args(false);
  cmd->add_option("--deps", g_opts.deps,
                  "Dependency wheel, or folder of wheels, that is not checked but says which libraries its "
                  "distribution provides (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--statistics", g_opts.statistics, "Count the findings by rule instead of listing them");
  cmd->add_flag("-q,--quiet", g_opts.quiet, "Text: only errors, no summary line");
  cmd->add_option("--max-findings", g_opts.max_findings,
                  "Text and GitHub: list at most N findings, 0 for none (the counts keep them all)")
      ->type_name("N")
      ->allow_extra_args(false);
  cmd->add_option("--baseline", g_opts.baseline, "Leave out the findings FILE accepts (written by --write-baseline); only new ones count")
      ->type_name("FILE")
      ->allow_extra_args(false);
  cmd->add_option("--write-baseline", g_opts.write_baseline, "Write today's findings to FILE as the baseline, and exit 0")
      ->type_name("FILE")
      ->allow_extra_args(false);
  cmd->add_option("--color", g_opts.color, "Colour in the text report")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_str("auto");
  cmd->add_option("PATH", g_opts.paths, "Wheel, folder of wheels, shared library or installed environment")->required();
}

int run_check() {
  const CheckOptions& o = g_opts;
  if (!o.baseline.empty() && !o.write_baseline.empty()) {
    print_error("--write-baseline", "cannot be given with --baseline");
    return kExitUnreadable;
  }
  std::optional<size_t> max_findings;
  if (!o.max_findings.empty()) {
    const std::string& v = o.max_findings;
    size_t n = 0;
    bool ok = v.size() <= 9 && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
    for (char c : v) n = n * 10 + static_cast<size_t>(c - '0');
    if (!ok) {
      print_error("--max-findings", "\"" + printable(v) + "\" is not a count from 0 to 999999999");
      return kExitUnreadable;
    }
    max_findings = n;
  }
  if (o.statistics && (o.format == "sarif" || o.format == "github")) {
    print_error("--statistics", "counts findings in text or JSON; --format " + o.format + " lists every finding");
    return kExitUnreadable;
  }
  if (!o.write_baseline.empty()) {
    // The baseline replaces the file it names (a temporary file renamed
    // over it): never an input, and never what is not a regular file (a
    // device such as /dev/null, a FIFO, a link would be replaced itself).
    std::vector<std::string> read = o.paths;
    read.insert(read.end(), o.deps.begin(), o.deps.end());
    if (!o.policy.empty()) read.push_back(o.policy);
    for (const auto& in : read) {
      std::error_code ec;
      if (in == o.write_baseline || std::filesystem::equivalent(o.write_baseline, in, ec)) {
        print_error("--write-baseline", printable(o.write_baseline) + " is an input of this run; write the baseline to another file");
        return kExitUnreadable;
      }
    }
    struct stat st {};
    if (::lstat(o.write_baseline.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      print_error("--write-baseline", printable(o.write_baseline) + " exists and is not a regular file (a link, device, "
                                      "FIFO or folder would be replaced); give a new file or a regular one");
      return kExitUnreadable;
    }
  }
  check::Baseline baseline;
  if (!o.baseline.empty()) {
    auto text = read_whole_file(o.baseline, size_t{256} << 20);
    if (!text) {
      print_error("--baseline", text.error().message());
      return kExitUnreadable;
    }
    auto b = check::parse_baseline(*text, o.baseline);
    if (!b) {
      print_error("--baseline", b.error().message());
      return kExitUnreadable;
    }
    baseline = std::move(*b);
  }
  // 1. The policy: file, then flags on top.
  check::Policy policy;
  if (!read_policy(o.policy, policy)) return kExitUnreadable;
  if (o.cuda_major) policy.cuda_major = *o.cuda_major;
  if (!o.sass.empty() && !split_flag("--sass", o.sass, policy.sass)) return kExitUnreadable;
  if (o.sass_exact) policy.sass_exact = true;
  if (!o.ptx.empty()) {
    if (o.ptx == "newest") policy.ptx_mode = check::Policy::PtxMode::newest;
    else if (o.ptx == "none") policy.ptx_mode = check::Policy::PtxMode::none;
    else {
      policy.ptx_mode = check::Policy::PtxMode::list;
      policy.ptx.clear();
      if (!split_flag("--ptx", o.ptx, policy.ptx)) return kExitUnreadable;
    }
  }
  if (!o.gpus.empty() && !split_flag("--gpus", o.gpus, policy.gpus)) return kExitUnreadable;
  if (!o.min_driver.empty()) policy.min_driver = o.min_driver;
  if (!o.max_size.empty()) {
    auto b = check::parse_size(o.max_size);
    if (!b) {
      print_error("--max-size", "\"" + o.max_size + "\" is not a size such as 200MB");
      return kExitUnreadable;
    }
    policy.max_size = *b;
  }
  if (!o.max_installed_size.empty()) {
    auto b = check::parse_size(o.max_installed_size);
    if (!b) {
      print_error("--max-installed-size", "\"" + o.max_installed_size + "\" is not a size such as 1GB");
      return kExitUnreadable;
    }
    policy.max_installed_size = *b;
  }
  // GROUP:NAME, or NAME alone (any group): checked by validate_policy below,
  // with the same validator as the policy key.
  for (const auto& ep : o.entry_points)
    if (std::find(policy.entry_points.begin(), policy.entry_points.end(), ep) == policy.entry_points.end())
      policy.entry_points.push_back(ep);
  if (!o.exports.empty() && !split_flag("--exports", o.exports, policy.exports)) return kExitUnreadable;
  if (!o.license_files.empty() && !split_flag("--license-file", o.license_files, policy.license_files))
    return kExitUnreadable;
  for (const auto& p : o.pins) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || p.substr(eq + 1) != "exact") {
      print_error("--pin", "\"" + p + "\" must be DIST=exact");
      return kExitUnreadable;
    }
    policy.pins[p.substr(0, eq)] = "exact";
  }
  for (const auto& sv : o.severity) {
    size_t eq = sv.find('=');
    auto sev = eq == std::string::npos ? std::nullopt : check::parse_severity(sv.substr(eq + 1));
    std::vector<std::string> one{eq == std::string::npos ? sv : sv.substr(0, eq)};
    if (!sev) {
      print_error("--severity", "\"" + sv + "\" must be RULE=error|warning|note|off");
      return kExitUnreadable;
    }
    if (!resolve_rules(one, "--severity")) return kExitUnreadable;
    policy.severity[one[0]] = *sev;
  }
  if (auto st = check::validate_policy(policy); !st) {
    print_error("", st.error().message());
    return kExitUnreadable;
  }
  // Each --select/--ignore value is a comma list; the flag may be repeated.
  std::vector<std::string> select, ignore;
  for (const auto& [flag, values, out] : {std::tuple{"--select", &o.select, &select}, std::tuple{"--ignore", &o.ignore, &ignore}})
    for (const auto& v : *values) {
      std::vector<std::string> items;
      if (!split_flag(flag, v, items)) return kExitUnreadable;
      out->insert(out->end(), items.begin(), items.end());
    }
  if (!resolve_rules(select, "--select") || !resolve_rules(ignore, "--ignore")) return kExitUnreadable;
  if (!select.empty()) policy.select = select;
  for (const auto& i : ignore) policy.ignore.push_back(i);

  // 2. Models.
  Progress progress;
  std::vector<check::CheckModel> models;
  check::ReportSummary summary;
  summary.policy_source = policy.source;
  check::BuildOptions bo;
  // One file or folder given twice (the same path, or another name of it)
  // is checked once: its findings would count twice, and the rules over
  // several wheels would see a wheel beside itself.
  std::set<std::pair<dev_t, ino_t>> seen;
  size_t given = 0;
  for (size_t i = 0; i < o.paths.size(); ++i) {
    struct stat st {};
    if (::stat(o.paths[i].c_str(), &st) == 0 && !seen.insert({st.st_dev, st.st_ino}).second) {
      print_note(o.paths[i], "given more than once; checked once");
      continue;
    }
    ++given;
    progress.update(o.paths[i], i, o.paths.size());
    auto ms = check::build_models(o.paths[i], bo, [&](const std::string& what) { progress.update(what, i, o.paths.size()); });
    if (!ms) {
      summary.unreadable.emplace_back(o.paths[i], ms.error().message());
      summary.unreadable_inputs.push_back(o.paths[i]);
      continue;
    }
    for (auto& m : *ms) {
      for (const auto& e : m.read_errors) {
        summary.unreadable.push_back(e);
        summary.unreadable_inputs.push_back(m.path);
      }
      // What was read with warnings says so (list and show print the same).
      for (const auto& lib : m.libraries)
        for (const auto& w : lib.read_warnings()) {
          std::string where = m.path;
          if (!lib.member.empty()) where += ":" + lib.member;
          if (!lib.archive_member.empty()) where += ":" + lib.archive_member;
          summary.read_warnings.emplace_back(where, w);
          summary.read_warning_inputs.push_back(m.path);
        }
      // A wheel of a folder that could not be opened is reported, not
      // checked: no rule sees it and the summary does not count it.
      if (!m.unreadable) models.push_back(std::move(m));
    }
  }
  // Dependency wheels: read for their libraries only (no RECORD hashing);
  // one that cannot be read is unreadable input like any other.
  std::vector<check::CheckModel> deps;
  check::BuildOptions dep_opts;
  dep_opts.hash_members = false;
  for (const auto& d : o.deps) {
    if (d.empty()) {
      print_error("--deps", "the value is empty");
      return kExitUnreadable;
    }
    progress.update(d, 0, 1);
    auto ms = check::build_models(d, dep_opts);
    if (!ms) {
      summary.unreadable.emplace_back(d, ms.error().message());
      summary.unreadable_inputs.push_back(d);
      continue;
    }
    for (auto& m : *ms) {
      // A dependency wheel is read like a checked one: what could not be
      // read is named, and a wheel whose distribution name is missing or
      // not a valid project name cannot say what it provides.
      auto unreadable = [&](const std::string& where, const std::string& msg) {
        summary.unreadable.emplace_back(where, where + ": " + msg);
        summary.unreadable_inputs.push_back(m.path);
      };
      for (const auto& [where, msg] : m.read_errors) {
        summary.unreadable.emplace_back(where, msg + " (in --deps)");
        summary.unreadable_inputs.push_back(m.path);
      }
      if (m.unreadable) continue;
      // Wheels, and the distributions of an installed environment.
      // Files no RECORD lists, beside installed distributions, provide nothing.
      const bool beside_installed = std::any_of(ms->begin(), ms->end(), [](const check::CheckModel& x) {
        return x.kind == check::CheckModel::Kind::installed;
      });
      if (m.kind == check::CheckModel::Kind::directory && beside_installed) continue;
      if (!m.is_distribution()) {
        unreadable(m.path, "--deps takes wheels or an installed environment; this is neither");
        continue;
      }
      if (!m.metadata || m.metadata->name.empty() || !is_valid_name(m.metadata->name)) {
        unreadable(m.path, "--deps: " + std::string(!m.metadata ? "no readable METADATA" + (m.metadata_error.empty() ? std::string() : " (" + m.metadata_error + ")")
                                                                  : "METADATA Name \"" + printable(m.metadata->name) + "\" is not a valid project name") +
                               ", so it cannot say which distribution it is");
        continue;
      }
      if (!m.read_errors.empty()) continue;  // partial facts would mislead
      deps.push_back(std::move(m));
    }
  }
  progress.clear();

  // 3. Rules and report.
  auto findings = check::run_rules(models, policy, deps);
  if (!o.write_baseline.empty() && summary.unreadable.empty()) {
    if (auto st = write_file_atomic(o.write_baseline, check::render_baseline(findings)); !st) {
      print_error(o.write_baseline, st.error().message());
      return kExitUnreadable;
    }
    std::cerr << "cuwheel: wrote " << findings.size() << (findings.size() == 1 ? " finding" : " findings") << " to "
              << printable(o.write_baseline) << " as the baseline\n";
    return kExitOk;
  }
  if (!o.baseline.empty()) {
    summary.baseline_given = true;
    summary.baselined = check::apply_baseline(findings, std::move(baseline));
  }
  summary.statistics = o.statistics;
  summary.inputs = models.size();
  summary.given = given;
  for (const auto& m : models) summary.installed += m.kind == check::CheckModel::Kind::installed;
  for (const auto& f : findings)
    (f.severity == check::Severity::error  ? summary.errors
     : f.severity == check::Severity::note ? summary.notes
                                           : summary.warnings)++;
  std::string out;
  check::TextOptions text;
  text.quiet = o.quiet;
  text.max_findings = max_findings;
  // Colour and wrapping only for a terminal: NO_COLOR (any value but
  // empty, no-color.org) and TERM=dumb turn colour off in auto mode.
  const bool tty = ::isatty(STDOUT_FILENO) == 1;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  text.color = o.color == "always" ||
               (o.color == "auto" && tty && !(no_color && *no_color) && !(term && std::string_view(term) == "dumb"));
  if (tty) {
    struct winsize ws {};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) text.width = ws.ws_col;
    else if (const char* cols = std::getenv("COLUMNS"); cols && std::atoi(cols) > 0) text.width = static_cast<size_t>(std::atoi(cols));
  }
  if (o.format == "json") out = check::render_json(findings, summary);
  else if (o.format == "sarif") out = check::render_sarif(findings, summary);
  else if (o.format == "github") {
    // As in text, a block of one cause counts once: its findings go together.
    std::vector<check::Finding> shown;
    size_t blocks = 0, left = 0;
    for (const auto& group : check::group_findings(findings)) {
      if (max_findings && blocks >= *max_findings) {
        left += group.size();
        continue;
      }
      ++blocks;
      for (size_t i : group) shown.push_back(findings[i]);
    }
    out = check::render_github(shown, summary);
    if (left)
      out += "::notice title=cuwheel::" + std::to_string(left) + (left == 1 ? " more finding" : " more findings") +
             " not shown (--max-findings " + std::to_string(*max_findings) + ")\n";
  } else if (o.statistics) out = check::render_statistics(findings, summary, text);
  else out = check::render_text(findings, summary, text);
  std::cout << out;
  std::cout.flush();
  // A baseline of a run that could not read everything would accept less
  // than there is: not written (the report above says what was unreadable).
  if (!o.write_baseline.empty())
    print_error(o.write_baseline, "baseline not written: some input could not be read");
  if (!summary.unreadable.empty()) return kExitUnreadable;
  return summary.errors ? kExitFindings : kExitOk;
}

bool g_rules_all = false;  ///< `cuwheel rules --all`

void setup_rules(CLI::App* cmd) {
  cmd->add_flag("--all", g_rules_all,
                "Every diagnostic id of every command (matrix, release, arch, toolkit too), with its command");
}

int run_rules() {
  if (g_rules_all) {
    for (const auto& d : check::diagnostics())
      std::printf("%-6s %-8s %-36s %-8s %s\n", std::string(d.code).c_str(), std::string(d.command).c_str(),
                  d.id().c_str(), std::string(check::to_string(d.default_severity)).c_str(),
                  std::string(d.summary).c_str());
    return kExitOk;
  }
  for (const auto& r : check::rules()) {
    std::printf("%-6s %-28s %-8s %s\n", std::string(r.code).c_str(), std::string(r.name).c_str(),
                std::string(check::to_string(r.default_severity)).c_str(), std::string(r.summary).c_str());
  }
  return kExitOk;
}

// `error[unreadable]` in check's output is no rule of the registry: it marks
// an input (or a part of one) that could not be read, and it is what makes
// the exit status 2. `cuwheel rule unreadable` explains it like a rule.
constexpr const char* kUnreadableDoc =
    "unreadable (input error, not a rule)\n"
    "\n"
    "What it means\n"
    "  An input, or a part of one, could not be read: a file that is missing or\n"
    "  cannot be opened, a wheel that is not a readable zip, a member that does\n"
    "  not decompress or fails its CRC, an ELF file whose header is damaged, a\n"
    "  fatbin payload that does not decode. The message names the file, the\n"
    "  member and the offset.\n"
    "\n"
    "Why it matters\n"
    "  The facts the rules need were not all read, so the input cannot pass:\n"
    "  check exits 2 (not 1) whenever anything is unreadable, and the findings\n"
    "  of the parts that were read are still reported.\n"
    "\n"
    "What to do\n"
    "  Rebuild or re-download the input. It cannot be selected, ignored or\n"
    "  given a severity: --select, --ignore and --severity do not apply.\n"
    "  In JSON it is summary.unreadable; in SARIF a toolExecutionNotification\n"
    "  with executionSuccessful false (docs/check.md).\n";

void setup_rule(CLI::App* cmd) { cmd->add_option("NAME", g_rule_name, "A rule's name or code, or another command's diagnostic id (matrix/empty-matrix)")->required(); }

// Other commands' ids of the same name as the one printed, on stderr so
// that stdout stays the one page.
void mention_others(const std::vector<const check::DiagnosticInfo*>& found, size_t shown) {
  for (size_t i = 0; i < found.size(); ++i)
    if (i != shown)
      print_note("rule", found[i]->id() + " (" + std::string(found[i]->code) + ") is `cuwheel " +
                             std::string(found[i]->command) + "`'s diagnostic of this name: cuwheel rule " +
                             found[i]->id());
}

int run_rule() {
  const std::string& name = g_rule_name;
  auto found = check::lookup_diagnostics(name);
  if (name == "unreadable") {
    std::cout << kUnreadableDoc;
    mention_others(found, found.size());
    return kExitOk;
  }
  if (found.empty()) {
    std::string hint = check::suggest_diagnostic(name);
    print_error("rule", "unknown rule \"" + name + "\"" + (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
    return kExitUnreadable;
  }
  const check::DiagnosticInfo& d = *found.front();
  std::string_view doc = d.doc();
  if (doc.empty()) std::printf("%s (%s)\n\n%s\n", d.id().c_str(), std::string(d.code).c_str(), std::string(d.summary).c_str());
  else std::cout << doc;
  mention_others(found, 0);
  return kExitOk;
}

}  // namespace cuwheel::cli
