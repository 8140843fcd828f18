// libFuzzer target: the scan of a wheel's Python files for libraries they
// load by name (model/model.h, python_loads). Any bytes: no crash, every
// load names something, and what it loads is a library name.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "cuwheel/model/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto loads = cuwheel::model::python_loads("fuzz.py", cuwheel::ByteView(data, size));
  for (const auto& l : loads) {
    if (l.name.empty() || l.name.size() > 256) std::abort();
    if (l.kind == cuwheel::model::PythonLoad::Kind::soname && !l.loads(l.name)) std::abort();
    if (l.describe().empty()) std::abort();
  }
  return 0;
}
