// The ELF editor (cuwheel/repair/elfedit.h) on the fixtures of
// tests/fixtures/make_elfedit.sh: every edit re-read with cuwheel's own
// reader, loaded with dlopen where the host can load it, and edited again
// to show that a second pass changes nothing.
#include "cuwheel/repair/elfedit.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <tuple>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "cuwheel/base/source.h"
#include "cuwheel/object/elf.h"

namespace cuwheel::repair {
namespace {

namespace fs = std::filesystem;
const std::string kDir = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/elfedit/";

std::vector<uint8_t> read_bytes(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}
void write_bytes(const std::string& p, const std::vector<uint8_t>& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// A folder of the test's own, removed at the end.
struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/cuwheel-elfedit-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { fs::remove_all(path); }
};

struct Edited {
  std::vector<uint8_t> bytes;
  ElfEditResult result;
};
Edited edit(const std::vector<uint8_t>& in, const ElfEdits& e) {
  auto plan = plan_elf_edit(ByteView(in.data(), in.size()), e);
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().message());
  if (!plan) return {};
  auto out = apply_elf_edit(ByteView(in.data(), in.size()), *plan);
  EXPECT_EQ(out.size(), plan->result.size);
  return {out, plan->result};
}

elf::File parse(const std::vector<uint8_t>& b) {
  auto f = elf::File::parse(ByteView(b.data(), b.size()));
  EXPECT_TRUE(f) << (f ? "" : f.error().message());
  return std::move(*f);
}

std::vector<std::string> vn_files(const elf::File& f) {
  std::vector<std::string> out;
  auto v = f.version_needs();
  EXPECT_TRUE(v);
  if (v)
    for (const auto& n : *v) out.push_back(n.file);
  return out;
}

bool has_symbol(const elf::File& f, const std::string& name) {
  auto syms = f.dynamic_symbols();
  if (!syms) return false;
  for (const auto& s : *syms)
    if (s.name == name) return true;
  return false;
}

// Loads `lib` and calls `fn` (int(void)); -1 when it does not load.
int call(const std::string& lib, const char* fn) {
  void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    ADD_FAILURE() << "dlopen " << lib << ": " << dlerror();
    return -1;
  }
  auto f = reinterpret_cast<int (*)()>(dlsym(h, fn));
  int r = f ? f() : -2;
  dlclose(h);
  return r;
}

TEST(ElfEdit, RunpathLongerIsAppendedAndStillLoads) {
  TempDir t;
  auto a = read_bytes(kDir + "libelfa.so");
  ElfEdits e;
  e.search_path = "$ORIGIN:$ORIGIN/../nvidia/cu13/lib";
  Edited out = edit(a, e);
  EXPECT_TRUE(out.result.changed);
  EXPECT_TRUE(out.result.appended);  // longer than "/opt/lib/system"
  elf::File f = parse(out.bytes);
  ASSERT_TRUE(f.dynamic().runpath);
  EXPECT_EQ(*f.dynamic().runpath, "$ORIGIN:$ORIGIN/../nvidia/cu13/lib");
  EXPECT_FALSE(f.dynamic().rpath);
  EXPECT_EQ(f.dynamic().needed, (std::vector<std::string>{"libelfb.so", "libc.so.6"}));
  EXPECT_EQ(vn_files(f), (std::vector<std::string>{"libelfb.so", "libc.so.6"}));
  EXPECT_TRUE(has_symbol(f, "system"));  // the tail-merged name is intact
  // $ORIGIN finds libelfb.so beside it.
  write_bytes(t.path + "/libelfa.so", out.bytes);
  fs::copy_file(kDir + "libelfb.so", t.path + "/libelfb.so");
  EXPECT_EQ(call(t.path + "/libelfa.so", "a_value"), 8);
  // Again: nothing changes.
  Edited again = edit(out.bytes, e);
  EXPECT_FALSE(again.result.changed);
  EXPECT_EQ(again.bytes, out.bytes);
}

TEST(ElfEdit, TailMergedStringIsNeverOverwritten) {
  // "/x" fits in "/opt/lib/system", but "system" (a symbol) is its tail.
  auto a = read_bytes(kDir + "libelfa.so");
  ElfEdits e;
  e.search_path = "/x";
  Edited out = edit(a, e);
  EXPECT_TRUE(out.result.appended);
  elf::File f = parse(out.bytes);
  EXPECT_EQ(*f.dynamic().runpath, "/x");
  EXPECT_TRUE(has_symbol(f, "system"));
}

TEST(ElfEdit, RpathInsteadOfRunpathRetagsInPlace) {
  auto a = read_bytes(kDir + "libelfa.so");
  ElfEdits e;
  e.search_path = "/opt/lib/system";  // same string, other tag
  e.runpath = false;
  Edited out = edit(a, e);
  EXPECT_TRUE(out.result.changed);
  EXPECT_FALSE(out.result.appended);
  EXPECT_EQ(out.bytes.size(), a.size());
  elf::File f = parse(out.bytes);
  ASSERT_TRUE(f.dynamic().rpath);
  EXPECT_EQ(*f.dynamic().rpath, "/opt/lib/system");
  EXPECT_FALSE(f.dynamic().runpath);
}

TEST(ElfEdit, SonameInPlaceUnlessShared) {
  auto a = read_bytes(kDir + "libelfa.so");
  ElfEdits e;
  e.soname = "libelfz.so";  // as long as libelfa.so, used by nothing else
  Edited out = edit(a, e);
  EXPECT_TRUE(out.result.changed);
  EXPECT_FALSE(out.result.appended);
  EXPECT_EQ(out.bytes.size(), a.size());
  EXPECT_EQ(parse(out.bytes).dynamic().soname.value_or(""), "libelfz.so");
  // libelfb.so's SONAME string is also its base version definition's name
  // (.gnu.version_d): it is left alone and the new name appended.
  auto b = read_bytes(kDir + "libelfb.so");
  Edited outb = edit(b, e);
  EXPECT_TRUE(outb.result.appended);
  elf::File fb = parse(outb.bytes);
  EXPECT_EQ(fb.dynamic().soname.value_or(""), "libelfz.so");
  auto defs = fb.version_definitions();
  ASSERT_TRUE(defs);
  ASSERT_FALSE(defs->empty());
  EXPECT_EQ(defs->front(), "libelfb.so");
}

TEST(ElfEdit, ReplaceNeededMovesVersionNeedsWithIt) {
  TempDir t;
  // A renamed copy of libelfb.so (as a graft would be), and libelfa.so
  // pointed at it: NEEDED and .gnu.version_r together.
  auto b = read_bytes(kDir + "libelfb.so");
  ElfEdits rename;
  rename.soname = "libelfb-0123abcd.so";
  Edited b2 = edit(b, rename);
  write_bytes(t.path + "/libelfb-0123abcd.so", b2.bytes);
  auto a = read_bytes(kDir + "libelfa.so");
  ElfEdits e;
  e.replace_needed = {{"libelfb.so", "libelfb-0123abcd.so"}};
  e.search_path = "$ORIGIN";
  Edited out = edit(a, e);
  elf::File f = parse(out.bytes);
  EXPECT_EQ(f.dynamic().needed, (std::vector<std::string>{"libelfb-0123abcd.so", "libc.so.6"}));
  EXPECT_EQ(vn_files(f), (std::vector<std::string>{"libelfb-0123abcd.so", "libc.so.6"}));
  write_bytes(t.path + "/libelfa.so", out.bytes);
  EXPECT_EQ(call(t.path + "/libelfa.so", "a_value"), 8);  // b_value@VERS_B found in the renamed file
  // And back, as repair undoes a graft: the original name is restored.
  ElfEdits back;
  back.replace_needed = {{"libelfb-0123abcd.so", "libelfb.so"}};
  Edited restored = edit(out.bytes, back);
  elf::File r = parse(restored.bytes);
  EXPECT_EQ(r.dynamic().needed, (std::vector<std::string>{"libelfb.so", "libc.so.6"}));
  EXPECT_EQ(vn_files(r), (std::vector<std::string>{"libelfb.so", "libc.so.6"}));
  // Replacing a NEEDED that is already the new name is done already.
  Edited twice = edit(restored.bytes, back);
  EXPECT_FALSE(twice.result.changed);
}

TEST(ElfEdit, AddingAPathMovesAFullDynamicTable) {
  TempDir t;
  auto c = read_bytes(kDir + "libelfc.so");
  elf::File before = parse(c);
  EXPECT_FALSE(before.dynamic().runpath);
  ElfEdits e;
  e.search_path = "$ORIGIN";
  Edited out = edit(c, e);
  EXPECT_TRUE(out.result.changed);
  elf::File f = parse(out.bytes);
  EXPECT_EQ(f.dynamic().runpath.value_or(""), "$ORIGIN");
  EXPECT_EQ(f.dynamic().needed, before.dynamic().needed);
  EXPECT_EQ(f.dynamic().soname, before.dynamic().soname);
  write_bytes(t.path + "/libelfc.so", out.bytes);
  fs::copy_file(kDir + "libelfb.so", t.path + "/libelfb.so");
  EXPECT_EQ(call(t.path + "/libelfc.so", "c_value"), 9);
  // Adding a further tag now fits the spare DT_NULLs of the moved table.
  ElfEdits e2;
  e2.search_path = "$ORIGIN";
  e2.runpath = false;
  e2.soname = "libelfc.so";
  Edited again = edit(out.bytes, e2);
  EXPECT_FALSE(again.result.appended);
  EXPECT_EQ(parse(again.bytes).dynamic().rpath.value_or(""), "$ORIGIN");
}

TEST(ElfEdit, RemoveNeededDropsItsVersionNeeds) {
  auto a = read_bytes(kDir + "libelfa.so");
  ElfEdits e;
  e.remove_needed = {"libelfb.so"};
  Edited out = edit(a, e);
  EXPECT_TRUE(out.result.changed);
  elf::File f = parse(out.bytes);
  EXPECT_EQ(f.dynamic().needed, (std::vector<std::string>{"libc.so.6"}));
  EXPECT_EQ(vn_files(f), (std::vector<std::string>{"libc.so.6"}));
  auto syms = f.dynamic_symbols();
  ASSERT_TRUE(syms);
  for (const auto& s : *syms)
    if (s.name == "b_value") {
      EXPECT_EQ(s.version, "");  // was b_value@VERS_B
    }
  Edited again = edit(out.bytes, e);
  EXPECT_FALSE(again.result.changed);
}

TEST(ElfEdit, EditFileIsAtomicAndLeavesTheInput) {
  TempDir t;
  const std::string in = t.path + "/in.so", out = t.path + "/out.so";
  fs::copy_file(kDir + "libelfa.so", in);
  auto before = read_bytes(in);
  ElfEdits e;
  e.search_path = "$ORIGIN/../lib";
  auto r = edit_elf_file(in, out, e);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(read_bytes(in), before);
  auto plan = plan_elf_edit(ByteView(before.data(), before.size()), e);
  ASSERT_TRUE(plan);
  EXPECT_EQ(read_bytes(out), apply_elf_edit(ByteView(before.data(), before.size()), *plan));
  EXPECT_EQ(fs::status(out).permissions(), fs::status(in).permissions());
  for (const auto& ent : fs::directory_iterator(t.path))
    EXPECT_EQ(ent.path().string().find(".tmp."), std::string::npos) << ent.path();
}

// The edited fixtures pass eu-elflint --gnu-ld (when elfutils is
// installed; scripts/bootstrap.sh installs it) and still load after strip.
TEST(ElfEdit, OutputsPassElflintAndSurviveStrip) {
  TempDir t;
  fs::copy_file(kDir + "libelfb.so", t.path + "/libelfb.so");
  struct Case {
    const char* in;
    ElfEdits e;
    const char* fn;
    int want;
  };
  std::vector<Case> cases(3);
  cases[0] = {"libelfa.so", {}, "a_value", 8};
  cases[0].e.search_path = "$ORIGIN:$ORIGIN/../nvidia/cu13/lib";
  cases[1] = {"libelfc.so", {}, "c_value", 9};
  cases[1].e.search_path = "$ORIGIN";
  cases[2] = {"libelfa.so", {}, "a_value", 8};
  cases[2].e.search_path = "$ORIGIN";
  cases[2].e.runpath = false;
  cases[2].e.soname = "libelfa-0123abcd.so";
  const bool have_elflint = std::system("command -v eu-elflint >/dev/null 2>&1") == 0;
  const bool have_strip = std::system("command -v strip >/dev/null 2>&1") == 0;
  ASSERT_TRUE(have_strip) << "strip (binutils) is needed by this test";
  int n = 0;
  for (const auto& c : cases) {
    Edited out = edit(read_bytes(kDir + c.in), c.e);
    ASSERT_TRUE(out.result.appended);
    const std::string p = t.path + "/case" + std::to_string(n++) + ".so";
    write_bytes(p, out.bytes);
    if (have_elflint) {
      EXPECT_EQ(std::system(("eu-elflint --gnu-ld --quiet '" + p + "' >/dev/null 2>&1").c_str()), 0) << p;
    }
    const std::string s = p + ".stripped.so";
    fs::copy_file(p, s);
    ASSERT_EQ(std::system(("strip '" + s + "' 2>/dev/null").c_str()), 0);
    EXPECT_EQ(call(p, c.fn), c.want);
    EXPECT_EQ(call(s, c.fn), c.want) << "after strip";
  }
}

// 64 KiB-page architectures (pypa/auditwheel#251: 4 KiB-aligned segments
// fail on such kernels): the new segment is aligned to 64 KiB in file and
// memory, and the output loads under qemu-user with Debian's cross sysroot
// (when both are installed), before and after the cross strip. `arch` is
// the fixture folder, `triple` the cross tools' prefix, `qemu` the
// emulator, `loader` the sysroot's dynamic loader.
void check_sixty_four_kib_pages(const std::string& arch, const std::string& triple, const std::string& qemu,
                                const std::string& loader) {
  TempDir t;
  const std::string dir = kDir + arch + "/";
  fs::copy_file(dir + "libelfb.so", t.path + "/libelfb.so");
  const std::string sysroot = "/usr/" + triple;
  const bool have_qemu = std::system(("command -v " + qemu + " >/dev/null 2>&1").c_str()) == 0 &&
                         fs::exists(sysroot + "/" + loader);
  const bool have_strip = std::system(("command -v " + triple + "-strip >/dev/null 2>&1").c_str()) == 0;
  auto run = [&](const std::string& lib, const char* fn) {
    const std::string cmd = qemu + " -L " + sysroot + " -E LD_LIBRARY_PATH='" + t.path + "' '" + dir + "dlcall' '" +
                            lib + "' " + fn + " 2>&1";
    std::string out;
    if (FILE* f = popen(cmd.c_str(), "r")) {
      char buf[256];
      while (fgets(buf, sizeof buf, f)) out += buf;
      pclose(f);
    }
    return out;
  };
  int n = 0;
  for (auto [in, fn, want] : {std::tuple{"libelfa.so", "a_value", "8\n"}, std::tuple{"libelfc.so", "c_value", "9\n"}}) {
    ElfEdits e;
    e.search_path = "$ORIGIN:$ORIGIN/../nvidia/cu13/lib:$ORIGIN/../nvidia/nccl/lib";
    Edited out = edit(read_bytes(dir + in), e);
    ASSERT_TRUE(out.result.appended) << arch << " " << in;
    elf::File f = parse(out.bytes);
    EXPECT_EQ(f.dynamic().runpath, "$ORIGIN:$ORIGIN/../nvidia/cu13/lib:$ORIGIN/../nvidia/nccl/lib");
    const elf::Segment* last = nullptr;
    for (const auto& seg : f.segments())
      if (seg.type == 1 /* PT_LOAD */ && (!last || seg.vaddr > last->vaddr)) last = &seg;
    ASSERT_TRUE(last);
    EXPECT_GE(last->align, 0x10000u) << arch << " " << in;
    EXPECT_EQ(last->offset % 0x10000, last->vaddr % 0x10000) << arch << " " << in;
    EXPECT_EQ(last->offset % 0x10000, 0u) << arch << " " << in;
    const std::string p = t.path + "/case" + std::to_string(n++) + ".so";
    write_bytes(p, out.bytes);
    if (!have_qemu) continue;
    EXPECT_EQ(run(dir + in, fn), want) << arch << ": the input under " << qemu;
    EXPECT_EQ(run(p, fn), want) << arch << " " << in << " edited";
    if (!have_strip) continue;
    const std::string st = p + ".stripped.so";
    fs::copy_file(p, st);
    ASSERT_EQ(std::system((triple + "-strip '" + st + "' 2>/dev/null").c_str()), 0);
    EXPECT_EQ(run(st, fn), want) << arch << " " << in << " edited, then stripped";
  }
  if (!have_qemu) GTEST_SKIP() << qemu << " or the " << arch << " sysroot is missing: layout checked, loads not run";
}

TEST(ElfEdit, Aarch64SixtyFourKiBPagesLoadUnderQemu) {
  check_sixty_four_kib_pages("aarch64", "aarch64-linux-gnu", "qemu-aarch64", "lib/ld-linux-aarch64.so.1");
}

TEST(ElfEdit, Ppc64leSixtyFourKiBPagesLoadUnderQemu) {
  check_sixty_four_kib_pages("ppc64le", "powerpc64le-linux-gnu", "qemu-ppc64le", "lib/ld64.so.2");
}

// Removing every versioned NEEDED of a library without version definitions
// leaves no version tables: DT_VERSYM must go too, or glibc crashes in
// dlopen (found by a review: the output segfaulted).
TEST(ElfEdit, RemovingTheLastVersionNeedsDropsVersym) {
  TempDir t;
  auto a = read_bytes(kDir + "libelfa.so");
  ElfEdits e;
  e.remove_needed = {"libelfb.so", "libc.so.6"};
  Edited out = edit(a, e);
  elf::File f = parse(out.bytes);
  EXPECT_TRUE(f.dynamic().needed.empty());
  EXPECT_TRUE(vn_files(f).empty());
  write_bytes(t.path + "/liba.so", out.bytes);
  // Its symbols come from libraries loaded before it, globally.
  void* b = dlopen((kDir + "libelfb.so").c_str(), RTLD_NOW | RTLD_GLOBAL);
  ASSERT_NE(b, nullptr) << dlerror();
  EXPECT_EQ(call(t.path + "/liba.so", "a_value"), 8);
  dlclose(b);
}

// A PT_NOTE over several note sections that the moved block cuts into
// moves whole (glibc's own libraries are built so; found by a review).
TEST(ElfEdit, NoteSegmentOverSeveralSectionsMovesWhole) {
  const std::string libm = "/usr/lib/x86_64-linux-gnu/libm.so.6";
  if (!fs::exists(libm)) GTEST_SKIP() << "no " << libm << " here";
  auto m = read_bytes(libm);
  ElfEdits e;
  e.search_path = "$ORIGIN/../lib/a/path/long/enough/to/need/a/new/segment";
  Edited out = edit(m, e);
  ASSERT_TRUE(out.result.appended);
  elf::File f = parse(out.bytes);
  EXPECT_EQ(f.dynamic().runpath.value_or(""), *e.search_path);
  TempDir t;
  write_bytes(t.path + "/libm-edited.so", out.bytes);
  void* h = dlopen((t.path + "/libm-edited.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(h, nullptr) << dlerror();
  if (h) dlclose(h);
}

TEST(ElfEdit, OutputThatIsTheInputIsRefused) {
  TempDir t;
  const std::string p = t.path + "/a.so";
  fs::copy_file(kDir + "libelfa.so", p);
  auto before = read_bytes(p);
  ElfEdits e;
  e.search_path = "$ORIGIN/../a/longer/path/than/before";
  auto r = edit_elf_file(p, p, e);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("is the input"), std::string::npos);
  EXPECT_EQ(read_bytes(p), before);
}

// fuzz_elfedit found this: a PT_LOAD aligned to 2^40 made the new
// segment's offset (and the in-memory output) that large. Such a file is
// refused (fuzz/corpus/elfedit/regression-huge-alignment).
TEST(ElfEdit, HugeSegmentAlignmentIsRefused) {
  auto a = read_bytes(kDir + "libelfa.so");
  uint64_t phoff = 0;
  std::memcpy(&phoff, a.data() + 0x20, 8);
  const uint64_t align = uint64_t{1} << 40;
  std::memcpy(a.data() + phoff + 48, &align, 8);  // the first program header's p_align
  ElfEdits e;
  e.search_path = "$ORIGIN:$ORIGIN/../nvidia/cu13/lib";
  auto p = plan_elf_edit(ByteView(a.data(), a.size()), e);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message().find("cannot be extended"), std::string::npos) << p.error().message();
}

TEST(ElfEdit, Errors) {
  auto a = read_bytes(kDir + "libelfa.so");
  auto plan = [&](const std::vector<uint8_t>& b, const ElfEdits& e) { return plan_elf_edit(ByteView(b.data(), b.size()), e); };
  ElfEdits missing;
  missing.replace_needed = {{"libnothere.so", "libx.so"}};
  auto r = plan(a, missing);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("libnothere.so"), std::string::npos);
  ElfEdits empty;
  empty.soname = "";
  EXPECT_FALSE(plan(a, empty));
  ElfEdits nul;
  nul.search_path = std::string("a\0b", 3);
  EXPECT_FALSE(plan(a, nul));
  ElfEdits both;
  both.replace_needed = {{"libelfb.so", "x.so"}};
  both.remove_needed = {"libelfb.so"};
  EXPECT_FALSE(plan(a, both));
  ElfEdits ok;
  ok.search_path = "$ORIGIN";
  EXPECT_FALSE(plan(std::vector<uint8_t>{1, 2, 3}, ok));
  std::vector<uint8_t> elf32(a);
  elf32[4] = 1;
  auto r32 = plan(elf32, ok);
  ASSERT_FALSE(r32);
  EXPECT_NE(r32.error().message().find("32-bit"), std::string::npos);
  // Every truncation fails cleanly or plans an edit of what is left.
  for (size_t n = 0; n < a.size(); n += 97) {
    std::vector<uint8_t> cut(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n));
    auto p = plan(cut, ok);
    if (p) (void)apply_elf_edit(ByteView(cut.data(), cut.size()), *p);
  }
}

}  // namespace
}  // namespace cuwheel::repair
