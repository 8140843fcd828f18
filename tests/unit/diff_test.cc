// diff: member matching across versioned folders, library facts, growth limits.
#include "cuwheel/release/diff.h"

#include <gtest/gtest.h>

using namespace cuwheel;
using namespace cuwheel::diff;

namespace {

check::MemberModel member(const std::string& name, uint64_t stored, uint64_t size, uint32_t crc = 1) {
  check::MemberModel m;
  m.name = name;
  m.compressed_size = stored;
  m.size = size;
  m.crc32 = crc;
  return m;
}

check::CheckModel wheel(const std::string& version) {
  check::CheckModel m;
  m.path = "pkg-" + version + "-py3-none-any.whl";
  m.dist_info = "pkg-" + version + ".dist-info";
  return m;
}

const MemberChange* find(const WheelDiff& d, const std::string& name) {
  for (const auto& m : d.members)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace

TEST(Diff, MembersAddedRemovedChangedAndVersionedFoldersMatched) {
  auto o = wheel("1.0");
  auto n = wheel("1.1");
  o.archive_size = 1000;
  n.archive_size = 5000;
  o.members = {member("pkg/a.py", 10, 20), member("pkg/gone.py", 5, 5), member("pkg-1.0.dist-info/METADATA", 50, 90, 7),
               member("pkg-1.0.data/scripts/tool", 3, 3, 9), member("pkg/same.txt", 4, 4, 4)};
  n.members = {member("pkg/a.py", 4000, 8000), member("pkg/new.so", 100, 300), member("pkg-1.1.dist-info/METADATA", 50, 90, 8),
               member("pkg-1.1.data/scripts/tool", 3, 3, 9), member("pkg/same.txt", 4, 4, 4)};
  auto d = diff_models(o, n);
  EXPECT_EQ(d.file_delta(), 4000);
  EXPECT_EQ(d.old_installed, 122u);
  EXPECT_EQ(d.new_installed, 8397u);
  EXPECT_EQ(d.unchanged_members, 2u);  // scripts/tool (same CRC under a renamed .data) and same.txt
  ASSERT_EQ(d.members.size(), 4u);
  EXPECT_EQ(d.members[0].name, "pkg/a.py");  // largest stored change first
  EXPECT_EQ(d.members[0].kind, MemberChange::Kind::changed);
  EXPECT_EQ(d.members[0].compressed_delta(), 3990);
  EXPECT_EQ(d.members[0].size_delta(), 7980);
  ASSERT_NE(find(d, "pkg/new.so"), nullptr);
  EXPECT_EQ(find(d, "pkg/new.so")->kind, MemberChange::Kind::added);
  ASSERT_NE(find(d, "pkg/gone.py"), nullptr);
  EXPECT_EQ(find(d, "pkg/gone.py")->kind, MemberChange::Kind::removed);
  EXPECT_EQ(find(d, "pkg/gone.py")->size_delta(), -5);
  // Same sizes, other CRC-32: changed, matched across the version bump.
  const MemberChange* meta = find(d, "pkg-1.1.dist-info/METADATA");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->kind, MemberChange::Kind::changed);
  EXPECT_EQ(meta->old_name, "pkg-1.0.dist-info/METADATA");
}

TEST(Diff, LibraryDeviceCodeNeededAndSearchPath) {
  auto o = wheel("1.0");
  auto n = wheel("1.0");
  check::LibraryModel a;
  a.member = "pkg/lib/libk.so";
  a.is_elf = true;
  a.summary.sass = {"sm_75", "sm_90"};
  a.summary.ptx = {"compute_90"};
  a.summary.stored_bytes = 1000;
  a.load.needed = {"libcudart.so.12", "libc.so.6"};
  a.load.rpath = {"$ORIGIN"};
  check::LibraryModel b = a;
  b.summary.sass = {"sm_90", "sm_100", "sm_120"};
  b.summary.ptx = {"compute_120"};
  b.summary.stored_bytes = 600000;
  b.load.needed = {"libcudart.so.13", "libc.so.6"};
  b.load.rpath.clear();
  b.load.runpath = {"$ORIGIN/../nvidia/cu13/lib"};
  check::LibraryModel same;
  same.member = "pkg/lib/libhost.so";
  same.is_elf = true;
  same.load.needed = {"libc.so.6"};
  o.libraries = {a, same};
  n.libraries = {b, same};
  auto d = diff_models(o, n);
  ASSERT_EQ(d.libraries.size(), 1u);  // libhost.so did not change
  const auto& l = d.libraries[0];
  EXPECT_EQ(l.member, "pkg/lib/libk.so");
  EXPECT_EQ(l.sass_added, (std::vector<std::string>{"sm_100", "sm_120"}));
  EXPECT_EQ(l.sass_removed, (std::vector<std::string>{"sm_75"}));
  EXPECT_EQ(l.ptx_added, (std::vector<std::string>{"compute_120"}));
  EXPECT_EQ(l.ptx_removed, (std::vector<std::string>{"compute_90"}));
  EXPECT_EQ(l.old_device_bytes, 1000u);
  EXPECT_EQ(l.new_device_bytes, 600000u);
  EXPECT_EQ(l.needed_added, (std::vector<std::string>{"libcudart.so.13"}));
  EXPECT_EQ(l.needed_removed, (std::vector<std::string>{"libcudart.so.12"}));
  EXPECT_EQ(l.search_tag_old, "DT_RPATH");
  EXPECT_EQ(l.search_tag_new, "DT_RUNPATH");
  EXPECT_EQ(l.new_search_path, (std::vector<std::string>{"$ORIGIN/../nvidia/cu13/lib"}));
}

TEST(Diff, LibraryAddedOrRemoved) {
  auto o = wheel("1.0");
  auto n = wheel("1.0");
  check::LibraryModel k;
  k.member = "pkg/libk.so";
  k.is_elf = true;
  k.summary.sass = {"sm_90"};
  n.libraries = {k};
  auto d = diff_models(o, n);
  ASSERT_EQ(d.libraries.size(), 1u);
  EXPECT_FALSE(d.libraries[0].in_old);
  EXPECT_EQ(d.libraries[0].sass_added, (std::vector<std::string>{"sm_90"}));
  d = diff_models(n, o);
  ASSERT_EQ(d.libraries.size(), 1u);
  EXPECT_FALSE(d.libraries[0].in_new);
}

TEST(Diff, GrowthLimits) {
  auto pct = parse_growth_limit("10%");
  ASSERT_TRUE(pct);
  ASSERT_TRUE(pct->percent);
  EXPECT_DOUBLE_EQ(*pct->percent, 10.0);
  // Field report 3: 220 MB -> 800 MB.
  EXPECT_TRUE(exceeds(*pct, 220'000'000, 800'000'000));
  EXPECT_FALSE(exceeds(*pct, 220'000'000, 242'000'000));  // exactly 10%
  EXPECT_TRUE(exceeds(*pct, 220'000'000, 242'000'001));
  EXPECT_FALSE(exceeds(*pct, 800, 220));  // shrinking
  EXPECT_TRUE(exceeds(*pct, 0, 1));
  auto abs = parse_growth_limit("50MB");
  ASSERT_TRUE(abs);
  ASSERT_TRUE(abs->bytes);
  EXPECT_EQ(*abs->bytes, 50'000'000u);
  EXPECT_FALSE(exceeds(*abs, 220'000'000, 270'000'000));
  EXPECT_TRUE(exceeds(*abs, 220'000'000, 270'000'001));
  EXPECT_TRUE(parse_growth_limit("2.5%"));
  EXPECT_TRUE(parse_growth_limit("1GiB"));
  for (const char* badv : {"", "%", "ten", "-5%", "1.2.3%", "5 %x", "MB"}) EXPECT_FALSE(parse_growth_limit(badv)) << badv;
}

TEST(Diff, ReadsRealWheelsAndRefusesOtherFiles) {
  const std::string dir = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/check/loading/";
  const std::string a = dir + "lw_floor_cu12-1.0-py3-none-manylinux_2_36_x86_64.whl";
  const std::string b = dir + "lw_floor_ok_cu12-1.0-py3-none-manylinux_2_36_x86_64.whl";
  auto d = diff_wheels(a, a);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_TRUE(d->members.empty());
  EXPECT_TRUE(d->libraries.empty());
  EXPECT_EQ(d->file_delta(), 0);
  auto e = diff_wheels(a, b);  // different distributions: every member differs by name
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->members.empty());
  auto bad = diff_wheels(a, std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/bin/libplain.so");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("not a wheel"), std::string::npos);
  EXPECT_FALSE(diff_wheels(a, dir + "no-such.whl"));
}

// A name stored twice: the last copy is what installers keep, so it is the
// one compared (a 10-byte a.txt then a 1000-byte one is a change against a
// wheel with the 10-byte a.txt alone), and the duplicate is reported.
TEST(Diff, DuplicateMemberComparesTheLastCopyAndIsReported) {
  auto o = wheel("1.0");
  auto n = wheel("1.0");
  o.members = {member("a.txt", 10, 10, 5)};
  n.members = {member("a.txt", 10, 10, 5), member("b.txt", 2, 2), member("a.txt", 1000, 1000, 6)};
  auto d = diff_models(o, n);
  const MemberChange* a = find(d, "a.txt");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->kind, MemberChange::Kind::changed);
  EXPECT_EQ(a->size_delta(), 990);
  EXPECT_EQ(d.new_installed, 1002u);  // the installed copy of a.txt, and b.txt
  ASSERT_EQ(d.duplicates.size(), 1u);
  EXPECT_EQ(d.duplicates[0].wheel, "new");
  EXPECT_EQ(d.duplicates[0].path, n.path);
  EXPECT_EQ(d.duplicates[0].member, "a.txt");
  EXPECT_EQ(d.duplicates[0].copies, 2u);
  // Without the repeat: unchanged and nothing reported.
  n.members = {member("a.txt", 10, 10, 5)};
  auto same = diff_models(o, n);
  EXPECT_TRUE(same.members.empty());
  EXPECT_TRUE(same.duplicates.empty());
}
