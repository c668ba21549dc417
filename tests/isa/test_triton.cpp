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
#include "triton_launch.hpp"
#include "uattn/emu/emu.hpp"
#include "uattn/model/model.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using uattn::DType;
using namespace uattn::triton;

const std::string kDir = UATTN_TRITON_DIR;

struct LaunchStats {
  double seconds = 0;
  uint64_t wave_instructions = 0;
};

// Launches `k` once; failures are reported as test failures (with the emulator's
// error text) and returned as false.
bool launch(const Kernel& k, const uint32_t grid[3], const std::map<std::string, ArgVal>& vals,
            const ValidRanges& valid, const std::string& what, LaunchStats* stats) {
  uattn::emu::LaunchRequest rq;
  const std::string err = make_request(k, grid, vals, valid, &rq);
  if (!err.empty()) {
    ADD_FAILURE() << what << ": " << err;
    return false;
  }
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
    attn = load_kernel(kDir, cfg_ + (is3d_ ? "_attn3d" : "_attn2d"));
    if (is3d_) reduce = load_kernel(kDir, cfg_ + "_reduce");
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
    const uint32_t qb = q_blocks(*run, block_q);
    if (!is3d_) {
      const uint32_t grid[3] = {qb, (uint32_t)c.hkv, 1};
      if (!launch(attn, grid, run->vals, run->valid, what, &stats)) continue;
    } else {
      const std::unique_ptr<Workspace3D> ws = attach_workspace_3d(*run, c, segments);
      const uint32_t grid[3] = {qb, (uint32_t)c.hkv, (uint32_t)segments};
      if (!launch(attn, grid, run->vals, run->valid, what, &stats)) continue;
      // attn3d on its own: its partials combined on the host, then the reduce kernel.
      check_partials(*run, c, tile, segments, ws->out, ws->max, ws->sum, what);
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

// The emulator's dynamic trace (LaunchRequest::trace) of a real launch, checked
// against independent records of the same launch: the per-instruction profile
// (LaunchResult::executed), the instruction counts, the workgroup filter, the
// problem's output layout (every output byte of every valid row stored, nothing
// stored outside out), LDS offsets inside the allocation, and the output of an
// untraced launch (tracing changes nothing).
TEST(trace, matches_profile_and_layout) {
  const std::string cfg = "gfx950_f16_d128_b16_h16x2_bm16";
  if (!fs::exists(kDir + "/" + cfg + "_attn2d.json")) GTEST_SKIP() << "no " << cfg << " at " << kDir;
  const Config c = config_from(cfg, read_json(kDir + "/" + cfg + "_attn2d.json"));
  const Kernel k = load_kernel(kDir, cfg + "_attn2d");
  auto run = prepare(c, kMixed, 11, false, 32, 2);
  uattn::testing::Problem& P = *run->prob;
  const uint32_t grid[3] = {(uint32_t)(P.num_tokens / 2 + P.params.num_seqs), (uint32_t)c.hkv, 1};
  uattn::emu::LaunchRequest rq;
  ASSERT_EQ(make_request(k, grid, run->vals, run->valid, &rq), "");
  const std::string kname = rq.kernel;
  const std::vector<uattn::emu::Instruction> insts = k.co->instructions(kname);

  P.poison_output();
  rq.profile = true;
  const uattn::emu::LaunchResult plain = k.co->launch(rq);
  ASSERT_TRUE(plain.ok) << plain.error;
  auto out_bytes = [&] {
    const uint8_t* b = static_cast<const uint8_t*>(P.out.ptr);
    return std::vector<uint8_t>(b, b + P.out.bytes);
  };
  const std::vector<uint8_t> out_plain = out_bytes();

  P.poison_output();
  std::vector<uattn::emu::GroupTrace> groups;
  rq.profile = false;
  rq.trace = [&](uattn::emu::GroupTrace&& g) { groups.push_back(std::move(g)); };
  const uattn::emu::LaunchResult traced = k.co->launch(rq);
  ASSERT_TRUE(traced.ok) << traced.error;
  EXPECT_TRUE(out_bytes() == out_plain) << "the traced launch wrote a different output";

  // Every workgroup once; every wave; every executed instruction.
  ASSERT_EQ(groups.size(), (size_t)grid[0] * grid[1]);
  std::map<uint64_t, uint64_t> per_addr;
  uint64_t ops = 0, waves = 0;
  const size_t wave_size = 64, block = rq.block;
  std::vector<uint8_t> stored(P.out.bytes, 0);
  const uint64_t out_lo = reinterpret_cast<uintptr_t>(P.out.ptr), out_hi = out_lo + P.out.bytes;
  const uint32_t lds_bytes = rq.dynamic_lds + k.co->kernel(kname)->group_segment_fixed_size;
  size_t lds_accesses = 0;
  for (const auto& g : groups) {
    ASSERT_EQ(g.waves.size(), block / wave_size);
    for (const auto& w : g.waves) {
      ++waves;
      ASSERT_FALSE(w.ops.empty());
      EXPECT_EQ(w.ops.front().lanes, wave_size) << "the first instruction runs with every lane of a full wave";
      for (const auto& op : w.ops) {
        ASSERT_LT(op.inst, insts.size());
        ++per_addr[insts[op.inst].addr];
        ++ops;
        ASSERT_LE(op.mem_begin + op.mem_count, w.mem.size());
        for (uint32_t m = op.mem_begin; m < op.mem_begin + op.mem_count; ++m) {
          const uattn::emu::TraceMem& a = w.mem[m];
          EXPECT_TRUE(insts[op.inst].is_mem) << insts[op.inst].text << " recorded a memory access";
          if (a.space == uattn::emu::Space::kLds) {
            ++lds_accesses;
            EXPECT_LE(a.addr + a.bytes, lds_bytes);
          } else if (a.space == uattn::emu::Space::kGlobal && a.store) {
            ASSERT_TRUE(a.addr >= out_lo && a.addr + a.bytes <= out_hi) << "store outside out: " << insts[op.inst].text;
            for (uint32_t b = 0; b < a.bytes; ++b) stored[a.addr - out_lo + b] = 1;
          }
        }
      }
    }
  }
  EXPECT_EQ(ops, traced.wave_instructions);
  EXPECT_EQ(waves, traced.waves);
  EXPECT_GT(lds_accesses, 0u);
  ASSERT_EQ(per_addr.size(), plain.executed.size());
  for (const auto& e : plain.executed) EXPECT_EQ(per_addr[e.addr], e.waves) << std::hex << e.addr;
  // Every element of every query row stored (out is [tokens, Hq, D], D = head_size).
  const size_t es = 2;
  size_t missing = 0;
  for (int64_t t = 0; t < P.num_tokens; ++t)
    for (int h = 0; h < c.hq; ++h)
      for (int d = 0; d < c.head_size; ++d)
        for (size_t b = 0; b < es; ++b)
          missing += !stored[(size_t)(t * P.params.o_stride_token + h * P.params.o_stride_head + d) * es + b];
  EXPECT_EQ(missing, 0u) << "output bytes the trace shows no store for";

  // The filter: only workgroups with y == 1, still whole.
  groups.clear();
  rq.trace_group = [](uint32_t, uint32_t y, uint32_t) { return y == 1; };
  ASSERT_TRUE(k.co->launch(rq).ok);
  EXPECT_EQ(groups.size(), (size_t)grid[0]);
  for (const auto& g : groups) EXPECT_EQ(g.id[1], 1u);
  std::printf("trace: %llu ops, %zu workgroups; emulation %.3f s untraced (profile), %.3f s traced\n",
              (unsigned long long)ops, (size_t)grid[0] * grid[1], plain.seconds, traced.seconds);
}

// The whole-launch model (tools/model) on a traced Triton launch: occupancy from
// the code object's descriptor equals the one computed from the metadata Triton
// recorded in its JSON (.vgpr_count, the unified VGPR + AGPR total on gfx950,
// against the 512-register file and 8 waves per SIMD of the machine record);
// every workgroup traced gives the same time as tracing one dispatch round and
// taking the rest as alike when the grid is one round; the SIMD-cycle shares sum
// to 1; the HBM bytes are at least the problem's K / V / Q / out bytes touched.
TEST(model, triton_launch) {
  const std::string cfg = "gfx950_f16_d128_b16_h16x2_bm128_t64";
  if (!fs::exists(kDir + "/" + cfg + "_attn2d.json")) GTEST_SKIP() << "no " << cfg << " at " << kDir;
  const Config c = config_from(cfg, read_json(kDir + "/" + cfg + "_attn2d.json"));
  const Kernel k = load_kernel(kDir, cfg + "_attn2d");
  const uattn::model::Machine m = uattn::model::load_machine("gfx950");
  auto run = prepare(c, kLong, 12, true, 64, 16);
  uattn::testing::Problem& P = *run->prob;
  const uint32_t grid[3] = {(uint32_t)(P.num_tokens / 16 + P.params.num_seqs), (uint32_t)c.hkv, 1};
  uattn::emu::LaunchRequest rq;
  ASSERT_EQ(make_request(k, grid, run->vals, run->valid, &rq), "");
  uattn::model::LaunchModel all(m, *k.co, rq);
  all.attach(rq);
  ASSERT_TRUE(k.co->launch(rq).ok);
  const uattn::model::KernelTime t = all.finish();
  const int regs = (k.meta.at("amdhsa_kernel").at(".vgpr_count").get<int>() + 7) / 8 * 8;
  EXPECT_EQ(t.waves_per_simd, std::min(8, 512 / regs));
  EXPECT_EQ(t.groups_per_cu, 4 * t.waves_per_simd / 4);  // 4 SIMDs, 4 waves per workgroup
  EXPECT_EQ(t.traced_groups, t.groups);
  const auto& b = t.simd;
  EXPECT_NEAR(b.issue + b.mfma + b.lds + b.mem_wait + b.dependency + b.barrier + b.idle, 1.0, 1e-9);
  EXPECT_GT(t.us, m.launch_overhead_us);
  EXPECT_GE(t.hbm_bytes, (double)(P.q.bytes + P.out.bytes) * 0.5);
  uattn::model::LaunchModel one(m, *k.co, rq);
  one.attach(rq, 1);  // at most one dispatch round: the whole grid here
  ASSERT_TRUE(k.co->launch(rq).ok);
  const uattn::model::KernelTime t1 = one.finish();
  EXPECT_EQ(t1.traced_groups, t.groups) << t1.sampling;
  EXPECT_DOUBLE_EQ(t1.us, t.us);
  std::printf("model: %s %.2f us (%s-bound, %d waves / SIMD, limit %s), %s\n", cfg.c_str(), t.us, t.bound.c_str(),
              t.waves_per_simd, t.occupancy_limit.c_str(), t.sampling.c_str());

  // Heads sampled: only KV head 0's workgroups run (the other head's output
  // stays poisoned, head 0's matches the reference), and since every head issues
  // the same instruction stream the CU time is the full trace's.
  ASSERT_EQ(c.hkv, 2);
  P.poison_output();
  uattn::model::LaunchModel half(m, *k.co, rq);
  uattn::model::LaunchModel::Sampling smp;
  smp.heads = 1;
  half.attach(rq, smp);
  const uattn::emu::LaunchResult rh = k.co->launch(rq);
  ASSERT_TRUE(rh.ok) << rh.error;
  EXPECT_EQ(rh.groups_run, (uint64_t)grid[0]);
  const uattn::model::KernelTime th = half.finish();
  EXPECT_EQ(th.traced_groups, (uint64_t)grid[0]) << th.sampling;
  EXPECT_EQ(th.groups, t.groups);
  EXPECT_DOUBLE_EQ(th.cu_cycles, t.cu_cycles) << th.sampling;
  // HBM bytes: head 0's lines times 2, an upper bound (the lines every head
  // reads, block table and sequence lengths, count twice), never below the full trace's.
  EXPECT_GE(th.hbm_bytes, t.hbm_bytes);
  EXPECT_LE(th.hbm_bytes, 2 * t.hbm_bytes);
  const int qpk = c.hq / c.hkv;
  const uattn::exec::Tolerance tol = uattn::exec::tolerance_for(P);
  const auto ch = uattn::testing::compare_output(P, P.reference(qpk), tol.atol, tol.rtol, qpk);
  EXPECT_TRUE(ch.ok) << ch.first_failure;
  EXPECT_EQ(ch.nan_count, 0u);
  const auto all_heads = uattn::testing::compare_output(P, P.reference(), tol.atol, tol.rtol);
  EXPECT_EQ(all_heads.nan_count, (size_t)P.num_tokens * (c.hq - qpk) * c.head_size)
      << "the unsampled head's workgroups ran";
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
