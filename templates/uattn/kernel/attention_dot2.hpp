// Paged unified attention, wave32 packed-math body (gfx1030: no matrix cores;
// v_dot2_f32_f16 does 2 multiply-adds per lane per instruction).
//
// Same launch contract as AttnKernel (attention.hpp): grid x = floor(num_tokens *
// qpk / BM) + num_seqs (spare workgroups exit), y = num_kv_heads, z =
// num_segments; BM = R * WAVES packed rows (row m = token m / qpk, query head
// kv_head * qpk + m % qpk). 3D writes ws_acc / ws_max / ws_sum like attention.hpp.
//
// Each wave owns R packed rows (R = 8; 4 in the one-wave d256 tiles and the
// generic one-wave d192 tile, whose 8-row accumulators would cap them below 8
// waves per SIMD, and in the 8-wave d128 prefill tile: ArchInfo.rows_by_head in
// generator/uattn_gen/model.py) and walks only the KV tiles those rows can see;
// the waves of a workgroup share nothing, so the kernel has no workgroup
// barrier, except in the 8-wave d128 prefill tile, whose waves walk the
// workgroup's KV range together and stage each K / V tile once in LDS for all
// of them (run_shared below; the rest of this header describes the other
// tiles), or, in the window tile's workgroups of at most 16 rows, split the
// range among them and combine their shares in LDS after one barrier (the key
// split: run_rows with kSplit, "Key split" below). KV tile = 32 keys,
// straight-line (every loop inside it is unrolled)
// and software-pipelined: K/V loads run kLK / kLV steps ahead of their use and
// the next tile's block-table read one tile ahead (figures: docs/performance.md).
// Every K/V load reads a real token: keys outside [kv_lo, kv_hi) load the nearest
// key inside and are masked by a select (unused cache memory may hold NaN).
//
// Lane roles (lane = 0..31 of a wave):
//   QK:  lane = key k0 + lane of the tile. The lane loads its own key's K row
//        straight from the paged cache (16-byte loads) and computes the R
//        scores s[r] = q_r . k (v_dot2_f32_f16 over 8-dim chunks). The q_r chunks
//        reach every lane by one of two broadcasts:
//         - kBcast (head sizes up to 128, every tile but the QQ-bias and generic
//           one-wave tiles): Q stays in registers, chunk c of every row in lanes
//           c and 16 + c, and v_dot2c_f32_f16 reads it through its DPP ROW_SHARE
//           source (dl::fdot2_row_share): no instruction, no LDS access;
//         - otherwise: broadcast LDS reads (every lane reads the same 16 bytes),
//           issued kQA reads ahead of their use (R / 2 rows of a chunk per step).
//   softmax: per row max over the 32 lanes with DPP / v_permlanex16 butterflies
//        (xor 1, 2, 4, 8, 16); the row sum is kept per lane (scaled by the same
//        alpha) and reduced once after the last tile.
//   P:   lanes 2i, 2i+1 exchange their p (DPP) and hold the f16 pairs
//        (p[key 2i], p[key 2i+1]) of rows 0 .. R/2-1 (even lane) / R/2 .. R-1
//        (odd lane).
//   PV:  lane = kDPL head dims (dims lane * kDPL ..), all R rows: acc[r][e] +=
//        dot2((p_r[2i], p_r[2i+1]), (v[2i][d], v[2i+1][d])); the P pairs are
//        broadcast by DPP ROW_SHARE from lanes 2i / 2i + 1 (kBcast: the upper
//        16 lanes' pairs copied to the lower row and back by v_permlanex16_b32
//        once per tile), or by v_readlane into SGPRs (the SGPR operand of
//        v_dot2); either way this phase has no LDS access to wait for. The V row of each key
//        is a wave-uniform address (v_readlane from the key's lane); the lane loads
//        its kDPL dims (8 bytes at d128, 12 at d192, 16 at d256; d192 f16 / bf16
//        takes 6 dims per lane, so the 32 lanes cover the head exactly) and
//        interleaves key pairs.
//
// LDS per wave (bytes): Q [R rows][HEAD] f16 (2 * R * HEAD), then 64 * R bytes
// the body does not use (the tile record's lds_bytes / WAVES, tiles.py, still
// counts a P area of [16 key pairs][R rows] u32 per wave). The kBcast tiles use
// no LDS (lds_bytes 0); the 8-wave tile stages the K / V tiles instead (16 KiB,
// run_shared).
//
// Rows: the vector path loads and stores whole dwords (16-byte K / Q pieces,
// 4-16-byte V pieces), so q / out / k_cache / v_cache rows must start on a
// 4-byte boundary; the generic instance checks it per launch and otherwise runs
// the same body with element loads and stores (run()).
//
// Dtypes: every product is f16 x f16 -> f32 (v_dot2_f32_f16); accumulation f32.
//  - f16 Q/KV: as is.
//  - bf16 Q/KV (gfx1030 has no bf16 dot): converted to f16 (v_cvt_pkrtz_f16_f32;
//    Q once in the prologue with round-to-nearest). Exact for |x| in
//    [2^-14, 65504]; smaller magnitudes keep an absolute error < 2^-25, larger
//    ones saturate to +-65504 (Q, K and V alike).
//  - fp8 e4m3 KV: fp8_pair_to_f16_div256() gives x / 256 exactly in f16 for
//    every code (NaN stays NaN); the 256 is folded into the scales.
// P is rounded to f16 (p <= 1: relative error 2^-11).
// Hardware facts (wave32, v_dot2_f32_f16, DPP16 row_xmask, v_permlanex16_b32,
// v_readlane_b32, 64 KiB LDS per workgroup): AMD "RDNA 2" ISA reference guide;
// the device layer (backend_amd.hpp) names the instructions used.
#pragma once
#include "uattn/kernel/common.hpp"
#include "uattn/kernel/phases.hpp"
#include "uattn/kernel/tile.hpp"

namespace uattn {

namespace dot2 {

struct alignas(16) U4 { uint32_t v[4]; };

// Two e4m3 codes placed in bits [15:8] and [31:24] of t (other bits zero) ->
// two packed f16 holding exactly (code value) / 256. The e4m3 magnitude bits
// eeeemmm become f16 bits [13:7] (f16 exponent e + 0, bias 15 vs 7: a factor
// 2^-8), subnormals map to f16 subnormals. The NaN codes (S.1111.111) become
// +-1.875; scaling by 36864 overflows to inf only for them (1.75 * 36864 =
// 64512 < 65504), and fma(z, 0, h) turns that inf into NaN and keeps h (and
// the sign of zero) otherwise. OCP OFP8 rev 1.0 s.5 (the code table).
UATTN_INLINE uint32_t fp8_pair_to_f16_div256(uint32_t t) {
  const uint32_t h = ((t >> 1) & 0x3F803F80u) | (t & 0x80008000u);
  const uint32_t z = dl::pk_mul_f16(h, 0x78807880u);  // x 36864 (f16 0x7880)
  return dl::pk_fma_f16(z, 0u, h);
}
// Codes of bytes 2i, 2i+1 of the dword pair (lo, hi) selected by i (0..3).
UATTN_INLINE uint32_t fp8_bytes_to_pair(uint32_t w, int i) {
  // byte 2i -> bits [15:8], byte 2i+1 -> bits [31:24] (i = 0, 1 within one dword)
  return i == 0 ? (((w & 0x000000FFu) << 8) | ((w & 0x0000FF00u) << 16))
                : (((w & 0x00FF0000u) >> 8) | (w & 0xFF000000u));
}
// (x of key a, x of key b) from byte e of wa and wb -> bits [15:8], [31:24].
UATTN_INLINE uint32_t fp8_interleave(uint32_t wa, uint32_t wb, int e) {
  const uint32_t a = (wa >> (8 * e)) & 0xFFu, b = (wb >> (8 * e)) & 0xFFu;
  return (a << 8) | (b << 24);
}
// bf16 pair -> f16 pair (round toward zero; see the header).
UATTN_INLINE uint32_t bf16_pair_to_f16(uint32_t w) {
  return dl::cvt_pkrtz(dl::bits_as_float(w << 16), dl::bits_as_float(w & 0xFFFF0000u));
}
// q = n / d, r = n % d for 0 <= n, 1 <= d < 2^31 and a quotient below 2^31
// (packed row / qpk). Branch-free: a 64-bit integer division compiles to a
// 32-bit fast path and a 64-bit path laid out out of line, which splits the
// kernel's control flow. The f64 quotient is within 2^-20 of n / d (n and 1 / d
// rounded once each, relative error 2^-53 each, quotient < 2^31), so its
// truncation is off by at most one, fixed by one step each way.
UATTN_INLINE void divmod_rows(int64_t n, int d, int& q, int& r) {
  int64_t qq = (int64_t)((double)n / (double)d);
  int64_t rr = n - qq * d;
  qq = rr < 0 ? qq - 1 : qq;
  rr = rr < 0 ? rr + d : rr;
  qq = rr >= d ? qq + 1 : qq;
  rr = rr >= d ? rr - d : rr;
  q = (int)qq;
  r = (int)rr;
}

// Unsigned integer of B bytes (the element loads of the unaligned path).
template <int B> struct UIntOf;
template <> struct UIntOf<1> { using type = uint8_t; };
template <> struct UIntOf<2> { using type = uint16_t; };
// N dwords of rows of B-byte elements at `ptr`: one dword load of N dwords
// (the address must be 4-byte aligned: kAl) or 4 / B element loads per dword.
template <bool kAl, int B, int N>
UATTN_INLINE dl::vec<uint32_t, N> ld_row(const void* ptr) {
  if constexpr (kAl) {
    return dl::ld_dwords<N>(ptr);
  } else {
    using E = typename UIntOf<B>::type;
    const E* e = static_cast<const E*>(ptr);
    dl::vec<uint32_t, N> r;
    UATTN_UNROLL
    for (int i = 0; i < N; ++i) {
      uint32_t w = 0;
      UATTN_UNROLL
      for (int b = 0; b < 4 / B; ++b) w |= (uint32_t)e[i * (4 / B) + b] << (8 * B * b);
      r[i] = w;
    }
    return r;
  }
}
template <bool kAl, int B, int N>
UATTN_INLINE void st_row(void* ptr, const dl::vec<uint32_t, N>& v) {
  if constexpr (kAl) {
    dl::st_dwords<N>(ptr, v);
  } else {
    using E = typename UIntOf<B>::type;
    E* e = static_cast<E*>(ptr);
    UATTN_UNROLL
    for (int i = 0; i < N; ++i)
      UATTN_UNROLL
      for (int b = 0; b < 4 / B; ++b) e[i * (4 / B) + b] = (E)(v[i] >> (8 * B * b));
  }
}

// Clamp to the finite f16 range (NaN stays NaN), like v_cvt_pkrtz's saturation.
UATTN_INLINE float sat_f16(float f) { return f > 65504.0f ? 65504.0f : f < -65504.0f ? -65504.0f : f; }
// f32 -> f16 bits, round to nearest even (v_cvt_f16_f32).
UATTN_INLINE uint32_t h16(float f) { return (uint32_t)__builtin_bit_cast(uint16_t, (dl::f16)f); }

// Max / sum over the 32 lanes of a wave (every lane gets the result).
// (scores are never NaN)
UATTN_INLINE float wave_max(float v) {
  v = dl::max_nonan(v, dl::bits_as_float(dl::xor_lanes<1>(dl::float_as_bits(v))));
  v = dl::max_nonan(v, dl::bits_as_float(dl::xor_lanes<2>(dl::float_as_bits(v))));
  v = dl::max_nonan(v, dl::bits_as_float(dl::xor_lanes<4>(dl::float_as_bits(v))));
  v = dl::max_nonan(v, dl::bits_as_float(dl::xor_lanes<8>(dl::float_as_bits(v))));
  v = dl::max_nonan(v, dl::bits_as_float(dl::xor_lanes<16>(dl::float_as_bits(v))));
  return v;
}
UATTN_INLINE float wave_sum(float v) {
  v += dl::bits_as_float(dl::xor_lanes<1>(dl::float_as_bits(v)));
  v += dl::bits_as_float(dl::xor_lanes<2>(dl::float_as_bits(v)));
  v += dl::bits_as_float(dl::xor_lanes<4>(dl::float_as_bits(v)));
  v += dl::bits_as_float(dl::xor_lanes<8>(dl::float_as_bits(v)));
  v += dl::bits_as_float(dl::xor_lanes<16>(dl::float_as_bits(v)));
  return v;
}

// f(IntC<I>{}) for I = B .. N-1: an unrolled loop whose index is a constant
// expression (the DPP lane of dl::fdot2_row_share).
template <int V> struct IntC { static constexpr int value = V; };
template <int B, int N, class F>
UATTN_INLINE void static_for(F& f) {
  if constexpr (B < N) {
    f(IntC<B>{});
    static_for<B + 1, N>(f);
  }
}

}  // namespace dot2

template <Arch A, Path P, class QT, class KVT, int HEAD, int BLOCK, uint32_t FEATS, const TileConfig& T>
struct AttnBodyDot2 {
  static constexpr int BM = T.block_m, BN = T.block_n, WAVES = T.waves;
  static_assert(P == Path::k2D || P == Path::k3D, "attention kernel path");
  static_assert(BN == 32, "KV tile of 32 keys (one per lane)");
  static_assert(HEAD % 16 == 0, "head size multiple of 16");
  static constexpr int kWave = wave_size_of(A);
  static_assert(kWave == 32, "wave32 body");
  // Rows per wave: rows_per_wave(A) = 8, or 4 in the one-wave d256 tiles, the
  // generic one-wave d192 tile and the 8-wave d128 tile (the record's rows_per_wave).
  static constexpr int kQW = T.rows_per_wave;
  static_assert(BM == kQW * WAVES && (kQW == rows_per_wave(A) || (kQW == 4 && (WAVES == 1 || WAVES == 8))),
                "block_m = rows per wave (8, or 4 in one-wave tiles and the 8-wave tile) * waves");
  static constexpr int kThreads = kWave * WAVES;
  static constexpr int kWavesPerEU = T.waves_per_eu;  // waves per SIMD the register allocation must allow (amdgpu_waves_per_eu)
  static constexpr uint32_t kLdsBytes = T.lds_bytes;  // static LDS bytes of the workgroup (0: none)
  static constexpr int kR = kQW;               // rows per wave
  static constexpr int kH = kR / 2;            // P rows one lane of a key pair holds
  static constexpr int kNC = HEAD / 8;         // 16-byte chunks of 8 f16 per Q/K row
  static constexpr int kDPL = T.dims_per_lane;  // V head dims one lane accumulates in P.V
  static_assert(32 * kDPL >= HEAD, "PV covers the head");
  static constexpr uint32_t kQBytes = (uint32_t)(kR * HEAD * 2);
  static constexpr uint32_t kPBytes = 16u * kR * 4u;
  static constexpr uint32_t kWaveLds = kQBytes + kPBytes;
  static_assert(T.q_bcast || kWaveLds * WAVES <= kLdsBytes, "the tile record's lds_bytes holds the Q / P rows (tiles.py)");
  static constexpr bool kFp8 = sizeof(KVT) == 1;
  static constexpr bool kBf16 = __is_same(QT, dl::bf16);
  static constexpr float kKVUnit = kFp8 ? 256.0f : 1.0f;  // fp8 values are held / 256
  static constexpr bool kWin = (FEATS & kFeatWindow) != 0;
  static constexpr bool kCap = (FEATS & kFeatSoftcap) != 0;
  static constexpr bool kAlibi = (FEATS & kFeatAlibi) != 0;
  static constexpr bool kQQ = (FEATS & kFeatQQBias) != 0;
  static constexpr bool kSink = (FEATS & kFeatSinks) != 0;
  using U4 = dot2::U4;
  static constexpr bool kBcast = T.q_bcast;  // Q and P broadcast by DPP (no Q / P staging in LDS)

  // V of one key, this lane's kDPL dims, raw (kVDw dwords): the key's row address
  // `row` (wave-uniform) + the lane's byte offset.
  static constexpr int kVDw = kDPL * (int)sizeof(KVT) / 4;
  template <bool kAl>
  UATTN_INLINE static void v_load(uint64_t row, uint32_t lane_off, uint32_t (&raw)[kVDw]) {
    dl::vec<uint32_t, kVDw> x;
    if constexpr (kAl) x = dl::ld_dwords<kVDw>(row, lane_off);
    else x = dot2::ld_row<false, (int)sizeof(KVT), kVDw>(reinterpret_cast<const char*>(row) + lane_off);
    UATTN_UNROLL
    for (int i = 0; i < kVDw; ++i) raw[i] = x[i];
  }
  // Keys a, b -> kDPL f16 pairs: w[e] = (v_a[d0 + e], v_b[d0 + e]).
  UATTN_INLINE static void v_pairs(const uint32_t (&x)[kVDw], const uint32_t (&y)[kVDw], uint32_t (&w)[kDPL]) {
    if constexpr (kFp8) {
      UATTN_UNROLL
      for (int e = 0; e < kDPL; ++e) w[e] = dot2::fp8_pair_to_f16_div256(dot2::fp8_interleave(x[e / 4], y[e / 4], e % 4));
    } else {
      UATTN_UNROLL
      for (int i = 0; i < kDPL / 2; ++i) {
        if constexpr (kBf16) {
          w[2 * i] = dl::cvt_pkrtz(dl::bits_as_float(x[i] << 16), dl::bits_as_float(y[i] << 16));
          w[2 * i + 1] = dl::cvt_pkrtz(dl::bits_as_float(x[i] & 0xFFFF0000u), dl::bits_as_float(y[i] & 0xFFFF0000u));
        } else {
          w[2 * i] = dl::perm(y[i], x[i], 0x05040100u);      // (x.lo, y.lo)
          w[2 * i + 1] = dl::perm(y[i], x[i], 0x07060302u);  // (x.hi, y.hi)
        }
      }
    }
  }

  // P packed as f16 pairs: lane 2i holds rows 0 .. kH-1, lane 2i+1 rows kH .. kR-1
  // of key pair i (keys 2i, 2i + 1: the lanes exchange their p by DPP). Bit
  // selects (v_bfi_b32): a `?:` on s[] becomes a dynamically indexed array
  // read, which the compiler lowers to compare/select chains.
  UATTN_INLINE static void pack_p(const float (&s)[kR], int lane, uint32_t (&w)[kH]) {
    const uint32_t odd = 0u - (uint32_t)(lane & 1);  // all ones in odd lanes
    const uint32_t sh = (uint32_t)(lane & 1) * 16u;
    UATTN_UNROLL
    for (int i = 0; i < kH; ++i) {
      const uint32_t lo = dl::float_as_bits(s[i]), hi = dl::float_as_bits(s[kH + i]);
      const uint32_t send = (lo & odd) | (hi & ~odd);
      const uint32_t mine = (hi & odd) | (lo & ~odd);
      const float recv = dl::bits_as_float(dl::xor_lanes<1>(send));
      const uint32_t hm = dot2::h16(dl::bits_as_float(mine)), hr = dot2::h16(recv);
      w[i] = (hm << sh) | (hr << (16u - sh));  // even lane: (mine, recv); odd lane: (recv, mine)
    }
  }
  // The P pairs of key pair i are in lanes 2i / 2i + 1: pairs 0-7 in the lower 16
  // lanes, 8-15 in the upper. plo / phi hold the lower / upper lanes' w in both
  // rows of 16 (v_permlanex16_b32 swaps them), so each P.V product takes its P
  // pair by DPP ROW_SHARE.
  UATTN_INLINE static void p_both_rows(const uint32_t (&w)[kH], int lane, uint32_t (&plo)[kH], uint32_t (&phi)[kH]) {
    const bool low = lane < 16;
    UATTN_UNROLL
    for (int e = 0; e < kH; ++e) {
      const uint32_t x = dl::xor_lanes<16>(w[e]);
      plo[e] = low ? w[e] : x;
      phi[e] = low ? x : w[e];
    }
  }

  // 2D epilogue: kDPL elements of one row in OT (packed into one store).
  template <class OT, bool kAl>
  UATTN_INLINE static void store_row(const AttnParams& p, int64_t token, int head, int d0, const float* a, float inv) {
    OT* out = static_cast<OT*>(p.out) + token * p.o_stride_token + (int64_t)head * p.o_stride_head + d0;
    if constexpr (sizeof(OT) == 1) {
      uint32_t w[(kDPL + 3) / 4] = {};
      UATTN_UNROLL
      for (int e = 0; e < kDPL; ++e) w[e / 4] |= (uint32_t)out_value<OT>(a[e] * inv, p.output_scale).bits << (8 * (e % 4));
      if constexpr (kDPL % 4 != 0) {  // 2 or 6 bytes at byte offset kDPL * lane: 2-byte stores
        UATTN_UNROLL
        for (int i = 0; i < kDPL / 2; ++i) {
          const uint32_t h = w[i / 2] >> (16 * (i % 2));
          if constexpr (kAl) reinterpret_cast<uint16_t*>(out)[i] = (uint16_t)h;
          else { reinterpret_cast<uint8_t*>(out)[2 * i] = (uint8_t)h; reinterpret_cast<uint8_t*>(out)[2 * i + 1] = (uint8_t)(h >> 8); }
        }
      }
      else {
        dl::vec<uint32_t, kDPL / 4> v;
        UATTN_UNROLL
        for (int i = 0; i < kDPL / 4; ++i) v[i] = w[i];
        dot2::st_row<kAl, 1, kDPL / 4>(out, v);
      }
    } else {
      dl::vec<uint32_t, kDPL / 2> v;
      UATTN_UNROLL
      for (int i = 0; i < kDPL / 2; ++i) {
        const OT lo = out_value<OT>(a[2 * i] * inv, p.output_scale);
        const OT hi = out_value<OT>(a[2 * i + 1] * inv, p.output_scale);
        v[i] = (uint32_t)__builtin_bit_cast(uint16_t, lo) | ((uint32_t)__builtin_bit_cast(uint16_t, hi) << 16);
      }
      dot2::st_row<kAl, 2, kDPL / 2>(out, v);
    }
  }

  // The generic instance (any block size, every feature) serves every problem,
  // including rows that start on a 2-byte (1-byte for fp8) boundary: it tests
  // rows_dword_aligned() once per launch and runs the element-load path
  // otherwise. The specialised instances are selected only for rows_aligned
  // problems (dispatch: ProblemDesc::rows_aligned), which are 4-byte aligned.
  static constexpr bool kGeneric = BLOCK == 0 && FEATS == kFeatAll;
  static constexpr bool kAlignedFirst = T.aligned_first;  // the generic instance tests the aligned-rows path first
  UATTN_INLINE static void run(const AttnParams& p, char* lds) {
    if constexpr (kShared) {
      if constexpr (kKeySplit) {
        if (key_split_mode(p)) { run_rows<true, true>(p, lds); return; }
      }
      run_shared(p, lds);
    } else if constexpr (kGeneric && kAlignedFirst) {
      if (rows_dword_aligned(p)) run_rows<true>(p, lds);
      else run_rows<false>(p, lds);
    } else {
      if constexpr (kGeneric) {
        if (!rows_dword_aligned(p)) { run_rows<false>(p, lds); return; }
      }
      run_rows<true>(p, lds);
    }
  }
  // Every q / out / k_cache / v_cache row starts on a 4-byte boundary (base
  // address and every token / head / block / slot stride in bytes), so the
  // dword loads and stores of the vector path are aligned: a dword-multiple
  // global access needs a 4-byte aligned address unless the hardware's
  // unaligned access mode is on (AMD "RDNA 2" ISA reference guide, memory
  // alignment), which the kernels do not rely on. The host backend checks it.
  UATTN_INLINE static bool rows_dword_aligned(const AttnParams& p) {
    const int ob = p.out_dtype == (int32_t)DType::fp8e4m3 ? 1 : (int)sizeof(QT);
    const auto al = [](const void* ptr, int64_t strides, int bytes) {
      return ((uint64_t)(uintptr_t)ptr % 4u) == 0 && ((uint64_t)(strides * bytes) % 4u) == 0;
    };
    return al(p.q, p.q_stride_token | p.q_stride_head, (int)sizeof(QT)) &&
           al(p.out, p.o_stride_token | p.o_stride_head, ob) &&
           al(p.k_cache, p.k_stride_block | p.k_stride_slot | p.k_stride_head, (int)sizeof(KVT)) &&
           al(p.v_cache, p.v_stride_block | p.v_stride_slot | p.v_stride_head, (int)sizeof(KVT));
  }

  template <bool kAl, bool kSplit = false>
  UATTN_INLINE static void run_rows(const AttnParams& p, char* lds) {
    const int qpk = qpk_of(p);
    int kvh;
    int64_t x;
    work_xy<P, BM>(p, qpk, x, kvh);
    int seg = (P == Path::k3D) ? dl::block_id_z() : 0;
    int S = (P == Path::k3D) ? p.num_segments : 1;

    // Sequence of this workgroup and its first packed row (phases.hpp).
    int64_t m0;
    const int sq = locate_seq<BM>(p, qpk, x, m0);
    const int q_start = p.cu_seqlens_q[sq];
    const int q_len = p.cu_seqlens_q[sq + 1] - q_start;
    const int seq_k = p.seqused_k[sq];
    const int ctx = seq_k - q_len;
    const int64_t rows_total = (int64_t)q_len * qpk;
    const int wave = dl::wave_id();
    const int lane = dl::lane_id();
    // Row group of this wave: the wave itself, or with kSplit (key_split_mode)
    // one of `groups` groups of kR rows, whose WAVES / groups waves walk
    // consecutive shares of the group's KV tiles (segments, as in 3D).
    int rg = wave, lg_s = 0;  // lg_s: log2 S (kSplit)
    if constexpr (kSplit) {
      const int lg = split_lg_groups(rows_total - m0);
      rg = wave & ((1 << lg) - 1);
      seg = wave >> lg;
      lg_s = kLgWaves - lg;
      S = 1 << lg_s;
    }
    // First packed row of this wave; a wave without rows has nothing to do
    // (with kSplit it still takes the combine's one barrier).
    const int64_t mw = m0 + (int64_t)rg * kR;
    if (mw >= rows_total) {  // uniform over the wave
      if constexpr (kSplit) dl::barrier();
      return;
    }

    // Rows of this wave (wave-uniform): token p_tok[r], head hd[r], valid iff r < nrows.
    int t_first, h_first;  // row mw = (token t_first, head h_first)
    dot2::divmod_rows(mw, qpk, t_first, h_first);
    const int nrows = (int)(rows_total - mw < kR ? rows_total - mw : kR);
    int p_tok[kR], hd[kR];
    {
      int t = t_first, h = h_first;
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        p_tok[r] = r < nrows ? t : 0;
        hd[r] = kvh * qpk + (r < nrows ? h : 0);
        if (++h == qpk) { h = 0; ++t; }
      }
    }
    const bool win_on = kWin && p.window_left >= 0;
    const int p_first = t_first, p_last = t_first + (int)((uint32_t)(h_first + nrows - 1) / (uint32_t)qpk);
    const int kv_hi = ctx + p_last + 1;  // keys [kv_lo, kv_hi) are seen by some row of the wave
    int kv_lo = 0;
    if (win_on) { kv_lo = ctx + p_first - p.window_left; if (kv_lo < 0) kv_lo = 0; }
    const int tile_begin = kv_lo / BN;
    const int tile_end = (kv_hi + BN - 1) / BN;
    int t0 = tile_begin, t1 = tile_end;
    if constexpr (P == Path::k3D || kSplit) {
      const int n_tiles = tile_end - tile_begin;
      const int tps = kSplit ? (n_tiles + S - 1) >> lg_s : (n_tiles + S - 1) / S;  // S a power of two with kSplit
      t0 = tile_begin + seg * tps;
      t1 = t0 + tps < tile_end ? t0 + tps : tile_end;
    }

    // Keys row r keeps: j in [klo[r], khi[r]] (empty for padding rows).
    int khi[kR], klo[kR];
    UATTN_UNROLL
    for (int r = 0; r < kR; ++r) {
      const int t_abs = ctx + p_tok[r];
      khi[r] = r < nrows ? t_abs : -1;
      klo[r] = win_on ? t_abs - p.window_left : 0;
    }

    const uint32_t wbase = (uint32_t)wave * kWaveLds;
    const dl::Lds<U4> q_lds{lds, wbase, (uint32_t)(kR * kNC)};

    // Chunk c (8 dims) of Q row r as f16 (padding rows: zero).
    auto q_chunk = [&](int r, int c) -> U4 {
      // Padding rows (r >= nrows) read row nrows - 1 and store zeros: no branch
      // around the load (the compiler would lay the skipped path out of line).
      const int rr = r < nrows ? r : nrows - 1;
      const uint32_t hr = (uint32_t)(h_first + rr);  // < qpk + kR
      const int tr = t_first + (int)(hr / (uint32_t)qpk), hq = (int)(hr % (uint32_t)qpk);
      const QT* qrow = static_cast<const QT*>(p.q) + ((int64_t)q_start + tr) * p.q_stride_token +
                       (int64_t)(kvh * qpk + hq) * p.q_stride_head;
      const auto raw = dot2::ld_row<kAl, (int)sizeof(QT), 4>(qrow + 8 * c);
      const uint32_t keep = r < nrows ? ~0u : 0u;
      U4 v;
      UATTN_UNROLL
      for (int e = 0; e < 4; ++e) {
        if constexpr (kBf16) {
          const uint32_t lo16 = dot2::h16(dot2::sat_f16(dl::bits_as_float(raw[e] << 16)));
          const uint32_t hi16 = dot2::h16(dot2::sat_f16(dl::bits_as_float(raw[e] & 0xFFFF0000u)));
          v.v[e] = ((uint32_t)lo16 | ((uint32_t)hi16 << 16)) & keep;
        } else {
          v.v[e] = raw[e] & keep;
        }
      }
      return v;
    };
    U4 qreg[kBcast ? kR : 1];  // kBcast: chunk (lane % 16) of every row (lanes past the head: the last)
    if constexpr (kBcast) {
      const int c = (lane & 15) < kNC ? (lane & 15) : kNC - 1;
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) qreg[r] = q_chunk(r, c);
    } else {
      // Stage this wave's Q rows as f16 [kR][HEAD] in LDS.
      UATTN_UNROLL
      for (int i = 0; i < (kR * kNC + 31) / 32; ++i) {
        const int idx = lane + 32 * i;
        if (kR * kNC % 32 == 0 || idx < kR * kNC) q_lds.st((uint32_t)idx, q_chunk(idx / kNC, idx % kNC));
      }
      dl::wave_barrier();  // Q staged by the wave's lanes, read by all of them
    }

    float m_i[kR], l_i[kR];  // running max (log2 units, wave-uniform) and this lane's share of the sum
    UATTN_UNROLL
    for (int r = 0; r < kR; ++r) { m_i[r] = kNegInf; l_i[r] = 0.0f; }
    if constexpr (kSink) {
      if (p.sinks != nullptr && seg == 0) {
        UATTN_UNROLL
        for (int r = 0; r < kR; ++r)
          if (r < nrows) { m_i[r] = p.sinks[hd[r]] * kLog2e; l_i[r] = lane == 0 ? 1.0f : 0.0f; }
      }
    }
    float acc[kR][kDPL];
    UATTN_UNROLL
    for (int r = 0; r < kR; ++r)
      UATTN_UNROLL
      for (int e = 0; e < kDPL; ++e) acc[r][e] = 0.0f;

    const int bs = BLOCK > 0 ? BLOCK : p.block_size;
    const int32_t* bt = p.block_table + (int64_t)sq * p.block_table_stride;
    const char* kc = static_cast<const char*>(p.k_cache);
    const char* vc = static_cast<const char*>(p.v_cache);
    const float qk_scale = p.softmax_scale * p.k_scale * kKVUnit;
    const float qk_scale_l2 = qk_scale * kLog2e;
    // softcap_tanh constants (common.hpp) of the scaled logit, natural-log units
    // (e = 1; unused: softcap_tanh<false>, no register for the small-argument form).
    float cap_b = 0.0f, cap_c = 0.0f, cap_e = 0.0f;
    if (kCap && p.softcap != 0.0f) softcap_consts(p.softcap, 1.0f, 1.0f, cap_b, cap_c, cap_e);
    float slope[kR];  // ALiBi slope of each row (0: none)
    UATTN_UNROLL
    for (int r = 0; r < kR; ++r) slope[r] = kAlibi && p.alibi_slopes != nullptr && r < nrows ? p.alibi_slopes[hd[r]] : 0.0f;
    // This lane's V dims: d0 .. d0 + kDPL - 1 (clamped into the row; lanes past
    // the head compute values nobody stores).
    const int d_lane = lane * kDPL;
    const int d0 = d_lane + kDPL <= HEAD ? d_lane : HEAD - kDPL;
    const uint32_t v_lane_off = (uint32_t)d0 * (uint32_t)sizeof(KVT);

    // Byte offsets of the K and V rows of key k0 + lane (clamped into [kv_lo,
    // kv_hi): every load reads a real token), one tile ahead of their use.
    // Byte offsets of the K and V rows of key k0 + lane, clamped into [kv_lo,
    // kv_hi) so every load reads a real token. The block-table read is issued a
    // tile ahead (key_block) and turned into offsets later (key_offsets).
    struct KeyRef { int32_t blk; int32_t slot; };
    auto key_block = [&](int k0) -> KeyRef {
      const int j = k0 + lane;
      const int jl = j < kv_lo ? kv_lo : (j >= kv_hi ? kv_hi - 1 : j);
      return KeyRef{bt[jl / bs], jl % bs};
    };
    auto key_offsets = [&](KeyRef kr, int64_t& koff, int64_t& voff) {
      dl::pin(kr.blk);  // computed here, not where the block-table read was issued
      dl::pin(kr.slot);
      const int64_t blk = kr.blk;
      koff = (blk * p.k_stride_block + (int64_t)kr.slot * p.k_stride_slot + (int64_t)kvh * p.k_stride_head) *
             (int64_t)sizeof(KVT);
      voff = (blk * p.v_stride_block + (int64_t)kr.slot * p.v_stride_slot + (int64_t)kvh * p.v_stride_head) *
             (int64_t)sizeof(KVT);
    };
    // Software pipeline (every loop below is unrolled; the tile loop is
    // straight-line): K pieces (16 bytes of this lane's key row) are loaded kLK
    // steps ahead of their QK step, the first ones during the previous tile's
    // P.V; V key pairs kLV steps ahead of their P.V step. dl::pin + mem_order +
    // sched_barrier end every step, so the compiler keeps that order (left free
    // it issues every load of the tile at once and runs out of registers).
    // Depths in flight: the tile record's k_ahead / v_ahead / q_ahead (tiles.py;
    // the measurements behind them: docs/performance.md, "Tile rules"); the
    // element-load path (unaligned rows) keeps 1 / 1 / 2.
    constexpr int kKG = kFp8 ? kNC / 2 : kNC;  // K pieces per row
    constexpr bool kSplitQ = true;  // kR / 2 Q rows per step (all 8 cost 16 VGPRs more)
    constexpr int kAheadK = !kAl ? 1 : T.k_ahead;  // K pieces in flight (aligned rows)
    constexpr int kLK = kKG < kAheadK ? kKG : kAheadK;  // K pieces in flight
    constexpr int kLV = !kAl ? 1 : T.v_ahead;  // V key pairs in flight (aligned rows)
    // Row address of key `key` of the tile (v_readlane of that key's lane).
    auto v_row = [&](uint64_t vaddr, int key) -> uint64_t {
      return ((uint64_t)dl::readlane((uint32_t)(vaddr >> 32), key) << 32) | dl::readlane((uint32_t)vaddr, key);
    };
    auto step_end = [&](float* v, int n) {
      UATTN_UNROLL
      for (int i = 0; i < n; ++i) dl::pin(v[i]);
      dl::mem_order();
      dl::sched_barrier();
    };
    constexpr int kQA = !kAl ? 2 : T.q_ahead;  // Q LDS reads in flight (aligned rows; 0: Q held in registers)
    // Q read n (chunk n / kR, row n % kR).
    auto q_ld = [&](int n) -> U4 { return q_lds.ld((uint32_t)((n % kR) * kNC + n / kR)); };
    int64_t koff_n = 0, voff_n = 0;
    dl::vec<uint32_t, 4> kr[kKG];
    if (t0 < t1) {
      key_offsets(key_block(t0 * BN), koff_n, voff_n);
      UATTN_UNROLL
      for (int g = 0; g < kLK; ++g) kr[g] = dot2::ld_row<kAl, (int)sizeof(KVT), 4>(kc + koff_n + 16 * g);
    }

    for (int tile = t0; tile < t1; ++tile) {
      const int k0 = tile * BN;
      const int j = k0 + lane;
      const int64_t koff = koff_n, voff = voff_n;
      const char* krow = kc + koff;
      const uint64_t vaddr = (uint64_t)(uintptr_t)(vc + voff);  // this lane's key's V row
      const KeyRef next = key_block(tile + 1 < t1 ? k0 + BN : k0);  // in flight during QK

      // QQ-bias of this lane's key for each row, read now (in flight during QK).
      float qqv[kR];
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) qqv[r] = 0.0f;
      if constexpr (kQQ) {
        if (p.qq_bias != nullptr) {
          const int jj = j - ctx;
          UATTN_UNROLL
          for (int r = 0; r < kR; ++r) {
            const bool in = jj >= 0 && jj < p.qq_bias_stride && j <= khi[r] && j >= klo[r];
            const float b = p.qq_bias[(int64_t)p_tok[r] * p.qq_bias_stride + (in ? jj : 0)];
            qqv[r] = in ? b : 0.0f;
          }
        }
      }

      // ---- QK: s[r] = q_r . k_j ----
      uint32_t vraw[32][kVDw];
      float s[kR];
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) s[r] = 0.0f;
      // K piece g of this lane's key as kKW f16 pairs.
      constexpr int kKW = kFp8 ? 8 : 4;
      auto k_pairs = [&](int g, uint32_t (&kw)[kKW]) {
        if constexpr (kFp8) {
          UATTN_UNROLL
          for (int e = 0; e < 8; ++e) kw[e] = dot2::fp8_pair_to_f16_div256(dot2::fp8_bytes_to_pair(kr[g][e / 2], e % 2));
        } else {
          UATTN_UNROLL
          for (int e = 0; e < 4; ++e) kw[e] = kBf16 ? dot2::bf16_pair_to_f16(kr[g][e]) : kr[g][e];
        }
      };
      // The first V keys of this tile, issued in the middle of QK (in flight during its rest).
      auto v_first = [&]() {
        UATTN_UNROLL
        for (int i = 0; i < 2 * kLV; ++i) v_load<kAl>(v_row(vaddr, i), v_lane_off, vraw[i]);
      };
      if constexpr (kBcast) {
        // Q chunk c of row r: qreg[r] of lane c of each row of 16 lanes (DPP ROW_SHARE).
        auto qk_step = [&](auto gc) {
          constexpr int g = decltype(gc)::value;
          if constexpr (g + kLK < kKG) kr[g + kLK] = dot2::ld_row<kAl, (int)sizeof(KVT), 4>(krow + 16 * (g + kLK));
          uint32_t kw[kKW];
          k_pairs(g, kw);
          auto chunk = [&](auto ccc) {
            constexpr int cc = decltype(ccc)::value;
            constexpr int c = (kFp8 ? 2 : 1) * g + cc;
            UATTN_UNROLL
            for (int r = 0; r < kR; ++r) {
              UATTN_UNROLL
              for (int e = 0; e < 4; ++e) s[r] = dl::fdot2_row_share<c>(qreg[r].v[e], kw[4 * cc + e], s[r]);
            }
          };
          dot2::static_for<0, kFp8 ? 2 : 1>(chunk);
          if constexpr (g == kKG / 2) v_first();
          step_end(s, kR);
        };
        dot2::static_for<0, kKG>(qk_step);
      } else {
        U4 qb[kQA];
        UATTN_UNROLL
        for (int n = 0; n < kQA; ++n) qb[n] = q_ld(n);
        UATTN_UNROLL
        for (int g = 0; g < kKG; ++g) {
          if (g + kLK < kKG) kr[g + kLK] = dot2::ld_row<kAl, (int)sizeof(KVT), 4>(krow + 16 * (g + kLK));
          uint32_t kw[kKW];
          k_pairs(g, kw);
          UATTN_UNROLL
          for (int cc = 0; cc < (kFp8 ? 2 : 1); ++cc) {
            const int c = (kFp8 ? 2 : 1) * g + cc;
            UATTN_UNROLL
            for (int r = 0; r < kR; ++r) {
              const int n = c * kR + r;  // Q read n of the tile (chunk c, row r)
              const U4 q = qb[n % kQA];
              if (n + kQA < kNC * kR) qb[n % kQA] = q_ld(n + kQA);
              UATTN_UNROLL
              for (int e = 0; e < 4; ++e) s[r] = dl::fdot2(q.v[e], kw[4 * cc + e], s[r]);
              if (kSplitQ && r == kR / 2 - 1) step_end(s, kR / 2);  // half the rows per step
            }
          }
          if (g == kKG / 2) v_first();
          step_end(s, kR);
        }
      }

      // ---- scale, softcap, mask, ALiBi, QQ-bias (SPEC.md s.1 steps 1-5), log2 units ----
      float mx[kR];
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        constexpr bool kFold = !kCap && !kAlibi && !kQQ;  // log2(e) folded into the scale
        float v = s[r] * (kFold ? qk_scale_l2 : qk_scale);
        if constexpr (kCap) {  // branch-free: both forms computed, one selected
          const float capped = softcap_tanh<false>(v, cap_b, cap_c, 1.0f);
          v = p.softcap != 0.0f ? capped : v;
        }
        const bool keep = j <= khi[r] && j >= klo[r];
        if constexpr (kAlibi) v += slope[r] * (float)(j - ctx);
        if constexpr (kQQ) v += qqv[r];
        s[r] = keep ? (kFold ? v : v * kLog2e) : kNegInf;
        mx[r] = s[r];
      }
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) mx[r] = dot2::wave_max(mx[r]);

      // ---- online softmax update ----
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        const float m_new = fmaxf_(m_i[r], mx[r]);
        const float m_use = (m_new == kNegInf) ? 0.0f : m_new;
        const float alpha = dl::exp2(m_i[r] - m_use);
        s[r] = dl::exp2(s[r] - m_use);
        l_i[r] = l_i[r] * alpha + s[r];
        m_i[r] = dl::bits_as_float(dl::readfirstlane(dl::float_as_bits(m_new)));  // wave-uniform: SGPR
        UATTN_UNROLL
        for (int e = 0; e < kDPL; ++e) acc[r][e] *= alpha;
      }

      // ---- P packed: lane 2i holds rows 0 .. kH-1, lane 2i+1 rows kH .. kR-1 of key pair i ----
      uint32_t w[kH];
      pack_p(s, lane, w);

      // Next tile's K/V rows.
      key_offsets(next, koff_n, voff_n);

      // ---- PV: acc[r][e] += sum_j p_r[j] v_j[d0 + e] ----
      // V key pairs 2i, 2i + 1 of this lane's kDPL dims.
      auto v_step = [&](int i, uint32_t (&vw)[kDPL]) {
        if (i + kLV < 16) {
          v_load<kAl>(v_row(vaddr, 2 * (i + kLV)), v_lane_off, vraw[2 * (i + kLV)]);
          v_load<kAl>(v_row(vaddr, 2 * (i + kLV) + 1), v_lane_off, vraw[2 * (i + kLV) + 1]);
        }
        v_pairs(vraw[2 * i], vraw[2 * i + 1], vw);
        if (i == 8) {  // the next tile's first K pieces (this tile's again after the last)
          UATTN_UNROLL
          for (int g = 0; g < kLK; ++g) kr[g] = dot2::ld_row<kAl, (int)sizeof(KVT), 4>(kc + koff_n + 16 * g);
        }
      };
      if constexpr (kBcast) {
        // The P pairs of key pair i are in lanes 2i (rows 0 .. kH-1) and 2i + 1 (rows
        // kH .. kR-1): pairs 0-7 in the lower 16 lanes, 8-15 in the upper. plo / phi
        // hold the lower / upper lanes' w in both rows of 16 (v_permlanex16_b32 swaps
        // them), so each P.V product takes its P pair by DPP ROW_SHARE.
        uint32_t plo[kH], phi[kH];
        p_both_rows(w, lane, plo, phi);
        auto pv_step = [&](auto ic) {
          constexpr int i = decltype(ic)::value;
          constexpr int la = 2 * (i % 8);  // lane of key pair i in its row of 16
          uint32_t vw[kDPL];
          v_step(i, vw);
          const uint32_t(&pp)[kH] = i < 8 ? plo : phi;
          UATTN_UNROLL
          for (int r = 0; r < kH; ++r) {
            UATTN_UNROLL
            for (int e = 0; e < kDPL; ++e) {
              acc[r][e] = dl::fdot2_row_share<la>(pp[r], vw[e], acc[r][e]);
              acc[kH + r][e] = dl::fdot2_row_share<la + 1>(pp[r], vw[e], acc[kH + r][e]);
            }
          }
          step_end(&acc[0][0], kR * kDPL);
        };
        dot2::static_for<0, 16>(pv_step);
      } else {
        // P broadcast one step ahead.
        // The f16 pairs of key pair i come from lanes 2i / 2i + 1 by v_readlane into
        // SGPRs (the SGPR operand of v_dot2): no LDS round trip, so no LDS wait in
        // this phase while V loads are in flight.
        struct PH { uint32_t v[kH]; };
        auto p_get = [&](int kk) -> PH {
          PH o;
          UATTN_UNROLL
          for (int e = 0; e < kH; ++e) o.v[e] = dl::readlane(w[e], kk);
          return o;
        };
        PH pa_n = p_get(0), pb_n = p_get(1);
        UATTN_UNROLL
        for (int i = 0; i < 16; ++i) {
          uint32_t vw[kDPL];
          v_step(i, vw);
          const PH pa = pa_n, pb = pb_n;
          if (i + 1 < 16) { pa_n = p_get(2 * i + 2); pb_n = p_get(2 * i + 3); }
          uint32_t pr[kR];  // rows 0 .. kH-1 from lane 2i, kH .. kR-1 from lane 2i+1
          UATTN_UNROLL
          for (int r = 0; r < kH; ++r) { pr[r] = pa.v[r]; pr[kH + r] = pb.v[r]; }
          UATTN_UNROLL
          for (int r = 0; r < kR; ++r)
            UATTN_UNROLL
            for (int e = 0; e < kDPL; ++e) acc[r][e] = dl::fdot2(pr[r], vw[e], acc[r][e]);
          step_end(&acc[0][0], kR * kDPL);
        }
      }
    }

    // ---- epilogue ----
    float l_row[kR];
    UATTN_UNROLL
    for (int r = 0; r < kR; ++r) l_row[r] = dot2::wave_sum(l_i[r]);
    const bool lane_stores = d_lane < HEAD;
    if constexpr (kSplit) {
      if (!combine_split(lds, 1 << split_lg_groups(rows_total - m0), seg, S, rg, lane, m_i, l_row, acc)) return;
    }
    if constexpr (P == Path::k2D) {
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        if (r < nrows && lane_stores) {
          const float inv = l_row[r] > 0.0f ? p.v_scale * kKVUnit / l_row[r] : 0.0f;
          const int64_t token = (int64_t)q_start + p_tok[r];
          if (p.out_dtype == (int32_t)DType::fp8e4m3) store_row<dl::fp8e4m3, kAl>(p, token, hd[r], d0, acc[r], inv);
          else store_row<QT, kAl>(p, token, hd[r], d0, acc[r], inv);
        }
      }
    } else {
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        if (r < nrows) {
          const int64_t token = (int64_t)q_start + p_tok[r];
          const int64_t row = (token * p.num_q_heads + hd[r]) * S + seg;
          if (lane_stores) {
            dl::vec<uint32_t, kDPL> v;
            UATTN_UNROLL
            for (int e = 0; e < kDPL; ++e) v[e] = dl::float_as_bits(acc[r][e] * (p.v_scale * kKVUnit));
            dl::st_dwords<kDPL>(p.ws_acc + row * HEAD + d0, v);
          }
          if (lane == 0) { p.ws_max[row] = m_i[r]; p.ws_sum[row] = l_row[r]; }
        }
      }
    }
  }

  // ---- The 8-wave prefill tile (kShared, d128): K / V tiles shared through LDS ----
  // Each of the 8 waves owns 4 packed rows (32 per workgroup) and the workgroup
  // walks one KV range, the union of its rows' ranges (each row masks the keys
  // it does not see; a wave past the last row loads, stores and waits with the
  // others and writes no output). Per KV tile of 32 keys the workgroup's 256
  // lanes load the K and V tiles once and store them in LDS as f16 (bf16 and
  // fp8 converted once here, for all 8 waves):
  //   K [16 chunks][32 keys] of 16 bytes (8 dims): QK step c reads chunk c of
  //     key `lane` (consecutive lanes, consecutive 16 bytes);
  //   V [16 key pairs][HEAD] of (v[2i][d], v[2i + 1][d]) f16 pairs: P.V step i
  //     reads dims 4 lane .. 4 lane + 3 of pair i (one 16-byte read).
  // Loads per lane and tile: 16-bit KV two 16-byte K pieces (key k0 + lane,
  // chunks 2 wave, 2 wave + 1) and two V pieces (chunk lane % 16 of keys 2 sk,
  // 2 sk + 1, sk = 2 wave + lane / 16); fp8 KV one of each (16 dims; the two
  // lanes of a key pair swap halves). QK and P.V are the kBcast ones of the
  // other tiles (Q chunk and P pair by DPP ROW_SHARE) with K / V from LDS.
  // Two barriers per tile, one buffer each for K and V (16 KiB):
  //   Ba: K of tile t visible, every wave done with P.V of t - 1 -> store V of
  //       t (loaded during P.V of t - 1), load K of t + 1; QK, softmax;
  //   Bb: V of t visible, every wave done with QK of t -> store K of t + 1,
  //       load V of t + 1, read the block table for t + 2; P.V.
  // So a lane holds at most two staged pieces, each in flight for one phase,
  // and the LDS reads run kShLK / kShLV steps ahead: in llvm-mca's model every
  // global load also counts as an LGKM operation (docs/performance.md), so an
  // LDS wait stalls unless more LDS reads are in flight than global loads.
  // Depths: the record's k_ahead / v_ahead (docs/performance.md, "Tile rules").
  static constexpr bool kShared = T.shares_kv;  // the workgroup stages each K / V tile once in LDS for all its waves

  // ---- Key split (the record's key_split): a workgroup of few rows ----
  // In the window tile with 16-bit KV (tiles.py _dot2_key_split) a workgroup
  // whose rows fill at most half its waves (a window decode: qpk rows of one
  // token) walks its KV range in run_rows instead, with kSplit: its rows form
  // `groups` groups of kR (1, 2 or 4, the fewest that hold them; a group past
  // the last row has none), and the WAVES / groups waves of a group (wave =
  // segment * groups + group) each walk one consecutive share of the group's KV
  // tiles with their own K / V loads (the 3D path's split, phases.hpp). Each wave
  // of segment s > 0 stores its rows' unnormalised partial output, max (log2
  // units) and sum in LDS; after one workgroup barrier the wave of segment 0
  // combines them with its own (the reduce kernel's formula, reduce.hpp:
  // o = sum_s 2^(m_s - M) acc_s / sum_s 2^(m_s - M) l_s, M = max_s m_s) and
  // stores the rows. LDS per wave of segment s > 0, in the K / V tiles' area:
  // [kR rows][32 lanes][kDPL] f32 partial output, then kR maxima and kR sums.
  // The walk keeps the record's k_ahead / v_ahead K pieces / V key pairs in
  // flight (the shared walk's LDS read depths; docs/performance.md, "Key split in
  // the gfx1030 8-wave tile", has the other depths measured).
  static constexpr bool kKeySplit = T.key_split;
  static constexpr uint32_t kSplitAccBytes = (uint32_t)(kR * kWave * kDPL * 4);
  static constexpr uint32_t kSplitSlot = kSplitAccBytes + 2u * (uint32_t)kR * 4u;
  static_assert(!kKeySplit || (kShared && kBcast && WAVES == 8 && kDPL == 4 && (WAVES - 1) * kSplitSlot <= kLdsBytes),
                "key split: the 8-wave d128 tile with Q in registers (no Q rows in LDS), one 16-byte LDS piece "
                "per lane and row, partials within its LDS");
  // log2 of the row groups of a workgroup of `rows` rows (1 <= rows <= 4 kR).
  UATTN_INLINE static int split_lg_groups(int64_t rows) { return rows <= kR ? 0 : rows <= 2 * kR ? 1 : 2; }
  static constexpr int kLgWaves = WAVES == 8 ? 3 : WAVES == 4 ? 2 : WAVES == 2 ? 1 : 0;
  // Whether this workgroup takes the key split: it has rows, at most BM / 2
  // (the rows run_rows counts: rows_total - m0).
  UATTN_INLINE static bool key_split_mode(const AttnParams& p) {
    const int qpk = qpk_of(p);
    int kvh;
    int64_t x, m0;
    work_xy<P, BM>(p, qpk, x, kvh);
    const int sq = locate_seq<BM>(p, qpk, x, m0);
    const int64_t rows = (int64_t)(p.cu_seqlens_q[sq + 1] - p.cu_seqlens_q[sq]) * qpk - m0;
    return rows > 0 && rows <= BM / 2;
  }
  // The key split's combine: every wave of the workgroup with rows calls it once
  // (rowless waves take the barrier alone). Returns true in the wave of segment 0,
  // whose m_i / l_row / acc then hold the combined rows (stored as 2D).
  UATTN_INLINE static bool combine_split(char* lds, int groups, int seg, int S, int rg, int lane, const float (&m_i)[kR],
                                         float (&l_row)[kR], float (&acc)[kR][kDPL]) {
    auto slot = [&](int s) { return (uint32_t)((s - 1) * groups + rg) * kSplitSlot; };
    if (seg > 0) {
      const dl::Lds<U4> a{lds, slot(seg), (uint32_t)(kR * kWave)};
      const dl::Lds<float> ml{lds, slot(seg) + kSplitAccBytes, (uint32_t)(2 * kR)};
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        U4 v;
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) v.v[e] = dl::float_as_bits(acc[r][e]);
        a.st((uint32_t)(r * kWave + lane), v);
        if (lane == 0) { ml.st((uint32_t)r, m_i[r]); ml.st((uint32_t)(kR + r), l_row[r]); }
      }
    }
    dl::barrier();  // every partial stored
    if (seg > 0) return false;
    // The maxima first, then the segments one at a time (loops, not unrolled: one
    // segment's partial in registers at a time).
    auto ml = [&](int s) { return dl::Lds<float>{lds, slot(s) + kSplitAccBytes, (uint32_t)(2 * kR)}; };  // maxima, sums
    float m_use[kR];
    UATTN_UNROLL
    for (int r = 0; r < kR; ++r) {
      float m = m_i[r];
#pragma clang loop unroll(disable)
      for (int s = 1; s < S; ++s) m = fmaxf_(m, ml(s).ld((uint32_t)r));
      m_use[r] = m == kNegInf ? 0.0f : m;
      const float a0 = dl::exp2(m_i[r] - m_use[r]);
      l_row[r] *= a0;
      UATTN_UNROLL
      for (int e = 0; e < 4; ++e) acc[r][e] *= a0;
    }
#pragma clang loop unroll(disable)
    for (int s = 1; s < S; ++s) {
      const dl::Lds<float> mls = ml(s);
      const dl::Lds<U4> a{lds, slot(s), (uint32_t)(kR * kWave)};
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        const float w = dl::exp2(mls.ld((uint32_t)r) - m_use[r]);
        l_row[r] += mls.ld((uint32_t)(kR + r)) * w;
        const U4 v = a.ld((uint32_t)(r * kWave + lane));
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) acc[r][e] += w * dl::bits_as_float(v.v[e]);
      }
    }
    return true;
  }
  static constexpr uint32_t kShKBytes = (uint32_t)(BN * HEAD * 2);  // K tile; V tile of the same size after it
  static constexpr int kShLK = T.k_ahead, kShLV = T.v_ahead;

  UATTN_INLINE static void run_shared(const AttnParams& p, char* lds) {
    // (the generator prunes every other candidate: rules.py shared-tile-plain-or-window, large-tile-2d-only)
    static_assert(P == Path::k2D && HEAD == 128 && BLOCK > 0 && BLOCK % 2 == 0 && kR == 4 &&
                      !kQQ && !kAlibi && !kCap && !kSink,
                  "8-wave tile: 2D, d128, a fixed even block size, plain or sliding window");
    constexpr bool kAl = true;  // specialised instances serve rows_aligned problems only
    const int qpk = qpk_of(p);
    int kvh;
    int64_t x;
    work_xy<P, BM>(p, qpk, x, kvh);

    int64_t mg;
    const int sq = locate_seq<BM>(p, qpk, x, mg);
    const int q_start = p.cu_seqlens_q[sq];
    const int q_len = p.cu_seqlens_q[sq + 1] - q_start;
    const int seq_k = p.seqused_k[sq];
    const int ctx = seq_k - q_len;
    const int64_t rows_total = (int64_t)q_len * qpk;
    // First packed row of the workgroup; a workgroup without rows exits (uniform, before any barrier).
    if (mg >= rows_total) return;
    const int wave = dl::wave_id();
    const int lane = dl::lane_id();
    const int ng = (int)(rows_total - mg < BM ? rows_total - mg : BM);  // rows of the workgroup
    // Rows of this wave: mw .. mw + nrows - 1 (a wave past the last row keeps
    // nrows = 0: it loads, stores and waits with the others, and stores no output).
    const int64_t mw = mg + (int64_t)wave * kR;
    const int nrows = mw < rows_total ? (int)(rows_total - mw < kR ? rows_total - mw : kR) : 0;
    int tg_first, hg_first;
    dot2::divmod_rows(mg, qpk, tg_first, hg_first);
    int t_first, h_first;
    dot2::divmod_rows(nrows > 0 ? mw : mg, qpk, t_first, h_first);
    int p_tok[kR], hd[kR];
    {
      int t = t_first, h = h_first;
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        p_tok[r] = r < nrows ? t : 0;
        hd[r] = kvh * qpk + (r < nrows ? h : 0);
        if (++h == qpk) { h = 0; ++t; }
      }
    }
    const bool win_on = kWin && p.window_left >= 0;
    // Keys [kv_lo, kv_hi) seen by some row of the workgroup.
    const int pg_last = tg_first + (int)((uint32_t)(hg_first + ng - 1) / (uint32_t)qpk);
    const int kv_hi = ctx + pg_last + 1;
    int kv_lo = 0;
    if (win_on) { kv_lo = ctx + tg_first - p.window_left; if (kv_lo < 0) kv_lo = 0; }
    const int t0 = kv_lo / BN, t1 = (kv_hi + BN - 1) / BN;
    int khi[kR], klo[kR];
    UATTN_UNROLL
    for (int r = 0; r < kR; ++r) {
      const int t_abs = ctx + p_tok[r];
      khi[r] = r < nrows ? t_abs : -1;
      klo[r] = win_on ? t_abs - p.window_left : 0;
    }

    // Q: chunk (lane % 16) of each row of the wave (padding rows: zero).
    U4 qreg[kR];
    {
      const int c = lane & 15;
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        const int rr = r < nrows ? r : (nrows > 0 ? nrows - 1 : 0);
        const uint32_t hr = (uint32_t)(h_first + rr);
        const int tr = t_first + (int)(hr / (uint32_t)qpk), hq = (int)(hr % (uint32_t)qpk);
        const QT* qrow = static_cast<const QT*>(p.q) + ((int64_t)q_start + tr) * p.q_stride_token +
                         (int64_t)(kvh * qpk + hq) * p.q_stride_head;
        const auto raw = dl::ld_dwords<4>(qrow + 8 * c);
        const uint32_t keep = r < nrows ? ~0u : 0u;
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) {
          if constexpr (kBf16) {
            const uint32_t lo16 = dot2::h16(dot2::sat_f16(dl::bits_as_float(raw[e] << 16)));
            const uint32_t hi16 = dot2::h16(dot2::sat_f16(dl::bits_as_float(raw[e] & 0xFFFF0000u)));
            qreg[r].v[e] = (lo16 | (hi16 << 16)) & keep;
          } else {
            qreg[r].v[e] = raw[e] & keep;
          }
        }
      }
    }

    float m_i[kR], l_i[kR], acc[kR][kDPL];
    UATTN_UNROLL
    for (int r = 0; r < kR; ++r) {
      m_i[r] = kNegInf;
      l_i[r] = 0.0f;
      UATTN_UNROLL
      for (int e = 0; e < kDPL; ++e) acc[r][e] = 0.0f;
    }
    const float qk_scale_l2 = p.softmax_scale * p.k_scale * kKVUnit * kLog2e;
    const int d0 = lane * kDPL;

    // LDS tiles (U4 = 16 bytes): K chunk c of key k at c * 32 + k; V pair i, dims 4l .. 4l + 3 at i * 32 + l.
    const dl::Lds<U4> k_lds{lds, 0u, (uint32_t)(BN * kNC)};
    const dl::Lds<U4> v_lds{lds, kShKBytes, (uint32_t)(BN / 2 * HEAD / 4)};

    // Staging roles. K: lane = key k0 + lane (as in QK), chunks 2 * wave and 2 * wave + 1 (32 bytes of
    // the row). V: key pair sk = 2 * wave + lane / 16, chunk sc = lane % 16 of keys 2 sk and 2 sk + 1.
    // Keys are clamped into [kv_lo, kv_hi) (every load reads a real token); the V keys' cache block
    // is the K lane's (v_readlane from lanes 4 * wave and 4 * wave + 2, whose key is 2 sk), so one
    // block-table read per lane and tile. Both V keys lie in that block: either both clamp to one
    // key, or they are keys 2 sk and 2 sk + 1 of the tile unclamped, which one even BLOCK holds.
    const int sk = 2 * wave + (lane >> 4), sc = lane & 15;
    const int32_t* bt = p.block_table + (int64_t)sq * p.block_table_stride;
    const char* kc = static_cast<const char*>(p.k_cache);
    const char* vc = static_cast<const char*>(p.v_cache);
    auto clampk = [&](int j) { return (uint32_t)(j < kv_lo ? kv_lo : (j >= kv_hi ? kv_hi - 1 : j)); };
    auto k_block = [&](int k0) -> int32_t { return bt[clampk(k0 + lane) / (uint32_t)BLOCK]; };
    auto row_off = [&](uint32_t j, int32_t blk, int64_t sb, int64_t ss, int64_t sh) -> int64_t {
      return ((int64_t)blk * sb + (int64_t)(j % (uint32_t)BLOCK) * ss + (int64_t)kvh * sh) * (int64_t)sizeof(KVT);
    };
    U4 kst[2], vst[2];  // staged pieces in flight
    // fp8 KV: one 16-byte piece per lane and tile for K (16 dims: the same two LDS chunks) and for V
    // (16 dims of key 2 sk + (lane & 1); the lanes of a pair swap halves in v_store).
    auto k_load = [&](int k0, int32_t blk) {
      dl::pin(blk);
      const char* row = kc + row_off(clampk(k0 + lane), blk, p.k_stride_block, p.k_stride_slot, p.k_stride_head) +
                        (kFp8 ? 16 : 32) * wave;
      const auto x0 = dl::ld_dwords<4>(row);
      UATTN_UNROLL
      for (int e = 0; e < 4; ++e) kst[0].v[e] = x0[e];
      if constexpr (!kFp8) {
        const auto x1 = dl::ld_dwords<4>(row + 16);
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) kst[1].v[e] = x1[e];
      }
    };
    auto v_load2 = [&](int k0, int32_t blk_k) {
      const int32_t b0 = (int32_t)dl::readlane((uint32_t)blk_k, 4 * wave);
      const int32_t b1 = (int32_t)dl::readlane((uint32_t)blk_k, 4 * wave + 2);
      const int32_t blk = lane < 16 ? b0 : b1;
      const uint32_t ja = clampk(k0 + 2 * sk), jb = clampk(k0 + 2 * sk + 1);  // jb = ja or ja + 1, one block
      if constexpr (kFp8) {
        const uint32_t j = (lane & 1) ? jb : ja;
        const auto x0 = dl::ld_dwords<4>(vc + row_off(j, blk, p.v_stride_block, p.v_stride_slot, p.v_stride_head) + 16 * (sc >> 1));
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) vst[0].v[e] = x0[e];
      } else {
        const char* ra = vc + row_off(ja, blk, p.v_stride_block, p.v_stride_slot, p.v_stride_head) + 16 * sc;
        const char* rb = ra + (jb != ja ? p.v_stride_slot * (int64_t)sizeof(KVT) : 0);
        const auto x0 = dl::ld_dwords<4>(ra);
        const auto x1 = dl::ld_dwords<4>(rb);
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) { vst[0].v[e] = x0[e]; vst[1].v[e] = x1[e]; }
      }
    };
    auto k_store = [&]() {
      UATTN_UNROLL
      for (int h = 0; h < 2; ++h) {
        U4 w;
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) {
          if constexpr (kFp8) {  // bytes 2m, 2m + 1 of the piece -> bits [15:8], [31:24] -> f16 / 256
            const uint32_t x = kst[0].v[2 * h + e / 2];
            w.v[e] = dot2::fp8_pair_to_f16_div256(dl::perm(0u, x, e % 2 ? 0x030C020Cu : 0x010C000Cu));
          } else {
            w.v[e] = kBf16 ? dot2::bf16_pair_to_f16(kst[h].v[e]) : kst[h].v[e];
          }
        }
        k_lds.st((uint32_t)((2 * wave + h) * BN + lane), w);
      }
    };
    auto v_store = [&]() {
      uint32_t x[4], y[4], w[8];
      if constexpr (kFp8) {
        // Even lanes hold key 2 sk, odd lanes key 2 sk + 1, 16 dims each; the even lane makes the
        // pairs of the first 8 dims, the odd lane those of the last 8: each sends the other half.
        const bool odd = (lane & 1) != 0;
        uint32_t a[2], b[2];
        UATTN_UNROLL
        for (int k = 0; k < 2; ++k) {
          const uint32_t recv = dl::xor_lanes<1>(odd ? vst[0].v[k] : vst[0].v[2 + k]);
          a[k] = odd ? recv : vst[0].v[k];
          b[k] = odd ? vst[0].v[2 + k] : recv;
        }
        UATTN_UNROLL
        for (int e = 0; e < 8; ++e) {  // dim e: byte e % 4 of dword e / 4 of each key -> bits [15:8], [31:24]
          const uint32_t sel = ((uint32_t)(4 + e % 4) << 24) | 0x000C000Cu | ((uint32_t)(e % 4) << 8);
          w[e] = dot2::fp8_pair_to_f16_div256(dl::perm(b[e / 4], a[e / 4], sel));
        }
      }
      if constexpr (!kFp8) {
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) { x[e] = vst[0].v[e]; y[e] = vst[1].v[e]; }
      }
      UATTN_UNROLL
      for (int i = 0; i < 4 && !kFp8; ++i) {
        if constexpr (kBf16) {
          w[2 * i] = dl::cvt_pkrtz(dl::bits_as_float(x[i] << 16), dl::bits_as_float(y[i] << 16));
          w[2 * i + 1] = dl::cvt_pkrtz(dl::bits_as_float(x[i] & 0xFFFF0000u), dl::bits_as_float(y[i] & 0xFFFF0000u));
        } else {
          w[2 * i] = dl::perm(y[i], x[i], 0x05040100u);      // (x.lo, y.lo)
          w[2 * i + 1] = dl::perm(y[i], x[i], 0x07060302u);  // (x.hi, y.hi)
        }
      }
      UATTN_UNROLL
      for (int h = 0; h < 2; ++h) {
        U4 u;
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) u.v[e] = w[4 * h + e];
        v_lds.st((uint32_t)(sk * (HEAD / 4) + 2 * sc + h), u);
      }
    };
    auto step_end = [&](float* v, int n) {
      UATTN_UNROLL
      for (int i = 0; i < n; ++i) dl::pin(v[i]);
      dl::mem_order();
      dl::sched_barrier();
    };

    int32_t bk_n = 0;  // cache block of key k0 + lane of the next tile (K), read a tile ahead
    if (t0 < t1) {
      const int k0 = t0 * BN, kn = t0 + 1 < t1 ? k0 + BN : k0;
      const int32_t b = k_block(k0);
      k_load(k0, b);
      v_load2(k0, b);
      bk_n = k_block(kn);
      k_store();
    }

    for (int tile = t0; tile < t1; ++tile) {
      const int k0 = tile * BN;
      const int kn = tile + 1 < t1 ? k0 + BN : k0;    // next tile (the last one loads its own again)
      const int kn2 = tile + 2 < t1 ? k0 + 2 * BN : kn;
      const int j = k0 + lane;

      dl::barrier();  // Ba
      v_store();
      const int32_t bk = bk_n;
      k_load(kn, bk);

      // ---- QK: s[r] = q_r . k_j, K chunk c from LDS, Q chunk c by ROW_SHARE c ----
      float s[kR];
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) s[r] = 0.0f;
      U4 kq[kShLK];
      UATTN_UNROLL
      for (int c = 0; c < kShLK; ++c) kq[c] = k_lds.ld((uint32_t)(c * BN + lane));
      auto qk_step = [&](auto cc) {
        constexpr int c = decltype(cc)::value;
        const U4 cur = kq[c % kShLK];
        if constexpr (c + kShLK < kNC) kq[c % kShLK] = k_lds.ld((uint32_t)((c + kShLK) * BN + lane));
        UATTN_UNROLL
        for (int r = 0; r < kR; ++r) {
          UATTN_UNROLL
          for (int e = 0; e < 4; ++e) s[r] = dl::fdot2_row_share<c>(qreg[r].v[e], cur.v[e], s[r]);
        }
        step_end(s, kR);
      };
      dot2::static_for<0, kNC>(qk_step);

      // ---- mask, online softmax (as run_rows) ----
      float mx[kR];
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        const bool keep = j <= khi[r] && j >= klo[r];
        s[r] = keep ? s[r] * qk_scale_l2 : kNegInf;
        mx[r] = dot2::wave_max(s[r]);
      }
      UATTN_UNROLL
      for (int r = 0; r < kR; ++r) {
        const float m_new = dl::max_nonan(m_i[r], mx[r]);  // neither is NaN
        const float m_use = dl::max_nonan(m_new, -3.0e38f);  // -inf -> -3e38: exp2(-inf - m_use) = 0
        const float alpha = dl::exp2(m_i[r] - m_use);
        s[r] = dl::exp2(s[r] - m_use);
        l_i[r] = l_i[r] * alpha + s[r];
        m_i[r] = dl::bits_as_float(dl::readfirstlane(dl::float_as_bits(m_new)));
        UATTN_UNROLL
        for (int e = 0; e < kDPL; ++e) acc[r][e] *= alpha;
      }
      uint32_t w[kH], plo[kH], phi[kH];
      pack_p(s, lane, w);
      p_both_rows(w, lane, plo, phi);

      dl::barrier();  // Bb
      k_store();
      v_load2(kn, bk);
      bk_n = k_block(kn2);

      // ---- PV: acc[r][e] += sum_i (p_r[2i], p_r[2i+1]) . (v_2i[d0 + e], v_2i+1[d0 + e]) ----
      U4 vq[kShLV];
      UATTN_UNROLL
      for (int i = 0; i < kShLV; ++i) vq[i] = v_lds.ld((uint32_t)(i * (HEAD / 4) + lane));
      auto pv_step = [&](auto ic) {
        constexpr int i = decltype(ic)::value;
        constexpr int la = 2 * (i % 8);
        const U4 cur = vq[i % kShLV];
        if constexpr (i + kShLV < 16) vq[i % kShLV] = v_lds.ld((uint32_t)((i + kShLV) * (HEAD / 4) + lane));
        const uint32_t(&pp)[kH] = i < 8 ? plo : phi;
        UATTN_UNROLL
        for (int r = 0; r < kH; ++r) {
          UATTN_UNROLL
          for (int e = 0; e < kDPL; ++e) {
            acc[r][e] = dl::fdot2_row_share<la>(pp[r], cur.v[e], acc[r][e]);
            acc[kH + r][e] = dl::fdot2_row_share<la + 1>(pp[r], cur.v[e], acc[kH + r][e]);
          }
        }
        step_end(&acc[0][0], kR * kDPL);
      };
      dot2::static_for<0, 16>(pv_step);
    }

    // ---- epilogue (2D) ----
    UATTN_UNROLL
    for (int r = 0; r < kR; ++r) {
      const float l_row = dot2::wave_sum(l_i[r]);
      if (r < nrows) {
        const float inv = l_row > 0.0f ? p.v_scale * kKVUnit / l_row : 0.0f;
        const int64_t token = (int64_t)q_start + p_tok[r];
        if (p.out_dtype == (int32_t)DType::fp8e4m3) store_row<dl::fp8e4m3, kAl>(p, token, hd[r], d0, acc[r], inv);
        else store_row<QT, kAl>(p, token, hd[r], d0, acc[r], inv);
      }
    }
  }

};

}  // namespace uattn
