// Architecture lists: the four forms, the named-form refusals, the release
// tables and the release list (include/cuwheel/cuda/arch.h).
#include <gtest/gtest.h>

#include "cuwheel/cuda/arch.h"

using namespace cuwheel::arch;

namespace {

std::string conv(std::string_view in, Form to) {
  auto t = parse_any(in);
  if (!t) return "ERR: " + t.error().message();
  auto s = format(*t, to);
  return s ? *s : "ERR: " + s.error().message();
}

std::string err(std::string_view in) {
  auto t = parse_any(in);
  return t ? std::string("(parsed)") : t.error().message();
}

Release R(const char* s) { return *parse_release(s); }

std::string list_of(const std::vector<Target>& v, Form f) { return *format(v, f); }

}  // namespace

TEST(ArchParse, TorchForm) {
  auto t = parse("7.5;8.0 9.0+PTX,9.0a", Form::kTorch);
  ASSERT_TRUE(t) << t.error().message();
  ASSERT_EQ(t->size(), 4u);
  EXPECT_EQ((*t)[0], (Target{75, Variant::kBase, true, false}));
  EXPECT_EQ((*t)[2], (Target{90, Variant::kBase, true, true}));
  EXPECT_EQ((*t)[3], (Target{90, Variant::kA, true, false}));
  EXPECT_EQ(conv("10.0f;12.0+PTX", Form::kList), "sm_100f,sm_120,compute_120");
}

TEST(ArchParse, CmakeForm) {
  EXPECT_EQ(conv("75-real;80-real;90", Form::kTorch), "7.5;8.0;9.0+PTX");
  EXPECT_EQ(conv("90a-real;120-virtual", Form::kList), "sm_90a,compute_120");
  EXPECT_EQ(conv("80-real;80-virtual", Form::kCmake), "80");  // merged
}

TEST(ArchParse, GencodeForm) {
  EXPECT_EQ(conv("-gencode arch=compute_90,code=[sm_90,compute_90] -gencode=arch=compute_75,code=sm_75", Form::kCmake),
            "75-real;90");
  EXPECT_EQ(conv("--generate-code arch=compute_100a,code=\"sm_100a\"", Form::kTorch), "10.0a");
  EXPECT_EQ(conv("-arch=sm_86", Form::kCmake), "86");  // nvcc: SASS and PTX
  EXPECT_EQ(conv("-gencode arch=compute_70,code=sm_75", Form::kList), "sm_75");
  EXPECT_NE(err("-gencode arch=compute_90,code=sm_80").find("older than arch=compute_90"), std::string::npos);
  EXPECT_NE(err("-gencode arch=compute_90,code=compute_80").find("differs"), std::string::npos);
  // nvcc's variant pairing (checked against nvcc 13.0 --dryrun and a real
  // compile): 'a' PTX only to its own sm_Xa; 'f' PTX within its family.
  for (const char* refused : {"arch=compute_90a,code=sm_90", "arch=compute_90a,code=sm_100a",
                              "arch=compute_100a,code=sm_100f", "arch=compute_100a,code=sm_103a"})
    EXPECT_NE(err(std::string("-gencode ") + refused).find("compiles only to sm_"), std::string::npos) << refused;
  for (const char* refused : {"arch=compute_100f,code=sm_120f", "arch=compute_100f,code=sm_110a"})
    EXPECT_NE(err(std::string("-gencode ") + refused).find("compiles only to its own family"), std::string::npos)
        << refused;
  EXPECT_NE(err("-gencode arch=compute_103f,code=sm_100f").find("older than"), std::string::npos);
  EXPECT_EQ(conv("-gencode arch=compute_90a,code=[sm_90a,compute_90a]", Form::kList), "sm_90a,compute_90a");
  EXPECT_EQ(conv("-gencode arch=compute_100f,code=sm_103a", Form::kList), "sm_103a");
  EXPECT_EQ(conv("-gencode arch=compute_100f,code=sm_100", Form::kList), "sm_100");
  EXPECT_EQ(conv("-gencode arch=compute_120f,code=sm_121f", Form::kList), "sm_121f");
  EXPECT_EQ(conv("-gencode arch=compute_100,code=sm_103f", Form::kList), "sm_103f");
  EXPECT_NE(err("-gencode").find("no value"), std::string::npos);
  EXPECT_NE(err("-gencode arch=compute_90 -O3").find("not of the form"), std::string::npos);
}

TEST(ArchParse, ListForm) {
  EXPECT_EQ(conv("sm_75,sm_80,compute_90", Form::kCmake), "75-real;80-real;90-virtual");
  EXPECT_EQ(conv("sm_75 sm_80 compute_90", Form::kGencode),
            "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 "
            "-gencode arch=compute_90,code=compute_90");
  EXPECT_NE(err("sm_75,sm_x").find("\"sm_x\""), std::string::npos);
}

TEST(ArchParse, NamedFormsAreRefused) {
  for (const char* n : {"Hopper", "Ampere+Tegra", "8.0;Hopper", "native", "all", "all-major", "75;all"}) {
    std::string e = err(n);
    EXPECT_NE(e.find("name the architectures explicitly"), std::string::npos) << n << ": " << e;
  }
  EXPECT_NE(err("Hopper").find("\"Hopper\""), std::string::npos);
}

TEST(ArchParse, BadInputNamesTheEntry) {
  EXPECT_NE(err("7.5;8.x").find("\"8.x\""), std::string::npos);
  EXPECT_NE(err("75;9x").find("\"9x\""), std::string::npos);
  EXPECT_NE(err("").find("empty"), std::string::npos);
  EXPECT_NE(err(" ;; ").find("empty"), std::string::npos);
  EXPECT_NE(err("08.0").find("\"08.0\""), std::string::npos);     // leading zero: not a number nvcc writes
  EXPECT_NE(err("sm_090").find("\"sm_090\""), std::string::npos);
  EXPECT_NE(err("sm_1234567890").find("not of the form"), std::string::npos);  // too long to be a number here
}

// Exit-status rule (docs/arch.md): a well-formed entry parses whatever its
// number, and check_known() says whether the architecture exists.
TEST(ArchParse, WellFormedButUnknownParses) {
  for (const char* in : {"sm_0", "sm_5", "sm_99", "compute_1000", "0.5", "0.0", "123.4", "5", "99-real", "-arch=sm_0"}) {
    auto t = parse_any(in);
    ASSERT_TRUE(t) << in << ": " << t.error().message();
    ASSERT_EQ(t->size(), 1u) << in;
    EXPECT_TRUE(check_known((*t)[0])) << in;
  }
  auto zero = parse_any("sm_0");
  EXPECT_EQ(*check_known((*zero)[0]), "sm_0 is not an NVIDIA GPU architecture any CUDA release can build");
  auto five = parse_any("0.5");
  EXPECT_EQ((*five)[0].sm, 5u);
  EXPECT_FALSE(check_known((*parse_any("sm_90"))[0]));
}

// Each consumer reads its spelling case-sensitively; a wrong case is refused
// with the spelling it reads.
TEST(ArchParse, CaseIsTheConsumers) {
  // PyTorch: arch.endswith('+PTX'), and "X.Ya" in its list of valid strings.
  EXPECT_EQ(err("8.0;9.0+ptx"),
            "TORCH_CUDA_ARCH_LIST entry \"9.0+ptx\": PyTorch reads only the exact spellings \"+PTX\" and a lower-case "
            "'a'/'f' (torch.utils.cpp_extension refuses any other case: \"Unknown CUDA arch\"): write '9.0+PTX'");
  EXPECT_NE(err("9.0+Ptx").find("write '9.0+PTX'"), std::string::npos);
  EXPECT_NE(err("9.0A").find("write '9.0a'"), std::string::npos);
  EXPECT_NE(err("9.0A+ptx").find("write '9.0a+PTX'"), std::string::npos);
  EXPECT_EQ(err("9.0+PTX;9.0a"), "(parsed)");
  // CMake: -real / -virtual and the a/f letters.
  EXPECT_EQ(err("80;90-REAL"),
            "CMAKE_CUDA_ARCHITECTURES entry \"90-REAL\": CMake's suffixes are lower case (-real, -virtual, a, f): write "
            "'90-real'");
  EXPECT_NE(err("120-Virtual").find("write '120-virtual'"), std::string::npos);
  EXPECT_NE(err("90A-real").find("write '90a-real'"), std::string::npos);
  EXPECT_EQ(err("90a-real;120-virtual"), "(parsed)");
  // nvcc: sm_90a, compute_90, arch=/code=.
  EXPECT_EQ(err("SM_90A"), "architecture \"SM_90A\": nvcc's architecture names are lower case: write 'sm_90a'");
  EXPECT_NE(err("sm_90,Compute_90").find("write 'compute_90'"), std::string::npos);
  EXPECT_NE(err("-arch=SM_90").find("-arch \"SM_90\": nvcc's architecture names are lower case: write 'sm_90'"),
            std::string::npos);
  EXPECT_NE(err("-gencode arch=COMPUTE_90,code=SM_90").find("write 'arch=compute_90,code=sm_90'"), std::string::npos);
  // A token that is wrong in more than case keeps the generic message.
  EXPECT_NE(err("9.x+ptx").find("is not of the form"), std::string::npos);
  EXPECT_NE(err("SM_9x").find("is not of the form"), std::string::npos);
}

TEST(ArchParse, DetectForm) {
  EXPECT_EQ(*detect_form("7.5;8.0"), Form::kTorch);
  EXPECT_EQ(*detect_form("Hopper"), Form::kTorch);
  EXPECT_EQ(*detect_form("75-real;90"), Form::kCmake);
  EXPECT_EQ(*detect_form("all-major"), Form::kCmake);
  EXPECT_EQ(*detect_form("sm_90,compute_90"), Form::kList);
  EXPECT_EQ(*detect_form("-gencode arch=compute_90,code=sm_90"), Form::kGencode);
}

TEST(ArchFormat, PtxOnlyCannotBeTorch) {
  auto t = parse("compute_90", Form::kList);
  ASSERT_TRUE(t);
  auto s = format(*t, Form::kTorch);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("compute_90"), std::string::npos);
}

TEST(ArchRelease, ParseRelease) {
  EXPECT_EQ(R("12.8"), (Release{12, 8}));
  EXPECT_EQ(R("12.8.93"), (Release{12, 8}));
  EXPECT_EQ(R("cu130"), (Release{13, 0}));
  EXPECT_EQ(R("13"), (Release{13, 0}));
  EXPECT_NE(parse_release("12.7").error().message().find("never released"), std::string::npos);
  EXPECT_NE(parse_release("10.2").error().message().find("11.0 to 13.5"), std::string::npos);
  EXPECT_FALSE(parse_release("twelve"));
  EXPECT_FALSE(parse_release("12..8"));
  EXPECT_FALSE(parse_release("cu12"));
}

TEST(ArchRelease, WhatEachReleaseBuilds) {
  auto why = [](const char* list, const char* rel) -> std::string {
    auto t = parse_any(list);
    auto e = check_buildable(t->front(), R(rel));
    return e ? *e : "";
  };
  EXPECT_EQ(why("sm_50", "12.9"), "");
  EXPECT_NE(why("sm_50", "13.0").find("removed in 13.0"), std::string::npos);
  EXPECT_NE(why("sm_37", "12.0").find("removed in 12.0"), std::string::npos);
  EXPECT_EQ(why("sm_37", "11.8"), "");
  EXPECT_NE(why("sm_120", "12.6").find("needs CUDA 12.8"), std::string::npos);
  EXPECT_EQ(why("sm_120", "12.8"), "");
  EXPECT_EQ(why("sm_100a", "12.8"), "");
  EXPECT_NE(why("sm_100f", "12.8").find("needs CUDA 12.9"), std::string::npos);
  EXPECT_EQ(why("sm_100f", "12.9"), "");
  EXPECT_NE(why("sm_90a", "11.8").find("needs CUDA 12.0"), std::string::npos);
  EXPECT_NE(why("sm_101", "13.0").find("renamed sm_110"), std::string::npos);
  EXPECT_EQ(why("sm_110f", "13.0"), "");
  EXPECT_NE(why("sm_110", "12.9").find("needs CUDA 13.0"), std::string::npos);
  EXPECT_NE(why("sm_80a", "13.0").find("no architecture-specific 'a' variant"), std::string::npos);
  EXPECT_NE(why("sm_90f", "13.0").find("no family-specific 'f' variant"), std::string::npos);
  EXPECT_NE(why("sm_99", "13.0").find("sm_99 is not"), std::string::npos);
  EXPECT_NE(why("compute_99", "13.0").find("compute_99"), std::string::npos);
}

TEST(ArchRelease, Deprecations) {
  auto dep = [](const char* list, const char* rel) -> std::string {
    auto t = parse_any(list);
    auto e = check_deprecated(t->front(), R(rel));
    return e ? *e : "";
  };
  EXPECT_EQ(dep("sm_70", "12.6"), "");
  EXPECT_EQ(dep("sm_70", "12.8"), "sm_70: CUDA 12.8 deprecates it (Volta, deprecated since 12.8); CUDA 13.0 cannot build it");
  EXPECT_EQ(dep("sm_70", "13.0"), "");  // not buildable at all: check_buildable's business
  EXPECT_NE(dep("sm_50", "11.0").find("deprecated since 11.0"), std::string::npos);
  EXPECT_EQ(dep("sm_90", "13.0"), "");
}

TEST(ArchRelease, ReleaseLists) {
  EXPECT_EQ(list_of(release_list(R("12.6")), Form::kTorch), "5.2;6.0;6.1;7.0;7.5;8.0;8.6;8.9;9.0+PTX");
  EXPECT_EQ(list_of(release_list(R("12.8")), Form::kCmake), "75-real;80-real;86-real;89-real;90-real;100-real;120");
  EXPECT_EQ(list_of(release_list(R("13.0")), Form::kTorch), "7.5;8.0;8.6;8.9;9.0;10.0;10.3;12.0;12.1+PTX");
  EXPECT_EQ(list_of(release_list(R("11.0")), Form::kList), "sm_52,sm_60,sm_61,sm_70,sm_75,sm_80,compute_80");
  for (const Release& r : known_releases()) {
    auto l = release_list(r);
    ASSERT_FALSE(l.empty()) << r.to_string();
    for (size_t i = 0; i < l.size(); ++i) {
      EXPECT_FALSE(check_buildable(l[i], r)) << r.to_string() << " " << l[i].sm_name();
      EXPECT_EQ(l[i].ptx, i + 1 == l.size());  // PTX of the last entry only
      EXPECT_TRUE(l[i].sass);
    }
  }
}

TEST(ArchRelease, TargetableIsConsistent) {
  auto t13 = targetable(R("13.0"));
  auto has = [&](unsigned sm, Variant v) {
    for (const auto& t : t13)
      if (t.sm == sm && t.variant == v) return true;
    return false;
  };
  EXPECT_TRUE(has(75, Variant::kBase));
  EXPECT_FALSE(has(70, Variant::kBase));
  EXPECT_TRUE(has(110, Variant::kF));
  EXPECT_FALSE(has(101, Variant::kBase));
  EXPECT_FALSE(has(107, Variant::kBase));  // 13.4
  EXPECT_TRUE(has(90, Variant::kA));
  EXPECT_FALSE(has(90, Variant::kF));
}

TEST(ArchRoundTrip, EveryFormRoundTrips) {
  auto t = parse("7.5;8.0;8.6;9.0a;10.0f;12.0+PTX", Form::kTorch);
  ASSERT_TRUE(t);
  for (Form f : {Form::kTorch, Form::kCmake, Form::kGencode, Form::kList}) {
    auto s = format(*t, f);
    ASSERT_TRUE(s);
    auto back = parse(*s, f);
    ASSERT_TRUE(back) << to_string(f) << ": " << *s;
    EXPECT_EQ(*back, *t) << to_string(f) << ": " << *s;
  }
}
