// The tile record of an attention instance: every decision about its workgroup
// tile, computed once by the generator (generator/uattn_gen/tiles.py, one named
// rule per field) and emitted into the instance's file as the record the body
// is handed (UATTN_TILE_RECORD, instance.hpp) and into its table row. The
// bodies (attention_mfma.hpp, attention_dot2.hpp) read these fields and derive
// only arithmetic from them. Fields of one body only are 0 / false in the
// other's. Same fields, same order as tiles.TileConfig.
#pragma once
#include <stdint.h>

namespace uattn {

struct TileConfig {
  // Geometry (both bodies)
  int block_m;        // packed query rows per workgroup
  int block_n;        // keys per KV tile
  int waves;          // waves per workgroup
  int rows_per_wave;  // query rows one wave owns (block_m, or block_m / waves)
  uint32_t lds_bytes; // static LDS bytes of the workgroup (0: none)
  int waves_per_eu;   // waves per SIMD the register allocation must allow (amdgpu_waves_per_eu)
  bool shares_kv;     // the waves walk one KV range and load each K / V tile once between them
                      // (MFMA: always; dot2: the 8-wave tile, through LDS)
  // MFMA body (attention_mfma.hpp)
  bool head_split;    // the waves own the same rows and split the head
  bool k_direct;      // K read straight from memory into the MFMA A operand (no K in LDS)
  int v_slices;       // V^T staged in this many slices of the head per KV tile
  int stages;         // LDS stages of K / V^T (2: double buffer)
  bool lds_swizzle;   // K / V^T rows in LDS with XOR-swizzled 16-byte chunks (bank conflicts)
  int stage_keys;     // keys per staging unit (a unit: keys x one 8-element chunk)
  int k_group;        // K / Q fragment pairs in flight per scheduling group
  int v_group;        // V^T fragments in flight per scheduling group (16-row tiles)
  bool prefetch;      // the next KV tile is loaded into registers while this one computes
  bool three_loops;   // the 2D tile loop is walked as three plain loops (like 3D)
  bool one_copy;      // the generic instance runs its element-load tile loops only
  bool v_whole;       // K-direct tiles: the whole KV tile's V staging units in one group
  int v_step_keys;    // otherwise: keys per V staging group
  // dot2 body (attention_dot2.hpp)
  int dims_per_lane;  // V head dims one lane accumulates in P.V
  bool q_bcast;       // Q and P broadcast by DPP (no Q / P staging in LDS)
  bool aligned_first; // the generic instance tests the aligned-rows path first
  int k_ahead;        // K pieces in flight (aligned rows)
  int v_ahead;        // V key pairs in flight (aligned rows)
  int q_ahead;        // Q LDS reads in flight (aligned rows; 0: Q held in registers)
  bool key_split;     // a workgroup of at most block_m / 2 rows splits its KV range among its
                      // waves and combines them through LDS (the 8-wave window tile, 16-bit KV)
};

}  // namespace uattn

// The tile record of instance NAME (the fields of uattn::TileConfig in order, as
// the generator writes them): a constant NAME##_tile at namespace scope, the
// body's template argument (instance files, tile_records.inc). An inline
// variable, so of external linkage: the body's member functions stay
// linkonce_odr as with integer template arguments (a `static` record gives them
// internal linkage, which changes LLVM's inlining decisions and the code).
#define UATTN_TILE_RECORD(NAME, ...) inline constexpr ::uattn::TileConfig NAME##_tile = {__VA_ARGS__};
