// Paged unified attention: the 2D kernel and the 3D split-KV segment kernel.
//
// Every instance runs the same named phases (phases.hpp: locate the
// workgroup, KV bounds, interior tiles) and then the body of its
// architecture's matrix-instruction capability, chosen here from the
// architecture record (matrix_insn(A), generated from generator/uattn_gen):
//   MatrixInsn::mfma_32x32x16 -> AttnBodyMfma (attention_mfma.hpp; gfx950)
//   MatrixInsn::dot2          -> AttnBodyDot2 (attention_dot2.hpp; gfx1030)
// Each body's header gives its lane roles, tile, LDS layout and pipeline.
//
// Launch contract (every body): grid x = floor(num_tokens * qpk / BM) +
// num_seqs (spare workgroups exit), y = num_kv_heads, z = num_segments (3D);
// a packed row m of a sequence is (token m / qpk, query head kv_head * qpk +
// m % qpk); 3D writes (acc x v_scale, max in log2 units, sum) per segment to
// the workspace for the reduce kernel (reduce.hpp); rows past the last
// sequence are never written. In a checked launch every workgroup exits on
// entry when the check kernel refused the index arrays (check.hpp).
#pragma once
#include "uattn/kernel/attention_dot2.hpp"
#include "uattn/kernel/attention_mfma.hpp"
#include "uattn/kernel/check.hpp"
#include "uattn/kernel/common.hpp"
#include "uattn/kernel/tile.hpp"

namespace uattn {

// Body of a matrix-instruction kind (no primary definition: a new kind must add one).
template <MatrixInsn M, Arch A, Path P, class QT, class KVT, int HEAD, int BLOCK, uint32_t FEATS,
          const TileConfig& T>
struct AttnBodyOf;
template <Arch A, Path P, class QT, class KVT, int HEAD, int BLOCK, uint32_t FEATS, const TileConfig& T>
struct AttnBodyOf<MatrixInsn::mfma_32x32x16, A, P, QT, KVT, HEAD, BLOCK, FEATS, T> {
  using type = AttnBodyMfma<A, P, QT, KVT, HEAD, BLOCK, FEATS, T>;
};
template <Arch A, Path P, class QT, class KVT, int HEAD, int BLOCK, uint32_t FEATS, const TileConfig& T>
struct AttnBodyOf<MatrixInsn::dot2, A, P, QT, KVT, HEAD, BLOCK, FEATS, T> {
  using type = AttnBodyDot2<A, P, QT, KVT, HEAD, BLOCK, FEATS, T>;
};

// A body behind the checked-launch entry guard: the workgroup exits before the
// body runs when the check kernel refused the index arrays (check.hpp). Every
// other member (kThreads, kLdsBytes, ...) is the body's.
template <class Body>
struct GuardedBody : Body {
  UATTN_INLINE static void run(const AttnParams& p, char* lds) {
    if (index_check_failed(p)) {
      dl::end_wave();
      return;
    }
    Body::run(p, lds);
  }
};

// The kernel of an instance: the body of its architecture's matrix-instruction capability.
template <Arch A, Path P, class QT, class KVT, int HEAD, int BLOCK, uint32_t FEATS, const TileConfig& T>
using AttnKernel =
    GuardedBody<typename AttnBodyOf<matrix_insn(A), A, P, QT, KVT, HEAD, BLOCK, FEATS, T>::type>;

}  // namespace uattn
