// The 3D split-KV reduce inside the segment launch ("fused reduce"): the
// workgroups of one query-row block and KV head (grid (x, y), every segment z)
// count their arrivals on device counters, and the last to arrive combines
// the segments' partial results, so that no second launch (reduce.hpp) is
// needed. On when AttnParams::ws_count is set (Selection::fused_reduce; the
// matrix-core bodies, attention_mfma.hpp); the combination is reduce.hpp's
// (SPEC.md s.2): M = max_s m_s, L = sum_s l_s 2^(m_s - M),
// out = sum_s acc_s 2^(m_s - M) / L, 0 where L == 0.
//
// Two levels, so that the work done after the last arrival stays small: the
// segments [G j, G j + G) form sub-group j (nsub = ceil(S / G) of them; G =
// sub_size(S): 8 up to 128 segments, 16 up to 256, so that nsub <= 16). Every
// wave of a segment workgroup, once its partial rows are stored, releases
// them (an agent-scope release fence) and adds 1 to the counter of its
// sub-group; the wave that takes the count to (segments of the sub-group) x
// (waves per workgroup) acquires the others' stores and combines the
// sub-group into its first segment's slot (acc unnormalised, m = the
// sub-group's max, l its sum: the same form as a segment's partial), then
// adds 1 to the group's second-level counter; the wave completing that one
// combines the nsub sub-group partials and writes out. With nsub == 1 the
// first level writes out. The wave that completes a counter sets it back to 0,
// so a completed launch leaves every counter it used at 0 (the counter buffer,
// apart from the workspace: dispatch/include/uattn/table.hpp,
// kFusedCounterWords; Runtime::run owns one per stream).
//
// Counters: ws_count[(x * num_kv_heads + y) * (nsub + 1) + j] for sub-group j,
// + nsub for the second level (select.cpp fused_counter_words). One combining
// wave handles the workgroup's packed rows kRB at a time: lane (r, s) =
// (lane / 16, lane % 16) reads the (m, l) of row r, segment s; each row's
// M and L are reductions over its 16 lanes (dl::row16_all), and
// the acc rows of 8 segments x kRB rows (16 with kTwoChunks) are loaded
// together ahead of them. A lane owns the dims of ReduceKernel (reduce.hpp:
// kPer per lane, kVec consecutive ones per vector load). The rows' workspace
// and output offsets are computed once per batch, row r in lanes 16 r .. 16 r
// + 15 (row_facts), and read from there (v_readlane); the output is stored in
// its dtype, chosen once per batch (store_rows). Work after the last arrival
// is the launch's tail (docs/performance.md, "The fused reduce"): in the
// whole-launch model these choices took the 4-row tail at 64 segments from
// 1.77 to 1.06 us.
#pragma once
#include "uattn/kernel/common.hpp"
#include "uattn/kernel/phases.hpp"
#include "uattn/kernel/reduce.hpp"

namespace uattn {

// QT: the query dtype (out is QT, or fp8 e4m3 where AttnParams::out_dtype says so).
// ROWS_AT_ONCE: the packed rows combined together (1, 2 or 4; fewer for a
// kernel of fewer registers: attention_mfma.hpp).
template <Arch A, class QT, int HEAD, int BM, int WAVES, int ROWS_AT_ONCE>
struct FusedReduce {
  using R = ReduceKernel<A, HEAD, 1>;
  static constexpr int kWave = wave_size_of(A);
  static_assert(kWave == 64, "FusedReduce: wave64 (lane (r, s) = (lane / 16, lane % 16))");
  static constexpr int kSub = 8;                      // segment slots loaded together (one chunk)
  static constexpr int kLgSub = 3;
  static_assert(kSub == 1 << kLgSub, "FusedReduce: kLgSub = log2(kSub)");
  static constexpr int kMaxSegments = 2 * kSub * 16;  // sub-groups of up to 16 segments, at most 16 of them
  // Segments per first-level sub-group at S segments (select.cpp
  // fused_sub_segments): 8, or 16 past 128 segments; either level combines at
  // most 16 slots, the 16 lanes of a row (combine()).
  static constexpr int sub_size(int S) { return S <= kSub * 16 ? kSub : 2 * kSub; }
  static constexpr int kPer = R::kPer;
  static constexpr int kVec = R::kVec;
  static_assert(ROWS_AT_ONCE == 1 || ROWS_AT_ONCE == 2 || ROWS_AT_ONCE == 4, "FusedReduce: 1, 2 or 4 rows at once");
  // Rows combined together (8 x kRB x kPer acc registers), at most 2 above 2 dims per lane.
  static constexpr int kRB = kPer <= 2 ? ROWS_AT_ONCE : (ROWS_AT_ONCE < 2 ? ROWS_AT_ONCE : 2);
  // All 16 slots of a combine in flight at once (2 x 8 x kRB x kPer acc
  // registers) in the kernels of 256 VGPRs (ROWS_AT_ONCE 4); else 8 at a time.
  static constexpr bool kTwoChunks = ROWS_AT_ONCE == 4;

  // Counter words a launch of grid x `gx`, `num_kv_heads` and S segments uses.
  static constexpr uint64_t counter_words(uint64_t gx, uint64_t num_kv_heads, int S) {
    return gx * num_kv_heads * (uint64_t)((S + sub_size(S) - 1) / sub_size(S) + 1);
  }

  // One counter increment by the wave (lane 0's atomic; every lane gets the
  // value before it).
  UATTN_INLINE static uint32_t count(uint32_t* c) {
    dl::fence_release_agent();
    uint32_t old = 0;
    if (dl::lane_id() == 0) old = dl::atomic_add_agent(c, 1u);
    return dl::readfirstlane(old);
  }
  UATTN_INLINE static void reset(uint32_t* c) {
    if (dl::lane_id() == 0) dl::atomic_store_agent(c, 0u);
  }

  // A 64-bit lane value of lane `src` (uniform).
  UATTN_INLINE static int64_t readlane64(int64_t v, int src) {
    const uint32_t lo = dl::readlane((uint32_t)(uint64_t)v, src);
    const uint32_t hi = dl::readlane((uint32_t)((uint64_t)v >> 32), src);
    return (int64_t)(((uint64_t)hi << 32) | lo);
  }

  // Row facts of the batch of packed rows from r0, one row per 16 lanes: lane
  // (rr, ss) gets packed row min(r0 + rr, rows - 1) of work item w (rows
  // past the batch or past `rows` repeat the last row: read, never written),
  // `ws`: its workspace row (index of segment 0), `out`: its element offset
  // in out. One vector division for every row of the batch; each row's
  // values are then read from lane 16 r (readlane64).
  UATTN_INLINE static void row_facts(const AttnParams& p, const WorkItem& w, int qpk, const UDiv& qd, int rows,
                                     int r0, int64_t& ws, int64_t& out) {
    const int rr = dl::lane_id() >> 4;
    const uint32_t mr = (uint32_t)(w.m0 + (r0 + rr < rows ? r0 + rr : rows - 1));
    const uint32_t t = qd.div(mr);
    const int64_t token = (int64_t)w.q_start + t;
    const int head = w.kvh * qpk + (int)(mr - t * (uint32_t)qpk);
    ws = (token * p.num_q_heads + head) * p.num_segments;
    out = token * p.o_stride_token + (int64_t)head * p.o_stride_head;
  }

  // The final rows r0 .. r0 + kRB - 1 (those below `rows`) of o, times the
  // inverse of their sum (inv: lane 16 r holds row r0 + r's), into out as OT.
  template <class OT>
  UATTN_INLINE static void store_rows(const AttnParams& p, int rows, int r0, int64_t out, float inv,
                                      const float (&o)[kRB][kPer]) {
    const int lane = dl::lane_id();
    UATTN_UNROLL
    for (int r = 0; r < kRB; ++r) {
      if (r0 + r >= rows) break;  // uniform
      const float ir = dl::bits_as_float(dl::readlane(dl::float_as_bits(inv), r * 16));
      OT* dst = static_cast<OT*>(p.out) + readlane64(out, r * 16);
      UATTN_UNROLL
      for (int j = 0; j < kPer; ++j)
        if (R::dim_on(lane, j)) dst[R::dim_of(lane, j)] = out_value<OT>(o[r][j] * ir, p.output_scale);
    }
  }

  // o[r] += the weights of slots c0 .. c0 + 7 of row r (lane (r, c0 + c)'s
  // wt: 0 past n, its lane is off) times their acc values a[r].
  UATTN_INLINE static void accumulate(float wt, int c0, const float (&a)[kRB][kSub][kPer], float (&o)[kRB][kPer]) {
    UATTN_UNROLL
    for (int r = 0; r < kRB; ++r) {
      // Held in VGPRs (dl::pin): as a scalar operand of v_pk_fma_f32 each
      // weight took an SGPR pair, and the 8 x kRB of them spilled SGPRs. A
      // row's 8 read together, then pinned: one pin after each read kept the
      // reads apart (a wait state after each).
      float wc[kSub];
      UATTN_UNROLL
      for (int c = 0; c < kSub; ++c) wc[c] = dl::bits_as_float(dl::readlane(dl::float_as_bits(wt), r * 16 + c0 + c));
      UATTN_UNROLL
      for (int c = 0; c < kSub; ++c) dl::pin(wc[c]);
      UATTN_UNROLL
      for (int c = 0; c < kSub; ++c)
        UATTN_UNROLL
        for (int j = 0; j < kPer; ++j) o[r][j] = __builtin_fmaf(wc[c], a[r][c][j], o[r][j]);
    }
  }

  // Combines, for each of the `rows` packed rows from w.m0, the n <= kMaxN
  // (<= 16) segment slots seg0, seg0 + stride, ...: into slot seg0, or with
  // `final` into out. kMaxN = kSub: one chunk of slots, no code for a second
  // (the first level of up to 128 segments; with that code inlined there as
  // well the generic d192 one-wave tile spilled 22 VGPRs).
  template <int kMaxN>
  UATTN_INLINE static void combine(const AttnParams& p, const WorkItem& w, int qpk, const UDiv& qd, int rows,
                                   int seg0, int n, int stride, bool final) {
    const int lane = dl::lane_id();
    const int rr = lane >> 4, ss = lane & 15;
    int nv = n;  // n in a VGPR: the slot indexes below are lane values (load())
    dl::pin(nv);
    for (int r0 = 0; r0 < rows; r0 += kRB) {
      int64_t ws, out;
      row_facts(p, w, qpk, qd, rows, r0, ws, out);
      ws += seg0;
      // The acc rows of slot seg0 (a row past `rows` re-reads the last: discarded).
      const char* rowp[kRB];
      UATTN_UNROLL
      for (int r = 0; r < kRB; ++r) {
        // The byte offset in a VGPR pair (dl::pin): the kRB row addresses held
        // in SGPRs through the loads spilled SGPRs.
        int64_t off = readlane64(ws, r * 16) * (HEAD * 4);
        dl::pin(off);
        rowp[r] = reinterpret_cast<const char*>(p.ws_acc) + off;
      }
      // Slots 0 .. 7 in flight, and with kTwoChunks 8 .. 15 too (n > 8: a
      // second-level combine of more than 64 segments, or a first-level one
      // of a sub-group of 16), before the (m, l).
      float a[kRB][kSub][kPer], b[kRB][kSub][kPer];
      load(rowp, 0, nv, stride, lane, a);
      const bool two = kTwoChunks && kMaxN > kSub && n > kSub;  // uniform
      if (two) load(rowp, kSub, nv, stride, lane, b);
      // This lane's (m, l): row r0 + rr (a lane value: no per-row select), slot
      // ss; lanes of rows past the batch (rr >= kRB) hold none.
      const bool on = rr < kRB && r0 + rr < rows && ss < nv;
      const int64_t my = ws + (int64_t)(ss < nv ? ss : nv - 1) * stride;
      const float m = on ? p.ws_max[my] : kNegInf;
      const float l = on ? p.ws_sum[my] : 0.0f;
      float o[kRB][kPer];
      UATTN_UNROLL
      for (int r = 0; r < kRB; ++r)
        UATTN_UNROLL
        for (int j = 0; j < kPer; ++j) o[r][j] = 0.0f;
      const float M = dl::row16_all(m, [](float x, float y) { return fmaxf_(x, y); });
      const float Mu = M == kNegInf ? 0.0f : M;
      const float wt = on ? dl::exp2(m - Mu) : 0.0f;
      const float L = dl::row16_all(l * wt, [](float x, float y) { return x + y; });
      accumulate(wt, 0, a, o);
      if constexpr (kTwoChunks) {
        if (two) accumulate(wt, kSub, b, o);
      } else if constexpr (kMaxN > kSub) {
        for (int c0 = kSub; c0 < n; c0 += kSub) {
          load(rowp, c0, nv, stride, lane, a);
          accumulate(wt, c0, a, o);
        }
      }
      if (final) {
        // Each row's inverse sum computed once, in its lanes (0 where L == 0).
        const float inv = L > 0.0f ? 1.0f / L : 0.0f;
        if (p.out_dtype == (int32_t)DType::fp8e4m3) store_rows<dl::fp8e4m3>(p, rows, r0, out, inv, o);
        else store_rows<QT>(p, rows, r0, out, inv, o);
        continue;
      }
      if (ss == 0 && on) {  // the sub-group's (m, l): lane (r, 0) of each row
        p.ws_max[ws] = M;
        p.ws_sum[ws] = L;
      }
      UATTN_UNROLL
      for (int r = 0; r < kRB; ++r) {
        if (r0 + r >= rows) break;  // uniform
        float* dst = reinterpret_cast<float*>(const_cast<char*>(rowp[r]));
        if constexpr (kVec > 1) {
          dl::vec<float, kVec> v;
          UATTN_UNROLL
          for (int j = 0; j < kVec; ++j) v[j] = o[r][j];
          if (R::dim_on(lane, 0)) dl::stg<kVec>(dst + kVec * lane, v);
        } else {
          UATTN_UNROLL
          for (int j = 0; j < kPer; ++j)
            if (R::dim_on(lane, j)) dst[R::dim_of(lane, j)] = o[r][j];
        }
      }
    }
  }

  // The acc values of slots c0 .. c0 + 7 (clamped to n - 1: weighed 0) of the
  // kRB rows (rowp: their slot seg0, lane values). The slot index is computed
  // in a VGPR too (nv: n held in one, dl::pin): uniform addresses of all
  // 8 x kRB loads in flight spilled SGPRs.
  UATTN_INLINE static void load(const char* const (&rowp)[kRB], int c0, int nv, int stride, int lane,
                                float (&a)[kRB][kSub][kPer]) {
    UATTN_UNROLL
    for (int c = 0; c < kSub; ++c) {
      const int s = c0 + c < nv ? c0 + c : nv - 1;
      const uint32_t off = (uint32_t)(s * stride * HEAD) * 4u;
      UATTN_UNROLL
      for (int r = 0; r < kRB; ++r) {
        if constexpr (kVec > 1) {
          dl::vec<float, kVec> v;
          if (R::dim_on(lane, 0)) {
            v = dl::ldg<kVec>(reinterpret_cast<const float*>(rowp[r] + (off + (uint32_t)(kVec * lane) * 4u)));
          } else {
            UATTN_UNROLL
            for (int j = 0; j < kVec; ++j) v[j] = 0.0f;
          }
          UATTN_UNROLL
          for (int j = 0; j < kPer; ++j) a[r][c][j] = v[j];
        } else {
          UATTN_UNROLL
          for (int j = 0; j < kPer; ++j)
            a[r][c][j] = R::dim_on(lane, j)
                             ? *reinterpret_cast<const float*>(rowp[r] + (off + (uint32_t)R::dim_of(lane, j) * 4u))
                             : 0.0f;
        }
      }
    }
  }

  // Called by every wave of a segment workgroup that served work (it was no
  // spare workgroup), after its partial rows are stored. Uniform over the
  // wave. The rows are located again here from the grid position (the
  // caller's values are not held across its tile loops).
  UATTN_INLINE static void arrive(const AttnParams& p) {
    dl::mem_order();  // the index arrays read again, not reused from the body
    const int qpk = qpk_of(p);
    const UDiv qd((uint32_t)qpk);
    WorkItem w;
    w.kvh = dl::block_id_y();
    w.sq = locate_seq<BM>(p, qpk, dl::block_id_x(), w.m0);
    w.q_start = p.cu_seqlens_q[w.sq];
    w.rows_total = (int64_t)(p.cu_seqlens_q[w.sq + 1] - w.q_start) * qpk;
    const int S = p.num_segments;
    const int G = sub_size(S);
    const int lg = G == kSub ? kLgSub : kLgSub + 1;  // log2(G): shifts, not a division by a run-time G
    const int nsub = (S + G - 1) >> lg;
    const int j = (int)dl::block_id_z() >> lg;
    const int nj = S - j * G < G ? S - j * G : G;
    uint32_t* cnt = p.ws_count + ((int64_t)dl::block_id_x() * p.num_kv_heads + w.kvh) * (nsub + 1);
    if (count(cnt + j) != (uint32_t)(nj * WAVES - 1)) return;
    dl::fence_acquire_agent();
    reset(cnt + j);
    const int64_t left = w.rows_total - w.m0;
    const int rows = left < BM ? (int)left : BM;
    if (nsub == 1) {
      combine<kSub>(p, w, qpk, qd, rows, 0, S, 1, true);  // S <= 8
      return;
    }
    // A sub-group of 8 takes the one-chunk combine; one of 16 (past 128
    // segments) the second level's, at one call site for both levels (the
    // loop is not unrolled): a second inlined copy of the 16-slot combine made
    // the generic d192 one-wave tile spill 20 VGPRs.
    bool first = G != kSub;
    if (!first) {
      combine<kSub>(p, w, qpk, qd, rows, j * G, nj, 1, false);
      if (count(cnt + nsub) != (uint32_t)(nsub - 1)) return;
      dl::fence_acquire_agent();
      reset(cnt + nsub);
    }
    _Pragma("unroll 1")
    for (;;) {
      combine<2 * kSub>(p, w, qpk, qd, rows, first ? j * G : 0, first ? nj : nsub, first ? 1 : G, !first);
      if (!first) return;
      first = false;
      if (count(cnt + nsub) != (uint32_t)(nsub - 1)) return;
      dl::fence_acquire_agent();
      reset(cnt + nsub);
    }
  }
};

}  // namespace uattn
