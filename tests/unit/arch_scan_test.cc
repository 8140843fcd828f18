// Architecture lists found in build files (include/cuwheel/cuda/arch_scan.h).
#include <gtest/gtest.h>

#include "cuwheel/cuda/arch_scan.h"

namespace cuwheel::arch {
namespace {

struct Want {
  uint64_t line;
  const char* variable;
  Form form;
  const char* value;
};

void expect_settings(std::string_view text, std::vector<Want> want) {
  auto got = scan_arch_settings(text);
  ASSERT_EQ(got.size(), want.size()) << text;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].line, want[i].line) << i;
    EXPECT_EQ(got[i].variable, want[i].variable) << i;
    EXPECT_EQ(got[i].form, want[i].form) << i;
    EXPECT_EQ(got[i].value, want[i].value) << i;
  }
}

TEST(ArchScan, CMakeSetAndCacheAndProperties) {
  expect_settings(
      "cmake_minimum_required(VERSION 3.24)\n"
      "set(CMAKE_CUDA_ARCHITECTURES 75 80 86)\n"
      "set(CMAKE_CUDA_ARCHITECTURES \"75-real;90\" CACHE STRING \"\")\n"
      "set_target_properties(k PROPERTIES CUDA_ARCHITECTURES \"80;90a\" POSITION_INDEPENDENT_CODE ON)\n"
      "set_property(TARGET k PROPERTY CUDA_ARCHITECTURES 70 75)\n"
      "set(TORCH_CUDA_ARCH_LIST \"8.0 9.0+PTX\")\n"
      "set(ENV{TORCH_CUDA_ARCH_LIST} \"7.5\")\n",
      {{2, "CMAKE_CUDA_ARCHITECTURES", Form::kCmake, "75;80;86"},
       {3, "CMAKE_CUDA_ARCHITECTURES", Form::kCmake, "75-real;90"},
       {4, "CUDA_ARCHITECTURES", Form::kCmake, "80;90a"},
       {5, "CUDA_ARCHITECTURES", Form::kCmake, "70;75"},
       {6, "TORCH_CUDA_ARCH_LIST", Form::kTorch, "8.0 9.0+PTX"},
       {7, "TORCH_CUDA_ARCH_LIST", Form::kTorch, "7.5"}});
}

TEST(ArchScan, ShellYamlPythonDockerfileMake) {
  expect_settings(
      "export TORCH_CUDA_ARCH_LIST=\"7.5;8.0;9.0+PTX\"\n"
      "cmake -S . -B b -DCMAKE_CUDA_ARCHITECTURES:STRING=\"80;90\" -G Ninja\n"
      "cmake -DCMAKE_CUDA_ARCHITECTURES=89 ..\n"
      "    TORCH_CUDA_ARCH_LIST: \"8.0 8.6\"\n"
      "    CMAKE_CUDA_ARCHITECTURES: 75;80  # comment\n"
      "os.environ[\"TORCH_CUDA_ARCH_LIST\"] = \"9.0a\"\n"
      "ENV TORCH_CUDA_ARCH_LIST=\"6.0 7.0\"\n"
      "TORCH_CUDA_ARCH_LIST ?= 8.0\n"
      "  \"CMAKE_CUDA_ARCHITECTURES\": \"100f;120\",\n",
      {{1, "TORCH_CUDA_ARCH_LIST", Form::kTorch, "7.5;8.0;9.0+PTX"},
       {2, "CMAKE_CUDA_ARCHITECTURES", Form::kCmake, "80;90"},
       {3, "CMAKE_CUDA_ARCHITECTURES", Form::kCmake, "89"},
       {4, "TORCH_CUDA_ARCH_LIST", Form::kTorch, "8.0 8.6"},
       {5, "CMAKE_CUDA_ARCHITECTURES", Form::kCmake, "75;80"},
       {6, "TORCH_CUDA_ARCH_LIST", Form::kTorch, "9.0a"},
       {7, "TORCH_CUDA_ARCH_LIST", Form::kTorch, "6.0 7.0"},
       {8, "TORCH_CUDA_ARCH_LIST", Form::kTorch, "8.0"},
       {9, "CMAKE_CUDA_ARCHITECTURES", Form::kCmake, "100f;120"}});
}

TEST(ArchScan, GencodeFlags) {
  expect_settings(
      "NVCC_FLAGS += -gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=[sm_90,compute_90]\n"
      "nvcc --generate-code arch=compute_75,code=sm_75 -o x x.cu\n"
      "  '-gencode', 'arch=compute_86,code=sm_86',\n",
      {{1, "-gencode", Form::kGencode, "-gencode arch=compute_80,code=sm_80"},
       {1, "-gencode", Form::kGencode, "-gencode arch=compute_90,code=[sm_90,compute_90]"},
       {2, "-gencode", Form::kGencode, "-gencode arch=compute_75,code=sm_75"}});
  // The quoted-list form of line 3 puts the value in the next list item: not
  // a flag and its value on one line, so not found (no false report).
}

TEST(ArchScan, ReferencesVariablesCommentsAndConditionsAreNotSettings) {
  expect_settings(
      "# set(CMAKE_CUDA_ARCHITECTURES 50)\n"
      "    # TORCH_CUDA_ARCH_LIST=\"3.5\"\n"
      "message(STATUS \"${CMAKE_CUDA_ARCHITECTURES}\")\n"
      "if(CMAKE_CUDA_ARCHITECTURES STREQUAL \"native\")\n"
      "echo $TORCH_CUDA_ARCH_LIST\n"
      "TORCH_CUDA_ARCH_LIST=\"${{ matrix.arch }}\"\n"
      "set(CMAKE_CUDA_ARCHITECTURES ${ARCHS})\n"
      "set(CMAKE_CUDA_ARCHITECTURES @CUDA_ARCHS@)\n"
      "set(CMAKE_CUDA_ARCHITECTURES $<IF:$<BOOL:x>,80,90>)\n"
      "if [ \"$TORCH_CUDA_ARCH_LIST\" == \"7.5\" ]; then\n"
      "TORCH_CUDA_ARCH_LIST=\n"
      "set(MY_CMAKE_CUDA_ARCHITECTURES 50)\n"
      "TORCH_CUDA_ARCH_LIST_EXTRA=5.0\n"
      "x = os.environ.get(\"TORCH_CUDA_ARCH_LIST\", \"3.5\")\n"
      "set(CMAKE_CUDA_ARCHITECTURES)\n",
      {});
}

TEST(ArchScan, PositionsLineEndingsAndLongLines) {
  auto got = scan_arch_settings("\r\n  TORCH_CUDA_ARCH_LIST=8.0\r\n");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].line, 2u);
  EXPECT_EQ(got[0].column, 24u);
  EXPECT_EQ(got[0].value, "8.0");
  std::string long_line(70 * 1024, 'x');
  long_line += " TORCH_CUDA_ARCH_LIST=8.0\nTORCH_CUDA_ARCH_LIST=9.0";
  got = scan_arch_settings(long_line);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].line, 2u);
  EXPECT_TRUE(scan_arch_settings("").empty());
  EXPECT_TRUE(scan_arch_settings(std::string_view("\0\0\xff", 3)).empty());
  // An unclosed quote is no value.
  EXPECT_TRUE(scan_arch_settings("TORCH_CUDA_ARCH_LIST=\"8.0\n").empty());
}

TEST(ArchScan, EveryValueParsesInItsForm) {
  for (const auto& s : scan_arch_settings("set(CMAKE_CUDA_ARCHITECTURES 75-real 90)\n"
                                          "TORCH_CUDA_ARCH_LIST=\"7.5;9.0+PTX\"\n"
                                          "-gencode arch=compute_80,code=sm_80\n")) {
    auto parsed = parse(s.value, s.form);
    EXPECT_TRUE(parsed) << s.value << ": " << parsed.error().message();
  }
}

// Lines from real projects' build files (apex, flash-attention,
// TransformerEngine, DeepSpeed, vLLM) and other valid syntax a review found
// reported as errors: none may give a setting that fails to parse. Each is
// either skipped (not a literal list) or a list that parses.
TEST(ArchScan, RealWorldSyntaxGivesNoFalseReport) {
  const char* lines[] = {
      "    'export TORCH_CUDA_ARCH_LIST=\"compute capability\" before running setup.py.\\n'",
      "        \"-DCMAKE_CUDA_ARCHITECTURES={}\".format(archs),",
      "            nvcc_flags.append(f\"-gencode=arch=compute_{a},code=sm_{a}\")",
      "set_target_properties(transformer_engine PROPERTIES CUDA_ARCHITECTURES OFF)",
      "set_property(TARGET k PROPERTY CUDA_ARCHITECTURES FALSE)",
      "set(CMAKE_CUDA_ARCHITECTURES 0)",
      "        os.environ[\"TORCH_CUDA_ARCH_LIST\"] = get_default_compute_capabilities()",
      "  string(REGEX MATCHALL \"-gencode arch=[^ ]+\" _CUDA_ARCH_FLAGS ${CMAKE_CUDA_FLAGS})",
      "target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-gencode arch=compute_90,code=sm_90>)",
      "set(F \"-gencode arch=compute_70,code=sm_70;-gencode arch=compute_75,code=sm_75\")",
      "NVCC_FLAGS += -gencode arch=compute_80,code=\\\"sm_80,compute_80\\\"",
      "nvcc -gencode arch=compute_80,code=\"sm_80,compute_80\" -c k.cu",
      "set(CMAKE_CUDA_ARCHITECTURES [[80;90]])",
      "cmake -DCMAKE_CUDA_ARCHITECTURES=80\\;90 ..",
      "export TORCH_CUDA_ARCH_LIST=8.0\\;9.0",
      "export TORCH_CUDA_ARCH_LIST=`python -c 'print(1)'`",
      "make  # TORCH_CUDA_ARCH_LIST=\"5.0\" was the old default",
      "TORCH_CUDA_ARCH_LIST = \";\".join(archs)",
      "arch = os.environ.get(\"TORCH_CUDA_ARCH_LIST\", \"8.0\")",
      "env[\"TORCH_CUDA_ARCH_LIST\"] = \"%s\" % archs",
      "cmd = f\"-DCMAKE_CUDA_ARCHITECTURES={archs}\"",
      "    -DCMAKE_CUDA_ARCHITECTURES=XX   (in a docstring: your GPU's architecture)",
      "  TORCH_CUDA_ARCH_LIST: |",
      "  TORCH_CUDA_ARCH_LIST: >-",
      "  TORCH_CUDA_ARCH_LIST: ~",
      "  TORCH_CUDA_ARCH_LIST: null",
      "  TORCH_CUDA_ARCH_LIST: *archs",
      "  \"CMAKE_CUDA_ARCHITECTURES\": {\"type\": \"STRING\", \"value\": \"80;90a\"},",
      "  \"CMAKE_CUDA_ARCHITECTURES\": false,",
      "  \"CMAKE_CUDA_ARCHITECTURES\": \"OFF\",",
      "ENV TORCH_CUDA_ARCH_LIST=\"{{ archs }}\"",
      "nvcc -gencode arch=compute_80,code=lto_80 -dlto k.cu",
      "nvcc -gencode arch=compute_80,code=[lto_80,sm_80] k.cu",
  };
  for (const char* l : lines) {
    for (const auto& st : scan_arch_settings(l)) {
      auto parsed = parse(st.value, st.form);
      EXPECT_TRUE(parsed) << l << "\n  -> " << st.variable << " \"" << st.value << "\": " << parsed.error().message();
    }
  }
  // Escapes and quotes are read as the shell and CMake read them.
  auto esc = scan_arch_settings("cmake -DCMAKE_CUDA_ARCHITECTURES=80\\;90 ..\n"
                                "nvcc -gencode arch=compute_80,code=\"sm_80,compute_80\" -c k.cu\n");
  ASSERT_EQ(esc.size(), 2u);
  EXPECT_EQ(esc[0].value, "80;90");
  EXPECT_EQ(esc[1].value, "-gencode arch=compute_80,code=sm_80,compute_80");
}

// The mistakes the hook is for are still found: written as lists, wrong.
TEST(ArchScan, RealMistakesAreStillFound) {
  const char* lines[] = {
      "export TORCH_CUDA_ARCH_LIST=\"8.0;9.0+ptx\"",  // torch wants +PTX
      "export TORCH_CUDA_ARCH_LIST=\"95\"",           // not X.Y
      "set(CMAKE_CUDA_ARCHITECTURES 80-REAL)",
      "nvcc -gencode arch=compute_90,code=sm_80 k.cu",  // code older than arch
      "set(CMAKE_CUDA_ARCHITECTURES sm_80)",
  };
  for (const char* l : lines) {
    auto got = scan_arch_settings(l);
    ASSERT_EQ(got.size(), 1u) << l;
    EXPECT_FALSE(parse(got[0].value, got[0].form)) << l;
  }
}

}  // namespace
}  // namespace cuwheel::arch
