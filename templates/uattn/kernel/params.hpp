// Kernel arguments of every uattn instance. Plain data with the same layout on
// the host (x86-64), on amdgcn and in the host execution engine, passed by value
// as the single kernel argument. Shapes and conventions: SPEC.md s.1. All
// strides are in elements of the tensor's own dtype. DType and the Feature bits
// come from the generated vocabulary (uattn/generated/vocab.hpp).
#pragma once
#include <stdint.h>

#include "uattn/generated/vocab.hpp"

namespace uattn {

struct AttnParams {
  // q [num_tokens, Hq, D]; k/v_cache [num_blocks, block_size, Hkv, D]; out [num_tokens, Hq, D]
  const void* q;
  const void* k_cache;
  const void* v_cache;
  void* out;
  const int32_t* cu_seqlens_q;  // [num_seqs + 1]
  const int32_t* seqused_k;     // [num_seqs]
  const int32_t* block_table;   // [num_seqs, block_table_stride]
  const float* alibi_slopes;    // [Hq] or null
  const float* qq_bias;         // [Lq, qq_bias_stride] or null
  const float* sinks;           // [Hq] or null
  // 3D split-KV workspace (null for the 2D path):
  //   ws_acc [num_tokens, Hq, num_segments, head_size] fp32 (unnormalised, x v_scale)
  //   ws_max / ws_sum [num_tokens, Hq, num_segments] fp32 (max in log2 units)
  float* ws_acc;
  float* ws_max;
  float* ws_sum;
  int64_t q_stride_token, q_stride_head;
  int64_t k_stride_block, k_stride_slot, k_stride_head;
  int64_t v_stride_block, v_stride_slot, v_stride_head;
  int64_t o_stride_token, o_stride_head;
  int64_t block_table_stride;
  int32_t num_seqs;
  int32_t num_tokens;
  int32_t num_q_heads;
  int32_t num_kv_heads;
  int32_t head_size;        // D of the call; an instance computes with its compile-time HEAD, which
                            // the selector matched to it (launchers check the two agree)
  int32_t block_size;
  int32_t qq_bias_stride;   // row stride (= width) of qq_bias
  int32_t window_left;      // -1: no window
  float softcap;            // 0: off
  float softmax_scale;
  float k_scale;
  float v_scale;
  float output_scale;       // used when out_dtype == fp8e4m3
  int32_t out_dtype;        // DType of out: the Q dtype, or fp8e4m3
  int32_t num_segments;     // 1 for 2D
  // Checked launches (check.hpp): the host-known bounds the index arrays are
  // checked against on the device, and the status words the check kernel
  // writes (null: an unchecked launch; no kernel reads the bounds then).
  int32_t num_blocks;       // k_cache.shape[0]
  int32_t max_seqlen_q;
  int32_t max_seqlen_k;
  int32_t max_blocks_per_seq;
  int32_t pad_;
  uint32_t* status;         // [kStatusWords] device memory, or null
};

}  // namespace uattn
