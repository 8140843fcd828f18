// Finding GPU architecture lists in a source tree's text files, for
// `cuwheel arch --scan` (the pre-commit hook that lints them, docs/arch.md
// "Linting a source tree"): CMake files, shell scripts, CI workflows,
// Dockerfiles, setup.py. The scanner only finds and cuts out the values; the
// caller parses each with arch::parse() in the form it returns and applies
// the usual checks (check_known, check_buildable, check_deprecated).
//
// What counts as a setting (one line each; a line whose first non-blank
// character is '#' is a comment and skipped):
//  - TORCH_CUDA_ARCH_LIST (PyTorch's cpp_extension, torch form):
//    `TORCH_CUDA_ARCH_LIST=...` (shell, Dockerfile ENV), `TORCH_CUDA_ARCH_LIST:
//    ...` (YAML), `os.environ["TORCH_CUDA_ARCH_LIST"] = "..."` (Python),
//    `set(TORCH_CUDA_ARCH_LIST ...)` / `set(ENV{TORCH_CUDA_ARCH_LIST} ...)`.
//  - CMAKE_CUDA_ARCHITECTURES and the CUDA_ARCHITECTURES target property
//    (CMake's documentation of both, cmake form): `set(CMAKE_CUDA_ARCHITECTURES
//    75 80)`, `-DCMAKE_CUDA_ARCHITECTURES[:STRING]=...`, `...PROPERTIES
//    CUDA_ARCHITECTURES "75;80"`, `CMAKE_CUDA_ARCHITECTURES: ...` (YAML).
//  - nvcc's `-gencode`/`--generate-code` options (gencode form), each one
//    with its `arch=...,code=...` argument.
// A value is the quoted string after `=` or `:` (or after the name in a
// CMake set()/PROPERTIES call, its words joined with ';'), or the unquoted
// word there. Values that use a variable (`$`, `@VAR@`, a generator
// expression) cannot be known without running the build and are skipped;
// so are empty values and references such as `${CMAKE_CUDA_ARCHITECTURES}`.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/cuda/arch.h"

namespace cuwheel::arch {

/// One architecture list found in a text.
struct ArchSetting {
  uint64_t line = 0;     ///< 1-based line number
  uint64_t column = 0;   ///< 1-based column (bytes) of the value's first character
  std::string variable;  ///< "TORCH_CUDA_ARCH_LIST", "CMAKE_CUDA_ARCHITECTURES", "CUDA_ARCHITECTURES", "-gencode"
  Form form = Form::kList;  ///< the form to parse `value` in
  std::string value;     ///< the list as written, quotes removed ("7.5;8.0+PTX")
};

/// Every setting in `text` (any bytes; lines end at '\n', a trailing '\r'
/// is dropped), in order of appearance. Never fails: text that holds no
/// setting gives an empty list. Linear in the size of `text`; lines longer
/// than 64 KiB are skipped (no build file has them; minified or binary
/// content does).
std::vector<ArchSetting> scan_arch_settings(std::string_view text);

}  // namespace cuwheel::arch
