// 3D split-KV reduce kernel: combines the num_segments partial results of each
// (token, query head) written by the segment kernel (attention.hpp, Path::k3D).
//
// Grid (num_tokens, num_q_heads, 1), one wave per workgroup.
// For segment s with partial (acc_s, m_s, l_s), m in log2 units:
//   M = max_s m_s;  L = sum_s l_s 2^(m_s - M);  out = sum_s acc_s 2^(m_s - M) / L,
// and out = 0 where L == 0 (every key masked and no sink). SPEC.md s.2.
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

  UATTN_INLINE static void run(const AttnParams& p, char* /*lds*/) {
    const int64_t token = dl::block_id_x();
    if (index_check_failed(p) || token >= p.cu_seqlens_q[p.num_seqs]) {  // refused, or padding
      dl::end_wave();
      return;
    }
    const int head = dl::block_id_y();
    const int S = p.num_segments;
    const int64_t row = (token * p.num_q_heads + head) * S;
    float M = kNegInf;
    for (int s = 0; s < S; ++s) M = fmaxf_(M, p.ws_max[row + s]);
    const float Mu = (M == kNegInf) ? 0.0f : M;
    float L = 0.0f;
    for (int s = 0; s < S; ++s) L += p.ws_sum[row + s] * dl::exp2(p.ws_max[row + s] - Mu);
    const float inv = L > 0.0f ? 1.0f / L : 0.0f;
    for (int d = dl::lane_id(); d < HEAD; d += kWave) {
      float o = 0.0f;
      for (int s = 0; s < S; ++s) {
        const float w = dl::exp2(p.ws_max[row + s] - Mu);
        if (w != 0.0f) o += w * p.ws_acc[(row + s) * HEAD + d];
      }
      store_out(p, token, head, d, o * inv);
    }
  }
};

}  // namespace uattn
