// fp64 reference of the uattn operation. See reference.hpp for the math and the
// rules on which memory is read.
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace uattn::ref {
namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("uattn::ref::attention: " + what);
}

template <class T>
std::string str(const T& v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

bool valid_dtype(int32_t t) { return t >= 0 && t <= 2; }

const char* dtype_name(int32_t t) {
  switch (t) {
    case 0: return "f16";
    case 1: return "bf16";
    case 2: return "fp8e4m3";
    default: return "?";
  }
}

}  // namespace

double f16_bits_to_double(uint16_t bits) {
  const bool neg = (bits & 0x8000u) != 0;
  const int exp = (bits >> 10) & 0x1F;
  const int man = bits & 0x3FF;
  double mag;
  if (exp == 0x1F) {
    mag = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exp == 0) {
    mag = std::ldexp((double)man, -24);              // subnormal: man * 2^-14 / 2^10
  } else {
    mag = std::ldexp((double)(1024 + man), exp - 25);  // (1 + man/2^10) * 2^(exp-15)
  }
  return neg ? -mag : mag;
}

double bf16_bits_to_double(uint16_t bits) {
  const uint32_t u = (uint32_t)bits << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return (double)f;
}

double fp8e4m3_bits_to_double(uint8_t bits) {
  const bool neg = (bits & 0x80u) != 0;
  const int exp = (bits >> 3) & 0xF;
  const int man = bits & 0x7;
  double mag;
  if (exp == 0xF && man == 0x7) {
    mag = std::numeric_limits<double>::quiet_NaN();
  } else if (exp == 0) {
    mag = std::ldexp((double)man, -9);              // subnormal: man/8 * 2^-6
  } else {
    mag = std::ldexp((double)(8 + man), exp - 10);  // (1 + man/8) * 2^(exp-7)
  }
  return neg ? -mag : mag;
}

int dtype_bytes(uattn::DType t) {
  switch (t) {
    case uattn::DType::f16: return 2;
    case uattn::DType::bf16: return 2;
    case uattn::DType::fp8e4m3: return 1;
  }
  bad("unknown dtype " + str((int)t));
}

double load_element(uattn::DType t, const void* base, int64_t index) {
  const unsigned char* bytes = static_cast<const unsigned char*>(base);
  switch (t) {
    case uattn::DType::f16: {
      uint16_t b;
      std::memcpy(&b, bytes + index * 2, 2);
      return f16_bits_to_double(b);
    }
    case uattn::DType::bf16: {
      uint16_t b;
      std::memcpy(&b, bytes + index * 2, 2);
      return bf16_bits_to_double(b);
    }
    case uattn::DType::fp8e4m3: return fp8e4m3_bits_to_double(bytes[index]);
  }
  bad("unknown dtype " + str((int)t));
}

std::vector<double> attention(const RefInputs& in) {
  // ---- validation: every argument that is read is checked first ----
  const uattn::AttnParams* pp = in.p;
  if (!pp) bad("p is null");
  const uattn::AttnParams& p = *pp;
  if (!valid_dtype((int32_t)in.q_dtype) || in.q_dtype == uattn::DType::fp8e4m3)
    bad(std::string("q_dtype = ") + dtype_name((int32_t)in.q_dtype) + " (" + str((int)in.q_dtype) +
        "), must be f16 or bf16");
  if (!valid_dtype((int32_t)in.kv_dtype)) bad("kv_dtype = " + str((int)in.kv_dtype) + " is unknown");
  if (!valid_dtype(p.out_dtype)) bad("out_dtype = " + str(p.out_dtype) + " is unknown");
  if (p.num_seqs < 0) bad("num_seqs = " + str(p.num_seqs) + " < 0");
  if (p.num_tokens < 0) bad("num_tokens = " + str(p.num_tokens) + " < 0");
  if (p.num_q_heads <= 0) bad("num_q_heads = " + str(p.num_q_heads) + " <= 0");
  if (p.num_kv_heads <= 0) bad("num_kv_heads = " + str(p.num_kv_heads) + " <= 0");
  if (p.num_q_heads % p.num_kv_heads != 0)
    bad("num_q_heads % num_kv_heads != 0 (num_q_heads = " + str(p.num_q_heads) +
        ", num_kv_heads = " + str(p.num_kv_heads) + ")");
  if (p.head_size <= 0) bad("head_size = " + str(p.head_size) + " <= 0");
  if (p.block_size <= 0) bad("block_size = " + str(p.block_size) + " <= 0");
  if (p.window_left < -1) bad("window_left = " + str(p.window_left) + " < -1");
  if (!std::isfinite(p.softcap) || p.softcap < 0) bad("softcap = " + str(p.softcap) + " (must be finite, >= 0)");
  if (!std::isfinite(p.softmax_scale)) bad("softmax_scale = " + str(p.softmax_scale) + " is not finite");
  const bool fp8_kv = in.kv_dtype == uattn::DType::fp8e4m3;
  const bool fp8_out = p.out_dtype == (int32_t)uattn::DType::fp8e4m3;
  if (fp8_kv && !std::isfinite(p.k_scale)) bad("k_scale = " + str(p.k_scale) + " is not finite");
  if (fp8_kv && !std::isfinite(p.v_scale)) bad("v_scale = " + str(p.v_scale) + " is not finite");
  if (fp8_out && !(std::isfinite(p.output_scale) && p.output_scale > 0))
    bad("output_scale = " + str(p.output_scale) + " (fp8 output needs a finite value > 0)");
  if (p.qq_bias && p.qq_bias_stride <= 0)
    bad("qq_bias_stride = " + str(p.qq_bias_stride) + " <= 0 with qq_bias given");
  if (!p.cu_seqlens_q) bad("cu_seqlens_q is null");
  if (p.num_seqs > 0 && !p.seqused_k) bad("seqused_k is null");
  if (p.num_seqs > 0 && !p.block_table) bad("block_table is null");
  if (p.cu_seqlens_q[0] != 0) bad("cu_seqlens_q[0] = " + str(p.cu_seqlens_q[0]) + " != 0");
  for (int i = 0; i < p.num_seqs; ++i) {
    const int32_t q_len = p.cu_seqlens_q[i + 1] - p.cu_seqlens_q[i];
    if (q_len < 0)
      bad("cu_seqlens_q is not monotonic: cu_seqlens_q[" + str(i + 1) + "] = " + str(p.cu_seqlens_q[i + 1]) +
          " < cu_seqlens_q[" + str(i) + "] = " + str(p.cu_seqlens_q[i]));
    if (p.seqused_k[i] < q_len)
      bad("seqused_k[" + str(i) + "] = " + str(p.seqused_k[i]) + " < q_len = " + str(q_len));
    if (q_len == 0) continue;  // writes nothing, reads nothing of its cache
    const int64_t blocks = ((int64_t)p.seqused_k[i] + p.block_size - 1) / p.block_size;
    if (blocks > p.block_table_stride)
      bad("block_table_stride = " + str(p.block_table_stride) + " < " + str(blocks) + " blocks needed by sequence " +
          str(i) + " (seqused_k = " + str(p.seqused_k[i]) + ")");
    for (int64_t b = 0; b < blocks; ++b) {
      const int32_t id = p.block_table[(int64_t)i * p.block_table_stride + b];
      if (id < 0) bad("block_table[" + str(i) + "][" + str(b) + "] = " + str(id) + " < 0");
    }
  }
  if (p.cu_seqlens_q[p.num_seqs] != p.num_tokens)
    bad("cu_seqlens_q[num_seqs] = " + str(p.cu_seqlens_q[p.num_seqs]) + " != num_tokens = " + str(p.num_tokens));
  if (p.num_tokens > 0) {
    if (!p.q) bad("q is null");
    if (!p.k_cache) bad("k_cache is null");
    if (!p.v_cache) bad("v_cache is null");
  }

  // ---- the math ----
  const int Hq = p.num_q_heads, Hkv = p.num_kv_heads, D = p.head_size;
  const int qpk = Hq / Hkv;
  if (in.q_heads < 0 || in.q_heads > Hq)
    bad("q_heads = " + str(in.q_heads) + ", expected 0 (all) to num_q_heads = " + str(Hq));
  const int hq_run = in.q_heads ? in.q_heads : Hq;  // query heads computed
  const int hkv_run = (hq_run + qpk - 1) / qpk;     // KV heads they read
  const double k_scale = fp8_kv ? (double)p.k_scale : 1.0;
  const double v_scale = fp8_kv ? (double)p.v_scale : 1.0;
  std::vector<double> out((size_t)p.num_tokens * Hq * D, 0.0);
  if (hq_run < Hq)
    for (int64_t t = 0; t < p.num_tokens; ++t)
      std::fill(out.begin() + ((size_t)t * Hq + hq_run) * D, out.begin() + ((size_t)t + 1) * Hq * D,
                std::numeric_limits<double>::quiet_NaN());
  std::vector<double> q(D), acc(D), score, kd, vd;

  for (int i = 0; i < p.num_seqs; ++i) {
    const int32_t tok0 = p.cu_seqlens_q[i];
    const int32_t q_len = p.cu_seqlens_q[i + 1] - tok0;
    if (q_len == 0) continue;
    const int64_t kv_len = p.seqused_k[i];
    const int64_t context_len = kv_len - q_len;
    // Keys any query of this sequence keeps: [key0, kv_len). The first query (t =
    // context_len) has the lowest window start. Only these rows are ever read.
    const int64_t key0 = p.window_left >= 0 ? std::max<int64_t>(0, context_len - p.window_left) : 0;
    const int64_t nkeys = kv_len - key0;
    // Gather them through the block table into dense [kv head][key - key0][d] rows,
    // dequantised (x * k_scale, x * v_scale for fp8).
    kd.assign((size_t)(Hkv * nkeys * D), 0.0);
    vd.assign(kd.size(), 0.0);
    for (int64_t j = key0; j < kv_len; ++j) {
      const int64_t block = p.block_table[(int64_t)i * p.block_table_stride + j / p.block_size];
      const int64_t slot = j % p.block_size;
      for (int g = 0; g < hkv_run; ++g) {
        const int64_t k_off = block * p.k_stride_block + slot * p.k_stride_slot + (int64_t)g * p.k_stride_head;
        const int64_t v_off = block * p.v_stride_block + slot * p.v_stride_slot + (int64_t)g * p.v_stride_head;
        double* kr = &kd[(size_t)((g * nkeys + (j - key0)) * D)];
        double* vr = &vd[(size_t)((g * nkeys + (j - key0)) * D)];
        for (int d = 0; d < D; ++d) {
          kr[d] = load_element(in.kv_dtype, p.k_cache, k_off + d) * k_scale;
          vr[d] = load_element(in.kv_dtype, p.v_cache, v_off + d) * v_scale;
        }
      }
    }

    for (int32_t pos = 0; pos < q_len; ++pos) {
      const int64_t token = tok0 + pos;
      const int64_t t = context_len + pos;  // absolute position of this query token
      // Kept keys: causal (j <= t, and t < kv_len always) and window (t - j <= window_left).
      const int64_t j_lo = p.window_left >= 0 ? std::max<int64_t>(0, t - p.window_left) : 0;
      const int64_t j_hi = t;  // inclusive
      for (int h = 0; h < hq_run; ++h) {
        const int g = h / qpk;  // GQA: query head h reads KV head h / qpk
        for (int d = 0; d < D; ++d)
          q[d] = load_element(in.q_dtype, p.q, token * p.q_stride_token + (int64_t)h * p.q_stride_head + d);
        score.clear();
        for (int64_t j = j_lo; j <= j_hi; ++j) {
          const double* kr = &kd[(size_t)((g * nkeys + (j - key0)) * D)];
          double dot4[4] = {0, 0, 0, 0};  // four partial sums: only for speed
          for (int d = 0; d < D; ++d) dot4[d & 3] += q[d] * kr[d];
          double s = (double)p.softmax_scale * ((dot4[0] + dot4[1]) + (dot4[2] + dot4[3]));
          if (p.softcap != 0) s = (double)p.softcap * std::tanh(s / (double)p.softcap);  // before masking/bias
          if (p.alibi_slopes) s += (double)p.alibi_slopes[h] * (double)(j - context_len);
          const int64_t rel = j - context_len;
          if (p.qq_bias && rel >= 0 && rel < p.qq_bias_stride)
            s += (double)p.qq_bias[(int64_t)pos * p.qq_bias_stride + rel];
          score.push_back(s);
        }
        // Softmax with the sink in the denominator only; max-shifted for range.
        double m = -std::numeric_limits<double>::infinity();
        for (double s : score) m = std::max(m, s);
        if (p.sinks) m = std::max(m, (double)p.sinks[h]);
        double denom = p.sinks ? std::exp((double)p.sinks[h] - m) : 0.0;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (size_t n = 0; n < score.size(); ++n) {
          const int64_t j = j_lo + (int64_t)n;
          const double w = std::exp(score[n] - m);
          denom += w;
          const double* vr = &vd[(size_t)((g * nkeys + (j - key0)) * D)];
          for (int d = 0; d < D; ++d) acc[d] += w * vr[d];
        }
        double* o = &out[((size_t)token * Hq + h) * D];
        for (int d = 0; d < D; ++d) {
          double v = denom > 0 ? acc[d] / denom : 0.0;  // empty kept set, no sink: 0
          if (fp8_out) v = std::min(448.0, std::max(-448.0, v / (double)p.output_scale));
          o[d] = v;
        }
      }
    }
  }
  return out;
}

}  // namespace uattn::ref
