#include "run.hpp"

#include "uattn/device/dl.hpp"
#include "uattn/kernel/phases.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "engine.hpp"       // tests/hostexec
#include "uattn/emu/emu.hpp"  // tools/emu
#include "host_registry.hpp"
#include "reference.hpp"    // tests/reference

namespace uattn::exec {

Tolerance tolerance_for(DType q, DType out, float output_scale, double v_max) {
  Tolerance base = q == DType::bf16 ? Tolerance{1.5e-2, 1e-2} : Tolerance{3e-3, 3e-3};
  base.atol *= std::max(1.0, v_max);
  if (out != DType::fp8e4m3) return base;
  return {0.15 + base.atol / output_scale, 0.15 + base.rtol};
}

double v_magnitude(const testing::Problem& prob) {
  const AttnParams& p = prob.params;
  const double scale = prob.spec.kv_dtype == DType::fp8e4m3 ? p.v_scale : 1.0;
  double m = 0;
  for (int s = 0; s < p.num_seqs; ++s) {
    // The keys some query of the sequence sees: none without queries, with a window
    // from the first query's window start (context_len - window_left) on.
    const int64_t q_len = (int64_t)p.cu_seqlens_q[s + 1] - p.cu_seqlens_q[s];
    if (q_len <= 0) continue;
    const int64_t lo = p.window_left >= 0 ? std::max<int64_t>(0, p.seqused_k[s] - q_len - p.window_left) : 0;
    for (int64_t j = lo; j < p.seqused_k[s]; ++j) {
      const int64_t block = p.block_table[(int64_t)s * p.block_table_stride + j / p.block_size];
      const int64_t row = block * p.v_stride_block + (int64_t)(j % p.block_size) * p.v_stride_slot;
      for (int h = 0; h < p.num_kv_heads; ++h)
        for (int d = 0; d < p.head_size; ++d) {
          const double v = ref::load_element(prob.spec.kv_dtype, p.v_cache, row + h * p.v_stride_head + d);
          if (std::isfinite(v)) m = std::max(m, std::fabs(v) * scale);
        }
    }
  }
  return m;
}

Tolerance tolerance_for(const testing::Problem& prob) {
  return tolerance_for(prob.spec.q_dtype, prob.spec.out_dtype, prob.spec.output_scale, v_magnitude(prob));
}

ProblemDesc describe_problem(const testing::Problem& prob, Arch arch, int num_cus) {
  ProblemArgs a;
  a.arch = arch;
  a.num_cus = num_cus;
  a.q_dtype = prob.spec.q_dtype;
  a.kv_dtype = prob.spec.kv_dtype;
  a.out_dtype = prob.spec.out_dtype;
  a.head_size = prob.spec.head_size;
  a.block_size = prob.spec.block_size;
  a.num_q_heads = prob.spec.num_q_heads;
  a.num_kv_heads = prob.spec.num_kv_heads;
  a.num_seqs = (int)prob.spec.seqs.size();
  a.num_tokens = prob.num_tokens;
  a.max_seqlen_q = prob.max_seqlen_q;
  a.max_seqlen_k = prob.max_seqlen_k;
  a.window_left = prob.params.window_left;
  a.softcap = prob.spec.softcap;
  a.alibi = prob.spec.alibi;
  a.qq_bias = prob.spec.qq_bias;
  a.sinks = prob.spec.sinks;
  const auto bytes = [](DType t) { return t == DType::fp8e4m3 ? 1 : 2; };
  a.rows_aligned = rows_aligned(prob.params, bytes(prob.spec.q_dtype), bytes(prob.spec.kv_dtype),
                                bytes(prob.spec.out_dtype));
  return make_problem(a);
}

std::shared_ptr<emu::CodeObject> code_object(Arch arch) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<emu::CodeObject>> cache;
  const std::string name = to_string(arch);
  std::lock_guard<std::mutex> l(mu);
  auto& co = cache[name];
  if (!co) co = emu::CodeObject::load_file(std::string(UATTN_CODE_OBJECT_DIR) + "/uattn_" + name + ".co");
  return co;
}

namespace {

struct Guarded {
  void* p = nullptr;
  ~Guarded() { if (p) hostexec::guarded_free(p); }
};


hostexec::Result launch_isa(const KernelLaunch& k, const AttnParams& p, const RunOptions& opt, RunResult* res) {
  const Arch arch = opt.arch;
  std::shared_ptr<emu::CodeObject> co = opt.code_object;
  try {
    if (!co) co = code_object(arch);
  } catch (const std::exception& e) {
    return hostexec::Result{false, e.what()};
  }
  emu::LaunchRequest rq;
  rq.kernel = k.row->name;
  rq.grid[0] = k.grid.x; rq.grid[1] = k.grid.y; rq.grid[2] = k.grid.z;
  rq.block = k.threads;
  const emu::KernelDesc* d = co->kernel(rq.kernel);
  if (!d) return hostexec::Result{false, "instance " + rq.kernel + " is not in uattn_" + std::string(to_string(arch)) + ".co"};
  // As the runtime launches (dispatch/src/runtime.cpp: sharedMemBytes 0): the
  // workgroup gets the LDS its descriptor declares, nothing more.
  rq.dynamic_lds = 0;
  rq.kernarg.resize(sizeof p);
  memcpy(rq.kernarg.data(), &p, sizeof p);
  emu::RangeSet live;
  for (const hostexec::GuardedRange& g : hostexec::guarded_ranges()) live.add(g.base, g.bytes);
  rq.valid = live.callback();
  rq.profile = opt.profile;
  if (opt.isa_hook) opt.isa_hook(*co, rq);
  const emu::LaunchResult r = co->launch(rq);
  if (opt.profile && res->executed.empty()) res->executed = r.executed;
  res->wave_instructions += r.wave_instructions;
  for (const std::string& w : r.warnings) res->emu_warnings.push_back(rq.kernel + ": " + w);
  res->emu_seconds += r.seconds;
  if (!r.ok) return hostexec::Result{false, "uattn-emu: " + r.error};
  return hostexec::Result{true, ""};
}

hostexec::Result launch(const KernelLaunch& k, const AttnParams& p) {
  HostKernelFn fn = find_host_kernel(k.row->name);
  if (!fn) return hostexec::Result{false, std::string("instance ") + k.row->name + " is not compiled for the host"};
  if (k.row->head_size != p.head_size)
    return hostexec::Result{false, std::string("instance ") + k.row->name + " computes head size " +
                                       std::to_string(k.row->head_size) + ", the problem has " +
                                       std::to_string(p.head_size)};
  hostexec::Launch l{};
  l.kernel_name = k.row->name;
  l.grid[0] = k.grid.x; l.grid[1] = k.grid.y; l.grid[2] = k.grid.z;
  l.threads = (int)k.threads;
  l.wave_size = k.row->wave_size;
  l.lds_bytes = k.lds_bytes;
  return hostexec::launch(fn, l, p);
}

}  // namespace

Engine engine_from_env() {
  const char* e = std::getenv("UATTN_ENGINE");
  if (!e || !*e || std::string(e) == "twin") return Engine::kTwin;
  if (std::string(e) == "isa") return Engine::kIsa;
  throw std::invalid_argument(std::string("UATTN_ENGINE = '") + e + "': expected 'twin' or 'isa'");
}

const char* engine_name(Engine e) { return e == Engine::kIsa ? "isa" : "twin"; }

RunOptions instance_options(const InstanceRow& r, Engine engine, int segments) {
  RunOptions o;
  o.arch = r.arch;
  o.engine = engine;
  o.select.filter = r.name;
  o.select.path = r.path == Path::k3D ? ForcePath::k3D : ForcePath::k2D;
  if (r.path == Path::k3D) o.select.num_segments = segments;
  return o;
}

RunResult run_problem(testing::Problem& prob, const RunOptions& opt) {
  RunResult res;
  const ProblemDesc desc = describe_problem(prob, opt.arch, opt.num_cus);
  const Selection sel = select(desc, opt.select);
  if (!sel.ok) { res.error = "selection: " + sel.error; return res; }
  res.instance = sel.attention.row->name;
  res.path = sel.path;
  res.num_segments = sel.num_segments;
  res.q_blocks_per_seq = sel.q_blocks_per_seq;
  res.dispatch_round = sel.dispatch_round;
  res.grid_x = sel.attention.grid.x;
  res.block_m = sel.attention.row->block_m;

  AttnParams p = prob.params;
  Guarded ws, counters;
  uint64_t counter_words = 0;
  p.num_segments = 1;
  p.q_blocks_per_seq = sel.q_blocks_per_seq;
  p.dispatch_round = sel.dispatch_round;
  p.ws_acc = p.ws_max = p.ws_sum = nullptr;
  if (sel.path == Path::k3D) {
    res.reduce_instance = sel.reduce.row->name;
    const WorkspaceLayout w = workspace_layout(desc.num_tokens, desc.num_q_heads, sel.num_segments, desc.head_size);
    ws.p = hostexec::guarded_alloc(w.total_bytes ? w.total_bytes : 4, "workspace");
    float* f = static_cast<float*>(ws.p);
    for (uint64_t i = 0; i < w.total_bytes / 4; ++i) f[i] = std::numeric_limits<float>::quiet_NaN();
    char* base = static_cast<char*>(ws.p);
    p.ws_acc = reinterpret_cast<float*>(base + w.acc_offset);
    p.ws_max = reinterpret_cast<float*>(base + w.max_offset);
    p.ws_sum = reinterpret_cast<float*>(base + w.sum_offset);
    p.num_segments = sel.num_segments;
    if (sel.fused_reduce) {
      // Exactly the words the launch uses (guard pages past them), zeroed.
      res.reduce_instance.clear();
      res.fused_reduce = true;
      counter_words = fused_counter_words(sel.attention.grid.x, desc.num_kv_heads, sel.num_segments);
      counters.p = hostexec::guarded_alloc(counter_words * 4, "fused reduce counters");
      std::memset(counters.p, 0, counter_words * 4);
      p.ws_count = static_cast<uint32_t*>(counters.p);
    }
  }
  prob.poison_output();
  if (desc.num_seqs > 0) {
    const auto run = [&](const KernelLaunch& k) {
      return opt.engine == Engine::kIsa ? launch_isa(k, p, opt, &res) : launch(k, p);
    };
    hostexec::Result r = run(sel.attention);
    if (!r.ok) { res.error = "launch " + res.instance + ": " + r.error; return res; }
    if (sel.path == Path::k3D && desc.num_tokens > 0 && !res.fused_reduce) {
      r = run(sel.reduce);
      if (!r.ok) { res.error = "launch " + res.reduce_instance + ": " + r.error; return res; }
    }
    // The fused reduce leaves every counter it used at 0 (the next launch's start).
    for (uint64_t i = 0; i < counter_words; ++i)
      if (static_cast<const uint32_t*>(counters.p)[i] != 0) {
        res.error = "fused reduce: counter " + std::to_string(i) + " of " + std::to_string(counter_words) + " left at " +
                    std::to_string(static_cast<const uint32_t*>(counters.p)[i]) + " after the launch; expected 0";
        return res;
      }
  }
  const std::vector<double> ref = ref::attention(ref::RefInputs{&prob.params, prob.spec.q_dtype, prob.spec.kv_dtype});
  const Tolerance t = opt.use_tolerance_override ? opt.tol : tolerance_for(prob);
  res.cmp = testing::compare_output(prob, ref, t.atol, t.rtol);
  if (!res.cmp.ok) { res.error = "mismatch vs reference: " + res.cmp.first_failure; return res; }
  res.ok = true;
  return res;
}

}  // namespace uattn::exec

namespace uattn::exec {
namespace {
struct GuardedAllocator final : testing::Allocator {
  void* alloc(size_t bytes, const char* name) override { return hostexec::guarded_alloc(bytes ? bytes : 1, name); }
  void free(void* p) override { if (p) hostexec::guarded_free(p); }
};
}  // namespace
testing::Allocator& guarded_allocator() {
  static GuardedAllocator a;
  return a;
}
}  // namespace uattn::exec
