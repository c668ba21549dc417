// The kernel of one fault test (tests/faults/CMakeLists.txt): an AttnKernel
// built from the mutated copy of a template header (include path order), as the
// host twin (test_fault.cpp) and as a device code object for the emulator
// (fault_device.hip). FAULT_ARCH and the FAULT_<variant> definitions pick it.
#pragma once
#include "uattn/kernel/attention.hpp"  // includes the mutated copy (include path order)

namespace uattn::fault {

constexpr Arch kArch = Arch::FAULT_ARCH;
#if defined(FAULT_NARROW)
// The narrow one-wave tile: gfx950's 16 rows (as
// uattn_gfx950_2d_f16_f16_d256_b16_win_m16n32w1), gfx1030's 4 rows (as
// uattn_gfx1030_2d_f16_f16_d256_b16_win_m4n32w1).
constexpr int kHead = 256, kBlock = 16;
constexpr int kRows = tile_rows_per_wave(kArch, Tile::small, kHead, kBlock);
static_assert(kRows < rows_per_wave(kArch), "FAULT_NARROW needs a narrow tile at d256");
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow, kRows, 32, 1>;
#elif defined(FAULT_BCAST)
// A gfx1030 tile with the DPP broadcasts of Q and P (attention_dot2.hpp kBcast):
// one-wave d128, block size 16, sliding window (as
// uattn_gfx1030_2d_f16_f16_d128_b16_win_m8n32w1).
constexpr int kHead = 128, kBlock = 16;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow,
                     tile_rows_per_wave(kArch, Tile::small, kHead, kBlock), 32, 1>;
static_assert(K::kBcast, "FAULT_BCAST needs a tile with the DPP broadcasts");
#elif defined(FAULT_SHARED)
// gfx1030's 8-wave d128 prefill tile (as uattn_gfx1030_2d_f16_f16_d128_b16_win_m32n32w8):
// 4 rows per wave, K / V tiles staged once in LDS for the 8 waves (attention_dot2.hpp kShared).
constexpr int kHead = 128, kBlock = 16;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow,
                     tile_rows_per_wave(kArch, Tile::large, kHead, kBlock) * tile_waves_of(kArch, Tile::large, kHead, kBlock),
                     32, tile_waves_of(kArch, Tile::large, kHead, kBlock)>;
static_assert(K::kShared, "FAULT_SHARED needs the tile that shares K / V through LDS");
#elif defined(FAULT_ROWS32)
// gfx950's 32-row one-wave tile (v_mfma_f32_32x32x16): 2D d64, block size 16,
// sliding window (the generic d64 tile has 16 rows).
constexpr int kHead = 64, kBlock = 16;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, kBlock, kFeatWindow,
                     tile_rows_per_wave(kArch, Tile::small, kHead, kBlock), 32, 1>;
static_assert(K::kQW == 32, "FAULT_ROWS32 needs a 32-row tile");
#elif defined(FAULT_HSPLIT)
// gfx950's generic d256 tile (as uattn_gfx950_2d_f16_f16_d256_bany_all_m16n32w2):
// 16 rows, 2 waves that split the head (attention_mfma.hpp kHSplit).
constexpr int kHead = 256, kBlock = 13;
constexpr int kBlockM = tile_block_m(kArch, Tile::small, kHead, 0);
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, 0, kFeatAll, kBlockM, 32,
                     tile_waves_of(kArch, Tile::small, kHead, 0)>;
static_assert(K::kHSplit, "FAULT_HSPLIT needs the head-split tile");
#elif defined(FAULT_PADHEAD)
// gfx950's generic one-wave tile at d80 (as
// uattn_gfx950_2d_f16_f16_d80_bany_all_m16n32w1): 16 rows, whose last
// v_mfma_f32_16x16x32 step over the head is padded (attention_mfma.hpp kKTail).
constexpr int kHead = 80, kBlock = 13;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, 0, kFeatAll, tile_rows_per_wave(kArch, Tile::small, kHead, 0), 32, 1>;
static_assert(K::kKTail, "FAULT_PADHEAD needs a tile with a padded head step");
#else
constexpr int kHead = 64, kBlock = 13;
using K = AttnKernel<kArch, Path::k2D, dl::f16, dl::f16, kHead, 0, kFeatAll, tile_rows_per_wave(kArch, Tile::small, kHead, 0), 32, 1>;
#endif

#if defined(FAULT_HSPLIT)
constexpr int kRowsPerGroup = kBlockM;  // its waves own the same rows
#else
constexpr int kRowsPerGroup = K::kQW * (K::kThreads / K::kWave);
#endif

}  // namespace uattn::fault
