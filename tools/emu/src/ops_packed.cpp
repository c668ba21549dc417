// uattn-emu: packed math (VOP3P v_pk_*), mixed-precision FMA (v_fma_mix*),
// dot2c, 16-bit float conversions / packing, OCP fp8 -> f16/bf16 scaled
// conversions and 16-bit integer ALU ops.
//
// Sources: AMD "AMD Instinct MI355X (CDNA4) Instruction Set Architecture"
// (gfx950) and AMD "RDNA 2 Instruction Set Architecture" (gfx1030), sections
// cited beside each family. Upper-16-bit behaviour of 16-bit results (gfx9
// zeroes, gfx10 preserves) follows LLVM's AMDGPU backend notes
// (GCNSubtarget::zeroesHigh16BitsOfDest).
#include <algorithm>
#include <cmath>

#include "machine.hpp"

namespace uattn::emu {
namespace {


bool is_const(const Operand& o) { return o.kind == Operand::kInt || o.kind == Operand::kFloat; }

// 32-bit pattern of a constant operand of a 16-bit / packed-16-bit read.
// ISA (CDNA4 / RDNA2 "VOP3P" and "Inline constants"): a float inline constant
// of a 16-bit operand is the f16 value in bits [15:0] with bits [31:16] zero;
// packed code selects it for the high half with op_sel_hi = 0 (LLVM encodes
// <c, c> splats that way, and <0, c> as op_sel:[..1..] op_sel_hi:[..0..]).
// A literal is the 32-bit word as encoded; an integer inline constant is its
// 32-bit (sign-extended) integer value.
uint32_t const_word16(const Operand& o) {
  if (o.kind == Operand::kFloat) return Ctx::const_bits16(o);
  return uint32_t(o.ival);
}

// Raw 32-bit word of source operand i (DPP / SDWA transforms by the core).
uint32_t raw32(Ctx& c, const Inst& in, int i, int l, int word = 0) {
  const Operand& o = in.ops[i];
  if (is_const(o)) {
    if (word != 0) c.unsupported(in, "constant in a 64-bit packed operand");
    return Ctx::const_bits32(o);
  }
  return c.u32(in, i, l, word);
}
uint32_t raw16w(Ctx& c, const Inst& in, int i, int l) {
  const Operand& o = in.ops[i];
  return is_const(o) ? const_word16(o) : c.u32(in, i, l);
}

// ---- denormal handling (FLOAT_DENORM_MODE_16_64: bit0 keeps input
// denormals, bit1 keeps output denormals; 3 = keep both)
uint16_t f16_in(const Ctx& c, uint16_t h) {
  if (!(c.L.denorm_f16_64 & 1) && (h & 0x7c00) == 0) return h & 0x8000;
  return h;
}
uint16_t f16_out(const Ctx& c, uint16_t h) {
  if (!(c.L.denorm_f16_64 & 2) && (h & 0x7c00) == 0) return h & 0x8000;
  return h;
}

// ---- exact rounding helpers
// Encodes x (taken as exact) into a binary format with `ebits` exponent and
// `mbits` mantissa bits, round to nearest even, subnormals kept, overflow to
// infinity, NaN -> quiet NaN with the sign of x.
uint32_t enc_rne(double x, int ebits, int mbits) {
  const uint32_t sign = std::signbit(x) ? (1u << (ebits + mbits)) : 0u;
  const uint32_t emax_field = (1u << ebits) - 1;
  if (std::isnan(x)) return sign | (emax_field << mbits) | (1u << (mbits - 1));
  const double a = std::fabs(x);
  if (std::isinf(a)) return sign | (emax_field << mbits);
  if (a == 0) return sign;
  const int bias = (1 << (ebits - 1)) - 1;
  int e = 0;
  std::frexp(a, &e);                       // a = f * 2^e, f in [0.5, 1)
  int E = std::max(e - 1, 1 - bias);       // exponent of the result's leading bit
  const double q = std::ldexp(a, mbits - E);  // exact: ulp of the result = 1
  uint64_t m = (uint64_t)std::nearbyint(q);   // default rounding mode: RNE
  if (m >> (mbits + 1)) { m >>= 1; ++E; }     // rounded up into the next binade
  if (m < (1ull << mbits)) return sign | uint32_t(m);  // subnormal (or min normal reached below)
  const int field = E + bias;
  if (field >= int(emax_field)) return sign | (emax_field << mbits);
  return sign | (uint32_t(field) << mbits) | uint32_t(m & ((1ull << mbits) - 1));
}
uint16_t d_to_f16(double x) { return uint16_t(enc_rne(x, 5, 10)); }
uint16_t d_to_bf16(double x) { return uint16_t(enc_rne(x, 8, 7)); }

// a + b rounded to odd in double precision: with 53 >= 2*11+2 bits, a later
// round-to-nearest into f16 / bf16 / f32 gives the correctly rounded a + b.
double add_odd(double a, double b) {
  double s = a + b;
  if (!std::isfinite(s)) return s;
  const double bb = s - a;
  const double err = (a - (s - bb)) + (b - bb);  // TwoSum: a + b = s + err exactly
  if (err != 0 && (as_u64(s) & 1) == 0) s = std::nextafter(s, err > 0 ? INFINITY : -INFINITY);
  return s;
}

double clamp01(double v) {  // clamp modifier: [0, 1], NaN -> 0 (DX10 clamp)
  if (std::isnan(v)) return 0.0;
  return std::min(1.0, std::max(0.0, v));
}

void no_omod(const Inst& in, Ctx& c) {
  if (in.omod) c.unsupported(in, "output modifier");
}

// ========================================================================
// VOP3P packed f16 math (CDNA4 / RDNA2 "VOP3P Instructions": V_PK_MUL_F16,
// V_PK_FMA_F16). The low result half reads each source's half OP_SEL[i], the
// high result half reads half OP_SEL_HI[i]; NEG_LO / NEG_HI negate the
// selected half of each source for the low / high result.
// ========================================================================
double pk16_src(Ctx& c, const Inst& in, int i, int l, bool hi_res) {
  const int b = i - 1;
  const uint32_t w = raw16w(c, in, i, l);
  const bool sel = ((hi_res ? in.op_sel_hi : in.op_sel) >> b) & 1;
  uint16_t h = uint16_t(sel ? (w >> 16) : w);
  if (((hi_res ? in.neg_hi : in.neg_lo) >> b) & 1) h ^= 0x8000;
  return f16_to_f32(f16_in(c, h));
}
void pk16_check(Ctx& c, const Inst& in, int nsrc) {
  no_omod(in, c);
  for (int i = 1; i <= nsrc; ++i)
    if (in.ops[i].neg || in.ops[i].abs) c.unsupported(in, "neg/abs operand syntax on a packed op");
}
uint16_t pk16_round(Ctx& c, const Inst& in, double v) {
  if (in.clamp) v = clamp01(v);
  return f16_out(c, d_to_f16(v));
}

void op_v_pk_mul_f16(Ctx& c, const Inst& in) {
  pk16_check(c, in, 2);
  c.each(in, [&](int l) {
    const double a0 = pk16_src(c, in, 1, l, false), b0 = pk16_src(c, in, 2, l, false);
    const double a1 = pk16_src(c, in, 1, l, true), b1 = pk16_src(c, in, 2, l, true);
    const uint16_t lo = pk16_round(c, in, a0 * b0);  // f16 products are exact in double
    const uint16_t hi = pk16_round(c, in, a1 * b1);
    c.w32(in, 0, l, uint32_t(lo) | uint32_t(hi) << 16);
  });
}

void op_v_pk_fma_f16(Ctx& c, const Inst& in) {
  pk16_check(c, in, 3);
  c.each(in, [&](int l) {
    double s[2][3];
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 3; ++i) s[h][i] = pk16_src(c, in, i + 1, l, h == 1);
    uint16_t r[2];
    for (int h = 0; h < 2; ++h) r[h] = pk16_round(c, in, add_odd(s[h][0] * s[h][1], s[h][2]));  // fused
    c.w32(in, 0, l, uint32_t(r[0]) | uint32_t(r[1]) << 16);
  });
}

// ========================================================================
// VOP3P packed f32 math on 64-bit register pairs (CDNA4 "VOP3P Instructions":
// V_PK_FMA_F32, V_PK_MUL_F32, V_PK_ADD_F32): result word 0 reads each source's
// word OP_SEL[i], result word 1 reads word OP_SEL_HI[i]; NEG_LO / NEG_HI
// negate. A constant operand is read only through word 0 (OP_SEL and
// OP_SEL_HI 0 for it: both result words take its 32-bit value, as LLVM emits
// `v_pk_fma_f32 ..., 0 op_sel_hi:[.., .., 0]`); a constant read as word 1 is
// refused (its 64-bit splat rule is not needed by the code objects).
// ========================================================================
float pk32_src(Ctx& c, const Inst& in, int i, int l, bool hi_res) {
  const int b = i - 1;
  if (in.ops[i].neg || in.ops[i].abs) c.unsupported(in, "neg/abs operand syntax on a packed op");
  const int word = ((hi_res ? in.op_sel_hi : in.op_sel) >> b) & 1;
  if (is_const(in.ops[i]) && word != 0) c.unsupported(in, "constant operand of a packed f32 op read as its high word");
  uint32_t bits = c.u32(in, i, l, word);
  if (((hi_res ? in.neg_hi : in.neg_lo) >> b) & 1) bits ^= 0x80000000u;
  return c.flush32(as_f32(bits));
}
void pk32_write(Ctx& c, const Inst& in, int l, float lo, float hi) {
  if (in.clamp) { lo = float(clamp01(lo)); hi = float(clamp01(hi)); }
  c.w32(in, 0, l, as_u32(c.flush32(lo)), 0);
  c.w32(in, 0, l, as_u32(c.flush32(hi)), 1);
}

void op_v_pk_mul_f32(Ctx& c, const Inst& in) {
  no_omod(in, c);
  c.each(in, [&](int l) {
    const float a0 = pk32_src(c, in, 1, l, false), b0 = pk32_src(c, in, 2, l, false);
    const float a1 = pk32_src(c, in, 1, l, true), b1 = pk32_src(c, in, 2, l, true);
    pk32_write(c, in, l, a0 * b0, a1 * b1);
  });
}
void op_v_pk_add_f32(Ctx& c, const Inst& in) {
  no_omod(in, c);
  c.each(in, [&](int l) {
    const float a0 = pk32_src(c, in, 1, l, false), b0 = pk32_src(c, in, 2, l, false);
    const float a1 = pk32_src(c, in, 1, l, true), b1 = pk32_src(c, in, 2, l, true);
    pk32_write(c, in, l, a0 + b0, a1 + b1);
  });
}
void op_v_pk_fma_f32(Ctx& c, const Inst& in) {
  no_omod(in, c);
  c.each(in, [&](int l) {
    float s[2][3];
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 3; ++i) s[h][i] = pk32_src(c, in, i + 1, l, h == 1);
    pk32_write(c, in, l, std::fma(s[0][0], s[0][1], s[0][2]), std::fma(s[1][0], s[1][1], s[1][2]));
  });
}

// ========================================================================
// V_FMA_MIXLO_F16 / V_FMA_MIXHI_F16 (CDNA4 / RDNA2 "VOP3P Instructions"):
// source i is f32 when OP_SEL_HI[i] = 0, else the f16 half OP_SEL[i] of it
// converted to f32; D.f16 = f16(fma(in0, in1, in2)) written to bits [15:0]
// (mixlo) or [31:16] (mixhi), the other half kept. Input modifiers: neg
// (NEG_LO / "-x") and abs (NEG_HI / "|x|"). llvm-objdump prints op_sel_hi
// for these only when it is nonzero (the encoded default is 0).
// ========================================================================
double mix_src(Ctx& c, const Inst& in, int i, int l, uint8_t ophi) {
  const int b = i - 1;
  const Operand& o = in.ops[i];
  double v;
  if (!((ophi >> b) & 1)) {
    const uint32_t bits = is_const(o) ? Ctx::const_bits32(o) : c.u32(in, i, l);
    v = c.flush32(as_f32(bits));
  } else {
    const uint32_t w = is_const(o) ? const_word16(o) : c.u32(in, i, l);
    const uint16_t h = uint16_t(((in.op_sel >> b) & 1) ? (w >> 16) : w);
    v = f16_to_f32(f16_in(c, h));
  }
  if (o.abs || ((in.neg_hi >> b) & 1)) v = std::fabs(v);
  if (o.neg || ((in.neg_lo >> b) & 1)) v = -v;
  return v;
}
void fma_mix(Ctx& c, const Inst& in, bool hi) {
  no_omod(in, c);
  const uint8_t ophi = in.has_op_sel_hi ? in.op_sel_hi : 0;
  c.each(in, [&](int l) {
    const double a = mix_src(c, in, 1, l, ophi), b = mix_src(c, in, 2, l, ophi), s2 = mix_src(c, in, 3, l, ophi);
    double r = add_odd(a * b, s2);  // f32 x f32 is exact in double; one rounding to f16
    if (in.clamp) r = clamp01(r);
    c.w16(in, 0, l, f16_out(c, d_to_f16(r)), hi);
  });
}
void op_v_fma_mixlo_f16(Ctx& c, const Inst& in) { fma_mix(c, in, false); }
void op_v_fma_mixhi_f16(Ctx& c, const Inst& in) { fma_mix(c, in, true); }

// ========================================================================
// V_DOT2C_F32_F16 (CDNA4 / RDNA2 "VOP2 Instructions"): pseudocode
//   tmp = D.f32; tmp += f32(S0.lo) * f32(S1.lo); tmp += f32(S0.hi) * f32(S1.hi)
// in that order, each step rounded to f32 (the f16 x f16 products are exact
// in f32). The _dpp form: the core applies DPP to src0 (ops[1]).
// ========================================================================
void op_v_dot2c_f32_f16(Ctx& c, const Inst& in) {
  no_omod(in, c);
  if (in.clamp || in.op_sel || in.neg_lo || in.neg_hi) c.unsupported(in, "modifier on v_dot2c_f32_f16");
  for (int i = 1; i <= 2; ++i)
    if (in.ops[i].neg || in.ops[i].abs) c.unsupported(in, "neg/abs on v_dot2c_f32_f16");
  if (in.ops[0].kind != Operand::kVgpr) c.unsupported(in, "v_dot2c destination");
  c.each(in, [&](int l) {
    const uint32_t a = raw16w(c, in, 1, l), b = raw16w(c, in, 2, l);
    const float d = c.flush32(as_f32(c.vgpr(in.ops[0].reg, l)));
    const float a0 = f16_to_f32(f16_in(c, uint16_t(a))), a1 = f16_to_f32(f16_in(c, uint16_t(a >> 16)));
    const float b0 = f16_to_f32(f16_in(c, uint16_t(b))), b1 = f16_to_f32(f16_in(c, uint16_t(b >> 16)));
    float t = d;
    t = c.flush32(t + a0 * b0);
    t = c.flush32(t + a1 * b1);
    c.w32(in, 0, l, as_u32(t));
  });
}

// ========================================================================
// f32 -> 16-bit float conversions (CDNA4 / RDNA2 "VOP1 / VOP2 / VOP3
// Instructions": V_CVT_F16_F32, V_CVT_PKRTZ_F16_F32, V_CVT_PK_F16_F32,
// V_CVT_PK_BF16_F32) and V_PACK_B32_F16 (RDNA2 "VOP3 Instructions").
// ========================================================================
float cvt_in(Ctx& c, const Inst& in, int i, int l) {
  float f = c.f32(in, i, l);  // constants, neg/abs, DPP / SDWA, denorm mode
  if (in.clamp) f = float(clamp01(f));
  return f;
}

// V_CVT_F16_F32: D.f16 = f32_to_f16(S0.f32). gfx9 zeroes D[31:16]; gfx10
// keeps it (SDWA: the core applies dst_sel / dst_unused).
void op_v_cvt_f16_f32(Ctx& c, const Inst& in) {
  no_omod(in, c);
  if (in.op_sel) c.unsupported(in, "op_sel on v_cvt_f16_f32");
  const bool zero_hi = c.L.gen == Gen::kGfx9 || in.enc == Enc::kSdwa;
  c.each(in, [&](int l) {
    const uint16_t h = f16_out(c, f32_to_f16(cvt_in(c, in, 1, l)));
    if (zero_hi) c.w32(in, 0, l, h);
    else c.w16(in, 0, l, h, false);
  });
}

void op_v_cvt_pkrtz_f16_f32(Ctx& c, const Inst& in) {  // round toward zero regardless of MODE
  no_omod(in, c);
  if (in.op_sel) c.unsupported(in, "op_sel on v_cvt_pkrtz_f16_f32");
  c.each(in, [&](int l) {
    const float a = cvt_in(c, in, 1, l), b = cvt_in(c, in, 2, l);
    c.w32(in, 0, l, uint32_t(f16_out(c, f32_to_f16_rtz(a))) | uint32_t(f16_out(c, f32_to_f16_rtz(b))) << 16);
  });
}

void op_v_cvt_pk_f16_f32(Ctx& c, const Inst& in) {  // round to nearest even regardless of MODE
  no_omod(in, c);
  if (in.op_sel) c.unsupported(in, "op_sel on v_cvt_pk_f16_f32");
  c.each(in, [&](int l) {
    const float a = cvt_in(c, in, 1, l), b = cvt_in(c, in, 2, l);
    c.w32(in, 0, l, uint32_t(f16_out(c, f32_to_f16(a))) | uint32_t(f16_out(c, f32_to_f16(b))) << 16);
  });
}

void op_v_cvt_pk_bf16_f32(Ctx& c, const Inst& in) {  // round to nearest even regardless of MODE
  no_omod(in, c);
  if (in.op_sel) c.unsupported(in, "op_sel on v_cvt_pk_bf16_f32");
  c.each(in, [&](int l) {
    const float a = cvt_in(c, in, 1, l), b = cvt_in(c, in, 2, l);
    c.w32(in, 0, l, uint32_t(f32_to_bf16(a)) | uint32_t(f32_to_bf16(b)) << 16);
  });
}

// V_PACK_B32_F16: D[15:0] = S0.f16, D[31:16] = S1.f16; OP_SEL[0/1] pick the
// high half of src0 / src1; neg / abs act on the f16 sign.
void op_v_pack_b32_f16(Ctx& c, const Inst& in) {
  no_omod(in, c);
  if (in.clamp || (in.op_sel & ~3)) c.unsupported(in, "modifier on v_pack_b32_f16");
  c.each(in, [&](int l) {
    uint16_t h[2];
    for (int i = 0; i < 2; ++i) {
      const Operand& o = in.ops[i + 1];
      const uint32_t w = raw16w(c, in, i + 1, l);
      uint16_t v = uint16_t(((in.op_sel >> i) & 1) ? (w >> 16) : w);
      if (o.abs) v &= 0x7fff;
      if (o.neg) v ^= 0x8000;
      h[i] = v;
    }
    c.w32(in, 0, l, uint32_t(h[0]) | uint32_t(h[1]) << 16);
  });
}

// ========================================================================
// V_CVT_SCALEF32_PK_F16_FP8 / V_CVT_SCALEF32_PK_BF16_FP8 (CDNA4 "VOP3
// Instructions"): scale = exponent field of S1.f32 (an E8M0 scale,
// 2^(scale-127)); the 16-bit word OP_SEL[0] of src0 holds two OCP FP8 E4M3
// codes; D[15:0] = cvt(byte 0) * scale, D[31:16] = cvt(byte 1) * scale.
// OCP E4M3 (OCP 8-bit Floating Point Specification, cited by the CDNA4
// guide): bias 7, no infinities, S.1111.111 = NaN, exponent 0 = subnormal
// (m * 2^-9), max 448.
// ========================================================================
double e4m3_decode(uint8_t b) {
  const int e = (b >> 3) & 0xf, m = b & 7;
  if (e == 15 && m == 7) return (b & 0x80) ? -NAN : NAN;
  const double v = e == 0 ? std::ldexp(double(m), -9) : std::ldexp(double(8 + m), e - 10);
  return (b & 0x80) ? -v : v;
}
void cvt_scalef32_pk_fp8(Ctx& c, const Inst& in, bool bf16) {
  no_omod(in, c);
  if (in.clamp || (in.op_sel & ~1)) c.unsupported(in, "modifier on v_cvt_scalef32_pk_*_fp8");
  if (in.ops[1].kind != Operand::kVgpr) c.unsupported(in, "src0 of v_cvt_scalef32_pk_*_fp8 must be a VGPR");
  if (in.ops[1].neg || in.ops[1].abs || in.ops[2].neg || in.ops[2].abs) c.unsupported(in, "neg/abs modifier");
  c.each(in, [&](int l) {
    const uint32_t src = c.u32(in, 1, l);
    const uint32_t sbits = raw32(c, in, 2, l);
    const int sexp = int((sbits >> 23) & 0xff);
    const uint16_t w = uint16_t((in.op_sel & 1) ? (src >> 16) : src);
    uint16_t r[2];
    for (int k = 0; k < 2; ++k) {
      double v = e4m3_decode(uint8_t(w >> (8 * k)));
      if (sexp == 255) v = NAN;               // E8M0 0xFF is NaN
      else v = std::ldexp(v, sexp - 127);     // exact in double
      r[k] = bf16 ? d_to_bf16(v) : f16_out(c, d_to_f16(v));
    }
    c.w32(in, 0, l, uint32_t(r[0]) | uint32_t(r[1]) << 16);
  });
}
void op_v_cvt_scalef32_pk_f16_fp8(Ctx& c, const Inst& in) { cvt_scalef32_pk_fp8(c, in, false); }
void op_v_cvt_scalef32_pk_bf16_fp8(Ctx& c, const Inst& in) { cvt_scalef32_pk_fp8(c, in, true); }

// ========================================================================
// 16-bit integer ALU (CDNA4 "VOP2 Instructions": V_SUB_U16, V_MUL_LO_U16,
// V_LSHLREV_B16, V_LSHRREV_B16; RDNA2 "VOP3 Instructions": V_ADD_NC_U16,
// V_SUB_NC_U16, V_MUL_LO_U16, V_LSHLREV_B16, V_LSHRREV_B16; CDNA4 "VOP3":
// V_BITOP3_B16). SDWA source selects come from the core's u32 read. gfx9
// zeroes D[31:16] (except v_bitop3_b16, which keeps it); gfx10 keeps it and
// OP_SEL picks source halves (bits 0..2) and the destination half (bit 3).
// ========================================================================
uint16_t src16(Ctx& c, const Inst& in, int i, int l) {
  const uint32_t w = raw16w(c, in, i, l);
  return uint16_t(((in.op_sel >> (i - 1)) & 1) ? (w >> 16) : w);
}
bool int16_dst_hi(Ctx& c, const Inst& in, int nsrc) {
  no_omod(in, c);
  for (int i = 1; i <= nsrc; ++i)
    if (in.ops[i].neg || in.ops[i].abs) c.unsupported(in, "neg/abs on a 16-bit integer op");
  if (in.op_sel && c.L.gen == Gen::kGfx9 && in.base != "v_bitop3_b16")
    c.unsupported(in, "op_sel on a gfx9 16-bit op");
  if (in.op_sel && in.enc == Enc::kSdwa) c.unsupported(in, "op_sel with SDWA");
  // a printed op_sel list of a 2-source op ends in the destination bit
  return nsrc == 2 ? (in.op_sel & 0xc) != 0 : (in.op_sel & 0x8) != 0;
}
void w_int16(Ctx& c, const Inst& in, int l, uint16_t v, bool dst_hi, bool gfx9_keeps_hi = false) {
  if (in.enc == Enc::kSdwa || (c.L.gen == Gen::kGfx9 && !gfx9_keeps_hi)) c.w32(in, 0, l, v);
  else c.w16(in, 0, l, v, dst_hi);
}

template <class F>
void int16_binop(Ctx& c, const Inst& in, bool clamp_ok, F&& f) {
  const bool hi = int16_dst_hi(c, in, 2);
  if (in.clamp && !clamp_ok) c.unsupported(in, "clamp on this 16-bit op");
  c.each(in, [&](int l) {
    const uint16_t a = src16(c, in, 1, l), b = src16(c, in, 2, l);
    w_int16(c, in, l, f(a, b), hi);
  });
}

void op_v_add_nc_u16(Ctx& c, const Inst& in) {
  int16_binop(c, in, true, [&](uint16_t a, uint16_t b) {
    const uint32_t r = uint32_t(a) + b;
    return uint16_t(in.clamp && r > 0xffff ? 0xffff : r);
  });
}
void op_v_sub_u16(Ctx& c, const Inst& in) {  // also v_sub_nc_u16
  int16_binop(c, in, true, [&](uint16_t a, uint16_t b) {
    return uint16_t(in.clamp && b > a ? 0 : uint16_t(a - b));
  });
}
void op_v_mul_lo_u16(Ctx& c, const Inst& in) {
  int16_binop(c, in, false, [](uint16_t a, uint16_t b) { return uint16_t(uint32_t(a) * b); });
}
void op_v_lshlrev_b16(Ctx& c, const Inst& in) {  // D = S1 << S0[3:0]
  int16_binop(c, in, false, [](uint16_t a, uint16_t b) { return uint16_t(uint32_t(b) << (a & 15)); });
}
void op_v_lshrrev_b16(Ctx& c, const Inst& in) {  // D = S1 >> S0[3:0]
  int16_binop(c, in, false, [](uint16_t a, uint16_t b) { return uint16_t(b >> (a & 15)); });
}

// V_BITOP3_B16: result bit = TTBL[{S0, S1, S2}] (S0 the most significant index bit).
void op_v_bitop3_b16(Ctx& c, const Inst& in) {
  const bool hi = int16_dst_hi(c, in, 3);
  if (in.clamp) c.unsupported(in, "clamp on v_bitop3_b16");
  const uint32_t ttbl = in.bitop3 & 0xff;
  c.each(in, [&](int l) {
    const uint16_t a = src16(c, in, 1, l), b = src16(c, in, 2, l), s2 = src16(c, in, 3, l);
    const uint16_t r = uint16_t(bitop3(ttbl, a, b, s2));
    w_int16(c, in, l, r, hi, /*gfx9_keeps_hi=*/true);
  });
}

}  // namespace

void register_packed(OpTable& t) {
  t.add("v_pk_mul_f16", &op_v_pk_mul_f16);
  t.add("v_pk_fma_f16", &op_v_pk_fma_f16);
  t.add("v_pk_mul_f32", &op_v_pk_mul_f32);
  t.add("v_pk_add_f32", &op_v_pk_add_f32);
  t.add("v_pk_fma_f32", &op_v_pk_fma_f32);
  t.add("v_fma_mixlo_f16", &op_v_fma_mixlo_f16);
  t.add("v_fma_mixhi_f16", &op_v_fma_mixhi_f16);
  t.add("v_dot2c_f32_f16", &op_v_dot2c_f32_f16);
  t.add("v_cvt_f16_f32", &op_v_cvt_f16_f32);
  t.add("v_cvt_pkrtz_f16_f32", &op_v_cvt_pkrtz_f16_f32);
  t.add("v_cvt_pk_f16_f32", &op_v_cvt_pk_f16_f32);
  t.add("v_cvt_pk_bf16_f32", &op_v_cvt_pk_bf16_f32);
  t.add("v_pack_b32_f16", &op_v_pack_b32_f16);
  t.add("v_cvt_scalef32_pk_f16_fp8", &op_v_cvt_scalef32_pk_f16_fp8);
  t.add("v_cvt_scalef32_pk_bf16_fp8", &op_v_cvt_scalef32_pk_bf16_fp8);
  t.add("v_add_nc_u16", &op_v_add_nc_u16);
  t.add("v_sub_nc_u16", &op_v_sub_u16);
  t.add("v_sub_u16", &op_v_sub_u16);
  t.add("v_mul_lo_u16", &op_v_mul_lo_u16);
  t.add("v_lshlrev_b16", &op_v_lshlrev_b16);
  t.add("v_lshrrev_b16", &op_v_lshrrev_b16);
  t.add("v_bitop3_b16", &op_v_bitop3_b16);
}

}  // namespace uattn::emu
