// cuwheel: byte-for-byte emulation of `cuobjdump --list-elf/--list-ptx`.
//
// cuobjdump takes one file per run. For that file it prints, on stdout,
// one line per listed entry ("ELF file    1: libfoo.1.sm_80.cubin"), and on
// stderr "info" lines when a kind is missing or the file has no device code;
// fatal errors go to stderr with exit status 1, "no device code" exits 255.
// The behaviour encoded here was observed on cuobjdump 13.0 and 13.2; each
// rule and the command that showed it is in docs/cuobjdump-behaviour.md.
#pragma once

#include <string>
#include <vector>

#include "cuwheel/object/devicecode.h"
#include "cuwheel/base/expected.h"

namespace cuwheel::cuobjdump {

struct Mode {
  bool elf = false;  ///< -lelf
  bool ptx = false;  ///< -lptx
  bool all = false;  ///< -all: list relocatable fatbins too
};

/// What one cuobjdump run would print.
struct Output {
  std::string out;   ///< stdout bytes
  std::string err;   ///< stderr bytes
  int status = 0;    ///< exit status (0, 1 or 255)
};

/// The device code of one object of a file: the whole file, or one member
/// of a static archive (`member` is its name then).
struct ObjectCode {
  std::string member;
  Expected<DeviceCode> code = Error("not read");
};

/// Kinds of file as cuobjdump tells them apart.
enum class FileKind {
  unopenable,  ///< missing or unreadable: "Could not open input file"
  too_small,   ///< shorter than a fatbin header (16 bytes): "Invalid fatbin header"
  object,      ///< ELF, raw fatbin or cubin: one ObjectCode
  archive,     ///< static archive: one ObjectCode per member
  other,       ///< anything else: "does not contain device code"
};

/// Renders one file's listing. `path_as_given` is the path on the command
/// line (the listing's base name comes from its last component);
/// `cwd` is the working directory that cuobjdump would prefix to a relative
/// path in its messages. Objects must be read with Depth::arch or deeper,
/// so that ELF entries are named after their cubin's own architecture.
/// `file_name`, when set, is the file whose name the entries are named
/// after instead of the last component of the path (a wheel member
/// "w.whl:awq_ext.so" lists as cuobjdump lists the extracted awq_ext.so).
Output render(const std::string& path_as_given, const std::string& cwd, FileKind kind,
              const std::vector<ObjectCode>& objects, const Mode& mode, const std::string& file_name = "");

/// The file name without its last extension ("libfoo.so.1" -> "libfoo.so",
/// ".hidden" -> "").
std::string base_of(const std::string& file_name);

/// The base cuobjdump uses in entry names: each space-separated word of
/// `name` without its last extension, joined by '-' ("p.q r.s.fatbin" ->
/// "p-r.s"); only the first word when `first_word_only`.
std::string listing_base(const std::string& name, bool first_word_only);

}  // namespace cuwheel::cuobjdump
