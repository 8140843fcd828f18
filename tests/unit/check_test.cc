// The check framework: registry, documentation, policy files, rule runner.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <fstream>
#include <set>

#include "cuwheel/check.h"
#include "cuwheel/report.h"
#include "check_test_util.h"

using namespace cuwheel;
using namespace cuwheel::check;
namespace fs = std::filesystem;

namespace {

const std::string kBin = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/bin/";

std::string write_temp(const std::string& name, const std::string& text) {
  fs::path dir = fs::temp_directory_path() / ("cuwheel-check-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

std::vector<Finding> check_one(const std::string& path, const Policy& policy = {}) {
  return test_util::check_path(path, policy);
}

size_t count(const std::vector<Finding>& fs, const std::string& rule) { return test_util::count_rule(fs, rule); }

}  // namespace

TEST(CheckRegistry, CodesAndNamesAreUniqueAndWellFormed) {
  std::set<std::string> codes, names;
  for (const auto& r : rules()) {
    EXPECT_TRUE(codes.insert(std::string(r.code)).second) << r.code;
    EXPECT_TRUE(names.insert(std::string(r.name)).second) << r.name;
    EXPECT_EQ(r.code.size(), 5u) << r.code;
    EXPECT_EQ(r.code.substr(0, 2), "CW");
    for (char c : r.name) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') << r.name;
    EXPECT_FALSE(r.summary.empty()) << r.name;
  }
}

TEST(CheckRegistry, EveryRuleHasItsDocumentationWithAllSections) {
  for (const auto& r : rules()) {
    std::string_view doc = rule_doc(r.name);
    ASSERT_FALSE(doc.empty()) << "docs/rules/" << r.name << ".md is missing";
    EXPECT_EQ(doc.rfind("# " + std::string(r.name) + " (" + std::string(r.code) + ")", 0), 0u) << r.name;
    for (const char* section : {"## What it does", "## Why is this bad?", "## Example", "## How to fix", "## References"})
      EXPECT_NE(doc.find(section), std::string_view::npos) << r.name << " lacks " << section;
  }
}

TEST(CheckRegistry, EveryDocumentBelongsToARule) {
  for (const auto& entry : fs::directory_iterator(std::string(CUWHEEL_SOURCE_DIR) + "/docs/rules")) {
    std::string name = entry.path().stem().string();
    EXPECT_NE(find_rule(name), nullptr) << "docs/rules/" << name << ".md has no rule";
  }
}

TEST(CheckRegistry, LookupByCodeAndSuggestion) {
  ASSERT_NE(find_rule("CW301"), nullptr);
  EXPECT_EQ(find_rule("CW301")->name, "unsafe-path");
  EXPECT_EQ(suggest_rule("unsafe-paths"), "unsafe-path");
  EXPECT_EQ(suggest_rule("completely-different"), "");
}

TEST(CheckPolicy, ReadsPyprojectTable) {
  std::string p = write_temp("pyproject.toml", R"([project]
name = "x"
[tool.cuwheel]
cuda-major = 13
sass = ["sm_75", "sm_80"]
ptx = "newest"
gpus = "sm_80,sm_89"
min-driver = "580.65.06"
max-size = "200MB"
pin = { dyng = "exact" }
[tool.cuwheel.severity]
unsafe-path = "warning"
)");
  auto pol = load_policy(p);
  ASSERT_TRUE(pol) << pol.error().message();
  EXPECT_EQ(pol->cuda_major, 13);
  EXPECT_EQ(pol->sass, (std::vector<std::string>{"sm_75", "sm_80"}));
  EXPECT_EQ(pol->ptx_mode, Policy::PtxMode::newest);
  EXPECT_EQ(pol->gpus, (std::vector<std::string>{"sm_80", "sm_89"}));
  EXPECT_EQ(pol->max_size, 200000000u);
  EXPECT_EQ(pol->pins.at("dyng"), "exact");
  EXPECT_EQ(pol->severity.at("unsafe-path"), Severity::warning);
}

TEST(CheckPolicy, ErrorsNameFileLineAndKey) {
  auto bad_major = load_policy(write_temp("cuwheel.toml", "cuda-major = 11\n"));
  ASSERT_FALSE(bad_major);
  EXPECT_NE(bad_major.error().message().find("cuwheel.toml:1: cuda-major must be 12 or 13"), std::string::npos)
      << bad_major.error().message();
  auto unknown = load_policy(write_temp("cuwheel.toml", "\nsas = [\"sm_80\"]\n"));
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find(":2: unknown key \"sas\""), std::string::npos) << unknown.error().message();
  auto typo = load_policy(write_temp("cuwheel.toml", "[severity]\nunsafe-paht = \"off\"\n"));
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message().find("did you mean \"unsafe-path\""), std::string::npos) << typo.error().message();
  auto syntax = load_policy(write_temp("cuwheel.toml", "sass = [\n"));
  ASSERT_FALSE(syntax);
  auto no_table = load_policy(write_temp("pyproject.toml", "[project]\nname='x'\n"));
  ASSERT_FALSE(no_table);
  EXPECT_NE(no_table.error().message().find("no [tool.cuwheel] table"), std::string::npos);
}

TEST(CheckPolicy, ParseSize) {
  EXPECT_EQ(parse_size("200MB"), 200000000u);
  EXPECT_EQ(parse_size("1.5 GiB"), 1610612736u);
  EXPECT_EQ(parse_size("12345"), 12345u);
  EXPECT_EQ(parse_size("10 parsecs"), std::nullopt);
  EXPECT_EQ(parse_size(""), std::nullopt);
}


TEST(CheckRules, UnsafePathTwins) {
  auto dotdot = check_one(kBin + "cuwheel_demo-1.0.0-4dotdot-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(count(dotdot, "unsafe-path"), 1u);
  auto absolute = check_one(kBin + "cuwheel_demo-1.0.0-5absolute-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(count(absolute, "unsafe-path"), 1u);
  ASSERT_FALSE(absolute.empty());
  EXPECT_EQ(absolute[0].member, "/tmp/evil.so");
  auto clean = check_one(kBin + "cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(count(clean, "unsafe-path"), 0u);
}

TEST(CheckRules, SelectIgnoreAndSeverity) {
  auto ms = build_models(kBin + "cuwheel_demo-1.0.0-4dotdot-cp312-cp312-manylinux_2_28_x86_64.whl", BuildOptions{});
  ASSERT_TRUE(ms);
  Policy p;
  p.ignore = {"unsafe-path"};
  EXPECT_EQ(count(run_rules(*ms, p), "unsafe-path"), 0u);
  Policy q;
  q.severity["unsafe-path"] = Severity::warning;
  auto f = run_rules(*ms, q);
  ASSERT_EQ(count(f, "unsafe-path"), 1u);
  EXPECT_EQ(f[0].severity, Severity::warning);
  Policy r;
  r.select = {"tag-mismatch"};
  EXPECT_EQ(count(run_rules(*ms, r), "unsafe-path"), 0u);
}

TEST(CheckReport, RenderersCarryEveryFinding) {
  Finding f{"unsafe-path", Severity::error, "w.whl", "../x.so", "zip member", "member name has a `..` component", "fix it"};
  ReportSummary s;
  s.inputs = 1;
  s.errors = 1;
  std::string text = render_text({f}, s);
  EXPECT_NE(text.find("w.whl:../x.so: error[unsafe-path]: member name has a `..` component"), std::string::npos) << text;
  EXPECT_NE(text.find("1 input checked: 1 error, 0 warnings"), std::string::npos) << text;
  EXPECT_NE(render_json({f}, s).find("\"rule\": \"unsafe-path\""), std::string::npos);
  EXPECT_NE(render_sarif({f}, s).find("\"ruleId\": \"CW301\""), std::string::npos);
  EXPECT_EQ(render_github({f}, s).rfind("::error file=w.whl,title=unsafe-path in ../x.so::", 0), 0u) << render_github({f}, s);
}

// Findings that differ only in member are one cause: text prints them once
// with an "in:" list, JSON keeps each with a shared group number.
TEST(CheckReport, FindingsOfOneCauseAreGrouped) {
  std::vector<Finding> fs;
  for (const char* m : {"pkg/_a.so", "pkg/_b.so", "pkg/_c.so"})
    fs.push_back(Finding{"unresolved-runpath", Severity::error, "pkg.whl", m, "DT_RPATH $ORIGIN/../../x",
                         "1 search-path entry climbs above site-packages", "count the '..'"});
  // Same rule, other message: its own block.
  fs.push_back(Finding{"unresolved-runpath", Severity::error, "pkg.whl", "pkg/_d.so", "DT_RPATH $ORIGIN/y",
                       "other cause", ""});
  // Same message on another input: not merged across inputs.
  fs.push_back(Finding{"unresolved-runpath", Severity::error, "other.whl", "pkg/_a.so", "DT_RPATH $ORIGIN/../../x",
                       "1 search-path entry climbs above site-packages", "count the '..'"});
  auto groups = group_findings(fs);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0], (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(groups[1], (std::vector<size_t>{3}));
  EXPECT_EQ(groups[2], (std::vector<size_t>{4}));

  ReportSummary s;
  s.inputs = 2;
  s.errors = fs.size();
  std::string text = render_text(fs, s);
  EXPECT_NE(text.find("pkg.whl: error[unresolved-runpath]: 1 search-path entry climbs above site-packages\n"
                      "  where: DT_RPATH $ORIGIN/../../x\n"
                      "  in:    3 members: pkg/_a.so, pkg/_b.so, pkg/_c.so\n"
                      "  help:  count the '..'\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pkg.whl:pkg/_d.so: error[unresolved-runpath]: other cause\n"), std::string::npos) << text;
  EXPECT_NE(text.find("other.whl:pkg/_a.so: error"), std::string::npos) << text;
  EXPECT_NE(text.find("2 inputs checked: 5 errors"), std::string::npos) << text;  // each finding counted

  auto doc = nlohmann::json::parse(render_json(fs, s));
  ASSERT_EQ(doc["findings"].size(), 5u);
  EXPECT_EQ(doc["findings"][0]["group"], 1);
  EXPECT_EQ(doc["findings"][2]["group"], 1);
  EXPECT_FALSE(doc["findings"][3].contains("group"));
  EXPECT_FALSE(doc["findings"][4].contains("group"));
}
