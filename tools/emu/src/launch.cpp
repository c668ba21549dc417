// uattn-emu: loading a code object (ELF symbols, kernel descriptors, AMDGPU
// metadata, LLVM's disassembly) and running a launch: the initial register
// state, the kernarg segment with its hidden arguments, workgroups of waves
// scheduled round-robin with s_barrier.
//
// Sources (public):
//   - LLVM docs/AMDGPUUsage.rst: "Kernel Descriptor" (the 64-byte layout and
//     the COMPUTE_PGM_RSRC1/2/3 fields), "Initial Kernel Execution State" (the
//     order of user and system SGPRs, the work-item id VGPRs, packed on
//     gfx90a+), "Code Object V5 Metadata" (hidden kernel arguments),
//     "Preloaded Kernel Arguments" (the 256-byte backward-compatible prologue
//     that loads them itself: execution starts at the entry and runs it).
//   - HSA Platform System Architecture Specification 1.2, "Kernel Dispatch
//     Packet" (hsa_kernel_dispatch_packet_t, 64 bytes) for the dispatch pointer.
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "machine.hpp"
#include "uattn/emu/code_object.hpp"
#include "uattn/emu/emu.hpp"
#include "uattn/input_file.hpp"
#include "uattn/runtime.hpp"  // kMaxBundleBytes

#ifndef UATTN_EMU_OBJDUMP
#define UATTN_EMU_OBJDUMP "llvm-objdump-21"
#endif

namespace uattn::emu {
namespace {

std::string hex(uint64_t a) {
  std::ostringstream m;
  m << "0x" << std::hex << a;
  return m.str();
}

// ---- kernel descriptor fields (AMDGPUUsage "Kernel Descriptor")
constexpr uint32_t kPropPrivateSegmentBuffer = 1u << 0, kPropDispatchPtr = 1u << 1, kPropQueuePtr = 1u << 2,
                   kPropKernargSegmentPtr = 1u << 3, kPropDispatchId = 1u << 4, kPropFlatScratchInit = 1u << 5,
                   kPropPrivateSegmentSize = 1u << 6, kPropWave32 = 1u << 10;

uint32_t bits(uint32_t v, int lo, int n) { return (v >> lo) & ((1u << n) - 1); }

std::string objdump_path() {
  const char* e = getenv("UATTN_OBJDUMP");
  return e && *e ? e : UATTN_EMU_OBJDUMP;
}

// Runs llvm-objdump on `elf` and returns its text (all kernels, or `symbols`).
std::string disassemble(const std::vector<uint8_t>& elf, const std::string& processor,
                        const std::vector<std::string>& symbols) {
  char tmpl[] = "/tmp/uattn-emu-XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("uattn-emu: cannot create a temporary file for the disassembler");
  const bool wrote = write(fd, elf.data(), elf.size()) == (ssize_t)elf.size();
  close(fd);
  if (!wrote) {
    unlink(tmpl);
    throw std::runtime_error("uattn-emu: cannot write the code object to " + std::string(tmpl));
  }
  for (const std::string& sym : symbols)
    for (char ch : sym)
      if (!isalnum((unsigned char)ch) && ch != '_' && ch != '.' && ch != '$')
        throw std::runtime_error("uattn-emu: symbol '" + sym + "' has characters a kernel name does not");
  for (char ch : processor)
    if (!isalnum((unsigned char)ch)) throw std::runtime_error("uattn-emu: processor '" + processor + "' is not a name");
  std::string cmd = "'" + objdump_path() + "' -d --mcpu=" + processor;
  if (!symbols.empty()) {
    cmd += " --disassemble-symbols=";
    for (size_t i = 0; i < symbols.size(); ++i) cmd += (i ? "," : "") + symbols[i];
  }
  cmd += std::string(" '") + tmpl + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  if (p) {
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  }
  const int rc = p ? pclose(p) : -1;
  unlink(tmpl);
  if (rc != 0)
    throw std::runtime_error("uattn-emu: the disassembler failed (" + cmd + ", wait status " + std::to_string(rc) +
                             "; set $UATTN_OBJDUMP to an llvm-objdump that knows " + processor + "): " +
                             out.substr(0, 400));
  return out;
}

struct Symbol { uint64_t value = 0, size = 0; uint16_t shndx = 0; };

// The ELF symbol table (System V gABI): name -> symbol, and a reader of the
// bytes at a virtual address.
struct Elf {
  const std::vector<uint8_t>& img;
  std::map<std::string, Symbol> syms;
  std::vector<Elf64_Shdr> sh;
  explicit Elf(const std::vector<uint8_t>& b) : img(b) {
    if (b.size() < sizeof(Elf64_Ehdr) || memcmp(b.data(), ELFMAG, SELFMAG) != 0)
      throw std::runtime_error("uattn-emu: not an ELF file");
    Elf64_Ehdr eh;
    memcpy(&eh, b.data(), sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != 224 /* EM_AMDGPU */)
      throw std::runtime_error("uattn-emu: not an AMDGPU ELF64 code object (e_machine " +
                               std::to_string(eh.e_machine) + ", expected 224)");
    if (eh.e_shoff + uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > b.size())
      throw std::runtime_error("uattn-emu: section headers beyond the end of the file");
    sh.resize(eh.e_shnum);
    memcpy(sh.data(), b.data() + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
    for (const Elf64_Shdr& s : sh) {
      if (s.sh_type != SHT_SYMTAB && s.sh_type != SHT_DYNSYM) continue;
      if (s.sh_link >= sh.size()) continue;
      const Elf64_Shdr& str = sh[s.sh_link];
      if (s.sh_offset + s.sh_size > b.size() || str.sh_offset + str.sh_size > b.size()) continue;
      for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
        Elf64_Sym y;
        memcpy(&y, b.data() + s.sh_offset + off, sizeof y);
        if (y.st_name >= str.sh_size) continue;
        const char* nm = reinterpret_cast<const char*>(b.data() + str.sh_offset + y.st_name);
        const std::string name(nm, strnlen(nm, str.sh_size - y.st_name));
        if (!name.empty()) syms[name] = Symbol{y.st_value, y.st_size, y.st_shndx};
      }
    }
  }
  // The file offset of virtual address `va` (in a section with file bytes), or ~0.
  uint64_t file_offset(uint64_t va) const {
    for (const Elf64_Shdr& s : sh)
      if (s.sh_type != SHT_NOBITS && s.sh_addr && va >= s.sh_addr && va < s.sh_addr + s.sh_size)
        return s.sh_offset + (va - s.sh_addr);
    return ~0ull;
  }
  // `n` bytes at virtual address `va` of section `shndx`.
  bool read(uint16_t shndx, uint64_t va, void* dst, size_t n) const {
    if (shndx >= sh.size()) return false;
    const Elf64_Shdr& s = sh[shndx];
    if (va < s.sh_addr || va + n > s.sh_addr + s.sh_size || s.sh_type == SHT_NOBITS) return false;
    const uint64_t off = s.sh_offset + (va - s.sh_addr);
    if (off + n > img.size()) return false;
    memcpy(dst, img.data() + off, n);
    return true;
  }
};

// Registers one wave is allocated (GRANULATED_WORKITEM_VGPR_COUNT [5:0] of
// COMPUTE_PGM_RSRC1): gfx90a+ counts VGPRs + AGPRs in granules of 8, AGPRs
// from ACCUM_OFFSET (RSRC3 [5:0], (value + 1) * 4); gfx10 wave32 granules of
// 8, wave64 of 4 (AMDGPUUsage "Kernel Descriptor").
void register_counts(Gen gen, KernelDesc* d) {
  const int g = (int)bits(d->rsrc1, 0, 6) + 1;
  if (gen == Gen::kGfx9) {
    const int total = g * 8;
    const int accum = ((int)bits(d->rsrc3, 0, 6) + 1) * 4;
    d->vgprs = std::min(accum, total);
    d->agprs = total - d->vgprs;
  } else {
    d->vgprs = g * (d->wavefront_size == 32 ? 8 : 4);
    d->agprs = 0;
  }
}

// Instructions with no destination operand (operand 0 is a source).
bool no_destination(const Inst& in) {
  static const char* const kPrefixes[] = {
      "s_waitcnt", "s_barrier", "s_branch", "s_cbranch", "s_endpgm", "s_nop", "s_setprio", "s_sleep",
      "s_sendmsg", "s_set_gpr_idx", "s_cmp", "s_bitcmp", "s_dcache", "s_icache", "s_trap", "s_setreg",
      "s_denorm_mode", "s_round_mode", "s_inst_prefetch", "s_clause", "s_delay_alu", "s_code_end",
      "global_store", "buffer_store", "flat_store", "scratch_store", "ds_write", "ds_store", "s_store",
      "s_buffer_store", "global_atomic", "buffer_atomic", "flat_atomic"};
  for (const char* p : kPrefixes)
    if (in.base.rfind(p, 0) == 0)  // an atomic with GLC (RDNA2) / SC0 (CDNA4) returns the value before it
      return !((in.glc || in.sc0) && in.base.find("atomic") != std::string::npos);
  if (in.lds || in.base.find("_lds_") != std::string::npos) return true;  // loads into LDS
  if (in.base.rfind("v_cmpx", 0) == 0) return in.ops[0].kind != Operand::kSgpr;  // gfx10 e32: EXEC only
  return in.nops == 0;
}

// Instruction::reads / writes of `in` (ids as emu.hpp documents them).
void register_use(const Inst& in, Instruction* out) {
  auto add = [](const Operand& o, std::vector<uint16_t>* v) {
    const int base = o.kind == Operand::kSgpr ? 0 : o.kind == Operand::kVgpr ? kRegVgpr0
                   : o.kind == Operand::kAgpr ? kRegAgpr0 : -1;
    if (base < 0) return;
    for (int r = 0; r < o.n; ++r) v->push_back(uint16_t(base + o.reg + r));
  };
  const int first_src = no_destination(in) ? 0 : 1;
  if (first_src) add(in.ops[0], &out->writes);
  for (int i = first_src; i < in.nops; ++i) add(in.ops[i], &out->reads);
}

// Forms the parser accepts but no handler gives a meaning to: refused by the
// static coverage check and at execution (nothing is ignored silently).
std::string unsupported_form(const Inst& in) {
  if (!in.fn) return "opcode not implemented";
  if (in.idxen) return "idxen (structured buffer)";
  if (in.cbsz || in.abid || in.blgp) return "MFMA cbsz / abid / blgp";
  if (in.omod && (in.base.rfind("v_", 0) != 0)) return "output modifier on a non-VALU opcode";
  if (!in.extra.empty() && in.extra.rfind("hwreg(", 0) != 0 && in.extra.rfind("sendmsg(", 0) != 0 &&
      in.extra.rfind("swizzle(", 0) != 0)
    return "modifier " + in.extra;
  for (int i = 0; i < in.nops; ++i)
    if (in.ops[i].kind == Operand::kOther) return "operand " + in.ops[i].text;
  return "";
}

class CodeObjectImpl final : public CodeObject {
 public:
  explicit CodeObjectImpl(std::vector<uint8_t> elf) : elf_(std::move(elf)) {
    const codeobj::LoadResult r = codeobj::parse_code_object(elf_.data(), elf_.size(), &meta_);
    if (r.error != codeobj::LoadError::kNone) throw std::runtime_error("uattn-emu: " + r.message);
    proc_ = meta_.processor;
    if (std::find(processors().begin(), processors().end(), proc_) == processors().end()) {
      std::string known;
      for (const std::string& p : processors()) known += (known.empty() ? "" : ", ") + p;
      throw std::runtime_error("uattn-emu: processor " + proc_ + ": expected one of " + known);
    }
    gen_ = proc_.rfind("gfx9", 0) == 0 ? Gen::kGfx9 : Gen::kGfx10;
    const Elf e(elf_);
    for (const codeobj::KernelInfo& k : meta_.kernels) {
      auto it = e.syms.find(k.symbol);
      if (it == e.syms.end()) throw std::runtime_error("uattn-emu: kernel " + k.name + ": no symbol " + k.symbol);
      uint8_t kd[64];
      if (!e.read(it->second.shndx, it->second.value, kd, 64))
        throw std::runtime_error("uattn-emu: kernel " + k.name + ": the descriptor " + k.symbol +
                                 " is not 64 readable bytes");
      KernelDesc d;
      d.name = k.name;
      memcpy(&d.group_segment_fixed_size, kd + 0, 4);
      memcpy(&d.private_segment_fixed_size, kd + 4, 4);
      memcpy(&d.kernarg_size, kd + 8, 4);
      memcpy(&d.entry_offset, kd + 16, 8);
      memcpy(&d.rsrc3, kd + 44, 4);
      memcpy(&d.rsrc1, kd + 48, 4);
      memcpy(&d.rsrc2, kd + 52, 4);
      memcpy(&d.code_properties, kd + 56, 2);
      memcpy(&d.kernarg_preload, kd + 58, 2);
      d.kd_addr = it->second.value;
      d.kd_file_offset = e.file_offset(d.kd_addr);
      d.wavefront_size = (d.code_properties & kPropWave32) ? 32 : 64;
      if (d.wavefront_size != k.wavefront_size)
        throw std::runtime_error("uattn-emu: kernel " + k.name + ": the descriptor says wave" +
                                 std::to_string(d.wavefront_size) + ", the metadata .wavefront_size " +
                                 std::to_string(k.wavefront_size));
      register_counts(gen_, &d);
      d.sgprs = (int)k.sgpr_count;
      d.max_flat_workgroup_size = k.max_flat_workgroup_size;
      d.kernarg_segment_size = k.kernarg_segment_size;
      for (const codeobj::KernelArg& a : k.args) d.args.push_back(KernelDesc::Arg{a.value_kind, a.offset, a.size});
      // Which function symbol holds the entry point.
      const uint64_t entry = d.kd_addr + (uint64_t)d.entry_offset;
      for (const auto& [name, s] : e.syms)
        if (s.value == entry && name.find(".kd") == std::string::npos) d.function = name;
      if (d.function.empty()) d.function = k.name;
      kds_[k.name] = std::move(d);
    }
  }

  const std::string& processor() const override { return proc_; }
  std::vector<std::string> kernels() const override {
    std::vector<std::string> v;
    for (auto& [n, d] : kds_) v.push_back(n);
    return v;
  }
  const KernelDesc* kernel(const std::string& name) const override {
    auto it = kds_.find(name);
    return it == kds_.end() ? nullptr : &it->second;
  }

  LaunchResult launch(const LaunchRequest& req) const override;
  std::vector<std::string> unimplemented() const override;
  std::vector<std::pair<std::string, size_t>> opcode_census() const override;
  std::vector<uint8_t> elf() const override { return elf_; }
  std::vector<Instruction> instructions(const std::string& kernel) const override {
    const KernelDesc* d = this->kernel(kernel);
    if (!d) return {};
    const Program& p = program(d->function);
    const Elf e(elf_);
    std::vector<Instruction> out;
    for (const Inst& in : p.insts) {
      Instruction x{in.addr, e.file_offset(in.addr), in.size, in.mnemonic, in.text};
      x.vmcnt = in.vmcnt;
      x.lgkmcnt = in.lgkmcnt;
      x.vscnt = in.vscnt;
      x.is_mem = in.is_mem;
      register_use(in, &x);
      out.push_back(std::move(x));
    }
    return out;
  }

 private:
  const Program& program(const std::string& function) const {
    std::lock_guard<std::mutex> l(mu_);
    auto it = progs_.find(function);
    if (it != progs_.end()) return it->second;
    auto got = parse_disassembly(disassemble(elf_, proc_, {function}), gen_);
    auto f = got.find(function);
    if (f == got.end()) throw std::runtime_error("uattn-emu: the disassembly has no function " + function);
    return progs_.emplace(function, std::move(f->second)).first->second;
  }
  void all_programs() const {
    std::lock_guard<std::mutex> l(mu_);
    if (all_) return;
    for (auto& [n, p] : parse_disassembly(disassemble(elf_, proc_, {}), gen_))
      if (!progs_.count(n)) progs_.emplace(n, std::move(p));
    all_ = true;
  }

  std::vector<uint8_t> elf_;
  codeobj::CodeObject meta_;
  std::string proc_;
  Gen gen_ = Gen::kGfx9;
  std::map<std::string, KernelDesc> kds_;
  mutable std::mutex mu_;
  mutable std::map<std::string, Program> progs_;
  mutable bool all_ = false;
};

std::vector<std::string> CodeObjectImpl::unimplemented() const {
  all_programs();
  std::lock_guard<std::mutex> l(mu_);
  struct Site { size_t n = 0; std::string kernel; uint64_t addr = 0; };
  std::map<std::string, Site> bad;
  for (const auto& [name, p] : progs_)
    for (const Inst& in : p.insts) {
      const std::string why = unsupported_form(in);
      if (why.empty()) continue;
      Site& s = bad[in.mnemonic + ": " + why];
      if (s.n++ == 0) { s.kernel = name; s.addr = in.addr; }
    }
  std::vector<std::string> out;
  for (auto& [k, s] : bad)
    out.push_back(k + " (" + std::to_string(s.n) + " sites, first in " + s.kernel + " at " + hex(s.addr) + ")");
  return out;
}

std::vector<std::pair<std::string, size_t>> CodeObjectImpl::opcode_census() const {
  all_programs();
  std::lock_guard<std::mutex> l(mu_);
  std::map<std::string, size_t> n;
  for (const auto& [name, p] : progs_)
    for (const Inst& in : p.insts) ++n[in.mnemonic];
  return {n.begin(), n.end()};
}

// ---------------------------------------------------------------- launch
constexpr uint32_t kPoison = 0xffffffffu;  // NaN as f32, f16 x2 and bf16 x2
constexpr uint64_t kScratchMagic = 0x0000100000000000ull;  // private-segment aperture (not a host address)

struct KernargBlock {
  std::vector<uint8_t> bytes;  // kernarg segment (16-byte aligned storage)
  uint8_t* base = nullptr;
  size_t size = 0;
  std::vector<uint8_t> packet_storage;
  uint8_t* packet = nullptr;   // hsa_kernel_dispatch_packet_t (64 bytes)
};

// Fills the hidden arguments of the code object v5 metadata (AMDGPUUsage
// "Code Object V5 Metadata", hidden_* value kinds) from the launch.
void fill_hidden(const KernelDesc& d, const LaunchRequest& req, uint8_t* ka) {
  const uint32_t block[3] = {req.block, 1, 1};
  const uint16_t dims = req.grid[2] > 1 ? 3 : req.grid[1] > 1 ? 2 : 1;
  for (const KernelDesc::Arg& a : d.args) {
    if (a.value_kind.rfind("hidden_", 0) != 0) continue;
    uint8_t* p = ka + a.offset;
    auto put = [&](uint64_t v) { memcpy(p, &v, std::min<uint32_t>(a.size, 8)); };
    const std::string& k = a.value_kind;
    if (k == "hidden_block_count_x") put(req.grid[0]);
    else if (k == "hidden_block_count_y") put(req.grid[1]);
    else if (k == "hidden_block_count_z") put(req.grid[2]);
    else if (k == "hidden_group_size_x") put(block[0]);
    else if (k == "hidden_group_size_y") put(block[1]);
    else if (k == "hidden_group_size_z") put(block[2]);
    else if (k == "hidden_remainder_x" || k == "hidden_remainder_y" || k == "hidden_remainder_z") put(0);
    else if (k == "hidden_grid_dims") put(dims);
    else if (k == "hidden_dynamic_lds_size") put(req.dynamic_lds);
    else put(0);  // offsets 0, no printf / hostcall / queue / heap: null
  }
}

struct Runner {
  const KernelDesc& d;
  const Program& prog;
  const LaunchRequest& req;
  LaunchState L;
  KernargBlock ka;
  size_t entry = 0;
  std::vector<uint64_t> hits, exec_changes;  // per instruction index (profile)
  int vgpr_total = 0, agpr_total = 0;
  uint32_t user_sgprs = 0;

  Runner(const KernelDesc& kd, const Program& p, const LaunchRequest& r, Gen gen) : d(kd), prog(p), req(r) {
    L.prog = &prog;
    L.gen = gen;
    L.wave_size = (int)d.wavefront_size;
    for (int i = 0; i < 3; ++i) L.grid[i] = req.grid[i];
    L.block = req.block;
    L.lds_bytes = d.group_segment_fixed_size + req.dynamic_lds;
    // COMPUTE_PGM_RSRC1: FLOAT_DENORM_MODE_32 [17:16], FLOAT_DENORM_MODE_16_64
    // [19:18], ENABLE_DX10_CLAMP [21], ENABLE_IEEE_MODE [23].
    L.denorm_f32 = bits(d.rsrc1, 16, 2);
    L.denorm_f16_64 = bits(d.rsrc1, 18, 2);
    L.dx10_clamp = bits(d.rsrc1, 21, 1);
    L.ieee = bits(d.rsrc1, 23, 1);
    L.scratch_magic = kScratchMagic;
    L.scratch_bytes = d.private_segment_fixed_size;
    vgpr_total = d.vgprs;
    agpr_total = d.agprs;
    L.vgpr_limit = vgpr_total;
    L.agpr_limit = agpr_total;

    // Kernarg segment: explicit bytes from the caller, hidden ones from the launch.
    const size_t explicit_end = [&] {
      size_t e = 0;
      for (const KernelDesc::Arg& a : d.args)
        if (a.value_kind.rfind("hidden_", 0) != 0) e = std::max<size_t>(e, a.offset + a.size);
      return e;
    }();
    if (req.kernarg.size() != explicit_end)
      throw EmuError("kernarg of " + std::to_string(req.kernarg.size()) + " bytes; the kernel's explicit arguments take " +
                     std::to_string(explicit_end) + " (metadata .args)");
    ka.size = std::max<size_t>({(size_t)d.kernarg_size, (size_t)d.kernarg_segment_size, explicit_end, 16});
    ka.bytes.assign(ka.size + 64, 0);
    ka.base = ka.bytes.data() + ((16 - (reinterpret_cast<uintptr_t>(ka.bytes.data()) & 15)) & 15);
    memcpy(ka.base, req.kernarg.data(), req.kernarg.size());
    fill_hidden(d, req, ka.base);
    // hsa_kernel_dispatch_packet_t: setup dims, workgroup_size_x/y/z (u16 at 4/6/8),
    // grid_size_x/y/z in work-items (u32 at 12/16/20), private / group segment
    // sizes (24 / 28), kernel_object (32), kernarg_address (40).
    ka.packet_storage.assign(64 + 64, 0);
    ka.packet = ka.packet_storage.data() + ((64 - (reinterpret_cast<uintptr_t>(ka.packet_storage.data()) & 63)) & 63);
    {
      uint8_t* pk = ka.packet;
      const uint16_t setup = req.grid[2] > 1 ? 3 : req.grid[1] > 1 ? 2 : 1, wx = (uint16_t)req.block, one = 1;
      memcpy(pk + 2, &setup, 2);
      memcpy(pk + 4, &wx, 2);
      memcpy(pk + 6, &one, 2);
      memcpy(pk + 8, &one, 2);
      const uint32_t gx = req.grid[0] * req.block, gy = req.grid[1], gz = req.grid[2];
      memcpy(pk + 12, &gx, 4);
      memcpy(pk + 16, &gy, 4);
      memcpy(pk + 20, &gz, 4);
      memcpy(pk + 24, &d.private_segment_fixed_size, 4);
      memcpy(pk + 28, &L.lds_bytes, 4);
      const uint64_t kaddr = reinterpret_cast<uintptr_t>(ka.base);
      memcpy(pk + 40, &kaddr, 8);
    }
    const uint64_t kb = reinterpret_cast<uintptr_t>(ka.base), ks = ka.size;
    const uint64_t pb = reinterpret_cast<uintptr_t>(ka.packet);
    const auto user_valid = req.valid;
    L.valid = [=](uint64_t a, size_t n) {
      if (a >= kb && n <= ks && a - kb <= ks - n) return true;
      if (a >= pb && n <= 64 && a - pb <= 64 - n) return true;
      return user_valid ? user_valid(a, n) : true;
    };

    auto it = prog.by_addr.find(d.kd_addr + (uint64_t)d.entry_offset);
    if (it == prog.by_addr.end())
      throw EmuError("the entry point " + hex(d.kd_addr + (uint64_t)d.entry_offset) + " is not an instruction of " +
                     prog.kernel);
    entry = it->second;
    user_sgprs = bits(d.rsrc2, 1, 5);
  }

  void init_wave(Wave& w, const Workgroup& wg, int id) {
    w.id = id;
    w.size = L.wave_size;
    w.v.assign((size_t)kMaxVgpr * kLanes, kPoison);
    w.a.assign((size_t)kMaxAgpr * kLanes, kPoison);
    w.v_written.assign(kMaxVgpr, 0);
    w.a_written.assign(kMaxAgpr, 0);
    w.s_written.assign(kNumSgprSlots, 0);
    w.v_pend.assign(kMaxVgpr, 0);
    w.a_pend.assign(kMaxAgpr, 0);
    w.s_pend.assign(kNumSgprSlots, 0);
    for (uint32_t& s : w.s) s = kPoison;
    w.scc = false;
    w.pending.clear();
    w.next_seq = 1;
    w.pc = entry;
    w.done = w.at_barrier = false;
    w.executed = 0;
    w.scratch.assign(kLanes, {});
    w.mode = 0;
    // User SGPRs in AMDGPUUsage's order, then the system SGPRs.
    int s = 0;
    auto put = [&](uint32_t v) { w.s[s] = v; w.s_written[s] = 1; ++s; };
    auto put64 = [&](uint64_t v) { put(uint32_t(v)); put(uint32_t(v >> 32)); };
    const uint32_t cp = d.code_properties;
    if (cp & kPropPrivateSegmentBuffer) {
      // V# of the private segment: base in the scratch aperture, no range check
      // (the emulator keeps each lane's private bytes apart).
      put(uint32_t(kScratchMagic));
      put(uint32_t(kScratchMagic >> 32) & 0xffffu);
      put(0xffffffffu);
      put(L.gen == Gen::kGfx10 ? (2u << 28) : 0u);
    }
    if (cp & kPropDispatchPtr) put64(reinterpret_cast<uintptr_t>(ka.packet));
    if (cp & kPropQueuePtr) put64(0);
    if (cp & kPropKernargSegmentPtr) put64(reinterpret_cast<uintptr_t>(ka.base));
    if (cp & kPropDispatchId) put64(0);
    if (cp & kPropFlatScratchInit) put64(kScratchMagic);
    if (cp & kPropPrivateSegmentSize) put(d.private_segment_fixed_size);
    // Preloaded kernel arguments (KERNARG_PRELOAD_SPEC_LENGTH [6:0] dwords from
    // KERNARG_PRELOAD_SPEC_OFFSET [15:7]): as firmware that preloads would; the
    // prologue at the entry loads the same values again.
    const uint32_t pre_len = bits(d.kernarg_preload, 0, 7), pre_off = bits(d.kernarg_preload, 7, 9);
    for (uint32_t i = 0; i < pre_len && s < (int)user_sgprs; ++i) {
      uint32_t v = 0;
      if ((pre_off + i) * 4 + 4 <= ka.size) memcpy(&v, ka.base + (pre_off + i) * 4, 4);
      put(v);
    }
    if (s != (int)user_sgprs)
      throw EmuError("the descriptor enables " + std::to_string(s) + " user SGPRs, COMPUTE_PGM_RSRC2.USER_SGPR_COUNT says " +
                     std::to_string(user_sgprs));
    // COMPUTE_PGM_RSRC2: ENABLE_PRIVATE_SEGMENT [0], ENABLE_SGPR_WORKGROUP_ID_X/Y/Z
    // [7..9], ENABLE_SGPR_WORKGROUP_INFO [10], ENABLE_VGPR_WORKITEM_ID [12:11].
    if (bits(d.rsrc2, 7, 1)) put(wg.id[0]);
    if (bits(d.rsrc2, 8, 1)) put(wg.id[1]);
    if (bits(d.rsrc2, 9, 1)) put(wg.id[2]);
    if (bits(d.rsrc2, 10, 1)) put(0);
    if (bits(d.rsrc2, 0, 1)) put(0);  // private segment wave byte offset: each lane's bytes are its own
    // Work-item ids: v0 = x (gfx90a+ packs y, z at [19:10], [29:20]: 0 here);
    // gfx10 puts y, z in v1, v2 when enabled.
    const int lanes_here = (int)std::min<uint32_t>(L.wave_size, req.block - (uint32_t)id * L.wave_size);
    for (int l = 0; l < w.size; ++l) w.v[l] = uint32_t(id * L.wave_size + l);
    w.v_written[0] = 1;
    if (L.gen == Gen::kGfx10) {
      const uint32_t en = bits(d.rsrc2, 11, 2);
      if (en >= 1) { for (int l = 0; l < w.size; ++l) w.v[kLanes + l] = 0; w.v_written[1] = 1; }
      if (en >= 2) { for (int l = 0; l < w.size; ++l) w.v[2 * kLanes + l] = 0; w.v_written[2] = 1; }
    }
    w.set_exec(lanes_here >= 64 ? ~0ull : ((1ull << lanes_here) - 1));
    w.s_written[kExecLo] = w.s_written[kExecHi] = 1;
  }

  // Runs one wave until it reaches a barrier, ends, or `budget` instructions.
  void step(Workgroup& wg, Wave& w, int budget) {
    Ctx c(w, wg, L);
    const size_t n = prog.insts.size();
    for (int k = 0; k < budget && !w.done && !w.at_barrier; ++k) {
      if (w.pc >= n) throw EmuError("ran past the end of the kernel's code");
      if (w.executed >= req.max_wave_instructions)
        throw EmuError("the wave executed " + std::to_string(w.executed) +
                       " instructions without ending (LaunchRequest::max_wave_instructions): a runaway loop?");
      const Inst& in = prog.insts[w.pc];
      c.cur = &in;
      c.branched = false;
      if (!in.fn) throw EmuError("opcode " + in.mnemonic + " is not implemented");
      if (in.enc == Enc::kDpp) {
        const Operand& o = in.ops[in.src0];
        if (o.kind != Operand::kVgpr) c.unsupported(in, "DPP source " + o.text + " is not a VGPR");
        (void)c.vgpr(o.reg, 0);  // pending / range checks on the source register
        for (int l = 0; l < w.size; ++l) c.dpp_tmp[l] = w.v[(size_t)o.reg * kLanes + l];
      }
      if (w.trace) {
        const uint64_t m = w.exec() & w.lane_mask();
        w.trace->ops.push_back(TraceOp{uint32_t(w.pc), uint32_t(w.trace->mem.size()), 0, uint8_t(__builtin_popcountll(m))});
      }
      if (hits.empty()) {
        in.fn(c, in);
      } else {
        const uint64_t before = w.exec();
        in.fn(c, in);
        const size_t i = size_t(&in - prog.insts.data());
        ++hits[i];
        exec_changes[i] += w.exec() != before;
      }
      if (w.trace) w.trace->ops.back().mem_count = uint32_t(w.trace->mem.size() - w.trace->ops.back().mem_begin);
      ++w.executed;
      if (!c.branched) ++w.pc;
    }
  }

  // Runs one workgroup to completion; `trace` (may be null) receives its record.
  void run_group(Workgroup& wg, uint32_t x, uint32_t y, uint32_t z, GroupTrace* trace = nullptr) {
    wg.id[0] = x; wg.id[1] = y; wg.id[2] = z;
    wg.lds.assign(L.lds_bytes, 0xff);
    wg.lds_info.assign(L.lds_bytes, LdsAccessInfo{});
    wg.epoch = 1;
    const int nw = (int)((req.block + L.wave_size - 1) / L.wave_size);
    wg.waves.resize(nw);
    for (int i = 0; i < nw; ++i) init_wave(wg.waves[i], wg, i);
    if (trace) {
      trace->id[0] = x; trace->id[1] = y; trace->id[2] = z;
      trace->waves.assign(nw, WaveTrace{});
    }
    for (int i = 0; i < nw; ++i) wg.waves[i].trace = trace ? &trace->waves[i] : nullptr;
    int current = -1;
    try {
      for (;;) {
        bool all_done = true, any_ran = false;
        for (int i = 0; i < nw; ++i) {
          Wave& w = wg.waves[i];
          if (w.done || w.at_barrier) continue;
          current = i;
          step(wg, w, 64);
          any_ran = true;
        }
        int live = 0, waiting = 0;
        for (const Wave& w : wg.waves) {
          if (!w.done) { ++live; all_done = false; }
          if (!w.done && w.at_barrier) ++waiting;
        }
        if (all_done) break;
        if (live == waiting) {  // every wave still running has reached s_barrier
          for (Wave& w : wg.waves) w.at_barrier = false;
          ++wg.epoch;
        } else if (!any_ran) {
          throw EmuError("no wave can run (deadlock)");
        }
      }
    } catch (const EmuError& e) {
      std::ostringstream m;
      m << "kernel " << d.name << ", workgroup (" << x << ", " << y << ", " << z << ")";
      if (current >= 0) {
        const Wave& w = wg.waves[current];
        m << ", wave " << current;
        if (w.pc < prog.insts.size()) m << ", " << hex(prog.insts[w.pc].addr) << " `" << prog.insts[w.pc].text << "`";
      }
      m << ": " << e.what();
      throw EmuError(m.str());
    }
  }
};

LaunchResult CodeObjectImpl::launch(const LaunchRequest& req) const {
  LaunchResult res;
  const auto t0 = std::chrono::steady_clock::now();
  auto finish = [&](bool ok, const std::string& err) {
    res.ok = ok;
    res.error = err;
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };
  const KernelDesc* d = kernel(req.kernel);
  if (!d) return finish(false, "no kernel " + req.kernel + " in the " + proc_ + " code object");
  if (!req.grid[0] || !req.grid[1] || !req.grid[2] || !req.block)
    return finish(false, "kernel " + req.kernel + ": a grid or block dimension is 0");
  if (d->max_flat_workgroup_size && req.block > d->max_flat_workgroup_size)
    return finish(false, "kernel " + req.kernel + ": block of " + std::to_string(req.block) +
                             " work-items > .max_flat_workgroup_size " + std::to_string(d->max_flat_workgroup_size));
  std::unique_ptr<Runner> proto;
  try {
    const Program& prog = program(d->function);
    proto = std::make_unique<Runner>(*d, prog, req, gen_);
  } catch (const std::exception& e) {
    return finish(false, "kernel " + req.kernel + ": " + e.what());
  }
  const uint64_t groups = uint64_t(req.grid[0]) * req.grid[1] * req.grid[2];
  const unsigned threads =
      (unsigned)std::max<uint64_t>(1, std::min<uint64_t>(groups, req.threads ? req.threads : std::max(1u, std::thread::hardware_concurrency())));
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu, trace_mu;
  std::string error;
  uint64_t error_group = ~0ull;
  std::vector<std::string> warnings;
  uint64_t insts = 0, waves = 0, groups_run = 0;
  std::vector<uint64_t> hits, changes;
  auto worker = [&] {
    Runner r = *proto;  // own LaunchState (warning counters)
    if (req.profile) {
      r.hits.assign(r.prog.insts.size(), 0);
      r.exec_changes.assign(r.prog.insts.size(), 0);
    }
    std::vector<std::string> warn;
    r.L.warnings = &warn;
    Workgroup wg;
    uint64_t my_insts = 0, my_waves = 0, my_groups = 0;
    for (;;) {
      const uint64_t g = next.fetch_add(1);
      if (g >= groups || failed.load()) break;
      const uint32_t x = uint32_t(g % req.grid[0]), y = uint32_t(g / req.grid[0] % req.grid[1]),
                     z = uint32_t(g / (uint64_t(req.grid[0]) * req.grid[1]));
      if (req.run_group && !req.run_group(x, y, z)) continue;
      ++my_groups;
      const bool traced = req.trace && (!req.trace_group || req.trace_group(x, y, z));
      GroupTrace gt;
      try {
        r.run_group(wg, x, y, z, traced ? &gt : nullptr);
        if (traced) {
          std::lock_guard<std::mutex> l(trace_mu);
          req.trace(std::move(gt));
        }
      } catch (const std::exception& e) {  // EmuError, or bad_alloc / the caller's valid callback
        std::lock_guard<std::mutex> l(mu);
        if (g < error_group) { error_group = g; error = e.what(); }
        failed = true;
        break;
      }
      for (const Wave& w : wg.waves) my_insts += w.executed;
      my_waves += wg.waves.size();
    }
    std::lock_guard<std::mutex> l(mu);
    if (req.profile) {
      if (hits.empty()) hits.assign(r.hits.size(), 0), changes.assign(r.hits.size(), 0);
      for (size_t i = 0; i < hits.size(); ++i) hits[i] += r.hits[i], changes[i] += r.exec_changes[i];
    }
    insts += my_insts;
    waves += my_waves;
    groups_run += my_groups;
    for (auto& s : warn)
      if (warnings.size() < 16) warnings.push_back(std::move(s));
  };
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < threads; ++i) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  for (size_t i = 0; i < hits.size(); ++i)
    if (hits[i]) res.executed.push_back(LaunchResult::Executed{proto->prog.insts[i].addr, hits[i], changes[i]});
  res.warnings = std::move(warnings);
  res.wave_instructions = insts;
  res.groups_run = groups_run;
  res.waves = waves;
  return finish(error.empty(), error);
}

}  // namespace

std::shared_ptr<CodeObject> CodeObject::load(const std::vector<uint8_t>& elf) {
  return std::make_shared<CodeObjectImpl>(elf);
}

std::shared_ptr<CodeObject> CodeObject::load_file(const std::string& path, const std::string& processor) {
  std::vector<uint8_t> b;
  const std::string why = read_input_file(path, kMaxBundleBytes, "kMaxBundleBytes", &b);
  if (!why.empty()) throw std::runtime_error("uattn-emu: cannot open " + path + " (" + why + ")");
  if (b.size() >= 4 && memcmp(b.data(), ELFMAG, SELFMAG) == 0) {
    auto co = load(b);
    if (!processor.empty() && co->processor() != processor)
      throw std::runtime_error("uattn-emu: " + path + " is a " + co->processor() + " code object, not " + processor);
    return co;
  }
  if (processor.empty())
    throw std::runtime_error("uattn-emu: " + path + " is not an ELF code object; for an offload bundle name the "
                             "architecture (gfx950 or gfx1030)");
  codeobj::CodeObject meta;
  std::vector<uint8_t> elf;
  const codeobj::LoadResult r = codeobj::load_image(b.data(), codeobj::parse_target_id(processor), &meta, &elf);
  if (r.error != codeobj::LoadError::kNone) throw std::runtime_error("uattn-emu: " + path + ": " + r.message);
  return load(elf);
}

const std::vector<std::string>& processors() {
  static const std::vector<std::string> p = {"gfx950", "gfx1030", "gfx1031", "gfx1032"};
  return p;
}

}  // namespace uattn::emu
