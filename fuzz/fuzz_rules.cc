// libFuzzer target: the check rules (check/check.h, run_rules) and the four
// report renderers on a fuzzed model. The input is sections separated by
// the byte 0x1e (ASCII record separator):
//   0  wheel file name            3  RECORD
//   1  METADATA                   4  member names, one per line
//   2  WHEEL                      5  a Python source (python_loads)
//   6… one library each: either the bytes of an object (ELF magic or fatbin
//      container; it runs to the end of the input: read with
//      model::read_object, as check reads a member), or lines "member M", "soname S", "needed A B", "runpath A:B",
//      "rpath A:B", "strings A B", "exports A B", "sass N...", "ptx N..."
//      (device entries: SM numbers; "ptx 90" is compute_90, ISA 8.0).
// Each model is checked under three policies (built-in; CUDA 12 with GPUs,
// a driver floor and exact SASS; CUDA 13 with newest PTX), and with the
// other models as --deps. No crash, no sanitizer report, every finding
// names its rule and says something, every renderer returns text (the
// built-in policy's findings are rendered in all four formats).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/check/check.h"
#include "cuwheel/model/model.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/object/identify.h"
#include "cuwheel/render/report.h"

using namespace cuwheel;
using namespace cuwheel::check;

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) return out;
    start = p + 1;
  }
}

std::vector<std::string> words(std::string_view s, char sep = ' ') {
  std::vector<std::string> out;
  for (auto w : split(s, sep))
    if (!w.empty() && out.size() < 64) out.emplace_back(w);
  return out;
}

ByteView bytes_of(std::string_view s) { return ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

LibraryModel library_from_lines(std::string_view text) {
  LibraryModel lib;
  lib.is_elf = true;
  lib.device_read = true;
  for (auto line : split(text, '\n')) {
    size_t sp = line.find(' ');
    std::string_view key = line.substr(0, sp), rest = sp == std::string_view::npos ? "" : line.substr(sp + 1);
    if (key == "member") lib.member = std::string(rest);
    else if (key == "soname") lib.load.soname = std::string(rest);
    else if (key == "needed") lib.load.needed = words(rest);
    else if (key == "runpath") lib.load.runpath = words(rest, ':');
    else if (key == "rpath") lib.load.rpath = words(rest, ':');
    else if (key == "strings") lib.library_strings = words(rest);
    else if (key == "exports") lib.exports = words(rest), lib.export_weak.assign(lib.exports.size(), false);
    else if (key == "sass" || key == "ptx") {
      for (const auto& w : words(rest)) {
        EntryFacts e;
        e.kind = key == "sass" ? fatbin::kElf : fatbin::kPtx;
        e.sm = static_cast<uint32_t>(std::strtoul(w.c_str(), nullptr, 10) % 200);
        e.arch_a = !w.empty() && w.back() == 'a';
        e.arch_f = !w.empty() && w.back() == 'f';
        e.code_major = e.kind == fatbin::kPtx ? 8 : 1;
        if (lib.device.entries.size() < 256) lib.device.entries.push_back(std::move(e));
      }
      lib.device.containers = 1;
      lib.device.has_executable = true;
    }
  }
  for (const auto& n : lib.library_strings)
    if (lib.dlopen_names.size() < 64 && n.rfind("lib", 0) == 0) lib.dlopen_names.push_back(n);
  lib.summary = summarize(lib.device);
  return lib;
}

CheckModel model_from(std::string_view input) {
  auto sec = split(input, '\x1e');
  auto at = [&](size_t i) { return i < sec.size() ? sec[i] : std::string_view(); };
  CheckModel m;
  m.kind = CheckModel::Kind::wheel;
  m.path = std::string(at(0)).empty() ? "fuzz-1.0-py3-none-any.whl" : std::string(at(0));
  m.filename = m.path;
  if (auto fn = WheelFilename::parse(m.filename)) m.parsed_filename = *fn;
  else m.filename_error = fn.error().message();
  for (auto name : split(at(4), '\n')) {
    if (name.empty() || m.members.size() >= 512) continue;
    MemberModel mm;
    mm.name = std::string(name);
    mm.size = name.size();
    mm.read_ok = true;
    if (m.dist_info.empty())
      if (size_t d = name.find(".dist-info/"); d != std::string_view::npos) m.dist_info = std::string(name.substr(0, d + 10));
    m.members.push_back(std::move(mm));
  }
  if (m.dist_info.empty()) m.dist_info = "fuzz-1.0.dist-info";
  WarningSink w;
  if (auto md = CoreMetadata::parse(bytes_of(at(1)), m.dist_info + "/METADATA", w)) m.metadata = std::move(*md);
  else m.metadata_error = md.error().message();
  if (auto wi = WheelInfo::parse(bytes_of(at(2)), m.dist_info + "/WHEEL", w)) m.wheel_info = std::move(*wi);
  else m.wheel_info_error = wi.error().message();
  m.record = Record::parse(bytes_of(at(3)), m.dist_info + "/RECORD", w);
  m.python_loads = model::python_loads("fuzz/__init__.py", bytes_of(at(5)));
  for (size_t i = 6; i < sec.size() && m.libraries.size() < 16; ++i) {
    if (is_object(identify(bytes_of(sec[i])))) {
      // An object runs to the end of the input (its bytes may hold 0x1e).
      const size_t from = static_cast<size_t>(sec[i].data() - input.data());
      LibraryModel lib = model::read_object(bytes_of(input.substr(from)));
      lib.member = "fuzz/lib" + std::to_string(i) + ".so";
      if (!lib.error.empty()) m.read_errors.emplace_back(m.path + ":" + lib.member, lib.error);
      m.libraries.push_back(std::move(lib));
      break;
    }
    m.libraries.push_back(library_from_lines(sec[i]));
  }
  return m;
}

void check_findings(const std::vector<Finding>& fs) {
  for (const auto& f : fs)
    if (f.rule.empty() || f.message.empty()) std::abort();
}

// SARIF carries every rule's description: rendered once per input, it is
// still most of an execution's time.
void render_all(const std::vector<Finding>& fs, const ReportSummary& s) {
  if (render_text(fs, s).empty() || render_json(fs, s).empty() || render_sarif(fs, s).empty()) std::abort();
  (void)render_github(fs, s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // Two models: the input as one wheel, and its second half as another
  // (a dependency, or a second wheel of the same release).
  std::vector<CheckModel> models;
  models.push_back(model_from(input));
  models.push_back(model_from(input.substr(input.size() / 2)));
  ReportSummary summary;
  summary.inputs = models.size();

  Policy builtin;
  Policy cu12;
  cu12.cuda_major = 12;
  cu12.gpus = {"sm_80", "sm_90", "sm_120"};
  cu12.min_driver = "525.60.13";
  cu12.sass = {"sm_80", "sm_90a"};
  cu12.sass_exact = true;
  cu12.ptx_mode = Policy::PtxMode::none;
  Policy cu13;
  cu13.cuda_major = 13;
  cu13.ptx_mode = Policy::PtxMode::newest;
  cu13.max_size = 1000;
  auto findings = run_rules(models, builtin);
  check_findings(findings);
  render_all(findings, summary);
  for (const Policy* p : {&cu12, &cu13}) check_findings(run_rules(models, *p));
  std::vector<CheckModel> one(models.begin(), models.begin() + 1), deps(models.begin() + 1, models.end());
  check_findings(run_rules(one, builtin, deps));
  return 0;
}
