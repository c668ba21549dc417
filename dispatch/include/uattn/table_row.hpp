// The one reader of the generated table rows (table_rows.inc): defines the row
// macros for the lookup table (dispatch/src/table.cpp) and the host registry
// (tests/exec/host_registry.cpp). A reader defines UATTN_ROW_ENTRY(NAME, ROW)
// -- NAME the instance name (a C identifier), ROW a parenthesised InstanceRow
// initialiser -- and includes table_rows.inc.
//
// Row format 7 (generator/uattn_gen/emit.py, ATTENTION_COLUMNS / REDUCE_COLUMNS):
//   UATTN_ATTENTION_ROW(name, arch, path, q_dtype, kv_dtype, head_size, block_size,
//                       features, tile, block_m, block_n, waves,
//                       lds_bytes, rows_per_wave, head_split, shares_kv, key_split,
//                       vgprs, occupancy, tile_cycles, boundary_cycles, full_tile_cycles,
//                       full_boundary_cycles, split_tile_cycles, measured)
// (block_m .. key_split: the instance's tile record, generator/uattn_gen/tiles.py)
//   UATTN_REDUCE_ROW(name, arch, head_size, waves, lds_bytes)
// table_rows.inc checks these numbers at compile time.
#pragma once
#include "uattn/table.hpp"

#define UATTN_TABLE_ROW_FORMAT 7
#define UATTN_ATTENTION_ROW_COLUMNS 25
#define UATTN_REDUCE_ROW_COLUMNS 5

#define UATTN_ATTENTION_ROW(NAME, ARCH, PATH, QDT, KVDT, HEAD, BLOCK, FEATS, TILE, BM, BN, WAVES, LDS, RPW,  \
                            HSPLIT, SHARES, KSPLIT, VGPRS, OCC, CYCLES, BCYCLES, FCYCLES, FBCYCLES, SCYCLES,  \
                            MEASURED)                                                                        \
  UATTN_ROW_ENTRY(NAME, (::uattn::InstanceRow{#NAME, ::uattn::Arch::ARCH, ::uattn::Path::PATH,              \
                                              ::uattn::DType::QDT, ::uattn::DType::KVDT, HEAD, BLOCK, FEATS, \
                                              ::uattn::Tile::TILE, BM, BN, WAVES,                            \
                                              ::uattn::wave_size_of(::uattn::Arch::ARCH),                    \
                                              LDS, RPW, HSPLIT, SHARES, KSPLIT, VGPRS, OCC, CYCLES, BCYCLES, \
                                              FCYCLES, FBCYCLES, SCYCLES, MEASURED}))
#define UATTN_REDUCE_ROW(NAME, ARCH, HEAD, WAVES, LDS)                                                       \
  UATTN_ROW_ENTRY(NAME, (::uattn::InstanceRow{#NAME, ::uattn::Arch::ARCH, ::uattn::Path::kReduce,           \
                                              ::uattn::DType{}, ::uattn::DType{}, HEAD, 0, 0u,               \
                                              ::uattn::Tile{}, 0, 0, WAVES,                                  \
                                              ::uattn::wave_size_of(::uattn::Arch::ARCH), LDS, 0, false,    \
                                              false, false, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, false}))
