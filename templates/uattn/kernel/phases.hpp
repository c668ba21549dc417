// Architecture-independent phases of the attention kernels: locate the
// workgroup's packed query rows, bound the KV range those rows can see, split
// it between segments (3D) and into boundary / interior tiles.
//
// Launch contract (every attention body): grid x = floor(num_tokens * qpk / BM)
// + num_seqs (an upper bound of the per-sequence tile counts; spare workgroups
// exit), or num_seqs * q_blocks_per_seq where that parameter is set (each
// sequence's blocks of BM rows, at most ceil(max_seqlen_q * qpk / BM)),
// y = num_kv_heads, z = num_segments (3D); with dispatch_round set (2D) a
// workgroup takes the work of another (x, y) (work_xy). A packed row m of a
// sequence is (token m / qpk, query head kv_head * qpk + m % qpk).
#pragma once
#include "uattn/kernel/common.hpp"
#include "uattn/kernel/work_order.hpp"

namespace uattn {

// Query heads per KV head (num_q_heads / num_kv_heads; both >= 1 and the one a
// multiple of the other: validate.cpp), by an unsigned division (the signed
// one takes the operands' signs apart first).
UATTN_INLINE int qpk_of(const AttnParams& p) {
  return (int)((uint32_t)p.num_q_heads / (uint32_t)p.num_kv_heads);
}

// n / d for 0 <= n < 2^32 and 1 <= d < 2^32, d used for several quotients
// (qpk): the reciprocal estimate is computed once (dl::udiv_rcp).
struct UDiv {
  uint32_t d, z;
  UDiv() = default;
  UATTN_INLINE explicit UDiv(uint32_t dd) : d(dd), z(dl::udiv_rcp(dd)) {}
  UATTN_INLINE uint32_t div(uint32_t n) const { return dl::udiv(n, d, z); }
  // n wave-uniform (held in an SGPR).
  UATTN_INLINE uint32_t div_uniform(uint32_t n) const { return dl::udiv_uniform(n, d, z); }
};

// The packed query rows [m0, m0 + BM) of one sequence and one KV head, and
// the KV tiles [t0, t1) this workgroup (segment) walks.
struct WorkItem {
  int kvh;             // KV head (work_xy)
  int sq;              // sequence index
  int q_start, q_len;  // cu_seqlens_q[sq], query tokens of the sequence
  int seq_k, ctx;      // seqused_k[sq], seq_k - q_len (keys before the first query token)
  int64_t rows_total;  // q_len * qpk
  int64_t m0;          // first packed row of the workgroup
  int p_first, p_last; // first / last query token (within the sequence) of the valid rows
  int kv_lo, kv_hi;    // keys any valid row may see: [kv_lo, kv_hi)
  int t0, t1;          // KV tiles of this workgroup (segment), BN keys each
};

// The sequence of workgroup x and the first packed row m0 of its rows (m0 may
// be past the sequence's rows: a spare workgroup). q_blocks_per_seq = n > 0:
// sequence x / n, block x % n. Else (the packed grid) the largest i with
// tile_start(i) <= x, tile_start(i) = floor(cu_seqlens_q[i] * qpk / BM) + i
// (strictly increasing), found by binary search over cu_seqlens_q.
template <int BM>
UATTN_INLINE int locate_seq(const AttnParams& p, int qpk, int64_t x, int64_t& m0) {
  const int n = p.q_blocks_per_seq;
  if (n > 0) {
    // One block per sequence (decodes) needs no division.
    const int sq = n == 1 ? (int)x : (int)((uint32_t)x / (uint32_t)n);
    m0 = (x - (int64_t)sq * n) * BM;
    return sq;
  }
  int lo = 0, hi = p.num_seqs - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    const int64_t st = (int64_t)p.cu_seqlens_q[mid] * qpk / BM + mid;
    if (st <= x) lo = mid; else hi = mid - 1;
  }
  m0 = (x - ((int64_t)p.cu_seqlens_q[lo] * qpk / BM + lo)) * BM;
  return lo;
}

// The query-row block x (grid x) and KV head y (grid y) whose work this
// workgroup takes: its own, or in a 2D launch with dispatch_round > 0 (prefills
// of more than one dispatch round: the selector) those of serpentine() over
// the launch's gx * num_kv_heads workgroups, gx as the launch contract gives
// it. 3D launches keep the grid order (the selector never sets it for them;
// not compiled in, the generic gfx1030 3D tile kept its registers).
template <Path P, int BM>
UATTN_INLINE void work_xy(const AttnParams& p, int qpk, int64_t& x, int& y) {
  x = dl::block_id_x();
  y = dl::block_id_y();
  if constexpr (P != Path::k2D) return;
  const uint32_t R = (uint32_t)p.dispatch_round;
  if (R == 0) return;
  const uint32_t gx = p.q_blocks_per_seq > 0
                          ? (uint32_t)p.num_seqs * (uint32_t)p.q_blocks_per_seq
                          : (uint32_t)((uint64_t)(uint32_t)p.num_tokens * (uint32_t)qpk / BM) + (uint32_t)p.num_seqs;
  const uint32_t g = serpentine((uint32_t)x + gx * (uint32_t)y, gx * (uint32_t)p.num_kv_heads, R);
  y = (int)(g / gx);
  x = (int64_t)(g - (uint32_t)y * gx);
}

// Phase 1 ("locate the workgroup") and 2 ("KV bounds"). Returns false for a
// spare workgroup (uniform over the workgroup). Sequence: the largest i with
// tile_start(i) <= x, tile_start(i) = floor(cu_seqlens_q[i] * qpk / BM) + i
// (strictly increasing). 3D: segment z takes tiles [t0 + z * tps, ...) with
// tps = ceil(tiles / num_segments).
template <Path P, int BM, int BN, bool kWin>
UATTN_INLINE bool locate_work(const AttnParams& p, int qpk, const UDiv& qd, WorkItem& w) {
  int64_t x;
  work_xy<P, BM>(p, qpk, x, w.kvh);
  w.sq = locate_seq<BM>(p, qpk, x, w.m0);
  w.q_start = p.cu_seqlens_q[w.sq];
  w.q_len = p.cu_seqlens_q[w.sq + 1] - w.q_start;
  w.seq_k = p.seqused_k[w.sq];
  w.ctx = w.seq_k - w.q_len;
  w.rows_total = (int64_t)w.q_len * qpk;
  if (w.m0 >= w.rows_total) return false;
  const int64_t m_last = (w.m0 + BM < w.rows_total ? w.m0 + BM : w.rows_total) - 1;
  // m0 / qpk (a 64-bit division only past 2^32 rows); m_last - p_first * qpk
  // < qpk + BM fits 32 bits.
  const int64_t p_first = ((uint64_t)w.m0 >> 32) == 0 ? (int64_t)qd.div_uniform((uint32_t)w.m0) : w.m0 / qpk;
  w.p_first = (int)p_first;
  w.p_last = w.p_first + (int)qd.div_uniform((uint32_t)(m_last - p_first * qpk));
  w.kv_hi = w.ctx + w.p_last + 1;
  w.kv_lo = 0;
  if (kWin && p.window_left >= 0) {
    w.kv_lo = w.ctx + w.p_first - p.window_left;
    if (w.kv_lo < 0) w.kv_lo = 0;
  }
  const int tile_begin = w.kv_lo / BN;
  const int tile_end = (w.kv_hi + BN - 1) / BN;
  w.t0 = tile_begin;
  w.t1 = tile_end;
  if constexpr (P == Path::k3D) {
    const int S = p.num_segments;  // >= 1; tile_end >= tile_begin: unsigned division
    const int tps = (int)((uint32_t)(tile_end - tile_begin + S - 1) / (uint32_t)S);
    w.t0 = tile_begin + dl::block_id_z() * tps;
    if (w.t0 > tile_end) w.t0 = tile_end;
    w.t1 = w.t0 + tps < tile_end ? w.t0 + tps : tile_end;
  }
  return true;
}

// Phase 3 ("interior tiles"): tiles in [f0, f1) need no mask for any valid row
// of the workgroup: every key is <= the smallest row's causal bound, inside
// the largest row's window, and (with QQ-bias compiled in) before the first new
// token, so QQ-bias never applies. Tiles of [t0, t1) outside [f0, f1) are
// boundary tiles, walked first with masks.
template <int BN, bool kWin, bool kQQ>
UATTN_INLINE void interior_tiles(const AttnParams& p, const WorkItem& w, int& f0, int& f1) {
  int lo = w.t0, hi = (w.ctx + w.p_first + 1) / BN;
  if (kWin && p.window_left >= 0) {
    int first = w.ctx + w.p_last - p.window_left;
    if (first < 0) first = 0;
    const int tf = (first + BN - 1) / BN;
    if (tf > lo) lo = tf;
  }
  if (kQQ && p.qq_bias != nullptr) {
    const int tq = w.ctx / BN;
    if (tq < hi) hi = tq;
  }
  if (hi > w.t1) hi = w.t1;
  if (hi < lo) { lo = w.t0; hi = w.t0; }
  f0 = lo;
  f1 = hi;
}

// n / d for 0 <= n < 2^31 and 1 <= d < 2^31 by a multiply-high and a shift
// (round-up reciprocal method: Granlund & Montgomery, "Division by invariant
// integers using multiplication", PLDI 1994, s.4): s = ceil(log2 d),
// m = floor(2^32 (2^s - d) / d) + 1, n / d = (mulhi(n, m) + n) >> s.
struct FastDiv {
  uint32_t m;
  uint32_t s;
  FastDiv() = default;
  UATTN_INLINE explicit FastDiv(uint32_t d) {
    uint32_t sh = 0;
    while ((1ull << sh) < d) ++sh;
    s = sh;
    m = (uint32_t)(((1ull << 32) * ((1ull << sh) - d)) / d + 1);
  }
  UATTN_INLINE uint32_t div(uint32_t n) const {
    const uint32_t t = (uint32_t)(((uint64_t)n * m) >> 32);
    return (t + n) >> s;
  }
};

// True when every tensor row the vector paths touch starts on an 8-element
// boundary: q, out, k_cache and v_cache base addresses aligned to 8 elements of
// their dtype and every token / head / block / slot stride a multiple of 8.
// Instances that move rows with 16-byte (8-byte for fp8) vector accesses
// require it; the generic instances test it at run time.
UATTN_HOST_DEVICE inline bool rows_aligned(const AttnParams& p, int q_bytes, int kv_bytes, int out_bytes) {
  const auto al = [](const void* ptr, int bytes) { return ((uint64_t)(uintptr_t)ptr % (uint64_t)(8 * bytes)) == 0; };
  const int64_t s = p.q_stride_token | p.q_stride_head | p.o_stride_token | p.o_stride_head | p.k_stride_block |
                    p.k_stride_slot | p.k_stride_head | p.v_stride_block | p.v_stride_slot | p.v_stride_head;
  return al(p.q, q_bytes) && al(p.out, out_bytes) && al(p.k_cache, kv_bytes) && al(p.v_cache, kv_bytes) &&
         (s & 7) == 0;
}

}  // namespace uattn
