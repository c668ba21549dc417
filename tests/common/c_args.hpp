// The C API's mirror of C++ arguments (tests only): uattn_args_t / uattn_tensor_t
// holding the same pointers, shapes, strides and scalars as an AttentionArgs, for
// tests that drive the C API (uattn.h) with a problem built for the C++ one.
#pragma once
#include "uattn/runtime.hpp"
#include "uattn/uattn.h"

namespace uattn::testing {

inline uattn_tensor_t c_tensor(const TensorDesc& t) {
  uattn_tensor_t c{};
  c.data = t.data;
  c.dtype = (int32_t)t.dtype;
  c.rank = t.rank;
  for (int i = 0; i < 5; ++i) { c.shape[i] = t.shape[i]; c.stride[i] = t.stride[i]; }
  return c;
}

// Every field of `a`, starting from uattn_args_init's defaults.
inline uattn_args_t c_args(const AttentionArgs& a) {
  uattn_args_t c;
  uattn_args_init(&c);
  c.q = c_tensor(a.q);
  c.k_cache = c_tensor(a.k_cache);
  c.v_cache = c_tensor(a.v_cache);
  c.out = c_tensor(a.out);
  c.cu_seqlens_q = a.cu_seqlens_q;
  c.seqused_k = a.seqused_k;
  c.block_table = a.block_table;
  c.num_seqs = a.num_seqs;
  c.max_blocks_per_seq = a.max_blocks_per_seq;
  c.block_table_stride = a.block_table_stride;
  c.max_seqlen_q = a.max_seqlen_q;
  c.max_seqlen_k = a.max_seqlen_k;
  c.softmax_scale = a.softmax_scale;
  c.window_left = a.window_left;
  c.softcap = a.softcap;
  c.k_scale = a.k_scale;
  c.v_scale = a.v_scale;
  c.alibi_slopes = a.alibi_slopes;
  c.qq_bias = a.qq_bias;
  c.qq_bias_stride = a.qq_bias_stride;
  c.sinks = a.sinks;
  c.output_scale = a.output_scale;
  c.cu_seqlens_q_host = a.cu_seqlens_q_host;
  c.seqused_k_host = a.seqused_k_host;
  c.block_table_host = a.block_table_host;
  c.index_status = a.index_status;
  return c;
}

}  // namespace uattn::testing
