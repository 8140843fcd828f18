// Every TOML reader of the project goes through src/base/toml_safe.h: text that
// makes toml++ 3.3.0 assert or reach undefined behaviour is an error with a
// line number in each of them, never a crash (run under ASan+UBSan).
#include <gtest/gtest.h>

#include <stdlib.h>

#include <fstream>
#include <string>
#include <vector>

#include "base/toml_safe.h"
#include "cuwheel/check/check.h"
#include "cuwheel/release/matrix.h"
#include "cuwheel/release/release.h"
#include "cuwheel/toolkit/lock.h"
#include "temp_dir.h"

namespace {

const std::vector<std::string>& hostile() {
  static const std::vector<std::string> v = {
      "[{\"a\":1}]\n", "[|x]\n", "[}\n", "x = ]\n", "[=\n", "[ #\n", "a = [1,}\n",
      "Jos\xc3\xa9 = 1\n",              // U+00E9 in a bare key
      "a.b\xef\xbb\xbc = 1\n",          // U+FEFC after a dotted key
      "x = \xe3\x80\x81\n",             // U+3001 where a value starts
      "a = \"\xff\"\n",                 // invalid UTF-8
      "a = \"\xc0\xaf\"\n",             // overlong
      // Recursion toml++ 3.3.0 does not bound (issue 14, item 1): a
      // 110,000-part dotted key, a header as deep, nested arrays and
      // inline tables. Each overflowed the stack (SIGSEGV).
      [] { std::string k = "k"; for (int i = 0; i < 110000; ++i) k += ".k"; return k + " = 1\n"; }(),
      [] { std::string k = "[t"; for (int i = 0; i < 110000; ++i) k += ".t"; return k + "]\n"; }(),
      std::string("a = ") + std::string(100000, '[') + std::string(100000, ']') + "\n",
      [] { std::string v = "a = "; for (int i = 0; i < 100000; ++i) v += "{b = "; return v + "1" + std::string(100000, '}') + "\n"; }(),
  };
  return v;
}

// Files go to a folder of their own: a cuwheel.toml in the shared temporary
// folder would be found by the policy searches of other tests.
std::string write_temp(const std::string& name, const std::string& text) {
  static const cuwheel::test::TempDir tmp("toml-safe");  // removed at exit
  static const std::string dir = tmp.str();
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(TomlSafe, HostileTextIsAnErrorWithALine) {
  for (const std::string& t : hostile()) {
    auto r = cuwheel::tomlsafe::parse(t, "p.toml");
    ASSERT_FALSE(r) << t;
    EXPECT_EQ(r.error().message().rfind("p.toml:1: ", 0), 0u) << r.error().message();
  }
}

TEST(TomlSafe, NonAsciiInStringsAndCommentsStillParses) {
  auto r = cuwheel::tomlsafe::parse("# Jos\xc3\xa9\nauthors = [\"Jos\xc3\xa9\"]\nx = 1\n", "pyproject.toml");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ((*r)["x"].value<int64_t>(), 1);
}

TEST(TomlSafe, EveryReaderRejectsHostileText) {
  int n = 0;
  for (const std::string& t : hostile()) {
    std::string path = write_temp("toml_safe_" + std::to_string(n++) + ".toml", t);
    EXPECT_FALSE(cuwheel::check::load_policy(path)) << t;
    EXPECT_FALSE(cuwheel::matrix::parse_policy(t, "cuwheel.toml")) << t;
    EXPECT_FALSE(cuwheel::release::parse_policy(t, "cuwheel.toml")) << t;
    EXPECT_FALSE(cuwheel::toolkit::read_lock(path)) << t;
  }
}

TEST(TomlSafe, CheckPolicyAcceptsTheOtherCommandsTables) {
  std::string path = write_temp("cuwheel.toml",
                                "cuda-major = 13\n[matrix]\npython = [\"3.12\"]\n[release]\ncore = \"dyng\"\n");
  auto p = cuwheel::check::load_policy(path);
  EXPECT_TRUE(p) << (p ? "" : p.error().message());
}

}  // namespace

// The bound counts structure, not text: dots and brackets in strings and
// comments are free, and a key of 128 parts still parses.
TEST(TomlSafe, StructureLimitsCountOnlyStructure) {
  std::string k128 = "k";
  for (int i = 1; i < 128; ++i) k128 += ".k";
  auto ok = cuwheel::tomlsafe::parse(k128 + " = 1\n", "p.toml");
  EXPECT_TRUE(ok) << ok.error().message();
  auto k129 = cuwheel::tomlsafe::parse(k128 + ".k.k = 1\n", "p.toml");
  ASSERT_FALSE(k129);
  EXPECT_NE(k129.error().message().find("p.toml:1: a key or table header of more than 128 dotted parts"), std::string::npos)
      << k129.error().message();
  const std::string dots(5000, '.'), brackets(5000, '[');
  // safe_text() alone: the structure bound, whatever toml++ makes of it.
  auto strings = cuwheel::tomlsafe::safe_text("a = \"" + dots + brackets + "\"\nb = '" + dots + "'\n# " + dots + brackets +
                                              "\nc = \"\"\"\n" + dots + "\n" + brackets + " \\\" \"\"\"\n" +
                                              "d =  + dots + \nx = [1.5, 2.5e3, {e = 1}]\n",
                                          "p.toml");
  ASSERT_TRUE(strings) << strings.error().message();
  auto deep = cuwheel::tomlsafe::parse("\n\na = " + std::string(200, '[') + std::string(200, ']') + "\n", "p.toml");
  ASSERT_FALSE(deep);
  EXPECT_NE(deep.error().message().find("p.toml:3: arrays, inline tables and headers nested deeper than 128 levels"),
            std::string::npos)
      << deep.error().message();
}
