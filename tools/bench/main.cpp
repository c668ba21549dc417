// uattn-bench: parity + benchmark tables for uattn's lanes (auto, forced 2d,
// forced 3d), after the seed harness (docs/bench.md). For each scenario of a
// set it builds the paged inputs, runs every lane through the runtime
// (Runtime::run, the caller's stream), compares each lane with the fp64
// reference and with the other lanes, and on a GPU times each lane with HIP
// events around --attempts launches after --warmup, rotating input sets.
// Built twice: uattn-bench (libuattn, HIP) and uattn-bench-cpu (the CPU-backed
// HIP device of tests/hipcpu: parity only, no GPU times).
//
// Exit status: 0 all lanes within tolerance; 1 a lane failed (a "FAIL" line
// names it); 2 usage error.
#include <hip/hip_runtime_api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "device_problem.hpp"  // tests/e2e
#include "reference.hpp"       // tests/reference
#include "sets.hpp"
#if UATTN_BENCH_CPU
#include "model_bench.hpp"
#endif

#ifndef UATTN_BENCH_CPU
#define UATTN_BENCH_CPU 0
#endif

using json = nlohmann::json;
using namespace uattn;

namespace {

struct LaneResult {
  std::string lane, path, instance, reduce_instance, error;
  int num_segments = 1;
  bool ok = false, timed = false;
  double ms = 0, gbps = 0, tflops = 0;
  testing::CompareResult vs_ref{};
  std::vector<double> out;  // [tokens][Hq][D], in the output's units
  std::map<std::string, std::pair<double, double>> vs_lanes;  // max_abs, mean_abs
  Selection sel;            // the runtime's plan of this lane (SelectOptions::explain: its candidates too)
};

// True when a device of gcnArchName `gcn` is of architecture `arch` (its
// record's name or offload target, uattn::arch_from_name).
bool is_arch(const char* gcn, const std::string& arch) {
  Arch a, want;
  return arch_from_name(gcn, &a) && arch_from_name(arch, &want) && a == want;
}

ForcePath parse_lane(const std::string& s) {
  return s == "2d" ? ForcePath::k2D : s == "3d" ? ForcePath::k3D : ForcePath::kAuto;
}

size_t esize(DType d) { return d == DType::fp8e4m3 ? 1 : 2; }

// Bytes a launch must move at least (q, out, and the K/V rows each sequence
// reads once per KV head) and the FLOPs of QK^T and PV over the kept keys
// (causal, window) — the seed harness's achieved-bandwidth / FLOP-rate basis.
void work_of(const testing::ProblemSpec& s, double* bytes, double* flops) {
  double keys_read = 0, pairs = 0, tokens = 0;
  for (auto [q, k] : s.seqs) {
    tokens += q;
    const int ctx = k - q;
    int lo = 0;
    if (s.window > 0 && q > 0) lo = std::max(0, ctx - (s.window - 1));
    keys_read += q > 0 ? k - lo : 0;
    for (int p = 0; p < q; ++p) {
      const int t = ctx + p;
      const int first = s.window > 0 ? std::max(0, t - (s.window - 1)) : 0;
      pairs += t - first + 1;
    }
  }
  const double D = s.head_size;
  *bytes = tokens * s.num_q_heads * D * (esize(s.q_dtype) + esize(s.out_dtype)) +
           keys_read * s.num_kv_heads * D * 2 * esize(s.kv_dtype);
  *flops = 4.0 * pairs * s.num_q_heads * D;
}

// The output of query heads [0, q_heads) (0: all), [token][head][d].
std::vector<double> read_out(const testing::Problem& prob, int q_heads) {
  const AttnParams& p = prob.params;
  const int hq = q_heads > 0 ? q_heads : p.num_q_heads;
  std::vector<double> v;
  v.reserve((size_t)prob.num_tokens * hq * p.head_size);
  for (int64_t t = 0; t < prob.num_tokens; ++t)
    for (int h = 0; h < hq; ++h)
      for (int d = 0; d < p.head_size; ++d)
        v.push_back(ref::load_element((DType)p.out_dtype, p.out, t * p.o_stride_token + h * p.o_stride_head + d));
  return v;
}

std::string fmt(const char* f, double x) {
  char b[64];
  snprintf(b, sizeof b, f, x);
  return b;
}

struct Options {
  std::string set = "default", report, arch;
  std::vector<std::string> scenarios, lanes{"auto", "2d", "3d"};
  int attempts = 10, warmup = 3, device = -1, rotate = 4;
  double scale_budget = UATTN_BENCH_CPU ? 1200 : 0;
  bool list = false;
  bool cpu_times = false;  // uattn-bench-cpu: run the timing path anyway (CPU wall times)
  bool model = false;      // uattn-bench-cpu --model: whole-launch model (model_bench.hpp)
  uint64_t model_groups = 0;
  int model_kv_heads = 0;  // --model: run and trace this many KV heads' workgroups (0 = all)
  bool model_candidates = false;  // --model: also model every launch configuration the selector can pick
};

// One launch configuration the selector can pick for a problem.
struct Candidate {
  Path path = Path::k2D;
  const InstanceRow* row = nullptr;
  int segments = 1;             // 1 for 2D
  double estimate_cycles = NAN; // the selector's estimate (NaN: a count it did not weigh)
  std::string label() const { return std::string("cand:") + row->name + ":" + std::to_string(segments); }
};

// "2d NAME" or "3d NAME xSEGMENTS": one launch configuration in the tables.
std::string config_label(const std::string& path, const std::string& instance, int segments) {
  return path + " " + instance + (path == "3d" ? " x" + std::to_string(segments) : "");
}

// The configurations the selector can pick for the problem of `sel` (a plan with
// SelectOptions::explain): every estimate it weighed (the first serving 2D row of
// each tile kind; the 3D row at the segment counts it weighs), plus that 3D row at
// every power of two from 2 up to the most an automatic split chooses
// (auto_segment_cap, or auto_fused_segment_cap where the fused reduce was weighed) and no more than the KV tiles of the longest walk.
std::vector<Candidate> candidates_of(const Selection& sel, Arch arch) {
  std::vector<Candidate> c;
  const InstanceRow* r3 = nullptr;
  int tiles = 0;
  for (const CandidateEstimate& e : sel.candidates) {
    c.push_back({e.row->path, e.row, e.num_segments, e.cycles});
    if (e.row->path == Path::k3D) {
      r3 = e.row;
      tiles = std::max(tiles, e.tiles * e.num_segments);
    }
  }
  if (r3) {
    // Past auto_segment_cap only where the fused reduce was weighed (it serves those counts).
    const bool fused = std::any_of(sel.candidates.begin(), sel.candidates.end(),
                                   [](const CandidateEstimate& e) { return e.fused_reduce; });
    const int cap = std::min(fused ? auto_fused_segment_cap(arch, default_policy(arch))
                                   : auto_segment_cap(arch, default_policy(arch)),
                             tiles);
    for (int s = 2; s <= cap; s *= 2)
      if (std::none_of(c.begin(), c.end(), [&](const Candidate& x) { return x.row == r3 && x.segments == s; }))
        c.push_back({Path::k3D, r3, s, NAN});
  }
  return c;
}

// Times `n` launches of one lane on `stream` with a HIP event pair, rotating
// over `sets` (independent copies of the inputs) so caches do not flatter.
bool time_lane(Runtime& rt, std::vector<std::unique_ptr<e2e::DeviceProblem>>& sets, const SelectOptions& opt,
               void* ws, size_t ws_bytes, hipStream_t stream, const Options& o, double* ms, std::string* err) {
  for (int i = 0; i < o.warmup; ++i) {
    const Status s = rt.run(sets[i % sets.size()]->args(), ws, ws_bytes, stream, opt);
    if (!s.ok()) { *err = s.message; return false; }
  }
  if (hipDeviceSynchronize() != hipSuccess) { *err = "hipDeviceSynchronize after warmup failed"; return false; }
  hipEvent_t a, b;
  (void)hipEventCreate(&a);
  (void)hipEventCreate(&b);
  (void)hipEventRecord(a, stream);
  for (int i = 0; i < o.attempts; ++i) {
    const Status s = rt.run(sets[i % sets.size()]->args(), ws, ws_bytes, stream, opt);
    if (!s.ok()) { *err = s.message; return false; }
  }
  (void)hipEventRecord(b, stream);
  hipError_t e = hipEventSynchronize(b);
  float total = 0;
  if (e == hipSuccess) e = hipEventElapsedTime(&total, a, b);
  (void)hipEventDestroy(a);
  (void)hipEventDestroy(b);
  if (e != hipSuccess) { *err = std::string("HIP events: ") + hipGetErrorName(e); return false; }
  *ms = total / o.attempts;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"uattn-bench: parity + benchmark tables of uattn's auto / 2d / 3d lanes (docs/bench.md)"};
  app.add_option("--set", o.set, "scenario set")->check(CLI::IsMember(bench::set_names()));
  app.add_option("--scenario", o.scenarios, "run only this scenario (repeatable)");
  std::string paths = "auto,2d,3d";
  app.add_option("--paths", paths, "lanes to run, comma-separated subset of auto,2d,3d");
  app.add_option("--attempts", o.attempts, "timed launches per lane (GPU)")->check(CLI::PositiveNumber);
  app.add_option("--warmup", o.warmup, "untimed launches before timing (GPU)")->check(CLI::NonNegativeNumber);
  app.add_option("--rotate", o.rotate, "input sets rotated through while timing (GPU)")->check(CLI::PositiveNumber);
  app.add_option("--report", o.report, "write every measurement to this JSON file");
  std::vector<std::string> arch_names;  // the architecture records
  for (Arch a : kArchs) arch_names.push_back(to_string(a));
  app.add_option("--arch", o.arch, "use the first device of this architecture: " + arch_list())
      ->check(CLI::IsMember(arch_names));
  app.add_option("--device", o.device, "HIP device index (default: current device, or the first of --arch)");
  app.add_option("--scale-budget", o.scale_budget,
                 "scale scenarios above this many KV-tile iterations down by a power of two (0 = full size; "
                 "default 1200 on the CPU-backed device, 0 on a GPU)");
  std::string shared_dir = UATTN_SCENARIO_DIR, sets_dir = UATTN_SETS_DIR;
  app.add_option("--scenario-dir", shared_dir, "folder of default.json and models.json");
  app.add_option("--sets-dir", sets_dir, "folder of creative.json and fmha.json");
  app.add_flag("--list", o.list, "list the scenarios of --set and exit");
  if (UATTN_BENCH_CPU)
    app.add_flag("--cpu-times", o.cpu_times,
                 "run the timing path on the CPU-backed device too (HIP events around CPU execution: not GPU times)");
#if UATTN_BENCH_CPU
  app.add_flag("--model", o.model,
               "model each lane's launches (emulator traces + tools/model) beside Triton's code objects "
               "(docs/performance.md, 'Whole-launch model')");
  app.add_option("--model-groups", o.model_groups, "--model: trace at most this many workgroups per launch (0 = all)");
  app.add_flag("--model-candidates", o.model_candidates,
               "--model: also run and model every launch configuration the selector can pick (each 2D tile, the 3D "
               "row at each segment count it weighs and every power of two up to its cap) and report how far the "
               "auto lane's choice is from the fastest (docs/performance.md, 'Selector against the model')");
  app.add_option("--model-kv-heads", o.model_kv_heads,
                 "--model: run and trace only the workgroups of the first N KV heads (and their query heads) of "
                 "each launch, the other heads modelled as alike; outputs checked for those heads (0 = all)")
      ->check(CLI::NonNegativeNumber);
#endif
  CLI11_PARSE(app, argc, argv);
  o.lanes.clear();
  {
    std::stringstream in(paths);
    std::string l;
    while (std::getline(in, l, ','))
      if (l == "auto" || l == "2d" || l == "3d") o.lanes.push_back(l);
      else { fprintf(stderr, "--paths: '%s' is not auto, 2d or 3d\n", l.c_str()); return 2; }
  }

  if (o.model_candidates && (!o.model || std::find(o.lanes.begin(), o.lanes.end(), "auto") == o.lanes.end())) {
    fprintf(stderr, "--model-candidates: needs --model and the auto lane in --paths (the selector's choice)\n");
    return 2;
  }

  std::vector<bench::BenchScenario> all;
  std::string err;
  if (!bench::load_set(o.set, shared_dir, sets_dir, o.scale_budget, &all, &err)) {
    fprintf(stderr, "uattn-bench: %s\n", err.c_str());
    return 2;
  }
  std::vector<bench::BenchScenario> run;
  for (const std::string& want : o.scenarios)
    if (std::none_of(all.begin(), all.end(), [&](const auto& s) { return s.name == want; })) {
      fprintf(stderr, "uattn-bench: --scenario %s is not in set '%s' (--list shows its scenarios)\n", want.c_str(),
              o.set.c_str());
      return 2;
    }
  for (auto& s : all)
    if (o.scenarios.empty() || std::find(o.scenarios.begin(), o.scenarios.end(), s.name) != o.scenarios.end())
      run.push_back(s);
  if (o.list) {
    for (const auto& s : run)
      printf("%-10s %-36s %s\n", s.set.c_str(), s.name.c_str(), explain::summary(s.scenario).c_str());
    return 0;
  }

  // Device. (The CPU-backed device has one device per architecture record unless
  // $UATTN_HIPCPU_DEVICES says otherwise: tests/hipcpu/hipcpu.hpp.)
  int count = 0;
  if (const hipError_t e = hipGetDeviceCount(&count); e != hipSuccess || count == 0) {
    fprintf(stderr, "uattn-bench: no HIP device is visible (hipGetDeviceCount: %s, %d devices)%s\n",
            hipGetErrorName(e), count,
            UATTN_BENCH_CPU ? "" : "; without a GPU, uattn-bench-cpu runs the lanes for parity on the CPU");
    return 1;
  }
  int dev = o.device;
  if (dev < 0) {
    (void)hipGetDevice(&dev);
    if (!o.arch.empty())
      for (int i = 0; i < count; ++i) {
        hipDeviceProp_t p;
        if (hipGetDeviceProperties(&p, i) == hipSuccess && is_arch(p.gcnArchName, o.arch)) {
          dev = i;
          break;
        }
      }
  }
  if (hipSetDevice(dev) != hipSuccess) {
    fprintf(stderr, "uattn-bench: --device %d: no such device (%d visible)\n", dev, count);
    return 2;
  }
  hipDeviceProp_t prop;
  (void)hipGetDeviceProperties(&prop, dev);
  if (!o.arch.empty() && !is_arch(prop.gcnArchName, o.arch)) {
    fprintf(stderr, "uattn-bench: --arch %s: device %d is %s\n", o.arch.c_str(), dev, prop.gcnArchName);
    return 2;
  }
  std::unique_ptr<Runtime> rt;
  if (Status s = Runtime::create(&rt); !s.ok()) {
    fprintf(stderr, "%s\n", s.message.c_str());
    return 1;
  }
  printf("uattn-bench: device %d: %s (%s, %d CUs); bundle %s\n", dev, prop.name, prop.gcnArchName,
         prop.multiProcessorCount, rt->bundle_path().c_str());
  const bool timed = (!UATTN_BENCH_CPU || o.cpu_times) && !o.model;
#if UATTN_BENCH_CPU
  std::unique_ptr<bench::ModelBench> model;
  if (o.model) try {
      model = bench::ModelBench::create(std::string(prop.gcnArchName).substr(0, std::string(prop.gcnArchName).find(':')),
                                        UATTN_TRITON_DIR, UATTN_SEED_TRITON_TIMES, o.model_groups, o.model_kv_heads);
    } catch (const std::exception& e) {
      fprintf(stderr, "uattn-bench: --model: %s\n", e.what());
      return 2;
    }
#endif
  if (UATTN_BENCH_CPU && !o.cpu_times)
    printf("CPU-backed HIP device: lanes run for parity only; no times are reported (CPU execution is not a GPU "
           "time).\n");
  else if (UATTN_BENCH_CPU)
    printf("CPU-backed HIP device, --cpu-times: times are CPU wall times of the emulation, NOT GPU times; "
           "%d launches after %d warmup\n", o.attempts, o.warmup);
  else
    printf("timing: HIP events on one stream, %d launches after %d warmup, %d input sets rotated\n", o.attempts,
           o.warmup, o.rotate);
  if (o.scale_budget > 0)
    printf("scaling: scenarios above %.0f KV-tile iterations are scaled down; column 'scale': lengths divided by N, "
           "'/sM': every M-th sequence kept\n", o.scale_budget);

  hipStream_t stream;
  (void)hipStreamCreate(&stream);
  json report = json::array();
  int failures = 0;
  std::map<std::string, std::vector<std::pair<const bench::BenchScenario*, LaneResult>>> tables;
  std::vector<std::string> agreement;  // --model-candidates: one table row per scenario
  int disagreements = 0;
  for (const bench::BenchScenario& sc : run) {
    auto prob = testing::make_problem(sc.spec);
    std::vector<LaneResult> lanes;
    double bytes = 0, flops = 0;
    work_of(sc.spec, &bytes, &flops);
    for (const std::string& lane : o.lanes) {
      LaneResult r;
      r.lane = lane;
      e2e::RunSpec rs;
      rs.opt.path = parse_lane(lane);
      rs.stream = stream;
#if UATTN_BENCH_CPU
      if (model) {
        model->begin_lane(sc);
        rs.check_q_heads = model->checked_q_heads(sc);
      }
#endif
      const e2e::RunOutcome out = e2e::run_on_device(rt.get(), *prob, rs);
#if UATTN_BENCH_CPU
      if (model) model->end_lane(sc, lane, out.ok);
#endif
      r.vs_ref = out.cmp;
      r.ok = out.ok;
      r.error = out.error;
      if (out.sel.ok) {
        r.path = to_string(out.sel.path);
        r.instance = out.sel.attention.row->name;
        r.reduce_instance = out.sel.path == Path::k3D ? (out.sel.fused_reduce ? "fused" : out.sel.reduce.row->name) : "";
        r.num_segments = out.sel.num_segments;
      }
      r.sel = out.sel;
      r.out = read_out(*prob, rs.check_q_heads);
      if (r.ok && timed) {
        std::vector<std::unique_ptr<e2e::DeviceProblem>> sets;
        for (int i = 0; i < o.rotate; ++i) sets.push_back(std::make_unique<e2e::DeviceProblem>(*prob));
        size_t ws_bytes = 0;
        void* ws = nullptr;
        (void)rt->workspace_size(sets[0]->args(), &ws_bytes, rs.opt);
        if (ws_bytes) (void)hipMalloc(&ws, ws_bytes);
        std::string terr;
        r.timed = time_lane(*rt, sets, rs.opt, ws, ws_bytes, stream, o, &r.ms, &terr);
        if (!r.timed) { r.ok = false; r.error = "timing: " + terr; }
        if (ws) (void)hipFree(ws);
        if (r.timed && r.ms > 0) {
          r.gbps = bytes / (r.ms * 1e-3) / 1e9;
          r.tflops = flops / (r.ms * 1e-3) / 1e12;
        }
      }
      lanes.push_back(std::move(r));
    }
    // Each lane against the others.
    for (LaneResult& a : lanes)
      for (const LaneResult& b : lanes) {
        if (&a == &b || a.out.size() != b.out.size()) continue;
        double mx = 0, sum = 0;
        for (size_t i = 0; i < a.out.size(); ++i) {
          const double d = std::fabs(a.out[i] - b.out[i]);
          mx = std::max(mx, std::isnan(d) ? INFINITY : d);
          sum += d;
        }
        a.vs_lanes[b.lane] = {mx, a.out.empty() ? 0 : sum / a.out.size()};
      }
    json rec = {{"scenario", sc.name}, {"set", sc.set}, {"dtype", to_string(sc.spec.q_dtype)},
                {"kv_dtype", to_string(sc.spec.kv_dtype)}, {"block_size", sc.spec.block_size},
                {"head_size", sc.spec.head_size}, {"num_query_heads", sc.spec.num_q_heads},
                {"num_kv_heads", sc.spec.num_kv_heads}, {"num_seqs", (int)sc.spec.seqs.size()},
                {"total_q", prob->num_tokens}, {"scale_divisor", sc.scale}, {"seq_divisor", sc.seq_divisor}, {"bytes", bytes}, {"flops", flops}};
    json seqs = json::array();
    for (auto [q, k] : sc.spec.seqs) seqs.push_back({q, k});
    rec["seqs_q_kv"] = seqs;
    for (LaneResult& r : lanes) {
      const std::string k = "uattn_" + r.lane;
      json vs_lanes = json::object();
      for (auto& [other, v] : r.vs_lanes) vs_lanes[other] = {{"max_abs", v.first}, {"mean_abs", v.second}};
      rec[k + "_ms"] = r.timed ? json(r.ms) : json(nullptr);
      rec[k + "_gbps"] = r.timed ? json(r.gbps) : json(nullptr);
      rec[k + "_tflops"] = r.timed ? json(r.tflops) : json(nullptr);
      rec[k + "_vs_ref"] = {{"max_abs", r.vs_ref.max_abs}, {"mean_abs", r.vs_ref.mean_abs},
                            {"nan_count", r.vs_ref.nan_count}, {"fail_count", r.vs_ref.fail_count}};
      rec[k + "_vs_lanes"] = vs_lanes;
      rec[k + "_path"] = r.path;
      rec[k + "_instance"] = r.instance;
      rec[k + "_reduce_instance"] = r.reduce_instance;
      rec[k + "_num_segments"] = r.num_segments;
      rec[k + "_ok"] = r.ok;
      rec[k + "_error"] = r.error;
      if (!r.ok) {
        ++failures;
        printf("FAIL %s lane %s: %s\n", sc.name.c_str(), r.lane.c_str(), r.error.c_str());
      }
      tables[r.lane].push_back({&sc, r});
    }
#if UATTN_BENCH_CPU
    if (model) model->scenario_done(sc, o.lanes, rec);
    if (model && o.model_candidates) {
      // The auto lane's plan (run_on_device plans with explain: its candidates), then every candidate
      // run and modelled.
      const auto auto_it = std::find_if(lanes.begin(), lanes.end(), [](const LaneResult& r) { return r.lane == "auto"; });
      const Selection& plan = auto_it->sel;  // --model-candidates requires the auto lane
      json cands = json::array();
      std::string err;
      const double auto_us = model->lane_us(sc, "auto", &err);
      double best_us = NAN;
      std::string best_label;
      Arch dev_arch = Arch{};
      (void)arch_from_name(prop.gcnArchName, &dev_arch);
      for (const Candidate& c : plan.ok ? candidates_of(plan, dev_arch) : std::vector<Candidate>{}) {
        e2e::RunSpec rs;
        rs.opt.path = c.path == Path::k3D ? ForcePath::k3D : ForcePath::k2D;
        rs.opt.filter = c.row->name;
        rs.opt.num_segments = c.path == Path::k3D ? c.segments : 0;
        rs.stream = stream;
        model->begin_lane(sc);
        rs.check_q_heads = model->checked_q_heads(sc);
        const e2e::RunOutcome out = e2e::run_on_device(rt.get(), *prob, rs);
        model->end_lane(sc, c.label(), out.ok);
        std::string cerr;
        const double us = model->lane_us(sc, c.label(), &cerr);
        if (!out.ok) {
          cerr = out.error;
          ++failures;
          printf("FAIL %s candidate %s x%d: %s\n", sc.name.c_str(), c.row->name, c.segments, out.error.c_str());
        }
        // The selector's estimate of this configuration (forced: the same cost model).
        const double est = out.sel.ok ? out.sel.estimate_cycles : c.estimate_cycles;
        cands.push_back({{"path", to_string(c.path)}, {"instance", c.row->name}, {"num_segments", c.segments},
                         {"selector_estimate_cycles", std::isnan(est) ? json(nullptr) : json(est)},
                         {"weighed_by_selector", !std::isnan(c.estimate_cycles)},
                         {"model_us", std::isnan(us) ? json(nullptr) : json(us)}, {"ok", out.ok}, {"error", cerr},
                         {"max_abs", out.cmp.max_abs}});
        if (!std::isnan(us) && (std::isnan(best_us) || us < best_us)) {
          best_us = us;
          best_label = config_label(to_string(c.path), c.row->name, c.segments);
        }
      }
      const double ratio = auto_us / best_us;
      const bool agrees = !std::isnan(ratio) && ratio <= 1.10;
      if (!agrees) ++disagreements;
      rec["model_candidates"] = cands;
      rec["model_selector_us"] = std::isnan(auto_us) ? json(nullptr) : json(auto_us);
      rec["model_best_us"] = std::isnan(best_us) ? json(nullptr) : json(best_us);
      rec["model_best"] = best_label;
      rec["model_selector_vs_best"] = std::isnan(ratio) ? json(nullptr) : json(ratio);
      rec["model_selector_agrees"] = agrees;
      const std::string pick = config_label(auto_it->path, auto_it->instance, auto_it->num_segments);
      agreement.push_back("| " + sc.name + " | " + pick + " | " + fmt("%.1f", auto_us) + " | " + best_label + " | " +
                          fmt("%.1f", best_us) + " | " + fmt("%.2f", ratio) + " | " + std::to_string(cands.size()) +
                          " | " + (agrees ? "yes" : "**no**") + " |");
    }
#endif
    report.push_back(rec);
  }
  (void)hipStreamDestroy(stream);

  // The three tables.
  for (const std::string& lane : o.lanes) {
    printf("\n### %s lane%s\n\n", lane.c_str(), lane == "auto" ? " (the selector's choice)" : " (forced)");
    printf("| %-34s | %5s | %-4s | %4s | %9s | %8s | %8s | %9s | %9s | %-24s |\n", "scenario", "scale", "path", "segs",
           "time", "GB/s", "TFLOP/s", "max_abs", "mean_abs", "max_abs vs other lanes");
    printf("|%s|------:|------|-----:|----------:|---------:|---------:|----------:|----------:|%s|\n",
           std::string(36, '-').c_str(), std::string(26, '-').c_str());
    for (auto& [sc, r] : tables[lane]) {
      std::string others;
      for (auto& [other, v] : r.vs_lanes) others += (others.empty() ? "" : " ") + other + " " + fmt("%.2e", v.first);
      const std::string scale = std::to_string(sc->scale) + (sc->seq_divisor > 1 ? "/s" + std::to_string(sc->seq_divisor) : "");
      printf("| %-34s | %5s | %-4s | %4d | %9s | %8s | %8s | %9s | %9s | %-24s |%s\n", sc->name.c_str(), scale.c_str(),
             r.path.c_str(), r.num_segments, r.timed ? fmt("%.1fus", r.ms * 1e3).c_str() : "-",
             r.timed ? fmt("%.0f", r.gbps).c_str() : "-", r.timed ? fmt("%.1f", r.tflops).c_str() : "-",
             fmt("%.2e", r.vs_ref.max_abs).c_str(), fmt("%.2e", r.vs_ref.mean_abs).c_str(), others.c_str(),
             r.ok ? "" : " FAIL");
    }
  }
#if UATTN_BENCH_CPU
  if (model) model->print_tables(o.lanes);
  if (model && o.model_candidates) {
    printf("\n### Selector against the model (--model-candidates): the auto lane's choice vs the fastest modelled "
           "candidate; agrees when within 10%%\n\n");
    printf("| scenario | selector's choice | model us | fastest candidate | model us | choice / fastest | candidates | agrees |\n");
    printf("|---|---|---:|---|---:|---:|---:|---|\n");
    for (const std::string& l : agreement) printf("%s\n", l.c_str());
    printf("\n%zu scenarios: the selector's choice within 10%% of the fastest candidate in %zu\n", agreement.size(),
           agreement.size() - (size_t)disagreements);
  }
#endif
  printf("\n%zu scenarios x %zu lanes: %d failed\n", run.size(), o.lanes.size(), failures);
  if (!o.report.empty()) {
    json doc = {{"tool", "uattn-bench"},
                {"report_version", 1},
                {"device", {{"index", dev}, {"name", prop.name}, {"gcn_arch_name", prop.gcnArchName},
                            {"compute_units", prop.multiProcessorCount}, {"wave_size", prop.warpSize},
                            {"lds_per_workgroup", prop.sharedMemPerBlock},
                            {"backend", UATTN_BENCH_CPU ? "cpu" : "hip"}}},
                {"timing", !UATTN_BENCH_CPU ? "hip_events"
                           : o.cpu_times ? "cpu_wall: HIP events on the CPU-backed device, not GPU times"
                                         : "none: CPU-backed HIP device, parity only"},
                {"set", o.set},
                {"lanes", o.lanes},
                {"attempts", o.attempts},
                {"warmup", o.warmup},
                {"rotate", o.rotate},
                {"scale_budget", o.scale_budget},
                {"failures", failures},
                {"scenarios", report}};
#if UATTN_BENCH_CPU
    if (model) doc["model"] = model->header();
#endif
    std::ofstream f(o.report);
    f << doc.dump(1) << "\n";
    if (!f) { fprintf(stderr, "uattn-bench: cannot write --report %s\n", o.report.c_str()); return 1; }
    printf("report: %s\n", o.report.c_str());
  }
  return failures ? 1 : 0;
}
