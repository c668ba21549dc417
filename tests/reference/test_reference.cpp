// Tests of the fp64 reference: closed-form cases built by hand, dtype decoders over
// every code, paging / layout invariance on hostile builder problems.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "problem.hpp"
#include "reference.hpp"
#include "uattn/device/types.hpp"  // only to cross-check the decoders (never used by the reference)

namespace {

using uattn::AttnParams;
using uattn::DType;
using uattn::ref::attention;
using uattn::ref::RefInputs;
namespace ut = uattn::testing;

// A hand-made problem: dense q [T][Hq][D] (f16), caches [blocks][bs][Hkv][D] of
// kv_dtype, blocks handed out in reverse order (so the table is not the identity),
// every cache element NaN until set.
struct Hand {
  int Hq, Hkv, D, bs;
  DType kv_dtype;
  std::vector<std::pair<int, int>> seqs;
  std::vector<uint16_t> q;
  std::vector<uint8_t> k, v;  // raw bytes
  std::vector<int32_t> cu{0}, used, bt;
  int64_t bt_stride = 0;
  int num_blocks = 0;
  std::vector<float> alibi, qq, sinks;
  AttnParams p{};

  Hand(int hq, int hkv, int d, int block, std::vector<std::pair<int, int>> s, DType kvd = DType::f16)
      : Hq(hq), Hkv(hkv), D(d), bs(block), kv_dtype(kvd), seqs(std::move(s)) {
    for (auto [ql, kl] : seqs) {
      cu.push_back(cu.back() + ql);
      used.push_back(kl);
      bt_stride = std::max<int64_t>(bt_stride, (kl + bs - 1) / bs);
      num_blocks += (kl + bs - 1) / bs;
    }
    bt_stride += 1;
    bt.assign(seqs.size() * bt_stride, -7);  // unused entries: garbage
    int next = num_blocks - 1;
    for (size_t i = 0; i < seqs.size(); ++i)
      for (int b = 0; b < (seqs[i].second + bs - 1) / bs; ++b) bt[i * bt_stride + b] = next--;
    q.assign((size_t)cu.back() * Hq * D, 0);
    const int eb = uattn::ref::dtype_bytes(kv_dtype);
    k.assign((size_t)num_blocks * bs * Hkv * D * eb, 0);
    v.assign(k.size(), 0);
    for (size_t e = 0; e < k.size() / eb; ++e) {  // NaN everywhere
      if (eb == 1) {
        k[e] = v[e] = 0x7F;
      } else {
        uint16_t n = 0x7E00;
        std::memcpy(&k[e * 2], &n, 2);
        std::memcpy(&v[e * 2], &n, 2);
      }
    }
    p.q_stride_token = (int64_t)Hq * D;
    p.q_stride_head = D;
    p.k_stride_block = p.v_stride_block = (int64_t)bs * Hkv * D;
    p.k_stride_slot = p.v_stride_slot = (int64_t)Hkv * D;
    p.k_stride_head = p.v_stride_head = D;
    p.o_stride_token = (int64_t)Hq * D;
    p.o_stride_head = D;
    p.num_q_heads = Hq;
    p.num_kv_heads = Hkv;
    p.head_size = D;
    p.block_size = bs;
    p.window_left = -1;
    p.softmax_scale = 1;
    p.k_scale = p.v_scale = p.output_scale = 1;
    p.out_dtype = (int32_t)DType::f16;
    p.num_segments = 1;
  }
  void set_q(int token, int h, const std::vector<double>& x) {
    for (int d = 0; d < D; ++d) q[((size_t)token * Hq + h) * D + d] = ut::f16_bits_from_double(x[d]);
  }
  void set_kv(std::vector<uint8_t>& c, int seq, int j, int kvh, const std::vector<double>& x) {
    const int64_t id = bt[seq * bt_stride + j / bs];
    const int64_t off = id * p.k_stride_block + (j % bs) * p.k_stride_slot + kvh * p.k_stride_head;
    for (int d = 0; d < D; ++d) {
      if (kv_dtype == DType::fp8e4m3) {
        c[off + d] = ut::fp8e4m3_bits_from_double(x[d]);
      } else {
        const uint16_t b = kv_dtype == DType::f16 ? ut::f16_bits_from_double(x[d]) : ut::bf16_bits_from_double(x[d]);
        std::memcpy(&c[(off + d) * 2], &b, 2);
      }
    }
  }
  void set_k(int seq, int j, int kvh, const std::vector<double>& x) { set_kv(k, seq, j, kvh, x); }
  void set_v(int seq, int j, int kvh, const std::vector<double>& x) { set_kv(v, seq, j, kvh, x); }
  std::vector<double> run() {
    p.q = q.data();
    p.k_cache = k.data();
    p.v_cache = v.data();
    p.cu_seqlens_q = cu.data();
    p.seqused_k = used.data();
    p.block_table = bt.data();
    p.block_table_stride = bt_stride;
    p.num_seqs = (int)seqs.size();
    p.num_tokens = cu.back();
    p.alibi_slopes = alibi.empty() ? nullptr : alibi.data();
    p.qq_bias = qq.empty() ? nullptr : qq.data();
    p.sinks = sinks.empty() ? nullptr : sinks.data();
    return attention({&p, DType::f16, kv_dtype});
  }
  double at(const std::vector<double>& o, int token, int h, int d) const {
    return o[((size_t)token * Hq + h) * D + d];
  }
};

// Set every valid key/value of one sequence (D = 1) to the given values, q to zero.
void fill_seq_1d(Hand& H, int seq, const std::vector<double>& kvals, const std::vector<double>& vvals) {
  for (int j = 0; j < H.seqs[seq].second; ++j)
    for (int g = 0; g < H.Hkv; ++g) {
      H.set_k(seq, j, g, {kvals[j]});
      H.set_v(seq, j, g, {vvals[j]});
    }
}

TEST(Reference, OneQueryTwoKeys) {
  Hand H(1, 1, 2, 16, {{1, 2}});
  H.set_q(0, 0, {1, 0});
  H.set_k(0, 0, 0, {1, 0});
  H.set_k(0, 1, 0, {0, 1});
  H.set_v(0, 0, 0, {2, -1});
  H.set_v(0, 1, 0, {0.5, 4});
  H.p.softmax_scale = 1;
  const auto o = H.run();
  // s = (1, 0): softmax = (e, 1) / (e + 1)
  const double e = std::exp(1.0), p0 = e / (e + 1), p1 = 1 / (e + 1);
  EXPECT_NEAR(H.at(o, 0, 0, 0), p0 * 2 + p1 * 0.5, 1e-15);
  EXPECT_NEAR(H.at(o, 0, 0, 1), p0 * -1 + p1 * 4, 1e-15);
  // softmax_scale multiplies the scores: scale 2 -> s = (2, 0)
  H.p.softmax_scale = 2;
  const auto o2 = H.run();
  const double e2 = std::exp(2.0);
  EXPECT_NEAR(H.at(o2, 0, 0, 0), (e2 * 2 + 0.5) / (e2 + 1), 1e-15);
}

TEST(Reference, WindowOfOneGivesOwnValue) {
  // window_left 0 (model window W = 1): each query keeps only j = t.
  Hand H(2, 1, 3, 4, {{3, 7}, {1, 1}});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < H.seqs[i].second; ++j) {
      H.set_k(i, j, 0, {0.5 * j, -1, 0.25});
      H.set_v(i, j, 0, {(double)j, 10.0 * i + j, -0.5 * j});
    }
  for (int t = 0; t < 4; ++t)
    for (int h = 0; h < 2; ++h) H.set_q(t, h, {1, 0.5 * h, -1});
  H.p.window_left = 0;
  const auto o = H.run();
  for (int pos = 0; pos < 3; ++pos)
    for (int h = 0; h < 2; ++h) {
      const int j = 4 + pos;  // context_len 4
      EXPECT_EQ(H.at(o, pos, h, 0), j);
      EXPECT_EQ(H.at(o, pos, h, 1), j);
      EXPECT_EQ(H.at(o, pos, h, 2), -0.5 * j);
    }
  EXPECT_EQ(H.at(o, 3, 0, 1), 10.0);  // second sequence, context 0, j = 0
  // window_left 1 (W = 2): keys t-1 and t with equal scores (q . k differs, so use q = 0)
  for (int t = 0; t < 4; ++t)
    for (int h = 0; h < 2; ++h) H.set_q(t, h, {0, 0, 0});
  H.p.window_left = 1;
  const auto o2 = H.run();
  EXPECT_DOUBLE_EQ(H.at(o2, 0, 0, 0), (3 + 4) / 2.0);
  EXPECT_DOUBLE_EQ(H.at(o2, 2, 1, 0), (5 + 6) / 2.0);
}

TEST(Reference, SinkWithEqualScores) {
  // q = 0: every kept score is 0, weight 1. Query at t keeps n = t + 1 keys:
  // out = sum_{j<=t} v_j / (n + exp(sink)); the sink adds no value row.
  Hand H(2, 1, 1, 16, {{2, 5}});
  std::vector<double> vals = {1, 2, 3, 4, 5};
  fill_seq_1d(H, 0, {0.3, -0.2, 0.9, 0.1, 0.7}, vals);
  H.sinks = {0.0f, 1.5f};
  H.p.softcap = 3;            // sinks are not capped (scores are 0, capping them changes nothing)
  H.p.softmax_scale = 0.125f;  // nor scaled
  const auto o = H.run();
  for (int pos = 0; pos < 2; ++pos) {
    const int t = 3 + pos, n = t + 1;
    double sum = 0;
    for (int j = 0; j <= t; ++j) sum += vals[j];
    EXPECT_NEAR(H.at(o, pos, 0, 0), sum / (n + 1.0), 1e-14);
    EXPECT_NEAR(H.at(o, pos, 1, 0), sum / (n + std::exp(1.5)), 1e-14);
  }
  // A huge sink drives the output towards 0, not to NaN.
  H.sinks = {80.0f, -80.0f};
  const auto o2 = H.run();
  EXPECT_NEAR(H.at(o2, 0, 0, 0), 0, 1e-30);
  EXPECT_NEAR(H.at(o2, 0, 1, 0), 10.0 / 4, 1e-14);
}

TEST(Reference, SoftcapSaturates) {
  Hand H(1, 1, 1, 16, {{1, 2}});
  H.set_q(0, 0, {8});
  H.set_k(0, 0, 0, {8});
  H.set_k(0, 1, 0, {-8});
  H.set_v(0, 0, 0, {1});
  H.set_v(0, 1, 0, {-3});
  H.p.softmax_scale = 100;  // raw scores +-6400
  const auto raw = H.run();
  EXPECT_EQ(H.at(raw, 0, 0, 0), 1.0);  // exp(-12800) underflows: only key 0
  H.p.softcap = 10;  // capped to +-10 * tanh(640) = +-10
  const auto o = H.run();
  const double a = std::exp(10.0), b = std::exp(-10.0);
  EXPECT_NEAR(H.at(o, 0, 0, 0), (a * 1 + b * -3) / (a + b), 1e-15);
  // A moderate score: softcap * tanh(s / softcap).
  H.p.softmax_scale = 1.0f / 64;  // s = +-1
  H.p.softcap = 2;
  const auto o2 = H.run();
  const double s = 2 * std::tanh(0.5);
  EXPECT_NEAR(H.at(o2, 0, 0, 0), (std::exp(s) - 3 * std::exp(-s)) / (std::exp(s) + std::exp(-s)), 1e-14);
}

TEST(Reference, AlibiShiftAndNotCapped) {
  // q = 0, context_len 3, one query at t = 3: weights exp(slope * (j - 3)), j = 0..3.
  Hand H(2, 1, 1, 2, {{1, 4}});
  std::vector<double> vals = {0, 1, 2, 3};
  fill_seq_1d(H, 0, {0, 0, 0, 0}, vals);
  H.alibi = {0.5f, 3.0f};
  H.p.softcap = 1;  // caps the (zero) q.k scores only; the ALiBi bias is added after
  const auto o = H.run();
  for (int h = 0; h < 2; ++h) {
    double num = 0, den = 0;
    for (int j = 0; j < 4; ++j) {
      const double w = std::exp(H.alibi[h] * (j - 3.0));
      num += w * vals[j];
      den += w;
    }
    EXPECT_NEAR(H.at(o, 0, h, 0), num / den, 1e-14) << "head " << h;
  }
  // Bias relative to context_len: two queries; the second sees one more key with bias +slope.
  Hand G(1, 1, 1, 3, {{2, 3}});
  fill_seq_1d(G, 0, {0, 0, 0}, {1, 2, 3});
  G.alibi = {1.0f};
  const auto og = G.run();
  const double e = std::exp(1.0);
  EXPECT_NEAR(G.at(og, 0, 0, 0), (1 / e + 2) / (1 / e + 1), 1e-14);          // t = 1: j = 0, 1
  EXPECT_NEAR(G.at(og, 1, 0, 0), (1 / e + 2 + 3 * e) / (1 / e + 1 + e), 1e-14);  // t = 2
}

TEST(Reference, QQBias) {
  // context_len 2, q_len 2, width 2: p = 0 sees j = 0, 1, 2 with bias qq[0][0] on j = 2;
  // p = 1 sees j = 0..3 with qq[1][0] on j = 2 and qq[1][1] on j = 3. q = 0.
  Hand H(1, 1, 1, 16, {{2, 4}});
  std::vector<double> vals = {1, 2, 4, 8};
  fill_seq_1d(H, 0, {0.1, 0.2, 0.3, 0.4}, vals);
  H.qq = {0.5f, 100.0f, -1.0f, 2.0f};  // qq[0][1] = 100 must not reach p = 0 (causal)
  H.p.qq_bias_stride = 2;
  const auto o = H.run();
  {
    const double w2 = std::exp(0.5);
    EXPECT_NEAR(H.at(o, 0, 0, 0), (1 + 2 + 4 * w2) / (2 + w2), 1e-14);
  }
  {
    const double w2 = std::exp(-1.0), w3 = std::exp(2.0);
    EXPECT_NEAR(H.at(o, 1, 0, 0), (1 + 2 + 4 * w2 + 8 * w3) / (2 + w2 + w3), 1e-14);
  }
  // A narrower width (1) leaves j - context_len >= 1 unbiased; row stride is 1.
  H.qq = {0.5f, -1.0f};
  H.p.qq_bias_stride = 1;
  const auto o1 = H.run();
  const double w2 = std::exp(-1.0);
  EXPECT_NEAR(H.at(o1, 1, 0, 0), (1 + 2 + 4 * w2 + 8) / (3 + w2), 1e-14);
}

double fp8_formula(int code) {
  const int s = code >> 7, e = (code >> 3) & 15, m = code & 7;
  if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
  const double mag = e == 0 ? m / 8.0 * std::pow(2.0, -6) : (1 + m / 8.0) * std::pow(2.0, e - 7);
  return s ? -mag : mag;
}

TEST(Reference, Fp8DecodeAllCodes) {
  for (int c = 0; c < 256; ++c) {
    const double mine = uattn::ref::fp8e4m3_bits_to_double((uint8_t)c);
    const double formula = fp8_formula(c);
    const double device = dl::fp8e4m3_to_f32((uint8_t)c);
    if (std::isnan(formula)) {
      EXPECT_TRUE(std::isnan(mine)) << c;
      EXPECT_TRUE(std::isnan(device)) << c;
      continue;
    }
    EXPECT_EQ(mine, formula) << "code " << c;
    EXPECT_EQ(device, formula) << "code " << c;
  }
  EXPECT_EQ(uattn::ref::fp8e4m3_bits_to_double(0x7E), 448.0);
  EXPECT_EQ(uattn::ref::fp8e4m3_bits_to_double(0xFE), -448.0);
  EXPECT_EQ(uattn::ref::fp8e4m3_bits_to_double(0x38), 1.0);
  EXPECT_EQ(uattn::ref::fp8e4m3_bits_to_double(0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(uattn::ref::fp8e4m3_bits_to_double(0x08), std::ldexp(1.0, -6));
}

TEST(Reference, F16AndBf16DecodeAllCodes) {
  for (uint32_t c = 0; c < 65536; ++c) {
    const uint16_t b = (uint16_t)c;
    const _Float16 h = __builtin_bit_cast(_Float16, b);
    const double want = (double)(float)h, mine = uattn::ref::f16_bits_to_double(b);
    if (std::isnan(want)) EXPECT_TRUE(std::isnan(mine)) << c;
    else EXPECT_EQ(mine, want) << "f16 code " << c;
    const __bf16 bf = __builtin_bit_cast(__bf16, b);
    const double wantb = (double)(float)bf, mineb = uattn::ref::bf16_bits_to_double(b);
    if (std::isnan(wantb)) EXPECT_TRUE(std::isnan(mineb)) << c;
    else EXPECT_EQ(mineb, wantb) << "bf16 code " << c;
  }
}

TEST(Reference, Fp8KvScalesAndFp8OutputClamp) {
  // q = 0: out = mean of dequantised v over kept keys; v code 2.0 * v_scale.
  Hand H(1, 1, 2, 4, {{1, 3}}, DType::fp8e4m3);
  for (int j = 0; j < 3; ++j) {
    H.set_k(0, j, 0, {1, 1});
    H.set_v(0, j, 0, {2.0 * (j + 1), -1.0});  // codes 2, 4, 6 and -1
  }
  H.p.k_scale = 1000;  // irrelevant with q = 0
  H.p.v_scale = 0.25f;
  const auto o = H.run();
  EXPECT_DOUBLE_EQ(H.at(o, 0, 0, 0), (2 + 4 + 6) / 3.0 * 0.25);
  EXPECT_DOUBLE_EQ(H.at(o, 0, 0, 1), -0.25);
  // k_scale scales the scores: q = (1, 0), k codes (1, 1) * k_scale 0.5 -> s = 0.5 each: still uniform.
  // Make key scores differ: k_j = (j, 0) codes, k_scale 0.5, q = (1, 0) -> s_j = 0.5 j.
  for (int j = 0; j < 3; ++j) H.set_k(0, j, 0, {(double)j, 0});
  H.set_q(0, 0, {1, 0});
  H.p.k_scale = 0.5f;
  const auto o2 = H.run();
  double num = 0, den = 0;
  for (int j = 0; j < 3; ++j) {
    num += std::exp(0.5 * j) * 2.0 * (j + 1) * 0.25;
    den += std::exp(0.5 * j);
  }
  EXPECT_NEAR(H.at(o2, 0, 0, 0), num / den, 1e-14);
  // fp8 output: value / output_scale, clamped to +-448.
  H.p.out_dtype = (int32_t)DType::fp8e4m3;
  H.p.output_scale = 0.5f;
  const auto o3 = H.run();
  EXPECT_NEAR(H.at(o3, 0, 0, 0), num / den / 0.5, 1e-14);
  EXPECT_DOUBLE_EQ(H.at(o3, 0, 0, 1), -0.5);
  H.p.output_scale = 1e-3f;
  const auto o4 = H.run();
  EXPECT_EQ(H.at(o4, 0, 0, 0), 448.0);
  EXPECT_NEAR(H.at(o4, 0, 0, 1), -0.25 / (double)1e-3f, 1e-9);  // -250: inside the range
  H.p.output_scale = 1e-4f;
  EXPECT_EQ(H.at(H.run(), 0, 0, 1), -448.0);
  // k/v scales do not apply to f16 KV.
  Hand F(1, 1, 1, 4, {{1, 2}});
  fill_seq_1d(F, 0, {0, 0}, {1, 3});
  F.p.v_scale = 5;
  EXPECT_DOUBLE_EQ(F.at(F.run(), 0, 0, 0), 2.0);
}

TEST(Reference, GqaHeadMapping) {
  // Hq 6, Hkv 2 (qpk 3): head h reads KV head h / 3. window_left 0 -> out = v[t][h / 3].
  Hand H(6, 2, 2, 4, {{2, 5}});
  for (int j = 0; j < 5; ++j)
    for (int g = 0; g < 2; ++g) {
      H.set_k(0, j, g, {0.1 * j, -0.2 * g});
      H.set_v(0, j, g, {100.0 * g + j, -(100.0 * g + j)});
    }
  for (int t = 0; t < 2; ++t)
    for (int h = 0; h < 6; ++h) H.set_q(t, h, {0.25 * h, 1});
  H.p.window_left = 0;
  const auto o = H.run();
  for (int pos = 0; pos < 2; ++pos)
    for (int h = 0; h < 6; ++h) {
      EXPECT_EQ(H.at(o, pos, h, 0), 100.0 * (h / 3) + 3 + pos) << "head " << h;
      EXPECT_EQ(H.at(o, pos, h, 1), -(100.0 * (h / 3) + 3 + pos)) << "head " << h;
    }
  // Without the window, heads 0-2 must match a problem that has only KV head 0 (and
  // the same q), heads 3-5 one with only KV head 1.
  H.p.window_left = -1;
  const auto full = H.run();
  for (int g = 0; g < 2; ++g) {
    Hand S(3, 1, 2, 4, {{2, 5}});
    for (int j = 0; j < 5; ++j) {
      S.set_k(0, j, 0, {0.1 * j, -0.2 * g});
      S.set_v(0, j, 0, {100.0 * g + j, -(100.0 * g + j)});
    }
    for (int t = 0; t < 2; ++t)
      for (int h = 0; h < 3; ++h) S.set_q(t, h, {0.25 * (3 * g + h), 1});
    const auto so = S.run();
    for (int t = 0; t < 2; ++t)
      for (int h = 0; h < 3; ++h)
        for (int d = 0; d < 2; ++d) EXPECT_EQ(H.at(full, t, 3 * g + h, d), S.at(so, t, h, d));
  }
}

// q_heads = k computes query heads [0, k) exactly as the full run does and
// leaves the others NaN; a value outside [0, Hq] is refused naming it.
TEST(Reference, QHeadsSubset) {
  ut::ProblemSpec s;
  s.num_q_heads = 8;
  s.num_kv_heads = 4;
  s.seqs = {{3, 40}, {1, 17}};
  s.seed = 5;
  const auto P = ut::make_problem(s);
  const auto full = P->reference();
  const int D = P->params.head_size;
  for (int k : {1, 2, 3, 8}) {
    const auto sub = P->reference(k);
    ASSERT_EQ(sub.size(), full.size());
    for (int64_t t = 0; t < P->num_tokens; ++t)
      for (int h = 0; h < 8; ++h)
        for (int d = 0; d < D; ++d) {
          const size_t i = ((size_t)t * 8 + h) * D + d;
          if (h < k) ASSERT_EQ(sub[i], full[i]) << "k " << k << " token " << t << " head " << h;
          else ASSERT_TRUE(std::isnan(sub[i])) << "k " << k << " token " << t << " head " << h;
        }
  }
  for (int bad : {-1, 9}) {
    try {
      (void)P->reference(bad);
      ADD_FAILURE() << "q_heads " << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("q_heads = " + std::to_string(bad)), std::string::npos) << e.what();
    }
  }
}

TEST(Reference, ContextLenZeroIsCausalMean) {
  Hand H(1, 1, 1, 2, {{3, 3}});
  fill_seq_1d(H, 0, {0.5, -0.5, 0.25}, {3, 6, 12});
  const auto o = H.run();  // q = 0
  EXPECT_DOUBLE_EQ(H.at(o, 0, 0, 0), 3.0);
  EXPECT_DOUBLE_EQ(H.at(o, 1, 0, 0), 4.5);
  EXPECT_DOUBLE_EQ(H.at(o, 2, 0, 0), 7.0);
}

// A copy of a problem's logical caches into a fresh dense layout with block size
// `bs` (blocks in sequence order, k and v separate, no padding). Raw bits are
// copied for every slot < seqused_k, including NaN-filled out-of-window blocks.
struct DenseCopy {
  std::vector<uint8_t> k, v;
  std::vector<int32_t> bt;
  AttnParams p;
  DenseCopy(const ut::Problem& P, int bs) : p(P.params) {
    const AttnParams& s = P.params;
    const int eb = uattn::ref::dtype_bytes(P.spec.kv_dtype);
    const int Hkv = s.num_kv_heads, D = s.head_size;
    int64_t stride = 1, nb = 0;
    for (int i = 0; i < s.num_seqs; ++i) stride = std::max<int64_t>(stride, (s.seqused_k[i] + bs - 1) / bs);
    bt.assign((size_t)s.num_seqs * stride, -1);
    for (int i = 0; i < s.num_seqs; ++i)
      for (int64_t b = 0; b < (s.seqused_k[i] + bs - 1) / bs; ++b) bt[i * stride + b] = (int32_t)nb++;
    const int64_t blk = (int64_t)bs * Hkv * D;
    k.assign((size_t)(nb * blk * eb), 0xFF);
    v.assign(k.size(), 0xFF);
    for (int i = 0; i < s.num_seqs; ++i)
      for (int64_t j = 0; j < s.seqused_k[i]; ++j)
        for (int g = 0; g < Hkv; ++g) {
          const int64_t sid = s.block_table[i * s.block_table_stride + j / s.block_size];
          const int64_t ks = sid * s.k_stride_block + (j % s.block_size) * s.k_stride_slot + g * s.k_stride_head;
          const int64_t vs = sid * s.v_stride_block + (j % s.block_size) * s.v_stride_slot + g * s.v_stride_head;
          const int64_t dst = bt[i * stride + j / bs] * blk + (j % bs) * Hkv * D + (int64_t)g * D;
          std::memcpy(&k[dst * eb], static_cast<const uint8_t*>(s.k_cache) + ks * eb, (size_t)D * eb);
          std::memcpy(&v[dst * eb], static_cast<const uint8_t*>(s.v_cache) + vs * eb, (size_t)D * eb);
        }
    p.k_cache = k.data();
    p.v_cache = v.data();
    p.block_table = bt.data();
    p.block_table_stride = stride;
    p.block_size = bs;
    p.k_stride_block = p.v_stride_block = blk;
    p.k_stride_slot = p.v_stride_slot = (int64_t)Hkv * D;
    p.k_stride_head = p.v_stride_head = D;
  }
  std::vector<double> run(const ut::Problem& P) const { return attention({&p, P.spec.q_dtype, P.spec.kv_dtype}); }
};

void expect_same(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  size_t bad = 0;
  for (size_t n = 0; n < a.size(); ++n)
    if (!(a[n] == b[n]) && bad++ < 3) ADD_FAILURE() << what << ": index " << n << " " << a[n] << " vs " << b[n];
  EXPECT_EQ(bad, 0u) << what;
}

void expect_finite(const std::vector<double>& a, const std::string& what) {
  size_t bad = 0;
  for (double x : a) bad += !std::isfinite(x);
  EXPECT_EQ(bad, 0u) << what << ": the reference read memory that holds no valid token";
}

TEST(Reference, BlockSize13PagedEqualsDense) {
  // Shuffled, non-contiguous block table with block_size 13, NaN everywhere else,
  // padded head strides and both cache layouts; the result must equal the same
  // data laid out densely with block size 1 and with one block per sequence.
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    ut::ProblemSpec s;
    s.head_size = 24;
    s.block_size = 13;
    s.num_q_heads = 4;
    s.num_kv_heads = 2;
    s.seqs = {{5, 40}, {1, 13}, {13, 26}, {0, 9}, {3, 3}, {2, 14}};
    s.seed = seed;
    s.kv_view_of_combined = seed == 3;
    auto P = ut::make_problem(s);
    const auto paged = P->reference();
    expect_finite(paged, ut::describe(s));
    expect_same(paged, DenseCopy(*P, 1).run(*P), "block size 1, " + ut::describe(s));
    expect_same(paged, DenseCopy(*P, 64).run(*P), "block size 64, " + ut::describe(s));
    // the table really is shuffled
    bool identity = true;
    for (int b = 1; b < 4; ++b) identity &= P->params.block_table[b] == P->params.block_table[b - 1] + 1;
    EXPECT_FALSE(identity) << ut::describe(s);
  }
}

// Each sequence alone (a one-sequence view of the same memory) gives the rows the
// batch gives: q_len 0 sequences own no rows and disturb nothing.
TEST(Reference, SequencesAreIndependentAndQLenZeroOwnsNothing) {
  ut::ProblemSpec s;
  s.head_size = 16;
  s.block_size = 8;
  s.num_q_heads = 6;
  s.num_kv_heads = 3;
  s.seqs = {{2, 5}, {0, 7}, {0, 0}, {3, 3}, {1, 20}, {0, 4}};
  s.window = 4;
  s.alibi = s.qq_bias = s.sinks = true;
  s.softcap = 2;
  auto P = ut::make_problem(s);
  ASSERT_EQ(P->num_tokens, 6);
  const auto all = P->reference();
  ASSERT_EQ(all.size(), (size_t)6 * 6 * 16);
  expect_finite(all, ut::describe(s));
  const AttnParams& p = P->params;
  for (int i = 0; i < p.num_seqs; ++i) {
    AttnParams one = p;
    const int32_t tok0 = p.cu_seqlens_q[i], ql = p.cu_seqlens_q[i + 1] - tok0;
    const int32_t cu[2] = {0, ql};
    one.num_seqs = 1;
    one.num_tokens = ql;
    one.cu_seqlens_q = cu;
    one.seqused_k = p.seqused_k + i;
    one.block_table = p.block_table + i * p.block_table_stride;
    one.q = static_cast<const uint8_t*>(p.q) + tok0 * p.q_stride_token * 2;
    const auto r = attention({&one, s.q_dtype, s.kv_dtype});
    ASSERT_EQ(r.size(), (size_t)ql * 6 * 16);
    for (size_t n = 0; n < r.size(); ++n) ASSERT_EQ(r[n], all[(size_t)tok0 * 6 * 16 + n]) << "seq " << i;
  }
}

TEST(Reference, NeverReadsInvalidMemory) {
  // Hostile builder problems over dtypes, layouts and features: every unused byte is
  // NaN, so any stray read shows up as a non-finite output.
  int n = 0;
  for (DType kvd : {DType::f16, DType::bf16, DType::fp8e4m3})
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      ut::ProblemSpec s;
      s.q_dtype = kvd == DType::bf16 ? DType::bf16 : DType::f16;
      s.kv_dtype = kvd;
      s.out_dtype = kvd == DType::fp8e4m3 && seed % 2 ? DType::fp8e4m3 : s.q_dtype;
      s.output_scale = s.out_dtype == DType::fp8e4m3 ? 0.02f : 1.0f;
      if (kvd == DType::fp8e4m3) s.k_scale = 0.05f, s.v_scale = 2.0f;
      s.head_size = 8 * (int)seed;
      s.block_size = (int)(3 + 5 * seed);
      s.num_q_heads = 7;
      s.num_kv_heads = 1;
      s.seqs = {{1, 50}, {7, 7}, {0, 11}, {4, 33}};
      s.window = seed % 2 ? 9 : 0;
      s.softcap = seed == 2 ? 5.0f : 0.0f;
      s.alibi = seed == 3;
      s.qq_bias = seed >= 3;
      s.sinks = seed % 2 == 0;
      s.kv_view_of_combined = seed == 4;
      s.seed = seed;
      auto P = ut::make_problem(s);
      expect_finite(P->reference(), ut::describe(s));
      ++n;
    }
  EXPECT_EQ(n, 12);
}

TEST(Reference, RejectsBadInput) {
  Hand H(4, 2, 2, 4, {{2, 5}, {1, 3}});
  auto expect_throw = [&](const char* needle) {
    try {
      H.run();
      ADD_FAILURE() << "no throw, expected '" << needle << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  H.p.num_kv_heads = 3;
  expect_throw("num_q_heads % num_kv_heads");
  H.p.num_kv_heads = 2;
  H.used[1] = 0;
  expect_throw("seqused_k[1] = 0 < q_len = 1");
  H.used[1] = 3;
  H.cu = {0, 3, 2};
  H.p.num_tokens = 2;
  expect_throw("cu_seqlens_q is not monotonic");
  H.cu = {0, 2, 3};
  H.p.window_left = -2;
  expect_throw("window_left = -2");
  H.p.window_left = -1;
  const int32_t id0 = H.bt[0];
  H.bt[0] = -5;
  expect_throw("block_table[0][0] = -5");
  H.bt[0] = id0;
  H.p.out_dtype = (int32_t)DType::fp8e4m3;
  H.p.output_scale = 0;
  expect_throw("output_scale");
  H.p.out_dtype = (int32_t)DType::f16;
  H.p.block_size = 0;
  expect_throw("block_size = 0");
  H.p.block_size = 4;
  H.qq = {1.0f};
  H.p.qq_bias_stride = 0;
  expect_throw("qq_bias_stride = 0");
  H.qq.clear();
  EXPECT_NO_THROW(H.run());
  EXPECT_THROW(attention({nullptr, DType::f16, DType::f16}), std::invalid_argument);
  EXPECT_THROW(attention({&H.p, DType::fp8e4m3, DType::f16}), std::invalid_argument);
}

TEST(Reference, NoSequencesIsEmpty) {
  Hand H(2, 1, 4, 4, {});
  EXPECT_TRUE(H.run().empty());
}

// Block ids whose element offset passes 2^32 bytes: the cache is a sparse mapping
// (MAP_NORESERVE), only the used blocks' pages are touched.
struct SparseAllocator final : ut::Allocator {
  std::vector<std::pair<void*, size_t>> maps;
  void* alloc(size_t bytes, const char*) override {
    const size_t n = bytes ? bytes : 1;
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    maps.emplace_back(p, n);
    return p;
  }
  void free(void* p) override {
    for (auto& m : maps)
      if (m.first == p) {
        munmap(m.first, m.second);
        m.first = nullptr;
      }
  }
};

TEST(Reference, HugeBlockOffsets) {
  ut::ProblemSpec s;
  s.head_size = 64;
  s.block_size = 16;
  s.num_q_heads = 2;
  s.num_kv_heads = 1;
  s.head_pad = 0;
  s.kv_layout = 0;
  s.seqs = {{3, 40}, {1, 17}};
  s.extra_blocks = (int64_t)3 << 20;  // 3M blocks x 2 KiB = 6 GiB of address space per cache
  s.fill_unused_blocks = false;
  SparseAllocator alloc;
  std::unique_ptr<ut::Problem> P;
  try {
    P = ut::make_problem(s, alloc);
  } catch (const std::bad_alloc&) {
    GTEST_SKIP() << "cannot reserve 12 GiB of address space here";
  }
  int32_t max_id = 0;
  for (int b = 0; b < 3; ++b) max_id = std::max(max_id, P->params.block_table[b]);
  ASSERT_GT((int64_t)max_id * P->params.k_stride_block * 2, (int64_t)1 << 32);
  const auto r = P->reference();
  expect_finite(r, "huge offsets");
  expect_same(r, DenseCopy(*P, 16).run(*P), "huge offsets vs dense");
}

}  // namespace
