// The loader's search order (model/loading.h) on models built in the test:
// own DT_RUNPATH/DT_RPATH, DT_RPATH inherited down the loading chain,
// DT_RUNPATH not inherited, libraries already mapped, NVIDIA folders, and
// the names the loader never searches for.
#include <gtest/gtest.h>

#include "check_test_util.h"
#include "check/rules/loading_util.h"
#include "cuwheel/model/loading.h"

using namespace cuwheel;
using namespace cuwheel::model;
using How = NeededResolution::How;

namespace {

LibraryModel lib(const std::string& member, std::vector<std::string> needed, std::vector<std::string> rpath = {},
                 std::vector<std::string> runpath = {}) {
  return cuwheel::check::test_util::elf_library(member, std::move(needed), std::move(rpath), std::move(runpath));
}

CheckModel wheel(std::vector<LibraryModel> libs) {
  CheckModel m;
  m.path = "w.whl";
  for (const auto& l : libs) {
    MemberModel mm;
    mm.name = l.member;
    m.members.push_back(mm);
  }
  m.libraries = std::move(libs);
  return m;
}

LoadResolution resolve(const CheckModel& m) { return resolve_loads(m, build_tree(m)); }

}  // namespace

TEST(LoadingModel, InstallPathDropsDataSchemes) {
  EXPECT_EQ(install_path("pkg/_ext.so").value_or("?"), "pkg/_ext.so");
  EXPECT_EQ(install_path("pkg-1.0.data/platlib/pkg/a.so").value_or("?"), "pkg/a.so");
  EXPECT_EQ(install_path("pkg-1.0.data/purelib/a.so").value_or("?"), "a.so");
  EXPECT_FALSE(install_path("pkg-1.0.data/scripts/tool"));
}

// The RUNPATH entry a help text suggests: exact, from the library's
// installed folder to the target folder of site-packages.
TEST(LoadingModel, OriginPathToAFolderOfSitePackages) {
  using check::rule_impl::loading::origin_path_to;
  EXPECT_EQ(origin_path_to("torchaudio/lib/_torchaudio.so", "torch/lib"), "$ORIGIN/../../torch/lib");
  EXPECT_EQ(origin_path_to("pkg/_C.so", "torch/lib"), "$ORIGIN/../torch/lib");
  EXPECT_EQ(origin_path_to("_top.so", "nvidia/cu13/lib"), "$ORIGIN/nvidia/cu13/lib");
  EXPECT_EQ(origin_path_to("pkg/lib/a.so", "pkg/lib"), "$ORIGIN");
  EXPECT_EQ(origin_path_to("pkg/lib/a.so", "pkg/other"), "$ORIGIN/../other");
  EXPECT_EQ(origin_path_to("pkg/lib/a.so", ""), "$ORIGIN/../..");
  EXPECT_EQ(origin_path_to("pkg/lib/a.so", "."), "$ORIGIN/../..");
  EXPECT_EQ(origin_path_to("pkg-1.0.data/platlib/pkg/a.so", "torch/lib"), "$ORIGIN/../torch/lib");
}

TEST(LoadingModel, RpathIsInheritedDownTheChain) {
  auto m = wheel({lib("p/_ext.so", {"libchain.so"}, {"$ORIGIN/lib", "$ORIGIN/deps"}),
                  lib("p/lib/libchain.so", {"libdep.so"}), lib("p/deps/libdep.so", {})});
  auto r = resolve(m);
  ASSERT_EQ(r.needed[0].size(), 1u);
  EXPECT_EQ(r.needed[0][0].how, How::own_path);
  EXPECT_EQ(r.needed[0][0].dir, "p/lib");
  ASSERT_EQ(r.needed[1].size(), 1u);
  EXPECT_EQ(r.needed[1][0].how, How::loader_rpath);
  EXPECT_EQ(r.needed[1][0].by, "p/_ext.so");
  EXPECT_EQ(r.needed[1][0].entry, "$ORIGIN/deps");
  EXPECT_EQ(r.needed[1][0].dir, "p/deps");
}

TEST(LoadingModel, RunpathServesOnlyItsOwner) {
  auto m = wheel({lib("p/_ext.so", {"libchain.so"}, {}, {"$ORIGIN/lib", "$ORIGIN/deps"}),
                  lib("p/lib/libchain.so", {"libdep.so"}), lib("p/deps/libdep.so", {})});
  auto r = resolve(m);
  EXPECT_EQ(r.needed[0][0].how, How::own_path);
  EXPECT_EQ(r.needed[1][0].how, How::unresolved);
}

TEST(LoadingModel, RequesterRunpathDisablesEveryRpath) {
  // libchain.so has DT_RUNPATH (pointing nowhere useful): the extension's
  // DT_RPATH is then not searched for libchain.so's NEEDED (dl-load.c).
  auto m = wheel({lib("p/_ext.so", {"libchain.so"}, {"$ORIGIN/lib", "$ORIGIN/deps"}),
                  lib("p/lib/libchain.so", {"libdep.so"}, {}, {"$ORIGIN"}), lib("p/deps/libdep.so", {})});
  auto r = resolve(m);
  EXPECT_EQ(r.needed[1][0].how, How::unresolved);
}

TEST(LoadingModel, AlreadyMappedSiblingSatisfiesTheName) {
  auto m = wheel({lib("p/_ext.so", {"libdep.so", "libchain.so"}, {}, {"$ORIGIN/lib"}),
                  lib("p/lib/libchain.so", {"libdep.so"}), lib("p/lib/libdep.so", {})});
  auto r = resolve(m);
  EXPECT_EQ(r.needed[0][0].how, How::own_path);
  EXPECT_EQ(r.needed[0][1].how, How::own_path);
  ASSERT_EQ(r.needed[1].size(), 1u);
  EXPECT_EQ(r.needed[1][0].how, How::loaded);
  EXPECT_EQ(r.needed[1][0].by, "p/lib/libdep.so");
  EXPECT_EQ(r.needed[1][0].via, "p/_ext.so");
}

TEST(LoadingModel, SystemDriverPathAndNvidiaFolders) {
  auto m = wheel({lib("p/_ext.so", {"libc.so.6", "libcuda.so.1", "/opt/x/libabs.so", "libcudart.so.13",
                                     "libnccl.so.2", "libnowhere.so"},
                      {}, {"$ORIGIN/../nvidia/cu13/lib"})});
  auto r = resolve(m);
  ASSERT_EQ(r.needed[0].size(), 6u);
  EXPECT_EQ(r.needed[0][0].how, How::system);
  EXPECT_EQ(r.needed[0][1].how, How::driver);
  EXPECT_EQ(r.needed[0][2].how, How::as_path);
  EXPECT_EQ(r.needed[0][3].how, How::nvidia_folder);
  EXPECT_EQ(r.needed[0][3].dir, "nvidia/cu13/lib");
  EXPECT_EQ(r.needed[0][4].how, How::unresolved);  // NCCL lives in nvidia/nccl/lib
  EXPECT_EQ(r.needed[0][5].how, How::unresolved);
}

TEST(LoadingModel, CyclesAndSelfNeedsTerminate) {
  auto m = wheel({lib("p/a.so", {"b.so"}, {}, {"$ORIGIN"}), lib("p/b.so", {"a.so"}, {}, {"$ORIGIN"})});
  auto r = resolve(m);
  EXPECT_EQ(r.needed[0][0].how, How::own_path);
  EXPECT_EQ(r.needed[1][0].how, How::own_path);
}

TEST(LoadingModel, LeftOutLibrariesHaveNoEntries) {
  auto m = wheel({lib("p-1.0.data/scripts/tool", {"libx.so"}), lib("p/_ext.so", {"libc.so.6"})});
  LibraryModel rel = lib("p/obj.o", {});
  rel.load.type = 1;  // ET_REL
  m.libraries.push_back(rel);
  auto r = resolve(m);
  EXPECT_TRUE(r.needed[0].empty());
  EXPECT_EQ(r.needed[1].size(), 1u);
  EXPECT_TRUE(r.needed[2].empty());
}
