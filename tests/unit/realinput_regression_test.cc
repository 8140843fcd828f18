// Regressions found by scripts/compare-cuobjdump.sh on real inputs (CUDA 13.0
// toolkit libraries), each reduced to the minimal bytes built in memory.
#include <gtest/gtest.h>

#include <string>

#include "byte_builders.h"
#include "cuwheel/object/cubin.h"
#include "cuwheel/render/cuobjdump.h"
#include "cuwheel/object/devicecode.h"

using namespace cuwheel;
using namespace cuwheel::testing;

namespace {

constexpr uint16_t kEtDyn = 3;
constexpr uint16_t kEmX86_64 = 62;

EntrySpec ptx(uint32_t arch) {
  EntrySpec e;
  e.kind = 1;
  e.arch = arch;
  e.code_major = 9;
  e.code_minor = 0;
  e.payload = bytes_of(".version 9.0\n.target sm_" + std::to_string(arch) + "\n");
  while (e.payload.size() % 8) e.payload.push_back(0);
  return e;
}

cuobjdump::Output list(const Bytes& image, bool all) {
  std::vector<cuobjdump::ObjectCode> objs(1);
  objs[0].code = read_device_code(ByteView(image.data(), image.size()), Depth::arch, nullptr);
  EXPECT_TRUE(objs[0].code.has_value());
  cuobjdump::Mode mode;
  mode.ptx = true;
  mode.all = all;
  return cuobjdump::render("libx.so.1", "/w", cuobjdump::FileKind::object, objs, mode);
}

// libcufft.so.12: a .nv_fatbin container and no .nvFatBinSegment at all.
// cuobjdump lists it.
TEST(RealInputRegression, NvFatbinWithoutWrapperIsListed) {
  Bytes image = elf64_image(kEtDyn, kEmX86_64, 0, 0, 0, {{".nv_fatbin", 1, container_of({ptx(75)})}});
  auto out = list(image, false);
  EXPECT_EQ(out.out, "PTX file    1: libx.so.1.sm_75.ptx\n");
  EXPECT_EQ(out.err, "");
  EXPECT_EQ(out.status, 0);
}

// libnccl.so.2: cuobjdump walks the sections, not the wrappers: every
// container of .nv_fatbin in file order, then (with -all) __nv_relfatbin,
// even when __nv_relfatbin comes first in the file.
TEST(RealInputRegression, SectionOrderExecutableFirst) {
  Bytes nv = container_of({ptx(80)});
  append(nv, container_of({ptx(90)}));
  Bytes image = elf64_image(kEtDyn, kEmX86_64, 0, 0, 0,
                            {{"__nv_relfatbin", 1, container_of({ptx(70)})}, {".nv_fatbin", 1, nv}});
  EXPECT_EQ(list(image, false).out, "PTX file    1: libx.so.1.sm_80.ptx\nPTX file    2: libx.so.2.sm_90.ptx\n");
  EXPECT_EQ(list(image, true).out,
            "PTX file    1: libx.so.1.sm_80.ptx\nPTX file    2: libx.so.2.sm_90.ptx\nPTX file    3: libx.so.3.sm_70.ptx\n");
}

}  // namespace

namespace {

// libcublas.so.12 of nvidia-cublas-cu12 12.9.3.13: an ABI v7 sm_50 cubin
// with e_flags 0x3c0d32 (bit 0x800 set). cuobjdump names it sm_50: "a"
// exists only from sm_90 on.
TEST(RealInputRegression, V7Bit800BelowSm90IsNotArchSpecific) {
  constexpr uint16_t kEtExec = 2, kEmCuda = 190;
  Bytes old_cubin = elf64_image(kEtExec, kEmCuda, 0x3c0d32, 0x33, 7, {});
  auto c = cubin::read_cubin_header(ByteView(old_cubin.data(), old_cubin.size()));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->arch_name(), "sm_50");
  Bytes hopper_a = elf64_image(kEtExec, kEmCuda, 0x5a0d5a, 0x33, 7, {});
  auto h = cubin::read_cubin_header(ByteView(hopper_a.data(), hopper_a.size()));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->arch_name(), "sm_90a");
}

}  // namespace
