// AMD device backend (wave64 with MFMA, wave32 without matrix cores).
// Only clang builtins are used (clang/include/clang/Basic/BuiltinsAMDGPU.def),
// so instances compile with -nogpuinc -nogpulib and no HIP header. What the
// target processor has comes from the generated architecture records
// (UATTN_DEVICE_WAVE_SIZE, UATTN_DEVICE_MATRIX_INSN_<kind>).
#pragma once
#include <stdint.h>

#include "uattn/generated/arch.hpp"

#define UATTN_GLOBAL extern "C" __attribute__((global))
// Workgroup size and the minimum waves per SIMD the register allocator must
// allow (LLVM AMDGPUUsage: amdgpu_flat_work_group_size, amdgpu_waves_per_eu).
// On gfx950 a bound of >= 2 waves caps a wave at 256 VGPRs, which also makes
// the compiler keep MFMA accumulators in VGPRs (no AGPR copies).
#define UATTN_LAUNCH_BOUNDS(threads, waves_per_eu) \
  __attribute__((amdgpu_flat_work_group_size(threads, threads), amdgpu_waves_per_eu(waves_per_eu)))
#define UATTN_LDS_DECL(name, bytes) __attribute__((shared)) __attribute__((aligned(16))) char name[(bytes) > 0 ? (bytes) : 4]

namespace dl {

UATTN_INLINE int wave_size() { return __builtin_amdgcn_wavefrontsize(); }
UATTN_INLINE int thread_id() { return (int)__builtin_amdgcn_workitem_id_x(); }
UATTN_INLINE int lane_id() { return thread_id() & (wave_size() - 1); }
UATTN_INLINE int wave_id() { return __builtin_amdgcn_readfirstlane(thread_id() / wave_size()); }
// Work-items of the launch's workgroup (x): hidden_group_size_x of the code
// object v5 implicit arguments (AMDGPUUsage, "Code Object V5 Metadata").
UATTN_INLINE int block_threads() { return (int)__builtin_amdgcn_workgroup_size_x(); }
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
// x0 * b + c and x1 * b + c, each one fused rounding: one v_pk_fma_f32 where
// the target has packed fp32 math (gfx90a and later CDNA: AMD CDNA 3 ISA
// reference guide, VOP3P opcode V_PK_FMA_F32), two v_fma_f32 elsewhere.
UATTN_INLINE void fma2(float& x0, float& x1, float b, float c) {
  typedef float f32x2_t __attribute__((ext_vector_type(2)));
  const f32x2_t r = __builtin_elementwise_fma((f32x2_t){x0, x1}, (f32x2_t){b, b}, (f32x2_t){c, c});
  x0 = r[0];
  x1 = r[1];
}
UATTN_INLINE float rcp_approx(float x) { return __builtin_amdgcn_rcpf(x); }

// Hardware-only scheduling hints.
UATTN_INLINE void sched_barrier() { __builtin_amdgcn_sched_barrier(0); }
// Ends the wave at once (s_endpgm). Call it workgroup-uniformly, before any
// barrier, and `return` after it (the host backend returns there). A plain
// early `return` at kernel entry made LLVM lay the attention bodies' KV-tile
// loops out differently (uattn-inspect: 0.455 instead of 2.73 row-keys per
// cycle for uattn_gfx950_2d_f16_f16_d64_b16_plain_m32n32w1); a no-return exit
// leaves them as they were.
UATTN_INLINE void end_wave() { __builtin_amdgcn_endpgm(); }
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
typedef float f32x4_t __attribute__((ext_vector_type(4)));
// v_mfma_f32_16x16x32_{f16,bf16} (gfx950): D(16x16) = A(16x32) * B(32x16) + C.
UATTN_INLINE void mfma_16x16x32(const vec<f16, 8>& a, const vec<f16, 8>& b, vec<float, 4>& c) {
  f16x8_t va, vb; f32x4_t vc;
  for (int i = 0; i < 8; ++i) { va[i] = a[i]; vb[i] = b[i]; }
  for (int i = 0; i < 4; ++i) vc[i] = c[i];
  vc = __builtin_amdgcn_mfma_f32_16x16x32_f16(va, vb, vc, 0, 0, 0);
  for (int i = 0; i < 4; ++i) c[i] = vc[i];
}
UATTN_INLINE void mfma_16x16x32(const vec<bf16, 8>& a, const vec<bf16, 8>& b, vec<float, 4>& c) {
  bf16x8_t va, vb; f32x4_t vc;
  for (int i = 0; i < 8; ++i) { va[i] = a[i]; vb[i] = b[i]; }
  for (int i = 0; i < 4; ++i) vc[i] = c[i];
  vc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(va, vb, vc, 0, 0, 0);
  for (int i = 0; i < 4; ++i) c[i] = vc[i];
}
#else
// No matrix cores on this target: MFMA code paths must not be instantiated.
template <class T>
void mfma_32x32x16(const vec<T, 8>&, const vec<T, 8>&, vec<float, 16>&) = delete;
template <class T>
void mfma_16x16x32(const vec<T, 8>&, const vec<T, 8>&, vec<float, 4>&) = delete;
#endif

// Global memory vector access of N elements (N * sizeof(T) in {4, 8, 16} bytes)
// at an address aligned to that size: one global_load_dword{,x2,x4} /
// global_store_dword{,x2,x4}. The alignment is the caller's promise (see
// uattn::rows_aligned); the host backend checks it.
template <int N, class T>
UATTN_INLINE vec<T, N> ldg(const T* p) {
  vec<T, N> r;
  __builtin_memcpy(&r, __builtin_assume_aligned(p, N * sizeof(T)), sizeof(r));
  return r;
}
template <int N, class T>
UATTN_INLINE void stg(T* p, const vec<T, N>& v) {
  __builtin_memcpy(__builtin_assume_aligned(p, N * sizeof(T)), &v, sizeof(v));
}

// fp8 conversions by capability: targets with the scaled conversions (CDNA4,
// gfx950) decode OCP E4M3 in hardware; others (e.g. FNUZ-format CDNA3, no fp8
// at all on RDNA2) use the exact bit-level decode of types.hpp.
#if __has_builtin(__builtin_amdgcn_cvt_scalef32_pk_f16_fp8)
// v_cvt_pk_f32_fp8: the two OCP E4M3 codes in bytes [2 hi, 2 hi + 1] of `bits`
// to two floats (exact). AMD Instinct CDNA4 ISA reference guide, VOP1/VOP3
// opcode V_CVT_PK_F32_FP8 (gfx950 decodes OCP E4M3, OFP8 rev 1.0 s.5).
// `hi` must be a compile-time constant (the instruction's OPSEL bit).
UATTN_INLINE void cvt_pk_f32_fp8(uint32_t bits, bool hi, float& x0, float& x1) {
  typedef float f32x2_t __attribute__((ext_vector_type(2)));
  const f32x2_t r = hi ? __builtin_amdgcn_cvt_pk_f32_fp8((int)bits, true)
                       : __builtin_amdgcn_cvt_pk_f32_fp8((int)bits, false);
  x0 = r[0];
  x1 = r[1];
}
// v_cvt_scalef32_pk_{f16,bf16}_fp8 with scale 1.0: the two OCP E4M3 codes of
// the selected word straight to two f16 / bf16 values (exact: both types hold
// every E4M3 value). CDNA4 ISA reference guide, opcodes V_CVT_SCALEF32_PK_F16_FP8
// and V_CVT_SCALEF32_PK_BF16_FP8. `hi` must be a compile-time constant.
UATTN_INLINE void cvt_pk_fp8(uint32_t bits, bool hi, f16& x0, f16& x1) {
  typedef _Float16 f16x2_t __attribute__((ext_vector_type(2)));
  const f16x2_t r = hi ? __builtin_amdgcn_cvt_scalef32_pk_f16_fp8((int)bits, 1.0f, true)
                       : __builtin_amdgcn_cvt_scalef32_pk_f16_fp8((int)bits, 1.0f, false);
  x0 = r[0];
  x1 = r[1];
}
UATTN_INLINE void cvt_pk_fp8(uint32_t bits, bool hi, bf16& x0, bf16& x1) {
  typedef __bf16 bf16x2_t __attribute__((ext_vector_type(2)));
  const bf16x2_t r = hi ? __builtin_amdgcn_cvt_scalef32_pk_bf16_fp8((int)bits, 1.0f, true)
                        : __builtin_amdgcn_cvt_scalef32_pk_bf16_fp8((int)bits, 1.0f, false);
  x0 = r[0];
  x1 = r[1];
}
#else
UATTN_INLINE void cvt_pk_f32_fp8(uint32_t bits, bool hi, float& x0, float& x1) {
  const uint32_t w = hi ? bits >> 16 : bits;
  x0 = fp8e4m3_to_f32((uint8_t)w);
  x1 = fp8e4m3_to_f32((uint8_t)(w >> 8));
}
template <class T>
UATTN_INLINE void cvt_pk_fp8(uint32_t bits, bool hi, T& x0, T& x1) {
  float a, b;
  cvt_pk_f32_fp8(bits, hi, a, b);
  x0 = (T)a;
  x1 = (T)b;
}
#endif

// ---- wave32 packed-math body (gfx1030). Semantics: AMD "RDNA 2" Instruction Set
// Architecture reference guide (2020), chapter 6 (vector ALU: packed math, DPP)
// and chapter 12 (the descriptions of V_DOT2_F32_F16, V_PK_MUL_F16,
// V_PK_FMA_F16, V_CVT_PKRTZ_F16_F32, V_MED3_F32, V_PERM_B32, V_PERMLANEX16_B32,
// V_READLANE_B32). ----

// N consecutive dwords from global memory (N = 1, 2, 4: global_load_dword{,x2,x4});
// `p` needs 4-byte alignment only.
template <int N>
UATTN_INLINE vec<uint32_t, N> ld_dwords(const void* p) {
  typedef uint32_t vN __attribute__((ext_vector_type(N)));
  typedef vN vNa __attribute__((aligned(4)));
  const vNa x = *static_cast<const vNa*>(p);
  vec<uint32_t, N> r;
  for (int i = 0; i < N; ++i) r[i] = x[i];
  return r;
}
// The same at (wave-uniform 64-bit address `base`) + (per-lane 32-bit byte offset
// `off`): global_load with an SGPR base and a VGPR offset, no 64-bit address add.
template <int N>
UATTN_INLINE vec<uint32_t, N> ld_dwords(uint64_t base, uint32_t off) {
  typedef uint32_t vN __attribute__((ext_vector_type(N)));
  typedef vN vNa __attribute__((aligned(4)));
  typedef __attribute__((address_space(1))) const char* gchar_p;
  typedef __attribute__((address_space(1))) const vNa* gvec_p;
  const vNa x = *(gvec_p)((gchar_p)base + off);
  vec<uint32_t, N> r;
  for (int i = 0; i < N; ++i) r[i] = x[i];
  return r;
}
template <int N>
UATTN_INLINE void st_dwords(void* p, const vec<uint32_t, N>& v) {
  typedef uint32_t vN __attribute__((ext_vector_type(N)));
  typedef vN vNa __attribute__((aligned(4)));
  vN x;
  for (int i = 0; i < N; ++i) x[i] = v[i];
  *static_cast<vNa*>(p) = x;
}

// lane i receives v from lane i ^ M (M = 1, 2, 4, 8, 16) of its wave32:
// DPP quad_perm (1, 2), DPP row_xmask (4, 8; RDNA DPP16), v_permlanex16_b32 (16).
template <int M>
UATTN_INLINE uint32_t xor_lanes(uint32_t v) {
  static_assert(M == 1 || M == 2 || M == 4 || M == 8 || M == 16, "xor_lanes: mask");
  // bound_ctrl: every source lane exists, so no "old" value is needed.
  if constexpr (M == 1) return (uint32_t)__builtin_amdgcn_mov_dpp((int)v, 0xB1, 0xF, 0xF, true);
  else if constexpr (M == 2) return (uint32_t)__builtin_amdgcn_mov_dpp((int)v, 0x4E, 0xF, 0xF, true);
  else if constexpr (M == 4 || M == 8) return (uint32_t)__builtin_amdgcn_mov_dpp((int)v, 0x160 | M, 0xF, 0xF, true);
  else return (uint32_t)__builtin_amdgcn_permlanex16((int)v, (int)v, 0x76543210, (int)0xfedcba98u, false, false);
}
// v combined over the wave's lanes with `op` (commutative but for NaN / signed
// zeros, where lanes may then differ, as with fmaxf_ (a > b ? a : b); a reduction tree
// whose stage M combines lanes i and i ^ M, M = 1, 2, ..., wave / 2), every
// lane receiving the result. No LDS: wave32 (gfx1030) xor_lanes; wave64
// (gfx950) DPP quad_perm (M = 1, 2), row_half_mirror (4: lane 7 - i of its 8)
// and row_mirror (8: lane 15 - i of its 16), which after the stages before
// them hold lane i ^ M's value, then v_permlane16_swap_b32 (16) and
// v_permlane32_swap_b32 (32) on two copies of v, whose results hold, in each
// lane, the values of lanes i and i ^ M (AMD CDNA 3 ISA reference guide,
// "Data-parallel processing (DPP)"; AMD CDNA 4 ISA reference guide,
// V_PERMLANE16_SWAP_B32 / V_PERMLANE32_SWAP_B32).
// v combined over the 16 lanes of its DPP row (lanes 16 r .. 16 r + 15) with
// `op`: stages M = 1, 2, 4, 8 of wave_all below, every lane of the row
// receiving its row's result.
template <class Op>
UATTN_INLINE float row16_all(float v, Op op) {
  const auto f = [](uint32_t x) { return bits_as_float(x); };
#if UATTN_DEVICE_WAVE_SIZE == 32
  v = op(v, f(xor_lanes<1>(float_as_bits(v))));
  v = op(v, f(xor_lanes<2>(float_as_bits(v))));
  v = op(v, f(xor_lanes<4>(float_as_bits(v))));
  v = op(v, f(xor_lanes<8>(float_as_bits(v))));
#else
  v = op(v, f((uint32_t)__builtin_amdgcn_mov_dpp((int)float_as_bits(v), 0xB1, 0xF, 0xF, true)));
  v = op(v, f((uint32_t)__builtin_amdgcn_mov_dpp((int)float_as_bits(v), 0x4E, 0xF, 0xF, true)));
  v = op(v, f((uint32_t)__builtin_amdgcn_mov_dpp((int)float_as_bits(v), 0x141, 0xF, 0xF, true)));
  v = op(v, f((uint32_t)__builtin_amdgcn_mov_dpp((int)float_as_bits(v), 0x140, 0xF, 0xF, true)));
#endif
  return v;
}
template <class Op>
UATTN_INLINE float wave_all(float v, Op op) {
  const auto f = [](uint32_t x) { return bits_as_float(x); };
  v = row16_all(v, op);
#if UATTN_DEVICE_WAVE_SIZE == 32
  v = op(v, f(xor_lanes<16>(float_as_bits(v))));
#else
  const auto r16 = __builtin_amdgcn_permlane16_swap(float_as_bits(v), float_as_bits(v), false, false);
  v = op(f(r16[0]), f(r16[1]));
  const auto r32 = __builtin_amdgcn_permlane32_swap(float_as_bits(v), float_as_bits(v), false, false);
  v = op(f(r32[0]), f(r32[1]));
#endif
  return v;
}
// Compiler-only ordering of memory operations (an empty asm with a memory clobber:
// no instruction): keeps the scheduler from hoisting later loads above it, which
// bounds the registers held by loads in flight.
UATTN_INLINE void mem_order() { __asm__ volatile("" ::: "memory"); }
// Agent-scope (device-wide) ordering and atomics on global memory, for
// workgroups that hand results to each other within one launch (the fused
// reduce, kernel/fused_reduce.hpp). Release: this wave's earlier stores are
// visible device-wide before its later ones (gfx950: buffer_wbl2 + waits;
// LLVM AMDGPUUsage, "Memory Model GFX942"); acquire: its later loads see what
// other waves released (buffer_inv). atomic_add_agent returns the old value.
UATTN_INLINE void fence_release_agent() { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent"); }
UATTN_INLINE void fence_acquire_agent() { __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent"); }
UATTN_INLINE uint32_t atomic_add_agent(uint32_t* p, uint32_t v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
UATTN_INLINE void atomic_store_agent(uint32_t* p, uint32_t v) {
  __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
// The value must exist here (an empty asm that reads and writes it in a VGPR):
// its producers cannot sink below this point, nor its users rise above it.
// A fresh copy of the kernel's single argument `a`, read from the kernel
// argument segment where this is called (scalar loads, address space 4): the
// compiler cannot tell these loads from `a`'s, so it neither holds the
// earlier values in SGPRs across the code between nor hoists these to entry.
// The kernels take one argument, at offset 0 of the segment (instance.hpp).
template <class T>
UATTN_INLINE T reload_arg(const T&) {
  return *(const __attribute__((address_space(4))) T*)__builtin_amdgcn_kernarg_segment_ptr();
}
// Raw buffer reads (MUBUF, no index, stride 0) of `bytes` bytes at `base`:
// ld_buf<4>(b, off) is one buffer_load_dwordx4 of the 4 dwords at byte offset
// `off` (a VGPR, no instruction offset; ld_buf<1>: buffer_load_dword). Each dword at or past `bytes` reads 0
// and touches no memory: AMD Instinct CDNA4 ISA reference guide, "Buffer
// Resource" (V#: base, NUM_RECORDS) and "Range Checking" (raw buffers check
// each dword of a multi-dword access); word 3 = 0x00020000 (DATA_FORMAT 32,
// the value CK uses on every gfx9 target). A dword whose offset passes 2^32
// may wrap around to the buffer's start: callers must not use such dwords.
// gfx9 (MFMA body) only: RDNA's word 3 differs.
struct BufRes {
  __amdgpu_buffer_rsrc_t r;
};
UATTN_INLINE BufRes buf_res(const void* base, uint32_t bytes) {
  return {__builtin_amdgcn_make_buffer_rsrc(const_cast<void*>(base), (short)0, (int)bytes, 0x00020000)};
}
template <int N>
UATTN_INLINE vec<uint32_t, N> ld_buf(BufRes b, uint32_t off) {
  static_assert(N == 1 || N == 4, "ld_buf: 1 or 4 dwords");
  __asm__("" : "+v"(off));  // keeps `off` whole (no constant part folded into the instruction offset); not volatile: a volatile asm counts as a memory clobber and turned later uniform loads (block_table) into vector loads
  vec<uint32_t, N> r;
  if constexpr (N == 1) {
    r[0] = __builtin_amdgcn_raw_buffer_load_b32(b.r, (int)off, 0, 0);
  } else {
    typedef uint32_t v4 __attribute__((ext_vector_type(4)));
    const v4 x = __builtin_bit_cast(v4, __builtin_amdgcn_raw_buffer_load_b128(b.r, (int)off, 0, 0));
    for (int i = 0; i < N; ++i) r[i] = x[i];
  }
  return r;
}
UATTN_INLINE void pin(float& v) { __asm__ volatile("" : "+v"(v)); }
UATTN_INLINE void pin(int32_t& v) { __asm__ volatile("" : "+v"(v)); }
UATTN_INLINE void pin(int64_t& v) { __asm__ volatile("" : "+v"(v)); }
// max(a, b) for a, b <= 3e38 and not NaN: v_med3_f32(a, b, 3e38), one VALU op
// (fmaxf costs two in IEEE mode, which quiets its operands first).
UATTN_INLINE float max_nonan(float a, float b) { return __builtin_amdgcn_fmed3f(a, b, 3.0e38f); }
// v_perm_b32: byte i of the result is byte sel[i] of the 8-byte value (hi:lo)
// for selectors 0-7 (0x0C gives 0x00; other selectors are not used here).
UATTN_INLINE uint32_t perm(uint32_t hi, uint32_t lo, uint32_t sel) { return __builtin_amdgcn_perm(hi, lo, sel); }
// Unsigned 32-bit division by a divisor used several times (d >= 1): its
// reciprocal estimate once (udiv_rcp), then each quotient by a multiply-high and
// two corrections (udiv). The expansion LLVM's AMDGPU back end emits for one
// 32-bit unsigned division (AMDGPUCodeGenPrepare, expandDivRem32): z ~ 2^32 / d
// from v_rcp_f32 scaled by 4294966784.0f (2^32 - 512), one Newton-Raphson step
// z += mulhi(z, -d z); q = mulhi(n, z) is then short of n / d by at most 2.
UATTN_INLINE uint32_t mulhi_u32(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
UATTN_INLINE uint32_t udiv_rcp(uint32_t d) {
  const float f = __builtin_amdgcn_rcpf((float)d);
  uint32_t z = (uint32_t)(f * 4294966784.0f);
  z += mulhi_u32(z, (0u - d) * z);
  return z;
}
UATTN_INLINE uint32_t udiv(uint32_t n, uint32_t d, uint32_t z) {
  uint32_t q = mulhi_u32(n, z);
  uint32_t r = n - q * d;
  if (r >= d) { ++q; r -= d; }
  if (r >= d) ++q;
  return q;
}
// udiv for wave-uniform operands (SGPRs): the corrections as s_cselect. (Left
// to the compiler, q + (r >= d) becomes a v_cndmask and a v_readfirstlane per
// correction; the opaque q + 1 keeps the selects.)
UATTN_INLINE uint32_t udiv_uniform(uint32_t n, uint32_t d, uint32_t z) {
  uint32_t q = mulhi_u32(n, z);
  uint32_t r = n - q * d;
  uint32_t q1 = q + 1u, r1 = r - d;
  __asm__("" : "+s"(q1), "+s"(r1));
  q = r >= d ? q1 : q;
  r = r >= d ? r1 : r;
  q1 = q + 1u;
  __asm__("" : "+s"(q1));
  return r >= d ? q1 : q;
}
// v_readlane_b32: every lane receives v of lane `src` (a wave-uniform index).
UATTN_INLINE uint32_t readlane(uint32_t v, int src) { return (uint32_t)__builtin_amdgcn_readlane((int)v, src); }

typedef _Float16 h2_t __attribute__((ext_vector_type(2)));
// v_dot2_f32_f16 (gfx1030 and gfx950): c + a.lo * b.lo + a.hi * b.hi (a, b: two
// packed f16).
UATTN_INLINE float fdot2(uint32_t a, uint32_t b, float c) {
  return __builtin_amdgcn_fdot2(__builtin_bit_cast(h2_t, a), __builtin_bit_cast(h2_t, b), c, false);
}
// c + a'.lo * b.lo + a'.hi * b.hi where a' is `a` of lane N of this lane's row of
// 16 lanes (lanes 0-15 read lane N, lanes 16-31 lane 16 + N): v_dot2c_f32_f16
// (VOP2, the accumulator is the destination) with the DPP16 control ROW_SHARE
// (AMD "RDNA 2" ISA reference guide, DPP16: DPP_CTRL 0x150 + N; assembler syntax:
// LLVM AMDGPUAsmGFX1030, DPP16), so the broadcast costs no instruction. Every lane of the row must be active (the bodies call it with
// the whole wave active). gfx10 has no VALU-write -> DPP-read hazard, so no wait
// states are needed before it. Written as inline assembly: clang does not fold
// a DPP move into v_dot2c_f32_f16.
template <int N>
UATTN_INLINE float fdot2_row_share(uint32_t a, uint32_t b, float c) {
  static_assert(N >= 0 && N < 16, "fdot2_row_share: lane of a row of 16");
  __asm__("v_dot2c_f32_f16_dpp %0, %1, %2 row_share:%3 row_mask:0xf bank_mask:0xf" : "+v"(c) : "v"(a), "v"(b), "n"(N));
  return c;
}
// v_pk_mul_f16 / v_pk_fma_f16 on two packed f16 (round to nearest even).
UATTN_INLINE uint32_t pk_mul_f16(uint32_t a, uint32_t b) {
  return __builtin_bit_cast(uint32_t, __builtin_bit_cast(h2_t, a) * __builtin_bit_cast(h2_t, b));
}
UATTN_INLINE uint32_t pk_fma_f16(uint32_t a, uint32_t b, uint32_t c) {
  return __builtin_bit_cast(uint32_t, __builtin_elementwise_fma(__builtin_bit_cast(h2_t, a),
                                                                __builtin_bit_cast(h2_t, b),
                                                                __builtin_bit_cast(h2_t, c)));
}
// v_cvt_pkrtz_f16_f32: (f16(lo), f16(hi)) packed, rounding toward zero.
UATTN_INLINE uint32_t cvt_pkrtz(float lo, float hi) {
  return __builtin_bit_cast(uint32_t, __builtin_amdgcn_cvt_pkrtz(lo, hi));
}

// LDS access hooks: plain loads/stores on hardware.
UATTN_INLINE void lds_check(const char*, uint32_t, uint32_t, bool) {}

}  // namespace dl
