// `cuwheel repair` as a library (cuwheel/repair/repair.h) on the twin
// fixtures of tests/fixtures/make_repair.sh, and the manylinux table it
// chooses tags with (cuwheel/wheel/manylinux.h). The CLI, the real loader
// and readelf are tests/e2e/repair_test.sh's.
#include "cuwheel/repair/repair.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "cuwheel/check/check.h"
#include "cuwheel/wheel/manylinux.h"
#include "cuwheel/wheel/writer.h"

namespace cuwheel::repair {
namespace {

namespace fs = std::filesystem;
const std::string kDir = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/repair/";
const std::string kTag = "-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/cuwheel-repair-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { fs::remove_all(path); }
};

model::CheckModel load(const std::string& path) {
  auto ms = model::build_models(path, {});
  EXPECT_TRUE(ms) << (ms ? "" : ms.error().message());
  EXPECT_EQ(ms->size(), 1u);
  return std::move(ms->front());
}

struct Planned {
  model::CheckModel model;
  RepairPlan plan;
};
Planned plan_of(const std::string& path, RepairOptions o = {}) {
  Planned p{load(path), {}};
  std::vector<model::CheckModel> one{p.model};
  check::Policy policy;
  policy.ignore = {"no-device-code"};  // the fixtures are gcc stubs
  auto findings = check::run_rules(one, policy);
  auto providers = model::Providers::builtin();
  o.system_search = false;
  auto plan = plan_repair(p.model, findings, providers, o);
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().message());
  if (plan) p.plan = std::move(*plan);
  return p;
}

std::vector<std::string> check_errors(const std::string& path) {
  auto ms = model::build_models(path, {});
  EXPECT_TRUE(ms);
  check::Policy policy;
  policy.ignore = {"no-device-code"};
  std::vector<std::string> out;
  for (const auto& f : check::run_rules(*ms, policy))
    if (f.severity == Severity::error) out.push_back(f.rule + ": " + f.message);
  return out;
}

// A copy of the fixture wheel `in` at `out`, with the members of `extra`
// added or put in place of the input's (RECORD regenerated).
void craft(const std::string& in, const std::string& out, const std::map<std::string, std::string>& extra) {
  auto w = Wheel::open(in);
  ASSERT_TRUE(w);
  std::vector<OutMember> members;
  std::string record;
  for (const auto& zm : w->members()) {
    if (zm.name.find("/RECORD") != std::string::npos) {
      record = zm.name;
      continue;
    }
    if (extra.count(zm.name)) continue;
    OutMember om;
    om.name = zm.name;
    om.keep = &zm;
    members.push_back(std::move(om));
  }
  for (const auto& [name, text] : extra) {
    OutMember om;
    om.name = name;
    om.bytes.assign(text.begin(), text.end());
    members.push_back(std::move(om));
  }
  ASSERT_TRUE(write_wheel(*w, std::move(members), record, nullptr, out));
}

TEST(Manylinux, TagsAndTable) {
  EXPECT_EQ(platform_tag_glibc("manylinux2014_x86_64"), 17);
  EXPECT_EQ(platform_tag_glibc("manylinux_2_28_aarch64"), 28);
  EXPECT_EQ(platform_tag_glibc("manylinux1_x86_64"), 5);
  EXPECT_FALSE(platform_tag_glibc("linux_x86_64"));
  EXPECT_FALSE(platform_tag_glibc("musllinux_1_2_x86_64"));
  EXPECT_EQ(manylinux_tags(17, "x86_64"), (std::vector<std::string>{"manylinux_2_17_x86_64", "manylinux2014_x86_64"}));
  EXPECT_EQ(manylinux_tags(28, "aarch64"), (std::vector<std::string>{"manylinux_2_28_aarch64"}));
  SymbolVersionNeeds n;
  n.add("a.so", "GLIBC_2.2.5");
  EXPECT_EQ(most_compatible_glibc(n), 17);
  n.add("b.so", "GLIBCXX_3.4.21");  // GCC 5: beyond manylinux2014's 3.4.19
  EXPECT_EQ(most_compatible_glibc(n), 24);
  n.add("c.so", "GLIBC_2.34");
  EXPECT_EQ(most_compatible_glibc(n), 34);
  EXPECT_EQ(n.glibc->member, "c.so");
  n.add("d.so", "GLIBC_ABI_DT_RELR");
  EXPECT_EQ(most_compatible_glibc(n), 36);
  n.add("e.so", "GLIBC_2.99");
  EXPECT_FALSE(most_compatible_glibc(n));
  EXPECT_FALSE(parse_dotted_version("2."));
  EXPECT_FALSE(parse_dotted_version("x"));
  EXPECT_EQ(dotted_version_text(*parse_dotted_version("3.4.21")), "3.4.21");
}

TEST(Repair, BundledMathLibrariesBecomeDependencies) {
  auto p = plan_of(kDir + "rf_math_cu12_bad" + kTag);
  ASSERT_EQ(p.plan.removed.size(), 2u);
  std::vector<std::string> reqs;
  for (const auto& r : p.plan.requirements) {
    EXPECT_TRUE(r.before.empty());
    reqs.push_back(r.requirement);
  }
  std::sort(reqs.begin(), reqs.end());
  EXPECT_EQ(reqs, (std::vector<std::string>{"nvidia-cublas-cu12>=12,<13", "nvidia-cuda-runtime-cu12>=12,<13"}));
  const std::string ext = "rf_math_cu12_bad/_C.cpython-312-x86_64-linux-gnu.so";
  ASSERT_TRUE(p.plan.edits.count(ext));
  EXPECT_EQ(*p.plan.edits[ext].search_path, "$ORIGIN/../nvidia/cuda_runtime/lib:$ORIGIN/../nvidia/cublas/lib");
  EXPECT_TRUE(p.plan.edits[ext].runpath);
  EXPECT_FALSE(p.plan.retagged);
  EXPECT_TRUE(p.plan.problems.empty());
  EXPECT_TRUE(p.plan.changes());
}

TEST(Repair, CleanTwinsNeedNothing) {
  for (const char* w : {"rf_driver_good", "rf_math_cu12_good", "rf_renamed_cu12_good", "rf_abs_cu12_good",
                        "rf_origin_cu13_good", "rf_nccl_cu13_good", "rf_undeclared_cu13_good", "rf_dlopen_cu13_good"}) {
    auto p = plan_of(kDir + w + kTag);
    EXPECT_FALSE(p.plan.changes()) << w;
    EXPECT_TRUE(p.plan.problems.empty()) << w;
    EXPECT_EQ(p.plan.output_name, std::string(w) + kTag);
  }
}

TEST(Repair, AppliedOutputsPassTheCheckAndRepairToThemselves) {
  TempDir t;
  for (const char* w : {"rf_driver_bad", "rf_math_cu12_bad", "rf_renamed_cu12_bad", "rf_abs_cu12_bad",
                        "rf_origin_cu13_bad", "rf_nccl_cu13_bad", "rf_undeclared_cu13_bad", "rf_dlopen_cu13_bad", "rf_chain"}) {
    const std::string in = kDir + w + kTag;
    EXPECT_FALSE(check_errors(in).empty()) << w << " should fail the check before repair";
    auto p = plan_of(in);
    ASSERT_TRUE(p.plan.changes()) << w;
    const std::string out = t.path + "/" + p.plan.output_name;
    auto s = apply_repair(p.model, p.plan, out);
    ASSERT_TRUE(s) << w << ": " << s.error().message();
    EXPECT_EQ(check_errors(out), std::vector<std::string>{}) << w;
    auto again = plan_of(out);
    EXPECT_FALSE(again.plan.changes()) << w << " changes again";
  }
}

TEST(Repair, RenamedRuntimeGetsItsVersionNeedsBack) {
  auto p = plan_of(kDir + "rf_renamed_cu12_bad" + kTag);
  const std::string ext = "rf_renamed_cu12_bad/_C.cpython-312-x86_64-linux-gnu.so";
  ASSERT_TRUE(p.plan.edits.count(ext));
  const auto& rn = p.plan.edits[ext].replace_needed;
  ASSERT_EQ(rn.size(), 1u);
  EXPECT_EQ(rn[0], (std::pair<std::string, std::string>{"libcudart-0123abcd.so.12", "libcudart.so.12"}));
}

TEST(Repair, TagChoiceAndPlat) {
  // A graft that cannot be found (no system search, no folder given) is a
  // problem of the plan, not an error.
  auto g = plan_of(kDir + "rf_graft-1.0-cp312-cp312-linux_x86_64.whl");
  EXPECT_EQ(g.plan.platform_tags, (std::vector<std::string>{"manylinux_2_17_x86_64", "manylinux2014_x86_64"}));
  EXPECT_TRUE(g.plan.retagged);
  ASSERT_EQ(g.plan.problems.size(), 1u);
  EXPECT_NE(g.plan.problems[0].find("libfoo.so.1"), std::string::npos);
  // Found in a folder given: grafted with auditwheel's names, the extension
  // finds it through <dist>.libs.
  RepairOptions o;
  o.library_path = {kDir + "host"};
  auto found = plan_of(kDir + "rf_graft-1.0-cp312-cp312-linux_x86_64.whl", o);
  ASSERT_EQ(found.plan.grafted.size(), 2u);
  for (const auto& x : found.plan.grafted) {
    EXPECT_EQ(x.member.rfind("rf_graft.libs/lib", 0), 0u) << x.member;
    EXPECT_EQ(x.soname.size(), x.needed.size() + 9) << x.soname;  // "-" and 8 hex digits
  }
  EXPECT_TRUE(found.plan.problems.empty());
  // --plat: another manylinux tag the libraries allow; one of another
  // architecture, or not manylinux, is an error.
  o.plat = "manylinux_2_28_x86_64";
  auto plat = plan_of(kDir + "rf_graft-1.0-cp312-cp312-linux_x86_64.whl", o);
  EXPECT_EQ(plat.plan.output_name, "rf_graft-1.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  auto m = load(kDir + "rf_chain" + kTag);
  auto providers = model::Providers::builtin();
  for (const char* bad : {"linux_x86_64", "macosx_11_0_arm64", "manylinux_2_99_x86_64"}) {
    RepairOptions b;
    b.plat = bad;
    auto r = plan_repair(m, {}, providers, b);
    EXPECT_FALSE(r) << bad;
    EXPECT_FALSE(validate_plat(bad)) << bad;
  }
  // A tag of another architecture is a problem of the plan (exit 1).
  RepairOptions other;
  other.plat = "manylinux_2_28_aarch64";
  auto r = plan_repair(m, {}, providers, other);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_NE(r->problems[0].find("it is for aarch64"), std::string::npos);
}

TEST(Repair, RpathAgainstRunpath) {
  // Kept as the extension's DT_RPATH, which serves libb.so too: one library
  // edited. As DT_RUNPATH, libb.so needs an entry of its own.
  auto keep = plan_of(kDir + "rf_chain" + kTag);
  EXPECT_EQ(keep.plan.edits.size(), 1u);
  RepairOptions o;
  o.tag = RepairOptions::Tag::runpath;
  auto rp = plan_of(kDir + "rf_chain" + kTag, o);
  EXPECT_EQ(rp.plan.edits.size(), 2u);
  ASSERT_TRUE(rp.plan.edits.count("rf_chain/lib/libb.so"));
  EXPECT_EQ(*rp.plan.edits["rf_chain/lib/libb.so"].search_path, "$ORIGIN");
  EXPECT_TRUE(rp.plan.edits["rf_chain/lib/libb.so"].runpath);
}

TEST(Repair, ExcludeLeavesANameOutside) {
  RepairOptions o;
  o.exclude = {"libcublas.so.*"};
  auto p = plan_of(kDir + "rf_math_cu12_bad" + kTag, o);
  ASSERT_EQ(p.plan.removed.size(), 1u);
  EXPECT_NE(p.plan.removed[0].member.find("libcudart"), std::string::npos);
}

TEST(Repair, AuditwheelExcludes) {
  auto math = plan_of(kDir + "rf_math_cu12_bad" + kTag);
  EXPECT_EQ(auditwheel_excludes(math.model, math.plan), (std::vector<std::string>{"libcublas.so.12", "libcudart.so.12"}));
  auto drv = plan_of(kDir + "rf_driver_bad" + kTag);
  EXPECT_EQ(auditwheel_excludes(drv.model, drv.plan), (std::vector<std::string>{"libcuda.so.1"}));
  auto dl = plan_of(kDir + "rf_dlopen_cu13_bad" + kTag);
  EXPECT_EQ(auditwheel_excludes(dl.model, dl.plan), (std::vector<std::string>{"libnvrtc.so.13"}));
  auto chain = plan_of(kDir + "rf_chain" + kTag);
  EXPECT_EQ(auditwheel_excludes(chain.model, chain.plan), (std::vector<std::string>{}));
}

TEST(Repair, MetadataWithABodyAndCrlfKeepsItsShape) {
  // A METADATA with CRLF line ends, a Requires-Dist and a description body:
  // the requirement goes after the last Requires-Dist, the body stays.
  TempDir t;
  const std::string in = kDir + "rf_math_cu12_bad" + kTag;
  const std::string crafted = t.path + "/" + fs::path(in).filename().string();
  craft(in, crafted,
        {{"rf_math_cu12_bad-1.0.dist-info/METADATA",
          "Metadata-Version: 2.1\r\nName: rf_math_cu12_bad\r\nVersion: 1.0\r\nRequires-Dist: numpy\r\n"
          "Summary: x\r\n\r\nRequires-Dist: this is the body, not a header\r\n"}});
  auto p = plan_of(crafted);
  fs::create_directory(t.path + "/out");
  const std::string out = t.path + "/out/" + p.plan.output_name;
  ASSERT_TRUE(apply_repair(p.model, p.plan, out));
  auto r = Wheel::open(out);
  ASSERT_TRUE(r);
  const ZipMember* meta = r->find("rf_math_cu12_bad-1.0.dist-info/METADATA");
  ASSERT_TRUE(meta);
  auto b = r->read(*meta);
  ASSERT_TRUE(b);
  const std::string text(reinterpret_cast<const char*>(b->view().data()), b->view().size());
  EXPECT_EQ(text,
            "Metadata-Version: 2.1\r\nName: rf_math_cu12_bad\r\nVersion: 1.0\r\nRequires-Dist: numpy\r\n"
            "Requires-Dist: nvidia-cublas-cu12>=12,<13\r\nRequires-Dist: nvidia-cuda-runtime-cu12>=12,<13\r\n"
            "Summary: x\r\n\r\nRequires-Dist: this is the body, not a header\r\n");
}

TEST(Repair, WheelBuildFieldFollowsTheFileName) {
  // PEP 427: installers order by the file name's build tag and never read
  // WHEEL's Build field, so repair makes the field say what the name says:
  // written when the name has a build tag, removed when it has none.
  TempDir t;
  const std::string in = kDir + "rf_math_cu12_bad" + kTag;
  auto wheel_text = [](const std::string& path) {
    auto r = Wheel::open(path);
    EXPECT_TRUE(r);
    const ZipMember* m = r ? r->find("rf_math_cu12_bad-1.0.dist-info/WHEEL") : nullptr;
    EXPECT_TRUE(m);
    if (!m) return std::string();
    auto b = r->read(*m);
    EXPECT_TRUE(b);
    return b ? std::string(reinterpret_cast<const char*>(b->view().data()), b->view().size()) : std::string();
  };
  const std::string head =
      "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: cp312-cp312-manylinux_2_17_x86_64\n"
      "Tag: cp312-cp312-manylinux2014_x86_64\n";
  fs::create_directory(t.path + "/out");
  {
    // Named with build tag 7, WHEEL silent: "Build: 7" appears.
    const std::string crafted =
        t.path + "/rf_math_cu12_bad-1.0-7-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";
    craft(in, crafted, {{"rf_math_cu12_bad-1.0.dist-info/WHEEL", head}});
    auto p = plan_of(crafted);
    EXPECT_NE(p.plan.platform_reason.find("Build field set to the file name's build tag 7"), std::string::npos)
        << p.plan.platform_reason;
    const std::string out = t.path + "/out/" + p.plan.output_name;
    ASSERT_TRUE(apply_repair(p.model, p.plan, out));
    const std::string w = wheel_text(out);
    EXPECT_NE(w.find("\nBuild: 7\n"), std::string::npos) << w;
    EXPECT_EQ(check_errors(out), std::vector<std::string>{});
  }
  {
    // No build tag in the name, WHEEL says Build: 3: the line goes.
    const std::string crafted = t.path + "/" + fs::path(in).filename().string();
    craft(in, crafted, {{"rf_math_cu12_bad-1.0.dist-info/WHEEL", head + "Build: 3\n"}});
    auto p = plan_of(crafted);
    EXPECT_NE(p.plan.platform_reason.find("Build field removed"), std::string::npos) << p.plan.platform_reason;
    const std::string out = t.path + "/out/" + p.plan.output_name;
    ASSERT_TRUE(apply_repair(p.model, p.plan, out));
    const std::string w = wheel_text(out);
    EXPECT_EQ(w.find("Build:"), std::string::npos) << w;
  }
}

TEST(Repair, RemovedGraftsLeaveTheSbom) {
  // auditwheel >= 6.5 lists what it grafted in .dist-info/sboms/ (PEP 770),
  // each component's bom-ref ending in "#<SHA-256>" (auditwheel 6.8: of the
  // path it copied from; the copy's name carries the file's): the copy
  // repair removes (libcudart-0123abcd.so.12) leaves the SBOM too.
  TempDir t;
  const std::string in = kDir + "rf_renamed_cu12_bad" + kTag;
  const std::string sbom = R"({"bomFormat": "CycloneDX", "specVersion": "1.4", "components": [
    {"type": "library", "bom-ref": "pkg:pypi/rf_renamed_cu12_bad@1.0", "name": "rf_renamed_cu12_bad"},
    {"type": "library", "bom-ref": "pkg:rpm/nvidia/cuda-cudart-12-8@12.8.90#0123abcdef99", "name": "cuda-cudart-12-8"},
    {"type": "library", "bom-ref": "pkg:rpm/nvidia/cuda-cudart-devel@12.8.90#87aef23b6019c8ead7513236401b978836a10ba3d7ac0845b79d400871d83527", "name": "cuda-cudart-devel"},
    {"type": "library", "bom-ref": "pkg:deb/debian/libgomp1@12.2.0#06ae55a9", "name": "libgomp1"}],
   "dependencies": [
    {"ref": "pkg:pypi/rf_renamed_cu12_bad@1.0",
     "dependsOn": ["pkg:rpm/nvidia/cuda-cudart-12-8@12.8.90#0123abcdef99", "pkg:deb/debian/libgomp1@12.2.0#06ae55a9"]},
    {"ref": "pkg:rpm/nvidia/cuda-cudart-12-8@12.8.90#0123abcdef99"}]})";
  const std::string crafted = t.path + "/" + fs::path(in).filename().string();
  craft(in, crafted, {{"rf_renamed_cu12_bad-1.0.dist-info/sboms/auditwheel.cdx.json", sbom}});
  auto p = plan_of(crafted);
  ASSERT_EQ(p.plan.removed.size(), 1u);
  fs::create_directory(t.path + "/out");
  const std::string out = t.path + "/out/" + p.plan.output_name;
  ASSERT_TRUE(apply_repair(p.model, p.plan, out));
  auto r = Wheel::open(out);
  ASSERT_TRUE(r);
  const ZipMember* m = r->find("rf_renamed_cu12_bad-1.0.dist-info/sboms/auditwheel.cdx.json");
  ASSERT_TRUE(m);
  auto b = r->read(*m);
  ASSERT_TRUE(b);
  const std::string text(reinterpret_cast<const char*>(b->view().data()), b->view().size());
  EXPECT_EQ(text.find("cuda-cudart"), std::string::npos) << text;  // by content hash, and by source path (auditwheel 6.8)
  EXPECT_NE(text.find("libgomp1"), std::string::npos) << text;
  EXPECT_NE(text.find("\"dependsOn\": [\n        \"pkg:deb/debian/libgomp1@12.2.0#06ae55a9\""), std::string::npos) << text;
  EXPECT_EQ(check_errors(out), std::vector<std::string>{});
}

TEST(Repair, ErrorsAreNamed) {
  auto providers = model::Providers::builtin();
  // Not a wheel.
  auto lib = model::build_models(kDir + "host/libfoo.so.1", {});
  ASSERT_TRUE(lib);
  auto r = plan_repair(lib->front(), {}, providers, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("repair takes wheels"), std::string::npos);
  // A wheel that could not be read in full.
  auto m = load(kDir + "rf_chain" + kTag);
  m.read_errors.emplace_back("x.whl:member", "bad CRC");
  r = plan_repair(m, {}, providers, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("bad CRC"), std::string::npos);
  // The output may not be the input.
  auto c = plan_of(kDir + "rf_chain" + kTag);
  EXPECT_FALSE(apply_repair(c.model, c.plan, kDir + "rf_chain" + kTag));
}

}  // namespace
}  // namespace cuwheel::repair
