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
//   FAULT_EXPECT_CONTROL   no mutation (the tile variant's control): the launch succeeds and matches
#include <gtest/gtest.h>

#include "engine.hpp"
#include "problem.hpp"
#include "reference.hpp"
#include "fault_kernel.hpp"
#ifdef FAULT_ISA_CO
#include <cstring>

#include "uattn/emu/emu.hpp"  // tools/emu
#endif

using namespace uattn;

namespace {

using namespace uattn::fault;

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
#if defined(FAULT_ALIBI)
  s.window = 0;  // the ALiBi tile has no window
  s.alibi = true;
#elif defined(FAULT_QQB) || defined(FAULT_QQB1)
  s.window = 0;  // the QQ-bias tiles have no window
  s.qq_bias = true;
  // 40 queries after 60 context keys: the second KV tile's keys 64-99 (jj 4-39)
  // take biases in both score tiles of the 4-wave tile; a row width of 64
  // keeps a run read 32 or 64 keys off inside the tensor (qq_early_keys).
  s.seqs = {{40, 100}, {1, 40}, {0, 3}};
  s.qq_bias_stride = 64;
#elif defined(FAULT_GEN4W)
  s.softcap = 30.0f;  // the generic tile's every-feature loop (the window compare beside softcap)
#elif defined(FAULT_HSPLIT8)
  s.kv_dtype = DType::fp8e4m3;  // the fp8 KV tile (kKAhead)
  s.k_scale = 0.01f;  // as the problem builder's own fp8 KV tests (tests/common/test_problem.cpp)
  s.v_scale = 4.0f;
#endif
  s.seed = 7;
#if defined(FAULT_EXPECT_MISALIGNED)
  s.head_pad = 1;  // odd row strides: no 8-element alignment
#endif
  static GuardedAlloc alloc;
  auto prob = uattn::testing::make_problem(s, alloc);
  hostexec::Launch l{};
  l.kernel_name = "fault_" FAULT_NAME;
  const int qpk = s.num_q_heads / s.num_kv_heads;
  const int block_m = kRowsPerGroup;
  l.grid[0] = (uint32_t)(prob->num_tokens * qpk / block_m + (int)s.seqs.size());
  l.grid[1] = (uint32_t)s.num_kv_heads;
  l.grid[2] = 1;
  l.threads = K::kThreads;
  l.wave_size = K::kWave;
  l.lds_bytes = K::kLdsBytes;
  prob->poison_output();
  Outcome o;
#ifdef FAULT_ISA_CO
  // The device code object of the same fault kernel, in the emulator; every
  // global access checked against the live guarded buffers.
  auto co = uattn::emu::CodeObject::load_file(FAULT_ISA_CO);
  uattn::emu::LaunchRequest rq;
  rq.kernel = "uattn_fault_kernel";
  for (int i = 0; i < 3; ++i) rq.grid[i] = l.grid[i];
  rq.block = (uint32_t)l.threads;
  rq.kernarg.resize(sizeof(AttnParams));
  memcpy(rq.kernarg.data(), &prob->params, sizeof(AttnParams));
  uattn::emu::RangeSet live;
  for (const hostexec::GuardedRange& g : hostexec::guarded_ranges()) live.add(g.base, g.bytes);
  rq.valid = live.callback();
  const uattn::emu::LaunchResult r = co->launch(rq);
  o.launch.ok = r.ok;
  o.launch.error = r.error;
#else
  o.launch = hostexec::launch(&kernel, l, prob->params);
#endif
  const auto ref = ref::attention(ref::RefInputs{&prob->params, s.q_dtype, s.kv_dtype});
  o.cmp = uattn::testing::compare_output(*prob, ref, 3e-3, 3e-3);
  return o;
}

TEST(Fault, FAULT_TEST_NAME) {
#if defined(FAULT_ISA_CO)
  // At the ISA level a fault is caught when the emulator refuses the launch
  // (LDS race, access outside every buffer, read before its s_waitcnt, ...) or
  // the output misses the reference; the host twin's finer expectations
  // (partial wave, misaligned vector, death by guard page) have no ISA analogue.
  const Outcome o = run_once();
  std::printf("launch: %s\ncompare: %s (max_abs %g, nan %zu)\n", o.launch.ok ? "ok" : o.launch.error.c_str(),
              o.cmp.ok ? "ok" : o.cmp.first_failure.c_str(), o.cmp.max_abs, o.cmp.nan_count);
  // An instruction the emulator does not implement stops the launch before the
  // broken code runs: no catch (a fault kernel compiled with scratch spills).
  EXPECT_EQ(o.launch.error.find("is not implemented"), std::string::npos) << o.launch.error;
#if defined(FAULT_ISA_BENIGN) || defined(FAULT_EXPECT_CONTROL)
  // A fault of the source-level contract that this code object does not exhibit
  // (tests/faults/CMakeLists.txt, ISA_BENIGN), or a control: it runs and matches.
  EXPECT_TRUE(o.launch.ok) << o.launch.error;
  EXPECT_TRUE(o.cmp.ok) << o.cmp.first_failure;
#else
  EXPECT_TRUE(!o.launch.ok || !o.cmp.ok) << "the broken kernel ran and matched the reference at the ISA level";
#if defined(FAULT_EXPECT_RACE)
  EXPECT_NE(o.launch.error.find("race"), std::string::npos) << o.launch.error;
#elif defined(FAULT_EXPECT_MISMATCH) || defined(FAULT_EXPECT_NAN)
  // A fault of the values only: the launch must run (a refused launch would
  // hide whether the broken values are caught).
  EXPECT_TRUE(o.launch.ok) << o.launch.error;
#if defined(FAULT_EXPECT_NAN)
  EXPECT_GT(o.cmp.nan_count, 0u);
#endif
#elif defined(FAULT_EXPECT_DEATH)
  EXPECT_FALSE(o.launch.ok);
#endif
#endif
#elif defined(FAULT_EXPECT_DEATH)
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
#elif defined(FAULT_EXPECT_CONTROL)
  ASSERT_TRUE(o.launch.ok) << o.launch.error;
  EXPECT_TRUE(o.cmp.ok) << o.cmp.first_failure;
#else
#error "FAULT_EXPECT_* not set"
#endif
#endif
}

#if defined(FAULT_ISA_CO)
// The fault kernel the emulator runs is the one the host twin runs: same tile.
TEST(Fault, IsaKernelMatchesTile) {
  auto co = uattn::emu::CodeObject::load_file(FAULT_ISA_CO);
  const uattn::emu::KernelDesc* d = co->kernel("uattn_fault_kernel");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->wavefront_size, (uint32_t)K::kWave);
  EXPECT_LE(d->group_segment_fixed_size, (uint32_t)K::kLdsBytes);  // the compiler may drop unused LDS
}
#endif

}  // namespace
