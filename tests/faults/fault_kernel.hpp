// The kernel of one fault test (tests/faults/CMakeLists.txt): an AttnKernel
// built from the mutated copy of a template header (include path order), as the
// host twin (test_fault.cpp) and as a device code object for the emulator
// (fault_device.hip). FAULT_ARCH and the FAULT_<variant> definitions pick it.
#pragma once
#include "uattn/kernel/attention.hpp"  // includes the mutated copy (include path order)

namespace uattn::fault {

constexpr Arch kArch = Arch::FAULT_ARCH;

// Each fault kernel is built with the tile record of an instance of the default
// matrix (tile_records.inc, generator/uattn_gen/tiles.py), named here (its
// features may differ from the fault kernel's where the record does not depend
// on them: the window); UATTN_FAULT_TILE_OF(gfx950 instance, gfx1030 instance).
#include "uattn/generated/tile_records.inc"
#define UATTN_FAULT_TILE_OF(G950, G1030) (kArch == Arch::gfx950 ? G950##_tile : G1030##_tile)

#if defined(FAULT_NARROW)
// The narrow one-wave tile: gfx950's 16 rows, gfx1030's 4 rows.
constexpr int kHead = 256, kBlock = 16;
constexpr const TileConfig& kTile = UATTN_FAULT_TILE_OF(uattn_gfx950_2d_f16_f16_d256_b16_win_m16n32w1,
                                                        uattn_gfx1030_2d_f16_f16_d256_b16_win_m4n32w1);
static_assert(kTile.rows_per_wave < rows_per_wave(kArch), "FAULT_NARROW needs a narrow tile at d256");
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow, kTile>;
#elif defined(FAULT_BCAST)
// A gfx1030 tile with the DPP broadcasts of Q and P (attention_dot2.hpp kBcast):
// one-wave d128, block size 16, sliding window.
constexpr int kHead = 128, kBlock = 16;
constexpr const TileConfig& kTile = uattn_gfx1030_2d_f16_f16_d128_b16_win_m8n32w1_tile;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow, kTile>;
static_assert(K::kBcast, "FAULT_BCAST needs a tile with the DPP broadcasts");
#elif defined(FAULT_SHARED)
// gfx1030's 8-wave d128 prefill tile: 4 rows per wave, K / V tiles staged once
// in LDS for the 8 waves (attention_dot2.hpp kShared).
constexpr int kHead = 128, kBlock = 16;
constexpr const TileConfig& kTile = uattn_gfx1030_2d_f16_f16_d128_b16_plain_m32n32w8_tile;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow, kTile>;
static_assert(K::kShared, "FAULT_SHARED needs the tile that shares K / V through LDS");
#elif defined(FAULT_WIDE)
// gfx950's 4-wave d256 tile (128 x 32, block size 16, sliding window): each
// tile staged in turn, the masked staging with a unit's own slots and V zeroed
// outside the workgroup's keys (attention_mfma.hpp kZeroMasked), the window
// mask as keep bits (kKeepBits).
constexpr int kHead = 256, kBlock = 16;
constexpr const TileConfig& kTile = uattn_gfx950_2d_f16_f16_d256_b16_win_m128n32w4_tile;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow, kTile>;
static_assert(K::kZeroMasked && K::kKeepBits, "FAULT_WIDE needs the 4-wave d256 window tile");
#elif defined(FAULT_ALIBI)
// gfx950's 4-wave d128 ALiBi tile (128 x 64, block size 16): ALiBi's distance
// from a per-tile base (attention_mfma.hpp kAlibiBase), one block_table read
// per staging unit in its boundary tiles. The problem has ALiBi, no window.
constexpr int kHead = 128, kBlock = 16;
constexpr const TileConfig& kTile = uattn_gfx950_2d_f16_f16_d128_b16_alibi_m128n64w4_tile;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatAlibi, kTile>;
static_assert(K::kThreads / K::kWave == 4, "FAULT_ALIBI needs the 4-wave ALiBi tile");
#elif defined(FAULT_QQB) || defined(FAULT_QQB1)
// gfx950's QQ-bias tiles of a fixed block size (2D d128, block size 16):
// QQB the 4-wave 128 x 64 tile (the bias in raw units, attention_mfma.hpp
// kQQRaw, its first score tile's runs loaded before the S MFMAs, kQQEarly),
// QQB1 the one-wave 32 x 32 tile (its runs loaded before the S MFMAs). The
// problem has a QQ-bias tensor, no window.
constexpr int kHead = 128, kBlock = 16;
#if defined(FAULT_QQB)
constexpr const TileConfig& kTile = uattn_gfx950_2d_f16_f16_d128_b16_qqb_m128n64w4_tile;
#else
constexpr const TileConfig& kTile = uattn_gfx950_2d_f16_f16_d128_b16_qqb_m32n32w1_tile;
#endif
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatQQBias, kTile>;
#if defined(FAULT_QQB)
static_assert(K::kQQAll && !K::kQQAhead && K::kST == 2, "FAULT_QQB needs the 4-wave QQ-bias tile of two score tiles (kQQEarly, kQQRaw)");
#else
static_assert(!K::kQQAll && !K::kQQAhead && K::kST == 1, "FAULT_QQB1 needs the one-wave QQ-bias tile of one score tile (kQQEarly)");
#endif
#elif defined(FAULT_GEN4W)
// gfx950's generic 4-wave d128 tile (128 x 64, any block size, every feature):
// the window mask as one unsigned compare per score (attention_mfma.hpp
// kWinSpan), not as keep bits. The problem has a softcap beside the window, so
// the tile runs its every-feature loop.
constexpr int kHead = 128, kBlock = 13;
constexpr const TileConfig& kTile = uattn_gfx950_2d_f16_f16_d128_bany_all_m128n64w4_tile;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, 0, kFeatAll, kTile>;
static_assert(K::kWinSpan && !K::kKeepBits, "FAULT_GEN4W needs the generic 4-wave tile with the one-compare window mask");
#elif defined(FAULT_ROWS32)
// gfx950's 32-row one-wave tile (v_mfma_f32_32x32x16): 2D d64, block size 16,
// sliding window (the generic d64 tile has 16 rows).
constexpr int kHead = 64, kBlock = 16;
constexpr const TileConfig& kTile = uattn_gfx950_2d_f16_f16_d64_b16_plain_m32n32w1_tile;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow, kTile>;
static_assert(K::kQW == 32, "FAULT_ROWS32 needs a 32-row tile");
#elif defined(FAULT_HSPLIT) || defined(FAULT_HSPLIT8)
// gfx950's generic d256 tile: 16 rows, 2 waves that split the head
// (attention_mfma.hpp kHSplit). HSPLIT8: the same tile with fp8 KV, whose
// boundary tiles issue their K / Q fragment loads ahead of their MFMAs
// (kKAhead).
constexpr int kHead = 256, kBlock = 13;
#if defined(FAULT_HSPLIT8)
using KV = dl::fp8e4m3;
constexpr const TileConfig& kTile = uattn_gfx950_2d_f16_fp8_d256_bany_all_m16n32w2_tile;
#else
using KV = dl::f16;
constexpr const TileConfig& kTile = uattn_gfx950_2d_f16_f16_d256_bany_all_m16n32w2_tile;
#endif
constexpr int kBlockM = kTile.block_m;
using K = AttnKernel<kArch, Path::k2D, dl::f16, KV, kHead, 0, kFeatAll, kTile>;
static_assert(K::kHSplit, "FAULT_HSPLIT / FAULT_HSPLIT8 need the head-split tile");
#elif defined(FAULT_VSLICE)
// gfx950's generic one-wave tile at d192: 16 rows, K read from memory, V^T
// staged in two halves of the head (attention_mfma.hpp kVS).
constexpr int kHead = 192, kBlock = 13;
constexpr const TileConfig& kTile = uattn_gfx950_2d_f16_f16_d192_bany_all_m16n32w1_tile;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, 0, kFeatAll, kTile>;
static_assert(K::kVS == 2, "FAULT_VSLICE needs a tile that stages V^T in two halves");
#elif defined(FAULT_PADHEAD)
// gfx950's generic one-wave tile at d80: 16 rows, whose last
// v_mfma_f32_16x16x32 step over the head is padded (attention_mfma.hpp kKTail).
constexpr int kHead = 80, kBlock = 13;
constexpr const TileConfig& kTile = uattn_gfx950_2d_f16_f16_d80_bany_all_m16n32w1_tile;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, 0, kFeatAll, kTile>;
static_assert(K::kKTail, "FAULT_PADHEAD needs a tile with a padded head step");
#else
// The generic one-wave d64 tile.
constexpr int kHead = 64, kBlock = 13;
constexpr const TileConfig& kTile = UATTN_FAULT_TILE_OF(uattn_gfx950_2d_f16_f16_d64_bany_all_m16n32w1,
                                                        uattn_gfx1030_2d_f16_f16_d64_bany_all_m8n32w1);
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, 0, kFeatAll, kTile>;
#endif

#if defined(FAULT_HSPLIT) || defined(FAULT_HSPLIT8)
constexpr int kRowsPerGroup = kBlockM;  // its waves own the same rows
#else
constexpr int kRowsPerGroup = K::kQW * (K::kThreads / K::kWave);
#endif

}  // namespace uattn::fault
