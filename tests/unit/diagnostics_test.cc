// The one diagnostic type and its registry (cuwheel/base/diagnostic.h,
// cuwheel/check/diagnostics.h): every id has its page, every page its id,
// every command emits only registered ids, and the shared renderers give
// any command's diagnostics the right codes, rule descriptors and places.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "check_test_util.h"
#include "cuwheel/check/diagnostics.h"
#include "cuwheel/release/identity.h"
#include "cuwheel/release/matrix.h"
#include "cuwheel/render/diff.h"
#include "cuwheel/render/report.h"
#include "cuwheel/toolkit/fetch.h"

using namespace cuwheel;
using namespace cuwheel::check;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

Diagnostic diag(std::string rule, std::string path, std::string member, std::string message) {
  Diagnostic d;
  d.rule = std::move(rule);
  d.path = std::move(path);
  d.member = std::move(member);
  d.message = std::move(message);
  return d;
}

ReportSummary summary_of(const std::string& command, size_t errors) {
  ReportSummary s;
  s.command = command;
  s.inputs = 1;
  s.errors = errors;
  return s;
}

}  // namespace

TEST(DiagnosticRegistry, CodesAndIdsAreUniqueAndCheckRulesComeFirst) {
  std::set<std::string> codes, ids;
  bool others = false;
  size_t check_ids = 0;
  for (const auto& d : diagnostics()) {
    EXPECT_TRUE(codes.insert(std::string(d.code)).second) << d.code;
    EXPECT_TRUE(ids.insert(d.id()).second) << d.id();
    EXPECT_EQ(d.code.size(), 5u) << d.code;
    EXPECT_EQ(d.code.substr(0, 2), "CW") << d.code;
    EXPECT_FALSE(d.summary.empty()) << d.id();
    for (char c : d.name) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') << d.name;
    if (d.command == "check") {
      EXPECT_FALSE(others) << d.id() << " comes after another command's id";
      ++check_ids;
    } else {
      others = true;
      EXPECT_TRUE(d.command == "matrix" || d.command == "release" || d.command == "arch" || d.command == "toolkit" ||
                  d.command == "identity" || d.command == "diff")
          << d.command;
    }
  }
  EXPECT_EQ(check_ids, rules().size());
  EXPECT_GT(diagnostics().size(), rules().size());
}

TEST(DiagnosticRegistry, EveryIdHasItsPageWithAllSections) {
  for (const auto& d : diagnostics()) {
    std::string_view doc = d.doc();
    ASSERT_FALSE(doc.empty()) << "docs/rules/" << d.id() << ".md is missing";
    EXPECT_EQ(doc.rfind("# " + std::string(d.name) + " (" + std::string(d.code) + ")", 0), 0u) << d.id();
    for (const char* section : {"## What it does", "## Why is this bad?", "## Example", "## How to fix", "## References"})
      EXPECT_NE(doc.find(section), std::string_view::npos) << d.id() << " lacks " << section;
  }
}

TEST(DiagnosticRegistry, EveryCommandPageBelongsToAnId) {
  size_t pages = 0;
  for (const auto& folder : fs::directory_iterator(std::string(CUWHEEL_SOURCE_DIR) + "/docs/rules")) {
    if (!folder.is_directory()) continue;
    const std::string command = folder.path().filename().string();
    for (const auto& page : fs::directory_iterator(folder.path())) {
      ++pages;
      EXPECT_EQ(page.path().extension(), ".md") << page.path();
      EXPECT_NE(find_diagnostic(command, page.path().stem().string()), nullptr)
          << "docs/rules/" << command << "/" << page.path().filename().string() << " has no id";
    }
  }
  EXPECT_EQ(pages, diagnostics().size() - rules().size());
}

// What the commands emit is registered: matrix's guards from the library's
// own list, the others by their names.
TEST(DiagnosticRegistry, EveryEmittedIdIsRegistered) {
  for (auto g : matrix::guard_names()) EXPECT_NE(find_diagnostic("matrix", g), nullptr) << g;
  for (const char* c : {"missing", "extra", "bad-filename", "not-normalized", "version-mismatch", "name-mismatch",
                        "tag-mismatch", "duplicate", "core-pin", "bad-sdist", "unreadable"})
    EXPECT_NE(find_diagnostic("release", c), nullptr) << c;
  for (const char* c : {"unknown-arch", "not-buildable", "deprecated-arch"})
    EXPECT_NE(find_diagnostic("arch", c), nullptr) << c;
  EXPECT_EQ(find_diagnostic("arch", "deprecated-arch")->default_severity, Severity::warning);
  for (const char* c : {"key-rejected", "rpm-rejected", "rpm-unavailable", "unlocked-file", "sums-malformed-line",
                        "sums-listed-twice", "sums-unknown-file", "sums-digest-mismatch", "sums-missing-file",
                        "nvcc-release", "eula", "compile", "lock-unresolvable", "lock-out-of-date", "unreadable"})
    EXPECT_NE(find_diagnostic("toolkit", c), nullptr) << c;
  // An input these commands cannot read (exit status 2) is a result of
  // their own id in SARIF and GitHub output (tools/cuwheel/cli.h
  // render_unreadable()).
  EXPECT_NE(find_diagnostic("matrix", "unreadable"), nullptr);
  EXPECT_NE(find_diagnostic("identity", "unreadable"), nullptr);
  EXPECT_NE(find_diagnostic("diff", "unreadable"), nullptr);
  for (const auto& r : rules()) EXPECT_NE(find_diagnostic("check", r.name), nullptr) << r.name;
}

// identity check's three outcomes that mean "rebuild", each a registered
// id; a matching stamp gives nothing.
TEST(DiagnosticRegistry, StampOutcomesAreRegisteredDiagnostics) {
  using State = identity::StampCheck::State;
  const std::pair<State, const char*> cases[] = {
      {State::kDiffers, "stale-build"}, {State::kMissing, "no-stamp"}, {State::kMalformed, "malformed-stamp"}};
  for (const auto& [state, name] : cases) {
    identity::StampCheck r;
    r.state = state;
    r.message = state == State::kMalformed ? "b/st: 'x' is not a build identity" : "stamp says cu12, configuration is cu13: rebuild";
    if (state == State::kDiffers) r.changes = {"CUDA major 12 -> 13", "added debug"};
    auto d = identity::stamp_diagnostics(r, "b/st");
    ASSERT_EQ(d.size(), 1u) << name;
    EXPECT_EQ(d[0].rule, name);
    EXPECT_EQ(d[0].path, "b/st");
    EXPECT_EQ(d[0].severity, Severity::error);
    EXPECT_NE(find_diagnostic("identity", d[0].rule), nullptr) << name;
    if (state == State::kDiffers) {
      EXPECT_EQ(d[0].message, "stamp says cu12, configuration is cu13: rebuild (CUDA major 12 -> 13; added debug)");
    }
    if (state == State::kMalformed) { EXPECT_EQ(d[0].message, "'x' is not a build identity"); }  // the path once, as path
  }
  identity::StampCheck same;
  same.state = State::kMatches;
  EXPECT_TRUE(identity::stamp_diagnostics(same, "b/st").empty());
}

// diff: an exceeded gate is an error of its measure, a gate within its
// limit nothing, a repeated member a warning; all registered.
TEST(DiagnosticRegistry, DiffGatesAndDuplicatesAreRegisteredDiagnostics) {
  diff::WheelDiff w;
  w.old_path = "old.whl";
  w.new_path = "new.whl";
  w.duplicates.push_back({"new", "new.whl", "pkg/a.txt", 2});
  auto gate = [](const char* what, const char* flag, bool exceeded) {
    diff::Gate g{what, flag, *diff::parse_growth_limit("10%")};
    g.old_size = 100;
    g.new_size = exceeded ? 200 : 105;
    g.exceeded = exceeded;
    return g;
  };
  auto d = render::diff_diagnostics(w, {gate("wheel size", "--max-growth", true),
                                        gate("installed size", "--max-installed-growth", false)});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].rule, "wheel-growth");
  EXPECT_EQ(d[0].path, "new.whl");
  EXPECT_NE(d[0].message.find("exceeds --max-growth 10% (old: old.whl)"), std::string::npos) << d[0].message;
  EXPECT_EQ(d[1].rule, "duplicate-member");
  EXPECT_EQ(d[1].severity, Severity::warning);
  EXPECT_EQ(d[1].member, "pkg/a.txt");
  auto installed = render::diff_diagnostics(w, {gate("installed size", "--max-installed-growth", true)});
  EXPECT_EQ(installed[0].rule, "installed-growth");
  for (const auto& x : d) EXPECT_NE(find_diagnostic("diff", x.rule), nullptr) << x.rule;
  EXPECT_EQ(find_diagnostic("diff", "duplicate-member")->default_severity, Severity::warning);
}

TEST(DiagnosticRegistry, LookupByIdCodeAndSharedName) {
  auto m = lookup_diagnostics("empty-matrix");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]->id(), "matrix/empty-matrix");
  EXPECT_EQ(lookup_diagnostics("CW502"), m);
  EXPECT_EQ(lookup_diagnostics("matrix/empty-matrix"), m);
  // check's rule and release verify's problem share a name: check's first.
  auto t = lookup_diagnostics("tag-mismatch");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0]->command, "check");
  EXPECT_EQ(t[1]->id(), "release/tag-mismatch");
  ASSERT_EQ(lookup_diagnostics("release/tag-mismatch").size(), 1u);
  EXPECT_TRUE(lookup_diagnostics("no-such-id").empty());
  EXPECT_EQ(suggest_diagnostic("matrix/empty-matrx"), "matrix/empty-matrix");
  EXPECT_EQ(suggest_diagnostic("missing-sas"), "missing-sass");
  EXPECT_EQ(suggest_diagnostic("sums-listed-twic"), "sums-listed-twice");
}

// Any command's diagnostics through the SARIF renderer: the command's own
// rule descriptors, the registry code as ruleId, the line as a region.
TEST(DiagnosticRender, SarifUsesTheCommandsIdsAndRegions) {
  Diagnostic d = diag("sums-digest-mismatch", "rpms/SHA256SUMS", "a.rpm", "rpms/SHA256SUMS:3: a.rpm: sha256 ...");
  d.line = 3;
  auto doc = json::parse(render_sarif({d}, summary_of("toolkit", 1)));
  const auto& run = doc["runs"][0];
  const auto& rules_arr = run["tool"]["driver"]["rules"];
  ASSERT_EQ(rules_arr.size(), 15u);
  for (const auto& r : rules_arr) EXPECT_EQ(r["id"].get<std::string>().substr(0, 3), "CW8") << r;
  const auto& res = run["results"][0];
  EXPECT_EQ(res["ruleId"], "CW808");
  EXPECT_EQ(res["level"], "error");
  EXPECT_EQ(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "rpms/SHA256SUMS");
  EXPECT_EQ(res["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
  EXPECT_EQ(res["locations"][0]["logicalLocations"][0]["name"], "a.rpm");
  EXPECT_TRUE(run["invocations"][0]["executionSuccessful"].get<bool>());
  ReportSummary incomplete = summary_of("toolkit", 1);
  incomplete.incomplete = true;
  EXPECT_FALSE(json::parse(render_sarif({d}, incomplete))["runs"][0]["invocations"][0]["executionSuccessful"].get<bool>());
  // check's SARIF still describes every check rule and nothing else.
  auto check_doc = json::parse(render_sarif({}, summary_of("check", 0)));
  EXPECT_EQ(check_doc["runs"][0]["tool"]["driver"]["rules"].size(), rules().size());
}

TEST(DiagnosticRender, SarifWithoutPathHasOnlyALogicalLocation) {
  Diagnostic d = diag("unknown-arch", "", "", "no GPU has compute capability 9.9");
  d.location = "sm_99";
  auto doc = json::parse(render_sarif({d}, summary_of("arch", 1)));
  const auto& loc = doc["runs"][0]["results"][0]["locations"][0];
  EXPECT_FALSE(loc.contains("physicalLocation"));
  EXPECT_EQ(loc["logicalLocations"][0]["name"], "sm_99");
  EXPECT_EQ(loc["logicalLocations"][0]["fullyQualifiedName"], "sm_99");
  EXPECT_EQ(doc["runs"][0]["results"][0]["ruleId"], "CW701");
}

TEST(DiagnosticRender, GithubGivesTheLineAndOmitsAnEmptyFile) {
  Diagnostic d = diag("sums-listed-twice", "rpms/SHA256SUMS", "a.rpm", "listed twice");
  d.line = 4;
  EXPECT_EQ(render_github({d}, summary_of("toolkit", 1)),
            "::error file=rpms/SHA256SUMS,line=4,title=sums-listed-twice in a.rpm::listed twice\n");
  Diagnostic a = diag("deprecated-arch", "", "", "sm_70: CUDA 12.8 deprecates it");
  a.severity = Severity::warning;
  a.location = "sm_70";
  EXPECT_EQ(render_github({a}, summary_of("arch", 0)), "::warning title=deprecated-arch::sm_70: CUDA 12.8 deprecates it\n");
  a.message = "CUDA 12.8 deprecates it";
  EXPECT_EQ(render_github({a}, summary_of("arch", 0)), "::warning title=deprecated-arch::CUDA 12.8 deprecates it [sm_70]\n");
}

TEST(DiagnosticRender, JsonGivesPlacesOnlyWhenSetAndTheCommandsCodes) {
  Diagnostic d = diag("empty-matrix", "gen.json", "", "no row is left");
  Diagnostic r = diag("python-not-allowed", "gen.json", "", "row 2: python 3.9");
  r.index = 2;
  r.location = "row 2";
  auto doc = json::parse(render_json({d, r}, summary_of("matrix", 2)));
  EXPECT_EQ(doc["command"], "matrix");
  EXPECT_EQ(doc["findings"][0]["code"], "CW502");
  EXPECT_FALSE(doc["findings"][0].contains("index"));
  EXPECT_FALSE(doc["findings"][0].contains("line"));
  EXPECT_EQ(doc["findings"][1]["code"], "CW505");
  EXPECT_EQ(doc["findings"][1]["index"], 2);
}

// The matrix guards are diagnostics with the row as index and location.
TEST(DiagnosticSources, MatrixGuardsCarryTheirRow) {
  matrix::Policy policy;
  policy.trains = {{"x86_64", {"cu130"}}};
  policy.python = {"3.12"};
  matrix::Row row;
  row["python_version"] = "3.9";
  row["gpu_arch_type"] = "cuda";
  row["gpu_arch_version"] = "13.0";
  row["desired_cuda"] = "cu130";
  row["build_name"] = "manywheel-py3.9-cu130-x86_64";
  std::vector<matrix::Row> rows = {row};
  auto res = matrix::filter(rows, policy, {});
  bool found = false;
  for (const auto& f : res.findings) {
    EXPECT_NE(find_diagnostic("matrix", f.rule), nullptr) << f.rule;
    EXPECT_EQ(f.severity, Severity::error);
    if (f.rule == "python-not-allowed") {
      found = true;
      ASSERT_TRUE(f.index);
      EXPECT_EQ(*f.index, 0u);
      EXPECT_EQ(f.location, "row 0");
    }
    if (f.rule == "empty-matrix") { EXPECT_FALSE(f.index); }
  }
  EXPECT_TRUE(found);
}

// toolkit check: each failed step is a diagnostic named after the step.
TEST(DiagnosticSources, ToolkitCheckStepsAreDiagnostics) {
  toolkit::CheckReport r;
  r.steps = {{"nvcc-release", true, "nvcc 12.9.86", ""}, {"eula", false, "cuda/EULA.txt is missing", ""},
             {"compile", false, "compiling a kernel failed", "x.cu: error"}};
  auto ds = r.diagnostics("cuda");
  ASSERT_EQ(ds.size(), 2u);
  toolkit::CheckReport no_nvcc;
  no_nvcc.steps = {{"nvcc-release", false, "cuda/bin/nvcc is missing or not executable", ""},
                   {"eula", true, "cuda/EULA.txt", ""},
                   {"compile", false, "not attempted: nvcc failed the release check", ""}};
  auto one = no_nvcc.diagnostics("cuda");
  ASSERT_EQ(one.size(), 1u);  // the compile step was not attempted: no second problem
  EXPECT_EQ(one[0].rule, "nvcc-release");
  EXPECT_EQ(ds[0].rule, "eula");
  EXPECT_EQ(ds[1].rule, "compile");
  for (const auto& d : ds) {
    EXPECT_EQ(d.path, "cuda");
    EXPECT_NE(find_diagnostic("toolkit", d.rule), nullptr) << d.rule;
  }
}

// The toolkit's report gives every problem as a diagnostic, none when ok.
TEST(DiagnosticSources, ToolkitReportListsEveryProblem) {
  toolkit::FetchReport ok;
  ok.toolkit = "cu12";
  EXPECT_TRUE(ok.diagnostics("rpms").empty());
  toolkit::FetchReport r;
  r.toolkit = "cu12";
  r.key_rejected = "fingerprint X is not the pinned Y";
  r.files.push_back({"a.rpm", toolkit::FileOutcome::Status::rejected, "", false, "sha256 differs"});
  r.files.push_back({"b.rpm", toolkit::FileOutcome::Status::unavailable, "", false, "HTTP 404"});
  r.files.push_back({"c.rpm", toolkit::FileOutcome::Status::verified, "", false, ""});
  r.unlocked = {"old.rpm"};
  auto ds = r.diagnostics("rpms");
  ASSERT_EQ(ds.size(), 4u);
  EXPECT_EQ(ds[0].rule, "key-rejected");
  EXPECT_EQ(ds[1].rule, "rpm-rejected");
  EXPECT_EQ(ds[1].member, "a.rpm");
  EXPECT_EQ(ds[2].rule, "rpm-unavailable");
  EXPECT_EQ(ds[3].rule, "unlocked-file");
  for (const auto& d : ds) {
    EXPECT_EQ(d.path, "rpms");
    EXPECT_NE(find_diagnostic("toolkit", d.rule), nullptr) << d.rule;
  }
}

// The structured fix `repair` will read: a bundled driver library is to be
// removed, a bundled CUDA library unbundled in favour of its pip package.
TEST(DiagnosticFix, BundledLibrariesCarryTheirFix) {
  auto fs = test_util::check_path(std::string(CUWHEEL_SOURCE_DIR) +
                                      "/tests/fixtures/check/loading/lw_bundled-1.0-py3-none-manylinux_2_36_x86_64.whl",
                                  {});
  size_t driver = 0, cuda = 0;
  for (const auto& f : fs) {
    if (f.rule == "bundled-driver-library") {
      ++driver;
      ASSERT_TRUE(f.fix);
      EXPECT_EQ(f.fix->action, "remove-member");
      EXPECT_EQ(f.fix->target, f.member);
    }
    if (f.rule == "bundled-cuda-library") {
      ++cuda;
      ASSERT_TRUE(f.fix);
      EXPECT_EQ(f.fix->action, "unbundle");
      EXPECT_EQ(f.fix->target, f.member);
      if (f.member == "lw_bundled/lib/libcudart.so.13") { EXPECT_EQ(f.fix->value, "nvidia-cuda-runtime"); }
    }
    if (f.rule != "bundled-driver-library" && f.rule != "bundled-cuda-library") { EXPECT_FALSE(f.fix) << f.rule; }
  }
  EXPECT_EQ(driver, 1u);
  EXPECT_EQ(cuda, 2u);
}
