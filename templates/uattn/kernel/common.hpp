// Helpers shared by the attention and reduce kernels.
#pragma once
#include "uattn/device/dl.hpp"
#include "uattn/kernel/config.hpp"
#include "uattn/kernel/params.hpp"

// Full unrolling of loops over register arrays (keeps them out of scratch).
#define UATTN_UNROLL _Pragma("unroll")

namespace uattn {

constexpr float kLog2e = 1.4426950408889634f;  // log2(e)
constexpr float kNegInf = -__builtin_inff();
constexpr float kFp8Max = 448.0f;              // largest finite OCP E4M3 value

UATTN_INLINE float fmaxf_(float a, float b) { return a > b ? a : b; }
UATTN_INLINE float fminf_(float a, float b) { return a < b ? a : b; }

// Soft-capped logit: c tanh(a s) for a raw score s, with b = -2 log2(e) a
// (a > 0) and c > 0 precomputed per workgroup (softcap_consts). tanh(y) =
// sign(y) (1 - e^{-2|y|}) / (1 + e^{-2|y|}), and sign(a s) = sign(s), so
//   c tanh(a s) = copysign(c (1 - t) / (1 + t), s),  t = 2^{b |s|}.
// 1 + t lies in [1, 2]: its reciprocal is v_rcp_f32 (1 ULP; AMD Instinct
// CDNA3 ISA and RDNA2 ISA, "VOP1" v_rcp_f32) instead of an IEEE division
// (a ~10-instruction scale / fma / fixup sequence); the sign is copied
// bitwise (v_bfi_b32). 7 VALU per score; relative error ~3e-7 (the exp2 and
// rcp ULPs) on top of the reference's tanh.
UATTN_INLINE float softcap_tanh(float s, float b, float c) {
  const float t = dl::exp2(b * __builtin_fabsf(s));
  const float r = __builtin_fmaf(-t, c, c) * dl::rcp_approx(1.0f + t);
  return __builtin_copysignf(r, s);
}
// b and c of softcap_tanh for logits softcap tanh(scale s / softcap) scaled by
// `unit` (1, or log2(e) for log2-domain logits): cap tanh(x / cap) does not
// change when cap changes sign, so |softcap| serves either sign. softcap != 0
// and scale > 0 (SPEC.md s.4).
UATTN_INLINE void softcap_consts(float softcap, float scale, float unit, float& b, float& c) {
  const float cap = __builtin_fabsf(softcap);
  b = -2.0f * kLog2e * scale / cap;
  c = cap * unit;
}

// Output element conversion: the Q dtype (f16/bf16) as is; fp8 e4m3 as
// clamp(v / output_scale, +-448) (SPEC.md s.1 step 7).
template <class OT>
UATTN_INLINE OT out_value(float v, float output_scale) {
  if constexpr (sizeof(OT) == 1) {
    float s = v / output_scale;
    s = fminf_(fmaxf_(s, -kFp8Max), kFp8Max);
    return dl::from_f32<OT>(s);
  } else {
    return dl::from_f32<OT>(v);
  }
}

// Writes one output element in p.out_dtype (for kernels whose output dtype is
// only known at run time, e.g. the reduce kernel).
UATTN_INLINE void store_out(const AttnParams& p, int64_t token, int head, int d, float v) {
  const int64_t off = token * p.o_stride_token + (int64_t)head * p.o_stride_head + d;
  switch ((DType)p.out_dtype) {
    case DType::f16: static_cast<dl::f16*>(p.out)[off] = out_value<dl::f16>(v, p.output_scale); break;
    case DType::bf16: static_cast<dl::bf16*>(p.out)[off] = out_value<dl::bf16>(v, p.output_scale); break;
    case DType::fp8e4m3:
      static_cast<dl::fp8e4m3*>(p.out)[off] = out_value<dl::fp8e4m3>(v, p.output_scale);
      break;
  }
}

}  // namespace uattn
