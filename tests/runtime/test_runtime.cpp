// uattn::Runtime where no GPU is visible (the dev and CI machines): bundle
// discovery and parsing, create / create_from_buffer, and run() returning
// kNoDevice instead of aborting. On a machine with a device the tests that
// would launch are skipped (their arguments point at host memory).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
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

// A compressed bundle header ("CCOB", version 2 or 3) declaring `total` file
// bytes and `raw` uncompressed bytes, followed by `payload` bytes of data.
std::vector<uint8_t> ccob(int version, uint64_t total, uint64_t raw, size_t payload, int method = 1) {
  std::vector<uint8_t> b = {'C', 'C', 'O', 'B', (uint8_t)version, 0, (uint8_t)method, 0};
  const int field = version == 3 ? 8 : 4;
  auto put = [&](uint64_t v, int n) { for (int i = 0; i < n; ++i) b.push_back((uint8_t)(v >> (8 * i))); };
  if (version >= 2) put(total, field);
  put(raw, field);
  put(0x1234, 8);  // hash
  b.resize(b.size() + payload, 0x5a);
  return b;
}

TEST(Bundle, ParseCompressed) {
  for (int v : {2, 3}) {
    BundleInfo info;
    const size_t header = v == 2 ? 24 : 32;
    const Status s = parse_bundle(ccob(v, header + 10, 4096, 10), &info);
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_TRUE(info.compressed);
    EXPECT_EQ(info.compressed_version, v);
    EXPECT_EQ(info.uncompressed_size, 4096u);
    EXPECT_TRUE(info.archs.empty());
  }
}

// Hostile-input class 5: a compressed bundle is checked beyond its magic.
TEST(Bundle, CompressedHeaderIsChecked) {
  struct Case { std::vector<uint8_t> bytes; const char* want; };
  std::vector<uint8_t> truncated = ccob(3, 32 + 100, 4096, 100);
  truncated.resize(90);  // a truncated copy of the file
  const Case cases[] = {
      {truncated,
       "(90 bytes): the header declares a file size of 132 bytes; expected the 90 bytes read (a truncated copy?)"},
      {ccob(2, 24 + 10, 4096, 12), "declares a file size of 34 bytes; expected the 36 bytes read"},
      {ccob(9, 0, 0, 40), "version = 9; expected 1, 2 or 3"},
      {ccob(3, 32 + 5, 4096, 5, 7), "method = 7; expected 0 (zlib) or 1 (zstd)"},
      {ccob(3, 32 + 5, 0, 5), "declares an uncompressed size of 0 bytes; expected 1 to 4294967296"},
      {ccob(3, 32 + 5, kMaxUncompressedBundleBytes + 1, 5), "uncompressed size of 4294967297 bytes"},
      {ccob(3, 32, 4096, 0), "no compressed data follows the header"},
      {{'C', 'C', 'O', 'B', 3, 0, 1, 0, 0, 0, 0, 0}, "the version 3 header is truncated; expected 32 bytes"},
      {{'C', 'C', 'O', 'B', 3}, "the header is truncated; expected at least 8 bytes"},
  };
  for (const Case& c : cases) {
    BundleInfo info;
    const Status s = parse_bundle(c.bytes, &info);
    EXPECT_EQ(s.code, kBundle) << c.want;
    EXPECT_TRUE(has(s.message, "uattn: corrupt compressed offload bundle")) << s.message;
    EXPECT_TRUE(has(s.message, c.want)) << s.message;
  }
}

// A minimal AMDGPU ELF64 image: the header, one program header, one section.
std::vector<uint8_t> tiny_elf() {
  std::vector<uint8_t> e(64 + 56 + 64 + 16, 0);
  auto put = [&](size_t at, uint64_t v, int n) { for (int i = 0; i < n; ++i) e[at + i] = (uint8_t)(v >> (8 * i)); };
  e[0] = 0x7f; e[1] = 'E'; e[2] = 'L'; e[3] = 'F'; e[4] = 2; e[5] = 1; e[6] = 1;
  put(18, 224, 2);             // e_machine EM_AMDGPU
  put(32, 64, 8);              // e_phoff
  put(40, 64 + 56, 8);         // e_shoff
  put(54, 56, 2); put(56, 1, 2);  // e_phentsize, e_phnum
  put(58, 64, 2); put(60, 1, 2);  // e_shentsize, e_shnum
  put(64 + 8, 184, 8); put(64 + 32, 16, 8);             // p_offset, p_filesz
  put(120 + 4, 1, 4); put(120 + 24, 184, 8); put(120 + 32, 16, 8);  // sh_type PROGBITS, sh_offset, sh_size
  return e;
}

// Hostile-input class 5: each code object's ELF extents are checked before HIP reads it.
TEST(Bundle, CodeObjectExtentsAreChecked) {
  std::vector<uint8_t> e = tiny_elf();
  Status s = check_code_object(e.data(), e.size(), "entry 'x'");
  EXPECT_TRUE(s.ok()) << s.message;
  struct Case { size_t at; uint64_t v; int n; const char* want; };
  const Case cases[] = {
      {0, 0, 1, "no ELF magic"},
      {4, 1, 1, "expected a 64-bit little-endian ELF"},
      {18, 62, 2, "e_machine = 62; expected 224 (EM_AMDGPU)"},
      {40, 1000, 8, "section headers (e_shoff 1000, 1 x 64 bytes) extend past the image"},
      {56, 5000, 2, "program headers (e_phoff 64, 5000 x 56 bytes) extend past the image"},
      {64 + 32, 17, 8, "program header 0 (offset 184, 17 bytes) extends past the image"},
      {120 + 24, ~0ull, 8, "section 0 (offset 18446744073709551615, 16 bytes) extends past the image"},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> b = tiny_elf();
    for (int i = 0; i < c.n; ++i) b[c.at + i] = (uint8_t)(c.v >> (8 * i));
    s = check_code_object(b.data(), b.size(), "entry 'x'");
    EXPECT_EQ(s.code, kBundle) << c.want;
    EXPECT_TRUE(has(s.message, "uattn: corrupt code object in entry 'x' (200 bytes): ")) << s.message;
    EXPECT_TRUE(has(s.message, c.want)) << s.message;
  }
  e.resize(63);
  EXPECT_TRUE(has(check_code_object(e.data(), e.size(), "y").message, "shorter than an ELF64 header"));
  std::vector<uint8_t> nobits = tiny_elf();  // SHT_NOBITS occupies no file bytes
  nobits[120 + 4] = 8;
  nobits[120 + 32 + 3] = 0x10;
  EXPECT_TRUE(check_code_object(nobits.data(), nobits.size(), "z").ok());
}

// Hostile-input class 5: entries differing only in target features are told apart by
// the device's target id.
TEST(Bundle, CodeObjectPickedByTargetFeatures) {
  BundleInfo info;
  ASSERT_TRUE(parse_bundle(fake_bundle({"gfx950:xnack+", "gfx950:xnack-", "gfx1030"}), &info).ok());
  std::string why;
  const BundleEntry* e = pick_code_object(info, "gfx950:sramecc+:xnack-", &why);
  ASSERT_NE(e, nullptr) << why;
  EXPECT_EQ(e->target, "hipv4-amdgcn-amd-amdhsa--gfx950:xnack-");
  e = pick_code_object(info, "gfx950:sramecc+:xnack+", &why);
  ASSERT_NE(e, nullptr) << why;
  EXPECT_EQ(e->target, "hipv4-amdgcn-amd-amdhsa--gfx950:xnack+");
  e = pick_code_object(info, "gfx1030", &why);
  ASSERT_NE(e, nullptr) << why;
  EXPECT_EQ(e->target, "hipv4-amdgcn-amd-amdhsa--gfx1030");
  // A feature-free entry serves any device of its processor; a matching specific one is preferred.
  ASSERT_TRUE(parse_bundle(fake_bundle({"gfx950", "gfx950:sramecc+"}), &info).ok());
  EXPECT_EQ(pick_code_object(info, "gfx950:sramecc+:xnack-", &why)->target, "hipv4-amdgcn-amd-amdhsa--gfx950:sramecc+");
  EXPECT_EQ(pick_code_object(info, "gfx950:sramecc-:xnack-", &why)->target, "hipv4-amdgcn-amd-amdhsa--gfx950");
  // None compatible: say which entries there are.
  ASSERT_TRUE(parse_bundle(fake_bundle({"gfx950:xnack+", "gfx950:sramecc-:xnack-"}), &info).ok());
  EXPECT_EQ(pick_code_object(info, "gfx950:sramecc+:xnack-", &why), nullptr);
  EXPECT_EQ(why, "no code object compatible with gfx950:sramecc+:xnack- (the bundle has gfx950:xnack+, "
                 "gfx950:sramecc-:xnack-; each target feature an entry names must be set the same way on the device)");
  EXPECT_EQ(pick_code_object(info, "gfx942", &why), nullptr);
  EXPECT_EQ(why, "the bundle has no code object for gfx942");
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

TEST(Bundle, SearchLocationsListFoldersAndFilesFromTheEnvVar) {
  const std::string a = ::testing::TempDir() + "uattn_loc_a", b = ::testing::TempDir() + "uattn_loc_b";
  ASSERT_EQ(system(("mkdir -p '" + a + "' '" + b + "'").c_str()), 0);
  ScopedEnv env(kLibraryPathEnv, (a + "/::" + b + ":/x/k.hipfb").c_str());  // an empty entry is skipped
  const std::vector<BundleLocation> l = bundle_search_locations();
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].path, a);
  EXPECT_TRUE(l[0].folder);
  EXPECT_EQ(l[1].path, b);
  EXPECT_FALSE(l[2].folder);
  EXPECT_EQ(bundle_search_paths_for_arch("gfx950"),
            (std::vector<std::string>{a + "/uattn_kernels.hipfb", a + "/uattn_kernels-gfx950.hipfb",
                                      b + "/uattn_kernels.hipfb", b + "/uattn_kernels-gfx950.hipfb", "/x/k.hipfb"}));
  EXPECT_EQ(bundle_search_paths(),
            (std::vector<std::string>{a + "/uattn_kernels.hipfb", b + "/uattn_kernels.hipfb", "/x/k.hipfb"}));
}

TEST(Bundle, DefaultSearchIncludesThePackageFolder) {
  ScopedEnv env(kLibraryPathEnv, nullptr);
  ASSERT_FALSE(package_bundle_dir().empty());
  EXPECT_EQ(package_bundle_dir().substr(package_bundle_dir().size() - 6), "/uattn") << package_bundle_dir();
  bool found = false;
  for (const BundleLocation& l : bundle_search_locations()) found = found || (l.folder && l.path == package_bundle_dir());
  EXPECT_TRUE(found);
  EXPECT_EQ(arch_bundle_file_name("gfx1030"), "uattn_kernels-gfx1030.hipfb");
  EXPECT_EQ(arch_package_name("gfx950"), "uattn-gfx950");
}

TEST(Create, NothingFoundNamesThePackages) {
  ScopedEnv env(kLibraryPathEnv, "/nonexistent-folder-a");
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create(&rt);
  EXPECT_EQ(s.code, kBundle);
  for (const InstanceRow& r : all_rows())
    EXPECT_TRUE(has(s.message, std::string("uattn-") + to_string(r.arch) + " (" + to_string(r.arch) + ")")) << s.message;
}

TEST(Create, PerArchitectureBundleInAFolder) {
  const std::string dir = ::testing::TempDir() + "uattn_rt_perarch";
  ASSERT_EQ(system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()), 0);
  {
    const std::vector<uint8_t> b = fake_bundle({"gfx1030"});
    std::ofstream f(dir + "/uattn_kernels-gfx1030.hipfb", std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), (std::streamsize)b.size());
  }
  ScopedEnv env(kLibraryPathEnv, dir.c_str());
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create(&rt);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(rt->bundle_path(), dir + "/uattn_kernels-gfx1030.hipfb");
}

TEST(Stamp, ParseAndPrint) {
  BuildStamp st;
  std::string why;
  ASSERT_TRUE(parse_stamp("uattn_version 1.2.3\ngenerator_version 4.5\nmatrix_hash 00ff\narchs gfx950\n", &st, &why));
  EXPECT_EQ(st.uattn_version, "1.2.3");
  EXPECT_EQ(st.generator_version, "4.5");
  EXPECT_EQ(st.matrix_hash, "00ff");
  EXPECT_EQ(to_string(st), "uattn 1.2.3, uattn_gen 4.5, matrix 00ff");
  EXPECT_FALSE(parse_stamp("uattn_version 1\nmatrix_hash 2\n", &st, &why));
  EXPECT_EQ(why, "no 'generator_version ...' line");
  BuildStamp other = st;
  other.matrix_hash = "00fe";
  EXPECT_NE(st, other);
}

TEST(Stamp, LibraryTableAndBuildFilesAgree) {
  const BuildStamp& t = table_stamp();
  EXPECT_EQ(library_stamp(), t);
  EXPECT_EQ(t.matrix_hash.size(), 16u);
  EXPECT_EQ(t.matrix_hash.find_first_not_of("0123456789abcdef"), std::string::npos) << t.matrix_hash;
  // The build's code objects and bundles carry the same stamp.
  for (const InstanceRow& r : all_rows()) {
    const std::string arch = to_string(r.arch);
    std::ifstream co(std::string(UATTN_BUILD_DIR) + "/uattn_" + arch + ".co", std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(co)), {});
    ASSERT_FALSE(bytes.empty()) << arch;
    std::string text;
    ASSERT_TRUE(read_code_object_stamp(bytes.data(), bytes.size(), &text).ok());
    BuildStamp st;
    std::string why;
    ASSERT_TRUE(parse_stamp(text, &st, &why)) << arch << ": " << why << " in '" << text << "'";
    EXPECT_EQ(st, t) << arch;
    std::ifstream side(std::string(UATTN_BUILD_DIR) + "/" + arch_bundle_file_name(arch) + ".stamp");
    const std::string side_text((std::istreambuf_iterator<char>(side)), {});
    ASSERT_TRUE(parse_stamp(side_text, &st, &why)) << arch << ": " << why;
    EXPECT_EQ(st, t) << arch;
    EXPECT_TRUE(has(side_text, "\narchs " + arch + "\n")) << side_text;
  }
  std::string text = "x";
  const std::vector<uint8_t> not_elf(64, 0);
  EXPECT_EQ(read_code_object_stamp(not_elf.data(), not_elf.size(), &text).code, kBundle);
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

// Hostile-input class 5: only regular files are read, quickly, and up to a size cap.
TEST(Create, NonRegularFilesAreRefusedWithoutReading) {
  const std::string fifo = ::testing::TempDir() + "uattn_bundle_fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::unique_ptr<Runtime> rt;
  Status s = Runtime::create(&rt, fifo);  // would block forever in a blocking open/read
  EXPECT_EQ(s.code, kBundle);
  EXPECT_TRUE(has(s.message, fifo + " (is a FIFO; expected a regular file)")) << s.message;
  std::remove(fifo.c_str());
  s = Runtime::create(&rt, "/dev/zero");  // would read until memory runs out
  EXPECT_EQ(s.code, kBundle);
  EXPECT_TRUE(has(s.message, "/dev/zero (is a character device; expected a regular file)")) << s.message;
}

TEST(Create, OversizedFileIsRefused) {
  const std::string path = ::testing::TempDir() + "uattn_huge.hipfb";
  { std::ofstream f(path); }
  ASSERT_EQ(truncate(path.c_str(), (off_t)kMaxBundleBytes + 1), 0);  // sparse: no disk used
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create(&rt, path);
  std::remove(path.c_str());
  EXPECT_EQ(s.code, kBundle);
  EXPECT_TRUE(has(s.message, path + " (is 1073741825 bytes; expected at most 1073741824 (kMaxBundleBytes))"))
      << s.message;
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

// Hostile-input class 4: options out of range are refused by every C++ entry point
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

// Hostile-input class 7: null out-parameters are refused as the C API refuses them.
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

// Hostile-input class 1 (a): host copies of the index arrays are checked by run()
// before a device is probed; class 3: layouts whose writes alias are refused.
TEST(Run, HostCopiesOfTheIndexArraysAreChecked) {
  std::unique_ptr<Runtime> rt = memory_runtime();
  ArgsFixture f;
  f.args.cu_seqlens_q_host = f.cu_seqlens_q.data();
  f.args.seqused_k_host = f.seqused_k.data();
  f.args.block_table_host = f.block_table.data();
  f.block_table[8 + 1] = 10;  // outside [0, num_blocks = 10)
  Status s = rt->run(f.args, nullptr, 0, nullptr);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_EQ(s.message, f.check_indices().message);
  size_t bytes = 3;
  EXPECT_EQ(rt->workspace_size(f.args, &bytes).code, kInvalidArgument);
  Selection sel;
  EXPECT_EQ(rt->plan(f.args, &sel).code, kInvalidArgument);
  f.block_table[8 + 1] = 9;
  f.seqused_k[1] = 4;  // < q_len 5
  s = rt->run(f.args, nullptr, 0, nullptr);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_TRUE(has(s.message, "seqused_k[1] = 4 < q_len 5")) << s.message;
  f.args.block_table_host = nullptr;  // two of three
  s = rt->run(f.args, nullptr, 0, nullptr);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_EQ(s.message, "uattn: host copies of the index arrays: cu_seqlens_q_host set, seqused_k_host set, "
                       "block_table_host null; expected all three or none");
}

TEST(Run, MisalignedIndexStatusIsRefused) {
  std::unique_ptr<Runtime> rt = memory_runtime();
  ArgsFixture f;
  alignas(8) uint32_t words[8] = {};
  f.args.index_status = reinterpret_cast<uint32_t*>(reinterpret_cast<char*>(words) + 2);
  const Status s = rt->run(f.args, nullptr, 0, nullptr);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_TRUE(has(s.message, "index_status is not 4-byte aligned")) << s.message;
}

TEST(Run, AliasingLayoutsAreRefusedBeforeTheDevice) {
  std::unique_ptr<Runtime> rt = memory_runtime();
  ArgsFixture f;
  f.args.out.data = f.args.q.data;
  Status s = rt->run(f.args, nullptr, 0, nullptr);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_TRUE(has(s.message, "overlaps q")) << s.message;
  ArgsFixture g;
  g.args.out.stride[1] = 64;
  s = rt->run(g.args, nullptr, 0, nullptr);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_TRUE(has(s.message, "out.stride[1] (num_q_heads) = 64")) << s.message;
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
