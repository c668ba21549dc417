// 3D split-KV reduce kernel: combines the num_segments partial results of each
// (token, query head) written by the segment kernel (attention.hpp, Path::k3D).
//
// Grid (num_tokens, num_q_heads, 1), 1 to WAVES waves per workgroup (the
// launch's workgroup size; the selector's choice, select.cpp reduce_waves).
// For segment s with partial (acc_s, m_s, l_s), m in log2 units:
//   M = max_s m_s;  L = sum_s l_s 2^(m_s - M);  out = sum_s acc_s 2^(m_s - M) / L,
// and out = 0 where L == 0 (every key masked and no sink). SPEC.md s.2.
// With n waves, wave w sums the segments [w P, (w + 1) P), P = ceil(S / n),
// into a partial row in LDS (n x HEAD f32); after the barrier thread d adds
// the n partial values of dim d (in wave order) and stores out[d]. Every wave
// computes M and L over all S segments itself (the same values in each). One
// wave stores its row directly.
// M and L: lane s reads segment s (s, s + wave, ...), then a wave reduction;
// with S <= 2 x wave lane s keeps the weights 2^(m_s - M) of segments s and
// s + wave and the acc loop reads them with v_readlane (past 2 x wave each
// chunk re-reads its segments' maxima: the selector splits into at most
// 2 x wave segments, select.cpp max_auto_segments). acc: a lane owns kPer dims (kVec consecutive ones read with
// one vector load per segment, or d = lane + j * wave), and the acc_s rows are
// read a chunk of segments at a time with no branch between the loads, so a
// chunk's loads are in flight together, and every segment's acc is weighed
// with no branch (the segment kernel writes every segment of the rows it
// serves, zeros where it walks no KV tile: a weight of 0 adds 0).
// With S <= 2 x wave the wave's first chunk (8, 16 or kBig segments, by its
// count) is loaded with the segments' (m, l), before the reductions: up to
// kBig segments per wave, a wave waits for memory once. Whole-launch model:
// docs/performance.md, "Lone-wave tiles and the reduce" and "The reduce
// across waves".
// The grid covers q.shape[0] rows; rows at or past cu_seqlens_q[num_seqs]
// (padding for graph capture, SPEC.md s.1) are left unwritten, and in a
// checked launch nothing is written when the check kernel refused the index
// arrays (check.hpp).
#pragma once
#include "uattn/kernel/check.hpp"
#include "uattn/kernel/common.hpp"

namespace uattn {

template <Arch A, int HEAD, int WAVES>
struct ReduceKernel {
  static_assert(WAVES >= 1 && WAVES <= 16, "ReduceKernel: WAVES in [1, 16]");
  static constexpr int kWave = wave_size_of(A);
  static constexpr int kWaves = WAVES;
  static constexpr int kThreads = kWave * WAVES;
  // The waves' partial rows (up to WAVES x HEAD f32); none with one wave.
  static constexpr uint32_t kLdsBytes = WAVES > 1 ? (uint32_t)(WAVES * HEAD * 4) : 0u;
  static constexpr int kWavesPerEU = 1;
  static constexpr int kPer = (HEAD + kWave - 1) / kWave;     // d values per lane
  static constexpr bool kWholeRows = HEAD % kWave == 0;       // every lane owns kPer of them
  // A lane's kPer dims are consecutive where kPer is 1, 2 or 4 (dims
  // [kVec lane, kVec lane + kVec), one global_load_dword{,x2,x4} per segment:
  // the workspace is 16-byte aligned), else lane + j * wave (kVec = 1).
  static constexpr int kVec = (kPer == 1 || kPer == 2 || kPer == 4) ? kPer : 1;
  static constexpr int kChunk = 8;                            // segments whose acc loads are in flight together
  // S <= 2 x wave: up to kBig segments' acc loads in flight with the (m, l) loads,
  // the largest of 32, 16, kChunk with kBig x kPer <= 64 registers (wave64:
  // d64 / d128 32, d192 / d256 16; wave32: d64 32, d128 16, d256 8).
  static constexpr int big_of(int per) {
    int b = 32;
    while (b > kChunk && b * per > 64) b /= 2;
    return b;
  }
  static constexpr int kBig = big_of(kPer);

  // Max (fmaxf_) / sum over the wave's lanes; every lane gets the result
  // (dl::wave_all: DPP and lane swaps, no LDS round trip).
  UATTN_INLINE static float wave_max(float v) {
    return dl::wave_all(v, [](float a, float b) { return fmaxf_(a, b); });
  }
  UATTN_INLINE static float wave_sum(float v) {
    return dl::wave_all(v, [](float a, float b) { return a + b; });
  }

  UATTN_INLINE static int dim_of(int lane, int j) { return kVec > 1 ? kVec * lane + j : lane + j * kWave; }
  UATTN_INLINE static bool dim_on(int lane, int j) { return kWholeRows || dim_of(lane, j) < HEAD; }

  // The acc values of N segments from s0 (a segment at or past s1 re-reads
  // segment s1 - 1, which add() weighs 0; s1 >= 1), no branch between the
  // loads; one vector load of kVec dims per segment where kVec > 1 (the
  // workspace is 16-byte aligned: Runtime::run refuses another, and rows are
  // HEAD * 4 bytes with HEAD % 16 == 0).
  template <int N>
  UATTN_INLINE static void load(const char* acc, int s0, int s1, int lane, float (&a)[N][kPer]) {
    UATTN_UNROLL
    for (int c = 0; c < N; ++c) {
      const int s = s0 + c < s1 ? s0 + c : s1 - 1;
      if constexpr (kVec > 1) {
        const float* src = reinterpret_cast<const float*>(acc + (uint32_t)(s * HEAD + kVec * lane) * 4u);
        dl::vec<float, kVec> v;
        if (dim_on(lane, 0)) {
          v = dl::ldg<kVec>(src);
        } else {
          UATTN_UNROLL
          for (int j = 0; j < kVec; ++j) v[j] = 0.0f;
        }
        UATTN_UNROLL
        for (int j = 0; j < kPer; ++j) a[c][j] = v[j];
      } else {
        UATTN_UNROLL
        for (int j = 0; j < kPer; ++j) {
          const uint32_t off = (uint32_t)(s * HEAD + dim_of(lane, j)) * 4u;
          a[c][j] = dim_on(lane, j) ? *reinterpret_cast<const float*>(acc + off) : 0.0f;
        }
      }
    }
  }
  // o += the weighted sum of N segments' acc values: weight(s) for s < s1, 0
  // for the re-read ones past it (a uniform scalar select, no branch). Every
  // segment's acc is finite where its inputs are: the segment kernel writes
  // every (row, segment) of the rows it serves, zeros where it walks no KV
  // tile (attention_mfma.hpp / attention_dot2.hpp epilogues), so a weight of 0
  // adds 0.
  template <int N, class W>
  UATTN_INLINE static void add(int s0, int s1, const float (&a)[N][kPer], W weight, float (&o)[kPer]) {
    UATTN_UNROLL
    for (int c = 0; c < N; ++c) {
      // weight() gets an index inside [s0, s1) for every c, so it can be
      // evaluated unconditionally (no branch around the readlane / load).
      const float w = s0 + c < s1 ? weight(s0 + c < s1 ? s0 + c : s1 - 1) : 0.0f;
      UATTN_UNROLL
      for (int j = 0; j < kPer; ++j) o[j] = __builtin_fmaf(w, a[c][j], o[j]);
    }
  }
  // S <= K x wave (K = 1, 2): lane s holds the (m, l) of segments s and, with
  // K = 2, s + wave (-inf / 0 past S). The first N of this wave's segments
  // [s0, s1) have their acc loads go out before the wave reductions of M and
  // L; the rest follow N at a time. Returns 1 / L (0 where L == 0).
  template <int N, int K>
  UATTN_INLINE static float small(const char* acc, int S, int s0, int s1, int lane, const float (&m_lane)[K],
                                  const float (&l_lane)[K], float (&o)[kPer]) {
    float a[N][kPer];
    load<N>(acc, s0, s1, lane, a);
    float mx = m_lane[0];
    UATTN_UNROLL
    for (int k = 1; k < K; ++k) mx = fmaxf_(mx, m_lane[k]);
    const float M = wave_max(mx);
    const float Mu = (M == kNegInf) ? 0.0f : M;
    float w_lane[K];
    UATTN_UNROLL
    for (int k = 0; k < K; ++k) w_lane[k] = lane + k * kWave < S ? dl::exp2(m_lane[k] - Mu) : 0.0f;
    float lw = l_lane[0] * w_lane[0];
    UATTN_UNROLL
    for (int k = 1; k < K; ++k) lw += l_lane[k] * w_lane[k];
    const float L = wave_sum(lw);
    // The weight of segment s, from lane s mod wave (v_readlane; with K = 2
    // both registers are read and a uniform select keeps one, no branch).
    const auto from_lane = [&](int s) {
      if constexpr (K == 1) {
        return dl::bits_as_float(dl::readlane(dl::float_as_bits(w_lane[0]), s));
      } else {
        const int l = s & (kWave - 1);
        const float lo = dl::bits_as_float(dl::readlane(dl::float_as_bits(w_lane[0]), l));
        const float hi = dl::bits_as_float(dl::readlane(dl::float_as_bits(w_lane[1]), l));
        return s < kWave ? lo : hi;
      }
    };
    add<N>(s0, s1, a, from_lane, o);
    for (int c = s0 + N; c < s1; c += N) {
      load<N>(acc, c, s1, lane, a);
      add<N>(c, s1, a, from_lane, o);
    }
    return L > 0.0f ? 1.0f / L : 0.0f;
  }

  // S <= K x wave: lane s reads the (m, l) of segments s, s + wave, ...;
  // the first chunk (8, 16 or kBig segments, by this wave's count) goes out
  // with them, so a launch of up to kBig segments per wave waits for memory once.
  template <int K>
  UATTN_INLINE static float lanes(const AttnParams& p, const char* acc, int64_t row, int S, int s0, int s1,
                                  int lane, float (&o)[kPer]) {
    float m_lane[K], l_lane[K];
    UATTN_UNROLL
    for (int k = 0; k < K; ++k) {
      const bool on = lane + k * kWave < S;
      m_lane[k] = on ? p.ws_max[row + lane + k * kWave] : kNegInf;
      l_lane[k] = on ? p.ws_sum[row + lane + k * kWave] : 0.0f;
    }
    const int n = s1 - s0;
    if (n <= kChunk || kBig == kChunk) return small<kChunk, K>(acc, S, s0, s1, lane, m_lane, l_lane, o);
    if (n <= 2 * kChunk || kBig == 2 * kChunk) return small<2 * kChunk, K>(acc, S, s0, s1, lane, m_lane, l_lane, o);
    return small<kBig, K>(acc, S, s0, s1, lane, m_lane, l_lane, o);
  }

  // This wave's share (segments [s0, s1), s0 < s1 <= S or s0 = s1 = S) of
  // the output row of (token, head) into o (unscaled); returns 1 / L over
  // all S segments.
  UATTN_INLINE static float combine(const AttnParams& p, int64_t row, int S, int s0, int s1, int lane,
                                    float (&o)[kPer]) {
    // This wave's acc rows: segment s, dim d at byte (s * HEAD + d) * 4 of `acc`
    // (32-bit: S * HEAD * 4 < 2^22), so a load is one SGPR base + one VGPR offset.
    const char* acc = reinterpret_cast<const char*>(p.ws_acc + row * HEAD);
    if (S <= kWave) return lanes<1>(p, acc, row, S, s0, s1, lane, o);
    if (S <= 2 * kWave) return lanes<2>(p, acc, row, S, s0, s1, lane, o);
    float M = kNegInf;
    for (int s = lane; s < S; s += kWave) M = fmaxf_(M, p.ws_max[row + s]);
    M = wave_max(M);
    const float Mu = (M == kNegInf) ? 0.0f : M;
    float L = 0.0f;
    for (int s = lane; s < S; s += kWave) L += p.ws_sum[row + s] * dl::exp2(p.ws_max[row + s] - Mu);
    L = wave_sum(L);
    const auto from_max = [&](int s) { return dl::exp2(p.ws_max[row + s] - Mu); };
    for (int c = s0; c < s1; c += kChunk) {
      float a[kChunk][kPer];
      load<kChunk>(acc, c, s1, lane, a);
      add<kChunk>(c, s1, a, from_max, o);
    }
    return L > 0.0f ? 1.0f / L : 0.0f;
  }

  UATTN_INLINE static void run(const AttnParams& p, char* lds) {
    const int64_t token = dl::block_id_x();
    if (index_check_failed(p) || token >= p.cu_seqlens_q[p.num_seqs]) {  // refused, or padding (uniform)
      dl::end_wave();
      return;
    }
    const int head = dl::block_id_y();
    const int S = p.num_segments;
    const int lane = dl::lane_id();
    // The launch's waves (1 to kWaves; uniform) and this one's segments [s0, s1).
    const int waves = kWaves > 1 ? (int)dl::readfirstlane((uint32_t)(dl::block_threads() / kWave)) : 1;
    const int wave = kWaves > 1 ? dl::wave_id() : 0;
    const int64_t row = (token * p.num_q_heads + head) * S;
    const int per = (int)((uint32_t)(S + waves - 1) / (uint32_t)waves);
    const int s0 = wave * per < S ? wave * per : S;
    const int s1 = s0 + per < S ? s0 + per : S;
    float o[kPer];
    UATTN_UNROLL
    for (int j = 0; j < kPer; ++j) o[j] = 0.0f;
    const float inv = combine(p, row, S, s0, s1, lane, o);
    if (kWaves == 1 || waves == 1) {
      UATTN_UNROLL
      for (int j = 0; j < kPer; ++j)
        if (dim_on(lane, j)) store_out(p, token, head, dim_of(lane, j), o[j] * inv);
    } else {
      const dl::Lds<float> part{lds, 0u, (uint32_t)(kWaves * HEAD)};
      if constexpr (kVec > 1) {
        dl::vec<float, kVec> v;
        UATTN_UNROLL
        for (int j = 0; j < kVec; ++j) v[j] = o[j];
        if (dim_on(lane, 0)) part.st_vec<kVec>((uint32_t)(wave * HEAD + kVec * lane), v);
      } else {
        UATTN_UNROLL
        for (int j = 0; j < kPer; ++j)
          if (dim_on(lane, j)) part.st((uint32_t)(wave * HEAD + dim_of(lane, j)), o[j]);
      }
      dl::barrier();
      for (int d = dl::thread_id(); d < HEAD; d += waves * kWave) {
        // The kWaves partial values of dim d read together (a wave past the
        // launch's re-reads the last one and adds 0), then summed in wave order.
        float x[kWaves];
        UATTN_UNROLL
        for (int w = 0; w < kWaves; ++w) x[w] = part.ld((uint32_t)((w < waves ? w : waves - 1) * HEAD + d));
        float v = x[0];
        UATTN_UNROLL
        for (int w = 1; w < kWaves; ++w) v += w < waves ? x[w] : 0.0f;
        store_out(p, token, head, d, v * inv);
      }
    }
  }
};

}  // namespace uattn
