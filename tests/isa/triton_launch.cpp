// Launching Triton's compiled unified-attention kernels in the emulator (triton_launch.hpp).
#include "triton_launch.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

namespace uattn::triton {

using uattn::DType;

// ---------------------------------------------------------------------------
// Host buffers the test adds (workspaces, the re-laid-out block table, ...):
// 64-byte aligned, registered as valid global memory.


void fill_f32_nan(const HostBuf& b) {
  const uint32_t nan = 0x7FC00000u;
  for (size_t i = 0; i < b.bytes / 4; ++i) std::memcpy(b.as<char>() + 4 * i, &nan, 4);
}


// ---------------------------------------------------------------------------
// The JSON beside each code object.

json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return json::parse(in);
}

const json* find_arg(const json& meta, const std::string& name) {
  for (const json& a : meta.at("arguments"))
    if (a.at("name") == name) return &a;
  return nullptr;
}

// The compiled-in value of constexpr parameter `name` (throws when it is not one).
json constexpr_value(const json& meta, const std::string& name) {
  const json* a = find_arg(meta, name);
  if (!a || a->at("type") != "constexpr")
    throw std::runtime_error(meta.value("file_base", "?") + ": " + name + " is not a constexpr argument");
  return a->at("constexpr_value");
}

bool divisible_by_16(const json& arg) {
  if (!arg.contains("attrs")) return false;
  for (const json& at : arg.at("attrs"))
    if (at.at(0) == "tt.divisibility" && at.at(1).get<int>() % 16 == 0) return true;
  return false;
}


Kernel load_kernel(const std::string& dir, const std::string& base) {
  Kernel k;
  k.base = base;
  k.meta = read_json(dir + "/" + base + ".json");
  k.co = uattn::emu::CodeObject::load_file(dir + "/" + base + ".hsaco");
  return k;
}


Config config_from(const std::string& name, const json& m2d) {
  Config c;
  c.name = name;
  c.arch = m2d.at("arch");
  const json& prob = m2d.at("geometry").at("problem");
  const std::string dt = prob.at("dtype");
  if (dt == "torch.float16") c.dtype = DType::f16;
  else if (dt == "torch.bfloat16") c.dtype = DType::bf16;
  else throw std::runtime_error(name + ": dtype " + dt + " is not f16 / bf16");
  c.head_size = constexpr_value(m2d, "HEAD_SIZE").get<int>();
  c.head_size_padded = constexpr_value(m2d, "HEAD_SIZE_PADDED").get<int>();
  c.block_size = constexpr_value(m2d, "BLOCK_SIZE").get<int>();
  c.hq = constexpr_value(m2d, "num_query_heads").get<int>();
  c.hkv = c.hq / constexpr_value(m2d, "num_queries_per_kv").get<int>();
  c.window = constexpr_value(m2d, "SLIDING_WINDOW").get<int>();
  c.alibi = constexpr_value(m2d, "USE_ALIBI_SLOPES").get<bool>();
  c.qq_bias = constexpr_value(m2d, "USE_QQ_BIAS").get<bool>();
  c.sinks = constexpr_value(m2d, "USE_SINKS").get<bool>();
  if (constexpr_value(m2d, "USE_SOFTCAP").get<bool>()) {
    c.softcap = prob.value("softcap", 0.0f);
    if (!(c.softcap > 0)) throw std::runtime_error(name + ": USE_SOFTCAP without a softcap value in geometry.problem");
  }
  if (c.qq_bias) {
    if (!prob.contains("qq_bias_stride_0") || !prob.at("qq_bias_stride_0").is_number())
      throw std::runtime_error(name + ": USE_QQ_BIAS without geometry.problem.qq_bias_stride_0");
    c.qq_bias_stride = prob.at("qq_bias_stride_0").get<int>();
  }
  // The geometry's own record of the problem must agree with the constexprs.
  if (prob.at("head_size").get<int>() != c.head_size || prob.at("block_size").get<int>() != c.block_size ||
      prob.at("num_query_heads").get<int>() != c.hq || prob.at("num_kv_heads").get<int>() != c.hkv ||
      prob.value("window", 0) != c.window)
    throw std::runtime_error(name + ": geometry.problem disagrees with the constexpr arguments");
  return c;
}

// ---------------------------------------------------------------------------
// Kernel arguments.

ArgVal ptr(const void* p) { return {ArgVal::kPtr, (uint64_t)reinterpret_cast<uintptr_t>(p)}; }
ArgVal i64(int64_t v) { return {ArgVal::kI64, (uint64_t)v}; }
ArgVal i32(int32_t v) { return {ArgVal::kI32, (uint64_t)(uint32_t)v}; }
ArgVal f32(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return {ArgVal::kF32, b};
}

// The explicit kernarg bytes of `k` from its kernarg_abi; every Triton parameter
// in it must be in `vals`. Checks the value against the parameter's type and its
// tt.divisibility specialisation. Errors are returned as text ("" = fine).
std::string build_kernarg(const Kernel& k, const std::map<std::string, ArgVal>& vals, std::vector<uint8_t>* out) {
  const json& abi = k.meta.at("kernarg_abi");
  size_t end = 0;
  for (const json& e : abi) end = std::max<size_t>(end, e.at("offset").get<size_t>() + e.at("size").get<size_t>());
  out->assign(end, 0);
  std::set<std::string> used;
  for (const json& e : abi) {
    const size_t off = e.at("offset").get<size_t>(), size = e.at("size").get<size_t>();
    const std::string param = e.value("triton_param", "");
    if (param.rfind("(added by Triton", 0) == 0) {  // global / profile scratch: size 0 here, null
      if (size != 8) return k.base + ": Triton scratch pointer of " + std::to_string(size) + " bytes";
      continue;
    }
    auto it = vals.find(param);
    if (it == vals.end()) return k.base + ": no value for kernel argument '" + param + "'";
    used.insert(param);
    const std::string type = e.value("triton_type", "");
    const ArgVal v = it->second;
    const bool ok_type = (type[0] == '*' && v.kind == ArgVal::kPtr && size == 8) ||
                         (type == "i64" && v.kind == ArgVal::kI64 && size == 8) ||
                         (type == "i32" && v.kind == ArgVal::kI32 && size == 4) ||
                         (type == "fp32" && v.kind == ArgVal::kF32 && size == 4);
    if (!ok_type) return k.base + ": argument '" + param + "' has type " + type + " / " + std::to_string(size) + " bytes";
    const json* a = find_arg(k.meta, param);
    if (!a) return k.base + ": '" + param + "' is in kernarg_abi but not in arguments";
    if (divisible_by_16(*a) && v.bits % 16 != 0)
      return k.base + ": '" + param + "' = " + std::to_string((int64_t)v.bits) +
             " breaks the tt.divisibility 16 the code object was specialised on";
    if (off + size > out->size()) return k.base + ": kernarg_abi entry past the end";
    std::memcpy(out->data() + off, &v.bits, size);  // little endian: the low `size` bytes
  }
  // Every non-constexpr Triton parameter must have been passed.
  for (const json& a : k.meta.at("arguments"))
    if (a.value("in_kernel_abi", false) && !used.count(a.at("name").get<std::string>()))
      return k.base + ": argument '" + a.at("name").get<std::string>() + "' is not in kernarg_abi";
  // The emulator wants exactly the explicit part of the metadata's .args.
  const uattn::emu::KernelDesc* d = k.co->kernel(k.meta.at("kernel_name").get<std::string>());
  if (!d) return k.base + ": kernel " + k.meta.at("kernel_name").get<std::string>() + " not in the code object";
  size_t explicit_end = 0;
  for (const auto& a : d->args)
    if (a.value_kind.rfind("hidden_", 0) != 0) explicit_end = std::max<size_t>(explicit_end, a.offset + a.size);
  if (explicit_end != end)
    return k.base + ": kernarg_abi ends at " + std::to_string(end) + ", the code object's explicit .args at " +
           std::to_string(explicit_end);
  return "";
}


static int round_up(int64_t x, int64_t m) { return (int)((x + m - 1) / m * m); }

std::unique_ptr<ProblemRun> prepare(const Config& c, const std::vector<std::pair<int, int>>& seqs, uint64_t seed,
                                    bool kv_combined, int tile, int block_q) {
  uattn::testing::ProblemSpec s;
  s.q_dtype = s.kv_dtype = s.out_dtype = c.dtype;
  s.head_size = c.head_size;
  s.block_size = c.block_size;
  s.num_q_heads = c.hq;
  s.num_kv_heads = c.hkv;
  s.seqs = seqs;
  s.window = c.window;
  s.softcap = c.softcap;
  s.alibi = c.alibi;
  s.qq_bias = c.qq_bias;
  s.qq_bias_stride = c.qq_bias_stride;
  s.sinks = c.sinks;
  s.seed = seed;
  s.kv_view_of_combined = kv_combined;
  return prepare(c, s, tile, block_q);
}

std::unique_ptr<ProblemRun> prepare(const Config& c, uattn::testing::ProblemSpec s, int tile, int block_q) {
  auto run = std::make_unique<ProblemRun>();
  s.head_pad = 0;
  s.kv_layout = 0;  // [num_blocks, block_size, Hkv, D]
  run->prob = uattn::testing::make_problem(s);
  uattn::testing::Problem& P = *run->prob;
  uattn::AttnParams& p = P.params;

  // Block table: vLLM's [num_seqs, max_blocks] with a stride divisible by 16 and
  // room for the unmasked block-table load of the last tile (up to the length
  // rounded up to TILE_SIZE).
  int64_t need = p.block_table_stride;
  for (int i = 0; i < p.num_seqs; ++i)
    need = std::max<int64_t>(need, (round_up(p.seqused_k[i], tile) + c.block_size - 1) / c.block_size);
  const int64_t bt_stride = round_up(need, 16);
  run->block_table = HostBuf(sizeof(int32_t) * (size_t)std::max(1, p.num_seqs) * bt_stride);
  int32_t* bt = run->block_table.as<int32_t>();
  for (int i = 0; i < p.num_seqs; ++i)
    for (int64_t b = 0; b < bt_stride; ++b)
      bt[i * bt_stride + b] = b < p.block_table_stride ? p.block_table[i * p.block_table_stride + b]
                                                       : ((b & 1) ? -1 : 0x7fffffff);  // garbage, as the builder's
  p.block_table = bt;
  p.block_table_stride = bt_stride;

  // qq_bias: [rows, stride] with rows covering every query position of a q block.
  if (c.qq_bias) {
    const int rows = P.max_seqlen_q > 0 ? P.max_seqlen_q : 1;
    const int rows_padded = round_up(rows, block_q);
    run->qq_bias = HostBuf(sizeof(float) * (size_t)rows_padded * p.qq_bias_stride);
    fill_f32_nan(run->qq_bias);
    std::memcpy(run->qq_bias.ptr, p.qq_bias, sizeof(float) * (size_t)rows * p.qq_bias_stride);
    p.qq_bias = run->qq_bias.as<float>();
  }

  run->k_scale = HostBuf(4);
  run->v_scale = HostBuf(4);
  *run->k_scale.as<float>() = 1.0f;
  *run->v_scale.as<float>() = 1.0f;

  // Valid memory: the problem's buffers, the test's own.
  for (const uattn::testing::Buffer* b : {&P.q, &P.k_cache, &P.v_cache, &P.kv_cache, &P.out, &P.cu_seqlens_q,
                                          &P.seqused_k, &P.block_table, &P.alibi_slopes, &P.qq_bias, &P.sinks})
    run->valid.add(b->ptr, b->bytes);
  run->valid.add(run->block_table.ptr, run->block_table.bytes);
  run->valid.add(run->qq_bias.ptr, run->qq_bias.bytes);
  run->valid.add(run->k_scale.ptr, 4);
  run->valid.add(run->v_scale.ptr, 4);

  auto& v = run->vals;
  v["output_ptr"] = ptr(p.out);
  v["segm_output_ptr"] = v["segm_max_ptr"] = v["segm_expsum_ptr"] = ptr(p.out);  // 2D: out (vLLM)
  v["query_ptr"] = ptr(p.q);
  v["key_cache_ptr"] = ptr(p.k_cache);
  v["value_cache_ptr"] = ptr(p.v_cache);
  v["sink_ptr"] = ptr(p.sinks);
  v["block_tables_ptr"] = ptr(p.block_table);
  v["seq_lens_ptr"] = ptr(p.seqused_k);
  v["alibi_slopes_ptr"] = ptr(p.alibi_slopes);
  v["qq_bias_ptr"] = ptr(p.qq_bias);
  v["k_scale_cache_ptr"] = ptr(p.k_cache);  // dead at KV_QUANT_MODE 0
  v["v_scale_cache_ptr"] = ptr(p.v_cache);
  v["scale"] = f32(p.softmax_scale);
  v["k_scale"] = ptr(run->k_scale.ptr);
  v["v_scale"] = ptr(run->v_scale.ptr);
  v["out_scale"] = f32(1.0f);
  v["softcap"] = f32(p.softcap);
  v["block_table_stride"] = i64(p.block_table_stride);
  v["query_stride_0"] = i64(p.q_stride_token);
  v["query_stride_1"] = i64(p.q_stride_head);
  v["output_stride_0"] = i64(p.o_stride_token);
  v["output_stride_1"] = i64(p.o_stride_head);
  v["qq_bias_stride_0"] = i64(c.qq_bias ? p.qq_bias_stride : 0);
  v["stride_k_cache_0"] = i64(p.k_stride_block);
  v["stride_k_cache_1"] = i64(p.k_stride_slot);
  v["stride_k_cache_2"] = i64(p.k_stride_head);
  v["stride_v_cache_0"] = i64(p.v_stride_block);
  v["stride_v_cache_1"] = i64(p.v_stride_slot);
  v["stride_v_cache_2"] = i64(p.v_stride_head);
  for (const char* n : {"stride_ks_blk", "stride_ks_slot", "stride_ks_head", "stride_vs_blk", "stride_vs_slot",
                        "stride_vs_head"})
    v[n] = i64(0);
  v["query_start_len_ptr"] = ptr(p.cu_seqlens_q);
  v["num_seqs"] = i32(p.num_seqs);
  v["out_scale_inv"] = f32(1.0f);  // reduce_segments
  return run;
}

std::string make_request(const Kernel& k, const uint32_t grid[3], const std::map<std::string, ArgVal>& vals,
                         const ValidRanges& valid, uattn::emu::LaunchRequest* rq) {
  rq->kernel = k.meta.at("kernel_name").get<std::string>();
  for (int i = 0; i < 3; ++i) rq->grid[i] = grid[i];
  rq->block = k.meta.at("workgroup_threads").get<uint32_t>();
  rq->dynamic_lds = k.meta.at("shared_bytes").get<uint32_t>();
  rq->valid = valid.set.callback();
  return build_kernarg(k, vals, &rq->kernarg);
}

bool wrapper_uses_3d(const uattn::testing::ProblemSpec& s) {
  int max_q = 0;
  for (auto [q, k] : s.seqs) max_q = std::max(max_q, q);
  return max_q <= 1;
}

std::string find_config(const std::string& dir, const std::string& arch, const uattn::testing::ProblemSpec& s) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "";
  const std::string suffix = "_attn2d.json";
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string f = e.path().filename().string();
    if (f.size() <= suffix.size() || f.compare(f.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string cfg = f.substr(0, f.size() - suffix.size());
    Config c;
    try {
      c = config_from(cfg, read_json(e.path().string()));
    } catch (const std::exception&) {
      continue;
    }
    if (c.arch != arch || c.dtype != s.q_dtype || s.kv_dtype != s.q_dtype || s.out_dtype != s.q_dtype ||
        c.head_size != s.head_size || c.block_size != s.block_size || c.hq != s.num_q_heads ||
        c.hkv != s.num_kv_heads || c.window != s.window || c.alibi != s.alibi || c.qq_bias != s.qq_bias ||
        c.sinks != s.sinks || std::fabs(c.softcap - s.softcap) > 1e-6f ||
        (c.qq_bias && c.qq_bias_stride != s.qq_bias_stride))
      continue;
    found.push_back(cfg);
  }
  std::sort(found.begin(), found.end());
  for (const char* g : {"_bm16", "_bm128_t64"})
    for (const std::string& f : found)
      if (f.size() >= strlen(g) && f.compare(f.size() - strlen(g), strlen(g), g) == 0) return f;
  return found.empty() ? "" : found.front();
}

uint32_t q_blocks(const ProblemRun& run, int block_q) {
  return (uint32_t)(run.prob->num_tokens / block_q + run.prob->params.num_seqs);
}

std::unique_ptr<Workspace3D> attach_workspace_3d(ProblemRun& run, const Config& c, int segments) {
  const size_t rows = (size_t)run.prob->num_tokens * c.hq * segments;
  auto ws = std::make_unique<Workspace3D>();
  ws->out = HostBuf(sizeof(float) * rows * c.head_size_padded);
  ws->max = HostBuf(sizeof(float) * rows);
  ws->sum = HostBuf(sizeof(float) * rows);
  for (const HostBuf* b : {&ws->out, &ws->max, &ws->sum}) {
    fill_f32_nan(*b);
    run.valid.add(b->ptr, b->bytes);
  }
  run.vals["segm_output_ptr"] = ptr(ws->out.ptr);
  run.vals["segm_max_ptr"] = ptr(ws->max.ptr);
  run.vals["segm_expsum_ptr"] = ptr(ws->sum.ptr);
  return ws;
}

std::string run_path(const std::string& dir, const Config& c, bool is3d, ProblemRun& run,
                     const std::function<void(const Kernel&, uattn::emu::LaunchRequest&)>& adjust, PathRun* out) {
  const Kernel attn = load_kernel(dir, c.name + (is3d ? "_attn3d" : "_attn2d"));
  const int block_q = constexpr_value(attn.meta, "BLOCK_Q").get<int>();
  const int segments = constexpr_value(attn.meta, "NUM_SEGMENTS_PER_SEQ").get<int>();
  uattn::testing::Problem& P = *run.prob;
  const uint32_t qb = q_blocks(run, block_q);
  auto go = [&](const Kernel& k, const uint32_t grid[3]) -> std::string {
    uattn::emu::LaunchRequest rq;
    if (std::string e = make_request(k, grid, run.vals, run.valid, &rq); !e.empty()) return e;
    if (adjust) adjust(k, rq);
    out->launches.emplace_back(k.base, k.co->launch(rq));
    const uattn::emu::LaunchResult& r = out->launches.back().second;
    return r.ok ? "" : k.base + " failed in the emulator: " + r.error;
  };
  if (!is3d) {
    const uint32_t grid[3] = {qb, (uint32_t)c.hkv, 1};
    return go(attn, grid);
  }
  const Kernel reduce = load_kernel(dir, c.name + "_reduce");
  const ValidRanges saved_valid = run.valid;
  std::map<std::string, ArgVal> saved = run.vals;
  const std::unique_ptr<Workspace3D> ws = attach_workspace_3d(run, c, segments);
  const uint32_t grid[3] = {qb, (uint32_t)c.hkv, (uint32_t)segments};
  std::string err = go(attn, grid);
  if (err.empty()) {
    const uint32_t rgrid[3] = {(uint32_t)P.num_tokens, (uint32_t)c.hq, 1};
    err = go(reduce, rgrid);
  }
  run.vals = std::move(saved);
  run.valid = saved_valid;
  return err;
}

}  // namespace uattn::triton
