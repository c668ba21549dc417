// Edge rules of the contract (SPEC.md s.1) through the real path on both
// architectures: caches whose element offsets exceed 2^31 (and byte offsets
// 2^32), unusual qpk (48, 71), block_size 1 and 784, num_seqs 0, fp8 output, and
// the RDNA2 seed kernel's windows 1/17/100 at block sizes 13/16/784; fp8 KV
// codes near +-448, whose error bound scales with the magnitude of V.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "reference.hpp"  // tests/reference
#include "run.hpp"
#include "uattn/kernel/work_order.hpp"

using namespace uattn;

namespace {

std::vector<Arch> archs() {
  std::vector<Arch> a;
  for (const InstanceRow& r : all_rows())
    if (std::find(a.begin(), a.end(), r.arch) == a.end()) a.push_back(r.arch);
  return a;
}

uattn::testing::ProblemSpec base() {
  uattn::testing::ProblemSpec s{};
  s.head_size = 64;
  s.block_size = 16;
  s.num_q_heads = 4;
  s.num_kv_heads = 1;
  s.seqs = {{3, 50}, {1, 37}};
  return s;
}

// base() at d128 with 2 KV heads of 8 query heads each.
uattn::testing::ProblemSpec d128_qpk8() {
  uattn::testing::ProblemSpec s = base();
  s.head_size = 128;
  s.num_kv_heads = 2;
  s.num_q_heads = 16;
  return s;
}

exec::RunResult run(const uattn::testing::ProblemSpec& s, Arch a, ForcePath path, uattn::testing::Problem** keep = nullptr) {
  static std::unique_ptr<uattn::testing::Problem> last;
  last = uattn::testing::make_problem(s, exec::guarded_allocator());
  if (keep) *keep = last.get();
  exec::RunOptions o;
  o.arch = a;
  o.select.path = path;
  return exec::run_problem(*last, o);
}

// The problem of `s` run with instance `r` forced, on engine `e` (its own path;
// 3D with `segments` segments); the result names the instance that ran.
exec::RunResult run_instance(const InstanceRow& r, const uattn::testing::ProblemSpec& s, exec::Engine e, int segments) {
  auto prob = uattn::testing::make_problem(s, exec::guarded_allocator());
  return exec::run_problem(*prob, exec::instance_options(r, e, segments));
}

TEST(Edges, CacheOffsetsBeyond32Bits) {
  for (Arch a : archs())
    for (ForcePath p : {ForcePath::k2D, ForcePath::k3D}) {
      uattn::testing::ProblemSpec s = base();
      s.extra_blocks = (int64_t)1 << 22;   // ~4.2M blocks x 1024 elements: offsets up to 2^32 elements
      s.fill_unused_blocks = false;         // sparse: untouched pages are never committed
      s.kv_layout = 0;
      uattn::testing::Problem* prob = nullptr;
      const exec::RunResult r = run(s, a, p, &prob);
      ASSERT_TRUE(r.ok) << to_string(a) << ": " << r.error;
      // The problem really places blocks past 2^31 elements (2^32 bytes).
      int64_t max_off = 0;
      const auto* bt = static_cast<const int32_t*>(prob->block_table.ptr);
      for (int i = 0; i < 4; ++i) max_off = std::max<int64_t>(max_off, (int64_t)bt[i] * prob->params.k_stride_block);
      EXPECT_GT(max_off, (int64_t)1 << 31);
    }
}

TEST(Edges, UnusualQueryHeadsPerKvHead) {
  for (Arch a : archs())
    for (int qpk : {48, 71})
      for (ForcePath p : {ForcePath::kAuto, ForcePath::k2D, ForcePath::k3D}) {
        uattn::testing::ProblemSpec s = base();
        s.num_kv_heads = 2;
        s.num_q_heads = 2 * qpk;
        s.seqs = {{2, 40}, {0, 5}, {1, 70}};
        const exec::RunResult r = run(s, a, p);
        EXPECT_TRUE(r.ok) << to_string(a) << " qpk " << qpk << ": " << r.error;
      }
}

TEST(Edges, AnyBlockSize) {
  for (Arch a : archs())
    for (int bs : {1, 2, 13, 17, 48, 784, 1000}) {
      uattn::testing::ProblemSpec s = base();
      s.block_size = bs;
      s.seqs = {{4, 90}, {1, 1}, {0, 3}};
      const exec::RunResult r = run(s, a, ForcePath::kAuto);
      EXPECT_TRUE(r.ok) << to_string(a) << " block_size " << bs << ": " << r.error;
    }
}

// The RDNA2 seed kernel's own test points: windows 1, 17, 100 at block sizes 13,
// 16 and 784, d128, GQA 4 and 7, prefill behind a prefix and decode, both paths.
TEST(Edges, SeedWindowsAndBlockSizes) {
  for (Arch a : archs())
    for (int bs : {13, 16, 784})
      for (int w : {1, 17, 100})
        for (ForcePath p : {ForcePath::k2D, ForcePath::k3D}) {
          uattn::testing::ProblemSpec s = base();
          s.head_size = 128;
          s.block_size = bs;
          s.window = w;
          s.num_kv_heads = 2;
          s.num_q_heads = bs == 13 ? 14 : 8;
          s.seqs = {{37, 160}, {1, 230}, {0, 4}, {5, 5}};
          const exec::RunResult r = run(s, a, p);
          EXPECT_TRUE(r.ok) << to_string(a) << " block_size " << bs << " window " << w << " path "
                            << (p == ForcePath::k2D ? "2d" : "3d") << ": " << r.error;
        }
}

// Grid x with a fixed number of row blocks per sequence (Selection::
// q_blocks_per_seq, phases.hpp locate_seq): decodes (one block per sequence),
// and a batch whose sequences need up to two blocks where one (4 tokens) needs
// one, so its second workgroup is a spare; against the packed grid of a prefill.
TEST(Edges, BlocksPerSequenceGrid) {
  int spares = 0;
  for (Arch a : archs())
    for (ForcePath p : {ForcePath::kAuto, ForcePath::k2D, ForcePath::k3D}) {
      uattn::testing::ProblemSpec s = d128_qpk8();
      s.seqs = {{1, 300}, {1, 17}, {1, 1}, {1, 129}, {1, 64}};
      exec::RunResult r = run(s, a, p);
      ASSERT_TRUE(r.ok) << to_string(a) << ": " << r.error;
      EXPECT_EQ(r.grid_x, 5u) << to_string(a) << " " << r.instance;  // one workgroup per sequence
      // (the packed grid has floor(5 x 8 / block_m) spare workgroups more)
      EXPECT_EQ(r.q_blocks_per_seq, r.block_m <= 40 ? 1 : 0) << to_string(a) << " " << r.instance;

      s.seqs = {{8, 40}, {4, 90}, {8, 8}, {8, 130}};  // 28 tokens x qpk 8
      r = run(s, a, p);
      ASSERT_TRUE(r.ok) << to_string(a) << ": " << r.error;
      const int n = (8 * 8 + r.block_m - 1) / r.block_m;  // blocks of the longest sequence
      const uint32_t packed = 28u * 8 / (uint32_t)r.block_m + 4;
      if (4u * n < packed) {
        EXPECT_EQ(r.q_blocks_per_seq, n) << to_string(a) << " " << r.instance;
        EXPECT_EQ(r.grid_x, 4u * n) << to_string(a) << " " << r.instance;
        spares += n == 2 && r.block_m == 32;  // the 4-token sequence's second block
      } else {
        EXPECT_EQ(r.q_blocks_per_seq, 0) << to_string(a) << " " << r.instance;
        EXPECT_EQ(r.grid_x, packed) << to_string(a) << " " << r.instance;
      }

      s.seqs = {{64, 64}, {40, 300}};  // prefill: the packed grid is the smaller
      r = run(s, a, p);
      ASSERT_TRUE(r.ok) << to_string(a) << ": " << r.error;
      EXPECT_EQ(r.q_blocks_per_seq, 0) << to_string(a) << " " << r.instance;
    }
  EXPECT_GT(spares, 0) << "no launch ran a spare workgroup of the blocks-per-sequence grid";
}

// The serpentine work order (work_order.hpp): a permutation of the launch's
// workgroups that is its own inverse, mirroring each odd round, whatever the
// round length and the count (a partial last round included).
TEST(Edges, SerpentineIsAnInvolutionPermutation) {
  for (uint32_t n : {1u, 2u, 5u, 17u, 64u, 100u, 513u})
    for (uint32_t R : {0u, 1u, 2u, 3u, 7u, 16u, 256u}) {
      std::vector<int> seen(n, 0);
      for (uint32_t g = 0; g < n; ++g) {
        const uint32_t w = serpentine(g, n, R);
        ASSERT_LT(w, n) << "g " << g << " n " << n << " R " << R;
        ++seen[w];
        EXPECT_EQ(serpentine(w, n, R), g) << "n " << n << " R " << R;
        const bool odd = R > 0 && n > R && (g / R) % 2 == 1;
        EXPECT_EQ(w / (R ? R : 1), g / (R ? R : 1)) << "stays in its round; n " << n << " R " << R;
        if (!odd) EXPECT_EQ(w, g) << "n " << n << " R " << R;
      }
      for (uint32_t w = 0; w < n; ++w) EXPECT_EQ(seen[w], 1) << "work " << w << " n " << n << " R " << R;
    }
  // a CU's workgroups (g = c + k R) alternate between the two ends of each round
  EXPECT_EQ(serpentine(3, 8, 4), 3u);
  EXPECT_EQ(serpentine(4, 8, 4), 7u);
  EXPECT_EQ(serpentine(7, 8, 4), 4u);
  EXPECT_EQ(serpentine(8, 10, 4), 8u);   // round 2 (even)
  EXPECT_EQ(serpentine(4, 6, 4), 5u);    // partial odd round of 2
}

// 2D prefills of equal query lengths and more than one dispatch round take the
// serpentine work order (Selection::dispatch_round = the CU count given):
// every query-row block of every KV head is computed once, on the packed grid
// (one sequence of 4.4 blocks of 128 rows or 17.5 of 32: the packed grid is no
// larger) and the blocks-per-sequence grid, with the host twin and (one problem
// per arch) the ISA engine; a decode batch, a mixed batch and the 3D path keep
// the grid order.
TEST(Edges, SerpentineWorkOrderPrefill) {
  int engines = 0;
  for (Arch a : archs())
    for (int cus : {1, 2, 3, 7}) {
      uattn::testing::ProblemSpec s = d128_qpk8();
      s.seqs = {{70, 200}};  // packed grid
      for (int grid = 0; grid < 2; ++grid) {
        if (grid == 1) s.seqs = {{40, 100}, {40, 40}, {40, 41}};  // blocks per sequence
        auto last = uattn::testing::make_problem(s, exec::guarded_allocator());
        exec::RunOptions o;
        o.arch = a;
        o.select.path = ForcePath::k2D;
        o.num_cus = cus;
        o.engine = (cus == 3 && grid == 1) ? exec::Engine::kIsa : exec::Engine::kTwin;
        const exec::RunResult r = exec::run_problem(*last, o);
        ASSERT_TRUE(r.ok) << to_string(a) << " cus " << cus << " grid " << grid << ": " << r.instance << ": " << r.error;
        const uint64_t groups = (uint64_t)r.grid_x * s.num_kv_heads;
        EXPECT_EQ(r.dispatch_round, groups > (uint64_t)cus ? cus : 0) << to_string(a) << " " << r.instance;
        // the grid the selector's rule gives for this tile (grid_x in select.cpp)
        const int nseq = (int)s.seqs.size(), rows = s.seqs[0].first * (s.num_q_heads / s.num_kv_heads), bm = r.block_m;
        const int n = (rows + bm - 1) / bm;
        const bool per_seq = nseq * n < nseq * rows / bm + nseq;
        EXPECT_EQ(r.q_blocks_per_seq, per_seq ? n : 0) << to_string(a) << " " << r.instance;
        EXPECT_EQ(r.grid_x, (uint32_t)(per_seq ? nseq * n : nseq * rows / bm + nseq)) << to_string(a) << " " << r.instance;
        engines += o.engine == exec::Engine::kIsa;
      }
      // grid order: a decode batch (one query-row block per sequence), a mixed
      // batch (query lengths differ) and 3D
      for (int k = 0; k < 3; ++k) {
        const ForcePath path = k < 2 ? ForcePath::k2D : ForcePath::k3D;
        s.seqs = k == 0 ? std::vector<std::pair<int, int>>{{1, 160}, {1, 230}, {1, 4}, {1, 70}}
                        : std::vector<std::pair<int, int>>{{37, 160}, {1, 230}, {0, 4}, {70, 70}, {9, 300}};
        auto last = uattn::testing::make_problem(s, exec::guarded_allocator());
        exec::RunOptions o;
        o.arch = a;
        o.select.path = path;
        o.num_cus = cus;
        const exec::RunResult r = exec::run_problem(*last, o);
        ASSERT_TRUE(r.ok) << to_string(a) << ": " << r.error;
        EXPECT_EQ(r.dispatch_round, 0) << to_string(a) << " " << r.instance;
      }
    }
  EXPECT_EQ(engines, (int)archs().size());
}

// Scores of every scale around the lazy rescaling threshold of the MFMA body
// (attention_mfma.hpp, kLazyLog2 = 8 log2 units): near-uniform (1e-3), the
// default 1/sqrt(d), and 2 and 16, whose row maxima grow by more than the
// threshold from one KV tile to the next; long rows (several tiles, several
// segments), both paths, against the fp64 reference.
TEST(Edges, ScoreScalesAroundTheLazyRescale) {
  for (Arch a : archs())
    for (float scale : {1e-3f, 0.0f, 2.0f, 16.0f})
      for (ForcePath p : {ForcePath::k2D, ForcePath::k3D}) {
        uattn::testing::ProblemSpec s = d128_qpk8();
        s.softmax_scale = scale;
        s.seqs = {{70, 400}, {1, 900}, {0, 3}, {33, 33}};
        const exec::RunResult r = run(s, a, p);
        EXPECT_TRUE(r.ok) << to_string(a) << " softmax_scale " << scale << " path "
                          << (p == ForcePath::k2D ? "2d" : "3d") << ": " << r.error;
      }
}

// QQ-bias rows narrower and wider than the query: widths 1, 2, 5, the longest
// query, and three times it; prefills behind a prefix (contexts 130 and 259) and
// a decode (context 89): the MFMA body's runs of 4 keys (keys 4 i .. 4 i + 3)
// holding the first new token's key start 2, 3 and 1 keys before it, so for row 0
// (and at width 1 row 1, width 1 with context 259 row 2, width 2 with context 259
// row 1) the run starts before the tensor; both paths; block size 16 (the QQ-bias
// instances) and 13 (the generic instance). The MFMA body's two load forms (attention_mfma.hpp qq_bias): runs of
// 4 keys from a raw buffer over the tensor (most tiles), one load per score at
// column 0 for a key outside the row (the generic one-wave d192 tiles, the
// generic 3D fp8 KV d96 tile); the tensor sits against a guard page.
TEST(Edges, QQBiasWidths) {
  for (Arch a : archs())
    for (int bs : {16, 13})
      for (int w : {1, 2, 5, 0, 3 * 70})
        for (ForcePath p : {ForcePath::k2D, ForcePath::k3D}) {
          uattn::testing::ProblemSpec s = d128_qpk8();
          s.block_size = bs;
          s.qq_bias = true;
          s.qq_bias_stride = w;  // 0: the longest query (70)
          s.seqs = {{70, 200}, {1, 90}, {17, 17}, {40, 299}};
          const exec::RunResult r = run(s, a, p);
          EXPECT_TRUE(r.ok) << to_string(a) << " block_size " << bs << " qq_bias width " << w << " path "
                            << (p == ForcePath::k2D ? "2d" : "3d") << ": " << r.error << " (" << r.instance << ")";
        }
}

// A QQ-bias problem for instance r (QQBiasSixteenRowGenericTiles,
// QQBiasFourWaveTiles): 8 query heads over 2 KV heads, the bias row `width`
// wide (0: the longest query, 40), sequences behind contexts 130, 89, 0 and 259,
// so the run of 4 keys holding the first new token's key starts 2, 1, 0 and 3
// keys before it (before the tensor in row 0, and at width 1 / 2 in rows 1 / 2);
// head_pad > 0 pads each head row (unaligned rows: the generic instance only).
uattn::testing::ProblemSpec qq_bias_problem(const InstanceRow& r, int width, int head_pad) {
  uattn::testing::ProblemSpec s = base();
  s.head_size = r.head_size;
  s.kv_dtype = r.kv_dtype;
  if (s.kv_dtype == DType::fp8e4m3) { s.k_scale = 0.75f; s.v_scale = 1.25f; }
  s.num_kv_heads = 2;
  s.num_q_heads = 8;
  s.block_size = r.block_size != 0 ? r.block_size : 13;
  s.head_pad = head_pad;
  s.qq_bias = true;
  s.qq_bias_stride = width;
  s.seqs = {{40, 170}, {1, 90}, {17, 17}, {9, 268}};
  return s;
}

// Runs qq_bias_problem on instance r at widths 1, 2 and the longest query,
// aligned and (the generic instance) unaligned rows, on the twin and on the
// shipped code object in the emulator (the runs' loads, their range check and
// the selects happen only there).
void run_qq_bias_widths(const InstanceRow& r) {
  for (int w : {1, 2, 0})
    for (int pad : {0, 1}) {
      if (pad != 0 && r.block_size != 0) continue;  // only the generic instance serves unaligned rows
      for (exec::Engine e : {exec::Engine::kTwin, exec::Engine::kIsa}) {
        const exec::RunResult res = run_instance(r, qq_bias_problem(r, w, pad), e, 3);
        EXPECT_TRUE(res.ok) << r.name << " qq_bias width " << w << " head_pad " << pad << " engine "
                            << exec::engine_name(e) << ": " << res.error;
        EXPECT_EQ(res.instance, r.name);
      }
    }
}

// The QQ-bias of the generic instance's 16-row tiles (attention_mfma.hpp
// kQQAll: every score tile's runs loaded at once; kQQAhead: ahead of the
// tile's K / V, passed into the tile): each gfx950 generic tile with at most 16
// rows per wave and f16 queries at d64, d112 and d256 (loaded ahead with f16
// KV; at once without the lead with fp8 KV at d112), both paths
// (run_qq_bias_widths). Builds without such an instance (a subset, one
// architecture) skip it.
TEST(Edges, QQBiasSixteenRowGenericTiles) {
  int instances = 0;
  for (const InstanceRow& r : all_rows()) {
    if (r.arch != Arch::gfx950 || r.block_size != 0 || r.path == Path::kReduce || r.rows_per_wave > 16 ||
        (r.features & kFeatQQBias) == 0 || r.q_dtype != DType::f16)
      continue;
    if (r.head_size != 64 && r.head_size != 112 && r.head_size != 256) continue;
    ++instances;
    run_qq_bias_widths(r);
  }
  // The default matrix has 12 such instances (d64 / d112 / d256 x f16 / fp8 KV x
  // 2D / 3D; d256: 2 waves of 16 rows), 144 runs.
  if (instances == 0) GTEST_SKIP() << "no gfx950 generic 16-row instance with QQ-bias and f16 queries in this build";
}

// The QQ-bias of the gfx950 4-wave tiles (32 rows per wave): every such
// instance with f16 queries, the generic ones (d64-d128, f16 / fp8 KV) and the
// QQ-bias tile of block size 16. Where kQQ4W (attention_mfma.hpp) every score
// tile's runs are loaded at once: ahead of the tile's K / V in the generic
// tiles, in the tile in the prefetching block-size-16 tile; the 16-bit d64 and
// d112 generic tiles load each score tile's runs in turn (run_qq_bias_widths).
TEST(Edges, QQBiasFourWaveTiles) {
  int instances = 0;
  for (const InstanceRow& r : all_rows()) {
    if (r.arch != Arch::gfx950 || r.path == Path::kReduce || r.waves != 4 || r.rows_per_wave != 32 ||
        (r.features & kFeatQQBias) == 0 || r.q_dtype != DType::f16)
      continue;
    ++instances;
    run_qq_bias_widths(r);
  }
  // The default matrix has 11 such instances (10 generic, 1 of block size 16), 126 runs.
  if (instances == 0) GTEST_SKIP() << "no gfx950 4-wave instance with QQ-bias and f16 queries in this build";
}

// The key split of the gfx1030 8-wave window tile (the tile record's
// key_split): a workgroup of at most 16 rows walks its KV range in 1, 2 or 4
// row groups of 4 rows, each group's waves one consecutive share of its tiles,
// and combines the shares through LDS. Every such instance of the build, on the
// twin and on the shipped code object in the emulator: decodes at qpk 4 / 8 /
// 12 / 16 (4, 8, 12, 16 rows: 1, 2, 4 groups, at qpk 12 a group without rows),
// a 3-token sequence at qpk 4 (12 rows over 3 tokens), walks of 1 tile (fewer
// tiles than a group's waves: waves without tiles), 2 tiles and many, beside a
// 9-token sequence whose 36 rows take the shared walk for 32 of them; no window
// and windows of 1, 20 and 100 keys. Builds without such an instance skip it.
TEST(Edges, KeySplitWorkgroups) {
  int instances = 0;
  for (const InstanceRow& r : all_rows()) {
    if (!r.key_split || r.path != Path::k2D) continue;
    ++instances;
    const bool win = (r.features & kFeatWindow) != 0;
    for (int qpk : {4, 8, 12, 16})
      for (int window : win ? std::vector<int>{0, 1, 20, 100} : std::vector<int>{0})
        for (exec::Engine e : {exec::Engine::kTwin, exec::Engine::kIsa}) {
          uattn::testing::ProblemSpec s{};
          s.q_dtype = s.out_dtype = r.q_dtype;
          s.kv_dtype = r.kv_dtype;
          s.head_size = r.head_size;
          s.block_size = r.block_size;
          s.num_kv_heads = 2;
          s.num_q_heads = 2 * qpk;
          s.window = window;
          s.seed = (uint64_t)(qpk * 131 + window);
          s.seqs = {{1, 5}, {1, 600}, {3, 47}, {9, 300}, {1, 33}};
          const exec::RunResult res = run_instance(r, s, e, 1);  // key_split rows: 2D
          EXPECT_TRUE(res.ok) << r.name << " qpk " << qpk << " window " << window << " engine "
                              << exec::engine_name(e) << ": " << res.error;
          EXPECT_EQ(res.instance, r.name);
        }
  }
  // The default matrix has 2 such instances (gfx1030 2D d128 window, block size
  // 16, f16 / bf16), 64 runs.
  if (instances == 0) GTEST_SKIP() << "no instance with the key split in this build";
}

// Boundary tiles whose staged keys reach memory that holds no token (NaN in
// the test caches): the gfx950 4-wave d256 tiles, whose masked staging reads a
// unit's own slots in the clamped cache block and zeroes V outside the
// workgroup's keys [kv_lo, kv_hi) (attention_mfma.hpp kZeroMasked), and the
// window tiles whose mask is one unsigned compare per score (kWinSpan), with
// spare rows. Sequences whose last block is partly written (seq_k % block_size
// != 0), prefills whose diagonal tiles end inside a unit, windows of 5 and 37
// keys (kv_lo inside a unit; blocks wholly outside the window NaN; with window
// 5 the decode of 55 keys stages keys below kv_lo from kv_lo's block, the last
// and partly written one, so their slots hold NaN), qpk 3 (rows not a multiple
// of block_m: spare rows), both cache layouts; each instance forced, on the
// twin and on the shipped code object in the emulator. Builds without such an
// instance skip it. The generic instances (block size 0), whose 4-wave d96 /
// d128 / fp8 KV d112 tiles take kWinSpan too, are run with windows and spare
// rows by Edges.MaskBitsAcrossWordEdges.
TEST(Edges, MaskedTilesBesideUnwrittenSlots) {
  int instances = 0;
  for (const InstanceRow& r : all_rows()) {
    if (r.arch != Arch::gfx950 || r.path == Path::kReduce || r.block_size == 0) continue;
    const bool win = (r.features & kFeatWindow) != 0;
    const bool fp8 = r.kv_dtype == DType::fp8e4m3;
    const bool zero_masked = r.head_size == 256 && r.waves > 1 && !r.head_split && (r.features & kFeatAlibi) == 0;
    const bool win_span = win && (r.features & kFeatSoftcap) == 0 && (r.waves == 1 ? (r.path == Path::k3D || fp8) : !fp8);
    if (!zero_masked && !win_span) continue;
    ++instances;
    for (int window : win ? std::vector<int>{0, 5, 37} : std::vector<int>{0})
      for (int layout : {0, 1})
        for (exec::Engine e : {exec::Engine::kTwin, exec::Engine::kIsa}) {
          uattn::testing::ProblemSpec s{};
          s.kv_layout = layout;
          s.q_dtype = s.out_dtype = r.q_dtype;
          s.kv_dtype = r.kv_dtype;
          if (fp8) { s.k_scale = 0.75f; s.v_scale = 1.25f; }
          s.head_size = r.head_size;
          s.block_size = r.block_size;
          s.num_kv_heads = 2;
          s.num_q_heads = 6;
          s.window = window;
          s.seed = (uint64_t)(r.block_size * 977 + window);
          s.seqs = {{5, 77}, {45, 103}, {1, 50}, {17, 17}, {2, 130}, {1, 55}};
          const exec::RunResult res = run_instance(r, s, e, 2);
          EXPECT_TRUE(res.ok) << r.name << " window " << window << " kv_layout " << layout << " engine "
                              << exec::engine_name(e) << ": " << res.error;
          EXPECT_EQ(res.instance, r.name);
        }
  }
  // The default matrix has 24 such instances: the 8 d256 4-wave ones (f16 /
  // bf16, block sizes 16 / 32 / 64 and the window tile) and 18 with the
  // one-compare window mask (the two d256 window ones among them), 240 runs.
  if (instances == 0) GTEST_SKIP() << "no gfx950 d256 4-wave or one-compare window instance in this build";
}

// The boundary tiles' keep mask as bits of a tile's 64 keys in two 32-bit
// words (attention_mfma.hpp kKeepBits): every gfx950 window instance (the
// generic ones with f16 queries), windows of 5, 33 and 65 keys (within a word,
// across one word edge, wider than the tile), a 70-token prefill behind 58
// keys of context (its rows' causal and window bounds fall on every key of
// their tiles), a decode and a sequence without context; twin and code object.
TEST(Edges, MaskBitsAcrossWordEdges) {
  int instances = 0;
  for (const InstanceRow& r : all_rows()) {
    if (r.arch != Arch::gfx950 || r.path == Path::kReduce || (r.features & kFeatWindow) == 0) continue;
    if (r.block_size == 0 && r.q_dtype != DType::f16) continue;
    ++instances;
    for (int window : {5, 33, 65})
      for (exec::Engine e : {exec::Engine::kTwin, exec::Engine::kIsa}) {
        uattn::testing::ProblemSpec s{};
        s.q_dtype = s.out_dtype = r.q_dtype;
        s.kv_dtype = r.kv_dtype;
        if (r.kv_dtype == DType::fp8e4m3) { s.k_scale = 0.75f; s.v_scale = 1.25f; }
        s.head_size = r.head_size;
        s.block_size = r.block_size != 0 ? r.block_size : 13;
        s.num_kv_heads = 1;
        s.num_q_heads = 2;
        s.window = window;
        s.sinks = (r.features & kFeatSinks) != 0;
        s.seed = (uint64_t)(r.head_size * 131 + window);
        s.seqs = {{70, 128}, {1, 100}, {33, 33}};
        const exec::RunResult res = run_instance(r, s, e, 2);
        EXPECT_TRUE(res.ok) << r.name << " window " << window << " engine " << exec::engine_name(e) << ": "
                            << res.error;
        EXPECT_EQ(res.instance, r.name);
      }
  }
  if (instances == 0) GTEST_SKIP() << "no gfx950 window instance in this build";
}

TEST(Edges, NoSequencesIsANoOp) {
  for (Arch a : archs()) {
    uattn::testing::ProblemSpec s = base();
    s.seqs = {};
    const exec::RunResult r = run(s, a, ForcePath::kAuto);
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.cmp.n, 0u);
  }
}

TEST(Edges, Fp8OutputWithScale) {
  for (Arch a : archs())
    for (ForcePath p : {ForcePath::k2D, ForcePath::k3D})
      for (float out_scale : {0.25f, 0.002f}) {  // 0.002: outputs spread over the fp8 range
      uattn::testing::ProblemSpec s = base();
      s.q_dtype = DType::bf16;
      s.kv_dtype = DType::fp8e4m3;
      s.out_dtype = DType::fp8e4m3;
      s.k_scale = 0.5f; s.v_scale = 2.0f; s.output_scale = out_scale;
      const exec::RunResult r = run(s, a, p);
      EXPECT_TRUE(r.ok) << to_string(a) << " output_scale " << out_scale << ": " << r.error;
    }
}

// fp8 KV whose codes sit near +-448 (|code| in [256, 448], random signs; the
// NaN codes that mark memory holding no token are kept), k_scale 0.5 and
// v_scale 0.25: dequantised V reaches 112. Hostile-input class 10.
std::unique_ptr<uattn::testing::Problem> large_fp8_codes(DType q, uint64_t seed) {
  uattn::testing::ProblemSpec s = base();
  s.head_size = 128;  // fp8 KV instances of the ci subset too
  s.q_dtype = s.out_dtype = q;
  s.kv_dtype = DType::fp8e4m3;
  s.k_scale = 0.5f;
  s.v_scale = 0.25f;
  s.softmax_scale = 1e-3f;  // scores O(1): out averages many V rows of +-(64..112), so |out| is often small
  s.seed = seed;
  auto prob = uattn::testing::make_problem(s, exec::guarded_allocator());
  std::mt19937_64 rng(seed);
  for (uattn::testing::Buffer* b : {&prob->k_cache, &prob->v_cache}) {
    auto* code = static_cast<uint8_t*>(b->ptr);
    for (size_t i = 0; i < b->bytes; ++i) {
      if ((code[i] & 0x7F) == 0x7F) continue;  // NaN: no token here
      code[i] = (uint8_t)(0x70 + rng() % 15) | (uint8_t)((rng() & 1) << 7);  // 0x70 = 256 ... 0x7E = 448
    }
  }
  return prob;
}

TEST(Edges, Fp8KvCodesNearTheRangeLimit) {
  for (Arch a : archs())
    for (ForcePath p : {ForcePath::k2D, ForcePath::k3D})
      for (DType q : {DType::bf16, DType::f16}) {
        auto prob = large_fp8_codes(q, 40 + (int)p);
        ASSERT_GT(exec::v_magnitude(*prob), 100.0);  // up to 448 * 0.25 = 112
        exec::RunOptions o;
        o.arch = a;
        o.select.path = p;
        const exec::RunResult r = exec::run_problem(*prob, o);
        EXPECT_TRUE(r.ok) << to_string(a) << " " << to_string(q) << ": " << r.error;
      }
}

// The widened bound still catches real regressions (a test of the tolerance,
// on the reference alone): an error of the size P's rounding makes passes, a
// wrong dequantisation scale or one element off by three times its bound does not.
TEST(Tolerance, Fp8KvBoundScalesWithVAndCatchesRegressions) {
  auto prob = large_fp8_codes(DType::bf16, 50);
  const double v_max = exec::v_magnitude(*prob);
  const exec::Tolerance t = exec::tolerance_for(*prob);
  EXPECT_DOUBLE_EQ(t.atol, 1.5e-2 * v_max);  // the bf16 bound for |V| <= 1, times max|V|
  EXPECT_DOUBLE_EQ(exec::tolerance_for(DType::bf16, DType::bf16).atol, 1.5e-2);
  const std::vector<double> ref = prob->reference();
  // The measured gfx950 deviation of this kind of input: 0.34 (P rounded to bf16 before P.V).
  std::vector<double> near = ref;
  for (size_t i = 0; i < near.size(); ++i) near[i] += (i % 2 ? 0.34 : -0.34);
  prob->write_output(near);
  uattn::testing::CompareResult c = uattn::testing::compare_output(*prob, ref, t.atol, t.rtol);
  EXPECT_TRUE(c.ok) << c.first_failure;
  // The unscaled bound would refuse it: the old tolerance was wrong for this input.
  const exec::Tolerance old = exec::tolerance_for(DType::bf16, DType::bf16);
  EXPECT_FALSE(uattn::testing::compare_output(*prob, ref, old.atol, old.rtol).ok);
  // Regressions: V dequantised with k_scale; K dequantised with v_scale.
  auto wrong = [&](void (*edit)(AttnParams&)) {
    AttnParams p = prob->params;
    edit(p);
    uattn::ref::RefInputs in = prob->ref_inputs();
    in.p = &p;
    prob->write_output(uattn::ref::attention(in));
    return uattn::testing::compare_output(*prob, ref, t.atol, t.rtol);
  };
  c = wrong([](AttnParams& p) { p.v_scale = p.k_scale; });
  EXPECT_FALSE(c.ok) << "V dequantised with k_scale passed (max diff " << c.max_abs << ")";
  c = wrong([](AttnParams& p) { p.k_scale = p.v_scale; });
  EXPECT_FALSE(c.ok) << "K dequantised with v_scale passed (max diff " << c.max_abs << ")";
  // One element three bounds away from the reference.
  std::vector<double> one = ref;
  one[5] += 3 * (t.atol + t.rtol * std::fabs(ref[5]));
  prob->write_output(one);
  c = uattn::testing::compare_output(*prob, ref, t.atol, t.rtol);
  EXPECT_FALSE(c.ok) << "an element off by 3 bounds passed";
  EXPECT_EQ(c.fail_count, 1u);
}

}  // namespace
