// The driver queries of host/driver.h: the KMD version parser on the lines
// both kernel modules write, and the driver API and NVML queries against a
// stand-in library (fake_driver.cc) and against files that are no driver.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <string>

#include "cuwheel/host/driver.h"
#include "temp_dir.h"

using namespace cuwheel;
using namespace cuwheel::host;

TEST(HostDriver, NvrmProprietaryLine) {
  auto v = parse_nvrm_version(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:25 UTC 2025\n"
      "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n",
      "version");
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(*v, "580.65.06");
}

TEST(HostDriver, NvrmOpenModuleLine) {
  auto v = parse_nvrm_version(
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U22)  Tue\n",
      "version");
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(*v, "580.159.04");
  auto a = parse_nvrm_version("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  535.104  Release Build\n", "v");
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, "535.104");
}

TEST(HostDriver, NvrmErrorsNameTheFileAndEscapeTheLine) {
  auto none = parse_nvrm_version("GCC version: 12\n", "/proc/driver/nvidia/version");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message(), "/proc/driver/nvidia/version: no \"NVRM version:\" line");
  auto bad = parse_nvrm_version("NVRM version: NVIDIA UNIX Kernel Module \x1b[31m 5.x\n", "f");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("no driver version on the line"), std::string::npos);
  EXPECT_NE(bad.error().message().find("\\x1b"), std::string::npos);
  EXPECT_EQ(bad.error().message().find('\x1b'), std::string::npos);
  // A token with a trailing dot or more than three parts is no version.
  EXPECT_FALSE(parse_nvrm_version("NVRM version: Kernel Module 580. 1.2.3.4 x\n", "f"));
  EXPECT_FALSE(parse_nvrm_version("", "f"));
}

TEST(HostDriver, KernelDriverVersionMissingFile) {
  auto v = read_kernel_driver_version("/nonexistent-root");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message(), "/nonexistent-root/proc/driver/nvidia/version: No such file or directory");
}

TEST(HostDriver, ResultNamesAndVersions) {
  EXPECT_EQ(cuda_result_name(0), "CUDA_SUCCESS");
  EXPECT_EQ(cuda_result_name(34), "CUDA_ERROR_STUB_LIBRARY");
  EXPECT_EQ(cuda_result_name(209), "CUDA_ERROR_NO_BINARY_FOR_GPU");
  EXPECT_EQ(cuda_result_name(222), "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
  EXPECT_EQ(cuda_result_name(804), "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE");
  EXPECT_EQ(cuda_result_name(12345), "");
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12090), "12.9");
  EXPECT_EQ(cuda_version_string(0), "");
  EXPECT_EQ(cuda_version_string(-5), "");
}

TEST(HostDriver, NoDriverIsNotLoaded) {
  DriverApiReport r = query_driver_api("/nonexistent/libcuda.so.1");
  EXPECT_FALSE(r.loaded);
  EXPECT_NE(r.load_error.find("/nonexistent/libcuda.so.1"), std::string::npos) << r.load_error;
  EXPECT_EQ(r.init_result, -1);
  EXPECT_TRUE(r.devices.empty());
  NvmlReport n = query_nvml("/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(n.loaded);
  EXPECT_FALSE(n.load_error.empty());
  EXPECT_EQ(n.init_result, -1);
}

TEST(HostDriver, EmptyFileIsNotLoaded) {
  // What `run --hide-driver` leaves where libcuda.so.1 was.
  cuwheel::test::TempDir dir;
  const std::string path = (dir.path() / "libcuda.so.1").string();
  std::ofstream(path).close();
  DriverApiReport r = query_driver_api(path);
  EXPECT_FALSE(r.loaded);
  EXPECT_NE(r.load_error.find("file too short"), std::string::npos) << r.load_error;
}

TEST(HostDriver, DriverApiOfAMixedHost) {
  unsetenv("FAKE_CUINIT");
  DriverApiReport r = query_driver_api(CUWHEEL_FAKE_DRIVER);
  ASSERT_TRUE(r.loaded) << r.load_error;
  EXPECT_TRUE(r.missing_symbols.empty());
  EXPECT_NE(r.loaded_path.find("fake_driver"), std::string::npos) << r.loaded_path;
  EXPECT_EQ(r.version_result, 0);
  EXPECT_EQ(r.driver_version, 13000);
  EXPECT_EQ(r.init_result, 0);
  EXPECT_EQ(r.count_result, 0);
  ASSERT_EQ(r.device_count, 2);
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[0].name, "Fake GPU 9.0");
  EXPECT_EQ(r.devices[0].cc_major, 9);
  EXPECT_EQ(r.devices[0].cc_minor, 0);
  EXPECT_EQ(r.devices[1].ordinal, 1);
  EXPECT_EQ(r.devices[1].cc_major, 8);
  EXPECT_EQ(r.devices[1].cc_minor, 6);
}

TEST(HostDriver, StubLibraryStopsAtCuInit) {
  setenv("FAKE_CUINIT", "34", 1);
  DriverApiReport r = query_driver_api(CUWHEEL_FAKE_DRIVER);
  unsetenv("FAKE_CUINIT");
  ASSERT_TRUE(r.loaded);
  EXPECT_EQ(r.driver_version, 13000);  // cuDriverGetVersion needs no cuInit
  EXPECT_EQ(r.init_result, 34);
  EXPECT_EQ(cuda_result_name(r.init_result), "CUDA_ERROR_STUB_LIBRARY");
  EXPECT_EQ(r.count_result, -1);
  EXPECT_TRUE(r.devices.empty());
}

TEST(HostDriver, LibraryWithoutEntryPoints) {
  // libc is a loadable library with none of the driver's entry points.
  DriverApiReport r = query_driver_api("libc.so.6");
  ASSERT_TRUE(r.loaded) << r.load_error;
  EXPECT_EQ(r.missing_symbols.size(), 6u);
  EXPECT_EQ(r.init_result, -1);
  EXPECT_EQ(r.version_result, -1);
  EXPECT_TRUE(r.devices.empty());
  NvmlReport n = query_nvml("libc.so.6");
  ASSERT_TRUE(n.loaded);
  EXPECT_EQ(n.missing_symbols.size(), 9u);
  EXPECT_EQ(n.init_result, -1);
}

TEST(HostDriver, NvmlOfAMixedHost) {
  NvmlReport n = query_nvml(CUWHEEL_FAKE_DRIVER);
  ASSERT_TRUE(n.loaded) << n.load_error;
  EXPECT_TRUE(n.missing_symbols.empty());
  EXPECT_EQ(n.init_result, 0);
  EXPECT_EQ(n.driver_version, "580.65.06");
  EXPECT_EQ(n.cuda_version_result, 0);
  EXPECT_EQ(n.cuda_driver_version, 13000);
  ASSERT_EQ(n.device_count, 2u);
  ASSERT_EQ(n.devices.size(), 2u);
  EXPECT_EQ(n.devices[0].name, "Fake GPU 9.0");
  EXPECT_EQ(n.devices[0].cc_major, 9);
  EXPECT_EQ(n.devices[0].mig_result, 0);
  EXPECT_EQ(n.devices[0].mig_current, 1u);
  EXPECT_EQ(n.devices[1].cc_minor, 6);
  EXPECT_EQ(n.devices[1].mig_result, 3);  // NVML_ERROR_NOT_SUPPORTED
}
