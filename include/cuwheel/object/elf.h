// cuwheel: ELF reader for host libraries, executables, objects and cubins.
//
// Reads 32- and 64-bit little-endian ELF (ET_REL, ET_EXEC, ET_DYN, and the
// CUDA types) from a ByteView without copying. Everything is bounds-checked:
// a hostile header yields an Error naming the field and offset, never an
// out-of-bounds read. Layouts follow the System V gABI (ELF-64 Object File
// Format 1.5 and the gABI chapter 4/5 text), the GNU symbol-versioning
// extension (LSB Core, "Symbol Versioning"), and the extended-numbering rules
// for e_shnum / e_shstrndx / e_phnum (gABI, "Sections").
//
// When section headers are absent (stripped with e_shoff = 0, or pointing
// outside the file), the dynamic section is found through PT_DYNAMIC and its
// tables through the DT_* addresses mapped by PT_LOAD segments.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"

namespace cuwheel::elf {

// e_type values (gABI).
inline constexpr uint16_t ET_REL = 1, ET_EXEC = 2, ET_DYN = 3, ET_CORE = 4;
// e_machine values used here.
inline constexpr uint16_t EM_386 = 3, EM_ARM = 40, EM_X86_64 = 62, EM_PPC64 = 21,
                          EM_AARCH64 = 183, EM_CUDA = 190;
// Section types (gABI + GNU).
inline constexpr uint32_t SHT_NULL = 0, SHT_PROGBITS = 1, SHT_SYMTAB = 2, SHT_STRTAB = 3,
                          SHT_RELA = 4, SHT_HASH = 5, SHT_DYNAMIC = 6, SHT_NOBITS = 8,
                          SHT_REL = 9, SHT_DYNSYM = 11, SHT_RELR = 19,
                          SHT_GNU_HASH = 0x6ffffff6, SHT_GNU_VERDEF = 0x6ffffffd,
                          SHT_GNU_VERNEED = 0x6ffffffe, SHT_GNU_VERSYM = 0x6fffffff;
inline constexpr uint64_t SHF_COMPRESSED = 0x800;
inline constexpr uint32_t PT_LOAD = 1, PT_DYNAMIC = 2;

struct Section {
  std::string name;          ///< from .shstrtab ("" when unreadable)
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t addr = 0;         ///< virtual address (0 in ET_REL)
  uint64_t offset = 0;       ///< file offset, bytes
  uint64_t size = 0;         ///< bytes
  uint32_t link = 0, info = 0;
  uint64_t addralign = 0, entsize = 0;
};

struct Segment {
  uint32_t type = 0, flags = 0;
  uint64_t offset = 0, vaddr = 0, filesz = 0, memsz = 0, align = 0;
};

/// One dynamic symbol with its GNU version.
struct Symbol {
  std::string name;
  uint8_t bind = 0;          ///< STB_* (st_info >> 4)
  uint8_t type = 0;          ///< STT_* (st_info & 0xf)
  uint8_t other = 0;         ///< st_other (visibility; CUDA entry bit 0x10 in cubins)
  uint16_t shndx = 0;        ///< 0 = undefined
  uint64_t value = 0, size = 0;
  std::string version;       ///< "" when unversioned / local / global
  std::string version_file;  ///< for a needed version: the soname it comes from
  bool version_hidden = false;  ///< versym bit 0x8000 ("sym@VER" rather than "sym@@VER")
  bool defined() const { return shndx != 0; }
};

/// One DT_VERNEED entry: a needed file and the versions required of it.
struct VersionNeed {
  std::string file;
  std::vector<std::string> versions;
};

/// Facts from the dynamic section.
struct DynamicInfo {
  bool present = false;
  std::optional<std::string> soname;
  std::vector<std::string> needed;   ///< DT_NEEDED in order
  std::optional<std::string> rpath;  ///< DT_RPATH, raw (colon-separated)
  std::optional<std::string> runpath;///< DT_RUNPATH, raw (colon-separated)
  uint64_t flags = 0, flags_1 = 0;   ///< DT_FLAGS, DT_FLAGS_1
  // Raw table addresses (virtual) for the section-header-less path.
  uint64_t strtab = 0, strsz = 0, symtab = 0, syment = 0, hash = 0, gnu_hash = 0;
  uint64_t rela = 0, relasz = 0, relaent = 0, rel = 0, relsz = 0;
  uint64_t versym = 0, verdef = 0, verdefnum = 0, verneed = 0, verneednum = 0;
};

/// A relocation entry (REL or RELA; addend 0 for REL).
struct Relocation {
  uint64_t offset = 0;   ///< r_offset: virtual address (ET_DYN/EXEC) or section offset (ET_REL)
  uint32_t type = 0;
  uint32_t symbol = 0;
  int64_t addend = 0;
};

class File {
 public:
  /// Parses the ELF header, program headers, section headers and the
  /// dynamic section of `data`. `data` must outlive the File.
  /// Errors: not an ELF file (magic), unsupported class or byte order
  /// (big-endian), header tables outside the file, truncated header.
  /// Oddities that do not prevent reading (section names unreadable, a
  /// section extending past the end of file) go to `warnings`.
  static Expected<File> parse(ByteView data, WarningSink* warnings = nullptr);

  /// True when `data` starts with the ELF magic 7f 45 4c 46.
  static bool has_magic(ByteView data);

  bool is64() const { return is64_; }
  uint16_t type() const { return type_; }
  uint16_t machine() const { return machine_; }
  uint8_t osabi() const { return osabi_; }
  uint8_t abiversion() const { return abiversion_; }
  uint32_t flags() const { return flags_; }
  uint32_t version() const { return version_; }
  ByteView data() const { return data_; }

  const std::vector<Section>& sections() const { return sections_; }
  const std::vector<Segment>& segments() const { return segments_; }
  /// True when the section header table was present and readable.
  bool has_section_headers() const { return !sections_.empty(); }
  const DynamicInfo& dynamic() const { return dynamic_; }

  /// The first section with this name, or nullptr.
  const Section* find_section(std::string_view name) const;
  /// The bytes of a section (empty for SHT_NOBITS). Errors when the section
  /// lies outside the file.
  Expected<ByteView> section_data(const Section& s) const;
  /// Maps a virtual address to a file offset through PT_LOAD segments (or
  /// allocated sections when there are no segments). nullopt when unmapped.
  std::optional<uint64_t> vaddr_to_offset(uint64_t vaddr) const;

  /// Dynamic symbols (.dynsym, or DT_SYMTAB sized by DT_HASH/DT_GNU_HASH),
  /// each with its version from .gnu.version / .gnu.version_d / _r.
  Expected<std::vector<Symbol>> dynamic_symbols(WarningSink* warnings = nullptr) const;
  /// Static symbols (.symtab); empty when absent. Versions are not resolved.
  Expected<std::vector<Symbol>> static_symbols() const;
  /// The DT_VERNEED list (.gnu.version_r).
  Expected<std::vector<VersionNeed>> version_needs() const;
  /// The DT_VERDEF names (.gnu.version_d), base version first.
  Expected<std::vector<std::string>> version_definitions() const;

  /// Dynamic relocations (.rela.dyn/.rel.dyn or DT_RELA/DT_REL) whose
  /// r_offset lies in [lo, hi). Scans the table once; entries outside the
  /// range are not kept.
  /// `done`, when set, receives each scanned stretch of the table (large
  /// libraries have relocation tables of hundreds of MB) so a caller can let
  /// its pages go (Blob::release).
  Expected<std::vector<Relocation>> dynamic_relocations_in(
      uint64_t lo, uint64_t hi, const std::function<void(ByteView)>& done = {}) const;
  /// Relocations that apply to section `target_index` in an ET_REL object
  /// (every SHT_RELA/SHT_REL section whose sh_info is that index).
  Expected<std::vector<Relocation>> relocations_for(uint32_t target_index) const;
  /// True when `type` is the machine's RELATIVE relocation type
  /// (R_X86_64_RELATIVE, R_AARCH64_RELATIVE, R_PPC64_RELATIVE, R_386_RELATIVE, R_ARM_RELATIVE).
  bool is_relative_reloc(uint32_t type) const;
  /// True when `type` is the machine's absolute word relocation
  /// (R_X86_64_64, R_AARCH64_ABS64, R_PPC64_ADDR64, R_386_32, R_ARM_ABS32).
  bool is_absolute_reloc(uint32_t type) const;

 private:
  Status parse_dynamic(WarningSink* warnings);
  Expected<std::string_view> dyn_string(uint64_t offset) const;
  Expected<ByteView> dyn_table(uint64_t vaddr, uint64_t size, const char* what) const;
  using VersionVisitor = std::function<void(uint16_t index, std::string_view name, std::string_view file)>;
  ByteView version_table(uint32_t sh_type, uint64_t dt_addr, uint64_t& count) const;
  Status walk_verdef(const VersionVisitor& visit) const;
  Status walk_verneed(const VersionVisitor& visit) const;
  Expected<std::vector<Relocation>> read_relocs(ByteView table, bool rela, uint64_t entsize,
                                                uint64_t lo, uint64_t hi,
                                                const std::function<void(ByteView)>& done = {}) const;

  ByteView data_;
  bool is64_ = true;
  uint16_t type_ = 0, machine_ = 0;
  uint8_t osabi_ = 0, abiversion_ = 0;
  uint32_t flags_ = 0, version_ = 0;
  std::vector<Section> sections_;
  std::vector<Segment> segments_;
  DynamicInfo dynamic_;
  ByteView dynstr_;
};

/// Splits a raw RPATH/RUNPATH value on ':' (empty entries kept out).
std::vector<std::string> split_path_list(std::string_view raw);

/// Whether an ELF file was cut short (a partial download or copy): its
/// section header table (e_shoff, e_shentsize, e_shnum) or program header
/// table (e_phoff, e_phentsize, e_phnum) ends past the end of `data`
/// (ELF gABI, "ELF Header"). File::parse() skips such tables and the
/// device-code reader still finds a raw cubin's code, but what it lists is
/// a guess, so `list` counts the input as unreadable. Returns the reason
/// ("truncated ELF file: section header table at 0x2000 ends past the end
/// of the file (0x1800 bytes)"), or nullopt when both tables fit, when the
/// bytes are no little-endian ELF file or are too short for its header.
std::optional<std::string> truncated_header_tables(ByteView data);

}  // namespace cuwheel::elf
