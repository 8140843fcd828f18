// libFuzzer target: the ELF editor. Plans every kind of edit on the input
// (a longer and a shorter search path, a SONAME, the replacement and the
// removal of its first DT_NEEDED as the reader sees it), applies each plan
// in memory, and re-reads the output with the ELF reader: a hostile file
// must give an error or a plan whose patches lie inside the output.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "cuwheel/object/elf.h"
#include "cuwheel/repair/elfedit.h"

using namespace cuwheel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteView bytes(data, size);
  std::string first_needed;
  if (auto f = elf::File::parse(bytes); f && !f->dynamic().needed.empty()) first_needed = f->dynamic().needed.front();
  std::vector<repair::ElfEdits> edits(4);
  edits[0].search_path = "$ORIGIN/../nvidia/cu13/lib:$ORIGIN/../../nvidia/cu13/lib";
  edits[1].search_path = "/x";
  edits[1].runpath = false;
  edits[2].soname = "libfuzz-0123abcd.so.1";
  if (!first_needed.empty()) {
    edits[3].replace_needed = {{first_needed, "libfuzz.so.2"}};
    edits.emplace_back().remove_needed = {first_needed};
  }
  for (const auto& e : edits) {
    auto plan = repair::plan_elf_edit(bytes, e);
    if (!plan) continue;
    for (const auto& p : plan->patches)
      if (p.offset + p.bytes.size() > plan->result.size) std::abort();  // a patch outside the output
    auto out = repair::apply_elf_edit(bytes, *plan);
    if (out.size() != plan->result.size) std::abort();
    auto g = elf::File::parse(ByteView(out.data(), out.size()));
    if (g) {
      (void)g->dynamic_symbols();
      (void)g->version_needs();
    }
  }
  return 0;
}
