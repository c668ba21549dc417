// Checked launches: the index-array check kernel and the entry guard of the
// attention and reduce kernels.
//
// In a checked launch (AttnParams::status non-null) the runtime first launches
// CheckKernel (one wave, grid 1x1x1) on the stream. It walks the index arrays
// in the order of the host check (validate_indices, dispatch/src/validate.cpp):
//   cu_seqlens_q[0] == 0; then per sequence i: cu_seqlens_q[i+1] >= cu_seqlens_q[i],
//   q_len <= max_seqlen_q, seqused_k >= q_len, seqused_k <= max_seqlen_k,
//   ceil(seqused_k / block_size) <= max_blocks_per_seq, and the block ids of
//   those columns in [0, num_blocks); last cu_seqlens_q[num_seqs] <= num_tokens
//   (rows past it are padding, SPEC.md s.1),
// reading no entry before the rules that bound it hold, and writes the first
// violation to the status words (kStatusWords, always written: 0 = valid).
// Every attention and reduce workgroup reads status[0] on entry and exits when
// it is not 0, so no kernel dereferences an index the check refused, and
// nothing is written to out or the workspace.
#pragma once
#include "uattn/kernel/common.hpp"

namespace uattn {

// status[0]: the rule broken (0: none); status[1]: the sequence (num_seqs for
// kCuLast); status[2]: a second value (kCuDecreasing: cu_seqlens_q[i];
// kSequsedBelowQLen: q_len; kBlockColumns: seqused_k[i]; kBlockId: the column
// j; else 0); status[3]: the value found (the entry read, or q_len for
// kQLenAboveMax, the column count for kBlockColumns), as 32 bits.
enum IndexViolation : uint32_t {
  kIndexOk = 0,
  kCuFirst = 1,        // cu_seqlens_q[0] != 0
  kCuDecreasing = 2,   // cu_seqlens_q[i+1] < cu_seqlens_q[i]
  kQLenAboveMax = 3,   // q_len > max_seqlen_q
  kSequsedBelowQLen = 4,
  kSequsedAboveMax = 5,
  kBlockColumns = 6,   // ceil(seqused_k / block_size) > max_blocks_per_seq
  kBlockId = 7,        // block_table[i][j] outside [0, num_blocks)
  kCuLast = 8,         // cu_seqlens_q[num_seqs] > num_tokens (fewer: padding rows, SPEC.md s.1)
};
constexpr int kStatusWords = 4;

// True when a checked launch's check kernel found a violation: the kernel
// exits at once (uniform over the workgroup; read before any barrier).
UATTN_INLINE bool index_check_failed(const AttnParams& p) {
  return p.status != nullptr && p.status[0] != kIndexOk;
}

template <Arch A>
struct CheckKernel {
  static constexpr int kWave = wave_size_of(A);
  static constexpr int kThreads = kWave;
  static constexpr uint32_t kLdsBytes = 0;
  static constexpr int kWavesPerEU = 1;

  UATTN_INLINE static void report(const AttnParams& p, uint32_t rule, uint32_t seq, int64_t aux, int64_t value) {
    p.status[1] = seq;
    p.status[2] = (uint32_t)aux;
    p.status[3] = (uint32_t)value;
    p.status[0] = rule;
  }

  UATTN_INLINE static void run(const AttnParams& p, char* /*lds*/) {
    const int32_t* cu = p.cu_seqlens_q;
    const bool lead = dl::lane_id() == 0;
    if (cu[0] != 0) {
      if (lead) report(p, kCuFirst, 0, 0, cu[0]);
      return;
    }
    for (int i = 0; i < p.num_seqs; ++i) {
      const int64_t c0 = cu[i], c1 = cu[i + 1];
      uint32_t rule = kIndexOk;
      int64_t aux = 0, value = 0;
      const int64_t q_len = c1 - c0;
      if (c1 < c0) { rule = kCuDecreasing; aux = c0; value = c1; }
      else if (q_len > p.max_seqlen_q) { rule = kQLenAboveMax; value = q_len; }
      if (rule != kIndexOk) {
        if (lead) report(p, rule, (uint32_t)i, aux, value);
        return;
      }
      const int64_t sk = p.seqused_k[i];
      if (sk < q_len) { rule = kSequsedBelowQLen; aux = q_len; value = sk; }
      else if (sk > p.max_seqlen_k) { rule = kSequsedAboveMax; value = sk; }
      const int64_t used = (sk + p.block_size - 1) / p.block_size;
      if (rule == kIndexOk && used > p.max_blocks_per_seq) { rule = kBlockColumns; aux = sk; value = used; }
      if (rule != kIndexOk) {
        if (lead) report(p, rule, (uint32_t)i, aux, value);
        return;
      }
      const int32_t* row = p.block_table + (int64_t)i * p.block_table_stride;
      for (int64_t j0 = 0; j0 < used; j0 += kWave) {
        const int64_t j = j0 + dl::lane_id();
        const int32_t b = j < used ? row[j] : 0;
        const uint64_t bad = dl::ballot(j < used && (b < 0 || b >= p.num_blocks));
        if (bad != 0) {
          if (dl::lane_id() == __builtin_ctzll(bad)) report(p, kBlockId, (uint32_t)i, j, b);
          return;
        }
      }
    }
    if (lead) {
      const int32_t last = cu[p.num_seqs];
      if (last > p.num_tokens) report(p, kCuLast, (uint32_t)p.num_seqs, 0, last);
      else report(p, kIndexOk, 0, 0, 0);
    }
  }
};

}  // namespace uattn
