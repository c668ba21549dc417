// Launching Triton's compiled unified-attention kernels (../shared/triton) in the
// instruction-level emulator (tools/emu) the way vLLM's wrapper
// `unified_attention` does: the JSON beside each code object, the kernel
// arguments from its kernarg_abi, the problem laid out as vLLM's tensors. Used
// by the isa.triton tests (test_triton.cpp, whose header states the launch
// contract in full) and by `uattn-bench --model` (tools/bench).
// Sources: ../shared/triton/README.md ("Launching them"); vLLM's
// vllm/v1/attention/ops/triton_unified_attention.py (Apache-2.0; nothing of it
// is copied here). Errors: std::runtime_error naming the file or argument.
#pragma once
#include <stdint.h>
#include <stdlib.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "problem.hpp"
#include "uattn/emu/emu.hpp"

namespace uattn::triton {

using json = nlohmann::json;

struct HostBuf {
  void* ptr = nullptr;
  size_t bytes = 0;
  HostBuf() = default;
  explicit HostBuf(size_t n) : bytes(n) {
    ptr = std::aligned_alloc(64, std::max<size_t>(64, (n + 63) / 64 * 64));
    if (!ptr) throw std::bad_alloc();
  }
  HostBuf(const HostBuf&) = delete;
  HostBuf& operator=(const HostBuf&) = delete;
  HostBuf(HostBuf&& o) noexcept : ptr(std::exchange(o.ptr, nullptr)), bytes(std::exchange(o.bytes, 0)) {}
  HostBuf& operator=(HostBuf&& o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(bytes, o.bytes);
    return *this;
  }
  ~HostBuf() { std::free(ptr); }
  template <class T>
  T* as() const { return static_cast<T*>(ptr); }
  uint64_t addr() const { return reinterpret_cast<uintptr_t>(ptr); }
};

// Valid global memory (emu::RangeSet): the non-empty buffers a launch may touch.
struct ValidRanges {
  uattn::emu::RangeSet set;
  void add(const void* p, size_t bytes) {
    if (p && bytes) set.add(reinterpret_cast<uintptr_t>(p), bytes);
  }
};

struct Kernel {
  std::string base;  // file base
  json meta;
  std::shared_ptr<uattn::emu::CodeObject> co;
};

// One configuration, from <cfg>_attn2d.json (constexprs) and its geometry.problem.
struct Config {
  std::string name, arch;
  DType dtype = DType::f16;
  int head_size = 0, head_size_padded = 0, block_size = 0, hq = 0, hkv = 0;
  int window = 0;  // model window W (SLIDING_WINDOW), 0 = off
  float softcap = 0;
  bool alibi = false, qq_bias = false, sinks = false;
  int qq_bias_stride = 0;
};

struct ArgVal {
  enum Kind { kPtr, kI64, kI32, kF32 } kind = kPtr;
  uint64_t bits = 0;
};

// ---------------------------------------------------------------------------
// One problem through one path.

struct ProblemRun {
  std::unique_ptr<uattn::testing::Problem> prob;
  HostBuf block_table;  // row stride a multiple of 16, long enough for the tile-rounded reads
  HostBuf qq_bias;      // rows up to the q-block rounding
  HostBuf k_scale, v_scale;
  ValidRanges valid;
  std::map<std::string, ArgVal> vals;  // kernel_unified_attention's arguments, 2D
};

void fill_f32_nan(const HostBuf& b);
json read_json(const std::string& path);
const json* find_arg(const json& meta, const std::string& name);
// The compiled-in value of constexpr parameter `name` (throws when it is not one).
json constexpr_value(const json& meta, const std::string& name);
bool divisible_by_16(const json& arg);
// `<dir>/<base>.json` and `<dir>/<base>.hsaco`.
Kernel load_kernel(const std::string& dir, const std::string& base);
// One configuration from its `<cfg>_attn2d.json`; throws when geometry.problem disagrees with the constexprs.
Config config_from(const std::string& name, const json& m2d);
ArgVal ptr(const void* p);
ArgVal i64(int64_t v);
ArgVal i32(int32_t v);
ArgVal f32(float v);
// The explicit kernarg bytes of `k` from its kernarg_abi ("" = fine, else what is wrong).
std::string build_kernarg(const Kernel& k, const std::map<std::string, ArgVal>& vals, std::vector<uint8_t>* out);
// A launch of `k` over `grid` (workgroup and dynamic LDS from its JSON), global
// memory checked against `valid`; "" = fine, else what is wrong.
std::string make_request(const Kernel& k, const uint32_t grid[3], const std::map<std::string, ArgVal>& vals,
                         const ValidRanges& valid, uattn::emu::LaunchRequest* rq);
// The problem of `seqs` for configuration `c` with the argument values vLLM's
// wrapper would pass (2D: the segm_* pointers are out). `tile`, `block_q`: the
// largest TILE_SIZE / BLOCK_Q of the kernels it will meet.
std::unique_ptr<ProblemRun> prepare(const Config& c, const std::vector<std::pair<int, int>>& seqs, uint64_t seed,
                                    bool kv_combined, int tile, int block_q);
// The same for a given problem spec (its dtypes, head and block sizes, heads and
// features must be `c`'s; head_pad and kv_layout are set to what Triton reads).
std::unique_ptr<ProblemRun> prepare(const Config& c, uattn::testing::ProblemSpec s, int tile, int block_q);

// vLLM's wrapper path for a batch: 3D (segments + reduce) for decode batches
// (max q_len <= 1), else 2D.
bool wrapper_uses_3d(const uattn::testing::ProblemSpec& s);

// The configuration in `dir` that serves `s` on `arch`, geometry `bm16`
// (vLLM's wrapper choice) when there is one, else the first other geometry
// (`bm128_t64`, then any): "" when none matches (dtype, head size, block
// size, heads, window, softcap, alibi, QQ-bias, sinks).
std::string find_config(const std::string& dir, const std::string& arch, const uattn::testing::ProblemSpec& s);

// Workgroups of an attention launch: vLLM's grid.x, num_tokens / BLOCK_Q + num_seqs.
uint32_t q_blocks(const ProblemRun& run, int block_q);
// The 3D path's fp32 workspaces, vLLM's shapes: segm_output [num_tokens, Hq,
// segments, HEAD_SIZE_PADDED], segm_max / segm_expsum [num_tokens, Hq, segments].
struct Workspace3D {
  HostBuf out, max, sum;
};
// Allocates them NaN-filled, adds them to run.valid and points the segm_*
// arguments of run.vals at them (the 2D values are out: keep a copy to restore).
std::unique_ptr<Workspace3D> attach_workspace_3d(ProblemRun& run, const Config& c, int segments);

// One launch of a configuration's path on a prepared problem: attn2d, or attn3d
// into fresh fp32 workspaces then reduce_segments. `adjust` may change each
// request before it runs (e.g. to trace it). Returns "" or the first error.
struct PathRun {
  std::vector<std::pair<std::string, uattn::emu::LaunchResult>> launches;  // kernel file base, result
};
std::string run_path(const std::string& dir, const Config& c, bool is3d, ProblemRun& run,
                     const std::function<void(const Kernel&, uattn::emu::LaunchRequest&)>& adjust, PathRun* out);

}  // namespace uattn::triton
