// uattn-emu internals: the parsed instruction form, the state of a wave and of
// a workgroup, and the operand accessors every opcode handler uses.
//
// Sources (public): AMD "AMD Instinct MI355X (CDNA4) Instruction Set
// Architecture" reference guide (gfx950) and AMD "RDNA 2 Instruction Set
// Architecture" reference guide (gfx1030), cited by section beside each
// opcode family in the ops_*.cpp files; LLVM's docs/AMDGPUUsage.rst for the
// kernel descriptor and the initial register state (core.cpp).
//
// Register file model: SGPRs are 128 32-bit slots indexed by their operand
// encoding (s0..s105, vcc_lo 106, vcc_hi 107, m0 124, null 125, exec_lo 126,
// exec_hi 127); SCC is a separate bit. VGPRs and AGPRs are [reg][lane] arrays
// of 32-bit values (lane stride 64, also for wave32).
#pragma once
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "uattn/emu/emu.hpp"

namespace uattn::emu {

// An error the kernel (or the emulator's coverage) causes: the launch stops,
// naming kernel, workgroup, wave, address and instruction.
struct EmuError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fail(const std::string& msg);

enum class Gen : uint8_t { kGfx9, kGfx10 };  // gfx950 (CDNA4, GCN encoding) / gfx1030 (RDNA2)

// ---- special SGPR encodings (ISA guides: "Scalar operands", SSRC encodings)
constexpr int kVccLo = 106, kVccHi = 107, kM0 = 124, kNull = 125, kExecLo = 126, kExecHi = 127;
constexpr int kNumSgprSlots = 128;
constexpr int kMaxVgpr = 512, kMaxAgpr = 256, kLanes = 64;

struct Operand {
  enum Kind : uint8_t {
    kNone,
    kSgpr,      // reg = slot (0..127), n = count of 32-bit registers
    kVgpr,      // reg = index, n
    kAgpr,      // reg = index, n
    kScc,       // scc / src_scc
    kInt,       // integer constant: inline (-16..64) or literal; ival
    kFloat,     // inline float constant (0.5, 1.0, 2.0, 4.0, 1/(2pi) and negatives); fval
    kOff,       // "off" (no address / no saddr)
    kOther,     // anything else: text kept for the error message
  };
  Kind kind = kNone;
  uint16_t reg = 0;
  uint8_t n = 1;
  bool neg = false, abs = false, sext = false;
  bool literal = false;  // kInt: not an inline constant (a 32-bit literal word)
  int64_t ival = 0;
  double fval = 0;
  std::string text;
};

enum class Enc : uint8_t { kNative, kE32, kE64, kDpp, kSdwa };

// SDWA selects (ISA: "SDWA" fields SRC0_SEL / SRC1_SEL / DST_SEL, DST_UNUSED)
enum class Sel : uint8_t { kByte0, kByte1, kByte2, kByte3, kWord0, kWord1, kDword };
enum class Unused : uint8_t { kPad, kSext, kPreserve };

struct Ctx;
struct Inst;
using Handler = void (*)(Ctx&, const Inst&);

struct Inst {
  uint64_t addr = 0;      // byte address in the code object
  uint32_t size = 4;      // encoded bytes
  std::string mnemonic;   // as printed, e.g. "v_add_f32_e32"
  std::string base;       // without the encoding suffix: "v_add_f32"
  std::string text;       // the whole line (for messages)
  Enc enc = Enc::kNative;
  Handler fn = nullptr;
  int nops = 0;
  Operand ops[8];
  int src0 = 1;           // operand index of src0 (DPP / SDWA apply to it)
  // memory modifiers
  int64_t offset = 0;     // offset:N
  int offset0 = 0, offset1 = 0;
  bool has_offset = false, offen = false, idxen = false, glc = false, slc = false, dlc = false, lds = false;
  bool sc0 = false, sc1 = false, nt = false;
  // VALU modifiers
  bool clamp = false;
  int omod = 0;           // 0 none, 1 mul:2, 2 mul:4, 3 div:2
  uint8_t op_sel = 0, op_sel_hi = 0x7, neg_lo = 0, neg_hi = 0;
  bool has_op_sel_hi = false;
  uint32_t bitop3 = 0;
  int cbsz = 0, abid = 0, blgp = 0;
  // DPP (ISA: "DPP" fields DPP_CTRL, ROW_MASK, BANK_MASK, BOUND_CTRL, FI)
  enum DppKind : uint8_t { kDppNone, kQuadPerm, kRowShl, kRowShr, kRowRor, kWaveShl, kWaveRol, kWaveShr, kWaveRor,
                           kRowMirror, kRowHalfMirror, kRowBcast15, kRowBcast31, kRowShare, kRowXmask, kRowNewBcast };
  DppKind dpp = kDppNone;
  uint8_t dpp_arg = 0;    // shift / row / quad_perm packed 2 bits each
  uint8_t row_mask = 0xf, bank_mask = 0xf;
  bool bound_ctrl = false, fi = false;
  // SDWA
  Sel src_sel[2] = {Sel::kDword, Sel::kDword};
  Sel dst_sel = Sel::kDword;
  Unused dst_unused = Unused::kPad;
  // s_waitcnt (-1 = not waited on)
  int vmcnt = -1, lgkmcnt = -1, expcnt = -1, vscnt = -1;
  // branches: index of the target instruction in the program (-1 none)
  int64_t target = -1;
  int64_t simm = 0;       // SOPP / SOPK immediate
  bool is_mem = false;    // SMEM / VMEM / FLAT / DS: may write a register whose earlier load is outstanding
  std::string extra;      // unparsed modifiers (hwreg(...), swizzle(...)) for the handler
};

struct Program {
  std::string kernel;
  Gen gen = Gen::kGfx9;
  std::vector<Inst> insts;
  std::map<uint64_t, size_t> by_addr;  // address -> instruction index
};

// Parses llvm-objdump's disassembly of a whole code object into one Program
// per kernel symbol; binds every instruction to its handler (unbound ones keep
// fn = nullptr and fail when executed). `gen` selects the register names.
std::map<std::string, Program> parse_disassembly(const std::string& text, Gen gen);
Handler find_handler(const std::string& base);
// Every registered opcode (base names).
std::vector<std::string> registered_ops();

// ---- outstanding memory operations (s_waitcnt hazards)
enum class Counter : uint8_t { kVm, kLgkmLds, kLgkmSmem, kVs };
struct Pending {
  uint64_t seq;
  Counter ctr;
  uint64_t addr;          // of the issuing instruction
  std::vector<uint16_t> vregs, aregs, sregs;
  uint32_t lds_lo = 0, lds_hi = 0;  // LDS bytes written by a load-to-LDS
  bool lds_memory = true;  // kLgkmLds: reads or writes LDS bytes (ds_bpermute / ds_swizzle do not)
  bool lgkm_too = false;  // FLAT: counted in LGKM_CNT as well (in order with LDS: Ctx::wait)
};

struct Workgroup;
struct LaunchState;

struct Wave {
  int id = 0;             // wave index in the workgroup
  int size = 64;          // lanes
  uint32_t s[kNumSgprSlots] = {};
  bool scc = false;
  std::vector<uint32_t> v, a;  // [reg * kLanes + lane]
  std::vector<uint8_t> v_written, a_written, s_written;
  std::vector<uint64_t> v_pend, a_pend, s_pend;  // seq of the outstanding load that writes it (0 none)
  std::deque<Pending> pending;
  uint64_t next_seq = 1;
  size_t pc = 0;          // instruction index
  bool done = false, at_barrier = false;
  uint64_t executed = 0;  // wave-instructions
  // private (scratch) memory: per lane, byte-addressed
  std::vector<std::vector<uint8_t>> scratch;
  uint32_t mode = 0;      // hardware MODE register (hwreg 1)
  WaveTrace* trace = nullptr;  // LaunchRequest::trace: this wave's record (null: not traced)
  uint64_t exec() const {
    return size == 64 ? (uint64_t(s[kExecHi]) << 32 | s[kExecLo]) : s[kExecLo];
  }
  void set_exec(uint64_t e) {
    s[kExecLo] = uint32_t(e);
    if (size == 64) s[kExecHi] = uint32_t(e >> 32);
    s_written[kExecLo] = s_written[kExecHi] = 1;
  }
  uint64_t vcc() const { return size == 64 ? (uint64_t(s[kVccHi]) << 32 | s[kVccLo]) : s[kVccLo]; }
  uint64_t lane_mask() const { return size == 64 ? ~0ull : 0xffffffffull; }
};

struct LdsAccessInfo {  // per LDS byte: race detection between barriers
  uint32_t w_epoch = 0, r_epoch = 0;
  int16_t w_wave = -1;
  uint64_t r_waves = 0;
};

struct Workgroup {
  uint32_t id[3] = {0, 0, 0};
  std::vector<uint8_t> lds;
  std::vector<LdsAccessInfo> lds_info;  // one per byte
  uint32_t epoch = 1;                   // barriers passed + 1
  std::vector<Wave> waves;
};

// What a launch is told (core.cpp fills it from the code object and the caller).
struct LaunchState {
  const Program* prog = nullptr;
  Gen gen = Gen::kGfx9;
  int wave_size = 64;
  uint32_t grid[3] = {1, 1, 1};   // workgroups
  uint32_t block = 64;            // work-items per workgroup
  uint32_t lds_bytes = 0;         // static + dynamic
  uint32_t denorm_f32 = 3, denorm_f16_64 = 3;  // descriptor FLOAT_DENORM_MODE_* (3 = keep denormals)
  bool ieee = true, dx10_clamp = true;
  std::function<bool(uint64_t, size_t)> valid;  // global memory check (null: no check)
  std::vector<std::string>* warnings = nullptr;
  uint64_t scratch_magic = 0;     // base address given to the private segment buffer
  uint64_t scratch_bytes = 0;     // per lane
  int vgpr_limit = kMaxVgpr, agpr_limit = kMaxAgpr;  // registers the descriptor allocates
  bool check_uninit = true;
  int uninit_reported = 0;
};

// What a handler is handed: the wave, its workgroup, the launch.
struct Ctx {
  Wave& w;
  Workgroup& wg;
  LaunchState& L;
  const Inst* cur = nullptr;
  bool branched = false;   // the handler set w.pc itself
  uint32_t dpp_tmp[kLanes];  // src0 column of a DPP instruction (read before any write)

  Ctx(Wave& wave, Workgroup& group, LaunchState& launch) : w(wave), wg(group), L(launch) {}

  // ---- lanes
  uint64_t exec() const { return w.exec(); }
  int lanes() const { return w.size; }
  // Lanes that execute a VALU instruction: EXEC, plus DPP's row/bank masks and
  // (BOUND_CTRL = 0) lanes whose DPP source lane is invalid (ISA: "DPP").
  uint64_t active(const Inst& in);
  template <class F>
  void each(const Inst& in, F&& f) {
    uint64_t m = active(in);
    while (m) {
      const int l = __builtin_ctzll(m);
      m &= m - 1;
      f(l);
    }
  }

  // ---- raw register access (pending / written checks included)
  uint32_t sgpr(int slot);
  void set_sgpr(int slot, uint32_t v);
  uint32_t vgpr(int reg, int lane);
  void set_vgpr(int reg, int lane, uint32_t v);
  uint32_t agpr(int reg, int lane);
  void set_agpr(int reg, int lane, uint32_t v);
  // Word `word` of a vector-register operand of either file (VGPR or AGPR: gfx950
  // memory, MFMA and cross-lane instructions name both); anything else fails.
  uint32_t vreg(const Inst& in, const Operand& o, int lane, int word = 0);
  void set_vreg(const Inst& in, const Operand& o, int lane, int word, uint32_t v);

  // ---- operand reads: operand `i` of `in` (its position in the text), word
  // `word` of a multi-register operand. Constants resolve by the read's type.
  // DPP / SDWA source transforms apply to the src0 / src1 positions.
  uint32_t u32(const Inst& in, int i, int lane, int word = 0);
  uint64_t u64(const Inst& in, int i, int lane);        // 64-bit integer operand
  float f32(const Inst& in, int i, int lane);           // with abs / neg, denorm mode
  double f64(const Inst& in, int i, int lane);          // with abs / neg
  uint16_t f16bits(const Inst& in, int i, int lane, bool hi);  // 16-bit operand half (op_sel picks hi)
  uint32_t scalar(const Inst& in, int i, int word = 0); // SALU read (SGPR / constant / scc)
  uint64_t scalar64(const Inst& in, int i);
  // The 32-bit pattern an inline float constant stands for in an f16 / f32 / f64 read.
  static uint32_t const_bits32(const Operand& o);
  static uint16_t const_bits16(const Operand& o);
  static uint64_t const_bits64(const Operand& o, bool is_float);

  // ---- operand writes
  void w32(const Inst& in, int i, int lane, uint32_t v, int word = 0);  // VGPR / AGPR / SGPR destination (SDWA dst_sel)
  void w64(const Inst& in, int i, int lane, uint64_t v);
  void wf32(const Inst& in, int i, int lane, float v);  // omod, clamp, then w32
  void wf64(const Inst& in, int i, int lane, double v);
  void w16(const Inst& in, int i, int lane, uint16_t v, bool hi);  // one half, the other kept
  void ws32(const Inst& in, int i, uint32_t v, int word = 0);       // SALU destination
  void ws64(const Inst& in, int i, uint64_t v);
  // A lane mask into a scalar destination (vcc / sN / s[N:N+1]): wave32 writes one SGPR.
  void wmask(const Inst& in, int i, uint64_t mask);
  uint64_t rmask(const Inst& in, int i);                 // lane mask from a scalar operand

  // ---- float helpers (denorm mode of the descriptor / MODE register)
  float flush32(float x) const;   // FLOAT_DENORM_MODE_32: flush when not 3
  bool flush_f32() const { return L.denorm_f32 != 3; }

  // ---- memory (global addresses are host addresses)
  void check_global(uint64_t addr, size_t bytes, bool store);
  void gread(uint64_t addr, void* dst, size_t bytes);
  void gwrite(uint64_t addr, const void* src, size_t bytes);
  // One lane's 32-bit atomic add at a 4-byte aligned global address; returns the
  // value before it. Atomic with respect to every workgroup of the launch (they
  // run on parallel host threads): a sequentially consistent host read-modify-write.
  uint32_t gatomic_add(uint64_t addr, uint32_t v);
  // LDS: out-of-range reads return 0 and writes are dropped (and reported as a fault)
  void lds_read(uint32_t addr, void* dst, size_t bytes);
  void lds_write(uint32_t addr, const void* src, size_t bytes);
  // Private memory of a lane (scratch instructions and the private segment buffer).
  void scratch_read(int lane, uint64_t off, void* dst, size_t bytes);
  void scratch_write(int lane, uint64_t off, const void* src, size_t bytes);

  // ---- outstanding operations: registers written by a load become readable
  // only after the s_waitcnt that covers it (ISA: "Data dependency resolution").
  Pending& issue(Counter c);
  void pend_v(Pending& p, int reg, int n);
  void pend_a(Pending& p, int reg, int n);
  void pend_s(Pending& p, int reg, int n);
  void wait(int vm, int lgkm, int vs);

  // ---- control
  void jump(int64_t index) { w.pc = (size_t)index; branched = true; }
  [[noreturn]] void unsupported(const Inst& in, const std::string& what);
  void note_uninit(const char* file, int reg);
};

// Lane helpers
inline float as_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
inline uint32_t as_u32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
inline double as_f64(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
inline uint64_t as_u64(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

// IEEE binary16 / bfloat16 conversions, round to nearest even (ISA: "Floating
// point conversions"); f32 -> f16 overflows to inf, NaN stays NaN (quiet).
float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);            // round to nearest even
uint16_t f32_to_f16_rtz(float f);        // round toward zero (v_cvt_pkrtz)
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);           // round to nearest even, NaN quieted

// V_BITOP3 (CDNA4): bit i of the result = TTBL[{a[i], b[i], c[i]}], `a` the most
// significant index bit; the 16-bit form uses the low half.
inline uint32_t bitop3(uint32_t ttbl, uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r = 0;
  for (int k = 0; k < 8; ++k)
    if (ttbl >> k & 1) r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
  return r;
}

// Opcode family registration (each ops_*.cpp).
struct OpTable {
  std::map<std::string, Handler> ops;
  void add(const char* name, Handler h) { ops[name] = h; }
};
void register_scalar(OpTable&);
void register_vector(OpTable&);
void register_packed(OpTable&);
void register_mfma(OpTable&);
void register_memory(OpTable&);
void register_lane(OpTable&);

}  // namespace uattn::emu
