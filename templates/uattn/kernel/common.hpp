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

// tanh(x) = sign(x) * (1 - e^{-2|x|}) / (1 + e^{-2|x|}); absolute error ~1e-7.
UATTN_INLINE float tanh_f(float x) {
  const float ax = x < 0 ? -x : x;
  const float t = dl::exp2(-2.0f * kLog2e * ax);
  const float r = (1.0f - t) / (1.0f + t);
  return x < 0 ? -r : r;
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
