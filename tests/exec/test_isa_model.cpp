// The whole-launch model (tools/model) on uattn's own code objects, in the
// instruction-level emulator: the sampling of a 2D prefill launch in the
// serpentine work order (AttnParams::dispatch_round, templates/uattn/kernel/
// work_order.hpp). With the heads sampled, the model stands a workgroup in by
// the traced workgroup that takes the same query-row block of a sampled head
// (Sampling::work_of); every stand-in then issues the instruction stream of
// its own work (up to the data-dependent lazy-rescale branch of the 4-wave
// tiles, attention_mfma.hpp kLazy: another head's scores), so the CU cycles
// match those of the full trace.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <utility>

#include "run.hpp"  // tests/exec
#include "uattn/kernel/work_order.hpp"
#include "uattn/model/model.hpp"

using namespace uattn;

namespace {

// d128, 2 KV heads of 8 query heads, causal prefills of 48 query tokens after
// contexts of different lengths: the query-row blocks walk different numbers of
// KV tiles.
uattn::testing::ProblemSpec prefill() {
  uattn::testing::ProblemSpec s{};
  s.head_size = 128;
  s.block_size = 16;
  s.num_q_heads = 16;
  s.num_kv_heads = 2;
  s.seqs = {{48, 200}, {48, 48}, {48, 150}, {48, 300}};
  return s;
}

// Runs `s` on `arch`'s code object (2D, `cus` CUs given to the selector) with a
// whole-launch model on the attention launch, sampled as `smp` (work_of set
// from the launch's dispatch_round when `follow_work`).
struct Modelled {
  exec::RunResult run;
  model::KernelTime t;
  std::unique_ptr<uattn::testing::Problem> prob;
  uint32_t round = 0;
};
Modelled run_modelled(Arch arch, int cus, uint32_t heads, bool follow_work) {
  Modelled out;
  out.prob = uattn::testing::make_problem(prefill(), exec::guarded_allocator());
  const model::Machine m = model::load_machine(to_string(arch));
  std::unique_ptr<model::LaunchModel> lm;
  exec::RunOptions o;
  o.arch = arch;
  o.engine = exec::Engine::kIsa;
  o.select.path = ForcePath::k2D;
  o.num_cus = cus;
  o.isa_hook = [&](const emu::CodeObject& co, emu::LaunchRequest& rq) {
    lm = std::make_unique<model::LaunchModel>(m, co, rq);
    model::LaunchModel::Sampling smp;
    smp.heads = heads;
    AttnParams p;
    memcpy(&p, rq.kernarg.data(), sizeof p);
    out.round = (uint32_t)p.dispatch_round;
    const uint32_t n = rq.grid[0] * rq.grid[1], R = out.round;
    if (follow_work && R > 0) smp.work_of = [n, R](uint64_t g) { return (uint64_t)serpentine((uint32_t)g, n, R); };
    lm->attach(rq, smp);
  };
  out.run = exec::run_problem(*out.prob, o);
  if (lm) out.t = lm->finish();
  return out;
}

}  // namespace

TEST(model, serpentine_sampling) {
  for (Arch arch : {Arch::gfx950, Arch::gfx1030}) {
    const std::string a = to_string(arch);
    // Every workgroup traced: the reference time. The CU count (the round R)
    // is chosen so that an odd round straddles the two heads' workgroups: a
    // workgroup of KV head 1's launch row then takes a block of head 0, which
    // the grid-order sampling rule would not run.
    Modelled full;
    int cus = 0;
    for (int c : {7, 5, 3, 11, 13}) {
      full = run_modelled(arch, c, 0, true);
      ASSERT_TRUE(full.run.ok) << a << ": " << full.run.error;
      const uint32_t gx = full.run.grid_x;
      if ((gx / c) % 2 == 1 && gx % c != 0) { cus = c; break; }
    }
    ASSERT_GT(cus, 0) << a << ": no CU count tried makes a round straddle the heads";
    ASSERT_EQ(full.round, (uint32_t)cus) << a << " " << full.run.instance << ": a serpentine launch";
    EXPECT_EQ(full.t.traced_groups, full.t.groups) << full.t.sampling;

    // KV head 0 sampled, stand-ins by the work they take: the full trace's cycles
    // (within 2%); head 0's output matches the reference, head 1's never ran.
    const Modelled half = run_modelled(arch, cus, 1, true);
    ASSERT_EQ(half.t.groups, full.t.groups);
    EXPECT_EQ(half.t.traced_groups * 2, half.t.groups) << half.t.sampling;
    EXPECT_NEAR(half.t.cu_cycles / full.t.cu_cycles, 1.0, 0.02) << a << " " << half.t.sampling;
    std::printf("%s %s, R = %d: CU cycles %.0f (every workgroup traced), %.0f (head 0 sampled)\n", a.c_str(),
                full.run.instance.c_str(), cus, full.t.cu_cycles, half.t.cu_cycles);
    EXPECT_NE(half.t.sampling.find("serpentine"), std::string::npos) << half.t.sampling;
    const auto heads = [](uattn::testing::Problem& P, size_t* nan_head0) {
      const int qpk = P.spec.num_q_heads / P.spec.num_kv_heads;
      const exec::Tolerance tol = exec::tolerance_for(P);
      const auto head0 = uattn::testing::compare_output(P, P.reference(qpk), tol.atol, tol.rtol, qpk);
      *nan_head0 = head0.nan_count;
      const auto all = uattn::testing::compare_output(P, P.reference(), tol.atol, tol.rtol);
      return std::make_pair(head0.ok, all.nan_count);
    };
    size_t nan0 = 0;
    const auto [ok0, nan_all] = heads(*half.prob, &nan0);
    EXPECT_TRUE(ok0) << a << ": head 0 of the sampled launch";
    const uattn::testing::Problem& P = *half.prob;
    EXPECT_EQ(nan_all, (size_t)P.num_tokens * (P.spec.num_q_heads / 2) * P.spec.head_size)
        << a << ": the unsampled head's workgroups ran, or a sampled one did not";

    // The grid-order rule (launch y < 1) runs other work: part of head 0 is
    // never computed, so this problem tells the two rules apart.
    const Modelled wrong = run_modelled(arch, cus, 1, false);
    size_t wrong_nan0 = 0;
    heads(*wrong.prob, &wrong_nan0);
    EXPECT_GT(wrong_nan0, 0u) << a << ": the grid-order rule computed all of head 0";
  }
}
