// Tests of the host execution engine (engine.hpp): each small kernel below is
// written against the device layer only (dl::), compiled with
// -DUATTN_BACKEND_HOST, and checked against a plain reference computed here.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include <unistd.h>

#include "engine.hpp"
#include "uattn/device/dl.hpp"
#include "uattn/kernel/common.hpp"

using uattn::AttnParams;
using namespace uattn::hostexec;

namespace {

Launch make_launch(const char* name, int threads, int wave, uint32_t lds, uint32_t gx = 1, uint32_t gy = 1,
                   uint32_t gz = 1) {
  Launch l{};
  l.kernel_name = name;
  l.grid[0] = gx;
  l.grid[1] = gy;
  l.grid[2] = gz;
  l.threads = threads;
  l.wave_size = wave;
  l.lds_bytes = lds;
  return l;
}

AttnParams params(const void* in0, void* out, const void* in1 = nullptr) {
  AttnParams p{};
  p.q = in0;
  p.k_cache = in1;
  p.out = out;
  return p;
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

}  // namespace

// ===========================================================================
// MFMA v_mfma_f32_32x32x16_{f16,bf16} and v_mfma_f32_16x16x32_{f16,bf16}

template <class T, int M>
void mfma_body(AttnParams p) {
  // Per-lane fragments as the test laid them out: A/B [64][8], C/D [64][M * M / 64].
  constexpr int R = M * M / 64;
  const T* A = static_cast<const T*>(p.q);
  const T* B = static_cast<const T*>(p.k_cache);
  float* C = static_cast<float*>(p.out);
  const int l = dl::lane_id();
  dl::vec<T, 8> a, b;
  dl::vec<float, R> c;
  for (int e = 0; e < 8; ++e) {
    a[e] = A[l * 8 + e];
    b[e] = B[l * 8 + e];
  }
  for (int r = 0; r < R; ++r) c[r] = C[l * R + r];
  if constexpr (M == 32) dl::mfma_32x32x16(a, b, c);
  else dl::mfma_16x16x32(a, b, c);
  for (int r = 0; r < R; ++r) C[l * R + r] = c[r];
}
UATTN_GLOBAL void k_mfma_f16(AttnParams p) { mfma_body<dl::f16, 32>(p); }
UATTN_GLOBAL void k_mfma_bf16(AttnParams p) { mfma_body<dl::bf16, 32>(p); }
UATTN_GLOBAL void k_mfma16_f16(AttnParams p) { mfma_body<dl::f16, 16>(p); }
UATTN_GLOBAL void k_mfma16_bf16(AttnParams p) { mfma_body<dl::bf16, 16>(p); }

namespace {

// The layouts written from the (matrix element -> lane, slot) side, i.e. the
// way AMD's matrix instruction calculator tabulates them (CDNA4):
//  32x32x16: A[i][k] -> lane i + 32 * (k / 8), element k % 8
//            B[k][j] -> lane j + 32 * (k / 8), element k % 8
//            D[i][j] -> lane j + 32 * ((i / 4) % 2), register (i % 4) + 4 * (i / 8)
//  16x16x32: A[i][k] -> lane i + 16 * (k / 8), element k % 8
//            B[k][j] -> lane j + 16 * (k / 8), element k % 8
//            D[i][j] -> lane j + 16 * (i / 4), register i % 4
template <int M>
struct Shape {
  static constexpr int K = M == 32 ? 16 : 32, R = M * M / 64;
  static int a_lane(int i, int k) { return i + M * (k / 8); }
  static int b_lane(int k, int j) { return j + M * (k / 8); }
  static int ab_elem(int k) { return k % 8; }
  static int d_lane(int i, int j) { return M == 32 ? j + 32 * ((i / 4) % 2) : j + 16 * (i / 4); }
  static int d_reg(int i) { return M == 32 ? (i % 4) + 4 * (i / 8) : i % 4; }
};

template <class T, int M = 32>
struct MfmaCase {
  using S = Shape<M>;
  static constexpr int K = S::K;
  std::vector<T> afrag = std::vector<T>(64 * 8), bfrag = std::vector<T>(64 * 8);
  std::vector<float> cfrag = std::vector<float>(64 * S::R);
  double A[M][K], B[K][M], C[M][M];

  void set(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c) {
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k) {
        const T v = dl::from_f32<T>(a[i * K + k]);
        afrag[S::a_lane(i, k) * 8 + S::ab_elem(k)] = v;
        A[i][k] = (double)dl::to_f32(v);
      }
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < M; ++j) {
        const T v = dl::from_f32<T>(b[k * M + j]);
        bfrag[S::b_lane(k, j) * 8 + S::ab_elem(k)] = v;
        B[k][j] = (double)dl::to_f32(v);
      }
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < M; ++j) {
        cfrag[S::d_lane(i, j) * S::R + S::d_reg(i)] = c[i * M + j];
        C[i][j] = c[i * M + j];
      }
  }
  Result run(KernelFn fn, const char* name, int wave = 64) {
    return launch(fn, make_launch(name, wave == 64 ? 64 : 32, wave, 0), params(afrag.data(), cfrag.data(), bfrag.data()));
  }
  float d(int i, int j) const { return cfrag[S::d_lane(i, j) * S::R + S::d_reg(i)]; }
};

template <class T, int M = 32>
void mfma_random_test(KernelFn fn, const char* name, uint32_t seed) {
  constexpr int K = Shape<M>::K;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  std::vector<float> a(M * K), b(K * M), c(M * M);
  for (auto& x : a) x = u(rng);
  for (auto& x : b) x = u(rng);
  for (auto& x : c) x = u(rng);
  MfmaCase<T, M> mc;
  mc.set(a, b, c);
  Result r = mc.run(fn, name);
  ASSERT_TRUE(r.ok) << r.error;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) {
      double ref = mc.C[i][j], mag = std::fabs(mc.C[i][j]);
      for (int k = 0; k < K; ++k) {
        ref += mc.A[i][k] * mc.B[k][j];
        mag += std::fabs(mc.A[i][k] * mc.B[k][j]);
      }
      const double err = std::fabs((double)mc.d(i, j) - ref);
      // Products are exact in float; K + 1 float additions: < K + 1 ulp of the
      // magnitude sum.
      EXPECT_LE(err, (K + 1) * 0x1p-24 * mag + 1e-30) << "D[" << i << "][" << j << "]";
    }
}

}  // namespace

TEST(Mfma, F16RandomMatchesMatrixProduct) {
  for (uint32_t s = 1; s <= 3; ++s) mfma_random_test<dl::f16>(k_mfma_f16, "k_mfma_f16", s);
}

TEST(Mfma, Bf16RandomMatchesMatrixProduct) {
  for (uint32_t s = 11; s <= 13; ++s) mfma_random_test<dl::bf16>(k_mfma_bf16, "k_mfma_bf16", s);
}

// Single non-zero products at known positions: catches a transposed operand
// or result layout, swapped half-waves and a wrong row interleave.
TEST(Mfma, LayoutPositions) {
  std::vector<float> a(32 * 16, 0.f), b(16 * 32, 0.f), c(32 * 32, 0.f);
  a[1 * 16 + 0] = 1.0f;    // A[1][0]   -> lane 1, element 0
  b[0 * 32 + 5] = 2.0f;    // B[0][5]   -> lane 5, element 0
  a[13 * 16 + 9] = 3.0f;   // A[13][9]  -> lane 45, element 1
  b[9 * 32 + 20] = 0.5f;   // B[9][20]  -> lane 52, element 1
  c[30 * 32 + 7] = 10.0f;  // C[30][7]  -> lane 39, register 14
  MfmaCase<dl::f16> mc;
  mc.set(a, b, c);
  // Check the test's own layout against hand-computed positions.
  ASSERT_EQ((float)mc.afrag[1 * 8 + 0], 1.0f);
  ASSERT_EQ((float)mc.afrag[45 * 8 + 1], 3.0f);
  ASSERT_EQ((float)mc.bfrag[5 * 8 + 0], 2.0f);
  ASSERT_EQ((float)mc.bfrag[52 * 8 + 1], 0.5f);
  ASSERT_EQ(mc.cfrag[39 * 16 + 14], 10.0f);
  Result r = mc.run(k_mfma_f16, "k_mfma_f16");
  ASSERT_TRUE(r.ok) << r.error;
  // D[1][5] = 2 at lane 5, register 1; D[13][20] = 1.5 at lane 52, register 5
  // (row 13 = 8 + 4 + 1: upper half-wave, register 4*1 + 1); C[30][7] kept.
  for (int l = 0; l < 64; ++l)
    for (int reg = 0; reg < 16; ++reg) {
      float want = 0.f;
      if (l == 5 && reg == 1) want = 2.0f;
      if (l == 52 && reg == 5) want = 1.5f;
      if (l == 39 && reg == 14) want = 10.0f;
      EXPECT_EQ(mc.cfrag[l * 16 + reg], want) << "lane " << l << " register " << reg;
    }
}

TEST(Mfma16, F16RandomMatchesMatrixProduct) {
  for (uint32_t s = 21; s <= 23; ++s) mfma_random_test<dl::f16, 16>(k_mfma16_f16, "k_mfma16_f16", s);
}

TEST(Mfma16, Bf16RandomMatchesMatrixProduct) {
  for (uint32_t s = 31; s <= 33; ++s) mfma_random_test<dl::bf16, 16>(k_mfma16_bf16, "k_mfma16_bf16", s);
}

// 16x16x32: single non-zero products at hand-computed positions (four lane
// groups of 16 along K for A / B, along the rows of D).
TEST(Mfma16, LayoutPositions) {
  std::vector<float> a(16 * 32, 0.f), b(32 * 16, 0.f), c(16 * 16, 0.f);
  a[3 * 32 + 0] = 1.0f;     // A[3][0]   -> lane 3, element 0
  b[0 * 16 + 7] = 2.0f;     // B[0][7]   -> lane 7, element 0
  a[9 * 32 + 27] = 3.0f;    // A[9][27]  -> lane 9 + 48 = 57, element 3
  b[27 * 16 + 14] = 0.5f;   // B[27][14] -> lane 14 + 48 = 62, element 3
  c[13 * 16 + 2] = 10.0f;   // C[13][2]  -> lane 2 + 48 = 50, register 1
  MfmaCase<dl::f16, 16> mc;
  mc.set(a, b, c);
  ASSERT_EQ((float)mc.afrag[3 * 8 + 0], 1.0f);
  ASSERT_EQ((float)mc.afrag[57 * 8 + 3], 3.0f);
  ASSERT_EQ((float)mc.bfrag[7 * 8 + 0], 2.0f);
  ASSERT_EQ((float)mc.bfrag[62 * 8 + 3], 0.5f);
  ASSERT_EQ(mc.cfrag[50 * 4 + 1], 10.0f);
  Result r = mc.run(k_mfma16_f16, "k_mfma16_f16");
  ASSERT_TRUE(r.ok) << r.error;
  // D[3][7] = 2 at lane 7 + 16 * 0, register 3; D[9][14] = 1.5 at lane
  // 14 + 16 * 2 = 46, register 1; C[13][2] kept.
  for (int l = 0; l < 64; ++l)
    for (int reg = 0; reg < 4; ++reg) {
      float want = 0.f;
      if (l == 7 && reg == 3) want = 2.0f;
      if (l == 46 && reg == 1) want = 1.5f;
      if (l == 50 && reg == 1) want = 10.0f;
      EXPECT_EQ(mc.cfrag[l * 4 + reg], want) << "lane " << l << " register " << reg;
    }
}

TEST(Mfma16, Wave32IsAnError) {
  MfmaCase<dl::f16, 16> mc;
  Result r = mc.run(k_mfma16_f16, "k_mfma16_f16", 32);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "wave64")) << r.error;
}

TEST(Mfma, Wave32IsAnError) {
  MfmaCase<dl::bf16> mc;
  Result r = mc.run(k_mfma_bf16, "k_mfma_bf16", 32);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "wave64")) << r.error;
}

// ===========================================================================
// Wave operations

namespace {
constexpr int kWaveOut = 8;
}

UATTN_GLOBAL void k_wave_ops(AttnParams p) {
  uint32_t* out = static_cast<uint32_t*>(p.out) + dl::thread_id() * kWaveOut;
  const int t = dl::thread_id(), l = dl::lane_id(), ws = dl::wave_size();
  float s = (float)(t + 1), mx = (float)((t * 37) % 101);
  for (int m = ws / 2; m >= 1; m >>= 1) {
    s += dl::shfl_xor(s, m);
    mx = std::fmax(mx, dl::shfl_xor(mx, m));
  }
  out[0] = dl::float_as_bits(s);
  out[1] = dl::float_as_bits(mx);
  out[2] = dl::shfl_bits((uint32_t)t, l + 1);  // rotate; lane ws-1 wraps to 0
  out[3] = dl::shfl_bits((uint32_t)t, -1);      // -1 wraps to ws-1
  out[4] = dl::readfirstlane((uint32_t)t + 100);
  const uint64_t b = dl::ballot(l % 3 == 0 || t == 5);
  out[5] = (uint32_t)b;
  out[6] = (uint32_t)(b >> 32);
  out[7] = (uint32_t)dl::wave_id();
}

namespace {
void wave_ops_test(int ws, int waves) {
  const int n = ws * waves;
  std::vector<uint32_t> out(n * kWaveOut, 0xDEADBEEFu);
  Result r = launch(k_wave_ops, make_launch("k_wave_ops", n, ws, 0), params(nullptr, out.data()));
  ASSERT_TRUE(r.ok) << r.error;
  for (int t = 0; t < n; ++t) {
    const int w = t / ws, l = t % ws, base = w * ws;
    const uint32_t* o = &out[t * kWaveOut];
    float sum = 0, mx = 0;
    uint64_t mask = 0;
    for (int i = 0; i < ws; ++i) {
      sum += (float)(base + i + 1);
      mx = std::fmax(mx, (float)(((base + i) * 37) % 101));
      if (i % 3 == 0 || base + i == 5) mask |= 1ull << i;
    }
    EXPECT_EQ(dl::bits_as_float(o[0]), sum) << "t=" << t;
    EXPECT_EQ(dl::bits_as_float(o[1]), mx) << "t=" << t;
    EXPECT_EQ(o[2], (uint32_t)(base + (l + 1) % ws)) << "t=" << t;
    EXPECT_EQ(o[3], (uint32_t)(base + ws - 1)) << "t=" << t;
    EXPECT_EQ(o[4], (uint32_t)(base + 100)) << "t=" << t;
    EXPECT_EQ(o[5], (uint32_t)mask) << "t=" << t;
    EXPECT_EQ(o[6], (uint32_t)(mask >> 32)) << "t=" << t;
    EXPECT_EQ(o[7], (uint32_t)w) << "t=" << t;
  }
}
}  // namespace

TEST(WaveOps, Wave64ReductionsReadfirstlaneBallot) { wave_ops_test(64, 2); }
TEST(WaveOps, Wave32ReductionsReadfirstlaneBallot) { wave_ops_test(32, 3); }

UATTN_GLOBAL void k_exp2(AttnParams p) {
  float* out = static_cast<float*>(p.out);
  if (dl::thread_id() == 0) {
    out[0] = dl::exp2(-INFINITY);
    out[1] = dl::exp2(3.0f);
    out[2] = dl::exp2(-1.5f);
  }
}

TEST(WaveOps, Exp2) {
  float out[3] = {1, 1, 1};
  Result r = launch(k_exp2, make_launch("k_exp2", 32, 32, 0), params(nullptr, out));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], 8.0f);
  EXPECT_EQ(out[2], std::exp2(-1.5f));
}

// dl::rcp_approx stands for v_rcp_f32 (RDNA2 / CDNA3 ISA, "VOP1", v_rcp_f32:
// 1 ULP). The host stand-in is the correctly rounded quotient; this checks it
// honours the instruction's documented special cases (rcp(+-0) = +-inf,
// rcp(+-inf) = +-0, rcp(NaN) = NaN, exact powers of two) and the 1 ULP bound
// on [1, 2], the range softcap_tanh uses.
TEST(WaveOps, RcpApprox) {
  EXPECT_EQ(dl::rcp_approx(0.0f), INFINITY);
  EXPECT_EQ(dl::rcp_approx(-0.0f), -INFINITY);
  EXPECT_EQ(dl::rcp_approx(INFINITY), 0.0f);
  EXPECT_TRUE(std::signbit(dl::rcp_approx(-INFINITY)));
  EXPECT_TRUE(std::isnan(dl::rcp_approx(NAN)));
  EXPECT_EQ(dl::rcp_approx(4.0f), 0.25f);
  EXPECT_EQ(dl::rcp_approx(-0.5f), -2.0f);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(1.0f, 2.0f);
  for (int i = 0; i < 1000; ++i) {
    const float x = u(rng);
    EXPECT_NEAR(dl::rcp_approx(x), 1.0 / (double)x, std::ldexp(1.0, -24)) << x;  // 1 ULP in [0.5, 1]
  }
}

// softcap_tanh against the fp64 definition unit |cap| tanh(scale s / |cap|)
// (SPEC.md s.1 step 2), both signs of s and of the softcap, both units (the
// MFMA body's log2-domain logits, the dot2 body's natural ones), scores from
// 0 and 1e-30 (the small-argument form) into the saturated range, +-inf, and
// softcaps up to 3e38 (clamped to 2^64 inside). Relative bound 2.5e-5 (the
// function's 2e-5 plus the constants' rounding; softcap_tanh<false>: plus an
// absolute 1.2e-7 c); the host's exp2 and rcp_approx are exact, so this
// checks the formula, not the device ULPs.
TEST(Softcap, MatchesFp64Tanh) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-60.0f, 60.0f);
  std::uniform_real_distribution<float> lg(-30.0f, 2.0f);  // log10 |s|
  for (float cap : {50.0f, 30.0f, -30.0f, 1.0f, 0.25f, 1e6f, 1e30f, 3e38f}) {
    for (float scale : {0.0883883f, 1.0f}) {
      for (float unit : {1.0f, uattn::kLog2e}) {
        float b, c, e;
        uattn::softcap_consts(cap, scale, unit, b, c, e);
        for (int i = 0; i < 3000; ++i) {
          float s;
          if (i < 2) s = i == 0 ? 0.0f : -0.0f;
          else if (i < 1000) s = u(rng);
          else s = (i % 2 ? 1.0f : -1.0f) * std::pow(10.0f, lg(rng));
          const double ac = std::fabs((double)cap);
          const double want = unit * ac * std::tanh((double)scale * s / ac);
          const float got = uattn::softcap_tanh(s, b, c, e);
          EXPECT_NEAR(got, want, 2.5e-5 * std::fabs(want)) << "cap " << cap << " scale " << scale << " unit " << unit << " s " << s;
          if (s == 0.0f) EXPECT_EQ(std::signbit(got), std::signbit(s));
          // Without the small-argument form: absolute error < 1.2e-7 c (plus the relative bound).
          const float fast = uattn::softcap_tanh<false>(s, b, c, e);
          EXPECT_NEAR(fast, want, 2.5e-5 * std::fabs(want) + 1.2e-7 * c) << "cap " << cap << " s " << s;
        }
        EXPECT_EQ(uattn::softcap_tanh(INFINITY, b, c, e), c) << cap;
        EXPECT_EQ(uattn::softcap_tanh<false>(-INFINITY, b, c, e), -c) << cap;
        EXPECT_EQ(uattn::softcap_tanh(-INFINITY, b, c, e), -c) << cap;
        EXPECT_TRUE(std::isnan(uattn::softcap_tanh(NAN, b, c, e)));
      }
    }
  }
}

// ===========================================================================
// Barriers and the LDS race detector

// Each lane stores to its slot and reads the slot of the lane half a
// workgroup away, i.e. a lane of another wave.
template <bool kSync>
void prodcons(AttnParams p) {
  UATTN_LDS_DECL(smem, 0);
  const int t = dl::thread_id(), n = (int)p.num_tokens;
  dl::Lds<uint32_t> buf{smem, 0, (uint32_t)n};
  buf.st(t, (uint32_t)(t * 2 + 1));
  if (kSync) dl::barrier();
  static_cast<uint32_t*>(p.out)[t] = buf.ld((t + n / 2) % n);
}
UATTN_GLOBAL void k_prodcons(AttnParams p) { prodcons<true>(p); }
UATTN_GLOBAL void k_prodcons_nobarrier(AttnParams p) { prodcons<false>(p); }

namespace {
void prodcons_test(int ws, int waves) {
  const int n = ws * waves;
  std::vector<uint32_t> out(n, 0);
  AttnParams p = params(nullptr, out.data());
  p.num_tokens = n;
  Result r = launch(k_prodcons, make_launch("k_prodcons", n, ws, n * 4), p);
  ASSERT_TRUE(r.ok) << r.error;
  for (int t = 0; t < n; ++t) EXPECT_EQ(out[t], (uint32_t)(((t + n / 2) % n) * 2 + 1)) << t;

  r = launch(k_prodcons_nobarrier, make_launch("k_prodcons_nobarrier", n, ws, n * 4), p);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "LDS race")) << r.error;
  EXPECT_TRUE(contains(r.error, "k_prodcons_nobarrier")) << r.error;
  EXPECT_TRUE(contains(r.error, "workgroup (0,0,0)")) << r.error;
}
}  // namespace

TEST(Barrier, ProducerConsumerAcrossWaves64) { prodcons_test(64, 2); }
TEST(Barrier, ProducerConsumerAcrossWaves32) { prodcons_test(32, 4); }

// Double buffer over several iterations: a write after other lanes' reads is
// fine when a barrier separates them; epochs keep working across iterations.
UATTN_GLOBAL void k_pingpong(AttnParams p) {
  UATTN_LDS_DECL(smem, 0);
  const int t = dl::thread_id(), n = 128;
  dl::Lds<float> buf{smem, 0, (uint32_t)n};
  float acc = 0;
  for (int it = 0; it < 5; ++it) {
    buf.st(t, (float)(t + it));
    dl::barrier();
    acc += buf.ld((t + 1) % n) + buf.ld(0);  // many lanes read slot 0: no race
    dl::barrier();
  }
  static_cast<float*>(p.out)[t] = acc;
}

TEST(Barrier, RepeatedBarriersNoFalseRace) {
  std::vector<float> out(128);
  Result r = launch(k_pingpong, make_launch("k_pingpong", 128, 64, 512), params(nullptr, out.data()));
  ASSERT_TRUE(r.ok) << r.error;
  for (int t = 0; t < 128; ++t) {
    float want = 0;
    for (int it = 0; it < 5; ++it) want += (float)((t + 1) % 128 + it) + (float)it;
    EXPECT_EQ(out[t], want);
  }
}

// Removing the second barrier of the double buffer: the next iteration's
// store by wave 1 overwrites a slot wave 0 may still read (write-after-read;
// the engine runs wave 0 to its barrier first, so the read is seen first).
UATTN_GLOBAL void k_pingpong_missing_second(AttnParams p) {
  UATTN_LDS_DECL(smem, 0);
  const int t = dl::thread_id(), n = 128;
  dl::Lds<float> buf{smem, 0, (uint32_t)n};
  float acc = 0;
  for (int it = 0; it < 2; ++it) {
    buf.st(t, (float)(t + it));
    dl::barrier();
    if (dl::wave_id() == 0) acc += buf.ld(t + 64);
  }
  static_cast<float*>(p.out)[t] = acc;
}

TEST(Barrier, WriteAfterReadRace) {
  std::vector<float> out(128);
  Result r = launch(k_pingpong_missing_second, make_launch("k_pingpong_missing_second", 128, 64, 512),
                    params(nullptr, out.data()));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "race")) << r.error;
  EXPECT_TRUE(contains(r.error, "lane 64 (wave 1) writes byte offset 256")) << r.error;
  EXPECT_TRUE(contains(r.error, "lane 0 (wave 0) read ")) << r.error;
}

// Intra-wave exchange through LDS ordered by a wave barrier.
template <bool kSync>
void wave_exchange(AttnParams p) {
  UATTN_LDS_DECL(smem, 0);
  const int t = dl::thread_id();
  dl::Lds<uint32_t> buf{smem, 0, 256};
  buf.st(t, (uint32_t)t * 7);
  if (kSync) dl::wave_barrier();
  const int partner = p.num_tokens ? (t + 64) % 128 : (t ^ 1);
  static_cast<uint32_t*>(p.out)[t] = buf.ld(partner);
}
UATTN_GLOBAL void k_wave_exchange(AttnParams p) { wave_exchange<true>(p); }
UATTN_GLOBAL void k_wave_exchange_nosync(AttnParams p) { wave_exchange<false>(p); }

TEST(WaveBarrier, OrdersIntraWaveExchange) {
  std::vector<uint32_t> out(64);
  Result r = launch(k_wave_exchange, make_launch("k_wave_exchange", 64, 64, 1024), params(nullptr, out.data()));
  ASSERT_TRUE(r.ok) << r.error;
  for (int t = 0; t < 64; ++t) EXPECT_EQ(out[t], (uint32_t)(t ^ 1) * 7);

  r = launch(k_wave_exchange_nosync, make_launch("k_wave_exchange_nosync", 64, 64, 1024),
             params(nullptr, out.data()));
  EXPECT_FALSE(r.ok);
  // Lane 0 reads slot 1 (bytes 4..7) first; lane 1 then writes it.
  EXPECT_TRUE(contains(r.error, "LDS race")) << r.error;
  EXPECT_TRUE(contains(r.error, "lane 1 (wave 0) writes byte offset 4")) << r.error;
  EXPECT_TRUE(contains(r.error, "lane 0 (wave 0) read")) << r.error;
}

TEST(WaveBarrier, DoesNotOrderAcrossWaves) {
  std::vector<uint32_t> out(128);
  AttnParams p = params(nullptr, out.data());
  p.num_tokens = 1;  // partner in the other wave
  Result r = launch(k_wave_exchange, make_launch("k_wave_exchange", 128, 64, 1024), p);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "LDS race")) << r.error;
}

// Shuffles order LDS within a wave like wave_barrier (any wave-level op).
UATTN_GLOBAL void k_shfl_orders_lds(AttnParams p) {
  UATTN_LDS_DECL(smem, 0);
  const int t = dl::thread_id();
  dl::Lds<uint32_t> buf{smem, 0, 32};
  buf.st(t, 1u);
  const uint64_t b = dl::ballot(true);
  static_cast<uint32_t*>(p.out)[t] = buf.ld(31 - t) + (uint32_t)(b != 0);
}

TEST(WaveBarrier, BallotOrdersIntraWaveLds) {
  std::vector<uint32_t> out(32);
  Result r = launch(k_shfl_orders_lds, make_launch("k_shfl_orders_lds", 32, 32, 128), params(nullptr, out.data()));
  ASSERT_TRUE(r.ok) << r.error;
  for (uint32_t v : out) EXPECT_EQ(v, 2u);
}

// ===========================================================================
// Partial waves, deadlocks, faults inside lanes

namespace {
int g_dtors = 0;
struct Tracker {
  ~Tracker() { ++g_dtors; }
};
}  // namespace

UATTN_GLOBAL void k_divergent_shfl(AttnParams p) {
  Tracker tr;
  float x = (float)dl::lane_id();
  if (dl::lane_id() < 32) x = dl::shfl_xor(x, 1);
  static_cast<float*>(p.out)[dl::thread_id()] = x;
}

TEST(PartialWave, ShuffleInDivergentBranch) {
  std::vector<float> out(64);
  g_dtors = 0;
  Result r = launch(k_divergent_shfl, make_launch("k_divergent_shfl", 64, 64, 0), params(nullptr, out.data()));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "partial wave")) << r.error;
  EXPECT_TRUE(contains(r.error, "op shfl reached by 32 of 64 lanes")) << r.error;
  EXPECT_TRUE(contains(r.error, "k_divergent_shfl")) << r.error;
  EXPECT_TRUE(contains(r.error, "lane 32 is finished")) << r.error;
  // 32 lanes finished normally, 32 were unwound: every destructor ran.
  EXPECT_EQ(g_dtors, 64);
}

UATTN_GLOBAL void k_mismatched_ops(AttnParams p) {
  Tracker tr;
  uint32_t v;
  if (dl::lane_id() < 16) v = dl::readfirstlane(1u);
  else v = (uint32_t)dl::ballot(true);
  static_cast<uint32_t*>(p.out)[dl::thread_id()] = v;
}

TEST(PartialWave, DifferentOperationsInOneWave) {
  std::vector<uint32_t> out(32);
  g_dtors = 0;
  Result r = launch(k_mismatched_ops, make_launch("k_mismatched_ops", 32, 32, 0), params(nullptr, out.data()));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "op readfirstlane reached by 16 of 32 lanes")) << r.error;
  EXPECT_TRUE(contains(r.error, "lane 16 is ballot")) << r.error;
  EXPECT_EQ(g_dtors, 32);
}

UATTN_GLOBAL void k_half_wave_barrier(AttnParams p) {
  (void)p;
  if (dl::lane_id() >= 8) return;
  dl::barrier();
}

TEST(PartialWave, BarrierReachedByPartOfAWave) {
  Result r = launch(k_half_wave_barrier, make_launch("k_half_wave_barrier", 64, 32, 0), params(nullptr, nullptr));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "op barrier reached by 8 of 32 lanes")) << r.error;
  EXPECT_TRUE(contains(r.error, "deadlock")) << r.error;
}

// A whole wave leaving early is fine: the barrier waits only for lanes that
// have not finished (s_barrier ignores ended waves).
UATTN_GLOBAL void k_wave_exits_early(AttnParams p) {
  if (dl::wave_id() == 1) return;
  dl::barrier();
  static_cast<uint32_t*>(p.out)[dl::thread_id()] = 1;
}

TEST(PartialWave, WholeWaveExitBeforeBarrierIsFine) {
  std::vector<uint32_t> out(96, 0);
  Result r = launch(k_wave_exits_early, make_launch("k_wave_exits_early", 96, 32, 0), params(nullptr, out.data()));
  ASSERT_TRUE(r.ok) << r.error;
  for (int t = 0; t < 96; ++t) EXPECT_EQ(out[t], t / 32 == 1 ? 0u : 1u);
}

UATTN_GLOBAL void k_lds_oob(AttnParams p) {
  UATTN_LDS_DECL(smem, 0);
  dl::Lds<uint32_t> buf{smem, 0, 64};
  const int t = dl::thread_id();
  static_cast<uint32_t*>(p.out)[t] = buf.ld(t == 5 ? 64 : t);
}

TEST(Lds, OutOfRangeRead) {
  std::vector<uint32_t> out(64);
  g_dtors = 0;
  Result r = launch(k_lds_oob, make_launch("k_lds_oob", 64, 64, 256), params(nullptr, out.data()));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "LDS access out of range")) << r.error;
  EXPECT_TRUE(contains(r.error, "lane 5 reads 4 bytes at offset 256")) << r.error;
  EXPECT_TRUE(contains(r.error, "256 bytes")) << r.error;
}

UATTN_GLOBAL void k_throws(AttnParams) {
  Tracker tr;
  dl::wave_barrier();
  if (dl::thread_id() == 3) throw std::runtime_error("boom");
  dl::wave_barrier();
}

TEST(Faults, KernelExceptionFailsLaunch) {
  g_dtors = 0;
  Result r = launch(k_throws, make_launch("k_throws", 32, 32, 0), params(nullptr, nullptr));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "lane 3: kernel threw an exception: boom")) << r.error;
  EXPECT_EQ(g_dtors, 32);  // lane 3 unwound by its exception, the other 31 by the engine
  // The engine is usable afterwards.
  std::vector<float> out(128);
  r = launch(k_pingpong, make_launch("k_pingpong", 128, 64, 512), params(nullptr, out.data()));
  EXPECT_TRUE(r.ok) << r.error;
}

TEST(Faults, BadLaunchConfiguration) {
  Result r = launch(k_exp2, make_launch("k_exp2", 48, 32, 0), params(nullptr, nullptr));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "multiple of wave_size")) << r.error;
  r = launch(k_exp2, make_launch("k_exp2", 64, 16, 0), params(nullptr, nullptr));
  EXPECT_FALSE(r.ok);
}

// ===========================================================================
// Guard pages (death tests: the process exits with code 3)

UATTN_GLOBAL void k_oob_global(AttnParams p) {
  const float* q = static_cast<const float*>(p.q);
  const int t = dl::thread_id();
  const int idx = t == 3 ? 10 : t % 10;  // lane 3 reads one element past the end
  static_cast<volatile float*>(p.out)[t] = q[idx];
}

UATTN_GLOBAL void k_underflow_global(AttnParams p) {
  const char* q = static_cast<const char*>(p.q);
  static_cast<volatile char*>(p.out)[dl::thread_id()] = dl::thread_id() == 7 ? *(q - 5000) : q[0];
}

TEST(GuardedDeathTest, ReadOnePastTheEnd) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  float* q = guarded_array<float>(10, "q_buf");
  float* out = guarded_array<float>(64, "out_buf");
  ASSERT_NE(q, nullptr);
  EXPECT_EXIT(launch(k_oob_global, make_launch("k_oob_global", 64, 64, 0), params(q, out)),
              ::testing::ExitedWithCode(3),
              "out-of-bounds access in kernel k_oob_global \\(workgroup 0,0,0 lane 3\\): 0 bytes past the end "
              "of buffer 'q_buf' \\(size 40");
  guarded_free(q);
  guarded_free(out);
}

TEST(GuardedDeathTest, ReadBeforeTheStart) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  char* q = guarded_array<char>(40, "k_buf");
  char* out = guarded_array<char>(64, "out_buf");
  EXPECT_EXIT(launch(k_underflow_global, make_launch("k_underflow_global", 64, 64, 0), params(q, out)),
              ::testing::ExitedWithCode(3), "lane 7\\): [0-9]+ bytes before the start of buffer 'k_buf'");
  guarded_free(q);
  guarded_free(out);
}

TEST(Guarded, InBoundsAccessAndEndPlacement) {
  float* q = guarded_array<float>(10, "q_buf");
  ASSERT_NE(q, nullptr);
  // The buffer ends exactly at a page boundary.
  EXPECT_EQ(((uintptr_t)(q + 10)) % (uintptr_t)sysconf(_SC_PAGESIZE), 0u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(q[i], 0.0f);
  q[9] = 1.0f;
  guarded_free(q);
}

// ===========================================================================
// Several workgroups

UATTN_GLOBAL void k_blocks(AttnParams p) {
  UATTN_LDS_DECL(smem, 0);
  dl::Lds<uint32_t> buf{smem, 0, 4};
  const int t = dl::thread_id();
  const uint32_t id = (uint32_t)(dl::block_id_x() + 3 * (dl::block_id_y() + 2 * dl::block_id_z()));
  uint32_t seen = 0;
  if (t == 0) seen = buf.ld(0);  // fresh arena: poison 0xFFFFFFFF
  dl::barrier();
  if (t == 0) buf.st(0, id);
  dl::barrier();
  uint32_t* o = static_cast<uint32_t*>(p.out) + (id * 64 + t) * 5;
  o[0] = (uint32_t)dl::block_id_x();
  o[1] = (uint32_t)dl::block_id_y();
  o[2] = (uint32_t)dl::block_id_z();
  o[3] = buf.ld(0);
  o[4] = seen;
}

TEST(Workgroups, BlockIdsAndFreshLds) {
  std::vector<uint32_t> out(12 * 64 * 5, 7);
  Result r = launch(k_blocks, make_launch("k_blocks", 64, 64, 16, 3, 2, 2), params(nullptr, out.data()));
  ASSERT_TRUE(r.ok) << r.error;
  for (uint32_t z = 0; z < 2; ++z)
    for (uint32_t y = 0; y < 2; ++y)
      for (uint32_t x = 0; x < 3; ++x) {
        const uint32_t id = x + 3 * (y + 2 * z);
        for (int t = 0; t < 64; ++t) {
          const uint32_t* o = &out[(id * 64 + t) * 5];
          EXPECT_EQ(o[0], x);
          EXPECT_EQ(o[1], y);
          EXPECT_EQ(o[2], z);
          EXPECT_EQ(o[3], id);
          EXPECT_EQ(o[4], t == 0 ? 0xFFFFFFFFu : 0u) << "workgroup " << id << " lane " << t;
        }
      }
}

// Race reports name the workgroup they happen in.
UATTN_GLOBAL void k_race_in_last_block(AttnParams p) {
  UATTN_LDS_DECL(smem, 0);
  dl::Lds<uint32_t> buf{smem, 0, 128};
  const int t = dl::thread_id();
  const bool racy = dl::block_id_x() == 1 && dl::block_id_y() == 1;
  buf.st(t, 1);
  if (!racy) dl::barrier();
  (void)p;
  (void)buf.ld((t + 64) % 128);
}

TEST(Workgroups, RaceNamesWorkgroup) {
  Result r = launch(k_race_in_last_block, make_launch("k_race_in_last_block", 128, 64, 512, 2, 2, 1),
                    params(nullptr, nullptr));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "workgroup (1,1,0)")) << r.error;
}

// ===========================================================================
// Throughput smoke test: 256 workgroups x 64 lanes x 64 collective ops.

UATTN_GLOBAL void k_busy(AttnParams p) {
  UATTN_LDS_DECL(smem, 0);
  dl::Lds<float> buf{smem, 0, 64};
  const int t = dl::thread_id();
  float x = (float)t;
  for (int it = 0; it < 16; ++it) {
    for (int m = 32; m >= 1; m >>= 1) x += dl::shfl_xor(x, m) * 1e-3f;
    buf.st(t, x);
    dl::barrier();
    x += buf.ld(63 - t) * 1e-3f;
    dl::barrier();
  }
  if (t == 0) static_cast<float*>(p.out)[dl::block_id_x()] = x;
}

TEST(Performance, ManyWorkgroups) {
  std::vector<float> out(256);
  const auto t0 = std::chrono::steady_clock::now();
  Result r = launch(k_busy, make_launch("k_busy", 64, 64, 256, 256), params(nullptr, out.data()));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok) << r.error;
  printf("[ perf     ] 256 workgroups x 64 lanes x 128 sync points: %.3f s\n", s);
  EXPECT_LT(s, 30.0);
}

// v_cvt_pk_f32_fp8 emulation against the OCP E4M3 definition (OFP8 rev 1.0,
// s.5: bias 7, subnormals m/8 * 2^-6, S.1111.111 = NaN, no infinities),
// evaluated here independently with ldexp for every one of the 256 codes, in
// both word positions and both byte positions of the selected word.
TEST(Fp8, CvtPkF32Fp8EveryCode) {
  const auto ocp = [](unsigned b) {
    const int e = (b >> 3) & 15, m = b & 7;
    if (e == 15 && m == 7) return std::nan("");
    const double mag = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
    return (b & 0x80) ? -mag : mag;
  };
  for (unsigned b = 0; b < 256; ++b) {
    const unsigned other = (b * 37u + 11u) & 0xFFu;
    for (int hi = 0; hi < 2; ++hi) {
      for (int pos = 0; pos < 2; ++pos) {
        const uint32_t word = pos == 0 ? (b | other << 8) : (other | b << 8);
        const uint32_t bits = hi ? (word << 16) | 0x7F7Fu : word | 0x7F7F0000u;  // NaN codes in the unselected word
        float x0, x1;
        dl::cvt_pk_f32_fp8(bits, hi != 0, x0, x1);
        const float got = pos == 0 ? x0 : x1;
        const double want = ocp(b);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got)) << "code " << b;
        } else {
          EXPECT_EQ((double)got, want) << "code " << b << " hi " << hi << " pos " << pos;
          EXPECT_EQ(std::signbit(got), (b & 0x80) != 0) << "code " << b;  // -0 stays -0
        }
      }
    }
  }
}

// v_cvt_scalef32_pk_{f16,bf16}_fp8 (scale 1.0) emulation: every code, both
// words and bytes, equals the OCP value (exactly representable in f16 / bf16).
template <class T>
void cvt_pk_fp8_every_code() {
  for (unsigned b = 0; b < 256; ++b) {
    const int e = (b >> 3) & 15, m = b & 7;
    const bool nan = e == 15 && m == 7;
    const double mag = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
    const double want = (b & 0x80) ? -mag : mag;
    for (int hi = 0; hi < 2; ++hi)
      for (int pos = 0; pos < 2; ++pos) {
        const uint32_t word = pos == 0 ? (b | 0x3800u) : (0x38u | b << 8);
        const uint32_t bits = hi ? word << 16 : word;
        T x0, x1;
        dl::cvt_pk_fp8(bits, hi != 0, x0, x1);
        const float got = (float)(pos == 0 ? x0 : x1);
        if (nan) EXPECT_TRUE(std::isnan(got)) << "code " << b;
        else EXPECT_EQ((double)got, want) << "code " << b << " hi " << hi << " pos " << pos;
      }
  }
}
TEST(Fp8, CvtPkF16Fp8EveryCode) { cvt_pk_fp8_every_code<dl::f16>(); }
TEST(Fp8, CvtPkBf16Fp8EveryCode) { cvt_pk_fp8_every_code<dl::bf16>(); }

UATTN_GLOBAL void k_vec_global(AttnParams p) {
  const int t = dl::thread_id();
  const dl::f16* q = static_cast<const dl::f16*>(p.q);
  // p.num_seqs = element offset of the row: 0 is 16-byte aligned, 3 is not.
  const dl::vec<dl::f16, 8> v = dl::ldg<8>(q + p.num_seqs + 8 * t);
  dl::stg<8>(static_cast<dl::f16*>(p.out) + 8 * t, v);
}

TEST(VectorAccess, AlignedGlobalLoadStoreAndMisalignedFails) {
  alignas(16) dl::f16 in[8 * 64 + 8];
  alignas(16) dl::f16 out[8 * 64];
  for (int i = 0; i < 8 * 64 + 8; ++i) in[i] = (dl::f16)(float)(i % 97);
  AttnParams p = params(in, out);
  p.num_seqs = 0;
  Result r = launch(k_vec_global, make_launch("k_vec_global", 64, 64, 0), p);
  ASSERT_TRUE(r.ok) << r.error;
  for (int i = 0; i < 8 * 64; ++i) ASSERT_EQ((float)out[i], (float)in[i]) << i;
  p.num_seqs = 3;
  r = launch(k_vec_global, make_launch("k_vec_global", 64, 64, 0), p);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "misaligned vector access")) << r.error;
  EXPECT_TRUE(contains(r.error, "reads 16 bytes")) << r.error;
}

UATTN_GLOBAL void k_lds_misaligned(AttnParams) {
  UATTN_LDS_DECL(smem, 0);
  dl::Lds<dl::f16> buf{smem, 0, 64 * 16};
  const int t = dl::thread_id();
  dl::vec<dl::f16, 8> v;
  for (int e = 0; e < 8; ++e) v[e] = (dl::f16)1.0f;
  buf.st_vec<8>(t * 8 + (t == 9 ? 4 : 0), v);  // lane 9: 8 bytes past a 16-byte boundary
}

TEST(VectorAccess, MisalignedLdsVectorFails) {
  Result r = launch(k_lds_misaligned, make_launch("k_lds_misaligned", 64, 64, 64 * 16 * 2 + 16), params(nullptr, nullptr));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.error, "misaligned LDS access")) << r.error;
  EXPECT_TRUE(contains(r.error, "lane 9 writes 16 bytes at offset 152")) << r.error;
}
