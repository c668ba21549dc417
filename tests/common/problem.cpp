// Random problem builder and output comparison. See problem.hpp.
#include "problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

namespace uattn::testing {
namespace {

using uattn::DType;

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("uattn::testing::make_problem: " + what); }

template <class T>
std::string str(const T& v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::fp8e4m3: return "fp8";
  }
  return "?";
}

bool valid_dtype(DType t) { return (int)t >= 0 && (int)t <= 2; }

// Round |x| (finite, > 0) to a binary format with `mbits` mantissa bits and minimum
// normal exponent `emin`, ties to even. Returns the exponent e (>= emin) and the
// integer significand r in [0, 2^(mbits+1)], value = r * 2^(e - mbits); r < 2^mbits
// means subnormal (only when e == emin).
void round_binary(double a, int mbits, int emin, int* e_out, int64_t* r_out) {
  int ex;
  std::frexp(a, &ex);  // a = f * 2^ex, f in [0.5, 1) -> floor(log2 a) = ex - 1
  int e = std::max(ex - 1, emin);
  const double q = std::ldexp(a, mbits - e);        // exact (power-of-two scaling)
  double r = std::floor(q);
  const double frac = q - r;                        // exact
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0)) r += 1;
  int64_t ri = (int64_t)r;
  if (ri == (int64_t)1 << (mbits + 1)) {  // carried into the next binade
    ri >>= 1;
    ++e;
  }
  *e_out = e;
  *r_out = ri;
}

// Generic IEEE-like encoder: sign | exponent field | mantissa field.
uint32_t encode_ieee(double x, int ebits, int mbits, bool has_inf, uint32_t nan_code, uint32_t max_code) {
  const int bias = (1 << (ebits - 1)) - 1;
  const uint32_t sign = std::signbit(x) ? 1u << (ebits + mbits) : 0u;
  if (std::isnan(x)) return sign | nan_code;
  const double a = std::fabs(x);
  if (a == 0) return sign;
  if (std::isinf(a)) return sign | (has_inf ? ((1u << ebits) - 1) << mbits : max_code);
  int e;
  int64_t r;
  round_binary(a, mbits, 1 - bias, &e, &r);
  uint32_t code;
  if (r < ((int64_t)1 << mbits)) {
    code = (uint32_t)r;  // subnormal (or rounded to zero)
  } else {
    const int64_t field = (int64_t)e + bias;
    if (field >= (1 << ebits)) return sign | (has_inf ? ((1u << ebits) - 1) << mbits : max_code);
    code = (uint32_t)(field << mbits) | (uint32_t)(r - ((int64_t)1 << mbits));
    if (has_inf && field == (1 << ebits) - 1) return sign | ((1u << ebits) - 1) << mbits;  // overflow -> inf
    if (!has_inf && code > max_code) return sign | max_code;                              // fp8: saturate
  }
  return sign | code;
}

uint64_t nan_bits(DType t) {
  switch (t) {
    case DType::f16: return 0x7E00;
    case DType::bf16: return 0x7FC0;
    case DType::fp8e4m3: return 0x7F;
  }
  return 0;
}

void store_bits(DType t, void* base, int64_t index, uint32_t bits) {
  unsigned char* b = static_cast<unsigned char*>(base);
  if (t == DType::fp8e4m3) {
    b[index] = (uint8_t)bits;
  } else {
    const uint16_t h = (uint16_t)bits;
    std::memcpy(b + index * 2, &h, 2);
  }
}

uint32_t load_bits(DType t, const void* base, int64_t index) {
  const unsigned char* b = static_cast<const unsigned char*>(base);
  if (t == DType::fp8e4m3) return b[index];
  uint16_t h;
  std::memcpy(&h, b + index * 2, 2);
  return h;
}

uint32_t encode(DType t, double x) {
  switch (t) {
    case DType::f16: return f16_bits_from_double(x);
    case DType::bf16: return bf16_bits_from_double(x);
    case DType::fp8e4m3: return fp8e4m3_bits_from_double(x);
  }
  return 0;
}

void fill_nan(DType t, void* base, int64_t begin, int64_t count) {
  if (count <= 0) return;
  if (t == DType::fp8e4m3) {
    std::memset(static_cast<unsigned char*>(base) + begin, 0x7F, (size_t)count);
    return;
  }
  const uint32_t bits = (uint32_t)nan_bits(t);
  for (int64_t i = 0; i < count; ++i) store_bits(t, base, begin + i, bits);
}

struct Rng {
  std::mt19937_64 g;  // output sequence fixed by the standard
  explicit Rng(uint64_t seed) : g(seed) {}
  double unit() { return (double)(g() >> 11) * 0x1p-53; }      // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  uint64_t below(uint64_t n) { return g() % n; }                 // n > 0; tiny bias is fine here
};

class MallocAllocator final : public Allocator {
 public:
  void* alloc(size_t bytes, const char*) override {
    void* p = std::malloc(bytes ? bytes : 1);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void free(void* p) override { std::free(p); }
};

// The product of `factors`, UINT64_MAX when it does not fit.
uint64_t bytes_of(std::initializer_list<uint64_t> factors) {
  uint64_t n = 1;
  for (uint64_t f : factors)
    if (__builtin_mul_overflow(n, f, &n)) return UINT64_MAX;
  return n;
}

void allocate(Allocator& a, Buffer& buf, size_t bytes, const char* name) {
  buf.name = name;
  buf.bytes = bytes;
  buf.ptr = a.alloc(bytes, name);
  if (!buf.ptr) throw std::bad_alloc();
  buf.owned = true;
}

}  // namespace

uint16_t f16_bits_from_double(double x) { return (uint16_t)encode_ieee(x, 5, 10, true, 0x7E00, 0x7BFF); }
uint16_t bf16_bits_from_double(double x) { return (uint16_t)encode_ieee(x, 8, 7, true, 0x7FC0, 0x7F7F); }
uint8_t fp8e4m3_bits_from_double(double x) { return (uint8_t)encode_ieee(x, 4, 3, false, 0x7F, 0x7E); }

Allocator& malloc_allocator() {
  static MallocAllocator a;
  return a;
}

Problem::~Problem() {
  Buffer* all[] = {&q, &k_cache, &v_cache, &kv_cache, &out, &cu_seqlens_q, &seqused_k,
                   &block_table, &alibi_slopes, &qq_bias, &sinks};
  for (Buffer* b : all)
    if (b->owned && b->ptr && allocator) allocator->free(b->ptr);
}

void Problem::poison_output() {
  const int64_t n = (int64_t)num_tokens * params.num_q_heads * (params.head_size + head_pad);
  fill_nan(spec.out_dtype, out.ptr, 0, n);
}

uattn::ref::RefInputs Problem::ref_inputs() const { return {&params, spec.q_dtype, spec.kv_dtype}; }

std::vector<double> Problem::reference(int q_heads) const {
  uattn::ref::RefInputs in = ref_inputs();
  in.q_heads = q_heads;
  return uattn::ref::attention(in);
}

void Problem::write_output(const std::vector<double>& values) {
  const int Hq = params.num_q_heads, D = params.head_size;
  if (values.size() != (size_t)num_tokens * Hq * D)
    throw std::invalid_argument("Problem::write_output: values.size() = " + str(values.size()) + ", expected " +
                                str((size_t)num_tokens * Hq * D));
  for (int64_t t = 0; t < num_tokens; ++t)
    for (int h = 0; h < Hq; ++h)
      for (int d = 0; d < D; ++d)
        store_bits(spec.out_dtype, out.ptr, t * params.o_stride_token + h * params.o_stride_head + d,
                   encode(spec.out_dtype, values[((size_t)t * Hq + h) * D + d]));
}

std::unique_ptr<Problem> make_problem(const ProblemSpec& spec, Allocator& alloc) {
  // ---- validate the spec ----
  if (!valid_dtype(spec.q_dtype) || spec.q_dtype == DType::fp8e4m3)
    bad(std::string("q_dtype = ") + dtype_name(spec.q_dtype) + ", must be f16 or bf16");
  if (!valid_dtype(spec.kv_dtype)) bad("kv_dtype = " + str((int)spec.kv_dtype) + " is unknown");
  if (!valid_dtype(spec.out_dtype)) bad("out_dtype = " + str((int)spec.out_dtype) + " is unknown");
  if (spec.head_size <= 0) bad("head_size = " + str(spec.head_size) + " <= 0");
  if (spec.block_size <= 0) bad("block_size = " + str(spec.block_size) + " <= 0");
  if (spec.num_q_heads <= 0) bad("num_q_heads = " + str(spec.num_q_heads) + " <= 0");
  if (spec.num_kv_heads <= 0) bad("num_kv_heads = " + str(spec.num_kv_heads) + " <= 0");
  if (spec.num_q_heads % spec.num_kv_heads)
    bad("num_q_heads = " + str(spec.num_q_heads) + " is not a multiple of num_kv_heads = " + str(spec.num_kv_heads));
  for (size_t i = 0; i < spec.seqs.size(); ++i) {
    const auto& s = spec.seqs[i];
    if (s.first < 0 || s.second < s.first)
      bad("seqs[" + str(i) + "] = (" + str(s.first) + ", " + str(s.second) + "), need 0 <= q_len <= kv_len");
  }
  if (spec.window < 0) bad("window = " + str(spec.window) + " < 0");
  if (!(spec.softcap >= 0) || !std::isfinite(spec.softcap)) bad("softcap = " + str(spec.softcap));
  if (!(spec.softmax_scale >= 0) || !std::isfinite(spec.softmax_scale))
    bad("softmax_scale = " + str(spec.softmax_scale) + ", expected finite and > 0 (0 = 1/sqrt(head_size))");
  if (spec.qq_bias_stride < 0) bad("qq_bias_stride = " + str(spec.qq_bias_stride) + " < 0");
  if (spec.kv_dtype != DType::fp8e4m3 && (spec.k_scale != 1 || spec.v_scale != 1))
    bad("k_scale = " + str(spec.k_scale) + ", v_scale = " + str(spec.v_scale) + ": scales need fp8 kv");
  for (const auto& sc : {std::make_pair("k_scale", spec.k_scale), std::make_pair("v_scale", spec.v_scale)})
    if (!(sc.second > 0) || !std::isfinite(sc.second))
      bad(std::string(sc.first) + " = " + str(sc.second) + ", expected finite and > 0");
  if (spec.out_dtype != DType::fp8e4m3 && spec.output_scale != 1)
    bad("output_scale = " + str(spec.output_scale) + " needs fp8 out");
  if (!(spec.output_scale > 0) || !std::isfinite(spec.output_scale))
    bad("output_scale = " + str(spec.output_scale) + ", expected finite and > 0");
  if (spec.head_pad < -1) bad("head_pad = " + str(spec.head_pad));
  if (spec.kv_layout < -1 || spec.kv_layout > 1) bad("kv_layout = " + str(spec.kv_layout));

  auto prob = std::make_unique<Problem>();
  Problem& P = *prob;
  P.spec = spec;
  P.allocator = &alloc;
  Rng rng(spec.seed);

  const int Hq = spec.num_q_heads, Hkv = spec.num_kv_heads, D = spec.head_size, bs = spec.block_size;
  const int num_seqs = (int)spec.seqs.size();
  P.head_pad = spec.head_pad >= 0 ? spec.head_pad : ((spec.seed & 1) ? 8 : 0);
  P.kv_layout = spec.kv_layout >= 0 ? spec.kv_layout : (int)((spec.seed / 2) % 2);
  const int64_t Dp = D + P.head_pad;

  // ---- sequence metadata ----
  std::vector<int32_t> cu(num_seqs + 1, 0), used(num_seqs), nblk(num_seqs);
  // first_in[i]: the sequence's first block not wholly outside the window (0 unless
  // shared_nan_block); the blocks before it all name the shared NaN block.
  std::vector<int64_t> first_in(num_seqs, 0);
  const int window_left = spec.window > 0 ? spec.window - 1 : -1;
  const bool shared_nan = spec.shared_nan_block && spec.nan_outside_window && window_left >= 0;
  bool any_shared = false;
  int64_t total_tokens = 0, used_blocks = 0, max_nblk = 0;
  for (int i = 0; i < num_seqs; ++i) {
    const auto [ql, kl] = spec.seqs[i];
    total_tokens += ql;
    if (total_tokens > std::numeric_limits<int32_t>::max())
      bad("num_tokens = sum of the q_lens of seqs[0.." + str(i) + "] = " + str(total_tokens) + "; expected <= " +
          str(std::numeric_limits<int32_t>::max()));
    cu[i + 1] = (int32_t)total_tokens;
    used[i] = kl;
    nblk[i] = (int32_t)(((int64_t)kl + bs - 1) / bs);
    // Block b holds keys [b bs, (b + 1) bs): wholly before the lowest key any query
    // keeps (lo = context_len - window_left) when (b + 1) bs <= lo.
    const int64_t lo = (int64_t)kl - ql - window_left;
    if (shared_nan && ql > 0 && lo > 0) first_in[i] = std::min<int64_t>(lo / bs, nblk[i]);
    any_shared = any_shared || first_in[i] > 0;
    used_blocks += nblk[i] - first_in[i];
    max_nblk = std::max<int64_t>(max_nblk, nblk[i]);
    P.max_seqlen_q = std::max(P.max_seqlen_q, ql);
    P.max_seqlen_k = std::max(P.max_seqlen_k, kl);
  }
  P.num_tokens = (int)total_tokens;
  if (any_shared) ++used_blocks;  // the shared NaN block: the last id drawn
  const int64_t extra = spec.extra_blocks >= 0 ? spec.extra_blocks : std::max<int64_t>(2, used_blocks / 4);
  P.num_blocks = used_blocks + extra;
  if (P.num_blocks > std::numeric_limits<int32_t>::max()) bad("num_blocks = " + str(P.num_blocks) + " > INT32_MAX");
  const int64_t bt_stride = max_nblk + 2;
  const int qq_w = spec.qq_bias_stride > 0 ? spec.qq_bias_stride : std::max(1, P.max_seqlen_q);
  const int qq_rows = std::max(1, P.max_seqlen_q);

  // ---- the host memory the problem writes, refused past kMaxProblemBytes before anything is allocated ----
  {
    const uint64_t kv_bytes = bytes_of({(uint64_t)(spec.fill_unused_blocks ? P.num_blocks : used_blocks),
                                        (uint64_t)bs, (uint64_t)Hkv, (uint64_t)Dp,
                                        2u * (uint64_t)uattn::ref::dtype_bytes(spec.kv_dtype)});
    const uint64_t q_out_bytes =
        bytes_of({(uint64_t)total_tokens, (uint64_t)Hq, (uint64_t)Dp,
                  (uint64_t)(uattn::ref::dtype_bytes(spec.q_dtype) + uattn::ref::dtype_bytes(spec.out_dtype))});
    const uint64_t qq_bytes = spec.qq_bias ? bytes_of({(uint64_t)qq_rows, (uint64_t)qq_w, sizeof(float)}) : 0;
    uint64_t total = 0;
    if (__builtin_add_overflow(kv_bytes, q_out_bytes, &total) || __builtin_add_overflow(total, qq_bytes, &total))
      total = UINT64_MAX;
    if (total > kMaxProblemBytes)
      bad("seqs (" + str(total_tokens) + " query tokens, kv_len up to " + str(P.max_seqlen_k) + ", num_seqs " +
          str(num_seqs) + ") with num_q_heads " + str(Hq) + ", num_kv_heads " + str(Hkv) + ", head_size " + str(D) +
          (P.head_pad ? " (+" + str(P.head_pad) + " padding)" : "") + ": the problem writes " +
          (total == UINT64_MAX ? "more than " : "") + str(total) + " bytes of host memory (k_cache + v_cache " +
          str(kv_bytes) + ", q + out " + str(q_out_bytes) + ", qq_bias " + str(qq_bytes) + "); expected at most " +
          str(kMaxProblemBytes) + " (kMaxProblemBytes)");
  }

  // ---- physical block ids: `used_blocks` distinct random ids of the pool ----
  std::vector<int32_t> ids;
  if (P.num_blocks <= (int64_t)1 << 22) {
    ids.resize(P.num_blocks);
    for (int64_t b = 0; b < P.num_blocks; ++b) ids[b] = (int32_t)b;
    for (int64_t b = P.num_blocks - 1; b > 0; --b) std::swap(ids[b], ids[rng.below(b + 1)]);
    ids.resize(used_blocks);
  } else {  // huge sparse pool: sample; the first used block is the last of the pool
    std::unordered_set<int32_t> seen;
    while ((int64_t)ids.size() < used_blocks) {
      const int32_t id = ids.empty() ? (int32_t)(P.num_blocks - 1) : (int32_t)rng.below(P.num_blocks);
      if (seen.insert(id).second) ids.push_back(id);
    }
  }

  // ---- layouts ----
  const int de = uattn::ref::dtype_bytes(spec.kv_dtype);
  const int64_t block_elems = (int64_t)bs * Hkv * Dp;
  int64_t stride_slot, stride_head;
  if (P.kv_layout == 0) {
    stride_slot = Hkv * Dp;
    stride_head = Dp;
  } else {
    stride_slot = Dp;
    stride_head = (int64_t)bs * Dp;
  }
  const int64_t stride_block = spec.kv_view_of_combined ? 2 * block_elems : block_elems;
  const int64_t cache_elems = P.num_blocks * stride_block;

  // ---- allocate ----
  const int qe = uattn::ref::dtype_bytes(spec.q_dtype), oe = uattn::ref::dtype_bytes(spec.out_dtype);
  const int64_t q_elems = total_tokens * Hq * Dp;
  allocate(alloc, P.q, (size_t)(q_elems * qe), "q");
  void* kptr;
  void* vptr;
  if (spec.kv_view_of_combined) {
    allocate(alloc, P.kv_cache, (size_t)(cache_elems * de), "kv_cache");
    kptr = P.kv_cache.ptr;
    vptr = static_cast<unsigned char*>(P.kv_cache.ptr) + block_elems * de;
    P.k_cache = {kptr, (size_t)(cache_elems * de) - (size_t)(block_elems * de), "k_cache(view)", false};
    P.v_cache = {vptr, (size_t)(cache_elems * de) - (size_t)(block_elems * de), "v_cache(view)", false};
  } else {
    allocate(alloc, P.k_cache, (size_t)(cache_elems * de), "k_cache");
    allocate(alloc, P.v_cache, (size_t)(cache_elems * de), "v_cache");
    kptr = P.k_cache.ptr;
    vptr = P.v_cache.ptr;
  }
  allocate(alloc, P.out, (size_t)(q_elems * oe), "out");
  allocate(alloc, P.cu_seqlens_q, sizeof(int32_t) * (num_seqs + 1), "cu_seqlens_q");
  allocate(alloc, P.seqused_k, sizeof(int32_t) * num_seqs, "seqused_k");
  allocate(alloc, P.block_table, sizeof(int32_t) * (size_t)(num_seqs * bt_stride), "block_table");
  if (spec.alibi) allocate(alloc, P.alibi_slopes, sizeof(float) * Hq, "alibi_slopes");
  if (spec.qq_bias) allocate(alloc, P.qq_bias, sizeof(float) * (size_t)qq_rows * qq_w, "qq_bias");
  if (spec.sinks) allocate(alloc, P.sinks, sizeof(float) * Hq, "sinks");

  // ---- metadata contents ----
  std::memcpy(P.cu_seqlens_q.ptr, cu.data(), sizeof(int32_t) * (num_seqs + 1));
  if (num_seqs) std::memcpy(P.seqused_k.ptr, used.data(), sizeof(int32_t) * num_seqs);
  int32_t* bt = static_cast<int32_t*>(P.block_table.ptr);
  {
    size_t next = 0;
    const int32_t shared_id = any_shared ? ids.back() : -1;
    for (int i = 0; i < num_seqs; ++i)
      for (int64_t b = 0; b < bt_stride; ++b) {
        int32_t v;
        if (b < first_in[i]) {
          v = shared_id;
        } else if (b < nblk[i]) {
          v = ids[next++];
        } else {
          switch ((i + b) % 4) {  // garbage: far out of range, negative, or just past the pool
            case 0: v = 0x7fffffff; break;
            case 1: v = -1; break;
            case 2: v = std::numeric_limits<int32_t>::min(); break;
            default: v = (int32_t)std::min<int64_t>(P.num_blocks + b, std::numeric_limits<int32_t>::max()); break;
          }
        }
        bt[i * bt_stride + b] = v;
      }
  }

  // ---- cache contents: NaN everywhere that holds no valid token ----
  if (spec.fill_unused_blocks) {
    fill_nan(spec.kv_dtype, kptr, 0, cache_elems);  // combined: the whole kv allocation
    if (!spec.kv_view_of_combined) fill_nan(spec.kv_dtype, vptr, 0, cache_elems);
  } else {
    for (int32_t id : ids) {
      fill_nan(spec.kv_dtype, kptr, (int64_t)id * stride_block, stride_block);
      if (!spec.kv_view_of_combined) fill_nan(spec.kv_dtype, vptr, (int64_t)id * stride_block, stride_block);
    }
  }
  for (int i = 0; i < num_seqs; ++i) {
    const int ql = spec.seqs[i].first, kl = spec.seqs[i].second;
    const int64_t ctx = kl - ql;
    // lowest key any query of this sequence keeps (the first query's window start)
    const int64_t lo = (spec.nan_outside_window && window_left >= 0 && ql > 0) ? ctx - window_left : 0;
    for (int64_t b = first_in[i]; b < nblk[i]; ++b) {
      const int64_t id = bt[i * bt_stride + b];
      const int64_t j0 = (int64_t)b * bs, j1 = std::min<int64_t>(kl, j0 + bs);
      if (j1 - 1 < lo) continue;  // wholly outside the window: stays NaN
      for (int64_t j = j0; j < j1; ++j)
        for (int h = 0; h < Hkv; ++h) {
          const int64_t k_off = id * stride_block + (j - j0) * stride_slot + h * stride_head;
          for (int d = 0; d < D; ++d) {
            const double kx = rng.uniform(-1, 1), vx = rng.uniform(-1, 1);
            const bool f8 = spec.kv_dtype == DType::fp8e4m3;
            store_bits(spec.kv_dtype, kptr, k_off + d, encode(spec.kv_dtype, f8 ? kx / spec.k_scale : kx));
            store_bits(spec.kv_dtype, vptr, k_off + d, encode(spec.kv_dtype, f8 ? vx / spec.v_scale : vx));
          }
        }
    }
  }

  // ---- q, out ----
  fill_nan(spec.q_dtype, P.q.ptr, 0, q_elems);
  for (int64_t t = 0; t < total_tokens; ++t)
    for (int h = 0; h < Hq; ++h)
      for (int d = 0; d < D; ++d)
        store_bits(spec.q_dtype, P.q.ptr, (t * Hq + h) * Dp + d, encode(spec.q_dtype, rng.uniform(-1, 1)));

  // ---- optional inputs ----
  if (spec.alibi) {
    float* s = static_cast<float*>(P.alibi_slopes.ptr);
    for (int h = 0; h < Hq; ++h) s[h] = (float)std::exp2(-8.0 * (h + 1) / Hq);  // geometric, (0, 1)
  }
  if (spec.qq_bias) {
    float* s = static_cast<float*>(P.qq_bias.ptr);
    for (int64_t n = 0; n < (int64_t)qq_rows * qq_w; ++n) s[n] = (float)rng.uniform(-1, 1);
  }
  if (spec.sinks) {
    float* s = static_cast<float*>(P.sinks.ptr);
    for (int h = 0; h < Hq; ++h) s[h] = (float)rng.uniform(-1, 2);
  }

  // ---- params ----
  uattn::AttnParams& p = P.params;
  p = uattn::AttnParams{};
  p.q = P.q.ptr;
  p.k_cache = kptr;
  p.v_cache = vptr;
  p.out = P.out.ptr;
  p.cu_seqlens_q = static_cast<const int32_t*>(P.cu_seqlens_q.ptr);
  p.seqused_k = static_cast<const int32_t*>(P.seqused_k.ptr);
  p.block_table = bt;
  p.alibi_slopes = static_cast<const float*>(P.alibi_slopes.ptr);
  p.qq_bias = static_cast<const float*>(P.qq_bias.ptr);
  p.sinks = static_cast<const float*>(P.sinks.ptr);
  p.ws_acc = p.ws_max = p.ws_sum = nullptr;
  p.q_stride_token = Hq * Dp;
  p.q_stride_head = Dp;
  p.k_stride_block = p.v_stride_block = stride_block;
  p.k_stride_slot = p.v_stride_slot = stride_slot;
  p.k_stride_head = p.v_stride_head = stride_head;
  p.o_stride_token = Hq * Dp;
  p.o_stride_head = Dp;
  p.block_table_stride = bt_stride;
  p.num_seqs = num_seqs;
  p.num_tokens = (int32_t)total_tokens;
  p.num_q_heads = Hq;
  p.num_kv_heads = Hkv;
  p.head_size = D;
  p.block_size = bs;
  p.qq_bias_stride = spec.qq_bias ? qq_w : 0;
  p.max_seqlen_q = P.max_seqlen_q;  // qq_bias's rows: the gfx950 QQ-bias tiles bound their reads by it
  p.window_left = window_left;
  p.softcap = spec.softcap;
  p.softmax_scale = spec.softmax_scale != 0 ? spec.softmax_scale : (float)(1.0 / std::sqrt((double)D));
  p.k_scale = spec.k_scale;
  p.v_scale = spec.v_scale;
  p.output_scale = spec.output_scale;
  p.out_dtype = (int32_t)spec.out_dtype;
  p.num_segments = 1;
  p.q_blocks_per_seq = 0;  // the packed grid
  p.dispatch_round = 0;    // grid order

  P.features = (window_left >= 0 ? uattn::kFeatWindow : 0u) | (spec.softcap != 0 ? uattn::kFeatSoftcap : 0u) |
               (spec.alibi ? uattn::kFeatAlibi : 0u) | (spec.qq_bias ? uattn::kFeatQQBias : 0u) |
               (spec.sinks ? uattn::kFeatSinks : 0u);
  P.poison_output();
  return prob;
}

CompareResult compare_output(const Problem& prob, const std::vector<double>& ref, double atol, double rtol,
                             int q_heads) {
  CompareResult r;
  const uattn::AttnParams& p = prob.params;
  const DType od = (DType)p.out_dtype;
  const int Hq = p.num_q_heads, D = p.head_size;
  const size_t expect = (size_t)prob.num_tokens * Hq * D;
  if (ref.size() != expect) {
    r.ok = false;
    r.fail_count = 1;
    r.first_failure = "reference has " + str(ref.size()) + " values, expected " + str(expect);
    return r;
  }
  const uint32_t poison = (uint32_t)nan_bits(od);
  double sum_abs = 0;
  size_t finite = 0;
  int seq = 0;
  for (int64_t t = 0; t < prob.num_tokens; ++t) {
    while (seq + 1 < p.num_seqs && p.cu_seqlens_q[seq + 1] <= t) ++seq;
    for (int h = 0; h < Hq; ++h) {
      const int64_t base = t * p.o_stride_token + h * p.o_stride_head;
      for (int d = 0; d < (q_heads <= 0 || h < q_heads ? D : 0); ++d) {
        const double got = uattn::ref::load_element(od, p.out, base + d);
        const double want = ref[((size_t)t * Hq + h) * D + d];
        ++r.n;
        const double err = std::fabs(got - want);
        const double tol = atol + rtol * std::fabs(want);
        bool fail;
        if (std::isnan(got)) {
          ++r.nan_count;
          fail = true;
        } else if (!std::isfinite(got) || !std::isfinite(want)) {
          fail = true;
        } else {
          ++finite;
          sum_abs += err;
          r.max_abs = std::max(r.max_abs, err);
          fail = !(err <= tol);
        }
        if (fail) {
          if (r.fail_count == 0) {
            std::ostringstream s;
            s.precision(9);
            s << "token " << t << " (seq " << seq << ", pos " << (t - p.cu_seqlens_q[seq]) << ") head " << h << " d "
              << d << ": got " << got << " ref " << want << " |diff| " << err << " > tol " << tol;
            r.first_failure = s.str();
          }
          ++r.fail_count;
        }
      }
      for (int d = D; d < D + prob.head_pad; ++d) {  // padding must still hold the poison
        if (load_bits(od, p.out, base + d) != poison) {
          if (r.fail_count == 0)
            r.first_failure = "token " + str(t) + " head " + str(h) + " d " + str(d) +
                              ": out padding past head_size was written";
          ++r.fail_count;
        }
      }
    }
  }
  r.mean_abs = finite ? sum_abs / (double)finite : 0;
  r.ok = r.fail_count == 0;
  return r;
}

std::string describe(const ProblemSpec& s) {
  std::ostringstream o;
  o << dtype_name(s.q_dtype) << "/" << dtype_name(s.kv_dtype) << "->" << dtype_name(s.out_dtype) << " d"
    << s.head_size << " b" << s.block_size << " h" << s.num_q_heads << "/" << s.num_kv_heads << " seqs[";
  for (size_t i = 0; i < s.seqs.size(); ++i) {
    if (i == 6) {
      o << ",...(" << s.seqs.size() << ")";
      break;
    }
    o << (i ? "," : "") << "(" << s.seqs[i].first << "," << s.seqs[i].second << ")";
  }
  o << "]";
  if (s.window) o << " w" << s.window;
  if (s.softcap != 0) o << " softcap" << s.softcap;
  if (s.alibi) o << " alibi";
  if (s.qq_bias) o << " qq" << s.qq_bias_stride;
  if (s.sinks) o << " sinks";
  if (s.k_scale != 1 || s.v_scale != 1) o << " kvs" << s.k_scale << "/" << s.v_scale;
  if (s.output_scale != 1) o << " os" << s.output_scale;
  if (s.kv_view_of_combined) o << " kvcomb";
  o << " seed" << s.seed;
  return o.str();
}

}  // namespace uattn::testing
