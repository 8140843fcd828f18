// cuwheel: facts from one device-code payload (a cubin ELF or PTX text).
//
// Cubins use one of two e_flags layouts, chosen by e_ident[EI_ABIVERSION]
// (fatbin-format.md section 5): ABI v7 keeps the SM in bits 0-7, 'a' in bit
// 0x800 and the virtual SM in bits 16-23; ABI v8 keeps the SM in bits 8-15 and
// records 'a' in e_flags bit 0x8 (CUDA 12.8/12.9, whose ptxas writes a
// version-1 `.note.nv.cuver` note) or in a `.nv.compat` attribute (CUDA 13,
// whose version-2 `.note.nv.cuinfo` note names toolkit 130 or later), as
// cuobjdump 13.5 decides (docs/cuobjdump-behaviour.md, "'a' in ABI v8
// cubins"). 'f' is never recorded in the cubin.
// Kernels are STT_FUNC symbols with st_other bit 0x10 (STO_CUDA_ENTRY).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"

namespace cuwheel::cubin {

struct CubinInfo {
  uint8_t abi_version = 0;   ///< e_ident[EI_ABIVERSION]: 7 (old layout) or 8 (CUDA 13 layout)
  uint8_t osabi = 0;         ///< e_ident[EI_OSABI]: 0x33 (v7) or 0x41 (v8)
  uint16_t elf_type = 0;     ///< ET_EXEC (linked) or ET_REL (-rdc)
  bool is64 = true;
  uint32_t e_flags = 0;
  uint32_t sm = 0;           ///< SM number from e_flags (e.g. 90)
  bool arch_a = false;       ///< 'a' (architecture-specific) cubin
  std::optional<uint32_t> virtual_sm;  ///< v7 only: the PTX SM it was compiled from
  std::vector<std::string> kernels;    ///< entry functions (mangled names), in symbol order
  /// When read without names (read_cubin keep_names = false): a 64-bit
  /// FNV-1a hash of each entry function's name, in symbol order, in place of
  /// `kernels` (8 bytes each: enough to count a library's distinct kernels
  /// across its cubins; PyTorch's libtorch_cuda.so holds 2.7 million).
  std::vector<uint64_t> kernel_hashes;
  /// kernels.size() as read: stays when a model lets the names go
  /// (model.h ReadObjectOptions::keep_names), so an image without kernels
  /// (nvcc's device-link image of a library that needs no device linking)
  /// is still known to have none.
  size_t kernel_count = 0;
  /// Set when an SHT_RELA section's sh_link does not name an SHT_SYMTAB
  /// section ("section 12 (.rela.text.k) links to section 5 (.nv.info),
  /// not a symbol table"). The driver loads such cubins (bitsandbytes
  /// 0.50.2 ships them); cuobjdump 13.5 stops with "Invalid ELF"
  /// (docs/cuobjdump-behaviour.md). Only read_cubin() sets it.
  std::string rela_link_error;
  /// "sm_90a"-style name: the SM and 'a' as the cubin records them.
  std::string arch_name() const;
};

/// Reads the architecture from a cubin's ELF header only (the first 64
/// bytes suffice): SM and, for ABI v7, the 'a' bit. For ABI v8 the 'a' bit
/// needs the section table; use read_cubin. Errors: not ELF, not EM_CUDA.
Expected<CubinInfo> read_cubin_header(ByteView prefix);

/// Reads a whole cubin: header facts, 'a' for ABI v8 (from e_flags bit 0x8
/// when the toolkit note says version < 2 or toolkit < 130, else from the
/// `.nv.compat` record of format 2, attribute 0x09, value 1; records are 4
/// bytes, format 4 adds its u16 size of data), and when `want_kernels` the
/// kernel names from `.symtab` (or, with `keep_names` false, only their
/// hashes: CubinInfo::kernel_hashes). Errors name the offset inside the
/// cubin.
Expected<CubinInfo> read_cubin(ByteView elf, bool want_kernels, bool keep_names = true);

/// Where read_cubin() starts reading at the end of a cubin: the lower of
/// the section and program header table offsets (e_shoff, e_phoff: ELF gABI
/// "ELF Header") that lie past `prefix_size`, or UINT64_MAX when both lie
/// inside it or `head` is too short to tell. `head` is the cubin's first
/// bytes (at least the 64-byte ELF header).
uint64_t cubin_tables_from(ByteView head, uint64_t prefix_size);

/// Whether every byte read_cubin(elf, want_kernels) reads lies inside
/// `kept` ([begin, end) offsets, sorted, disjoint), so that reading a
/// partially kept image (fatbin::decode_partial) gives what reading the
/// whole would: the ELF header, the program and section header tables, the
/// section name table, every SHT_NOTE, SHT_SYMTAB and the string table it
/// links, and `.nv.compat`. A cubin with a dynamic table (SHT_DYNAMIC or
/// PT_DYNAMIC; nvcc writes none) is answered false, as is anything
/// malformed: the caller then decodes the whole.
bool cubin_reads_within(ByteView elf, const std::vector<std::pair<uint64_t, uint64_t>>& kept);

struct PtxInfo {
  std::optional<std::pair<int, int>> version;  ///< `.version X.Y`, when present
  std::vector<std::string> targets;            ///< `.target` list, e.g. {"sm_90a"}
  std::vector<std::string> entries;            ///< `.entry` names
  int address_size = 0;                        ///< `.address_size`, 0 when absent
};

/// Scans PTX text (up to the first NUL) for `.version`, `.target`,
/// `.address_size` and `.entry` directives, skipping // and /* */ comments.
/// Never fails: missing directives stay empty (libnvfatbin may strip
/// `.version`, fatbin-format.md section 6; use the entry header then).
PtxInfo read_ptx(ByteView text, bool want_entries);

/// read_ptx(head, false) for `head`, the first bytes of a longer PTX text.
/// Sets *decided when those bytes settle the facts, so that read_ptx(text,
/// false) on the whole text gives the same: the header ended on a line
/// that `head` holds to its newline, or the text ended at a NUL within it.
PtxInfo read_ptx_head(ByteView head, bool* decided);

// Which CUDA release emitted a PTX ISA version and which driver JITs it are
// the release table's questions: cuwheel/cuda/releases.h.

}  // namespace cuwheel::cubin
