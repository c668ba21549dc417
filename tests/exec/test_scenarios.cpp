// The shared scenario sets (../shared/scenarios/default.json: the 13 scenarios
// of the seed harness; models.json: served model configurations) run end to
// end through `auto`, forced `2d` and forced `3d` on each AMD architecture,
// executed on the CPU and compared with the fp64 reference. Results go to a
// JSON report shaped like the seed harness's (max_abs / mean_abs vs reference
// per lane): UATTN_REPORT_PATH with ".<arch>.<lane>.json" appended.
//
// Scaling: CPU execution of a workgroup costs ~1 ms per KV tile, so scenarios
// whose work exceeds kTileBudget KV-tile iterations are scaled down: every
// q_len > 1 and every kv_len (and the window) is divided by the same power of
// two until the work fits; decode stays q_len 1. The factor is in the report.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "run.hpp"
#include "scenario.hpp"  // tools/explain
#include "sets.hpp"      // tools/bench

using namespace uattn;
using json = nlohmann::json;

namespace {

constexpr double kTileBudget = 3000;

struct Scenario {
  std::string name;
  uattn::testing::ProblemSpec spec;
  int scale = 1;
};

double work(const uattn::testing::ProblemSpec& s) {
  const int qpk = s.num_q_heads / s.num_kv_heads;
  double w = 0;
  for (auto [q, k] : s.seqs) w += std::ceil(q * qpk / 8.0) * s.num_kv_heads * std::ceil(k / 32.0);
  return w;
}

std::vector<Scenario> load() {
  std::vector<Scenario> out;
  for (const char* file : {"default.json", "models.json"}) {
    std::vector<explain::Scenario> list;
    std::string err;
    if (!explain::load_scenarios(std::string(UATTN_SCENARIO_DIR) + "/" + file, &list, &err))
      throw std::runtime_error(err);
    const bool models = std::string(file) == "models.json";
    for (const explain::Scenario& sc : list) {
      Scenario s;
      s.name = (models ? "model_" : "") + sc.name;
      s.spec = bench::to_spec(sc);  // the spec uattn-bench runs (models: its decode + prefill batch)
      uattn::testing::ProblemSpec& p = s.spec;
      p.seed = std::hash<std::string>{}(s.name);
      p.head_pad = -1;  // padded head rows and the head-major layout by seed (the bench runs the plain layout)
      p.kv_layout = -1;
      while (work(p) > kTileBudget) {
        s.scale *= 2;
        for (auto& [q, k] : p.seqs) {
          if (q > 1) q = std::max(1, q / 2);
          k = std::max(q, k / 2);
        }
        if (p.window > 0) p.window = std::max(1, p.window / 2);
      }
      out.push_back(s);
    }
  }
  return out;
}

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> s = load();
  return s;
}

struct Case { size_t idx; Arch arch; ForcePath path; };

std::string path_name(ForcePath p) { return p == ForcePath::kAuto ? "auto" : p == ForcePath::k2D ? "2d" : "3d"; }

std::vector<Case> cases() {
  std::vector<Case> c;
  for (size_t i = 0; i < scenarios().size(); ++i)
    for (Arch a : kArchs)
      for (ForcePath p : {ForcePath::kAuto, ForcePath::k2D, ForcePath::k3D}) c.push_back({i, a, p});
  return c;
}

class Report {
 public:
  ~Report() {
    for (auto& [arch, rows] : rows_) {
      std::ofstream out(std::string(UATTN_REPORT_PATH) + "." + arch + ".json");
      out << json{{"scenarios", rows}}.dump(1) << "\n";
    }
  }
  void add(const std::string& arch, json row) {
    std::lock_guard<std::mutex> g(m_);
    rows_[arch].push_back(std::move(row));
  }
 private:
  std::mutex m_;
  std::map<std::string, json> rows_;
};
Report& report() { static Report r; return r; }

class ScenarioRun : public ::testing::TestWithParam<Case> {};

TEST_P(ScenarioRun, MatchesReference) {
  const Case c = GetParam();
  const Scenario& s = scenarios()[c.idx];
  auto prob = uattn::testing::make_problem(s.spec, exec::guarded_allocator());
  exec::RunOptions o;
  o.arch = c.arch;
  o.select.path = c.path;
  const exec::RunResult r = exec::run_problem(*prob, o);
  json seqs = json::array();
  for (auto [q, k] : s.spec.seqs) seqs.push_back({q, k});
  report().add(std::string(to_string(c.arch)) + "." + path_name(c.path), json{{"scenario", s.name}, {"lane", path_name(c.path)}, {"path", to_string(r.path)},
                                       {"instance", r.instance}, {"reduce_instance", r.reduce_instance},
                                       {"num_segments", r.num_segments}, {"seqs_q_kv", seqs}, {"scale_divisor", s.scale},
                                       {"max_abs", r.cmp.max_abs}, {"mean_abs", r.cmp.mean_abs},
                                       {"elements", r.cmp.n}, {"ok", r.ok}, {"error", r.error}});
  EXPECT_TRUE(r.ok) << s.name << ": " << r.error;
  if (c.path == ForcePath::k2D) EXPECT_EQ(r.path, Path::k2D);
  if (c.path == ForcePath::k3D) EXPECT_EQ(r.path, Path::k3D);
}

std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  std::string n = scenarios()[i.param.idx].name + "_" + to_string(i.param.arch) + "_" + path_name(i.param.path);
  for (char& ch : n) if (!isalnum((unsigned char)ch)) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Shared, ScenarioRun, ::testing::ValuesIn(cases()), case_name);

}  // namespace
