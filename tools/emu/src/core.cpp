// uattn-emu core: operand access with DPP / SDWA / modifiers, the register
// file's written and pending state, memory with its checks, the s_waitcnt
// model, workgroup scheduling with s_barrier, and the ISA conversions shared
// by the opcode families.
#include <algorithm>
#include <sstream>

#include "machine.hpp"

namespace uattn::emu {

void fail(const std::string& msg) { throw EmuError(msg); }

// ---------------------------------------------------------------- registry
namespace {
OpTable& table() {
  static OpTable t = [] {
    OpTable x;
    register_scalar(x);
    register_vector(x);
    register_packed(x);
    register_mfma(x);
    register_memory(x);
    register_lane(x);
    return x;
  }();
  return t;
}
}  // namespace

Handler find_handler(const std::string& base) {
  auto it = table().ops.find(base);
  return it == table().ops.end() ? nullptr : it->second;
}
std::vector<std::string> registered_ops() {
  std::vector<std::string> v;
  for (auto& [k, h] : table().ops) v.push_back(k);
  return v;
}

// ---------------------------------------------------------------- conversions
// IEEE 754 binary16 / bfloat16 (ISA guides: "Floating point data types").
float f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0x1f) return as_f32(sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0));
  if (exp == 0) return (sign ? -1.0f : 1.0f) * std::ldexp((float)man, -24);
  return as_f32(sign | ((exp + 112) << 23) | (man << 13));
}

static uint16_t f32_to_f16_mode(float f, bool rtz) {
  const uint32_t u = as_u32(f);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return uint16_t(sign | 0x7e00 | ((a >> 13) & 0x3ff));  // NaN: quiet, payload kept
  if (a == 0x7f800000u) return uint16_t(sign | 0x7c00);
  const int e = int(a >> 23) - 127;
  if (e > 15) return rtz ? uint16_t(sign | 0x7bff) : uint16_t(sign | 0x7c00);
  uint32_t man = (a & 0x7fffff) | 0x800000;  // 24 bits with the hidden one
  int shift;
  uint32_t base;
  if (e >= -14) {
    shift = 13;
    base = uint32_t(e + 15) << 10;
    man &= 0x7fffff;
  } else {
    shift = 13 + (-14 - e);
    base = 0;
    if (shift > 24) return sign;  // below half the smallest subnormal: rounds to 0 (rtz / rne alike at > 25)
  }
  uint32_t q = man >> shift;
  const uint32_t rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (!rtz && (rem > half || (rem == half && (q & 1)))) ++q;
  uint32_t r = base + q;  // carries into the exponent correctly
  if (!rtz && r >= 0x7c00) r = 0x7c00;
  return uint16_t(sign | r);
}
uint16_t f32_to_f16(float f) { return f32_to_f16_mode(f, false); }
uint16_t f32_to_f16_rtz(float f) { return f32_to_f16_mode(f, true); }
float bf16_to_f32(uint16_t h) { return as_f32(uint32_t(h) << 16); }
uint16_t f32_to_bf16(float f) {
  uint32_t u = as_u32(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

// ---------------------------------------------------------------- Ctx: registers
[[noreturn]] void Ctx::unsupported(const Inst& in, const std::string& what) {
  fail("unsupported form of " + in.mnemonic + ": " + what);
}

static std::string hexaddr(uint64_t a) {
  std::ostringstream m;
  m << "0x" << std::hex << a;
  return m.str();
}

// A register written while a load into it is outstanding: the load's data,
// returning later, would overwrite the new value (ISA: "Data dependency
// resolution"; the compiler waits before such a write).
static void pending_write(const char* file, int reg, uint64_t seq, const Wave& w, const Inst* cur) {
  if (cur && cur->is_mem) return;
  for (const Pending& p : w.pending)
    if (p.seq == seq)
      fail(std::string("write of ") + file + std::to_string(reg) + " while its load at " + hexaddr(p.addr) +
           " is outstanding (the load would overwrite it)");
}

static void pending_read(const char* file, int reg, uint64_t seq, const Wave& w) {
  for (const Pending& p : w.pending)
    if (p.seq == seq)
      fail(std::string("read of ") + file + std::to_string(reg) + " before the s_waitcnt covering its load at " +
           hexaddr(p.addr));
  fail(std::string("read of ") + file + std::to_string(reg) + " while its load is outstanding");
}

void Ctx::note_uninit(const char* file, int reg) {
  if (!L.check_uninit || !L.warnings || L.uninit_reported >= 8) return;
  ++L.uninit_reported;
  L.warnings->push_back(std::string("read of never-written ") + file + std::to_string(reg) + " by " +
                        (cur ? cur->text : std::string("?")));
}

uint32_t Ctx::sgpr(int slot) {
  if (slot == kNull) return 0;
  if (w.s_pend[slot]) pending_read("s", slot, w.s_pend[slot], w);
  if (!w.s_written[slot]) note_uninit("s", slot);
  return w.s[slot];
}
void Ctx::set_sgpr(int slot, uint32_t v) {
  if (slot == kNull) return;
  if (slot >= kNumSgprSlots) fail("SGPR slot " + std::to_string(slot) + " out of range");
  if (w.s_pend[slot]) pending_write("s", slot, w.s_pend[slot], w, cur);
  w.s[slot] = v;
  w.s_written[slot] = 1;
  w.s_pend[slot] = 0;
}
uint32_t Ctx::vgpr(int reg, int lane) {
  if (reg >= L.vgpr_limit)
    fail("v" + std::to_string(reg) + " beyond the " + std::to_string(L.vgpr_limit) + " VGPRs the descriptor allocates");
  if (w.v_pend[reg]) pending_read("v", reg, w.v_pend[reg], w);
  if (!w.v_written[reg]) note_uninit("v", reg);
  return w.v[(size_t)reg * kLanes + lane];
}
void Ctx::set_vgpr(int reg, int lane, uint32_t v) {
  if (reg >= L.vgpr_limit)
    fail("v" + std::to_string(reg) + " beyond the " + std::to_string(L.vgpr_limit) + " VGPRs the descriptor allocates");
  if (w.v_pend[reg]) pending_write("v", reg, w.v_pend[reg], w, cur);
  w.v[(size_t)reg * kLanes + lane] = v;
  w.v_written[reg] = 1;
  w.v_pend[reg] = 0;
}
uint32_t Ctx::agpr(int reg, int lane) {
  if (reg >= L.agpr_limit)
    fail("a" + std::to_string(reg) + " beyond the " + std::to_string(L.agpr_limit) + " AGPRs the descriptor allocates");
  if (w.a_pend[reg]) pending_read("a", reg, w.a_pend[reg], w);
  if (!w.a_written[reg]) note_uninit("a", reg);
  return w.a[(size_t)reg * kLanes + lane];
}
void Ctx::set_agpr(int reg, int lane, uint32_t v) {
  if (reg >= L.agpr_limit)
    fail("a" + std::to_string(reg) + " beyond the " + std::to_string(L.agpr_limit) + " AGPRs the descriptor allocates");
  if (w.a_pend[reg]) pending_write("a", reg, w.a_pend[reg], w, cur);
  w.a[(size_t)reg * kLanes + lane] = v;
  w.a_written[reg] = 1;
  w.a_pend[reg] = 0;
}
uint32_t Ctx::vreg(const Inst& in, const Operand& o, int lane, int word) {
  if (o.kind == Operand::kVgpr) return vgpr(o.reg + word, lane);
  if (o.kind == Operand::kAgpr) return agpr(o.reg + word, lane);
  unsupported(in, "operand " + o.text + " is not a VGPR / AGPR");
}
void Ctx::set_vreg(const Inst& in, const Operand& o, int lane, int word, uint32_t v) {
  if (o.kind == Operand::kVgpr) return set_vgpr(o.reg + word, lane, v);
  if (o.kind == Operand::kAgpr) return set_agpr(o.reg + word, lane, v);
  unsupported(in, "destination " + o.text + " is not a VGPR / AGPR");
}

// ---------------------------------------------------------------- DPP
// ISA (CDNA4 / RDNA2): "Data Parallel Processing (DPP)": rows of 16 lanes, banks
// of 4 lanes; a lane whose source lane is out of range or disabled reads 0 when
// BOUND_CTRL is set, else the lane is not written.
static int dpp_source(const Inst& in, int lane, int wave) {
  const int row = lane & ~15, r = lane & 15;
  switch (in.dpp) {
    case Inst::kQuadPerm: return (lane & ~3) | ((in.dpp_arg >> (2 * (lane & 3))) & 3);
    case Inst::kRowShl: return r + in.dpp_arg < 16 ? lane + in.dpp_arg : -1;
    case Inst::kRowShr: return r - in.dpp_arg >= 0 ? lane - in.dpp_arg : -1;
    case Inst::kRowRor: return row | ((r - in.dpp_arg) & 15);
    case Inst::kWaveShl: return lane + 1 < wave ? lane + 1 : -1;
    case Inst::kWaveShr: return lane - 1 >= 0 ? lane - 1 : -1;
    case Inst::kWaveRol: return (lane + 1) % wave;
    case Inst::kWaveRor: return (lane + wave - 1) % wave;
    case Inst::kRowMirror: return row | (15 - r);
    case Inst::kRowHalfMirror: return (lane & ~7) | (7 - (lane & 7));
    case Inst::kRowBcast15: return row >= 16 ? row - 1 : -1;   // lane 15 of the previous row
    case Inst::kRowBcast31: return lane >= 32 ? 31 : -1;        // lane 31 to rows 2 and 3
    case Inst::kRowShare: return row | (in.dpp_arg & 15);       // RDNA2: lane N of the same row
    case Inst::kRowXmask: return row | (r ^ (in.dpp_arg & 15)); // RDNA2
    case Inst::kRowNewBcast: return row | (in.dpp_arg & 15);    // CDNA4 (gfx950): lane N of each row
    default: return lane;
  }
}

uint64_t Ctx::active(const Inst& in) {
  uint64_t m = w.exec() & w.lane_mask();
  if (in.enc != Enc::kDpp) return m;
  uint64_t out = 0;
  for (int l = 0; l < w.size; ++l) {
    if (!(m >> l & 1)) continue;
    const int row = l >> 4, bank = (l >> 2) & 3;
    if (!(in.row_mask >> row & 1) || !(in.bank_mask >> bank & 1)) continue;
    const int src = dpp_source(in, l, w.size);
    const bool src_ok = src >= 0 && src < w.size && (in.fi || (w.exec() >> src & 1));
    if (!src_ok && !in.bound_ctrl) continue;
    out |= 1ull << l;
  }
  return out;
}

// ---------------------------------------------------------------- operand reads
uint32_t Ctx::const_bits32(const Operand& o) {
  if (o.kind == Operand::kFloat) return as_u32((float)o.fval);
  return uint32_t(o.ival);
}
uint16_t Ctx::const_bits16(const Operand& o) {
  if (o.kind == Operand::kFloat) {
    // 1/(2pi) has its own 16-bit pattern (0x3118), like every inline float
    return f32_to_f16((float)o.fval);
  }
  return uint16_t(o.ival);
}
uint64_t Ctx::const_bits64(const Operand& o, bool is_float) {
  if (o.kind == Operand::kFloat) return as_u64(o.fval);
  if (o.literal && is_float) return uint64_t(uint32_t(o.ival)) << 32;  // a 64-bit float literal is the high word
  if (o.literal) return uint64_t(uint32_t(o.ival));
  return uint64_t(o.ival);  // inline integers sign-extend
}

static uint32_t sdwa_select(uint32_t v, Sel s, bool sext) {
  auto ext = [&](uint32_t x, int bits) {
    if (sext && (x >> (bits - 1) & 1)) return x | ~((1u << bits) - 1);
    return x;
  };
  switch (s) {
    case Sel::kByte0: return ext(v & 0xff, 8);
    case Sel::kByte1: return ext((v >> 8) & 0xff, 8);
    case Sel::kByte2: return ext((v >> 16) & 0xff, 8);
    case Sel::kByte3: return ext(v >> 24, 8);
    case Sel::kWord0: return ext(v & 0xffff, 16);
    case Sel::kWord1: return ext(v >> 16, 16);
    default: return v;
  }
}

uint32_t Ctx::u32(const Inst& in, int i, int lane, int word) {
  const Operand& o = in.ops[i];
  uint32_t v = 0;
  switch (o.kind) {
    case Operand::kVgpr:
      if (in.enc == Enc::kDpp && i == in.src0 && word == 0) {
        const int src = dpp_source(in, lane, w.size);
        const bool ok = src >= 0 && src < w.size && (in.fi || (w.exec() >> src & 1));
        v = ok ? dpp_tmp[src] : 0;
      } else {
        v = vgpr(o.reg + word, lane);
      }
      break;
    case Operand::kAgpr: v = agpr(o.reg + word, lane); break;
    case Operand::kSgpr: v = sgpr(o.reg + word); break;
    case Operand::kScc: v = w.scc; break;
    case Operand::kInt:
    case Operand::kFloat: v = word == 0 ? const_bits32(o) : uint32_t(const_bits64(o, false) >> 32); break;
    default: fail("operand " + o.text + " of " + in.mnemonic + " is not a value");
  }
  if (in.enc == Enc::kSdwa && (i == in.src0 || i == in.src0 + 1))
    v = sdwa_select(v, in.src_sel[i - in.src0], o.sext);
  return v;
}

uint64_t Ctx::u64(const Inst& in, int i, int lane) {
  const Operand& o = in.ops[i];
  if (o.kind == Operand::kInt || o.kind == Operand::kFloat) return const_bits64(o, false);
  return uint64_t(u32(in, i, lane, 0)) | uint64_t(u32(in, i, lane, 1)) << 32;
}

float Ctx::flush32(float x) const {
  if (L.denorm_f32 != 3 && std::fpclassify(x) == FP_SUBNORMAL) return std::copysign(0.0f, x);
  return x;
}

float Ctx::f32(const Inst& in, int i, int lane) {
  const Operand& o = in.ops[i];
  float f = o.kind == Operand::kFloat ? (float)o.fval : as_f32(u32(in, i, lane));
  if (o.abs) f = std::fabs(f);
  if (o.neg) f = -f;
  return flush32(f);
}

double Ctx::f64(const Inst& in, int i, int lane) {
  const Operand& o = in.ops[i];
  double d = (o.kind == Operand::kInt || o.kind == Operand::kFloat) ? as_f64(const_bits64(o, true))
                                                                    : as_f64(u64(in, i, lane));
  if (o.abs) d = std::fabs(d);
  if (o.neg) d = -d;
  return d;
}

uint16_t Ctx::f16bits(const Inst& in, int i, int lane, bool hi) {
  const Operand& o = in.ops[i];
  if (o.kind == Operand::kInt || o.kind == Operand::kFloat) {
    const uint16_t c = const_bits16(o);
    return hi ? 0 : c;
  }
  const uint32_t v = u32(in, i, lane);
  return hi ? uint16_t(v >> 16) : uint16_t(v);
}

uint32_t Ctx::scalar(const Inst& in, int i, int word) {
  const Operand& o = in.ops[i];
  switch (o.kind) {
    case Operand::kSgpr: return sgpr(o.reg + word);
    case Operand::kScc: return w.scc;
    case Operand::kInt:
    case Operand::kFloat: return word == 0 ? const_bits32(o) : uint32_t(const_bits64(o, false) >> 32);
    default: fail("operand " + o.text + " of " + in.mnemonic + " is not a scalar value");
  }
}
uint64_t Ctx::scalar64(const Inst& in, int i) {
  const Operand& o = in.ops[i];
  if (o.kind == Operand::kInt || o.kind == Operand::kFloat) return const_bits64(o, false);
  return uint64_t(scalar(in, i, 0)) | uint64_t(scalar(in, i, 1)) << 32;
}

// ---------------------------------------------------------------- operand writes
void Ctx::w32(const Inst& in, int i, int lane, uint32_t v, int word) {
  const Operand& o = in.ops[i];
  if (in.enc == Enc::kSdwa && i == 0 && in.dst_sel != Sel::kDword) {
    const uint32_t old = o.kind == Operand::kVgpr ? w.v[(size_t)o.reg * kLanes + lane] : 0;
    int sh = 0, bits = 32;
    switch (in.dst_sel) {
      case Sel::kByte0: sh = 0; bits = 8; break;
      case Sel::kByte1: sh = 8; bits = 8; break;
      case Sel::kByte2: sh = 16; bits = 8; break;
      case Sel::kByte3: sh = 24; bits = 8; break;
      case Sel::kWord0: sh = 0; bits = 16; break;
      case Sel::kWord1: sh = 16; bits = 16; break;
      default: break;
    }
    const uint32_t fm = (bits == 32 ? ~0u : ((1u << bits) - 1)) << sh;
    const uint32_t field = (v << sh) & fm;
    uint32_t rest = 0;
    if (in.dst_unused == Unused::kPreserve) rest = old & ~fm;
    else if (in.dst_unused == Unused::kSext && (field >> (sh + bits - 1) & 1)) rest = ~((1u << (sh + bits)) - 1);
    v = field | rest;
  }
  switch (o.kind) {
    case Operand::kVgpr: set_vgpr(o.reg + word, lane, v); break;
    case Operand::kAgpr: set_agpr(o.reg + word, lane, v); break;
    case Operand::kSgpr: set_sgpr(o.reg + word, v); break;
    default: fail("destination " + o.text + " of " + in.mnemonic + " is not a register");
  }
}
void Ctx::w64(const Inst& in, int i, int lane, uint64_t v) {
  w32(in, i, lane, uint32_t(v), 0);
  w32(in, i, lane, uint32_t(v >> 32), 1);
}
void Ctx::wf32(const Inst& in, int i, int lane, float f) {
  // output modifiers (ISA: "Output modifiers": omod, then clamp to [0, 1])
  if (in.omod == 1) f *= 2;
  else if (in.omod == 2) f *= 4;
  else if (in.omod == 3) f *= 0.5f;
  if (in.clamp) f = std::isnan(f) ? 0.0f : std::min(1.0f, std::max(0.0f, f));
  w32(in, i, lane, as_u32(flush32(f)));
}
void Ctx::wf64(const Inst& in, int i, int lane, double d) {
  if (in.omod == 1) d *= 2;
  else if (in.omod == 2) d *= 4;
  else if (in.omod == 3) d *= 0.5;
  if (in.clamp) d = std::isnan(d) ? 0.0 : std::min(1.0, std::max(0.0, d));
  w64(in, i, lane, as_u64(d));
}
void Ctx::w16(const Inst& in, int i, int lane, uint16_t v, bool hi) {
  const Operand& o = in.ops[i];
  if (o.kind != Operand::kVgpr) fail("16-bit destination " + o.text + " of " + in.mnemonic + " is not a VGPR");
  const uint32_t old = w.v[(size_t)o.reg * kLanes + lane];
  const uint32_t nv = hi ? (old & 0xffffu) | uint32_t(v) << 16 : (old & 0xffff0000u) | v;
  set_vgpr(o.reg, lane, nv);
}
void Ctx::ws32(const Inst& in, int i, uint32_t v, int word) {
  const Operand& o = in.ops[i];
  if (o.kind != Operand::kSgpr) fail("scalar destination " + o.text + " of " + in.mnemonic + " is not an SGPR");
  set_sgpr(o.reg + word, v);
}
void Ctx::ws64(const Inst& in, int i, uint64_t v) {
  ws32(in, i, uint32_t(v), 0);
  ws32(in, i, uint32_t(v >> 32), 1);
}
void Ctx::wmask(const Inst& in, int i, uint64_t mask) {
  const Operand& o = in.ops[i];
  if (o.kind != Operand::kSgpr) fail("mask destination " + o.text + " of " + in.mnemonic + " is not an SGPR");
  set_sgpr(o.reg, uint32_t(mask));
  if (w.size == 64) set_sgpr(o.reg + 1, uint32_t(mask >> 32));
}
uint64_t Ctx::rmask(const Inst& in, int i) {
  const Operand& o = in.ops[i];
  if (o.kind == Operand::kInt) return uint64_t(o.ival) & w.lane_mask();
  if (o.kind != Operand::kSgpr) fail("mask operand " + o.text + " of " + in.mnemonic + " is not an SGPR");
  uint64_t m = sgpr(o.reg);
  if (w.size == 64) m |= uint64_t(sgpr(o.reg + 1)) << 32;
  return m;
}

// ---------------------------------------------------------------- memory
void Ctx::check_global(uint64_t addr, size_t bytes, bool store) {
  if (addr + bytes < addr || addr >> 48)  // past the 48-bit virtual address space (or wrapped)
    fail(std::string(store ? "store of " : "load of ") + std::to_string(bytes) + " bytes at " + hexaddr(addr) +
         ", outside the 48-bit address space");
  if (L.valid && !L.valid(addr, bytes))
    fail(std::string(store ? "store of " : "load of ") + std::to_string(bytes) + " bytes at " + hexaddr(addr) +
         ", outside every valid allocation");
}
// LaunchRequest::trace: one lane's access, appended to the current instruction's record.
static inline void trace_mem(Wave& w, uint64_t addr, size_t bytes, Space sp, bool store) {
  if (w.trace) w.trace->mem.push_back(TraceMem{addr, uint32_t(bytes), sp, store});
}

void Ctx::gread(uint64_t addr, void* dst, size_t bytes) {
  check_global(addr, bytes, false);
  trace_mem(w, addr, bytes, Space::kGlobal, false);
  memcpy(dst, reinterpret_cast<const void*>(addr), bytes);
}
void Ctx::gwrite(uint64_t addr, const void* src, size_t bytes) {
  check_global(addr, bytes, true);
  trace_mem(w, addr, bytes, Space::kGlobal, true);
  memcpy(reinterpret_cast<void*>(addr), src, bytes);
}
// The workgroups' plain global stores before it (in program order, on this host
// thread) happen before any read of the value it returns to another workgroup:
// the release / acquire of a sequentially consistent read-modify-write.
uint32_t Ctx::gatomic_add(uint64_t addr, uint32_t v) {
  check_global(addr, 4, true);
  if (addr & 3) fail("atomic at " + hexaddr(addr) + ", not 4-byte aligned");
  trace_mem(w, addr, 4, Space::kGlobal, true);
  return __atomic_fetch_add(reinterpret_cast<uint32_t*>(addr), v, __ATOMIC_SEQ_CST);
}

// LDS race check: a byte touched by two waves between two barriers, one of the
// accesses a write (the host engine's rule; ISA: LDS ordering between waves is
// only guaranteed by s_barrier after s_waitcnt lgkmcnt(0)). Tracked per byte:
// waves that write different halves of one dword do not race. Two waves
// writing the same value to a byte do not race either (the result is the same
// in either order: compilers store replicated values this way, e.g. Triton's
// layout conversions); a different value does.
static void lds_track(Ctx& c, uint32_t addr, size_t bytes, bool write, const uint8_t* src = nullptr) {
  if (c.wg.waves.size() < 2) return;
  const uint32_t e = c.wg.epoch;
  const int me = c.w.id;
  const uint64_t end = std::min<uint64_t>(uint64_t(addr) + bytes, c.wg.lds_info.size());
  for (uint64_t b = addr; b < end; ++b) {
    LdsAccessInfo& a = c.wg.lds_info[b];
    if (a.w_epoch == e && a.w_wave != me && !(write && src && src[b - addr] == c.wg.lds[b]))
      fail("LDS race: byte at " + std::to_string(b) + " written by wave " + std::to_string(a.w_wave) +
           (write ? " and written" : " and read") + " by wave " + std::to_string(me) + " with no barrier between");
    if (write && a.r_epoch == e && (a.r_waves & ~(1ull << me)))
      fail("LDS race: byte at " + std::to_string(b) + " read by another wave and written by wave " +
           std::to_string(me) + " with no barrier between");
    if (write) {
      a.w_epoch = e;
      a.w_wave = (int16_t)me;
    } else {
      if (a.r_epoch != e) a.r_waves = 0;
      a.r_epoch = e;
      a.r_waves |= 1ull << (me & 63);
    }
  }
}

void Ctx::lds_read(uint32_t addr, void* dst, size_t bytes) {
  if ((uint64_t)addr + bytes > wg.lds.size())
    fail("LDS read of " + std::to_string(bytes) + " bytes at " + std::to_string(addr) + " beyond the " +
         std::to_string(wg.lds.size()) + " bytes allocated (descriptor + dynamic)");
  for (const Pending& p : w.pending)
    if (p.lds_hi > p.lds_lo && addr < p.lds_hi && addr + bytes > p.lds_lo)
      fail("LDS read at " + std::to_string(addr) + " before the s_waitcnt covering the load-to-LDS at " +
           hexaddr(p.addr));
  lds_track(*this, addr, bytes, false);
  trace_mem(w, addr, bytes, Space::kLds, false);
  memcpy(dst, wg.lds.data() + addr, bytes);
}
void Ctx::lds_write(uint32_t addr, const void* src, size_t bytes) {
  if ((uint64_t)addr + bytes > wg.lds.size())
    fail("LDS write of " + std::to_string(bytes) + " bytes at " + std::to_string(addr) + " beyond the " +
         std::to_string(wg.lds.size()) + " bytes allocated (descriptor + dynamic)");
  lds_track(*this, addr, bytes, true, static_cast<const uint8_t*>(src));
  trace_mem(w, addr, bytes, Space::kLds, true);
  memcpy(wg.lds.data() + addr, src, bytes);
}
void Ctx::scratch_read(int lane, uint64_t off, void* dst, size_t bytes) {
  std::vector<uint8_t>& s = w.scratch[lane];
  if (off + bytes > L.scratch_bytes)
    fail("scratch read at " + std::to_string(off) + " beyond the kernel's private segment of " +
         std::to_string(L.scratch_bytes) + " bytes");
  if (s.size() < L.scratch_bytes) s.resize(L.scratch_bytes, 0);
  trace_mem(w, off, bytes, Space::kScratch, false);
  memcpy(dst, s.data() + off, bytes);
}
void Ctx::scratch_write(int lane, uint64_t off, const void* src, size_t bytes) {
  std::vector<uint8_t>& s = w.scratch[lane];
  if (off + bytes > L.scratch_bytes)
    fail("scratch write at " + std::to_string(off) + " beyond the kernel's private segment of " +
         std::to_string(L.scratch_bytes) + " bytes");
  if (s.size() < L.scratch_bytes) s.resize(L.scratch_bytes, 0);
  trace_mem(w, off, bytes, Space::kScratch, true);
  memcpy(s.data() + off, src, bytes);
}

// ---------------------------------------------------------------- waitcnt
Pending& Ctx::issue(Counter c) {
  w.pending.push_back(Pending{w.next_seq++, c, cur ? cur->addr : 0, {}, {}, {}, 0, 0});
  return w.pending.back();
}
void Ctx::pend_v(Pending& p, int reg, int n) {
  for (int r = reg; r < reg + n; ++r) { p.vregs.push_back((uint16_t)r); w.v_pend[r] = p.seq; }
}
void Ctx::pend_a(Pending& p, int reg, int n) {
  for (int r = reg; r < reg + n; ++r) { p.aregs.push_back((uint16_t)r); w.a_pend[r] = p.seq; }
}
void Ctx::pend_s(Pending& p, int reg, int n) {
  for (int r = reg; r < reg + n; ++r) { p.sregs.push_back((uint16_t)r); w.s_pend[r] = p.seq; }
}

static void retire(Wave& w, const Pending& p) {
  for (uint16_t r : p.vregs) if (w.v_pend[r] == p.seq) w.v_pend[r] = 0;
  for (uint16_t r : p.aregs) if (w.a_pend[r] == p.seq) w.a_pend[r] = 0;
  for (uint16_t r : p.sregs) if (w.s_pend[r] == p.seq) w.s_pend[r] = 0;
}

// ISA "S_WAITCNT": VM_CNT counts vector memory operations, which return in
// issue order (gfx10: loads only; stores in VS_CNT); LGKM_CNT counts LDS and
// FLAT and SMEM (out of order: only lgkmcnt(0) guarantees an SMEM result). A
// FLAT operation sits in both counters and is complete when either wait covers
// it; LDS and FLAT are taken in issue order within LGKM_CNT, as the waits LLVM
// emits for this project's gfx1030 kernels rely on (an lgkmcnt(3) covering the
// oldest of ds_read, flat_load, flat_load, ds_read).
void Ctx::wait(int vm, int lgkm, int vs) {
  // Retires the oldest entries of one counter down to `keep`; returns the
  // youngest FLAT entry retired (0: none).
  auto retire_ctr = [&](int keep, auto in_ctr) -> uint64_t {
    uint64_t flat = 0;
    if (keep < 0) return flat;
    int n = 0;
    for (const Pending& p : w.pending) n += in_ctr(p);
    int drop = n - keep;
    for (auto it = w.pending.begin(); it != w.pending.end() && drop > 0;) {
      if (in_ctr(*it)) {
        if (it->lgkm_too) flat = it->seq;
        retire(w, *it);
        it = w.pending.erase(it);
        --drop;
      } else {
        ++it;
      }
    }
    return flat;
  };
  retire_ctr(vm, [](const Pending& p) { return p.ctr == Counter::kVm; });
  retire_ctr(vs, [](const Pending& p) { return p.ctr == Counter::kVs; });
  // A FLAT operation retired through LGKM_CNT has returned its data; vector
  // memory returns in issue order, so every older VM_CNT operation has too.
  const uint64_t flat = retire_ctr(lgkm, [](const Pending& p) { return p.ctr == Counter::kLgkmLds || p.lgkm_too; });
  if (flat) retire_ctr(0, [flat](const Pending& p) { return p.ctr == Counter::kVm && p.seq < flat; });
  if (lgkm == 0) retire_ctr(0, [](const Pending& p) { return p.ctr == Counter::kLgkmSmem; });
}

}  // namespace uattn::emu
