// cuwheel: the ELF editor behind `cuwheel repair`: four edits of a shared
// library's dynamic section and no more.
//
//   1. set the search path: DT_RUNPATH or DT_RPATH, exactly one of them;
//   2. replace a DT_NEEDED entry, together with the file name of its
//      version-needs entry (.gnu.version_r vn_file), so that the two never
//      disagree (glibc asserts when they do: dl-version.c, match_version);
//   3. set DT_SONAME;
//   4. remove a DT_NEEDED entry together with its version-needs entry
//      (the symbols versioned by it become unversioned, index 1).
//
// Strings are edited in place when the new one fits in the old one's bytes
// and no other string shares those bytes (.dynstr is suffix-merged by the
// linkers: an RPATH ending in "system" may hold the symbol name "system").
// Otherwise a copy of .dynstr with the new strings at its end, and of
// .dynamic when an entry is added and there is no spare DT_NULL, go into
// one new PT_LOAD segment appended to the file. The program header table
// grows by that one entry where it is (objcopy and strip expect it in the
// first PT_LOAD): the sections after it (notes, hash tables, .dynsym,
// .dynstr, version and relocation tables) move into the new segment as one
// block, with every DT_* tag, program header, section header and symbol
// that named them; the section header table is re-sorted by offset and
// renumbered. readelf, strip, eu-elflint and the dynamic loader read the
// file as before (docs/repair.md has the libraries it was measured on).
// The segment is aligned to the largest p_align of the file's PT_LOAD
// segments, and to at least 64 KiB on aarch64 and ppc64le (their kernels
// may use 64 KiB pages: pypa/auditwheel#251).
//
// Formats: System V gABI (ELF-64 Object File Format 1.5: the ELF header,
// program and section headers, the dynamic section, DT_* tags) and the
// GNU symbol-versioning extension (LSB Core, "Symbol Versioning":
// Elf64_Verneed, Elf64_Vernaux, Elf64_Verdef, Elf64_Verdaux, versym).
// Only 64-bit little-endian ELF (x86_64, aarch64, ppc64le: every Linux
// platform a wheel is built for) is edited.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"

namespace cuwheel::repair {

/// What to change. An edit whose value the file already holds changes
/// nothing, so editing an edited file again gives the same bytes.
struct ElfEdits {
  /// The search path (colon-separated, "$ORIGIN/../nvidia/cu13/lib"):
  /// the file ends up with exactly one DT_RUNPATH (runpath) or DT_RPATH
  /// (!runpath) entry holding it.
  std::optional<std::string> search_path;
  bool runpath = true;
  std::optional<std::string> soname;                                // DT_SONAME
  /// old soname -> new soname: the DT_NEEDED entry and the vn_file of its
  /// version needs. When DT_NEEDED already names the new soname and only a
  /// vn_file names the old one (what `patchelf --replace-needed` leaves:
  /// needed-version-mismatch), that vn_file is renamed. An error when
  /// neither DT_NEEDED names either.
  std::vector<std::pair<std::string, std::string>> replace_needed;
  std::vector<std::string> remove_needed;                           // sonames
};

/// One change made, in words ("DT_RUNPATH set to '$ORIGIN' (in place)").
struct ElfEditResult {
  bool changed = false;   ///< false: the file already says all this; the output is the input
  bool appended = false;  ///< a new PT_LOAD segment was appended
  uint64_t size = 0;      ///< the output's size, bytes
  std::vector<std::string> changes;
};

/// Bytes to write at an offset of a copy of the input.
struct ElfPatch {
  uint64_t offset = 0;  ///< file offset, bytes
  std::vector<uint8_t> bytes;
};

/// An edit worked out: the output is the input with `patches` written over
/// it, then, when `tail` is not empty, zero bytes up to `tail_offset` and
/// `tail` (the new segment) there.
struct ElfEditPlan {
  ElfEditResult result;
  std::vector<ElfPatch> patches;
  uint64_t tail_offset = 0;
  std::vector<uint8_t> tail;
};

/// Works out `edits` on the whole file `file`. Errors (the message names
/// the field and its offset): not a 64-bit little-endian ELF; no program
/// headers or no PT_DYNAMIC; a dynamic table, string table, symbol table
/// or version table out of bounds or not mapped by a PT_LOAD segment;
/// a DT_NEEDED to replace or remove that the file does not have; a new
/// name that is empty or holds a NUL; a NEEDED both replaced and removed.
Expected<ElfEditPlan> plan_elf_edit(ByteView file, const ElfEdits& edits);

/// The output of `plan` on `file`, in memory.
std::vector<uint8_t> apply_elf_edit(ByteView file, const ElfEditPlan& plan);

/// Edits the file at `in` into `out`: `in` is never written; `out` appears
/// atomically (a temporary file in its folder, renamed), with `in`'s
/// permission bits. The unchanged bytes are copied by the kernel
/// (copy_file_range), so memory stays flat whatever the file's size.
/// Errors: as plan_elf_edit, with `in` named, and the failing system call.
Expected<ElfEditResult> edit_elf_file(const std::string& in, const std::string& out, const ElfEdits& edits);

}  // namespace cuwheel::repair
