// check's output controls (docs/check.md, "Output on large wheels"):
// fingerprints and the baseline, --statistics, --quiet, --max-findings,
// colour and the wrapping of member lists.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuwheel/render/baseline.h"
#include "cuwheel/render/report.h"

namespace cuwheel::check {
namespace {

Finding make(std::string rule, Severity sev, std::string path, std::string member, std::string location,
             std::string message) {
  Finding f;
  f.rule = std::move(rule);
  f.severity = sev;
  f.path = std::move(path);
  f.member = std::move(member);
  f.location = std::move(location);
  f.message = std::move(message);
  return f;
}

// The same finding in the next release's wheel (another version in the file
// name, the dist-info folder, a line number and the message) keeps its
// fingerprint; another rule, distribution, member or soname does not.
TEST(Fingerprint, StableAcrossVersionsOfOneWheel) {
  Finding a = make("exact-pin", Severity::error, "dist/dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl",
                   "dyng_cu13-0.2.0.dist-info/METADATA", "METADATA line 9",
                   "Requires-Dist on dyng is not an exact pin (>=0.2); the policy requires ==");
  Finding b = make("exact-pin", Severity::error, "out/dyng_cu13-0.3.1-cp312-abi3-manylinux_2_28_x86_64.whl",
                   "dyng_cu13-0.3.1.dist-info/METADATA", "METADATA line 11",
                   "Requires-Dist on dyng is not an exact pin (>=0.3); the policy requires ==");
  EXPECT_EQ(fingerprint(a), fingerprint(b));
  EXPECT_EQ(fingerprint(a).size(), 32u);
  Finding other_rule = a;
  other_rule.rule = "unused-dependency";
  EXPECT_NE(fingerprint(a), fingerprint(other_rule));
  Finding other_dist = a;
  other_dist.path = "dist/dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl";
  EXPECT_NE(fingerprint(a), fingerprint(other_dist));
  Finding other_member = a;
  other_member.member = "dyng_cu13/_core.so";
  EXPECT_NE(fingerprint(a), fingerprint(other_member));
  Finding other_soname = a;
  other_soname.message = "libcublas.so.12 is not found";
  Finding other_soname2 = a;
  other_soname2.message = "libcufft.so.12 is not found";
  EXPECT_NE(fingerprint(other_soname), fingerprint(other_soname2));
  EXPECT_EQ(finding_distribution("dist/Dyng_CU13-0.2.0-py3-none-any.whl"), "dyng-cu13");
  // A version of another form in a message (found by a review: 1.0.0 -> 2.0).
  Finding v1 = make("missing-license-file", Severity::error, "p-1.0.0-py3-none-any.whl", "", "",
                    "expected p-1.0.0.dist-info/licenses/LICENSE");
  Finding v2 = make("missing-license-file", Severity::error, "p-2.0-py3-none-any.whl", "", "",
                    "expected p-2.0.dist-info/licenses/LICENSE");
  Finding rc = make("missing-license-file", Severity::error, "p-1.0.0rc1-py3-none-any.whl", "", "",
                    "expected p-1.0.0rc1.dist-info/licenses/LICENSE");
  EXPECT_EQ(fingerprint(v1), fingerprint(v2));
  EXPECT_EQ(fingerprint(v1), fingerprint(rc));
  // A version quoted after a word, not after the name (metadata-invalid's
  // "... is not the file name's version X"), in any PEP 440 shape.
  auto quoted = [](const std::string& v) {
    return make("metadata-invalid", Severity::error, "p-" + v + "-py3-none-any.whl", "p-" + v + ".dist-info/METADATA",
                "", "METADATA Version 9 is not the file name's version " + v);
  };
  for (const char* v : {"2.0", "1.0.0rc1", "10.4.1.post2", "2.15.0+cu128", "3.1.dev4"})
    EXPECT_EQ(fingerprint(quoted("1.0.0")), fingerprint(quoted(v))) << v;
  // An architecture's variant letter is kept: sm_90a is not sm_90.
  Finding sm = make("missing-sass", Severity::error, "p-1.0-py3-none-any.whl", "p/_k.so", "", "no SASS for sm_90");
  Finding sma = sm;
  sma.message = "no SASS for sm_90a";
  EXPECT_NE(fingerprint(sm), fingerprint(sma));
  EXPECT_EQ(finding_distribution("/x/libfoo.so"), "libfoo.so");
}

// A baseline accepts as many findings of a fingerprint as it holds: a
// second finding of the same kind is new.
TEST(Baseline, AcceptsTodaysFindingsOnly) {
  const std::string w = "dist/p-1.0-py3-none-manylinux_2_28_x86_64.whl";
  std::vector<Finding> today = {
      make("unresolved-needed", Severity::error, w, "p/_a.so", "DT_NEEDED", "libfoo.so.1 is not found"),
      make("platform-tag", Severity::warning, w, "", "", "the tag allows less than the libraries need")};
  auto b = parse_baseline(render_baseline(today), "b.json");
  ASSERT_TRUE(b) << b.error().message();
  std::vector<Finding> next = today;
  next.push_back(make("unresolved-needed", Severity::error, w, "p/_a.so", "DT_NEEDED", "libfoo.so.1 is not found"));
  next.push_back(make("unresolved-needed", Severity::error, w, "p/_b.so", "DT_NEEDED", "libbar.so.1 is not found"));
  EXPECT_EQ(apply_baseline(next, *b), 2u);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0].member, "p/_a.so");  // the second of the accepted kind
  EXPECT_EQ(next[1].member, "p/_b.so");
}

TEST(Baseline, RefusesWhatIsNotOne) {
  EXPECT_FALSE(parse_baseline("", "b.json"));
  EXPECT_FALSE(parse_baseline("[]", "b.json"));
  EXPECT_FALSE(parse_baseline(R"({"schema": 2, "findings": []})", "b.json"));
  EXPECT_FALSE(parse_baseline(R"({"schema": 1})", "b.json"));
  auto bad = parse_baseline(R"({"schema": 1, "findings": [{"fingerprint": "ABC"}]})", "b.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("b.json: findings[0]"), std::string::npos) << bad.error().message();
  // Nesting past the bound and keys written twice are refused before
  // anything recursive runs (found by a review: 100,000 levels crashed).
  std::string deep = R"({"schema": 1, "x": )" + std::string(100000, '[') + std::string(100000, ']') + R"(, "findings": []})";
  auto too_deep = parse_baseline(deep, "b.json");
  ASSERT_FALSE(too_deep);
  EXPECT_NE(too_deep.error().message().find("nested deeper than"), std::string::npos) << too_deep.error().message();
  auto twice = parse_baseline(R"({"schema": 1, "findings": "x", "findings": []})", "b.json");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message().find("written twice"), std::string::npos) << twice.error().message();
  auto empty = parse_baseline(R"({"schema": 1, "findings": []})", "b.json");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

std::vector<Finding> sample() {
  const std::string w = "p-1.0-py3-none-any.whl";
  std::vector<Finding> out;
  for (int i = 0; i < 12; ++i)
    out.push_back(make("build-machine-path", Severity::warning, w, "p/ext_module_number_" + std::to_string(i) + ".so",
                       "DT_RUNPATH", "RUNPATH names the build machine's /usr/local/cuda/lib64"));
  out.push_back(make("unresolved-needed", Severity::error, w, "p/_a.so", "", "libfoo.so.1 is not found"));
  out.push_back(make("unresolved-needed", Severity::error, w, "p/_b.so", "", "libbar.so.1 is not found"));
  out.push_back(make("unused-dependency", Severity::note, w, "", "", "nvidia-cublas is declared and not used"));
  return out;
}

ReportSummary summary_of(const std::vector<Finding>& fs) {
  ReportSummary s;
  s.inputs = 1;
  for (const auto& f : fs) (f.severity == Severity::error ? s.errors : f.severity == Severity::note ? s.notes : s.warnings)++;
  return s;
}

TEST(TextReport, StatisticsCountByRuleMostFrequentFirst) {
  auto fs = sample();
  auto stats = rule_statistics(fs);
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats[0].rule, "build-machine-path");
  EXPECT_EQ(stats[0].count, 12u);
  EXPECT_EQ(stats[1].rule, "unresolved-needed");
  EXPECT_EQ(stats[1].count, 2u);
  EXPECT_FALSE(stats[1].code.empty());
  const std::string out = render_statistics(fs, summary_of(fs));
  EXPECT_EQ(out.substr(0, out.find('\n')), "12  " + stats[0].code + "  build-machine-path  warning");
  EXPECT_NE(out.find("1 input checked: 2 errors, 12 warnings, 1 note"), std::string::npos) << out;
  TextOptions quiet;
  quiet.quiet = true;
  const std::string q = render_statistics(fs, summary_of(fs), quiet);
  EXPECT_EQ(q.find("build-machine-path"), std::string::npos) << q;
  EXPECT_EQ(q.find("checked"), std::string::npos) << q;
}

TEST(TextReport, QuietAndMaxFindings) {
  auto fs = sample();
  TextOptions o;
  o.quiet = true;
  std::string q = render_text(fs, summary_of(fs), o);
  EXPECT_EQ(q.find("warning"), std::string::npos) << q;
  EXPECT_EQ(q.find("note"), std::string::npos) << q;
  EXPECT_NE(q.find("error[unresolved-needed]: libfoo.so.1"), std::string::npos) << q;
  EXPECT_EQ(q.find("checked"), std::string::npos) << q;  // no summary line
  o.quiet = false;
  o.max_findings = 2;  // the group of twelve counts once
  std::string m = render_text(fs, summary_of(fs), o);
  EXPECT_NE(m.find("build-machine-path"), std::string::npos);
  EXPECT_NE(m.find("libfoo.so.1"), std::string::npos);
  EXPECT_EQ(m.find("libbar.so.1"), std::string::npos);
  EXPECT_NE(m.find("... 2 more findings not shown (--max-findings 2;"), std::string::npos) << m;
  EXPECT_NE(m.find("2 errors, 12 warnings, 1 note"), std::string::npos) << m;  // the counts keep them all
  o.max_findings = 0;  // none listed, the summary alone
  std::string none = render_text(fs, summary_of(fs), o);
  EXPECT_EQ(none.find("build-machine-path"), std::string::npos) << none;
  EXPECT_NE(none.find("... 15 more findings not shown (--max-findings 0;"), std::string::npos) << none;
}

TEST(TextReport, ColourOnlyWhenAsked) {
  auto fs = sample();
  std::string plain = render_text(fs, summary_of(fs));
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  TextOptions o;
  o.color = true;
  std::string coloured = render_text(fs, summary_of(fs), o);
  EXPECT_NE(coloured.find("\x1b[1;31merror\x1b[0m[unresolved-needed]"), std::string::npos) << coloured;
  EXPECT_NE(coloured.find("\x1b[33mwarning\x1b[0m[build-machine-path]"), std::string::npos) << coloured;
}

// The member list of a group wraps at the width, each continuation line
// indented; without a width it is one line, as before.
TEST(TextReport, MemberListsWrapAtTheWidth) {
  auto fs = sample();
  std::string one = render_text(fs, summary_of(fs));
  const size_t in = one.find("  in:    12 members: ");
  ASSERT_NE(in, std::string::npos) << one;
  EXPECT_GT(one.find('\n', in) - in, 200u);
  TextOptions o;
  o.width = 80;
  std::string wrapped = render_text(fs, summary_of(fs), o);
  size_t start = 0;
  int continuation = 0;
  while (start < wrapped.size()) {
    size_t end = wrapped.find('\n', start);
    const std::string line = wrapped.substr(start, end - start);
    if (line.find("ext_module_number_") != std::string::npos) {
      EXPECT_LE(line.size(), 80u) << line;
      if (line.rfind(std::string(21, ' '), 0) == 0) ++continuation;  // under the first item
    }
    start = end + 1;
  }
  EXPECT_GE(continuation, 3);
  for (int i = 0; i < 12; ++i)
    EXPECT_NE(wrapped.find("p/ext_module_number_" + std::to_string(i) + ".so"), std::string::npos) << i;
}

}  // namespace
}  // namespace cuwheel::check
