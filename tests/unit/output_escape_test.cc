// Names read from input reach every text-like output through printable():
// a member name with a newline cannot start a line that a GitHub Actions
// runner reads as a workflow command, ESC cannot drive the terminal, and
// bytes that are not UTF-8 never abort the JSON writer.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "cuwheel/base/bytes.h"
#include "cuwheel/render/report.h"

using namespace cuwheel;
using namespace cuwheel::check;

namespace {

// The member name of the review's proof of concept.
const std::string kInjected = "cuwheel_demo/a\n::error file=x::INJECTED.so";

// True when some line of `out` starts with `prefix`.
bool has_line_starting(const std::string& out, const std::string& prefix) {
  size_t pos = 0;
  while (pos <= out.size()) {
    if (out.compare(pos, prefix.size(), prefix) == 0) return true;
    size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return false;
}

bool has_control_byte(const std::string& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(out[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  }
  return false;
}

Finding injected_finding() {
  return Finding{"duplicate-symbol", Severity::warning, "w.whl", kInjected, "dynamic symbols",
                 kInjected + " and \x1b[2Jlib/b.so both export 1 symbol (launch_\x9b" "a)", "hide it"};
}

}  // namespace

TEST(Printable, KeepsPrintableAsciiAndUtf8) {
  EXPECT_EQ(printable("libcudart.so.13"), "libcudart.so.13");
  EXPECT_EQ(printable("caf\xc3\xa9.so"), "caf\xc3\xa9.so");                 // U+00E9
  EXPECT_EQ(printable("\xe6\x97\xa5\xe6\x9c\xac.so"), "\xe6\x97\xa5\xe6\x9c\xac.so");  // CJK
  EXPECT_EQ(printable("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");            // U+1F600, 4 bytes
  EXPECT_EQ(printable("a\\x0a"), "a\\x0a");                                // a backslash stays
  EXPECT_EQ(printable(""), "");
}

TEST(Printable, EscapesControlsAndInvalidUtf8) {
  EXPECT_EQ(printable("a\nb"), "a\\x0ab");
  EXPECT_EQ(printable("\r\t"), "\\x0d\\x09");
  EXPECT_EQ(printable("\x1b[2J"), "\\x1b[2J");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable("\x7f"), "\\x7f");
  EXPECT_EQ(printable("\xc2\x85"), "\\xc2\\x85");            // U+0085 NEL, a C1 control
  EXPECT_EQ(printable("\xc2\x9b" "2J"), "\\xc2\\x9b2J");     // U+009B CSI
  EXPECT_EQ(printable("\x9b"), "\\x9b");                     // a lone continuation byte
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");            // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");   // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(printable("\xe6\x97"), "\\xe6\\x97");            // cut short
  EXPECT_EQ(printable("x\xe2\x80\xaey"), "x\\xe2\\x80\\xaey");  // U+202E RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(printable("\xe2\x80\xa8"), "\\xe2\\x80\\xa8");   // U+2028 LINE SEPARATOR
}

TEST(Printable, IsIdempotent) {
  for (std::string s : {kInjected, std::string("\x1b[2J\xff\xc2\x85 caf\xc3\xa9")}) {
    const std::string once = printable(s);
    EXPECT_EQ(printable(once), once) << once;
  }
}

TEST(OutputEscape, TextReportHasNoInjectedLineAndNoControlByte) {
  Finding f = injected_finding();
  ReportSummary s;
  s.inputs = 1;
  s.warnings = 1;
  s.unreadable.emplace_back("w.whl:" + kInjected, "w.whl: " + kInjected + " (local header at 0x77): \x1b]0;x\x07");
  std::string out = render_text({f}, s);
  EXPECT_FALSE(has_line_starting(out, "::error")) << out;
  EXPECT_FALSE(has_control_byte(out)) << out;
  EXPECT_NE(out.find("w.whl:cuwheel_demo/a\\x0a::error file=x::INJECTED.so: warning[duplicate-symbol]: "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\\x1b[2Jlib/b.so"), std::string::npos) << out;
  EXPECT_NE(out.find("launch_\\x9ba"), std::string::npos) << out;
}

TEST(OutputEscape, GithubFormatEscapesEveryValue) {
  Finding f = injected_finding();
  f.message += " 100% done, a:b";
  ReportSummary s;
  s.unreadable.emplace_back("w.whl:" + kInjected, "bad\r\nnext");
  std::string out = render_github({f}, s);
  EXPECT_FALSE(has_control_byte(out)) << out;
  // Exactly one line per finding and one per unreadable input.
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2) << out;
  EXPECT_FALSE(has_line_starting(out, "::error file=x")) << out;
  // Properties: ':' and ',' escaped; the message: '%' escaped.
  EXPECT_NE(out.find("title=duplicate-symbol in cuwheel_demo/a\\x0a%3A%3Aerror file=x%3A%3AINJECTED.so::"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("100%25 done, a:b"), std::string::npos) << out;
  EXPECT_NE(out.find("\\x1b[2J"), std::string::npos) << out;
  EXPECT_NE(out.find("bad\\x0d\\x0anext"), std::string::npos) << out;
  // A plain finding stays as it was.
  Finding plain{"unsafe-path", Severity::error, "w.whl", "../x.so", "zip member", "has a `..`", "fix it"};
  EXPECT_EQ(render_github({plain}, ReportSummary{}),
            "::error file=w.whl,title=unsafe-path in ../x.so::has a `..` [zip member] Help: fix it\n");
}

TEST(OutputEscape, JsonAndSarifStayValidWithInvalidUtf8) {
  Finding f = injected_finding();
  f.member = "lib/\xff\xfe.so";
  ReportSummary s;
  s.unreadable.emplace_back("w.whl:\xc0", "\xff");
  s.unreadable_inputs.push_back("w.whl");
  std::string js, sarif;
  ASSERT_NO_THROW(js = render_json({f}, s));
  ASSERT_NO_THROW(sarif = render_sarif({f}, s));
  auto doc = nlohmann::json::parse(js);
  EXPECT_EQ(doc["findings"][0]["member"], "lib/\xef\xbf\xbd\xef\xbf\xbd.so");  // U+FFFD twice
  // The JSON encoder escapes the newline and ESC of the name.
  EXPECT_EQ(doc["findings"][0]["path"], "w.whl");
  EXPECT_NE(js.find("a\\n::error"), std::string::npos);
  EXPECT_NE(js.find("\\u001b[2J"), std::string::npos);
  EXPECT_NO_THROW(nlohmann::json::parse(sarif));
}
