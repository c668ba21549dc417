// Harness regression test: one deliberately broken copy of the attention
// kernel (tests/faults/CMakeLists.txt writes the copy with one mutation) must be
// caught by the CPU execution harness in the expected way.
//   FAULT_EXPECT_RACE      the LDS race detector fails the launch
//   FAULT_EXPECT_PARTIAL   a wave operation reached by part of a wave fails the launch
//   FAULT_EXPECT_MISMATCH  the launch succeeds but the output differs from the reference
//   FAULT_EXPECT_NAN       an output element is never written (poisoned NaN survives)
//   FAULT_EXPECT_DEATH     an out-of-bounds access stops the process naming the kernel
//   FAULT_EXPECT_MISALIGNED a vector access the problem's layout does not allow fails the launch
//                          (the problem then has odd row strides)
#include <gtest/gtest.h>

#include "engine.hpp"
#include "problem.hpp"
#include "reference.hpp"
#include "uattn/kernel/attention.hpp"  // includes the mutated copy (include path order)

using namespace uattn;

namespace {

constexpr Arch kArch = Arch::FAULT_ARCH;
#if defined(FAULT_NARROW)
// The narrow one-wave tile: gfx950's 16 rows (as
// uattn_gfx950_2d_f16_f16_d256_b16_win_m16n32w1), gfx1030's 4 rows (as
// uattn_gfx1030_2d_f16_f16_d256_b16_win_m4n32w1).
constexpr int kHead = 256, kBlock = 16;
constexpr int kRows = tile_rows_per_wave(kArch, Tile::small, kHead, kBlock);
static_assert(kRows < rows_per_wave(kArch), "FAULT_NARROW needs a narrow tile at d256");
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow, kRows, 32, 1>;
#elif defined(FAULT_BCAST)
// A gfx1030 tile with the DPP broadcasts of Q and P (attention_dot2.hpp kBcast):
// one-wave d128, block size 16, sliding window (as
// uattn_gfx1030_2d_f16_f16_d128_b16_win_m8n32w1).
constexpr int kHead = 128, kBlock = 16;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow,
                     tile_rows_per_wave(kArch, Tile::small, kHead, kBlock), 32, 1>;
static_assert(K::kBcast, "FAULT_BCAST needs a tile with the DPP broadcasts");
#elif defined(FAULT_SHARED)
// gfx1030's 8-wave d128 prefill tile (as uattn_gfx1030_2d_f16_f16_d128_b16_win_m32n32w8):
// 4 rows per wave, K / V tiles staged once in LDS for the 8 waves (attention_dot2.hpp kShared).
constexpr int kHead = 128, kBlock = 16;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow,
                     tile_rows_per_wave(kArch, Tile::large, kHead, kBlock) * tile_waves_of(kArch, Tile::large, kHead, kBlock),
                     32, tile_waves_of(kArch, Tile::large, kHead, kBlock)>;
static_assert(K::kShared, "FAULT_SHARED needs the tile that shares K / V through LDS");
#elif defined(FAULT_ROWS32)
// gfx950's 32-row one-wave tile (v_mfma_f32_32x32x16): 2D d64, block size 16,
// sliding window (the generic d64 tile has 16 rows).
constexpr int kHead = 64, kBlock = 16;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow,
                     tile_rows_per_wave(kArch, Tile::small, kHead, kBlock), 32, 1>;
static_assert(K::kQW == 32, "FAULT_ROWS32 needs a 32-row tile");
#elif defined(FAULT_HSPLIT)
// gfx950's generic d256 tile (as uattn_gfx950_2d_f16_f16_d256_bany_all_m16n32w2):
// 16 rows, 2 waves that split the head (attention_mfma.hpp kHSplit).
constexpr int kHead = 256, kBlock = 13;
constexpr int kBlockM = tile_block_m(kArch, Tile::small, kHead, 0);
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, 0, kFeatAll, kBlockM, 32,
                     tile_waves_of(kArch, Tile::small, kHead, 0)>;
static_assert(K::kHSplit, "FAULT_HSPLIT needs the head-split tile");
#elif defined(FAULT_PADHEAD)
// gfx950's generic one-wave tile at d80 (as
// uattn_gfx950_2d_f16_f16_d80_bany_all_m16n32w1): 16 rows, whose last
// v_mfma_f32_16x16x32 step over the head is padded (attention_mfma.hpp kKTail).
constexpr int kHead = 80, kBlock = 13;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, 0, kFeatAll, tile_rows_per_wave(kArch, Tile::small, kHead, 0), 32, 1>;
static_assert(K::kKTail, "FAULT_PADHEAD needs a tile with a padded head step");
#else
constexpr int kHead = 64, kBlock = 13;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, 0, kFeatAll, tile_rows_per_wave(kArch, Tile::small, kHead, 0), 32, 1>;
#endif

void kernel(AttnParams p) { K::run(p, dl::host::lds_base()); }

struct GuardedAlloc final : uattn::testing::Allocator {
  void* alloc(size_t b, const char* n) override { return hostexec::guarded_alloc(b ? b : 1, n); }
  void free(void* p) override { hostexec::guarded_free(p); }
};

struct Outcome { hostexec::Result launch; uattn::testing::CompareResult cmp; };

Outcome run_once() {
  uattn::testing::ProblemSpec s{};
  s.q_dtype = s.kv_dtype = s.out_dtype = DType::f16;
  s.head_size = kHead;
  s.block_size = kBlock;
  s.num_kv_heads = 2;
  s.num_q_heads = 6;  // qpk 3: rows do not fill the last wave
  s.seqs = {{5, 70}, {1, 40}, {0, 3}};
  s.window = 20;
  s.seed = 7;
#if defined(FAULT_EXPECT_MISALIGNED)
  s.head_pad = 1;  // odd row strides: no 8-element alignment
#endif
  static GuardedAlloc alloc;
  auto prob = uattn::testing::make_problem(s, alloc);
  hostexec::Launch l{};
  l.kernel_name = "fault_" FAULT_NAME;
  const int qpk = s.num_q_heads / s.num_kv_heads;
#if defined(FAULT_HSPLIT)
  const int block_m = kBlockM;  // rows per workgroup: its waves own the same rows
#else
  const int block_m = K::kQW * (K::kThreads / K::kWave);  // rows per workgroup
#endif
  l.grid[0] = (uint32_t)(prob->num_tokens * qpk / block_m + (int)s.seqs.size());
  l.grid[1] = (uint32_t)s.num_kv_heads;
  l.grid[2] = 1;
  l.threads = K::kThreads;
  l.wave_size = K::kWave;
  l.lds_bytes = K::kLdsBytes;
  prob->poison_output();
  Outcome o;
  o.launch = hostexec::launch(&kernel, l, prob->params);
  const auto ref = ref::attention(ref::RefInputs{&prob->params, s.q_dtype, s.kv_dtype});
  o.cmp = uattn::testing::compare_output(*prob, ref, 3e-3, 3e-3);
  return o;
}

TEST(Fault, FAULT_TEST_NAME) {
#if defined(FAULT_EXPECT_DEATH)
  EXPECT_EXIT(run_once(), ::testing::ExitedWithCode(3), "out-of-bounds access in kernel fault_" FAULT_NAME);
#else
  const Outcome o = run_once();
#if defined(FAULT_EXPECT_RACE)
  ASSERT_FALSE(o.launch.ok);
  EXPECT_NE(o.launch.error.find("race"), std::string::npos) << o.launch.error;
#elif defined(FAULT_EXPECT_MISALIGNED)
  ASSERT_FALSE(o.launch.ok);
  EXPECT_NE(o.launch.error.find("misaligned"), std::string::npos) << o.launch.error;
#elif defined(FAULT_EXPECT_PARTIAL)
  ASSERT_FALSE(o.launch.ok);
  EXPECT_NE(o.launch.error.find("partial wave"), std::string::npos) << o.launch.error;
#elif defined(FAULT_EXPECT_MISMATCH)
  ASSERT_TRUE(o.launch.ok) << o.launch.error;
  EXPECT_FALSE(o.cmp.ok) << "the broken kernel matched the reference (max_abs " << o.cmp.max_abs << ")";
#elif defined(FAULT_EXPECT_NAN)
  ASSERT_TRUE(o.launch.ok) << o.launch.error;
  EXPECT_FALSE(o.cmp.ok);
  EXPECT_GT(o.cmp.nan_count, 0u);
#else
#error "FAULT_EXPECT_* not set"
#endif
#endif
}

}  // namespace
