// Host-side cost of reaching a kernel (a benchmark, not a test; docs/packaging.md,
// "Bundle figures", gives the command and the recorded figures):
//   BM_Create            Runtime::create: find the first bundle ($UATTN_LIBRARY_PATH or the
//                        default search) and read it into memory
//   BM_CreateAndFetch    Runtime::create, then Runtime::prepare for one decode problem on the
//                        device of the architecture: probe the device, find that
//                        architecture's bundle, check its stamp, hipModuleLoadData
//                        (decompress, pick and read the code object) and
//                        hipModuleGetFunction for the kernel run() would launch
// Runs on the CPU-backed HIP device (tests/hipcpu): device 0 = gfx950:sramecc+:xnack-,
// device 1 = gfx1030. Its hipModuleLoadData does what a driver's loader does on the host
// (zstd decompression, bundle entry choice, ELF and metadata parsing), not the GPU-side
// upload of a real ROCm driver.
#include <benchmark/benchmark.h>

#include <memory>

#include "device_problem.hpp"
#include "hipcpu.hpp"
#include "uattn/runtime.hpp"

namespace {

using namespace uattn;
namespace ut = uattn::testing;

void BM_Create(benchmark::State& state) {
  for (auto _ : state) {
    std::unique_ptr<Runtime> rt;
    const Status s = Runtime::create(&rt);
    if (!s.ok()) {
      state.SkipWithError(s.message.c_str());
      return;
    }
    benchmark::DoNotOptimize(rt.get());
  }
}
BENCHMARK(BM_Create)->Unit(benchmark::kMicrosecond);

void BM_CreateAndFetch(benchmark::State& state) {
  const int device = (int)state.range(0);
  hipcpu::set_devices({{"gfx950:sramecc+:xnack-", 0, ""}, {"gfx1030", 0, ""}});
  if (hipSetDevice(device) != hipSuccess) {
    state.SkipWithError("hipSetDevice failed");
    return;
  }
  ut::ProblemSpec spec;  // f16, head size 128, 16-token blocks: served by every build
  spec.head_size = 128;
  spec.block_size = 16;
  spec.num_q_heads = 8;
  spec.num_kv_heads = 2;
  spec.seqs = {{1, 512}, {1, 77}};
  auto prob = ut::make_problem(spec, exec::guarded_allocator());
  e2e::DeviceProblem dp(*prob);
  if (!dp.error().empty()) {
    state.SkipWithError(dp.error().c_str());
    return;
  }
  state.SetLabel(device == 0 ? "gfx950" : "gfx1030");
  for (auto _ : state) {
    std::unique_ptr<Runtime> rt;
    Status s = Runtime::create(&rt);
    if (s.ok()) s = rt->prepare(dp.args());
    if (!s.ok()) {
      state.SkipWithError(s.message.c_str());
      return;
    }
  }
}
BENCHMARK(BM_CreateAndFetch)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
