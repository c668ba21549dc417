// A test problem (tests/common Problem, host memory) copied to the device
// (hipMalloc + hipMemcpy) and described as runtime arguments, C++ and C; the
// output copied back for comparison with the fp64 reference. With the
// CPU-backed HIP device (tests/hipcpu) "the device" is guard-page host memory
// that only kernels launched through the HIP API touch; the same code runs on a
// GPU with the real HIP runtime.
#pragma once
#include <hip/hip_runtime_api.h>

#include <string>
#include <vector>

#include "problem.hpp"  // tests/common
#include "run.hpp"      // tests/exec: tolerance_for
#include "uattn/runtime.hpp"
#include "uattn/uattn.h"

namespace uattn::e2e {

class DeviceProblem {
 public:
  // pad_rows: extra rows of q and out past the last sequence's tokens (the
  // padding serving engines add for graph capture; SPEC.md s.1). q's hold NaN;
  // out's hold a finite sentinel (0x5A bytes) and must come back unchanged.
  explicit DeviceProblem(testing::Problem& host, int pad_rows = 0);
  ~DeviceProblem();
  DeviceProblem(const DeviceProblem&) = delete;
  DeviceProblem& operator=(const DeviceProblem&) = delete;

  const std::string& error() const { return error_; }  // "" when the copies succeeded
  const AttentionArgs& args() const { return args_; }
  uattn_args_t c_args() const;

  // Copies out (valid rows) back into host.out; false with error() on failure.
  bool download();
  // True when every byte of the padding rows of out still holds the sentinel.
  bool padding_intact() const;

 private:
  void* device_of(const void* host_ptr) const;
  testing::Problem& host_;
  int pad_rows_;
  struct Copy { const void* host; void* dev; size_t bytes; };
  std::vector<Copy> copies_;
  void* out_dev_ = nullptr;
  size_t out_valid_bytes_ = 0, out_total_bytes_ = 0;
  AttentionArgs args_;
  std::string error_;
};

struct RunOutcome {
  bool ok = false;
  std::string error;             // the runtime's status, a HIP error, or the first mismatch
  testing::CompareResult cmp{};  // vs the fp64 reference
  Selection sel;                 // what the runtime planned
};

struct RunSpec {
  SelectOptions opt;
  hipStream_t stream = nullptr;
  int pad_rows = 0;
  void* workspace = nullptr;     // null: allocate workspace_size() bytes for this call
  size_t workspace_bytes = 0;
  bool c_api = false;            // through uattn_run instead of Runtime::run
  uattn_runtime_t* c_runtime = nullptr;
  bool checked = false;          // a checked launch (a status buffer of kIndexStatusBytes is allocated)
  bool host_copies = false;      // pass the host copies of the index arrays (run() checks them)
  // > 0: compare only query heads [0, check_q_heads) with the reference (a run
  // whose launches executed only those heads' workgroups: tools/model sampling).
  int check_q_heads = 0;
};

// Poisons the output, runs through the runtime, synchronises the stream,
// copies the output back and compares it with the reference
// (exec::tolerance_for the problem's dtypes).
RunOutcome run_on_device(Runtime* rt, testing::Problem& prob, const RunSpec& spec);

}  // namespace uattn::e2e
