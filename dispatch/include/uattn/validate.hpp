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
#include <stddef.h>
#include <stdint.h>

#include <string>

#include "uattn/generated/args.hpp"
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
  kInvalidIndex = UATTN_ERR_INVALID_INDEX,
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

// Every argument of a call: the fields of uattn_args_t (uattn.h), in the same
// order and under the same names, with uattn::TensorDesc for the tensors. The
// list, with each field's shape, dtype and default, is the argument schema
// (generator/uattn_gen/args.py, emitted as UATTN_FOREACH_ARG in
// uattn/generated/args.hpp). Of note:
// - block_table_stride >= max_blocks_per_seq (the columns in use); max_seqlen_q /
//   max_seqlen_k are host-known bounds (as vLLM passes them).
// - cu_seqlens_q_host, seqused_k_host, block_table_host: optional host copies of
//   the index arrays (the same contents as the device arrays; serving engines
//   such as vLLM keep them). Give all three or none: when given, Runtime::run()
//   checks them with validate_indices() before anything is launched
//   (kInvalidArgument on a violation).
// - index_status: checked launch: device memory of kIndexStatusBytes (4-byte
//   aligned), or null for an unchecked launch. When given, Runtime::run()
//   launches the index-array check kernel first; every attention/reduce
//   workgroup exits when it finds a violation, so nothing is written and no
//   invalid index is dereferenced. run() then reads the status back
//   synchronously (it waits for the stream) and returns kInvalidIndex naming
//   the first violation.
struct AttentionArgs {
#define UATTN_ARG_FIELD(C_TYPE, CPP_TYPE, NAME, DEFAULT) CPP_TYPE NAME = DEFAULT;
  UATTN_FOREACH_ARG(UATTN_ARG_FIELD)
#undef UATTN_ARG_FIELD
};

// Bytes of the checked-launch status buffer (AttentionArgs::index_status):
// four uint32 words, see decode_index_status().
constexpr size_t kIndexStatusBytes = UATTN_INDEX_STATUS_BYTES;

// Checks everything that can be checked without reading device memory: dtypes,
// ranks, shapes, strides, pointers, scalars and the host-known bounds. The first
// broken rule is returned as kInvalidArgument with a message naming the argument,
// its value and what was expected, e.g.
//   "uattn: q.shape[1] (num_q_heads) = 12 is not a multiple of k_cache.shape[2] (num_kv_heads) = 5"
Status validate(const AttentionArgs& args);

// Deep check of the index arrays from host copies, in this order (the first
// violation is reported): cu_seqlens_q[0] == 0; per sequence i:
// cu_seqlens_q[i+1] >= cu_seqlens_q[i], q_len_i <= max_seqlen_q,
// seqused_k[i] >= q_len_i, seqused_k[i] <= max_seqlen_k,
// ceil(seqused_k[i] / block_size) <= max_blocks_per_seq, and the block-table
// entries the sequence uses (the first ceil(seqused_k[i] / block_size) of its
// row) in [0, num_blocks); then cu_seqlens_q[num_seqs] <= num_tokens (rows past
// it are padding, SPEC.md s.1). No entry is read before the rules bounding it
// hold. Runs validate() first; kInvalidArgument with the message of
// index_violation_message(). The device check of a checked launch applies the
// same rules in the same order (uattn/kernel/check.hpp).
Status validate_indices(const AttentionArgs& args, const int32_t* cu_seqlens_q_host, const int32_t* seqused_k_host,
                        const int32_t* block_table_host);
// The same with args' own host copies (cu_seqlens_q_host, ...), which must be set.
Status validate_indices(const AttentionArgs& args);

// A checked launch's status words (uattn/kernel/check.hpp): [0] the rule broken
// (0: none), [1] the sequence, [2] a second value, [3] the value found. "" when
// status[0] is 0, else "uattn: <argument> = <value> ...; expected ...".
std::string index_violation_message(const AttentionArgs& args, const uint32_t status[4]);

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
