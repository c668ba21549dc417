// Random paged-attention problems for the tests, and the comparison of a kernel's
// output with the fp64 reference (tests/reference).
//
// A Problem owns host buffers filled the hostile way SPEC.md s.1 allows:
//   - q, k, v ~ U(-1, 1) rounded to their dtype; fp8 KV stores round(x / scale)
//     so the dequantised value (code * k_scale / v_scale) is O(1);
//   - physical blocks are a random selection of a larger pool (extra unused
//     blocks), so the block table is a shuffled, non-contiguous map;
//   - every cache element that holds no valid token is NaN (fp8: 0x7F): the tail
//     of each sequence's last block, unused blocks, head-row padding, blocks
//     wholly outside the window (when windowed) -- and q's head-row padding;
//   - block-table entries past ceil(kv_len / block_size) hold garbage ids
//     (0x7fffffff, -1, INT32_MIN, num_blocks + k);
//   - layouts: head rows may be padded (stride D + head_pad), the cache may be
//     token-major [blocks, bs, Hkv, D] or head-major [blocks, Hkv, bs, D], and k/v
//     may be views of one [blocks, 2, ...] allocation.
// Everything is deterministic in ProblemSpec (seed included).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "reference.hpp"
#include "uattn/kernel/params.hpp"

namespace uattn::testing {

struct ProblemSpec {  // what a test asks for
  uattn::DType q_dtype = uattn::DType::f16, kv_dtype = uattn::DType::f16, out_dtype = uattn::DType::f16;
  int head_size = 128, block_size = 16, num_q_heads = 8, num_kv_heads = 2;
  std::vector<std::pair<int, int>> seqs;  // (q_len, kv_len) per sequence; kv_len >= q_len
  int window = 0;           // model window W (0 = off) -> window_left = W - 1
  float softcap = 0;        // 0 = off
  bool alibi = false, qq_bias = false, sinks = false;
  int qq_bias_stride = 0;   // 0 = max q_len (at least 1)
  float softmax_scale = 0;  // 0 = 1/sqrt(head_size)
  float k_scale = 1, v_scale = 1;  // must be 1 unless kv_dtype is fp8
  float output_scale = 1;          // must be 1 unless out_dtype is fp8
  uint64_t seed = 1;
  bool kv_view_of_combined = false;  // k/v as views of one [num_blocks, 2, <block>] allocation
  // Layout knobs (defaults derive them from the seed so a sweep over seeds covers all):
  int head_pad = -1;        // extra elements after each head row of q, out, k, v; -1: seed odd -> 8, even -> 0
  int kv_layout = -1;       // 0: [blocks, bs, Hkv, D]; 1: [blocks, Hkv, bs, D]; -1: (seed / 2) % 2
  // Pool size: extra blocks beyond those used (-1: max(2, used / 4)). With a large pool
  // and a sparse allocator (mmap NORESERVE) block_id * block_stride can pass 2^32 bytes;
  // then set fill_unused_blocks = false so only the used blocks' pages are touched.
  int64_t extra_blocks = -1;
  bool fill_unused_blocks = true;
  bool nan_outside_window = true;  // NaN-fill blocks wholly outside every token's window
  // With a window (and nan_outside_window): every block-table entry of a block wholly
  // outside the window names one shared, NaN-filled physical block, so the pool holds
  // only the window's blocks, that block and the extra ones. A kv_len near 2^31 then
  // needs a block table (4 bytes per block) but no cache for the keys no query sees.
  bool shared_nan_block = false;
};

// Memory: every buffer comes from an Allocator so tests can use guard-page memory.
// alloc(0, name) may be called (an empty tensor); the result is never dereferenced.
struct Allocator {
  virtual void* alloc(size_t bytes, const char* name) = 0;
  virtual void free(void* ptr) = 0;
  virtual ~Allocator() = default;
};
Allocator& malloc_allocator();  // std::malloc / std::free (a 0-byte request gets 1 byte)

struct Buffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  const char* name = "";
  bool owned = false;  // false: a view into another Buffer (v_cache of a combined kv) or absent
};

struct Problem {  // owns its buffers
  ProblemSpec spec;
  uattn::AttnParams params{};  // fully filled: pointers, strides, scalars, num_segments = 1, ws_* = null
  int max_seqlen_q = 0, max_seqlen_k = 0, num_tokens = 0;
  uint32_t features = 0;       // uattn::Feature bits used
  // Resolved layout.
  int head_pad = 0, kv_layout = 0;
  int64_t num_blocks = 0;      // physical blocks in the pool
  // Buffers; names: q, k_cache, v_cache (or kv_cache + view), out, cu_seqlens_q,
  // seqused_k, block_table, alibi_slopes, qq_bias, sinks. Absent optional ones are null.
  Buffer q, k_cache, v_cache, kv_cache, out, cu_seqlens_q, seqused_k, block_table, alibi_slopes, qq_bias, sinks;

  Problem() = default;
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;
  ~Problem();

  void poison_output();                        // fill out (padding included) with NaN (fp8: 0x7F)
  uattn::ref::RefInputs ref_inputs() const;    // {&params, q_dtype, kv_dtype}
  // uattn::ref::attention(ref_inputs()); q_heads > 0: only query heads [0, q_heads)
  // (RefInputs::q_heads), the others NaN.
  std::vector<double> reference(int q_heads = 0) const;
  // Write `values` (layout [num_tokens][Hq][D], as the reference returns) into out,
  // rounded to the out dtype (fp8: RNE, saturating to +-448). For tests of the tests.
  void write_output(const std::vector<double>& values);

  Allocator* allocator = nullptr;
};

// Most bytes of host memory one problem may write: q and out, the cache blocks
// it fills (every block of the pool with fill_unused_blocks, else the used ones)
// and qq_bias. Untouched pool pages (a sparse allocator) do not count. A spec
// past it is refused before anything is allocated (uattn-run --seqs, the tests).
constexpr uint64_t kMaxProblemBytes = (uint64_t)4 << 30;

// Throws std::invalid_argument on a bad spec (names the field and value), or one
// that writes more than kMaxProblemBytes (names the sizes, the bytes and the limit).
std::unique_ptr<Problem> make_problem(const ProblemSpec& spec, Allocator& alloc = malloc_allocator());

struct CompareResult {
  bool ok = true;
  double max_abs = 0, mean_abs = 0;  // over the finite values compared
  size_t n = 0, nan_count = 0, fail_count = 0;  // n = token*head*d values compared
  std::string first_failure;         // "" when ok
};
// Reads the kernel output (out dtype from params) at every valid (token, head, d) and
// compares with the reference: |got - ref| <= atol + rtol * |ref|; NaN (or Inf) never
// passes. Also fails (counted in fail_count) when the head-row padding of out no
// longer holds the poison bits, i.e. the kernel wrote past head_size.
// q_heads > 0: the values of query heads [0, q_heads) only (a run that executed
// only those heads' workgroups); the padding of every head is still checked.
CompareResult compare_output(const Problem& prob, const std::vector<double>& ref, double atol, double rtol,
                             int q_heads = 0);

// Encoders used by the builder (round to nearest even; fp8 saturates to +-448, NaN stays NaN).
uint16_t f16_bits_from_double(double x);
uint16_t bf16_bits_from_double(double x);
uint8_t fp8e4m3_bits_from_double(double x);

// "f16/f16->f16 d128 b16 h8/2 seqs[(1,1024),...] w0 sc0 ..." for test messages.
std::string describe(const ProblemSpec& spec);

}  // namespace uattn::testing
