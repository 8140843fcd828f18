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
#include "cuwheel/render/list.h"
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
    // An ELF file cut short is one error, worded as show and check word it;
    // the parser's warnings about the tables it lost say the same again.
    const auto truncated = elf::truncated_header_tables(obj.bytes);
    if (!dc) {
      // Inside wheels and directories, files that are not objects are skipped
      // before this point; an object that fails to parse is an error.
      if (truncated) error(obj.display(), Error(*truncated));
      else if (!plain || looks_like_object(obj.bytes)) error(obj.display(), dc.error());
      else error(obj.display(), Error(kNotAnInput));
      return;
    }
    if (!truncated) {
      for (const auto& w : warnings.messages()) {
        progress_.clear();
        print_warning(obj.display(), w);
      }
    }
    // Reading stopped at a broken container, or the file is cut short: list
    // what was read, and fail. When nothing was read the error says it all.
    if (dc->stopped) error(obj.display(), *dc->stopped);
    else if (truncated) error(obj.display(), Error(*truncated));
    if (truncated && dc->entries.empty()) return;
    const render::ListSelection sel{o_.elf, o_.ptx, o_.all};
    if (o_.format == "json") {
      json_input_["objects"].push_back(render::list_object_json(obj, *dc, sel));
      return;
    }
    std::string text = render::render_list_text(obj, *dc, sel, plain);
    if (text.empty()) return;
    progress_.clear();
    std::cout << text;
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
    // Only what cuobjdump lists: the data sections' unreferenced containers
    // (cuobjdump.h listing_order leaves them out) are not read at all.
    oc.code = read_device_code(obj.bytes, Depth::arch, nullptr, [&obj](ByteView v) { obj.release(v); }, nullptr,
                               Sections::listed);
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
