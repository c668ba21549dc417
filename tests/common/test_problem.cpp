// Tests of the problem builder and the output comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "problem.hpp"
#include "reference.hpp"
#include "uattn/device/types.hpp"  // only to cross-check the encoders

namespace {

using uattn::DType;
namespace ut = uattn::testing;
using uattn::ref::load_element;

ut::ProblemSpec small_spec(uint64_t seed) {
  ut::ProblemSpec s;
  s.head_size = 16;
  s.block_size = 5;
  s.num_q_heads = 4;
  s.num_kv_heads = 2;
  s.seqs = {{2, 12}, {0, 6}, {1, 1}, {4, 23}, {0, 0}};
  s.seed = seed;
  return s;
}

// Walks every element of the cache pool and checks: valid token slots (and only
// the first head_size elements of each head row) are finite and O(1) after
// dequantisation; everything else is NaN.
void check_cache_contents(const ut::Problem& P) {
  const auto& p = P.params;
  const auto& s = P.spec;
  const int Hkv = p.num_kv_heads, D = p.head_size, bs = p.block_size;
  const int Dp = D + P.head_pad;
  // physical block -> (seq, logical block)
  std::map<int64_t, std::pair<int, int>> owner;
  for (int i = 0; i < p.num_seqs; ++i)
    for (int b = 0; b < (p.seqused_k[i] + bs - 1) / bs; ++b) {
      const int64_t id = p.block_table[i * p.block_table_stride + b];
      ASSERT_GE(id, 0);
      ASSERT_LT(id, P.num_blocks);
      ASSERT_TRUE(owner.emplace(id, std::make_pair(i, b)).second) << "block " << id << " used twice";
    }
  const double ks = s.kv_dtype == DType::fp8e4m3 ? s.k_scale : 1, vs = s.kv_dtype == DType::fp8e4m3 ? s.v_scale : 1;
  size_t finite = 0, nan = 0;
  for (int64_t id = 0; id < P.num_blocks; ++id) {
    auto it = owner.find(id);
    for (int slot = 0; slot < bs; ++slot)
      for (int g = 0; g < Hkv; ++g)
        for (int d = 0; d < Dp; ++d) {
          const int64_t ko = id * p.k_stride_block + slot * p.k_stride_slot + g * p.k_stride_head + d;
          const int64_t vo = id * p.v_stride_block + slot * p.v_stride_slot + g * p.v_stride_head + d;
          const double kx = load_element(s.kv_dtype, p.k_cache, ko), vx = load_element(s.kv_dtype, p.v_cache, vo);
          bool valid = false;
          if (it != owner.end() && d < D) {
            const int i = it->second.first;
            const int64_t j = (int64_t)it->second.second * bs + slot;
            const int64_t ql = p.cu_seqlens_q[i + 1] - p.cu_seqlens_q[i], ctx = p.seqused_k[i] - ql;
            const int64_t block_last = std::min<int64_t>((int64_t)(it->second.second + 1) * bs, p.seqused_k[i]) - 1;
            const bool outside_window = p.window_left >= 0 && ql > 0 && block_last < ctx - p.window_left;
            valid = j < p.seqused_k[i] && !outside_window;
          }
          if (valid) {
            ASSERT_TRUE(std::isfinite(kx) && std::isfinite(vx)) << "block " << id << " slot " << slot << " d " << d;
            ASSERT_LE(std::fabs(kx * ks), 1.07);
            ASSERT_LE(std::fabs(vx * vs), 1.07);
            ++finite;
          } else {
            ASSERT_TRUE(std::isnan(kx) && std::isnan(vx))
                << "block " << id << " slot " << slot << " head " << g << " d " << d << ": " << kx << " " << vx;
            ++nan;
          }
        }
  }
  EXPECT_GT(finite, 0u);
  EXPECT_GT(nan, 0u);
}

TEST(Problem, NaNInEveryUnusedSlot) {
  for (DType kvd : {DType::f16, DType::bf16, DType::fp8e4m3})
    for (uint64_t seed = 1; seed <= 4; ++seed)
      for (bool combined : {false, true})
        for (int window : {0, 3}) {
          auto s = small_spec(seed);
          s.kv_dtype = kvd;
          s.q_dtype = kvd == DType::bf16 ? DType::bf16 : DType::f16;
          s.out_dtype = s.q_dtype;
          if (kvd == DType::fp8e4m3) s.k_scale = 0.01f, s.v_scale = 4.0f;
          s.kv_view_of_combined = combined;
          s.window = window;
          auto P = ut::make_problem(s);
          SCOPED_TRACE(ut::describe(s));
          check_cache_contents(*P);
          // q: valid elements finite, head padding NaN
          const auto& p = P->params;
          for (int t = 0; t < P->num_tokens; ++t)
            for (int h = 0; h < p.num_q_heads; ++h)
              for (int d = 0; d < p.head_size + P->head_pad; ++d) {
                const double x = load_element(s.q_dtype, p.q, t * p.q_stride_token + h * p.q_stride_head + d);
                if (d < p.head_size) ASSERT_TRUE(std::isfinite(x) && std::fabs(x) <= 1);
                else ASSERT_TRUE(std::isnan(x));
              }
        }
}

TEST(Problem, LayoutsFollowTheSeedAndKnobs) {
  std::set<std::pair<int, int>> seen;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    auto P = ut::make_problem(small_spec(seed));
    seen.insert({P->head_pad, P->kv_layout});
    const auto& p = P->params;
    EXPECT_EQ(p.q_stride_head, p.head_size + P->head_pad);
    EXPECT_EQ(p.o_stride_head, p.head_size + P->head_pad);
    if (P->kv_layout == 0) EXPECT_EQ(p.k_stride_head, p.head_size + P->head_pad);
    else EXPECT_EQ(p.k_stride_slot, p.head_size + P->head_pad);
  }
  EXPECT_EQ(seen.size(), 4u);  // seeds 1..4 cover pad {0, 8} x layout {0, 1}
  auto s = small_spec(1);
  s.kv_view_of_combined = true;
  s.head_pad = 0;
  s.kv_layout = 0;
  auto P = ut::make_problem(s);
  const auto& p = P->params;
  EXPECT_EQ(p.k_stride_block, 2 * s.block_size * s.num_kv_heads * s.head_size);
  EXPECT_EQ(static_cast<const char*>(p.v_cache) - static_cast<const char*>(p.k_cache),
            (ptrdiff_t)s.block_size * s.num_kv_heads * s.head_size * 2);
  EXPECT_TRUE(P->kv_cache.owned);
  EXPECT_FALSE(P->v_cache.owned);
}

TEST(Problem, BlockTableIsShuffledWithGarbageTail) {
  auto s = small_spec(7);
  s.seqs = {{1, 100}, {3, 41}, {0, 0}, {2, 5}};
  auto P = ut::make_problem(s);
  const auto& p = P->params;
  EXPECT_GT(P->num_blocks, 20 + 9 + 1);  // extra unused blocks exist
  std::vector<int32_t> used;
  size_t garbage = 0;
  for (int i = 0; i < p.num_seqs; ++i) {
    const int nb = (p.seqused_k[i] + p.block_size - 1) / p.block_size;
    for (int64_t b = 0; b < p.block_table_stride; ++b) {
      const int32_t id = p.block_table[i * p.block_table_stride + b];
      if (b < nb) {
        EXPECT_TRUE(id >= 0 && id < P->num_blocks);
        used.push_back(id);
      } else {
        EXPECT_TRUE(id < 0 || id >= P->num_blocks) << "entry " << i << "," << b << " = " << id;
        ++garbage;
      }
    }
  }
  EXPECT_GE(garbage, 2u * p.num_seqs);
  EXPECT_EQ(std::set<int32_t>(used.begin(), used.end()).size(), used.size());
  size_t in_order = 0;
  for (size_t n = 1; n < used.size(); ++n) in_order += used[n] == used[n - 1] + 1;
  EXPECT_LT(in_order, used.size() / 2) << "block table looks contiguous";
}

// shared_nan_block: the entries of blocks wholly before the window all name one
// physical block, NaN in every element; the window's blocks are distinct, and
// the reference (which reads every key a query keeps) reads none of it.
TEST(Problem, SharedNaNBlockOutsideTheWindow) {
  auto s = small_spec(9);
  s.seqs = {{2, 60}, {0, 30}, {1, 7}, {3, 41}};
  s.window = 6;
  auto plain = ut::make_problem(s);
  s.shared_nan_block = true;
  auto P = ut::make_problem(s);
  const auto& p = P->params;
  const int bs = p.block_size, Hkv = p.num_kv_heads, Dp = p.head_size + P->head_pad;
  std::set<int32_t> shared, own;
  for (int i = 0; i < p.num_seqs; ++i) {
    const int64_t ql = p.cu_seqlens_q[i + 1] - p.cu_seqlens_q[i], lo = p.seqused_k[i] - ql - p.window_left;
    for (int b = 0; b < (p.seqused_k[i] + bs - 1) / bs; ++b) {
      const int32_t id = p.block_table[i * p.block_table_stride + b];
      ASSERT_TRUE(id >= 0 && id < P->num_blocks) << i << "," << b;
      const bool before = ql > 0 && (int64_t)(b + 1) * bs <= lo;
      if (before) shared.insert(id);
      else EXPECT_TRUE(own.insert(id).second) << "block " << id << " used twice";
    }
  }
  ASSERT_EQ(shared.size(), 1u);  // sequences 0 and 3 have blocks before their windows
  EXPECT_EQ(own.count(*shared.begin()), 0u);
  const int64_t id = *shared.begin();
  for (int slot = 0; slot < bs; ++slot)
    for (int g = 0; g < Hkv; ++g)
      for (int d = 0; d < Dp; ++d) {
        const int64_t o = id * p.k_stride_block + slot * p.k_stride_slot + g * p.k_stride_head + d;
        ASSERT_TRUE(std::isnan(load_element(s.kv_dtype, p.k_cache, o)) && std::isnan(load_element(s.kv_dtype, p.v_cache, o)));
      }
  EXPECT_LT(P->num_blocks, plain->num_blocks);
  // No key of any window lies in the shared block: the reference reads no NaN.
  const std::vector<double> r = P->reference();
  ASSERT_FALSE(r.empty());
  for (size_t n = 0; n < r.size(); ++n) ASSERT_TRUE(std::isfinite(r[n])) << n;
}

TEST(Problem, QLenZeroProducesNoTokens) {
  auto s = small_spec(1);
  s.seqs = {{0, 5}, {0, 0}};
  auto P = ut::make_problem(s);
  EXPECT_EQ(P->num_tokens, 0);
  EXPECT_EQ(P->params.num_tokens, 0);
  EXPECT_EQ(P->params.cu_seqlens_q[2], 0);
  EXPECT_TRUE(P->reference().empty());
  s.seqs = {{2, 5}, {0, 9}, {3, 4}, {0, 1}};
  auto Q = ut::make_problem(s);
  EXPECT_EQ(Q->num_tokens, 5);
  const int32_t* cu = Q->params.cu_seqlens_q;
  EXPECT_EQ(std::vector<int32_t>(cu, cu + 5), (std::vector<int32_t>{0, 2, 2, 5, 5}));
  EXPECT_EQ(Q->max_seqlen_q, 3);
  EXPECT_EQ(Q->max_seqlen_k, 9);
  EXPECT_EQ(Q->reference().size(), (size_t)5 * s.num_q_heads * s.head_size);
  s.seqs = {};
  auto E = ut::make_problem(s);
  EXPECT_EQ(E->params.num_seqs, 0);
  EXPECT_TRUE(E->reference().empty());
}

TEST(Problem, ParamsScalarsAndFeatures) {
  auto s = small_spec(2);
  s.window = 4;
  s.softcap = 30;
  s.alibi = s.qq_bias = s.sinks = true;
  s.kv_dtype = DType::fp8e4m3;
  s.out_dtype = DType::fp8e4m3;
  s.k_scale = 0.5f;
  s.v_scale = 0.25f;
  s.output_scale = 0.125f;
  auto P = ut::make_problem(s);
  const auto& p = P->params;
  EXPECT_EQ(P->features, (uint32_t)uattn::kFeatAll);
  EXPECT_EQ(p.window_left, 3);
  EXPECT_EQ(p.softcap, 30.0f);
  EXPECT_FLOAT_EQ(p.softmax_scale, 0.25f);
  EXPECT_EQ(p.k_scale, 0.5f);
  EXPECT_EQ(p.v_scale, 0.25f);
  EXPECT_EQ(p.output_scale, 0.125f);
  EXPECT_EQ(p.out_dtype, (int32_t)DType::fp8e4m3);
  EXPECT_EQ(p.qq_bias_stride, 4);  // max q_len
  EXPECT_EQ(p.num_segments, 1);
  EXPECT_EQ(p.ws_acc, nullptr);
  for (int h = 0; h < s.num_q_heads; ++h) {
    EXPECT_GT(p.alibi_slopes[h], 0.0f);
    EXPECT_LE(p.alibi_slopes[h], 1.0f);
    EXPECT_TRUE(p.sinks[h] >= -1 && p.sinks[h] <= 2);
  }
  for (int n = 0; n < 16; ++n) EXPECT_TRUE(std::fabs(p.qq_bias[n]) <= 1);
  auto plain = ut::make_problem(small_spec(2));
  EXPECT_EQ(plain->features, 0u);
  EXPECT_EQ(plain->params.window_left, -1);
  EXPECT_EQ(plain->params.alibi_slopes, nullptr);
  EXPECT_EQ(plain->params.qq_bias, nullptr);
  EXPECT_EQ(plain->params.sinks, nullptr);
  // same spec, same bytes
  auto again = ut::make_problem(small_spec(2));
  EXPECT_EQ(std::memcmp(plain->q.ptr, again->q.ptr, plain->q.bytes), 0);
  EXPECT_EQ(std::memcmp(plain->k_cache.ptr, again->k_cache.ptr, plain->k_cache.bytes), 0);
}

TEST(Problem, RejectsBadSpec) {
  auto s = small_spec(1);
  s.num_kv_heads = 3;
  EXPECT_THROW(ut::make_problem(s), std::invalid_argument);
  s = small_spec(1);
  s.seqs = {{5, 4}};
  EXPECT_THROW(ut::make_problem(s), std::invalid_argument);
  s = small_spec(1);
  s.k_scale = 2;  // f16 KV
  EXPECT_THROW(ut::make_problem(s), std::invalid_argument);
  s = small_spec(1);
  s.q_dtype = DType::fp8e4m3;
  EXPECT_THROW(ut::make_problem(s), std::invalid_argument);
}

// Hostile-input class 7: non-finite fp8 scales are refused, naming the scale.
TEST(Problem, RejectsNonFiniteScales) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const struct { float ut::ProblemSpec::*field; const char* name; float v; const char* text; } cases[] = {
      {&ut::ProblemSpec::k_scale, "k_scale", inf, "inf"},  {&ut::ProblemSpec::v_scale, "v_scale", inf, "inf"},
      {&ut::ProblemSpec::k_scale, "k_scale", nan, "nan"},  {&ut::ProblemSpec::v_scale, "v_scale", -inf, "-inf"},
      {&ut::ProblemSpec::output_scale, "output_scale", inf, "inf"},
  };
  for (const auto& c : cases) {
    auto s = small_spec(1);
    s.kv_dtype = DType::fp8e4m3;
    if (c.field == &ut::ProblemSpec::output_scale) s.out_dtype = DType::fp8e4m3;
    s.*c.field = c.v;
    try {
      ut::make_problem(s);
      ADD_FAILURE() << c.name << " = " << c.text << " was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string want = std::string(c.name) + " = " + c.text + ", expected finite and > 0";
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
}

// A problem that writes more than kMaxProblemBytes is refused before anything
// is allocated, naming the sizes, the bytes and the bound (uattn-run --seqs
// 1073741824:1073741824 spent minutes building it).
TEST(Problem, RefusesMoreThanTheHostMemoryBoundBeforeAllocating) {
  struct Refusing final : ut::Allocator {
    int calls = 0;
    void* alloc(size_t, const char*) override { ++calls; throw std::bad_alloc(); }
    void free(void*) override {}
  } a;
  ut::ProblemSpec s;
  s.head_size = 128; s.block_size = 16; s.num_q_heads = 8; s.num_kv_heads = 2; s.head_pad = 0;
  s.seqs = {{1 << 30, 1 << 30}};
  // 2^26 used blocks + 2^24 extra (a quarter), every one filled: 16 slots x 2 heads x 128 x 2 bytes, K and V.
  const uint64_t kv = (((uint64_t)1 << 26) + ((uint64_t)1 << 24)) * 16 * 2 * 128 * 2 * 2;
  const uint64_t q_out = ((uint64_t)1 << 30) * 8 * 128 * (2 + 2);
  try {
    ut::make_problem(s, a);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "uattn::testing::make_problem: seqs (1073741824 query tokens, kv_len up to 1073741824, num_seqs 1) "
              "with num_q_heads 8, num_kv_heads 2, head_size 128: the problem writes " + std::to_string(kv + q_out) +
              " bytes of host memory (k_cache + v_cache " + std::to_string(kv) + ", q + out " +
              std::to_string(q_out) + ", qq_bias 0); expected at most 4294967296 (kMaxProblemBytes)");
  }
  EXPECT_EQ(a.calls, 0);
  // Sparse pools count only the blocks filled: a 6 GiB pool of which 3 blocks are used passes the bound.
  s.seqs = {{3, 40}};
  s.extra_blocks = (int64_t)3 << 20;
  s.fill_unused_blocks = false;
  EXPECT_THROW(ut::make_problem(s, a), std::bad_alloc);  // got as far as allocating
  EXPECT_GT(a.calls, 0);
}

TEST(Problem, AllocatorSeesEveryBuffer) {
  struct Counting final : ut::Allocator {
    std::map<void*, std::string> live;
    std::set<std::string> names;
    void* alloc(size_t bytes, const char* name) override {
      void* p = ut::malloc_allocator().alloc(bytes, name);
      live[p] = name;
      names.insert(name);
      return p;
    }
    void free(void* p) override {
      ASSERT_EQ(live.erase(p), 1u);
      ut::malloc_allocator().free(p);
    }
  } a;
  auto s = small_spec(3);
  s.alibi = s.qq_bias = s.sinks = true;
  {
    auto P = ut::make_problem(s, a);
    EXPECT_EQ(a.names, (std::set<std::string>{"q", "k_cache", "v_cache", "out", "cu_seqlens_q", "seqused_k",
                                              "block_table", "alibi_slopes", "qq_bias", "sinks"}));
  }
  EXPECT_TRUE(a.live.empty());
}

TEST(Compare, PassesExactCatchesNaNAndTolerance) {
  for (DType od : {DType::f16, DType::bf16, DType::fp8e4m3}) {
    auto s = small_spec(1);  // head_pad 8: padding checked too
    if (od == DType::bf16) s.q_dtype = DType::bf16;
    s.out_dtype = od;
    if (od == DType::fp8e4m3) s.output_scale = 0.01f;  // outputs O(0.1) / 0.01: well inside fp8 range
    auto P = ut::make_problem(s);
    SCOPED_TRACE(ut::describe(s));
    const auto ref = P->reference();
    // Untouched output (all poison) fails with NaN everywhere.
    auto r0 = ut::compare_output(*P, ref, 1, 1);
    EXPECT_FALSE(r0.ok);
    EXPECT_EQ(r0.nan_count, r0.n);
    // The reference rounded to the out dtype passes.
    P->write_output(ref);
    const double rtol = od == DType::fp8e4m3 ? 0.07 : od == DType::bf16 ? 4e-3 : 5e-4;
    const double atol = od == DType::fp8e4m3 ? 2e-3 : 1e-6;  // fp8 subnormals: quantum 2^-9
    auto r1 = ut::compare_output(*P, ref, atol, rtol);
    EXPECT_TRUE(r1.ok) << r1.first_failure;
    EXPECT_EQ(r1.n, (size_t)P->num_tokens * s.num_q_heads * s.head_size);
    EXPECT_EQ(r1.fail_count, 0u);
    EXPECT_GT(r1.max_abs, 0.0);
    // One NaN.
    auto bad = ref;
    bad[5] = std::nan("");
    P->write_output(bad);
    auto r2 = ut::compare_output(*P, ref, 1, 1);
    EXPECT_FALSE(r2.ok);
    EXPECT_EQ(r2.nan_count, 1u);
    EXPECT_EQ(r2.fail_count, 1u);
    EXPECT_NE(r2.first_failure.find("d 5"), std::string::npos) << r2.first_failure;
    // One value outside the tolerance (3x tol + 0.5; every other value rounds within it).
    bad = ref;
    bad[17] += 3 * (atol + rtol * std::fabs(ref[17])) + 0.5;
    P->write_output(bad);
    auto r3 = ut::compare_output(*P, ref, atol, rtol);
    EXPECT_FALSE(r3.ok);
    EXPECT_EQ(r3.nan_count, 0u);
    EXPECT_EQ(r3.fail_count, 1u);
    EXPECT_NE(r3.first_failure.find("token 0 (seq 0, pos 0) head 1 d 1"), std::string::npos) << r3.first_failure;
    // A write into the head padding is caught.
    P->write_output(ref);
    const auto& p = P->params;
    if (od == DType::fp8e4m3) static_cast<uint8_t*>(p.out)[p.o_stride_head + p.head_size] = 0;
    else static_cast<uint16_t*>(p.out)[p.o_stride_head + p.head_size] = 0;
    auto r4 = ut::compare_output(*P, ref, 1, 1);
    EXPECT_FALSE(r4.ok);
    EXPECT_NE(r4.first_failure.find("padding"), std::string::npos) << r4.first_failure;
    P->poison_output();
    EXPECT_EQ(ut::compare_output(*P, ref, 1, 1).nan_count, r0.n);
    // A reference of the wrong size.
    EXPECT_FALSE(ut::compare_output(*P, std::vector<double>(3), 1, 1).ok);
  }
}

TEST(Encoders, MatchCompilerAndDeviceConversions) {
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 65504.0f, 65520.0f, 70000.0f, 6e-8f, 3e-8f, 2.9e-8f,
                           1e-30f, 448.0f, 464.0f, 500.0f, 1e9f, -1e9f, 0.0009765625f, 0.001953125f, 0.0029296875f,
                           std::ldexp(1.0f, -10) * 3, 3.14159f, -2.71828f, 1.0f / 3, 1e-3f, 240.0f, 0.1f};
  for (int n = 0; n < 200000; ++n)  // deterministic spread over magnitudes
    xs.push_back(std::ldexp((float)((n * 2654435761u) % 1000003u) / 1000003.0f, (n % 40) - 20) * (n % 2 ? 1 : -1));
  for (float x : xs) {
    const _Float16 h = (_Float16)x;
    EXPECT_EQ(ut::f16_bits_from_double(x), __builtin_bit_cast(uint16_t, h)) << x;
    const __bf16 b = (__bf16)x;
    EXPECT_EQ(ut::bf16_bits_from_double(x), __builtin_bit_cast(uint16_t, b)) << x;
    EXPECT_EQ(ut::fp8e4m3_bits_from_double(x), dl::f32_to_fp8e4m3(x)) << x;
  }
  EXPECT_EQ(ut::fp8e4m3_bits_from_double(1e10), 0x7E);
  EXPECT_EQ(ut::fp8e4m3_bits_from_double(-1e10), 0xFE);
  EXPECT_EQ(ut::fp8e4m3_bits_from_double(std::nan("")) & 0x7F, 0x7F);
  EXPECT_EQ(ut::f16_bits_from_double(1e10), 0x7C00);
}

}  // namespace
