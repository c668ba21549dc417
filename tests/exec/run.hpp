// The real execution path on the CPU: problem -> lookup table -> instance ->
// emulated launch (tests/hostexec) -> comparison with the fp64 reference.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "problem.hpp"  // tests/common
#include "uattn/emu/emu.hpp"  // tools/emu
#include "uattn/table.hpp"

namespace uattn::exec {

struct Tolerance { double atol, rtol; };
// Bounds this project holds (tighter than the peers' 1.5e-2 / 1e-2 where the
// math allows): f16 keeps P and the output in f16 (2^-11 relative each);
// bf16 in bf16 (2^-8). An fp8 output is compared in its own units
// (out / output_scale): SPEC.md's 0.15 / 0.15 for the quantisation, plus the
// Q-dtype bound divided by output_scale for the error made before the division.
// v_max: the largest |V| the problem uses (dequantised: fp8 code x v_scale).
// P is rounded to the Q dtype before P.V, so out = sum_j p_j (1 + d_j) v_j with
// |d_j| <= u errs by up to u * sum_j p_j |v_j| <= u * v_max: the absolute bound
// is the Q-dtype bound (set for |V| <= 1) times max(1, v_max). It matters for
// fp8 KV, whose dequantised values reach 448 * v_scale (docs/testing.md).
Tolerance tolerance_for(DType q_dtype, DType out_dtype, float output_scale = 1.0f, double v_max = 1.0);
// The largest finite |V| over the keys some query sees (of each sequence with
// queries, its seqused_k keys, from its first query's window start with a
// sliding window, through its block table), dequantised.
double v_magnitude(const testing::Problem& prob);
// tolerance_for the problem's dtypes, output_scale and v_magnitude().
Tolerance tolerance_for(const testing::Problem& prob);

// How an instance is executed on the CPU:
//   kTwin  the host-compiled twin of the instance (tests/hostexec);
//   kIsa   the shipped code object, uattn_<arch>.co of this build, instruction
//          by instruction in the emulator (tools/emu), with every global access
//          checked against the live guarded buffers.
enum class Engine { kTwin, kIsa };
// The engine named by $UATTN_ENGINE ("twin" or "isa"; unset: twin). Throws
// std::invalid_argument naming the value otherwise.
Engine engine_from_env();
// "twin" / "isa" (the names engine_from_env reads).
const char* engine_name(Engine e);

// The code object of `arch` built with this test binary (uattn_<arch>.co of the
// build), loaded once; throws std::runtime_error when it cannot be read.
std::shared_ptr<emu::CodeObject> code_object(Arch arch);

struct RunOptions {
  Arch arch = Arch::gfx950;
  Engine engine = Engine::kTwin;
  // kIsa: the code object to run instead of this build's uattn_<arch>.co (a
  // binary-level mutant, say); null: the build's.
  std::shared_ptr<emu::CodeObject> code_object;
  bool profile = false;  // kIsa: RunResult::executed gets the attention kernel's per-address counts
  // kIsa: called with each launch's request before it runs (a whole-launch
  // model attaches its trace callbacks there); null: none.
  std::function<void(const emu::CodeObject&, emu::LaunchRequest&)> isa_hook;
  SelectOptions select;
  int num_cus = 0;  // ProblemArgs::num_cus the selector is given (0: the architecture's count)
  bool use_tolerance_override = false;
  Tolerance tol{0, 0};
};

// Options that run instance `r` alone (the selector's filter is its name) on
// its own path with `engine`; a 3D instance with `segments` segments (0: the
// selector's count).
RunOptions instance_options(const InstanceRow& r, Engine engine, int segments);

struct RunResult {
  bool ok = false;          // selected, launched, every element within tolerance
  std::string error;        // why not
  std::string instance;     // attention instance executed
  std::string reduce_instance;  // "" where the attention launch combined the segments (fused_reduce)
  bool fused_reduce = false;    // 3D: the fused reduce ran (Selection::fused_reduce; counters checked back at 0)
  Path path = Path::k2D;
  int num_segments = 1;
  int q_blocks_per_seq = 0;  // Selection::q_blocks_per_seq: 0 = the packed grid
  int dispatch_round = 0;    // Selection::dispatch_round: 0 = grid order
  uint32_t grid_x = 0;       // the attention launch's grid x
  int block_m = 0;           // the attention instance's rows per workgroup
  testing::CompareResult cmp{};
  uint64_t wave_instructions = 0;  // kIsa: wave-instructions executed (every launch)
  double emu_seconds = 0;          // kIsa: host time of the emulated launches
  std::vector<std::string> emu_warnings;  // kIsa: reads of never-written registers (the emulator's first few)
  std::vector<emu::LaunchResult::Executed> executed;  // kIsa + profile: the attention kernel's
};

ProblemDesc describe_problem(const testing::Problem& prob, Arch arch, int num_cus = 0);
RunResult run_problem(testing::Problem& prob, const RunOptions& opt);

}  // namespace uattn::exec

namespace uattn::exec {
// Buffers placed against guard pages: an out-of-bounds access stops the test
// naming the kernel and the buffer (tests/hostexec).
testing::Allocator& guarded_allocator();
}  // namespace uattn::exec
