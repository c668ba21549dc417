#include "device_problem.hpp"

#include <cstring>
#include <memory>

#include "c_args.hpp"

// With the CPU-backed HIP device (tests/hipcpu) linked in, the text behind an
// asynchronous HIP error; absent (null) with the real HIP runtime.
namespace uattn::hipcpu {
std::string last_fault() __attribute__((weak));
}

namespace uattn::e2e {
namespace {

std::string hip_text(const char* call, hipError_t e) {
  std::string m = std::string(call) + ": " + hipGetErrorName(e);
  const std::string f = hipcpu::last_fault ? hipcpu::last_fault() : std::string();
  if (!f.empty()) m += " (" + f + ")";
  return m;
}

size_t esize(DType d) { return d == DType::fp8e4m3 ? 1 : 2; }

constexpr unsigned char kPaddingSentinel = 0x5A;  // every byte of out's padding rows

TensorDesc tensor(const void* data, DType dt, std::initializer_list<int64_t> shape,
                  std::initializer_list<int64_t> stride) {
  TensorDesc t;
  t.data = data;
  t.dtype = dt;
  t.rank = (int)shape.size();
  int i = 0;
  for (int64_t s : shape) t.shape[i++] = s;
  i = 0;
  for (int64_t s : stride) t.stride[i++] = s;
  return t;
}

}  // namespace

DeviceProblem::DeviceProblem(testing::Problem& h, int pad_rows) : host_(h), pad_rows_(pad_rows) {
  const AttnParams& p = h.params;
  const size_t out_row = (size_t)p.o_stride_token * esize(h.spec.out_dtype);
  const size_t q_row = (size_t)p.q_stride_token * esize(h.spec.q_dtype);
  for (testing::Buffer* b : {&h.q, &h.k_cache, &h.v_cache, &h.kv_cache, &h.out, &h.cu_seqlens_q, &h.seqused_k,
                             &h.block_table, &h.alibi_slopes, &h.qq_bias, &h.sinks}) {
    if (!b->owned || !b->ptr) continue;
    size_t bytes = b->bytes;
    if (b == &h.q) bytes += pad_rows * q_row;
    if (b == &h.out) bytes += pad_rows * out_row;
    void* d = nullptr;
    hipError_t e = hipMalloc(&d, bytes ? bytes : 1);
    if (e == hipSuccess) e = hipMemcpy(d, b->ptr, b->bytes, hipMemcpyHostToDevice);
    // Padding rows past the last token: q's hold NaN (0xFF bytes, in every float format); out's hold a
    // finite sentinel no kernel writes by chance (0x5A bytes: f16 203.25, bf16 1.5e16, fp8 72; a NaN
    // written there would not match 0xFF either way), checked after the run.
    if (e == hipSuccess && bytes > b->bytes)
      e = hipMemset(static_cast<char*>(d) + b->bytes, b == &h.out ? kPaddingSentinel : 0xFF, bytes - b->bytes);
    if (e != hipSuccess) { error_ = hip_text((std::string("copy of ") + b->name).c_str(), e); return; }
    copies_.push_back({b->ptr, d, b->bytes});
    if (b == &h.out) { out_dev_ = d; out_valid_bytes_ = b->bytes; out_total_bytes_ = bytes; }
  }
  const int hq = h.spec.num_q_heads, hkv = h.spec.num_kv_heads, d = h.spec.head_size;
  const int64_t rows = h.num_tokens + pad_rows;
  args_.q = tensor(device_of(p.q), h.spec.q_dtype, {rows, hq, d}, {p.q_stride_token, p.q_stride_head, 1});
  args_.out = tensor(out_dev_, h.spec.out_dtype, {rows, hq, d}, {p.o_stride_token, p.o_stride_head, 1});
  args_.k_cache = tensor(device_of(p.k_cache), h.spec.kv_dtype, {h.num_blocks, h.spec.block_size, hkv, d},
                         {p.k_stride_block, p.k_stride_slot, p.k_stride_head, 1});
  args_.v_cache = tensor(device_of(p.v_cache), h.spec.kv_dtype, {h.num_blocks, h.spec.block_size, hkv, d},
                         {p.v_stride_block, p.v_stride_slot, p.v_stride_head, 1});
  args_.cu_seqlens_q = static_cast<const int32_t*>(device_of(p.cu_seqlens_q));
  args_.seqused_k = static_cast<const int32_t*>(device_of(p.seqused_k));
  args_.block_table = static_cast<const int32_t*>(device_of(p.block_table));
  args_.num_seqs = p.num_seqs;
  args_.block_table_stride = p.block_table_stride;
  args_.max_blocks_per_seq = (int)p.block_table_stride;
  args_.max_seqlen_q = h.max_seqlen_q;
  args_.max_seqlen_k = h.max_seqlen_k;
  args_.softmax_scale = p.softmax_scale;
  args_.window_left = p.window_left;
  args_.softcap = p.softcap;
  args_.k_scale = p.k_scale;
  args_.v_scale = p.v_scale;
  args_.alibi_slopes = static_cast<const float*>(device_of(p.alibi_slopes));
  args_.qq_bias = static_cast<const float*>(device_of(p.qq_bias));
  args_.qq_bias_stride = p.qq_bias_stride;
  args_.sinks = static_cast<const float*>(device_of(p.sinks));
  args_.output_scale = p.output_scale;
}

DeviceProblem::~DeviceProblem() {
  for (const Copy& c : copies_) (void)hipFree(c.dev);
}

void* DeviceProblem::device_of(const void* hp) const {
  if (!hp) return nullptr;
  const char* x = static_cast<const char*>(hp);
  for (const Copy& c : copies_) {
    const char* b = static_cast<const char*>(c.host);
    if (x >= b && x < b + (c.bytes ? c.bytes : 1)) return static_cast<char*>(c.dev) + (x - b);
  }
  return nullptr;
}

uattn_args_t DeviceProblem::c_args() const { return testing::c_args(args_); }

bool DeviceProblem::download() {
  const hipError_t e = hipMemcpy(host_.out.ptr, out_dev_, out_valid_bytes_, hipMemcpyDeviceToHost);
  if (e != hipSuccess) { error_ = hip_text("copy of out to the host", e); return false; }
  return true;
}

bool DeviceProblem::padding_intact() const {
  if (out_total_bytes_ == out_valid_bytes_) return true;
  std::vector<unsigned char> pad(out_total_bytes_ - out_valid_bytes_);
  if (hipMemcpy(pad.data(), static_cast<char*>(out_dev_) + out_valid_bytes_, pad.size(), hipMemcpyDeviceToHost) !=
      hipSuccess)
    return false;
  for (unsigned char c : pad)
    if (c != kPaddingSentinel) return false;  // the sentinel written at upload
  return true;
}

RunOutcome run_on_device(Runtime* rt, testing::Problem& prob, const RunSpec& s) {
  RunOutcome r;
  prob.poison_output();
  DeviceProblem dp(prob, s.pad_rows);
  if (!dp.error().empty()) { r.error = dp.error(); return r; }
  Status st;
  void* ws = s.workspace;
  size_t ws_bytes = s.workspace_bytes;
  bool own_ws = false;
  uattn_options_t copt{(int32_t)s.opt.path, s.opt.filter.empty() ? nullptr : s.opt.filter.c_str(), s.opt.num_segments};
  AttentionArgs args = dp.args();
  uattn_args_t cargs = dp.c_args();
  void* status = nullptr;
  std::shared_ptr<void> status_guard;  // frees the status buffer on every return
  if (s.checked) {
    const hipError_t e = hipMalloc(&status, kIndexStatusBytes);
    if (e != hipSuccess) { r.error = hip_text("hipMalloc(index_status)", e); return r; }
    status_guard.reset(status, [](void* p) { (void)hipFree(p); });
    (void)hipMemset(status, 0xA5, kIndexStatusBytes);  // the check kernel must write every word
    args.index_status = cargs.index_status = static_cast<uint32_t*>(status);
  }
  if (s.host_copies) {
    args.cu_seqlens_q_host = cargs.cu_seqlens_q_host = static_cast<const int32_t*>(prob.cu_seqlens_q.ptr);
    args.seqused_k_host = cargs.seqused_k_host = static_cast<const int32_t*>(prob.seqused_k.ptr);
    args.block_table_host = cargs.block_table_host = static_cast<const int32_t*>(prob.block_table.ptr);
  }
  if (!ws) {
    if (s.c_api) {
      const uattn_status_t c = uattn_workspace_size(s.c_runtime, &cargs, &copt, &ws_bytes);
      st = Status{(int)c, uattn_last_error_message()};
    } else {
      st = rt->workspace_size(args, &ws_bytes, s.opt);
    }
    if (!st.ok()) { r.error = "workspace_size: " + st.message; return r; }
    if (ws_bytes) {
      const hipError_t e = hipMalloc(&ws, ws_bytes);
      if (e != hipSuccess) { r.error = hip_text("hipMalloc(workspace)", e); return r; }
      own_ws = true;
    }
  }
  if (rt) (void)rt->plan(args, &r.sel, s.opt);
  if (s.c_api) {
    const uattn_status_t c = uattn_run(s.c_runtime, &cargs, ws, ws_bytes, s.stream, &copt);
    st = Status{(int)c, uattn_last_error_message()};
  } else {
    st = rt->run(args, ws, ws_bytes, s.stream, s.opt);
  }
  hipError_t e = hipStreamSynchronize(s.stream);
  if (own_ws) (void)hipFree(ws);
  if (!st.ok()) { r.error = "run: " + st.message; return r; }
  if (e != hipSuccess) { r.error = hip_text("hipStreamSynchronize after run", e); return r; }
  if (!dp.download()) { r.error = dp.error(); return r; }
  const std::vector<double> ref = prob.reference(s.check_q_heads);
  const exec::Tolerance t = exec::tolerance_for(prob);
  r.cmp = testing::compare_output(prob, ref, t.atol, t.rtol, s.check_q_heads);
  if (!r.cmp.ok) { r.error = "mismatch vs reference: " + r.cmp.first_failure; return r; }
  if (!dp.padding_intact()) { r.error = "the padding rows of out (past cu_seqlens_q[num_seqs]) were written"; return r; }
  r.ok = true;
  return r;
}

}  // namespace uattn::e2e
