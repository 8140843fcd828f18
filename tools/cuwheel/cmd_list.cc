// `cuwheel list`: the device code entries of each input.
//
// Formats:
//   text       one block per object, one line per entry
//   json       the schema of docs/json-schema.md ("list", schema 1)
//   cuobjdump  byte-identical to `cuobjdump -lelf/-lptx [-all] FILE`, run
//              once per file; wheel and directory members are each listed
//              as cuobjdump would list the extracted file, after a
//              "member PATH:MEMBER:" line.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <optional>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "cuwheel/object/archive.h"
#include "cuwheel/render/cuobjdump.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/model/inputs.h"

namespace cuwheel::cli {

namespace {

using json = nlohmann::ordered_json;

struct ListOptions {
  bool elf = false;
  bool ptx = false;
  bool all = false;
  std::string format = "text";  ///< text | json | cuobjdump
  std::vector<std::string> paths;
};
ListOptions g_opts;

std::string current_dir() {
  char buf[PATH_MAX];
  if (getcwd(buf, sizeof buf)) return buf;
  return ".";
}

const char* compression_name(fatbin::Compression c) {
  switch (c) {
    case fatbin::Compression::none: return "none";
    case fatbin::Compression::lz4: return "lz4";
    case fatbin::Compression::zstd: return "zstd";
    case fatbin::Compression::legacy: return "legacy";
  }
  return "none";
}

const char* origin_name(fatbin::Origin o) {
  switch (o) {
    case fatbin::Origin::executable: return "executable";
    case fatbin::Origin::relocatable: return "relocatable";
    case fatbin::Origin::other: return "other";
    case fatbin::Origin::data: return "data";
  }
  return "other";
}

const char* kind_label(uint16_t kind) {
  switch (kind) {
    case fatbin::kElf: return "sass";
    case fatbin::kPtx: return "ptx";
    case fatbin::kLtoIr: return "ltoir";
    default: return nullptr;
  }
}

/// The architecture a user reads: the cubin's own for SASS (with 'f' from
/// the entry header, which is the only place it is recorded), the virtual
/// architecture for PTX and LTO-IR.
std::string display_arch(const EntryFacts& e) {
  if (e.kind == fatbin::kElf) {
    std::string a = e.cubin ? e.cubin->arch_name() : e.header_arch();
    if (e.arch_f && a.back() != 'a' && a.back() != 'f') a += "f";
    return a;
  }
  if (e.kind == fatbin::kPtx) return e.virtual_arch();
  if (e.kind == fatbin::kLtoIr) return "lto_" + std::to_string(e.sm) + (e.arch_a ? "a" : e.arch_f ? "f" : "");
  return e.header_arch();
}

json entry_json(const EntryFacts& e) {
  json j;
  const char* k = kind_label(e.kind);
  j["kind"] = k ? k : fatbin::kind_name(e.kind);
  j["arch"] = display_arch(e);
  j["sm"] = e.sm;
  j["suffix"] = e.arch_a ? "a" : e.arch_f ? "f" : "";
  if (e.kind == fatbin::kPtx) j["ptx_isa"] = e.ptx_isa();
  if (e.cubin) {
    j["cubin_abi"] = e.cubin->abi_version;
    j["cubin_arch"] = e.cubin->arch_name();
  }
  j["compression"] = compression_name(e.compression);
  j["stored_size"] = e.stored_size;
  j["size"] = e.size;
  j["offset"] = e.offset;
  j["section"] = e.section;
  j["origin"] = origin_name(e.origin);
  j["via_wrapper"] = e.via_wrapper;
  j["debug"] = (e.flags & fatbin::kFlagDebug) != 0;
  if (!e.identifier.empty()) j["identifier"] = e.identifier;
  if (!e.payload_error.empty()) j["payload_error"] = e.payload_error;
  return j;
}

bool selected(const ListOptions& o, const DeviceCode& dc, const EntryFacts& e) {
  if (!o.all && dc.has_executable && dc.kind == ObjectKind::host_elf && e.origin != fatbin::Origin::executable)
    return false;
  if (o.elf || o.ptx) return (o.elf && e.kind == fatbin::kElf) || (o.ptx && e.kind == fatbin::kPtx);
  return true;
}

std::string text_entry(const EntryFacts& e) {
  char buf[256];
  const char* k = kind_label(e.kind);
  std::string extra;
  if (e.kind == fatbin::kPtx && !e.ptx_isa().empty()) extra = "ISA " + e.ptx_isa();
  if (e.flags & fatbin::kFlagDebug) extra += extra.empty() ? "debug" : ", debug";
  std::string size = e.compression == fatbin::Compression::none
                         ? std::to_string(e.size) + " B"
                         : std::to_string(e.stored_size) + " B " + compression_name(e.compression) + " (" +
                               std::to_string(e.size) + " B)";
  std::snprintf(buf, sizeof buf, "  %-6s %-13s %-12s %-30s %s %s", k ? k : fatbin::kind_name(e.kind).c_str(),
                display_arch(e).c_str(), extra.c_str(), size.c_str(), e.section.empty() ? "-" : printable(e.section).c_str(),
                hex(e.offset).c_str());
  std::string s = buf;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s + "\n";
}

class ListVisitor : public InputVisitor {
 public:
  ListVisitor(const ListOptions& o, Progress& p) : o_(o), progress_(p), cwd_(current_dir()) {}

  int status() const { return status_; }
  json take_json() { return std::move(json_inputs_); }

  void begin_input(const std::string& path, InputKind kind) override {
    input_kind_ = kind;
    objects_seen_ = 0;
    errors_seen_ = 0;
    json_input_ = json::object();
    json_input_["path"] = path;
    json_input_["kind"] = kind == InputKind::wheel ? "wheel" : kind == InputKind::archive ? "archive"
                          : kind == InputKind::directory ? "directory" : "file";
    json_input_["objects"] = json::array();
    json_input_["errors"] = json::array();
  }

  void begin_archive(const ObjectRef& a) override {
    if (o_.format != "cuobjdump") return;
    start_group(a);
    group_kind_ = cuobjdump::FileKind::archive;
  }

  void object(const ObjectRef& obj) override {
    ++objects_seen_;
    if (o_.format == "cuobjdump") return cuobjdump_object(obj);
    WarningSink warnings;
    auto dc = read_device_code(obj.bytes, Depth::arch, &warnings, [&obj](ByteView v) { obj.release(v); });
    const bool plain = obj.input_kind == InputKind::file || obj.input_kind == InputKind::archive;
    if (!dc) {
      // Inside wheels and directories, files that are not objects are skipped
      // before this point; an object that fails to parse is an error.
      if (!plain || looks_like_object(obj.bytes)) error(obj.display(), dc.error());
      else error(obj.display(), Error("not an ELF file, static archive or fatbin"));
      return;
    }
    for (const auto& w : warnings.messages()) {
      progress_.clear();
      print_warning(obj.display(), w);
    }
    // Reading stopped at a broken container: list what was read, and fail.
    if (dc->stopped) error(obj.display(), *dc->stopped);
    else if (auto t = elf::truncated_header_tables(obj.bytes)) error(obj.display(), Error(*t));
    if (o_.format == "json") {
      json j;
      j["path"] = obj.display();
      if (!obj.member.empty()) j["member"] = obj.member;
      if (!obj.archive_member.empty()) j["archive_member"] = obj.archive_member;
      if (!obj.owner.empty()) j["distribution"] = obj.owner;
      j["containers"] = dc->containers;
      json entries = json::array();
      for (const auto& e : dc->entries)
        if (selected(o_, *dc, e)) entries.push_back(entry_json(e));
      j["entries"] = std::move(entries);
      json_input_["objects"].push_back(std::move(j));
      return;
    }
    // text. The head line counts every entry of the object (relocatable
    // ones only with --all, as listed); --elf/--ptx choose the lines shown
    // below it and the head says so, so "1 PTX" stays true under --elf.
    // Entries that only --all lists (relocatable fatbins, containers found
    // in data sections) are counted apart, so the head line says what the
    // listing leaves out rather than hiding PTX that show and check count.
    ListOptions kinds_all = o_;
    kinds_all.elf = kinds_all.ptx = false;
    ListOptions everything = kinds_all;
    everything.all = true;
    size_t sass = 0, ptx = 0, other = 0, hidden_sass = 0, hidden_ptx = 0, hidden_other = 0;
    std::vector<std::string> hidden_in;
    std::string body;
    for (const auto& e : dc->entries) {
      if (!selected(kinds_all, *dc, e)) {
        if (!selected(everything, *dc, e)) continue;
        (e.kind == fatbin::kElf ? hidden_sass : e.kind == fatbin::kPtx ? hidden_ptx : hidden_other)++;
        std::string where = e.section.empty() ? "unnamed sections" : e.section;
        if (std::find(hidden_in.begin(), hidden_in.end(), where) == hidden_in.end()) hidden_in.push_back(where);
        continue;
      }
      if (e.kind == fatbin::kElf) ++sass;
      else if (e.kind == fatbin::kPtx) ++ptx;
      else ++other;
      if (selected(o_, *dc, e)) body += text_entry(e);
    }
    // In wheels and directories, objects without device code are left out.
    if (!plain && dc->entries.empty()) return;
    progress_.clear();
    std::string head = printable(obj.display()) + ": ";
    if (dc->entries.empty()) head += "no device code";
    else {
      head += std::to_string(sass) + " SASS, " + std::to_string(ptx) + " PTX";
      if (other) head += ", " + std::to_string(other) + " other";
      head += " in " + std::to_string(dc->containers) + (dc->containers == 1 ? " container" : " containers");
      if (o_.elf != o_.ptx) head += o_.elf ? " (listing SASS only)" : " (listing PTX only)";
      if (hidden_sass + hidden_ptx + hidden_other) {
        head += "; --all adds " + std::to_string(hidden_sass) + " SASS, " + std::to_string(hidden_ptx) + " PTX";
        if (hidden_other) head += ", " + std::to_string(hidden_other) + " other";
        head += " in ";
        for (size_t i = 0; i < hidden_in.size(); ++i) head += (i ? ", " : "") + printable(hidden_in[i]);
      }
    }
    std::cout << head << "\n" << body;
  }

  void error(const std::string& where, const Error& err) override {
    status_ = kExitUnreadable;
    ++errors_seen_;
    if (o_.format == "cuobjdump") {
      // An unreadable part of a plain file means cuobjdump could not open
      // it: its listing says so with cuobjdump's words and status. Wheels
      // and directories have no cuobjdump counterpart: what cannot be read
      // there is unreadable input (exit 2), as in every other format.
      if (group_active_ && !group_in_container_ && group_kind_ != cuobjdump::FileKind::archive)
        group_kind_ = cuobjdump::FileKind::unopenable;
      else if (cuobjdump_status_ == 0)
        cuobjdump_status_ = kExitUnreadable;
      progress_.clear();
      print_error(where, err.message());
      return;
    }
    progress_.clear();
    print_error(where, err.message());
    if (o_.format == "json") json_input_["errors"].push_back(json{{"where", where}, {"message", err.message()}});
  }

  void end_input(const std::string& path) override {
    // A directory with nothing to list is an input error, never a silent
    // empty listing (docs/architecture.md: unreadable input -> 2).
    if (input_kind_ == InputKind::directory && objects_seen_ == 0 && errors_seen_ == 0)
      error(path, Error("no ELF files found in this directory"));
    if (o_.format == "cuobjdump") flush_group();
    if (o_.format == "json") json_inputs_.push_back(std::move(json_input_));
  }

  void progress(const std::string& path, uint64_t done, uint64_t total) override {
    progress_.update(path, done, total);
  }

 private:
  // --- cuobjdump format: objects are grouped per file (or wheel member) ---
  void start_group(const ObjectRef& ref) {
    std::string key = ref.input + "\n" + ref.member;
    if (group_active_ && key == group_key_) return;
    flush_group();
    group_active_ = true;
    group_key_ = key;
    group_kind_ = cuobjdump::FileKind::object;
    group_objects_.clear();
    if (ref.member.empty()) {
      group_path_ = ref.input;
      group_file_.clear();
      group_header_.clear();
    } else {
      // A wheel or directory member has no cuobjdump listing of its own to
      // match: its name, read from the input, is shown through printable().
      group_path_ = printable(ref.input + ":" + ref.member);
      group_file_ = printable(ref.member);  // entries are named after the member's file name
      std::string abs = !ref.input.empty() && ref.input[0] == '/' ? ref.input : cwd_ + "/" + ref.input;
      group_header_ = "\nmember " + printable(abs + ":" + ref.member) + ":\n";
      group_in_container_ = true;
    }
  }

  void cuobjdump_object(const ObjectRef& obj) {
    start_group(obj);
    group_in_container_ = !obj.member.empty();
    // cuobjdump's own triage of a file: shorter than a fatbin header is
    // "Invalid fatbin header"; neither ELF nor fatbin is "no device code".
    if (group_kind_ != cuobjdump::FileKind::archive) {
      if (obj.bytes.size() < 16) group_kind_ = cuobjdump::FileKind::too_small;
      else if (!looks_like_object(obj.bytes)) group_kind_ = cuobjdump::FileKind::other;
      // A program or section header table that ends past the end of the
      // file: cuobjdump 13.2 finds no device code in it (host ELF and
      // cubin alike, observed), and exits 255.
      else if (elf::truncated_header_tables(obj.bytes)) group_kind_ = cuobjdump::FileKind::other;
    }
    cuobjdump::ObjectCode oc;
    oc.member = group_in_container_ ? printable(obj.archive_member) : obj.archive_member;
    oc.code = read_device_code(obj.bytes, Depth::arch, nullptr, [&obj](ByteView v) { obj.release(v); });
    group_objects_.push_back(std::move(oc));
  }

  void flush_group() {
    if (!group_active_) return;
    group_active_ = false;
    auto out = cuobjdump::render(group_path_, cwd_, group_kind_, group_objects_, cuobjdump::Mode{o_.elf, o_.ptx, o_.all},
                                 group_file_);
    progress_.clear();
    std::cout << group_header_ << out.out;
    std::cout.flush();
    std::cerr << out.err;
    std::cerr.flush();
    if (!group_in_container_) {
      if (out.status != 0 && cuobjdump_status_ == 0) cuobjdump_status_ = out.status;
    } else if (out.status == 1 && cuobjdump_status_ == 0) {
      cuobjdump_status_ = 1;
    }
    group_objects_.clear();
  }

 public:
  int cuobjdump_status() const { return cuobjdump_status_; }

  /// An input path that could not be opened at all.
  void missing(const std::string& path, const Error& err) {
    if (o_.format == "cuobjdump") {
      auto out = cuobjdump::render(path, cwd_, cuobjdump::FileKind::unopenable, {}, cuobjdump::Mode{o_.elf, o_.ptx, o_.all});
      progress_.clear();
      std::cerr << out.err;
      if (cuobjdump_status_ == 0) cuobjdump_status_ = out.status;
      return;
    }
    status_ = kExitUnreadable;
    progress_.clear();
    print_error("", err.message());
    if (o_.format == "json")
      json_inputs_.push_back(json{{"path", path}, {"kind", "missing"}, {"objects", json::array()},
                                  {"errors", json::array({json{{"where", path}, {"message", err.message()}}})}});
  }

 private:
  const ListOptions& o_;
  Progress& progress_;
  std::string cwd_;
  int status_ = 0;
  InputKind input_kind_ = InputKind::file;
  size_t objects_seen_ = 0, errors_seen_ = 0;  // in the current input
  json json_input_;
  json json_inputs_ = json::array();
  // cuobjdump grouping
  bool group_active_ = false;
  bool group_in_container_ = false;
  std::string group_key_, group_path_, group_file_, group_header_;
  cuobjdump::FileKind group_kind_ = cuobjdump::FileKind::object;
  std::vector<cuobjdump::ObjectCode> group_objects_;
  int cuobjdump_status_ = 0;
};

}  // namespace

void setup_list(CLI::App* cmd) {
  cmd->add_flag("--elf", g_opts.elf, "List ELF (SASS) entries");
  cmd->add_flag("--ptx", g_opts.ptx, "List PTX entries");
  cmd->add_flag("--all", g_opts.all, "Also list relocatable fatbins (like cuobjdump -all)");
  cmd->add_option("--format", g_opts.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "cuobjdump"}))
      ->default_str("text");
  cmd->add_option("PATH", g_opts.paths, "ELF file, static archive, fatbin, cubin, wheel or directory")->required();
}

int run_list() {
  const ListOptions& o = g_opts;
  Progress progress;
  ListVisitor v(o, progress);
  walk_paths(o.paths, v, progress, [&v](const std::string& p, const Error& e) { v.missing(p, e); });
  if (o.format == "json") print_json_document("list", v.take_json());
  if (o.format == "cuobjdump") {
    return v.cuobjdump_status();
  }
  return v.status();
}

}  // namespace cuwheel::cli
