// libFuzzer target: the ELF reader. Parses the input as ELF, then calls
// every accessor a caller may use on an untrusted file: section bytes,
// dynamic and static symbols with versions, version tables, dynamic
// relocations over the whole address range, relocations for each section,
// and the load-time facts that `show` and the check rules read.
#include <cstddef>
#include <cstdint>

#include "cuwheel/object/elf.h"
#include "cuwheel/model/facts.h"

using namespace cuwheel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteView bytes(data, size);
  WarningSink warnings;
  auto f = elf::File::parse(bytes, &warnings);
  if (f) {
    for (const auto& s : f->sections()) {
      auto d = f->section_data(s);
      if (d && !d->empty()) (void)(*d)[d->size() - 1];  // touch the last byte: ASan checks the view
      (void)f->find_section(s.name);
      (void)f->vaddr_to_offset(s.addr);
    }
    for (const auto& p : f->segments()) (void)f->vaddr_to_offset(p.vaddr + p.filesz / 2);
    (void)f->dynamic_symbols(&warnings);
    (void)f->static_symbols();
    (void)f->version_needs();
    (void)f->version_definitions();
    (void)f->dynamic_relocations_in(0, UINT64_MAX);
    const uint32_t n = static_cast<uint32_t>(f->sections().size());
    for (uint32_t i = 0; i < n; ++i) (void)f->relocations_for(i);
    (void)f->relocations_for(n);  // one past the end: must not read out of bounds
    if (f->dynamic().rpath) (void)elf::split_path_list(*f->dynamic().rpath);
  }
  (void)read_load_facts(bytes, &warnings);
  return 0;
}
