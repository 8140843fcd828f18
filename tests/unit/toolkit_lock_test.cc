// The toolkit lock file (include/cuwheel/toolkit/lock.h): canonical form,
// round trip, upsert, and the errors read_lock reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cuwheel/toolkit/lock.h"
#include "temp_dir.h"

namespace cuwheel::toolkit {
namespace {

LockedToolkit sample(const std::string& name, const std::string& release) {
  LockedToolkit t;
  t.name = name;
  t.release = release;
  t.repo = "https://developer.download.nvidia.com/compute/cuda/repos/rhel8/x86_64/";
  t.key_url = "https://developer.download.nvidia.com/compute/cuda/repos/rhel8/x86_64/D42D0685.pub";
  t.key_fingerprint = "610C7B14E068A878070DA4E99CD0A493D42D0685";
  t.requested = {"cuda-nvcc-12-9"};
  t.external = {"gcc-c++", "/bin/sh"};
  t.rpms.push_back({"cuda-nvcc-12-9", "12.9.86-1", "x86_64", "cuda-nvcc-12-9-12.9.86-1.x86_64.rpm",
                    std::string(64, 'b'), 123456});
  t.rpms.push_back({"cuda-crt-12-9", "12.9.86-1", "x86_64", "cuda-crt-12-9-12.9.86-1.x86_64.rpm",
                    std::string(64, 'a'), 42});
  return t;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

TEST(LockFormat, CanonicalText) {
  Lock lock;
  lock.upsert(sample("cu12", "12.9"));
  EXPECT_EQ(format_lock(lock),
            "# CUDA toolkit lock written by `cuwheel toolkit lock`; see docs/toolkit.md.\n"
            "# Every RPM is pinned by SHA-256 and size. Re-pin with the same command.\n"
            "schema = 1\n"
            "\n"
            "[toolkit.cu12]\n"
            "release = \"12.9\"\n"
            "repo = \"https://developer.download.nvidia.com/compute/cuda/repos/rhel8/x86_64/\"\n"
            "key_url = \"https://developer.download.nvidia.com/compute/cuda/repos/rhel8/x86_64/D42D0685.pub\"\n"
            "key_fingerprint = \"610C7B14E068A878070DA4E99CD0A493D42D0685\"\n"
            "requested = [\"cuda-nvcc-12-9\"]\n"
            "external = [\"/bin/sh\", \"gcc-c++\"]\n"
            "\n"
            "[[toolkit.cu12.rpm]]\n"
            "name = \"cuda-crt-12-9\"\n"
            "evr = \"12.9.86-1\"\n"
            "arch = \"x86_64\"\n"
            "location = \"cuda-crt-12-9-12.9.86-1.x86_64.rpm\"\n"
            "sha256 = \"" + std::string(64, 'a') + "\"\n"
            "size = 42\n"
            "\n"
            "[[toolkit.cu12.rpm]]\n"
            "name = \"cuda-nvcc-12-9\"\n"
            "evr = \"12.9.86-1\"\n"
            "arch = \"x86_64\"\n"
            "location = \"cuda-nvcc-12-9-12.9.86-1.x86_64.rpm\"\n"
            "sha256 = \"" + std::string(64, 'b') + "\"\n"
            "size = 123456\n");
}

TEST(LockFormat, RoundTripIsByteIdentical) {
  Lock lock;
  lock.upsert(sample("cu13", "13.0"));
  lock.upsert(sample("cu12", "12.9"));
  LockedToolkit odd = sample("cu12-x", "12.8");
  odd.repo = "/mirror/with \"quotes\" and \\ back\tslash/";
  lock.upsert(odd);
  cuwheel::test::TempDir tmp;
  std::string path = (tmp / "roundtrip.lock").string();
  ASSERT_TRUE(write_lock(path, lock));
  auto back = read_lock(path);
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->toolkits.size(), 3u);
  EXPECT_EQ(back->toolkits[0].name, "cu12");
  EXPECT_EQ(back->toolkits[1].name, "cu12-x");
  EXPECT_EQ(back->toolkits[1].repo, odd.repo);
  EXPECT_EQ(back->toolkits[2].name, "cu13");
  EXPECT_EQ(back->toolkits[0].rpms[1].size, 123456u);
  EXPECT_EQ(format_lock(*back), format_lock(lock));
  std::filesystem::remove(path);
}

TEST(LockModel, UpsertReplacesOneAndKeepsOthers) {
  Lock lock;
  lock.upsert(sample("cu13", "13.0"));
  lock.upsert(sample("cu12", "12.8"));
  LockedToolkit newer = sample("cu12", "12.9");
  newer.rpms.pop_back();
  lock.upsert(newer);
  ASSERT_EQ(lock.toolkits.size(), 2u);
  ASSERT_NE(lock.find("cu12"), nullptr);
  EXPECT_EQ(lock.find("cu12")->release, "12.9");
  EXPECT_EQ(lock.find("cu12")->rpms.size(), 1u);
  EXPECT_EQ(lock.find("cu13")->release, "13.0");
  EXPECT_EQ(lock.find("cu13")->rpms.size(), 2u);
  EXPECT_EQ(lock.find("cu11"), nullptr);
}

// Each case: a lock text and the exact message read_lock gives.
TEST(LockRead, ErrorsNameFileAndLine) {
  cuwheel::test::TempDir tmp;
  std::string path = (tmp / "bad.lock").string();
  const std::string good_rpm =
      "[[toolkit.cu12.rpm]]\nname = \"a\"\nevr = \"1-1\"\narch = \"x86_64\"\nlocation = \"a.rpm\"\n";
  struct Case {
    std::string text;
    std::string want;  // after "<path>:"
  } cases[] = {
      {"schema = 2\n", "1: unknown schema (this cuwheel reads schema = 1)"},
      {"[toolkit]\n", "1: no schema key (expected schema = 1)"},
      {"schema = 1\nschema = 1\n", "2: Error while parsing key-value pair: cannot redefine existing integer 'schema'"},
      {"schema = 1\n[toolkit.cu12]\nrepo = \"r/\"\n", "2: toolkit.cu12 has no release"},
      {"schema = 1\n[toolkit.cu12]\nrelease = \"12.9\"\nrepo = \"r/\"\nkey_fingerprint = \"12AB\"\n",
       "5: toolkit.cu12: key_fingerprint is not 40 hex digits"},
      {"schema = 1\n[toolkit.cu12]\nrelease = \"12.9\"\nrepo = \"r/\"\n" + good_rpm + "size = 1\n",
       "5: toolkit.cu12: rpm entry has no sha256"},
      {"schema = 1\n[toolkit.cu12]\nrelease = \"12.9\"\nrepo = \"r/\"\n" + good_rpm + "sha256 = \"xyz\"\nsize = 1\n",
       "10: toolkit.cu12: rpm a: sha256 is not 64 hex digits"},
      {"schema = 1\n[toolkit.cu12]\nrelease = \"12.9\"\nrepo = \"r/\"\n" + good_rpm + "sha256 = \"" +
           std::string(64, 'c') + "\"\nsize = -1\n",
       "11: toolkit.cu12: rpm a: size is not a non-negative integer"},
      {"schema = 1\n[toolkit.cu12]\nrelease = \"12.9\"\nrepo = \"r/\"\nrequested = [1]\n",
       "5: toolkit.cu12: requested must hold strings only"},
      // Unknown keys: a misspelt one would silently drop pins.
      {"schema = 1\nschemas = 1\n", "2: lock: unknown key \"schemas\" (did you mean \"schema\"?)"},
      {"schema = 1\n[toolkit.cu12]\nrelease = \"12.9\"\nrepo = \"r/\"\nkey_fingerprnt = \"x\"\n",
       "5: toolkit.cu12: unknown key \"key_fingerprnt\" (did you mean \"key_fingerprint\"?)"},
      {"schema = 1\n[toolkit.cu12]\nrelease = \"12.9\"\nrepo = \"r/\"\n[[toolkit.cu12.rpms]]\nname = \"a\"\n",
       "5: toolkit.cu12: unknown key \"rpms\" (did you mean \"rpm\"?)"},
      {"schema = 1\n[toolkit.cu12]\nrelease = \"12.9\"\nrepo = \"r/\"\n" + good_rpm + "sha256 = \"" +
           std::string(64, 'c') + "\"\nsize = 1\nsha = 2\n",
       "12: toolkit.cu12: rpm entry: unknown key \"sha\""},
      // A toolkit that pins nothing cannot verify anything.
      {"schema = 1\n[toolkit.cu12]\nrelease = \"12.9\"\nrepo = \"r/\"\n",
       "2: toolkit.cu12 pins no RPMs (no [[toolkit.cu12.rpm]] entries)"},
  };
  for (const Case& c : cases) {
    write(path, c.text);
    auto r = read_lock(path);
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().message(), path + ":" + c.want) << c.text;
  }
  std::filesystem::remove(path);
  auto missing = read_lock(path);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message().rfind(path + ": cannot open", 0), 0u);
}

TEST(LockRead, AcceptsUpperCaseDigestsAndNormalises) {
  cuwheel::test::TempDir tmp;
  std::string path = (tmp / "upper.lock").string();
  write(path, "schema = 1\n[toolkit.cu12]\nrelease = \"12.9\"\nrepo = \"r/\"\n"
              "key_fingerprint = \"610c7b14e068a878070da4e99cd0a493d42d0685\"\n"
              "[[toolkit.cu12.rpm]]\nname = \"a\"\nevr = \"1-1\"\narch = \"x86_64\"\nlocation = \"a.rpm\"\n"
              "sha256 = \"" + std::string(64, 'C') + "\"\nsize = 7\n");
  auto r = read_lock(path);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->toolkits[0].key_fingerprint, "610C7B14E068A878070DA4E99CD0A493D42D0685");
  EXPECT_EQ(r->toolkits[0].rpms[0].sha256, std::string(64, 'c'));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cuwheel::toolkit
