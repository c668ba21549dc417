// uattn-emu: an AMDGPU instruction-level emulator that executes the shipped
// code objects (gfx950 wave64, gfx1030 wave32) on the CPU.
//
// Decoding: LLVM's own disassembler (`llvm-objdump-21 -d --mcpu=<processor>`,
// from the toolchain root or $UATTN_OBJDUMP), parsed once per code object.
// Semantics: written from AMD's CDNA4 (gfx950) and RDNA2 (gfx1030) ISA reference
// guides; independent of the host-compiled twin (tests/hostexec). ABI: the
// kernel descriptor and the AMDGPU metadata of the code object itself, the
// initial register state as LLVM's AMDGPUUsage ("Initial Kernel Execution
// State") documents it.
//
// Errors: an unimplemented opcode or modifier, a read of a register before the
// s_waitcnt that covers its load, an LDS race between waves not separated by a
// barrier, an out-of-range LDS access, a global access outside valid memory:
// the launch fails with a message naming kernel, workgroup, wave, address and
// instruction. Reads of never-written registers are reported as warnings.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace uattn::emu {

struct KernelDesc {
  std::string name;
  uint32_t group_segment_fixed_size = 0;  // static LDS bytes (descriptor)
  uint32_t private_segment_fixed_size = 0;
  uint32_t kernarg_size = 0;
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint16_t code_properties = 0;
  uint16_t kernarg_preload = 0;           // KERNARG_PRELOAD_SPEC (gfx950)
  int64_t entry_offset = 0;               // kernel_code_entry_byte_offset
  uint64_t kd_addr = 0;                   // address of "<name>.kd"
  uint64_t kd_file_offset = 0;            // where its 64 bytes lie in the ELF file
  uint32_t wavefront_size = 64;
  uint32_t max_flat_workgroup_size = 0;   // metadata
  uint32_t kernarg_segment_size = 0;      // metadata
  std::string function;                   // the function symbol at the entry point
  struct Arg { std::string value_kind; uint32_t offset = 0, size = 0; };
  std::vector<Arg> args;                  // metadata, explicit then hidden
  // Registers one wave is allocated, from the descriptor (COMPUTE_PGM_RSRC1
  // GRANULATED_WORKITEM_VGPR_COUNT; gfx90a+ unified file split at RSRC3
  // ACCUM_OFFSET): what bounds waves per SIMD. sgprs: the metadata's .sgpr_count.
  int vgprs = 0, agprs = 0, sgprs = 0;
};

// Valid global memory as a set of [base, base + bytes) ranges, for
// LaunchRequest::valid: `contains(addr, n)` is true when the n bytes from addr
// lie inside one range (no wrap-around).
class RangeSet {
 public:
  void add(uint64_t base, uint64_t bytes) { r_.emplace_back(base, bytes); sorted_ = false; }
  bool contains(uint64_t a, uint64_t n) const {
    if (!sorted_) { std::sort(r_.begin(), r_.end()); sorted_ = true; }
    auto it = std::upper_bound(r_.begin(), r_.end(), std::make_pair(a, ~uint64_t(0)));
    if (it == r_.begin()) return false;
    --it;
    return a >= it->first && n <= it->second && a - it->first <= it->second - n;
  }
  // As a LaunchRequest::valid callback (the set must outlive the launch).
  std::function<bool(uint64_t, size_t)> callback() const {
    contains(0, 0);  // sort before workers share it
    return [this](uint64_t a, size_t n) { return contains(a, n); };
  }
 private:
  mutable std::vector<std::pair<uint64_t, uint64_t>> r_;
  mutable bool sorted_ = true;
};

// One decoded instruction (LLVM's disassembly), for tools and binary-level tests.
struct Instruction {
  uint64_t addr = 0, file_offset = 0;  // virtual address; byte offset in the ELF file
  uint32_t size = 4;                   // encoded bytes
  std::string mnemonic, text;          // "v_mfma_f32_16x16x32_f16", the whole line
  // s_waitcnt / s_waitcnt_vscnt counts (-1: that counter is not waited on).
  int vmcnt = -1, lgkmcnt = -1, vscnt = -1;
  bool is_mem = false;                 // SMEM / VMEM / FLAT / DS (results reach registers through s_waitcnt)
  // Registers read and written, one id per 32-bit register: SGPR slot 0..127
  // (vcc, exec, m0 by their slots), VGPR 256 + n, AGPR 768 + n. Writes are the
  // destination operand (operand 0) of instructions that have one; memory
  // instructions list the registers their loads fill.
  std::vector<uint16_t> reads, writes;
};
constexpr uint16_t kRegVgpr0 = 256, kRegAgpr0 = 768;

// ---- dynamic trace (LaunchRequest::trace): per wave, every instruction issued.
// Memory space of one lane's access.
enum class Space : uint8_t { kGlobal, kLds, kScratch };
struct TraceMem {
  uint64_t addr = 0;    // global: host address; LDS: byte offset in the workgroup's LDS; scratch: lane offset
  uint32_t bytes = 0;
  Space space = Space::kGlobal;
  bool store = false;
};
struct TraceOp {
  uint32_t inst = 0;       // index into CodeObject::instructions(kernel)
  uint32_t mem_begin = 0;  // its lane accesses: WaveTrace::mem[mem_begin, mem_begin + mem_count)
  uint32_t mem_count = 0;
  uint8_t lanes = 0;       // popcount of EXEC when issued
};
struct WaveTrace {
  std::vector<TraceOp> ops;
  std::vector<TraceMem> mem;
};
struct GroupTrace {
  uint32_t id[3] = {0, 0, 0};
  std::vector<WaveTrace> waves;  // by wave index in the workgroup
};

struct LaunchRequest {
  std::string kernel;
  uint32_t grid[3] = {1, 1, 1};   // workgroups per dimension
  uint32_t block = 64;            // work-items per workgroup (1-D)
  uint32_t dynamic_lds = 0;       // bytes added to the descriptor's static LDS
  // The explicit kernel arguments as laid out by the metadata (hidden
  // arguments are filled by the emulator from grid / block).
  std::vector<uint8_t> kernarg;
  // Global memory check: true when [addr, addr+bytes) may be accessed. Null:
  // every address is accessed as host memory unchecked.
  std::function<bool(uint64_t addr, size_t bytes)> valid;
  unsigned threads = 0;           // host threads running workgroups (0: one per core)
  // A wave that executes more instructions than this fails the launch (a
  // runaway loop, say in a mutated code object).
  uint64_t max_wave_instructions = 200000000;
  bool profile = false;           // count the waves that executed each instruction
  // Dynamic trace: when `trace` is set, each workgroup that `trace_group`
  // accepts (null: every one) is recorded and handed to `trace` once it has
  // finished, one call at a time (from the worker threads). Off: one branch per
  // instruction and per memory access.
  std::function<bool(uint32_t x, uint32_t y, uint32_t z)> trace_group;
  std::function<void(GroupTrace&&)> trace;
  // Workgroups to execute (null: every one). A workgroup it rejects is not run
  // at all: nothing it would write is written (LaunchResult::groups_run counts
  // the others). For a model that samples alike workgroups (tools/model).
  std::function<bool(uint32_t x, uint32_t y, uint32_t z)> run_group;
};

struct LaunchResult {
  bool ok = true;
  std::string error;
  std::vector<std::string> warnings;
  uint64_t wave_instructions = 0; // executed, all waves
  uint64_t waves = 0;
  uint64_t groups_run = 0;        // workgroups executed (all of the grid unless run_group)
  double seconds = 0;             // host time of the emulation
  // profile: per instruction executed at least once, in address order: its
  // address, the waves that executed it, and how many of those executions
  // changed EXEC.
  struct Executed { uint64_t addr = 0, waves = 0, exec_changes = 0; };
  std::vector<Executed> executed;
};

// The processors whose ISA the emulator runs: gfx950 (CDNA4) and gfx1030-gfx1032,
// which share the RDNA2 ISA (LLVM's gfx10-3-generic target). A code object for
// another processor is refused by CodeObject::load.
const std::vector<std::string>& processors();

class CodeObject {
 public:
  // `elf`: one AMDGPU ELF code object. Throws std::runtime_error naming what is
  // wrong (not an AMDGPU ELF, no kernel descriptors, disassembler missing).
  static std::shared_ptr<CodeObject> load(const std::vector<uint8_t>& elf);
  // `path`: an ELF code object (.co / .hsaco), or an offload bundle (plain or
  // compressed) from which the code object for `processor` is taken. Read with
  // read_input_file() (uattn/input_file.hpp): a FIFO, a folder or a file above
  // kMaxBundleBytes is refused, naming the path and why.
  static std::shared_ptr<CodeObject> load_file(const std::string& path, const std::string& processor = "");
  virtual ~CodeObject() = default;
  virtual const std::string& processor() const = 0;  // one of processors()
  virtual std::vector<std::string> kernels() const = 0;
  virtual const KernelDesc* kernel(const std::string& name) const = 0;
  virtual LaunchResult launch(const LaunchRequest& req) const = 0;
  // Every opcode + operand form in the object that the emulator does not
  // implement: "<mnemonic> (<n> sites, first in <kernel> at 0x...)".
  virtual std::vector<std::string> unimplemented() const = 0;
  // Opcode -> count of static sites, over every kernel.
  virtual std::vector<std::pair<std::string, size_t>> opcode_census() const = 0;
  virtual std::vector<uint8_t> elf() const = 0;  // the code object's bytes
  // The instructions of a kernel's function in address order (empty: no such kernel).
  virtual std::vector<Instruction> instructions(const std::string& kernel) const = 0;
};

}  // namespace uattn::emu
