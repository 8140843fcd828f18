// libFuzzer target: the matrix inputs (include/cuwheel/release/matrix.h). The first
// byte picks the parser: generator JSON (then filtered by a fixed policy in
// normal and pull-request mode), a policy file, cuda.h / nvcc --version
// text (identity's readers, which matrix --toolkit uses), or a
// desired_cuda value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cuwheel/release/identity.h"
#include "cuwheel/release/matrix.h"

using namespace cuwheel::matrix;

namespace {

const Policy& fixed_policy() {
  static const Policy p = [] {
    Policy q;
    q.trains = {{"x86_64", {"cu126", "cu130"}}, {"aarch64", {"cu130"}}};
    q.python = {"3.10", "3.11", "3.12"};
    q.exclude_python = {{"3.1[34]*", "excluded"}};
    q.empty = {{"jetson", "deliberately empty", {{"container_image", "*jetpack*"}}}};
    q.generator = {{"with-cuda", "enable"}};
    return q;
  }();
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (selector % 4) {
    case 0: {
      auto rows = parse_rows(text, "fuzz.json");
      if (!rows) break;
      for (bool pr : {false, true}) {
        Options o;
        o.pr = pr;
        if (selector & 0x10) o.arch = "jetson";
        if (selector & 0x20) o.toolkit = ToolkitVersion{12, 8, "fuzz"};
        Result r = filter(*rows, fixed_policy(), o);
        if (pr && r.include.size() > 1) std::abort();
        if (r.include.size() + r.dropped.size() + r.rows_failed != rows->size()) std::abort();  // every row once
        for (const auto& f : r.findings)
          for (unsigned char c : f.message)
            if (c < 0x20 || c == 0x7f) std::abort();  // input bytes are escaped
        if (r.include.empty() && r.findings.empty()) std::abort();  // empty-matrix must fire
        (void)r.matrix().dump();
      }
      break;
    }
    case 1: {
      auto p = parse_policy(text, (selector & 0x10) ? "pyproject.toml" : "cuwheel.toml");
      if (p) (void)filter({}, *p, {});
      break;
    }
    case 2:
      (void)cuwheel::identity::parse_version_header(text, "CUDA_VERSION");
      (void)cuwheel::identity::parse_nvcc_version(text);
      break;
    case 3: {
      Build b = classify_build(text);
      if (b.kind == Build::Kind::kCuda && ("cu" + train_version(b)).empty()) std::abort();
      (void)python_less(text, "3.12");
      break;
    }
  }
  return 0;
}
