// Independent fp64 reference of the uattn operation (SPEC.md s.1).
//
// Plain loops written for clarity, not speed. It shares nothing with the kernel
// code except the argument struct (uattn/kernel/params.hpp): the dtype decoders
// below are its own, written from the format definitions
//   binary16: IEEE 754-2008, bias 15, 10 mantissa bits;
//   bfloat16: the upper 16 bits of an IEEE binary32;
//   fp8 e4m3: OCP 8-bit Floating Point Specification (OFP8) rev 1.0, s.5
//             ("fn": bias 7, no infinities, S.1111.111 is NaN, max 448).
//
// It reads only the memory of valid tokens: for each sequence with q_len > 0 only
// the keys some of its queries keep (all of [0, seqused_k) without a window,
// [context_len - window_left, seqused_k) with one), and only the first head_size
// elements of every head row; nothing of a q_len 0 sequence. Cache
// slots that hold no valid token, unused block-table entries and padding are
// never touched, so they may hold any bits (the test builder fills them with NaN).
#pragma once
#include <stdint.h>

#include <vector>

#include "uattn/kernel/params.hpp"

namespace uattn::ref {

struct RefInputs {              // views of host memory, exactly what a kernel receives
  const uattn::AttnParams* p;   // pointers + strides + scalars (params.hpp); host pointers
  uattn::DType q_dtype, kv_dtype;  // out dtype is p->out_dtype
  // > 0: only query heads [0, q_heads) are computed, the others' outputs are
  // NaN (for a run that executed only some heads' workgroups). 0: every head.
  int q_heads = 0;
};

// The attention output in fp64, layout [num_tokens][num_q_heads][head_size] (dense,
// token index = position in the packed q, i.e. cu_seqlens_q[i] + p). Sequences with
// q_len 0 own no tokens.
//
// Math (SPEC.md s.1), per query token p of sequence i at t = context_len + p and
// query head h (KV head h / (Hq / Hkv)), over keys j in [0, seqused_k[i]):
//   s_j = softmax_scale * sum_d q[d] * K[j][d]      (fp8 K: code value * k_scale)
//   softcap != 0: s_j = softcap * tanh(s_j / softcap)          (before masking)
//   keep j iff j <= t and (window_left < 0 or t - j <= window_left)
//   alibi: s_j += alibi_slopes[h] * (j - context_len)
//   qq_bias: s_j += qq_bias[p * qq_bias_stride + (j - context_len)]
//            when 0 <= j - context_len < qq_bias_stride
//   out = sum_kept exp(s_j) V[j] / (sum_kept exp(s_j) + (sinks ? exp(sinks[h]) : 0))
//         (fp8 V: code value * v_scale); 0 if nothing is kept and there is no sink.
//   fp8 out: out / output_scale clamped to [-448, 448] (nothing is quantised).
// k_scale / v_scale apply to fp8 KV only; output_scale to fp8 output only (the
// vLLM / AITER convention).
//
// Throws std::invalid_argument whose message names the argument and its value on
// bad input: null pointers that are needed, num_seqs/num_tokens < 0, heads <= 0,
// Hq % Hkv != 0, head_size/block_size <= 0, cu_seqlens_q not starting at 0, not
// monotonic or not ending at num_tokens, seqused_k < q_len, a sequence needing more
// blocks than block_table_stride, a negative block id in a used entry,
// window_left < -1, non-finite or negative softcap, non-finite scales,
// output_scale <= 0 for fp8 output, qq_bias_stride <= 0 with qq_bias, a q dtype
// other than f16/bf16, or an unknown kv/out dtype.
std::vector<double> attention(const RefInputs& in);

// The reference's own scalar decoders (exact; exposed for tests and for reading
// kernel output in the comparison helpers).
double f16_bits_to_double(uint16_t bits);
double bf16_bits_to_double(uint16_t bits);
double fp8e4m3_bits_to_double(uint8_t bits);   // NaN for 0x7F / 0xFF
// Element size in bytes of a dtype (2, 2, 1); throws on an unknown value.
int dtype_bytes(uattn::DType t);
// Element `index` (in elements, may exceed 2^31) of an array of dtype `t`.
double load_element(uattn::DType t, const void* base, int64_t index);

}  // namespace uattn::ref
