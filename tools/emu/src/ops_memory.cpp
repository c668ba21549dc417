// uattn-emu: memory opcode handlers (SMEM, FLAT/GLOBAL, MUBUF, DS).
//
// Sources (public):
//  - AMD "AMD Instinct MI355X (CDNA4) Instruction Set Architecture" (gfx950):
//    "Scalar Memory Operations", "Vector Memory Buffer Instructions" (buffer
//    resource constant, addressing, range checking), "Flat Memory
//    Instructions" (global / flat addressing), "Data Share Operations" (DS
//    opcodes, DS_BPERMUTE_B32, DS_SWIZZLE_B32) and section 11.4 "MFMA Transpose
//    Load from LDS" (DS_READ_B64_TR_B16).
//  - AMD "RDNA 2 Instruction Set Architecture" (gfx1030): the same chapters
//    ("Buffer Resource", "Range Checking" with V#.OOB_SELECT).
//  - LLVM AMDGPU (IntrinsicsAMDGPU.td, raw buffer intrinsics): the VGPR
//    offset and the instruction offset are range checked, soffset is not;
//    AMDGPUUsage "Relaxed buffer OOB mode": accesses wider than 32 bits are
//    range checked per 32-bit word, and a word that straddles the end is out
//    of range as a whole; MLIR AMDGPU dialect: OOB_SELECT = 2 disables checks.
//
// Cache-policy modifiers (glc / slc / dlc / sc0 / sc1 / nt) only select cache
// behaviour; memory in this emulator is coherent, so they have no functional
// effect on the non-atomic operations implemented here.
#include <stdlib.h>

#include <string>
#include <vector>

#include "machine.hpp"

namespace uattn::emu {
namespace {

// ---------------------------------------------------------------- helpers

void pend_data(Ctx& c, Pending& p, const Operand& o, int n) {
  if (o.kind == Operand::kAgpr)
    c.pend_a(p, o.reg, n);
  else
    c.pend_v(p, o.reg, n);
}

void need_regs(Ctx& c, const Inst& in, int i, int n, const char* what) {
  if (i >= in.nops) c.unsupported(in, std::string("missing operand: ") + what);
  const Operand& o = in.ops[i];
  if ((o.kind != Operand::kVgpr && o.kind != Operand::kAgpr) || o.n < n)
    c.unsupported(in, std::string("operand ") + what + " must be " + std::to_string(n) + " VGPR/AGPR(s)");
}

uint32_t vaddr32(Ctx& c, const Inst& in, int i, int lane) {
  const Operand& o = in.ops[i];
  if (o.kind != Operand::kVgpr) c.unsupported(in, "address operand is not a VGPR");
  return c.vgpr(o.reg, lane);
}

bool is_null_or_off(const Operand& o) {
  if (o.kind == Operand::kOff || o.kind == Operand::kNone) return true;
  if (o.kind == Operand::kSgpr && o.reg == kNull) return true;
  if (o.kind == Operand::kOther && (o.text == "null" || o.text == "off")) return true;
  return false;
}

// A scalar offset operand (SMEM offset, MUBUF soffset): SGPR, M0, inline
// constant / literal, or null / off (= 0).
uint32_t scalar_offset(Ctx& c, const Inst& in, int i) {
  if (i >= in.nops) return 0;
  const Operand& o = in.ops[i];
  if (is_null_or_off(o)) return 0;
  if (o.kind == Operand::kInt) return uint32_t(o.ival);
  if (o.kind == Operand::kSgpr) return c.sgpr(o.reg);
  c.unsupported(in, "scalar offset operand form");
}

uint64_t sgpr_pair(Ctx& c, const Inst& in, int i) {
  const Operand& o = in.ops[i];
  if (o.kind != Operand::kSgpr || o.n < 2) c.unsupported(in, "expected a 64-bit SGPR pair");
  return uint64_t(c.sgpr(o.reg)) | (uint64_t(c.sgpr(o.reg + 1)) << 32);
}

Counter store_counter(const Ctx& c) { return c.L.gen == Gen::kGfx10 ? Counter::kVs : Counter::kVm; }

// ---------------------------------------------------------------- SMEM
// ISA "Scalar Memory Operations": S_LOAD_DWORD{,X2,X4,X8,X16} sdst, sbase,
// offset. ADDR = SGPR[sbase:sbase+1] + offset (an immediate byte offset, an
// SGPR, or null = 0 on gfx10); the two address LSBs are ignored (dword
// aligned). Data returns through LGKM_CNT (SMEM, out of order).
void smem_load(Ctx& c, const Inst& in, int n) {
  if (in.nops < 2) c.unsupported(in, "operands");
  const Operand& d = in.ops[0];
  if (d.kind != Operand::kSgpr || d.n < n) c.unsupported(in, "destination must be an SGPR range");
  if (in.nops > 3) c.unsupported(in, "extra operand");
  const uint64_t base = sgpr_pair(c, in, 1);
  uint64_t off = scalar_offset(c, in, 2);
  if (in.has_offset) off += uint64_t(in.offset);
  const uint64_t addr = (base + off) & ~uint64_t(3);
  uint32_t buf[16];
  c.gread(addr, buf, size_t(4) * n);
  Pending& p = c.issue(Counter::kLgkmSmem);
  for (int k = 0; k < n; ++k) c.set_sgpr(d.reg + k, buf[k]);
  c.pend_s(p, d.reg, n);
}

void op_s_load_dword(Ctx& c, const Inst& in) { smem_load(c, in, 1); }
void op_s_load_dwordx2(Ctx& c, const Inst& in) { smem_load(c, in, 2); }
void op_s_load_dwordx4(Ctx& c, const Inst& in) { smem_load(c, in, 4); }
void op_s_load_dwordx8(Ctx& c, const Inst& in) { smem_load(c, in, 8); }
void op_s_load_dwordx16(Ctx& c, const Inst& in) { smem_load(c, in, 16); }

// ---------------------------------------------------------------- FLAT / GLOBAL
// ISA "Flat Memory Instructions" / "Global": with saddr = off the address is
// the 64-bit VGPR pair vaddr; with an SGPR pair saddr it is SGPR[saddr] +
// zero-extended 32-bit VGPR[vaddr]; plus the signed instruction offset
// (13-bit on gfx9, 12-bit on gfx10). FLAT addresses are treated as global
// host addresses (the kernels here use FLAT only for global memory).
enum class Kind { kFlat, kGlobal };

uint64_t vmem_addr(Ctx& c, const Inst& in, Kind kind, int vaddr_i, int saddr_i, uint64_t sbase, bool has_saddr,
                   int lane) {
  uint64_t a;
  const Operand& va = in.ops[vaddr_i];
  if (!has_saddr) {
    if (va.kind != Operand::kVgpr || va.n < 2) c.unsupported(in, "vaddr must be a 64-bit VGPR pair");
    a = uint64_t(c.vgpr(va.reg, lane)) | (uint64_t(c.vgpr(va.reg + 1, lane)) << 32);
  } else {
    (void)saddr_i;
    if (va.kind != Operand::kVgpr) c.unsupported(in, "vaddr must be a VGPR offset with saddr");
    a = sbase + uint64_t(c.vgpr(va.reg, lane));
  }
  (void)kind;
  return a + uint64_t(in.offset);
}

bool saddr_present(Ctx& c, const Inst& in, Kind kind, int saddr_i, uint64_t& sbase) {
  sbase = 0;
  if (kind == Kind::kFlat) {
    if (in.nops > saddr_i && !is_null_or_off(in.ops[saddr_i])) c.unsupported(in, "flat with saddr");
    return false;
  }
  if (saddr_i >= in.nops) c.unsupported(in, "global without saddr operand");
  if (is_null_or_off(in.ops[saddr_i])) return false;
  sbase = sgpr_pair(c, in, saddr_i);
  return true;
}

// Loads: dst, vaddr[, saddr]. `bytes` 2 = ushort (zero-extended), else 4*n.
void vmem_load(Ctx& c, const Inst& in, Kind kind, int bytes) {
  if (in.lds) c.unsupported(in, "load to LDS");
  const int words = bytes <= 4 ? 1 : bytes / 4;
  need_regs(c, in, 0, words, "vdst");
  uint64_t sbase;
  const bool has_saddr = saddr_present(c, in, kind, 2, sbase);
  const Operand& d = in.ops[0];
  Pending& p = c.issue(Counter::kVm);
  p.lgkm_too = kind == Kind::kFlat;
  c.each(in, [&](int l) {
    const uint64_t a = vmem_addr(c, in, kind, 1, 2, sbase, has_saddr, l);
    uint32_t buf[4] = {0, 0, 0, 0};
    c.gread(a, buf, size_t(bytes));
    if (bytes == 2) buf[0] &= 0xffffu;
    for (int k = 0; k < words; ++k) c.set_vreg(in, d, l, k, buf[k]);
  });
  pend_data(c, p, d, words);
}

// Stores: vaddr, vdata[, saddr]. `hi16`: store the high half (D16_HI).
void vmem_store(Ctx& c, const Inst& in, Kind kind, int bytes, bool hi16 = false) {
  const int words = bytes <= 4 ? 1 : bytes / 4;
  need_regs(c, in, 1, words, "vdata");
  uint64_t sbase;
  const bool has_saddr = saddr_present(c, in, kind, 2, sbase);
  const Operand& s = in.ops[1];
  c.each(in, [&](int l) {
    const uint64_t a = vmem_addr(c, in, kind, 0, 2, sbase, has_saddr, l);
    uint32_t buf[4] = {0, 0, 0, 0};
    for (int k = 0; k < words; ++k) buf[k] = c.vreg(in, s, l, k);
    if (hi16) buf[0] >>= 16;
    c.gwrite(a, buf, size_t(bytes));
  });
  c.issue(store_counter(c)).lgkm_too = kind == Kind::kFlat;
}

void op_flat_load_dword(Ctx& c, const Inst& in) { vmem_load(c, in, Kind::kFlat, 4); }
void op_flat_load_dwordx2(Ctx& c, const Inst& in) { vmem_load(c, in, Kind::kFlat, 8); }
void op_flat_load_dwordx3(Ctx& c, const Inst& in) { vmem_load(c, in, Kind::kFlat, 12); }
void op_flat_load_dwordx4(Ctx& c, const Inst& in) { vmem_load(c, in, Kind::kFlat, 16); }
void op_global_load_ushort(Ctx& c, const Inst& in) { vmem_load(c, in, Kind::kGlobal, 2); }
void op_global_load_dword(Ctx& c, const Inst& in) { vmem_load(c, in, Kind::kGlobal, 4); }
void op_global_load_dwordx2(Ctx& c, const Inst& in) { vmem_load(c, in, Kind::kGlobal, 8); }
void op_global_load_dwordx3(Ctx& c, const Inst& in) { vmem_load(c, in, Kind::kGlobal, 12); }
void op_global_load_dwordx4(Ctx& c, const Inst& in) { vmem_load(c, in, Kind::kGlobal, 16); }
void op_global_store_byte(Ctx& c, const Inst& in) { vmem_store(c, in, Kind::kGlobal, 1); }
void op_global_store_short(Ctx& c, const Inst& in) { vmem_store(c, in, Kind::kGlobal, 2); }
void op_global_store_short_d16_hi(Ctx& c, const Inst& in) { vmem_store(c, in, Kind::kGlobal, 2, true); }
void op_global_store_dword(Ctx& c, const Inst& in) { vmem_store(c, in, Kind::kGlobal, 4); }
void op_global_store_dwordx2(Ctx& c, const Inst& in) { vmem_store(c, in, Kind::kGlobal, 8); }
void op_global_store_dwordx3(Ctx& c, const Inst& in) { vmem_store(c, in, Kind::kGlobal, 12); }
void op_global_store_dwordx4(Ctx& c, const Inst& in) { vmem_store(c, in, Kind::kGlobal, 16); }

// ---------------------------------------------------------------- MUBUF
// ISA "Buffer Resource" (V#, 128 bits):
//   word0 BASE_ADDRESS[31:0]; word1 BASE_ADDRESS[47:32] (bits 15:0),
//   STRIDE (bits 29:16), CACHE_SWIZZLE (30), SWIZZLE_ENABLE (31);
//   word2 NUM_RECORDS; word3 DST_SEL / format, INDEX_STRIDE (22:21),
//   ADD_TID_ENABLE (23), gfx10: OOB_SELECT (29:28).
// Address (linear, no idxen) = base + soffset + (offen ? VGPR : 0) + inst_offset.
// Range checking (raw buffer: no idxen, gfx9 stride 0 or swizzle off; gfx10
// OOB_SELECT 3): each dword component (or the whole access when < 4 bytes) is
// out of range when  offset + component_bytes > NUM_RECORDS, offset being the
// VGPR offset + instruction offset (soffset is excluded). gfx10 OOB_SELECT 2
// disables the check. Out-of-range loads return 0, out-of-range stores are
// dropped ("Load/store-Dword-x{2,3,4} range-check per component").
// Private memory: a V# whose base lies in the launch's scratch aperture
// (upper 32 bits of the 48-bit base equal scratch_magic's) addresses the
// lane's private array at (base - scratch_magic) + soffset + voffset + offset.
struct VDesc {
  uint64_t base = 0;
  uint32_t stride = 0, num_records = 0, w3 = 0;
  bool swizzle = false, add_tid = false;
};

VDesc read_vdesc(Ctx& c, const Inst& in, int i) {
  const Operand& o = in.ops[i];
  if (o.kind != Operand::kSgpr || o.n < 4) c.unsupported(in, "buffer resource must be 4 SGPRs");
  const uint32_t w0 = c.sgpr(o.reg), w1 = c.sgpr(o.reg + 1), w2 = c.sgpr(o.reg + 2), w3 = c.sgpr(o.reg + 3);
  VDesc d;
  d.base = uint64_t(w0) | (uint64_t(w1 & 0xffffu) << 32);
  d.stride = (w1 >> 16) & 0x3fffu;
  d.swizzle = (w1 >> 31) & 1u;
  d.num_records = w2;
  d.w3 = w3;
  d.add_tid = (w3 >> 23) & 1u;
  return d;
}

bool is_scratch(const Ctx& c, const VDesc& d) {
  if (c.L.scratch_magic == 0) return false;
  const uint64_t magic = c.L.scratch_magic & 0xffffffffffffull;
  return (d.base >> 32) == (magic >> 32);
}

struct BufCtx {
  VDesc d;
  uint32_t soff = 0;
  bool scratch = false, check = true;
};

BufCtx buffer_setup(Ctx& c, const Inst& in) {
  if (in.nops < 4) c.unsupported(in, "buffer operands");
  if (in.lds) c.unsupported(in, "buffer load to LDS (lds modifier)");
  if (in.idxen) c.unsupported(in, "idxen (structured buffer)");
  BufCtx b;
  b.d = read_vdesc(c, in, 2);
  b.soff = scalar_offset(c, in, 3);
  b.scratch = is_scratch(c, b.d);
  if (b.scratch) return b;
  if (b.d.swizzle) c.unsupported(in, "swizzled buffer resource");
  if (b.d.add_tid) c.unsupported(in, "ADD_TID_ENABLE buffer resource");
  if (c.L.gen == Gen::kGfx10) {
    const uint32_t oob = (b.d.w3 >> 28) & 3u;
    if (oob == 2)
      b.check = false;
    else if (oob != 3)
      c.unsupported(in, "OOB_SELECT " + std::to_string(oob) + " (structured range check) without idxen");
  }
  return b;
}

uint64_t buffer_voffset(Ctx& c, const Inst& in, int lane) {
  uint64_t off = uint64_t(uint32_t(in.offset));
  if (in.offen) off += vaddr32(c, in, 1, lane);
  return off;
}

int64_t scratch_offset(Ctx& c, const Inst& in, const BufCtx& b, uint64_t voff) {
  const uint64_t magic = c.L.scratch_magic & 0xffffffffffffull;
  const int64_t off = int64_t(b.d.base) - int64_t(magic) + int64_t(b.soff) + int64_t(voff);
  if (off < 0) c.unsupported(in, "private access below the scratch base");
  return off;
}

void buffer_load(Ctx& c, const Inst& in, int bytes) {
  const int words = bytes <= 4 ? 1 : bytes / 4;
  need_regs(c, in, 0, words, "vdata");
  const BufCtx b = buffer_setup(c, in);
  const Operand& d = in.ops[0];
  Pending& p = c.issue(Counter::kVm);
  c.each(in, [&](int l) {
    const uint64_t voff = buffer_voffset(c, in, l);
    uint32_t buf[4] = {0, 0, 0, 0};
    if (b.scratch) {
      c.scratch_read(l, uint64_t(scratch_offset(c, in, b, voff)), buf, size_t(bytes));
    } else {
      const uint64_t addr = b.d.base + b.soff + voff;
      const int cb = bytes < 4 ? bytes : 4;
      for (int k = 0; k < words; ++k) {
        const uint64_t o = voff + uint64_t(k) * 4;
        if (!b.check || o + uint64_t(cb) <= b.d.num_records) c.gread(addr + uint64_t(k) * 4, &buf[k], size_t(cb));
      }
    }
    for (int k = 0; k < words; ++k) c.set_vreg(in, d, l, k, buf[k]);
  });
  pend_data(c, p, d, words);
}

void buffer_store(Ctx& c, const Inst& in, int bytes) {
  const int words = bytes <= 4 ? 1 : bytes / 4;
  need_regs(c, in, 0, words, "vdata");
  const BufCtx b = buffer_setup(c, in);
  const Operand& s = in.ops[0];
  c.each(in, [&](int l) {
    const uint64_t voff = buffer_voffset(c, in, l);
    uint32_t buf[4] = {0, 0, 0, 0};
    for (int k = 0; k < words; ++k) buf[k] = c.vreg(in, s, l, k);
    if (b.scratch) {
      c.scratch_write(l, uint64_t(scratch_offset(c, in, b, voff)), buf, size_t(bytes));
    } else {
      const uint64_t addr = b.d.base + b.soff + voff;
      const int cb = bytes < 4 ? bytes : 4;
      for (int k = 0; k < words; ++k) {
        const uint64_t o = voff + uint64_t(k) * 4;
        if (!b.check || o + uint64_t(cb) <= b.d.num_records) c.gwrite(addr + uint64_t(k) * 4, &buf[k], size_t(cb));
      }
    }
  });
  c.issue(store_counter(c));
}

void op_buffer_load_dword(Ctx& c, const Inst& in) { buffer_load(c, in, 4); }
void op_buffer_load_dwordx2(Ctx& c, const Inst& in) { buffer_load(c, in, 8); }
void op_buffer_load_dwordx4(Ctx& c, const Inst& in) { buffer_load(c, in, 16); }
void op_buffer_store_short(Ctx& c, const Inst& in) { buffer_store(c, in, 2); }
void op_buffer_store_dword(Ctx& c, const Inst& in) { buffer_store(c, in, 4); }
void op_buffer_store_dwordx2(Ctx& c, const Inst& in) { buffer_store(c, in, 8); }
void op_buffer_store_dwordx4(Ctx& c, const Inst& in) { buffer_store(c, in, 16); }

// RDNA2 "BUFFER_GL0_INV" / "BUFFER_GL1_INV": invalidate the GL0 / GL1 cache;
// CDNA4 "BUFFER_WBL2" / "BUFFER_INV": write back / invalidate the L2 (and lower)
// caches at the scope of SC0 / SC1 (LLVM AMDGPUUsage, "Memory Model GFX942":
// the agent-scope release and acquire fences). Memory is coherent in the
// emulator and its global accesses complete in program order, and the
// instructions return no data: nothing to do.
void op_cache_control(Ctx&, const Inst&) {}

// ---------------------------------------------------------------- global atomics
// ISA "Flat Memory Instructions" / "Global" atomics, GLOBAL_ATOMIC_ADD (CDNA4
// GLOBAL_ATOMIC_ADD_U32): per active lane, in lane order, DATA is added to the
// dword at the lane's address; with SC0 (CDNA4) / GLC (RDNA2) the value before
// the add is returned to VDST (on VM_CNT), else nothing is returned (RDNA2:
// counted on VS_CNT like a store). Operands: [vdst,] vaddr, vdata, saddr.
void op_global_atomic_add(Ctx& c, const Inst& in) {
  const bool ret = in.glc || in.sc0;
  const int va = ret ? 1 : 0;
  need_regs(c, in, va + 1, 1, "vdata");
  if (ret) need_regs(c, in, 0, 1, "vdst");
  uint64_t sbase;
  const bool has_saddr = saddr_present(c, in, Kind::kGlobal, va + 2, sbase);
  const Operand& data = in.ops[va + 1];
  Pending& p = c.issue(ret ? Counter::kVm : store_counter(c));
  c.each(in, [&](int l) {
    const uint64_t a = vmem_addr(c, in, Kind::kGlobal, va, va + 2, sbase, has_saddr, l);
    const uint32_t old = c.gatomic_add(a, c.vreg(in, data, l, 0));
    if (ret) c.set_vreg(in, in.ops[0], l, 0, old);
  });
  if (ret) pend_data(c, p, in.ops[0], 1);
}

// ---------------------------------------------------------------- DS
// ISA "Data Share Operations": LDS address = VGPR[addr] + OFFSET (16-bit);
// the two-address forms use OFFSET0 / OFFSET1 (8-bit) in units of the element
// size (x64 for the ST64 forms). Returned data counts on LGKM_CNT.
uint32_t ds_addr(Ctx& c, const Inst& in, int i, int lane) {
  return vaddr32(c, in, i, lane) + uint32_t(in.offset);
}

// ds_read_*: vdst, vaddr [offset:N]. bytes 2 = u16 (zero-extended).
void ds_read(Ctx& c, const Inst& in, int bytes) {
  const int words = bytes <= 4 ? 1 : bytes / 4;
  need_regs(c, in, 0, words, "vdst");
  const Operand& d = in.ops[0];
  Pending& p = c.issue(Counter::kLgkmLds);
  c.each(in, [&](int l) {
    uint32_t buf[4] = {0, 0, 0, 0};
    c.lds_read(ds_addr(c, in, 1, l), buf, size_t(bytes));
    if (bytes == 2) buf[0] &= 0xffffu;
    for (int k = 0; k < words; ++k) c.set_vreg(in, d, l, k, buf[k]);
  });
  pend_data(c, p, d, words);
}

// ds_read2[st64]_b{32,64}: vdst (2 elements), vaddr offset0 offset1.
void ds_read2(Ctx& c, const Inst& in, int esize, bool st64) {
  const int ew = esize / 4;
  need_regs(c, in, 0, 2 * ew, "vdst");
  const Operand& d = in.ops[0];
  const uint32_t scale = uint32_t(esize) * (st64 ? 64u : 1u);
  Pending& p = c.issue(Counter::kLgkmLds);
  c.each(in, [&](int l) {
    const uint32_t base = vaddr32(c, in, 1, l);
    uint32_t buf[4] = {0, 0, 0, 0};
    c.lds_read(base + uint32_t(in.offset0) * scale, &buf[0], size_t(esize));
    c.lds_read(base + uint32_t(in.offset1) * scale, &buf[ew], size_t(esize));
    for (int k = 0; k < 2 * ew; ++k) c.set_vreg(in, d, l, k, buf[k]);
  });
  pend_data(c, p, d, 2 * ew);
}

// ds_write_*: vaddr, vdata [offset:N]. hi16: DS_WRITE_B16_D16_HI stores
// VDATA[31:16].
void ds_write(Ctx& c, const Inst& in, int bytes, bool hi16 = false) {
  const int words = bytes <= 4 ? 1 : bytes / 4;
  need_regs(c, in, 1, words, "vdata");
  const Operand& s = in.ops[1];
  c.each(in, [&](int l) {
    uint32_t buf[4] = {0, 0, 0, 0};
    for (int k = 0; k < words; ++k) buf[k] = c.vreg(in, s, l, k);
    if (hi16) buf[0] >>= 16;
    c.lds_write(ds_addr(c, in, 0, l), buf, size_t(bytes));
  });
  c.issue(Counter::kLgkmLds);
}

// ds_write2[st64]_b{32,64}: vaddr, vdata0, vdata1 offset0 offset1.
void ds_write2(Ctx& c, const Inst& in, int esize, bool st64) {
  const int ew = esize / 4;
  need_regs(c, in, 1, ew, "vdata0");
  need_regs(c, in, 2, ew, "vdata1");
  const Operand& s0 = in.ops[1];
  const Operand& s1 = in.ops[2];
  const uint32_t scale = uint32_t(esize) * (st64 ? 64u : 1u);
  c.each(in, [&](int l) {
    const uint32_t base = vaddr32(c, in, 0, l);
    uint32_t a[2] = {0, 0}, b[2] = {0, 0};
    for (int k = 0; k < ew; ++k) {
      a[k] = c.vreg(in, s0, l, k);
      b[k] = c.vreg(in, s1, l, k);
    }
    c.lds_write(base + uint32_t(in.offset0) * scale, a, size_t(esize));
    c.lds_write(base + uint32_t(in.offset1) * scale, b, size_t(esize));
  });
  c.issue(Counter::kLgkmLds);
}

void op_ds_read_u16(Ctx& c, const Inst& in) { ds_read(c, in, 2); }
void op_ds_read_b32(Ctx& c, const Inst& in) { ds_read(c, in, 4); }
void op_ds_read_b64(Ctx& c, const Inst& in) { ds_read(c, in, 8); }
void op_ds_read_b128(Ctx& c, const Inst& in) { ds_read(c, in, 16); }
void op_ds_read2_b32(Ctx& c, const Inst& in) { ds_read2(c, in, 4, false); }
void op_ds_read2_b64(Ctx& c, const Inst& in) { ds_read2(c, in, 8, false); }
void op_ds_read2st64_b32(Ctx& c, const Inst& in) { ds_read2(c, in, 4, true); }
void op_ds_read2st64_b64(Ctx& c, const Inst& in) { ds_read2(c, in, 8, true); }
void op_ds_write_b16(Ctx& c, const Inst& in) { ds_write(c, in, 2); }
void op_ds_write_b16_d16_hi(Ctx& c, const Inst& in) { ds_write(c, in, 2, true); }
void op_ds_write_b32(Ctx& c, const Inst& in) { ds_write(c, in, 4); }
void op_ds_write_b64(Ctx& c, const Inst& in) { ds_write(c, in, 8); }
void op_ds_write_b128(Ctx& c, const Inst& in) { ds_write(c, in, 16); }
void op_ds_write2_b32(Ctx& c, const Inst& in) { ds_write2(c, in, 4, false); }
void op_ds_write2_b64(Ctx& c, const Inst& in) { ds_write2(c, in, 8, false); }
void op_ds_write2st64_b32(Ctx& c, const Inst& in) { ds_write2(c, in, 4, true); }
void op_ds_write2st64_b64(Ctx& c, const Inst& in) { ds_write2(c, in, 8, true); }

// CDNA4 ISA 11.4 "MFMA Transpose Load from LDS", DS_READ_B64_TR_B16 vdst[2],
// vaddr: every lane reads 64 bits (4 x 16-bit elements) at its own address;
// within each group of 16 lanes the 16x4 block is transposed so that lane i
// of the group receives element (i % 4) of source lanes 4*j + i/4, j = 0..3
// ("Each lane holds 4 consecutive M or N values"; this is the lane mapping
// Triton's chooseDsReadB64TrLayout derives for the instruction). EXEC must be
// all ones.
void op_ds_read_b64_tr_b16(Ctx& c, const Inst& in) {
  if (c.L.gen != Gen::kGfx9 || c.lanes() != 64) c.unsupported(in, "transpose load outside gfx950 wave64");
  need_regs(c, in, 0, 2, "vdst");
  if ((c.exec() & c.w.lane_mask()) != c.w.lane_mask())
    c.unsupported(in, "EXEC not all ones (ISA 11.4 requires it for transpose loads)");
  const Operand& d = in.ops[0];
  uint16_t raw[kLanes][4];
  for (int l = 0; l < 64; ++l) {
    uint32_t buf[2] = {0, 0};
    const uint32_t a = ds_addr(c, in, 1, l);
    if (a & 7u) c.unsupported(in, "LDS address not 8-byte aligned (ISA 11.4 requires data-size alignment)");
    c.lds_read(a, buf, 8);
    raw[l][0] = uint16_t(buf[0]);
    raw[l][1] = uint16_t(buf[0] >> 16);
    raw[l][2] = uint16_t(buf[1]);
    raw[l][3] = uint16_t(buf[1] >> 16);
  }
  Pending& p = c.issue(Counter::kLgkmLds);
  for (int l = 0; l < 64; ++l) {
    const int g = l & ~15, i = l & 15;
    uint16_t e[4];
    for (int j = 0; j < 4; ++j) e[j] = raw[g + 4 * j + (i >> 2)][i & 3];
    c.set_vreg(in, d, l, 0, uint32_t(e[0]) | (uint32_t(e[1]) << 16));
    c.set_vreg(in, d, l, 1, uint32_t(e[2]) | (uint32_t(e[3]) << 16));
  }
  pend_data(c, p, d, 2);
}

// ISA DS_BPERMUTE_B32 vdst, vaddr, vdata [offset:N]: lane i reads
// VGPR[vdata] of lane ((VGPR[vaddr] + offset) / 4) mod wave size; a disabled
// source lane gives 0; only enabled lanes are written.
void op_ds_bpermute_b32(Ctx& c, const Inst& in) {
  need_regs(c, in, 0, 1, "vdst");
  need_regs(c, in, 2, 1, "vdata");
  const Operand& d = in.ops[0];
  const Operand& s = in.ops[2];
  const uint64_t exec = c.exec();
  const uint32_t n = uint32_t(c.lanes());
  uint32_t tmp[kLanes] = {};
  c.each(in, [&](int l) {
    const uint32_t src = ((vaddr32(c, in, 1, l) + uint32_t(in.offset)) / 4u) % n;
    tmp[l] = ((exec >> src) & 1u) ? c.vreg(in, s, int(src), 0) : 0u;
  });
  Pending& p = c.issue(Counter::kLgkmLds);
  p.lds_memory = false;  // a cross-lane exchange: no LDS bytes are read or written
  c.each(in, [&](int l) { c.set_vreg(in, d, l, 0, tmp[l]); });
  pend_data(c, p, d, 1);
}

// ---- DS_SWIZZLE_B32 offset: numeric, or LLVM's symbolic swizzle(...) macro
// (AMDGPU asm syntax): QUAD_PERM (offset[15] = 1, 2-bit lane selects),
// BITMASK_PERM / SWAP / REVERSE / BROADCAST (bitmask mode: and = [4:0],
// or = [9:5], xor = [14:10]).
std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '"')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '"')) --b;
  return s.substr(a, b - a);
}

long to_num(Ctx& c, const Inst& in, const std::string& t) {
  char* end = nullptr;
  const long v = strtol(t.c_str(), &end, 0);
  if (t.empty() || end == nullptr || *end != 0) c.unsupported(in, "swizzle argument '" + t + "'");
  return v;
}

int log2_exact(Ctx& c, const Inst& in, long v, long lo, long hi) {
  if (v < lo || v > hi || (v & (v - 1)) != 0) c.unsupported(in, "swizzle group size");
  int k = 0;
  while ((1L << k) < v) ++k;
  return k;
}

bool swizzle_from_text(Ctx& c, const Inst& in, const std::string& s, uint32_t& off) {
  const size_t p = s.find("swizzle(");
  if (p == std::string::npos) return false;
  const size_t q = s.find(')', p);
  if (q == std::string::npos) c.unsupported(in, "unterminated swizzle(...)");
  const std::string body = s.substr(p + 8, q - p - 8);
  std::vector<std::string> t;
  size_t a = 0;
  while (true) {
    const size_t comma = body.find(',', a);
    t.push_back(trim(body.substr(a, comma == std::string::npos ? std::string::npos : comma - a)));
    if (comma == std::string::npos) break;
    a = comma + 1;
  }
  const std::string& mode = t[0];
  if (mode == "QUAD_PERM") {
    if (t.size() != 5) c.unsupported(in, "swizzle(QUAD_PERM) arity");
    off = 0x8000u;
    for (int k = 0; k < 4; ++k) {
      const long v = to_num(c, in, t[size_t(k) + 1]);
      if (v < 0 || v > 3) c.unsupported(in, "swizzle(QUAD_PERM) lane");
      off |= uint32_t(v) << (2 * k);
    }
  } else if (mode == "BITMASK_PERM") {
    if (t.size() != 2 || t[1].size() != 5) c.unsupported(in, "swizzle(BITMASK_PERM) mask");
    uint32_t andm = 0, orm = 0, xorm = 0;
    for (int bit = 0; bit < 5; ++bit) {
      const char ch = t[1][size_t(4 - bit)];  // leftmost character is lane-id bit 4
      switch (ch) {
        case '0': break;
        case '1': orm |= 1u << bit; break;
        case 'p': andm |= 1u << bit; break;
        case 'i': andm |= 1u << bit; xorm |= 1u << bit; break;
        default: c.unsupported(in, "swizzle(BITMASK_PERM) character");
      }
    }
    off = andm | (orm << 5) | (xorm << 10);
  } else if (mode == "SWAP") {
    if (t.size() != 2) c.unsupported(in, "swizzle(SWAP) arity");
    const long n = to_num(c, in, t[1]);
    log2_exact(c, in, n, 1, 16);
    off = 0x1fu | (uint32_t(n) << 10);
  } else if (mode == "REVERSE") {
    if (t.size() != 2) c.unsupported(in, "swizzle(REVERSE) arity");
    const long n = to_num(c, in, t[1]);
    log2_exact(c, in, n, 2, 32);
    off = 0x1fu | (uint32_t(n - 1) << 10);
  } else if (mode == "BROADCAST") {
    if (t.size() != 3) c.unsupported(in, "swizzle(BROADCAST) arity");
    const long g = to_num(c, in, t[1]);
    const int lg = log2_exact(c, in, g, 2, 32);
    const long lane = to_num(c, in, t[2]);
    if (lane < 0 || lane >= g) c.unsupported(in, "swizzle(BROADCAST) lane");
    off = ((0x1fu << lg) & 0x1fu) | (uint32_t(lane) << 5);
  } else {
    c.unsupported(in, "swizzle mode " + mode);
  }
  return true;
}

// ISA DS_SWIZZLE_B32 vdst, vdata offset:...: offset[15] = 1: QDMode, full
// sharing inside each quad (lane 4q+k reads lane 4q + offset[2k+1:2k]);
// offset[15] = 0: bitmask mode within 32 lanes, j = ((i & and) | or) ^ xor
// (the upper half of a wave64 uses its own 32 lanes). A disabled source lane
// gives 0. Offsets >= 0xC000 (the later FFT / rotate modes) are refused.
void op_ds_swizzle_b32(Ctx& c, const Inst& in) {
  need_regs(c, in, 0, 1, "vdst");
  need_regs(c, in, 1, 1, "vdata");
  uint32_t off = 0;
  if (!swizzle_from_text(c, in, in.extra, off) && !swizzle_from_text(c, in, in.text, off))
    off = uint32_t(in.offset) & 0xffffu;
  if (off >= 0xc000u) c.unsupported(in, "ds_swizzle FFT/rotate offset");
  const Operand& d = in.ops[0];
  const Operand& s = in.ops[1];
  const uint64_t exec = c.exec();
  uint32_t tmp[kLanes] = {};
  c.each(in, [&](int l) {
    int j;
    if (off & 0x8000u) {
      j = (l & ~3) + int((off >> (2 * (l & 3))) & 3u);
    } else {
      const int andm = int(off & 0x1fu), orm = int((off >> 5) & 0x1fu), xorm = int((off >> 10) & 0x1fu);
      j = ((((l & 0x1f) & andm) | orm) ^ xorm) | (l & 0x20);
    }
    tmp[l] = ((exec >> j) & 1u) ? c.vreg(in, s, j, 0) : 0u;
  });
  Pending& p = c.issue(Counter::kLgkmLds);
  p.lds_memory = false;  // a cross-lane exchange: no LDS bytes are read or written
  c.each(in, [&](int l) { c.set_vreg(in, d, l, 0, tmp[l]); });
  pend_data(c, p, d, 1);
}

}  // namespace

void register_memory(OpTable& t) {
  // SMEM
  t.add("s_load_dword", &op_s_load_dword);
  t.add("s_load_dwordx2", &op_s_load_dwordx2);
  t.add("s_load_dwordx4", &op_s_load_dwordx4);
  t.add("s_load_dwordx8", &op_s_load_dwordx8);
  t.add("s_load_dwordx16", &op_s_load_dwordx16);
  // FLAT / GLOBAL
  t.add("flat_load_dword", &op_flat_load_dword);
  t.add("flat_load_dwordx2", &op_flat_load_dwordx2);
  t.add("flat_load_dwordx3", &op_flat_load_dwordx3);
  t.add("flat_load_dwordx4", &op_flat_load_dwordx4);
  t.add("global_load_ushort", &op_global_load_ushort);
  t.add("global_load_dword", &op_global_load_dword);
  t.add("global_load_dwordx2", &op_global_load_dwordx2);
  t.add("global_load_dwordx3", &op_global_load_dwordx3);
  t.add("global_load_dwordx4", &op_global_load_dwordx4);
  t.add("global_store_byte", &op_global_store_byte);
  t.add("global_store_short", &op_global_store_short);
  t.add("global_store_short_d16_hi", &op_global_store_short_d16_hi);
  t.add("global_store_dword", &op_global_store_dword);
  t.add("global_store_dwordx2", &op_global_store_dwordx2);
  t.add("global_store_dwordx3", &op_global_store_dwordx3);
  t.add("global_store_dwordx4", &op_global_store_dwordx4);
  // MUBUF
  t.add("buffer_load_dword", &op_buffer_load_dword);
  t.add("buffer_load_dwordx2", &op_buffer_load_dwordx2);
  t.add("buffer_load_dwordx4", &op_buffer_load_dwordx4);
  t.add("buffer_store_short", &op_buffer_store_short);
  t.add("buffer_store_dword", &op_buffer_store_dword);
  t.add("buffer_store_dwordx2", &op_buffer_store_dwordx2);
  t.add("buffer_store_dwordx4", &op_buffer_store_dwordx4);
  t.add("buffer_gl0_inv", &op_cache_control);
  t.add("buffer_gl1_inv", &op_cache_control);
  t.add("buffer_wbl2", &op_cache_control);
  t.add("buffer_inv", &op_cache_control);
  t.add("global_atomic_add", &op_global_atomic_add);
  // DS
  t.add("ds_read_u16", &op_ds_read_u16);
  t.add("ds_read_b32", &op_ds_read_b32);
  t.add("ds_read_b64", &op_ds_read_b64);
  t.add("ds_read_b128", &op_ds_read_b128);
  t.add("ds_read2_b32", &op_ds_read2_b32);
  t.add("ds_read2_b64", &op_ds_read2_b64);
  t.add("ds_read2st64_b32", &op_ds_read2st64_b32);
  t.add("ds_read2st64_b64", &op_ds_read2st64_b64);
  t.add("ds_read_b64_tr_b16", &op_ds_read_b64_tr_b16);
  t.add("ds_write_b16", &op_ds_write_b16);
  t.add("ds_write_b16_d16_hi", &op_ds_write_b16_d16_hi);
  t.add("ds_write_b32", &op_ds_write_b32);
  t.add("ds_write_b64", &op_ds_write_b64);
  t.add("ds_write_b128", &op_ds_write_b128);
  t.add("ds_write2_b32", &op_ds_write2_b32);
  t.add("ds_write2_b64", &op_ds_write2_b64);
  t.add("ds_write2st64_b32", &op_ds_write2st64_b32);
  t.add("ds_write2st64_b64", &op_ds_write2st64_b64);
  t.add("ds_bpermute_b32", &op_ds_bpermute_b32);
  t.add("ds_swizzle_b32", &op_ds_swizzle_b32);
}

}  // namespace uattn::emu
