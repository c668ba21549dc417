// Paged unified attention: the 2D kernel and the 3D split-KV segment kernel.
//
// One workgroup serves BM packed query rows of one KV head; a packed row m of a
// sequence is (token m / qpk, query head kv_head * qpk + m % qpk), so the qpk
// query heads that share a KV head share every K/V tile (GQA). The workgroup
// walks the KV tiles [kv_lo, kv_hi) its rows can see (causal bound, sliding
// window), BN keys at a time, staged in LDS through block_table, with an online
// softmax per row (log2 domain). 3D: grid.z = num_segments; segment z takes an
// equal share of the tiles and writes partial (acc, max, sum) to the workspace.
//
// Grid: x = floor(num_tokens * qpk / BM) + num_seqs (an upper bound of the
// per-sequence tile counts; spare workgroups exit), y = num_kv_heads,
// z = num_segments. Workgroup: WAVES waves of wave_size_of(A) lanes.
//
// Lane roles (the "layout"); QW rows per wave, LPQ = wave/QW lanes per row,
// part = lane / QW:
//  gfx950 (MFMA 32x32x16, QW 32, LPQ 2): scores are S^T = K Q^T, so lane l holds
//    query column l % 32 and keys (r%4) + 8(r/4) + 4 part, r < 16 (the 32x32 C
//    layout, see dl::mfma_32x32x16); the output is O^T = V^T P^T with d =
//    32 t + (r%4) + 8(r/4) + 4 part. A row's statistics live in lanes l, l^32.
//  wave32 (gfx1030): run() forwards to AttnBodyDot2 (attention_dot2.hpp, its own
//    lane roles); the !kMfma branches below are no longer instantiated.
#pragma once
#include "uattn/kernel/attention_dot2.hpp"
#include "uattn/kernel/common.hpp"

namespace uattn {

template <Arch A, Path P, class QT, class KVT, int HEAD, int BLOCK, uint32_t FEATS, int BM, int BN, int WAVES>
struct AttnKernel {
  static_assert(P == Path::k2D || P == Path::k3D, "attention kernel path");
  static_assert(BN == 32, "KV tile of 32 keys");
  static_assert(HEAD % 16 == 0, "head size multiple of 16");
  static constexpr int kWave = wave_size_of(A);
  static constexpr int kQW = rows_per_wave(A);
  static constexpr int kLPQ = kWave / kQW;
  static_assert(BM == kQW * WAVES, "block_m = rows_per_wave * waves");
  static constexpr int kThreads = kWave * WAVES;
  static constexpr int kDP = head_pad(A, HEAD);
  static constexpr int kRow = lds_row(A, HEAD);
  static constexpr uint32_t kLdsBytes = attn_lds_bytes(A, HEAD, BM, BN);
  static_assert(kLdsBytes <= lds_budget(A), "LDS budget");
  static constexpr bool kMfma = (A == Arch::gfx950);
  static constexpr int kNS = BN / kLPQ;                       // score registers per lane
  static constexpr int kNA = kDP / kLPQ;                      // accumulators per lane
  static constexpr bool kWin = (FEATS & kFeatWindow) != 0;
  static constexpr bool kCap = (FEATS & kFeatSoftcap) != 0;
  static constexpr bool kAlibi = (FEATS & kFeatAlibi) != 0;
  static constexpr bool kQQ = (FEATS & kFeatQQBias) != 0;
  static constexpr bool kSink = (FEATS & kFeatSinks) != 0;
  using CT = QT;  // LDS / matrix dtype; fp8 KV is widened exactly into it

  // Key (within the tile) held in score register r by a lane of `part`.
  UATTN_INLINE static int key_of(int r, int part) {
    if constexpr (kMfma) return (r & 3) + 8 * (r >> 2) + 4 * part;
    else return part + 4 * r;
  }
  // Head dim held in accumulator register r by a lane of `part`.
  UATTN_INLINE static int d_of(int r, int part) {
    if constexpr (kMfma) return 32 * (r >> 4) + ((r & 15) & 3) + 8 * ((r & 15) >> 2) + 4 * part;
    else return part + 4 * r;
  }

  // Sum (or max) across the kLPQ lanes that share a row.
  UATTN_INLINE static float row_max(float v) {
    for (int m = kQW; m < kWave; m <<= 1) v = fmaxf_(v, dl::shfl_xor(v, m));
    return v;
  }
  UATTN_INLINE static float row_sum(float v) {
    for (int m = kQW; m < kWave; m <<= 1) v += dl::shfl_xor(v, m);
    return v;
  }

  UATTN_INLINE static CT kv_elem(const KVT* base, int64_t off) {
    if constexpr (sizeof(KVT) == 1) return dl::from_f32<CT>(dl::to_f32(base[off]));
    else return base[off];
  }

  // 2D epilogue: out[token, head, d] = acc * inv for this lane's dims, in OT
  // (the dtype is dispatched once per row, so the loop fully unrolls).
  template <class OT>
  UATTN_INLINE static void store_row(const AttnParams& p, int64_t token, int head, int part, const float* acc,
                                     float inv) {
    OT* out = static_cast<OT*>(p.out) + token * p.o_stride_token + (int64_t)head * p.o_stride_head;
    UATTN_UNROLL
    for (int r = 0; r < kNA; ++r) {
      const int d = d_of(r, part);
      if (d < HEAD) out[d] = out_value<OT>(acc[r] * inv, p.output_scale);
    }
  }

  // The wave32 architecture runs the packed-math body (attention_dot2.hpp).
  UATTN_INLINE static void run(const AttnParams& p, char* lds) {
    if constexpr (kWave == 32) AttnBodyDot2<A, P, QT, KVT, HEAD, BLOCK, FEATS, BM, BN, WAVES>::run(p, lds);
    else run_matrix(p, lds);
  }

  UATTN_INLINE static void run_matrix(const AttnParams& p, char* lds) {
    const int qpk = p.num_q_heads / p.num_kv_heads;
    const int kvh = dl::block_id_y();
    const int64_t x = dl::block_id_x();
    const int seg = (P == Path::k3D) ? dl::block_id_z() : 0;
    const int S = (P == Path::k3D) ? p.num_segments : 1;

    // Sequence of this workgroup: the largest i with tile_start(i) <= x, where
    // tile_start(i) = floor(cu_seqlens_q[i] * qpk / BM) + i is strictly increasing.
    int lo = 0, hi = p.num_seqs - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      const int64_t st = (int64_t)p.cu_seqlens_q[mid] * qpk / BM + mid;
      if (st <= x) lo = mid; else hi = mid - 1;
    }
    const int sq = lo;
    const int q_start = p.cu_seqlens_q[sq];
    const int q_len = p.cu_seqlens_q[sq + 1] - q_start;
    const int seq_k = p.seqused_k[sq];
    const int ctx = seq_k - q_len;
    const int64_t rows_total = (int64_t)q_len * qpk;
    const int64_t m0 = (x - ((int64_t)q_start * qpk / BM + sq)) * BM;
    if (m0 >= rows_total) return;  // uniform over the workgroup

    const int64_t m_last = (m0 + BM < rows_total ? m0 + BM : rows_total) - 1;
    const int p_first = (int)(m0 / qpk), p_last = (int)(m_last / qpk);
    const int kv_hi = ctx + p_last + 1;
    const bool win_on = kWin && p.window_left >= 0;
    int kv_lo = 0;
    if (win_on) { kv_lo = ctx + p_first - p.window_left; if (kv_lo < 0) kv_lo = 0; }
    const int tile_begin = kv_lo / BN;
    const int tile_end = (kv_hi + BN - 1) / BN;
    int t0 = tile_begin, t1 = tile_end;
    if constexpr (P == Path::k3D) {
      const int n_tiles = tile_end - tile_begin;
      const int tps = (n_tiles + S - 1) / S;
      t0 = tile_begin + seg * tps;
      t1 = t0 + tps < tile_end ? t0 + tps : tile_end;
    }

    // This lane's row.
    const int tid = dl::thread_id();
    const int lane = dl::lane_id();
    const int wave = dl::wave_id();
    const int qcol = lane % kQW;
    const int part = lane / kQW;
    const int r_local = wave * kQW + qcol;
    const int64_t m = m0 + r_local;
    const bool row_valid = m < rows_total;
    const int p_tok = row_valid ? (int)(m / qpk) : 0;
    const int head = kvh * qpk + (row_valid ? (int)(m % qpk) : 0);
    const int t_abs = ctx + p_tok;
    const int64_t token = (int64_t)q_start + p_tok;
    const QT* qrow = static_cast<const QT*>(p.q) + token * p.q_stride_token + (int64_t)head * p.q_stride_head;

    const dl::Lds<CT> k_lds{lds, 0, (uint32_t)(BN * kRow)};
    const dl::Lds<CT> v_lds{lds, (uint32_t)(BN * kRow * sizeof(CT)), (uint32_t)(BN * kRow)};
    const dl::Lds<CT> q_lds{lds, (uint32_t)(2 * BN * kRow * sizeof(CT)), (uint32_t)(kMfma ? 0 : BM * kRow)};

    // Q operand: registers (MFMA B fragments) or LDS (wave32 body).
    dl::vec<CT, 8> qf[kMfma ? HEAD / 16 : 1];
    if constexpr (kMfma) {
      UATTN_UNROLL
      for (int kk = 0; kk < HEAD / 16; ++kk)
        UATTN_UNROLL
        for (int e = 0; e < 8; ++e)
          qf[kk][e] = row_valid ? qrow[16 * kk + 8 * part + e] : (CT)0.0f;
    } else {
      for (int idx = tid; idx < BM * kDP; idx += kThreads) {
        const int r = idx / kDP, d = idx % kDP;
        const int64_t mr = m0 + r;
        CT v = (CT)0.0f;
        if (mr < rows_total && d < HEAD) {
          const int64_t tk = (int64_t)q_start + mr / qpk;
          const int hh = kvh * qpk + (int)(mr % qpk);
          v = static_cast<const QT*>(p.q)[tk * p.q_stride_token + (int64_t)hh * p.q_stride_head + d];
        }
        q_lds.st(r * kRow + d, v);
      }
    }

    float m_i = kNegInf, l_i = 0.0f;  // running max (log2 units) and sum
    if constexpr (kSink) {
      if (p.sinks != nullptr && row_valid && seg == 0) { m_i = p.sinks[head] * kLog2e; l_i = 1.0f; }
    }
    float acc[kNA];
    UATTN_UNROLL
    for (int r = 0; r < kNA; ++r) acc[r] = 0.0f;

    const int bs = BLOCK > 0 ? BLOCK : p.block_size;
    const int32_t* bt = p.block_table + (int64_t)sq * p.block_table_stride;
    const KVT* kc = static_cast<const KVT*>(p.k_cache);
    const KVT* vc = static_cast<const KVT*>(p.v_cache);
    const float qk_scale = p.softmax_scale * p.k_scale;

    for (int tile = t0; tile < t1; ++tile) {
      const int k0 = tile * BN;
      dl::barrier();  // previous tile's LDS reads (and the Q staging) are done
      // Stage K and V [BN][kDP] through block_table; keys outside [kv_lo, kv_hi)
      // and padded dims are zero (their memory may hold NaN).
      for (int idx = tid; idx < BN * (kDP / 8); idx += kThreads) {
        const int key = idx / (kDP / 8);
        const int d0 = (idx % (kDP / 8)) * 8;
        const int j = k0 + key;
        const bool valid = j >= kv_lo && j < kv_hi && d0 < HEAD;
        int64_t koff = 0, voff = 0;
        if (valid) {
          const int64_t blk = bt[j / bs];
          const int slot = j % bs;
          koff = blk * p.k_stride_block + (int64_t)slot * p.k_stride_slot + (int64_t)kvh * p.k_stride_head + d0;
          voff = blk * p.v_stride_block + (int64_t)slot * p.v_stride_slot + (int64_t)kvh * p.v_stride_head + d0;
        }
        UATTN_UNROLL
        for (int e = 0; e < 8; ++e) {
          k_lds.st(key * kRow + d0 + e, valid ? kv_elem(kc, koff + e) : (CT)0.0f);
          v_lds.st(key * kRow + d0 + e, valid ? kv_elem(vc, voff + e) : (CT)0.0f);
        }
      }
      dl::barrier();

      // Scores for this lane's keys.
      float s[kNS];
      if constexpr (kMfma) {
        dl::vec<float, 16> sacc;
        UATTN_UNROLL
        for (int r = 0; r < 16; ++r) sacc[r] = 0.0f;
        UATTN_UNROLL
        for (int kk = 0; kk < HEAD / 16; ++kk) {
          const dl::vec<CT, 8> kf = k_lds.template ld_vec<8>(qcol * kRow + 16 * kk + 8 * part);
          dl::mfma_32x32x16(kf, qf[kk], sacc);
        }
        UATTN_UNROLL
        for (int r = 0; r < 16; ++r) s[r] = sacc[r];
      } else {
        UATTN_UNROLL
        for (int r = 0; r < kNS; ++r) {
          const int key = key_of(r, part);
          float dot = 0.0f;
          _Pragma("unroll 8")  // bounded: full unrolling of small heads hoists every LDS load and spills
          for (int d = 0; d < kDP; ++d)
            dot += dl::to_f32(q_lds.ld(r_local * kRow + d)) * dl::to_f32(k_lds.ld(key * kRow + d));
          s[r] = dot;
        }
      }

      // Scale, softcap, mask, ALiBi, QQ-bias (SPEC.md s.1 steps 1-5), to log2 units.
      float mx = kNegInf;
      UATTN_UNROLL
      for (int r = 0; r < kNS; ++r) {
        const int j = k0 + key_of(r, part);
        float v = s[r] * qk_scale;
        if constexpr (kCap) { if (p.softcap != 0.0f) v = p.softcap * tanh_f(v / p.softcap); }
        bool keep = row_valid && j <= t_abs && j < seq_k;
        if (win_on) keep = keep && (t_abs - j <= p.window_left);
        if constexpr (kAlibi) { if (p.alibi_slopes != nullptr) v += p.alibi_slopes[head] * (float)(j - ctx); }
        if constexpr (kQQ) {
          if (p.qq_bias != nullptr && keep) {
            const int jj = j - ctx;
            if (jj >= 0 && jj < p.qq_bias_stride) v += p.qq_bias[(int64_t)p_tok * p.qq_bias_stride + jj];
          }
        }
        s[r] = keep ? v * kLog2e : kNegInf;
        mx = fmaxf_(mx, s[r]);
      }
      mx = row_max(mx);
      const float m_new = fmaxf_(m_i, mx);
      const float m_use = (m_new == kNegInf) ? 0.0f : m_new;
      const float alpha = dl::exp2(m_i - m_use);
      float sum = 0.0f;
      UATTN_UNROLL
      for (int r = 0; r < kNS; ++r) { s[r] = dl::exp2(s[r] - m_use); sum += s[r]; }
      sum = row_sum(sum);
      l_i = l_i * alpha + sum;
      m_i = m_new;
      UATTN_UNROLL
      for (int r = 0; r < kNA; ++r) acc[r] *= alpha;

      // acc += P V for this lane's (row, dims).
      if constexpr (kMfma) {
        UATTN_UNROLL
        for (int ks = 0; ks < 2; ++ks) {  // two 16-key steps of the 32-key tile
          dl::vec<CT, 8> pf;
          UATTN_UNROLL
          for (int e = 0; e < 8; ++e) pf[e] = dl::from_f32<CT>(s[8 * ks + e]);
          UATTN_UNROLL
          for (int dt = 0; dt < kDP / 32; ++dt) {
            dl::vec<CT, 8> vf;  // V^T fragment: V[key(8ks+e)][32 dt + qcol]
            UATTN_UNROLL
            for (int e = 0; e < 8; ++e) vf[e] = v_lds.ld(key_of(8 * ks + e, part) * kRow + 32 * dt + qcol);
            dl::vec<float, 16> o;
            UATTN_UNROLL
            for (int r = 0; r < 16; ++r) o[r] = acc[16 * dt + r];
            dl::mfma_32x32x16(vf, pf, o);
            UATTN_UNROLL
            for (int r = 0; r < 16; ++r) acc[16 * dt + r] = o[r];
          }
        }
      } else {
        // Rolled over keys (unrolling hoists every V load and spills); the
        // register of key jj is picked by selects, never by dynamic indexing.
        _Pragma("unroll 1")
        for (int jj = 0; jj < BN; ++jj) {
          // p of key jj for this row sits in register jj/4 of lane qcol + QW*(jj%4).
          float mine = s[0];
          UATTN_UNROLL
          for (int i = 1; i < kNS; ++i) mine = (i == (jj >> 2)) ? s[i] : mine;
          const float pj = dl::shfl(mine, qcol + kQW * (jj & 3));
          UATTN_UNROLL
          for (int r = 0; r < kNA; ++r) acc[r] += pj * dl::to_f32(v_lds.ld(jj * kRow + d_of(r, part)));
        }
      }
    }

    if (!row_valid) return;
    if constexpr (P == Path::k2D) {
      const float inv = l_i > 0.0f ? p.v_scale / l_i : 0.0f;
      if (p.out_dtype == (int32_t)DType::fp8e4m3) store_row<dl::fp8e4m3>(p, token, head, part, acc, inv);
      else store_row<QT>(p, token, head, part, acc, inv);
    } else {
      const int64_t row = (token * p.num_q_heads + head) * S + seg;
      UATTN_UNROLL
      for (int r = 0; r < kNA; ++r) {
        const int d = d_of(r, part);
        if (d < HEAD) p.ws_acc[row * HEAD + d] = acc[r] * p.v_scale;
      }
      if (part == 0) { p.ws_max[row] = m_i; p.ws_sum[row] = l_i; }
    }
  }
};

}  // namespace uattn
