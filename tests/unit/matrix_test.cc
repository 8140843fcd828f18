// Build-matrix filtering: row classification, the policy file, every guard
// (a case that fires it and one that does not), PR mode, toolkit detection
// (include/cuwheel/release/matrix.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cuwheel/release/matrix.h"
#include "temp_dir.h"

using namespace cuwheel::matrix;
namespace fs = std::filesystem;

namespace {

Row row(const std::string& arch, const std::string& cuda, const std::string& py) {
  Row r;
  r["python_version"] = py;
  bool gpu = cuda.rfind("cu", 0) == 0 && cuda != "cpu";
  std::string ver = gpu ? cuda.substr(2, cuda.size() - 3) + "." + cuda.back() : "";
  r["gpu_arch_type"] = gpu ? (arch == "aarch64" ? "cuda-aarch64" : "cuda") : "cpu";
  r["gpu_arch_version"] = ver;
  r["desired_cuda"] = cuda;
  r["container_image"] = arch == "aarch64" ? "pytorch/manylinuxaarch64-builder:cuda" + ver
                                           : "pytorch/manylinux2_28-builder:cuda" + ver;
  r["build_name"] = "manywheel-py" + py + "-" + cuda + "-" + arch;
  return r;
}

Policy basic() {
  Policy p;
  p.trains = {{"x86_64", {"cu126", "cu130"}}, {"aarch64", {"cu130"}}};
  p.python = {"3.11", "3.12"};
  p.exclude_python = {{"3.14", "known-broken example requirements"}};
  return p;
}

std::vector<Row> full_rows() {
  std::vector<Row> rows;
  for (auto cu : {"cu126", "cu128", "cu130"})
    for (auto py : {"3.11", "3.12", "3.14"}) rows.push_back(row("x86_64", cu, py));
  for (auto py : {"3.11", "3.12", "3.14"}) rows.push_back(row("aarch64", "cu130", py));
  return rows;
}

size_t count(const Result& r, const std::string& rule) {
  size_t n = 0;
  for (const auto& f : r.findings) n += f.rule == rule;
  return n;
}

std::string rules(const Result& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule + ": " + f.message + "\n";
  return s;
}

}  // namespace

TEST(MatrixClassify, SupportedTrainIsAskedNotStripped) {
  EXPECT_EQ(classify_build("cpu").kind, Build::Kind::kCpu);  // not train "pu"
  EXPECT_EQ(classify_build("cpu-aarch64").kind, Build::Kind::kCpu);
  EXPECT_EQ(classify_build("cpu-cxx11-abi").kind, Build::Kind::kCpu);
  EXPECT_EQ(classify_build("rocm6.2").kind, Build::Kind::kRocm);
  EXPECT_EQ(classify_build("rocm6.2.4").kind, Build::Kind::kRocm);
  EXPECT_EQ(classify_build("xpu").kind, Build::Kind::kXpu);
  Build b = classify_build("cu118");
  EXPECT_EQ(b.kind, Build::Kind::kCuda);
  EXPECT_EQ(train_version(b), "11.8");
  b = classify_build("cu125");
  EXPECT_EQ(b.kind, Build::Kind::kCuda);
  EXPECT_EQ(train_version(b), "12.5");
  b = classify_build("cu130");
  EXPECT_EQ(b.major, 13u);
  EXPECT_EQ(b.minor, 0u);
  for (auto bad : {"", "pu", "cu", "cu12", "cuda12.6", "cu12.6", "CU126", "rocm", "cpux", "cu1260000"})
    EXPECT_EQ(classify_build(bad).kind, Build::Kind::kUnknown) << bad;
}

TEST(MatrixClassify, CpuRowIsNeverATrain) {
  // A CPU row in a CUDA policy is dropped as a CPU build, never reported as
  // an unsupported train "pu".
  Policy p = basic();
  auto rows = full_rows();
  rows.push_back(row("x86_64", "cpu", "3.12"));
  Result r = filter(rows, p, {});
  ASSERT_TRUE(r.findings.empty()) << rules(r);
  bool seen = false;
  for (const auto& d : r.dropped)
    if (d.row == static_cast<int>(rows.size() - 1)) {
      seen = true;
      EXPECT_NE(d.reason.find("CPU build"), std::string::npos);
    }
  EXPECT_TRUE(seen);
  p.cpu = true;
  r = filter(rows, p, {});
  EXPECT_EQ(r.include.size(), 7u);
}

TEST(MatrixFilter, KeepsThePolicyRows) {
  Result r = filter(full_rows(), basic(), {});
  ASSERT_TRUE(r.findings.empty()) << rules(r);
  ASSERT_EQ(r.include.size(), 6u);  // x86_64 cu126/cu130 x 2 + aarch64 cu130 x 2
  for (const auto& row : r.include) {
    EXPECT_NE(row["desired_cuda"], "cu128");
    EXPECT_NE(row["python_version"], "3.14");
  }
  EXPECT_EQ(r.dropped.size(), 6u);
  EXPECT_EQ(r.matrix()["include"].size(), 6u);
}

TEST(MatrixGuards, EmptyMatrix) {
  Policy p = basic();
  p.trains = {{"x86_64", {"cu132"}}};
  p.expect = std::vector<Combination>{};  // nothing advertised
  Result r = filter(full_rows(), p, {});
  EXPECT_EQ(count(r, "empty-matrix"), 1u) << rules(r);
  EXPECT_EQ(count(filter(full_rows(), basic(), {}), "empty-matrix"), 0u);
  EXPECT_EQ(count(filter({}, basic(), {}), "empty-matrix"), 1u);
}

TEST(MatrixGuards, MissingCombination) {
  auto rows = full_rows();
  rows.erase(rows.begin() + 6);  // x86_64 cu130 3.11
  Result r = filter(rows, basic(), {});
  ASSERT_EQ(count(r, "missing-combination"), 1u) << rules(r);
  EXPECT_NE(r.findings[0].message.find("x86_64 cu130 for python 3.11"), std::string::npos);
  EXPECT_EQ(r.include.size(), 5u);
  // A build job checking its own row does not ask for the others.
  Options own_row;
  own_row.check_offered = false;
  EXPECT_EQ(count(filter({full_rows()[0]}, basic(), own_row), "missing-combination"), 0u);
  EXPECT_GT(count(filter({full_rows()[0]}, basic(), {}), "missing-combination"), 0u);
  // An explicit expect list replaces the default.
  Policy p = basic();
  p.expect = std::vector<Combination>{{"aarch64", "cu130", "3.12"}};
  EXPECT_EQ(count(filter(rows, p, {}), "missing-combination"), 0u);
  // Excluded Pythons are not advertised.
  EXPECT_EQ(count(filter(full_rows(), basic(), {}), "missing-combination"), 0u);
}

TEST(MatrixGuards, MissingCudaVersionAndPython) {
  auto rows = full_rows();
  rows[0].erase("desired_cuda");
  rows[1]["python_version"] = "";
  rows[2]["gpu_arch_version"] = "";
  Result r = filter(rows, basic(), {});
  EXPECT_EQ(count(r, "missing-cuda-version"), 2u) << rules(r);
  EXPECT_EQ(count(r, "missing-python"), 1u);
  bool named = false;
  for (const auto& f : r.findings) named = named || f.message.find("row 1 (manywheel-py3.12-cu126-x86_64)") == 0;
  EXPECT_TRUE(named) << rules(r);
  EXPECT_EQ(count(filter(full_rows(), basic(), {}), "missing-cuda-version"), 0u);
}

TEST(MatrixGuards, PythonAllowlist) {
  auto rows = full_rows();
  rows.push_back(row("x86_64", "cu130", "3.9"));
  rows.push_back(row("x86_64", "cu128", "3.8"));  // dropped by train first
  Result r = filter(rows, basic(), {});
  ASSERT_EQ(count(r, "python-not-allowed"), 1u) << rules(r);
  EXPECT_NE(r.findings[0].message.find("python 3.9"), std::string::npos);
  Policy p = basic();
  p.exclude_python.push_back({"3.9", "end of life"});
  EXPECT_TRUE(filter(rows, p, {}).findings.empty());
}

TEST(MatrixGuards, UnknownBuildAndVersionMismatch) {
  auto rows = full_rows();
  rows[0]["desired_cuda"] = "cuda12.6";
  rows[3]["gpu_arch_version"] = "12.9";  // cu128 row
  Result r = filter(rows, basic(), {});
  EXPECT_EQ(count(r, "unknown-build"), 1u) << rules(r);
  EXPECT_EQ(count(r, "cuda-version-mismatch"), 1u) << rules(r);
}

// Every row is counted once: kept, dropped, or failed a guard.
TEST(MatrixFilter, CountsAccountForEveryRow) {
  auto rows = full_rows();
  rows[0]["desired_cuda"] = "cuda12.6";     // unknown-build
  rows[3]["gpu_arch_version"] = "12.9";     // cuda-version-mismatch
  rows[3]["python_version"] = "";           // and missing-python: one row, two guards
  rows.push_back(row("x86_64", "cu130", "3.9"));  // python-not-allowed
  Result r = filter(rows, basic(), {});
  EXPECT_EQ(r.rows_in, rows.size());
  EXPECT_EQ(r.rows_failed, 3u) << rules(r);
  EXPECT_EQ(r.include.size() + r.dropped.size() + r.rows_failed, r.rows_in);
  Result clean = filter(full_rows(), basic(), {});
  EXPECT_EQ(clean.rows_failed, 0u);
  EXPECT_EQ(clean.include.size() + clean.dropped.size(), clean.rows_in);
  // Pull-request mode drops the non-representative rows: still every row once.
  Options pr;
  pr.pr = true;
  Result one = filter(rows, basic(), pr);
  EXPECT_EQ(one.include.size() + one.dropped.size() + one.rows_failed, one.rows_in);
  // The empty-matrix message counts the failed rows too.
  Result none = filter({rows[0]}, basic(), {});
  bool counted = false;
  for (const auto& f : none.findings)
    counted = counted || (f.rule == "empty-matrix" && f.message.find("(1 in, 0 dropped, 1 failed a guard)") != std::string::npos);
  EXPECT_TRUE(counted) << rules(none);
}

// A value from the input is escaped in every message: a NUL cannot cut the
// message short, a control character cannot reach the terminal.
TEST(MatrixGuards, MessagesEscapeInputValues) {
  auto rows = full_rows();
  rows[0]["desired_cuda"] = std::string("cu130\0x", 7);
  rows[1]["build_name"] = "evil\x1b[2J\nname";
  rows[1]["python_version"] = "3.9\xff";
  rows[2]["gpu_arch_version"] = std::string("12\0.6", 5);
  Result r = filter(rows, basic(), {});
  std::string all = rules(r);
  EXPECT_NE(all.find("desired_cuda \"cu130\\x00x\" names no build"), std::string::npos) << all;
  EXPECT_NE(all.find("row 1 (evil\\x1b[2J\\x0aname)"), std::string::npos) << all;
  EXPECT_NE(all.find("python 3.9\\xff"), std::string::npos) << all;
  EXPECT_NE(all.find("gpu_arch_version is \"12\\x00.6\""), std::string::npos) << all;
  for (const auto& f : r.findings)
    for (unsigned char c : f.message) EXPECT_TRUE(c >= 0x20 && c != 0x7f && c < 0x80) << f.message;
  Policy p = basic();
  p.exclude_python.push_back({"3.14", std::string("bad\0reason\n", 11)});
  for (const auto& d : filter(full_rows(), p, {}).dropped)
    EXPECT_EQ(d.reason.find('\0'), std::string::npos) << d.reason;
}

TEST(MatrixGuards, GeneratorSpelling) {
  Policy p = basic();
  p.generator = {{"with-cuda", "enabled"}, {"with-cpu", "disable"}};
  Result r = filter(full_rows(), p, {});
  ASSERT_EQ(count(r, "generator-spelling"), 1u) << rules(r);
  EXPECT_NE(r.findings[0].message.find("with-cuda = \"enabled\""), std::string::npos);
  p.generator = {{"with-cuda", "enable"}};
  EXPECT_TRUE(filter(full_rows(), p, {}).findings.empty());
  Options o;
  o.generator = {{"with-rocm", "Disable"}};
  EXPECT_EQ(count(filter(full_rows(), p, o), "generator-spelling"), 1u);
}

TEST(MatrixGuards, ToolkitMajor) {
  Options o;
  o.toolkit = ToolkitVersion{13, 0, "cuda.h"};
  o.arch = "aarch64";
  EXPECT_TRUE(filter(full_rows(), basic(), o).findings.empty());
  o.arch = "x86_64";
  Result r = filter(full_rows(), basic(), o);
  EXPECT_EQ(count(r, "toolkit-mismatch"), 2u) << rules(r);  // the two cu126 rows
  EXPECT_NE(r.findings[0].message.find("CUDA 13.0"), std::string::npos);
}

TEST(MatrixEmptyKind, JetsonRowsAreDroppedWithTheirReason) {
  Policy p = basic();
  p.empty.push_back({"jetson", "no device code for Jetson GPUs in published PyTorch", {{"container_image", "*jetpack*"}}});
  auto rows = full_rows();
  Row j = row("aarch64", "cu126", "3.10");
  j["container_image"] = "nvcr.io/nvidia/l4t-jetpack:r36.4.0";
  rows.push_back(j);
  EXPECT_EQ(row_arch(j, p), "jetson");
  Result r = filter(rows, p, {});
  ASSERT_TRUE(r.findings.empty()) << rules(r);
  EXPECT_NE(r.dropped.back().reason.find("deliberately empty: no device code"), std::string::npos);
  Options o;
  o.arch = "jetson";
  r = filter(rows, p, o);
  ASSERT_EQ(count(r, "empty-matrix"), 1u);
  EXPECT_EQ(r.findings.back().message, "jetson rows are deliberately empty: no device code for Jetson GPUs in published PyTorch");
}

TEST(MatrixPr, RepresentativeRow) {
  Options o;
  o.pr = true;
  Result r = filter(full_rows(), basic(), o);
  ASSERT_EQ(r.include.size(), 1u);
  EXPECT_EQ(r.include[0]["desired_cuda"], "cu130");  // newest train, newest python, x86_64
  EXPECT_EQ(r.include[0]["python_version"], "3.12");
  EXPECT_EQ(r.include[0]["gpu_arch_type"], "cuda");
  EXPECT_EQ(r.include.size() + r.dropped.size(), full_rows().size());  // every row accounted for
  Policy p = basic();
  p.representative = Combination{"x86_64", "cu126", "3.11"};
  r = filter(full_rows(), p, o);
  ASSERT_EQ(r.include.size(), 1u);
  EXPECT_EQ(r.include[0]["desired_cuda"], "cu126");
  p.representative = Combination{"x86_64", "cu128", ""};
  r = filter(full_rows(), p, o);
  EXPECT_EQ(count(r, "representative-missing"), 1u);
}

TEST(MatrixRows, Shapes) {
  auto a = parse_rows(R"([{"desired_cuda":"cu126"}])", "m.json");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->size(), 1u);
  auto b = parse_rows(R"({"include":[{"desired_cuda":"cu126"},{"desired_cuda":"cpu"}]})", "m.json");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->size(), 2u);
  bool single = false;
  auto c = parse_rows(R"({"desired_cuda":"cu126"})", "m.json", &single);  // one row
  ASSERT_TRUE(c);
  EXPECT_TRUE(single);
  EXPECT_EQ(c->size(), 1u);
  auto d = parse_rows(R"([{"a":1}, 3])", "m.json");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message(), "m.json: row 1 is not an object");
  auto e = parse_rows("[{\"a\":", "m.json");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("m.json: not JSON"), std::string::npos);
  EXPECT_FALSE(parse_rows(R"({"include": 3})", "m.json"));
  EXPECT_FALSE(parse_rows("42", "m.json"));
}

// A key written twice in one object is a generator bug, not "last one wins".
TEST(MatrixRows, DuplicateKeyIsAnInputError) {
  auto msg = [](const std::string& text) {
    auto r = parse_rows(text, "m.json");
    return r ? std::string("(ok)") : r.error().message();
  };
  const std::string kDup = " (a generator bug: JSON readers disagree on which value wins)";
  EXPECT_EQ(msg(R"([{"desired_cuda":"cu126"},{"desired_cuda":"cu126","python_version":"3.12","desired_cuda":"cpu"}])"),
            "m.json: row 1: duplicate key \"desired_cuda\"" + kDup);
  EXPECT_EQ(msg(R"({"include":[{"a":1},{"a":1},{"a":1,"a":2}]})"), "m.json: row 2: duplicate key \"a\"" + kDup);
  EXPECT_EQ(msg(R"({"desired_cuda":"cu126","desired_cuda":"cpu"})"), "m.json: the row: duplicate key \"desired_cuda\"" + kDup);
  EXPECT_EQ(msg(R"({"include":[],"include":[{"a":1}]})"), "m.json: the top level: duplicate key \"include\"" + kDup);
  // Below the row's level: the path inside the row is named.
  EXPECT_EQ(msg(R"([{"installation":{"pip":"x","pip":"y"}}])"),
            "m.json: row 0: duplicate key \"pip\" in installation" + kDup);
  EXPECT_EQ(msg(R"([{"env":[{"k":1},{"k":1,"k":2}]}])"), "m.json: row 0: duplicate key \"k\" in env[1]" + kDup);
  // The first duplicate is reported; a parse error after it still wins (the text is not JSON at all).
  EXPECT_NE(msg(R"([{"a":1,"a":2}, {)").find("m.json: not JSON (byte "), std::string::npos);
  // The same key in two rows, or in a row and a nested object, is fine.
  EXPECT_EQ(msg(R"([{"a":1,"b":{"a":2}},{"a":1}])"), "(ok)");
  EXPECT_EQ(msg(R"({"include":[{"include":1}]})"), "(ok)");
}

// The matrix policy is TOML: toml++ refuses a key defined twice (TOML 1.0
// "Keys": defining a key multiple times is invalid), with its line.
TEST(MatrixPolicy, DuplicateKeyIsRefused) {
  auto p = parse_policy("[matrix]\ncpu = true\npython = [\"3.12\"]\ncpu = false\n", "cuwheel.toml");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message().substr(0, 15), "cuwheel.toml:4:") << p.error().message();
  EXPECT_NE(p.error().message().find("cpu"), std::string::npos) << p.error().message();
  auto t = parse_policy("[matrix]\ntrains = { x86_64 = [\"cu126\"], x86_64 = [\"cu130\"] }\npython = [\"3.12\"]\n",
                        "cuwheel.toml");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message().substr(0, 15), "cuwheel.toml:2:") << t.error().message();
  auto h = parse_policy("[matrix]\ncpu = true\n[matrix]\ncpu = false\n", "cuwheel.toml");
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().message().substr(0, 15), "cuwheel.toml:3:") << h.error().message();
  EXPECT_TRUE(parse_policy("[matrix]\ncpu = true\npython = [\"3.12\"]\n", "cuwheel.toml"));
}

TEST(MatrixFields, Renames) {
  FieldNames f;
  ASSERT_TRUE(f.set("desired_cuda=cuda_version"));
  EXPECT_EQ(f.desired_cuda, "cuda_version");
  EXPECT_FALSE(f.set("desired_cuda"));
  EXPECT_FALSE(f.set("=x"));
  auto st = f.set("desired_cud=x");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("unknown field \"desired_cud\""), std::string::npos);
  Policy p = basic();
  p.fields.desired_cuda = "cuda_version";
  auto rows = full_rows();
  for (auto& r : rows) {
    r["cuda_version"] = r["desired_cuda"];
    r.erase("desired_cuda");
  }
  EXPECT_TRUE(filter(rows, p, {}).findings.empty());
  EXPECT_FALSE(filter(rows, basic(), {}).findings.empty());
}

TEST(MatrixPolicy, ParsesTheDocumentedSchema) {
  auto p = parse_policy(R"(
[matrix]
python = ["3.10", "3.11"]
exclude-python = [{ python = "3.14", reason = "broken" }]
cpu = false
representative = { arch = "x86_64", train = "cu130" }
expect = [{ arch = "x86_64", train = "cu130", python = "3.10" }]
[matrix.trains]
x86_64 = ["cu126", "cu130"]
[matrix.fields]
python_version = "python"
[matrix.generator]
with-cuda = "enable"
[[matrix.empty]]
arch = "jetson"
reason = "no device code"
match = { container_image = "*jetpack*" }
)", "cuwheel.toml");
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->python.size(), 2u);
  EXPECT_EQ(p->trains[0].second[1], "cu130");
  EXPECT_EQ(p->fields.python_version, "python");
  EXPECT_EQ(p->empty[0].match.at("container_image"), "*jetpack*");
  EXPECT_EQ(p->representative->train, "cu130");
  EXPECT_EQ(p->expect->size(), 1u);
  EXPECT_EQ(p->generator[0].second, "enable");
  // pyproject.toml form.
  auto q = parse_policy("[tool.cuwheel.matrix]\npython = [\"3.12\"]\ntrains = { x86_64 = [\"cu130\"] }\n", "pyproject.toml");
  ASSERT_TRUE(q) << q.error().message();
  EXPECT_EQ(q->python[0], "3.12");
}

// An expected combination the policy itself does not build is a policy
// error naming its line: missing-combination would otherwise fire for a row
// the policy drops anyway (or be checked against nothing).
TEST(MatrixPolicy, ExpectMustBeBuiltByThePolicy) {
  auto parse = [](const std::string& expect) {
    return parse_policy(
        "[matrix]\npython = [\"3.11\", \"3.12\"]\n"
        "exclude-python = [{ python = \"3.14\", reason = \"broken\" }]\n"
        "trains = { x86_64 = [\"cu126\", \"cu130\"], aarch64 = [\"cu130\"] }\n"
        "expect = [\n  { arch = \"x86_64\", train = \"cu130\", python = \"3.12\" },\n  " +
            expect + ",\n]\n[[matrix.empty]]\narch = \"jetson\"\nreason = \"no device code\"\n",
        "cuwheel.toml");
  };
  auto msg = [&](const std::string& e) {
    auto p = parse(e);
    return p ? std::string("(ok)") : p.error().message();
  };
  EXPECT_EQ(msg("{ arch = \"aarch64\", train = \"cu130\", python = \"3.11\" }"), "(ok)");
  EXPECT_EQ(msg("{ arch = \"sparc\", train = \"cu130\", python = \"3.12\" }"),
            "cuwheel.toml:7: expect sparc cu130 python 3.12: the policy builds no trains for sparc "
            "(trains are given for aarch64, x86_64)");
  EXPECT_EQ(msg("{ arch = \"x86_64\", train = \"cu999\", python = \"3.12\" }"),
            "cuwheel.toml:7: expect x86_64 cu999 python 3.12: train cu999 is not built for x86_64 "
            "(trains.x86_64 = cu126, cu130)");
  EXPECT_EQ(msg("{ arch = \"x86_64\", train = \"cu130\", python = \"2.7\" }"),
            "cuwheel.toml:7: expect x86_64 cu130 python 2.7: python 2.7 is not in the allowlist "
            "(python = 3.11, 3.12)");
  EXPECT_EQ(msg("{ arch = \"x86_64\", train = \"cu130\", python = \"3.14\" }"),
            "cuwheel.toml:7: expect x86_64 cu130 python 3.14: python 3.14 is excluded "
            "(exclude-python \"3.14\": broken)");
  EXPECT_EQ(msg("{ arch = \"jetson\", train = \"cu130\", python = \"3.12\" }"),
            "cuwheel.toml:7: expect jetson cu130 python 3.12: jetson is declared empty ([[matrix.empty]]): "
            "nothing is built for it");
}

TEST(MatrixPolicy, ErrorsAreLineNumbered) {
  auto msg = [](const char* text) {
    auto p = parse_policy(text, "cuwheel.toml");
    return p ? std::string("(ok)") : p.error().message();
  };
  EXPECT_EQ(msg("[matrix]\npyhton = [\"3.12\"]\n"), "cuwheel.toml:2: unknown key \"pyhton\" in [matrix] (did you mean \"python\"?)");
  EXPECT_EQ(msg("[matrix]\ntrains = { x86_64 = [\"cpu\"] }\n"),
            "cuwheel.toml:2: train \"cpu\" is not a CUDA train such as cu126 or cu130");
  EXPECT_NE(msg("[matrix]\ntrains = { jetson = [] }\n").find("[[matrix.empty]]"), std::string::npos);
  EXPECT_NE(msg("[matrix]\npython = [\"3\"]\n").find("cuwheel.toml:2: python \"3\""), std::string::npos);
  EXPECT_NE(msg("[matrix]\n[[matrix.empty]]\narch = \"jetson\"\n").find("needs reason"), std::string::npos);
  EXPECT_NE(msg("[matrix]\ntrains = { jetson = [\"cu126\"] }\n[[matrix.empty]]\narch = \"jetson\"\nreason = \"x\"\n")
                .find("choose one"),
            std::string::npos);
  EXPECT_NE(msg("[matrix]\nfields = { desired = \"x\" }\n").find("unknown field"), std::string::npos);
  EXPECT_NE(msg("[matrix\n").find("cuwheel.toml:1:"), std::string::npos);
  EXPECT_EQ(msg("[check]\n"), "cuwheel.toml: no [matrix] table");
  // Headers toml++ would assert on (fuzz finding) are refused first.
  for (const char* bad : {"[{\"a\":1}]", "[matrix]\ncpu = true\n[ {\n", "[[=\n", "[#\n", "[matrix]\n  [.x]\n"})
    EXPECT_NE(msg(bad).find("a table header must start with a key"), std::string::npos) << bad;
  EXPECT_EQ(msg("[matrix]\ncpu = true\n\n[#\n").substr(0, 15), "cuwheel.toml:4:");
  EXPECT_EQ(msg("[matrix]\ncpu.c\xef\xbb\xbc = 1\n"), "cuwheel.toml:2: a non-ASCII character outside a string or comment");
  EXPECT_EQ(msg("[tool.cuwheel\xd1\x92matrix]\n"), "cuwheel.toml:1: a non-ASCII character outside a string or comment");
  EXPECT_EQ(msg("[\"m\xd1\x92\"] # \xd1\x92\n[matrix]\ncpu = true\n"), "(ok)");
  for (const char* bad : {"[matrix]\npython = [}\n", "[matrix]\npython = [\"3.12\",}\n", "[matrix]\ncpu = \n", "[matrix]\ncpu = ]\n"})
    EXPECT_NE(msg(bad).find("cuwheel.toml:2: a value is missing"), std::string::npos) << bad;
  EXPECT_EQ(msg("[matrix]\npython = [ ]\ncpu = true\n"), "(ok)");
  EXPECT_EQ(msg("# Jetson \xe2\x80\x94 later\n[matrix]\nexclude-python = [{ python = \"3.14\", reason = \"\xe2\x80\x94\" }]\n"),
            "(ok)");
  // ...but a '[' inside a multi-line array or string is not a header.
  EXPECT_EQ(msg("[matrix]\npython = [\n  \"3.12\",\n]\ntrains = { x86_64 = [\"cu130\"] }\n"), "(ok)");
  EXPECT_EQ(msg("[matrix]\nexclude-python = [\n{ python = \"3.9\", reason = \"\"\"\n[{ old\"\"\" },\n]\n"), "(ok)");
  EXPECT_NE(msg("[matrix]\ncpu = \"yes\"\n").find("cpu must be true or false"), std::string::npos);
}

// matrix --toolkit reads a toolkit with identity's readers: what identity
// calls malformed, matrix refuses too, with the same message (CUDA_VERSION 0
// is not "CUDA 0.0").
TEST(MatrixToolkit, SameReadersAsIdentity) {
  cuwheel::test::TempDir tmp;
  fs::path dir = tmp.path();
  ASSERT_FALSE(dir.empty());
  const std::string h = (dir / "cuda.h").string();
  for (const char* text : {"#define CUDA_VERSION 0\n", "#define CUDA_VERSION 12085\n", "#define CUDA_VERSION x\n",
                           "#define CUDA_VERSION 999\n", "#define CUDA_VERSION_MAJOR 12\n"}) {
    std::ofstream(h, std::ios::trunc) << text;
    auto m = detect_toolkit(h);
    auto i = cuwheel::identity::read_version_header(h, "CUDA_VERSION");
    EXPECT_FALSE(m) << text;
    EXPECT_FALSE(i) << text;
    if (!m && !i) {
      EXPECT_EQ(m.error().message(), i.error().message());
    }
  }
  std::ofstream(h, std::ios::trunc) << "#ifndef X\n#define CUDA_VERSION 12080\n#endif\n";
  auto ok = detect_toolkit(h);
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(ok->major, 12);
  EXPECT_EQ(ok->minor, 8);
  fs::remove_all(dir);
}

TEST(MatrixToolkit, DetectNamesThePath) {
  cuwheel::test::TempDir tmp;
  fs::path dir = tmp.path();
  ASSERT_FALSE(dir.empty());
  fs::create_directories(dir / "include");
  std::ofstream(dir / "include" / "cuda.h") << "#define CUDA_VERSION 13020\n";
  auto t = detect_toolkit(dir.string());
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(t->major, 13);
  EXPECT_EQ(t->minor, 2);
  EXPECT_EQ(t->source, (dir / "include" / "cuda.h").string());
  // The header file itself.
  auto f = detect_toolkit((dir / "include" / "cuda.h").string());
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_EQ(f->major, 13);
  auto missing = detect_toolkit((dir / "nope").string());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(), (dir / "nope").string() + ": no such file or folder");

  // A malformed CUDA_VERSION is an error naming the header, not "CUDA 0.0".
  std::ofstream(dir / "include" / "cuda.h", std::ios::trunc) << "#define CUDA_VERSION 0\n";
  auto zero = detect_toolkit(dir.string());
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message(),
            (dir / "include" / "cuda.h").string() + ": #define CUDA_VERSION 0: not of the form major*1000 + minor*10");

  // A folder without cuda.h: its bin/nvcc is run (a script standing in).
  fs::remove(dir / "include" / "cuda.h");
  fs::create_directories(dir / "bin");
  std::ofstream(dir / "bin" / "nvcc") << "#!/bin/sh\necho 'Cuda compilation tools, release 12.6, V12.6.85'\n";
  fs::permissions(dir / "bin" / "nvcc", fs::perms::owner_all);
  auto v = detect_toolkit(dir.string());
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(v->major, 12);
  EXPECT_EQ(v->minor, 6);
  EXPECT_EQ(v->source, (dir / "bin" / "nvcc").string() + " --version");
  // An nvcc that hangs is killed after the timeout, and named.
  std::ofstream(dir / "bin" / "nvcc", std::ios::trunc) << "#!/bin/sh\nexec sleep 30\n";
  auto slow = detect_toolkit((dir / "bin" / "nvcc").string(), 200);
  ASSERT_FALSE(slow);
  EXPECT_EQ(slow.error().message(), (dir / "bin" / "nvcc").string() + " --version: no answer after 200 ms");
  // An nvcc whose banner has no release line.
  std::ofstream(dir / "bin" / "nvcc", std::ios::trunc) << "#!/bin/sh\necho 'nvcc: version unknown'\n";
  auto nobanner = detect_toolkit(dir.string());
  ASSERT_FALSE(nobanner);
  EXPECT_EQ(nobanner.error().message().find((dir / "bin" / "nvcc").string() + " --version: no 'release M.N'"), 0u)
      << nobanner.error().message();
  fs::remove_all(dir);
}

TEST(MatrixPython, Ordering) {
  EXPECT_TRUE(python_less("3.9", "3.10"));
  EXPECT_TRUE(python_less("3.13", "3.13t"));
  EXPECT_FALSE(python_less("3.12", "3.12"));
}

TEST(MatrixParse, RefusesDeepNestingBeforeParsing) {
  // 200 nested objects in a list: level 129 opens at byte 1 + 5 * 127.
  std::string deep = "[";
  for (int i = 0; i < 200; ++i) deep += "{\"a\":";
  deep += "1";
  for (int i = 0; i < 200; ++i) deep += "}";
  deep += "]";
  auto r = parse_rows(deep, "d.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "d.json: nested deeper than 128 levels at byte 636 (a generator row is a flat object)");
  // 80,000 levels (which used to overflow the stack) fail the same way.
  std::string huge(80000, '[');
  auto h = parse_rows(huge + std::string(80000, ']'), "h.json");
  ASSERT_FALSE(h);
  EXPECT_NE(h.error().message().find("at byte 128"), std::string::npos) << h.error().message();
}

TEST(MatrixParse, NestingAtTheCapAndBracketsInStringsPass) {
  // Exactly kMaxDepth levels: a list of one row whose value nests 126 lists.
  std::string v = std::string(kMaxDepth - 2, '[') + std::string(kMaxDepth - 2, ']');
  auto r = parse_rows("[{\"desired_cuda\":\"cu126\",\"x\":" + v + "}]", "m.json");
  ASSERT_TRUE(r) << r.error().message();
  // Brackets and escaped quotes inside strings are not nesting.
  std::string s = "[{\"x\":\"\\\"" + std::string(300, '[') + "\"}]";
  auto b = parse_rows(s, "m.json");
  ASSERT_TRUE(b) << b.error().message();
  EXPECT_EQ(b->size(), 1u);
}
