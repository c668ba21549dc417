// uattn-emu: cross-lane opcodes: v_readlane_b32, v_readfirstlane_b32,
// v_writelane_b32 (both targets), v_permlanex16_b32 (gfx1030) and
// v_permlane16_swap_b32 / v_permlane32_swap_b32 (gfx950).
//
// Semantics: AMD "AMD Instinct MI355X (CDNA4) Instruction Set Architecture",
// 12.7 VOP1 (V_READFIRSTLANE_B32, V_PERMLANE16_SWAP_B32, V_PERMLANE32_SWAP_B32)
// and 12.10 VOP3 (V_READLANE_B32, V_WRITELANE_B32); AMD "RDNA 2 Instruction
// Set Architecture", 6.x VOP1 / VOP3 (V_READFIRSTLANE_B32, V_READLANE_B32,
// V_WRITELANE_B32, V_PERMLANEX16_B32 with VOP3 OP_SEL[0] = FI and
// OP_SEL[1] = BOUND_CTRL).
//
// Every opcode here reads its whole source column (only the lanes it needs)
// before it writes anything, so a destination equal to a source is safe.
#include "machine.hpp"

namespace uattn::emu {
namespace {

// Modifiers none of these opcodes take (the guides: "ABS, NEG and OMOD
// modifiers should all be zeroed").
void no_modifiers(Ctx& c, const Inst& in) {
  if (in.enc == Enc::kDpp || in.enc == Enc::kSdwa) c.unsupported(in, "DPP / SDWA form of a cross-lane op");
  if (in.clamp) c.unsupported(in, "clamp on a cross-lane op");
  if (in.omod) c.unsupported(in, "omod on a cross-lane op");
  if (in.neg_lo || in.neg_hi) c.unsupported(in, "neg_lo / neg_hi on a cross-lane op");
  for (int i = 0; i < in.nops; ++i)
    if (in.ops[i].neg || in.ops[i].abs || in.ops[i].sext) c.unsupported(in, "neg / abs / sext on a cross-lane op");
}

// ---------------------------------------------------------------- readlane / writelane
// V_READLANE_B32: SDST = VGPR[S1 lane][SRC0]; lane select = S1[5:0] (wave64)
// or S1[4:0] (wave32); EXEC is ignored.
void op_v_readlane_b32(Ctx& c, const Inst& in) {
  no_modifiers(c, in);
  if (in.nops < 3) c.unsupported(in, "v_readlane_b32 operands");
  const int lane = (int)(c.scalar(in, 2) & (uint32_t)(c.w.size - 1));
  const uint32_t v = c.vreg(in, in.ops[1], lane);
  c.ws32(in, 0, v);
}

// V_READFIRSTLANE_B32: SDST = VGPR[first active lane][SRC0]; lane 0 when
// EXEC = 0. A scalar / constant source gives its value.
void op_v_readfirstlane_b32(Ctx& c, const Inst& in) {
  no_modifiers(c, in);
  if (in.nops < 2) c.unsupported(in, "v_readfirstlane_b32 operands");
  const uint64_t e = c.exec();
  const int lane = e ? __builtin_ctzll(e) : 0;
  const Operand& o = in.ops[1];
  uint32_t v;
  if (o.kind == Operand::kVgpr || o.kind == Operand::kAgpr) v = c.vreg(in, in.ops[1], lane);
  else v = c.scalar(in, 1);
  c.ws32(in, 0, v);
}

// V_WRITELANE_B32: VGPR[S1 lane][VDST] = S0 (an SGPR, M0 or constant); the
// other lanes keep their values; EXEC is ignored.
void op_v_writelane_b32(Ctx& c, const Inst& in) {
  no_modifiers(c, in);
  if (in.nops < 3) c.unsupported(in, "v_writelane_b32 operands");
  const uint32_t v = c.scalar(in, 1);
  const int lane = (int)(c.scalar(in, 2) & (uint32_t)(c.w.size - 1));
  c.set_vreg(in, in.ops[0], lane, 0, v);
}

// ---------------------------------------------------------------- v_permlanex16_b32
// RDNA2 V_PERMLANEX16_B32: lanesel = {S2, S1} (4 bits per lane of a row);
// for each row r and lane i of the row, D[r*16+i] = S0[(r^1)*16 + lanesel[i]]
// (rows 0<->1, 2<->3), only for lanes with EXEC set. VOP3 OP_SEL[0] = FI
// (fetch inactive lanes), OP_SEL[1] = BOUND_CTRL: when the source lane is
// inactive and FI = 0, BOUND_CTRL = 1 writes 0, BOUND_CTRL = 0 keeps the old
// destination value.
void op_v_permlanex16_b32(Ctx& c, const Inst& in) {
  no_modifiers(c, in);
  if (c.L.gen != Gen::kGfx10) c.unsupported(in, "v_permlanex16_b32 outside gfx10");
  if (in.nops != 4) c.unsupported(in, "v_permlanex16_b32 operands");
  if (in.op_sel & ~0x3u) c.unsupported(in, "v_permlanex16_b32 op_sel beyond [FI, BOUND_CTRL]");
  for (int i = 2; i <= 3; ++i)
    if (in.ops[i].kind == Operand::kVgpr || in.ops[i].kind == Operand::kAgpr)
      c.unsupported(in, "v_permlanex16_b32 lane selects must be scalar");
  const bool fi = (in.op_sel & 1) || in.fi;
  const bool bc = (in.op_sel & 2) || in.bound_ctrl;
  const uint64_t lanesel = (uint64_t(c.scalar(in, 3)) << 32) | c.scalar(in, 2);
  const uint64_t e = c.exec();
  const int n = c.w.size;
  uint32_t out[kLanes];
  bool wr[kLanes] = {};
  for (int l = 0; l < n; ++l) {  // all reads first (D may equal S0)
    if (!((e >> l) & 1)) continue;
    const int row = l >> 4, i = l & 15;
    const int src = ((row ^ 1) << 4) + (int)((lanesel >> (4 * i)) & 0xf);
    if (fi || ((e >> src) & 1)) {
      out[l] = c.vreg(in, in.ops[1], src);
      wr[l] = true;
    } else if (bc) {
      out[l] = 0;
      wr[l] = true;
    }
  }
  for (int l = 0; l < n; ++l)
    if (wr[l]) c.set_vreg(in, in.ops[0], l, 0, out[l]);
}

// ---------------------------------------------------------------- permlane swaps
// CDNA4 V_PERMLANE16_SWAP_B32: for pass 0..1, lane 0..15:
//   swap VGPR[pass*32 + lane][SRC0] with VGPR[pass*32 + lane + 16][VDST]
// (odd rows of VDST <-> even rows of SRC0). V_PERMLANE32_SWAP_B32: for lane
// 0..31 swap VGPR[lane][SRC0] with VGPR[lane + 32][VDST] (rows 2,3 of VDST <->
// rows 0,1 of SRC0). Both registers are written.
// EXEC / FI / BOUND_CTRL (VOP3 form; the pseudocode assumes all lanes on): a
// destination lane is written only when its EXEC bit is set; its partner lane
// is read when active or FI = 1, otherwise BOUND_CTRL = 1 writes 0 and
// BOUND_CTRL = 0 keeps the old value (the DPP rule the FI / BOUND_CTRL bits name).
void permlane_swap(Ctx& c, const Inst& in, int half) {
  no_modifiers(c, in);
  if (c.L.gen != Gen::kGfx9 || c.w.size != 64) c.unsupported(in, "permlane swap outside gfx950 wave64");
  if (in.nops != 2) c.unsupported(in, "permlane swap operands");
  if (in.op_sel & ~0x3u) c.unsupported(in, "permlane swap op_sel beyond [FI, BOUND_CTRL]");
  const bool fi = (in.op_sel & 1) || in.fi;
  const bool bc = (in.op_sel & 2) || in.bound_ctrl;
  const uint64_t e = c.exec();
  // pairs (SRC0 lane a, VDST lane b = a + half), a in the low part of each block
  struct W { int op, lane; uint32_t v; };
  W w[kLanes];
  int nw = 0;
  auto one = [&](int dst_op, int dst_l, int src_op, int src_l) {
    if (!((e >> dst_l) & 1)) return;
    if (fi || ((e >> src_l) & 1)) w[nw++] = {dst_op, dst_l, c.vreg(in, in.ops[src_op], src_l)};
    else if (bc) w[nw++] = {dst_op, dst_l, 0u};
  };
  for (int a = 0; a < 64; ++a) {
    if (a & half) continue;  // a = pass * 2*half + lane, lane < half
    const int b = a + half;
    one(1, a, 0, b);  // SRC0[a] = old VDST[b]
    one(0, b, 1, a);  // VDST[b] = old SRC0[a]
  }
  for (int i = 0; i < nw; ++i) c.set_vreg(in, in.ops[w[i].op], w[i].lane, 0, w[i].v);
}

void op_v_permlane16_swap_b32(Ctx& c, const Inst& in) { permlane_swap(c, in, 16); }
void op_v_permlane32_swap_b32(Ctx& c, const Inst& in) { permlane_swap(c, in, 32); }

}  // namespace

void register_lane(OpTable& t) {
  t.add("v_readlane_b32", &op_v_readlane_b32);
  t.add("v_readfirstlane_b32", &op_v_readfirstlane_b32);
  t.add("v_writelane_b32", &op_v_writelane_b32);
  t.add("v_permlanex16_b32", &op_v_permlanex16_b32);
  t.add("v_permlane16_swap_b32", &op_v_permlane16_swap_b32);
  t.add("v_permlane32_swap_b32", &op_v_permlane32_swap_b32);
}

}  // namespace uattn::emu
