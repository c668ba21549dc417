// Host-side validation of one unified-attention call (SPEC.md s.1, "Invalid
// input ... is refused on the host with a message that names the argument and
// the value"). Each rule is a small function returning "" when it holds, else the
// message; validate() runs them in order and reports the first that fails.
#include "uattn/validate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace uattn {

std::string dtype_name(DType d) {
  if ((size_t)d < (size_t)kNumDTypes) return to_string(d);
  return "DType(" + std::to_string((int)d) + ")";
}

namespace {

// "uattn: " + the streamed parts.
template <class... T>
std::string msg(const T&... parts) {
  std::ostringstream o;
  o << "uattn: ";
  (o << ... << parts);
  return o.str();
}

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// Element count of `t` (negative dimensions count as 0); false when it does not
// fit in int64 (rule_sizes refuses that before anything else uses the count).
bool checked_elements(const TensorDesc& t, int64_t* n) {
  *n = 1;
  for (int i = 0; i < t.rank && i < 5; ++i)
    if (__builtin_mul_overflow(*n, t.shape[i] > 0 ? t.shape[i] : 0, n)) return false;
  return true;
}

int64_t elements(const TensorDesc& t) {
  int64_t n = 0;
  return checked_elements(t, &n) ? n : -1;
}

std::string shape_text(const TensorDesc& t) {
  std::ostringstream o;
  o << "[";
  for (int i = 0; i < t.rank && i < 5; ++i) o << (i ? ", " : "") << t.shape[i];
  o << "]";
  return o.str();
}

std::string rule_dtypes(const AttentionArgs& a) {
  const DType q = a.q.dtype;
  if (!is_query_dtype(q))
    return msg("q.dtype = ", dtype_name(q), " is not supported; expected ", dtype_list(is_query_dtype));
  const DType k = a.k_cache.dtype;
  if (!kv_pairs_with(k, q))
    return msg("k_cache.dtype = ", dtype_name(k), " with q.dtype = ", dtype_name(q), "; expected ", dtype_name(q),
               " or ", dtype_list(kv_pairs_with_any_query));
  if (a.v_cache.dtype != k)
    return msg("v_cache.dtype = ", dtype_name(a.v_cache.dtype), " differs from k_cache.dtype = ", dtype_name(k),
               "; expected the same dtype for both caches");
  if (a.out.dtype != q && !is_quantised_output_dtype(a.out.dtype))
    return msg("out.dtype = ", dtype_name(a.out.dtype), " with q.dtype = ", dtype_name(q), "; expected ",
               dtype_name(q), " or ", dtype_list(is_quantised_output_dtype));
  return "";
}

std::string rule_ranks(const AttentionArgs& a) {
  struct { const char* name; const TensorDesc* t; int rank; const char* dims; } ts[] = {
      {"q", &a.q, 3, "[num_tokens, num_q_heads, head_size]"},
      {"k_cache", &a.k_cache, 4, "[num_blocks, block_size, num_kv_heads, head_size]"},
      {"v_cache", &a.v_cache, 4, "[num_blocks, block_size, num_kv_heads, head_size]"},
      {"out", &a.out, 3, "[num_tokens, num_q_heads, head_size]"},
  };
  for (const auto& t : ts)
    if (t.t->rank != t.rank) return msg(t.name, ".rank = ", t.t->rank, "; expected ", t.rank, " ", t.dims);
  return "";
}

// Dimension sizes: each in its range and representable in the kernels' int32 fields.
std::string rule_dims(const AttentionArgs& a) {
  struct { const char* name; int64_t v; int64_t lo; } ds[] = {
      {"q.shape[0] (num_tokens)", a.q.shape[0], 0},
      {"q.shape[1] (num_q_heads)", a.q.shape[1], 1},
      {"q.shape[2] (head_size)", a.q.shape[2], 1},
      {"k_cache.shape[0] (num_blocks)", a.k_cache.shape[0], 0},
      {"k_cache.shape[1] (block_size)", a.k_cache.shape[1], 1},
      {"k_cache.shape[2] (num_kv_heads)", a.k_cache.shape[2], 1},
  };
  for (const auto& d : ds) {
    if (d.v < d.lo) return msg(d.name, " = ", d.v, "; expected >= ", d.lo);
    if (d.v > kInt32Max) return msg(d.name, " = ", d.v, "; expected <= ", kInt32Max);
  }
  return "";
}

std::string rule_head_sizes(const AttentionArgs& a) {
  const int64_t d = a.q.shape[2];
  if (a.k_cache.shape[3] != d)
    return msg("k_cache.shape[3] (head_size) = ", a.k_cache.shape[3], " differs from q.shape[2] (head_size) = ", d);
  if (a.v_cache.shape[3] != d)
    return msg("v_cache.shape[3] (head_size) = ", a.v_cache.shape[3], " differs from q.shape[2] (head_size) = ", d);
  if (a.out.shape[2] != d)
    return msg("out.shape[2] (head_size) = ", a.out.shape[2], " differs from q.shape[2] (head_size) = ", d);
  return "";
}

std::string rule_same_shapes(const AttentionArgs& a) {
  for (int i = 0; i < 4; ++i)
    if (a.v_cache.shape[i] != a.k_cache.shape[i])
      return msg("v_cache.shape[", i, "] = ", a.v_cache.shape[i], " differs from k_cache.shape[", i,
                 "] = ", a.k_cache.shape[i], "; expected k_cache and v_cache of the same shape");
  for (int i = 0; i < 3; ++i)
    if (a.out.shape[i] != a.q.shape[i])
      return msg("out.shape[", i, "] = ", a.out.shape[i], " differs from q.shape[", i, "] = ", a.q.shape[i],
                 "; expected out of q's shape");
  return "";
}

std::string rule_gqa(const AttentionArgs& a) {
  if (a.q.shape[1] % a.k_cache.shape[2] != 0)
    return msg("q.shape[1] (num_q_heads) = ", a.q.shape[1], " is not a multiple of k_cache.shape[2] (num_kv_heads) = ",
               a.k_cache.shape[2]);
  return "";
}

std::string rule_contiguous(const AttentionArgs& a) {
  struct { const char* name; const TensorDesc* t; } ts[] = {
      {"q", &a.q}, {"k_cache", &a.k_cache}, {"v_cache", &a.v_cache}, {"out", &a.out}};
  for (const auto& t : ts) {
    const int last = t.t->rank - 1;
    if (t.t->stride[last] != 1)
      return msg(t.name, ".stride[", last, "] = ", t.t->stride[last],
                 "; expected 1 (the last dimension, head_size, must be contiguous)");
  }
  return "";
}

// Sizes in checked 64-bit arithmetic: the element count, and the bytes the
// strides span (sum of (shape[i] - 1) * |stride[i]|, plus one row element).
std::string rule_sizes(const AttentionArgs& a) {
  struct { const char* name; const TensorDesc* t; } ts[] = {
      {"q", &a.q}, {"k_cache", &a.k_cache}, {"v_cache", &a.v_cache}, {"out", &a.out}};
  for (const auto& t : ts) {
    int64_t n = 0;
    if (!checked_elements(*t.t, &n))
      return msg(t.name, ".shape = ", shape_text(*t.t), ": the element count overflows 64 bits; expected at most ",
                 std::numeric_limits<int64_t>::max(), " elements");
    if (n == 0) continue;
    const int64_t bytes = is_quantised_output_dtype(t.t->dtype) || kv_pairs_with_any_query(t.t->dtype) ? 1 : 2;
    int64_t span = 1, term = 0;
    bool over = false;
    for (int i = 0; i < t.t->rank && !over; ++i) {
      const int64_t st = t.t->stride[i];
      over = st == std::numeric_limits<int64_t>::min() ||
             __builtin_mul_overflow(t.t->shape[i] - 1, st < 0 ? -st : st, &term) ||
             __builtin_add_overflow(span, term, &span);
    }
    if (over || __builtin_mul_overflow(span, bytes, &span))
      return msg(t.name, ".shape = ", shape_text(*t.t), " with its strides spans more than ",
                 std::numeric_limits<int64_t>::max(), " bytes; expected a tensor that fits in memory");
  }
  return "";
}

std::string rule_pointers(const AttentionArgs& a) {
  struct { const char* name; const TensorDesc* t; } ts[] = {
      {"q", &a.q}, {"k_cache", &a.k_cache}, {"v_cache", &a.v_cache}, {"out", &a.out}};
  for (const auto& t : ts)
    if (t.t->data == nullptr && elements(*t.t) > 0)
      return msg(t.name, ".data is null; expected a device pointer (", t.name, " has ", elements(*t.t),
                 " elements)");
  if (a.num_seqs > 0) {
    if (!a.cu_seqlens_q) return msg("cu_seqlens_q is null with num_seqs = ", a.num_seqs, "; expected a device pointer");
    if (!a.seqused_k) return msg("seqused_k is null with num_seqs = ", a.num_seqs, "; expected a device pointer");
    if (!a.block_table) return msg("block_table is null with num_seqs = ", a.num_seqs, "; expected a device pointer");
  }
  return "";
}

std::string rule_batch(const AttentionArgs& a) {
  if (a.num_seqs < 0) return msg("num_seqs = ", a.num_seqs, "; expected >= 0");
  if (a.max_seqlen_q < 0) return msg("max_seqlen_q = ", a.max_seqlen_q, "; expected >= 0");
  if (a.max_seqlen_k < 0) return msg("max_seqlen_k = ", a.max_seqlen_k, "; expected >= 0");
  if (a.max_seqlen_k > kMaxKvLen)
    return msg("max_seqlen_k = ", a.max_seqlen_k, "; expected <= ", kMaxKvLen,
               " (kMaxKvLen: the kernels index keys in int32)");
  if (a.max_blocks_per_seq < 0) return msg("max_blocks_per_seq = ", a.max_blocks_per_seq, "; expected >= 0");
  if (a.block_table_stride < a.max_blocks_per_seq)
    return msg("block_table_stride = ", a.block_table_stride, " < max_blocks_per_seq = ", a.max_blocks_per_seq,
               "; expected the row stride of block_table to be at least the columns in use");
  const int64_t cover = (int64_t)a.max_blocks_per_seq * a.k_cache.shape[1];
  if (cover < a.max_seqlen_k)
    return msg("max_blocks_per_seq * block_size = ", a.max_blocks_per_seq, " * ", a.k_cache.shape[1], " = ", cover,
               " < max_seqlen_k = ", a.max_seqlen_k, "; expected the block table to cover max_seqlen_k keys");
  return "";
}

bool finite_positive(float x) { return std::isfinite(x) && x > 0.0f; }

// The validation rules a scalar of the argument schema may name (its CHECK in
// UATTN_FOREACH_SCALAR_CHECK, uattn/generated/args.hpp).
enum class ScalarCheck { positive, off_or_positive, window, kv_scale, out_scale };

std::string check_scalar(const AttentionArgs& a, const char* name, double v, ScalarCheck c) {
  const float f = (float)v;
  switch (c) {
    case ScalarCheck::positive:
      if (!finite_positive(f)) return msg(name, " = ", f, "; expected a finite value > 0");
      break;
    case ScalarCheck::off_or_positive:
      if (!std::isfinite(f) || f < 0.0f) return msg(name, " = ", f, "; expected 0 (off) or a finite value > 0");
      break;
    case ScalarCheck::window:
      if (v < -1) return msg(name, " = ", (int64_t)v, "; expected -1 (no window) or >= 0 (a model window W is W - 1)");
      break;
    case ScalarCheck::kv_scale:
      if (!finite_positive(f)) return msg(name, " = ", f, "; expected a finite value > 0");
      if (!kv_pairs_with_any_query(a.k_cache.dtype) && f != 1.0f)
        return msg(name, " = ", f, " with k_cache.dtype = ", dtype_name(a.k_cache.dtype),
                   "; expected 1 (the KV scales dequantise fp8 caches only)");
      break;
    case ScalarCheck::out_scale:
      if (!finite_positive(f)) return msg(name, " = ", f, "; expected a finite value > 0");
      if (!is_quantised_output_dtype(a.out.dtype) && f != 1.0f)
        return msg(name, " = ", f, " with out.dtype = ", dtype_name(a.out.dtype), "; expected 1 (", name,
                   " applies to fp8 output only)");
      break;
  }
  return "";
}

std::string rule_scalars(const AttentionArgs& a) {
  std::string m;
#define UATTN_CHECK(NAME, CHECK) \
  if (m = check_scalar(a, #NAME, (double)a.NAME, ScalarCheck::CHECK); !m.empty()) return m;
  UATTN_FOREACH_SCALAR_CHECK(UATTN_CHECK)
#undef UATTN_CHECK
  return "";
}

// The logit scale the kernels compute, qk = softmax_scale * k_scale in fp32
// (k_scale is 1 without an fp8 cache), scaled by log2(e) for exp2
// (attention_mfma.hpp / attention_dot2.hpp, qk_log2) and divided into the
// ALiBi and QQ-bias terms of the raw-unit tiles (attention_mfma.hpp,
// kAlibiRaw / kQQRaw: slope / qk, 1 / qk): each factor alone can be a finite
// value > 0 (rule_scalars) while their product underflows below the smallest
// normal fp32 value (1 / qk then overflows to inf, and 0 x inf is NaN) or
// overflows with log2(e). Accepted: FLT_MIN <= qk <= FLT_MAX / log2(e).
std::string rule_logit_scale(const AttentionArgs& a) {
  const float qk = a.softmax_scale * a.k_scale;  // as the kernels compute it
  const float hi = std::numeric_limits<float>::max() / 1.4426950408889634f;
  if (!(qk >= std::numeric_limits<float>::min() && qk <= hi))
    return msg("softmax_scale * k_scale = ", a.softmax_scale, " * ", a.k_scale, " = ", qk,
               "; expected a logit scale from ", std::numeric_limits<float>::min(), " to ", hi,
               " (a normal fp32 value whose reciprocal and log2(e) multiple are finite)");
  return "";
}

// qq_bias is [max_seqlen_q, width] with row stride = width = qq_bias_stride;
// SPEC.md s.1 step 5 adds qq_bias[p, j - context_len] only where
// 0 <= j - context_len < width, so any width >= 1 is defined, narrower than
// max_seqlen_q included. The tensor may hold at most kMaxQQBiasValues fp32
// values (2 GiB): the gfx950 kernels read it through one raw buffer whose
// 32-bit byte offsets must stay within 2^31 (attention_mfma.hpp, qq_bias).
constexpr int64_t kMaxQQBiasValues = int64_t(1) << 29;
std::string rule_qq_bias(const AttentionArgs& a) {
  if (!a.qq_bias) return "";
  if (a.qq_bias_stride < 1)
    return msg("qq_bias_stride = ", a.qq_bias_stride,
               "; expected >= 1 (the width of qq_bias [max_seqlen_q, qq_bias_stride], any width >= 1)");
  const int64_t values = (int64_t)a.max_seqlen_q * a.qq_bias_stride;  // both int32: no overflow
  if (values > kMaxQQBiasValues)
    return msg("qq_bias [max_seqlen_q = ", a.max_seqlen_q, ", qq_bias_stride = ", a.qq_bias_stride, "] holds ", values,
               " fp32 values; expected at most ", kMaxQQBiasValues, " (2 GiB)");
  return "";
}

// Layouts whose writes could alias (or that run backwards): no negative stride
// anywhere; out's rows never overlap one another (each dimension of size > 1
// strides past everything the smaller-stride dimensions span); out shares no
// byte with q, k_cache or v_cache (its byte range [lowest, highest] is disjoint
// from theirs, so interleaved views of one buffer are refused too; in place,
// out == q, is refused).
struct ByteRange { uintptr_t lo = 0, hi = 0; bool empty = true; };

int64_t elem_bytes(DType d) { return d == DType::fp8e4m3 ? 1 : 2; }

// Bytes spanned by t (strides >= 0 and sizes checked by earlier rules).
ByteRange byte_range(const TensorDesc& t) {
  ByteRange r;
  if (!t.data || elements(t) == 0) return r;
  int64_t last = 0;
  for (int i = 0; i < t.rank; ++i) last += (t.shape[i] - 1) * t.stride[i];
  r.lo = (uintptr_t)t.data;
  r.hi = r.lo + (uintptr_t)((last + 1) * elem_bytes(t.dtype));  // one past the end
  r.empty = false;
  return r;
}

std::string rule_layouts(const AttentionArgs& a) {
  struct { const char* name; const TensorDesc* t; } ts[] = {
      {"q", &a.q}, {"k_cache", &a.k_cache}, {"v_cache", &a.v_cache}, {"out", &a.out}};
  for (const auto& t : ts)
    for (int i = 0; i < t.t->rank; ++i)
      if (t.t->stride[i] < 0)
        return msg(t.name, ".stride[", i, "] = ", t.t->stride[i], "; expected >= 0 (negative strides are not served)");
  // out: sort the dimensions of size > 1 by stride; each must stride past the
  // span of the ones before it.
  const TensorDesc& o = a.out;
  static const char* const kOutDims[] = {"num_tokens", "num_q_heads", "head_size"};
  int dims[3];
  int n = 0;
  for (int i = 0; i < 3; ++i)
    if (o.shape[i] > 1) dims[n++] = i;
  for (int x = 1; x < n; ++x)
    for (int y = x; y > 0 && o.stride[dims[y]] < o.stride[dims[y - 1]]; --y) std::swap(dims[y], dims[y - 1]);
  int64_t span = 1;  // elements spanned by the dimensions already placed
  for (int k = 0; k < n; ++k) {
    const int i = dims[k];
    if (o.stride[i] < span)
      return msg("out.stride[", i, "] (", kOutDims[i], ") = ", o.stride[i], " with out.shape = ", shape_text(o),
                 ": rows of out overlap; expected a stride >= ", span,
                 " (the elements the dimensions with smaller strides span)");
    // In 128 bits, saturated: a span past 2^63 elements leaves no room for a larger stride.
    const __int128 next = (__int128)(o.shape[i] - 1) * o.stride[i] + span;
    span = next > (__int128)INT64_MAX ? INT64_MAX : (int64_t)next;
  }
  const ByteRange ro = byte_range(o);
  if (!ro.empty)
    for (int k = 0; k < 3; ++k) {
      const ByteRange r = byte_range(*ts[k].t);
      if (!r.empty && ro.lo < r.hi && r.lo < ro.hi)
        return msg("out.data (bytes [0x", std::hex, ro.lo, ", 0x", ro.hi, ")) overlaps ", ts[k].name, ".data (bytes [0x", r.lo,
                   ", 0x", r.hi, std::dec,
                   ")); expected out to share no memory with q, k_cache or v_cache (in place, out == q, is not "
                   "served)");
    }
  return "";
}

using Rule = std::string (*)(const AttentionArgs&);
// Order matters only for which message comes first: later rules assume the
// ranks (and so the shape indices) checked by earlier ones.
constexpr Rule kRules[] = {rule_dtypes, rule_ranks,      rule_dims,     rule_head_sizes, rule_same_shapes,
                           rule_gqa,    rule_contiguous, rule_sizes,    rule_pointers, rule_layouts,    rule_batch,
                           rule_scalars, rule_logit_scale, rule_qq_bias};

Status invalid(std::string m) { return Status{kInvalidArgument, std::move(m)}; }

// The rules of a checked launch's status word 0 (uattn/kernel/check.hpp, IndexViolation).
enum class IndexRule : uint32_t {
  kOk = 0, kCuFirst, kCuDecreasing, kQLenAboveMax, kSequsedBelowQLen, kSequsedAboveMax, kBlockColumns, kBlockId,
  kCuLast,
};

}  // namespace

Status validate(const AttentionArgs& a) {
  for (Rule r : kRules) {
    std::string m = r(a);
    if (!m.empty()) return invalid(std::move(m));
  }
  return Status::Ok();
}

namespace {

// The host walk of the index rules; fills the status words of a checked launch
// (uattn/kernel/check.hpp: the same rules, order and words).
void index_status(const AttentionArgs& a, const int32_t* cu, const int32_t* su, const int32_t* bt, uint32_t st[4]) {
  auto report = [&](IndexRule rule, int64_t seq, int64_t aux, int64_t value) {
    st[0] = (uint32_t)rule;
    st[1] = (uint32_t)seq;
    st[2] = (uint32_t)aux;
    st[3] = (uint32_t)value;
  };
  report(IndexRule::kOk, 0, 0, 0);
  if (cu[0] != 0) return report(IndexRule::kCuFirst, 0, 0, cu[0]);
  const int64_t bs = a.k_cache.shape[1], num_blocks = a.k_cache.shape[0];
  for (int i = 0; i < a.num_seqs; ++i) {
    const int64_t c0 = cu[i], c1 = cu[i + 1], q_len = c1 - c0;
    if (c1 < c0) return report(IndexRule::kCuDecreasing, i, c0, c1);
    if (q_len > a.max_seqlen_q) return report(IndexRule::kQLenAboveMax, i, 0, q_len);
    const int64_t sk = su[i];
    if (sk < q_len) return report(IndexRule::kSequsedBelowQLen, i, q_len, sk);
    if (sk > a.max_seqlen_k) return report(IndexRule::kSequsedAboveMax, i, 0, sk);
    const int64_t used = (sk + bs - 1) / bs;
    if (used > a.max_blocks_per_seq) return report(IndexRule::kBlockColumns, i, sk, used);
    for (int64_t j = 0; j < used; ++j) {
      const int32_t b = bt[i * a.block_table_stride + j];
      if (b < 0 || b >= num_blocks) return report(IndexRule::kBlockId, i, j, b);
    }
  }
  if (cu[a.num_seqs] > a.q.shape[0]) return report(IndexRule::kCuLast, a.num_seqs, 0, cu[a.num_seqs]);
}

}  // namespace

std::string index_violation_message(const AttentionArgs& a, const uint32_t st[4]) {
  const int64_t seq = st[1];
  const int64_t aux_u = st[2], value_u = st[3];
  const int64_t aux_i = (int32_t)st[2], value_i = (int32_t)st[3];
  const int64_t bs = a.k_cache.shape[1];
  switch ((IndexRule)st[0]) {
    case IndexRule::kOk: return "";
    case IndexRule::kCuFirst: return msg("cu_seqlens_q[0] = ", value_i, "; expected 0");
    case IndexRule::kCuDecreasing:
      return msg("cu_seqlens_q[", seq + 1, "] = ", value_i, " < cu_seqlens_q[", seq, "] = ", aux_i,
                 "; expected non-decreasing prefix sums");
    case IndexRule::kQLenAboveMax:
      return msg("q_len of sequence ", seq, " (cu_seqlens_q[", seq + 1, "] - cu_seqlens_q[", seq, "]) = ", value_u,
                 " > max_seqlen_q = ", a.max_seqlen_q, "; expected q_len <= max_seqlen_q");
    case IndexRule::kSequsedBelowQLen:
      return msg("seqused_k[", seq, "] = ", value_i, " < q_len ", aux_u, " of sequence ", seq,
                 "; expected seqused_k >= q_len (context_len = seqused_k - q_len >= 0)");
    case IndexRule::kSequsedAboveMax:
      return msg("seqused_k[", seq, "] = ", value_i, " > max_seqlen_k = ", a.max_seqlen_k,
                 "; expected seqused_k <= max_seqlen_k");
    case IndexRule::kBlockColumns:
      return msg("seqused_k[", seq, "] = ", aux_i, " needs ", value_u, " block-table columns (block_size = ", bs,
                 ") > max_blocks_per_seq = ", a.max_blocks_per_seq,
                 "; expected the block table to cover every key of the sequence");
    case IndexRule::kBlockId:
      return msg("block_table[", seq, "][", aux_u, "] = ", value_i, " is outside [0, num_blocks = ", a.k_cache.shape[0],
                 "); expected a block id of k_cache (sequence ", seq,
                 " uses the first ceil(seqused_k / block_size) entries of its row)");
    case IndexRule::kCuLast:
      return msg("cu_seqlens_q[", seq, "] = ", value_i, " > num_tokens = q.shape[0] = ", a.q.shape[0],
                 "; expected at most num_tokens (rows past cu_seqlens_q[num_seqs] are padding)");
  }
  return msg("index status word ", st[0], " is not a known rule (status ", st[0], ", ", st[1], ", ", st[2], ", ",
             st[3], ")");
}

Status validate_indices(const AttentionArgs& a, const int32_t* cu, const int32_t* su, const int32_t* bt) {
  Status s = validate(a);
  if (!s.ok() || a.num_seqs == 0) return s;
  if (!cu) return invalid(msg("cu_seqlens_q_host is null; expected a host copy of cu_seqlens_q"));
  if (!su) return invalid(msg("seqused_k_host is null; expected a host copy of seqused_k"));
  if (!bt) return invalid(msg("block_table_host is null; expected a host copy of block_table"));
  uint32_t st[4];
  index_status(a, cu, su, bt, st);
  std::string m = index_violation_message(a, st);
  if (!m.empty()) return invalid(std::move(m));
  return Status::Ok();
}

Status validate_indices(const AttentionArgs& a) {
  return validate_indices(a, a.cu_seqlens_q_host, a.seqused_k_host, a.block_table_host);
}

// The ProblemArgs feature switch of argument `v`: a scalar as it is, an optional
// tensor as whether it is given (UATTN_FOREACH_FEATURE_ARG's ROLE).
#define UATTN_SWITCH_scalar(v) (v)
#define UATTN_SWITCH_optional(v) ((v) != nullptr)
#define UATTN_FEATURE_SWITCH(TYPE, NAME, ARG, DEFAULT, ROLE, FEATURE, USED) p.NAME = UATTN_SWITCH_##ROLE(a.ARG);

uint32_t features_of(const AttentionArgs& a) {
  ProblemArgs p;
  UATTN_FOREACH_FEATURE_ARG(UATTN_FEATURE_SWITCH)
  return features_used(p);
}

ProblemDesc describe(const AttentionArgs& a, Arch arch, int num_cus) {
  ProblemArgs p;
  p.arch = arch;
  p.q_dtype = a.q.dtype;
  p.kv_dtype = a.k_cache.dtype;
  p.out_dtype = a.out.dtype;
  p.head_size = (int)a.q.shape[2];
  p.block_size = (int)a.k_cache.shape[1];
  p.num_q_heads = (int)a.q.shape[1];
  p.num_kv_heads = (int)a.k_cache.shape[2];
  p.num_seqs = a.num_seqs;
  p.num_tokens = (int)a.q.shape[0];
  p.max_seqlen_q = a.max_seqlen_q;
  p.max_seqlen_k = a.max_seqlen_k;
  UATTN_FOREACH_FEATURE_ARG(UATTN_FEATURE_SWITCH)
  p.num_cus = num_cus;
  const auto aligned = [](const TensorDesc& t) {
    const uint64_t bytes = t.dtype == DType::fp8e4m3 ? 1u : 2u;
    int64_t s = 0;
    for (int i = 0; i + 1 < t.rank; ++i) s |= t.stride[i];
    return (uint64_t)(uintptr_t)t.data % (8u * bytes) == 0 && (s & 7) == 0;
  };
  p.rows_aligned = aligned(a.q) && aligned(a.out) && aligned(a.k_cache) && aligned(a.v_cache);
  return make_problem(p);
}

AttnParams make_params(const AttentionArgs& a, const Selection& sel, void* workspace) {
  AttnParams p{};
  p.q = a.q.data;
  p.k_cache = a.k_cache.data;
  p.v_cache = a.v_cache.data;
  p.out = const_cast<void*>(a.out.data);
#define UATTN_COPY(NAME) p.NAME = a.NAME;
#define UATTN_GATED(NAME, TENSOR) p.NAME = a.TENSOR ? a.NAME : 0;
  UATTN_FOREACH_PARAM_COPY(UATTN_COPY)
  UATTN_FOREACH_PARAM_GATED(UATTN_GATED)
#undef UATTN_COPY
#undef UATTN_GATED
  p.q_stride_token = a.q.stride[0];
  p.q_stride_head = a.q.stride[1];
  p.k_stride_block = a.k_cache.stride[0];
  p.k_stride_slot = a.k_cache.stride[1];
  p.k_stride_head = a.k_cache.stride[2];
  p.v_stride_block = a.v_cache.stride[0];
  p.v_stride_slot = a.v_cache.stride[1];
  p.v_stride_head = a.v_cache.stride[2];
  p.o_stride_token = a.out.stride[0];
  p.o_stride_head = a.out.stride[1];
  p.num_tokens = (int32_t)a.q.shape[0];
  p.num_q_heads = (int32_t)a.q.shape[1];
  p.num_kv_heads = (int32_t)a.k_cache.shape[2];
  p.head_size = (int32_t)a.q.shape[2];
  p.block_size = (int32_t)a.k_cache.shape[1];
  p.out_dtype = (int32_t)a.out.dtype;
  p.num_segments = sel.path == Path::k3D ? sel.num_segments : 1;
  p.q_blocks_per_seq = sel.q_blocks_per_seq;
  p.dispatch_round = sel.dispatch_round;
  p.num_blocks = (int32_t)a.k_cache.shape[0];
  p.status = a.index_status;
  if (sel.path == Path::k3D && workspace) {
    const WorkspaceLayout w = workspace_layout(p.num_tokens, p.num_q_heads, p.num_segments, p.head_size);
    char* base = static_cast<char*>(workspace);
    p.ws_acc = reinterpret_cast<float*>(base + w.acc_offset);
    p.ws_max = reinterpret_cast<float*>(base + w.max_offset);
    p.ws_sum = reinterpret_cast<float*>(base + w.sum_offset);
  }
  return p;
}

}  // namespace uattn
