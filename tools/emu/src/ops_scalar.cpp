// uattn-emu: scalar ALU (SOP1 / SOP2 / SOPK / SOPC) and program control
// (SOPP) opcodes.
//
// Semantics: AMD "AMD Instinct MI355X (CDNA4) Instruction Set Architecture",
// chapter 12 (12.1 SOP2, 12.2 SOPK, 12.3 SOP1, 12.4 SOPC, 12.5 SOPP), and AMD
// "RDNA 2 Instruction Set Architecture", chapter 6 "Scalar ALU Operations" /
// chapter 4 "Program Flow Control" (same pseudocode for every opcode here).
// The SCC rules quoted beside each family are the guides' pseudocode.
#include "machine.hpp"

#include <stdio.h>

#include <type_traits>

namespace uattn::emu {
namespace {

// ---------------------------------------------------------------- helpers

// SOPK: the 16-bit immediate, sign-extended (guides: "signext(SIMM16)").
// llvm-objdump prints it as the last operand (0x80, 0xff81, ...).
int32_t simm16(const Inst& in) {
  int64_t v = in.simm;
  if (in.nops >= 2 && in.ops[in.nops - 1].kind == Operand::kInt) v = in.ops[in.nops - 1].ival;
  return (int32_t)(int16_t)(uint16_t)(v & 0xffff);
}

void branch_if(Ctx& c, const Inst& in, bool taken) {
  if (!taken) return;
  if (in.target < 0) c.unsupported(in, "branch target not resolved");
  c.jump(in.target);
}

// ---------------------------------------------------------------- SOP2 arithmetic
// CDNA4 12.1 / RDNA2 6: S_ADD_U32 SCC = carry out; S_SUB_U32 SCC = borrow
// (S1 > S0); S_ADD_I32 / S_SUB_I32 SCC = signed overflow; S_ADDC_U32 /
// S_SUBB_U32 take SCC as carry / borrow in and give it back out.

void op_s_add_u32(Ctx& c, const Inst& in) {
  const uint64_t a = c.scalar(in, 1), b = c.scalar(in, 2);
  const uint64_t t = a + b;
  c.ws32(in, 0, (uint32_t)t);
  c.w.scc = t >= 0x100000000ull;
}

void op_s_addc_u32(Ctx& c, const Inst& in) {
  const uint64_t a = c.scalar(in, 1), b = c.scalar(in, 2);
  const uint64_t t = a + b + (c.w.scc ? 1 : 0);
  c.ws32(in, 0, (uint32_t)t);
  c.w.scc = t >= 0x100000000ull;
}

void op_s_sub_u32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 1), b = c.scalar(in, 2);
  c.ws32(in, 0, a - b);
  c.w.scc = b > a;
}

void op_s_subb_u32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 1), b = c.scalar(in, 2);
  const uint32_t ci = c.w.scc ? 1 : 0;
  c.ws32(in, 0, a - b - ci);
  c.w.scc = (uint64_t)b + ci > (uint64_t)a;
}

void op_s_add_i32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 1), b = c.scalar(in, 2);
  const uint32_t t = a + b;
  c.ws32(in, 0, t);
  c.w.scc = ((a >> 31) == (b >> 31)) && ((a >> 31) != (t >> 31));
}

void op_s_sub_i32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 1), b = c.scalar(in, 2);
  const uint32_t t = a - b;
  c.ws32(in, 0, t);
  c.w.scc = ((a >> 31) != (b >> 31)) && ((a >> 31) != (t >> 31));
}

// S_MIN_I32: SCC = S0 < S1, D = SCC ? S0 : S1. S_MAX_I32: SCC = S0 >= S1.
// S_MIN_U32 / S_MAX_U32: the same, unsigned.
#define UATTN_MINMAX32(name, T, op)                                         \
  void op_##name(Ctx& c, const Inst& in) {                                  \
    const T a = (T)c.scalar(in, 1), b = (T)c.scalar(in, 2);                 \
    const bool s = a op b;                                                  \
    c.ws32(in, 0, (uint32_t)(s ? a : b));                                   \
    c.w.scc = s;                                                            \
  }

UATTN_MINMAX32(s_min_i32, int32_t, <)
UATTN_MINMAX32(s_max_i32, int32_t, >=)
UATTN_MINMAX32(s_min_u32, uint32_t, <)
UATTN_MINMAX32(s_max_u32, uint32_t, >=)
#undef UATTN_MINMAX32

// S_MUL_I32 / S_MUL_HI_U32 / S_MUL_HI_I32: SCC unchanged.
void op_s_mul_i32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 1), b = c.scalar(in, 2);
  c.ws32(in, 0, a * b);
}

void op_s_mul_hi_u32(Ctx& c, const Inst& in) {
  const uint64_t a = c.scalar(in, 1), b = c.scalar(in, 2);
  c.ws32(in, 0, (uint32_t)((a * b) >> 32));
}

void op_s_mul_hi_i32(Ctx& c, const Inst& in) {
  const int64_t a = (int32_t)c.scalar(in, 1), b = (int32_t)c.scalar(in, 2);
  c.ws32(in, 0, (uint32_t)((uint64_t)(a * b) >> 32));
}

// S_CSELECT_B32/B64: D = SCC ? S0 : S1 (SCC unchanged).
void op_s_cselect_b32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 1), b = c.scalar(in, 2);
  c.ws32(in, 0, c.w.scc ? a : b);
}

void op_s_cselect_b64(Ctx& c, const Inst& in) {
  const uint64_t a = c.scalar64(in, 1), b = c.scalar64(in, 2);
  c.ws64(in, 0, c.w.scc ? a : b);
}

// ---------------------------------------------------------------- SOP2 bitwise
// CDNA4 12.1: S_AND / S_OR / S_XOR / S_ANDN2 (32 and 64 bit): SCC = D != 0.

#define UATTN_BIT32(name, expr)                                 \
  void op_##name(Ctx& c, const Inst& in) {                      \
    const uint32_t a = c.scalar(in, 1), b = c.scalar(in, 2);    \
    const uint32_t d = (expr);                                  \
    c.ws32(in, 0, d);                                           \
    c.w.scc = d != 0;                                           \
  }
#define UATTN_BIT64(name, expr)                                 \
  void op_##name(Ctx& c, const Inst& in) {                      \
    const uint64_t a = c.scalar64(in, 1), b = c.scalar64(in, 2);\
    const uint64_t d = (expr);                                  \
    c.ws64(in, 0, d);                                           \
    c.w.scc = d != 0;                                           \
  }

UATTN_BIT32(s_and_b32, a & b)
UATTN_BIT32(s_or_b32, a | b)
UATTN_BIT32(s_xor_b32, a ^ b)
UATTN_BIT32(s_andn2_b32, a & ~b)
UATTN_BIT64(s_and_b64, a & b)
UATTN_BIT64(s_or_b64, a | b)
UATTN_BIT64(s_xor_b64, a ^ b)
UATTN_BIT64(s_andn2_b64, a & ~b)

#undef UATTN_BIT32
#undef UATTN_BIT64

// ---------------------------------------------------------------- SOP2 shifts
// S_LSHL / S_LSHR / S_ASHR: shift count S1[4:0] (32-bit) or S1[5:0] (64-bit);
// SCC = D != 0.

void op_s_lshl_b32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 1), s = c.scalar(in, 2) & 31;
  const uint32_t d = a << s;
  c.ws32(in, 0, d);
  c.w.scc = d != 0;
}

void op_s_lshr_b32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 1), s = c.scalar(in, 2) & 31;
  const uint32_t d = a >> s;
  c.ws32(in, 0, d);
  c.w.scc = d != 0;
}

void op_s_ashr_i32(Ctx& c, const Inst& in) {
  const int32_t a = (int32_t)c.scalar(in, 1);
  const uint32_t s = c.scalar(in, 2) & 31;
  const uint32_t d = (uint32_t)(a >> s);
  c.ws32(in, 0, d);
  c.w.scc = d != 0;
}

void op_s_lshl_b64(Ctx& c, const Inst& in) {
  const uint64_t a = c.scalar64(in, 1);
  const uint32_t s = c.scalar(in, 2) & 63;
  const uint64_t d = a << s;
  c.ws64(in, 0, d);
  c.w.scc = d != 0;
}

void op_s_lshr_b64(Ctx& c, const Inst& in) {
  const uint64_t a = c.scalar64(in, 1);
  const uint32_t s = c.scalar(in, 2) & 63;
  const uint64_t d = a >> s;
  c.ws64(in, 0, d);
  c.w.scc = d != 0;
}

void op_s_ashr_i64(Ctx& c, const Inst& in) {
  const int64_t a = (int64_t)c.scalar64(in, 1);
  const uint32_t s = c.scalar(in, 2) & 63;
  const uint64_t d = (uint64_t)(a >> s);
  c.ws64(in, 0, d);
  c.w.scc = d != 0;
}

// S_BFE_{I,U}{32,64}: offset S1[4:0] / S1[5:0], width S1[22:16];
// tmp = (S0 >> offset) & ((1 << width) - 1); D = tmp, sign-extended from bit
// width - 1 for the I forms; SCC = D != 0. A width of 0 gives 0; a width >= the
// operand size keeps every bit above the offset (for the I forms the shift is
// arithmetic: S0 supplies the sign). AMD CDNA 4 ISA reference guide, SOP2.
template <class U, bool kSigned>
U bit_field(U a, uint32_t sel) {
  constexpr uint32_t kBits = 8 * sizeof(U);
  using S = std::make_signed_t<U>;
  const uint32_t off = sel & (kBits - 1), width = (sel >> 16) & 0x7f;
  if (width == 0) return 0;
  const U shifted = kSigned ? (U)((S)a >> off) : a >> off;
  if (width >= kBits) return shifted;
  const U t = shifted & ((U(1) << width) - 1);
  if (!kSigned) return t;
  const U sign = U(1) << (width - 1);
  return (t ^ sign) - sign;
}

template <class U, bool kSigned>
void op_s_bfe(Ctx& c, const Inst& in) {
  U d;
  if constexpr (sizeof(U) == 4) {
    d = bit_field<U, kSigned>(c.scalar(in, 1), c.scalar(in, 2));
    c.ws32(in, 0, d);
  } else {
    d = bit_field<U, kSigned>(c.scalar64(in, 1), c.scalar(in, 2));
    c.ws64(in, 0, d);
  }
  c.w.scc = d != 0;
}

// ---------------------------------------------------------------- SOP1
// S_MOV_B32/B64 (SCC unchanged), S_NOT_B32 (SCC = D != 0), S_BREV_B32 (SCC
// unchanged), S_ABS_I32 (SCC = D != 0).

void op_s_mov_b32(Ctx& c, const Inst& in) { c.ws32(in, 0, c.scalar(in, 1)); }

void op_s_mov_b64(Ctx& c, const Inst& in) { c.ws64(in, 0, c.scalar64(in, 1)); }

void op_s_not_b32(Ctx& c, const Inst& in) {
  const uint32_t d = ~c.scalar(in, 1);
  c.ws32(in, 0, d);
  c.w.scc = d != 0;
}

// ISA "S_BCNT1_I32_B32" / "S_BCNT1_I32_B64": D = the number of set bits of S0;
// SCC = D != 0 (the count of a wave's active lanes before an atomic for all).
void op_s_bcnt1_i32_b32(Ctx& c, const Inst& in) {
  const uint32_t d = (uint32_t)__builtin_popcount(c.scalar(in, 1));
  c.ws32(in, 0, d);
  c.w.scc = d != 0;
}
void op_s_bcnt1_i32_b64(Ctx& c, const Inst& in) {
  const uint32_t d = (uint32_t)__builtin_popcountll(c.scalar64(in, 1));
  c.ws32(in, 0, d);
  c.w.scc = d != 0;
}

void op_s_brev_b32(Ctx& c, const Inst& in) {
  uint32_t x = c.scalar(in, 1), r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  c.ws32(in, 0, r);
}

void op_s_abs_i32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 1);
  const uint32_t d = ((int32_t)a < 0) ? 0u - a : a;  // abs(INT_MIN) = INT_MIN
  c.ws32(in, 0, d);
  c.w.scc = d != 0;
}

// S_GETPC_B64: D = address of the next instruction. S_SETPC_B64: PC = S0.
void op_s_getpc_b64(Ctx& c, const Inst& in) { c.ws64(in, 0, in.addr + in.size); }

void op_s_setpc_b64(Ctx& c, const Inst& in) {
  const uint64_t addr = c.scalar64(in, 0);
  if (!c.L.prog) c.unsupported(in, "s_setpc_b64 without a program");
  auto it = c.L.prog->by_addr.find(addr);
  if (it == c.L.prog->by_addr.end()) {
    char buf[96];
    snprintf(buf, sizeof buf, "s_setpc_b64 to 0x%llx, which is not an instruction of the kernel",
             (unsigned long long)addr);
    fail(buf);
  }
  c.jump((int64_t)it->second);
}

// S_AND_SAVEEXEC / S_ANDN2_SAVEEXEC / S_OR_SAVEEXEC: D = EXEC;
// EXEC = S0 & EXEC / S0 & ~EXEC / S0 | EXEC; SCC = EXEC != 0. The _b32 forms
// (RDNA2, wave32) act on EXEC_LO. S0 is read before D is written (D may equal S0).
enum class SaveOp { kAnd, kAndN2, kOr };

template <SaveOp K>
void saveexec_b64(Ctx& c, const Inst& in) {
  const uint64_t s = c.scalar64(in, 1);
  uint64_t e;
  if (c.w.size == 64) e = c.w.exec();
  else e = (uint64_t(c.w.s[kExecHi]) << 32) | c.w.s[kExecLo];
  uint64_t n = K == SaveOp::kAnd ? (s & e) : K == SaveOp::kAndN2 ? (s & ~e) : (s | e);
  c.ws64(in, 0, e);
  if (c.w.size == 64) {
    c.w.set_exec(n);
  } else {
    c.set_sgpr(kExecLo, (uint32_t)n);
    c.set_sgpr(kExecHi, (uint32_t)(n >> 32));
  }
  c.w.scc = n != 0;
}

template <SaveOp K>
void saveexec_b32(Ctx& c, const Inst& in) {
  const uint32_t s = c.scalar(in, 1);
  const uint32_t e = c.w.s[kExecLo];
  const uint32_t n = K == SaveOp::kAnd ? (s & e) : K == SaveOp::kAndN2 ? (s & ~e) : (s | e);
  c.ws32(in, 0, e);
  c.set_sgpr(kExecLo, n);
  c.w.scc = n != 0;
}

void op_s_and_saveexec_b64(Ctx& c, const Inst& in) { saveexec_b64<SaveOp::kAnd>(c, in); }
void op_s_andn2_saveexec_b64(Ctx& c, const Inst& in) { saveexec_b64<SaveOp::kAndN2>(c, in); }
void op_s_or_saveexec_b64(Ctx& c, const Inst& in) { saveexec_b64<SaveOp::kOr>(c, in); }
void op_s_and_saveexec_b32(Ctx& c, const Inst& in) { saveexec_b32<SaveOp::kAnd>(c, in); }
void op_s_andn2_saveexec_b32(Ctx& c, const Inst& in) { saveexec_b32<SaveOp::kAndN2>(c, in); }

// ---------------------------------------------------------------- SOPK
// S_MOVK_I32: D = signext(SIMM16). S_ADDK_I32: D = D + signext(SIMM16),
// SCC = signed overflow. S_MULK_I32: D = D * signext(SIMM16), SCC unchanged.

void op_s_movk_i32(Ctx& c, const Inst& in) { c.ws32(in, 0, (uint32_t)simm16(in)); }

void op_s_addk_i32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 0), b = (uint32_t)simm16(in);
  const uint32_t t = a + b;
  c.ws32(in, 0, t);
  c.w.scc = ((a >> 31) == (b >> 31)) && ((a >> 31) != (t >> 31));
}

void op_s_mulk_i32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 0), b = (uint32_t)simm16(in);
  c.ws32(in, 0, a * b);
}

// ---------------------------------------------------------------- SOPC
// CDNA4 12.4: SCC = S0 <op> S1; S_BITCMP1_B32: SCC = S0[S1[4:0]] == 1.

#define UATTN_CMP32(name, T, op)                                          \
  void op_##name(Ctx& c, const Inst& in) {                                \
    const T a = (T)c.scalar(in, 0), b = (T)c.scalar(in, 1);               \
    c.w.scc = a op b;                                                     \
  }

UATTN_CMP32(s_cmp_eq_u32, uint32_t, ==)
UATTN_CMP32(s_cmp_lg_u32, uint32_t, !=)
UATTN_CMP32(s_cmp_ge_u32, uint32_t, >=)
UATTN_CMP32(s_cmp_lt_u32, uint32_t, <)
UATTN_CMP32(s_cmp_gt_u32, uint32_t, >)
UATTN_CMP32(s_cmp_le_u32, uint32_t, <=)
UATTN_CMP32(s_cmp_eq_i32, int32_t, ==)
UATTN_CMP32(s_cmp_lg_i32, int32_t, !=)
UATTN_CMP32(s_cmp_ge_i32, int32_t, >=)
UATTN_CMP32(s_cmp_gt_i32, int32_t, >)
UATTN_CMP32(s_cmp_le_i32, int32_t, <=)
UATTN_CMP32(s_cmp_lt_i32, int32_t, <)

#undef UATTN_CMP32

// SOPK compares: SCC = S0 <op> SIMM16, sign-extended for the _i32 forms and
// zero-extended for the _u32 forms (CDNA4 / RDNA2 ISA guides, S_CMPK_*:
// "32'I(signext(SIMM16))" / "32'U(SIMM16)").
#define UATTN_CMPK(name, T, op)                                                   \
  void op_##name(Ctx& c, const Inst& in) {                                        \
    const T a = (T)c.scalar(in, 0);                                               \
    const T b = std::is_signed<T>::value ? (T)simm16(in) : (T)(uint16_t)simm16(in); \
    c.w.scc = a op b;                                                             \
  }

UATTN_CMPK(s_cmpk_eq_i32, int32_t, ==)
UATTN_CMPK(s_cmpk_lg_i32, int32_t, !=)
UATTN_CMPK(s_cmpk_gt_i32, int32_t, >)
UATTN_CMPK(s_cmpk_ge_i32, int32_t, >=)
UATTN_CMPK(s_cmpk_lt_i32, int32_t, <)
UATTN_CMPK(s_cmpk_le_i32, int32_t, <=)
UATTN_CMPK(s_cmpk_eq_u32, uint32_t, ==)
UATTN_CMPK(s_cmpk_lg_u32, uint32_t, !=)
UATTN_CMPK(s_cmpk_gt_u32, uint32_t, >)
UATTN_CMPK(s_cmpk_ge_u32, uint32_t, >=)
UATTN_CMPK(s_cmpk_lt_u32, uint32_t, <)
UATTN_CMPK(s_cmpk_le_u32, uint32_t, <=)

#undef UATTN_CMPK

void op_s_cmp_eq_u64(Ctx& c, const Inst& in) { c.w.scc = c.scalar64(in, 0) == c.scalar64(in, 1); }
void op_s_cmp_lg_u64(Ctx& c, const Inst& in) { c.w.scc = c.scalar64(in, 0) != c.scalar64(in, 1); }

// S_BITCMP0 / S_BITCMP1: SCC = (bit S1[4:0] (B64: S1[5:0]) of S0) == 0 / == 1.
void op_s_bitcmp1_b32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 0), b = c.scalar(in, 1) & 31;
  c.w.scc = ((a >> b) & 1u) != 0;
}
void op_s_bitcmp0_b32(Ctx& c, const Inst& in) {
  const uint32_t a = c.scalar(in, 0), b = c.scalar(in, 1) & 31;
  c.w.scc = ((a >> b) & 1u) == 0;
}
void op_s_bitcmp1_b64(Ctx& c, const Inst& in) {
  const uint64_t a = c.scalar64(in, 0);
  const uint32_t b = c.scalar(in, 1) & 63;
  c.w.scc = ((a >> b) & 1u) != 0;
}
void op_s_bitcmp0_b64(Ctx& c, const Inst& in) {
  const uint64_t a = c.scalar64(in, 0);
  const uint32_t b = c.scalar(in, 1) & 63;
  c.w.scc = ((a >> b) & 1u) == 0;
}

// ---------------------------------------------------------------- SOPP
// CDNA4 12.5 / RDNA2 4: S_BRANCH always; S_CBRANCH_SCC0/SCC1 on SCC;
// S_CBRANCH_VCCZ/VCCNZ on VCCZ (all VCC bits of the wave size zero);
// S_CBRANCH_EXECZ/EXECNZ on EXECZ. Targets resolved by the core.

void op_s_branch(Ctx& c, const Inst& in) { branch_if(c, in, true); }
void op_s_cbranch_scc0(Ctx& c, const Inst& in) { branch_if(c, in, !c.w.scc); }
void op_s_cbranch_scc1(Ctx& c, const Inst& in) { branch_if(c, in, c.w.scc); }
void op_s_cbranch_vccz(Ctx& c, const Inst& in) { branch_if(c, in, c.w.vcc() == 0); }
void op_s_cbranch_vccnz(Ctx& c, const Inst& in) { branch_if(c, in, c.w.vcc() != 0); }
void op_s_cbranch_execz(Ctx& c, const Inst& in) { branch_if(c, in, c.exec() == 0); }
void op_s_cbranch_execnz(Ctx& c, const Inst& in) { branch_if(c, in, c.exec() != 0); }

// S_WAITCNT: wait until the counters named are at or below their values
// (expcnt: no exports are emulated, nothing to wait for).
void op_s_waitcnt(Ctx& c, const Inst& in) { c.wait(in.vmcnt, in.lgkmcnt, -1); }

// S_WAITCNT_VSCNT (RDNA2 4.4): VS_CNT <= SGPR | SIMM16 (null SGPR reads 0).
void op_s_waitcnt_vscnt(Ctx& c, const Inst& in) {
  int n = in.vscnt;
  if (n < 0) {
    if (in.nops < 2 || in.ops[1].kind != Operand::kInt) c.unsupported(in, "s_waitcnt_vscnt operands");
    uint32_t v = (uint32_t)in.ops[1].ival & 0xffff;
    if (in.ops[0].kind == Operand::kSgpr && in.ops[0].reg != kNull) v |= c.sgpr(in.ops[0].reg) & 0xffff;
    else if (in.ops[0].kind != Operand::kSgpr) c.unsupported(in, "s_waitcnt_vscnt register operand");
    n = (int)(v & 0x3f);
  }
  c.wait(-1, -1, n);
}

// S_BARRIER: the core synchronises the workgroup. S_ENDPGM: the wave ends.
// CDNA4 / RDNA2 "S_BARRIER": waits for every wave of the workgroup; it does not
// wait for the wave's own outstanding memory operations (gfx90a+ / gfx10 have
// no implicit wait: the compiler puts s_waitcnt lgkmcnt(0) before it). An LDS
// access still outstanding at the barrier is not ordered with the other waves'
// accesses after it: an error in a workgroup of more than one wave.
void op_s_barrier(Ctx& c, const Inst&) {
  if (c.wg.waves.size() > 1)
    for (const Pending& p : c.w.pending)
      if (p.ctr == Counter::kLgkmLds && p.lds_memory) {
        char buf[160];
        snprintf(buf, sizeof buf,
                 "s_barrier with the LDS access at 0x%llx outstanding (no s_waitcnt lgkmcnt(0) before the barrier)",
                 (unsigned long long)p.addr);
        fail(buf);
      }
  c.w.at_barrier = true;
}
void op_s_endpgm(Ctx& c, const Inst&) { c.w.done = true; }

// S_NOP (wait states only), S_CLAUSE (RDNA2: a grouping hint), S_CODE_END
// (padding): no architectural effect.
void op_nothing(Ctx&, const Inst&) {}

}  // namespace

void register_scalar(OpTable& t) {
  // SOP2
  t.add("s_add_u32", &op_s_add_u32);
  t.add("s_addc_u32", &op_s_addc_u32);
  t.add("s_sub_u32", &op_s_sub_u32);
  t.add("s_subb_u32", &op_s_subb_u32);
  t.add("s_add_i32", &op_s_add_i32);
  t.add("s_sub_i32", &op_s_sub_i32);
  t.add("s_min_i32", &op_s_min_i32);
  t.add("s_max_i32", &op_s_max_i32);
  t.add("s_min_u32", &op_s_min_u32);
  t.add("s_max_u32", &op_s_max_u32);
  t.add("s_mul_i32", &op_s_mul_i32);
  t.add("s_mul_hi_u32", &op_s_mul_hi_u32);
  t.add("s_mul_hi_i32", &op_s_mul_hi_i32);
  t.add("s_cselect_b32", &op_s_cselect_b32);
  t.add("s_cselect_b64", &op_s_cselect_b64);
  t.add("s_and_b32", &op_s_and_b32);
  t.add("s_and_b64", &op_s_and_b64);
  t.add("s_or_b32", &op_s_or_b32);
  t.add("s_or_b64", &op_s_or_b64);
  t.add("s_xor_b32", &op_s_xor_b32);
  t.add("s_xor_b64", &op_s_xor_b64);
  t.add("s_andn2_b32", &op_s_andn2_b32);
  t.add("s_andn2_b64", &op_s_andn2_b64);
  t.add("s_lshl_b32", &op_s_lshl_b32);
  t.add("s_lshl_b64", &op_s_lshl_b64);
  t.add("s_lshr_b32", &op_s_lshr_b32);
  t.add("s_lshr_b64", &op_s_lshr_b64);
  t.add("s_ashr_i32", &op_s_ashr_i32);
  t.add("s_ashr_i64", &op_s_ashr_i64);
  t.add("s_bfe_i32", &op_s_bfe<uint32_t, true>);
  t.add("s_bfe_i64", &op_s_bfe<uint64_t, true>);
  t.add("s_bfe_u32", &op_s_bfe<uint32_t, false>);
  t.add("s_bfe_u64", &op_s_bfe<uint64_t, false>);
  // SOP1
  t.add("s_mov_b32", &op_s_mov_b32);
  t.add("s_mov_b64", &op_s_mov_b64);
  t.add("s_not_b32", &op_s_not_b32);
  t.add("s_bcnt1_i32_b32", &op_s_bcnt1_i32_b32);
  t.add("s_bcnt1_i32_b64", &op_s_bcnt1_i32_b64);
  t.add("s_brev_b32", &op_s_brev_b32);
  t.add("s_abs_i32", &op_s_abs_i32);
  t.add("s_getpc_b64", &op_s_getpc_b64);
  t.add("s_setpc_b64", &op_s_setpc_b64);
  t.add("s_and_saveexec_b64", &op_s_and_saveexec_b64);
  t.add("s_andn2_saveexec_b64", &op_s_andn2_saveexec_b64);
  t.add("s_or_saveexec_b64", &op_s_or_saveexec_b64);
  t.add("s_and_saveexec_b32", &op_s_and_saveexec_b32);
  t.add("s_andn2_saveexec_b32", &op_s_andn2_saveexec_b32);
  // SOPK
  t.add("s_movk_i32", &op_s_movk_i32);
  t.add("s_addk_i32", &op_s_addk_i32);
  t.add("s_mulk_i32", &op_s_mulk_i32);
  // SOPC
  t.add("s_cmp_eq_u32", &op_s_cmp_eq_u32);
  t.add("s_cmp_lg_u32", &op_s_cmp_lg_u32);
  t.add("s_cmp_ge_u32", &op_s_cmp_ge_u32);
  t.add("s_cmp_lt_u32", &op_s_cmp_lt_u32);
  t.add("s_cmp_gt_u32", &op_s_cmp_gt_u32);
  t.add("s_cmp_le_u32", &op_s_cmp_le_u32);
  t.add("s_cmp_eq_i32", &op_s_cmp_eq_i32);
  t.add("s_cmp_lg_i32", &op_s_cmp_lg_i32);
  t.add("s_cmp_ge_i32", &op_s_cmp_ge_i32);
  t.add("s_cmp_gt_i32", &op_s_cmp_gt_i32);
  t.add("s_cmp_le_i32", &op_s_cmp_le_i32);
  t.add("s_cmp_lt_i32", &op_s_cmp_lt_i32);
  t.add("s_cmp_eq_u64", &op_s_cmp_eq_u64);
  t.add("s_cmp_lg_u64", &op_s_cmp_lg_u64);
  t.add("s_cmpk_eq_i32", &op_s_cmpk_eq_i32);
  t.add("s_cmpk_lg_i32", &op_s_cmpk_lg_i32);
  t.add("s_cmpk_gt_i32", &op_s_cmpk_gt_i32);
  t.add("s_cmpk_ge_i32", &op_s_cmpk_ge_i32);
  t.add("s_cmpk_lt_i32", &op_s_cmpk_lt_i32);
  t.add("s_cmpk_le_i32", &op_s_cmpk_le_i32);
  t.add("s_cmpk_eq_u32", &op_s_cmpk_eq_u32);
  t.add("s_cmpk_lg_u32", &op_s_cmpk_lg_u32);
  t.add("s_cmpk_gt_u32", &op_s_cmpk_gt_u32);
  t.add("s_cmpk_ge_u32", &op_s_cmpk_ge_u32);
  t.add("s_cmpk_lt_u32", &op_s_cmpk_lt_u32);
  t.add("s_cmpk_le_u32", &op_s_cmpk_le_u32);
  t.add("s_bitcmp1_b32", &op_s_bitcmp1_b32);
  t.add("s_bitcmp0_b32", &op_s_bitcmp0_b32);
  t.add("s_bitcmp1_b64", &op_s_bitcmp1_b64);
  t.add("s_bitcmp0_b64", &op_s_bitcmp0_b64);
  // SOPP
  t.add("s_branch", &op_s_branch);
  t.add("s_cbranch_scc0", &op_s_cbranch_scc0);
  t.add("s_cbranch_scc1", &op_s_cbranch_scc1);
  t.add("s_cbranch_vccz", &op_s_cbranch_vccz);
  t.add("s_cbranch_vccnz", &op_s_cbranch_vccnz);
  t.add("s_cbranch_execz", &op_s_cbranch_execz);
  t.add("s_cbranch_execnz", &op_s_cbranch_execnz);
  t.add("s_waitcnt", &op_s_waitcnt);
  t.add("s_waitcnt_vscnt", &op_s_waitcnt_vscnt);
  t.add("s_barrier", &op_s_barrier);
  t.add("s_endpgm", &op_s_endpgm);
  t.add("s_nop", &op_nothing);
  t.add("s_clause", &op_nothing);
  t.add("s_code_end", &op_nothing);
}

}  // namespace uattn::emu
