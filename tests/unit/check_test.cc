// The check framework: registry, documentation, policy files, rule runner.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <fstream>
#include <memory>
#include <set>

#include "cuwheel/check/check.h"
#include "cuwheel/render/report.h"
#include "check_test_util.h"
#include "temp_dir.h"

using namespace cuwheel;
using namespace cuwheel::check;
namespace fs = std::filesystem;

namespace {

const std::string kBin = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/bin/";

// The running test's own folder, made on its first write_temp and removed
// when the next test makes its own (or at exit).
const fs::path& test_dir() {
  static std::unique_ptr<cuwheel::test::TempDir> dir;
  static const ::testing::TestInfo* owner = nullptr;
  const ::testing::TestInfo* now = ::testing::UnitTest::GetInstance()->current_test_info();
  if (!dir || owner != now) {
    dir.reset();
    dir = std::make_unique<cuwheel::test::TempDir>("policy");
    owner = now;
  }
  return dir->path();
}

std::string write_temp(const std::string& name, const std::string& text) {
  fs::path p = test_dir() / name;
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
    if (entry.is_directory()) continue;  // docs/rules/<command>/: the other commands' ids (diagnostics_test.cc)
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

TEST(CheckPolicy, RepairTable) {
  auto ok = load_policy(write_temp("pyproject.toml",
                                   "[tool.cuwheel.repair]\nsearch-path = \"runpath\"\nexclude = [\"libmpi.so.*\"]\n"));
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(ok->repair_search_path, "runpath");
  EXPECT_EQ(ok->repair_exclude, std::vector<std::string>{"libmpi.so.*"});
  auto bad = load_policy(write_temp("cuwheel.toml", "[repair]\nsearch-path = \"both\"\n"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("repair.search-path must be"), std::string::npos) << bad.error().message();
  auto typo = load_policy(write_temp("cuwheel.toml", "[repair]\nexclud = []\n"));
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message().find("did you mean \"exclude\""), std::string::npos) << typo.error().message();
  auto not_table = load_policy(write_temp("cuwheel.toml", "repair = 1\n"));
  ASSERT_FALSE(not_table);
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

// --- review fixes: policy values, list items, SARIF, unreadable inputs ------

namespace {

std::string policy_error(const std::string& text) {
  auto p = load_policy(write_temp("cuwheel.toml", text));
  return p ? std::string("(accepted)") : p.error().message();
}

}  // namespace

TEST(CheckPolicy, ValueErrorsNameTheLine) {
  EXPECT_NE(policy_error("cuda-major = 13\nsass = [\"sm_80\",\n  \"sm_8x\"]\n").find("cuwheel.toml:3: sass: \"sm_8x\""),
            std::string::npos)
      << policy_error("cuda-major = 13\nsass = [\"sm_80\",\n  \"sm_8x\"]\n");
  EXPECT_NE(policy_error("\nptx = \"newst\"\n").find("cuwheel.toml:2: ptx: \"newst\""), std::string::npos)
      << policy_error("\nptx = \"newst\"\n");
  EXPECT_NE(policy_error("\n\ngpus = \"sm_80,sm_90a\"\n").find("cuwheel.toml:3: gpus: \"sm_90a\""), std::string::npos)
      << policy_error("\n\ngpus = \"sm_80,sm_90a\"\n");
  EXPECT_NE(policy_error("min-driver = \"abc\"\n").find("cuwheel.toml:1: min-driver: \"abc\""), std::string::npos)
      << policy_error("min-driver = \"abc\"\n");
  EXPECT_NE(policy_error("\nselect = [\"missing-sas\"]\n").find("cuwheel.toml:2: select: unknown rule \"missing-sas\""),
            std::string::npos)
      << policy_error("\nselect = [\"missing-sas\"]\n");
  EXPECT_NE(policy_error("ignore = [\n\"CW101\",\n\"CW999\"]\n").find("cuwheel.toml:3: ignore: unknown rule \"CW999\""),
            std::string::npos)
      << policy_error("ignore = [\n\"CW101\",\n\"CW999\"]\n");
  EXPECT_EQ(policy_error("sass = [\"sm_80\"]\nptx = \"newest\"\nmin-driver = \"580.65.06\"\nselect = [\"missing-sass\"]\n"),
            "(accepted)");
}

TEST(CheckPolicy, DriverVersionIsMajorMinorPatch) {
  for (const char* good : {"535.104.05", "580.65.06", "570.26", "450.51.05", "1.0"}) {
    Policy p;
    p.min_driver = good;
    EXPECT_TRUE(validate_policy(p)) << good;
    EXPECT_EQ(policy_error(std::string("min-driver = \"") + good + "\"\n"), "(accepted)") << good;
  }
  for (const char* bad : {"9999999999999999999999.1", "1.2.3.4.5", "0.0", "580", "580.", ".65", "580..65", "v580.65",
                          "580.65a", "0580.65", "580.-1", ""}) {
    Policy p;
    p.min_driver = bad;
    auto st = validate_policy(p);
    ASSERT_FALSE(st) << bad;
    EXPECT_EQ(st.error().message().rfind(std::string("--min-driver: \"") + bad + "\" is not an NVIDIA driver version", 0),
              0u)
        << st.error().message();
    EXPECT_NE(policy_error(std::string("min-driver = \"") + bad + "\"\n").find("cuwheel.toml:1: min-driver: \""),
              std::string::npos)
        << bad;
  }
}

TEST(CheckPolicy, CommaListsRejectEmptyItems) {
  auto ok = split_comma_list("sm_75, sm_80 ,sm_90");
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, (std::vector<std::string>{"sm_75", "sm_80", "sm_90"}));
  for (const char* bad : {",,,", "", "sm_75,", ",sm_75", "sm_75,,sm_80", "sm_75, ,sm_80"}) {
    auto r = split_comma_list(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message().find("is empty"), std::string::npos) << r.error().message();
  }
  EXPECT_EQ(split_comma_list("sm_75,,sm_80").error().message(), "item 2 of \"sm_75,,sm_80\" is empty");
  EXPECT_NE(policy_error("\nsass = \"sm_75,,sm_80\"\n").find("cuwheel.toml:2: sass: item 2"), std::string::npos);
  EXPECT_NE(policy_error("exports = [\"\"]\n").find("cuwheel.toml:1: exports: an empty item"), std::string::npos);
}

TEST(CheckReport, SarifKeepsCodeScanningsResultLimit) {
  // 25,000 results at most per run (GitHub's upload limit): every error is
  // kept before any warning, and a notification counts what is left out.
  std::vector<Finding> fs;
  for (size_t i = 0; i < 25010; ++i)
    fs.push_back(Finding{"unsafe-path", i < 24995 ? Severity::warning : Severity::error, "w.whl",
                         "m" + std::to_string(i), "zip member", "msg", ""});
  ReportSummary s;
  s.inputs = 1;
  auto doc = nlohmann::json::parse(render_sarif(fs, s));
  const auto& run = doc["runs"][0];
  ASSERT_EQ(run["results"].size(), 25000u);
  size_t errors = 0;
  for (const auto& r : run["results"]) errors += r["level"] == "error";
  EXPECT_EQ(errors, 15u);
  const auto& n = run["invocations"][0]["toolExecutionNotifications"];
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0]["descriptor"]["id"], "results-left-out");
  EXPECT_NE(n[0]["message"]["text"].get<std::string>().find("10 of 25010 results left out"), std::string::npos);
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);
  // Under the limit: every result, in report order, no notification.
  fs.resize(3);
  auto small = nlohmann::json::parse(render_sarif(fs, s));
  ASSERT_EQ(small["runs"][0]["results"].size(), 3u);
  EXPECT_FALSE(small["runs"][0]["invocations"][0].contains("toolExecutionNotifications"));
}

TEST(CheckReport, SarifInvocationAndUris) {
  Finding f{"unsafe-path", Severity::error, "dist dir/w#1.whl", "../x.so", "zip member", "m", ""};
  ReportSummary s;
  s.inputs = 1;
  auto ok = nlohmann::json::parse(render_sarif({f}, s));
  const auto& run = ok["runs"][0];
  ASSERT_EQ(run["invocations"].size(), 1u);
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);
  EXPECT_FALSE(run["invocations"][0].contains("toolExecutionNotifications"));
  EXPECT_EQ(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "dist%20dir/w%231.whl");
  f.path = "/abs/a:b.whl";
  s.unreadable.emplace_back("empty.so", "empty.so: not an ELF file");
  s.unreadable_inputs.push_back("empty.so");
  s.unreadable.emplace_back("/abs/w.whl:pkg/lib.so", "entry at 0x10: ZSTD frame: Data corruption detected");
  s.unreadable_inputs.push_back("/abs/w.whl");
  auto bad = nlohmann::json::parse(render_sarif({f}, s));
  const auto& inv = bad["runs"][0]["invocations"][0];
  EXPECT_EQ(inv["executionSuccessful"], false);
  ASSERT_EQ(inv["toolExecutionNotifications"].size(), 2u);
  const auto& n0 = inv["toolExecutionNotifications"][0];
  EXPECT_EQ(n0["level"], "error");
  EXPECT_EQ(n0["message"]["text"], "empty.so: not an ELF file");
  EXPECT_EQ(n0["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "empty.so");
  const auto& n1 = inv["toolExecutionNotifications"][1];
  EXPECT_EQ(n1["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "file:///abs/w.whl");
  EXPECT_EQ(n1["locations"][0]["logicalLocations"][0]["name"], "pkg/lib.so");
  EXPECT_EQ(bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "file:///abs/a%3Ab.whl");
}

TEST(CheckModels, UnreadableWheelInAFolderIsNoCheckedInput) {
  cuwheel::test::TempDir tmp("folder");
  fs::path dir = tmp.path();
  ASSERT_FALSE(dir.empty());
  const std::string name = "cuwheel_demo-1.0.0-3truncated-cp312-cp312-manylinux_2_28_x86_64.whl";
  fs::copy_file(kBin + name, dir / name);
  auto in_folder = build_models(dir.string(), BuildOptions{});
  ASSERT_TRUE(in_folder);
  ASSERT_EQ(in_folder->size(), 1u);
  EXPECT_TRUE((*in_folder)[0].unreadable);
  ASSERT_EQ((*in_folder)[0].read_errors.size(), 1u);
  // By name it is an error of the input; in a folder the same error, and no
  // rule sees a model of it (no metadata-invalid finding).
  auto by_name = build_models((dir / name).string(), BuildOptions{});
  ASSERT_FALSE(by_name);
  EXPECT_EQ((*in_folder)[0].read_errors[0].second, by_name.error().message());
  // The good wheel beside it is checked as before.
  fs::copy_file(kBin + "cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl",
                dir / "cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  auto both = build_models(dir.string(), BuildOptions{});
  ASSERT_TRUE(both);
  ASSERT_EQ(both->size(), 2u);
  size_t unreadable = 0;
  for (const auto& m : *both) unreadable += m.unreadable;
  EXPECT_EQ(unreadable, 1u);
  fs::remove_all(dir);
}

TEST(CheckModels, SymlinkLoopIsNamedByItsErrno) {
  cuwheel::test::TempDir tmp("loop");
  fs::path dir = tmp.path();
  ASSERT_FALSE(dir.empty());
  fs::create_symlink("l1", dir / "l2");
  fs::create_symlink("l2", dir / "l1");
  auto m = build_models((dir / "l1").string(), BuildOptions{});
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message().find("too many levels of symbolic links"), std::string::npos) << m.error().message();
  auto missing = build_models((dir / "nothing").string(), BuildOptions{});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("no such file or directory"), std::string::npos);
  fs::remove_all(dir);
}

TEST(CheckModels, RawFatbinAndCubinAreLibraryInputs) {
  for (const char* f : {"a.fatbin", "a.cubin"}) {
    auto ms = build_models(kBin + f, BuildOptions{});
    ASSERT_TRUE(ms) << f << ": " << ms.error().message();
    ASSERT_EQ(ms->size(), 1u);
    EXPECT_TRUE((*ms)[0].read_errors.empty()) << f;
    ASSERT_EQ((*ms)[0].libraries.size(), 1u);
    EXPECT_FALSE((*ms)[0].libraries[0].summary.sass.empty()) << f;
  }
  auto text = build_models(kBin + "a.ptx", BuildOptions{});
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message().find("not a wheel, ELF file, static archive, fatbin or cubin"), std::string::npos);
}

// The policy keys go through the validators of their flags: a value the
// flag refuses is refused in the file too, with FILE:LINE.
TEST(CheckPolicy, FileValuesUseTheFlagValidators) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {Case{"entry-points = [\":\"]\n", "cuwheel.toml:1: entry-points: \":\" must be GROUP:NAME or NAME"},
                        Case{"\nentry-points = [\"g:\"]\n", "cuwheel.toml:2: entry-points: \"g:\" must be GROUP:NAME"},
                        Case{"max-size = 1e3\n", "cuwheel.toml:1: max-size must be a size"},
                        Case{"max-installed-size = 2.5\n", "cuwheel.toml:1: max-installed-size must be a size"},
                        Case{"cuda-major = 13.0\n", "cuwheel.toml:1: cuda-major must be 12 or 13 (an integer, not a float)"},
                        Case{"pin = { \"\" = \"exact\" }\n", "cuwheel.toml:1: pin: \"\" is not a distribution name"}}) {
    auto p = load_policy(write_temp("cuwheel.toml", c.text));
    ASSERT_FALSE(p) << c.text;
    EXPECT_NE(p.error().message().find(c.message), std::string::npos) << p.error().message();
  }
  auto good = load_policy(
      write_temp("cuwheel.toml", "entry-points = [\"g:n\", \"n\"]\nmax-size = 1000\nmax-installed-size = \"1.5MB\"\n"
                                 "cuda-major = 13\npin = { nvidia-cublas = \"exact\" }\n"));
  ASSERT_TRUE(good) << good.error().message();
  EXPECT_EQ(good->max_size, 1000u);
  EXPECT_EQ(good->max_installed_size, 1500000u);
  EXPECT_EQ(good->cuda_major, 13);
  // The flag side: validate_policy names the flag.
  Policy flag;
  flag.entry_points = {":"};
  auto st = validate_policy(flag);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("--entry-point: \":\" must be GROUP:NAME or NAME"), std::string::npos);
  flag.entry_points = {"g:n"};
  flag.pins[""] = "exact";
  ASSERT_FALSE(validate_policy(flag));
  flag.pins.clear();
  EXPECT_TRUE(validate_policy(flag));
}

// A cuwheel.toml keeps its keys at the top level or in [tool.cuwheel]: both
// is an error naming the top-level key's line.
TEST(CheckPolicy, TopLevelAndToolTableTogetherAreRefused) {
  auto both = load_policy(write_temp("cuwheel.toml", "sass = \"sm_80\"\n[tool.cuwheel]\nsass = \"sm_75\"\n"));
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message().find("cuwheel.toml:1: \"sass\" is at the top level, but this file also has a "
                                        "[tool.cuwheel] table (line 2)"),
            std::string::npos)
      << both.error().message();
  auto table_only = load_policy(write_temp("cuwheel.toml", "[tool.cuwheel]\nsass = \"sm_75\"\n"));
  ASSERT_TRUE(table_only) << table_only.error().message();
  EXPECT_EQ(table_only->sass, std::vector<std::string>{"sm_75"});
  auto top_only = load_policy(write_temp("cuwheel.toml", "sass = \"sm_80\"\n"));
  ASSERT_TRUE(top_only);
  EXPECT_EQ(top_only->sass, std::vector<std::string>{"sm_80"});
  // The other commands' tables may stand beside [tool.cuwheel].
  auto with_others = load_policy(write_temp(
      "cuwheel.toml", "[tool.cuwheel]\nsass = \"sm_75\"\n[matrix]\npython = [\"3.12\"]\n[release]\ncore = \"x\"\n"));
  ASSERT_TRUE(with_others) << with_others.error().message();
  EXPECT_EQ(with_others->sass, std::vector<std::string>{"sm_75"});
}

// A folder whose only *.whl is a FIFO: the FIFO is an unreadable input with
// the message it has when named directly, not "no wheels ... found".
TEST(CheckModels, FifoWheelInAFolderIsNamed) {
  cuwheel::test::TempDir tmp("fifo");
  fs::path dir = tmp.path();
  ASSERT_FALSE(dir.empty());
  const fs::path fifo = dir / "a-0.1-py3-none-any.whl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto by_name = build_models(fifo.string(), BuildOptions{});
  ASSERT_FALSE(by_name);
  EXPECT_NE(by_name.error().message().find("not a regular file"), std::string::npos) << by_name.error().message();
  auto in_folder = build_models(dir.string(), BuildOptions{});
  ASSERT_TRUE(in_folder) << in_folder.error().message();
  ASSERT_EQ(in_folder->size(), 1u);
  EXPECT_TRUE((*in_folder)[0].unreadable);
  ASSERT_EQ((*in_folder)[0].read_errors.size(), 1u);
  EXPECT_EQ((*in_folder)[0].read_errors[0].second, by_name.error().message());
  fs::remove_all(dir);
}
