// The whole-launch model's tails (tools/model, model.hpp): the work a wave
// does after its last returning global atomic (a fused reduce's "last
// arriving workgroup") waits for every other workgroup, so the model adds it
// after the launch's main work instead of overlapping it with the round-robin
// CU simulation. Checked on a real trace: the emulator's test kernel
// atomics.hip (each workgroup counts itself with `global_atomic_add ... sc0` /
// `glc`; the last one sums every partial), compiled per architecture, and on a
// Triton attention launch, which has no atomics (no tail). The expectations are
// built from the traces by hand: the returning atomics from the disassembly
// text, the last arriver from its store to `out`, its tail cut from its trace
// and modelled alone as a launch of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "triton_launch.hpp"  // tests/isa: a launch without atomics
#include "atomics_buffers.hpp"  // tests/isa
#include "uattn/emu/emu.hpp"
#include "uattn/model/model.hpp"

namespace {

using namespace uattn;

using uattn::atomics_test::Buffers;
using uattn::atomics_test::code_objects;

std::vector<uint8_t> kernarg(const emu::KernelDesc& k, const std::vector<uint64_t>& ptrs, int per_group) {
  size_t end = 0;
  for (const emu::KernelDesc::Arg& arg : k.args)
    if (arg.value_kind.rfind("hidden_", 0) != 0) end = std::max<size_t>(end, arg.offset + arg.size);
  std::vector<uint8_t> a(end, 0);
  size_t n = 0;
  for (const emu::KernelDesc::Arg& arg : k.args) {
    if (arg.value_kind.rfind("hidden_", 0) == 0) continue;
    if (n < ptrs.size()) std::memcpy(&a[arg.offset], &ptrs[n], 8);
    else std::memcpy(&a[arg.offset], &per_group, 4);
    ++n;
  }
  return a;
}

// A returning global atomic, from the disassembly: a global_atomic_* whose
// modifiers hold sc0 (CDNA4) or glc (RDNA2).
bool returning_atomic_text(const emu::Instruction& in) {
  if (in.mnemonic.rfind("global_atomic", 0) != 0) return false;
  std::string t = in.text;
  std::replace(t.begin(), t.end(), ',', ' ');
  std::stringstream ss(t);
  for (std::string w; ss >> w;)
    if (w == "sc0" || w == "glc") return true;
  return false;
}

// Index one past the wave's last returning atomic (0: none).
size_t main_end(const emu::WaveTrace& w, const std::vector<bool>& ret) {
  for (size_t i = w.ops.size(); i-- > 0;)
    if (ret.at(w.ops[i].inst)) return i + 1;
  return 0;
}

// The ops [from, to) of a wave, with their lane accesses.
emu::WaveTrace slice(const emu::WaveTrace& w, size_t from, size_t to) {
  emu::WaveTrace o;
  for (size_t i = from; i < to; ++i) {
    emu::TraceOp op = w.ops[i];
    const uint32_t b = (uint32_t)o.mem.size();
    o.mem.insert(o.mem.end(), w.mem.begin() + op.mem_begin, w.mem.begin() + op.mem_begin + op.mem_count);
    op.mem_begin = b;
    o.ops.push_back(op);
  }
  return o;
}

// `traces` as a launch of `rq`'s grid through a fresh model.
model::KernelTime model_of(const model::Machine& m, const emu::CodeObject& co, const emu::LaunchRequest& rq,
                           const std::vector<emu::GroupTrace>& traces) {
  model::LaunchModel lm(m, co, rq);
  for (const emu::GroupTrace& g : traces) lm.add(emu::GroupTrace(g));
  return lm.finish();
}

void expect_sum_rule(const model::KernelTime& t, const std::string& what) {
  EXPECT_EQ(t.us, std::max(t.compute_us, t.memory_us) + t.tail_us + t.launch_us) << what;
}

class FusedReduceTail : public ::testing::TestWithParam<std::string> {};

// The last arriver's reduction (a load and a wait per partial, 301 of them)
// is the launch's tail: tail_us is it alone on a CU after the atomic's value
// is back, the CU time is that of the main parts (the traces cut after their
// last returning atomic), and without the returning atomics the same work
// counts in the CU time with no tail.
TEST_P(FusedReduceTail, LastArriversReduceFollowsTheLaunch) {
  const auto co = emu::CodeObject::load_file(GetParam());
  const emu::KernelDesc* k = co->kernel("last_arriver");
  ASSERT_NE(k, nullptr);
  const model::Machine m = model::load_machine(co->processor());
  const std::vector<emu::Instruction> insts = co->instructions("last_arriver");
  std::vector<bool> ret(insts.size());
  int n_ret = 0;
  for (size_t i = 0; i < insts.size(); ++i) {
    ret[i] = returning_atomic_text(insts[i]);
    n_ret += ret[i];
    if (insts[i].mnemonic.rfind("global_atomic", 0) == 0)  // the decoder's destination agrees with the text
      EXPECT_EQ(ret[i], !insts[i].writes.empty()) << insts[i].text;
  }
  ASSERT_EQ(n_ret, 2) << "atomics.hip: the ticket and the arrival count return their value";

  const int groups = 301, per_group = 64;
  Buffers b(groups, per_group, (int)k->wavefront_size);
  emu::LaunchRequest rq;
  rq.kernel = "last_arriver";
  rq.grid[0] = groups;
  rq.block = k->wavefront_size;
  rq.threads = 4;
  rq.valid = b.valid.callback();
  rq.kernarg = kernarg(*k, b.pointers(), per_group);
  model::LaunchModel lm(m, *co, rq);
  std::mutex mu;
  std::vector<emu::GroupTrace> traces;
  rq.trace = [&](emu::GroupTrace&& g) {
    {
      std::lock_guard<std::mutex> l(mu);
      traces.push_back(g);
    }
    lm.add(std::move(g));
  };
  const emu::LaunchResult r = co->launch(rq);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(b.out[0], std::accumulate(b.in.begin(), b.in.end(), 0u)) << "the protocol ran";
  ASSERT_EQ(traces.size(), (size_t)groups);
  const model::KernelTime t = lm.finish();
  rq.trace = nullptr;

  // The last arriver: the one workgroup whose trace stores to `out`.
  int last = -1;
  for (size_t g = 0; g < traces.size(); ++g)
    for (const emu::WaveTrace& w : traces[g].waves)
      for (const emu::TraceMem& a : w.mem)
        if (a.store && a.space == emu::Space::kGlobal && a.addr == (uint64_t)b.out.data()) {
          EXPECT_TRUE(last < 0 || last == (int)g) << "two workgroups stored the sum";
          last = (int)g;
        }
  ASSERT_GE(last, 0);

  // Expected tail: the last arriver's ops after its last returning atomic, a
  // launch of one workgroup of their own, after one VMEM latency.
  auto tail_alone = [&](const emu::GroupTrace& g) {
    emu::GroupTrace tg;
    bool any = false;
    for (const emu::WaveTrace& w : g.waves) {
      const size_t e = main_end(w, ret);
      tg.waves.push_back(e ? slice(w, e, w.ops.size()) : emu::WaveTrace{});
      any |= e > 0 && e < w.ops.size();
    }
    EXPECT_TRUE(any) << "every workgroup counts itself, then exits or reduces";
    emu::LaunchRequest one = rq;
    one.grid[0] = 1;
    const model::KernelTime a = model_of(m, *co, one, {tg});
    EXPECT_EQ(a.tail_us, 0.0) << "no returning atomic after the last";
    return a.compute_us;
  };
  const double vmem_us =
      (double)model::inst_cost(m.sched_model, "global_load_dword").latency * m.clocks_per_model_unit / m.clock_mhz;
  const double want_tail = tail_alone(traces[last]) + vmem_us;
  EXPECT_GT(t.tail_us, 0.0);
  EXPECT_NEAR(t.tail_us, want_tail, 1e-9 * want_tail);
  // any other workgroup's tail (its exit) is shorter: the longest is the reducer's
  const double other = tail_alone(traces[last == 0 ? 1 : 0]) + vmem_us;
  EXPECT_LT(other * 4, t.tail_us);
  expect_sum_rule(t, "full trace");

  // The main parts: every trace cut after its last returning atomic gives the
  // same CU time (and, with nothing after its atomics, no tail).
  std::vector<emu::GroupTrace> cut = traces, stripped = traces;
  for (emu::GroupTrace& g : cut)
    for (emu::WaveTrace& w : g.waves) w = slice(w, 0, main_end(w, ret));
  const model::KernelTime tc = model_of(m, *co, rq, cut);
  EXPECT_EQ(tc.cu_cycles, t.cu_cycles);
  EXPECT_EQ(tc.compute_us, t.compute_us);
  EXPECT_EQ(tc.tail_us, 0.0);
  expect_sum_rule(tc, "cut traces");

  // Without the returning atomics nothing is a tail: tail_us is 0, us the
  // rule without it, and the reduction now lands on a CU of the round-robin
  // simulation (its serial loads are longer than any workgroup's main part).
  for (emu::GroupTrace& g : stripped)
    for (emu::WaveTrace& w : g.waves) {
      emu::WaveTrace o;
      for (size_t i = 0; i < w.ops.size(); ++i) {
        if (ret[w.ops[i].inst]) continue;
        const emu::WaveTrace one = slice(w, i, i + 1);
        o.ops.push_back(one.ops[0]);
        o.ops.back().mem_begin = (uint32_t)o.mem.size();
        o.mem.insert(o.mem.end(), one.mem.begin(), one.mem.end());
      }
      w = std::move(o);
    }
  const model::KernelTime ts = model_of(m, *co, rq, stripped);
  EXPECT_EQ(ts.tail_us, 0.0);
  EXPECT_EQ(ts.us, std::max(ts.compute_us, ts.memory_us) + ts.launch_us);
  EXPECT_GT(ts.compute_us, t.compute_us);
  EXPECT_GT(ts.compute_us, want_tail - vmem_us - 1e-9);
  std::printf("%s: compute %.3f us (main parts), tail %.3f us (the reducer alone: %.3f us + %.3f us VMEM latency), "
              "memory %.3f us, launch %.3f us: %.3f us; without the split: compute %.3f us, %.3f us\n",
              co->processor().c_str(), t.compute_us, t.tail_us, want_tail - vmem_us, vmem_us, t.memory_us,
              t.launch_us, t.us, ts.compute_us, ts.us);
}

// Sampled launches keep their tails from the traced workgroups: with grid.y 2
// and one "head" sampled, only row 0 runs (the counter still reaches the row's
// count, so its last arriver reduces), and the tail is the full launch's.
TEST_P(FusedReduceTail, SampledHeadsKeepTheTail) {
  const auto co = emu::CodeObject::load_file(GetParam());
  const emu::KernelDesc* k = co->kernel("last_arriver");
  ASSERT_NE(k, nullptr);
  const model::Machine m = model::load_machine(co->processor());
  const int groups = 301, per_group = 64;
  auto run = [&](uint32_t rows, uint32_t heads) {
    Buffers b(groups, per_group, (int)k->wavefront_size);
    emu::LaunchRequest rq;
    rq.kernel = "last_arriver";
    rq.grid[0] = groups;
    rq.grid[1] = rows;
    rq.block = k->wavefront_size;
    rq.threads = 4;
    rq.valid = b.valid.callback();
    rq.kernarg = kernarg(*k, b.pointers(), per_group);
    model::LaunchModel lm(m, *co, rq);
    model::LaunchModel::Sampling s;
    s.heads = heads;
    lm.attach(rq, s);
    const emu::LaunchResult r = co->launch(rq);
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(b.out[0], std::accumulate(b.in.begin(), b.in.end(), 0u));
    return lm.finish();
  };
  const model::KernelTime full = run(1, 0), half = run(2, 1);
  EXPECT_EQ(half.groups, 2u * groups);
  EXPECT_EQ(half.traced_groups, (uint64_t)groups) << half.sampling;
  EXPECT_GT(full.tail_us, 0.0);
  EXPECT_NEAR(half.tail_us, full.tail_us, 1e-9 * full.tail_us);
  expect_sum_rule(full, "one row");
  expect_sum_rule(half, "two rows, one sampled");
}

std::string arch_of(const ::testing::TestParamInfo<std::string>& i) {  // ".../atomics_gfx950.co" -> "gfx950"
  const size_t a = i.param.rfind("atomics_") + 8;
  return i.param.substr(a, i.param.rfind(".co") - a);
}
INSTANTIATE_TEST_SUITE_P(Atomics, FusedReduceTail, ::testing::ValuesIn(code_objects()), arch_of);

// A launch without returning atomics (Triton's 2D attention, one configuration
// per architecture): no tail, us = max(compute, memory) + launch.
TEST(FusedReduceTail, TritonAttentionHasNoTail) {
  const std::string dir = UATTN_TRITON_DIR;
  int ran = 0;
  for (const std::string cfg : {"gfx950_f16_d128_b16_h16x2_bm16", "gfx1030_f16_d128_b16_h16x2_bm16"}) {
    if (!std::ifstream(dir + "/" + cfg + "_attn2d.json")) continue;
    const triton::Config c = triton::config_from(cfg, triton::read_json(dir + "/" + cfg + "_attn2d.json"));
    const triton::Kernel attn = triton::load_kernel(dir, cfg + "_attn2d");
    for (const emu::Instruction& in : attn.co->instructions(attn.meta.at("kernel_name").get<std::string>()))
      EXPECT_FALSE(returning_atomic_text(in)) << in.text;
    auto run = triton::prepare(c, {{1, 37}, {5, 70}, {17, 17}}, 11, false,
                               triton::constexpr_value(attn.meta, "TILE_SIZE").get<int>(),
                               triton::constexpr_value(attn.meta, "BLOCK_Q").get<int>());
    const model::Machine m = model::load_machine(c.arch);
    std::unique_ptr<model::LaunchModel> lm;
    triton::PathRun pr;
    const std::string err = triton::run_path(
        dir, c, false, *run,
        [&](const triton::Kernel& k, emu::LaunchRequest& rq) {
          lm = std::make_unique<model::LaunchModel>(m, *k.co, rq);
          lm->attach(rq);
        },
        &pr);
    ASSERT_EQ(err, "") << cfg;
    ASSERT_TRUE(lm) << cfg;
    const model::KernelTime t = lm->finish();
    EXPECT_EQ(t.tail_us, 0.0) << cfg;
    EXPECT_EQ(t.us, std::max(t.compute_us, t.memory_us) + t.launch_us) << cfg;
    EXPECT_GT(t.compute_us, 0.0) << cfg;
    ++ran;
  }
  if (!ran) GTEST_SKIP() << "no Triton code objects at " << dir;
}

}  // namespace
