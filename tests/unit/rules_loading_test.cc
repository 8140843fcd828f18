// The loading rules (CW2xx) on the fixtures of
// tests/fixtures/make_check_loading.sh: each rule has a wheel it flags and a
// twin it passes. Counts are per rule, so a fixture built for one rule may
// trip others without breaking the assertion for the rule under test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "check_test_util.h"
#include "cuwheel/wheel/wheel.h"
#include "temp_dir.h"
#include "cuwheel/check/check.h"
#include "cuwheel/model/facts.h"

using namespace cuwheel;
using namespace cuwheel::check;

namespace {

const std::string kDir = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/check/loading/";
const std::string kTag = "-1.0-py3-none-manylinux_2_36_x86_64.whl";

std::vector<Finding> run(const std::string& file, const Policy& policy = {}) {
  return test_util::check_path(kDir + file, policy);
}

size_t count(const std::vector<Finding>& fs, const std::string& rule) { return test_util::count_rule(fs, rule); }

std::string dump(const std::vector<Finding>& fs) {
  std::string out;
  for (const auto& f : fs) out += f.rule + " " + f.member + " [" + f.location + "] " + f.message + "\n";
  return out;
}

const char* kLoadingRules[] = {
    "bundled-driver-library", "bundled-cuda-library", "not-redistributable", "build-machine-path",
    "unresolved-runpath", "unresolved-needed", "cuda-major-mismatch", "undeclared-dependency",
    "unused-dependency", "deprecated-package-name", "duplicate-symbol", "export-not-allowed",
    "needed-version-mismatch", "platform-tag", "dependency-floor-too-low",
};

}  // namespace

TEST(RulesLoading, GoodWheelPassesEveryLoadingRule) {
  auto fs = run("lw_good_cu13" + kTag);
  for (const char* r : kLoadingRules) EXPECT_EQ(count(fs, r), 0u) << r << "\n" << dump(fs);
}

TEST(RulesLoading, BundledLibrariesByNameAndSoname) {
  auto fs = run("lw_bundled" + kTag);
  EXPECT_EQ(count(fs, "bundled-cuda-library"), 2u) << dump(fs);   // field report 2
  EXPECT_EQ(count(fs, "bundled-driver-library"), 1u) << dump(fs); // field report 1
  EXPECT_EQ(count(fs, "not-redistributable"), 1u) << dump(fs);    // bin/ptxas; libcudart is redistributable
  for (const auto& f : fs)
    if (f.rule == "bundled-cuda-library") {
      EXPECT_TRUE(f.member == "lw_bundled/lib/libcudart.so.13" || f.member == "lw_bundled/lib/libmyblas.so") << f.member;
      if (f.member == "lw_bundled/lib/libmyblas.so") EXPECT_EQ(f.location, "DT_SONAME");
    }
}

// A library auditwheel grafted under a hashed name is still the CUDA runtime
// (cumm-cu126, spconv-cu126 ship libcudart-<hash>.so.12.x); the help says
// the NEEDED entries must name the original again, since a RUNPATH into
// NVIDIA's folder cannot find the renamed file.
TEST(RulesLoading, BundledGraftedCudart) {
  auto fs = run("lw_grafted_cu12" + kTag);
  ASSERT_EQ(count(fs, "bundled-cuda-library"), 1u) << dump(fs);
  for (const auto& f : fs)
    if (f.rule == "bundled-cuda-library") {
      EXPECT_EQ(f.member, "lw_grafted_cu12.libs/libcudart-53d54daa.so.12.6.68");
      EXPECT_NE(f.message.find("renamed copy of libcudart.so.12"), std::string::npos) << f.message;
      EXPECT_NE(f.hint.find("--exclude 'libcudart.so*'"), std::string::npos) << f.hint;
      EXPECT_NE(f.hint.find("name libcudart.so.12 again"), std::string::npos) << f.hint;
    }
  // The twin: the good wheel bundles nothing; lw_version's grafted
  // libver-1a2b3c4d.so.1 is no CUDA library.
  EXPECT_EQ(count(run("lw_good_cu13" + kTag), "bundled-cuda-library"), 0u);
  EXPECT_EQ(count(run("lw_version" + kTag), "bundled-cuda-library"), 0u);
}

// The loader's order along a chain (model/loading.h), checked against glibc
// by dlopen of each fixture's extension: DT_RPATH is inherited by what the
// extension loads, DT_RUNPATH is not, and a library mapped first satisfies
// a later NEEDED by name.
TEST(RulesLoading, UnresolvedNeededAlongTheLoadingChain) {
  auto rpath = run("lw_chain_rpath" + kTag);
  EXPECT_EQ(count(rpath, "unresolved-needed"), 0u) << dump(rpath);
  auto runpath = run("lw_chain_runpath" + kTag);
  ASSERT_EQ(count(runpath, "unresolved-needed"), 1u) << dump(runpath);
  for (const auto& f : runpath)
    if (f.rule == "unresolved-needed") {
      EXPECT_EQ(f.member, "lw_chain_runpath/lib/libchain.so");
      EXPECT_EQ(f.location, "DT_NEEDED libdep.so");
    }
  auto loaded = run("lw_chain_loaded" + kTag);
  EXPECT_EQ(count(loaded, "unresolved-needed"), 0u) << dump(loaded);
}

TEST(RulesLoading, BuildMachinePath) {
  auto fs = run("lw_paths" + kTag);
  // Both libraries NEED only the system's libraries: the loader never
  // searches the absolute entries for anything that could be there.
  EXPECT_EQ(count(fs, "build-machine-path"), 2u) << dump(fs);
  for (const auto& f : fs)
    if (f.rule == "build-machine-path") EXPECT_EQ(f.severity, Severity::note) << f.message;
  EXPECT_EQ(count(run("lw_paths_ok" + kTag), "build-machine-path"), 0u);
}

TEST(RulesLoading, UnresolvedRunpath) {
  auto fs = run("lw_runpath" + kTag);
  EXPECT_EQ(count(fs, "unresolved-runpath"), 3u) << dump(fs);
  auto ok = run("lw_runpath_ok" + kTag);
  EXPECT_EQ(count(ok, "unresolved-runpath"), 0u) << dump(ok);
}

TEST(RulesLoading, UnresolvedNeededFieldReports7And8) {
  auto fs = run("lw_needed_cu13" + kTag);
  EXPECT_EQ(count(fs, "unresolved-needed"), 3u) << dump(fs);
  bool nvrtc = false, nccl = false;
  for (const auto& f : fs) {
    nvrtc |= f.rule == "unresolved-needed" && f.location == "DT_NEEDED libnvrtc.so.13";
    nccl |= f.rule == "unresolved-needed" && f.location == "DT_NEEDED libnccl.so.2";
  }
  EXPECT_TRUE(nvrtc && nccl) << dump(fs);
  auto ok = run("lw_needed_fixed_cu13" + kTag);
  EXPECT_EQ(count(ok, "unresolved-needed"), 0u) << dump(ok);
  EXPECT_EQ(count(ok, "unresolved-runpath"), 0u) << dump(ok);
  EXPECT_EQ(count(ok, "undeclared-dependency"), 0u) << dump(ok);
  EXPECT_EQ(count(ok, "unused-dependency"), 0u) << dump(ok);
}

TEST(RulesLoading, CudaMajorMismatch) {
  auto fs = run("lw_major_cu12" + kTag);
  EXPECT_EQ(count(fs, "cuda-major-mismatch"), 2u) << dump(fs);
  // The good CUDA 13 wheel passes, and so does it under a matching policy,
  // but not under a CUDA 12 policy.
  Policy p13, p12;
  p13.cuda_major = 13;
  p12.cuda_major = 12;
  EXPECT_EQ(count(run("lw_good_cu13" + kTag, p13), "cuda-major-mismatch"), 0u);
  EXPECT_GE(count(run("lw_good_cu13" + kTag, p12), "cuda-major-mismatch"), 1u);
}

TEST(RulesLoading, DeclaredDependenciesFieldReport18) {
  auto fs = run("lw_undeclared_cu13" + kTag);
  EXPECT_EQ(count(fs, "undeclared-dependency"), 1u) << dump(fs);
  EXPECT_EQ(count(fs, "unused-dependency"), 1u) << dump(fs);
  EXPECT_EQ(count(fs, "deprecated-package-name"), 1u) << dump(fs);
  for (const auto& f : fs) {
    if (f.rule == "undeclared-dependency") EXPECT_NE(f.message.find("nvidia-cuda-runtime"), std::string::npos) << f.message;
    if (f.rule == "unused-dependency") {
      EXPECT_EQ(f.severity, Severity::warning);
      EXPECT_NE(f.message.find("nvidia-nccl-cu13"), std::string::npos) << f.message;
    }
  }
}

TEST(RulesLoading, DuplicateSymbolAndExports) {
  // Two libraries that nothing loads together (alternative backends opened
  // with dlopen) never interpose: no finding.
  EXPECT_EQ(count(run("lw_clash" + kTag), "duplicate-symbol"), 0u);
  // The same pair NEEDed by one extension module shares its link map.
  auto fs = run("lw_clash_linked" + kTag);
  EXPECT_EQ(count(fs, "duplicate-symbol"), 1u) << dump(fs);
  for (const auto& f : fs)
    if (f.rule == "duplicate-symbol") {
      EXPECT_NE(f.message.find("clash_fn"), std::string::npos) << f.message;
      EXPECT_EQ(f.message.find("clash_weak"), std::string::npos) << f.message;
    }
  EXPECT_EQ(count(fs, "export-not-allowed"), 0u);  // no allowlist, no check
  // A version definition (the VER_1 node of libver.so.1's version script:
  // an SHN_ABS symbol of size 0) is no exported symbol.
  auto ver = test_util::models(kDir + "lw_version_ok" + kTag);
  ASSERT_EQ(ver.size(), 1u);
  bool saw_ver_fn = false;
  for (const auto& lib : ver[0].libraries)
    for (const auto& s : lib.exports) {
      EXPECT_NE(s, "VER_1") << lib.member;
      saw_ver_fn |= s == "ver_fn";
    }
  EXPECT_TRUE(saw_ver_fn);
  Policy narrow, wide;
  narrow.exports = {"clash_a_*"};
  wide.exports = {"clash_*"};
  EXPECT_EQ(count(run("lw_clash" + kTag, narrow), "export-not-allowed"), 2u);
  EXPECT_EQ(count(run("lw_clash" + kTag, wide), "export-not-allowed"), 0u);
}

TEST(RulesLoading, NeededVersionMismatchFieldReport5) {
  auto fs = run("lw_version" + kTag);
  EXPECT_EQ(count(fs, "needed-version-mismatch"), 1u) << dump(fs);
  auto ok = run("lw_version_ok" + kTag);
  EXPECT_EQ(count(ok, "needed-version-mismatch"), 0u) << dump(ok);
}

TEST(RulesLoading, PlatformTag) {
  auto fs = run("lw_plat-1.0-py3-none-manylinux2014_x86_64.whl");
  EXPECT_EQ(count(fs, "platform-tag"), 3u) << dump(fs);  // GLIBC_2.34, GLIBCXX_3.4.21, CXXABI_1.3.9
  EXPECT_EQ(count(run("lw_plat-1.0-py3-none-manylinux_2_36_x86_64.whl"), "platform-tag"), 0u);
  EXPECT_EQ(count(run("lw_plat-1.0-py3-none-linux_x86_64.whl"), "platform-tag"), 0u);
}

// Field reports 10 and 11: the library needs __nvJitLinkComplete_12_4 of
// libnvJitLink.so.12 (version node libnvJitLink.so.12).
TEST(RulesLoading, DependencyFloorTooLowFieldReports10And11) {
  auto fs = run("lw_floor_cu12" + kTag);
  ASSERT_EQ(count(fs, "dependency-floor-too-low"), 1u) << dump(fs);
  for (const auto& f : fs)
    if (f.rule == "dependency-floor-too-low") {
      EXPECT_EQ(f.member, "lw_floor_cu12/lib/libjit.so");
      EXPECT_EQ(f.location, ".gnu.version_r libnvJitLink.so.12");
      EXPECT_NE(f.message.find("nvidia-nvjitlink-cu12>=12.1 admits CUDA 12.1"), std::string::npos) << f.message;
      EXPECT_NE(f.message.find("__nvJitLinkComplete_12_4"), std::string::npos) << f.message;
      EXPECT_NE(f.message.find("first in CUDA 12.4"), std::string::npos) << f.message;
      EXPECT_NE(f.hint.find("nvidia-nvjitlink-cu12>=12.4"), std::string::npos) << f.hint;
    }
  // Through cuda-toolkit[nvjitlink]: the toolkit's version is the release.
  fs = run("lw_floor_toolkit_cu12" + kTag);
  ASSERT_EQ(count(fs, "dependency-floor-too-low"), 1u) << dump(fs);
  for (const auto& f : fs)
    if (f.rule == "dependency-floor-too-low")
      EXPECT_NE(f.hint.find("cuda-toolkit[nvjitlink]>=12.4"), std::string::npos) << f.hint;
  // The twin declares >=12.4,<13.
  EXPECT_EQ(count(run("lw_floor_ok_cu12" + kTag), "dependency-floor-too-low"), 0u);
}

TEST(RulesLoading, DependencyFloorReadsTheSymbolNeedsOfTheModel) {
  auto ms = build_models(kDir + "lw_floor_cu12" + kTag, BuildOptions{});
  ASSERT_TRUE(ms);
  const LibraryModel* lib = nullptr;
  for (const auto& l : ms->front().libraries)
    if (l.member == "lw_floor_cu12/lib/libjit.so") lib = &l;
  ASSERT_NE(lib, nullptr);
  ASSERT_EQ(lib->cuda_symbol_needs.size(), 2u);
  EXPECT_EQ(lib->cuda_symbol_needs[0].symbol, "__nvJitLinkComplete_12_4");
  EXPECT_EQ(lib->cuda_symbol_needs[0].version, "libnvJitLink.so.12");
  EXPECT_EQ(lib->cuda_symbol_needs[0].file, "libnvJitLink.so.12");
  ASSERT_TRUE(lib->cuda_symbol_needs[0].first_release);
  EXPECT_EQ(lib->cuda_symbol_needs[0].first_release->str(), "12.4");
  EXPECT_EQ(lib->cuda_symbol_needs[1].symbol, "__nvJitLinkCreate_12_1");
  EXPECT_EQ(lib->cuda_symbol_needs[1].first_release->str(), "12.1");
}

TEST(SymbolRelease, ReleaseFromTheNameOfNvJitLinkEntryPoints) {
  auto r = symbol_release("__nvJitLinkAddData_12_4", "libnvJitLink.so.12");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->major, 12);
  EXPECT_EQ(r->minor, 4);
  EXPECT_EQ(symbol_release("__nvJitLinkAddData_13_0", "libnvJitLink.so.13")->str(), "13.0");
  // The suffix's major must be the soname's.
  EXPECT_FALSE(symbol_release("__nvJitLinkAddData_12_4", "libnvJitLink.so.13"));
  // No suffix, a suffix without a name, a file that is not a CUDA library.
  EXPECT_FALSE(symbol_release("nvJitLinkAddData", "libnvJitLink.so.12"));
  EXPECT_FALSE(symbol_release("_12_4", "libnvJitLink.so.12"));
  EXPECT_FALSE(symbol_release("foo_12_4", "libfoo.so.12"));
  EXPECT_FALSE(symbol_release("x_12_123456", "libnvJitLink.so.12"));
  EXPECT_FALSE(symbol_release("x_12_4", "libnvJitLink.so"));
}

TEST(SymbolRelease, OnlyUndefinedSymbolsBoundToCudaLibraries) {
  std::vector<elf::Symbol> syms(4);
  syms[0].name = "__nvJitLinkComplete_12_4";
  syms[0].version = syms[0].version_file = "libnvJitLink.so.12";
  syms[1] = syms[0];  // duplicate
  syms[2].name = "memcpy";
  syms[2].version = "GLIBC_2.14";
  syms[2].version_file = "libc.so.6";
  syms[3].name = "__nvJitLinkCreate_12_0";
  syms[3].version = syms[3].version_file = "libnvJitLink.so.12";
  syms[3].shndx = 12;  // defined: not a need
  auto needs = cuda_symbol_needs(syms);
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].symbol, "__nvJitLinkComplete_12_4");
  EXPECT_EQ(needs[0].first_release->str(), "12.4");
}

// CUDA EULA section 2.6 (Attachment A): libnvJitLink and libcupti are
// listed, libnvfatbin, libcusolverMg and CUPTI's libnvperf_host are not.
TEST(RulesLoading, NotRedistributableFollowsAttachmentA) {
  CheckModel m;
  m.path = "pkg-1.0-py3-none-manylinux_2_28_x86_64.whl";
  for (const char* n : {"pkg/lib/libnvJitLink.so.13", "pkg/lib/libcupti.so.13", "pkg/lib/libcufile.so.0",
                        "pkg/lib/libnvfatbin.so.13", "pkg/lib/libcusolverMg.so.12", "pkg/lib/libnvperf_host.so"}) {
    MemberModel mm;
    mm.name = n;
    m.members.push_back(mm);
  }
  Policy p;
  p.select = {"not-redistributable"};
  auto fs = run_rules({m}, p);
  std::set<std::string> flagged;
  for (const auto& f : fs) flagged.insert(f.member);
  EXPECT_EQ(flagged, (std::set<std::string>{"pkg/lib/libnvfatbin.so.13", "pkg/lib/libcusolverMg.so.12",
                                            "pkg/lib/libnvperf_host.so"}))
      << dump(fs);
}

// --- what declared dependencies provide (model/providers.h) -----------------

namespace {
const std::string kDeps = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/check/deps/";

std::vector<Finding> run_deps(const std::string& file, bool with_torch_wheel = false) {
  auto ms = test_util::models(kDeps + file);
  std::vector<CheckModel> deps;
  if (with_torch_wheel) deps = test_util::models(kDeps + "torch");
  return run_rules(ms, Policy{}, deps);
}

size_t count_sev(const std::vector<Finding>& fs, const std::string& rule, Severity sev) {
  size_t n = 0;
  for (const auto& f : fs) n += f.rule == rule && f.severity == sev;
  return n;
}
}  // namespace

namespace {
// Installs wheels into `dir` as pip does for a platlib wheel without .data:
// every member at its path, RECORD included.
void install(const std::vector<std::string>& wheels, const std::string& dir) {
  for (const auto& path : wheels) {
    auto w = Wheel::open(path);
    ASSERT_TRUE(w) << w.error().message();
    for (const auto& zm : w->members()) {
      if (zm.is_dir) continue;
      auto b = w->read(zm);
      ASSERT_TRUE(b) << b.error().message();
      const std::filesystem::path out = std::filesystem::path(dir) / zm.name;
      std::filesystem::create_directories(out.parent_path());
      std::ofstream(out, std::ios::binary)
          .write(reinterpret_cast<const char*>(b->view().data()), static_cast<std::streamsize>(b->view().size()));
    }
  }
}
}  // namespace

// An installed environment is checked distribution by distribution, as
// each wheel would be, with the others installed beside it: the same
// verdicts as the three wheels checked in one run (issue 15 point 12).
TEST(RulesLoading, InstalledEnvironmentGetsTheWheelsVerdicts) {
  cuwheel::test::TempDir tmp("site");
  const std::string dir = tmp.str();
  install({kDeps + "torch/torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl", kDeps + "dp_torchext" + kTag,
           kDeps + "dp_torchext_undeclared" + kTag},
          dir);
  auto ms = test_util::models(dir);
  ASSERT_EQ(ms.size(), 3u);
  for (const auto& m : ms) EXPECT_EQ(m.kind, CheckModel::Kind::installed) << m.dist_info;
  EXPECT_EQ(ms[0].dist_info, "dp_torchext-1.0.dist-info");
  EXPECT_EQ(ms[1].dist_info, "dp_torchext_undeclared-1.0.dist-info");
  EXPECT_EQ(ms[2].dist_info, "torch-2.15.0.dist-info");
  ASSERT_EQ(ms[0].libraries.size(), 1u);
  EXPECT_EQ(ms[0].libraries[0].member, "dp_torchext/_C.so");
  ASSERT_TRUE(ms[0].metadata);
  EXPECT_EQ(ms[0].metadata->name, "dp-torchext");
  auto fs = run_rules(ms, Policy{});
  auto of = [&](const std::string& member_prefix) {
    std::vector<Finding> out;
    for (const auto& f : fs)
      if (f.member.rfind(member_prefix, 0) == 0) out.push_back(f);
    return out;
  };
  // Declares torch: notes, found once torch (installed beside it) is loaded.
  auto ext = of("dp_torchext/");
  EXPECT_EQ(count_sev(ext, "unresolved-needed", Severity::note), 3u) << dump(fs);
  EXPECT_EQ(count_sev(ext, "unresolved-needed", Severity::error), 0u) << dump(fs);
  for (const auto& f : ext)
    if (f.rule == "unresolved-needed") EXPECT_NE(f.message.find("installed in " + dir), std::string::npos) << f.message;
  // Does not: errors, as for its wheel; whole-distribution findings name the dist-info folder.
  auto undeclared = of("dp_torchext_undeclared");
  EXPECT_EQ(count_sev(undeclared, "unresolved-needed", Severity::error), 3u) << dump(fs);
  EXPECT_EQ(count_sev(undeclared, "undeclared-dependency", Severity::error), 1u) << dump(fs);
  EXPECT_EQ(count(of("dp_torchext_undeclared-1.0.dist-info"), "no-device-code"), 1u) << dump(fs);
  // The same wheels checked in one run: the same counts by rule and severity.
  std::vector<CheckModel> wheels;
  for (const auto& w : {kDeps + "torch", kDeps + "dp_torchext" + kTag, kDeps + "dp_torchext_undeclared" + kTag})
    for (auto& m : test_util::models(w)) wheels.push_back(std::move(m));
  auto wf = run_rules(wheels, Policy{});
  std::multiset<std::string> a, b;
  for (const auto& f : fs) a.insert(f.rule + "/" + std::string(to_string(f.severity)));
  for (const auto& f : wf) b.insert(f.rule + "/" + std::string(to_string(f.severity)));
  EXPECT_EQ(a, b) << dump(fs) << "\n---\n" << dump(wf);
}

// Files that no RECORD lists stay in one model of the folder, and a folder
// without any *.dist-info is one model as before.
TEST(RulesLoading, FilesNoRecordListsStayInTheFoldersModel) {
  cuwheel::test::TempDir tmp("site");
  const std::string dir = tmp.str();
  install({kDeps + "dp_torchext" + kTag}, dir);
  std::filesystem::copy_file(std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/bin/libplain.so", dir + "/stray.so");
  auto ms = test_util::models(dir);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].kind, CheckModel::Kind::installed);
  EXPECT_EQ(ms[1].kind, CheckModel::Kind::directory);
  ASSERT_EQ(ms[1].libraries.size(), 1u);
  EXPECT_EQ(ms[1].libraries[0].member, "stray.so");
  std::filesystem::remove_all(dir + "/dp_torchext-1.0.dist-info");
  auto plain = test_util::models(dir);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].kind, CheckModel::Kind::directory);
  EXPECT_EQ(plain[0].libraries.size(), 2u);
}

TEST(RulesLoading, TorchExtensionThatDeclaresTorchGetsNotes) {
  // libtorch.so and libc10.so ship in torch/lib, libcudart.so.13 comes in
  // with torch's libraries: `import torch` has loaded all three.
  auto fs = run_deps("dp_torchext" + kTag);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::note), 3u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::error), 0u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "undeclared-dependency", Severity::note), 1u) << dump(fs);
  EXPECT_EQ(count(fs, "no-device-code"), 0u) << dump(fs);  // a binding of torch's libraries
  for (const auto& f : fs)
    if (f.rule == "unresolved-needed") EXPECT_NE(f.message.find("torch (declared: torch>=2.10)"), std::string::npos) << f.message;
}

TEST(RulesLoading, TorchExtensionThatDoesNotDeclareTorchIsAnError) {
  auto fs = run_deps("dp_torchext_undeclared" + kTag);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::error), 3u) << dump(fs);
  size_t named = 0;
  for (const auto& f : fs)
    if (f.rule == "unresolved-needed" && f.message.find("but the wheel does not declare torch") != std::string::npos) ++named;
  EXPECT_EQ(named, 2u) << dump(fs);  // libtorch.so, libc10.so
  EXPECT_EQ(count_sev(fs, "undeclared-dependency", Severity::error), 1u) << dump(fs);
}

TEST(RulesLoading, RunpathIntoTheDependencysFolderResolves) {
  auto fs = run_deps("dp_torchext_runpath" + kTag);
  for (const auto& f : fs) {
    EXPECT_EQ(f.location.find("libtorch.so"), std::string::npos) << dump(fs);
    EXPECT_EQ(f.location.find("libc10.so"), std::string::npos) << dump(fs);
  }
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::note), 1u) << dump(fs);  // libcudart.so.13
}

TEST(RulesLoading, CudaMajorOfTheGivenDependencyWheelDecides) {
  // By the built-in table torch's CUDA 12 builds load libcudart.so.12: a note.
  auto table = run_deps("dp_torchext_cu12" + kTag);
  EXPECT_EQ(count_sev(table, "unresolved-needed", Severity::error), 0u) << dump(table);
  // The torch wheel given (--deps) loads libcudart.so.13: a real error.
  auto given = run_deps("dp_torchext_cu12" + kTag, true);
  bool said = false;
  for (const auto& f : given)
    if (f.rule == "unresolved-needed" && f.severity == Severity::error)
      said |= f.message.find("loads libcudart.so.13, not libcudart.so.12") != std::string::npos;
  EXPECT_TRUE(said) << dump(given);
}

TEST(RulesLoading, BuildMachinePathSearchedForACudaLibraryFieldReport6) {
  // libabs_first.so: /usr/local/cuda/lib64 is searched before NVIDIA's
  // folder for libcudart.so.13 (field report 6: the system toolkit wins);
  // libabs_after.so: the NVIDIA folder comes first and finds it.
  auto fs = run_deps("dp_abs" + kTag);
  ASSERT_EQ(count(fs, "build-machine-path"), 2u) << dump(fs);
  for (const auto& f : fs)
    if (f.rule == "build-machine-path")
      EXPECT_EQ(f.severity, f.member.find("libabs_first") != std::string::npos ? Severity::error : Severity::note)
          << f.member << ": " << f.message;
}

TEST(RulesLoading, UnresolvedRunpathMattersWhenSearchedFirst) {
  auto fs = run_deps("dp_rp" + kTag);
  size_t first_warnings = 0, first_own = 0, after_notes = 0;
  for (const auto& f : fs) {
    if (f.rule != "unresolved-runpath") continue;
    if (f.member.find("librp_first") != std::string::npos) {
      // Searched before NVIDIA's folder: the escaping entry is a warning;
      // the missing folder lies in the wheel's own dp_rp folder, which no
      // other distribution fills: a note that says it is searched.
      first_warnings += f.severity == Severity::warning;
      first_own += f.severity == Severity::note && f.message.find("searches it and never finds") != std::string::npos;
    }
    if (f.member.find("librp_after") != std::string::npos) after_notes += f.severity == Severity::note;
  }
  EXPECT_EQ(first_warnings, 1u) << dump(fs);
  EXPECT_EQ(first_own, 1u) << dump(fs);
  EXPECT_EQ(after_notes, 2u) << dump(fs);
}

TEST(RulesLoading, NeededLoadedByThePackagesPythonCode) {
  auto fs = run_deps("dp_pyload" + kTag);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::note), 1u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::error), 0u) << dump(fs);
  auto missing = run_deps("dp_pyload_missing" + kTag);
  EXPECT_EQ(count_sev(missing, "unresolved-needed", Severity::error), 1u) << dump(missing);
}

TEST(PythonLoads, PathfinderNvidiaModulesAndSonames) {
  const std::string src =
      "from cuda.pathfinder import load_nvidia_dynamic_lib\n"
      "load_nvidia_dynamic_lib(\"nvJitLink\")\n"
      "load_nvidia_dynamic_lib( 'nvrtc' )\n"
      "load_nvidia_dynamic_lib(name)\n"            // not a literal: nothing
      "    import nvidia.libnvcomp\n"
      "nvidia.cublas.load_library()\n"
      "x = mynvidia.fake\n"                          // not nvidia.<pkg>
      "lib = ctypes.CDLL('libcublas.so.12')\n"
      "s = \"libnot a soname.so\"\n";
  auto loads = model::python_loads("pkg/load.py", ByteView(reinterpret_cast<const uint8_t*>(src.data()), src.size()));
  std::vector<std::string> got;
  for (const auto& l : loads) got.push_back(l.describe());
  EXPECT_EQ(got, (std::vector<std::string>{"pkg/load.py: load_nvidia_dynamic_lib(\"nvJitLink\")",
                                           "pkg/load.py: load_nvidia_dynamic_lib(\"nvrtc\")",
                                           "pkg/load.py: nvidia.libnvcomp", "pkg/load.py: nvidia.cublas",
                                           "pkg/load.py: \"libcublas.so.12\""}));
  ASSERT_EQ(loads.size(), 5u);
  EXPECT_TRUE(loads[0].loads("libnvJitLink.so.12"));
  EXPECT_FALSE(loads[0].loads("libnvrtc.so.12"));
  EXPECT_TRUE(loads[2].loads("libnvcomp.so.5"));
  EXPECT_TRUE(loads[3].loads("libcublas.so.13"));
  EXPECT_TRUE(loads[4].loads("libcublas.so.12"));
  EXPECT_FALSE(loads[4].loads("libcublas.so.13"));
  EXPECT_TRUE(model::python_loads("x.py", ByteView()).empty());
}

TEST(RulesLoading, ASonameOpenedByNameIsAUse) {
  auto used = run_deps("dp_dlopen" + kTag);
  EXPECT_EQ(count(used, "unused-dependency"), 0u) << dump(used);
  auto ms = test_util::models(kDeps + "dp_dlopen" + kTag);
  ASSERT_EQ(ms.size(), 1u);
  ASSERT_EQ(ms[0].libraries.size(), 1u);
  EXPECT_EQ(ms[0].libraries[0].dlopen_names, std::vector<std::string>{"libcublas.so.13"});
  auto unused = run_deps("dp_dlopen_unused" + kTag);
  EXPECT_EQ(count(unused, "unused-dependency"), 1u) << dump(unused);
}

// --- plugins, pathfinder, package data, renamed wheels (fixtures) -----------

TEST(RulesLoading, PluginNamedByAPatternGetsNotesAndWarnings) {
  // libhost.so holds "dp_transport_%s.so.%d": the transport is a plugin.
  auto fs = run_deps("dp_plugin" + kTag);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::note), 1u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::error), 0u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "build-machine-path", Severity::warning), 1u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "build-machine-path", Severity::error), 0u) << dump(fs);
  // Nothing names the same transport: an ordinary library, errors.
  auto alone = run_deps("dp_plugin_unnamed" + kTag);
  EXPECT_EQ(count_sev(alone, "unresolved-needed", Severity::error), 1u) << dump(alone);
  EXPECT_EQ(count_sev(alone, "build-machine-path", Severity::error), 1u) << dump(alone);
}

TEST(RulesLoading, PathfinderNamesFromATupleCountAsLoads) {
  auto fs = run_deps("dp_pathfinder" + kTag);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::note), 1u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "undeclared-dependency", Severity::note), 1u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "undeclared-dependency", Severity::error), 0u) << dump(fs);
  // The same code without cuda-pathfinder declared: the package cannot
  // count on pathfinder, so the undeclared NCCL is an error.
  auto undeclared = run_deps("dp_pathfinder_undeclared" + kTag);
  EXPECT_EQ(count_sev(undeclared, "undeclared-dependency", Severity::error), 1u) << dump(undeclared);
}

TEST(RulesLoading, SonamesListedInPackageJsonArePreloads) {
  auto fs = run_deps("dp_json" + kTag);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::note), 1u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::error), 0u) << dump(fs);
  // A JSON that names the soname beside no ctypes loader loads nothing.
  auto list = run_deps("dp_json_list" + kTag);
  EXPECT_EQ(count_sev(list, "unresolved-needed", Severity::error), 1u) << dump(list);
}

TEST(RulesWheel, RenamedLinuxWheelIsAWarningOtherMismatchesErrors) {
  auto renamed = run_deps("dp_renamed" + kTag);
  EXPECT_EQ(count_sev(renamed, "tag-mismatch", Severity::warning), 1u) << dump(renamed);
  auto retagged = run_deps("dp_retagged" + kTag);
  EXPECT_EQ(count_sev(retagged, "tag-mismatch", Severity::error), 1u) << dump(retagged);
}

TEST(PythonLoads, IndirectPathfinderCallsAndFStringFamilies) {
  const std::string src =
      "def load_nvidia_dynamic_lib(x): pass\n"  // a definition is no call
      "_subs = ('cublas', 'cusolver', 'not_a_cuda_lib')\n"
      "pathfinder.load_nvidia_dynamic_lib(name)\n"
      "p = f\"libbitsandbytes_{prefix}{ver}.so\"\n"
      "q = f\"lib{x}.so\"\n";  // too short a literal prefix: nothing
  auto loads = model::python_loads("pkg/x.py", ByteView(reinterpret_cast<const uint8_t*>(src.data()), src.size()));
  std::vector<std::string> got;
  for (const auto& l : loads) got.push_back(l.describe());
  EXPECT_EQ(got, (std::vector<std::string>{
                     "pkg/x.py: load_nvidia_dynamic_lib(...), \"cublas\" among the names it is given",
                     "pkg/x.py: load_nvidia_dynamic_lib(...), \"cusolver\" among the names it is given",
                     "pkg/x.py: f\"libbitsandbytes_{...}\""}));
  ASSERT_EQ(loads.size(), 3u);
  EXPECT_TRUE(loads[0].loads("libcublas.so.13"));
  EXPECT_FALSE(loads[2].loads("libbitsandbytes_cuda121.so"));  // a family of files, not a soname
}

// --- in-memory models: the loading rules' grades ----------------------------

namespace {

CheckModel wheel_model(const std::string& name, std::vector<std::string> requires_dist) {
  CheckModel m;
  m.kind = CheckModel::Kind::wheel;
  m.path = name + "-1.0-py3-none-manylinux_2_28_x86_64.whl";
  CoreMetadata md;
  md.name = name;
  md.version = "1.0";
  md.requires_dist = std::move(requires_dist);
  m.metadata = md;
  return m;
}

void add_lib(CheckModel& m, const std::string& member, std::vector<std::string> needed,
             std::vector<std::string> runpath = {}) {
  m.libraries.push_back(test_util::elf_library(member, std::move(needed), {}, std::move(runpath)));
  MemberModel mm;
  mm.name = member;
  m.members.push_back(mm);
}

std::vector<Finding> only(const std::vector<CheckModel>& ms, const std::string& rule) {
  Policy p;
  p.select = {rule};
  return run_rules(ms, p);
}

}  // namespace

TEST(RulesLoading, NvidiaPackagesBringWhatTheyRequire) {
  // nvidia-cudnn-cu13 requires nvidia-cublas (its Requires-Dist on PyPI):
  // onnxruntime-gpu's [cudnn] extra brings cuBLAS.
  auto m = wheel_model("ort", {"nvidia-cudnn-cu13~=9.0; extra == \"cudnn\"", "nvidia-cuda-runtime~=13.0"});
  add_lib(m, "ort/libprov.so", {"libcublas.so.13", "libcudnn.so.9", "libcudart.so.13"});
  auto fs = only({m}, "undeclared-dependency");
  EXPECT_EQ(count_sev(fs, "undeclared-dependency", Severity::error), 0u) << dump(fs);
  // Without cuDNN declared, cuBLAS is missing.
  auto bare = wheel_model("ort", {"nvidia-cuda-runtime~=13.0"});
  add_lib(bare, "ort/libprov.so", {"libcublas.so.13", "libcudart.so.13"});
  auto fs2 = only({bare}, "undeclared-dependency");
  EXPECT_EQ(count_sev(fs2, "undeclared-dependency", Severity::error), 1u) << dump(fs2);
}

TEST(RulesLoading, RapidsBindingFindsWhatItsDeclaredLibraryLoads) {
  // pylibraft-cu12 declares libraft-cu12, whose libraft.so NEEDs librmm.so
  // and librapids_logger.so: loaded before the binding's extensions.
  auto m = wheel_model("pylibraft-cu12", {"libraft-cu12==26.10.*"});
  add_lib(m, "pylibraft/common/cuda.abi3.so", {"libraft.so", "librmm.so", "librapids_logger.so"}, {"$ORIGIN"});
  auto fs = only({m}, "unresolved-needed");
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::note), 3u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::error), 0u) << dump(fs);
  auto none = wheel_model("pylibraft-cu12", {});
  add_lib(none, "pylibraft/common/cuda.abi3.so", {"librmm.so"}, {"$ORIGIN"});
  auto fs2 = only({none}, "unresolved-needed");
  ASSERT_EQ(count_sev(fs2, "unresolved-needed", Severity::error), 1u) << dump(fs2);
  // The built-in table has librmm-cu12 and librmm-cu13: a -cu12 package is
  // told of the one of its major.
  EXPECT_NE(fs2[0].message.find("librmm-cu12 provides it"), std::string::npos) << fs2[0].message;
  EXPECT_EQ(fs2[0].message.find("cu13"), std::string::npos) << fs2[0].message;
  auto other = wheel_model("pylibraft-cu13", {});
  add_lib(other, "pylibraft/common/cuda.abi3.so", {"librmm.so"}, {"$ORIGIN"});
  auto fs3 = only({other}, "unresolved-needed");
  ASSERT_EQ(fs3.size(), 1u) << dump(fs3);
  EXPECT_NE(fs3[0].message.find("librmm-cu13 provides it"), std::string::npos) << fs3[0].message;
}

TEST(RulesLoading, GivenDependencyWheelLoadsWhatItsLibrariesNeed) {
  // The real wheels given with --deps replace the built-in table for their
  // distributions: libraft-cu12's libraft.so NEEDs librmm.so and
  // librapids_logger.so, which librmm-cu12 and rapids-logger ship. A
  // binding that declares only libraft-cu12 finds them once libraft is
  // loaded (pylibraft-cu12 26.10 with its three dependency wheels).
  auto raft = wheel_model("libraft-cu12", {"librmm-cu12==26.10.*", "rapids-logger==0.3.*"});
  add_lib(raft, "libraft/lib64/libraft.so", {"librmm.so", "librapids_logger.so", "libc.so.6"}, {"$ORIGIN/../../librmm/lib64"});
  auto rmm = wheel_model("librmm-cu12", {"rapids-logger==0.3.*"});
  add_lib(rmm, "librmm/lib64/librmm.so", {"librapids_logger.so"});
  auto logger = wheel_model("rapids-logger", {});
  add_lib(logger, "rapids_logger/lib64/librapids_logger.so", {"libc.so.6"});
  auto binding = wheel_model("pylibraft-cu12", {"libraft-cu12==26.10.*"});
  add_lib(binding, "pylibraft/common/cuda.abi3.so", {"libraft.so", "librmm.so", "librapids_logger.so"}, {"$ORIGIN"});
  Policy p;
  p.select = {"unresolved-needed"};
  auto fs = run_rules({binding}, p, {raft, rmm, logger});
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::error), 0u) << dump(fs);
  ASSERT_EQ(count_sev(fs, "unresolved-needed", Severity::note), 3u) << dump(fs);
  for (const auto& f : fs) EXPECT_NE(f.message.find("once libraft-cu12 (declared"), std::string::npos) << f.message;
  // A libraft.so that does not NEED librmm.so leaves the binding's own
  // NEEDED of it to an undeclared librmm-cu12: a real error, naming it.
  auto lean = wheel_model("libraft-cu12", {});
  add_lib(lean, "libraft/lib64/libraft.so", {"librapids_logger.so"});
  auto fs2 = run_rules({binding}, p, {lean, rmm, logger});
  ASSERT_EQ(count_sev(fs2, "unresolved-needed", Severity::error), 1u) << dump(fs2);
  for (const auto& f : fs2)
    if (f.severity == Severity::error) EXPECT_NE(f.message.find("does not declare librmm-cu12"), std::string::npos) << f.message;
}

TEST(RulesLoading, GroupedHintGivesThePathFromEachFolder) {
  // One finding for two libraries at different depths: the $ORIGIN path
  // of the hint is the first one's, and the other folder's is added.
  auto m = wheel_model("grp", {});
  add_lib(m, "grp/a/_x.so", {"libz9.so"});
  add_lib(m, "grp/b/c/_y.so", {"libz9.so"});
  add_lib(m, "grp/lib/libz9.so", {});
  auto fs = only({m}, "unresolved-needed");
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].member, "grp/a/_x.so");
  EXPECT_NE(fs[0].hint.find("add $ORIGIN/../lib to the RUNPATH"), std::string::npos) << fs[0].hint;
  EXPECT_NE(fs[0].hint.find("(that path is from grp/a; from grp/b/c: $ORIGIN/../../lib)"), std::string::npos) << fs[0].hint;
  // Libraries of one folder share the path: nothing is added.
  auto same = wheel_model("grp", {});
  add_lib(same, "grp/a/_x.so", {"libz9.so"});
  add_lib(same, "grp/a/_y.so", {"libz9.so"});
  add_lib(same, "grp/lib/libz9.so", {});
  auto fs2 = only({same}, "unresolved-needed");
  ASSERT_EQ(fs2.size(), 1u) << dump(fs2);
  EXPECT_EQ(fs2[0].hint.find("that path is from"), std::string::npos) << fs2[0].hint;
}

TEST(RulesLoading, GenericRuntimeIsNoReasonToDeclareTorch) {
  auto m = wheel_model("paddle", {});
  add_lib(m, "paddle/libs/libcommon.so", {"libgomp.so.1"}, {"$ORIGIN"});
  auto fs = only({m}, "unresolved-needed");
  ASSERT_EQ(count_sev(fs, "unresolved-needed", Severity::error), 1u) << dump(fs);
  EXPECT_EQ(fs[0].message.find("torch"), std::string::npos) << fs[0].message;
}

TEST(RulesLoading, SearchEntriesAreGradedByWhoCouldFillThem) {
  // libcudart.so.13 is found in NVIDIA's folder, after each dead entry.
  auto m = wheel_model("grade", {"nvidia-cuda-runtime>=13.0"});
  add_lib(m, "grade/lib/libown.so", {"libcudart.so.13"}, {"$ORIGIN/deps/lib", "$ORIGIN/../../nvidia/cu13/lib"});
  add_lib(m, "grade/lib/libforeign.so", {"libcudart.so.13"}, {"$ORIGIN/../../other/lib", "$ORIGIN/../../nvidia/cu13/lib"});
  add_lib(m, "grade/lib/libup.so", {"libcudart.so.13"}, {"$ORIGIN/../../../up", "$ORIGIN/../../nvidia/cu13/lib"});
  add_lib(m, "grade/lib/libcwd.so", {}, {"lib"});
  auto fs = only({m}, "unresolved-runpath");
  std::map<std::string, Severity> by;
  for (const auto& f : fs) by[f.member] = f.severity;
  EXPECT_EQ(by["grade/lib/libown.so"], Severity::note) << dump(fs);      // inside the wheel's own folder
  EXPECT_EQ(by["grade/lib/libforeign.so"], Severity::warning) << dump(fs);  // another distribution could fill it
  EXPECT_EQ(by["grade/lib/libup.so"], Severity::warning) << dump(fs);   // above site-packages
  EXPECT_EQ(by["grade/lib/libcwd.so"], Severity::error) << dump(fs);    // the working directory
}

TEST(RulesLoading, UndeclaredNvidiaFolderForDlopenOnlyIsAWarning) {
  // jax's plugins: system NEEDs only, RUNPATH into NVIDIA folders for dlopen.
  auto m = wheel_model("plug", {});
  add_lib(m, "plug/xla.so", {"libc.so.6"}, {"$ORIGIN/../nvidia/cu13/lib"});
  auto fs = only({m}, "unresolved-runpath");
  EXPECT_EQ(count_sev(fs, "unresolved-runpath", Severity::warning), 1u) << dump(fs);
  // A NEEDED searched there: the undeclared package is what makes it load.
  auto n = wheel_model("plug", {});
  add_lib(n, "plug/xla.so", {"libcublas.so.13"}, {"$ORIGIN/../nvidia/cu13/lib"});
  auto fs2 = only({n}, "unresolved-runpath");
  EXPECT_EQ(count_sev(fs2, "unresolved-runpath", Severity::error), 1u) << dump(fs2);
}

TEST(RulesLoading, NeededPythonExtensionModuleIsInTheProcessFirst) {
  // triton/plugins/libMLIRDialectPlugin.so NEEDs libtriton.so, the
  // extension module triton/_C/libtriton.so (a PyInit_ export only).
  auto make = [](bool extension) {
    auto m = wheel_model("tri", {});
    add_lib(m, "tri/_C/libtri.so", {});
    if (extension) m.libraries.back().exports = {"PyInit_libtri"};
    add_lib(m, "tri/plugins/libplug.so", {"libtri.so"}, {"$ORIGIN/../lib"});
    return m;
  };
  auto fs = only({make(true)}, "unresolved-needed");
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::note), 1u) << dump(fs);
  auto fs2 = only({make(false)}, "unresolved-needed");
  EXPECT_EQ(count_sev(fs2, "unresolved-needed", Severity::error), 1u) << dump(fs2);
}

TEST(RulesLoading, OtherMajorsFolderSearchedFirstLoadsTheOtherBuild) {
  // A CUDA 12 wheel: CUDA 13's cuSPARSE installs libcusparse.so.12 into
  // nvidia/cu13/lib, so that folder searched first takes CUDA 13's build.
  auto first = wheel_model("pkg-cu12", {"nvidia-cusparse-cu12>=12.0"});
  add_lib(first, "pkg/lib/libk.so", {"libcusparse.so.12"},
          {"$ORIGIN/../../nvidia/cu13/lib", "$ORIGIN/../../nvidia/cusparse/lib"});
  auto fs = only({first}, "unresolved-runpath");
  EXPECT_EQ(count_sev(fs, "unresolved-runpath", Severity::error), 1u) << dump(fs);
  // libraft-cu12's order: its own major's folders first, CUDA 13's last.
  auto last = wheel_model("pkg-cu12", {"nvidia-cusparse-cu12>=12.0"});
  add_lib(last, "pkg/lib/libk.so", {"libcusparse.so.12"},
          {"$ORIGIN/../../nvidia/cusparse/lib", "$ORIGIN/../../nvidia/cu13/lib"});
  auto fs2 = only({last}, "unresolved-runpath");
  EXPECT_EQ(count_sev(fs2, "unresolved-runpath", Severity::error), 0u) << dump(fs2);
  EXPECT_EQ(count_sev(fs2, "unresolved-runpath", Severity::warning), 1u) << dump(fs2);
}

TEST(RulesLoading, SharedCuda13FolderIsNoEvidenceOfUse) {
  // NEEDs libcudart.so.13 only; nvidia/cu13/lib on RUNPATH says nothing
  // about nvidia-cublas, which nothing uses.
  auto m = wheel_model("pkg", {"nvidia-cuda-runtime>=13.0", "nvidia-cublas>=13.0"});
  add_lib(m, "pkg/lib/libk.so", {"libcudart.so.13"}, {"$ORIGIN/../../nvidia/cu13/lib"});
  auto fs = only({m}, "unused-dependency");
  ASSERT_EQ(count(fs, "unused-dependency"), 1u) << dump(fs);
  EXPECT_NE(fs[0].message.find("nvidia-cublas"), std::string::npos) << fs[0].message;
  EXPECT_EQ(fs[0].message.find("nvidia-cuda-runtime"), std::string::npos) << fs[0].message;
  // CUDA 12's per-package folder is evidence (it may serve dlopen).
  auto own = wheel_model("pkg", {"nvidia-cuda-runtime-cu12>=12.0", "nvidia-cublas-cu12>=12.0"});
  add_lib(own, "pkg/lib/libk.so", {"libcudart.so.12"},
          {"$ORIGIN/../../nvidia/cuda_runtime/lib", "$ORIGIN/../../nvidia/cublas/lib"});
  auto fs2 = only({own}, "unused-dependency");
  EXPECT_EQ(count(fs2, "unused-dependency"), 0u) << dump(fs2);
}

// --- what is not evidence of a plugin (hostile review) -----------------------

namespace {
CheckModel plugin_case(std::vector<std::string> strings, std::vector<model::PythonLoad> py) {
  auto m = wheel_model("pl", {});
  add_lib(m, "pl/lib/libcore.so", {"libmissing.so.1"});
  add_lib(m, "pl/lib/libother.so", {});
  m.libraries.back().library_strings = std::move(strings);
  m.python_loads = std::move(py);
  return m;
}
}  // namespace

TEST(RulesLoading, WeakPluginEvidenceKeepsTheError) {
  using K = model::PythonLoad::Kind;
  // Loaded by ctypes at import by its quoted name: no plugin.
  auto quoted = plugin_case({}, {model::PythonLoad{"pl/__init__.py", K::soname, "libcore.so"}});
  EXPECT_EQ(count_sev(only({quoted}, "unresolved-needed"), "unresolved-needed", Severity::error), 1u);
  // Patterns that would name every library.
  auto generic = plugin_case({"%s.so", "lib%s.so"}, {});
  EXPECT_EQ(count_sev(only({generic}, "unresolved-needed"), "unresolved-needed", Severity::error), 1u);
  // An f-string family with one member is no set of alternatives.
  auto single = plugin_case({}, {model::PythonLoad{"pl/__init__.py", K::file_pattern, "libcore*"}});
  EXPECT_EQ(count_sev(only({single}, "unresolved-needed"), "unresolved-needed", Severity::error), 1u);
  // The pattern with a real prefix does make it a plugin.
  auto real = plugin_case({"libcor%s.so"}, {});
  EXPECT_EQ(count_sev(only({real}, "unresolved-needed"), "unresolved-needed", Severity::note), 1u);
}

TEST(RulesLoading, FStringFamilyOfTwoBackendsIsEvidence) {
  using K = model::PythonLoad::Kind;
  auto m = wheel_model("bnb", {});
  add_lib(m, "bnb/libbnb_cuda118.so", {"libcudart.so.11.0"});
  add_lib(m, "bnb/libbnb_rocm64.so", {"libhipblas.so.2"});
  m.python_loads = {model::PythonLoad{"bnb/cext.py", K::file_pattern, "libbnb_*"}};
  auto fs = only({m}, "unresolved-needed");
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::error), 0u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::note), 2u) << dump(fs);
}

// A plugin's absolute RUNPATH entry that is the standard prefix of the
// runtime it NEEDs is a note; any other absolute entry of a plugin a
// warning; the same entry on a library every machine loads an error.
TEST(RulesLoading, PluginRuntimePrefixIsANoteOtherAbsoluteEntriesAreNot) {
  auto grade = [](const std::string& needed, const std::string& entry, bool plugin) {
    auto m = wheel_model("bk", {});
    add_lib(m, "bk/lib/libhost.so", {});
    if (plugin) m.libraries.back().library_strings = {"libbk_%s.so"};
    add_lib(m, "bk/lib/libbk_backend.so", {needed}, {entry});
    auto fs = only({m}, "build-machine-path");
    EXPECT_EQ(fs.size(), 1u) << dump(fs);
    return fs.empty() ? Severity::off : fs[0].severity;
  };
  EXPECT_EQ(grade("libamdhip64.so.6", "/opt/rocm-6.4.4/lib", true), Severity::note);
  EXPECT_EQ(grade("libhipblas.so.2", "/opt/rocm/core-7.14/lib", true), Severity::note);
  EXPECT_EQ(grade("libcudart.so.11.0", "/usr/local/cuda-11.8/targets/x86_64-linux/lib", true), Severity::note);
  EXPECT_EQ(grade("libcudart.so.11.0", "/usr/local/cuda/lib64", true), Severity::note);
  // Not the runtime it NEEDs, not a standard prefix, another major.
  EXPECT_EQ(grade("libmine.so.1", "/opt/rocm/lib", true), Severity::warning);
  EXPECT_EQ(grade("libamdhip64.so.6", "/opt/vendor/lib", true), Severity::warning);
  EXPECT_EQ(grade("libcudart.so.11.0", "/usr/local/cuda-12.4/lib64", true), Severity::warning);
  EXPECT_EQ(grade("libamdhip64.so.6", "/home/ci/opt/rocm/lib", true), Severity::warning);
  EXPECT_EQ(grade("librocksdb.so.8", "/opt/rocm-6.4/lib", true), Severity::warning);  // not ROCm's
  EXPECT_EQ(grade("libcublas.so", "/usr/local/cuda-12.4/lib64", true), Severity::warning);  // no version: no match
  EXPECT_EQ(grade("libcublas.so.12", "/usr/local/cuda-12.4/lib64", true), Severity::note);
  // Not a plugin: every machine searches it.
  EXPECT_EQ(grade("libamdhip64.so.6", "/opt/rocm/lib", false), Severity::error);
}

TEST(RulesLoading, PluginThatMissesALibraryOfTheWheelIsAnError) {
  // It NEEDs libdep.so, which the wheel ships in pl/dep, but its RUNPATH is
  // $ORIGIN: it cannot load anywhere.
  auto m = wheel_model("pl", {});
  add_lib(m, "pl/lib/libhost.so", {});
  m.libraries.back().library_strings = {"pl_transport_%s.so"};
  add_lib(m, "pl/lib/pl_transport_ucx.so", {"libdep.so"}, {"$ORIGIN"});
  add_lib(m, "pl/dep/libdep.so", {});
  auto fs = only({m}, "unresolved-needed");
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::error), 1u) << dump(fs);
}

TEST(PythonLoads, CommentsAreNotCallsAndLargeFilesStayLinear) {
  const std::string src =
      "# see load_nvidia_dynamic_lib(name) in pathfinder\nx = {'cublas': 1}\n"
      "y = 1  # ctypes.CDLL('libmissing.so.1')\n";
  auto loads = model::python_loads("p.py", ByteView(reinterpret_cast<const uint8_t*>(src.data()), src.size()));
  EXPECT_TRUE(loads.empty());
  // One 3 MB line of calls with no newline stays linear too.
  std::string calls;
  for (int i = 0; i < 100000; ++i) calls += "load_nvidia_dynamic_lib(n) ";
  auto none = model::python_loads("p.py", ByteView(reinterpret_cast<const uint8_t*>(calls.data()), calls.size()));
  EXPECT_TRUE(none.empty());
  // 250,000 distinct quoted sonames and one 3 MB line of " nvidia.x": the
  // scan finishes (it was quadratic) and keeps at most 4,096 loads.
  std::string big;
  for (int i = 0; i < 250000; ++i) big += "\"lib" + std::to_string(1000000 + i) + ".so\"\n";
  for (int i = 0; i < 300000; ++i) big += " nvidia.x";
  auto many = model::python_loads("p.py", ByteView(reinterpret_cast<const uint8_t*>(big.data()), big.size()));
  EXPECT_EQ(many.size(), 4096u);
}

TEST(RulesWheel, MalformedManylinuxNameIsNoHarmlessRename) {
  for (const char* plat : {"manylinuxevil_x86_64", "manylinux_x_y_x86_64", "manylinux_2_28_", "musllinux_1_x86_64"}) {
    CheckModel m;
    m.kind = CheckModel::Kind::wheel;
    m.dist_info = "p-1.0.dist-info";
    auto fn = WheelFilename::parse(std::string("p-1.0-py3-none-") + plat + ".whl");
    if (!fn) continue;  // the file name parser refuses it outright: fine
    m.parsed_filename = *fn;
    WheelInfo wi;
    wi.tags = {"py3-none-linux_x86_64"};
    m.wheel_info = wi;
    auto fs = only({m}, "tag-mismatch");
    EXPECT_EQ(count_sev(fs, "tag-mismatch", Severity::error), 1u) << plat << "\n" << dump(fs);
  }
}

TEST(RulesLoading, CtypesLibraryFindsWhatAnImportedExtensionFound) {
  // paddle: libmklml_intel.so (opened with ctypes) NEEDs libiomp5.so with
  // no RUNPATH; libpaddle.so, an extension module, NEEDs and finds it.
  auto make = [](bool extension) {
    auto m = wheel_model("pd", {});
    add_lib(m, "pd/base/libpd.so", {"libiomp5.so"}, {"$ORIGIN/../libs"});
    if (extension) m.libraries.back().exports = {"PyInit_libpd"};
    add_lib(m, "pd/libs/libiomp5.so", {});
    add_lib(m, "pd/libs/libmkl.so", {"libiomp5.so"});
    return m;
  };
  auto fs = only({make(true)}, "unresolved-needed");
  EXPECT_EQ(count_sev(fs, "unresolved-needed", Severity::warning), 1u) << dump(fs);
  auto fs2 = only({make(false)}, "unresolved-needed");
  EXPECT_EQ(count_sev(fs2, "unresolved-needed", Severity::error), 1u) << dump(fs2);
}

TEST(RulesLoading, UndeclaredLibraryOpenedByNameIsAWarning) {
  // ctranslate2: libcublas.so.12 is only a string in .rodata.
  auto make = [](std::vector<std::string> requires_dist) {
    auto m = wheel_model("ct2", std::move(requires_dist));
    add_lib(m, "ct2/lib/libct2.so", {"libc.so.6"});
    m.libraries.back().dlopen_names = {"libcublas.so", "libcublas.so.12"};
    return m;
  };
  auto fs = only({make({})}, "undeclared-dependency");
  ASSERT_EQ(count_sev(fs, "undeclared-dependency", Severity::warning), 1u) << dump(fs);
  EXPECT_NE(fs[0].message.find("libcublas.so.12"), std::string::npos) << fs[0].message;
  EXPECT_EQ(fs[0].message.find("libcublas.so,"), std::string::npos) << fs[0].message;  // the dev name is left out
  auto fs2 = only({make({"nvidia-cublas-cu12>=12.1"})}, "undeclared-dependency");
  EXPECT_EQ(count(fs2, "undeclared-dependency"), 0u) << dump(fs2);
}

TEST(RulesLoading, LibraryNamingBothMajorsIsNotAskedForEither) {
  // A library that holds libcublas.so.12 and libcublas.so.13 probes for
  // whichever major is installed (or only tables the names): neither
  // package is required, nor are the packages that differ per major
  // (libcudnn.so.9) or exist in one major only (libnvToolsExt.so.1).
  auto m = wheel_model("probe", {});
  add_lib(m, "probe/lib/libprobe.so", {"libc.so.6"});
  m.libraries.back().dlopen_names = {"libcublas.so.12", "libcublas.so.13", "libcudnn.so.9", "libnvToolsExt.so.1"};
  auto fs = only({m}, "undeclared-dependency");
  EXPECT_EQ(count(fs, "undeclared-dependency"), 0u) << dump(fs);
  // The same names in one major only are still each a warning.
  auto one = wheel_model("probe", {});
  add_lib(one, "probe/lib/libprobe.so", {"libc.so.6"});
  one.libraries.back().dlopen_names = {"libcublas.so.12", "libcudnn.so.9"};
  auto fs1 = only({one}, "undeclared-dependency");
  EXPECT_EQ(count_sev(fs1, "undeclared-dependency", Severity::warning), 2u) << dump(fs1);
}

TEST(RulesLoading, BothLayoutsAsFallbacksIsANote) {
  // cuDNN's libraries list CUDA 12 and CUDA 13 folders and NEED nothing
  // that the other major's folder could hold.
  auto m = wheel_model("pkg-cu13", {"nvidia-cuda-runtime>=13.0"});
  add_lib(m, "pkg/lib/libk.so", {"libcudart.so.13"},
          {"$ORIGIN/../../nvidia/cu13/lib", "$ORIGIN/../../nvidia/cuda_runtime/lib"});
  auto fs = only({m}, "unresolved-runpath");
  EXPECT_EQ(count_sev(fs, "unresolved-runpath", Severity::note), 1u) << dump(fs);
  EXPECT_EQ(count_sev(fs, "unresolved-runpath", Severity::warning), 0u) << dump(fs);
}

TEST(PythonLoads, TorchPreloadGlobsLoadTheirLibrary) {
  const std::string src = "cuda_libs = [(\"cusolver\", \"libcusolver.so.*[0-9]\")]\n";
  auto loads = model::python_loads("torch/__init__.py", ByteView(reinterpret_cast<const uint8_t*>(src.data()), src.size()));
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_TRUE(loads[0].loads("libcusolver.so.12"));
  EXPECT_FALSE(loads[0].loads("libcusolverMg.so.12"));
}

TEST(RulesWheelModel, UnsafePathIsCappedAndSummedUp) {
  // A hostile wheel of many `../` members: 20 findings and one that counts
  // the rest, so the report (and a SARIF upload) stays readable.
  auto make = [](size_t n) {
    auto m = wheel_model("hostile", {});
    for (size_t i = 0; i < n; ++i) {
      MemberModel mm;
      mm.name = "../escape" + std::to_string(i);
      mm.issues = kIssueDotDot;
      m.members.push_back(mm);
    }
    return m;
  };
  auto fs = only({make(26000)}, "unsafe-path");
  ASSERT_EQ(count(fs, "unsafe-path"), 21u) << dump(fs);
  EXPECT_TRUE(std::any_of(fs.begin(), fs.end(), [](const Finding& f) {
    return f.message.find("and 25980 more unsafe member names (26000 in all)") != std::string::npos;
  })) << dump(fs);
  auto few = only({make(20)}, "unsafe-path");
  EXPECT_EQ(count(few, "unsafe-path"), 20u);
  for (const auto& f : few) EXPECT_EQ(f.message.find("more unsafe"), std::string::npos) << f.message;
  EXPECT_EQ(count(only({make(0)}, "unsafe-path"), "unsafe-path"), 0u);
}
