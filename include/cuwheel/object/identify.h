// cuwheel: what kind of file a byte string is, from its first bytes.
//
// The one answer to "what is this file" for every input path, wheel member,
// archive member and folder entry (model/inputs.h, model/model.h,
// object/devicecode.h). Magic numbers:
//   ELF        7f 45 4c 46 ("\x7fELF"), e_ident[EI_MAG0..3] (ELF gABI,
//              "ELF Identification");
//   fatbin     the container magic 0xBA55ED50, little-endian u32 at offset
//              0 (fatbin-format.md section 2);
//   ar         the 8-byte global header "!<arch>\n" (System V / GNU ar,
//              object/archive.h);
//   zip        a local file header "PK\3\4" (APPNOTE.TXT 4.3.7) or, for an
//              archive with no members, the end of central directory record
//              "PK\5\6" (4.3.16). A wheel is a zip (PEP 427).
// A raw cubin is an ELF file; raw PTX text is `other`.
#pragma once

#include <cstddef>
#include <string_view>

#include "cuwheel/base/bytes.h"

namespace cuwheel {

enum class FileKind { elf, fatbin, archive, zip, other };

/// How many leading bytes identify() looks at: give it at least this many
/// when the file has them (fewer are fine: a short file is `other` unless
/// its bytes already match).
inline constexpr size_t kIdentifyBytes = 8;

/// The kind of the file whose first bytes are `head`. Never fails; reads
/// only `head`.
FileKind identify(ByteView head);

/// "elf", "fatbin", "archive", "zip", "other".
std::string_view to_string(FileKind kind);

/// True for the kinds that can hold device code themselves: an ELF file
/// (host ELF or cubin) or a raw fatbin. (An archive holds objects; a zip
/// holds members.)
inline bool is_object(FileKind kind) { return kind == FileKind::elf || kind == FileKind::fatbin; }

}  // namespace cuwheel
