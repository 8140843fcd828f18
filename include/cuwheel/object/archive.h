// cuwheel: Unix ar archive reader (static libraries, `.a`).
//
// Format: the 8-byte global magic "!<arch>\n", then members, each with a
// 60-byte ASCII header (name[16] date[12] uid[6] gid[6] mode[8] size[10]
// fmag "`\n") followed by `size` data bytes and a pad byte to an even offset.
// Names: GNU/SysV keep short names as "name/" and long ones as "/N", an
// offset into the "//" long-name table (entries end in "/\n"); BSD keeps
// long names as "#1/N", the name being the first N data bytes. Symbol tables
// ("/", "/SYM64/", "__.SYMDEF*") are skipped. Thin archives ("!<thin>\n")
// hold no member data and are rejected. Reference: the System V ABI ar(4)
// text and GNU binutils' bfd/archive.c conventions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"

namespace cuwheel::archive {

struct Member {
  std::string name;     ///< resolved member name (long names expanded)
  uint64_t header_offset = 0;  ///< file offset of the 60-byte header
  uint64_t data_offset = 0;    ///< file offset of the member data
  ByteView data;        ///< the member's bytes (BSD name bytes excluded)
};

/// True when `data` starts with "!<arch>\n" (or the thin "!<thin>\n").
bool has_magic(ByteView data);

/// Reads every member of an archive. Errors name the header offset: bad
/// magic, a header field that is not a decimal number, a size running past
/// the end of the file, a long-name reference outside the name table.
Expected<std::vector<Member>> read(ByteView data);

}  // namespace cuwheel::archive
