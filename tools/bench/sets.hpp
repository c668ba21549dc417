// Scenario sets of uattn-bench and the e2e tests, read from data files:
//   default  <shared>/default.json   the 13 scenarios of the seed harness
//   long_prefill <shared>/long_prefill.json  the seed's single-sequence GQA-8 prefill cohort
//   models   <shared>/models.json    served model configurations, each run on the
//                                    batch (1,2048) (1,1500) (64,512)
//   creative <sets>/creative.json    long-context decode to 64K, GQA/MQA, d256, bf16,
//                                    window extremes, bias combinations
//   fmha     <sets>/fmha.json        the paged-attention subset of CK Tile's FMHA
//                                    testing matrix (docs/bench.md)
//   all      every set above, in that order
// <shared> is ../shared/scenarios beside the checkout (UATTN_SCENARIO_DIR),
// <sets> this folder's sets/ (installed to share/uattn/sets).
#pragma once
#include <string>
#include <vector>

#include "problem.hpp"   // tests/common
#include "scenario.hpp"  // tools/explain

namespace uattn::bench {

struct BenchScenario {
  std::string set;               // "default", "models", "long_prefill", "creative", "fmha"
  std::string name;
  explain::Scenario scenario;    // as read
  testing::ProblemSpec spec;     // what runs (scaled when a budget is given)
  int scale = 1;                 // q_len > 1, kv_len and window divided by this
  int seq_divisor = 1;           // every seq_divisor-th sequence kept (batches of 8 or more sequences)
};

const std::vector<std::string>& set_names();  // default models long_prefill creative fmha all

// Loads `set`. work_budget > 0 scales every scenario whose work (KV-tile
// iterations of an 8-row x 32-key tile, summed over sequences and KV heads)
// exceeds it: first a large batch is thinned (every 2nd, 4th, ... sequence
// kept, at least 4), then q_len > 1, kv_len and the window are halved together
// until it fits (decode stays q_len 1). false with *error naming the file and entry.
bool load_set(const std::string& set, const std::string& shared_dir, const std::string& sets_dir, double work_budget,
              std::vector<BenchScenario>* out, std::string* error);

// The problem spec of a scenario (no scaling); seed from the name.
testing::ProblemSpec to_spec(const explain::Scenario& sc);
// Thins the batch of `spec` towards `work_budget`; returns the divisor (1: unchanged).
int thin_to_budget(testing::ProblemSpec* spec, double work_budget);
// Scales `spec` to `work_budget`; returns the divisor (1 when it fits).
int scale_to_budget(testing::ProblemSpec* spec, double work_budget);

}  // namespace uattn::bench
