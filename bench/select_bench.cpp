// uattn_select_bench: host cost of choosing a kernel (Google Benchmark).
//
//   select/*   uattn::select() on one problem (gfx950, d128, block 16, f16,
//              32 query / 8 KV heads, reference CU count): decode (64 x 1:2048),
//              prefill (4 x 1024:1024), mixed (15 decodes + one 512-token chunk),
//              windowed decode, miss (head size 100: not served, error built),
//              and decode with the explanation asked for; model_decode_prefill
//              alternates decode and prefill, so the per-thread memo of the last
//              decision never answers and the cost model runs on every call.
//   host_call  the runtime's per-call host work without a launch: validate(),
//              describe() and select() on a decode call's AttentionArgs.
//
// Run: build/<preset>/bench/uattn_select_bench --benchmark_repetitions=10
//        --benchmark_report_aggregates_only=true   (docs/performance.md)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "uattn/table.hpp"
#include "uattn/validate.hpp"

namespace {

using namespace uattn;

ProblemDesc base() {
  ProblemDesc p;
  p.arch = kArchs[0];
  p.q_dtype = p.kv_dtype = p.out_dtype = DType::f16;
  p.head_size = 128;
  p.block_size = 16;
  p.num_q_heads = 32;
  p.num_kv_heads = 8;
  return p;
}

ProblemDesc decode() {
  ProblemDesc p = base();
  p.num_seqs = p.num_tokens = 64;
  p.max_seqlen_q = 1;
  p.max_seqlen_k = 2048;
  return p;
}

ProblemDesc prefill() {
  ProblemDesc p = base();
  p.num_seqs = 4;
  p.num_tokens = 4096;
  p.max_seqlen_q = p.max_seqlen_k = 1024;
  return p;
}

ProblemDesc mixed() {
  ProblemDesc p = base();
  p.num_seqs = 16;
  p.num_tokens = 15 + 512;
  p.max_seqlen_q = 512;
  p.max_seqlen_k = 4096;
  return p;
}

ProblemDesc windowed() {
  ProblemDesc p = decode();
  p.features = kFeatWindow;
  p.max_seqlen_k = 32768;
  return p;
}

ProblemDesc miss() {
  ProblemDesc p = decode();
  p.head_size = 100;
  return p;
}

void run_select(benchmark::State& st, const ProblemDesc& p, bool explain) {
  SelectOptions o;
  o.explain = explain;
  if (!select(p, o).ok && p.head_size != 100) { st.SkipWithError("problem not served"); return; }
  for (auto _ : st) {
    Selection s = select(p, o);
    benchmark::DoNotOptimize(s);
  }
}

// Two problems in turn: select() remembers the last decision of its thread
// (a model's layers repeat one problem per step), so this runs the cost model
// on every call: the cost of a problem shape seen for the first time.
void BM_select_model_decode_prefill(benchmark::State& st) {
  const ProblemDesc a = decode(), b = prefill();
  const SelectOptions o;
  bool flip = false;
  for (auto _ : st) {
    Selection s = select(flip ? b : a, o);
    flip = !flip;
    benchmark::DoNotOptimize(s);
  }
}

void BM_select_decode(benchmark::State& st) { run_select(st, decode(), false); }
void BM_select_prefill(benchmark::State& st) { run_select(st, prefill(), false); }
void BM_select_mixed(benchmark::State& st) { run_select(st, mixed(), false); }
void BM_select_windowed(benchmark::State& st) { run_select(st, windowed(), false); }
void BM_select_miss(benchmark::State& st) { run_select(st, miss(), false); }
void BM_select_decode_explained(benchmark::State& st) { run_select(st, decode(), true); }

// A decode call of 64 sequences (q_len 1, up to 2048 keys) as the runtime sees
// it. The pointers are never read (validate() and describe() read no memory).
struct DecodeCall {
  std::vector<int32_t> cu, used, table;
  AttentionArgs a;
  DecodeCall() {
    const int seqs = 64, blocks_per_seq = 2048 / 16;
    cu.resize(seqs + 1);
    used.assign(seqs, 2048);
    table.assign((size_t)seqs * blocks_per_seq, 0);
    for (int i = 0; i <= seqs; ++i) cu[i] = i;
    // Distinct, far-apart fake device addresses: validate() compares the
    // tensors' byte ranges (out may not overlap an input) and reads no memory.
    auto tensor = [](uintptr_t base, std::vector<int64_t> shape) {
      TensorDesc t;
      t.data = reinterpret_cast<const void*>(base);
      t.dtype = DType::f16;
      t.rank = (int)shape.size();
      int64_t s = 1;
      for (int i = t.rank - 1; i >= 0; --i) { t.shape[i] = shape[i]; t.stride[i] = s; s *= shape[i]; }
      return t;
    };
    a.q = tensor(uintptr_t(1) << 40, {seqs, 32, 128});
    a.out = tensor(uintptr_t(2) << 40, {seqs, 32, 128});
    a.k_cache = tensor(uintptr_t(3) << 40, {seqs * blocks_per_seq, 16, 8, 128});
    a.v_cache = tensor(uintptr_t(4) << 40, {seqs * blocks_per_seq, 16, 8, 128});
    a.cu_seqlens_q = cu.data();
    a.seqused_k = used.data();
    a.block_table = table.data();
    a.num_seqs = seqs;
    a.block_table_stride = a.max_blocks_per_seq = blocks_per_seq;
    a.max_seqlen_q = 1;
    a.max_seqlen_k = 2048;
    a.softmax_scale = 0.088388f;
  }
};

void BM_host_call_decode(benchmark::State& st) {
  const DecodeCall c;
  const SelectOptions o;
  if (!validate(c.a).ok()) { st.SkipWithError(validate(c.a).message.c_str()); return; }
  for (auto _ : st) {
    const Status v = validate(c.a);
    if (!v.ok()) { st.SkipWithError("invalid"); break; }
    Selection s = select(describe(c.a, kArchs[0], 0), o);
    benchmark::DoNotOptimize(s);
  }
}

BENCHMARK(BM_select_decode);
BENCHMARK(BM_select_model_decode_prefill);
BENCHMARK(BM_select_prefill);
BENCHMARK(BM_select_mixed);
BENCHMARK(BM_select_windowed);
BENCHMARK(BM_select_miss);
BENCHMARK(BM_select_decode_explained);
BENCHMARK(BM_host_call_decode);

}  // namespace

BENCHMARK_MAIN();
