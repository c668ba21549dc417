// 3D split-KV reduce kernel: combines the num_segments partial results of each
// (token, query head) written by the segment kernel (attention.hpp, Path::k3D).
//
// Grid (num_tokens, num_q_heads, 1), one wave per workgroup.
// For segment s with partial (acc_s, m_s, l_s), m in log2 units:
//   M = max_s m_s;  L = sum_s l_s 2^(m_s - M);  out = sum_s acc_s 2^(m_s - M) / L,
// and out = 0 where L == 0 (every key masked and no sink). SPEC.md s.2.
// M and L: lane s reads segment s (s, s + wave, ...), then a wave reduction;
// with S <= wave lane s keeps its weight 2^(m_s - M) and the acc loop reads it
// with v_readlane. out: lane owns d = lane + j * wave, and the acc_s rows are
// read kChunk segments at a time with no branch between the loads, so a
// chunk's loads are in flight together (a segment whose weight is 0 adds a
// selected 0, never its acc: an empty segment's acc may hold anything).
// The grid covers q.shape[0] rows; rows at or past cu_seqlens_q[num_seqs]
// (padding for graph capture, SPEC.md s.1) are left unwritten, and in a
// checked launch nothing is written when the check kernel refused the index
// arrays (check.hpp).
#pragma once
#include "uattn/kernel/check.hpp"
#include "uattn/kernel/common.hpp"

namespace uattn {

template <Arch A, int HEAD>
struct ReduceKernel {
  static constexpr int kWave = wave_size_of(A);
  static constexpr int kThreads = kWave;
  static constexpr uint32_t kLdsBytes = 0;
  static constexpr int kWavesPerEU = 1;
  static constexpr int kPer = (HEAD + kWave - 1) / kWave;     // d values per lane
  static constexpr bool kWholeRows = HEAD % kWave == 0;       // every lane owns kPer of them
  static constexpr int kChunk = 8;                            // segments whose acc loads are in flight together

  UATTN_INLINE static void run(const AttnParams& p, char* /*lds*/) {
    const int64_t token = dl::block_id_x();
    if (index_check_failed(p) || token >= p.cu_seqlens_q[p.num_seqs]) {  // refused, or padding
      dl::end_wave();
      return;
    }
    const int head = dl::block_id_y();
    const int S = p.num_segments;
    const int lane = dl::lane_id();
    const int64_t row = (token * p.num_q_heads + head) * S;
    float M = kNegInf;
    for (int s = lane; s < S; s += kWave) M = fmaxf_(M, p.ws_max[row + s]);
    for (int x = kWave / 2; x > 0; x /= 2) M = fmaxf_(M, dl::shfl_xor(M, x));
    const float Mu = (M == kNegInf) ? 0.0f : M;
    // w_lane: the weight 2^(m_s - M) of segment s = lane (S <= wave), 0 past S.
    const float w_lane = lane < S ? dl::exp2(p.ws_max[row + lane] - Mu) : 0.0f;
    float L = 0.0f;
    if (S <= kWave) {
      L = lane < S ? p.ws_sum[row + lane] * w_lane : 0.0f;
    } else {
      for (int s = lane; s < S; s += kWave) L += p.ws_sum[row + s] * dl::exp2(p.ws_max[row + s] - Mu);
    }
    for (int x = kWave / 2; x > 0; x /= 2) L += dl::shfl_xor(L, x);
    const float inv = L > 0.0f ? 1.0f / L : 0.0f;
    // This wave's acc rows: segment s, dim d at byte (s * HEAD + d) * 4 of `acc`
    // (32-bit: S * HEAD * 4 < 2^22), so a load is one SGPR base + one VGPR offset.
    const char* acc = reinterpret_cast<const char*>(p.ws_acc + row * HEAD);
    float o[kPer];
    UATTN_UNROLL
    for (int j = 0; j < kPer; ++j) o[j] = 0.0f;
    // kChunk segments from s0: their acc values (a segment past S re-reads
    // segment S - 1) and weights (0 past S), then their weighted sum.
    auto chunk = [&](int s0, auto weight) {
      float a[kChunk][kPer], w[kChunk];
      UATTN_UNROLL
      for (int c = 0; c < kChunk; ++c) {
        const int s = s0 + c < S ? s0 + c : S - 1;
        w[c] = s0 + c < S ? weight(s0 + c) : 0.0f;
        UATTN_UNROLL
        for (int j = 0; j < kPer; ++j) {
          const uint32_t off = (uint32_t)(s * HEAD + lane + j * kWave) * 4u;
          a[c][j] = (kWholeRows || lane + j * kWave < HEAD) ? *reinterpret_cast<const float*>(acc + off) : 0.0f;
        }
      }
      UATTN_UNROLL
      for (int c = 0; c < kChunk; ++c)
        UATTN_UNROLL
        for (int j = 0; j < kPer; ++j) o[j] += w[c] != 0.0f ? w[c] * a[c][j] : 0.0f;
    };
    if (S <= kWave) {
      const auto from_lane = [&](int s) { return dl::bits_as_float(dl::readlane(dl::float_as_bits(w_lane), s)); };
      for (int s0 = 0; s0 < S; s0 += kChunk) chunk(s0, from_lane);
    } else {
      const auto from_max = [&](int s) { return dl::exp2(p.ws_max[row + s] - Mu); };
      for (int s0 = 0; s0 < S; s0 += kChunk) chunk(s0, from_max);
    }
    UATTN_UNROLL
    for (int j = 0; j < kPer; ++j) {
      const int d = lane + j * kWave;
      if (kWholeRows || d < HEAD) store_out(p, token, head, d, o[j] * inv);
    }
  }
};

}  // namespace uattn
