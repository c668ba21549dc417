// Triton's compiled unified-attention kernels (../shared/triton, UATTN_TRITON_DIR)
// in the instruction-level emulator (tools/emu), checked against the fp64
// reference (tests/reference). Label isa.
//
// What runs. Every configuration `<cfg>` of ../shared/triton (one per
// `<cfg>_attn2d.json` there: 30 at the time of writing, gfx950 wave64 and
// gfx1030 wave32) gives two tests:
//   isa.triton.<cfg>.attn2d  `<cfg>_attn2d.hsaco` (kernel_unified_attention,
//                            IS_3D = False) writes out directly;
//   isa.triton.<cfg>.attn3d  `<cfg>_attn3d.hsaco` (IS_3D = True, 16 segments)
//                            writes fp32 partials into NaN-poisoned workspaces;
//                            they are checked on their own (combined on the host
//                            in double, compared with the reference), then
//                            `<cfg>_reduce.hsaco` (reduce_segments) writes out,
//                            which is compared again;
// and isa.triton.inventory.files checks the README's file set (three kernels per
// configuration, each .hsaco + .json + .amdgcn, all in summary.json).
// The code objects are the README's (../shared/triton/README.md): vLLM's
// vllm/v1/attention/ops/triton_unified_attention.py (Apache-2.0, the vLLM
// contributors) compiled by Triton 3.6.0 for hip gfx950 / gfx1030, num_warps 4.
// Nothing of that source is copied here; this file re-states, from the README,
// the JSON next to each code object and vLLM's wrapper `unified_attention`, what
// a host must pass.
//
// Problems (tests/common/problem.hpp). Each code object serves one configuration
// only (num_query_heads, num_queries_per_kv, block size, head size, dtype and the
// feature switches are constexprs); the JSON's `geometry.problem` and constexpr
// arguments give it, and every problem here matches it: Q = K = V = out dtype
// (f16 or bf16), head_pad 0, the token-major cache vLLM uses
// ([num_blocks, block_size, Hkv, head_size], stride_k_cache_3 = 1, a constexpr),
// random non-contiguous block tables, NaN in every cache slot that holds no valid
// token (and in blocks wholly outside the window), q, k, v ~ U(-1, 1). Sets:
//   mixed   (1,37) (5,70) (0,9) (17,17) (3,50)   decode, prefill, a q_len 0
//           sequence, contexts ending mid-block, q blocks past the last query;
//   long    (4,300) (2,100) (40,130) (0,20), K/V as views of one
//           [blocks, 2, ...] allocation: several tiles, several q blocks of
//           BLOCK_Q 16, the window (W = 256 / 128) cutting into the context, a
//           trailing q_len 0 sequence;
//   decode  (0,4) (1,37) (1,300) (1,1) (1,1100): vLLM's 3D case (max_seqlen_q
//           <= 1), a leading q_len 0 sequence; 1100 keys give several tiles per
//           segment at TILE 16 and 64.
// attn2d runs mixed + long; attn3d runs decode + mixed (vLLM's wrapper selects 3D
// for decode batches only; the kernel's 3D path is general in q_len and the
// reduce finds each token's sequence itself, so prefill runs through it too).
//
// Launch (README "Launching them", vLLM's `unified_attention`):
//   workgroup = workgroup_threads (num_warps x wave size), dynamic LDS =
//   shared_bytes (the descriptor's group segment is 0);
//   grid 2D (num_tokens // BLOCK_Q + num_seqs, Hkv, 1), 3D (same, Hkv, 16),
//   reduce (num_tokens, Hq, 1);
//   kernargs: every `kernarg_abi` entry of the JSON (offset, size, Triton
//   parameter), explicit ones only (the emulator fills the hidden ones):
//     segm_* = out in 2D; the workspaces in 3D: segm_output
//     [num_tokens, Hq, 16, HEAD_SIZE_PADDED], segm_max / segm_expsum
//     [num_tokens, Hq, 16], fp32 (the kernels' own index arithmetic);
//     k/v_scale_cache_ptr = the K / V caches and stride_ks_* / stride_vs_* = 0
//     (dead at KV_QUANT_MODE 0, as vLLM passes them); k_scale / v_scale = two
//     1-element fp32 tensors holding 1; out_scale / out_scale_inv = 1 (USE_FP8 off);
//     softcap as given (0 when off); SLIDING_WINDOW = W (vLLM: window_size =
//     (W-1, 0) -> 1 + (W-1)) is compiled in and checked against the problem;
//     qq_bias_stride_0 = its row stride (0 when off); the two trailing scratch
//     pointers Triton appends are null.
// Triton specialised every pointer and every i64 argument on divisibility by 16
// (`tt.divisibility`) and no problem integer became a constexpr except
// stride_k/v_cache_3 = 1: the test checks both (pointers 16-byte aligned, ints
// multiples of 16) before each launch. Two inputs are laid out the way vLLM's
// tensors are rather than the builder's minimal ones, because the kernel reads
// past what the reference needs: the block table gets a row stride rounded up to
// 16 that also covers the entries the unmasked per-tile block-table load reads
// past the last used block (up to the tile-rounded length; extra entries are
// garbage ids, as the builder's are); qq_bias gets rows up to the q block
// rounding (rows whose queries do not exist, read unmasked; filled with NaN, so
// they may only reach masked rows). The reference reads the same copies.
//
// Checks. Every global access must fall inside the problem's buffers or the
// test's own (the emulator's `valid` callback); out and the workspaces are NaN
// before the launches; out is compared at every valid (token, head, d) with
// uattn::exec::tolerance_for(prob) (tests/exec/run.hpp: f16 3e-3 / 3e-3, bf16
// 1.5e-2 / 1e-2, atol x max(1, |V|max)). Emulation times are printed per launch.
// Without ../shared/triton every test is skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "problem.hpp"
#include "run.hpp"
#include "uattn/emu/emu.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using uattn::DType;

const std::string kDir = UATTN_TRITON_DIR;

// ---------------------------------------------------------------------------
// Host buffers the test adds (workspaces, the re-laid-out block table, ...):
// 64-byte aligned, registered as valid global memory.

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

void fill_f32_nan(const HostBuf& b) {
  const uint32_t nan = 0x7FC00000u;
  for (size_t i = 0; i < b.bytes / 4; ++i) std::memcpy(b.as<char>() + 4 * i, &nan, 4);
}

// Valid global memory (emu::RangeSet): the non-empty buffers a launch may touch.
struct ValidRanges {
  uattn::emu::RangeSet set;
  void add(const void* p, size_t bytes) {
    if (p && bytes) set.add(reinterpret_cast<uintptr_t>(p), bytes);
  }
};

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

struct Kernel {
  std::string base;  // file base
  json meta;
  std::shared_ptr<uattn::emu::CodeObject> co;
};

Kernel load_kernel(const std::string& base) {
  Kernel k;
  k.base = base;
  k.meta = read_json(kDir + "/" + base + ".json");
  k.co = uattn::emu::CodeObject::load_file(kDir + "/" + base + ".hsaco");
  return k;
}

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

struct ArgVal {
  enum Kind { kPtr, kI64, kI32, kF32 } kind = kPtr;
  uint64_t bits = 0;
};
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

struct LaunchStats {
  double seconds = 0;
  uint64_t wave_instructions = 0;
};

// Launches `k` once; failures are reported as test failures (with the emulator's
// error text) and returned as false.
bool launch(const Kernel& k, const uint32_t grid[3], const std::map<std::string, ArgVal>& vals,
            const ValidRanges& valid, const std::string& what, LaunchStats* stats) {
  uattn::emu::LaunchRequest rq;
  rq.kernel = k.meta.at("kernel_name").get<std::string>();
  for (int i = 0; i < 3; ++i) rq.grid[i] = grid[i];
  rq.block = k.meta.at("workgroup_threads").get<uint32_t>();
  rq.dynamic_lds = k.meta.at("shared_bytes").get<uint32_t>();
  const std::string err = build_kernarg(k, vals, &rq.kernarg);
  if (!err.empty()) {
    ADD_FAILURE() << what << ": " << err;
    return false;
  }
  rq.valid = valid.set.callback();
  const uattn::emu::LaunchResult r = k.co->launch(rq);
  stats->seconds += r.seconds;
  stats->wave_instructions += r.wave_instructions;
  std::printf("  %-52s grid %ux%ux%u  %10llu wave instr  %7.2f s  %zu warnings\n", k.base.c_str(), grid[0], grid[1],
              grid[2], (unsigned long long)r.wave_instructions, r.seconds, r.warnings.size());
  for (size_t i = 0; i < r.warnings.size() && i < 1; ++i) std::printf("    warning: %s\n", r.warnings[i].c_str());
  std::fflush(stdout);
  if (!r.ok) {
    ADD_FAILURE() << what << ": " << k.base << " failed in the emulator: " << r.error;
    return false;
  }
  return true;
}

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

int round_up(int64_t x, int64_t m) { return (int)((x + m - 1) / m * m); }

// Builds the problem and the argument values vLLM's wrapper would pass.
// `tile`, `block_q`: the largest TILE_SIZE / BLOCK_Q of the kernels it will meet.
std::unique_ptr<ProblemRun> prepare(const Config& c, const std::vector<std::pair<int, int>>& seqs, uint64_t seed,
                                    bool kv_combined, int tile, int block_q) {
  auto run = std::make_unique<ProblemRun>();
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
  s.head_pad = 0;
  s.kv_layout = 0;  // [num_blocks, block_size, Hkv, D]
  s.kv_view_of_combined = kv_combined;
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

// The constexprs a launch relies on, checked against the configuration.
void expect_kernel_matches(const Kernel& k, const Config& c, bool is3d) {
  const json& m = k.meta;
  EXPECT_EQ(m.at("arch").get<std::string>(), c.arch) << k.base;
  EXPECT_EQ(constexpr_value(m, "num_query_heads").get<int>(), c.hq) << k.base;
  EXPECT_EQ(constexpr_value(m, "HEAD_SIZE").get<int>(), c.head_size) << k.base;
  EXPECT_EQ(constexpr_value(m, "HEAD_SIZE_PADDED").get<int>(), c.head_size_padded) << k.base;
  EXPECT_FALSE(constexpr_value(m, "USE_FP8").get<bool>()) << k.base;
  if (m.at("kernel_name") == "reduce_segments") return;
  EXPECT_EQ(constexpr_value(m, "IS_3D").get<bool>(), is3d) << k.base;
  EXPECT_EQ(constexpr_value(m, "KV_QUANT_MODE").get<int>(), 0) << k.base;
  EXPECT_EQ(constexpr_value(m, "BLOCK_SIZE").get<int>(), c.block_size) << k.base;
  EXPECT_EQ(constexpr_value(m, "SLIDING_WINDOW").get<int>(), c.window) << k.base;
  EXPECT_EQ(constexpr_value(m, "stride_k_cache_3").get<int>(), 1) << k.base;
  EXPECT_EQ(constexpr_value(m, "stride_v_cache_3").get<int>(), 1) << k.base;
  EXPECT_FALSE(constexpr_value(m, "USE_MM_PREFIX").get<bool>()) << k.base;
  EXPECT_FALSE(constexpr_value(m, "USE_ALIBI_SQRT").get<bool>()) << k.base;
  EXPECT_EQ(constexpr_value(m, "USE_ALIBI_SLOPES").get<bool>(), c.alibi) << k.base;
  EXPECT_EQ(constexpr_value(m, "USE_QQ_BIAS").get<bool>(), c.qq_bias) << k.base;
  EXPECT_EQ(constexpr_value(m, "USE_SINKS").get<bool>(), c.sinks) << k.base;
  EXPECT_EQ(constexpr_value(m, "USE_SOFTCAP").get<bool>(), c.softcap > 0) << k.base;
  const int bm = constexpr_value(m, "BLOCK_M").get<int>(), bq = constexpr_value(m, "BLOCK_Q").get<int>();
  EXPECT_EQ(bq * constexpr_value(m, "num_queries_per_kv").get<int>(), bm) << k.base;
  EXPECT_EQ(constexpr_value(m, "NUM_SEGMENTS_PER_SEQ").get<int>(), is3d ? 16 : 1) << k.base;
}

void compare(const ProblemRun& run, const std::string& what) {
  const uattn::testing::Problem& P = *run.prob;
  const std::vector<double> ref = P.reference();
  const uattn::exec::Tolerance tol = uattn::exec::tolerance_for(P);
  const uattn::testing::CompareResult cr = uattn::testing::compare_output(P, ref, tol.atol, tol.rtol);
  EXPECT_TRUE(cr.ok) << what << ": " << cr.fail_count << " of " << cr.n << " values out of tolerance (atol "
                     << tol.atol << ", rtol " << tol.rtol << "; " << cr.nan_count << " NaN), first: " << cr.first_failure
                     << "; max |diff| " << cr.max_abs;
  std::printf("  -> %s: %zu values, max |diff| %.3g, mean %.3g (atol %.3g rtol %.3g)%s\n", what.c_str(), cr.n,
              cr.max_abs, cr.mean_abs, tol.atol, tol.rtol, cr.ok ? "" : "  FAIL");
  std::fflush(stdout);
}

// The partials of attn3d combined on the host in double (reduce_segments' math:
// a sequence of seq_len keys has tiles_per_segment = cdiv(seq_len, segments x
// TILE) and cdiv(seq_len, tiles_per_segment x TILE) active segments; out =
// sum_i o_i e^(m_i - M) / sum_i l_i e^(m_i - M), M = max_i m_i, 0 when the sum is
// 0), written into out (rounded to its dtype) and compared like the kernel's
// output. Also checks that no inactive segment's partials were written (they
// still hold the NaN poison).
void check_partials(const ProblemRun& run, const Config& c, int tile, int segments, const HostBuf& segm_out,
                    const HostBuf& segm_max, const HostBuf& segm_sum, const std::string& what) {
  uattn::testing::Problem& P = *run.prob;
  const uattn::AttnParams& p = P.params;
  const int hsp = c.head_size_padded, D = c.head_size;
  const float* o = segm_out.as<float>();
  const float* m = segm_max.as<float>();
  const float* l = segm_sum.as<float>();
  std::vector<double> vals((size_t)P.num_tokens * c.hq * D);
  size_t written_inactive = 0;
  for (int s = 0; s < p.num_seqs; ++s) {
    const int64_t seq_len = p.seqused_k[s];
    const int64_t tps = (seq_len + (int64_t)segments * tile - 1) / ((int64_t)segments * tile);
    const int64_t active = tps > 0 ? (seq_len + tps * tile - 1) / (tps * tile) : 0;
    for (int64_t t = p.cu_seqlens_q[s]; t < p.cu_seqlens_q[s + 1]; ++t)
      for (int h = 0; h < c.hq; ++h) {
        const size_t row = ((size_t)t * c.hq + h) * segments;
        double M = -INFINITY;
        bool nan = false;
        for (int i = 0; i < segments; ++i) {
          if (i >= active) {
            uint32_t bits;
            std::memcpy(&bits, &m[row + i], 4);
            bool untouched = bits == 0x7FC00000u;
            std::memcpy(&bits, &l[row + i], 4);
            untouched = untouched && bits == 0x7FC00000u;
            for (int d = 0; d < hsp; ++d) {
              std::memcpy(&bits, &o[(row + i) * hsp + d], 4);
              untouched = untouched && bits == 0x7FC00000u;
            }
            written_inactive += !untouched;
            continue;
          }
          if (std::isnan(m[row + i])) nan = true;
          else M = std::max(M, (double)m[row + i]);
        }
        double sum = 0;
        std::vector<double> acc(D, 0.0);
        for (int i = 0; i < active && !nan; ++i) {
          const double w = std::exp((double)m[row + i] - M);
          sum += (double)l[row + i] * w;
          for (int d = 0; d < D; ++d) acc[d] += (double)o[(row + i) * hsp + d] * w;
        }
        for (int d = 0; d < D; ++d)
          vals[((size_t)t * c.hq + h) * D + d] = nan ? NAN : sum == 0 ? 0.0 : acc[d] / sum;
      }
  }
  EXPECT_EQ(written_inactive, 0u) << what << ": attn3d wrote partials of segments past a sequence's active ones";
  P.write_output(vals);
  compare(run, what + " [attn3d partials, combined on the host]");
}

using Seqs = std::vector<std::pair<int, int>>;
const Seqs kMixed = {{1, 37}, {5, 70}, {0, 9}, {17, 17}, {3, 50}};
const Seqs kLong = {{4, 300}, {2, 100}, {40, 130}, {0, 20}};
const Seqs kDecode = {{0, 4}, {1, 37}, {1, 300}, {1, 1}, {1, 1100}};

class TritonIsa : public ::testing::Test {
 public:
  TritonIsa(std::string cfg, bool is3d) : cfg_(std::move(cfg)), is3d_(is3d) {}
  void TestBody() override;

 private:
  std::string cfg_;
  bool is3d_;
};

void TritonIsa::TestBody() {
  if (!fs::is_directory(kDir)) GTEST_SKIP() << "no Triton code objects at UATTN_TRITON_DIR=" << kDir;
  const auto t0 = std::chrono::steady_clock::now();
  Config c;
  Kernel attn, reduce;
  try {
    c = config_from(cfg_, read_json(kDir + "/" + cfg_ + "_attn2d.json"));
    attn = load_kernel(cfg_ + (is3d_ ? "_attn3d" : "_attn2d"));
    if (is3d_) reduce = load_kernel(cfg_ + "_reduce");
  } catch (const std::exception& e) {
    FAIL() << cfg_ << ": " << e.what();
  }
  ASSERT_NO_FATAL_FAILURE(expect_kernel_matches(attn, c, is3d_));
  if (is3d_) {
    ASSERT_NO_FATAL_FAILURE(expect_kernel_matches(reduce, c, true));
    // The reduce recomputes the segment split: its TILE_SIZE / BLOCK_Q / segments must be attn3d's.
    for (const char* n : {"TILE_SIZE", "BLOCK_Q", "NUM_SEGMENTS_PER_SEQ"})
      ASSERT_EQ(constexpr_value(reduce.meta, n), constexpr_value(attn.meta, n)) << n;
  }
  if (::testing::Test::HasFailure()) return;
  const int tile = constexpr_value(attn.meta, "TILE_SIZE").get<int>();
  const int block_q = constexpr_value(attn.meta, "BLOCK_Q").get<int>();
  const int segments = constexpr_value(attn.meta, "NUM_SEGMENTS_PER_SEQ").get<int>();
  std::printf("%s %s: %s d%d b%d h%d/%d BLOCK_M %d BLOCK_Q %d TILE %d%s%s%s%s%s\n", cfg_.c_str(),
              is3d_ ? "attn3d" : "attn2d", c.dtype == DType::f16 ? "f16" : "bf16", c.head_size, c.block_size, c.hq,
              c.hkv, constexpr_value(attn.meta, "BLOCK_M").get<int>(), block_q, tile,
              c.window ? (" window " + std::to_string(c.window)).c_str() : "",
              c.softcap > 0 ? " softcap" : "", c.alibi ? " alibi" : "", c.qq_bias ? " qq_bias" : "",
              c.sinks ? " sinks" : "");

  struct Case { const Seqs* seqs; uint64_t seed; bool kv_combined; const char* name; };
  std::vector<Case> cases;
  if (is3d_) cases = {{&kDecode, 13, true, "decode"}, {&kMixed, 11, false, "mixed"}};
  else cases = {{&kMixed, 11, false, "mixed"}, {&kLong, 12, true, "long"}};

  LaunchStats stats;
  for (const Case& cs : cases) {
    std::unique_ptr<ProblemRun> run;
    try {
      run = prepare(c, *cs.seqs, cs.seed, cs.kv_combined, tile, block_q);
    } catch (const std::exception& e) {
      ADD_FAILURE() << cs.name << ": " << e.what();
      continue;
    }
    uattn::testing::Problem& P = *run->prob;
    const std::string what = std::string(cs.name) + " " + uattn::testing::describe(P.spec);
    std::printf(" %s\n", what.c_str());
    P.poison_output();
    const uint32_t q_blocks = (uint32_t)(P.num_tokens / block_q + P.params.num_seqs);
    if (!is3d_) {
      const uint32_t grid[3] = {q_blocks, (uint32_t)c.hkv, 1};
      if (!launch(attn, grid, run->vals, run->valid, what, &stats)) continue;
    } else {
      const size_t rows = (size_t)P.num_tokens * c.hq * segments;
      HostBuf segm_out(sizeof(float) * rows * c.head_size_padded), segm_max(sizeof(float) * rows),
          segm_sum(sizeof(float) * rows);
      for (const HostBuf* b : {&segm_out, &segm_max, &segm_sum}) {
        fill_f32_nan(*b);
        run->valid.add(b->ptr, b->bytes);
      }
      run->vals["segm_output_ptr"] = ptr(segm_out.ptr);
      run->vals["segm_max_ptr"] = ptr(segm_max.ptr);
      run->vals["segm_expsum_ptr"] = ptr(segm_sum.ptr);
      const uint32_t grid[3] = {q_blocks, (uint32_t)c.hkv, (uint32_t)segments};
      if (!launch(attn, grid, run->vals, run->valid, what, &stats)) continue;
      // attn3d on its own: its partials combined on the host, then the reduce kernel.
      check_partials(*run, c, tile, segments, segm_out, segm_max, segm_sum, what);
      P.poison_output();
      const uint32_t rgrid[3] = {(uint32_t)P.num_tokens, (uint32_t)c.hq, 1};
      if (!launch(reduce, rgrid, run->vals, run->valid, what, &stats)) continue;
    }
    compare(*run, what);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s %s: emulation %.2f s (%llu wave instructions), test %.2f s\n", cfg_.c_str(),
              is3d_ ? "attn3d" : "attn2d", stats.seconds, (unsigned long long)stats.wave_instructions, wall);
  RecordProperty("emulation_seconds", std::to_string(stats.seconds));
  RecordProperty("wave_instructions", std::to_string(stats.wave_instructions));
}

// The README's file set: every configuration has its three kernels, each with
// code object, assembly and JSON, and summary.json lists them all.
TEST(inventory, files) {
  if (!fs::is_directory(kDir)) GTEST_SKIP() << "no Triton code objects at UATTN_TRITON_DIR=" << kDir;
  std::set<std::string> listed;
  const json summary = read_json(kDir + "/summary.json");
  for (const json& row : summary) listed.insert(row.at(0).get<std::string>());
  int configs = 0;
  for (const auto& e : fs::directory_iterator(kDir)) {
    const std::string f = e.path().filename().string();
    const std::string suffix = "_attn2d.json";
    if (f.size() <= suffix.size() || f.compare(f.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    ++configs;
    const std::string cfg = f.substr(0, f.size() - suffix.size());
    for (const char* k : {"_attn2d", "_attn3d", "_reduce"}) {
      for (const char* ext : {".hsaco", ".json", ".amdgcn"})
        EXPECT_TRUE(fs::exists(kDir + "/" + cfg + k + ext)) << cfg + k + ext;
      EXPECT_TRUE(listed.count(cfg + k)) << cfg + k << " not in summary.json";
    }
  }
  EXPECT_EQ((size_t)configs * 3, listed.size()) << "summary.json rows vs configurations";
  EXPECT_GT(configs, 0);
}

// One test per configuration and path, named isa.triton.<cfg>.attn2d / .attn3d.
void register_tests() {
  std::vector<std::string> cfgs;
  std::error_code ec;
  if (fs::is_directory(kDir, ec))
    for (const auto& e : fs::directory_iterator(kDir, ec)) {
      const std::string f = e.path().filename().string();
      const std::string suffix = "_attn2d.json";
      if (f.size() > suffix.size() && f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
        cfgs.push_back(f.substr(0, f.size() - suffix.size()));
    }
  std::sort(cfgs.begin(), cfgs.end());
  for (const std::string& cfg : cfgs)
    for (bool is3d : {false, true})
      ::testing::RegisterTest(cfg.c_str(), is3d ? "attn3d" : "attn2d", nullptr, nullptr, __FILE__, __LINE__,
                              [cfg, is3d]() -> TritonIsa* { return new TritonIsa(cfg, is3d); });
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  register_tests();
  return RUN_ALL_TESTS();
}
