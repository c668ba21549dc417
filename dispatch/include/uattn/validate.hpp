// Host-side description and validation of one unified-attention call (the C++
// mirror of vLLM/AITER `unified_attention`). No GPU runtime dependency: link
// uattn_validate (which brings uattn_table) to use it.
//
// Contract of every argument: SPEC.md s.1. Shapes:
//   q, out            [num_tokens, Hq, D]                 q: f16/bf16; out: q's dtype or fp8e4m3
//   k_cache, v_cache  [num_blocks, block_size, Hkv, D]    q's dtype or fp8e4m3 (both the same)
//   cu_seqlens_q      [num_seqs + 1]   int32 prefix sums of the query lengths, from 0
//   seqused_k         [num_seqs]       int32 KV length of each sequence (new tokens included)
//   block_table       [num_seqs, block_table_stride] int32 physical block ids
// Strides are in elements of the tensor's own dtype; only the last dimension must
// be contiguous (stride 1). Pointers are device pointers; nothing here reads them.
#pragma once
#include <stdint.h>

#include <string>

#include "uattn/table.hpp"
#include "uattn/uattn.h"

namespace uattn {

// Status codes: the values of uattn_status_t (uattn.h).
enum StatusCode : int {
  kOk = UATTN_OK,
  kInvalidArgument = UATTN_ERR_INVALID_ARGUMENT,
  kNoDevice = UATTN_ERR_NO_DEVICE,
  kUnsupportedArch = UATTN_ERR_UNSUPPORTED_ARCH,
  kNoInstance = UATTN_ERR_NO_INSTANCE,
  kBundle = UATTN_ERR_BUNDLE,
  kHip = UATTN_ERR_HIP,
};

struct Status {
  int code = kOk;
  std::string message;  // "uattn: <argument> = <value> ...<what was expected>"; empty when ok
  bool ok() const { return code == kOk; }
  static Status Ok() { return {}; }
};

struct TensorDesc {
  const void* data = nullptr;  // may be null only when the tensor has no elements
  DType dtype = DType::f16;
  int rank = 0;
  int64_t shape[5] = {0, 0, 0, 0, 0};
  int64_t stride[5] = {0, 0, 0, 0, 0};  // in elements
};

struct AttentionArgs {
  TensorDesc q, k_cache, v_cache, out;  // q/out [num_tokens, Hq, D]; caches [num_blocks, block_size, Hkv, D]
  const int32_t* cu_seqlens_q = nullptr;  // device pointers
  const int32_t* seqused_k = nullptr;
  const int32_t* block_table = nullptr;
  int num_seqs = 0;
  int64_t block_table_stride = 0;         // row stride of block_table, elements (>= max_blocks_per_seq)
  int max_blocks_per_seq = 0;             // columns of block_table in use
  int max_seqlen_q = 0, max_seqlen_k = 0; // host-known bounds (as vLLM passes them)
  float softmax_scale = 0;
  int window_left = -1;                   // -1: no window; a model window W is W - 1
  float softcap = 0;                      // 0: off
  float k_scale = 1, v_scale = 1;         // fp8 KV dequantisation; exactly 1 for f16/bf16 KV
  const float* alibi_slopes = nullptr;    // [Hq]
  const float* qq_bias = nullptr;         // [max_seqlen_q, qq_bias_stride]
  int qq_bias_stride = 0;
  const float* sinks = nullptr;           // [Hq]
  float output_scale = 1;                 // fp8 out only; exactly 1 otherwise
};

// Checks everything that can be checked without reading device memory: dtypes,
// ranks, shapes, strides, pointers, scalars and the host-known bounds. The first
// broken rule is returned as kInvalidArgument with a message naming the argument,
// its value and what was expected, e.g.
//   "uattn: q.shape[1] (num_q_heads) = 12 is not a multiple of k_cache.shape[2] (num_kv_heads) = 5"
Status validate(const AttentionArgs& args);

// Deep check of the index arrays from host copies (tests, debugging): cu_seqlens_q
// starts at 0, never decreases and ends at num_tokens; q_len_i <= max_seqlen_q;
// q_len_i <= seqused_k[i] <= max_seqlen_k; the block-table entries a sequence uses
// (the first ceil(seqused_k[i] / block_size) of its row) lie in [0, num_blocks).
// Runs validate() first.
Status validate_indices(const AttentionArgs& args, const int32_t* cu_seqlens_q_host, const int32_t* seqused_k_host,
                        const int32_t* block_table_host);

// Feature bits (params.hpp) the call uses.
uint32_t features_of(const AttentionArgs& args);

// The problem as the selector sees it. num_cus 0 = the architecture's usual count.
// Assumes validate(args).ok().
ProblemDesc describe(const AttentionArgs& args, Arch arch, int num_cus);

// The kernel argument for `sel` (attention and reduce take the same struct).
// workspace: device memory of sel.workspace_bytes (3D; laid out by
// workspace_layout()), ignored for 2D. Assumes validate(args).ok() and sel.ok.
AttnParams make_params(const AttentionArgs& args, const Selection& sel, void* workspace);

// "f16" / "bf16" / "fp8e4m3", or "DType(<n>)" for a value outside the enum.
std::string dtype_name(DType d);

}  // namespace uattn
