// Compile-time facts of an architecture shared by the kernels and the lookup
// table, read from the generated architecture records (uattn/generated/arch.hpp,
// written by generator/uattn_gen from model.ARCH_INFO). Kernels branch on a
// capability (matrix_insn(), wave_size_of()), never on an architecture's name.
// Everything about one instance's tile is its tile record (tile.hpp).
#pragma once
#include <stdint.h>

#include "uattn/generated/arch.hpp"
#include "uattn/generated/vocab.hpp"

namespace uattn {

constexpr int wave_size_of(Arch a) { return arch_record(a).wave_size; }
constexpr MatrixInsn matrix_insn(Arch a) { return arch_record(a).matrix_insn; }
// Query rows owned by one wave: mfma_32x32x16 = the 32 columns of a 32x32 MFMA
// tile; dot2 = 8 rows (lane = key in QK, lane = head dims in P.V). Some tiles
// own fewer (the tile record's rows_per_wave: model.ArchInfo.rows_by_head).
constexpr int rows_per_wave(Arch a) { return arch_record(a).rows_per_wave; }
// LDS bytes one workgroup may use (SPEC.md s.3: gfx950 160 KiB per CU, gfx1030
// 64 KiB per workgroup).
constexpr uint32_t lds_budget(Arch a) { return arch_record(a).lds_budget; }
// Compute units of the architecture's reference part (the selector's default).
constexpr int cu_count(Arch a) { return arch_record(a).cu_count; }

}  // namespace uattn
