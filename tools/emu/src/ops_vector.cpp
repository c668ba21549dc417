// uattn-emu: 32/64-bit VALU opcodes (VOP1, VOP2, VOP3, VOPC incl. v_cmpx).
//
// Sources (public): AMD "AMD Instinct MI355X (CDNA4) Instruction Set
// Architecture" (gfx950), chapter "Vector ALU Operations" and the opcode
// descriptions of VOP1 / VOP2 / VOP3 / VOPC; AMD "RDNA 2 Instruction Set
// Architecture" (gfx1030), same chapters. Section names are cited beside each
// opcode family. Where a pseudocode line of a guide is ambiguous the choice is
// explained in place.
//
// Operands are read in the order llvm-objdump prints them: destination(s)
// first (a VOPC / carry lane mask destination is an operand of its own).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "machine.hpp"

namespace uattn::emu {
namespace {

// ------------------------------------------------------------ modifier checks
// Each handler states what it accepts; anything else it sees set is refused
// (never ignored).
enum : unsigned {
  kFSrc = 1,    // float sources: neg / abs are honoured by c.f32 / c.f64
  kFOut = 2,    // float result: clamp / omod are honoured by c.wf32 / c.wf64
  kIClamp = 4,  // integer clamp (unsigned saturation) implemented by the handler
};

void check(Ctx& c, const Inst& in, unsigned what, int first_src) {
  if (in.op_sel) c.unsupported(in, "op_sel on a 32/64-bit VALU opcode");
  if (!(what & kFOut)) {
    if (in.omod) c.unsupported(in, "output modifier on an opcode without a float result");
    if (in.clamp && !(what & kIClamp)) c.unsupported(in, "clamp on this opcode");
  }
  if (!(what & kFSrc)) {
    for (int i = first_src; i < in.nops; ++i)
      if (in.ops[i].neg || in.ops[i].abs) c.unsupported(in, "neg/abs on an integer source");
  }
}

inline int32_t sx24(uint32_t v) { return int32_t(v << 8) >> 8; }
inline bool is_snan32(float f) { return std::isnan(f) && !(as_u32(f) & 0x00400000u); }
inline float quiet32(float f) { return as_f32(as_u32(f) | 0x00400000u); }
inline bool is_snan64(double d) { return std::isnan(d) && !(as_u64(d) & 0x0008000000000000ull); }
inline double quiet64(double d) { return as_f64(as_u64(d) | 0x0008000000000000ull); }
inline int exp32(float f) { return int((as_u32(f) >> 23) & 0xff); }    // biased exponent field
inline int exp64(double d) { return int((as_u64(d) >> 52) & 0x7ff); }
inline bool denorm32(float f) { return std::fpclassify(f) == FP_SUBNORMAL; }
inline bool denorm64(double d) { return std::fpclassify(d) == FP_SUBNORMAL; }

// A 32-bit bit-pattern source with neg / abs applied to the sign bit
// (v_cndmask_b32 e64 and v_mov accept them as float modifiers).
uint32_t bits32(Ctx& c, const Inst& in, int i, int l) {
  uint32_t v = c.u32(in, i, l);
  if (in.ops[i].abs) v &= 0x7fffffffu;
  if (in.ops[i].neg) v ^= 0x80000000u;
  return v;
}

// ------------------------------------------------------------ f32 min / max
// CDNA4 / RDNA2 "V_MAX_F32", "V_MIN_F32": an IEEE-mode signalling NaN input
// gives that NaN quieted; otherwise a NaN input gives the other operand;
// -0 < +0.
float fmax_hw(bool ieee, float a, float b) {
  if (ieee && is_snan32(a)) return quiet32(a);
  if (ieee && is_snan32(b)) return quiet32(b);
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a >= b ? a : b;
}
float fmin_hw(bool ieee, float a, float b) {
  if (ieee && is_snan32(a)) return quiet32(a);
  if (ieee && is_snan32(b)) return quiet32(b);
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
double dmax_hw(bool ieee, double a, double b) {
  if (ieee && is_snan64(a)) return quiet64(a);
  if (ieee && is_snan64(b)) return quiet64(b);
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a >= b ? a : b;
}
double dmin_hw(bool ieee, double a, double b) {
  if (ieee && is_snan64(a)) return quiet64(a);
  if (ieee && is_snan64(b)) return quiet64(b);
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// ------------------------------------------------------------ generic shapes
// Float unary / binary / ternary over f32 or f64, result through wf32 / wf64.
template <class F>
void f32_1(Ctx& c, const Inst& in, F f) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) { const float a = c.f32(in, 1, l); c.wf32(in, 0, l, f(a)); });
}
template <class F>
void f32_2(Ctx& c, const Inst& in, F f) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) {
    const float a = c.f32(in, 1, l), b = c.f32(in, 2, l);
    c.wf32(in, 0, l, f(a, b));
  });
}
template <class F>
void f32_3(Ctx& c, const Inst& in, F f) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) {
    const float a = c.f32(in, 1, l), b = c.f32(in, 2, l), d = c.f32(in, 3, l);
    c.wf32(in, 0, l, f(a, b, d));
  });
}
template <class F>
void f64_1(Ctx& c, const Inst& in, F f) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) { const double a = c.f64(in, 1, l); c.wf64(in, 0, l, f(a)); });
}
template <class F>
void f64_2(Ctx& c, const Inst& in, F f) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) {
    const double a = c.f64(in, 1, l), b = c.f64(in, 2, l);
    c.wf64(in, 0, l, f(a, b));
  });
}
// Integer unary / binary / ternary over u32 (no modifiers).
template <class F>
void u32_1(Ctx& c, const Inst& in, F f) {
  check(c, in, 0, 1);
  c.each(in, [&](int l) { const uint32_t a = c.u32(in, 1, l); c.w32(in, 0, l, f(a)); });
}
template <class F>
void u32_2(Ctx& c, const Inst& in, F f) {
  check(c, in, 0, 1);
  c.each(in, [&](int l) {
    const uint32_t a = c.u32(in, 1, l), b = c.u32(in, 2, l);
    c.w32(in, 0, l, f(a, b));
  });
}
template <class F>
void u32_3(Ctx& c, const Inst& in, F f) {
  check(c, in, 0, 1);
  c.each(in, [&](int l) {
    const uint32_t a = c.u32(in, 1, l), b = c.u32(in, 2, l), d = c.u32(in, 3, l);
    c.w32(in, 0, l, f(a, b, d));
  });
}

// ============================================================ moves, v_cndmask
// CDNA4 / RDNA2 VOP1 "V_MOV_B32"; CDNA4 VOP1 "V_MOV_B64" (gfx950).
void op_v_mov_b32(Ctx& c, const Inst& in) {
  check(c, in, kFSrc, 1);
  c.each(in, [&](int l) { c.w32(in, 0, l, bits32(c, in, 1, l)); });
}
void op_v_mov_b64(Ctx& c, const Inst& in) {
  check(c, in, 0, 1);
  c.each(in, [&](int l) { c.w64(in, 0, l, c.u64(in, 1, l)); });
}
// VOP2 / VOP3 "V_CNDMASK_B32": D = mask[lane] ? S1 : S0; e32 reads VCC (printed
// as operand 3), e64 the SGPR(s) printed as operand 3. neg / abs of the e64 form
// act on the sign bit.
void op_v_cndmask_b32(Ctx& c, const Inst& in) {
  check(c, in, kFSrc, 1);
  if (in.nops != 4) c.unsupported(in, "v_cndmask_b32 without a mask operand");
  const uint64_t m = c.rmask(in, 3);
  c.each(in, [&](int l) {
    const uint32_t a = bits32(c, in, 1, l), b = bits32(c, in, 2, l);
    c.w32(in, 0, l, (m >> l & 1) ? b : a);
  });
}

// ============================================================ f32 arithmetic
// VOP2 / VOP3 "V_ADD_F32", "V_SUB_F32", "V_SUBREV_F32", "V_MUL_F32", "V_FMAC_F32",
// "V_FMAMK_F32", VOP3 "V_FMA_F32": IEEE single precision, round to nearest even.
void op_v_add_f32(Ctx& c, const Inst& in) { f32_2(c, in, [](float a, float b) { return a + b; }); }
void op_v_sub_f32(Ctx& c, const Inst& in) { f32_2(c, in, [](float a, float b) { return a - b; }); }
void op_v_subrev_f32(Ctx& c, const Inst& in) { f32_2(c, in, [](float a, float b) { return b - a; }); }
void op_v_mul_f32(Ctx& c, const Inst& in) { f32_2(c, in, [](float a, float b) { return a * b; }); }
void op_v_fma_f32(Ctx& c, const Inst& in) {
  f32_3(c, in, [](float a, float b, float d) { return std::fma(a, b, d); });
}
// v_fmamk_f32 vD, s0, K, s1 : D = S0 * K + S1 (llvm-objdump prints K in place).
void op_v_fmamk_f32(Ctx& c, const Inst& in) { op_v_fma_f32(c, in); }
// v_fmaak_f32 vD, s0, s1, K : D = S0 * S1 + K.
void op_v_fmaak_f32(Ctx& c, const Inst& in) { op_v_fma_f32(c, in); }
// v_fmac_f32 vD, s0, s1 : D = S0 * S1 + D.
void op_v_fmac_f32(Ctx& c, const Inst& in) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) {
    const float a = c.f32(in, 1, l), b = c.f32(in, 2, l);
    const float d = c.flush32(as_f32(c.u32(in, 0, l)));
    c.wf32(in, 0, l, std::fma(a, b, d));
  });
}
void op_v_max_f32(Ctx& c, const Inst& in) {
  const bool ieee = c.L.ieee;
  f32_2(c, in, [ieee](float a, float b) { return fmax_hw(ieee, a, b); });
}
void op_v_min_f32(Ctx& c, const Inst& in) {
  const bool ieee = c.L.ieee;
  f32_2(c, in, [ieee](float a, float b) { return fmin_hw(ieee, a, b); });
}
// VOP3 "V_MAX3_F32" = max(max(S0, S1), S2), "V_MIN3_F32" likewise; "V_MED3_F32":
// any NaN input gives min3, otherwise the median (CDNA4 / RDNA2 pseudocode).
void op_v_max3_f32(Ctx& c, const Inst& in) {
  const bool ieee = c.L.ieee;
  f32_3(c, in, [ieee](float a, float b, float d) { return fmax_hw(ieee, fmax_hw(ieee, a, b), d); });
}
void op_v_min3_f32(Ctx& c, const Inst& in) {
  const bool ieee = c.L.ieee;
  f32_3(c, in, [ieee](float a, float b, float d) { return fmin_hw(ieee, fmin_hw(ieee, a, b), d); });
}
void op_v_med3_f32(Ctx& c, const Inst& in) {
  const bool ieee = c.L.ieee;
  f32_3(c, in, [ieee](float a, float b, float d) {
    if (std::isnan(a) || std::isnan(b) || std::isnan(d)) return fmin_hw(ieee, fmin_hw(ieee, a, b), d);
    const float mx = fmax_hw(ieee, fmax_hw(ieee, a, b), d);
    if (mx == a) return fmax_hw(ieee, b, d);
    if (mx == b) return fmax_hw(ieee, a, d);
    return fmax_hw(ieee, a, b);
  });
}
// VOP2 (RDNA2) / VOP3 (CDNA4) "V_LDEXP_F32": D = S0 * 2^S1.i32.
void op_v_ldexp_f32(Ctx& c, const Inst& in) {
  check(c, in, kFOut, 2);
  c.each(in, [&](int l) {
    const float a = c.f32(in, 1, l);
    const int32_t e = int32_t(c.u32(in, 2, l));
    c.wf32(in, 0, l, std::ldexp(a, std::max(-1000, std::min(1000, e))));
  });
}
// VOP1 rounding: "V_TRUNC_F32", "V_FLOOR_F32", "V_CEIL_F32", "V_RNDNE_F32", "V_FRACT_F32".
void op_v_trunc_f32(Ctx& c, const Inst& in) { f32_1(c, in, [](float a) { return std::trunc(a); }); }
void op_v_floor_f32(Ctx& c, const Inst& in) { f32_1(c, in, [](float a) { return std::floor(a); }); }
void op_v_ceil_f32(Ctx& c, const Inst& in) { f32_1(c, in, [](float a) { return std::ceil(a); }); }
void op_v_rndne_f32(Ctx& c, const Inst& in) { f32_1(c, in, [](float a) { return std::nearbyint(a); }); }
void op_v_fract_f32(Ctx& c, const Inst& in) {
  // D = S0 - floor(S0), at most the largest float below 1.0; inf gives NaN.
  f32_1(c, in, [](float a) {
    if (std::isinf(a)) return std::numeric_limits<float>::quiet_NaN();
    if (std::isnan(a)) return a;
    return std::min(a - std::floor(a), as_f32(0x3f7fffffu));
  });
}

// ------------------------------------------------------------ transcendentals
// VOP1 "V_EXP_F32" (2^S0), "V_LOG_F32" (log2), "V_RCP_F32", "V_RCP_IFLAG_F32",
// "V_RSQ_F32", "V_SQRT_F32", "V_RCP_F64": the hardware is specified to ~1 ULP
// (CDNA4 / RDNA2 "VOP1 instructions"); emulated with correctly rounded host math.
// These units do not produce denormal results in flush mode (wf32 flushes).
void op_v_exp_f32(Ctx& c, const Inst& in) { f32_1(c, in, [](float a) { return std::exp2(a); }); }
void op_v_log_f32(Ctx& c, const Inst& in) { f32_1(c, in, [](float a) { return std::log2(a); }); }
void op_v_rcp_f32(Ctx& c, const Inst& in) { f32_1(c, in, [](float a) { return 1.0f / a; }); }
void op_v_rsq_f32(Ctx& c, const Inst& in) {
  f32_1(c, in, [](float a) { return float(1.0 / std::sqrt(double(a))); });
}
void op_v_sqrt_f32(Ctx& c, const Inst& in) { f32_1(c, in, [](float a) { return std::sqrt(a); }); }
void op_v_rcp_f64(Ctx& c, const Inst& in) { f64_1(c, in, [](double a) { return 1.0 / a; }); }
void op_v_sqrt_f64(Ctx& c, const Inst& in) { f64_1(c, in, [](double a) { return std::sqrt(a); }); }
void op_v_rsq_f64(Ctx& c, const Inst& in) { f64_1(c, in, [](double a) { return 1.0 / std::sqrt(a); }); }

// ============================================================ f64 arithmetic
// VOP3 "V_ADD_F64", "V_MUL_F64", "V_FMA_F64", "V_LDEXP_F64", "V_MAX_F64",
// "V_MIN_F64"; VOP1 "V_TRUNC_F64", "V_FLOOR_F64", "V_CEIL_F64", "V_RNDNE_F64".
void op_v_add_f64(Ctx& c, const Inst& in) { f64_2(c, in, [](double a, double b) { return a + b; }); }
void op_v_mul_f64(Ctx& c, const Inst& in) { f64_2(c, in, [](double a, double b) { return a * b; }); }
void op_v_max_f64(Ctx& c, const Inst& in) {
  const bool ieee = c.L.ieee;
  f64_2(c, in, [ieee](double a, double b) { return dmax_hw(ieee, a, b); });
}
void op_v_min_f64(Ctx& c, const Inst& in) {
  const bool ieee = c.L.ieee;
  f64_2(c, in, [ieee](double a, double b) { return dmin_hw(ieee, a, b); });
}
void op_v_fma_f64(Ctx& c, const Inst& in) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) {
    const double a = c.f64(in, 1, l), b = c.f64(in, 2, l), d = c.f64(in, 3, l);
    c.wf64(in, 0, l, std::fma(a, b, d));
  });
}
void op_v_ldexp_f64(Ctx& c, const Inst& in) {
  check(c, in, kFOut, 2);
  c.each(in, [&](int l) {
    const double a = c.f64(in, 1, l);
    const int32_t e = int32_t(c.u32(in, 2, l));
    c.wf64(in, 0, l, std::ldexp(a, std::max(-5000, std::min(5000, e))));
  });
}
void op_v_trunc_f64(Ctx& c, const Inst& in) { f64_1(c, in, [](double a) { return std::trunc(a); }); }
void op_v_floor_f64(Ctx& c, const Inst& in) { f64_1(c, in, [](double a) { return std::floor(a); }); }
void op_v_ceil_f64(Ctx& c, const Inst& in) { f64_1(c, in, [](double a) { return std::ceil(a); }); }
void op_v_rndne_f64(Ctx& c, const Inst& in) { f64_1(c, in, [](double a) { return std::nearbyint(a); }); }

// ============================================================ conversions
// VOP1 "V_CVT_F32_I32", "V_CVT_F32_U32" (round to nearest even), "V_CVT_U32_F32",
// "V_CVT_I32_F32", "V_CVT_I32_F64", "V_CVT_U32_F64" (truncate; NaN gives 0; out of
// range saturates), "V_CVT_F64_I32", "V_CVT_F64_U32" (exact), "V_CVT_F32_F64",
// "V_CVT_F64_F32".
template <class T>
uint32_t cvt_int(double d) {
  if (std::isnan(d)) return 0;
  const double lo = double(std::numeric_limits<T>::min()), hi = double(std::numeric_limits<T>::max());
  if (d <= lo) return uint32_t(std::numeric_limits<T>::min());
  if (d >= hi) return uint32_t(std::numeric_limits<T>::max());
  return uint32_t(T(std::trunc(d)));
}
void op_v_cvt_f32_i32(Ctx& c, const Inst& in) {
  check(c, in, kFOut, 1);
  c.each(in, [&](int l) { c.wf32(in, 0, l, float(int32_t(c.u32(in, 1, l)))); });
}
void op_v_cvt_f32_u32(Ctx& c, const Inst& in) {
  check(c, in, kFOut, 1);
  c.each(in, [&](int l) { c.wf32(in, 0, l, float(c.u32(in, 1, l))); });
}
void op_v_cvt_f64_i32(Ctx& c, const Inst& in) {
  check(c, in, kFOut, 1);
  c.each(in, [&](int l) { c.wf64(in, 0, l, double(int32_t(c.u32(in, 1, l)))); });
}
void op_v_cvt_f64_u32(Ctx& c, const Inst& in) {
  check(c, in, kFOut, 1);
  c.each(in, [&](int l) { c.wf64(in, 0, l, double(c.u32(in, 1, l))); });
}
void op_v_cvt_u32_f32(Ctx& c, const Inst& in) {
  check(c, in, kFSrc, 1);
  c.each(in, [&](int l) { c.w32(in, 0, l, cvt_int<uint32_t>(double(c.f32(in, 1, l)))); });
}
void op_v_cvt_i32_f32(Ctx& c, const Inst& in) {
  check(c, in, kFSrc, 1);
  c.each(in, [&](int l) { c.w32(in, 0, l, cvt_int<int32_t>(double(c.f32(in, 1, l)))); });
}
void op_v_cvt_u32_f64(Ctx& c, const Inst& in) {
  check(c, in, kFSrc, 1);
  c.each(in, [&](int l) { c.w32(in, 0, l, cvt_int<uint32_t>(c.f64(in, 1, l))); });
}
void op_v_cvt_i32_f64(Ctx& c, const Inst& in) {
  check(c, in, kFSrc, 1);
  c.each(in, [&](int l) { c.w32(in, 0, l, cvt_int<int32_t>(c.f64(in, 1, l))); });
}
void op_v_cvt_f32_f64(Ctx& c, const Inst& in) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) { c.wf32(in, 0, l, float(c.f64(in, 1, l))); });
}
void op_v_cvt_f64_f32(Ctx& c, const Inst& in) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) { c.wf64(in, 0, l, double(c.f32(in, 1, l))); });
}

// ============================================================ division helpers
// VOP3B "V_DIV_SCALE_F32/F64" vD, sdst, S0, S1 (denominator), S2 (numerator):
// pre-scales S0 by 2^+-64 (f64: 2^+-128) and sets the sdst lane bit where the
// quotient needs post-scaling (CDNA4 / RDNA2 pseudocode). The guide writes the
// "1 / S1 is a denormal" tests at f64 precision, which can never hold for an
// f32 S1; the f32 reciprocal is meant (a quotient 1/2^127 must keep S0 and set
// the bit, as measured on hardware). A zero S1 or S2 gives NaN (the bit set:
// the later v_div_fixup takes the result from the original operands).
void op_v_div_scale_f32(Ctx& c, const Inst& in) {
  check(c, in, kFSrc, 2);
  if (in.clamp || in.omod) c.unsupported(in, "clamp / omod on v_div_scale");
  if (in.nops != 5) c.unsupported(in, "v_div_scale_f32 operand form");
  uint64_t mask = 0;
  c.each(in, [&](int l) {
    const float s0 = c.f32(in, 2, l), s1 = c.f32(in, 3, l), s2 = c.f32(in, 4, l);
    float d = s0;
    bool v = false;
    if (s2 == 0 || s1 == 0) {
      d = std::numeric_limits<float>::quiet_NaN();
      v = true;
    } else if (exp32(s2) - exp32(s1) >= 96) {  // N/D near the largest float
      v = true;
      if (s0 == s1) d = std::ldexp(s0, 64);     // scale the denominator only
    } else if (denorm32(s1)) {
      d = std::ldexp(s0, 64);
    } else if (denorm32(1.0f / s1) && denorm32(s2 / s1)) {
      // The guide prints ldexp(S0, 64) here; scaling a denominator above 2^126
      // up by 2^64 overflows it to inf, and the quotient (scaled up by 2^64
      // when the denominator is scaled down, post-scaled by 2^-64 in
      // v_div_fmas) is only right with ldexp(S0, -64): that is what we do.
      v = true;
      if (s0 == s1) d = std::ldexp(s0, -64);
    } else if (denorm32(1.0f / s1)) {
      d = std::ldexp(s0, -64);
    } else if (denorm32(s2 / s1)) {
      v = true;
      if (s0 == s2) d = std::ldexp(s0, 64);     // scale the numerator only
    } else if (exp32(s2) <= 23) {               // numerator is tiny
      d = std::ldexp(s0, 64);
    }
    if (v) mask |= 1ull << l;
    c.w32(in, 0, l, as_u32(d));
  });
  c.wmask(in, 1, mask);
}
void op_v_div_scale_f64(Ctx& c, const Inst& in) {
  check(c, in, kFSrc, 2);
  if (in.clamp || in.omod) c.unsupported(in, "clamp / omod on v_div_scale");
  if (in.nops != 5) c.unsupported(in, "v_div_scale_f64 operand form");
  uint64_t mask = 0;
  c.each(in, [&](int l) {
    const double s0 = c.f64(in, 2, l), s1 = c.f64(in, 3, l), s2 = c.f64(in, 4, l);
    double d = s0;
    bool v = false;
    if (s2 == 0 || s1 == 0) {
      d = std::numeric_limits<double>::quiet_NaN();
      v = true;
    } else if (exp64(s2) - exp64(s1) >= 768) {
      v = true;
      if (s0 == s1) d = std::ldexp(s0, 128);
    } else if (denorm64(s1)) {
      d = std::ldexp(s0, 128);
    } else if (denorm64(1.0 / s1) && denorm64(s2 / s1)) {
      v = true;  // see v_div_scale_f32: the denominator is scaled down
      if (s0 == s1) d = std::ldexp(s0, -128);
    } else if (denorm64(1.0 / s1)) {
      d = std::ldexp(s0, -128);
    } else if (denorm64(s2 / s1)) {
      v = true;
      if (s0 == s2) d = std::ldexp(s0, 128);
    } else if (exp64(s2) <= 53) {
      d = std::ldexp(s0, 128);
    }
    if (v) mask |= 1ull << l;
    c.w64(in, 0, l, as_u64(d));
  });
  c.wmask(in, 1, mask);
}
// VOP3 "V_DIV_FMAS_F32/F64": D = fma(S0, S1, S2), post-scaled where VCC's lane
// bit is set (VCC is read implicitly, it is not printed). The guide writes the
// scale as 2^32 (2^64); hardware scales by 2^+64 when S2's exponent is at least
// that of 2.0 and by 2^-64 otherwise (f64: 2^+-128), which undoes v_div_scale.
// The scale is applied before the one rounding (see below).
void op_v_div_fmas_f32(Ctx& c, const Inst& in) {
  check(c, in, kFSrc | kFOut, 1);
  const uint64_t vcc = uint64_t(c.sgpr(kVccLo)) | (c.lanes() == 64 ? uint64_t(c.sgpr(kVccHi)) << 32 : 0);
  c.each(in, [&](int l) {
    const float a = c.f32(in, 1, l), b = c.f32(in, 2, l), d = c.f32(in, 3, l);
    float r;
    if (vcc >> l & 1) {
      const int sc = exp32(d) > 127 ? 64 : -64;
      // a * b is exact in binary128, the sum exact or off by far less than an
      // f32 ulp, the scale exact: one rounding to f32 (also to a denormal).
      if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(d)) {
        r = std::ldexp(std::fma(a, b, d), sc);
      } else {
        __float128 q = (__float128)a * (__float128)b + (__float128)d;
        q *= sc > 0 ? (__float128)18446744073709551616.0 : (__float128)(1.0 / 18446744073709551616.0);
        r = (float)q;
      }
    } else {
      r = std::fma(a, b, d);
    }
    c.wf32(in, 0, l, r);
  });
}
void op_v_div_fmas_f64(Ctx& c, const Inst& in) {
  check(c, in, kFSrc | kFOut, 1);
  const uint64_t vcc = uint64_t(c.sgpr(kVccLo)) | (c.lanes() == 64 ? uint64_t(c.sgpr(kVccHi)) << 32 : 0);
  c.each(in, [&](int l) {
    const double a = c.f64(in, 1, l), b = c.f64(in, 2, l), d = c.f64(in, 3, l);
    double r;
    if (vcc >> l & 1) {
      const int sc = exp64(d) > 1023 ? 128 : -128;
      // fma(a * 2^sc, b, d * 2^sc) rounds once when the scaled operands are
      // exact; otherwise the product sum is formed in binary128 (the product
      // exact) and scaled there, then rounded to f64.
      const double as = std::ldexp(a, sc), ds = std::ldexp(d, sc);
      const bool exact = std::isfinite(as) && std::isfinite(ds) && std::ldexp(as, -sc) == a &&
                         std::ldexp(ds, -sc) == d;
      if (exact) {
        r = std::fma(as, b, ds);
      } else if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(d)) {
        r = std::ldexp(std::fma(a, b, d), sc);
      } else {
        __float128 q = (__float128)a * (__float128)b + (__float128)d;
        const __float128 k = (__float128)18446744073709551616.0 * (__float128)18446744073709551616.0;  // 2^128
        q = sc > 0 ? q * k : q / k;
        r = (double)q;
      }
    } else {
      r = std::fma(a, b, d);
    }
    c.wf64(in, 0, l, r);
  });
}
// VOP3 "V_DIV_FIXUP_F32/F64" vD, S0 (quotient), S1 (denominator), S2 (numerator):
// special cases of the division from the original operands, else |S0| with the
// quotient's sign (CDNA4 / RDNA2 pseudocode). The underflow / overflow results
// are 0 / inf; a NaN quotient estimate with ordinary operands is the overflow
// case (inf), as measured on hardware.
template <class T>
T fixup(T s0, T s1, T s2, int e1, int e2, int emax, int under) {
  const bool neg = std::signbit(s1) != std::signbit(s2);
  const T inf = std::numeric_limits<T>::infinity(), qnan = -std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(s2)) return s2 + s2;  // quieted
  if (std::isnan(s1)) return s1 + s1;
  if (s1 == 0 && s2 == 0) return qnan;
  if (std::isinf(s1) && std::isinf(s2)) return qnan;
  if (s1 == 0 || std::isinf(s2)) return neg ? -inf : inf;
  if (std::isinf(s1) || s2 == 0) return neg ? T(-0.0) : T(0.0);
  if (e2 - e1 < under) return neg ? T(-0.0) : T(0.0);
  if (e1 == emax || std::isnan(s0)) return neg ? -inf : inf;
  return neg ? -std::fabs(s0) : std::fabs(s0);
}
void op_v_div_fixup_f32(Ctx& c, const Inst& in) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) {
    const float a = c.f32(in, 1, l), b = c.f32(in, 2, l), d = c.f32(in, 3, l);
    float r = fixup<float>(a, b, d, exp32(b), exp32(d), 255, -150);
    if (std::isnan(r) && !std::isnan(b) && !std::isnan(d)) r = as_f32(0xffc00000u);
    c.wf32(in, 0, l, r);
  });
}
void op_v_div_fixup_f64(Ctx& c, const Inst& in) {
  check(c, in, kFSrc | kFOut, 1);
  c.each(in, [&](int l) {
    const double a = c.f64(in, 1, l), b = c.f64(in, 2, l), d = c.f64(in, 3, l);
    double r = fixup<double>(a, b, d, exp64(b), exp64(d), 2047, -1075);
    if (std::isnan(r) && !std::isnan(b) && !std::isnan(d)) r = as_f64(0xfff8000000000000ull);
    c.wf64(in, 0, l, r);
  });
}

// ============================================================ integer arithmetic
// VOP2 "V_ADD_U32" / "V_SUB_U32" / "V_SUBREV_U32" (CDNA4, no carry) and
// "V_ADD_NC_U32" / "V_SUB_NC_U32" / "V_SUBREV_NC_U32" (RDNA2); with clamp the
// result saturates (unsigned) (ISA: "VOP3 ... CLAMP: integer saturation").
void op_v_add_u32(Ctx& c, const Inst& in) {
  check(c, in, kIClamp, 1);
  c.each(in, [&](int l) {
    const uint64_t s = uint64_t(c.u32(in, 1, l)) + c.u32(in, 2, l);
    c.w32(in, 0, l, (in.clamp && s >> 32) ? 0xffffffffu : uint32_t(s));
  });
}
void op_v_sub_u32(Ctx& c, const Inst& in) {
  check(c, in, kIClamp, 1);
  c.each(in, [&](int l) {
    const uint32_t a = c.u32(in, 1, l), b = c.u32(in, 2, l);
    c.w32(in, 0, l, (in.clamp && b > a) ? 0u : a - b);
  });
}
void op_v_subrev_u32(Ctx& c, const Inst& in) {
  check(c, in, kIClamp, 1);
  c.each(in, [&](int l) {
    const uint32_t a = c.u32(in, 1, l), b = c.u32(in, 2, l);
    c.w32(in, 0, l, (in.clamp && a > b) ? 0u : b - a);
  });
}
// Carry forms, printed vD, carry-out, S0, S1 [, carry-in] for every encoding
// on both archs: CDNA4 "V_ADD_CO_U32", "V_SUB_CO_U32", "V_SUBREV_CO_U32",
// "V_ADDC_CO_U32", "V_SUBB_CO_U32", "V_SUBBREV_CO_U32"; RDNA2 "V_ADD_CO_U32",
// "V_SUB_CO_U32", "V_SUBREV_CO_U32", "V_ADD_CO_CI_U32", "V_SUB_CO_CI_U32",
// "V_SUBREV_CO_CI_U32". The carry-out is an unsigned carry / borrow lane mask.
// With clamp the 32-bit result saturates.
enum CarryOp { kAdd, kSub, kSubRev };
template <CarryOp K, bool CI>
void op_carry(Ctx& c, const Inst& in) {
  check(c, in, kIClamp, 2);
  if (in.nops != (CI ? 5 : 4)) c.unsupported(in, "carry operand form");
  const uint64_t cin = CI ? c.rmask(in, 4) : 0;
  uint64_t cout = 0;
  c.each(in, [&](int l) {
    uint64_t a = c.u32(in, 2, l), b = c.u32(in, 3, l);
    const uint64_t ci = cin >> l & 1;
    if (K == kSubRev) std::swap(a, b);
    uint32_t r;
    bool co;
    if (K == kAdd) {
      const uint64_t s = a + b + ci;
      co = s >> 32;
      r = (in.clamp && co) ? 0xffffffffu : uint32_t(s);
    } else {
      co = b + ci > a;
      r = (in.clamp && co) ? 0u : uint32_t(a - b - ci);
    }
    if (co) cout |= 1ull << l;
    c.w32(in, 0, l, r);
  });
  c.wmask(in, 1, cout);
}

// VOP3 "V_ADD3_U32", "V_ADD_LSHL_U32", "V_LSHL_ADD_U32", "V_XAD_U32",
// "V_LSHL_ADD_U64" (gfx950: D = (S0.u64 << S1[2:0]) + S2.u64).
void op_v_add3_u32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return a + b + d; });
}
void op_v_add_lshl_u32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return (a + b) << (d & 31); });
}
void op_v_lshl_add_u32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return (a << (b & 31)) + d; });
}
void op_v_xad_u32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return (a ^ b) + d; });
}
void op_v_lshl_add_u64(Ctx& c, const Inst& in) {
  check(c, in, 0, 1);
  c.each(in, [&](int l) {
    const uint64_t a = c.u64(in, 1, l);
    const uint32_t s = c.u32(in, 2, l);
    const uint64_t d = c.u64(in, 3, l);
    c.w64(in, 0, l, (a << (s & 7)) + d);
  });
}
// Multiplies: VOP3 "V_MUL_LO_U32", "V_MUL_HI_U32", "V_MUL_HI_I32"; VOP2
// "V_MUL_U32_U24", "V_MUL_I32_I24", "V_MUL_HI_U32_U24", "V_MUL_HI_I32_I24"; VOP3
// "V_MAD_U32_U24", "V_MAD_I32_I24" (24-bit operands, low 32 bits of the result).
void op_v_mul_lo_u32(Ctx& c, const Inst& in) { u32_2(c, in, [](uint32_t a, uint32_t b) { return a * b; }); }
void op_v_mul_hi_u32(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); });
}
void op_v_mul_hi_i32(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) {
    return uint32_t(uint64_t(int64_t(int32_t(a)) * int64_t(int32_t(b))) >> 32);
  });
}
void op_v_mul_u32_u24(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return (a & 0xffffff) * (b & 0xffffff); });
}
void op_v_mul_hi_u32_u24(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a & 0xffffff) * (b & 0xffffff)) >> 32); });
}
void op_v_mul_i32_i24(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return uint32_t(int64_t(sx24(a)) * sx24(b)); });
}
void op_v_mul_hi_i32_i24(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return uint32_t(uint64_t(int64_t(sx24(a)) * sx24(b)) >> 32); });
}
void op_v_mad_u32_u24(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return (a & 0xffffff) * (b & 0xffffff) + d; });
}
void op_v_mad_i32_i24(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return uint32_t(int64_t(sx24(a)) * sx24(b)) + d; });
}
// VOP3B "V_MAD_U64_U32" / "V_MAD_I64_I32" vD[2], sdst, S0, S1, S2[2]:
// {carry, D} = S0 * S1 + S2 over 65 bits (sdst gets the carry lane mask).
template <bool S>
void op_mad64(Ctx& c, const Inst& in) {
  check(c, in, 0, 2);
  if (in.clamp) c.unsupported(in, "clamp on v_mad_u64_u32");
  if (in.nops != 5) c.unsupported(in, "v_mad_*64* operand form");
  uint64_t cout = 0;
  c.each(in, [&](int l) {
    const uint32_t a = c.u32(in, 2, l), b = c.u32(in, 3, l);
    const uint64_t d = c.u64(in, 4, l);
    uint64_t r;
    bool co;
    if (S) {
      const __int128 p = __int128(int64_t(int32_t(a)) * int64_t(int32_t(b))) + __int128(int64_t(d));
      r = uint64_t(p);
      co = (p >> 64 & 1) != 0;  // bit 64 of the 65-bit signed result
    } else {
      const unsigned __int128 p = (unsigned __int128)(uint64_t(a) * b) + d;
      r = uint64_t(p);
      co = (p >> 64) != 0;
    }
    if (co) cout |= 1ull << l;
    c.w64(in, 0, l, r);
  });
  c.wmask(in, 1, cout);
}
// Integer min / max: VOP2 "V_MIN_I32", "V_MAX_I32", "V_MIN_U32", "V_MAX_U32";
// VOP3 "V_MIN3_*", "V_MAX3_*", "V_MED3_*".
void op_v_min_i32(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return uint32_t(std::min(int32_t(a), int32_t(b))); });
}
void op_v_max_i32(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return uint32_t(std::max(int32_t(a), int32_t(b))); });
}
void op_v_min_u32(Ctx& c, const Inst& in) { u32_2(c, in, [](uint32_t a, uint32_t b) { return std::min(a, b); }); }
void op_v_max_u32(Ctx& c, const Inst& in) { u32_2(c, in, [](uint32_t a, uint32_t b) { return std::max(a, b); }); }
void op_v_min3_i32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) {
    return uint32_t(std::min(std::min(int32_t(a), int32_t(b)), int32_t(d)));
  });
}
void op_v_max3_i32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) {
    return uint32_t(std::max(std::max(int32_t(a), int32_t(b)), int32_t(d)));
  });
}
void op_v_min3_u32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return std::min(std::min(a, b), d); });
}
void op_v_max3_u32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return std::max(std::max(a, b), d); });
}
template <class T>
T med3(T a, T b, T d) { return std::max(std::min(a, b), std::min(std::max(a, b), d)); }
void op_v_med3_i32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return uint32_t(med3(int32_t(a), int32_t(b), int32_t(d))); });
}
void op_v_med3_u32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return med3(a, b, d); });
}

// ============================================================ bit operations
// VOP2 "V_AND_B32", "V_OR_B32", "V_XOR_B32", "V_LSHLREV_B32", "V_LSHRREV_B32",
// "V_ASHRREV_I32" (shift amount is S0[4:0], shifted value S1); VOP1
// "V_NOT_B32", "V_BFREV_B32", "V_FFBL_B32", "V_FFBH_U32".
void op_v_and_b32(Ctx& c, const Inst& in) { u32_2(c, in, [](uint32_t a, uint32_t b) { return a & b; }); }
void op_v_or_b32(Ctx& c, const Inst& in) { u32_2(c, in, [](uint32_t a, uint32_t b) { return a | b; }); }
void op_v_xor_b32(Ctx& c, const Inst& in) { u32_2(c, in, [](uint32_t a, uint32_t b) { return a ^ b; }); }
void op_v_xnor_b32(Ctx& c, const Inst& in) { u32_2(c, in, [](uint32_t a, uint32_t b) { return ~(a ^ b); }); }
void op_v_lshlrev_b32(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return b << (a & 31); });
}
void op_v_lshrrev_b32(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return b >> (a & 31); });
}
void op_v_ashrrev_i32(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return uint32_t(int32_t(b) >> (a & 31)); });
}
void op_v_not_b32(Ctx& c, const Inst& in) { u32_1(c, in, [](uint32_t a) { return ~a; }); }
void op_v_bfrev_b32(Ctx& c, const Inst& in) {
  u32_1(c, in, [](uint32_t a) {
    uint32_t r = 0;
    for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1u) << (31 - i);
    return r;
  });
}
void op_v_ffbl_b32(Ctx& c, const Inst& in) {
  u32_1(c, in, [](uint32_t a) { return a ? uint32_t(__builtin_ctz(a)) : 0xffffffffu; });
}
void op_v_ffbh_u32(Ctx& c, const Inst& in) {
  u32_1(c, in, [](uint32_t a) { return a ? uint32_t(__builtin_clz(a)) : 0xffffffffu; });
}
// VOP3 64-bit shifts "V_LSHLREV_B64", "V_LSHRREV_B64", "V_ASHRREV_I64":
// D = S1.u64 shifted by S0[5:0].
template <int K>
void op_shift64(Ctx& c, const Inst& in) {
  check(c, in, 0, 1);
  c.each(in, [&](int l) {
    const uint32_t s = c.u32(in, 1, l) & 63;
    const uint64_t v = c.u64(in, 2, l);
    const uint64_t r = K == 0 ? v << s : K == 1 ? v >> s : uint64_t(int64_t(v) >> s);
    c.w64(in, 0, l, r);
  });
}
// VOP3 "V_AND_OR_B32", "V_OR3_B32", "V_XOR3_B32", "V_LSHL_OR_B32", "V_BFI_B32",
// "V_BFE_U32", "V_BFE_I32", "V_BFM_B32", "V_ALIGNBIT_B32", "V_ALIGNBYTE_B32".
void op_v_and_or_b32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return (a & b) | d; });
}
void op_v_or3_b32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return a | b | d; });
}
void op_v_xor3_b32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return a ^ b ^ d; });
}
void op_v_lshl_or_b32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return (a << (b & 31)) | d; });
}
void op_v_bfi_b32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) { return (a & b) | (~a & d); });
}
void op_v_bfe_u32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) {
    const uint32_t w = d & 31;
    return (a >> (b & 31)) & ((1u << w) - 1u);
  });
}
void op_v_bfe_i32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) {
    const uint32_t w = d & 31;
    if (w == 0) return 0u;
    const uint32_t f = (uint32_t(int32_t(a) >> (b & 31))) & ((1u << w) - 1u);
    return uint32_t(int32_t(f << (32 - w)) >> (32 - w));  // sign-extend from bit w-1
  });
}
// ISA "V_MBCNT_LO_U32_B32" / "V_MBCNT_HI_U32_B32": the lane's count of set bits
// of S0 among the lanes below it, in the low / high 32 lanes of the wave
// (ThreadMask = (1 << lane) - 1), plus S1. Compilers count a wave's active
// lanes before one of them does its atomic for all (LLVM's atomic optimizer).
// `half`: 0 for the low 32 lanes (MBCNT_LO), 1 for the high ones (MBCNT_HI).
void mbcnt(Ctx& c, const Inst& in, int half) {
  check(c, in, 0, 1);
  c.each(in, [&](int l) {
    const int below = std::clamp(l - 32 * half, 0, 32);  // lanes of this half below lane l
    const uint32_t mask = below == 32 ? ~0u : (uint32_t)((1ull << below) - 1);
    c.w32(in, 0, l, (uint32_t)__builtin_popcount(c.u32(in, 1, l) & mask) + c.u32(in, 2, l));
  });
}
void op_v_mbcnt_lo_u32_b32(Ctx& c, const Inst& in) { mbcnt(c, in, 0); }
void op_v_mbcnt_hi_u32_b32(Ctx& c, const Inst& in) { mbcnt(c, in, 1); }
void op_v_bfm_b32(Ctx& c, const Inst& in) {
  u32_2(c, in, [](uint32_t a, uint32_t b) { return ((1u << (a & 31)) - 1u) << (b & 31); });
}
void op_v_alignbit_b32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) {
    return uint32_t(((uint64_t(a) << 32) | b) >> (d & 31));
  });
}
void op_v_alignbyte_b32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t d) {
    return uint32_t(((uint64_t(a) << 32) | b) >> (8 * (d & 3)));
  });
}
// VOP3 "V_PERM_B32": each result byte i picks by selector S2.byte[i] from the
// eight bytes {S0 (high), S1 (low)}: 0-7 a byte, 8-11 the sign of byte 1/3/5/7
// replicated, 12 zero, 13-255 0xff.
void op_v_perm_b32(Ctx& c, const Inst& in) {
  u32_3(c, in, [](uint32_t a, uint32_t b, uint32_t sel) {
    const uint64_t data = (uint64_t(a) << 32) | b;
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) {
      const uint32_t s = (sel >> (8 * i)) & 0xff;
      uint32_t byte;
      if (s >= 13) byte = 0xff;
      else if (s == 12) byte = 0;
      else if (s >= 8) byte = ((data >> (8 * (2 * (s - 8) + 1) + 7)) & 1) ? 0xff : 0;
      else byte = uint32_t(data >> (8 * s)) & 0xff;
      r |= byte << (8 * i);
    }
    return r;
  });
}
// VOP3 "V_BITOP3_B32" (gfx950): bit i of D = TTBL[{S0[i], S1[i], S2[i]}] with
// the truth table in.bitop3 (S0 the most significant index bit).
void op_v_bitop3_b32(Ctx& c, const Inst& in) {
  if (in.clamp) c.unsupported(in, "clamp on v_bitop3_b32");
  const uint32_t tt = in.bitop3 & 0xff;
  u32_3(c, in, [tt](uint32_t a, uint32_t b, uint32_t d) { return bitop3(tt, a, b, d); });
}

// ============================================================ VOPC compares
// CDNA4 / RDNA2 "VOPC instructions": D.u64[lane] = compare(S0, S1). The result
// lane mask (inactive lanes 0) goes to the printed destination: VCC for e32 /
// SDWA, an SGPR (pair on wave64) for e64. V_CMPX_*: the mask is written to
// EXEC; on gfx9 (CDNA4) also to the printed destination (VCC / SGPRs); on
// gfx10 (RDNA2) v_cmpx writes only EXEC and has no destination operand.
// Float predicates: F, LT, EQ, LE, GT, LG, GE, O, U, NGE, NLG, NGT, NLE, NEQ,
// NLT, TRU (the N* forms are true on unordered inputs); integer: F, LT, EQ,
// LE, GT, NE, GE, T.
enum Pred { kF, kLT, kEQ, kLE, kGT, kLG, kGE, kO, kU, kNGE, kNLG, kNGT, kNLE, kNEQ, kNLT, kTRU };

template <class T>
bool cmp_pred(Pred p, T a, T b) {
  switch (p) {
    case kF: return false;
    case kLT: return a < b;
    case kEQ: return a == b;
    case kLE: return a <= b;
    case kGT: return a > b;
    case kLG: return a < b || a > b;  // integer "ne" is registered as kLG
    case kGE: return a >= b;
    case kO: return a == a && b == b;
    case kU: return a != a || b != b;
    case kNGE: return !(a >= b);
    case kNLG: return !(a < b || a > b);
    case kNGT: return !(a > b);
    case kNLE: return !(a <= b);
    case kNEQ: return !(a == b);
    case kNLT: return !(a < b);
    case kTRU: return true;
  }
  return false;
}

template <class T>
T cmp_read(Ctx& c, const Inst& in, int i, int l) {
  if constexpr (std::is_same_v<T, float>) return c.f32(in, i, l);
  else if constexpr (std::is_same_v<T, double>) return c.f64(in, i, l);
  else if constexpr (std::is_same_v<T, int32_t>) return int32_t(c.u32(in, i, l));
  else if constexpr (std::is_same_v<T, uint32_t>) return c.u32(in, i, l);
  else if constexpr (std::is_same_v<T, int64_t>) return int64_t(c.u64(in, i, l));
  else return c.u64(in, i, l);
}

template <class T, Pred P, bool X>
void op_cmp(Ctx& c, const Inst& in) {
  constexpr bool is_float = std::is_floating_point_v<T>;
  const int s = in.nops - 2;  // first source: after the destination, if printed
  if (s < 0 || s > 1) c.unsupported(in, "compare operand form");
  if (in.clamp || in.omod) c.unsupported(in, "clamp / omod on a compare");
  check(c, in, is_float ? unsigned(kFSrc) : 0u, s);
  if (s == 0 && (in.enc == Enc::kDpp || in.enc == Enc::kSdwa))
    c.unsupported(in, "DPP / SDWA v_cmpx without a destination operand");
  if (s == 0 && !X) c.unsupported(in, "compare without a destination operand");
  if (X && s == 1 && c.L.gen == Gen::kGfx10) c.unsupported(in, "gfx10 v_cmpx with a destination operand");
  uint64_t mask = 0;
  c.each(in, [&](int l) {
    const T a = cmp_read<T>(c, in, s, l), b = cmp_read<T>(c, in, s + 1, l);
    if (cmp_pred<T>(P, a, b)) mask |= 1ull << l;
  });
  if (s == 1) c.wmask(in, 0, mask);
  if (X) c.w.set_exec(mask);
}

// "V_CMP_CLASS_F32/F64": S1 is a mask of classes (0 sNaN, 1 qNaN, 2 -inf,
// 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf); tested
// on the unflushed value.
template <class T, bool X>
void op_cmp_class(Ctx& c, const Inst& in) {
  const int s = in.nops - 2;
  if (s < 0 || s > 1) c.unsupported(in, "compare operand form");
  if (in.clamp || in.omod) c.unsupported(in, "clamp / omod on a compare");
  check(c, in, kFSrc, s);
  if (in.ops[s + 1].neg || in.ops[s + 1].abs) c.unsupported(in, "neg/abs on the class mask");
  if (s == 0 && (in.enc == Enc::kDpp || in.enc == Enc::kSdwa || !X))
    c.unsupported(in, "compare without a destination operand");
  uint64_t mask = 0;
  c.each(in, [&](int l) {
    T v;
    if constexpr (std::is_same_v<T, float>) {
      v = as_f32(c.u32(in, s, l));
    } else {
      v = in.ops[s].kind == Operand::kFloat ? T(in.ops[s].fval) : as_f64(c.u64(in, s, l));
    }
    if (in.ops[s].abs) v = std::fabs(v);
    if (in.ops[s].neg) v = -v;
    const uint32_t m = c.u32(in, s + 1, l);
    int k;
    const bool ng = std::signbit(v);
    switch (std::fpclassify(v)) {
      case FP_NAN:
        if constexpr (std::is_same_v<T, float>) k = is_snan32(v) ? 0 : 1;
        else k = is_snan64(v) ? 0 : 1;
        break;
      case FP_INFINITE: k = ng ? 2 : 9; break;
      case FP_NORMAL: k = ng ? 3 : 8; break;
      case FP_SUBNORMAL: k = ng ? 4 : 7; break;
      default: k = ng ? 5 : 6; break;
    }
    if (m >> k & 1) mask |= 1ull << l;
  });
  if (s == 1) c.wmask(in, 0, mask);
  if (X) c.w.set_exec(mask);
}

template <class T, bool X>
void add_cmp_family(OpTable& t, const char* ty) {
  static const char* const fnames[16] = {"f",   "lt",  "eq",  "le",  "gt",  "lg",  "ge",  "o",
                                         "u",   "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"};
  const std::string pre = X ? "v_cmpx_" : "v_cmp_";
  auto add = [&](const char* p, Handler h) { t.add((pre + p + "_" + ty).c_str(), h); };
  if constexpr (std::is_floating_point_v<T>) {
    add(fnames[kF], &op_cmp<T, kF, X>);     add(fnames[kLT], &op_cmp<T, kLT, X>);
    add(fnames[kEQ], &op_cmp<T, kEQ, X>);   add(fnames[kLE], &op_cmp<T, kLE, X>);
    add(fnames[kGT], &op_cmp<T, kGT, X>);   add(fnames[kLG], &op_cmp<T, kLG, X>);
    add(fnames[kGE], &op_cmp<T, kGE, X>);   add(fnames[kO], &op_cmp<T, kO, X>);
    add(fnames[kU], &op_cmp<T, kU, X>);     add(fnames[kNGE], &op_cmp<T, kNGE, X>);
    add(fnames[kNLG], &op_cmp<T, kNLG, X>); add(fnames[kNGT], &op_cmp<T, kNGT, X>);
    add(fnames[kNLE], &op_cmp<T, kNLE, X>); add(fnames[kNEQ], &op_cmp<T, kNEQ, X>);
    add(fnames[kNLT], &op_cmp<T, kNLT, X>); add(fnames[kTRU], &op_cmp<T, kTRU, X>);
    add("class", &op_cmp_class<T, X>);
  } else {
    add("f", &op_cmp<T, kF, X>);   add("lt", &op_cmp<T, kLT, X>);
    add("eq", &op_cmp<T, kEQ, X>); add("le", &op_cmp<T, kLE, X>);
    add("gt", &op_cmp<T, kGT, X>); add("ne", &op_cmp<T, kLG, X>);
    add("ge", &op_cmp<T, kGE, X>); add("t", &op_cmp<T, kTRU, X>);
    add("tru", &op_cmp<T, kTRU, X>);
  }
}

}  // namespace

void register_vector(OpTable& t) {
  // moves, select
  t.add("v_mov_b32", &op_v_mov_b32);
  t.add("v_mov_b64", &op_v_mov_b64);
  t.add("v_cndmask_b32", &op_v_cndmask_b32);
  // f32
  t.add("v_add_f32", &op_v_add_f32);
  t.add("v_sub_f32", &op_v_sub_f32);
  t.add("v_subrev_f32", &op_v_subrev_f32);
  t.add("v_mul_f32", &op_v_mul_f32);
  t.add("v_fma_f32", &op_v_fma_f32);
  t.add("v_fmac_f32", &op_v_fmac_f32);
  t.add("v_fmamk_f32", &op_v_fmamk_f32);
  t.add("v_fmaak_f32", &op_v_fmaak_f32);
  t.add("v_max_f32", &op_v_max_f32);
  t.add("v_min_f32", &op_v_min_f32);
  t.add("v_max3_f32", &op_v_max3_f32);
  t.add("v_min3_f32", &op_v_min3_f32);
  t.add("v_med3_f32", &op_v_med3_f32);
  t.add("v_ldexp_f32", &op_v_ldexp_f32);
  t.add("v_trunc_f32", &op_v_trunc_f32);
  t.add("v_floor_f32", &op_v_floor_f32);
  t.add("v_ceil_f32", &op_v_ceil_f32);
  t.add("v_rndne_f32", &op_v_rndne_f32);
  t.add("v_fract_f32", &op_v_fract_f32);
  // transcendentals
  t.add("v_exp_f32", &op_v_exp_f32);
  t.add("v_log_f32", &op_v_log_f32);
  t.add("v_rcp_f32", &op_v_rcp_f32);
  t.add("v_rcp_iflag_f32", &op_v_rcp_f32);
  t.add("v_rsq_f32", &op_v_rsq_f32);
  t.add("v_sqrt_f32", &op_v_sqrt_f32);
  t.add("v_rcp_f64", &op_v_rcp_f64);
  t.add("v_rsq_f64", &op_v_rsq_f64);
  t.add("v_sqrt_f64", &op_v_sqrt_f64);
  // f64
  t.add("v_add_f64", &op_v_add_f64);
  t.add("v_mul_f64", &op_v_mul_f64);
  t.add("v_fma_f64", &op_v_fma_f64);
  t.add("v_max_f64", &op_v_max_f64);
  t.add("v_min_f64", &op_v_min_f64);
  t.add("v_ldexp_f64", &op_v_ldexp_f64);
  t.add("v_trunc_f64", &op_v_trunc_f64);
  t.add("v_floor_f64", &op_v_floor_f64);
  t.add("v_ceil_f64", &op_v_ceil_f64);
  t.add("v_rndne_f64", &op_v_rndne_f64);
  // conversions
  t.add("v_cvt_f32_i32", &op_v_cvt_f32_i32);
  t.add("v_cvt_f32_u32", &op_v_cvt_f32_u32);
  t.add("v_cvt_f64_i32", &op_v_cvt_f64_i32);
  t.add("v_cvt_f64_u32", &op_v_cvt_f64_u32);
  t.add("v_cvt_u32_f32", &op_v_cvt_u32_f32);
  t.add("v_cvt_i32_f32", &op_v_cvt_i32_f32);
  t.add("v_cvt_u32_f64", &op_v_cvt_u32_f64);
  t.add("v_cvt_i32_f64", &op_v_cvt_i32_f64);
  t.add("v_cvt_f32_f64", &op_v_cvt_f32_f64);
  t.add("v_cvt_f64_f32", &op_v_cvt_f64_f32);
  // division
  t.add("v_div_scale_f32", &op_v_div_scale_f32);
  t.add("v_div_scale_f64", &op_v_div_scale_f64);
  t.add("v_div_fmas_f32", &op_v_div_fmas_f32);
  t.add("v_div_fmas_f64", &op_v_div_fmas_f64);
  t.add("v_div_fixup_f32", &op_v_div_fixup_f32);
  t.add("v_div_fixup_f64", &op_v_div_fixup_f64);
  // integer add / sub
  t.add("v_add_u32", &op_v_add_u32);
  t.add("v_add_nc_u32", &op_v_add_u32);
  t.add("v_sub_u32", &op_v_sub_u32);
  t.add("v_sub_nc_u32", &op_v_sub_u32);
  t.add("v_subrev_u32", &op_v_subrev_u32);
  t.add("v_subrev_nc_u32", &op_v_subrev_u32);
  t.add("v_add_co_u32", &op_carry<kAdd, false>);
  t.add("v_sub_co_u32", &op_carry<kSub, false>);
  t.add("v_subrev_co_u32", &op_carry<kSubRev, false>);
  t.add("v_addc_co_u32", &op_carry<kAdd, true>);
  t.add("v_subb_co_u32", &op_carry<kSub, true>);
  t.add("v_subbrev_co_u32", &op_carry<kSubRev, true>);
  t.add("v_add_co_ci_u32", &op_carry<kAdd, true>);
  t.add("v_sub_co_ci_u32", &op_carry<kSub, true>);
  t.add("v_subrev_co_ci_u32", &op_carry<kSubRev, true>);
  t.add("v_add3_u32", &op_v_add3_u32);
  t.add("v_add_lshl_u32", &op_v_add_lshl_u32);
  t.add("v_lshl_add_u32", &op_v_lshl_add_u32);
  t.add("v_xad_u32", &op_v_xad_u32);
  t.add("v_lshl_add_u64", &op_v_lshl_add_u64);
  // multiplies
  t.add("v_mul_lo_u32", &op_v_mul_lo_u32);
  t.add("v_mul_hi_u32", &op_v_mul_hi_u32);
  t.add("v_mul_hi_i32", &op_v_mul_hi_i32);
  t.add("v_mul_u32_u24", &op_v_mul_u32_u24);
  t.add("v_mul_hi_u32_u24", &op_v_mul_hi_u32_u24);
  t.add("v_mul_i32_i24", &op_v_mul_i32_i24);
  t.add("v_mul_hi_i32_i24", &op_v_mul_hi_i32_i24);
  t.add("v_mad_u32_u24", &op_v_mad_u32_u24);
  t.add("v_mad_i32_i24", &op_v_mad_i32_i24);
  t.add("v_mad_u64_u32", &op_mad64<false>);
  t.add("v_mad_i64_i32", &op_mad64<true>);
  // integer min / max
  t.add("v_min_i32", &op_v_min_i32);
  t.add("v_max_i32", &op_v_max_i32);
  t.add("v_min_u32", &op_v_min_u32);
  t.add("v_max_u32", &op_v_max_u32);
  t.add("v_min3_i32", &op_v_min3_i32);
  t.add("v_max3_i32", &op_v_max3_i32);
  t.add("v_min3_u32", &op_v_min3_u32);
  t.add("v_max3_u32", &op_v_max3_u32);
  t.add("v_med3_i32", &op_v_med3_i32);
  t.add("v_med3_u32", &op_v_med3_u32);
  // bit operations
  t.add("v_and_b32", &op_v_and_b32);
  t.add("v_or_b32", &op_v_or_b32);
  t.add("v_xor_b32", &op_v_xor_b32);
  t.add("v_xnor_b32", &op_v_xnor_b32);
  t.add("v_not_b32", &op_v_not_b32);
  t.add("v_lshlrev_b32", &op_v_lshlrev_b32);
  t.add("v_lshrrev_b32", &op_v_lshrrev_b32);
  t.add("v_ashrrev_i32", &op_v_ashrrev_i32);
  t.add("v_lshlrev_b64", &op_shift64<0>);
  t.add("v_lshrrev_b64", &op_shift64<1>);
  t.add("v_ashrrev_i64", &op_shift64<2>);
  t.add("v_bfrev_b32", &op_v_bfrev_b32);
  t.add("v_ffbl_b32", &op_v_ffbl_b32);
  t.add("v_ffbh_u32", &op_v_ffbh_u32);
  t.add("v_and_or_b32", &op_v_and_or_b32);
  t.add("v_or3_b32", &op_v_or3_b32);
  t.add("v_xor3_b32", &op_v_xor3_b32);
  t.add("v_lshl_or_b32", &op_v_lshl_or_b32);
  t.add("v_bfi_b32", &op_v_bfi_b32);
  t.add("v_bfe_u32", &op_v_bfe_u32);
  t.add("v_mbcnt_lo_u32_b32", &op_v_mbcnt_lo_u32_b32);
  t.add("v_mbcnt_hi_u32_b32", &op_v_mbcnt_hi_u32_b32);
  t.add("v_bfe_i32", &op_v_bfe_i32);
  t.add("v_bfm_b32", &op_v_bfm_b32);
  t.add("v_alignbit_b32", &op_v_alignbit_b32);
  t.add("v_alignbyte_b32", &op_v_alignbyte_b32);
  t.add("v_perm_b32", &op_v_perm_b32);
  t.add("v_bitop3_b32", &op_v_bitop3_b32);
  // compares
  add_cmp_family<float, false>(t, "f32");
  add_cmp_family<float, true>(t, "f32");
  add_cmp_family<double, false>(t, "f64");
  add_cmp_family<double, true>(t, "f64");
  add_cmp_family<int32_t, false>(t, "i32");
  add_cmp_family<int32_t, true>(t, "i32");
  add_cmp_family<uint32_t, false>(t, "u32");
  add_cmp_family<uint32_t, true>(t, "u32");
  add_cmp_family<int64_t, false>(t, "i64");
  add_cmp_family<int64_t, true>(t, "i64");
  add_cmp_family<uint64_t, false>(t, "u64");
  add_cmp_family<uint64_t, true>(t, "u64");
}

}  // namespace uattn::emu
