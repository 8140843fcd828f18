// cuwheel-elfedit: a developer's front end to the ELF editor
// (cuwheel/repair/elfedit.h), for scripts/elfedit-real.sh and the tests;
// `cuwheel repair` is the user's.
//
//   cuwheel-elfedit IN OUT [--runpath P | --rpath P] [--soname S]
//                   [--replace OLD NEW]... [--remove NAME]...
//
// Prints what changed; exit 0 on success, 2 on an error (the message names
// IN and the field), 1 on a usage error.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cuwheel/repair/elfedit.h"

int main(int argc, char** argv) {
  using namespace cuwheel::repair;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s IN OUT [--runpath P|--rpath P] [--soname S] [--replace OLD NEW]... [--remove NAME]...\n", argv[0]);
    return 1;
  }
  ElfEdits e;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto need = [&](int n) {
      if (i + n >= argc) {
        std::fprintf(stderr, "%s: %s needs %d value(s)\n", argv[0], a.c_str(), n);
        std::exit(1);
      }
    };
    if (a == "--runpath" || a == "--rpath") {
      need(1);
      if (e.search_path) {
        std::fprintf(stderr, "%s: give one of --runpath and --rpath, once\n", argv[0]);
        return 1;
      }
      e.search_path = argv[++i];
      e.runpath = a == "--runpath";
    } else if (a == "--soname") {
      need(1);
      e.soname = argv[++i];
    } else if (a == "--replace") {
      need(2);
      e.replace_needed.emplace_back(argv[i + 1], argv[i + 2]);
      i += 2;
    } else if (a == "--remove") {
      need(1);
      e.remove_needed.emplace_back(argv[++i]);
    } else {
      std::fprintf(stderr, "%s: unknown option %s\n", argv[0], a.c_str());
      return 1;
    }
  }
  auto r = edit_elf_file(argv[1], argv[2], e);
  if (!r) {
    std::fprintf(stderr, "cuwheel-elfedit: error: %s\n", r.error().message().c_str());
    return 2;
  }
  std::printf("%s: %s, %llu bytes\n", argv[2], r->changed ? (r->appended ? "changed, new segment" : "changed in place") : "unchanged",
              static_cast<unsigned long long>(r->size));
  for (const auto& c : r->changes) std::printf("  %s\n", c.c_str());
  return 0;
}
