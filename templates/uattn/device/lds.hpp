// Typed views of the workgroup's LDS. Kernels never touch raw __shared__ arrays:
// every access goes through Lds<T>, which is a plain LDS load/store on hardware
// and a checked access (bounds + race detector) on the host backend.
#pragma once
#include <stdint.h>

namespace dl {

// Wave-uniform helpers built on shfl_bits.
UATTN_INLINE float shfl(float v, int src) { return bits_as_float(shfl_bits(float_as_bits(v), src)); }
UATTN_INLINE float shfl_xor(float v, int mask) { return shfl(v, lane_id() ^ mask); }

template <class T>
struct Lds {
  char* base;        // start of the workgroup's LDS
  uint32_t offset;   // byte offset of element 0
  uint32_t count;    // number of elements

  UATTN_INLINE T* ptr(uint32_t i) const { return reinterpret_cast<T*>(base + offset) + i; }
  UATTN_INLINE T ld(uint32_t i) const {
    lds_check(base, offset + i * (uint32_t)sizeof(T), (uint32_t)sizeof(T), false);
    return *ptr(i);
  }
  UATTN_INLINE void st(uint32_t i, T v) const {
    lds_check(base, offset + i * (uint32_t)sizeof(T), (uint32_t)sizeof(T), true);
    *ptr(i) = v;
  }
  // N consecutive elements starting at element i; the byte address must be a
  // multiple of N * sizeof(T) (one ds_read/ds_write of that width on hardware).
  template <int N>
  UATTN_INLINE vec<T, N> ld_vec(uint32_t i) const {
    lds_check(base, offset + i * (uint32_t)sizeof(T), (uint32_t)(N * sizeof(T)), false);
    vec<T, N> r;
    __builtin_memcpy(&r, __builtin_assume_aligned(ptr(i), N * sizeof(T)), sizeof(r));
    return r;
  }
  template <int N>
  UATTN_INLINE void st_vec(uint32_t i, const vec<T, N>& v) const {
    lds_check(base, offset + i * (uint32_t)sizeof(T), (uint32_t)(N * sizeof(T)), true);
    __builtin_memcpy(__builtin_assume_aligned(ptr(i), N * sizeof(T)), &v, sizeof(v));
  }
};

}  // namespace dl
