// PEP 508 requirements and markers, on the Requires-Dist lines of real CUDA
// wheels (torch, jax, cupy, cuda-toolkit).
#include "cuwheel/wheel/pep508.h"

#include <gtest/gtest.h>

namespace cuwheel {
namespace {

Requirement R(std::string_view s) {
  auto r = Requirement::parse(s);
  EXPECT_TRUE(r) << s << ": " << (r ? "" : r.error().message());
  return r ? *r : Requirement{};
}

TEST(Pep508Requirement, TorchCuda13) {
  auto r = R("cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]"
             "==13.0.2; platform_system == \"Linux\"");
  EXPECT_EQ(r.name, "cuda-toolkit");
  ASSERT_EQ(r.extras.size(), 11u);
  EXPECT_EQ(r.extras[0], "cublas");
  EXPECT_EQ(r.specifier.to_string(), "==13.0.2");
  ASSERT_TRUE(r.marker);
  EXPECT_TRUE(r.marker->evaluate(MarkerEnvironment::linux_cpython()));
  auto mac = MarkerEnvironment::linux_cpython().set("platform_system", "Darwin");
  EXPECT_FALSE(r.marker->evaluate(mac));
  EXPECT_TRUE(r.behind_extras().empty());

  auto b = R("cuda-bindings<14,>=13.0.3; platform_system == \"Linux\"");
  EXPECT_TRUE(b.specifier.contains("13.0.3"));
  EXPECT_FALSE(b.specifier.contains("14.0.0"));
}

TEST(Pep508Requirement, ExtrasInMarkers) {
  auto r = R("nvidia-cublas==13.1.0.3.*; (sys_platform == 'linux' or sys_platform == 'win32') and extra == 'cublas'");
  EXPECT_EQ(r.behind_extras(), std::vector<std::string>{"cublas"});
  auto env = MarkerEnvironment::linux_cpython();
  EXPECT_FALSE(r.marker->evaluate(env));
  env.set("extra", "cublas");
  EXPECT_TRUE(r.marker->evaluate(env));
  env.set("sys_platform", "darwin");
  EXPECT_FALSE(r.marker->evaluate(env));
  EXPECT_EQ(r.marker->to_string(),
            "(sys_platform == \"linux\" or sys_platform == \"win32\") and extra == \"cublas\"");

  auto j = R("nvidia-cudnn-cu13<10.0,>=9.12.0.46; sys_platform == \"linux\" and extra == \"with-cuda\"");
  EXPECT_EQ(j.behind_extras(), std::vector<std::string>{"with-cuda"});
  // PEP 685: extras compare normalized.
  auto env2 = MarkerEnvironment::linux_cpython().set("extra", "With_CUDA");
  EXPECT_TRUE(j.marker->evaluate(env2));

  auto c = R("cuda-toolkit[cublas,cudart,cufft,curand,cusolver,cusparse,nvrtc]==13.*; extra == \"ctk\"");
  EXPECT_TRUE(c.specifier.contains("13.0.2"));
  EXPECT_EQ(c.behind_extras(), std::vector<std::string>{"ctk"});
}

TEST(Pep508Requirement, OlderTorchStyleAndVersionMarkers) {
  auto r = R("nvidia-cublas-cu12==12.1.3.1; platform_system == 'Linux' and platform_machine == 'x86_64'");
  EXPECT_TRUE(r.marker->evaluate(MarkerEnvironment::linux_cpython("3.12", "x86_64")));
  EXPECT_FALSE(r.marker->evaluate(MarkerEnvironment::linux_cpython("3.12", "aarch64")));

  auto m = Marker::parse("python_version >= \"3.10\" and python_full_version < '3.13.1'");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->evaluate(MarkerEnvironment::linux_cpython("3.12")));
  EXPECT_FALSE(m->evaluate(MarkerEnvironment::linux_cpython("3.9")));
  // 3.10 > 3.9 as versions (a string compare would say otherwise).
  EXPECT_TRUE(Marker::parse("python_version > '3.9'")->evaluate(MarkerEnvironment::linux_cpython("3.10")));
  EXPECT_TRUE(Marker::parse("'linux' in sys_platform")->evaluate(MarkerEnvironment::linux_cpython()));
  EXPECT_TRUE(Marker::parse("'win' not in sys_platform")->evaluate(MarkerEnvironment::linux_cpython()));
  EXPECT_TRUE(Marker::parse("os.name == 'posix'")->evaluate(MarkerEnvironment::linux_cpython()));
}

TEST(Pep508Requirement, FormsAndUrls) {
  auto a = R("name");
  EXPECT_TRUE(a.specifier.empty());
  EXPECT_FALSE(a.marker);
  auto b = R("Name.Foo_bar [ x , y ] ( >=1.0 , <2 ) ; os_name=='posix'");
  EXPECT_EQ(b.normalized_name(), "name-foo-bar");
  EXPECT_EQ(b.extras, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(b.to_string(), "Name.Foo_bar[x,y]>=1.0,<2; os_name == \"posix\"");
  auto u = R("pip @ https://example.com/pip-1.0.whl ; python_version >= '3.8'");
  ASSERT_TRUE(u.url);
  EXPECT_EQ(*u.url, "https://example.com/pip-1.0.whl");
  EXPECT_TRUE(u.marker);
  auto u2 = R("pip @ file:///x;y");  // without whitespace, ';' is part of the URL
  EXPECT_EQ(*u2.url, "file:///x;y");
  EXPECT_FALSE(u2.marker);
  EXPECT_TRUE(R("x[]").extras.empty());
}

TEST(Pep508Requirement, ErrorsGiveColumns) {
  struct Case {
    const char* text;
    const char* column;
  } cases[] = {
      {"", "column 1"},
      {"-bad", "column 1"},
      {"name[x", "column 5"},
      {"name[x,]", "column 8"},
      {"name >=1.0; foo == 'x'", "column 13"},
      {"name; os_name == 'x", "column 18"},
      {"name; os_name 'x'", "column 15"},
      {"name; (os_name == 'x'", "column 7"},
      {"name; os_name == 'x' junk", "column 22"},
      {"name @ http://x; os_name == 'x'", nullptr},  // all URL, then the marker text is junk
      {"name >=1.0 @ x", "column 6"},
      {"name ==1.0; extra == 'a' and", "column 29"},
  };
  for (const auto& c : cases) {
    auto r = Requirement::parse(c.text);
    ASSERT_FALSE(r) << c.text;
    if (c.column)
      EXPECT_NE(r.error().message().find(c.column), std::string::npos) << c.text << " -> " << r.error().message();
  }
}

TEST(Pep508Marker, DeepNestingIsAnErrorNotACrash) {
  std::string deep(10000, '(');
  auto m = Marker::parse(deep + "os_name == 'x'" + std::string(10000, ')'));
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message().find("nested too deeply"), std::string::npos);
  std::string ok = std::string(30, '(') + "os_name == 'posix'" + std::string(30, ')');
  EXPECT_TRUE(Marker::parse(ok)->evaluate(MarkerEnvironment::linux_cpython()));
}

TEST(Pep508Name, Normalization) {
  EXPECT_EQ(normalize_name("Nvidia_CUBLAS.cu12"), "nvidia-cublas-cu12");
  EXPECT_EQ(normalize_name("a--_.b"), "a-b");
  EXPECT_TRUE(is_valid_name("torch"));
  EXPECT_TRUE(is_valid_name("a.b-c_d"));
  EXPECT_FALSE(is_valid_name("-a"));
  EXPECT_FALSE(is_valid_name("a-"));
  EXPECT_FALSE(is_valid_name("a b"));
}

}  // namespace
}  // namespace cuwheel
