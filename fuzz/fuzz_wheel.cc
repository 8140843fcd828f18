// libFuzzer target: the wheel reader end to end. The input is taken as a
// zip archive: open it from memory, list it, peek and read every member
// (with small limits so a bomb cannot make the run slow), and feed the
// .dist-info files to their parsers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuwheel/wheel/metadata.h"
#include "cuwheel/wheel/pep508.h"
#include "cuwheel/wheel/wheel.h"

using namespace cuwheel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  WheelLimits limits;
  limits.in_memory_threshold = 64 << 10;  // exercise the temp-file path too
  limits.max_member_size = 4 << 20;
  limits.max_total_read = 16 << 20;
  limits.chunk_size = 4096;
  auto w = Wheel::open_memory(Blob::from_vector(std::vector<uint8_t>(data, data + size)), "fuzz.whl", limits);
  if (!w) return 0;
  std::vector<std::string> names;
  for (const auto& m : w->members()) names.push_back(m.name);
  (void)describe_issues(w->members().empty() ? 0 : w->members()[0].issues);

  WarningSink warnings;
  auto loc = locate_dist_info(names, nullptr, w->path());
  for (const auto& m : w->members()) {
    (void)w->peek(m, 4);
    auto blob = w->read(m);
    if (!blob || !loc) continue;
    const std::string prefix = loc->dir + "/";
    if (m.name.compare(0, prefix.size(), prefix) != 0) continue;
    std::string file = m.name.substr(prefix.size());
    if (file == "METADATA") {
      auto md = CoreMetadata::parse(blob->view(), m.name, warnings);
      if (md)
        for (const auto& r : md->requires_dist) (void)Requirement::parse(r);
    } else if (file == "WHEEL") {
      (void)WheelInfo::parse(blob->view(), m.name, warnings);
    } else if (file == "RECORD") {
      auto rec = Record::parse(blob->view(), m.name, warnings);
      for (const auto& e : rec.entries) {
        if (const ZipMember* target = w->find(e.path)) {
          if (target->uncompressed_size > 65536) continue;
          auto b = w->read(*target);
          if (b) (void)verify_record_entry(e, b->view());
        }
      }
    } else if (file == "entry_points.txt") {
      (void)parse_entry_points(blob->view(), m.name, warnings);
    }
  }
  return 0;
}
