// Compile-time configuration shared by the kernels, the lookup table and the
// generator's LDS rule (generator/uattn_gen/rules.py mirrors lds_bytes()).
#pragma once
#include <stdint.h>

namespace uattn {

enum class Arch : int32_t { gfx950 = 0, gfx1030 = 1 };
enum class Path : int32_t { k2D = 0, k3D = 1, kReduce = 2 };

constexpr int wave_size_of(Arch a) { return a == Arch::gfx950 ? 64 : 32; }
// Query rows owned by one wave: gfx950 = the 32 columns of a 32x32 MFMA tile;
// gfx1030 = 8 rows, 4 lanes per row.
constexpr int rows_per_wave(Arch a) { return a == Arch::gfx950 ? 32 : 8; }
// Head size rounded up to the kernels' register tiling (MFMA: 32-wide output
// tiles; wave32 body: 4 lanes per row).
constexpr int head_pad(Arch a, int d) { return a == Arch::gfx950 ? (d + 31) / 32 * 32 : (d + 3) / 4 * 4; }
// LDS row stride in elements: gfx950 K/V rows padded to spread LDS banks;
// gfx1030 a Q row plus the row's 32 f16 probabilities of one KV tile.
constexpr int lds_row(Arch a, int d) { return head_pad(a, d) + (a == Arch::gfx950 ? 8 : 32); }

// LDS bytes of an attention instance (2-byte elements): gfx950 stages the K and V
// tiles [block_n][lds_row]; the wave32 body (attention_dot2.hpp) reads K/V
// straight from memory and stages Q and P only, [block_m][lds_row].
constexpr uint32_t attn_lds_bytes(Arch a, int head, int block_m, int block_n) {
  return (uint32_t)(a == Arch::gfx1030 ? block_m * lds_row(a, head) * 2 : 2 * block_n * lds_row(a, head) * 2);
}
// LDS budget per workgroup: gfx950 160 KiB per CU, gfx1030 64 KiB per workgroup
// (SPEC.md s.3).
constexpr uint32_t lds_budget(Arch a) { return a == Arch::gfx950 ? 160u * 1024u : 64u * 1024u; }

}  // namespace uattn
