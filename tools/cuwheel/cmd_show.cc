// `cuwheel show`: per input, and per ELF file inside a wheel or directory,
// the facts the dynamic loader and the CUDA driver act on: soname, NEEDED
// (each classified), RPATH/RUNPATH, the CUDA runtime it uses, and a summary
// of its device code; for a wheel also its name, version, tags and
// Requires-Dist. JSON schema: docs/json-schema.md ("show", schema 1).
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "cuwheel/object/identify.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/model/facts.h"
#include "cuwheel/model/inputs.h"
#include "cuwheel/model/model.h"
#include "cuwheel/render/show.h"
#include "cuwheel/wheel/wheel.h"

namespace cuwheel::cli {

namespace {

using json = nlohmann::ordered_json;

struct ShowOptions {
  std::string format = "text";  ///< text | json
  std::vector<std::string> paths;
};
ShowOptions g_opts;


class ShowVisitor : public InputVisitor {
 public:
  ShowVisitor(const ShowOptions& o, Progress& p) : o_(o), progress_(p) {}
  int status() const { return status_; }
  json take_json() { return std::move(inputs_); }

  void begin_input(const std::string& path, InputKind kind) override {
    records_.clear();
    errors_.clear();
    input_kind_ = kind;
    input_ = json::object();
    budgets_.begin_input(path, kind);
    input_["path"] = path;
    input_["kind"] = kind == InputKind::wheel ? "wheel" : kind == InputKind::archive ? "archive"
                     : kind == InputKind::directory ? "directory" : "file";
    if (kind == InputKind::wheel) read_wheel(path);
  }

  void begin_archive(const ObjectRef& archive) override { budgets_.begin_archive(archive); }

  void object(const ObjectRef& obj) override {
    render::ShowObject r;
    r.display = obj.display();
    r.member = obj.member;
    r.archive_member = obj.archive_member;
    r.owner = obj.owner;
    if (identify(obj.bytes) != FileKind::elf && !looks_like_object(obj.bytes)) {
      // Only plain inputs reach here with non-object bytes.
      return error(obj.display(), Error(kNotAnInput));
    }
    // One read of the object (model/model.h), as check does; payload pages
    // are released as soon as each entry is read, so a large library mapped
    // from a wheel does not stay resident.
    model::ReadObjectOptions ro;
    ro.exports = false;
    ro.budget = budgets_.for_object(obj);
    model::LibraryModel lib = model::read_object(obj.bytes, ro, [&obj](ByteView v) { obj.release(v); });
    if (!lib.elf_error.empty()) return error(obj.display(), Error(lib.elf_error));
    if (lib.is_elf) {
      r.load = std::move(lib.load);
      r.symbol_needs = std::move(lib.cuda_symbol_needs);
    }
    // Device code that could not be read at all (a raw fatbin or cubin
    // whose structure lies) is unreadable input, as for list and check.
    if (!lib.device_read && !lib.device_error.empty()) {
      error(obj.display(), Error(lib.device_error));
      // A raw fatbin or cubin has nothing else to show: no record saying
      // "device code none" after the error (list prints no line either).
      if (!lib.is_elf) return;
    }
    if (lib.device_read) {
      if (lib.device.stopped) error(obj.display(), *lib.device.stopped);
      // show reads every payload (kernels, PTX directives): one that does
      // not decode is input that cannot be read (exit 2), named with the
      // entry's offset; the rest of the object is still shown.
      for (const auto& e : lib.payload_errors) error(obj.display(), Error(e));
      r.device = lib.summary;
    }
    r.warnings = lib.read_warnings();
    records_.push_back(std::move(r));
  }

  void error(const std::string& where, const Error& err) override {
    status_ = kExitUnreadable;
    progress_.clear();
    print_error(where, err.message());
    errors_.push_back(json{{"where", where}, {"message", err.message()}});
  }

  void progress(const std::string& path, uint64_t done, uint64_t total) override {
    progress_.update(path, done, total);
  }

  void end_input(const std::string& path) override {
    // A directory with nothing to show is an input error, never a silent
    // empty report (docs/architecture.md: unreadable input -> 2).
    if (input_kind_ == InputKind::directory && records_.empty() && errors_.empty())
      error(path, Error("no ELF files found in this directory"));
    // NEEDED entries that name a file shipped in the same wheel/directory.
    const std::map<std::string, std::string> bundled = render::bundled_names(records_);
    json objects = json::array();
    for (const auto& r : records_) objects.push_back(render::show_object_json(r, bundled));
    input_["objects"] = objects;
    input_["errors"] = errors_;
    progress_.clear();
    if (o_.format == "text") {
      std::cout << render::render_show_text(input_);
      std::cout.flush();
    }
    inputs_.push_back(std::move(input_));
  }

  void missing(const std::string& path, const Error& err) {
    begin_input(path, InputKind::file);
    input_["kind"] = "missing";
    error("", err);
    input_["objects"] = json::array();
    input_["errors"] = errors_;
    inputs_.push_back(std::move(input_));
  }

 private:
  void read_wheel(const std::string& path) {
    auto w = Wheel::open(path);
    if (!w) return;  // the walk reports it
    WarningSink warnings;
    auto s = read_wheel_summary(*w, warnings);
    if (!s) {
      error(path, s.error());
      return;
    }
    input_["wheel"] = render::show_wheel_json(*s);
    for (const auto& m : warnings.messages()) {
      progress_.clear();
      print_warning(path, m);
    }
  }

  const ShowOptions& o_;
  Progress& progress_;
  InputBudgets budgets_;  // decode budgets: one per wheel, one per archive
  int status_ = 0;
  std::vector<render::ShowObject> records_;
  InputKind input_kind_ = InputKind::file;
  json errors_ = json::array();
  json input_;
  json inputs_ = json::array();
};

}  // namespace

void setup_show(CLI::App* cmd) {
  cmd->add_option("--format", g_opts.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_str("text");
  cmd->add_option("PATH", g_opts.paths, "ELF file, static archive, wheel or directory")->required();
}

int run_show() {
  const ShowOptions& o = g_opts;
  Progress progress;
  ShowVisitor v(o, progress);
  walk_paths(o.paths, v, progress, [&v](const std::string& p, const Error& e) { v.missing(p, e); });
  if (o.format == "json") print_json_document("show", v.take_json());
  return v.status();
}

}  // namespace cuwheel::cli
