// The C API (uattn.h): status codes, thread-local last-error messages, and the
// same no-GPU behaviour as the C++ runtime.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>

#include "args_fixture.hpp"
#include "bundle_fixture.hpp"
#include "c_args.hpp"
#include "uattn/runtime.hpp"
#include "uattn/uattn.h"

namespace {

using uattn::testing::fake_bundle;

bool has(const char* s, const std::string& part) { return std::string(s).find(part) != std::string::npos; }

using uattn::testing::c_args;
using uattn::testing::c_tensor;

struct CRuntime {
  uattn_runtime_t* rt = nullptr;
  CRuntime() {
    const std::vector<uint8_t> b = fake_bundle({"gfx950", "gfx1030"});
    EXPECT_EQ(uattn_runtime_create_from_buffer(b.data(), b.size(), &rt), UATTN_OK) << uattn_last_error_message();
  }
  ~CRuntime() { uattn_runtime_destroy(rt); }
};

TEST(CApi, ArgsInitDefaults) {
  uattn_args_t a;
  std::memset(&a, 0xff, sizeof(a));
  uattn_args_init(&a);
  EXPECT_EQ(a.window_left, -1);
  EXPECT_EQ(a.k_scale, 1.0f);
  EXPECT_EQ(a.v_scale, 1.0f);
  EXPECT_EQ(a.output_scale, 1.0f);
  EXPECT_EQ(a.softcap, 0.0f);
  EXPECT_EQ(a.alibi_slopes, nullptr);
  EXPECT_EQ(a.num_seqs, 0);
  EXPECT_EQ(a.cu_seqlens_q_host, nullptr);
  EXPECT_EQ(a.seqused_k_host, nullptr);
  EXPECT_EQ(a.block_table_host, nullptr);
  EXPECT_EQ(a.index_status, nullptr);
}

TEST(CApi, VersionStampIsTheLibrarysStamp) {
  const uattn::BuildStamp& st = uattn::library_stamp();
  EXPECT_EQ(std::string(uattn_version_stamp()),
            "uattn " + st.uattn_version + ", uattn_gen " + st.generator_version + ", matrix " + st.matrix_hash);
  EXPECT_EQ(st, uattn::table_stamp());
}

TEST(CApi, CreateMissingPath) {
  uattn_runtime_t* rt = reinterpret_cast<uattn_runtime_t*>(0x1);
  EXPECT_EQ(uattn_runtime_create("/nonexistent/uattn_kernels.hipfb", &rt), UATTN_ERR_BUNDLE);
  EXPECT_EQ(rt, nullptr);
  EXPECT_TRUE(has(uattn_last_error_message(), "/nonexistent/uattn_kernels.hipfb (No such file or directory)"))
      << uattn_last_error_message();
  EXPECT_TRUE(has(uattn_last_error_message(), "UATTN_LIBRARY_PATH"));
}

TEST(CApi, NullArguments) {
  EXPECT_EQ(uattn_runtime_create(nullptr, nullptr), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(has(uattn_last_error_message(), "out is null"));
  EXPECT_EQ(uattn_run(nullptr, nullptr, nullptr, 0, nullptr, nullptr), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(has(uattn_last_error_message(), "uattn_run: rt is null"));
  uattn_runtime_destroy(nullptr);  // a no-op
}

TEST(CApi, CreateFromBufferAndSuccessClearsMessage) {
  uattn_runtime_create("/nonexistent", nullptr);  // leaves an error message
  CRuntime r;
  ASSERT_NE(r.rt, nullptr);
  EXPECT_STREQ(uattn_last_error_message(), "");
  uattn_runtime_t* bad = nullptr;
  const uint8_t junk[3] = {1, 2, 3};
  EXPECT_EQ(uattn_runtime_create_from_buffer(junk, 3, &bad), UATTN_ERR_BUNDLE);
  EXPECT_EQ(bad, nullptr);
}

TEST(CApi, ValidateNamesArgument) {
  uattn::testing::ArgsFixture f;
  uattn_args_t a = c_args(f.args);
  EXPECT_EQ(uattn_validate(&a), UATTN_OK) << uattn_last_error_message();
  a.q.shape[1] = a.out.shape[1] = 12;
  a.k_cache.shape[2] = a.v_cache.shape[2] = 5;
  EXPECT_EQ(uattn_validate(&a), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(uattn_last_error_message(),
               "uattn: q.shape[1] (num_q_heads) = 12 is not a multiple of k_cache.shape[2] (num_kv_heads) = 5");
}

// Hostile-input class 1 (a): the C API checks host copies of the index arrays.
TEST(CApi, ValidateIndicesFromHostCopies) {
  uattn::testing::ArgsFixture f;
  uattn_args_t a = c_args(f.args);
  EXPECT_EQ(uattn_validate_indices(&a), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(has(uattn_last_error_message(), "cu_seqlens_q_host is null")) << uattn_last_error_message();
  a.cu_seqlens_q_host = f.cu_seqlens_q.data();
  a.seqused_k_host = f.seqused_k.data();
  a.block_table_host = f.block_table.data();
  EXPECT_EQ(uattn_validate_indices(&a), UATTN_OK) << uattn_last_error_message();
  f.cu_seqlens_q = {0, 4, 3};
  a.cu_seqlens_q_host = f.cu_seqlens_q.data();
  EXPECT_EQ(uattn_validate_indices(&a), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(uattn_last_error_message(), f.check_indices().message.c_str());
  EXPECT_TRUE(has(uattn_last_error_message(), "cu_seqlens_q[2] = 3 < cu_seqlens_q[1] = 4"));
  // uattn_run checks them before anything else that needs a device.
  CRuntime r;
  EXPECT_EQ(uattn_run(r.rt, &a, nullptr, 0, nullptr, nullptr), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(has(uattn_last_error_message(), "cu_seqlens_q[2] = 3 < cu_seqlens_q[1] = 4"));
  EXPECT_EQ(uattn_validate_indices(nullptr), UATTN_ERR_INVALID_ARGUMENT);
}

// Hostile-input class 3 through the C API.
TEST(CApi, OutAliasingQIsRefused) {
  uattn::testing::ArgsFixture f;
  uattn_args_t a = c_args(f.args);
  a.out.data = a.q.data;
  EXPECT_EQ(uattn_validate(&a), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(has(uattn_last_error_message(), "overlaps q")) << uattn_last_error_message();
  a.out = c_tensor(f.args.out);
  a.k_cache.stride[0] = -a.k_cache.stride[0];
  EXPECT_EQ(uattn_validate(&a), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(has(uattn_last_error_message(), "k_cache.stride[0] = -")) << uattn_last_error_message();
}

TEST(CApi, RunWithoutDevice) {
  CRuntime r;
  uattn::testing::ArgsFixture f;
  uattn_args_t a = c_args(f.args);
  size_t bytes = 99;
  const uattn_status_t ws = uattn_workspace_size(r.rt, &a, nullptr, &bytes);
  if (ws != UATTN_ERR_NO_DEVICE) GTEST_SKIP() << "a device is visible: " << uattn_last_error_message();
  EXPECT_EQ(bytes, 0u);
  EXPECT_EQ(uattn_run(r.rt, &a, nullptr, 0, nullptr, nullptr), UATTN_ERR_NO_DEVICE);
  EXPECT_TRUE(has(uattn_last_error_message(), "uattn: no ROCm-capable device is visible (hipGetDeviceCount: "))
      << uattn_last_error_message();
}

TEST(CApi, RunNoOpAndOptions) {
  CRuntime r;
  uattn::testing::ArgsFixture f;
  uattn_args_t a = c_args(f.args);
  a.num_seqs = 0;
  EXPECT_EQ(uattn_run(r.rt, &a, nullptr, 0, nullptr, nullptr), UATTN_OK) << uattn_last_error_message();
  uattn_options_t opt{UATTN_PATH_3D, "uattn_*", 0};
  EXPECT_EQ(uattn_run(r.rt, &a, nullptr, 0, nullptr, &opt), UATTN_OK) << uattn_last_error_message();
  opt.path = 7;
  EXPECT_EQ(uattn_run(r.rt, &a, nullptr, 0, nullptr, &opt), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(has(uattn_last_error_message(), "options.path = 7"));
}

// Hostile-input class 4: num_segments above the bound is INVALID_ARGUMENT (it was
// passed on and came back as NO_INSTANCE).
TEST(CApi, NumSegmentsAboveTheBound) {
  CRuntime r;
  uattn::testing::ArgsFixture f;
  uattn_args_t a = c_args(f.args);
  uattn_options_t opt{UATTN_PATH_3D, nullptr, 1025};
  EXPECT_EQ(uattn_run(r.rt, &a, nullptr, 0, nullptr, &opt), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(uattn_last_error_message(), "uattn: options.num_segments = 1025; expected 0 (automatic) to 1024");
  size_t bytes = 3;
  EXPECT_EQ(uattn_workspace_size(r.rt, &a, &opt, &bytes), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(bytes, 0u);
  opt.num_segments = -4;
  EXPECT_EQ(uattn_run(r.rt, &a, nullptr, 0, nullptr, &opt), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(uattn_last_error_message(), "uattn: options.num_segments = -4; expected 0 (automatic) to 1024");
}

// A segment count with path 2d is a usage error (INVALID_ARGUMENT naming the
// options), refused before a device is probed (it came back as NO_INSTANCE).
TEST(CApi, NumSegmentsWithPath2dIsAnInvalidArgument) {
  CRuntime r;
  uattn::testing::ArgsFixture f;
  uattn_args_t a = c_args(f.args);
  const uattn_options_t opt{UATTN_PATH_2D, nullptr, 3};
  const char* const want = "uattn: options.num_segments = 3 with options.path = 1 (2d): a segment count applies to "
                           "the 3D (split-KV) path only; expected num_segments 0, or path 0 (auto) or 2 (3d)";
  EXPECT_EQ(uattn_run(r.rt, &a, nullptr, 0, nullptr, &opt), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(uattn_last_error_message(), want);
  size_t bytes = 3;
  EXPECT_EQ(uattn_workspace_size(r.rt, &a, &opt, &bytes), UATTN_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(uattn_last_error_message(), want);
  EXPECT_EQ(bytes, 0u);
}

// Hostile-input class 5: a truncated copy of a compressed bundle is refused at create.
TEST(CApi, TruncatedCompressedBundleIsABundleError) {
  std::vector<uint8_t> b = {'C', 'C', 'O', 'B', 2, 0, 1, 0, 64, 0, 0, 0, 0, 16, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  b.resize(40, 0x5a);  // the header says 64 bytes
  uattn_runtime_t* rt = nullptr;
  EXPECT_EQ(uattn_runtime_create_from_buffer(b.data(), b.size(), &rt), UATTN_ERR_BUNDLE);
  EXPECT_EQ(rt, nullptr);
  EXPECT_TRUE(has(uattn_last_error_message(), "uattn: corrupt compressed offload bundle (40 bytes): the header "
                                              "declares a file size of 64 bytes; expected the 40 bytes read"))
      << uattn_last_error_message();
  b.resize(64, 0x5a);
  EXPECT_EQ(uattn_runtime_create_from_buffer(b.data(), b.size(), &rt), UATTN_OK) << uattn_last_error_message();
  uattn_runtime_destroy(rt);
}

TEST(CApi, LastErrorIsPerThread) {
  uattn_runtime_create("/nonexistent/a.hipfb", nullptr);
  uattn_runtime_t* rt = nullptr;
  EXPECT_EQ(uattn_runtime_create("/nonexistent/a.hipfb", &rt), UATTN_ERR_BUNDLE);
  std::string other = "unset";
  std::thread t([&] { other = uattn_last_error_message(); });
  t.join();
  EXPECT_EQ(other, "");
  EXPECT_TRUE(has(uattn_last_error_message(), "/nonexistent/a.hipfb"));
}

}  // namespace
