// uattn_run_attention: one paged decode batch through the uattn HIP runtime.
//
// 4 sequences (query lengths 1, 1, 1, 1; KV lengths 1000, 37, 512, 4096), 32
// query heads over 8 KV heads (GQA), head size 128, f16, a paged KV cache of
// 16-token blocks handed out in a shuffled order. Allocates everything with
// hipMalloc, runs uattn::Runtime::run on the current device and copies the
// output back. On a machine without an AMD GPU it says so and exits 0 (the
// runtime's kNoDevice status); any other failure exits 1 with uattn's message.
//
// Tensor layouts (uattn/validate.hpp): q, out [num_tokens, Hq, D]; k_cache,
// v_cache [num_blocks, block_size, Hkv, D]; cu_seqlens_q [num_seqs + 1];
// seqused_k [num_seqs]; block_table [num_seqs, max_blocks_per_seq] (int32).
#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "uattn/runtime.hpp"

namespace {

// IEEE binary16 from float (round to nearest even; the inputs here are small normals).
uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  int exp = (int)((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (exp <= 0) return (uint16_t)sign;  // flush tiny values to zero
  if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
  uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return (uint16_t)h;
}

struct Device {
  std::vector<void*> ptrs;
  ~Device() {
    for (void* p : ptrs) (void)hipFree(p);
  }
  template <class T>
  T* upload(const std::vector<T>& host, const char* what) {
    void* p = nullptr;
    hipError_t e = hipMalloc(&p, host.size() * sizeof(T));
    if (e == hipSuccess) e = hipMemcpy(p, host.data(), host.size() * sizeof(T), hipMemcpyHostToDevice);
    if (e != hipSuccess) {
      std::fprintf(stderr, "uattn_run_attention: uploading %s: %s\n", what, hipGetErrorString(e));
      return nullptr;
    }
    ptrs.push_back(p);
    return static_cast<T*>(p);
  }
};

uattn::TensorDesc tensor(const void* data, std::vector<int64_t> shape) {
  uattn::TensorDesc t;
  t.data = data;
  t.dtype = uattn::DType::f16;
  t.rank = (int)shape.size();
  int64_t stride = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    t.shape[i] = shape[i];
    t.stride[i] = stride;
    stride *= shape[i];
  }
  return t;
}

}  // namespace

int main() {
  const uattn::BuildStamp& lib = uattn::library_stamp();
  std::printf("libuattn: %s\n", uattn::to_string(lib).c_str());
  std::unique_ptr<uattn::Runtime> rt;
  uattn::Status s = uattn::Runtime::create(&rt);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message.c_str());
    return 1;
  }
  std::printf("kernel bundle: %s\n", rt->bundle_path().c_str());

  const int hq = 32, hkv = 8, d = 128, bs = 16;
  const std::vector<int32_t> q_lens{1, 1, 1, 1}, kv_lens{1000, 37, 512, 4096};
  const int num_seqs = (int)q_lens.size();
  int num_tokens = 0, max_blocks = 0, num_blocks = 0, max_q = 0, max_k = 0;
  std::vector<int32_t> cu{0};
  for (int i = 0; i < num_seqs; ++i) {
    num_tokens += q_lens[i];
    cu.push_back(num_tokens);
    const int blocks = (kv_lens[i] + bs - 1) / bs;
    max_blocks = std::max(max_blocks, blocks);
    num_blocks += blocks;
    max_q = std::max(max_q, q_lens[i]);
    max_k = std::max(max_k, kv_lens[i]);
  }
  std::mt19937 rng(2024);
  std::vector<int32_t> order(num_blocks);
  for (int i = 0; i < num_blocks; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int32_t> table((size_t)num_seqs * max_blocks, 0);
  for (int i = 0, next = 0; i < num_seqs; ++i)
    for (int b = 0; b < (kv_lens[i] + bs - 1) / bs; ++b) table[(size_t)i * max_blocks + b] = order[next++];
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto random_half = [&](size_t n) {
    std::vector<uint16_t> v(n);
    for (uint16_t& x : v) x = to_half(u(rng));
    return v;
  };
  const std::vector<uint16_t> q = random_half((size_t)num_tokens * hq * d);
  const std::vector<uint16_t> k = random_half((size_t)num_blocks * bs * hkv * d);
  const std::vector<uint16_t> v = random_half(k.size());
  std::vector<uint16_t> out((size_t)num_tokens * hq * d, 0x7e00u);  // NaN until written

  int count = 0;
  const hipError_t ce = hipGetDeviceCount(&count);
  if (ce != hipSuccess || count == 0) {
    std::printf("no AMD GPU is visible (hipGetDeviceCount: %s); nothing to run here\n",
                ce != hipSuccess ? hipGetErrorString(ce) : "0 devices");
    return 0;
  }
  Device dev;
  uattn::AttentionArgs a;
  a.q = tensor(dev.upload(q, "q"), {num_tokens, hq, d});
  a.k_cache = tensor(dev.upload(k, "k_cache"), {num_blocks, bs, hkv, d});
  a.v_cache = tensor(dev.upload(v, "v_cache"), {num_blocks, bs, hkv, d});
  a.out = tensor(dev.upload(out, "out"), {num_tokens, hq, d});
  a.cu_seqlens_q = dev.upload(cu, "cu_seqlens_q");
  a.seqused_k = dev.upload(kv_lens, "seqused_k");
  a.block_table = dev.upload(table, "block_table");
  if (!a.q.data || !a.k_cache.data || !a.v_cache.data || !a.out.data || !a.cu_seqlens_q || !a.seqused_k ||
      !a.block_table)
    return 1;
  a.num_seqs = num_seqs;
  a.block_table_stride = max_blocks;
  a.max_blocks_per_seq = max_blocks;
  a.max_seqlen_q = max_q;
  a.max_seqlen_k = max_k;
  a.softmax_scale = 1.0f / std::sqrt((float)d);

  size_t ws_bytes = 0;
  s = rt->workspace_size(a, &ws_bytes);
  void* ws = nullptr;
  if (s.ok() && ws_bytes && hipMalloc(&ws, ws_bytes) != hipSuccess) {
    std::fprintf(stderr, "uattn_run_attention: hipMalloc(%zu bytes of workspace) failed\n", ws_bytes);
    return 1;
  }
  if (ws) dev.ptrs.push_back(ws);
  if (s.ok()) s = rt->run(a, ws, ws_bytes, /*stream=*/nullptr);
  if (s.code == uattn::kNoDevice) {
    std::printf("%s; nothing to run here\n", s.message.c_str());
    return 0;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message.c_str());
    return 1;
  }
  if (hipDeviceSynchronize() != hipSuccess ||
      hipMemcpy(out.data(), a.out.data, out.size() * 2, hipMemcpyDeviceToHost) != hipSuccess) {
    std::fprintf(stderr, "uattn_run_attention: the kernel or the copy back failed\n");
    return 1;
  }
  size_t nan = 0;
  for (uint16_t x : out) nan += (x & 0x7c00u) == 0x7c00u;
  std::printf("ran %d tokens x %d heads; %zu of %zu outputs not finite\n", num_tokens, hq, nan, out.size());
  return nan ? 1 : 0;
}
