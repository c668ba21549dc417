// Scalar types and conversions shared by every backend.
//
//   dl::f16     IEEE binary16 (_Float16)
//   dl::bf16    bfloat16 (__bf16)
//   dl::fp8e4m3 OCP FP8 E4M3 ("fn": no infinities, S.1111.111 is NaN, max 448),
//               stored as its raw byte. Source: OCP 8-bit Floating Point
//               Specification (OFP8) rev 1.0, section 5.
//   dl::vec<T,N> a plain fixed-size array used for operand fragments.
//
// All conversions to float are exact; from_f32 rounds to nearest-even.
#pragma once
#include <stdint.h>

#if defined(UATTN_BACKEND_AMD)
#  define UATTN_DEVICE __attribute__((device))
#  define UATTN_HOST_DEVICE __attribute__((host)) __attribute__((device))
#else
#  define UATTN_DEVICE
#  define UATTN_HOST_DEVICE
#endif
#define UATTN_INLINE UATTN_DEVICE inline __attribute__((always_inline))

namespace dl {

using f16 = _Float16;
using bf16 = __bf16;
struct fp8e4m3 { uint8_t bits; };

template <class T, int N>
struct vec {
  T v[N];
  UATTN_INLINE T& operator[](int i) { return v[i]; }
  UATTN_INLINE const T& operator[](int i) const { return v[i]; }
};

UATTN_INLINE float bits_as_float(uint32_t u) { return __builtin_bit_cast(float, u); }
UATTN_INLINE uint32_t float_as_bits(float f) { return __builtin_bit_cast(uint32_t, f); }

// Decode OCP E4M3: bias 7, subnormals 2^-6 * m/8, exponent 15 & mantissa 7 = NaN.
UATTN_INLINE float fp8e4m3_to_f32(uint8_t b) {
  const uint32_t sign = (uint32_t)(b & 0x80u) << 24;
  const uint32_t exp = (b >> 3) & 0xFu;
  const uint32_t man = b & 0x7u;
  if (exp == 0xFu && man == 0x7u) return bits_as_float(0x7FC00000u | sign);
  if (exp == 0) {  // subnormal: man * 2^-9
    const float mag = (float)man * (1.0f / 512.0f);
    return sign ? -mag : mag;
  }
  return bits_as_float(sign | ((exp + 120u) << 23) | (man << 20));
}

// Encode to OCP E4M3 with round-to-nearest-even and saturation to +-448
// (NaN stays NaN). Used for the optional fp8 output.
UATTN_INLINE uint8_t f32_to_fp8e4m3(float f) {
  const uint32_t u = float_as_bits(f);
  const uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
  const uint32_t mag = u & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return (uint8_t)(sign | 0x7Fu);          // NaN
  float a = bits_as_float(mag);
  if (a >= 448.0f) return (uint8_t)(sign | 0x7Eu);                  // saturate
  if (a < 0.015625f) {                                               // subnormal range (< 2^-6)
    // quantum 2^-9; round half to even
    float q = a * 512.0f;
    uint32_t m = (uint32_t)q;
    float r = q - (float)m;
    if (r > 0.5f || (r == 0.5f && (m & 1u))) ++m;
    return (uint8_t)(sign | m);                                      // m == 8 -> 2^-6, exact encoding
  }
  // normal: keep 3 mantissa bits with RNE on the float bits
  uint32_t e = (mag >> 23) - 120u;                                   // 1..15
  uint32_t m = mag & 0x7FFFFFu;
  uint32_t keep = m >> 20, rest = m & 0xFFFFFu;
  if (rest > 0x80000u || (rest == 0x80000u && (keep & 1u))) {
    ++keep;
    if (keep == 8u) { keep = 0; ++e; }
  }
  if (e > 15u || (e == 15u && keep == 7u)) return (uint8_t)(sign | 0x7Eu);
  return (uint8_t)(sign | (e << 3) | keep);
}

UATTN_INLINE float to_f32(f16 x) { return (float)x; }
UATTN_INLINE float to_f32(bf16 x) { return (float)x; }
UATTN_INLINE float to_f32(fp8e4m3 x) { return fp8e4m3_to_f32(x.bits); }
UATTN_INLINE float to_f32(float x) { return x; }

template <class T> struct from_f32_impl;
template <> struct from_f32_impl<f16> { UATTN_INLINE static f16 run(float f) { return (f16)f; } };
template <> struct from_f32_impl<bf16> { UATTN_INLINE static bf16 run(float f) { return (bf16)f; } };
template <> struct from_f32_impl<float> { UATTN_INLINE static float run(float f) { return f; } };
template <> struct from_f32_impl<fp8e4m3> {
  UATTN_INLINE static fp8e4m3 run(float f) { return fp8e4m3{f32_to_fp8e4m3(f)}; }
};
template <class T> UATTN_INLINE T from_f32(float f) { return from_f32_impl<T>::run(f); }

}  // namespace dl
