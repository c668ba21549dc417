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
char* lds_base();
// Records an LDS access of `bytes` at `offset` for race and bounds checking.
void lds_access(uint32_t offset, uint32_t bytes, bool write);
float exp2(float x);
// Fails the launch: a vector global access of `bytes` at `p` is not aligned to `bytes`.
[[noreturn]] void misaligned(const void* p, uint32_t bytes, bool write);
}  // namespace host

inline int wave_size() { return host::wave_size(); }
inline int thread_id() { return host::thread_id(); }
inline int lane_id() { return thread_id() % wave_size(); }
inline int wave_id() { return thread_id() / wave_size(); }
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
inline void sched_barrier() {}
inline void setprio(int) {}

inline void mfma_32x32x16(const vec<f16, 8>& a, const vec<f16, 8>& b, vec<float, 16>& c) {
  host::mfma_32x32x16_f16(a.v, b.v, c.v);
}
inline void mfma_32x32x16(const vec<bf16, 8>& a, const vec<bf16, 8>& b, vec<float, 16>& c) {
  host::mfma_32x32x16_bf16(a.v, b.v, c.v);
}

// Vector global access of N elements at an address aligned to N * sizeof(T)
// bytes (hardware: one global_load/store_dword{,x2,x4}); misalignment fails
// the launch, so a kernel cannot assume more alignment than a problem has.
template <int N, class T>
inline vec<T, N> ldg(const T* p) {
  if ((uintptr_t)p % (N * sizeof(T))) host::misaligned(p, N * sizeof(T), false);
  vec<T, N> r;
  __builtin_memcpy(&r, p, sizeof(r));
  return r;
}
template <int N, class T>
inline void stg(T* p, const vec<T, N>& v) {
  if ((uintptr_t)p % (N * sizeof(T))) host::misaligned(p, N * sizeof(T), true);
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

inline void lds_check(const char* base, uint32_t offset, uint32_t bytes, bool write) {
  (void)base;
  host::lds_access(offset, bytes, write);
}

}  // namespace dl
