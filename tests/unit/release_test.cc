// Release policy, tags, selection, plan, verify and split
// (include/cuwheel/release/release.h). Release sets are written into a temporary
// folder with libzip (wheels) and libarchive (sdists).
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "cuwheel/base/fileio.h"
#include "cuwheel/wheel/metadata.h"
#include "cuwheel/release/release.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace cuwheel;
using namespace cuwheel::release;

namespace {

constexpr const char* kPolicy = R"toml(
[project]
name = "dyng"

[tool.cuwheel.release]
core = "dyng"
plugins = ["dyng-cu12", "dyng-cu13"]
plugins-since = "0.2"
platforms = ["manylinux_2_28_x86_64"]
plugin-tag = "cp312-abi3"
core-wheels = ["py3-none-any"]

[tool.cuwheel.release.indexes]
test = { name = "testpypi", environment = "testpypi" }
production = { name = "pypi", environment = "pypi" }
)toml";

Policy dyng_policy() {
  auto p = parse_policy(kPolicy, "pyproject.toml");
  EXPECT_TRUE(p) << (p ? "" : p.error().message());
  return *p;
}

std::string policy_error(const std::string& text, const std::string& source = "cuwheel.toml") {
  auto p = parse_policy(text, source);
  EXPECT_FALSE(p) << "expected an error for:\n" << text;
  return p ? "" : p.error().message();
}

std::string tag_error(std::string_view tag, const Policy& policy = dyng_policy()) {
  auto t = parse_tag(tag, policy);
  EXPECT_FALSE(t) << "expected an error for " << tag;
  return t ? "" : t.error().message();
}

// A fresh folder inside a temporary folder of this process's own (made by
// the first test that asks, removed at exit).
std::string temp_dir(const std::string& name) {
  static const cuwheel::test::TempDir base("release");
  fs::path d = base / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

void write_zip(const std::string& path, const std::map<std::string, std::string>& members) {
  int err = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(za, nullptr);
  for (const auto& [name, data] : members) {
    zip_source_t* s = zip_source_buffer(za, data.data(), data.size(), 0);
    ASSERT_GE(zip_file_add(za, name.c_str(), s, ZIP_FL_ENC_UTF_8), 0);
  }
  ASSERT_EQ(zip_close(za), 0);
}

struct WheelSpec {
  std::string name = "dyng";       // METADATA Name
  std::string version = "0.2.0";   // METADATA Version
  std::string tag_line;            // WHEEL Tag ("" = from the file name)
  std::vector<std::string> requires_dist;
};

// Writes `file` into `dir`: a wheel whose dist-info matches the file name.
void wheel(const std::string& dir, const std::string& file, const WheelSpec& spec = {}) {
  auto fn = WheelFilename::parse(file);
  ASSERT_TRUE(fn) << fn.error().message();
  std::string di = fn->distribution + "-" + fn->version + ".dist-info";
  std::string md = "Metadata-Version: 2.4\nName: " + spec.name + "\nVersion: " + spec.version + "\n";
  for (const auto& r : spec.requires_dist) md += "Requires-Dist: " + r + "\n";
  std::string tags;
  if (spec.tag_line.empty())
    for (const auto& t : fn->tags()) tags += "Tag: " + t.to_string() + "\n";
  else
    tags = "Tag: " + spec.tag_line + "\n";
  write_zip(dir + "/" + file, {{fn->distribution + "/__init__.py", ""},
                               {di + "/METADATA", md},
                               {di + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\n" + tags},
                               {di + "/RECORD", ""}});
}

// Writes `file` ({stem}.tar.gz) with the given members.
void tarball(const std::string& dir, const std::string& file, const std::map<std::string, std::string>& members) {
  struct archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_pax_restricted(a);
  ASSERT_EQ(archive_write_open_filename(a, (dir + "/" + file).c_str()), ARCHIVE_OK);
  for (const auto& [name, data] : members) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_write_header(a, e);
    archive_write_data(a, data.data(), data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

void sdist(const std::string& dir, const std::string& file, const std::string& name = "dyng",
           const std::string& version = "0.2.0") {
  std::string stem = file.substr(0, file.size() - 7);
  tarball(dir, file, {{stem + "/PKG-INFO", "Metadata-Version: 2.4\nName: " + name + "\nVersion: " + version + "\n"},
                      {stem + "/pyproject.toml", "[project]\nname = \"dyng\"\n"}});
}

// The complete, correct release set of dyng `version`.
void good_set(const std::string& dir, const std::string& version = "0.2.0", bool plugins = true) {
  sdist(dir, "dyng-" + version + ".tar.gz", "dyng", version);
  WheelSpec core{"dyng", version, "", {}};
  if (plugins) core.requires_dist = {"dyng-cu12==" + version + "; extra == \"cu12\"", "dyng-cu13==" + version + "; extra == \"cu13\""};
  wheel(dir, "dyng-" + version + "-py3-none-any.whl", core);
  if (!plugins) return;
  for (std::string p : {"dyng-cu12", "dyng-cu13"})
    wheel(dir, (p == "dyng-cu12" ? "dyng_cu12-" : "dyng_cu13-") + version + "-cp312-abi3-manylinux_2_28_x86_64.whl",
          {p, version, "", {"dyng==" + version}});
}

std::vector<std::string> codes(const VerifyReport& r) {
  std::vector<std::string> out;
  for (const auto& f : r.findings) out.push_back(f.member + " " + f.rule);
  return out;
}

bool has(const VerifyReport& r, const std::string& file, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.member == file && f.rule == code) return true;
  return false;
}

std::string message(const VerifyReport& r, const std::string& file, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.member == file && f.rule == code) return f.message;
  return "";
}

}  // namespace

// ---------------------------------------------------------------------------
// Policy

TEST(ReleasePolicy, ParsesTheDyngPolicy) {
  Policy p = dyng_policy();
  EXPECT_EQ(p.core, "dyng");
  ASSERT_EQ(p.plugins.size(), 2u);
  EXPECT_EQ(p.plugins[0].name, "dyng-cu12");
  EXPECT_EQ(p.plugins[0].environment_suffix, "cu12");
  EXPECT_EQ(p.plugins[1].environment_suffix, "cu13");
  ASSERT_TRUE(p.plugins_since);
  EXPECT_EQ(p.plugins_since->to_string(), "0.2");
  EXPECT_EQ(p.platforms, std::vector<std::string>{"manylinux_2_28_x86_64"});
  EXPECT_EQ(p.plugin_tag, "cp312-abi3");
  EXPECT_EQ(p.core_wheels, std::vector<std::string>{"py3-none-any"});
  EXPECT_TRUE(p.core_sdist);
  EXPECT_EQ(p.tag_prefix, "v");
  EXPECT_EQ(p.release_segments, 3u);
  EXPECT_EQ(p.test.name, "testpypi");
  EXPECT_EQ(p.production.environment, "pypi");
  EXPECT_EQ(p.production.repository_url, "https://upload.pypi.org/legacy/");
  EXPECT_EQ(p.line, 5u);
}

TEST(ReleasePolicy, ReleaseTableOfCuwheelTomlAndPluginTables) {
  auto p = parse_policy(R"([release]
core = "Acme.Core"
plugins = [{ name = "acme-gpu-12", environment-suffix = "gpu12" }, "other_plugin"]
platforms = ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64"]
core-wheels = ["cp312-cp312-manylinux_2_28_x86_64"]
core-sdist = false
tag-prefix = "release/"
release-segments = 0
dist-dir = "out/"
[release.indexes]
test = { name = "staging", environment = "stage", repository-url = "https://example.invalid/legacy/" }
)",
                        "cuwheel.toml");
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->plugins[0].environment_suffix, "gpu12");
  EXPECT_EQ(p->plugins[1].environment_suffix, "other-plugin");  // not prefixed by the core: whole name
  EXPECT_FALSE(p->plugins_since);
  EXPECT_FALSE(p->core_sdist);
  EXPECT_EQ(p->tag_prefix, "release/");
  EXPECT_EQ(p->dist_dir, "out");
  EXPECT_EQ(p->test.name, "staging");
  EXPECT_EQ(p->test.repository_url, "https://example.invalid/legacy/");
  EXPECT_EQ(p->production.name, "pypi");  // default kept
}

TEST(ReleasePolicy, ErrorsNameTheFileAndLine) {
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\nplugins_since = \"0.2\"\n"),
            "cuwheel.toml:3: unknown key \"plugins_since\" in [release] (did you mean \"plugins-since\"?)");
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\nwhatever = 1\n"),
            "cuwheel.toml:3: unknown key \"whatever\" in [release]");
  EXPECT_EQ(policy_error("[project]\nname = \"x\"\n", "pyproject.toml"), "pyproject.toml: no [tool.cuwheel.release] table");
  EXPECT_EQ(policy_error("[tool.cuwheel]\nsass = []\n", "cuwheel.toml"),
            "cuwheel.toml: no [release] table (nor [tool.cuwheel.release])");
  EXPECT_NE(policy_error("[release]\ncore = \"dyng\n").find("cuwheel.toml:2:"), std::string::npos);  // TOML syntax
  EXPECT_EQ(policy_error("[release]\nplugins = []\n"), "cuwheel.toml:1: [release] needs core = \"<distribution name>\"");
  EXPECT_NE(policy_error("[release]\ncore = \"-dyng\"\n").find("cuwheel.toml:2: core \"-dyng\" is not a valid"),
            std::string::npos);
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\nplugins = [\"Dyng\"]\nplatforms = [\"any\"]\n"),
            "cuwheel.toml:3: plugin \"Dyng\" is the core distribution");
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\nplugins = [\"dyng-cu12\", \"Dyng_CU12\"]\nplatforms = [\"any\"]\n"),
            "cuwheel.toml:3: plugin \"Dyng_CU12\" is listed twice (PEP 503 names compared)");
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\nplugins = [\"dyng-cu12\"]\n"),
            "cuwheel.toml:1: plugins need platforms = [...] (one plugin wheel per platform)");
  EXPECT_NE(policy_error("[release]\ncore = \"dyng\"\nplugins-since = \"zero\"\n").find("cuwheel.toml:3: plugins-since:"),
            std::string::npos);
  EXPECT_NE(policy_error("[release]\ncore = \"dyng\"\nplugins-since = \"0.2rc1\"\n").find("must be a release"),
            std::string::npos);
  EXPECT_NE(policy_error("[release]\ncore = \"dyng\"\ncore-wheels = [\"py3-none\"]\n")
                .find("cuwheel.toml:3: core-wheels: \"py3-none\" is not a tag"),
            std::string::npos);
  EXPECT_NE(policy_error("[release]\ncore = \"dyng\"\nplugin-tag = \"cp312\"\n").find("is not \"python-abi\""),
            std::string::npos);
  EXPECT_NE(policy_error("[release]\ncore = \"dyng\"\nplatforms = [\"Linux x86\"]\n").find("is not a platform tag"),
            std::string::npos);
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\ncore-sdist = \"yes\"\n"),
            "cuwheel.toml:3: core-sdist must be true or false");
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\ncore-wheels = []\ncore-sdist = false\n"),
            "cuwheel.toml:1: the core ships nothing (core-wheels = [] and core-sdist = false)");
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\n[release.indexes]\ntest = { name = \"pypi\" }\n"),
            "cuwheel.toml:3: indexes.test and indexes.production have the same name \"pypi\"");
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\n[release.indexes]\ntest = { nam = \"t\" }\n"),
            "cuwheel.toml:4: unknown key \"nam\" in indexes.test (did you mean \"name\"?)");
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\n[release.indexes]\nstaging = {}\n"),
            "cuwheel.toml:4: unknown key \"staging\" in indexes");
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\nrelease-segments = -1\n"),
            "cuwheel.toml:3: release-segments must be an integer from 0 (any) to 10");
  EXPECT_NE(policy_error("[release]\ncore = \"dyng\"\ntag-prefix = \"v 1\"\n").find("tag-prefix \"v 1\" may hold only"),
            std::string::npos);
}

// toml++ 3.3.0 reaches __builtin_unreachable on some non-ASCII code points
// anywhere in the text (found by fuzz_release_tag); parse_policy replaces
// them first, so an ordinary pyproject.toml with accented names parses.
TEST(ReleasePolicy, NonAsciiTextElsewhereInTheFileIsFine) {
  auto p = parse_policy(std::string("[tool.other]\nauthors = [{ name = \"Jos\xC3\xA9 \xC3\x91" "and\xC3\xBA\" }]\n"
                                    "description = \"\"\"multi\nline \\\n  \xC3\xBC\"\"\"\n# comment \xC3\xA9\n") +
                            kPolicy + "# \xE3\x80\x80 \xE2\xB1\xB0 \xEF\xBA\xBF\n",
                        "pyproject.toml");
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->core, "dyng");
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\n[release.indexes]\ntest = { name = \"t\", environment = \"pr\xC3\xBC" "fung\" }\n"),
            "cuwheel.toml:4: indexes.test.environment must be printable ASCII without spaces");
  EXPECT_NE(policy_error("[release]\ncore = \"dyng\"\ncore-\xCD\x88wheels = 1\n").find("cuwheel.toml:3:"), std::string::npos);
  // Invalid UTF-8 (which toml++ 3.3.0 asserts on in a key) is an error with its line.
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\n[release.ind\xE6\xFD\xFD]\n"),
            "cuwheel.toml:3: not valid UTF-8 (TOML files are UTF-8)");
  EXPECT_EQ(policy_error("[release]\ncore = \"\xC0\xAF\"\n"), "cuwheel.toml:2: not valid UTF-8 (TOML files are UTF-8)");
  EXPECT_EQ(policy_error("[release]\ncore = \"dyng\"\ndist-dir = \"my dist\"\n"),
            "cuwheel.toml:3: dist-dir must be printable ASCII without spaces");
}

TEST(ReleasePolicy, FindsThePolicyFromAFolderUpward) {
  std::string root = temp_dir("find");
  fs::create_directories(root + "/a/b");
  EXPECT_EQ(find_policy_file(root + "/a/b"), "");
  // A cuwheel.toml without [release] (only a check policy) is passed over.
  ASSERT_TRUE(write_file_atomic(root + "/a/cuwheel.toml", "sass = [\"sm_90\"]\n"));
  EXPECT_EQ(find_policy_file(root + "/a/b"), "");
  ASSERT_TRUE(write_file_atomic(root + "/pyproject.toml", kPolicy));
  EXPECT_EQ(find_policy_file(root + "/a/b"), root + "/pyproject.toml");
  ASSERT_TRUE(write_file_atomic(root + "/a/cuwheel.toml", "[release]\ncore = \"x\"\n"));
  EXPECT_EQ(find_policy_file(root + "/a/b"), root + "/a/cuwheel.toml");
  auto p = load_policy(root + "/a/cuwheel.toml");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->core, "x");
  EXPECT_FALSE(load_policy(root + "/missing.toml"));
  fs::remove_all(root);
}

// ---------------------------------------------------------------------------
// Tags and selection: every kind of tag

TEST(ReleaseTag, NameReservation) {
  auto s = select("v0.0.1", dyng_policy());
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(s->tag.version_text, "0.0.1");
  EXPECT_EQ(s->tag.kind, ReleaseKind::kFinal);
  EXPECT_FALSE(s->plugins);
  ASSERT_EQ(s->distributions.size(), 1u);
  EXPECT_EQ(s->distributions[0].normalized, "dyng");
  EXPECT_EQ(s->distributions[0].directory, "dist/dyng");
  ASSERT_EQ(s->indexes.size(), 2u);
  EXPECT_EQ(s->indexes[0].name, "testpypi");
  EXPECT_EQ(s->indexes[1].name, "pypi");
}

TEST(ReleaseTag, BeforePluginsSince) {
  auto s = select("v0.1.3", dyng_policy());
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->plugins);
  EXPECT_EQ(s->distributions.size(), 1u);
  EXPECT_TRUE(s->tag.to_production);
}

TEST(ReleaseTag, ReleaseCandidateGoesToTheTestIndexOnlyWithPlugins) {
  auto s = select("v0.2.0rc1", dyng_policy());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->tag.kind, ReleaseKind::kPre);
  EXPECT_TRUE(s->plugins);  // plugins-since 0.2 admits the 0.2.0 pre-releases
  ASSERT_EQ(s->distributions.size(), 3u);
  EXPECT_EQ(s->distributions[0].normalized, "dyng-cu12");
  EXPECT_EQ(s->distributions[0].file_prefix, "dyng_cu12");
  EXPECT_EQ(s->distributions[1].normalized, "dyng-cu13");
  EXPECT_TRUE(s->distributions[2].core);
  ASSERT_EQ(s->indexes.size(), 1u);
  EXPECT_EQ(s->indexes[0].name, "testpypi");
  EXPECT_EQ(environment_for(s->indexes[0], s->distributions[0]), "testpypi-cu12");
  EXPECT_EQ(environment_for(s->indexes[0], s->distributions[2]), "testpypi");
}

TEST(ReleaseTag, FinalWithPlugins) {
  auto s = select("v0.2.0", dyng_policy());
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->plugins);
  EXPECT_EQ(s->distributions.size(), 3u);
  EXPECT_EQ(s->indexes.size(), 2u);
  EXPECT_EQ(environment_for(s->indexes[1], s->distributions[1]), "pypi-cu13");
}

TEST(ReleaseTag, PostReleaseGoesToBothIndexes) {
  auto s = select("v1.0.0.post1", dyng_policy());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->tag.kind, ReleaseKind::kPost);
  EXPECT_TRUE(s->tag.to_production);
  EXPECT_TRUE(s->plugins);
  EXPECT_EQ(s->indexes.size(), 2u);
}

TEST(ReleaseTag, DevReleaseAndOtherPreReleasesGoToTheTestIndexOnly) {
  for (const char* tag : {"v0.3.0.dev1", "v0.3.0a1", "v0.3.0b2", "v0.3.0rc1.dev1", "v0.3.0rc1.post1"}) {
    auto s = select(tag, dyng_policy());
    ASSERT_TRUE(s) << tag;
    EXPECT_FALSE(s->tag.to_production) << tag;
    EXPECT_EQ(s->indexes.size(), 1u) << tag;
  }
  EXPECT_EQ(parse_tag("v0.3.0.dev1", dyng_policy())->kind, ReleaseKind::kDev);
  EXPECT_EQ(parse_tag("v0.3.0rc1.dev1", dyng_policy())->kind, ReleaseKind::kDev);
  EXPECT_EQ(parse_tag("v0.3.0rc1.post1", dyng_policy())->kind, ReleaseKind::kPre);
  EXPECT_EQ(parse_tag("1!2.0.0", [] { Policy p = dyng_policy(); p.tag_prefix = ""; return p; }())->version_text,
            "1!2.0.0");
}

TEST(ReleaseTag, MalformedTagsGetAHint) {
  EXPECT_EQ(tag_error("0.2.0"), "tag \"0.2.0\" does not start with the tag prefix \"v\" (write \"v0.2.0\")");
  EXPECT_EQ(tag_error("V0.2.0"), "tag \"V0.2.0\" does not start with the tag prefix \"v\" (write \"v0.2.0\")");
  EXPECT_EQ(tag_error("v0.2.0-rc1"),
            "tag \"v0.2.0-rc1\": after the prefix \"v\", \"0.2.0-rc1\" is not a normalized PEP 440 version (write the tag as \"v0.2.0rc1\")");
  EXPECT_EQ(tag_error("v0.2.0.RC1"),
            "tag \"v0.2.0.RC1\": after the prefix \"v\", \"0.2.0.RC1\" is not a normalized PEP 440 version (write the tag as \"v0.2.0rc1\")");
  EXPECT_EQ(tag_error("v1.0.0-1"),
            "tag \"v1.0.0-1\": after the prefix \"v\", \"1.0.0-1\" is not a normalized PEP 440 version (write the tag as \"v1.0.0.post1\")");
  EXPECT_EQ(tag_error("v01.0.0"), "tag \"v01.0.0\": after the prefix \"v\", \"01.0.0\" is not a normalized PEP 440 version (write the tag as \"v1.0.0\")");
  EXPECT_EQ(tag_error("v1.0"),
            "tag \"v1.0\": the version has 2 release segments; this project's tags have 3 (release-segments) "
            "(write \"v1.0.0\")");
  EXPECT_EQ(tag_error("v1.0.0.0"),
            "tag \"v1.0.0.0\": the version has 4 release segments; this project's tags have 3 (release-segments)");
  EXPECT_NE(tag_error("v1.0.0+cu12").find("has a local label"), std::string::npos);
  EXPECT_NE(tag_error("vfoo").find("\"foo\" is not a PEP 440 version"), std::string::npos);
  EXPECT_NE(tag_error("v").find("is not a PEP 440 version"), std::string::npos);
  EXPECT_EQ(tag_error(""), "empty tag");
  EXPECT_EQ(tag_error("v1.0.0\n"), "tag \"v1.0.0\n\" contains whitespace or a control character");
  EXPECT_EQ(tag_error("refs/tags/v1.0.0"),
            "tag \"refs/tags/v1.0.0\" is a ref; give the tag name alone (\"v1.0.0\", GITHUB_REF_NAME in GitHub Actions)");
  EXPECT_EQ(tag_error("release-1.0.0"), "tag \"release-1.0.0\" does not start with the tag prefix \"v\"");
}

TEST(ReleaseTag, PolicyDecidesPrefixAndSegments) {
  Policy p = dyng_policy();
  p.tag_prefix = "";
  EXPECT_TRUE(parse_tag("1.2.3", p));
  EXPECT_EQ(tag_error("v1.2.3", p), "tag \"v1.2.3\": \"v1.2.3\" is not a normalized PEP 440 version (write the tag as \"1.2.3\")");
  p.release_segments = 0;
  EXPECT_TRUE(parse_tag("1.0", p));
  EXPECT_TRUE(parse_tag("2024.10", p));
}

TEST(ReleaseTag, PluginsShipOnEpochAndRelease) {
  Policy p = dyng_policy();
  auto v = [](const char* s) { return *Version::parse(s); };
  EXPECT_FALSE(plugins_ship(p, v("0.1.9")));
  EXPECT_FALSE(plugins_ship(p, v("0.1.99.post3")));
  EXPECT_TRUE(plugins_ship(p, v("0.2.0rc1")));
  EXPECT_TRUE(plugins_ship(p, v("0.2.0.dev0")));
  EXPECT_TRUE(plugins_ship(p, v("0.2")));
  EXPECT_TRUE(plugins_ship(p, v("1.0.0")));
  EXPECT_TRUE(plugins_ship(p, v("1!0.0.1")));
  p.plugins_since.reset();
  EXPECT_TRUE(plugins_ship(p, v("0.0.1")));
  p.plugins.clear();
  EXPECT_FALSE(plugins_ship(p, v("9.0.0")));
}

TEST(ReleaseTag, FilePrefixIsTheEscapedNormalizedName) {
  EXPECT_EQ(file_prefix("Dyng.CU-12"), "dyng_cu_12");
  EXPECT_EQ(file_prefix("dyng--cu12"), "dyng_cu12");
}

// ---------------------------------------------------------------------------
// Plan

TEST(ReleasePlan, FinalWithPluginsPublishesPluginsFirstOnEachIndex) {
  auto s = select("v0.2.0", dyng_policy());
  ASSERT_TRUE(s);
  auto steps = plan_release(*s);
  ASSERT_EQ(steps.size(), 6u);
  std::vector<std::string> order;
  for (const auto& st : steps) order.push_back(std::to_string(st.stage) + " " + st.environment + " " + st.distribution);
  EXPECT_EQ(order, (std::vector<std::string>{"1 testpypi-cu12 dyng-cu12", "1 testpypi-cu13 dyng-cu13", "2 testpypi dyng",
                                             "3 pypi-cu12 dyng-cu12", "3 pypi-cu13 dyng-cu13", "4 pypi dyng"}));
  EXPECT_TRUE(steps[0].needs.empty());
  EXPECT_EQ(steps[2].needs, (std::vector<std::string>{"testpypi-dyng-cu12", "testpypi-dyng-cu13"}));
  EXPECT_EQ(steps[3].needs, std::vector<std::string>{"testpypi-dyng"});
  EXPECT_EQ(steps[5].needs, (std::vector<std::string>{"pypi-dyng-cu12", "pypi-dyng-cu13"}));
  EXPECT_EQ(steps[5].job, "production_core");
  EXPECT_EQ(steps[0].job, "test_plugins");
  EXPECT_EQ(steps[0].directory, "dist/dyng-cu12");
  EXPECT_EQ(steps[5].index.repository_url, "https://upload.pypi.org/legacy/");
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].step, static_cast<int>(i + 1));
}

TEST(ReleasePlan, ReleaseCandidateStopsAtTheTestIndex) {
  auto steps = plan_release(*select("v0.2.0rc1", dyng_policy()));
  ASSERT_EQ(steps.size(), 3u);
  for (const auto& st : steps) EXPECT_EQ(st.index.name, "testpypi");
  EXPECT_TRUE(steps[2].core);
}

TEST(ReleasePlan, CoreAloneGoesTestThenProduction) {
  auto steps = plan_release(*select("v0.1.3", dyng_policy()));
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].id, "testpypi-dyng");
  EXPECT_EQ(steps[0].stage, 1);
  EXPECT_TRUE(steps[0].needs.empty());
  EXPECT_EQ(steps[1].id, "pypi-dyng");
  EXPECT_EQ(steps[1].stage, 2);
  EXPECT_EQ(steps[1].needs, std::vector<std::string>{"testpypi-dyng"});
}

// ---------------------------------------------------------------------------
// Verify

TEST(ReleaseVerify, CompleteSetPasses) {
  std::string dir = temp_dir("good");
  good_set(dir);
  auto r = verify_release(dir, "0.2.0", dyng_policy());
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->ok()) << ::testing::PrintToString(codes(*r));
  ASSERT_EQ(r->expected.size(), 4u);
  for (const auto& e : r->expected) EXPECT_FALSE(e.file.empty()) << e.example;
  EXPECT_EQ(r->distribution_of("dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl"), "dyng-cu13");
  EXPECT_EQ(r->distribution_of("dyng-0.2.0.tar.gz"), "dyng");
  // The tag spelling is accepted too.
  auto r2 = verify_release(dir, "v0.2.0", dyng_policy());
  ASSERT_TRUE(r2);
  EXPECT_TRUE(r2->ok());
  fs::remove_all(dir);
}

TEST(ReleaseVerify, CoreOnlyReleaseBeforePluginsSince) {
  std::string dir = temp_dir("core_only");
  good_set(dir, "0.1.3", false);
  auto r = verify_release(dir, "0.1.3", dyng_policy());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok()) << ::testing::PrintToString(codes(*r));
  // A plugin wheel in a 0.1.x release is an extra, with the reason.
  wheel(dir, "dyng_cu12-0.1.3-cp312-abi3-manylinux_2_28_x86_64.whl", {"dyng-cu12", "0.1.3", "", {"dyng==0.1.3"}});
  r = verify_release(dir, "0.1.3", dyng_policy());
  ASSERT_TRUE(r);
  EXPECT_EQ(message(*r, "dyng_cu12-0.1.3-cp312-abi3-manylinux_2_28_x86_64.whl", "extra"),
            "dyng-cu12 is not released with 0.1.3 (plugins ship from 0.2, plugins-since)");
  fs::remove_all(dir);
}

TEST(ReleaseVerify, MissingAndExtraFilesAreNamed) {
  std::string dir = temp_dir("missing");
  good_set(dir);
  fs::remove(dir + "/dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl");
  ASSERT_TRUE(write_file_atomic(dir + "/README.txt", "x"));
  fs::create_directory(dir + "/sub");
  sdist(dir, "dyng_cu12-0.2.0.tar.gz", "dyng-cu12");
  wheel(dir, "other-0.2.0-py3-none-any.whl", {"other", "0.2.0", "", {}});
  auto r = verify_release(dir, "0.2.0", dyng_policy());
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok());
  EXPECT_FALSE(r->any_unreadable());
  EXPECT_EQ(message(*r, "dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", "missing"),
            "the manylinux_2_28_x86_64 wheel of dyng-cu13 0.2.0 is missing (expected a file such as "
            "dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl)");
  EXPECT_EQ(message(*r, "README.txt", "extra"), "not a wheel (.whl) or an sdist (.tar.gz)");
  EXPECT_TRUE(has(*r, "sub", "extra"));
  EXPECT_EQ(message(*r, "dyng_cu12-0.2.0.tar.gz", "extra"), "plugin sdists are not released (dyng-cu12 ships wheels only)");
  EXPECT_EQ(message(*r, "other-0.2.0-py3-none-any.whl", "extra"),
            "distribution other is not part of this release (dyng-cu12, dyng-cu13, dyng)");
  EXPECT_EQ(r->findings.size(), 5u) << ::testing::PrintToString(codes(*r));
  fs::remove_all(dir);
}

TEST(ReleaseVerify, VersionsNamesAndNormalization) {
  std::string dir = temp_dir("versions");
  good_set(dir);
  // Wrong version in the file name (and so the slot stays empty).
  fs::remove(dir + "/dyng-0.2.0-py3-none-any.whl");
  wheel(dir, "dyng-0.2.1-py3-none-any.whl", {"dyng", "0.2.1", "", {}});
  // METADATA disagrees with the file name.
  wheel(dir, "dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", {"dyng-cu14", "0.2.0rc1", "", {"dyng==0.2.0"}});
  // Not normalized: capitals, and a version spelled otherwise.
  fs::remove(dir + "/dyng-0.2.0.tar.gz");
  sdist(dir, "Dyng-0.2.0.0.tar.gz", "dyng", "0.2.0");
  auto r = verify_release(dir, "0.2.0", dyng_policy());
  ASSERT_TRUE(r);
  EXPECT_EQ(message(*r, "dyng-0.2.1-py3-none-any.whl", "version-mismatch"),
            "file name version 0.2.1 is not the release's 0.2.0");
  EXPECT_EQ(message(*r, "dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", "name-mismatch"),
            "dyng_cu12-0.2.0.dist-info/METADATA Name \"dyng-cu14\" is not dyng-cu12");
  EXPECT_EQ(message(*r, "dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", "version-mismatch"),
            "dyng_cu12-0.2.0.dist-info/METADATA Version \"0.2.0rc1\" is not the release's 0.2.0");
  EXPECT_EQ(message(*r, "Dyng-0.2.0.0.tar.gz", "not-normalized"),
            "the name part \"Dyng\" is not the normalized file-name form \"dyng\" (binary distribution format, PEP 625)");
  EXPECT_TRUE(has(*r, "Dyng-0.2.0.0.tar.gz", "not-normalized"));
  EXPECT_FALSE(has(*r, "Dyng-0.2.0.0.tar.gz", "bad-sdist"));  // Dyng-0.2.0.0/PKG-INFO found
  fs::remove_all(dir);
}

TEST(ReleaseVerify, Tags) {
  std::string dir = temp_dir("tags");
  good_set(dir);
  // Plugin for another platform, with another python-abi.
  wheel(dir, "dyng_cu13-0.2.0-cp313-cp313-manylinux_2_28_aarch64.whl", {"dyng-cu13", "0.2.0", "", {"dyng==0.2.0"}});
  // WHEEL Tag lines that disagree with the file name.
  wheel(dir, "dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl",
        {"dyng-cu12", "0.2.0", "cp312-abi3-linux_x86_64", {"dyng==0.2.0"}});
  auto r = verify_release(dir, "0.2.0", dyng_policy());
  ASSERT_TRUE(r);
  const std::string other = "dyng_cu13-0.2.0-cp313-cp313-manylinux_2_28_aarch64.whl";
  EXPECT_EQ(message(*r, other, "tag-mismatch").substr(0, 66),
            "platform manylinux_2_28_aarch64 is none of the plugin platforms (m");
  int n = 0;
  for (const auto& f : r->findings) n += f.member == other && f.rule == "tag-mismatch";
  EXPECT_EQ(n, 2);  // platform and python-abi
  EXPECT_EQ(message(*r, "dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", "tag-mismatch"),
            "dyng_cu12-0.2.0.dist-info/WHEEL Tag lines (cp312-abi3-linux_x86_64) differ from the file name's tags "
            "(cp312-abi3-manylinux_2_28_x86_64)");
  // Compressed tag sets fill the slot they contain.
  std::string dir2 = temp_dir("tags2");
  good_set(dir2);
  fs::remove(dir2 + "/dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl");
  wheel(dir2, "dyng_cu13-0.2.0-cp312-abi3-manylinux2014_x86_64.manylinux_2_28_x86_64.whl",
        {"dyng-cu13", "0.2.0", "", {"dyng==0.2.0"}});
  auto r2 = verify_release(dir2, "0.2.0", dyng_policy());
  ASSERT_TRUE(r2);
  EXPECT_TRUE(r2->ok()) << ::testing::PrintToString(codes(*r2));
  fs::remove_all(dir);
  fs::remove_all(dir2);
}

TEST(ReleaseVerify, PluginsPinTheCoreAndTheCorePinsPlugins) {
  std::string dir = temp_dir("pins");
  good_set(dir);
  wheel(dir, "dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", {"dyng-cu12", "0.2.0", "", {"dyng>=0.2.0"}});
  wheel(dir, "dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", {"dyng-cu13", "0.2.0", "", {"numpy"}});
  wheel(dir, "dyng-0.2.0-py3-none-any.whl", {"dyng", "0.2.0", "", {"dyng-cu12==0.1.0; extra == \"cu12\""}});
  auto r = verify_release(dir, "0.2.0", dyng_policy());
  ASSERT_TRUE(r);
  EXPECT_EQ(message(*r, "dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", "core-pin"),
            "dyng_cu12-0.2.0.dist-info/METADATA Requires-Dist \"dyng>=0.2.0\" does not pin dyng==0.2.0 (a plugin works "
            "only with its own core release)");
  EXPECT_EQ(message(*r, "dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", "core-pin"),
            "dyng_cu13-0.2.0.dist-info/METADATA has no Requires-Dist on dyng; a plugin must pin dyng==0.2.0");
  EXPECT_TRUE(has(*r, "dyng-0.2.0-py3-none-any.whl", "core-pin"));
  EXPECT_EQ(r->findings.size(), 3u) << ::testing::PrintToString(codes(*r));
  fs::remove_all(dir);
}

TEST(ReleaseVerify, DuplicatesUnreadableAndBadSdists) {
  std::string dir = temp_dir("bad");
  good_set(dir);
  wheel(dir, "dyng-0.2.0-1-py3-none-any.whl", {"dyng", "0.2.0", "", {}});  // build tag: same slot
  fs::remove(dir + "/dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl");
  ASSERT_TRUE(write_file_atomic(dir + "/dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", "not a zip"));
  fs::remove(dir + "/dyng-0.2.0.tar.gz");
  tarball(dir, "dyng-0.2.0.tar.gz", {{"elsewhere/PKG-INFO", "Name: dyng\n"}});
  ASSERT_TRUE(write_file_atomic(dir + "/dyng-0.2.0.whl", "x"));
  auto r = verify_release(dir, "0.2.0", dyng_policy());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->any_unreadable());
  EXPECT_EQ(message(*r, "dyng-0.2.0-py3-none-any.whl", "duplicate"),
            "a second py3-none-any wheel of dyng (already dyng-0.2.0-1-py3-none-any.whl)");
  EXPECT_TRUE(has(*r, "dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl", "unreadable"));
  EXPECT_EQ(message(*r, "dyng-0.2.0.tar.gz", "bad-sdist"),
            "no dyng-0.2.0/PKG-INFO (an sdist holds one folder named after the file, with PKG-INFO)");
  EXPECT_TRUE(has(*r, "dyng-0.2.0.whl", "bad-filename"));
  // Not a gzip at all.
  fs::remove(dir + "/dyng-0.2.0.tar.gz");
  ASSERT_TRUE(write_file_atomic(dir + "/dyng-0.2.0.tar.gz", std::string(600, 'x')));
  r = verify_release(dir, "0.2.0", dyng_policy());
  ASSERT_TRUE(r);
  EXPECT_TRUE(has(*r, "dyng-0.2.0.tar.gz", "unreadable"));
  fs::remove_all(dir);
}

TEST(ReleaseVerify, ErrorsForTheVersionAndTheFolder) {
  cuwheel::test::TempDir tmp;
  auto r = verify_release(tmp.str(), "0.2", dyng_policy());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("release segments"), std::string::npos);
  r = verify_release("/nonexistent/release/dir", "0.2.0", dyng_policy());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "/nonexistent/release/dir: not a folder");
}

// ---------------------------------------------------------------------------
// Split

TEST(ReleaseSplit, OneFolderPerDistributionInputsUnchanged) {
  std::string dir = temp_dir("split_in");
  std::string out = temp_dir("split_out");
  good_set(dir);
  ASSERT_TRUE(write_file_atomic(dir + "/notes.txt", "x"));  // an extra: skipped
  auto r = verify_release(dir, "0.2.0", dyng_policy());
  ASSERT_TRUE(r);
  for (bool copy : {false, true}) {
    auto actions = split_release(dir, *r, out, copy);
    ASSERT_TRUE(actions) << actions.error().message();
    EXPECT_EQ(actions->size(), 4u);
    for (const auto& a : *actions) {
      if (copy) {
        EXPECT_FALSE(a.linked);
      }
      auto want = read_whole_file(dir + "/" + a.file);
      auto got = read_whole_file(a.destination);
      ASSERT_TRUE(want && got);
      EXPECT_EQ(*want, *got);
    }
    EXPECT_TRUE(fs::exists(out + "/dyng/dyng-0.2.0.tar.gz"));
    EXPECT_TRUE(fs::exists(out + "/dyng/dyng-0.2.0-py3-none-any.whl"));
    EXPECT_TRUE(fs::exists(out + "/dyng-cu12/dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl"));
    EXPECT_TRUE(fs::exists(out + "/dyng-cu13/dyng_cu13-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl"));
    EXPECT_FALSE(fs::exists(out + "/notes.txt"));
  }
  // Inputs stay where they were; no temporary file is left behind.
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file();
  EXPECT_EQ(n, 5u);
  for (const auto& e : fs::recursive_directory_iterator(out))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  ASSERT_TRUE(write_file_atomic(out + "/file", "x"));
  auto bad = split_release(dir, *r, out + "/file");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), out + "/file: exists and is not a folder");
  fs::remove_all(dir);
  fs::remove_all(out);
}
