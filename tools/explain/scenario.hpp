// Scenarios for uattn-explain: read from the scenario files of ../shared/scenarios
// (default.json: "scenarios" with batches; models.json: "models" without) or
// built from command-line flags, and turned into selector problems.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "uattn/table.hpp"

namespace uattn::explain {

struct Scenario {
  std::string name;
  DType q_dtype = DType::f16, kv_dtype = DType::f16;
  int num_q_heads = 0, num_kv_heads = 0, head_size = 0, block_size = 16;
  std::vector<std::pair<int, int>> seqs;  // (q_len, kv_len)
  int window = 0;                         // model window W (0 = off) -> window_left = W - 1
  double softcap = 0;
  bool alibi = false, qq_bias = false, sinks = false;
  int qq_bias_stride = 0;                 // 0 = not given
  double softmax_scale = 0;               // 0 = not given (1/sqrt(head_size))
  std::vector<std::string> defaulted;     // fields the file left out that got a default, for the report
};

// The batches used when a scenario names none (models.json entries).
std::vector<std::pair<std::string, std::vector<std::pair<int, int>>>> default_batches();

// Largest scenario file load_scenarios() reads (the shared sets are a few KiB).
constexpr uint64_t kMaxScenarioFileBytes = 64ull << 20;

// Reads every entry of a scenario file ("scenarios" or "models" array). On error
// returns false with *error naming the file, the entry and the field; a path
// that is not a regular file (a FIFO, a folder) is refused without reading it
// (read_input_file()).
bool load_scenarios(const std::string& path, std::vector<Scenario>* out, std::string* error);

// A dtype name or one of its aliases (uattn/generated/vocab.hpp: "f16", "fp16",
// "bf16", "fp8", "fp8e4m3", ...) -> DType.
bool parse_dtype(const std::string& s, DType* d);
// Every spelling parse_dtype() accepts.
std::vector<std::string> dtype_spellings();
// "1:1024,5:18" -> {(1,1024),(5,18)}; kv_len >= q_len >= 0 (error names the pair).
bool parse_seqs(const std::string& s, std::vector<std::pair<int, int>>* out, std::string* error);

// The selector's view of `sc` on `arch` (num_cus 0 = the usual count). When the
// batch does not fit the problem's int32 fields (e.g. the token sum), *error
// (if given) names it (problem_args_error()) and select() refuses the result.
ProblemDesc to_problem(const Scenario& sc, Arch arch, int num_cus, std::string* error = nullptr);

// "f16/f16 d128 b16 heads 16/2 window 256 softcap 50 alibi; 3 seqs (q:kv 1:1024 ...)"
std::string summary(const Scenario& sc);

}  // namespace uattn::explain
