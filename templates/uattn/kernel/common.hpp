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

// Soft-capped logit c tanh(a s) of a raw score s (SPEC.md s.1 step 2: the
// capped logit softcap tanh(x / softcap) of the scaled score x = scale s),
// with a = scale / |softcap| > 0 and the constants of softcap_consts:
// b = -2 log2(e) a, c = |softcap| unit, e = c a = scale unit. With
// u = b |s| = -2 log2(e) |a s| and t = 2^u = e^{-2 |a s|}:
//   tanh(y) = sign(y) (1 - t) / (1 + t),  sign(a s) = sign(s),
// so c tanh(a s) = copysign(c (1 - t) / (1 + t), s). 1 + t lies in [1, 2]:
// its reciprocal is v_rcp_f32 (1 ULP; AMD Instinct CDNA3 ISA and RDNA2 ISA,
// "VOP1" v_rcp_f32) instead of an IEEE division (a ~10-instruction scale /
// fma / fixup sequence); the sign is copied bitwise (v_bfi_b32). Below
// |a s| = 2^-7 (t > e^{-2^-6}), where 1 - t cancels, c tanh(y) = c y
// (1 - y^2 / 3 + ...) is taken as c |a s| = e |s|: relative error < 2e-5
// (y^2 / 3) there and < 1e-5 (the exp2 and rcp ULPs over 1 - t >= 0.015)
// above. 9 VALU per score, branch-free. kSmall = false drops the small-
// argument form (7 VALU; the dot2 body's one-wave d128 softcap tile has no
// register for it at 128 VGPRs): the absolute error stays < 1.2e-7 c (an
// ULP of t near 1, times c), the relative error grows as |a s| -> 0.
template <bool kSmall = true>
UATTN_INLINE float softcap_tanh(float s, float b, float c, float e) {
  const float t = dl::exp2(b * __builtin_fabsf(s));
  float r = __builtin_fmaf(-t, c, c) * dl::rcp_approx(1.0f + t);
  if constexpr (kSmall) r = t > 0.98449644f ? e * __builtin_fabsf(s) : r;  // e^{-2^-6}
  return __builtin_copysignf(r, s);
}
// b, c and e of softcap_tanh for logits softcap tanh(scale s / softcap) in
// units of `unit` (1, or log2(e) for log2-domain logits). softcap != 0 and
// scale > 0 (dispatch/src/validate.cpp, rule_scalars). cap tanh(x / cap) does
// not change when cap changes sign, so |softcap| serves either sign. With
// unit != 1 a softcap above 2^64 is taken as 2^64, so that c = |softcap|
// unit stays finite (tanh(x / 2^64) is x / 2^64 to fp32 precision for
// |x| < 2^57); with unit = 1 (a compile-time constant at every call) c is
// finite as it is, and the dot2 body's one-wave d128 softcap tile has no
// register for the select (2 spilled at 128 VGPRs).
UATTN_INLINE void softcap_consts(float softcap, float scale, float unit, float& b, float& c, float& e) {
  const float cap = unit == 1.0f ? __builtin_fabsf(softcap) : fminf_(__builtin_fabsf(softcap), 0x1p64f);
  b = -2.0f * kLog2e * scale / cap;
  c = cap * unit;
  e = scale * unit;
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
