// Binary-level mutants of the shipped code objects (label isa): each patches the
// bytes of one kernel of this build's uattn_<arch>.co, the way a compiler or
// packaging bug would, and the instruction-level emulator (tools/emu) must
// refuse the result, or its output must miss the fp64 reference:
//   WaitcntRemoved    the kernel's first s_waitcnt becomes s_nop 0 (a load's
//                     result read before the wait that covers it);
//   WaitcntBeforeBarrierRemoved  the s_waitcnt lgkmcnt(0) before an s_barrier of
//                     a multi-wave instance becomes s_nop 0 (LDS accesses left
//                     outstanding across the barrier);
//   MfmaSourcesSwapped  the SRC0 / SRC1 fields of one v_mfma the problem
//                     executes are exchanged (gfx950 only: gfx1030 has no MFMA);
//   LdsShrunk         the kernel descriptor's GROUP_SEGMENT_FIXED_SIZE halved
//                     (refused by the loader), then the metadata's too (an LDS
//                     access beyond the allocation);
//   ExecRestoreDropped  an `s_or_b64 exec, exec, s[..]` (gfx950) /
//                     `s_or_b32 exec_lo, exec_lo, s..` (gfx1030) that ends a
//                     divergent region becomes s_nop 0 (chosen from the
//                     emulator's profile of the unmutated run).
// Encodings: s_nop 0 is SOPP 0xBF800000 on both architectures; VOP3P-MAI keeps
// SRC0 in bits [8:0] and SRC1 in bits [17:9] of its second dword (AMD CDNA4 ISA
// guide, "VOP3P-MAI"). The unmutated kernel passes the same problem first, so a
// mutant caught is the mutation's doing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "run.hpp"

using namespace uattn;

namespace {

constexpr uint32_t kSNop0 = 0xBF800000u;

struct Mutant {
  std::string kernel;   // the instance mutated
  std::string what;     // the instruction / field changed
  uint64_t addr = 0;    // the instruction's address
  std::shared_ptr<emu::CodeObject> co;
};

std::shared_ptr<emu::CodeObject> base_object(Arch a) {
  return emu::CodeObject::load_file(std::string(UATTN_CODE_OBJECT_DIR) + "/uattn_" + to_string(a) + ".co");
}

std::vector<std::string> ci_instances(Arch a) {
  std::vector<std::string> out;
  std::ifstream in(UATTN_INSTANCE_LIST);
  std::string line;
  const std::string prefix = std::string("uattn_") + to_string(a) + "_2d_";
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  return out;
}

// The first instance of the ci subset (2D, `a`) with an instruction `pick`
// accepts; the mutation `patch` applied to the ELF bytes there. `executed_only`:
// only an instruction the unmutated run of the instance on its problem
// executes (the emulator's profile; a kernel may hold code the problem does
// not reach, such as the lone-wave tiles' first-tile copies).
using Pick = std::function<bool(const std::vector<emu::Instruction>&, size_t)>;
const InstanceRow* row_of(const std::string& name);
std::set<uint64_t> executed_addresses(Arch a, const std::string& k);
Mutant mutate(Arch a, const Pick& pick, const std::function<void(std::vector<uint8_t>&, const emu::Instruction&)>& patch,
              bool multi_wave = false, bool executed_only = false) {
  auto base = base_object(a);
  for (const std::string& k : ci_instances(a)) {
    if (multi_wave) {
      const InstanceRow* r = row_of(k);
      if (!r || r->waves < 2) continue;
    }
    const std::vector<emu::Instruction> insts = base->instructions(k);
    const std::set<uint64_t> ran = executed_only ? executed_addresses(a, k) : std::set<uint64_t>{};
    for (size_t i = 0; i < insts.size(); ++i)
      if (pick(insts, i) && (!executed_only || ran.count(insts[i].addr))) {
        const emu::Instruction& in = insts[i];
        std::vector<uint8_t> elf = base->elf();
        patch(elf, in);
        return Mutant{k, in.text, in.addr, emu::CodeObject::load(elf)};
      }
  }
  return Mutant{};
}

uattn::testing::ProblemSpec spec_for(const InstanceRow& r) {
  uattn::testing::ProblemSpec s{};
  s.q_dtype = r.q_dtype;
  s.kv_dtype = r.kv_dtype;
  s.out_dtype = r.q_dtype;
  s.head_size = r.head_size;
  s.block_size = r.block_size > 0 ? r.block_size : 16;
  s.num_kv_heads = 2;
  s.num_q_heads = 8;
  s.seqs = {{1, 37}, {17, 40}};
  // Every feature the instance compiles in, so its code paths run.
  if (r.features & kFeatWindow) s.window = 23;
  if (r.features & kFeatSoftcap) { s.softcap = 12.0f; s.softmax_scale = 1.0f; }
  s.alibi = (r.features & kFeatAlibi) != 0;
  s.qq_bias = (r.features & kFeatQQBias) != 0;
  s.sinks = (r.features & kFeatSinks) != 0;
  if (s.kv_dtype == DType::fp8e4m3) { s.k_scale = 0.75f; s.v_scale = 1.25f; }
  s.seed = 7;
  return s;
}

const InstanceRow* row_of(const std::string& name) {
  for (const InstanceRow& r : all_rows())
    if (name == r.name) return &r;
  return nullptr;
}

// Instance `k` alone, 2D, on the code objects in the emulator.
exec::RunOptions isa_options(Arch a, const std::string& k) {
  exec::RunOptions o;
  o.arch = a;
  o.engine = exec::Engine::kIsa;
  o.select.filter = k;
  o.select.path = ForcePath::k2D;
  return o;
}

std::set<uint64_t> executed_addresses(Arch a, const std::string& k) {
  std::set<uint64_t> out;
  const InstanceRow* r = row_of(k);
  if (!r) return out;
  auto prob = uattn::testing::make_problem(spec_for(*r), exec::guarded_allocator());
  exec::RunOptions o = isa_options(a, k);
  o.profile = true;
  const exec::RunResult res = exec::run_problem(*prob, o);
  if (!res.ok) {
    ADD_FAILURE() << k << " unmutated: " << res.error;
    return out;
  }
  for (const auto& e : res.executed) out.insert(e.addr);
  return out;
}

// Runs the instance of `m` on one problem with the original and with the mutant.
void expect_caught(Arch a, const Mutant& m) {
  ASSERT_FALSE(m.kernel.empty()) << "no ci instance has the instruction to mutate";
  const InstanceRow* r = row_of(m.kernel);
  ASSERT_NE(r, nullptr);
  auto prob = uattn::testing::make_problem(spec_for(*r), exec::guarded_allocator());
  exec::RunOptions o = isa_options(a, m.kernel);
  const exec::RunResult good = exec::run_problem(*prob, o);
  ASSERT_TRUE(good.ok) << m.kernel << " unmutated: " << good.error;
  o.code_object = m.co;
  const exec::RunResult bad = exec::run_problem(*prob, o);
  EXPECT_FALSE(bad.ok) << m.kernel << ": the mutant (" << m.what << ") was not caught";
  std::printf("%s: %s -> %s\n", m.kernel.c_str(), m.what.c_str(), bad.error.substr(0, 300).c_str());
}

void put32(std::vector<uint8_t>& elf, uint64_t off, uint32_t v) { memcpy(elf.data() + off, &v, 4); }

class IsaMutant : public ::testing::TestWithParam<Arch> {};

TEST_P(IsaMutant, WaitcntRemoved) {
  const Mutant m = mutate(
      GetParam(), [](const std::vector<emu::Instruction>& v, size_t i) { return v[i].mnemonic == "s_waitcnt"; },
      [](std::vector<uint8_t>& e, const emu::Instruction& i) { put32(e, i.file_offset, kSNop0); });
  expect_caught(GetParam(), m);
}

TEST_P(IsaMutant, WaitcntBeforeBarrierRemoved) {
  // The s_waitcnt lgkmcnt(0) right before an s_barrier, in the first multi-wave
  // 2D instance of the ci subset that executes one, in decreasing order of how
  // often the unmutated run executed it (the emulator's profile). A wait with no
  // LDS access outstanding is redundant; at least one of the first four must be
  // caught (LDS accesses left outstanding across the barrier), each printed.
  const Arch a = GetParam();
  auto base = base_object(a);
  for (const std::string& k : ci_instances(a)) {
    const InstanceRow* r = row_of(k);
    if (!r || r->waves < 2) continue;
    const std::vector<emu::Instruction> v = base->instructions(k);
    auto prob = uattn::testing::make_problem(spec_for(*r), exec::guarded_allocator());
    exec::RunOptions o = isa_options(a, k);
    o.profile = true;
    const exec::RunResult res = exec::run_problem(*prob, o);
    ASSERT_TRUE(res.ok) << k << " unmutated: " << res.error;
    std::vector<std::pair<uint64_t, size_t>> cands;  // (executions, index)
    for (size_t i = 0; i + 1 < v.size(); ++i) {
      if (v[i].mnemonic != "s_waitcnt" || v[i].text.find("lgkmcnt(0)") == std::string::npos ||
          v[i + 1].mnemonic != "s_barrier")
        continue;
      for (const auto& e : res.executed)
        if (e.addr == v[i].addr) cands.emplace_back(e.waves, i);
    }
    if (cands.empty()) continue;
    std::sort(cands.rbegin(), cands.rend());
    int caught = 0;
    o.profile = false;
    for (size_t c = 0; c < cands.size() && c < 4; ++c) {
      std::vector<uint8_t> elf = base->elf();
      put32(elf, v[cands[c].second].file_offset, kSNop0);
      o.code_object = emu::CodeObject::load(elf);
      const exec::RunResult bad = exec::run_problem(*prob, o);
      caught += !bad.ok;
      std::printf("%s: %s (executed by %llu waves) -> %s\n", k.c_str(), v[cands[c].second].text.substr(0, 80).c_str(),
                  (unsigned long long)cands[c].first, bad.ok ? "not caught (redundant)" : bad.error.substr(0, 200).c_str());
    }
    EXPECT_GT(caught, 0) << k << ": no removed wait before a barrier was caught";
    return;
  }
  FAIL() << "no multi-wave ci instance executes an s_waitcnt lgkmcnt(0) before an s_barrier";
}

TEST_P(IsaMutant, ExecRestoreDropped) {
  // In the first 2D instance of the ci subset whose restores the problem
  // exercises: its restores followed by vector work before EXEC is written again
  // (not by the restore of an enclosing region, which would re-enable the same
  // lanes), in decreasing order
  // of how often they re-enabled lanes in the unmutated run (the emulator's
  // profile). A restore whose re-enabled lanes hold no further live work (an
  // epilogue after the last store) is benign; at least one of the first four
  // must be caught, and the outcome of each is printed.
  const bool w64 = arch_record(GetParam()).wave_size == 64;
  auto base = base_object(GetParam());
  for (const std::string& k : ci_instances(GetParam())) {
    const InstanceRow* r = row_of(k);
    if (!r) continue;
    auto prob = uattn::testing::make_problem(spec_for(*r), exec::guarded_allocator());
    exec::RunOptions o = isa_options(GetParam(), k);
    o.profile = true;
    const exec::RunResult res = exec::run_problem(*prob, o);
    ASSERT_TRUE(res.ok) << k << " unmutated: " << res.error;
    const std::vector<emu::Instruction> v = base->instructions(k);
    std::vector<std::pair<uint64_t, size_t>> cands;  // (exec changes, index)
    auto restore = [w64](const emu::Instruction& x) {
      return x.size == 4 && (w64 ? x.text.rfind("s_or_b64 exec, exec, s", 0) == 0
                                 : x.text.rfind("s_or_b32 exec_lo, exec_lo, s", 0) == 0);
    };
    // Vector work under the restored mask: a VALU instruction that writes a VGPR
    // (not v_readlane / v_readfirstlane / v_cmp, which write SGPRs) before EXEC
    // is written again.
    auto vector_work_follows = [&](size_t i) {
      for (size_t j = i + 1; j < v.size() && j < i + 64; ++j) {
        const std::string& t = v[j].text;
        if ((t.find(" exec") != std::string::npos && t.find(" exec") < t.find(',')) ||
            t.find("saveexec") != std::string::npos ||
            t.rfind("v_cmpx", 0) == 0)
          return false;  // EXEC written (explicitly, by s_*_saveexec_*, or by v_cmpx)
        if (t.rfind("v_", 0) == 0 && t.rfind("v_readlane", 0) != 0 && t.rfind("v_readfirstlane", 0) != 0 &&
            t.rfind("v_cmp", 0) != 0)
          return true;
      }
      return false;
    };
    for (size_t i = 0; i + 1 < v.size(); ++i) {
      if (!restore(v[i]) || !vector_work_follows(i)) continue;
      for (const auto& e : res.executed)
        if (e.addr == v[i].addr && e.exec_changes) cands.emplace_back(e.exec_changes, i);
    }
    if (cands.empty()) continue;
    std::sort(cands.rbegin(), cands.rend());
    int caught = 0;
    for (size_t c = 0; c < cands.size() && c < 4; ++c) {
      std::vector<uint8_t> elf = base->elf();
      put32(elf, v[cands[c].second].file_offset, kSNop0);
      o.code_object = emu::CodeObject::load(elf);
      o.profile = false;
      const exec::RunResult bad = exec::run_problem(*prob, o);
      caught += !bad.ok;
      std::printf("%s: %s (re-enabled lanes in %llu wave-executions) -> %s\n", k.c_str(),
                  v[cands[c].second].text.substr(0, 80).c_str(), (unsigned long long)cands[c].first,
                  bad.ok ? "not caught (benign)" : bad.error.substr(0, 200).c_str());
    }
    EXPECT_GT(caught, 0) << k << ": no dropped exec restore was caught";
    return;
  }
  FAIL() << "no ci instance executes an exec restore on the problem";
}

// Rewrites the MessagePack integer after the last ".group_segment_fixed_size"
// key before kernel `k`'s ".name" entry (keys are sorted within a kernel's map)
// to `v`, keeping its width. False when the pattern is not found.
bool patch_metadata_lds(std::vector<uint8_t>& elf, const std::string& k, uint32_t v) {
  const std::string key = ".group_segment_fixed_size";
  std::string name = ".name";
  auto find = [&](const std::string& pat, size_t from) {
    auto it = std::search(elf.begin() + (long)from, elf.end(), pat.begin(), pat.end());
    return it == elf.end() ? std::string::npos : size_t(it - elf.begin());
  };
  // ".name" then the msgpack string of the kernel name.
  size_t at = std::string::npos;
  for (size_t p = find(name, 0); p != std::string::npos; p = find(name, p + 1)) {
    const size_t s = p + name.size();
    if (s + 1 + k.size() <= elf.size() && std::equal(k.begin(), k.end(), elf.begin() + (long)s + 1 + (elf[s] == 0xd9)) &&
        (elf[s] == 0xa0 + k.size() || (elf[s] == 0xd9 && elf[s + 1] == k.size()))) {
      at = p;
      break;
    }
  }
  if (at == std::string::npos) return false;
  size_t kp = std::string::npos;
  for (size_t p = find(key, 0); p != std::string::npos && p < at; p = find(key, p + 1)) kp = p;
  if (kp == std::string::npos) return false;
  uint8_t* q = elf.data() + kp + key.size();
  if (q[0] < 0x80 && v < 0x80) q[0] = (uint8_t)v;
  else if (q[0] == 0xcc) q[1] = (uint8_t)v;
  else if (q[0] == 0xcd) { q[1] = (uint8_t)(v >> 8); q[2] = (uint8_t)v; }
  else if (q[0] == 0xce) { q[1] = (uint8_t)(v >> 24); q[2] = (uint8_t)(v >> 16); q[3] = (uint8_t)(v >> 8); q[4] = (uint8_t)v; }
  else return false;
  return true;
}

TEST_P(IsaMutant, LdsShrunk) {
  auto base = base_object(GetParam());
  Mutant m;
  for (const std::string& k : ci_instances(GetParam())) {
    const emu::KernelDesc* d = base->kernel(k);
    if (!d || d->group_segment_fixed_size < 256) continue;
    std::vector<uint8_t> elf = base->elf();
    const uint32_t half = d->group_segment_fixed_size / 2;
    put32(elf, d->kd_file_offset, half);  // GROUP_SEGMENT_FIXED_SIZE: bytes 0-3 of the descriptor
    // The descriptor alone disagrees with the metadata: the loader refuses it.
    try {
      emu::CodeObject::load(elf);
      ADD_FAILURE() << k << ": a descriptor that disagrees with the metadata was loaded";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("group_segment_fixed_size"), std::string::npos) << e.what();
    }
    // Descriptor and metadata shrunk together: the kernel's own LDS accesses overrun.
    ASSERT_TRUE(patch_metadata_lds(elf, k, half)) << k << ": metadata entry not found";
    m = Mutant{k, "GROUP_SEGMENT_FIXED_SIZE " + std::to_string(d->group_segment_fixed_size) + " -> " + std::to_string(half),
               0, emu::CodeObject::load(elf)};
    break;
  }
  expect_caught(GetParam(), m);
}

TEST_P(IsaMutant, MfmaSourcesSwapped) {
  if (arch_record(GetParam()).matrix_insn != MatrixInsn::mfma_32x32x16)
    GTEST_SKIP() << to_string(GetParam()) << " has no MFMA";
  const Mutant m = mutate(
      GetParam(),
      [](const std::vector<emu::Instruction>& v, size_t i) { return v[i].mnemonic.rfind("v_mfma_", 0) == 0 && v[i].size == 8; },
      [](std::vector<uint8_t>& e, const emu::Instruction& i) {
        uint32_t w1;
        memcpy(&w1, e.data() + i.file_offset + 4, 4);
        const uint32_t s0 = w1 & 0x1ffu, s1 = (w1 >> 9) & 0x1ffu;
        w1 = (w1 & ~0x3ffffu) | s1 | (s0 << 9);
        memcpy(e.data() + i.file_offset + 4, &w1, 4);
      },
      /*multi_wave=*/false, /*executed_only=*/true);
  ASSERT_FALSE(m.kernel.empty());
  // The patched instruction must still decode as the same MFMA with the sources exchanged.
  for (const emu::Instruction& in : m.co->instructions(m.kernel))
    if (in.addr == m.addr) {
      std::printf("mutated: %s\n   was: %s\n", in.text.c_str(), m.what.c_str());
      break;
    }
  expect_caught(GetParam(), m);
}

INSTANTIATE_TEST_SUITE_P(Arch, IsaMutant, ::testing::Values(Arch::gfx950, Arch::gfx1030),
                         [](const ::testing::TestParamInfo<Arch>& i) { return std::string(to_string(i.param)); });

}  // namespace
