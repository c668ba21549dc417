// AMD device backend (wave64 with MFMA, wave32 without matrix cores).
// Only clang builtins are used (clang/include/clang/Basic/BuiltinsAMDGPU.def),
// so instances compile with -nogpuinc -nogpulib and no HIP header. What the
// target processor has comes from the generated architecture records
// (UATTN_DEVICE_WAVE_SIZE, UATTN_DEVICE_MATRIX_INSN_<kind>).
#pragma once
#include <stdint.h>

#include "uattn/generated/arch.hpp"

#define UATTN_GLOBAL extern "C" __attribute__((global))
#define UATTN_LAUNCH_BOUNDS(threads) __attribute__((amdgpu_flat_work_group_size(threads, threads)))
#define UATTN_LDS_DECL(name, bytes) __attribute__((shared)) __attribute__((aligned(16))) char name[(bytes) > 0 ? (bytes) : 4]

namespace dl {

UATTN_INLINE int wave_size() { return __builtin_amdgcn_wavefrontsize(); }
UATTN_INLINE int thread_id() { return (int)__builtin_amdgcn_workitem_id_x(); }
UATTN_INLINE int lane_id() { return thread_id() & (wave_size() - 1); }
UATTN_INLINE int wave_id() { return __builtin_amdgcn_readfirstlane(thread_id() / wave_size()); }
UATTN_INLINE int block_id_x() { return (int)__builtin_amdgcn_workgroup_id_x(); }
UATTN_INLINE int block_id_y() { return (int)__builtin_amdgcn_workgroup_id_y(); }
UATTN_INLINE int block_id_z() { return (int)__builtin_amdgcn_workgroup_id_z(); }

// Workgroup barrier with LDS release/acquire at workgroup scope (s_barrier).
UATTN_INLINE void barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
// Orders LDS accesses among the lanes of one wave.
UATTN_INLINE void wave_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "wavefront");
  __builtin_amdgcn_wave_barrier();
}

// ds_bpermute: lane i receives v from lane src (index within the wave).
UATTN_INLINE uint32_t shfl_bits(uint32_t v, int src) {
  return (uint32_t)__builtin_amdgcn_ds_bpermute(src << 2, (int)v);
}
UATTN_INLINE uint32_t readfirstlane(uint32_t v) { return (uint32_t)__builtin_amdgcn_readfirstlane((int)v); }
UATTN_INLINE uint64_t ballot(bool p) {
#if UATTN_DEVICE_WAVE_SIZE == 32
  return (uint64_t)__builtin_amdgcn_ballot_w32(p);
#else
  return __builtin_amdgcn_ballot_w64(p);
#endif
}

// v_exp_f32 (2^x); exp2(-inf) = 0.
UATTN_INLINE float exp2(float x) { return __builtin_amdgcn_exp2f(x); }
UATTN_INLINE float rcp(float x) { return 1.0f / x; }

// Hardware-only scheduling hints.
UATTN_INLINE void sched_barrier() { __builtin_amdgcn_sched_barrier(0); }
UATTN_INLINE void setprio(int) {}

#if defined(UATTN_DEVICE_MATRIX_INSN_mfma_32x32x16)
typedef _Float16 f16x8_t __attribute__((ext_vector_type(8)));
typedef __bf16 bf16x8_t __attribute__((ext_vector_type(8)));
typedef float f32x16_t __attribute__((ext_vector_type(16)));
// v_mfma_f32_32x32x16_{f16,bf16}: D(32x32) = A(32x16) * B(16x32) + C.
// Operand/result layout per lane: the lane-role comment of kernel/attention.hpp
// and the emulation in tests/hostexec/engine.cpp.
UATTN_INLINE void mfma_32x32x16(const vec<f16, 8>& a, const vec<f16, 8>& b, vec<float, 16>& c) {
  f16x8_t va, vb; f32x16_t vc;
  for (int i = 0; i < 8; ++i) { va[i] = a[i]; vb[i] = b[i]; }
  for (int i = 0; i < 16; ++i) vc[i] = c[i];
  vc = __builtin_amdgcn_mfma_f32_32x32x16_f16(va, vb, vc, 0, 0, 0);
  for (int i = 0; i < 16; ++i) c[i] = vc[i];
}
UATTN_INLINE void mfma_32x32x16(const vec<bf16, 8>& a, const vec<bf16, 8>& b, vec<float, 16>& c) {
  bf16x8_t va, vb; f32x16_t vc;
  for (int i = 0; i < 8; ++i) { va[i] = a[i]; vb[i] = b[i]; }
  for (int i = 0; i < 16; ++i) vc[i] = c[i];
  vc = __builtin_amdgcn_mfma_f32_32x32x16_bf16(va, vb, vc, 0, 0, 0);
  for (int i = 0; i < 16; ++i) c[i] = vc[i];
}
#else
// No matrix cores on this target: MFMA code paths must not be instantiated.
template <class T>
void mfma_32x32x16(const vec<T, 8>&, const vec<T, 8>&, vec<float, 16>&) = delete;
#endif

// LDS access hooks: plain loads/stores on hardware.
UATTN_INLINE void lds_check(const char*, uint32_t, uint32_t, bool) {}

}  // namespace dl
