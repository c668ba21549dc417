// The instruction-level emulator's rate (tools/emu): wave-instructions executed
// per second of host time, on this build's code objects, for a decode and a
// prefill launch per architecture (the table's choice for the problem). A
// benchmark, not a test: docs/testing.md, "ISA-level execution", gives the
// command and the recorded figures.
//
//   tools/uattn run build/default/bench/uattn_emu_bench
//
// Counters: wave_instr_per_s (all host threads together), wave_instr (per launch).
#include <benchmark/benchmark.h>

#include "run.hpp"  // tests/exec

using namespace uattn;

namespace {

void run(benchmark::State& state, Arch arch, std::vector<std::pair<int, int>> seqs, int q_heads) {
  uattn::testing::ProblemSpec s{};
  s.head_size = 128;
  s.block_size = 16;
  s.num_q_heads = q_heads;
  s.num_kv_heads = 2;
  s.seqs = std::move(seqs);
  auto prob = uattn::testing::make_problem(s, exec::guarded_allocator());
  exec::RunOptions o;
  o.arch = arch;
  o.engine = exec::Engine::kIsa;
  uint64_t insts = 0;
  double secs = 0;
  for (auto _ : state) {
    const exec::RunResult r = exec::run_problem(*prob, o);
    if (!r.ok) {
      state.SkipWithError(r.error.c_str());
      return;
    }
    insts += r.wave_instructions;
    secs += r.emu_seconds;
    state.SetLabel(r.instance);
  }
  state.counters["wave_instr_per_s"] = secs > 0 ? double(insts) / secs : 0;
  state.counters["wave_instr"] = double(insts) / double(state.iterations());
}

void BM_decode_gfx950(benchmark::State& st) { run(st, Arch::gfx950, {{1, 4096}, {1, 2048}}, 16); }
void BM_prefill_gfx950(benchmark::State& st) { run(st, Arch::gfx950, {{512, 512}}, 16); }
void BM_decode_gfx1030(benchmark::State& st) { run(st, Arch::gfx1030, {{1, 4096}, {1, 2048}}, 16); }
void BM_prefill_gfx1030(benchmark::State& st) { run(st, Arch::gfx1030, {{512, 512}}, 16); }

BENCHMARK(BM_decode_gfx950)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_prefill_gfx950)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_decode_gfx1030)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_prefill_gfx1030)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
