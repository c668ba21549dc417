// uattn::Runtime where no GPU is visible (the dev and CI machines): bundle
// discovery and parsing, create / create_from_buffer, and run() returning
// kNoDevice instead of aborting. On a machine with a device the tests that
// would launch are skipped (their arguments point at host memory).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "args_fixture.hpp"
#include "bundle_fixture.hpp"
#include "uattn/runtime.hpp"

namespace uattn {
namespace {

using testing::ArgsFixture;
using testing::fake_bundle;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Sets an environment variable for the scope of one test.
struct ScopedEnv {
  std::string name, old;
  bool had;
  ScopedEnv(const char* n, const char* value) : name(n) {
    const char* o = getenv(n);
    had = o != nullptr;
    if (had) old = o;
    if (value) setenv(n, value, 1); else unsetenv(n);
  }
  ~ScopedEnv() {
    if (had) setenv(name.c_str(), old.c_str(), 1); else unsetenv(name.c_str());
  }
};

std::unique_ptr<Runtime> memory_runtime() {
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create_from_buffer(&rt, fake_bundle({"gfx950", "gfx1030"}));
  EXPECT_TRUE(s.ok()) << s.message;
  return rt;
}

TEST(Bundle, ParseUncompressed) {
  BundleInfo info;
  const std::vector<uint8_t> b = fake_bundle({"gfx950", "gfx1030"});
  ASSERT_TRUE(parse_bundle(b, &info).ok());
  EXPECT_FALSE(info.compressed);
  ASSERT_EQ(info.entries.size(), 3u);
  EXPECT_EQ(info.entries[0].target, "host-x86_64-unknown-linux-gnu");
  EXPECT_EQ(info.entries[0].arch, "");
  EXPECT_EQ(info.entries[1].target, "hipv4-amdgcn-amd-amdhsa--gfx950");
  EXPECT_EQ(info.archs, (std::vector<std::string>{"gfx950", "gfx1030"}));
  // The entry's bytes are where the table says.
  const BundleEntry& e = info.entries[2];
  EXPECT_EQ(std::string(b.begin() + e.offset, b.begin() + e.offset + e.size), "code object for gfx1030");
}

TEST(Bundle, TargetFeaturesAreStripped) {
  BundleInfo info;
  ASSERT_TRUE(parse_bundle(fake_bundle({"gfx950:sramecc+:xnack-"}), &info).ok());
  EXPECT_EQ(info.archs, (std::vector<std::string>{"gfx950"}));
}

TEST(Bundle, ParseCompressed) {
  BundleInfo info;
  const std::vector<uint8_t> b = {'C', 'C', 'O', 'B', 3, 0, 1, 0, 0, 0, 0, 0};
  ASSERT_TRUE(parse_bundle(b, &info).ok());
  EXPECT_TRUE(info.compressed);
  EXPECT_TRUE(info.archs.empty());
}

TEST(Bundle, RejectsOtherBytes) {
  BundleInfo info;
  const Status s = parse_bundle({0x7f, 'E', 'L', 'F', 2, 1, 1, 0}, &info);
  EXPECT_EQ(s.code, kBundle);
  EXPECT_TRUE(has(s.message, "not a clang offload bundle")) << s.message;
  EXPECT_TRUE(has(s.message, "7f 45 4c 46")) << s.message;
  EXPECT_EQ(parse_bundle({}, &info).code, kBundle);
}

TEST(Bundle, RejectsTruncated) {
  std::vector<uint8_t> b = fake_bundle({"gfx950"});
  b.resize(b.size() - 10);  // the last entry's bytes now lie outside the file
  BundleInfo info;
  const Status s = parse_bundle(b, &info);
  EXPECT_EQ(s.code, kBundle);
  EXPECT_TRUE(has(s.message, "corrupt offload bundle")) << s.message;
}

TEST(Bundle, SearchPaths) {
  ScopedEnv env(kLibraryPathEnv, nullptr);
  const std::vector<std::string> paths = bundle_search_paths();
  ASSERT_GE(paths.size(), 2u);  // next to libuattn (two forms), next to the executable, build tree
  for (const std::string& p : paths) EXPECT_TRUE(has(p, "uattn_kernels.hipfb")) << p;
  EXPECT_TRUE(has(paths[0], "/uattn/uattn_kernels.hipfb")) << paths[0];
  EXPECT_EQ(bundle_search_paths("/x/y.hipfb"), std::vector<std::string>{"/x/y.hipfb"});
}

TEST(Bundle, EnvVarFolderOrFile) {
  {
    ScopedEnv env(kLibraryPathEnv, "/opt/somewhere/k.hipfb");
    EXPECT_EQ(bundle_search_paths(), std::vector<std::string>{"/opt/somewhere/k.hipfb"});
  }
  {
    ScopedEnv env(kLibraryPathEnv, "/");
    EXPECT_EQ(bundle_search_paths(), std::vector<std::string>{"/uattn_kernels.hipfb"});
  }
}

TEST(Create, MissingExplicitPathNamesIt) {
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create(&rt, "/nonexistent/dir/uattn_kernels.hipfb");
  EXPECT_EQ(s.code, kBundle);
  EXPECT_FALSE(rt);
  EXPECT_TRUE(has(s.message, "/nonexistent/dir/uattn_kernels.hipfb (No such file or directory)")) << s.message;
  EXPECT_TRUE(has(s.message, "UATTN_LIBRARY_PATH")) << s.message;
}

TEST(Create, MissingEnvPathNamesEnvVar) {
  ScopedEnv env(kLibraryPathEnv, "/nonexistent/from-env.hipfb");
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create(&rt);
  EXPECT_EQ(s.code, kBundle);
  EXPECT_TRUE(has(s.message, "/nonexistent/from-env.hipfb (No such file or directory)")) << s.message;
  EXPECT_TRUE(has(s.message, "$UATTN_LIBRARY_PATH is set to '/nonexistent/from-env.hipfb'")) << s.message;
}

TEST(Create, DefaultSearchNamesEveryPathTried) {
  ScopedEnv env(kLibraryPathEnv, nullptr);
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create(&rt);
  if (s.ok()) GTEST_SKIP() << "a bundle was found at " << rt->bundle_path();
  EXPECT_EQ(s.code, kBundle);
  for (const std::string& p : bundle_search_paths()) EXPECT_TRUE(has(s.message, p)) << p << "\n" << s.message;
  EXPECT_TRUE(has(s.message, "$UATTN_LIBRARY_PATH is not set")) << s.message;
}

TEST(Create, FromFileViaEnvFolder) {
  const std::string dir = ::testing::TempDir() + "uattn_rt_bundle";
  std::remove((dir + "/uattn_kernels.hipfb").c_str());
  ASSERT_EQ(system(("mkdir -p '" + dir + "'").c_str()), 0);
  {
    const std::vector<uint8_t> b = fake_bundle({"gfx1030"});
    std::ofstream f(dir + "/uattn_kernels.hipfb", std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), (std::streamsize)b.size());
  }
  ScopedEnv env(kLibraryPathEnv, dir.c_str());
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create(&rt);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(rt->bundle_path(), dir + "/uattn_kernels.hipfb");
  EXPECT_EQ(rt->bundle_info().archs, std::vector<std::string>{"gfx1030"});
}

TEST(Create, NotABundleFileNamesIt) {
  const std::string path = ::testing::TempDir() + "uattn_not_a_bundle.hipfb";
  { std::ofstream f(path); f << "hello"; }
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create(&rt, path);
  EXPECT_EQ(s.code, kBundle);
  EXPECT_TRUE(has(s.message, "not a clang offload bundle")) << s.message;
  EXPECT_TRUE(has(s.message, path)) << s.message;
}

TEST(Create, FolderIsNotAFile) {
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create(&rt, "/");
  EXPECT_EQ(s.code, kBundle);
  EXPECT_TRUE(has(s.message, "/ (is a folder)")) << s.message;
}

TEST(Create, FromBuffer) {
  std::unique_ptr<Runtime> rt = memory_runtime();
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->bundle_path(), "<memory>");
  EXPECT_EQ(rt->bundle_info().archs, (std::vector<std::string>{"gfx950", "gfx1030"}));
  std::unique_ptr<Runtime> bad;
  const Status s = Runtime::create_from_buffer(&bad, {1, 2, 3});
  EXPECT_EQ(s.code, kBundle);
  EXPECT_FALSE(bad);
}

TEST(Run, NoDeviceIsAnErrorNotAnAbort) {
  std::unique_ptr<Runtime> rt = memory_runtime();
  ArgsFixture f;
  Selection sel;
  const Status probe = rt->plan(f.args, &sel);
  if (probe.code != kNoDevice) GTEST_SKIP() << "a device is visible: " << probe.message;
  EXPECT_TRUE(has(probe.message, "uattn: no ROCm-capable device is visible (hipGetDeviceCount: ")) << probe.message;
  const Status s = rt->run(f.args, nullptr, 0, nullptr);
  EXPECT_EQ(s.code, kNoDevice);
  EXPECT_EQ(s.message, probe.message);
  size_t bytes = 123;
  EXPECT_EQ(rt->workspace_size(f.args, &bytes).code, kNoDevice);
  EXPECT_EQ(bytes, 0u);
  // A second call answers the same (nothing cached in a broken state).
  EXPECT_EQ(rt->run(f.args, nullptr, 0, nullptr).code, kNoDevice);
}

TEST(Run, InvalidArgumentsComeFirst) {  // refused on the host; no device needed
  std::unique_ptr<Runtime> rt = memory_runtime();
  ArgsFixture f;
  f.args.k_cache.shape[2] = f.args.v_cache.shape[2] = 3;
  const Status s = rt->run(f.args, nullptr, 0, nullptr);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_TRUE(has(s.message, "num_kv_heads) = 3")) << s.message;
}

// Issue 11 class 4: options out of range are refused by every C++ entry point
// before a device is probed (a ForcePath outside the enum is not "auto").
TEST(Run, OptionsOutOfRangeAreInvalidArguments) {
  std::unique_ptr<Runtime> rt = memory_runtime();
  ArgsFixture f;
  SelectOptions o;
  o.num_segments = kMaxSegments + 1;
  Status s = rt->run(f.args, nullptr, 0, nullptr, o);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_EQ(s.message, "uattn: options.num_segments = 1025; expected 0 (automatic) to 1024");
  size_t bytes = 5;
  EXPECT_EQ(rt->workspace_size(f.args, &bytes, o).code, kInvalidArgument);
  EXPECT_EQ(bytes, 0u);
  Selection sel;
  EXPECT_EQ(rt->plan(f.args, &sel, o).code, kInvalidArgument);
  o.num_segments = 0;
  o.path = (ForcePath)3;
  s = rt->run(f.args, nullptr, 0, nullptr, o);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_EQ(s.message, "uattn: options.path = 3; expected 0 (auto), 1 (2d) or 2 (3d)");
  f.args.num_seqs = 0;  // an empty call with bad options is refused too
  EXPECT_EQ(rt->run(f.args, nullptr, 0, nullptr, o).code, kInvalidArgument);
}

// Issue 11 class 7: null out-parameters are refused as the C API refuses them.
TEST(Run, NullOutParametersAreRefused) {
  Status s = Runtime::create(nullptr, "/nonexistent/a.hipfb");
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_EQ(s.message, "uattn: Runtime::create: out is null; expected a pointer to the result");
  s = Runtime::create_from_buffer(nullptr, fake_bundle({"gfx950"}));
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_EQ(s.message, "uattn: Runtime::create_from_buffer: out is null; expected a pointer to the result");
  std::unique_ptr<Runtime> rt = memory_runtime();
  ArgsFixture f;
  s = rt->plan(f.args, nullptr);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_EQ(s.message, "uattn: Runtime::plan: sel is null; expected a pointer to the result");
  s = rt->workspace_size(f.args, nullptr);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_EQ(s.message, "uattn: Runtime::workspace_size: bytes is null; expected a pointer to the result");
}

TEST(Run, EmptyCallIsANoOp) {
  std::unique_ptr<Runtime> rt = memory_runtime();
  ArgsFixture f;
  f.args.num_seqs = 0;
  EXPECT_TRUE(rt->run(f.args, nullptr, 0, nullptr).ok());
  ArgsFixture g;
  g.args.q.shape[0] = g.args.out.shape[0] = 0;
  EXPECT_TRUE(rt->run(g.args, nullptr, 0, nullptr).ok());
  size_t bytes = 7;
  EXPECT_TRUE(rt->workspace_size(g.args, &bytes).ok());
  EXPECT_EQ(bytes, 0u);
}

}  // namespace
}  // namespace uattn
