#include "sets.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace uattn::bench {

const std::vector<std::string>& set_names() {
  static const std::vector<std::string> n = {"default", "models", "long_prefill", "creative", "fmha", "all"};
  return n;
}

testing::ProblemSpec to_spec(const explain::Scenario& sc) {
  testing::ProblemSpec p;
  p.q_dtype = sc.q_dtype;
  p.kv_dtype = sc.kv_dtype;
  p.out_dtype = sc.q_dtype;
  p.head_size = sc.head_size;
  p.block_size = sc.block_size;
  p.num_q_heads = sc.num_q_heads;
  p.num_kv_heads = sc.num_kv_heads;
  p.window = sc.window;
  p.softcap = (float)sc.softcap;
  p.softmax_scale = (float)sc.softmax_scale;
  p.alibi = sc.alibi;
  p.qq_bias = sc.qq_bias;
  p.qq_bias_stride = sc.qq_bias_stride;
  p.sinks = sc.sinks;
  p.seqs = sc.seqs;
  if (p.seqs.empty()) p.seqs = {{1, 2048}, {1, 1500}, {64, 512}};  // models: a decode + prefill batch
  if (p.kv_dtype == DType::fp8e4m3) p.k_scale = p.v_scale = 0.0625f;  // codes of O(16) for O(1) values
  p.seed = std::hash<std::string>{}(sc.name);
  // The layout serving engines and the seed harness use (AITER / vLLM: a
  // contiguous [num_blocks, block_size, num_kv_heads, head_size] cache, q and
  // out [tokens, heads, head_size], no padding after a head row), for uattn
  // and Triton alike. The tests draw padded rows and the head-major layout
  // (testing::ProblemSpec); a benchmark of padded rows would time the
  // padding (head_size 128 + 8 fp8 bytes span two 128-byte lines for one).
  p.head_pad = 0;
  p.kv_layout = 0;
  return p;
}

constexpr size_t kMinSeqs = 4;  // thinning keeps at least this many sequences

static double work(const testing::ProblemSpec& s) {
  const int qpk = s.num_q_heads / std::max(1, s.num_kv_heads);
  double w = 0;
  for (auto [q, k] : s.seqs) w += std::ceil(q * qpk / 8.0) * s.num_kv_heads * std::ceil(k / 32.0);
  return w;
}

int thin_to_budget(testing::ProblemSpec* p, double budget) {
  if (budget <= 0) return 1;
  const std::vector<std::pair<int, int>> all = p->seqs;
  int keep_every = 1;
  while (work(*p) > budget && all.size() / (size_t)(keep_every * 2) >= kMinSeqs) {
    keep_every *= 2;
    p->seqs.clear();
    for (size_t i = 0; i < all.size(); i += keep_every) p->seqs.push_back(all[i]);
  }
  return keep_every;
}

int scale_to_budget(testing::ProblemSpec* p, double budget) {
  int scale = 1;
  if (budget <= 0) return scale;
  while (work(*p) > budget) {
    bool changed = false;
    for (auto& [q, k] : p->seqs) {
      const int q0 = q, k0 = k;
      if (q > 1) q = std::max(1, q / 2);
      k = std::max(q, k / 2);
      changed = changed || q != q0 || k != k0;
    }
    if (p->window > 0) p->window = std::max(1, p->window / 2);
    if (!changed) break;
    scale *= 2;
  }
  // QQ bias rows/columns follow the new query lengths.
  if (p->qq_bias && p->qq_bias_stride > 0) {
    int maxq = 1;
    for (auto [q, k] : p->seqs) maxq = std::max(maxq, q);
    p->qq_bias_stride = std::max(maxq, p->qq_bias_stride / scale);
  }
  return scale;
}

bool load_set(const std::string& set, const std::string& shared_dir, const std::string& sets_dir, double budget,
              std::vector<BenchScenario>* out, std::string* error) {
  std::vector<std::string> parts;
  if (set == "all") parts = {"default", "models", "long_prefill", "creative", "fmha"};
  else if (std::find(set_names().begin(), set_names().end(), set) != set_names().end()) parts = {set};
  else {
    *error = "--set " + set + ": expected one of default, models, long_prefill, creative, fmha, all";
    return false;
  }
  for (const std::string& part : parts) {
    const std::string file = (part == "default" || part == "models" || part == "long_prefill" ? shared_dir : sets_dir) + "/" + part + ".json";
    std::vector<explain::Scenario> list;
    if (!explain::load_scenarios(file, &list, error)) return false;
    for (const explain::Scenario& sc : list) {
      BenchScenario b;
      b.set = part;
      b.name = (part == "models" ? "model_" : "") + sc.name;
      b.scenario = sc;
      b.spec = to_spec(sc);
      b.spec.seed = std::hash<std::string>{}(b.name);
      b.seq_divisor = thin_to_budget(&b.spec, budget);
      b.scale = scale_to_budget(&b.spec, budget);
      out->push_back(std::move(b));
    }
  }
  return true;
}

}  // namespace uattn::bench
