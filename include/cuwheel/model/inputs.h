// cuwheel: turning command-line paths into objects to read.
//
// An input path is a plain ELF file, a raw fatbin or cubin, a static
// archive, a wheel (any zip), or a directory (for example an installed
// environment's site-packages). walk_input() opens it, finds every object
// inside (archive members, wheel members, files under a directory) and hands
// each to the visitor one at a time, so memory holds one object at a time
// whatever the input's size (in a wheel, also at most two members read
// ahead by a second thread, those held in memory at most 4 MiB in all;
// larger ones are in temporary files). Unreadable parts are reported to the
// visitor and the walk goes on with the rest.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"
#include "cuwheel/base/source.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/wheel/wheel.h"

namespace cuwheel {

enum class InputKind { file, archive, wheel, directory };

/// One object found in an input.
struct ObjectRef {
  std::string input;        ///< the path as given
  InputKind input_kind = InputKind::file;
  std::string member;       ///< path inside the wheel or directory ("" for a plain file)
  std::string archive_member;  ///< member of a static archive ("" when not in one)
  std::string owner;        ///< distribution that installed it (from RECORD), "" when unknown
  ByteView bytes;           ///< the object's bytes; valid only during the visit
  const Blob* blob = nullptr;  ///< the buffer `bytes` lies in (for release())
  /// Lets the pages of `part` (a sub-view of `bytes`) leave memory once
  /// read; a no-op for heap buffers. See Blob::release.
  void release(ByteView part) const;
  /// "input", "input:member" or "input:member:archive_member", as used in messages.
  std::string display() const;
  /// The object's own file name (last path component of the innermost name).
  std::string file_name() const;
};

struct InputVisitor {
  virtual ~InputVisitor() = default;
  /// Called once per input before its objects; `kind` says what it is.
  virtual void begin_input(const std::string& path, InputKind kind) {}
  /// Called for each archive before its members (for listing headers).
  virtual void begin_archive(const ObjectRef& archive) {}
  virtual void object(const ObjectRef& obj) = 0;
  /// A part that could not be read. `where` names the file and member;
  /// `err` the problem (with offsets).
  virtual void error(const std::string& where, const Error& err) = 0;
  /// Called once per input after its objects.
  virtual void end_input(const std::string& path) {}
  /// Progress: the number of bytes of the current input handled so far.
  virtual void progress(const std::string& path, uint64_t done, uint64_t total) {}

  // Wheels: a visitor that needs more than the objects (check hashes the
  // members RECORD lists and scans Python sources for the libraries they
  // load) takes part in the walk of each wheel's members.
  //
  // The walk of a wheel has two passes. First, right after begin_wheel(),
  // skip_wheel_member() and wheel_member() are asked about every member
  // that is not a folder, in central-directory order, before any member is
  // read: the answers say what to read. Then the members are read by a
  // second thread, at most one member ahead of this one (decompressing and
  // hashing member i+1 while member i's objects are visited), and every
  // other call -- wheel_member_begin(), object(), error(),
  // wheel_member_read(), wheel_member_error(), progress() -- comes on the
  // walking thread, in central-directory order, one member after another.
  /// The wheel is open, before its members: its central directory and
  /// .dist-info can be read from `wheel`.
  virtual void begin_wheel(const std::string& path, Wheel& wheel) {}
  /// What to read of one member (wheel_member()'s answer).
  struct MemberRequest {
    /// True reads the member whole, whatever it holds, and hands its bytes
    /// to wheel_member_read(); false reads it only when its first bytes
    /// are an object's (and its name may be one's: skip_by_name()).
    bool whole = false;
    /// With `whole`: a RECORD hash algorithm ("sha256", "sha384",
    /// "sha512"; base/digest.h) whose digest of the member's bytes is
    /// computed while they are decompressed and handed to
    /// wheel_member_read() in RECORD's form (`sha256=<base64url>`); ""
    /// for none.
    std::string digest;
  };
  /// Asked once for each member that is not a folder and that
  /// skip_wheel_member() kept, in the first pass (`index` into
  /// Wheel::members()). The default reads only objects.
  virtual MemberRequest wheel_member(const std::string& path, const ZipMember& m, size_t index) { return {}; }
  /// Asked before wheel_member(), in the first pass: true leaves the
  /// member out of the walk altogether (not peeked at, not read), for a
  /// visitor that already knows what it holds.
  virtual bool skip_wheel_member(const std::string& path, const ZipMember& m, size_t index) { return false; }
  /// Second pass: each member that is not a folder, skipped or not, when
  /// its turn comes and before anything else is said about it.
  virtual void wheel_member_begin(const std::string& path, const ZipMember& m, size_t index) {}
  /// The bytes of a member wheel_member() asked for, after the objects in
  /// it (if it is one) were visited. `ref.bytes` is the whole member;
  /// `digest` the RECORD-form digest that wheel_member() asked for ("" when
  /// none was asked for).
  virtual void wheel_member_read(const ObjectRef& ref, const ZipMember& m, size_t index, const Blob& blob,
                                 const std::string& digest) {}
  /// A member that could not be peeked at or read; by default error().
  virtual void wheel_member_error(const std::string& where, const ZipMember& m, size_t index, const Error& err) {
    error(where, err);
  }
};

struct WalkOptions {
  /// Visit objects that are neither ELF nor fatbin (none are, today).
  bool expand_archives = true;   ///< visit the members of static archives
  /// In directories: skip files larger than this (bytes), 0 = no limit.
  uint64_t max_file_size = 0;
  /// Visit raw fatbin members of wheels (every command does; a walker
  /// that wants ELF files and archives only turns it off).
  bool wheel_fatbins = true;
};

/// Walks one input. Returns an Error only when the input itself cannot be
/// opened at all (missing, unreadable, not a recognised format); problems
/// inside it go to visitor.error() and the walk continues.
Status walk_input(const std::string& path, const WalkOptions& opts, InputVisitor& visitor);

/// Walks the members of the wheel (any zip) at `path`, as walk_input()
/// does for a wheel, without begin_input()/end_input(). Returns an Error
/// only when the zip cannot be opened (Wheel::open's error); problems
/// inside it go to the visitor. `owner`: ObjectRef::owner of its objects.
Status walk_wheel(const std::string& path, const WalkOptions& opts, InputVisitor& visitor,
                  const std::string& owner = "");

/// What every command says of a plain file that is none of the inputs
/// cuwheel reads (identify(): no zip, ELF, `!<arch>` or fatbin magic).
inline constexpr const char* kNotAnInput = "not a wheel, ELF file, static archive, fatbin or cubin";

/// The most bytes of one `*.dist-info/RECORD` read (torch 2.15's is 1.3 MB).
inline constexpr size_t kMaxRecordBytes = size_t{16} << 20;

/// Maps files under a site-packages directory to the distribution that
/// installed them, from every `*.dist-info/RECORD` directly inside `dir`
/// (read with the RECORD parser, so quoted names with commas or newlines
/// map as they are written). Keys are paths relative to `dir` with '/'
/// separators; values are the distribution names as the dist-info
/// directory spells them. A RECORD that is not a regular file (a FIFO, a
/// link to /dev/zero), cannot be read or is larger than kMaxRecordBytes
/// owns nothing and is reported in `errors` as (path, message) when given.
std::map<std::string, std::string> record_owners(const std::string& dir,
                                                 std::vector<std::pair<std::string, std::string>>* errors = nullptr);


/// The decode budget (object/devicecode.h) each object of a walk draws
/// from, for a visitor that reads payloads: one per wheel, tied to the
/// wheel's file size; one per folder, tied to the sizes of the files read
/// in it so far (a hundred small bombs in a folder share one floor); one
/// per static archive met outside a wheel or folder, tied to the
/// archive's size; none for a plain object (read_device_code then gives
/// the object one of its own size). Call begin_input() and
/// begin_archive() from the visitor's methods of the same names.
class InputBudgets {
 public:
  /// Errors reading the wheel's size leave the wheel without a budget of
  /// its own (its objects then get their own).
  void begin_input(const std::string& path, InputKind kind);
  void begin_archive(const ObjectRef& archive);
  /// The budget for `obj`, or null for "the object's own".
  DecodeBudget* for_object(const ObjectRef& obj);

 private:
  std::optional<DecodeBudget> wheel_, archive_, folder_;
  std::string archive_name_;  ///< ObjectRef::member of the archive archive_ belongs to
  std::string folder_file_;   ///< the folder's file whose size folder_ took last
  bool archive_counted_ = false;
};

/// True when a member or file name is obviously not an object (Python
/// sources, headers, text, metadata), so its bytes need not be sniffed.
bool skip_by_name(std::string_view name);

}  // namespace cuwheel
