// uattn-bench --model (model_bench.hpp).
#include "model_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include "hipcpu.hpp"           // tests/hipcpu
#include "run.hpp"              // tests/exec: tolerance_for
#include "triton_launch.hpp"    // tests/isa
#include "uattn/kernel/params.hpp"
#include "uattn/kernel/work_order.hpp"
#include "uattn/model/model.hpp"

namespace uattn::bench {
namespace {

using json = nlohmann::json;

json time_json(const model::KernelTime& k) {
  return {{"kernel", k.kernel}, {"us", k.us}, {"compute_us", k.compute_us}, {"memory_us", k.memory_us},
          {"tail_us", k.tail_us}, {"launch_us", k.launch_us}, {"bound", k.bound}, {"cu_cycles", k.cu_cycles},
          {"hbm_bytes", k.hbm_bytes}, {"groups", k.groups}, {"traced_groups", k.traced_groups},
          {"sampling", k.sampling}, {"waves_per_group", k.waves_per_group}, {"waves_per_simd", k.waves_per_simd},
          {"groups_per_cu", k.groups_per_cu}, {"occupancy_limit", k.occupancy_limit},
          {"simd_cycles", {{"issue", k.simd.issue}, {"mfma", k.simd.mfma}, {"lds", k.simd.lds},
                           {"mem_wait", k.simd.mem_wait}, {"dependency", k.simd.dependency},
                           {"barrier", k.simd.barrier}, {"idle", k.simd.idle}}}};
}

// The modelled launches of one lane (kernels in launch order), summed.
struct Modelled {
  std::vector<model::KernelTime> kernels;
  double us() const {
    double s = 0;
    for (const auto& k : kernels) s += k.us;
    return s;
  }
  json to_json() const {
    json a = json::array();
    for (const auto& k : kernels) a.push_back(time_json(k));
    return a;
  }
};

struct Row {
  std::string scenario, scale, u_path, t_cfg, t_path, u_err_s, t_err_s;
  int segs = 1;
  double u_us = NAN, t_us = NAN, seed_us = NAN, u_err = NAN, t_err = NAN;
  bool full_size = true;
};

class Impl final : public ModelBench {
 public:
  Impl(const std::string& arch, const std::string& triton_dir, const std::string& seed_file, uint64_t max_groups,
       int kv_heads)
      : m_(model::load_machine(arch)), triton_dir_(triton_dir), max_groups_(max_groups), kv_heads_(kv_heads) {
    std::ifstream in(seed_file);
    if (!in) throw std::runtime_error("--model: cannot open the seed's Triton times " + seed_file);
    seed_ = json::parse(in);
    hipcpu::set_engine(hipcpu::Engine::kIsa);
  }

  // The sampling of one launch of `sc`: the first kv_heads_ KV heads' share of
  // grid.y when grid.y is a multiple of num_kv_heads (attention: KV heads,
  // reduce: query heads), else none.
  model::LaunchModel::Sampling sampling(const BenchScenario& sc, const emu::LaunchRequest& rq) const {
    model::LaunchModel::Sampling s;
    s.max_groups = max_groups_;
    const int hkv = sc.spec.num_kv_heads;
    if (kv_heads_ > 0 && kv_heads_ < hkv && rq.grid[1] % hkv == 0) s.heads = rq.grid[1] / hkv * kv_heads_;
    // uattn's 2D attention launches in the serpentine work order
    // (AttnParams::dispatch_round): the sampling follows the work.
    const bool attention = rq.kernel.rfind("uattn_", 0) == 0 && rq.kernel.find("_2d_") != std::string::npos;
    if (attention && rq.kernarg.size() >= sizeof(uattn::AttnParams) && rq.grid[2] == 1) {
      uattn::AttnParams p;
      memcpy(&p, rq.kernarg.data(), sizeof p);
      const uint32_t R = (uint32_t)p.dispatch_round;
      const uint64_t n = (uint64_t)rq.grid[0] * rq.grid[1];
      if (R > 0 && n > R && n < (1ull << 32))
        s.work_of = [R, n](uint64_t g) { return (uint64_t)uattn::serpentine((uint32_t)g, (uint32_t)n, R); };
    }
    return s;
  }

  int checked_q_heads(const BenchScenario& sc) const override {
    const int hkv = sc.spec.num_kv_heads;
    return kv_heads_ > 0 && kv_heads_ < hkv ? sc.spec.num_q_heads / hkv * kv_heads_ : 0;
  }

  void begin_lane(const BenchScenario& sc) override {
    current_.kernels.clear();
    pending_.clear();
    hipcpu::set_isa_hook([this, &sc](const emu::CodeObject& co, emu::LaunchRequest& rq) {
      pending_.push_back(std::make_unique<model::LaunchModel>(m_, co, rq));
      pending_.back()->attach(rq, sampling(sc, rq));
    });
  }

  void end_lane(const BenchScenario& sc, const std::string& lane, bool ok) override {
    hipcpu::set_isa_hook(nullptr);
    Modelled md;
    std::string err;
    for (auto& p : pending_) {
      try {
        md.kernels.push_back(p->finish());
      } catch (const std::exception& e) {
        err = e.what();
      }
    }
    pending_.clear();
    lanes_[{sc.name, lane}] = {std::move(md), ok && err.empty(), err};
  }

  double lane_us(const BenchScenario& sc, const std::string& lane, std::string* err) const override {
    const auto it = lanes_.find({sc.name, lane});
    if (it == lanes_.end()) { *err = "lane " + lane + " was not run"; return NAN; }
    const LaneModel& um = it->second;
    if (!um.ok || um.md.kernels.empty()) {
      *err = um.error.empty() ? "the lane failed (see its output check)" : um.error;
      return NAN;
    }
    err->clear();
    return um.md.us();
  }

  void scenario_done(const BenchScenario& sc, const std::vector<std::string>& lanes, json& rec) override {
    // Triton: the configuration serving this problem, launched as vLLM's wrapper does.
    const std::string cfg_name = triton::find_config(triton_dir_, m_.arch, sc.spec);
    triton::Config cfg;
    if (!cfg_name.empty()) cfg = triton::config_from(cfg_name, triton::read_json(triton_dir_ + "/" + cfg_name + "_attn2d.json"));
    for (const std::string& lane : lanes) {
      const std::string k = "uattn_" + lane;
      Row row;
      row.scenario = sc.name;
      row.scale = std::to_string(sc.scale) + (sc.seq_divisor > 1 ? "/s" + std::to_string(sc.seq_divisor) : "");
      row.full_size = sc.scale == 1 && sc.seq_divisor == 1;
      if (const int hq = checked_q_heads(sc))  // heads sampled: the launch is still the full one
        row.scale += " h" + std::to_string(hq / (sc.spec.num_q_heads / sc.spec.num_kv_heads)) + "/" +
                     std::to_string(sc.spec.num_kv_heads);
      const LaneModel& um = lanes_[{sc.name, lane}];
      row.u_path = rec.value(k + "_path", std::string());
      row.segs = rec.value(k + "_num_segments", 1);
      row.u_err = rec[k + "_vs_ref"].value("max_abs", NAN);
      if (um.ok && !um.md.kernels.empty()) row.u_us = um.md.us();
      rec[k + "_model_us"] = std::isnan(row.u_us) ? json(nullptr) : json(row.u_us);
      rec[k + "_model_launches"] = um.md.to_json();
      rec[k + "_model_error"] = um.error;
      // Triton's lane: auto = the wrapper's path, or forced.
      const std::string t = "triton_" + lane;
      rec[t + "_config"] = cfg_name;
      rec[t + "_model_us"] = nullptr;
      rec[t + "_error"] = cfg_name.empty() ? "no Triton code object for this configuration in " + triton_dir_ : "";
      rec[t + "_vs_ref"] = nullptr;
      if (!cfg_name.empty()) {
        const bool is3d = lane == "3d" || (lane == "auto" && triton::wrapper_uses_3d(sc.spec));
        row.t_cfg = cfg_name;
        row.t_path = is3d ? "3d" : "2d";
        rec[t + "_path"] = row.t_path;
        try {
          run_triton(sc, cfg, is3d, &row, rec, t);
        } catch (const std::exception& e) {
          rec[t + "_error"] = e.what();
        }
      }
      const json& times = seed_.at("times");  // measured on the seed's machine (its "arch") only
      if (seed_.value("arch", "") == m_.arch && times.contains(sc.name) && times[sc.name].contains(lane))
        row.seed_us = times[sc.name][lane].get<double>();
      rec["seed_triton_" + lane + "_us"] = std::isnan(row.seed_us) ? json(nullptr) : json(row.seed_us);
      rows_[lane].push_back(row);
    }
  }

  void print_tables(const std::vector<std::string>& lanes) const override {
    printf("\nWhole-launch model (tools/model; a model, not a measurement): machine %s (%s, %d CUs, %.0f MHz, "
           "%.0f GB/s), issue costs and latencies from LLVM's %s (SISchedule.td); column 'scale': lengths divided "
           "by N ('/sM': every M-th sequence kept; ' hK/N': the workgroups of K of the N KV heads run and traced, the "
           "others modelled as alike); model/seed only at scale 1.\n",
           m_.arch.c_str(), m_.product.c_str(), m_.compute_units, m_.clock_mhz, m_.hbm_gbs, m_.sched_model.c_str());
    for (const std::string& lane : lanes) {
      auto it = rows_.find(lane);
      if (it == rows_.end()) continue;
      printf("\n### %s lane, modelled\n\n", lane.c_str());
      printf("| instrument: uattn-bench --model (%s) | scale | uattn path | uattn us | Triton cfg | Triton path | "
             "Triton us | Triton/uattn | uattn max_abs | Triton max_abs | seed Triton us (MI355X) | Triton model/seed |\n",
             m_.arch.c_str());
      printf("|---|---:|---|---:|---|---|---:|---:|---:|---:|---:|---:|\n");
      for (const Row& r : it->second) {
        auto num = [](double v, const char* f) { char b[48]; if (std::isnan(v)) return std::string("-"); snprintf(b, sizeof b, f, v); return std::string(b); };
        const double ratio = r.t_us / r.u_us;
        const double vs_seed = r.full_size ? r.t_us / r.seed_us : NAN;
        printf("| %s | %s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.scenario.c_str(), r.scale.c_str(),
               r.u_path.c_str(), r.u_path == "3d" ? (" x" + std::to_string(r.segs)).c_str() : "",
               num(r.u_us, "%.1f").c_str(), r.t_cfg.empty() ? "-" : r.t_cfg.c_str(), r.t_path.empty() ? "-" : r.t_path.c_str(),
               num(r.t_us, "%.1f").c_str(), num(ratio, "%.2fx").c_str(), num(r.u_err, "%.2e").c_str(),
               num(r.t_err, "%.2e").c_str(), num(r.seed_us, "%.1f").c_str(), num(vs_seed, "%.2f").c_str());
      }
    }
  }

  json header() const override {
    json src = json::object();
    for (const auto& [k, v] : m_.sources) src[k] = v;
    return {{"machine", {{"arch", m_.arch}, {"product", m_.product}, {"compute_units", m_.compute_units},
                         {"clock_mhz", m_.clock_mhz}, {"hbm_gbs", m_.hbm_gbs}, {"sources", src}}},
            {"sched_model", m_.sched_model},
            {"max_traced_groups", max_groups_},
            {"sampled_kv_heads", kv_heads_},
            {"triton_dir", triton_dir_},
            {"seed_source", seed_.value("source", "")}};
  }

 private:
  struct LaneModel {
    Modelled md;
    bool ok = false;
    std::string error;
  };

  void run_triton(const BenchScenario& sc, const triton::Config& cfg, bool is3d, Row* row, json& rec,
                  const std::string& t) {
    const triton::Kernel attn = triton::load_kernel(triton_dir_, cfg.name + (is3d ? "_attn3d" : "_attn2d"));
    const int tile = triton::constexpr_value(attn.meta, "TILE_SIZE").get<int>();
    const int block_q = triton::constexpr_value(attn.meta, "BLOCK_Q").get<int>();
    auto run = triton::prepare(cfg, sc.spec, tile, block_q);
    testing::Problem& P = *run->prob;
    P.poison_output();
    std::vector<std::unique_ptr<model::LaunchModel>> models;
    triton::PathRun pr;
    const std::string err = triton::run_path(
        triton_dir_, cfg, is3d, *run,
        [&](const triton::Kernel& k, emu::LaunchRequest& rq) {
          models.push_back(std::make_unique<model::LaunchModel>(m_, *k.co, rq));
          models.back()->attach(rq, sampling(sc, rq));
        },
        &pr);
    if (!err.empty()) throw std::runtime_error(err);
    Modelled md;
    for (auto& mdl : models) md.kernels.push_back(mdl->finish());
    const exec::Tolerance tol = exec::tolerance_for(P);
    const int q_heads = checked_q_heads(sc);
    const testing::CompareResult cr = testing::compare_output(P, P.reference(q_heads), tol.atol, tol.rtol, q_heads);
    row->t_us = md.us();
    row->t_err = cr.max_abs;
    rec[t + "_model_us"] = row->t_us;
    rec[t + "_model_launches"] = md.to_json();
    rec[t + "_vs_ref"] = {{"max_abs", cr.max_abs}, {"mean_abs", cr.mean_abs}, {"nan_count", cr.nan_count},
                          {"fail_count", cr.fail_count}, {"ok", cr.ok}};
    if (!cr.ok) rec[t + "_error"] = "Triton's output is out of tolerance: " + cr.first_failure;
  }

  model::Machine m_;
  std::string triton_dir_;
  uint64_t max_groups_;
  int kv_heads_ = 0;
  json seed_;
  std::vector<std::unique_ptr<model::LaunchModel>> pending_;
  Modelled current_;
  std::map<std::pair<std::string, std::string>, LaneModel> lanes_;
  std::map<std::string, std::vector<Row>> rows_;
};

}  // namespace

std::unique_ptr<ModelBench> ModelBench::create(const std::string& arch, const std::string& triton_dir,
                                               const std::string& seed_file, uint64_t max_groups, int kv_heads) {
  return std::make_unique<Impl>(arch, triton_dir, seed_file, max_groups, kv_heads);
}

}  // namespace uattn::bench
