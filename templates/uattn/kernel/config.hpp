// Compile-time configuration shared by the kernels and the lookup table, derived
// from the generated architecture records (uattn/generated/arch.hpp, written by
// generator/uattn_gen from model.ARCH_INFO; rules.py computes the same LDS bytes).
// Kernels branch on a capability (matrix_insn(), wave_size_of()), never on an
// architecture's name.
#pragma once
#include <stdint.h>

#include "uattn/generated/arch.hpp"
#include "uattn/generated/vocab.hpp"

namespace uattn {

constexpr int wave_size_of(Arch a) { return arch_record(a).wave_size; }
constexpr MatrixInsn matrix_insn(Arch a) { return arch_record(a).matrix_insn; }
// Query rows owned by one wave: mfma_32x32x16 = the 32 columns of a 32x32 MFMA
// tile; dot2 = 8 rows (lane = key in QK, lane = head dims in P.V). Some tiles
// own fewer (tile_rows_per_wave below: one-wave tiles, the gfx1030 8-wave
// tile); a kernel body takes block_m / waves, or block_m where the waves
// split the head (mfma_head_split).
constexpr int rows_per_wave(Arch a) { return arch_record(a).rows_per_wave; }
// Query rows per wave of tile t's instances of head size `head` and block size
// `block_size` (0: any, the generic instance): the record's narrower wave
// (kRowsByHead, ArchInfo.rows_by_head) where one applies, else
// rows_per_wave(a) (the head-split tile: each wave's 16 rows are the same).
// model.ArchInfo.tile() computes the same rows (tile_block_m: block_m).
constexpr int tile_rows_per_wave(Arch a, Tile t, int head, int block_size) {
  for (int i = 0; i < kNumRowsByHead; ++i) {
    const RowsByHead& r = kRowsByHead[i];
    if (r.arch == a && r.tile == t && head == r.head && (!r.generic_only || block_size == 0)) return r.rows;
  }
  return rows_per_wave(a);
}
// Waves per workgroup of the same instances: the record's entry's waves where
// it sets them (the gfx1030 d128 prefill tile: 8), else tile_waves(t).
// model.ArchInfo.tile() computes the same.
constexpr int tile_waves_of(Arch a, Tile t, int head, int block_size) {
  for (int i = 0; i < kNumRowsByHead; ++i) {
    const RowsByHead& r = kRowsByHead[i];
    if (r.arch == a && r.tile == t && head == r.head && (!r.generic_only || block_size == 0))
      return r.waves > 0 ? r.waves : tile_waves(t);
  }
  return tile_waves(t);
}
// block_m of the same instances: rows x waves, or the rows where the entry's
// waves split the head (gfx950's generic d256 tile: 16 rows, 2 waves).
// model.ArchInfo.tile() computes the same.
constexpr int tile_block_m(Arch a, Tile t, int head, int block_size) {
  for (int i = 0; i < kNumRowsByHead; ++i) {
    const RowsByHead& r = kRowsByHead[i];
    if (r.arch == a && r.tile == t && head == r.head && (!r.generic_only || block_size == 0))
      return r.head_split ? r.rows : r.rows * tile_waves_of(a, t, head, block_size);
  }
  return rows_per_wave(a) * tile_waves(t);
}
// dot2 body: a workgroup of 8 waves stages each K / V tile once, in LDS, for
// all its waves (attention_dot2.hpp, the 8-wave tile); in smaller ones every
// wave loads its own K / V rows and the waves never synchronise.
constexpr bool dot2_shares_kv(int waves) { return waves == 8; }
// The waves of a workgroup of `waves` waves load each K / V tile once between
// them and all walk the workgroup's KV range (the MFMA body; the dot2 body's
// 8-wave tile), rather than each wave its own rows' range (the selector's cost
// model: dispatch/src/select.cpp).
constexpr bool waves_share_kv(Arch a, int waves) {
  return matrix_insn(a) != MatrixInsn::dot2 || dot2_shares_kv(waves);
}
// Head size rounded up to the kernels' register tiling (MFMA: 32-wide output
// tiles; dot2 body: 4 lanes per row).
constexpr int head_pad(Arch a, int d) { return (d + arch_record(a).head_pad - 1) / arch_record(a).head_pad * arch_record(a).head_pad; }
// LDS row stride in elements (the record's lds_row_pad: the dot2 body's Q row
// plus the row's 32 f16 probabilities of one KV tile).
constexpr int lds_row(Arch a, int d) { return head_pad(a, d) + arch_record(a).lds_row_pad; }

// LDS bytes of an attention instance (generator/uattn_gen/rules.py lds_bytes()
// mirrors this; a pytest compiles this header and compares).
//  mfma_32x32x16 body (attention_mfma.hpp): per stage K [block_n][head + 8] and
//    V^T [head][block_n + 8] in the compute dtype (2 bytes); two stages (double
//    buffer) for multi-wave workgroups when they fit in 80 KiB, else one.
//    One-wave tiles with 64 < head <= 256 read K straight from memory
//    (mfma_k_direct): V^T only (in two halves of the head for the 16-row
//    tiles of a head size that is a multiple of 32, mfma_v_slices).
//  dot2 body (attention_dot2.hpp): K/V are read straight from memory; Q and P
//    are staged, [block_m][lds_row] (an upper bound: the tiles that broadcast Q
//    and P by DPP, kBcast, use none). The 8-wave tile (dot2_shares_kv): the K
//    tile [block_n][head] and the V tile [block_n / 2 key pairs][head] of f16
//    pairs, 2 bytes per element each (16 KiB at d128).
// MFMA body: K read straight from global memory into the MFMA A operand (no K
// in LDS). One-wave workgroups (block_m <= 32) with 64 < head <= 256, of a
// fixed block size or the generic instance (any block size: the key's cache
// block from a precomputed reciprocal, element loads for unaligned rows): with
// V^T alone in LDS (10 KiB at d128) 16 workgroups fit in gfx950's 160 KiB; 10
// at d192 (15 KiB), 8 at d256 (20 KiB). (d64 reaches 4 waves with K in LDS.)
constexpr bool mfma_k_direct(int head, int block_m) {
  return block_m <= 32 && head > 64 && head <= 256;
}
// V^T slices per KV tile: the 16-row one-wave tiles that read K from memory
// (block_m 16: d192 / d256, and the generic instance at d96 / d128) stage V^T
// in two halves of the head, so it takes 7.5 / 10 KiB of LDS at d192 / d256
// (21 / 16 workgroups in 160 KiB: at least 4 waves per SIMD); every other tile
// stages it whole, the 16-row d80 / d112 ones included (a half would not be a
// whole number of 16-dim O^T tiles; whole: 6.25 / 8.75 KiB, 25 / 18
// workgroups) and the generic 16-row d64 tile, which stages K in LDS too
// (9.5 KiB: 16 workgroups).
constexpr int mfma_v_slices(int block_m, int head) {
  return block_m == 16 && head % 32 == 0 && mfma_k_direct(head, block_m) ? 2 : 1;
}
// Head split (attention_mfma.hpp): a workgroup of 2 waves that own the same
// 16 query rows, each wave the partial scores of half the head and the output
// dims of half of each V^T slice (the generic d256 tile: 32 accumulator
// registers per wave instead of 64). model.ArchInfo.tile() gives these tiles
// block_m = rows (not rows x waves).
constexpr bool mfma_head_split(int block_m, int waves) { return block_m == 16 && waves == 2; }
// A head-split tile of architecture a (the MFMA body's; the selector's cost
// model counts all its waves as owning rows).
constexpr bool head_split_tile(Arch a, int block_m, int waves) {
  return matrix_insn(a) == MatrixInsn::mfma_32x32x16 && mfma_head_split(block_m, waves);
}
// LDS bytes of the head split's score exchange: each wave's partial S^T tiles
// (block_n / 16 tiles of 4 fp32 per lane, 64 lanes), after the stages.
constexpr uint32_t mfma_split_bytes(int block_m, int waves, int block_n) {
  return mfma_head_split(block_m, waves) ? (uint32_t)(waves * 64 * (block_n / 16) * 4 * 4) : 0u;
}
constexpr uint32_t attn_lds_stage_bytes(int head, int block_n, bool k_in_lds = true, int v_slices = 1) {
  return (uint32_t)(((k_in_lds ? block_n * (head + 8) : 0) + head / v_slices * (block_n + 8)) * 2);
}
constexpr uint32_t attn_lds_bytes(Arch a, int head, int block_m, int block_n, int waves) {
  uint32_t bytes = 0;
  switch (matrix_insn(a)) {  // no default: a new kind must say how its tiles are laid out
    case MatrixInsn::mfma_32x32x16:
      bytes = attn_lds_stage_bytes(head, block_n, !mfma_k_direct(head, block_m), mfma_v_slices(block_m, head)) *
              (block_m > 32 && 2u * attn_lds_stage_bytes(head, block_n) <= 80u * 1024u ? 2u : 1u) +
          mfma_split_bytes(block_m, waves, block_n);
      break;
    case MatrixInsn::dot2:
      bytes = dot2_shares_kv(waves) ? (uint32_t)(2 * block_n * head * 2) : (uint32_t)(block_m * lds_row(a, head) * 2);
      break;
  }
  return bytes;
}
// LDS bytes one workgroup may use (SPEC.md s.3: gfx950 160 KiB per CU, gfx1030
// 64 KiB per workgroup).
constexpr uint32_t lds_budget(Arch a) { return arch_record(a).lds_budget; }
// Compute units of the architecture's reference part (the selector's default).
constexpr int cu_count(Arch a) { return arch_record(a).cu_count; }

}  // namespace uattn
