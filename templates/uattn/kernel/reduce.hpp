// 3D split-KV reduce kernel: combines the num_segments partial results of each
// (token, query head) written by the segment kernel (attention.hpp, Path::k3D).
//
// Grid (num_tokens, num_q_heads, 1), one wave per workgroup.
// For segment s with partial (acc_s, m_s, l_s), m in log2 units:
//   M = max_s m_s;  L = sum_s l_s 2^(m_s - M);  out = sum_s acc_s 2^(m_s - M) / L,
// and out = 0 where L == 0 (every key masked and no sink). SPEC.md s.2.
// M and L: lane s reads segment s (s, s + wave, ...), then a wave reduction;
// out: lane owns d = lane + j * wave, and the acc_s rows are read kChunk
// segments at a time with no branch between the loads, so a chunk's loads are
// in flight together (a segment whose weight is 0 adds a selected 0, never its
// acc: an empty segment's acc may hold anything).
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
    float L = 0.0f;
    for (int s = lane; s < S; s += kWave) L += p.ws_sum[row + s] * dl::exp2(p.ws_max[row + s] - Mu);
    for (int x = kWave / 2; x > 0; x /= 2) L += dl::shfl_xor(L, x);
    const float inv = L > 0.0f ? 1.0f / L : 0.0f;
    float o[kPer];
    UATTN_UNROLL
    for (int j = 0; j < kPer; ++j) o[j] = 0.0f;
    for (int s0 = 0; s0 < S; s0 += kChunk) {
      float a[kChunk][kPer], w[kChunk];
      UATTN_UNROLL
      for (int c = 0; c < kChunk; ++c) {
        const int s = s0 + c < S ? s0 + c : S - 1;  // past the last segment: re-read it, weight 0
        w[c] = s0 + c < S ? dl::exp2(p.ws_max[row + s] - Mu) : 0.0f;
        const float* acc = p.ws_acc + (row + s) * HEAD;
        UATTN_UNROLL
        for (int j = 0; j < kPer; ++j) a[c][j] = (kWholeRows || lane + j * kWave < HEAD) ? acc[lane + j * kWave] : 0.0f;
      }
      UATTN_UNROLL
      for (int c = 0; c < kChunk; ++c)
        UATTN_UNROLL
        for (int j = 0; j < kPer; ++j) o[j] += w[c] != 0.0f ? w[c] * a[c][j] : 0.0f;
    }
    UATTN_UNROLL
    for (int j = 0; j < kPer; ++j) {
      const int d = lane + j * kWave;
      if (kWholeRows || d < HEAD) store_out(p, token, head, d, o[j] * inv);
    }
  }
};

}  // namespace uattn
