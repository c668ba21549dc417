// uattn-emu: matrix fused multiply-add (MFMA, gfx950 wave64) and the AGPR
// moves.
//
// Sources: AMD "AMD Instinct MI355X (CDNA4) Instruction Set Architecture",
// chapter "Matrix Arithmetic Instructions" (V_MFMA_* as D = A * B + C) and
// "VOP3P Instructions" (V_ACCVGPR_READ_B32 / V_ACCVGPR_WRITE_B32); register
// layouts per ROCm/amd_matrix_instruction_calculator (gfx9 / CDNA input and
// output layout rules, which the CDNA4 16x16x32 and 32x32x16 forms follow
// with 8 K-elements per lane).
//
// Layout (one block, M = N, E = K * M / 64 16-bit elements per lane):
//   A[i][k]: lane = i + M * (k / E), element k % E of the lane's A registers
//            (element e lives in register e / 2, bits [15:0] for even e,
//            [31:16] for odd e)
//   B[k][j]: lane = j + N * (k / E), element k % E likewise
//   C/D[i][j] (f32, one per register): j = lane % N; with q = lane / N and
//            register r: i = (r / 4) * (4 * 64 / N) + 4 * q + r % 4
//            (16x16: i = 4 * q + r; 32x32: i = 8 * (r / 4) + 4 * q + r % 4).
//
// Arithmetic: each product A[i][k] * B[k][j] of two f16 / bf16 values is
// exact in f32. The guide gives the operation as D = A * B + C without an
// internal order; this emulator accumulates acc = C[i][j], then
// acc = f32(acc + A[i][k] * B[k][j]) for k = 0, 1, ..., K-1 in ascending
// order, rounding to nearest even after every addition. All of A, B, C of
// every lane is read before D is written (D may overlap A / B / C).
#include <vector>

#include "machine.hpp"

namespace uattn::emu {
namespace {

bool is_reg(const Operand& o) { return o.kind == Operand::kVgpr || o.kind == Operand::kAgpr; }

void mfma(Ctx& c, const Inst& in, int M, int N, int K, bool bf16) {
  if (c.L.gen != Gen::kGfx9 || c.w.size != 64) c.unsupported(in, "MFMA outside gfx950 wave64");
  if (in.cbsz || in.abid || in.blgp) c.unsupported(in, "nonzero cbsz / abid / blgp");
  if (in.neg_lo || in.neg_hi || in.op_sel || in.clamp || in.omod) c.unsupported(in, "modifier on MFMA");
  if (in.nops != 4) c.unsupported(in, "MFMA operand count");
  const Operand &D = in.ops[0], &A = in.ops[1], &B = in.ops[2], &C = in.ops[3];
  const int E = K * M / 64;        // 16-bit elements per lane of A (and of B)
  const int regs_ab = E / 2;
  const int regs_cd = M * N / 64;
  if (!is_reg(D) || D.n != regs_cd) c.unsupported(in, "MFMA destination range");
  if (!is_reg(A) || A.n != regs_ab || !is_reg(B) || B.n != regs_ab) c.unsupported(in, "MFMA A / B range");
  const bool c_const = C.kind == Operand::kInt || C.kind == Operand::kFloat;
  if (c_const ? C.literal : (!is_reg(C) || C.n != regs_cd)) c.unsupported(in, "MFMA C operand");
  if (A.neg || A.abs || B.neg || B.abs || C.neg || C.abs) c.unsupported(in, "neg/abs on MFMA");

  const uint64_t exec = c.exec();
  if (exec == 0) return;  // no lane executes
  if (exec != c.w.lane_mask()) c.unsupported(in, "MFMA with a partial EXEC mask");

  auto cvt = [&](uint16_t h) { return bf16 ? bf16_to_f32(h) : f16_to_f32(h); };
  std::vector<float> a(size_t(M) * K), b(size_t(K) * N), acc(size_t(M) * N);
  // ---- read everything first
  for (int lane = 0; lane < 64; ++lane) {
    for (int e = 0; e < E; ++e) {
      const uint32_t wa = c.vreg(in, A, lane, e / 2), wb = c.vreg(in, B, lane, e / 2);
      const uint16_t ha = uint16_t((e & 1) ? wa >> 16 : wa), hb = uint16_t((e & 1) ? wb >> 16 : wb);
      {
        const int i = lane % M, k = E * (lane / M) + e;
        a[size_t(i) * K + k] = cvt(ha);
      }
      {
        const int j = lane % N, k = E * (lane / N) + e;
        b[size_t(k) * N + j] = cvt(hb);
      }
    }
  }
  const uint32_t cconst = c_const ? Ctx::const_bits32(C) : 0;
  const int rows_per_reg_group = 4 * (64 / N);
  auto row_of = [&](int r, int lane) { return (r / 4) * rows_per_reg_group + 4 * (lane / N) + r % 4; };
  for (int lane = 0; lane < 64; ++lane)
    for (int r = 0; r < regs_cd; ++r) {
      const int i = row_of(r, lane), j = lane % N;
      acc[size_t(i) * N + j] = as_f32(c_const ? cconst : c.vreg(in, C, lane, r));
    }
  // ---- compute: acc = C, then k ascending, f32 rounding after each add
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = acc[size_t(i) * N + j];
      for (int k = 0; k < K; ++k) s = s + a[size_t(i) * K + k] * b[size_t(k) * N + j];
      acc[size_t(i) * N + j] = s;
    }
  // ---- write D
  for (int lane = 0; lane < 64; ++lane)
    for (int r = 0; r < regs_cd; ++r) {
      const int i = row_of(r, lane), j = lane % N;
      c.set_vreg(in, D, lane, r, as_u32(acc[size_t(i) * N + j]));
    }
}

void op_v_mfma_f32_16x16x16_f16(Ctx& c, const Inst& in) { mfma(c, in, 16, 16, 16, false); }
void op_v_mfma_f32_16x16x16_bf16(Ctx& c, const Inst& in) { mfma(c, in, 16, 16, 16, true); }
void op_v_mfma_f32_16x16x32_f16(Ctx& c, const Inst& in) { mfma(c, in, 16, 16, 32, false); }
void op_v_mfma_f32_16x16x32_bf16(Ctx& c, const Inst& in) { mfma(c, in, 16, 16, 32, true); }
void op_v_mfma_f32_32x32x16_f16(Ctx& c, const Inst& in) { mfma(c, in, 32, 32, 16, false); }
void op_v_mfma_f32_32x32x16_bf16(Ctx& c, const Inst& in) { mfma(c, in, 32, 32, 16, true); }

// V_ACCVGPR_READ_B32: VGPR = AGPR; V_ACCVGPR_WRITE_B32: AGPR = VGPR or
// inline constant (CDNA4 "VOP3P Instructions"). Per-lane, EXEC applies.
void op_v_accvgpr_read_b32(Ctx& c, const Inst& in) {
  const Operand& s = in.ops[1];
  if (s.kind != Operand::kAgpr || in.ops[0].kind != Operand::kVgpr) c.unsupported(in, "v_accvgpr_read_b32 operands");
  c.each(in, [&](int l) { c.set_vgpr(in.ops[0].reg, l, c.agpr(s.reg, l)); });
}
void op_v_accvgpr_write_b32(Ctx& c, const Inst& in) {
  const Operand& s = in.ops[1];
  if (in.ops[0].kind != Operand::kAgpr) c.unsupported(in, "v_accvgpr_write_b32 destination");
  if (s.neg || s.abs) c.unsupported(in, "neg/abs on v_accvgpr_write_b32");
  const bool k = s.kind == Operand::kInt || s.kind == Operand::kFloat;
  if (!k && s.kind != Operand::kVgpr) c.unsupported(in, "v_accvgpr_write_b32 source");
  const uint32_t kv = k ? Ctx::const_bits32(s) : 0;
  c.each(in, [&](int l) { c.set_agpr(in.ops[0].reg, l, k ? kv : c.vgpr(s.reg, l)); });
}

// V_ACCVGPR_MOV_B32 (VOP1 opcode 82, gfx90a and later): AGPR = AGPR (CDNA4
// "VOP1 Instructions"). Per-lane, EXEC applies.
void op_v_accvgpr_mov_b32(Ctx& c, const Inst& in) {
  const Operand& s = in.ops[1];
  if (s.kind != Operand::kAgpr || in.ops[0].kind != Operand::kAgpr) c.unsupported(in, "v_accvgpr_mov_b32 operands");
  c.each(in, [&](int l) { c.set_agpr(in.ops[0].reg, l, c.agpr(s.reg, l)); });
}

}  // namespace

void register_mfma(OpTable& t) {
  t.add("v_mfma_f32_16x16x16_f16", &op_v_mfma_f32_16x16x16_f16);
  t.add("v_mfma_f32_16x16x16_bf16", &op_v_mfma_f32_16x16x16_bf16);
  t.add("v_mfma_f32_16x16x32_f16", &op_v_mfma_f32_16x16x32_f16);
  t.add("v_mfma_f32_16x16x32_bf16", &op_v_mfma_f32_16x16x32_bf16);
  t.add("v_mfma_f32_32x32x16_f16", &op_v_mfma_f32_32x32x16_f16);
  t.add("v_mfma_f32_32x32x16_bf16", &op_v_mfma_f32_32x32x16_bf16);
  t.add("v_accvgpr_read_b32", &op_v_accvgpr_read_b32);
  t.add("v_accvgpr_write_b32", &op_v_accvgpr_write_b32);
  t.add("v_accvgpr_mov_b32", &op_v_accvgpr_mov_b32);
}

}  // namespace uattn::emu
