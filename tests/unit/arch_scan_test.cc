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

}  // namespace
}  // namespace cuwheel::arch
