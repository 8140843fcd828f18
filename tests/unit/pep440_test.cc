// PEP 440 versions and specifiers. Expected values follow the PEP's
// examples and what `packaging` returns for the same input.
#include "cuwheel/wheel/pep440.h"

#include <gtest/gtest.h>

namespace cuwheel {
namespace {

std::string norm(std::string_view s) {
  auto v = Version::parse(s);
  return v ? v->to_string() : "ERROR: " + v.error().message();
}

Version V(std::string_view s) {
  auto v = Version::parse(s);
  EXPECT_TRUE(v) << s;
  return v ? *v : Version{};
}

TEST(Pep440Version, NormalizesAlternateSpellings) {
  EXPECT_EQ(norm("1.0"), "1.0");
  EXPECT_EQ(norm("v1.0"), "1.0");
  EXPECT_EQ(norm("  2.11.0+cu130 "), "2.11.0+cu130");
  EXPECT_EQ(norm("1.0ALPHA1"), "1.0a1");
  EXPECT_EQ(norm("1.0-beta.2"), "1.0b2");
  EXPECT_EQ(norm("1.0c1"), "1.0rc1");
  EXPECT_EQ(norm("1.0preview3"), "1.0rc3");
  EXPECT_EQ(norm("1.0a"), "1.0a0");
  EXPECT_EQ(norm("1.0-1"), "1.0.post1");
  EXPECT_EQ(norm("1.0-r4"), "1.0.post4");
  EXPECT_EQ(norm("1.0.rev"), "1.0.post0");
  EXPECT_EQ(norm("1.0_dev_3"), "1.0.dev3");
  EXPECT_EQ(norm("1.0dev"), "1.0.dev0");
  EXPECT_EQ(norm("1!2.0rc1.post2.dev3+Ubuntu-1.x"), "1!2.0rc1.post2.dev3+ubuntu.1.x");
  EXPECT_EQ(norm("13.1.0.3"), "13.1.0.3");
  EXPECT_EQ(norm("1.0+007"), "1.0+7");
}

TEST(Pep440Version, RejectsInvalidWithColumn) {
  for (const char* bad : {"", "v", "1.", "1..0", "a1", "1.0+", "1.0+a..b", "1.0 x", "1.0-",
                          "1.0.post1.post2", "99999999999999999999999"}) {
    auto v = Version::parse(bad);
    EXPECT_FALSE(v) << "'" << bad << "' parsed as " << (v ? v->to_string() : "");
  }
  auto v = Version::parse("1.0x");
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message().find("column 4"), std::string::npos) << v.error().message();
}

TEST(Pep440Version, OrdersAsThePepSays) {
  // PEP 440, "Summary of permitted suffixes and relative ordering".
  const char* ordered[] = {"1.0.dev456", "1.0a1",    "1.0a2.dev456", "1.0a12.dev456", "1.0a12",
                           "1.0b1.dev456", "1.0b2",  "1.0b2.post345.dev456", "1.0b2.post345",
                           "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7", "1.0+5",
                           "1.0.post456.dev34", "1.0.post456", "1.1.dev1", "1!0.1"};
  for (size_t i = 0; i + 1 < std::size(ordered); ++i)
    EXPECT_LT(V(ordered[i]), V(ordered[i + 1])) << ordered[i] << " < " << ordered[i + 1];
  EXPECT_EQ(V("1.0"), V("1.0.0.0"));
  EXPECT_NE(V("1.0"), V("1.0+cu130"));
  EXPECT_GT(V("2.11.0+cu130"), V("2.11.0"));
}

bool in(std::string_view spec, std::string_view version, bool pre = false) {
  auto s = SpecifierSet::parse(spec);
  EXPECT_TRUE(s) << spec << ": " << (s ? "" : s.error().message());
  return s && s->contains(version, pre);
}

TEST(Pep440Specifier, Basics) {
  EXPECT_TRUE(in(">=13.0,<14", "13.0.2"));
  EXPECT_FALSE(in(">=13.0,<14", "14.0"));
  EXPECT_TRUE(in("<14,>=13.0.3", "13.0.3"));
  EXPECT_TRUE(in("==13.0.*", "13.0.96"));
  EXPECT_FALSE(in("==13.0.*", "13.1"));
  EXPECT_TRUE(in("==13.0.*", "13"));  // zero padding
  EXPECT_TRUE(in("==13.1.0.3.*", "13.1.0.3"));
  EXPECT_TRUE(in("!=13.0.*", "12.9"));
  EXPECT_TRUE(in("~=2.2", "2.9"));
  EXPECT_FALSE(in("~=2.2", "3.0"));
  EXPECT_TRUE(in("~=1.4.5", "1.4.9"));
  EXPECT_FALSE(in("~=1.4.5", "1.5.0"));
  EXPECT_TRUE(in("==2.11.0", "2.11.0+cu130"));  // local ignored when the spec has none
  EXPECT_FALSE(in("==2.11.0+cu128", "2.11.0+cu130"));
  EXPECT_TRUE(in("==2.11.0+cu130", "2.11.0+cu130"));
  EXPECT_TRUE(in("===foobar", "FooBar"));
  EXPECT_FALSE(in("===1.0", "1.0.0"));
  EXPECT_TRUE(in("", "1.0"));
  EXPECT_TRUE(in(" >= 1.0 , != 1.5 ", "1.6"));
}

TEST(Pep440Specifier, ExclusiveComparisonsAndPrereleases) {
  EXPECT_FALSE(in("<2.0", "2.0a1", true));  // a pre-release of the named version
  EXPECT_TRUE(in("<2.0", "1.9a1", true));
  EXPECT_TRUE(in("<2.0rc1", "2.0b1"));      // the spec names a pre-release
  EXPECT_FALSE(in(">1.7", "1.7.post2"));    // post-release of the named version
  EXPECT_TRUE(in(">1.7.post2", "1.7.post3"));
  EXPECT_FALSE(in(">1.7", "1.7+local"));
  EXPECT_TRUE(in(">1.7", "1.7.1"));
  EXPECT_FALSE(in(">=1.0", "2.0a1"));       // pre-releases excluded by default
  EXPECT_TRUE(in(">=1.0", "2.0a1", true));
  EXPECT_TRUE(in(">=1.0a1", "2.0a1"));
  EXPECT_TRUE(in("<=2.0", "2.0+cu130"));
}

TEST(Pep440Specifier, RejectsInvalid) {
  for (const char* bad : {"1.0", ">=", "=>1.0", ">=1.0.*", "~=1", "~=1.0.*", ">=1.0+local", "==1.0a1.*",
                          ">=1.0,,<2", ">=1.0,", "<>1.0", "==1.0 junk"}) {
    EXPECT_FALSE(SpecifierSet::parse(bad)) << bad;
  }
  auto s = SpecifierSet::parse(">=1.0,<2,>>3");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("column 10"), std::string::npos) << s.error().message();
}

TEST(Pep440Specifier, RoundTrips) {
  auto s = SpecifierSet::parse("<14, >=13.0.3,==13.0.*,~=13.0,!=13.0.1,===weird");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->to_string(), "<14,>=13.0.3,==13.0.*,~=13.0,!=13.0.1,===weird");
}

}  // namespace
}  // namespace cuwheel
