// `cuwheel repair WHEEL... -w DIR`: the CUDA-aware repair step
// (cuwheel/repair/repair.h). Per wheel: read it, run the check rules, plan,
// print the plan, write the output beside a temporary name, check the
// output with the same rules, and rename it into place only when it passes.
// Exit status: 0 every wheel repaired (or already right), 1 a plan that
// cannot fix everything or an output that fails the check (nothing written
// for that wheel), 2 an input or the policy that cannot be read, or a usage
// error.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "cli.h"
#include "commands.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/check/check.h"
#include "cuwheel/render/report.h"
#include "cuwheel/repair/repair.h"

namespace cuwheel::cli {

namespace {

struct RepairCliOptions {
  std::vector<std::string> wheels;
  std::string dir;
  std::string plat;
  std::string policy;
  std::vector<std::string> exclude;
  std::vector<std::string> ignore;
  bool rpath = false, runpath = false;
  bool dry_run = false;
  bool emit_auditwheel_args = false;
  std::optional<int> cuda_major;
  std::string format = "text";
};
RepairCliOptions g_opts;

// The temporary folder inside -w DIR while a wheel is written, removed on
// SIGINT, SIGTERM, SIGHUP and SIGPIPE too: the handler forks `rm -rf` (fork,
// execv and waitpid are async-signal-safe), then dies of the signal.
char g_tmp_dir[4096] = {0};
extern "C" void remove_tmp_and_die(int sig) {
  if (g_tmp_dir[0]) {
    pid_t pid = fork();
    if (pid == 0) {
      char rm[] = "/bin/rm", rf[] = "-rf", dd[] = "--";
      char* argv[] = {rm, rf, dd, g_tmp_dir, nullptr};
      execv(rm, argv);
      _exit(127);
    }
    if (pid > 0) waitpid(pid, nullptr, 0);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}
void set_tmp_dir(const std::string& dir) {
  if (dir.size() >= sizeof g_tmp_dir) return;  // mkdtemp names are short; never truncated
  std::memcpy(g_tmp_dir, dir.c_str(), dir.size() + 1);
}
void clear_tmp_dir() { g_tmp_dir[0] = 0; }

nlohmann::ordered_json plan_json(const repair::RepairPlan& p) {
  nlohmann::ordered_json j;
  j["input"] = printable(p.input);
  j["output"] = p.output_name;
  j["changes"] = p.changes();
  auto& needed = j["needed"] = nlohmann::ordered_json::array();
  for (const auto& n : p.needed)
    needed.push_back({{"member", printable(n.member)}, {"needed", printable(n.needed)}, {"after", printable(n.after)},
                      {"kind", n.kind}, {"provider", printable(n.provider)}});
  auto& sp = j["search_paths"] = nlohmann::ordered_json::array();
  for (const auto& s : p.search_paths)
    sp.push_back({{"member", printable(s.member)}, {"tag_before", s.tag_before}, {"before", printable(s.before)},
                  {"tag", s.tag}, {"after", printable(s.after)}, {"reasons", s.reasons}});
  auto& nc = j["needed_changes"] = nlohmann::ordered_json::array();
  for (const auto& c : p.needed_changes)
    nc.push_back({{"member", printable(c.member)}, {"from", printable(c.from)}, {"to", printable(c.to)}, {"reason", c.reason}});
  auto& rm = j["removed"] = nlohmann::ordered_json::array();
  for (const auto& r : p.removed) rm.push_back({{"member", printable(r.member)}, {"reason", printable(r.reason)}});
  auto& gr = j["grafted"] = nlohmann::ordered_json::array();
  for (const auto& g : p.grafted)
    gr.push_back({{"source", printable(g.source)}, {"member", printable(g.member)}, {"soname", g.soname},
                  {"needed", printable(g.needed)}});
  auto& rq = j["requirements"] = nlohmann::ordered_json::array();
  for (const auto& r : p.requirements)
    rq.push_back({{"before", r.before.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.before)},
                  {"requirement", r.requirement}, {"reason", printable(r.reason)}});
  j["platform_tags"] = p.platform_tags;
  j["retagged"] = p.retagged;
  j["platform_reason"] = printable(p.platform_reason);
  j["problems"] = nlohmann::ordered_json::array();
  for (const auto& pr : p.problems) j["problems"].push_back(printable(pr));
  return j;
}

void print_plan_text(const repair::RepairPlan& p) {
  std::printf("%s -> %s\n", printable(p.input).c_str(), p.output_name.c_str());
  std::string last;
  for (const auto& n : p.needed) {
    if (n.member != last) std::printf("  %s\n", printable(n.member).c_str());
    last = n.member;
    std::printf("    NEEDED %-28s %-10s %s\n",
                printable(n.needed == n.after ? n.needed : n.needed + " -> " + n.after).c_str(), n.kind.c_str(),
                printable(n.provider).c_str());
  }
  for (const auto& r : p.removed) std::printf("  remove   %s: %s\n", printable(r.member).c_str(), printable(r.reason).c_str());
  for (const auto& g : p.grafted)
    std::printf("  graft    %s as %s\n", printable(g.source).c_str(), printable(g.member).c_str());
  for (const auto& c : p.needed_changes)
    std::printf("  NEEDED   %s: %s -> %s (%s)\n", printable(c.member).c_str(), printable(c.from).c_str(),
                printable(c.to).c_str(), printable(c.reason).c_str());
  for (const auto& s : p.search_paths) {
    std::printf("  %-8s %s: %s -> %s\n", s.tag.c_str(), printable(s.member).c_str(),
                s.before.empty() ? "(none)" : (s.tag_before + " " + printable(s.before)).c_str(), printable(s.after).c_str());
    for (const auto& r : s.reasons) std::printf("             %s\n", printable(r).c_str());
  }
  for (const auto& r : p.requirements) {
    if (r.before.empty()) std::printf("  Requires-Dist: %s (added: %s)\n", r.requirement.c_str(), printable(r.reason).c_str());
    else
      std::printf("  Requires-Dist: %s -> %s (%s)\n", r.before.c_str(), r.requirement.c_str(), printable(r.reason).c_str());
  }
  std::string tags;
  for (const auto& t : p.platform_tags) tags += (tags.empty() ? "" : ".") + t;
  std::printf("  platform %s (%s)\n", tags.c_str(), printable(p.platform_reason).c_str());
  for (const auto& pr : p.problems) std::printf("  problem  %s\n", printable(pr).c_str());
  if (!p.changes() && p.problems.empty()) std::printf("  nothing to repair: the output is the input, byte for byte\n");
}

}  // namespace

void setup_repair(CLI::App* cmd) {
  cmd->add_option("WHEEL", g_opts.wheels, "Wheels to repair")->required();
  cmd->add_option("-w,--wheel-dir", g_opts.dir, "Folder the repaired wheels are written to (created when missing)");
  cmd->add_option("--plat", g_opts.plat,
                  "Platform tag to write (manylinux_2_28_x86_64); default: keep a manylinux tag the libraries "
                  "satisfy, else the most compatible one");
  cmd->add_option("--policy", g_opts.policy,
                  "Policy file the output is checked against (default: cuwheel.toml or [tool.cuwheel] in the nearest "
                  "pyproject.toml)");
  cmd->add_option("--exclude", g_opts.exclude,
                  "Soname pattern (fnmatch) to leave outside the wheel: never grafted (one per flag, repeatable)")
      ->allow_extra_args(false)
      ->type_name("PATTERN");
  cmd->add_option("--ignore", g_opts.ignore, "Rules the check of the output does not apply (comma-separated)")
      ->allow_extra_args(false)
      ->type_name("RULE,...");
  auto* rp = cmd->add_flag("--rpath", g_opts.rpath, "Write every search path repair sets as DT_RPATH");
  auto* rn = cmd->add_flag("--runpath", g_opts.runpath, "Write every search path repair sets as DT_RUNPATH");
  rp->excludes(rn);
  cmd->add_option("--cuda-major", g_opts.cuda_major, "CUDA major for names that fit several (12 or 13)")
      ->check(CLI::Validator([](std::string& s) { return decimal_number_error(s); }, "", "decimal"))
      ->check(CLI::IsMember({12, 13}));
  cmd->add_flag("--dry-run", g_opts.dry_run, "Print the plan and write nothing");
  cmd->add_flag("--emit-auditwheel-args", g_opts.emit_auditwheel_args,
                "Print the auditwheel repair --exclude arguments for these wheels (for projects that keep auditwheel)");
  cmd->add_option("--format", g_opts.format, "Output format")->check(CLI::IsMember({"text", "json"}))->default_str("text");
}

int run_repair() {
  const RepairCliOptions& o = g_opts;
  namespace fs = std::filesystem;
  if (o.dir.empty() && !o.dry_run && !o.emit_auditwheel_args) {
    print_error("repair", "-w DIR is required (the folder the repaired wheels go to), or --dry-run");
    return kExitUnreadable;
  }
  check::Policy policy;
  if (!read_policy(o.policy, policy)) return kExitUnreadable;
  if (o.cuda_major) policy.cuda_major = o.cuda_major;
  for (const auto& v : o.ignore) {
    auto items = check::split_comma_list(v);
    if (!items) {
      print_error("--ignore", items.error().message());
      return kExitUnreadable;
    }
    for (const auto& i : *items) {
      const check::RuleInfo* r = check::find_rule(i);
      if (!r) {
        print_error("--ignore", "unknown rule \"" + i + "\"");
        return kExitUnreadable;
      }
      policy.ignore.emplace_back(r->name);
    }
  }
  repair::RepairOptions ro;
  ro.exclude = policy.repair_exclude;
  for (const auto& e : o.exclude) ro.exclude.push_back(e);
  ro.tag = o.rpath ? repair::RepairOptions::Tag::rpath
           : o.runpath ? repair::RepairOptions::Tag::runpath
           : policy.repair_search_path == "rpath" ? repair::RepairOptions::Tag::rpath
           : policy.repair_search_path == "runpath" ? repair::RepairOptions::Tag::runpath
                                                    : repair::RepairOptions::Tag::keep;
  if (!o.plat.empty()) {
    if (auto v = repair::validate_plat(o.plat); !v) {
      print_error("--plat", v.error().message());
      return kExitUnreadable;
    }
    ro.plat = o.plat;
  }
  // SOURCE_DATE_EPOCH: seconds since the epoch, digits only (the
  // reproducible-builds.org definition); anything else is said and the
  // default (1980-01-01) used.
  uint64_t timestamp = 315532800;
  if (const char* sde = std::getenv("SOURCE_DATE_EPOCH"); sde && *sde) {
    const std::string v(sde);
    const bool digits = v.size() <= 12 && v.find_first_not_of("0123456789") == std::string::npos;
    if (digits) timestamp = std::stoull(v);
    else print_warning("SOURCE_DATE_EPOCH", "\"" + printable(v) + "\" is not a number of seconds; 1980-01-01 is used");
  }
  ro.cuda_major = policy.cuda_major;
  if (const char* lp = std::getenv("LD_LIBRARY_PATH"))
    for (size_t i = 0, e; i <= std::strlen(lp); i = e + 1) {
      e = std::string_view(lp).find(':', i);
      if (e == std::string_view::npos) e = std::strlen(lp);
      if (e > i) ro.library_path.emplace_back(lp + i, e - i);
    }
  if (!o.dir.empty() && !o.dry_run && !o.emit_auditwheel_args) {
    std::error_code ec;
    fs::create_directories(o.dir, ec);
    if (!fs::is_directory(o.dir)) {
      print_error(o.dir, "cannot create the output folder" + (ec ? ": " + ec.message() : std::string()));
      return kExitUnreadable;
    }
  }

  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(sig, remove_tmp_and_die);
  std::string dry_dir;
  struct RemoveDry {
    std::string d;
    ~RemoveDry() {
      std::error_code e;
      if (!d.empty()) fs::remove_all(d, e);
    }
  } remove_dry;
  if (o.dry_run && !o.emit_auditwheel_args) {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/cuwheel-dry-run-XXXXXX";
    std::vector<char> b(tmpl.begin(), tmpl.end());
    b.push_back('\0');
    if (!::mkdtemp(b.data())) {
      print_error(tmpl, "cannot create a temporary folder for the dry run");
      return kExitUnreadable;
    }
    dry_dir = remove_dry.d = b.data();
  }
  std::set<std::string> written;  // output names of this run
  int status = kExitOk;
  auto worst = [&](int s) { status = std::max(status, s); };
  nlohmann::ordered_json out_json = nlohmann::ordered_json::array();
  for (const auto& path : o.wheels) {
    // An input that cannot be read: said on stderr, and in JSON as an entry.
    auto unreadable = [&](const std::string& msg) {
      print_error(path, msg);
      worst(kExitUnreadable);
      if (o.format == "json") out_json.push_back({{"input", printable(path)}, {"error", printable(msg)}});
    };
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      unreadable(::stat(path.c_str(), &st) != 0 ? "cannot open: no such file" : "not a wheel file (repair takes .whl files)");
      continue;
    }
    check::BuildOptions bo;
    auto ms = check::build_models(path, bo);
    if (!ms) {
      unreadable(ms.error().message());
      continue;
    }
    if (ms->size() != 1 || (*ms)[0].kind != check::CheckModel::Kind::wheel || (*ms)[0].unreadable) {
      for (const auto& m : *ms)
        for (const auto& [where, msg] : m.read_errors) print_error(where, msg);
      unreadable("not a readable wheel (repair takes .whl files)");
      continue;
    }
    check::CheckModel& m = (*ms)[0];
    if (!m.read_errors.empty()) {
      for (const auto& [where, msg] : m.read_errors) print_error(where, msg);
      unreadable("not repaired: a wheel that cannot be read in full is not repaired");
      continue;
    }
    std::vector<check::CheckModel> one;
    one.push_back(std::move(m));
    auto findings = check::run_rules(one, policy);
    model::Providers providers = model::Providers::builtin();
    providers.add_wheel(one[0], "wheel " + fs::path(path).filename().string(), model::Provider::From::run);
    auto plan = repair::plan_repair(one[0], findings, providers, ro);
    if (!plan) {
      unreadable(plan.error().message());
      continue;
    }
    if (o.emit_auditwheel_args) {
      const auto ex = repair::auditwheel_excludes(one[0], *plan);
      std::string args;
      for (const auto& x : ex) args += (args.empty() ? "" : " ") + std::string("--exclude ") + x;
      if (o.format == "json") out_json.push_back({{"input", printable(path)}, {"exclude", ex}});
      else std::printf("%s\n", args.c_str());
      continue;
    }
    nlohmann::ordered_json pj = plan_json(*plan);
    if (o.format == "text") print_plan_text(*plan);
    if (!plan->problems.empty()) {
      // The output would fail the check, or be wrong: not written.
      worst(kExitFindings);
      if (!o.dry_run && o.format == "text")
        std::printf("  not written: the plan leaves %zu problem%s\n", plan->problems.size(),
                    plan->problems.size() == 1 ? "" : "s");
      if (o.format == "json") {
        if (!o.dry_run) pj["written"] = false;
        out_json.push_back(pj);
      }
      continue;
    }
    // A dry run writes the output too, into a private folder of TMPDIR,
    // checks it and throws it away: its exit status is the real run's.
    const std::string out_dir = o.dry_run ? dry_dir : o.dir;
    const std::string out = (fs::path(out_dir) / plan->output_name).string();
    std::error_code ec;
    if (fs::exists(out, ec) && fs::equivalent(out, path, ec)) {
      if (!plan->changes()) {
        // Already right, and already where it would be written.
        if (o.format == "text") std::printf("  nothing to repair, and the output would be the input itself: left as it is\n");
        pj["written"] = false;
        if (o.format == "json") out_json.push_back(pj);
        continue;
      }
      unreadable("the output " + out + " is the input; repair never writes its input (give another -w DIR)");
      continue;
    }
    if (!written.insert(plan->output_name).second) {
      print_error(path, "another input of this run was written as " + out + "; not overwritten");
      worst(kExitFindings);
      if (o.format == "json") {
        pj["written"] = false;
        out_json.push_back(pj);
      }
      continue;
    }
    // Written under its own name in a private folder of DIR (the check
    // reads the file name), renamed into place once it passes.
    std::string tmpl = (fs::path(out_dir) / ".cuwheel-repair-XXXXXX").string();
    std::vector<char> tbuf(tmpl.begin(), tmpl.end());
    tbuf.push_back('\0');
    if (!::mkdtemp(tbuf.data())) {
      print_error(out_dir, "cannot create a temporary folder");
      worst(kExitUnreadable);
      continue;
    }
    const std::string tmp_dir(tbuf.data());
    set_tmp_dir(tmp_dir);
    struct RemoveDir {
      std::string d;
      ~RemoveDir() {
        std::error_code e;
        fs::remove_all(d, e);
        clear_tmp_dir();
      }
    } remove_dir{tmp_dir};
    const std::string tmp = (fs::path(tmp_dir) / plan->output_name).string();
    if (auto s = repair::apply_repair(one[0], *plan, tmp, timestamp); !s) {
      print_error(path, s.error().message());
      worst(kExitUnreadable);
      continue;
    }
    // The output checked with the same rules before it takes its name
    // (the input's model let go first: memory holds one model at a time).
    // Members copied raw keep the facts read from the input (the same
    // compressed bytes, so the same bytes): they are not decoded again.
    // So are Python sources and JSON, scanned for the libraries they load,
    // when none of them changed: the output's loads are the input's. The
    // .dist-info files and every edited member are read from the output.
    std::map<std::string, model::KnownMember> known;
    std::optional<std::vector<model::PythonLoad>> loads;
    {
      std::set<std::string> changed;
      for (const auto& r : plan->removed) changed.insert(r.member);
      for (const auto& [member, e] : plan->edits) changed.insert(member);
      const bool text_changed = std::any_of(changed.begin(), changed.end(), [](const std::string& n) {
        return n.ends_with(".py") || n.ends_with(".json");
      });
      if (!text_changed) loads = one[0].python_loads;
      std::map<std::string, size_t> libs_of;
      for (const auto& l : one[0].libraries) ++libs_of[l.member];
      for (const auto& mm : one[0].members) {
        if (!mm.read_ok || mm.digest.rfind("sha256=", 0) != 0 || changed.count(mm.name) ||
            mm.name.rfind(one[0].dist_info + "/", 0) == 0 ||
            (!loads && (mm.name.ends_with(".py") || mm.name.ends_with(".json"))) || libs_of[mm.name] > 1)
          continue;
        known[mm.name].digest = mm.digest;
      }
      for (auto& l : one[0].libraries)
        if (auto it = known.find(l.member); it != known.end() && l.archive_member.empty()) it->second.library = std::move(l);
    }
    one.clear();
    findings.clear();
    check::BuildOptions post_opts = bo;
    post_opts.known = &known;
    if (loads) post_opts.python_loads = &*loads;
    auto post = check::build_models(tmp, post_opts);
    std::vector<check::Finding> after;
    if (post) after = check::run_rules(*post, policy);
    size_t errors = 0;
    for (auto& f : after) {
      if (f.severity == check::Severity::error) ++errors;
      f.path = out + " (not written)";
    }
    if (!post) {
      print_error(out, "the output could not be read back: " + post.error().message());
      errors = 1;
    }
    pj["check"] = {{"errors", errors}};
    if (errors) {
      check::ReportSummary summary;
      summary.inputs = 1;
      summary.given = 1;
      for (const auto& f : after)
        (f.severity == check::Severity::error ? summary.errors
         : f.severity == check::Severity::note ? summary.notes
                                               : summary.warnings)++;
      if (o.format == "text") {
        std::printf("  %s: the output fails %zu check%s\n", o.dry_run ? "would not be written" : "not written", errors,
                    errors == 1 ? "" : "s");
        std::cout << check::render_text(after, summary);
      } else {
        pj["written"] = false;
        pj["findings"] = nlohmann::ordered_json::parse(check::render_json(after, summary))["findings"];
      }
      worst(kExitFindings);
    } else if (o.dry_run) {
      pj["written"] = false;
      if (o.format == "text") std::printf("  dry run: the output passes the check (written to a temporary folder, removed)\n");
    } else {
      fs::rename(tmp, out, ec);
      if (ec) {
        print_error(out, "cannot rename the output into place: " + ec.message());
        worst(kExitUnreadable);
      } else {
        pj["written"] = true;
        pj["path"] = printable(out);
        if (o.format == "text") std::printf("  wrote %s (checked: no errors)\n", printable(out).c_str());
      }
    }
    if (o.format == "json") out_json.push_back(pj);
    std::fflush(stdout);
  }
  if (o.format == "json") {
    nlohmann::ordered_json doc;
    doc["schema"] = 1;
    doc["tool"] = "cuwheel";
    doc["command"] = "repair";
    doc[o.emit_auditwheel_args ? "auditwheel" : "wheels"] = out_json;
    doc["exit"] = status;
    std::cout << doc.dump(2) << "\n";
  }
  return status;
}

}  // namespace cuwheel::cli
