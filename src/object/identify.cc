// What kind of file a byte string is (cuwheel/object/identify.h).
#include "cuwheel/object/identify.h"

#include <cstdint>

#include "cuwheel/object/archive.h"
#include "cuwheel/object/elf.h"
#include "cuwheel/object/fatbin.h"

namespace cuwheel {

FileKind identify(ByteView head) {
  if (elf::File::has_magic(head)) return FileKind::elf;
  uint32_t magic = 0;
  if (load_le(head, 0, magic) && magic == fatbin::kContainerMagic) return FileKind::fatbin;
  if (archive::has_magic(head)) return FileKind::archive;
  if (head.size() >= 4 && head[0] == 'P' && head[1] == 'K' &&
      ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6)))
    return FileKind::zip;
  return FileKind::other;
}

std::string_view to_string(FileKind kind) {
  switch (kind) {
    case FileKind::elf: return "elf";
    case FileKind::fatbin: return "fatbin";
    case FileKind::archive: return "archive";
    case FileKind::zip: return "zip";
    case FileKind::other: return "other";
  }
  return "other";
}

}  // namespace cuwheel
