// The real execution path on the CPU: problem -> lookup table -> instance ->
// emulated launch (tests/hostexec) -> comparison with the fp64 reference.
#pragma once
#include <string>

#include "problem.hpp"  // tests/common
#include "uattn/table.hpp"

namespace uattn::exec {

struct Tolerance { double atol, rtol; };
// Bounds this project holds (tighter than the peers' 1.5e-2 / 1e-2 where the
// math allows): f16 keeps P and the output in f16 (2^-11 relative each);
// bf16 in bf16 (2^-8); fp8 KV widens exactly, so it does not change the
// bound. An fp8 output is compared in its own units (out / output_scale):
// SPEC.md's 0.15 / 0.15 for the quantisation, plus the Q-dtype bound divided
// by output_scale for the error made before the division.
Tolerance tolerance_for(DType q_dtype, DType out_dtype, float output_scale = 1.0f);

struct RunOptions {
  Arch arch = Arch::gfx950;
  SelectOptions select;
  bool use_tolerance_override = false;
  Tolerance tol{0, 0};
};

struct RunResult {
  bool ok = false;          // selected, launched, every element within tolerance
  std::string error;        // why not
  std::string instance;     // attention instance executed
  std::string reduce_instance;
  Path path = Path::k2D;
  int num_segments = 1;
  testing::CompareResult cmp{};
};

ProblemDesc describe_problem(const testing::Problem& prob, Arch arch);
RunResult run_problem(testing::Problem& prob, const RunOptions& opt);

}  // namespace uattn::exec

namespace uattn::exec {
// Buffers placed against guard pages: an out-of-bounds access stops the test
// naming the kernel and the buffer (tests/hostexec).
testing::Allocator& guarded_allocator();
}  // namespace uattn::exec
