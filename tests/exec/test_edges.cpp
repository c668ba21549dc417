// Edge rules of the contract (SPEC.md s.1) through the real path on both
// architectures: caches whose element offsets exceed 2^31 (and byte offsets
// 2^32), unusual qpk (48, 71), block_size 1 and 784, num_seqs 0, fp8 output, and
// the RDNA2 seed kernel's windows 1/17/100 at block sizes 13/16/784.
#include <gtest/gtest.h>

#include <algorithm>

#include "run.hpp"

using namespace uattn;

namespace {

std::vector<Arch> archs() {
  std::vector<Arch> a;
  for (const InstanceRow& r : all_rows())
    if (std::find(a.begin(), a.end(), r.arch) == a.end()) a.push_back(r.arch);
  return a;
}

uattn::testing::ProblemSpec base() {
  uattn::testing::ProblemSpec s{};
  s.head_size = 64;
  s.block_size = 16;
  s.num_q_heads = 4;
  s.num_kv_heads = 1;
  s.seqs = {{3, 50}, {1, 37}};
  return s;
}

exec::RunResult run(const uattn::testing::ProblemSpec& s, Arch a, ForcePath path, uattn::testing::Problem** keep = nullptr) {
  static std::unique_ptr<uattn::testing::Problem> last;
  last = uattn::testing::make_problem(s, exec::guarded_allocator());
  if (keep) *keep = last.get();
  exec::RunOptions o;
  o.arch = a;
  o.select.path = path;
  return exec::run_problem(*last, o);
}

TEST(Edges, CacheOffsetsBeyond32Bits) {
  for (Arch a : archs())
    for (ForcePath p : {ForcePath::k2D, ForcePath::k3D}) {
      uattn::testing::ProblemSpec s = base();
      s.extra_blocks = (int64_t)1 << 22;   // ~4.2M blocks x 1024 elements: offsets up to 2^32 elements
      s.fill_unused_blocks = false;         // sparse: untouched pages are never committed
      s.kv_layout = 0;
      uattn::testing::Problem* prob = nullptr;
      const exec::RunResult r = run(s, a, p, &prob);
      ASSERT_TRUE(r.ok) << to_string(a) << ": " << r.error;
      // The problem really places blocks past 2^31 elements (2^32 bytes).
      int64_t max_off = 0;
      const auto* bt = static_cast<const int32_t*>(prob->block_table.ptr);
      for (int i = 0; i < 4; ++i) max_off = std::max<int64_t>(max_off, (int64_t)bt[i] * prob->params.k_stride_block);
      EXPECT_GT(max_off, (int64_t)1 << 31);
    }
}

TEST(Edges, UnusualQueryHeadsPerKvHead) {
  for (Arch a : archs())
    for (int qpk : {48, 71})
      for (ForcePath p : {ForcePath::kAuto, ForcePath::k2D, ForcePath::k3D}) {
        uattn::testing::ProblemSpec s = base();
        s.num_kv_heads = 2;
        s.num_q_heads = 2 * qpk;
        s.seqs = {{2, 40}, {0, 5}, {1, 70}};
        const exec::RunResult r = run(s, a, p);
        EXPECT_TRUE(r.ok) << to_string(a) << " qpk " << qpk << ": " << r.error;
      }
}

TEST(Edges, AnyBlockSize) {
  for (Arch a : archs())
    for (int bs : {1, 2, 13, 17, 48, 784, 1000}) {
      uattn::testing::ProblemSpec s = base();
      s.block_size = bs;
      s.seqs = {{4, 90}, {1, 1}, {0, 3}};
      const exec::RunResult r = run(s, a, ForcePath::kAuto);
      EXPECT_TRUE(r.ok) << to_string(a) << " block_size " << bs << ": " << r.error;
    }
}

// The RDNA2 seed kernel's own test points: windows 1, 17, 100 at block sizes 13,
// 16 and 784, d128, GQA 4 and 7, prefill behind a prefix and decode, both paths.
TEST(Edges, SeedWindowsAndBlockSizes) {
  for (Arch a : archs())
    for (int bs : {13, 16, 784})
      for (int w : {1, 17, 100})
        for (ForcePath p : {ForcePath::k2D, ForcePath::k3D}) {
          uattn::testing::ProblemSpec s = base();
          s.head_size = 128;
          s.block_size = bs;
          s.window = w;
          s.num_kv_heads = 2;
          s.num_q_heads = bs == 13 ? 14 : 8;
          s.seqs = {{37, 160}, {1, 230}, {0, 4}, {5, 5}};
          const exec::RunResult r = run(s, a, p);
          EXPECT_TRUE(r.ok) << to_string(a) << " block_size " << bs << " window " << w << " path "
                            << (p == ForcePath::k2D ? "2d" : "3d") << ": " << r.error;
        }
}

TEST(Edges, NoSequencesIsANoOp) {
  for (Arch a : archs()) {
    uattn::testing::ProblemSpec s = base();
    s.seqs = {};
    const exec::RunResult r = run(s, a, ForcePath::kAuto);
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.cmp.n, 0u);
  }
}

TEST(Edges, Fp8OutputWithScale) {
  for (Arch a : archs())
    for (ForcePath p : {ForcePath::k2D, ForcePath::k3D})
      for (float out_scale : {0.25f, 0.002f}) {  // 0.002: outputs spread over the fp8 range
      uattn::testing::ProblemSpec s = base();
      s.q_dtype = DType::bf16;
      s.kv_dtype = DType::fp8e4m3;
      s.out_dtype = DType::fp8e4m3;
      s.k_scale = 0.5f; s.v_scale = 2.0f; s.output_scale = out_scale;
      const exec::RunResult r = run(s, a, p);
      EXPECT_TRUE(r.ok) << to_string(a) << " output_scale " << out_scale << ": " << r.error;
    }
}

}  // namespace
