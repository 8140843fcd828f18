// Tests of hide_driver.h: the ld.so.cache reader (images built here and,
// where ldconfig is installed, caches written by the real ldconfig),
// symlink resolution under a root, ld.so.conf reading, discovery on a fake
// tree, the namespace-failure explanations, and the runner itself where
// user namespaces are permitted.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cuwheel/host/hide_driver.h"
#include "temp_dir.h"

namespace cuwheel {
namespace {

namespace fs = std::filesystem;

// --- builders ---------------------------------------------------------------

void put32(std::string& s, size_t at, uint32_t v) { std::memcpy(&s[at], &v, 4); }
void put64(std::string& s, size_t at, uint64_t v) { std::memcpy(&s[at], &v, 8); }

struct Lib {
  std::string soname, path;
  int32_t flags = 0x0303;  // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64
};

// A new-format table ("glibc-ld.so.cache1.1"); string offsets are relative
// to the table's start, which is `base` bytes into the final image.
std::string new_table(const std::vector<Lib>& libs, uint8_t endian = 2) {
  std::string t(48 + 24 * libs.size(), '\0');
  std::memcpy(&t[0], "glibc-ld.so.cache1.1", 20);
  put32(t, 20, static_cast<uint32_t>(libs.size()));
  t[28] = static_cast<char>(endian);
  std::string strings;
  for (size_t i = 0; i < libs.size(); ++i) {
    size_t e = 48 + 24 * i;
    put32(t, e, static_cast<uint32_t>(libs[i].flags));
    put32(t, e + 4, static_cast<uint32_t>(t.size() + strings.size()));
    strings += libs[i].soname + '\0';
    put32(t, e + 8, static_cast<uint32_t>(t.size() + strings.size()));
    strings += libs[i].path + '\0';
    put64(t, e + 16, 0);
  }
  put32(t, 24, static_cast<uint32_t>(strings.size()));
  return t + strings;
}

// The old format, optionally followed by a new table (glibc < 2.32's "compat").
std::string old_image(const std::vector<Lib>& libs, bool with_new) {
  std::string s(16 + 12 * libs.size(), '\0');
  std::memcpy(&s[0], "ld.so-1.7.0", 11);
  put32(s, 12, static_cast<uint32_t>(libs.size()));
  if (with_new) {
    while (s.size() % 8) s.push_back('\0');
    return s + new_table(libs);
  }
  std::string strings;
  for (size_t i = 0; i < libs.size(); ++i) {
    size_t e = 16 + 12 * i;
    put32(s, e, static_cast<uint32_t>(libs[i].flags));
    put32(s, e + 4, static_cast<uint32_t>(strings.size()));
    strings += libs[i].soname + '\0';
    put32(s, e + 8, static_cast<uint32_t>(strings.size()));
    strings += libs[i].path + '\0';
  }
  return s + strings;
}

ByteView view(const std::string& s) { return ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

// A fresh folder for one test's fake tree.
class TempTree {
 public:
  TempTree() : root_(tmp_.str()) { EXPECT_FALSE(root_.empty()); }
  const std::string& root() const { return root_; }
  std::string at(const std::string& p) const { return root_ + p; }
  void file(const std::string& p, const std::string& text = "x") const {
    fs::create_directories(fs::path(at(p)).parent_path());
    std::ofstream(at(p)) << text;
  }
  void dir(const std::string& p) const { fs::create_directories(at(p)); }
  void link(const std::string& p, const std::string& target) const {
    fs::create_directories(fs::path(at(p)).parent_path());
    fs::create_symlink(target, at(p));
  }

 private:
  cuwheel::test::TempDir tmp_{"hide-driver"};  // declared before root_, which it initialises
  std::string root_;
};

const HideTarget* find(const HidePlan& plan, const std::string& path) {
  for (const auto& t : plan.targets)
    if (t.path == path) return &t;
  return nullptr;
}

bool has_via(const HideTarget& t, const std::string& via) {
  return std::find(t.via.begin(), t.via.end(), via) != t.via.end();
}

// --- parse_ld_so_cache ---------------------------------------------------------

TEST(LdCache, NewFormat) {
  std::string img = new_table({{"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
                               {"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", 0x0303}});
  auto r = parse_ld_so_cache(view(img), "ld.so.cache");
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].soname, "libcuda.so.1");
  EXPECT_EQ((*r)[0].path, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  EXPECT_EQ((*r)[0].flags, 0x0303);
  EXPECT_EQ((*r)[1].soname, "libc.so.6");
}

TEST(LdCache, OldFormatFollowedByNew) {
  std::string img = old_image({{"libnvidia-ml.so.1", "/usr/lib64/libnvidia-ml.so.1"}}, true);
  auto r = parse_ld_so_cache(view(img), "c");
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].path, "/usr/lib64/libnvidia-ml.so.1");
}

TEST(LdCache, OldFormatOnly) {
  std::string img = old_image({{"libcuda.so.1", "/lib/libcuda.so.1"}, {"libm.so.6", "/lib/libm.so.6"}}, false);
  auto r = parse_ld_so_cache(view(img), "c");
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].soname, "libm.so.6");
  EXPECT_EQ((*r)[1].path, "/lib/libm.so.6");
}

TEST(LdCache, EmptyTableIsFine) {
  auto r = parse_ld_so_cache(view(new_table({})), "c");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
}

TEST(LdCache, RejectsUnknownMagic) {
  auto r = parse_ld_so_cache(view(std::string("not a cache at all, really")), "/etc/ld.so.cache");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("/etc/ld.so.cache: not an ld.so.cache"), std::string::npos);
}

TEST(LdCache, RejectsBigEndian) {
  auto r = parse_ld_so_cache(view(new_table({{"a.so", "/a.so"}}, 3)), "c");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("big-endian"), std::string::npos);
}

TEST(LdCache, RejectsCountPastTheEnd) {
  std::string img = new_table({{"libcuda.so.1", "/x/libcuda.so.1"}});
  put32(img, 20, 0xffffffffu);
  auto r = parse_ld_so_cache(view(img), "c");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("entries of 24 bytes do not fit"), std::string::npos);
}

TEST(LdCache, RejectsStringPastTheEnd) {
  std::string img = new_table({{"libcuda.so.1", "/x/libcuda.so.1"}});
  put32(img, 48 + 8, static_cast<uint32_t>(img.size() + 100));
  auto r = parse_ld_so_cache(view(img), "c");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("entry 0 at 0x30: path"), std::string::npos) << r.error().message();
}

TEST(LdCache, RejectsUnterminatedString) {
  std::string img = new_table({{"libcuda.so.1", "/x/libcuda.so.1"}});
  img.pop_back();  // the last path's NUL
  auto r = parse_ld_so_cache(view(img), "c");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("not terminated"), std::string::npos);
}

TEST(LdCache, RejectsTruncatedHeaders) {
  for (size_t n : {0, 5, 11, 14, 20, 30, 47}) {
    std::string img = new_table({}).substr(0, n);
    EXPECT_FALSE(parse_ld_so_cache(view(img), "c")) << n;
    std::string old = old_image({}, false).substr(0, std::min<size_t>(n, 15));
    EXPECT_FALSE(parse_ld_so_cache(view(old), "c")) << n;
  }
}

// The real writer: ldconfig -X -C CACHE -f CONF over a temporary folder.
TEST(LdCache, ReadsWhatLdconfigWrites) {
  const char* ldconfig = nullptr;
  for (const char* p : {"/sbin/ldconfig", "/usr/sbin/ldconfig"})
    if (access(p, X_OK) == 0) ldconfig = p;
  if (!ldconfig) GTEST_SKIP() << "ldconfig is not installed";
  TempTree t;
  // ldconfig only lists ELF files; the test binary's own interpreter's
  // libc is one. Copy it under a driver name and a system name.
  const char* libc = nullptr;
  for (const char* p : {"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6"})
    if (access(p, R_OK) == 0) libc = p;
  if (!libc) GTEST_SKIP() << "no libc.so.6 to copy";
  t.dir("/drv");
  fs::copy_file(libc, t.at("/drv/libc.so.6"));
  t.file("/etc/ld.so.conf", t.at("/drv") + "\n");
  // No -r (it needs chroot, so root): the conf names the folder absolutely.
  std::string cmd = std::string(ldconfig) + " -X -C " + t.at("/etc/ld.so.cache") + " -f " + t.at("/etc/ld.so.conf") +
                    " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(t.at("/etc/ld.so.cache"), std::ios::binary);
  std::string img((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto r = parse_ld_so_cache(view(img), "ld.so.cache");
  ASSERT_TRUE(r) << r.error().message();
  bool found = false;
  for (const auto& e : *r) found |= e.soname == "libc.so.6" && e.path == t.at("/drv/libc.so.6");
  EXPECT_TRUE(found);
}

// --- resolve_in_root -----------------------------------------------------------

TEST(ResolveInRoot, FollowsRelativeAndAbsoluteLinksInsideRoot) {
  TempTree t;
  t.file("/usr/lib/x86_64-linux-gnu/libcuda.so.570.86.10");
  t.link("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.570.86.10");
  t.link("/lib", "usr/lib");
  t.link("/opt/abs", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  t.link("/opt/up", "../usr/./lib/x86_64-linux-gnu/libcuda.so.1");
  for (const char* p : {"/lib/x86_64-linux-gnu/libcuda.so.1", "/opt/abs", "/opt/up"}) {
    auto r = resolve_in_root(t.root(), p);
    ASSERT_TRUE(r) << p << ": " << r.error().message();
    EXPECT_EQ(*r, "/usr/lib/x86_64-linux-gnu/libcuda.so.570.86.10") << p;
  }
  // ".." never climbs above the root.
  t.link("/esc", "../../../../usr/lib/x86_64-linux-gnu/libcuda.so.1");
  auto r = resolve_in_root(t.root(), "/esc");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "/usr/lib/x86_64-linux-gnu/libcuda.so.570.86.10");
}

TEST(ResolveInRoot, ReportsLoopsAndMissingFiles) {
  TempTree t;
  t.link("/a", "b");
  t.link("/b", "a");
  auto loop = resolve_in_root(t.root(), "/a");
  ASSERT_FALSE(loop);
  EXPECT_NE(loop.error().message().find("too many levels"), std::string::npos);
  auto missing = resolve_in_root(t.root(), "/nope/libcuda.so.1");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("/nope"), std::string::npos);
  EXPECT_FALSE(resolve_in_root(t.root(), "relative"));
}

// --- read_ld_so_conf -----------------------------------------------------------

TEST(LdSoConf, IncludesCommentsAndOldSyntax) {
  TempTree t;
  t.file("/etc/ld.so.conf", "# comment\ninclude ld.so.conf.d/*.conf\n/opt/a # trailing\n  \nhwcap 1 x\n/opt/b=libc6\nrel\n");
  t.file("/etc/ld.so.conf.d/10-nvidia.conf", "/usr/local/nvidia/lib64\ninclude /etc/more.conf\n");
  t.file("/etc/ld.so.conf.d/00-first.conf", "/opt/first\n");
  t.file("/etc/ld.so.conf.d/ignored.txt", "/opt/not-a-conf\n");
  t.file("/etc/more.conf", "/opt/more\n");
  WarningSink w;
  auto dirs = read_ld_so_conf(t.root(), "/etc/ld.so.conf", w);
  std::vector<std::string> want = {"/opt/first", "/usr/local/nvidia/lib64", "/opt/more", "/opt/a", "/opt/b"};
  EXPECT_EQ(dirs, want);
  ASSERT_EQ(w.messages().size(), 1u);
  EXPECT_NE(w.messages()[0].find("/etc/ld.so.conf:7: \"rel\" is not an absolute folder"), std::string::npos);
}

TEST(LdSoConf, SelfIncludeStopsAtDepthLimit) {
  TempTree t;
  t.file("/etc/ld.so.conf", "/opt/a\ninclude /etc/ld.so.conf\n");
  WarningSink w;
  auto dirs = read_ld_so_conf(t.root(), "/etc/ld.so.conf", w);
  EXPECT_EQ(dirs.size(), 17u);  // the top file and 16 nested includes
  ASSERT_FALSE(w.messages().empty());
  EXPECT_NE(w.messages()[0].find("include nesting deeper than 16"), std::string::npos);
}

TEST(LdSoConf, MissingFileIsAWarning) {
  TempTree t;
  WarningSink w;
  EXPECT_TRUE(read_ld_so_conf(t.root(), "/etc/ld.so.conf", w).empty());
  EXPECT_EQ(w.messages().size(), 1u);
}

// --- plan_hide_driver ----------------------------------------------------------

// A machine with a driver, as Debian's packages and NVIDIA's .run installer
// lay it out, plus the places only one search input reaches.
void make_driver_tree(const TempTree& t) {
  const std::string ma = "/usr/lib/x86_64-linux-gnu";
  t.file(ma + "/libcuda.so.570.86.10");
  t.link(ma + "/libcuda.so.1", "libcuda.so.570.86.10");
  t.link(ma + "/libcuda.so", "libcuda.so.1");
  t.file(ma + "/libnvidia-ptxjitcompiler.so.570.86.10");
  t.link(ma + "/libnvidia-ptxjitcompiler.so.1", "libnvidia-ptxjitcompiler.so.570.86.10");
  t.file(ma + "/libcudart.so.12");      // toolkit: stays
  t.file(ma + "/libcuda_wrapper.so");   // not the driver: stays
  t.file(ma + "/libc.so.6");            // system: stays
  t.link(ma + "/libnvidia-ml.so.1", "libnvidia-ml.so.570.86.10");  // dangling
  t.link("/lib", "usr/lib");            // merged /usr: scanned once
  t.file("/usr/local/nvidia/lib64/libnvidia-ml.so.1");
  t.file("/opt/conf/libnvidia-nvvm.so.4");
  t.file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  t.file("/etc/ld.so.conf.d/drv.conf", "/opt/conf\n");
  t.file("/opt/llp/libcuda.so.1");
  t.file("/opt/cacheonly/libcudadebugger.so.1");
  t.file("/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libnvidia-gpucomp.so.570.86.10");
  t.file("/etc/ld.so.cache", new_table({{"libcudadebugger.so.1", "/opt/cacheonly/libcudadebugger.so.1"},
                                        {"libcuda.so.1", ma + "/libcuda.so.1"},
                                        {"libc.so.6", ma + "/libc.so.6"}}));
  t.file("/dev/nvidia0");
  t.file("/dev/nvidiactl");
  t.file("/dev/nvidia-uvm");
  t.dir("/dev/nvidia-caps");
  t.file("/dev/null");
  t.dir("/proc/driver/nvidia/gpus");
}

TEST(PlanHideDriver, FindsEveryDriverFileOnceWithHowItIsReached) {
  TempTree t;
  make_driver_tree(t);
  HideDriverInputs in;
  in.root = t.root();
  in.ld_library_path = "/opt/llp::/opt/missing;$ORIGIN/x";
  in.cwd = "/";
  WarningSink w;
  auto plan = plan_hide_driver(in, w);
  ASSERT_TRUE(plan) << plan.error().message();

  const std::string ma = "/usr/lib/x86_64-linux-gnu";
  const HideTarget* cuda = find(*plan, ma + "/libcuda.so.570.86.10");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->kind, HideKind::library);
  EXPECT_TRUE(has_via(*cuda, "ld.so.cache: libcuda.so.1"));
  EXPECT_TRUE(has_via(*cuda, ma + "/libcuda.so.1"));
  EXPECT_TRUE(has_via(*cuda, ma + "/libcuda.so"));
  EXPECT_TRUE(has_via(*cuda, ma + "/libcuda.so.570.86.10"));
  ASSERT_NE(find(*plan, ma + "/libnvidia-ptxjitcompiler.so.570.86.10"), nullptr);
  const HideTarget* llp = find(*plan, "/opt/llp/libcuda.so.1");
  ASSERT_NE(llp, nullptr);
  EXPECT_TRUE(has_via(*llp, "LD_LIBRARY_PATH: /opt/llp/libcuda.so.1"));
  const HideTarget* conf = find(*plan, "/opt/conf/libnvidia-nvvm.so.4");
  ASSERT_NE(conf, nullptr);
  EXPECT_TRUE(has_via(*conf, "ld.so.conf: /opt/conf/libnvidia-nvvm.so.4"));
  ASSERT_NE(find(*plan, "/opt/cacheonly/libcudadebugger.so.1"), nullptr);
  ASSERT_NE(find(*plan, "/usr/local/nvidia/lib64/libnvidia-ml.so.1"), nullptr);
  ASSERT_NE(find(*plan, ma + "/glibc-hwcaps/x86-64-v3/libnvidia-gpucomp.so.570.86.10"), nullptr);

  // Not the driver's: never covered.
  EXPECT_EQ(find(*plan, ma + "/libcudart.so.12"), nullptr);
  EXPECT_EQ(find(*plan, ma + "/libcuda_wrapper.so"), nullptr);
  EXPECT_EQ(find(*plan, ma + "/libc.so.6"), nullptr);
  EXPECT_EQ(find(*plan, "/dev/null"), nullptr);

  // Devices and folders.
  const HideTarget* dev0 = find(*plan, "/dev/nvidia0");
  ASSERT_NE(dev0, nullptr);
  EXPECT_EQ(dev0->kind, HideKind::device);
  ASSERT_NE(find(*plan, "/dev/nvidiactl"), nullptr);
  ASSERT_NE(find(*plan, "/dev/nvidia-uvm"), nullptr);
  const HideTarget* caps = find(*plan, "/dev/nvidia-caps");
  ASSERT_NE(caps, nullptr);
  EXPECT_EQ(caps->kind, HideKind::directory);
  ASSERT_NE(find(*plan, "/proc/driver/nvidia"), nullptr);

  // Each file once; libraries before devices before folders.
  std::vector<std::string> paths;
  for (const auto& x : plan->targets) paths.push_back(x.path);
  std::vector<std::string> unique = paths;
  std::sort(unique.begin(), unique.end());
  EXPECT_EQ(std::unique(unique.begin(), unique.end()), unique.end());
  EXPECT_TRUE(std::is_sorted(plan->targets.begin(), plan->targets.end(), [](const auto& a, const auto& b) {
    return static_cast<int>(a.kind) < static_cast<int>(b.kind);
  }));
  EXPECT_EQ(plan->targets.size(), 12u);
  EXPECT_EQ(plan->ld_so_cache, "/etc/ld.so.cache");
  EXPECT_EQ(plan->ld_so_cache_entries, 3u);

  // /lib is /usr/lib here: its folders are read once.
  EXPECT_EQ(std::count(plan->searched.begin(), plan->searched.end(), "/lib/x86_64-linux-gnu"), 0);
  EXPECT_EQ(std::count(plan->searched.begin(), plan->searched.end(), ma), 1);

  // The dangling libnvidia-ml link and the $ORIGIN entry are warnings.
  bool dangling = false, token = false;
  for (const auto& m : w.messages()) {
    dangling |= m.find("libnvidia-ml.so.570.86.10") != std::string::npos && m.find("dangling") != std::string::npos;
    token |= m.find("$ORIGIN/x") != std::string::npos;
  }
  EXPECT_TRUE(dangling);
  EXPECT_TRUE(token);
}

TEST(PlanHideDriver, NothingToHideOnAMachineWithoutADriver) {
  TempTree t;
  t.file("/usr/lib/x86_64-linux-gnu/libc.so.6");
  t.file("/usr/lib/x86_64-linux-gnu/libcudart.so.13");
  t.file("/dev/null");
  HideDriverInputs in;
  in.root = t.root();
  WarningSink w;
  auto plan = plan_hide_driver(in, w);
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->targets.empty());
  EXPECT_TRUE(plan->ld_so_cache.empty());
  EXPECT_TRUE(w.messages().empty());
}

TEST(PlanHideDriver, CorruptCacheWarnsAndFoldersStillCount) {
  TempTree t;
  t.file("/etc/ld.so.cache", "glibc-ld.so.cache1.1 but cut short");
  t.file("/usr/lib64/libcuda.so.1");
  HideDriverInputs in;
  in.root = t.root();
  WarningSink w;
  auto plan = plan_hide_driver(in, w);
  ASSERT_TRUE(plan);
  ASSERT_NE(find(*plan, "/usr/lib64/libcuda.so.1"), nullptr);
  ASSERT_EQ(w.messages().size(), 1u);
  EXPECT_NE(w.messages()[0].find("/etc/ld.so.cache: new-format header at 0x0 is truncated"), std::string::npos)
      << w.messages()[0];
}

TEST(PlanHideDriver, AlsoCoversMoreAndRefusesMissingPaths) {
  TempTree t;
  t.file("/wheel/site-packages/pkg/libcuda.so.1");
  t.file("/opt/tool/notes.txt");
  t.dir("/opt/driverdir");
  HideDriverInputs in;
  in.root = t.root();
  in.cwd = "/opt";
  in.also = {"/wheel/site-packages/pkg/libcuda.so.1", "tool/notes.txt", "/opt/driverdir"};
  WarningSink w;
  auto plan = plan_hide_driver(in, w);
  ASSERT_TRUE(plan) << plan.error().message();
  const HideTarget* lib = find(*plan, "/wheel/site-packages/pkg/libcuda.so.1");
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->kind, HideKind::library);
  EXPECT_EQ(lib->via, std::vector<std::string>{"--also"});
  const HideTarget* notes = find(*plan, "/opt/tool/notes.txt");
  ASSERT_NE(notes, nullptr);
  EXPECT_EQ(notes->kind, HideKind::file);
  const HideTarget* dir = find(*plan, "/opt/driverdir");
  ASSERT_NE(dir, nullptr);
  EXPECT_EQ(dir->kind, HideKind::directory);

  in.also = {"/no/such/libcuda.so.1"};
  auto bad = plan_hide_driver(in, w);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("--also /no/such/libcuda.so.1"), std::string::npos);
}

// --also is for extra driver files: system devices and non-NVIDIA device
// nodes are refused with the reason, NVIDIA device nodes are devices.
TEST(PlanHideDriver, AlsoRefusesSystemDevices) {
  TempTree t;
  t.file("/dev/null");  // a regular file in the test tree: refused by its path
  t.file("/dev/nvidiactl");
  t.link("/opt/sink", "/dev/null");
  t.file("/opt/driver/libcuda.so.1");
  HideDriverInputs in;
  in.root = t.root();
  in.cwd = "/opt";
  in.use_cache = false;
  WarningSink w;
  auto refused = [&](const std::string& also) {
    in.also = {also};
    auto p = plan_hide_driver(in, w);
    return p ? std::string("(planned)") : p.error().message();
  };
  EXPECT_EQ(refused("/dev/null"),
            "--also /dev/null: /dev/null is a system device every program may use; covering it would break CMD "
            "(nothing could write to or read from it). --also is for extra NVIDIA driver files");
  EXPECT_NE(refused("/opt/sink").find("--also /opt/sink: /dev/null is a system device"), std::string::npos);  // through a link
  EXPECT_NE(refused("/dev").find("--also /dev: /dev is the device folder"), std::string::npos);
  for (const char* p : {"/dev/zero", "/dev/urandom", "/dev/random", "/dev/tty"}) {
    t.file(p);
    EXPECT_NE(refused(p).find(std::string("--also ") + p + ": " + p + " is a system device"), std::string::npos) << p;
  }
  EXPECT_EQ(refused("/dev/nvidiactl"), "(planned)");
  EXPECT_EQ(refused("driver/libcuda.so.1"), "(planned)");
}

// The same on the real tree, where /dev/null is a character device and any
// other non-NVIDIA device node is refused by its type.
TEST(PlanHideDriver, AlsoRefusesNonNvidiaDeviceNodes) {
  struct stat st {};
  if (stat("/dev/null", &st) != 0 || !S_ISCHR(st.st_mode)) GTEST_SKIP() << "/dev/null is not a character device here";
  HideDriverInputs in;
  in.use_cache = false;
  in.cwd = "/";
  WarningSink w;
  in.also = {"/dev/null"};
  auto null_plan = plan_hide_driver(in, w);
  ASSERT_FALSE(null_plan);
  EXPECT_NE(null_plan.error().message().find("/dev/null is a system device"), std::string::npos);
  // A device node that is on no list: refused because of what it is.
  for (const char* dev : {"/dev/loop-control", "/dev/mem", "/dev/kmsg", "/dev/fuse", "/dev/net/tun"}) {
    if (stat(dev, &st) != 0 || (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))) continue;
    in.also = {dev};
    auto p = plan_hide_driver(in, w);
    ASSERT_FALSE(p) << dev;
    EXPECT_EQ(p.error().message(), std::string("--also ") + dev + ": a " + (S_ISCHR(st.st_mode) ? "character" : "block") +
                                       " device that is not an NVIDIA one (/dev/nvidia*); covering it would take it away "
                                       "from CMD. --also is for extra NVIDIA driver files");
    return;
  }
  GTEST_SKIP() << "no other device node to try";
}

TEST(PlanHideDriver, RootMustBeAFolder) {
  HideDriverInputs in;
  in.root = "/no/such/root/for/cuwheel";
  WarningSink w;
  auto plan = plan_hide_driver(in, w);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message().find("not a folder"), std::string::npos);
}

// --- explain_namespace_failure -------------------------------------------------

TEST(ExplainNamespaceFailure, NamesTheSysctlThatIsSet) {
  TempTree t;
  t.file("/proc/sys/user/max_user_namespaces", "0\n");
  EXPECT_NE(explain_namespace_failure("unshare", ENOSPC, true, t.root()).find("user.max_user_namespaces is 0"),
            std::string::npos);

  TempTree u;
  u.file("/proc/sys/user/max_user_namespaces", "63000\n");
  u.file("/proc/sys/kernel/unprivileged_userns_clone", "0\n");
  EXPECT_NE(explain_namespace_failure("unshare", EPERM, false, u.root()).find("kernel.unprivileged_userns_clone is 0"),
            std::string::npos);
  // Root is not "unprivileged": the sysctl does not apply; EPERM then
  // points at seccomp.
  EXPECT_NE(explain_namespace_failure("unshare", EPERM, true, u.root()).find("seccomp"), std::string::npos);

  TempTree a;
  a.file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
  EXPECT_NE(explain_namespace_failure("uid_map", EPERM, false, a.root()).find("apparmor_restrict_unprivileged_userns"),
            std::string::npos);

  TempTree none;
  EXPECT_NE(explain_namespace_failure("unshare", ENOSPC, false, none.root()).find("limit on user namespaces"),
            std::string::npos);
  EXPECT_NE(explain_namespace_failure("unshare", EPERM, false, none.root()).find("seccomp"), std::string::npos);
  EXPECT_NE(explain_namespace_failure("unshare", EUSERS, false, none.root()).find("32"), std::string::npos);
}

// --- run_with_driver_hidden ----------------------------------------------------

// Runs argv with `plan`; skips the test where namespaces are not permitted.
#define RUN_OR_SKIP(var, plan, ...)                                                        \
  auto var = run_with_driver_hidden(plan, __VA_ARGS__);                                    \
  if (!var && var.error().message().find("namespace") != std::string::npos)                \
    GTEST_SKIP() << "user namespaces are not permitted here: " << var.error().message();  \
  ASSERT_TRUE(var) << var.error().message()

TEST(RunWithDriverHidden, CoversFilesOnlyInsideAndReturnsTheStatus) {
  TempTree t;
  t.file("/lib/libcuda.so.1", "ELF bytes");
  t.file("/dev/nvidia0", "node");
  t.dir("/caps/sub");
  HidePlan plan;
  plan.targets = {{HideKind::library, t.at("/lib/libcuda.so.1"), {}},
                  {HideKind::device, t.at("/dev/nvidia0"), {}},
                  {HideKind::directory, t.at("/caps"), {}}};
  const std::string script =
      "test -f '" + t.at("/lib/libcuda.so.1") + "' && test ! -s '" + t.at("/lib/libcuda.so.1") + "' && " +
      "test ! -s '" + t.at("/dev/nvidia0") + "' && test ! -e '" + t.at("/caps/sub") + "' && " +
      "! (echo x > '" + t.at("/lib/libcuda.so.1") + "') 2>/dev/null && exit 7";
  RUN_OR_SKIP(r, plan, {"sh", "-c", script});
  EXPECT_EQ(r->status, 7);
  EXPECT_EQ(r->signal, 0);
  EXPECT_TRUE(r->exec_error.empty());
  // Outside, nothing changed.
  std::ifstream in(t.at("/lib/libcuda.so.1"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "ELF bytes");
  EXPECT_TRUE(fs::exists(t.at("/caps/sub")));
}

TEST(RunWithDriverHidden, SignalsAndExecFailures) {
  TempTree cover;
  cover.file("/libcuda.so.1");
  HidePlan plan;  // one target, so that CMD runs in the namespace
  plan.targets = {{HideKind::library, cover.at("/libcuda.so.1"), {}}};
  RUN_OR_SKIP(killed, plan, {"sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(killed->signal, SIGTERM);
  EXPECT_EQ(killed->status, 128 + SIGTERM);

  RUN_OR_SKIP(missing, plan, {"cuwheel-no-such-command-xyz"});
  EXPECT_EQ(missing->status, kExitNotFound);
  EXPECT_NE(missing->exec_error.find("cuwheel-no-such-command-xyz: No such file or directory"), std::string::npos);

  TempTree t;
  t.file("/not-executable", "#!/bin/sh\n");
  RUN_OR_SKIP(noexec, plan, {t.at("/not-executable")});
  EXPECT_EQ(noexec->status, kExitCannotExecute);
}

TEST(RunWithDriverHidden, EmptyPlanRunsTheCommandAsItIs) {
  // No namespace: the command sees the host's mount table unchanged.
  HidePlan empty;
  auto r = run_with_driver_hidden(empty, {"sh", "-c", "exit 5"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->status, 5);
}

TEST(RunWithDriverHidden, MissingTargetIsAnErrorAndNothingRuns) {
  TempTree t;
  HidePlan plan;
  plan.targets = {{HideKind::library, t.at("/gone/libcuda.so.1"), {}}};
  auto r = run_with_driver_hidden(plan, {"sh", "-c", "touch '" + t.at("/ran") + "'"});
  if (!r && r.error().message().find("namespace") != std::string::npos) GTEST_SKIP() << r.error().message();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find(t.at("/gone/libcuda.so.1") + ": cannot be opened to cover it"),
            std::string::npos)
      << r.error().message();
  EXPECT_FALSE(fs::exists(t.at("/ran")));
  EXPECT_FALSE(run_with_driver_hidden(plan, {}));
}

}  // namespace
}  // namespace cuwheel
