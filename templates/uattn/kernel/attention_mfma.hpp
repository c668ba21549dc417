// Attention body for architectures with MFMA (wave64; gfx950):
// v_mfma_f32_32x32x16 for 32-row waves, v_mfma_f32_16x16x32 for 16-row ones.
//
// One workgroup of WAVES waves serves BM = kQW * WAVES packed query rows of one
// KV head (BM = kQW where the waves split the head, below) (phases.hpp) and walks its KV tiles BN keys at a time. A wave owns
// kQW = 32 rows, or 16 in the one-wave tiles at d112 / d192 / d256 and in the
// generic one-wave tile at d64-d128 (ArchInfo.rows_by_head in
// generator/uattn_gen/model.py: their 16-64 accumulator registers leave room
// for 4 waves per SIMD; 32 rows take 32-128). The generic d256 tile has 2
// waves that own the same 16 rows and split the head (kHSplit, BM = 16): each
// wave computes the partial scores of half the head, the two add them through
// 4 KiB of LDS, and each wave accumulates the output dims of half of each V^T
// slice (32 accumulator registers; the one-wave 16-row tile with fp8 KV
// needed 156 VGPR+AGPR, 3 waves per SIMD).
// Per tile:
//   stage K/V  - 16-byte global loads (8-byte for fp8 KV) through block_table
//                into registers one tile ahead, then K -> LDS [key][d] and
//                V -> LDS transposed, V^T [d][key], so every MFMA operand is
//                one 16-byte LDS read; the staging unit (kUK keys x 8 dims)
//                is sized so every lane stages the same number of units
//                (where no size divides, d80 / d112 with 4 waves, spare
//                lanes skip);
//   scores     - S^T = K Q^T (Q stays in registers as the B operand); masks
//                only on boundary tiles (phases.hpp); one-wave tiles with
//                64 < HEAD <= 256 (kKDirect) instead load each K row fragment
//                and Q fragment straight from memory into the MFMA operands
//                (16-byte loads; element loads in the generic instance's
//                variant for unaligned rows): LDS holds V^T only, and the
//                registers fit 4 waves per SIMD up to d128 (the d112 tiles
//                and the generic tiles from d80 to d128 have 16 rows) and in
//                the 16-row d192 / d256 tiles of a fixed block size, which
//                stage V^T in two halves of the head (kVS, 7.5 / 10 KiB), so
//                LDS allows 4 too;
//   softmax    - online, log2 units; the row max is shared by the lanes that
//                hold a row (l and l ^ 32; 16 rows: l ^ 16, l ^ 32, l ^ 48),
//                the row sum stays per lane until the epilogue;
//   P.V        - O^T += V^T P^T: P goes from the score registers straight into
//                the B operand.
//
// Lane roles, 32 rows (MFMA 32x32 C layout, see dl::mfma_32x32x16): lane l
// holds query row qcol = l % 32 of its wave and part = l / 32. MFMA row i of
// S^T tile st is the key 32 st + pi(i), pi swapping bits 2 and 3 of i, so
// score register r of a lane holds key 32 st + 16 (r / 8) + 8 part + r % 8: the
// 8 keys a lane feeds to one P.V step are consecutive, and their V^T fragment
// is one 16-byte read. Accumulator register r of output tile dt holds dim
// 32 dt + (r%4) + 8 (r/4) + 4 part of row qcol: four consecutive dims, stored
// with one vector store.
// 16 rows (MFMA 16x16 C layout, dl::mfma_16x16x32): lane l holds row
// qcol = l % 16 and part = l / 16 (0..3); score register r of S^T tile st holds
// key 32 (st / 2) + 8 part + 4 (st % 2) + r, so the two S^T tiles of 32 keys
// give a lane the 8 consecutive keys of its P.V operand; accumulator register
// r of output tile dt holds dim 16 dt + 4 part + r.
//
// Rows and strides: the vector paths need rows_aligned() (phases.hpp). The
// generic instance (any block size, every feature) tests it at run time and
// falls back to element loads/stores (the d256 one with 16-bit KV runs its
// element-load loops for every problem: kGenOneCopy); every other instance
// requires it (the lookup table routes unaligned problems to the generic
// instance).
#pragma once
#include "uattn/kernel/fused_reduce.hpp"
#include "uattn/kernel/phases.hpp"
#include "uattn/kernel/tile.hpp"

namespace uattn {

template <Arch A, Path P, class QT, class KVT, int HEAD, int BLOCK, uint32_t FEATS, const TileConfig& T>
struct AttnBodyMfma {
  static constexpr int BM = T.block_m, BN = T.block_n, WAVES = T.waves;
  static_assert(P == Path::k2D || P == Path::k3D, "attention kernel path");
  static_assert(BN % 32 == 0, "KV tile of a multiple of 32 keys");
  static_assert(HEAD % 16 == 0, "head size multiple of 16");
  static constexpr int kWave = 64;
  static constexpr bool kHSplit = T.head_split;  // the waves own the same rows and split the head
  static constexpr int kHS = kHSplit ? WAVES : 1;
  static constexpr int kQW = T.rows_per_wave;
  static_assert(BM * kHS == kQW * WAVES &&
                    (kQW == 32 || (kQW == 16 && (WAVES == 1 || kHSplit) && (HEAD % 32 == 0 || T.k_direct))),
                "block_m = 32 * waves, or 16 for a one-wave or head-split tile (head size % 32 == 0, or K read from memory)");
  static constexpr bool kN16 = kQW == 16;
  static constexpr int kAcc = kN16 ? 4 : 16;  // accumulator registers of one MFMA output tile
  static constexpr int kKD = kN16 ? 32 : 16;  // MFMA depth (K)
  static constexpr int kThreads = kWave * WAVES;
  static constexpr bool kKDirect = T.k_direct;  // K read straight from memory into the MFMA A operand (no K in LDS)
  static constexpr int kDP = (HEAD + kQW - 1) / kQW * kQW;  // output dims padded to the MFMA tile
  static constexpr int kKRow = HEAD + 8;             // K tile row, elements (16-byte multiple, spreads banks)
  static constexpr int kVRow = BN + 8;               // V^T tile row, elements
  static constexpr uint32_t kKElems = kKDirect ? 0u : (uint32_t)(BN * kKRow);
  static constexpr int kVS = T.v_slices;  // V^T staged in this many slices of the head per KV tile
  static_assert(kVS == 1 || (kKDirect && HEAD % (16 * kVS) == 0), "V^T slices: K read from memory, whole O^T tiles");
  static constexpr int kVH = HEAD / kVS;
  static constexpr uint32_t kStageElems = kKElems + (uint32_t)(kVH * kVRow);
  static constexpr uint32_t kLdsBytes = T.lds_bytes;  // static LDS bytes of the workgroup (0: none)
  // Head split: after the stages, each wave's partial S^T tiles, [wave][lane][kST * kAcc] fp32.
  static constexpr uint32_t kXBytes = kHSplit ? (uint32_t)(kHS * kWave * (BN / kQW) * kAcc * 4) : 0u;
  static constexpr int kStages = T.stages;  // LDS stages of K / V^T (2: double buffer)
  static_assert(kLdsBytes <= lds_budget(A), "LDS budget");
  static_assert(kLdsBytes == kStageElems * 2u * (uint32_t)kStages + kXBytes, "the tile record's lds_bytes is this layout (tiles.py)");
  static constexpr int kST = BN / kQW;       // S^T tiles per KV tile
  static constexpr int kDT = kDP / kQW;      // O^T tiles of the head
  static constexpr int kDTW = kDT / kHS;     // O^T tiles of one wave
  // Each V^T slice's P.V writes whole O^T tiles of this wave (pv: the first
  // tile's P.V writes every accumulator, kFirst).
  static_assert(kDTW % kVS == 0, "O^T tiles of a wave: a whole number per V^T slice");
  // MFMA steps over the head. A 16-row tile of a head size that is an odd
  // multiple of 16 (d80 / d112: v_mfma_f32_16x16x32 takes 32 dims per step)
  // pads its last step: the lanes of dims past the head (8 part >= 16 there)
  // take a zero Q fragment and read K 16 dims back (the elements the lanes of
  // parts 0 / 1 read in the same step: no memory the tile does not read
  // anyway), so their products add zero. Only K-direct tiles pad (the one
  // 16-row tile that stages K in LDS, the generic d64 one, has no padded
  // step), and only their loop knows the padding (kKTail).
  static constexpr int kKK = (HEAD + kKD - 1) / kKD;
  static constexpr bool kKTail = HEAD % kKD != 0;
  static_assert(!kKTail || (kKDirect && kN16 && HEAD % 16 == 0), "a padded head step: 16 rows, K read from memory");
  static_assert(!kHSplit || (kKDirect && !kKTail && kKK % kHS == 0 && kDT % (kVS * kHS) == 0),
                "head split: K read from memory, whole head steps and O^T tiles per wave");
  static constexpr int kChunks = kVH / 8;    // 8-element chunks of a staged row (of one V^T slice)
  // The generic instance serves unaligned problems too (run-time check).
  static constexpr bool kGeneric = BLOCK == 0 && FEATS == kFeatAll;
  // A run-time block size (the generic instance, or any instance of block size
  // "any"): with K read from memory, the key's cache block comes from FastDiv.
  static constexpr bool kAnyBlock = BLOCK == 0;
  // Staging unit: kUK consecutive keys x one 8-element chunk (the record's
  // stage_keys: the largest of 4, 2, 1 whose unit count is a multiple of the
  // workgroup's lanes, so every lane stages the same number of units and the
  // tile loop has no per-lane skip; where none divides, spare lanes skip,
  // kUnitGuard). Measurements: docs/performance.md, "Tile rules".
  static constexpr int units_of(int uk) { return (BN / uk) * kChunks; }
  static constexpr int kUK = T.stage_keys;  // keys per staging unit (a unit: keys x one 8-element chunk)
  static constexpr int kUnits = units_of(kUK);
  // K-direct tiles with one-key units (d80, d112): lane t stages key t % BN,
  // chunks t / BN + (kThreads / BN) i, so a lane's units share one key (one
  // block_table entry) and differ by constant offsets: no per-unit addresses
  // live across the tile loop (at d112 they held ~30 VGPRs).
  static constexpr bool kKeyPerLane = kKDirect && kUK == 1 && kThreads % BN == 0 && kChunks % (kThreads / BN) == 0;
  static constexpr int kUPL = (kUnits + kThreads - 1) / kThreads;
  // Spare lanes skip (d80 / d112 with 4 waves). The unit index is then made
  // opaque every tile (dl::pin), so the guard is a forward branch inside the
  // tile loop; left loop-invariant, the compiler unswitches the tile loop on
  // it, and the two copies are not straight-line (docs/performance.md, "Tile
  // rules", stage_keys).
  static constexpr bool kUnitGuard = (kUnits % kThreads) != 0;
  // Keys one wave stages in one step (its 64 lanes' consecutive units) where
  // they are whole key groups; when a cache block holds a whole number of
  // them and tiles start on block boundaries, they lie in one cache block,
  // read once by a scalar load (stage_load). Multi-wave tiles only: in the
  // one-wave tiles the scalar read's wait (LGKM_CNT, shared with the LDS
  // reads) cost llvm-mca cycles (d128 3D interior 511 -> 558).
  static constexpr int kWaveKeys = (!kKeyPerLane && kWave % kChunks == 0) ? kWave / kChunks * kUK : 0;
  static constexpr bool kWaveBlock = WAVES > 1 && kWaveKeys > 0 && BLOCK > 0 && BLOCK % kWaveKeys == 0 && BN % kWaveKeys == 0 && !kUnitGuard;
  static constexpr bool kWin = (FEATS & kFeatWindow) != 0;
  static constexpr float kLazyLog2 = 8.0f;  // lazy rescaling threshold (log2 units; tile_softmax)
  // Lazy rescaling in the interior loop (tile_softmax): multi-wave tiles. In
  // the one-wave tiles its branch cost llvm-mca cycles (d128 3D interior 511
  // -> 518) and the compiler then laid the d256 boundary loop out with a
  // backward branch; their launches walk few tiles per workgroup.
  static constexpr bool kLazy = WAVES > 1;
  // Waves without rows skip the compute (compute()): the multi-wave tiles above
  // d128 whose KV tile has no barrier of its own (V^T whole).
  static constexpr bool kRowless = WAVES > 1 && !kHSplit && T.v_slices == 1 && HEAD > 128;
  static constexpr bool kCap = (FEATS & kFeatSoftcap) != 0;
  static constexpr bool kAlibi = (FEATS & kFeatAlibi) != 0;
  static constexpr bool kQQ = (FEATS & kFeatQQBias) != 0;
  static constexpr bool kSink = (FEATS & kFeatSinks) != 0;
  static constexpr bool kFp8 = sizeof(KVT) == 1;
  static constexpr bool kThreeLoops2D = T.three_loops;  // the 2D tile loop is walked as three plain loops (like 3D)
  static constexpr bool kGenOneCopy = T.one_copy;  // the generic instance runs its element-load tile loops only
  static constexpr int kKGroup = T.k_group;  // K / Q fragment pairs in flight per scheduling group
  static constexpr int kVGroup = T.v_group;  // V^T fragments in flight per scheduling group (16-row tiles)
  static constexpr int kWavesPerEU = T.waves_per_eu;  // waves per SIMD the register allocation must allow (amdgpu_waves_per_eu)
  static constexpr bool kPrefetch = T.prefetch;  // the next KV tile is loaded into registers while this one computes
  // The first KV tile apart (compute<..., kFirst>): the one-wave prefetching
  // tiles. (In the 4-wave d128 prefill tile the second copy of the tile body
  // spilled at 4 waves per SIMD.)
  static constexpr bool kPeel = kPrefetch && WAVES == 1;
  // The window mask of a boundary tile as one unsigned compare per score
  // (compute: keep_at) where it measured no slower in llvm-mca (docs/performance.md,
  // "Boundary tiles": the 3D d128 one-wave tile 652 -> 617 cycles; the 4-wave
  // d96 tile the same cycles, 2 more VGPRs at the same occupancy); not with
  // softcap (the d128 window + softcap tile 826 -> 880), in the 2D one-wave
  // 16-bit KV tiles (d96 543 -> 582) or the 4-wave fp8 KV tiles (701 -> 708).
  // In the generic 4-wave d96 / d128 tiles (softcap in the loop, 16-bit and
  // fp8 KV) it is faster: boundary loops d128 1479 -> 1458, fp8 KV d128 1501
  // -> 1477, d96 1319 -> 1298, fp8 KV d96 1438 -> 1410; and in the fp8 KV
  // d112 one with kQQBitsOf (the full-row loop 1514 -> 1487, the element-load
  // loop 1664 -> 1681); not in the 16-bit d112 one (a VGPR spilled). (The
  // generic 4-wave d64 / d80 tiles take the keep bits.)
  // Where kKeepBits (below) is on, its bits replace the compare.
  static constexpr bool kWinSpan =
      (FEATS & kFeatWindow) != 0 &&
      ((kAnyBlock && WAVES > 1 && (HEAD == 96 || HEAD == 128 || (HEAD == 112 && sizeof(KVT) == 1))) ||
       ((FEATS & kFeatSoftcap) == 0 && (WAVES == 1 ? (P == Path::k3D || sizeof(KVT) == 1) : sizeof(KVT) != 1)));
  // Masked staging of the multi-wave tiles that stage each tile in turn and
  // K in LDS, with units of several keys in one cache block (the d256 128 x 32
  // tile): a unit keeps its unclamped slots in the clamped block (cache memory
  // of a block of the sequence), K as read (a key outside [kv_lo, kv_hi) is
  // masked in every row: its score is replaced, never used) and V zeroed
  // outside the range (its probability is 0, and 0 x NaN would not be), K
  // staged before V (stage_masked). With a clamped slot per key the
  // addresses took the registers of the loads in flight, and the loop waited
  // for each load in turn: 976 llvm-mca cycles against its interior loop's
  // 608 (docs/performance.md, "Boundary tiles").
  // The boundary tile's keep mask as bits of the tile's keys (compute:
  // KeyBits, mask_at): per score a bit-field extract and insert instead of a
  // compare per bound (two with a window, their AND) and a select. llvm-mca,
  // boundary loops (docs/performance.md, "Boundary tiles"): the 2D d128
  // window 128 x 64 tile 760 -> 659 cycles, d64 window + sinks 551 -> 487, the
  // generic one-wave fp8 KV d112 tile 1609 -> 1199, the d128 128 x 64 tile
  // 641 -> 608. Not where it measured slower or spilled: the ALiBi tiles of
  // a fixed block size (the 4-wave one 892 -> 1.65x its interior loop; the
  // one-wave ones not tried), the generic 4-wave tiles but d64 and d80
  // (17-20 VGPRs spilled at d112 / d128; the 16-bit d80 tile spilled 3 before
  // kQQBitsOf, and with it takes 1521 -> 1410 cycles), the generic one-wave 16-bit
  // d128 tile (1211 -> 1438), the one-wave d192 / d256 tiles of a fixed
  // block size (d256 window 1128 -> 1184; window + softcap spilled), the d64
  // 128 x 64 tile without a window (479 -> 503) and the d96 one-wave window
  // tile (543 -> 573).
  static constexpr bool kKeepBits = BN <= 64 && !(kAlibi && !kAnyBlock) &&
                                    !(kAnyBlock && WAVES > 1 && !(HEAD == 64 || HEAD == 80)) &&
                                    !(kAnyBlock && WAVES == 1 && HEAD == 128 && !kFp8) &&
                                    !(!kAnyBlock && WAVES == 1 && HEAD >= 192) &&
                                    !(!kAnyBlock && WAVES > 1 && HEAD == 64 && !kWin) &&
                                    !(!kAnyBlock && WAVES == 1 && HEAD == 96 && kWin);
  // The QQ-bias range check 0 <= jj < width of the runs form at once
  // (qq_select) as bits of the tile's keys, a bit-field extract and an AND
  // per score: llvm-mca, the generic d128 4-wave boundary loops 1562 -> 1479
  // cycles, fp8 KV d128 1695 / 1603 -> 1587 / 1501, the QQ-bias 128 x 64 tile
  // 964 -> 905 (with kKeepBits), the one-wave fp8 KV d128 tile 2252 -> 2041.
  // Not in the other tiles: slower there (on top of kKeepBits: fp8 KV 4-wave
  // d80 1489 -> 2062, d112 1666 -> 2148; 16-bit one-wave d64 631 -> 660).
  static constexpr bool kQQBits = BN <= 64 && ((WAVES > 1 && (HEAD == 128 || (kFp8 && HEAD == 64))) ||
                                                (WAVES == 1 && kFp8 && HEAD >= 80 && HEAD <= 128));
  // Per loop variant (qq_select<kQQBitsOf<kAligned>>): also the generic 4-wave
  // d80 tiles' full-row loops and the 16-bit one's element-load loop (16-bit
  // d80 1521 / 1522 -> 1424 / 1422 cycles, fp8 KV d80 1445 -> 1428), the
  // generic 4-wave fp8 KV d112 full-row loop (1620 -> 1514) and the generic
  // 16-bit d64 4-wave tile, which loads one score tile's runs at a time
  // (qq_bias<true>, the bits built once per KV tile: 1388 / 1360 -> 1351 /
  // 1351); not the fp8 KV element-load loops (d80 1487 -> 2065, d112 1664 ->
  // 2150).
  template <bool kAligned>
  static constexpr bool kQQBitsOf =
      kQQBits || (BN <= 64 && kAnyBlock && WAVES > 1 && (HEAD == 64 || HEAD == 80 || (kFp8 && HEAD == 112)) && (kAligned || !kFp8));
  static constexpr bool kZeroMasked = WAVES > 1 && !kPrefetch && !kKDirect && BLOCK > 0 && kUK > 1 &&
                                      BLOCK % kUK == 0 && (FEATS & kFeatAlibi) == 0;
  using CT = QT;  // LDS / MFMA dtype; fp8 KV is widened exactly into it
  // One staged chunk as loaded: 8 elements of KVT (16 bytes, or 8 for fp8).
  using Raw = dl::vec<uint32_t, kFp8 ? 2 : 4>;

  // Key (within the KV tile) of score register r of S^T tile st for `part`.
  //  32 rows: 32 st + 16 (r / 8) + 8 part + r % 8;
  //  16 rows: 32 (st / 2) + 8 part + 4 (st % 2) + r: the two S^T tiles of a
  //           32-key step give a lane 8 consecutive keys (one P.V B operand).
  UATTN_INLINE static int key_of(int st, int r, int part) {
    if constexpr (kN16) return 32 * (st >> 1) + 8 * part + 4 * (st & 1) + r;
    return 32 * st + 16 * (r >> 3) + 8 * part + (r & 7);
  }
  // Key held by MFMA row i of S^T tile st (the A operand row a lane loads): the
  // row of C register r of part p is i = 4 p + r % 4 (+ 8 (r / 4) for 32 rows).
  UATTN_INLINE static int key_row(int st, int i) {
    if constexpr (kN16) return key_of(st, i & 3, i >> 2);
    return 32 * st + ((i & 3) | ((i & 4) << 1) | ((i & 8) >> 1) | (i & 16));
  }
  // Bits over a KV tile's key offsets k = key_of(st, r, 0) (all below 64
  // where BN <= 64): bit k of w[k / 32] set when l <= k < h, both bounds
  // clamped to [0, 64] by the caller. sel(k): that bit sign-extended to 0 or
  // all ones (v_bfe_i32 of a compile-time k), to keep or clear a value in one
  // bit-field insert or AND (v_bfi_b32, v_and_b32).
  struct KeyBits {
    uint32_t w[2];
    UATTN_INLINE KeyBits(int l, int h) {
      const uint64_t upto = h == 64 ? ~0ull : (1ull << h) - 1ull;
      const uint64_t m = h > l ? upto & ~((1ull << l) - 1ull) : 0ull;  // l < 64 where h > l
      w[0] = (uint32_t)m;
      w[1] = (uint32_t)(m >> 32);
    }
    UATTN_INLINE uint32_t sel(int k) const { return (uint32_t)((int32_t)(w[k >> 5] << (31 - (k & 31))) >> 31); }
  };

  // LDS element offsets within a stage: K [key][dim] (rows of kKRow) and V^T
  // [dim][key] (rows of kVRow). With the record's lds_swizzle each row's
  // 8-element (16-byte) chunks are stored in an XOR-swizzled order, so that
  // the 8 lanes of one 128-byte LDS pass (32 banks of 4 bytes: AMD CDNA 3 ISA
  // reference guide, "Local Data Share") reach distinct banks
  // (docs/performance.md, "LDS bank conflicts"):
  //  V^T: chunk kc of row d is stored at kc ^ ((d / 8) mod (BN / 8)). A staging
  //       pass's lanes write the same keys of 8 consecutive chunks of the head
  //       (rows 8 apart: one bank without the swizzle); the P.V reads (8
  //       consecutive rows, one chunk) keep their banks.
  //  K:   chunk dc of key row j is stored at dc ^ (4 ((j / 8) mod 2)) when the
  //       row has a multiple of 8 chunks (HEAD % 64 == 0). The 8 lanes of an
  //       S^T read hold keys {0..3, 8..11} (+ 4) of the tile (key_row), whose
  //       rows (kKRow = HEAD + 8) fall 2 to a bank group without it.
  // The readers pass their offsets in two parts, a compile-time one and a
  // lane's (its part, its row in the MFMA tile), so that the swizzle leaves
  // one lane register per distinct low chunk bits (2 for K, at most 4 for
  // V^T) and the rest in the LDS instructions' immediate offsets.
  static constexpr bool kSwizzle = T.lds_swizzle;
  static constexpr bool kKSwizzle = kSwizzle && HEAD % 64 == 0;
  static constexpr int kVSw = kSwizzle ? BN / 8 - 1 : 0;  // V^T: the row-group bits that swizzle a row
  static_assert(!kSwizzle || (BN & (BN - 1)) == 0, "the V^T swizzle permutes the BN / 8 chunks of a row: BN a power of two");
  // K: dims [dim + lo, dim + lo + 8) of key row `key`; dim a multiple of 8,
  // (dim % 32) + lo < 32 (lo: a lane's 8 part).
  UATTN_INLINE static uint32_t k_at(int key, int dim, int lo = 0) {
    if constexpr (!kKSwizzle) return (uint32_t)(key * kKRow + dim + lo);
    const int sw = ((key >> 3) & 1) << 5;  // 0 or 32 elements: chunk bit 2
    const int hi = dim & ~31;
    return (uint32_t)(key * kKRow + (dim & 31) + lo + ((hi & 32) ? hi - sw : hi + sw));
  }
  // V^T: keys [key, key + n) of row d (n = 8, or the kUK keys of a staging unit).
  UATTN_INLINE static uint32_t v_at(int d, int key) {
    if constexpr (!kSwizzle) return (uint32_t)(d * kVRow + key);
    return (uint32_t)(d * kVRow + (key ^ (((d >> 3) & kVSw) << 3)));
  }
  // V^T read of row row0 + dl, keys [key + lo, key + lo + 8): row0 a multiple
  // of kQW, dl < kQW (a lane's row), key a multiple of kKD, lo = 8 part.
  UATTN_INLINE static uint32_t v_read_at(int row0, int dl, int key, int lo) {
    const int x = ((key >> 3) ^ ((row0 >> 3) & kVSw));  // the tile's chunk bits (compile-time but with a head split)
    const int y = ((lo >> 3) ^ ((dl >> 3) & kVSw));     // a lane's, below 4
    return (uint32_t)(row0 * kVRow + 8 * (x & ~3) + (dl * kVRow + 8 * ((x & 3) ^ y)));
  }
  // First of the 4 consecutive head dims of accumulator registers 4 g .. 4 g + 3 of tile dt.
  UATTN_INLINE static int d_of(int dt, int g, int part) { return kQW * dt + 8 * g + 4 * part; }

  // v_max_f32 (a NaN score still reaches the output through exp2 and the sums).
  UATTN_INLINE static float vmax(float a, float b) { return __builtin_fmaxf(a, b); }
  // A row's lanes: l, l ^ 32 (32 rows); l, l ^ 16, l ^ 32, l ^ 48 (16 rows).
  UATTN_INLINE static float row_max(float v) {
    if constexpr (kN16) v = vmax(v, dl::shfl_xor(v, 16));
    return vmax(v, dl::shfl_xor(v, 32));
  }
  UATTN_INLINE static float row_sum(float v) {
    if constexpr (kN16) v += dl::shfl_xor(v, 16);
    return v + dl::shfl_xor(v, 32);
  }
  // One MFMA of the wave's tile shape: 32x32x16 or 16x16x32.
  UATTN_INLINE static void mma(const dl::vec<CT, 8>& a, const dl::vec<CT, 8>& b, dl::vec<float, kAcc>& c) {
    if constexpr (kN16) dl::mfma_16x16x32(a, b, c);
    else dl::mfma_32x32x16(a, b, c);
  }

  // Per-lane state of the tile loop.
  struct State {
    dl::vec<CT, 8> qf[kKDirect ? 1 : kKK];  // Q row as MFMA B fragments (read per tile with kKDirect)
    float acc[kDTW][kAcc];    // O^T accumulators of this wave's tiles (dt_at)
    float m_i, l_i;           // running max (log2 units, row-shared), running sum (this lane's keys)
    Raw k_raw[kUPL][kUK], v_raw[kUPL][kUK];  // the next tile, staged in registers
  };

  struct Ctx {
    const AttnParams* p;
    WorkItem w;
    int kvh, lane, part, qcol, tid;
    int wave;                 // head split: this wave's half of the head (0 elsewhere; uniform)
    UDiv qd;                  // division by qpk
    bool row_valid;
    bool wave_rows;           // this wave holds a valid row (uniform; the head split: every wave)
    int p_tok, head, t_abs;
    int64_t token;
    float qk_log2;            // softmax_scale * k_scale * log2(e)
    float qk;                 // softmax_scale * k_scale
    float cap_b, cap_c, cap_e;  // softcap_tanh constants of the log2-domain logit (common.hpp; 0 when softcap is off)
    float slope_log2;         // ALiBi slope * log2(e) (0 without ALiBi)
    float slope_raw;          // kAlibiRaw: ALiBi slope / qk, the bias in units of the raw dot product
    float qq_raw;             // kQQRaw: log2(e) / qk_log2 = 1 / qk, the QQ-bias in units of the raw dot product
    const int32_t* bt;
    const QT* qrow;           // this lane's Q row (a valid row of the workgroup for a spare lane)
    int bs;
    FastDiv bdiv;
    char* lds;
  };

  // O^T tile of the head held in this wave's accumulators lt: lt itself, or
  // with the head split, tile lt % kPer of wave `wave`'s share of V^T slice
  // lt / kPer (each slice's kDT / kVS tiles, kPer per wave).
  UATTN_INLINE static int dt_at(const Ctx& c, int lt) {
    if constexpr (!kHSplit) return lt;
    constexpr int kPer = kDT / kVS / kHS;
    return (lt / kPer) * (kDT / kVS) + c.wave * kPer + lt % kPer;
  }

  // Key g (within the KV tile) and first dim d0 of staging unit i of thread tid.
  UATTN_INLINE static void unit_at(int tid, int i, int& g, int& d0) {
    if constexpr (kKeyPerLane) {
      g = tid % BN;
      d0 = 8 * (tid / BN + (kThreads / BN) * i);
    } else {
      const int u = tid + i * kThreads;
      g = u / kChunks;
      d0 = (u % kChunks) * 8;
    }
  }

  // ---- stage K/V: global -> registers ------------------------------------
  template <bool kAligned>
  UATTN_INLINE static Raw load_chunk(const KVT* base, int64_t off) {
    if constexpr (kAligned) {
      const dl::vec<KVT, 8> v = dl::ldg<8>(base + off);
      return __builtin_bit_cast(Raw, v);
    } else {
      dl::vec<KVT, 8> v;
      UATTN_UNROLL
      for (int e = 0; e < 8; ++e) v[e] = base[off + e];
      return __builtin_bit_cast(Raw, v);
    }
  }

  // Cache block and slot of key j through block_table. kClamp: a key outside
  // [kv_lo, kv_hi) is replaced by the nearest key inside (its score is masked,
  // and no block_table entry outside the sequence's range is read).
  template <bool kClamp>
  UATTN_INLINE static void key_slot(const Ctx& c, int j, int64_t& blk, int& slot) {
    if constexpr (kClamp) {
      j = j < c.w.kv_lo ? c.w.kv_lo : j;
      j = j >= c.w.kv_hi ? c.w.kv_hi - 1 : j;
    }
    if constexpr (BLOCK > 0) {
      blk = c.bt[j / BLOCK];
      slot = j % BLOCK;
    } else {
      const int bi = (int)c.bdiv.div((uint32_t)j);
      blk = c.bt[bi];
      slot = j - bi * c.bs;
    }
  }

  // The block_table index of clamped staging unit i of the tile whose keys
  // start at k0, the unit's first key j0 (stage_load): the unit's kUK keys lie
  // in one cache block, and so do its clamped keys. Keys below the unit all
  // clamp to kv_lo, whose block is that of kv_lo rounded down to kUK; keys
  // past it to kv_hi - 1; a unit holding a key of [kv_lo, kv_hi) keeps its
  // own block. With kWaveBlock the wave's keys of this step lie in one cache
  // block, and their clamped keys in that of the clamped first key: one
  // scalar read.
  UATTN_INLINE static int clamped_block(const Ctx& c, int k0, int j0, int i) {
    if constexpr (kWaveBlock) {
      int jw = k0 + kUK * ((kWave * dl::wave_id() + i * kThreads) / kChunks);
      jw = jw > c.w.kv_lo ? jw : c.w.kv_lo;
      jw = jw < c.w.kv_hi - 1 ? jw : c.w.kv_hi - 1;
      return jw / BLOCK;
    } else {
      int jb = j0 > (c.w.kv_lo & ~(kUK - 1)) ? j0 : (c.w.kv_lo & ~(kUK - 1));
      jb = jb < c.w.kv_hi - 1 ? jb : c.w.kv_hi - 1;
      return jb / BLOCK;
    }
  }

  // Loads tile `tile` into s.k_raw / s.v_raw. kClamp: keys outside [kv_lo,
  // kv_hi) are replaced by the nearest key inside (their scores are masked,
  // and no block_table entry outside the sequence's range is read); with
  // kZeroMasked a unit reads its own slots in its clamped block instead, and
  // V of those keys is zeroed.
  // kPart: 0 K and V, 1 K only, 2 V only (kZeroMasked's masked staging).
  template <bool kAligned, bool kClamp, int kFirst = 0, int kCount = kUPL, int kPart = 0>
  UATTN_INLINE static void stage_load(const Ctx& c, State& s, int tile, int vs = 0) {
    const AttnParams& p = *c.p;
    const KVT* kc = static_cast<const KVT*>(p.k_cache);
    const KVT* vc = static_cast<const KVT*>(p.v_cache);
    const int k0 = tile * BN;
    // Later V^T slices recompute their keys' addresses from an opaque thread
    // id: kept from the first slice instead, they stay live across the scores
    // (d256: 16 VGPRs, and spills at 4 waves per SIMD).
    int tid = c.tid;
    if (vs > 0) dl::pin(tid);
    // Clamped staging with a fixed block size (kClampUnit): one block_table
    // read per unit (below). In the one-wave tiles above d128 all of this
    // call's reads are issued ahead of its K / V loads (kBtAhead): read in the
    // unit's turn, each waited for every K / V load issued before it (VM_CNT
    // counts in order), and the 3D d256 boundary loop took 4 round trips to
    // memory where its interior loop takes one (llvm-mca: 1365 -> 1102
    // cycles, d192 1023 -> 839). In the tiles up to d128 and the 4-wave tiles
    // the reads ahead cost up to 52 cycles in most boundary loops
    // (docs/performance.md, "Boundary tiles").
    constexpr bool kClampUnit = kClamp && BLOCK > 0 && BLOCK % kUK == 0;
    constexpr bool kBtAhead = kClampUnit && WAVES == 1 && HEAD > 128;
    static_assert(kPart == 0 || (kClamp && kZeroMasked), "K or V alone: kZeroMasked's masked staging");
    [[maybe_unused]] int ub[kCount];
    [[maybe_unused]] int64_t ublk[kCount];
    if constexpr (kBtAhead) {
      UATTN_UNROLL
      for (int i = kFirst; i < kFirst + kCount; ++i) {
        int u = tid + i * kThreads;
        if constexpr (kUnitGuard) dl::pin(u);
        if (kUnitGuard && u >= kUnits) break;
        int g, d0;
        unit_at(tid, i, g, d0);
        const int b = clamped_block(c, k0, k0 + kUK * g, i);
        ub[i - kFirst] = b;
        ublk[i - kFirst] = c.bt[b];
      }
    }
    UATTN_UNROLL
    for (int i = kFirst; i < kFirst + kCount; ++i) {
      int u = tid + i * kThreads;
      if constexpr (kUnitGuard) dl::pin(u);  // opaque per tile: no loop unswitching on the guard
      if (kUnitGuard && u >= kUnits) break;
      int g, d0;
      unit_at(tid, i, g, d0);
      const int64_t head_off_k = (int64_t)c.kvh * p.k_stride_head + d0;
      const int64_t head_off_v = (int64_t)c.kvh * p.v_stride_head + d0 + vs * kVH;  // V^T slice vs
      if constexpr (!kClamp && BLOCK > 0 && BLOCK % kUK == 0) {
        const int j = k0 + kUK * g;  // kUK keys in one block
        int64_t blk;
        if constexpr (kWaveBlock) {
          // The wave's units of this step lie in one cache block: one scalar
          // block_table read and a scalar block offset for the wave.
          const int jw = k0 + kUK * ((kWave * dl::wave_id() + i * kThreads) / kChunks);
          blk = c.bt[jw / BLOCK];
        } else {
          blk = c.bt[j / BLOCK];
        }
        const int slot = j % BLOCK;
        const int64_t kb = blk * p.k_stride_block + (int64_t)slot * p.k_stride_slot + head_off_k;
        const int64_t vb = blk * p.v_stride_block + (int64_t)slot * p.v_stride_slot + head_off_v;
        UATTN_UNROLL
        for (int q = 0; q < kUK; ++q) {
          if constexpr (!kKDirect) s.k_raw[i][q] = load_chunk<kAligned>(kc, kb + q * p.k_stride_slot);
          s.v_raw[i][q] = load_chunk<kAligned>(vc, vb + q * p.v_stride_slot);
        }
      } else if constexpr (kClampUnit) {
        // One block_table read per unit (clamped_block; read ahead with
        // kBtAhead), the one-wave ALiBi tiles included: with a read per key
        // their boundary loops cost 1.39-1.40x their interior loops, with one
        // per unit 1.05-1.09x in the same registers (docs/performance.md,
        // "Boundary tiles"); the 4-wave ALiBi tile too since its ALiBi term
        // takes fewer registers (kAlibiBase).
        const int j0 = k0 + kUK * g;
        int b;
        int64_t blk;
        if constexpr (kBtAhead) {
          b = ub[i - kFirst];
          blk = ublk[i - kFirst];
        } else {
          b = clamped_block(c, k0, j0, i);
          blk = c.bt[b];
        }
        const int64_t kb = blk * p.k_stride_block + head_off_k, vb = blk * p.v_stride_block + head_off_v;
        if constexpr (kZeroMasked) {
          // The unit's own slots in the clamped block; V zeroed outside [kv_lo, kv_hi).
          const int slot = (int)((uint32_t)j0 % (uint32_t)BLOCK);
          const int64_t kbs = kb + (int64_t)slot * p.k_stride_slot, vbs = vb + (int64_t)slot * p.v_stride_slot;
          UATTN_UNROLL
          for (int q = 0; q < kUK; ++q) {
            if constexpr (kPart != 2) s.k_raw[i][q] = load_chunk<kAligned>(kc, kbs + q * p.k_stride_slot);
            if constexpr (kPart != 1) {
              const Raw v = load_chunk<kAligned>(vc, vbs + q * p.v_stride_slot);
              const bool in = (uint32_t)(j0 + q - c.w.kv_lo) < (uint32_t)(c.w.kv_hi - c.w.kv_lo);
              UATTN_UNROLL
              for (int e = 0; e < (int)(sizeof(Raw) / 4); ++e) s.v_raw[i][q][e] = in ? v[e] : 0u;
            }
          }
        } else {
          UATTN_UNROLL
          for (int q = 0; q < kUK; ++q) {
            int j = j0 + q;
            j = j < c.w.kv_lo ? c.w.kv_lo : j;
            j = j >= c.w.kv_hi ? c.w.kv_hi - 1 : j;
            const int slot = j - b * BLOCK;
            if constexpr (!kKDirect) s.k_raw[i][q] = load_chunk<kAligned>(kc, kb + (int64_t)slot * p.k_stride_slot);
            s.v_raw[i][q] = load_chunk<kAligned>(vc, vb + (int64_t)slot * p.v_stride_slot);
          }
        }
      } else if constexpr (kClamp && !kAligned && ((WAVES > 1 && !kHSplit) || HEAD == 192)) {
        // Element loads (unaligned rows) of a masked tile: the unit's
        // block_table reads all issued before its loads, in the 4-wave tiles
        // and, behind a scheduling barrier, in the d192 tiles (one wave in
        // the matrix). Read
        // in each key's turn, the compiler waited for each read and for the
        // key's loads before the next key (llvm-mca, generic fp8 KV: 4-wave
        // d112 2641 -> 2373 cycles, d128 1804 -> 1748; one-wave d192 4903 ->
        // 3417; f16 4-wave d112 2036 -> 1867). Not in the other one-wave
        // tiles: their loops got slower (3D d112 977 -> 1459 with the barrier).
        int64_t blk[kUK];
        int slot[kUK];
        UATTN_UNROLL
        for (int q = 0; q < kUK; ++q) key_slot<kClamp>(c, k0 + kUK * g + q, blk[q], slot[q]);
        if constexpr (HEAD == 192) dl::sched_barrier();
        UATTN_UNROLL
        for (int q = 0; q < kUK; ++q) {
          if constexpr (!kKDirect)
            s.k_raw[i][q] = load_chunk<kAligned>(kc, blk[q] * p.k_stride_block + (int64_t)slot[q] * p.k_stride_slot + head_off_k);
          s.v_raw[i][q] = load_chunk<kAligned>(vc, blk[q] * p.v_stride_block + (int64_t)slot[q] * p.v_stride_slot + head_off_v);
        }
      } else {
        UATTN_UNROLL
        for (int q = 0; q < kUK; ++q) {
          int64_t blk;
          int slot;
          key_slot<kClamp>(c, k0 + kUK * g + q, blk, slot);
          if constexpr (!kKDirect)
            s.k_raw[i][q] = load_chunk<kAligned>(kc, blk * p.k_stride_block + (int64_t)slot * p.k_stride_slot + head_off_k);
          s.v_raw[i][q] = load_chunk<kAligned>(vc, blk * p.v_stride_block + (int64_t)slot * p.v_stride_slot + head_off_v);
        }
      }
    }
  }

  UATTN_INLINE static dl::vec<CT, 8> widen(const Raw& r) {
    if constexpr (kFp8) {
      dl::vec<CT, 8> o;
      UATTN_UNROLL
      for (int w = 0; w < 2; ++w) {
        CT x0, x1, x2, x3;
        dl::cvt_pk_fp8(r[w], false, x0, x1);
        dl::cvt_pk_fp8(r[w], true, x2, x3);
        o[4 * w + 0] = x0;
        o[4 * w + 1] = x1;
        o[4 * w + 2] = x2;
        o[4 * w + 3] = x3;
      }
      return o;
    } else {
      return __builtin_bit_cast(dl::vec<CT, 8>, r);
    }
  }

  // ---- stage K/V: registers -> LDS (K [key][d], V^T [d][key]) -------------
  // kPart: 0 K and V, 1 K only, 2 V only (as stage_load).
  template <int kFirst = 0, int kCount = kUPL, int kPart = 0>
  UATTN_INLINE static void stage_store(const Ctx& c, const State& s, int buf) {
    const uint32_t base = (uint32_t)buf * kStageElems * 2u;
    const dl::Lds<CT> k_lds{c.lds, base, kKElems};
    const dl::Lds<CT> v_lds{c.lds, base + kKElems * 2u, (uint32_t)(kVH * kVRow)};
    UATTN_UNROLL
    for (int i = kFirst; i < kFirst + kCount; ++i) {
      int u = c.tid + i * kThreads;
      if constexpr (kUnitGuard) dl::pin(u);  // opaque per tile: no loop unswitching on the guard
      if (kUnitGuard && u >= kUnits) break;
      int g, d0;
      unit_at(c.tid, i, g, d0);
      dl::vec<CT, 8> kv[kUK], vv[kUK];
      UATTN_UNROLL
      for (int q = 0; q < kUK; ++q) {
        if constexpr (!kKDirect && kPart != 2) kv[q] = widen(s.k_raw[i][q]);
        if constexpr (kPart != 1) vv[q] = widen(s.v_raw[i][q]);
      }
      UATTN_UNROLL
      for (int q = 0; q < kUK; ++q)
        if constexpr (!kKDirect && kPart != 2) k_lds.template st_vec<8>(k_at(kUK * g + q, d0), kv[q]);
      UATTN_UNROLL
      for (int e = 0; e < (kPart == 1 ? 0 : 8); ++e) {
        dl::vec<CT, kUK> t;
        UATTN_UNROLL
        for (int q = 0; q < kUK; ++q) t[q] = vv[q][e];
        v_lds.template st_vec<kUK>(v_at(d0 + e, kUK * g), t);
      }
    }
  }

  static constexpr bool kWholeV = T.v_whole;  // K-direct tiles: the whole KV tile's V staging units in one group
  static constexpr int kDirectStep = kWholeV ? kUPL : T.v_step_keys / kUK;
  template <bool kAligned, bool kClamp, int kFirst = 0>
  UATTN_INLINE static void stage_direct(const Ctx& c, State& s, int tile, int buf, int vs = 0) {
    if constexpr (kFirst < kUPL) {
      constexpr int n = kUPL - kFirst < kDirectStep ? kUPL - kFirst : kDirectStep;
      stage_load<kAligned, kClamp, kFirst, n>(c, s, tile, vs);
      stage_store<kFirst, n>(c, s, buf);
      dl::sched_barrier();
      stage_direct<kAligned, kClamp, kFirst + n>(c, s, tile, buf, vs);
    }
  }

  // ---- QQ-bias of a masked tile ---------------------------------------------
  // SPEC.md s.1 step 5 adds qq_bias[p, jj] (jj = key - context_len) where
  // 0 <= jj < width. qq_bias(c, k0, st, qb, ...): the biases of score tile st of
  // the KV tile at key k0 (0 for a key outside [0, width)), loaded together
  // (one wait) between the caller's scheduling barriers. Two forms:
  // - Runs (kQQRuns): a lane's keys come in runs of 4 consecutive keys
  //   (key_of(st, r, part), r = 4 i .. 4 i + 3), each one buffer_load_dwordx4
  //   at byte offset 4 (p width + jj0) of a raw buffer over the whole tensor
  //   (max_seqlen_q x width fp32, at most 2^29 values: validate.cpp
  //   rule_qq_bias; so a run that holds a key in [0, width) has its offset in
  //   [-12, 2^31), exact as an int32). A dword past the tensor reads 0 (the
  //   range check), so a run may leave its row or the tensor. A run that would
  //   start before the tensor (p width + jj0 < 0) reads its row's first 4
  //   biases instead: it holds at most one key that takes a bias, jj = 0. Such
  //   a run holds a key jj >= 0 only if jj0 >= -3, so p width <= 2, and then
  //   jj <= jj0 + 3 <= 2 - p width: p = 0 keeps only jj = 0 (causal: jj <= p);
  //   p width = 1 means width 1, where only jj = 0 is in the row; p width = 2
  //   leaves jj <= 0. That bias is the row's first; the run's other keys are
  //   masked or outside the row. The loads, a scheduling barrier, then the selects
  //   (without it the register allocator reused one register for every run, a
  //   wait after each). The generic f16 / bf16 d64 4-wave tile took its runs in
  //   two halves until its ALiBi distance took fewer registers (kAlibiBase):
  //   at once they had taken it from 167 to 170 VGPRs (occupancy 3 -> 2); now
  //   167 at occupancy 3, its boundary loops 1537 / 1539 -> 1388 / 1360 cycles
  //   (1351 / 1351 with the range check as bits, kQQBitsOf).
  // - One load per score (global_load_dword at its column; a key outside the
  //   row reads column 0 of its row, without the tensor the word
  //   cu_seqlens_q[0], and takes 0): the 4-wave tiles of a fixed block size
  //   outside kQQ4W (16-bit d64 / d112; none in the default matrix, not
  //   measured: in the d128 one, in kQQ4W now, runs one score tile at a time
  //   took its boundary loop 1061 -> 1096-1141 llvm-mca cycles), the generic
  //   one-wave d192 tiles (runs spilled 2 VGPRs) and the generic 3D fp8 KV d96
  //   tile (runs took its interior loop 1001 -> 1076 cycles).
  // The 16-row tiles of the runs form and the 4-wave tiles of kQQ4W take every
  // score tile's runs at once instead (kQQAll, below: qq_load, qq_select), as
  // do the one-wave tiles of a fixed block size with one score tile (the 32 x
  // 32 tile: kQQEarly, compute).
  // Until then the one-wave tiles of a fixed block size and the generic 4-wave
  // tile loaded each bias under its own branch, one wait each, and the others
  // one load per score: boundary loops up to 4.1x their interior loop
  // (docs/performance.md, "QQ-bias in runs of 4 keys").
  // The 4-wave tiles (32 rows) whose runs are all loaded at once (kQQAll): in
  // the generic tiles the runs of each score tile in their turn made a trip
  // to memory per score tile that the interior loop does not; ahead of the K / V loads
  // (kQQAhead), llvm-mca (2D f16 / fp8 KV): d96 1552 -> 1319 / 1651 -> 1438
  // cycles, d128 1653 -> 1562 / 1748 -> 1695, fp8 d112 2373 -> 1664; the
  // d128 tile of block size 16 (it prefetches: the runs at once in compute)
  // 1037 -> 964 (docs/performance.md, "Boundary tiles"). Not the 16-bit d64
  // tile (167 -> 219 VGPR+AGPR: occupancy 3 -> 2) nor the 16-bit d112 tile
  // (69 registers spilled).
  static constexpr bool kQQ4W = WAVES > 1 && !kN16 && (kFp8 || (HEAD != 64 && HEAD != 112));
  static constexpr bool kQQRuns =
      (kAnyBlock || WAVES == 1 || kQQ4W) && !(kAnyBlock && WAVES == 1 && (HEAD == 192 || (kFp8 && HEAD == 96 && P == Path::k3D)));
  // The runs form's offsets for the KV tile at key k0: w the width (0
  // without the tensor), row_off this lane's row (p_tok = 0: a spare row),
  // jl the jj of key_of(0, 0, part), lane_off the byte offset of that key.
  struct QQAt {
    uint32_t w, row_off, lane_off;
    int jl;
  };
  UATTN_INLINE static uint32_t qq_width(const AttnParams& p) {
    return p.qq_bias != nullptr ? (uint32_t)p.qq_bias_stride : 0u;
  }
  UATTN_INLINE static dl::BufRes qq_buf(const AttnParams& p, uint32_t w) {
    return dl::buf_res(p.qq_bias, 4u * (uint32_t)p.max_seqlen_q * w);  // empty without the tensor
  }
  UATTN_INLINE static QQAt qq_at(const Ctx& c, int k0, uint32_t w) {
    QQAt a;
    a.w = w;
    a.row_off = 4u * (uint32_t)c.p_tok * w;
    a.jl = k0 - c.w.ctx + 8 * c.part;
    a.lane_off = a.row_off + 4u * (uint32_t)a.jl;
    return a;
  }
  // The run of 4 keys from key_of(st, g, 0) = kc: one load, then its selects.
  UATTN_INLINE static dl::vec<uint32_t, 4> qq_run_load(const dl::BufRes& buf, const QQAt& a, int kc) {
    const uint32_t off = a.lane_off + 4u * (uint32_t)kc;  // as int32: < 0 before the tensor
    return dl::ld_buf<4>(buf, (int32_t)off < 0 ? a.row_off : off);
  }
  UATTN_INLINE static void qq_run_select(const QQAt& a, int kc, const dl::vec<uint32_t, 4>& x, float* qb) {
    const bool before = (int32_t)(a.lane_off + 4u * (uint32_t)kc) < 0;  // as at the load (kept apart: one flag array
                                                                         // across the barrier changed 24 kernels' code)
    UATTN_UNROLL
    for (int e = 0; e < 4; ++e) {
      const bool in = (uint32_t)(a.jl + kc + e) < a.w;
      const float b = dl::bits_as_float(x[before ? 0 : e]);
      qb[e] = in ? b : 0.0f;
    }
  }
  // kQQBits: the range check as in_bits (0 <= jl + k < w for key offset k).
  UATTN_INLINE static void qq_run_select_bits(const QQAt& a, int kc, const dl::vec<uint32_t, 4>& x, float* qb,
                                              const KeyBits& in_bits) {
    const bool before = (int32_t)(a.lane_off + 4u * (uint32_t)kc) < 0;  // as at the load
    UATTN_UNROLL
    for (int e = 0; e < 4; ++e) qb[e] = dl::bits_as_float(x[before ? 0 : e] & in_bits.sel(kc + e));
  }
  // kBits (runs form): the range check as in_bits, built once per KV tile
  // by the caller (qq_in_bits).
  template <bool kBits>
  UATTN_INLINE static void qq_bias(const Ctx& c, int k0, int st, float (&qb)[kAcc], const KeyBits& in_bits) {
    const AttnParams& p = *c.p;
    const bool on = p.qq_bias != nullptr;
    const uint32_t w = qq_width(p);
    if constexpr (!kQQRuns) {
      const float* qrow = on ? p.qq_bias + (int64_t)c.p_tok * p.qq_bias_stride
                             : reinterpret_cast<const float*>(p.cu_seqlens_q);
      UATTN_UNROLL
      for (int r = 0; r < kAcc; ++r) {
        const uint32_t jj = (uint32_t)(k0 + key_of(st, r, c.part) - c.w.ctx);
        const bool in = jj < w;
        const float b = qrow[in ? jj : 0u];
        qb[r] = in ? b : 0.0f;
      }
    } else {
      // qq_run_load / qq_run_select written out: through them the 4-wave
      // tiles' code moved (the generic d64 tile 167 -> 168 VGPRs, 4 SGPRs
      // spilled; its boundary loop 1622 -> 1626 cycles).
      const dl::BufRes buf = qq_buf(p, w);
      const uint32_t row_off = 4u * (uint32_t)c.p_tok * w;  // p_tok = 0: a spare row
      const int jl = k0 - c.w.ctx + 8 * c.part;            // jj of key_of(0, 0, part)
      const uint32_t lane_off = row_off + 4u * (uint32_t)jl;
      dl::vec<uint32_t, 4> x[kAcc / 4];
      UATTN_UNROLL
      for (int g = 0; g < kAcc; g += 4) {
        const uint32_t off = lane_off + 4u * (uint32_t)key_of(st, g, 0);  // as int32: < 0 before the tensor
        x[g / 4] = dl::ld_buf<4>(buf, (int32_t)off < 0 ? row_off : off);
      }
      dl::sched_barrier();
      UATTN_UNROLL
      for (int g = 0; g < kAcc; g += 4) {
        const int kc = key_of(st, g, 0);
        const bool before = (int32_t)(lane_off + 4u * (uint32_t)kc) < 0;  // as at the load (kept apart: one flag array
                                                                           // across the barrier changed 24 kernels' code)
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) {
          if constexpr (kBits) {
            qb[g + e] = dl::bits_as_float(x[g / 4][before ? 0 : e] & in_bits.sel(kc + e));
          } else {
            const bool in = (uint32_t)(jl + kc + e) < w;
            const float b = dl::bits_as_float(x[g / 4][before ? 0 : e]);
            qb[g + e] = in ? b : 0.0f;
          }
        }
      }
    }
  }

  // The 16-row tiles (kAcc = 4: one run per score tile) load the runs of
  // every score tile at once (kQQAll: qq_load, then qq_select); with one wait
  // per score tile their boundary loops made one more trip to memory than
  // their interior loops. Where the tile loop stages each tile in turn
  // (!kPrefetch; the generic tiles' masked loop, not the three-loop path of
  // the fixed-block tiles) the loads are issued ahead of the tile's K / V loads
  // (kQQAhead: that loop passes them to compute), so the trip overlaps
  // the staging: llvm-mca, the generic d64 one-wave boundary loop 787 -> 643
  // cycles (1.43x -> 1.17x its interior loop), d112 1286 -> 1136, d128 1362 ->
  // 1211, d256 (2 waves) 1400 -> 1315; all at once without the lead 722, 1219,
  // 1294, 1343. Not ahead in the fp8 KV tiles from d80 to d128 (their
  // element-load loops took 1093 -> 1841 cycles at d80, 1679 -> 3298 at d112)
  // nor in the 2D f16 / bf16 d80 tile (873 -> 1010; 833 at once). Ahead in
  // every 4-wave tile of kQQ4W that stages each tile in turn (the generic
  // ones), fp8 KV and d80 included.
  static constexpr bool kQQAll = kQQRuns && (kAcc == 4 || kQQ4W);
  static constexpr bool kQQAhead =
      kQQAll && !kPrefetch &&
      (kQQ4W || (!(kFp8 && HEAD >= 80 && HEAD <= 128) && !(!kFp8 && HEAD == 80 && P == Path::k2D)));
  struct QQRaw {
    dl::vec<uint32_t, 4> x[kST][kAcc / 4];  // run g / 4 of score tile st
  };
  // The runs of score tiles S0 .. S1 - 1 (kQQEarly: the first one apart).
  template <int S0 = 0, int S1 = kST>
  UATTN_INLINE static void qq_load(const Ctx& c, int k0, QQRaw& q) {
    const uint32_t w = qq_width(*c.p);
    const dl::BufRes buf = qq_buf(*c.p, w);
    const QQAt a = qq_at(c, k0, w);
    UATTN_UNROLL
    for (int st = S0; st < S1; ++st)
      UATTN_UNROLL
      for (int g = 0; g < kAcc; g += 4) q.x[st][g / 4] = qq_run_load(buf, a, key_of(st, g, 0));
  }
  // The QQ-bias range check of a KV tile as bits (kQQBitsOf): key offset k
  // takes a bias when 0 <= jl + k < w, so k from -jl, below w - jl, both
  // clamped to [0, 64]. In the multi-wave tiles in 32-bit arithmetic (w < 2^31
  // and jl > -2^31, so w - jl as unsigned is exact where jl < w): through
  // int64_t their boundary loops took 4-13 cycles more (llvm-mca: generic
  // 16-bit d80 1410 -> 1398, fp8 KV d128 1477 -> 1473, fp8 KV d64 1286 ->
  // 1273). The one-wave tiles keep int64_t (the 3D fp8 KV d80 tile's
  // interior loop 809 -> 878 cycles with the 32-bit form).
  UATTN_INLINE static KeyBits qq_in_bits(const QQAt& a) {
    int lo, hi;
    if constexpr (WAVES > 1) {
      const uint32_t wd = a.w - (uint32_t)a.jl;
      lo = a.jl >= 0 ? 0 : (a.jl < -64 ? 64 : -a.jl);
      hi = a.jl >= (int)a.w ? 0 : (wd > 64u ? 64 : (int)wd);
    } else {
      const int64_t l = -(int64_t)a.jl, h = (int64_t)a.w - a.jl;
      lo = l < 0 ? 0 : (l > 64 ? 64 : (int)l);
      hi = h < 0 ? 0 : (h > 64 ? 64 : (int)h);
    }
    return KeyBits(lo, hi);
  }
  template <bool kBits>
  UATTN_INLINE static void qq_select(const Ctx& c, int k0, const QQRaw& q, float (&qb)[kST][kAcc]) {
    const QQAt a = qq_at(c, k0, qq_width(*c.p));
    if constexpr (kBits) {
      const KeyBits in_bits = qq_in_bits(a);
      UATTN_UNROLL
      for (int st = 0; st < kST; ++st)
        UATTN_UNROLL
        for (int g = 0; g < kAcc; g += 4) qq_run_select_bits(a, key_of(st, g, 0), q.x[st][g / 4], qb[st] + g, in_bits);
    } else {
      UATTN_UNROLL
      for (int st = 0; st < kST; ++st)
        UATTN_UNROLL
        for (int g = 0; g < kAcc; g += 4) qq_run_select(a, key_of(st, g, 0), q.x[st][g / 4], qb[st] + g);
    }
  }

  // ---- scores, online softmax, P.V for one staged tile ----------------------
  // kFirst: the workgroup's first tile (the one-wave prefetching tiles, kPeel):
  // the accumulators hold nothing yet, so they are neither read nor rescaled
  // (the first P.V step of each O^T tile starts from 0); the running maximum
  // and sum are updated as in any tile (a sink's logit stays in them).
  template <bool kAligned, bool kMasked, uint32_t F, bool kFirst = false>
  UATTN_INLINE static void compute(const Ctx& c, State& s, int tile, int buf, const QQRaw* qpre = nullptr) {
    constexpr bool kCap = (F & kFeatSoftcap) != 0;
    constexpr bool kAlibi = (F & kFeatAlibi) != 0;
    constexpr bool kQQ = (F & kFeatQQBias) != 0;
    const AttnParams& p = *c.p;
    const uint32_t base = (uint32_t)buf * kStageElems * 2u;
    const dl::Lds<CT> k_lds{c.lds, base, kKElems};
    const int k0 = tile * BN;
    // A wave past the block's last row (a decode's 8 rows in a 128-row tile)
    // stages its share of K / V and meets the barriers, but computes nothing:
    // its LDS reads would only contend with the waves that hold rows
    // (whole-launch model, 2D decode_d256_b16: 75.9 -> 65.9 us). Only where
    // kRowless: in the d128 tiles the test made the loops slower (prefill
    // 13200 -> 13788 cycles), and a copy of the loops for such waves spilled
    // the d256 one.
    if constexpr (kRowless) {
      if (__builtin_expect(!c.wave_rows, 0)) return;
    }

    // kQQEarly (the QQ-bias tiles of a fixed block size whose runs are not
    // loaded ahead of the staging, !kQQAhead, that is the prefetching ones:
    // the 4-wave tiles of kQQAll, the one-wave tiles of one score tile): a
    // masked tile issues the runs of its first score tile before the S MFMAs,
    // which then cover their trip to memory; the 4-wave tile's other score
    // tile is loaded after the MFMAs, as before (with both early, 3 VGPRs
    // spilled). llvm-mca, boundary loops (docs/performance.md, "Boundary
    // tiles"): the d128 128 x 64 tile 905 -> 883 cycles (with kQQRaw; early
    // alone 906, a VGPR spilled), the d128 32 x 32 tile 777 -> 747 (in the
    // log2 form: kQQRaw alone took it to 921).
    constexpr bool kQQEarly = kMasked && kQQ && !kAnyBlock && !kQQAhead && kQQRuns &&
                              ((WAVES > 1 && kQQAll) || (WAVES == 1 && kST == 1));
    [[maybe_unused]] QQRaw qq_early;
    if constexpr (kQQEarly) {
      qq_load<0, 1>(c, k0, qq_early);
      dl::sched_barrier();
    }
    // S^T = K Q^T
    float sc[kST][kAcc];
    dl::vec<float, kAcc> a[kST];
    UATTN_UNROLL
    for (int st = 0; st < kST; ++st)
      UATTN_UNROLL
      for (int r = 0; r < kAcc; ++r) a[st][r] = 0.0f;
    if constexpr (kKDirect) {
      // This lane's A rows: key key_row(st, qcol) of each S^T tile, dims
      // kKD kk + 8 part; each Q fragment serves every S^T tile.
      const KVT* kc = static_cast<const KVT*>(p.k_cache);
      int64_t kb[kST];
      UATTN_UNROLL
      for (int st = 0; st < kST; ++st) {
        int64_t blk;
        int slot;
        key_slot<kMasked>(c, k0 + key_row(st, c.qcol), blk, slot);  // masked tiles: keys outside [kv_lo, kv_hi) are masked below
        kb[st] = blk * p.k_stride_block + (int64_t)slot * p.k_stride_slot + (int64_t)c.kvh * p.k_stride_head + 8 * c.part;
      }
      // Head split: this wave's kKK / kHS head steps. Step kw is head step
      // kk = step_kk(kw); its lanes read dims step_dim(kk) + 8 part, where
      // the padded last step (kKTail) has the lanes past the head read 16
      // dims back.
      const auto step_kk = [&](int kw) { return kHSplit ? c.wave * (kKK / kHS) + kw : kw; };
      const auto step_pad = [&](int kk) { return kKTail && kk == kKK - 1 && kKD * kk + 8 * c.part >= HEAD; };
      const auto step_dim = [&](int kk) { return kKD * kk - (step_pad(kk) ? 16 : 0); };
      // kKAhead: the boundary loops of the fp8 KV K-direct tiles (full rows)
      // issue every K and Q fragment load of the wave's head steps before the
      // first MFMA, as their interior loops do; left to the scheduler, their
      // masked (clamped) K addresses made it wait for each step's loads in
      // turn. llvm-mca, boundary / interior loop (docs/performance.md,
      // "Boundary tiles"): the generic fp8 KV d256 head-split tile 1637 / 1141
      // -> 1327 / 1141 cycles, the 3D one-wave d96 tile 1231 -> 1158 (the 2D
      // one's code the same up to register numbers). Not the other one-wave fp8
      // KV tiles (d80, d128: within 3 cycles; d112: 2 VGPRs spilled; d192:
      // registers spilled), nor 16-bit K (the d112 tiles of a fixed block size
      // 628 -> 719).
      constexpr bool kKAhead = kMasked && kAligned && kFp8 && (kHSplit || HEAD == 96);
      Raw kr[kKAhead ? kKK / kHS : 1][kST];
      dl::vec<CT, 8> qr[kKAhead ? kKK / kHS : 1];
      if constexpr (kKAhead) {
        UATTN_UNROLL
        for (int kw = 0; kw < kKK / kHS; ++kw) {
          const int kd = step_dim(step_kk(kw));
          UATTN_UNROLL
          for (int st = 0; st < kST; ++st) kr[kw][st] = load_chunk<kAligned>(kc, kb[st] + kd);
          qr[kw] = dl::ldg<8>(c.qrow + kd + 8 * c.part);
        }
      }
      UATTN_UNROLL
      for (int kw = 0; kw < kKK / kHS; ++kw) {
        const int kk = step_kk(kw);
        dl::vec<CT, 8> kf[kST];
        const bool pad = step_pad(kk);
        const int kd = step_dim(kk);
        UATTN_UNROLL
        for (int st = 0; st < kST; ++st) kf[st] = widen(kKAhead ? kr[kKAhead ? kw : 0][st] : load_chunk<kAligned>(kc, kb[st] + kd));
        dl::vec<CT, 8> qf;
        if constexpr (kKAhead) {
          qf = qr[kKAhead ? kw : 0];
        } else if constexpr (kAligned) {
          qf = dl::ldg<8>(c.qrow + kd + 8 * c.part);
        } else {
          UATTN_UNROLL
          for (int e = 0; e < 8; ++e) qf[e] = c.qrow[kd + 8 * c.part + e];
        }
        if (kKTail && kk == kKK - 1) {
          UATTN_UNROLL
          for (int e = 0; e < 8; ++e) qf[e] = pad ? (CT)0.0f : qf[e];
        }
        UATTN_UNROLL
        for (int st = 0; st < kST; ++st) mma(kf[st], qf, a[st]);
        if (kw % kKGroup == kKGroup - 1) dl::sched_barrier();  // bounds the K/Q fragments in flight
      }
      if constexpr (kHSplit) {
        // The other wave's partial S^T through LDS (kXBytes after the stages).
        // Both waves add the same two partial sums (a + b == b + a exactly),
        // so both hold the same scores and run the same online softmax. The
        // region is rewritten only after the next barrier of this tile
        // (before V^T slice 1), which the other wave reaches after its read.
        const dl::Lds<float> x{c.lds, kLdsBytes - kXBytes, kXBytes / 4u};
        const uint32_t mine = (uint32_t)((c.wave * kWave + c.lane) * kST * kAcc);
        const uint32_t theirs = (uint32_t)(((c.wave ^ 1) * kWave + c.lane) * kST * kAcc);
        UATTN_UNROLL
        for (int st = 0; st < kST; ++st) x.template st_vec<kAcc>(mine + (uint32_t)(st * kAcc), a[st]);
        dl::barrier();
        UATTN_UNROLL
        for (int st = 0; st < kST; ++st) {
          const dl::vec<float, kAcc> o = x.template ld_vec<kAcc>(theirs + (uint32_t)(st * kAcc));
          UATTN_UNROLL
          for (int r = 0; r < kAcc; ++r) a[st][r] += o[r];
        }
      }
    } else {
      UATTN_UNROLL
      for (int st = 0; st < kST; ++st) {
        const int krow = key_row(st, c.qcol);
        UATTN_UNROLL
        for (int kk = 0; kk < kKK; ++kk) {
          const dl::vec<CT, 8> kf = k_lds.template ld_vec<8>(k_at(krow, kKD * kk, 8 * c.part));
          mma(kf, s.qf[kk], a[st]);
        }
      }
    }
    UATTN_UNROLL
    for (int st = 0; st < kST; ++st)
      UATTN_UNROLL
      for (int r = 0; r < kAcc; ++r) sc[st][r] = a[st][r];

    // Logits in log2 units (SPEC.md s.1 steps 1-5) and the tile's row max.
    float mx = kNegInf;
    const bool cap_on = kCap && p.softcap != 0.0f;
    // Masks of a boundary tile, one compare per bound and score: key_of(st, r,
    // part) = key_of(st, r, 0) + 8 part (both layouts), so score (st, r) is kept
    // when lo_rel <= key_of(st, r, 0) <= hi_rel, with this lane's bounds
    // relative to the tile: the causal bound t_abs (hi_rel = -1 for a spare
    // row: nothing kept) and, with a window, t_abs - window_left.
    int hi_rel = 0, lo_rel = 0;
    if constexpr (kMasked) {
      const int rel = c.t_abs - k0 - 8 * c.part;
      hi_rel = c.row_valid ? rel : -1;
      // A window reaching key 0 bounds nothing (and rel - window_left then cannot overflow).
      lo_rel = (kWin && p.window_left >= 0 && p.window_left < c.t_abs) ? rel - p.window_left : -0x7fffffff;
      // kWinSpan: a spare row keeps only the key -2^30 (none).
      if constexpr (kWinSpan) {
        if (!c.row_valid) lo_rel = hi_rel = -0x40000000;
      }
    }
    // kWinSpan: lo_rel <= kr <= hi_rel as one unsigned compare, kr - lo_rel <=
    // hi_rel - lo_rel (hi_rel >= lo_rel, and both differences below 2^32).
    [[maybe_unused]] const uint32_t span = (uint32_t)hi_rel - (uint32_t)lo_rel;
    const auto keep_at = [&](int st, int r) {
      const int kr = key_of(st, r, 0);  // a compile-time constant
      if constexpr (kWinSpan) return (uint32_t)kr - (uint32_t)lo_rel <= span;
      return kr <= hi_rel && (!kWin || kr >= lo_rel);
    };
    // kKeepBits: the lane's keep bits, bit k of kb[k / 32] set when lo_rel <=
    // k <= hi_rel (k < 64: every key_of(st, r, 0) of the tile), built once
    // per tile; a score then takes a sign-extended bit-field extract (0 or all
    // ones: v_bfe_i32) and a bit-field insert of -inf (v_bfi_b32).
    [[maybe_unused]] const KeyBits kb(kKeepBits ? (lo_rel < 0 ? 0 : (lo_rel > 64 ? 64 : lo_rel)) : 0,
                                      kKeepBits ? (hi_rel < 0 ? 0 : (hi_rel > 63 ? 64 : hi_rel + 1)) : 0);
    const auto mask_at = [&](int st, int r, float v) {
      if constexpr (kKeepBits) {
        const uint32_t sel = kb.sel(key_of(st, r, 0));  // a compile-time key offset
        return dl::bits_as_float((dl::float_as_bits(v) & sel) | (0xff800000u & ~sel));
      } else {
        return keep_at(st, r) ? v : kNegInf;
      }
    };
    // ALiBi's distance j - context_len (SPEC.md s.1 step 4) of score (st, r):
    // a per-tile base (k0 + 8 part - context_len, as float) plus the score's
    // compile-time key offset key_of(st, r, 0), added in float (exact while
    // the base and the distance are below 2^24 in magnitude, as is the
    // conversion of the int distance) instead of an int distance converted
    // per score (kAlibiBase). llvm-mca, boundary / interior
    // loops (docs/performance.md, "Boundary tiles"): the 4-wave d128 ALiBi
    // tile 892 / 653 -> 803 / 631 cycles (with one block_table read per
    // staging unit, kClampUnit; 256 -> 233 VGPRs), the generic 4-wave d64 /
    // d80 / d96 tiles 1-4% faster in both loops. Not in the generic 4-wave
    // d112 (a VGPR spilled; fp8 KV: 1664 -> 2199) and d128 tiles (faster, but
    // the boundary loop 1.32x its interior loop) nor fp8 KV d80 (1487 -> 2053),
    // nor the generic one-wave tiles (within 1%; the d192 interior loop moved
    // 2109 -> 1872, its boundary loop not).
    constexpr bool kAlibiBase =
        kAlibi && (!kAnyBlock || (WAVES > 1 && (HEAD == 64 || HEAD == 96 || (HEAD == 80 && !kFp8))));
    [[maybe_unused]] const float alibi_j0 = (float)(k0 + 8 * c.part - c.w.ctx);
    // Without position-dependent terms (softcap, ALiBi, QQ-bias): the max of
    // the raw dot products (masked ones -inf), scaled once (qk_log2 > 0:
    // dispatch/src/validate.cpp rule_scalars requires positive scales). ALiBi
    // joins them in the one-wave tiles of a fixed block size (kAlibiRaw): the
    // bias in raw units, s + (slope / qk) (j - context_len), one FMA, and the
    // logit scaled with the maximum subtracted in pairs as in the plain tiles
    // (llvm-mca, 2D d64 32 x 32 boundary / interior 475 / 436 -> 421 / 375
    // cycles, 3D d128 756 / 723 -> 706 / 675). Not in the 4-wave ALiBi tile
    // (its interior loop 653 -> 687, a VGPR spilled).
    constexpr bool kAlibiRaw = kAlibi && !kAnyBlock && WAVES == 1;
    // QQ-bias joins them in the multi-wave tiles of a fixed block size with
    // kQQEarly (kQQRaw): the bias in raw units, s + qq / qk (c.qq_raw = 1 /
    // qk, finite: dispatch/src/validate.cpp rule_logit_scale), one FMA per
    // score, where the log2-unit form took a multiply, an FMA and a
    // subtraction; the scaling and the maximum then in pairs (v_pk_fma_f32)
    // as in the plain tiles. A bias beyond FLT_MAX * qk in magnitude becomes
    // +-inf in raw units (the log2 form: beyond FLT_MAX / log2(e)). In the
    // d128 128 x 64 tile: 905 -> 883 llvm-mca cycles with kQQEarly (VALU 462
    // -> 399), 906 without it. Not the one-wave 32 x 32 tile (777 -> 921).
    constexpr bool kQQRaw = kQQEarly && WAVES > 1;  // kQQEarly: masked, QQ-bias, a fixed block size, kQQAll above one wave
    const bool raw = !kCap && (!kAlibi || kAlibiRaw) && (!(kMasked && kQQ) || kQQRaw);
    // Masked tiles add the QQ-bias (qq_bias): in qbt where a score tile's runs
    // are loaded at once (kQQSel), else per score tile below (qq_bias).
    constexpr bool kQQM = kMasked && kQQ;
    constexpr bool kQQSel = kQQAll || kQQEarly;
    [[maybe_unused]] float qbt[kST][kAcc];  // kQQSel: the biases of every score tile
    constexpr bool kQQTileBits = kQQM && !kQQSel && kQQBitsOf<kAligned>;  // qq_bias<true>: the bits once per tile
    [[maybe_unused]] const KeyBits qin = kQQTileBits ? qq_in_bits(qq_at(c, k0, qq_width(p))) : KeyBits(0, 0);
    if constexpr (kQQM && kQQSel) {
      if (kQQAhead && qpre != nullptr) {
        qq_select<kQQBitsOf<kAligned>>(c, k0, *qpre, qbt);
      } else if constexpr (kQQEarly) {
        if constexpr (kST > 1) {
          dl::sched_barrier();
          qq_load<1, kST>(c, k0, qq_early);
          dl::sched_barrier();
        }
        qq_select<kQQBitsOf<kAligned>>(c, k0, qq_early, qbt);
      } else {
        QQRaw q;
        dl::sched_barrier();
        qq_load(c, k0, q);
        dl::sched_barrier();
        qq_select<kQQBitsOf<kAligned>>(c, k0, q, qbt);
      }
    }
    if (raw) {
      UATTN_UNROLL
      for (int st = 0; st < kST; ++st)
        UATTN_UNROLL
        for (int r = 0; r < kAcc; ++r) {
          if constexpr (kAlibiRaw)
            sc[st][r] = __builtin_fmaf(c.slope_raw, alibi_j0 + (float)key_of(st, r, 0), sc[st][r]);
          if constexpr (kQQRaw) sc[st][r] = __builtin_fmaf(qbt[st][r], c.qq_raw, sc[st][r]);
          if constexpr (kMasked) sc[st][r] = mask_at(st, r, sc[st][r]);
          mx = vmax(mx, sc[st][r]);
        }
      mx *= c.qk_log2;
    } else {
      // Scores in groups of kQG per score tile: all kAcc where the QQ-bias is
      // loaded (qq_bias fills a score tile at once); elsewhere the grouping only
      // shapes the code, kept as the tiles had it (one by one in the lone-wave
      // and generic 4-wave tiles: with kAcc the 2D d64 ALiBi 32 x 32 tile's
      // VGPRs moved 154 -> 152 and others' loops by a cycle, measured when that
      // tile still took this loop; it takes the raw one now, kAlibiRaw).
      constexpr int kQG = kQQM || !((kPrefetch && WAVES == 1) || (kAnyBlock && WAVES > 1)) ? kAcc : 1;
      UATTN_UNROLL
      for (int st = 0; st < kST; ++st)
        UATTN_UNROLL
        for (int r0 = 0; r0 < kAcc; r0 += kQG) {
          float qb[kQG];
          if constexpr (kQQM && !kQQSel) {
            dl::sched_barrier();
            qq_bias<kQQTileBits>(c, k0, st, qb, qin);
            dl::sched_barrier();
          }
          UATTN_UNROLL
          for (int r = r0; r < r0 + kQG; ++r) {
            float v = sc[st][r] * c.qk_log2;
            if constexpr (kCap) {  // branch-free: both forms computed, one selected
              const float capped = softcap_tanh(sc[st][r], c.cap_b, c.cap_c, c.cap_e);
              v = cap_on ? capped : v;
            }
            if constexpr (kAlibiBase) v = __builtin_fmaf(c.slope_log2, alibi_j0 + (float)key_of(st, r, 0), v);
            else if constexpr (kAlibi) v += c.slope_log2 * (float)(k0 + key_of(st, r, c.part) - c.w.ctx);
            if constexpr (kMasked) {
              if constexpr (kQQM) v = __builtin_fmaf(kQQSel ? qbt[st][r] : qb[r - r0], kLog2e, v);
              v = mask_at(st, r, v);
            }
            sc[st][r] = v;
            mx = vmax(mx, v);
          }
        }
    }
    mx = row_max(mx);
    const float m_new = vmax(s.m_i, mx);
    // Interior tiles rescale lazily: the wave keeps its rows' running maxima
    // (and skips the O rescale) while no row's maximum grows by more than
    // kLazyLog2; the probabilities are then at most 2^kLazyLog2 (f16 / bf16
    // hold them), and O, the sum and the stored maximum stay consistent. The
    // branch is laid out as the fall-through (__builtin_expect), so the loop
    // stays straight-line with one forward branch; in the boundary loops the
    // same branch made the compiler overlap two loops, so they rescale
    // every tile (both forms keep the state consistent, in any order).
    float alpha = 1.0f;
    const auto rescale = [&] {
      const float mu = (kMasked && m_new == kNegInf) ? 0.0f : m_new;
      alpha = dl::exp2(s.m_i - mu);
      s.m_i = m_new;
      s.l_i *= alpha;
      UATTN_UNROLL
      for (int dt = 0; dt < (kN16 || kFirst ? 0 : kDTW); ++dt)
        UATTN_UNROLL
        for (int r = 0; r < kAcc; ++r) s.acc[dt][r] *= alpha;
    };
    if constexpr (kMasked || !kLazy || kFirst) {
      rescale();
    } else if (__builtin_expect(dl::ballot(!(m_new <= s.m_i + kLazyLog2)) != 0, 1)) {
      rescale();
    }
    const float m_use = (kMasked && s.m_i == kNegInf) ? 0.0f : s.m_i;
    // x = s * qk_log2 - m in pairs (v_pk_fma_f32), then the exponentials;
    // the row sum in two halves (v_pk_add_f32). Not in the generic instance's
    // one-wave tiles (at 128 VGPRs: in pairs the fp8 KV d192 one spilled); its
    // 4-wave d128 / d80 tiles' boundary loops: kSubPairs.
    // kSubPairs: the logits already in log2 units (softcap, ALiBi or QQ-bias
    // applied) less m in pairs too, as x * 1 - m (dl::fma2, which LLVM folds to
    // one v_pk_add_f32 of -m: the rounding of x - m), and in the generic
    // tiles' boundary loops both forms in pairs (the row sum in halves). The
    // compiler then pairs the steps before it too (in the ALiBi tile the
    // scaling, v_pk_mul_f32, and the ALiBi term, v_pk_add_f32 / v_pk_fma_f32).
    // llvm-mca, boundary / interior loops (docs/performance.md, "Boundary
    // tiles"): the 4-wave d128 ALiBi tile 803 / 631 -> 681 / 566 cycles, the
    // d256 window + softcap tile 1220 / 987 -> 1217 / 983; in the generic
    // 4-wave d128 / d80 tiles' boundary loops only (16-bit d128 1454 -> 1389,
    // fp8 KV d128 1473 -> 1451, 16-bit d80 1398 -> 1367; their loops without
    // softcap 794 -> 778, 788 -> 772, 741 -> 720). Not the QQ-bias tiles
    // (128 x 64 905 -> 918, 32 x 32 777 -> 918: at 256 VGPRs; the 128 x 64
    // one's masked tiles take the raw form now, kQQRaw), the d128
    // window + softcap tiles (interior loops 699 -> 709 / 719), the generic
    // tiles' interior loops (d128 1132 -> 1064, faster, but its boundary
    // loop then 1.31x it) nor their other head sizes (d96 spilled 6-7 VGPRs,
    // d64 took 167 -> 183 VGPR+AGPR: occupancy 3 -> 2; the first boundary
    // loops of d112 1831 -> 2174, fp8 KV d80 1487 -> 1994, fp8 KV d112
    // 1681 -> 2098).
    constexpr bool kSubPairs = kAnyBlock ? (kMasked && WAVES > 1 && (HEAD == 128 || (HEAD == 80 && !kFp8)))
                                         : !kQQ && !(kCap && HEAD == 128);
    float sum2[2] = {0.0f, 0.0f};
    if constexpr (!kAnyBlock || kSubPairs) {
      UATTN_UNROLL
      for (int st = 0; st < kST; ++st)
        UATTN_UNROLL
        for (int r = 0; r < kAcc; r += 2) {
          if (raw) {
            dl::fma2(sc[st][r], sc[st][r + 1], c.qk_log2, -m_use);
          } else if constexpr (kSubPairs) {
            dl::fma2(sc[st][r], sc[st][r + 1], 1.0f, -m_use);
          } else {
            sc[st][r] -= m_use;
            sc[st][r + 1] -= m_use;
          }
        }
      UATTN_UNROLL
      for (int st = 0; st < kST; ++st)
        UATTN_UNROLL
        for (int r = 0; r < kAcc; ++r) {
          sc[st][r] = dl::exp2(sc[st][r]);
          sum2[r & 1] += sc[st][r];
        }
    } else {
      UATTN_UNROLL
      for (int st = 0; st < kST; ++st)
        UATTN_UNROLL
        for (int r = 0; r < kAcc; ++r) {
          const float x = raw ? __builtin_fmaf(sc[st][r], c.qk_log2, -m_use) : sc[st][r] - m_use;
          sc[st][r] = dl::exp2(x);
          sum2[0] += sc[st][r];
        }
    }
    s.l_i += sum2[0] + sum2[1];
    // 16 rows: each O^T tile is rescaled right before its first P.V step.

    // O^T += V^T P^T, one V^T slice after the other (the first is staged).
    pv<kFirst>(c, s, sc, alpha, buf, 0);
    UATTN_UNROLL
    for (int vs = 1; vs < kVS; ++vs) {
      dl::barrier();
      stage_direct<kAligned, kMasked>(c, s, tile, buf, vs);
      dl::barrier();
      pv<kFirst>(c, s, sc, alpha, buf, vs);
    }
  }

  // O^T tiles of V^T slice vs += V^T P^T, kKD keys per step: this lane's B
  // operand is 8 consecutive keys, 8 part + kKD ks (key_of), of its row. 16
  // rows: each O^T tile is rescaled by alpha right before its first step.
  // kFirst: the first step of each O^T tile starts from 0 (compute).
  template <bool kFirst>
  UATTN_INLINE static void pv(const Ctx& c, State& s, const float (&sc)[kST][kAcc], float alpha, int buf, int vs) {
    const uint32_t base = (uint32_t)buf * kStageElems * 2u;
    const dl::Lds<CT> v_lds{c.lds, base + kKElems * 2u, (uint32_t)(kVH * kVRow)};
    UATTN_UNROLL
    for (int ks = 0; ks < BN / kKD; ++ks) {
      dl::vec<CT, 8> pf;
      UATTN_UNROLL
      for (int e = 0; e < 8; ++e)
        pf[e] = dl::from_f32<CT>(kN16 ? sc[2 * ks + e / 4][e % 4] : sc[ks / 2][8 * (ks % 2) + e]);
      UATTN_UNROLL
      for (int lt = vs * (kDTW / kVS); lt < (vs + 1) * (kDTW / kVS); ++lt) {
        dl::vec<CT, 8> vf;
        if constexpr (kSwizzle && kDP == HEAD && kVH % kQW == 0) {
          vf = v_lds.template ld_vec<8>(v_read_at(kQW * dt_at(c, lt) - vs * kVH, c.qcol, kKD * ks, 8 * c.part));
        } else {
          int d = kQW * dt_at(c, lt) + c.qcol;  // dims past HEAD read a real row; their sums are never stored
          d = d < HEAD ? d : HEAD - 1;
          vf = v_lds.template ld_vec<8>(v_at(d - vs * kVH, kKD * ks + 8 * c.part));
        }
        dl::vec<float, kAcc> o;
        UATTN_UNROLL
        for (int r = 0; r < kAcc; ++r)
          o[r] = (kFirst && ks == 0) ? 0.0f : (kN16 && ks == 0) ? s.acc[lt][r] * alpha : s.acc[lt][r];
        mma(vf, pf, o);
        UATTN_UNROLL
        for (int r = 0; r < kAcc; ++r) s.acc[lt][r] = o[r];
        // 16 rows: bounds the V^T fragments in flight (the scheduler would
        // otherwise read all of them ahead: 32 registers per slice at d256).
        if (kN16 && lt % kVGroup == kVGroup - 1) dl::sched_barrier();
      }
    }
  }

  UATTN_INLINE static void zero_acc(State& s) {
    UATTN_UNROLL
    for (int dt = 0; dt < kDTW; ++dt)
      UATTN_UNROLL
      for (int r = 0; r < kAcc; ++r) s.acc[dt][r] = 0.0f;
  }

  // A masked tile staged by the loops that stage each tile in turn, then the
  // barrier before its LDS reads. kZeroMasked: K loaded and stored, then V
  // (with K and V in flight at once the d256 128 x 32 tile spilled 5-6 VGPRs
  // around its boundary loop, at 256 VGPRs).
  template <bool kAligned>
  UATTN_INLINE static void stage_masked(const Ctx& c, State& s, int tile, int buf) {
    if constexpr (kZeroMasked) {
      stage_load<kAligned, true, 0, kUPL, 1>(c, s, tile);
      stage_store<0, kUPL, 1>(c, s, buf);
      dl::sched_barrier();
      stage_load<kAligned, true, 0, kUPL, 2>(c, s, tile);
      stage_store<0, kUPL, 2>(c, s, buf);
      dl::barrier();
      return;
    }
    stage_direct<kAligned, true>(c, s, tile, buf);
    dl::barrier();
  }

  // ---- the tile loops --------------------------------------------------------
  // Boundary tiles first (masked, clamped staging), then interior tiles; with
  // kPrefetch the next tile is staged into registers while the current one
  // computes.
  template <bool kAligned, uint32_t F>
  UATTN_INLINE static void tiles(const Ctx& c, State& s) {
    int f0, f1;
    interior_tiles<BN, kWin, (F & kFeatQQBias) != 0>(*c.p, c.w, f0, f1);
    const int nb_lo = f0 - c.w.t0;                 // boundary tiles before the interior
    const int nm = nb_lo + (c.w.t1 - f1);          // boundary tiles
    const int n = nm + (f1 - f0);                  // all tiles
    // The accumulators start at 0; the one-wave prefetching tiles write them
    // in their first tile instead (kPeel: compute<..., kFirst>; run_aligned
    // handles a workgroup without tiles).
    if constexpr (!kPeel) zero_acc(s);
    if (n <= 0) return;
    const auto tile_at = [&](int i) {
      return i < nb_lo ? c.w.t0 + i : (i < nm ? f1 + (i - nb_lo) : f0 + (i - nm));
    };
    int buf = 0;
    if constexpr (kPrefetch) {
      // kPeel: the first tile apart (kFirst), masked and clamped only where it
      // is a boundary tile; a one-tile workgroup (a 3D decode segment) runs it
      // alone. The loops then start at tile 1.
      constexpr int i0 = kPeel ? 1 : 0;
      if constexpr (kPeel) {
        if (nm > 0) stage_load<kAligned, true>(c, s, tile_at(0));
        else stage_load<kAligned, false>(c, s, tile_at(0));
        stage_store(c, s, buf);
        dl::barrier();
        if (1 < n) {
          if (1 < nm) stage_load<kAligned, true>(c, s, tile_at(1));
          else stage_load<kAligned, false>(c, s, tile_at(1));
        }
        if (nm > 0) compute<kAligned, true, F, true>(c, s, tile_at(0), buf);
        else compute<kAligned, false, F, true>(c, s, tile_at(0), buf);
        if constexpr (kStages == 1) dl::barrier();
        if constexpr (kStages == 2) buf ^= 1;
      } else {
        stage_load<kAligned, true>(c, s, tile_at(0));
      }
      _Pragma("unroll 1")
      for (int i = i0; i < nm; ++i) {
        stage_store(c, s, buf);
        dl::barrier();
        if (i + 1 < n) stage_load<kAligned, true>(c, s, tile_at(i + 1));
        compute<kAligned, true, F>(c, s, tile_at(i), buf);
        if constexpr (kStages == 1) dl::barrier();
        if constexpr (kStages == 2) buf ^= 1;
      }
      _Pragma("unroll 1")
      for (int i = kPeel ? (nm > 1 ? nm : 1) : nm; i < n; ++i) {
        stage_store(c, s, buf);
        dl::barrier();
        if (i + 1 < n) stage_load<kAligned, false>(c, s, f0 + (i + 1 - nm));
        compute<kAligned, false, F>(c, s, f0 + (i - nm), buf);
        if constexpr (kStages == 1) dl::barrier();
        if constexpr (kStages == 2) buf ^= 1;
      }
    } else {
      // Registers are short (large heads): load and store each tile in turn.
      if constexpr (kKDirect && ((P == Path::k3D && !kAnyBlock) || kThreeLoops2D)) {
        // Three plain loops (boundary tiles before the interior, after it,
        // the interior) in the order of tile_at: with one masked loop over
        // both boundary ranges the compiler nests a loop in it, and the 3D
        // window and d112 tiles then spill at 4 waves per SIMD. In 2D only the
        // d112 tile of block size 16 (kThreeLoops2D): with three loops the
        // compiler nests a loop in the d112 tiles of block size 32 / 64, and
        // the d128 tile of block size 32 spilled 2-3 registers at 4 waves per
        // SIMD. Not with a run-time
        // block size: the generic instance's 3D loops are straight-line only
        // with two.
        _Pragma("unroll 1")
        for (int t = c.w.t0; t < f0; ++t) {
          stage_direct<kAligned, true>(c, s, t, buf);
          dl::barrier();
          compute<kAligned, true, F>(c, s, t, buf);
          dl::barrier();
        }
        _Pragma("unroll 1")
        for (int t = f1; t < c.w.t1; ++t) {
          stage_direct<kAligned, true>(c, s, t, buf);
          dl::barrier();
          compute<kAligned, true, F>(c, s, t, buf);
          dl::barrier();
        }
        _Pragma("unroll 1")
        for (int t = f0; t < f1; ++t) {
          stage_direct<kAligned, false>(c, s, t, buf);
          dl::barrier();
          compute<kAligned, false, F>(c, s, t, buf);
          dl::barrier();
        }
        return;
      }
      _Pragma("unroll 1")
      for (int i = 0; i < nm; ++i) {
        if constexpr (kQQAhead && (F & kFeatQQBias) != 0) {
          QQRaw q;  // the tile's QQ-bias runs, loaded ahead of its K / V
          qq_load(c, tile_at(i) * BN, q);
          stage_masked<kAligned>(c, s, tile_at(i), buf);
          compute<kAligned, true, F>(c, s, tile_at(i), buf, &q);
        } else {
          stage_masked<kAligned>(c, s, tile_at(i), buf);
          compute<kAligned, true, F>(c, s, tile_at(i), buf);
        }
        if constexpr (kStages == 1) dl::barrier();
        if constexpr (kStages == 2) buf ^= 1;
      }
      _Pragma("unroll 1")
      for (int i = nm; i < n; ++i) {
        stage_direct<kAligned, false>(c, s, f0 + (i - nm), buf);
        dl::barrier();
        compute<kAligned, false, F>(c, s, f0 + (i - nm), buf);
        if constexpr (kStages == 1) dl::barrier();
        if constexpr (kStages == 2) buf ^= 1;
      }
    }
  }

  // ---- epilogue --------------------------------------------------------------
  template <class OT, bool kAligned>
  UATTN_INLINE static void store_row(const Ctx& c, const State& s, float inv) {
    const AttnParams& p = *c.p;
    OT* out = static_cast<OT*>(p.out) + c.token * p.o_stride_token + (int64_t)c.head * p.o_stride_head;
    UATTN_UNROLL
    for (int lt = 0; lt < kDTW; ++lt)
      UATTN_UNROLL
      for (int g = 0; g < kAcc / 4; ++g) {
        const int dt = dt_at(c, lt);
        if (!kHSplit && d_of(dt, g, 0) >= HEAD) continue;  // compile time: HEAD % 16 == 0 (head split: HEAD % 64 == 0)
        const int d = d_of(dt, g, c.part);
        dl::vec<OT, 4> v;
        UATTN_UNROLL
        for (int e = 0; e < 4; ++e) v[e] = out_value<OT>(s.acc[lt][4 * g + e] * inv, p.output_scale);
        if constexpr (kAligned) {
          dl::stg<4>(out + d, v);
        } else {
          UATTN_UNROLL
          for (int e = 0; e < 4; ++e) out[d + e] = v[e];
        }
      }
  }

  template <bool kAligned>
  UATTN_INLINE static void epilogue(const Ctx& c, State& s) {
    const AttnParams& p = *c.p;
    const float l = row_sum(s.l_i);
    if (!c.row_valid) return;
    // 16-bit KV: v_scale is 1 (dispatch/src/validate.cpp, rule_scalars).
    const float vsc = kFp8 ? p.v_scale : 1.0f;
    if constexpr (P == Path::k2D) {
      const float inv = l > 0.0f ? vsc / l : 0.0f;
      if (p.out_dtype == (int32_t)DType::fp8e4m3) store_row<dl::fp8e4m3, kAligned>(c, s, inv);
      else store_row<QT, kAligned>(c, s, inv);
    } else {
      const int64_t row = (c.token * p.num_q_heads + c.head) * p.num_segments + dl::block_id_z();
      // ws_acc is 16-byte aligned (Runtime::run refuses another workspace;
      // workspace_layout's sizes are multiples of 16) and its rows are
      // HEAD * 4 bytes, HEAD % 16 == 0: one 16-byte store per 4 dims.
      float* ws = p.ws_acc + row * HEAD;
      // 16-bit KV (vsc 1): the accumulators are stored as they are, with no
      // multiply.
      UATTN_UNROLL
      for (int lt = 0; lt < kDTW; ++lt)
        UATTN_UNROLL
        for (int g = 0; g < kAcc / 4; ++g) {
          const int dt = dt_at(c, lt);
          if (!kHSplit && d_of(dt, g, 0) >= HEAD) continue;
          dl::vec<float, 4> v;
          UATTN_UNROLL
          for (int e = 0; e < 4; ++e) v[e] = s.acc[lt][4 * g + e] * vsc;
          dl::stg<4>(ws + d_of(dt, g, c.part), v);
        }
      if (c.part == 0 && c.wave == 0) { p.ws_max[row] = s.m_i; p.ws_sum[row] = l; }
    }
  }

  template <bool kAligned, uint32_t F>
  UATTN_INLINE static void run_aligned(Ctx& c, State& s) {
    const AttnParams& p = *c.p;
    // Stage Q (MFMA B fragments: 8 consecutive dims of this lane's row). A
    // spare row (past the sequence's rows) reads the row set_row clamps it to,
    // a real one: rows are independent in S = Q K^T and O = P V, its scores
    // are masked in boundary tiles and nothing of it is stored (epilogue), so
    // its Q needs no zeroing (zeroed, each Q load was a masked load with four
    // moves ahead of it; the lazy-rescale ballot may then see its scores and
    // rescale more often, which changes rounding only). The generic instance
    // zeroes it still (without, its one-wave tile loops measured 3-6% more
    // llvm-mca cycles).
    const QT* qrow = static_cast<const QT*>(p.q) + c.token * p.q_stride_token + (int64_t)c.head * p.q_stride_head;
    c.qrow = qrow;
    UATTN_UNROLL
    for (int kk = 0; kk < (kKDirect ? 0 : kKK); ++kk) {
      dl::vec<CT, 8> v;
      if constexpr (kAligned) {
        v = dl::ldg<8>(qrow + kKD * kk + 8 * c.part);
      } else {
        UATTN_UNROLL
        for (int e = 0; e < 8; ++e) v[e] = qrow[kKD * kk + 8 * c.part + e];
      }
      UATTN_UNROLL
      for (int e = 0; e < 8; ++e) s.qf[kk][e] = (kAnyBlock && !c.row_valid) ? (CT)0.0f : v[e];
    }
    if constexpr (kPeel) {
      // No KV tile (a 3D segment past its sequence's tiles): the zero row,
      // stored apart, so that no path merges zeros into the accumulators the
      // first tile writes (the compiler then zeroed them ahead of every tile).
      if (c.w.t1 <= c.w.t0) {
        zero_acc(s);
        epilogue<kAligned>(c, s);
        // Ends this path with an instruction the other lacks: otherwise the
        // compiler sinks the two paths' stores into one, and the merge copies
        // the accumulators out of the AGPRs ahead of it.
        dl::sched_barrier();
        return;
      }
    }
    tiles<kAligned, F>(c, s);
    if constexpr (kKDirect && ((F & kFeatAlibi) == 0 || kGenOneCopy)) {
      // The row's identity again, from a lane id the compiler cannot reuse
      // (dl::pin): nothing per-row but Q's address stays live across the tile
      // loops (held there, the output token of the softcap tile spilled at 4
      // waves per SIMD). Not in a loop variant with ALiBi (there the thread id
      // itself then spills around the interior loop: the generic d192 tile 2
      // registers), but in the generic d256 tile (kGenOneCopy: without it 4
      // spilled registers).
      int lane = dl::lane_id();
      dl::pin(lane);
      set_row(c, lane % kQW);
    }
    epilogue<kAligned>(c, s);
  }

  // This lane's packed row (query column qcol of its wave): validity, token,
  // query head, causal bound.
  UATTN_INLINE static void set_row(Ctx& c, int qcol) {
    const int qpk = (int)c.qd.d;
    const int mw = (kHSplit ? 0 : dl::wave_id() * kQW) + qcol;  // row within the workgroup
    c.row_valid = c.w.m0 + mw < c.w.rows_total;
    // Row m0 + mw relative to the workgroup's first token p_first: below
    // qpk + BM, so one 32-bit division by qpk (c.qd) gives token and head.
    const uint32_t rel = (uint32_t)(c.w.m0 - (int64_t)c.w.p_first * qpk) + (uint32_t)mw;
    if constexpr (kAnyBlock) {
      c.p_tok = c.row_valid ? c.w.p_first + (int)c.qd.div(rel) : 0;
      c.head = c.kvh * qpk + (c.row_valid ? (int)(rel % (uint32_t)qpk) : 0);
    } else {
      // One division, the remainder by a multiply (not in the generic
      // instance: its d192 one-wave 3D tile then spilled 2 VGPRs).
      const uint32_t tq = c.qd.div(rel);
      c.p_tok = c.row_valid ? c.w.p_first + (int)tq : 0;
      c.head = c.kvh * qpk + (c.row_valid ? (int)(rel - tq * (uint32_t)qpk) : 0);
    }
    c.t_abs = c.w.ctx + c.p_tok;
    c.token = (int64_t)c.w.q_start + c.p_tok;
  }

  UATTN_INLINE static void run(const AttnParams& p, char* lds) {
    const int qpk = qpk_of(p);
    Ctx c;
    c.p = &p;
    c.qd = UDiv((uint32_t)qpk);
    if (!locate_work<P, BM, BN, kWin>(p, qpk, c.qd, c.w)) return;  // spare workgroup
    c.kvh = c.w.kvh;
    c.tid = dl::thread_id();
    c.wave = kHSplit ? dl::wave_id() : 0;
    c.lane = dl::lane_id();
    c.qcol = c.lane % kQW;
    c.part = c.lane / kQW;
    set_row(c, c.qcol);
    c.wave_rows = kHSplit || c.w.m0 + (int64_t)dl::wave_id() * kQW < c.w.rows_total;
    c.qk = p.softmax_scale * p.k_scale;
    c.qk_log2 = c.qk * kLog2e;
    c.cap_b = c.cap_c = c.cap_e = 0.0f;
    if (p.softcap != 0.0f) softcap_consts(p.softcap, c.qk, kLog2e, c.cap_b, c.cap_c, c.cap_e);
    c.slope_log2 = 0.0f;
    if constexpr (kAlibi) {
      if (p.alibi_slopes != nullptr) c.slope_log2 = p.alibi_slopes[c.head] * kLog2e;
      c.slope_raw = c.slope_log2 / c.qk_log2;  // qk_log2 > 0 (dispatch/src/validate.cpp, rule_scalars, rule_logit_scale)
    }
    if constexpr (kQQ) c.qq_raw = 1.0f / c.qk;  // qk >= FLT_MIN (rule_logit_scale): finite
    c.bt = p.block_table + (int64_t)c.w.sq * p.block_table_stride;
    c.bs = BLOCK > 0 ? BLOCK : p.block_size;
    c.bdiv = FastDiv((uint32_t)c.bs);
    c.lds = lds;

    State s;
    s.m_i = kNegInf;
    s.l_i = 0.0f;
    if constexpr (kSink) {
      if (p.sinks != nullptr && c.row_valid && (P == Path::k2D || dl::block_id_z() == 0)) {
        s.m_i = p.sinks[c.head] * kLog2e;
        s.l_i = c.part == 0 ? 1.0f : 0.0f;  // the row sum is split over the row's lanes
      }
    }

    if constexpr (kGenOneCopy) {
      run_aligned<false, FEATS>(c, s);  // every problem, aligned or not (kGenOneCopy)
    } else if constexpr (kGeneric) {
      // One instance, every problem: the loops are chosen once per workgroup,
      // so problems without softcap / ALiBi / QQ-bias run the plain tile loop.
      const int ob = p.out_dtype == (int32_t)DType::fp8e4m3 ? 1 : (int)sizeof(QT);
      constexpr uint32_t kLite = FEATS & ~(kFeatSoftcap | kFeatAlibi | kFeatQQBias);
      // A third loop variant, without softcap / ALiBi / QQ-bias, up to d128: above d128
      // the registers do not allow it, and in the 3D tiles that read K from
      // memory (d80-d128) the compiler then lays one variant's loops inside
      // another's (not straight-line).
      constexpr bool kLiteLoops = HEAD <= 128 && (P == Path::k2D || !kKDirect);
      if (!rows_aligned(p, (int)sizeof(QT), (int)sizeof(KVT), ob)) run_aligned<false, FEATS>(c, s);
      else if (!kLiteLoops || p.softcap != 0.0f || p.alibi_slopes != nullptr || p.qq_bias != nullptr)
        run_aligned<true, FEATS>(c, s);
      else if constexpr (kLiteLoops) run_aligned<true, kLite>(c, s);
    } else {
      run_aligned<true, FEATS>(c, s);
    }
    // 3D with the fused reduce: count this wave's arrival; the last combines
    // the segments (fused_reduce.hpp).
    if constexpr (P == Path::k3D) {
      // The arguments read again (dl::reload_arg), not held in SGPRs from entry.
      const AttnParams q = dl::reload_arg(p);
      // Rows combined at once: 4 with 256 VGPRs per wave; with 128, 2 up to d128
      // and 1 above (more spilled: the one-wave d80-d128 tiles of 4 waves per
      // SIMD at 4 rows, the generic d256 tile at 2).
      constexpr int kFusedRows = kWavesPerEU >= 4 ? (HEAD > 128 ? 1 : 2) : 4;
      if (q.ws_count != nullptr) FusedReduce<A, QT, HEAD, BM, WAVES, kFusedRows>::arrive(q);
    }
  }
};

}  // namespace uattn
