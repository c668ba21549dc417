// Host (CPU) backend: the kernel source runs per lane as a fiber under the
// host execution engine (tests/hostexec/engine.cpp implements every function
// declared here). Wave operations, barriers and MFMA are collective: a lane
// parks until every live lane of its wave (or workgroup) reaches the same
// operation; a mismatch fails the launch ("partial wave").
#pragma once
#include <stdint.h>

#define UATTN_GLOBAL extern "C"
#define UATTN_LAUNCH_BOUNDS(threads, waves_per_eu)
#define UATTN_LDS_DECL(name, bytes) char* name = ::dl::host::lds_base()

namespace dl {
namespace host {
int wave_size();
int thread_id();
int block_threads();
int block_id(int axis);
void barrier();
void wave_barrier();
uint32_t shfl_bits(uint32_t v, int src);
uint32_t readfirstlane(uint32_t v);
uint64_t ballot(bool p);
// Emulated v_mfma_f32_32x32x16_{f16,bf16} (wave64 only). a, b: 8 values of this
// lane's operand fragment; c: this lane's 16 accumulators, updated in place.
void mfma_32x32x16_f16(const _Float16* a, const _Float16* b, float* c);
void mfma_32x32x16_bf16(const __bf16* a, const __bf16* b, float* c);
// Emulated v_mfma_f32_16x16x32_{f16,bf16} (wave64 only): c is this lane's 4 accumulators.
void mfma_16x16x32_f16(const _Float16* a, const _Float16* b, float* c);
void mfma_16x16x32_bf16(const __bf16* a, const __bf16* b, float* c);
char* lds_base();
// Records an LDS access of `bytes` at `offset` for race and bounds checking.
void lds_access(uint32_t offset, uint32_t bytes, bool write);
float exp2(float x);
// Fails the launch: a vector global access of `bytes` at `p` is not aligned to `align`.
[[noreturn]] void misaligned(const void* p, uint32_t bytes, uint32_t align, bool write);
}  // namespace host

// Unsigned 32-bit division by a divisor used several times (backend_amd.hpp
// computes a reciprocal estimate once; here the division itself).
inline uint32_t udiv_rcp(uint32_t) { return 0u; }
inline uint32_t udiv(uint32_t n, uint32_t d, uint32_t) { return n / d; }
inline uint32_t udiv_uniform(uint32_t n, uint32_t d, uint32_t) { return n / d; }

inline int wave_size() { return host::wave_size(); }
inline int thread_id() { return host::thread_id(); }
inline int lane_id() { return thread_id() % wave_size(); }
inline int wave_id() { return thread_id() / wave_size(); }
inline int block_threads() { return host::block_threads(); }
inline int block_id_x() { return host::block_id(0); }
inline int block_id_y() { return host::block_id(1); }
inline int block_id_z() { return host::block_id(2); }
inline void barrier() { host::barrier(); }
inline void wave_barrier() { host::wave_barrier(); }
inline uint32_t shfl_bits(uint32_t v, int src) { return host::shfl_bits(v, src); }
inline uint32_t readfirstlane(uint32_t v) { return host::readfirstlane(v); }
inline uint64_t ballot(bool p) { return host::ballot(p); }
inline float exp2(float x) { return host::exp2(x); }
inline float rcp(float x) { return 1.0f / x; }
inline void fma2(float& x0, float& x1, float b, float c) {  // backend_amd.hpp: one v_pk_fma_f32
  x0 = __builtin_fmaf(x0, b, c);
  x1 = __builtin_fmaf(x1, b, c);
}
inline float rcp_approx(float x) { return 1.0f / x; }
inline void sched_barrier() {}
inline void end_wave() {}  // the caller returns right after (backend_amd.hpp: s_endpgm)
inline void setprio(int) {}

inline void mfma_32x32x16(const vec<f16, 8>& a, const vec<f16, 8>& b, vec<float, 16>& c) {
  host::mfma_32x32x16_f16(a.v, b.v, c.v);
}
inline void mfma_32x32x16(const vec<bf16, 8>& a, const vec<bf16, 8>& b, vec<float, 16>& c) {
  host::mfma_32x32x16_bf16(a.v, b.v, c.v);
}
inline void mfma_16x16x32(const vec<f16, 8>& a, const vec<f16, 8>& b, vec<float, 4>& c) {
  host::mfma_16x16x32_f16(a.v, b.v, c.v);
}
inline void mfma_16x16x32(const vec<bf16, 8>& a, const vec<bf16, 8>& b, vec<float, 4>& c) {
  host::mfma_16x16x32_bf16(a.v, b.v, c.v);
}

// Vector global access of N elements at an address aligned to N * sizeof(T)
// bytes (hardware: one global_load/store_dword{,x2,x4}); misalignment fails
// the launch, so a kernel cannot assume more alignment than a problem has.
template <int N, class T>
inline vec<T, N> ldg(const T* p) {
  if ((uintptr_t)p % (N * sizeof(T))) host::misaligned(p, N * sizeof(T), N * sizeof(T), false);
  vec<T, N> r;
  __builtin_memcpy(&r, p, sizeof(r));
  return r;
}
template <int N, class T>
inline void stg(T* p, const vec<T, N>& v) {
  if ((uintptr_t)p % (N * sizeof(T))) host::misaligned(p, N * sizeof(T), N * sizeof(T), true);
  __builtin_memcpy(p, &v, sizeof(v));
}

// Emulated v_cvt_pk_f32_fp8 (gfx950): the two OCP E4M3 codes of the selected
// 16-bit word (hi = bits [31:16], else [15:0]; lower byte first) to two floats,
// exactly. AMD Instinct CDNA4 ISA reference guide, opcode V_CVT_PK_F32_FP8
// (SRC0 word select by OPSEL; gfx950 uses OCP E4M3, OFP8 rev 1.0 s.5).
inline void cvt_pk_f32_fp8(uint32_t bits, bool hi, float& x0, float& x1) {
  const uint32_t w = hi ? bits >> 16 : bits;
  x0 = fp8e4m3_to_f32((uint8_t)(w & 0xFFu));
  x1 = fp8e4m3_to_f32((uint8_t)((w >> 8) & 0xFFu));
}

// Emulated v_cvt_scalef32_pk_{f16,bf16}_fp8 with scale 1.0 (gfx950): the two
// OCP E4M3 codes of the selected word to two f16 / bf16 values; exact, since
// both types hold every E4M3 value (the scale 1.0 leaves them unchanged).
// CDNA4 ISA reference guide, V_CVT_SCALEF32_PK_F16_FP8 / _BF16_FP8.
template <class T>
inline void cvt_pk_fp8(uint32_t bits, bool hi, T& x0, T& x1) {
  float a, b;
  cvt_pk_f32_fp8(bits, hi, a, b);
  x0 = (T)a;
  x1 = (T)b;
}

// ---- wave32 packed-math body: host emulation of backend_amd.hpp's set, from the
// same definitions (AMD "RDNA 2" ISA reference guide, chapters 6 and 12);
// tests/hostexec/test_dot2.cpp checks them. ----
// Global loads / stores of N dwords (global_load/store_dword{,x2,x3,x4}): the
// address must be 4-byte aligned (the kernels do not rely on the hardware's
// unaligned access mode); misalignment fails the launch like ldg / stg.
template <int N>
inline vec<uint32_t, N> ld_dwords(const void* p) {
  if ((uintptr_t)p % 4u) host::misaligned(p, 4u * N, 4u, false);
  vec<uint32_t, N> r;
  __builtin_memcpy(r.v, p, sizeof(r.v));
  return r;
}
template <int N>
inline vec<uint32_t, N> ld_dwords(uint64_t base, uint32_t off) {
  return ld_dwords<N>(reinterpret_cast<const char*>(base) + off);
}
template <int N>
inline void st_dwords(void* p, const vec<uint32_t, N>& v) {
  if ((uintptr_t)p % 4u) host::misaligned(p, 4u * N, 4u, true);
  __builtin_memcpy(p, v.v, sizeof(v.v));
}
template <int M>
inline uint32_t xor_lanes(uint32_t v) {
  static_assert(M == 1 || M == 2 || M == 4 || M == 8 || M == 16, "xor_lanes: mask");
  return host::shfl_bits(v, lane_id() ^ M);
}
inline uint32_t readlane(uint32_t v, int src) { return host::shfl_bits(v, src); }
// v combined over the wave's lanes with `op`, stage M combining lanes i and
// i ^ M (M = 1, 2, ..., wave / 2); every lane receives the result.
// backend_amd.hpp's row16_all: v combined over its 16-lane row, stages 1..8.
template <class Op>
inline float row16_all(float v, Op op) {
  for (int m = 1; m < 16; m *= 2) v = op(v, bits_as_float(host::shfl_bits(float_as_bits(v), lane_id() ^ m)));
  return v;
}
template <class Op>
inline float wave_all(float v, Op op) {
  for (int m = 1; m < wave_size(); m *= 2) v = op(v, bits_as_float(host::shfl_bits(float_as_bits(v), lane_id() ^ m)));
  return v;
}
inline float max_nonan(float a, float b) { return a > b ? a : b; }
template <class T>
inline T reload_arg(const T& a) { return a; }
// backend_amd.hpp's raw buffer reads: each dword at or past `bytes` reads 0
// without touching memory (the range check per dword).
struct BufRes {
  const char* base;
  uint32_t bytes;
};
inline BufRes buf_res(const void* base, uint32_t bytes) { return {static_cast<const char*>(base), bytes}; }
template <int N>
inline vec<uint32_t, N> ld_buf(BufRes b, uint32_t off) {
  vec<uint32_t, N> r;
  for (int i = 0; i < N; ++i) {
    const uint64_t o = (uint64_t)off + 4u * (uint64_t)i;
    r[i] = 0;
    if (o + 4u <= b.bytes) __builtin_memcpy(&r[i], b.base + o, 4);
  }
  return r;
}
inline void pin(float&) {}
inline void pin(int32_t&) {}
inline void pin(int64_t&) {}
inline uint32_t perm(uint32_t hi, uint32_t lo, uint32_t sel) {
  const uint64_t x = ((uint64_t)hi << 32) | lo;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t s = (sel >> (8 * i)) & 0xFFu;
    const uint32_t b = s < 8 ? (uint32_t)(x >> (8 * s)) & 0xFFu : s == 0x0C ? 0x00u : 0xFFu;
    r |= b << (8 * i);
  }
  return r;
}
inline void mem_order() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }  // lanes run one at a time: nothing to order
// backend_amd.hpp's agent-scope fences and atomics: host atomics, sequentially
// consistent (workgroups may run on several host threads).
inline void fence_release_agent() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void fence_acquire_agent() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline uint32_t atomic_add_agent(uint32_t* p, uint32_t v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline void atomic_store_agent(uint32_t* p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }

inline float h16_to_f32(uint16_t h) { return (float)__builtin_bit_cast(_Float16, h); }
inline uint16_t f32_to_h16_rne(float f) { return __builtin_bit_cast(uint16_t, (_Float16)f); }
// v_dot2_f32_f16: the f16 products are exact in f32; the ISA names no intermediate
// rounding, so the three-term sum is rounded once (computed in double).
inline float fdot2(uint32_t a, uint32_t b, float c) {
  const double s = (double)h16_to_f32((uint16_t)a) * (double)h16_to_f32((uint16_t)b) +
                   (double)h16_to_f32((uint16_t)(a >> 16)) * (double)h16_to_f32((uint16_t)(b >> 16)) + (double)c;
  return (float)s;
}
// v_dot2c_f32_f16 with DPP ROW_SHARE N: `a` from lane N of this lane's row of 16.
template <int N>
inline float fdot2_row_share(uint32_t a, uint32_t b, float c) {
  static_assert(N >= 0 && N < 16, "fdot2_row_share: lane of a row of 16");
  return fdot2(host::shfl_bits(a, (lane_id() & ~15) | N), b, c);
}
// v_pk_mul_f16 / v_pk_fma_f16: per half, one rounding to f16 (nearest even); the f16
// product is exact in float, so float arithmetic then one conversion matches.
inline uint32_t pk_mul_f16(uint32_t a, uint32_t b) {
  const uint16_t lo = f32_to_h16_rne(h16_to_f32((uint16_t)a) * h16_to_f32((uint16_t)b));
  const uint16_t hi = f32_to_h16_rne(h16_to_f32((uint16_t)(a >> 16)) * h16_to_f32((uint16_t)(b >> 16)));
  return (uint32_t)lo | ((uint32_t)hi << 16);
}
inline uint32_t pk_fma_f16(uint32_t a, uint32_t b, uint32_t c) {
  auto one = [](uint16_t x, uint16_t y, uint16_t z) {
    return f32_to_h16_rne((float)((double)h16_to_f32(x) * (double)h16_to_f32(y) + (double)h16_to_f32(z)));
  };
  return (uint32_t)one((uint16_t)a, (uint16_t)b, (uint16_t)c) |
         ((uint32_t)one((uint16_t)(a >> 16), (uint16_t)(b >> 16), (uint16_t)(c >> 16)) << 16);
}
// v_cvt_pkrtz_f16_f32: round toward zero; finite values beyond the f16 range give
// +-65504, infinities and NaN are kept.
inline uint16_t f32_to_h16_rtz(float f) {
  uint16_t h = f32_to_h16_rne(f);
  const float back = h16_to_f32(h);
  if (f != f || back == f) return h;
  if (__builtin_isinf(back) && !__builtin_isinf(f)) return (uint16_t)((h & 0x8000u) | 0x7BFFu);
  if ((back < 0 ? -back : back) > (f < 0 ? -f : f)) h = (uint16_t)(h - 1);  // one ulp toward zero
  return h;
}
inline uint32_t cvt_pkrtz(float lo, float hi) {
  return (uint32_t)f32_to_h16_rtz(lo) | ((uint32_t)f32_to_h16_rtz(hi) << 16);
}

inline void lds_check(const char* base, uint32_t offset, uint32_t bytes, bool write) {
  (void)base;
  host::lds_access(offset, bytes, write);
}

}  // namespace dl
