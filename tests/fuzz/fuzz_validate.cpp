// libFuzzer target: argument validation, C++ (uattn::validate,
// validate_indices) and C (uattn_validate).
//
// Any tensor descriptors, scalars and options give a status: kOk, or
// kInvalidArgument with a message "uattn: <argument> ..." that names one of
// the arguments. Both APIs give the same status and message. What validate()
// accepts is checked here against the contract restated independently (ranks,
// shapes, strides, pointers, scalars, SPEC.md s.1); an accepted call is then
// described, selected and packed (describe, select, make_params) and the
// kernel arguments compared with the tensors. The index arrays (host copies)
// that validate_indices() accepts are re-checked element by element. Never a
// crash (ASan/UBSan).
//
// Input layout (little-endian; make_seeds.py writes it): 4 tensors (q,
// k_cache, v_cache, out) of {i32 dtype, i32 rank, i64 shape[5], i64 stride[5],
// u16 data (0 = null, else the fake address 64 KiB * (value >> 1), plus 2 bytes
// when value is odd: a misaligned row)}; i32 num_seqs,
// max_blocks_per_seq; i64 block_table_stride; i32 max_seqlen_q, max_seqlen_k;
// f32 softmax_scale; i32 window_left; f32 softcap, k_scale, v_scale; u8 flags
// (bit 0..5: cu_seqlens_q, seqused_k, block_table, alibi_slopes, qq_bias, sinks
// non-null; bit 6: out takes q's shape and v_cache k_cache's; bit 7: every
// tensor gets the contiguous strides of its shape; so that one mutation reaches
// what would otherwise need several agreeing ones); i32 qq_bias_stride; f32 output_scale; u8 arch; then int32
// host copies for validate_indices: cu_seqlens_q [num_seqs + 1], seqused_k
// [num_seqs], block_table [num_seqs * block_table_stride] (missing values 0).
#include <stddef.h>
#include <stdint.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_reader.hpp"
#include "uattn/uattn.h"
#include "uattn/validate.hpp"

using namespace uattn;

namespace {

std::string g_case;  // the status and message, for failure reports

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_validate: %s\n  %s\n", what, g_case.c_str());
  std::abort();
}

void read_tensor(uattn_fuzz::Reader& in, uattn_tensor_t* t) {
  t->dtype = in.get<int32_t>();
  t->rank = in.get<int32_t>();
  for (int i = 0; i < 5; ++i) t->shape[i] = in.get<int64_t>();
  for (int i = 0; i < 5; ++i) t->stride[i] = in.get<int64_t>();
  const uint16_t d = in.get<uint16_t>();  // 0: null; else 64 KiB * (d >> 1), 2 bytes further when d is odd
  t->data = d ? reinterpret_cast<const void*>(((uintptr_t)(d >> 1) << 16) + (d & 1) * 2) : nullptr;
}

// The arguments a message may name (uattn.h / validate.hpp field names).
bool names_an_argument(const std::string& m) {
  static const char* const kNames[] = {
      "q.", "k_cache.", "v_cache.", "out.", "num_seqs", "max_blocks_per_seq", "block_table_stride", "max_seqlen_q",
      "max_seqlen_k", "softmax_scale", "window_left", "softcap", "k_scale", "v_scale", "output_scale",
      "qq_bias_stride", "cu_seqlens_q", "seqused_k", "block_table", "q_len"};
  if (m.rfind("uattn: ", 0) != 0) return false;
  for (const char* n : kNames)
    if (m.find(n) != std::string::npos) return true;
  return false;
}

constexpr int64_t kI32 = 2147483647;

int64_t elements(const TensorDesc& t) {
  __int128 n = 1;
  for (int i = 0; i < t.rank; ++i) n *= t.shape[i];
  return (int64_t)n;
}

// Independent restatement of what validate() must hold for an accepted call.
void check_accepted(const AttentionArgs& a) {
  if (a.q.rank != 3 || a.out.rank != 3 || a.k_cache.rank != 4 || a.v_cache.rank != 4) fail("accepted: ranks");
  if (!is_query_dtype(a.q.dtype)) fail("accepted: q dtype");
  if (a.k_cache.dtype != a.v_cache.dtype) fail("accepted: cache dtypes differ");
  if (a.k_cache.dtype != a.q.dtype && !kv_pairs_with_any_query(a.k_cache.dtype)) fail("accepted: kv dtype");
  if (a.out.dtype != a.q.dtype && !is_quantised_output_dtype(a.out.dtype)) fail("accepted: out dtype");
  const int64_t T = a.q.shape[0], Hq = a.q.shape[1], D = a.q.shape[2];
  const int64_t NB = a.k_cache.shape[0], BS = a.k_cache.shape[1], Hkv = a.k_cache.shape[2];
  if (T < 0 || T > kI32 || Hq < 1 || Hq > kI32 || D < 1 || D > kI32) fail("accepted: q shape");
  if (NB < 0 || NB > kI32 || BS < 1 || BS > kI32 || Hkv < 1 || Hkv > kI32) fail("accepted: cache shape");
  for (int i = 0; i < 3; ++i)
    if (a.out.shape[i] != a.q.shape[i]) fail("accepted: out shape differs from q");
  for (int i = 0; i < 4; ++i)
    if (a.v_cache.shape[i] != a.k_cache.shape[i]) fail("accepted: v_cache shape differs from k_cache");
  if (a.k_cache.shape[3] != D) fail("accepted: cache head size");
  if (Hq % Hkv) fail("accepted: GQA ratio");
  for (const TensorDesc* t : {&a.q, &a.k_cache, &a.v_cache, &a.out}) {
    if (t->stride[t->rank - 1] != 1) fail("accepted: last stride not 1");
    if (!t->data && elements(*t) > 0) fail("accepted: null data with elements");
  }
  if (a.num_seqs < 0) fail("accepted: num_seqs");
  if (a.num_seqs > 0 && (!a.cu_seqlens_q || !a.seqused_k || !a.block_table)) fail("accepted: null index array");
  if (a.max_seqlen_q < 0 || a.max_seqlen_k < 0 || a.max_blocks_per_seq < 0) fail("accepted: negative bound");
  if (a.max_seqlen_k > kMaxKvLen) fail("accepted: max_seqlen_k above kMaxKvLen");
  if (a.block_table_stride < a.max_blocks_per_seq) fail("accepted: block_table_stride");
  if ((__int128)a.max_blocks_per_seq * BS < a.max_seqlen_k) fail("accepted: block table cannot cover max_seqlen_k");
  if (!(std::isfinite(a.softmax_scale) && a.softmax_scale > 0)) fail("accepted: softmax_scale");
  if (a.window_left < -1) fail("accepted: window_left");
  if (!(std::isfinite(a.softcap) && a.softcap >= 0)) fail("accepted: softcap");
  const bool fp8kv = kv_pairs_with_any_query(a.k_cache.dtype);
  for (float s : {a.k_scale, a.v_scale}) {
    if (!(std::isfinite(s) && s > 0)) fail("accepted: kv scale");
    if (!fp8kv && s != 1.0f) fail("accepted: kv scale without fp8 cache");
  }
  {  // the library's bound on the kernels' logit scale qk (fp32 product; 1 / qk and qk * log2(e) finite)
    const float qk = a.softmax_scale * a.k_scale;
    if (!(qk >= std::numeric_limits<float>::min() && qk <= std::numeric_limits<float>::max() / 1.4426950408889634f))
      fail("accepted: logit scale softmax_scale * k_scale");
  }
  if (!(std::isfinite(a.output_scale) && a.output_scale > 0)) fail("accepted: output_scale");
  if (!is_quantised_output_dtype(a.out.dtype) && a.output_scale != 1.0f) fail("accepted: output_scale without fp8");
  // SPEC step 5 defines a qq_bias of any width >= 1 (narrower than max_seqlen_q included).
  if (a.qq_bias && a.qq_bias_stride < 1) fail("accepted: qq_bias_stride");
  if (a.qq_bias && (int64_t)a.max_seqlen_q * a.qq_bias_stride > (int64_t(1) << 29)) fail("accepted: qq_bias above 2 GiB");
}

// validate_indices() accepted these host copies: re-check every element.
void check_indices(const AttentionArgs& a, const int32_t* cu, const int32_t* su, const int32_t* bt) {
  if (a.num_seqs == 0) return;
  if (cu[0] != 0) fail("indices accepted: cu_seqlens_q[0] != 0");
  // SPEC's edge rules: rows of q past cu_seqlens_q[num_seqs] are padding (never
  // written); more tokens than q holds is refused.
  if (cu[a.num_seqs] > a.q.shape[0]) fail("indices accepted: cu_seqlens_q[num_seqs] > num_tokens");
  const int64_t bs = a.k_cache.shape[1];
  for (int i = 0; i < a.num_seqs; ++i) {
    const int64_t ql = (int64_t)cu[i + 1] - cu[i];
    if (ql < 0 || ql > a.max_seqlen_q) fail("indices accepted: q_len outside [0, max_seqlen_q]");
    if (su[i] < ql || su[i] > a.max_seqlen_k) fail("indices accepted: seqused_k outside [q_len, max_seqlen_k]");
    for (int64_t j = 0; j * bs < su[i]; ++j) {
      if (j >= a.max_blocks_per_seq) fail("indices accepted: a sequence uses more than max_blocks_per_seq blocks");
      const int32_t b = bt[i * a.block_table_stride + j];
      if (b < 0 || b >= a.k_cache.shape[0]) fail("indices accepted: block id outside [0, num_blocks)");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uattn_fuzz::Reader in(data, size);
  uattn_args_t c;
  uattn_args_init(&c);
  read_tensor(in, &c.q);
  read_tensor(in, &c.k_cache);
  read_tensor(in, &c.v_cache);
  read_tensor(in, &c.out);
  c.num_seqs = in.get<int32_t>();
  c.max_blocks_per_seq = in.get<int32_t>();
  c.block_table_stride = in.get<int64_t>();
  c.max_seqlen_q = in.get<int32_t>();
  c.max_seqlen_k = in.get<int32_t>();
  c.softmax_scale = in.get<float>();
  c.window_left = in.get<int32_t>();
  c.softcap = in.get<float>();
  c.k_scale = in.get<float>();
  c.v_scale = in.get<float>();
  const uint8_t ptrs = in.get<uint8_t>();
  static const float kDummy[1] = {0};
  static const int32_t kDummyI[1] = {0};
  c.cu_seqlens_q = ptrs & 1 ? kDummyI : nullptr;
  c.seqused_k = ptrs & 2 ? kDummyI : nullptr;
  c.block_table = ptrs & 4 ? kDummyI : nullptr;
  c.alibi_slopes = ptrs & 8 ? kDummy : nullptr;
  c.qq_bias = ptrs & 16 ? kDummy : nullptr;
  c.sinks = ptrs & 32 ? kDummy : nullptr;
  c.qq_bias_stride = in.get<int32_t>();
  c.output_scale = in.get<float>();
  const uint8_t arch_byte = in.get<uint8_t>();
  if (ptrs & 64) {
    for (int i = 0; i < 5; ++i) { c.out.shape[i] = c.q.shape[i]; c.v_cache.shape[i] = c.k_cache.shape[i]; }
  }
  if (ptrs & 128) {
    for (uattn_tensor_t* t : {&c.q, &c.k_cache, &c.v_cache, &c.out}) {
      uint64_t st = 1;  // wraps for huge shapes, as a caller's own arithmetic would
      const int rank = t->rank < 0 ? 0 : t->rank > 5 ? 5 : t->rank;
      for (int i = rank - 1; i >= 0; --i) {
        t->stride[i] = (int64_t)st;
        st *= (uint64_t)t->shape[i];
      }
    }
  }

  // The C API and the C++ API agree.
  const uattn_status_t cs = uattn_validate(&c);
  const std::string cmsg = uattn_last_error_message();
  AttentionArgs a;
  for (auto [dst, src] : {std::pair<TensorDesc*, const uattn_tensor_t*>{&a.q, &c.q}, {&a.k_cache, &c.k_cache},
                          {&a.v_cache, &c.v_cache}, {&a.out, &c.out}}) {
    dst->data = src->data;
    dst->dtype = (DType)src->dtype;
    dst->rank = src->rank;
    for (int i = 0; i < 5; ++i) { dst->shape[i] = src->shape[i]; dst->stride[i] = src->stride[i]; }
  }
  a.cu_seqlens_q = c.cu_seqlens_q;
  a.seqused_k = c.seqused_k;
  a.block_table = c.block_table;
  a.num_seqs = c.num_seqs;
  a.block_table_stride = c.block_table_stride;
  a.max_blocks_per_seq = c.max_blocks_per_seq;
  a.max_seqlen_q = c.max_seqlen_q;
  a.max_seqlen_k = c.max_seqlen_k;
  a.softmax_scale = c.softmax_scale;
  a.window_left = c.window_left;
  a.softcap = c.softcap;
  a.k_scale = c.k_scale;
  a.v_scale = c.v_scale;
  a.alibi_slopes = c.alibi_slopes;
  a.qq_bias = c.qq_bias;
  a.qq_bias_stride = c.qq_bias_stride;
  a.sinks = c.sinks;
  a.output_scale = c.output_scale;
  const Status s = validate(a);
  g_case = "status " + std::to_string(s.code) + ": " + s.message;
  if ((int)cs != s.code || cmsg != s.message) fail("the C and C++ APIs disagree");
  static const bool verbose = std::getenv("UATTN_FUZZ_VERBOSE") != nullptr;  // replaying a file: say what it is
  if (verbose) std::fprintf(stderr, "fuzz_validate: %s\n", g_case.c_str());
  if (!s.ok()) {
    if (s.code != kInvalidArgument) fail("a refusal that is not kInvalidArgument");
    if (!names_an_argument(s.message)) fail("the message names no argument");
    return 0;
  }
  if (!s.message.empty()) fail("a message with kOk");
  check_accepted(a);

  // An accepted call is described, selected and packed without a crash.
  const Arch arch = kArchs[arch_byte % kNumArchs];
  const ProblemDesc p = describe(a, arch, arch_byte >> 4);
  if (p.head_size != a.q.shape[2] || p.block_size != a.k_cache.shape[1] || p.num_tokens != a.q.shape[0] ||
      p.num_q_heads != a.q.shape[1] || p.num_kv_heads != a.k_cache.shape[2] || p.num_seqs != a.num_seqs ||
      p.features != features_of(a))
    fail("describe() does not carry the arguments");
  const Selection sel = select(p);
  if (sel.ok) {
    const AttnParams k = make_params(a, sel, reinterpret_cast<void*>(uintptr_t{1} << 20));
    if (k.num_tokens != a.q.shape[0] || k.head_size != a.q.shape[2] || k.block_size != a.k_cache.shape[1] ||
        k.q_stride_token != a.q.stride[0] || k.o_stride_head != a.out.stride[1] ||
        k.block_table_stride != a.block_table_stride || k.num_segments != (sel.path == Path::k3D ? sel.num_segments : 1))
      fail("make_params() does not carry the arguments");
  }

  // Host copies of the index arrays, when small enough to build.
  if (a.num_seqs > 4096 || a.block_table_stride > 4096 || (int64_t)a.num_seqs * a.block_table_stride > 65536) return 0;
  const size_t n = (size_t)a.num_seqs, bt_len = n * (size_t)(a.block_table_stride > 0 ? a.block_table_stride : 0);
  std::vector<int32_t> cu(n + 1), su(n), bt(bt_len + 1);
  for (auto* v : {&cu, &su, &bt})
    for (int32_t& x : *v) x = in.get<int32_t>();
  const Status si = validate_indices(a, cu.data(), su.data(), bt.data());
  g_case = "indices status " + std::to_string(si.code) + ": " + si.message;
  if (!si.ok()) {
    if (si.code != kInvalidArgument || !names_an_argument(si.message)) fail("index refusal names no argument");
    return 0;
  }
  check_indices(a, cu.data(), su.data(), bt.data());
  return 0;
}
