// The selector's decisions: the cost model routes the problem
// classes as docs/architecture.md ("The cost model") says, the failing inputs
// of the earlier selector are pinned, every attention row of the matrix is chosen for some
// realistic problem, and the WGP/CU conversion lives in one place. Properties
// (path, segments, tile) are pinned, not instance names, except where a row is
// the subject. Needs no bundle: links the table only.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "scenario.hpp"  // tools/explain
#include "uattn/table.hpp"

using namespace uattn;

namespace {

using Seqs = std::vector<std::pair<int, int>>;  // (q_len, kv_len)

std::vector<Arch> built_archs() {
  std::vector<Arch> a;
  const std::string t = std::string(",") + UATTN_GPU_TARGETS + ",";
  for (Arch x : kArchs)
    if (t.find(std::string(",") + to_string(x) + ",") != std::string::npos) a.push_back(x);
  return a;
}

bool built(const char* arch) {
  Arch a;
  if (!arch_from_name(arch, &a)) return false;
  const std::vector<Arch> b = built_archs();
  return std::find(b.begin(), b.end(), a) != b.end();
}

// The decision tests need the default matrix's groups (a subset build has other rows).
bool default_matrix() {
  for (const InstanceRow& r : all_rows())
    if (r.block_size == 0 && r.features == kFeatAll) return true;
  return false;
}

struct Shape {
  const char* arch = "gfx950";
  DType dt = DType::bf16;
  int head = 128, block = 16, hq = 32, hkv = 8;
  int window_left = -1;
  uint32_t extra = 0;  // kFeatSoftcap / kFeatSinks / ...
};

ProblemDesc batch(const Shape& s, const Seqs& seqs, int cus = 0) {
  std::vector<int32_t> q, kv;
  for (auto [a, b] : seqs) { q.push_back(a); kv.push_back(b); }
  ProblemArgs a;
  EXPECT_TRUE(arch_from_name(s.arch, &a.arch)) << s.arch;
  a.q_dtype = a.kv_dtype = a.out_dtype = s.dt;
  a.head_size = s.head; a.block_size = s.block; a.num_q_heads = s.hq; a.num_kv_heads = s.hkv;
  a.q_lens = q.data(); a.kv_lens = kv.data(); a.num_seqs = (int)seqs.size();
  a.window_left = s.window_left;
  a.softcap = (s.extra & kFeatSoftcap) ? 30.f : 0.f;
  a.sinks = (s.extra & kFeatSinks) != 0;
  a.alibi = (s.extra & kFeatAlibi) != 0;
  a.qq_bias = (s.extra & kFeatQQBias) != 0;
  a.num_cus = cus;
  return make_problem(a);
}

Seqs same(int n, int q, int kv) { return Seqs(n, {q, kv}); }

Selection explained(const ProblemDesc& p, SelectOptions o = {}) {
  o.explain = true;
  Selection s = select(p, o);
  EXPECT_TRUE(s.ok) << s.error;
  return s;
}

std::string where(const ProblemDesc& p, const Selection& s) {
  return std::string(to_string(p.arch)) + " seqs " + std::to_string(p.num_seqs) + " tokens " +
         std::to_string(p.num_tokens) + " max q " + std::to_string(p.max_seqlen_q) + " max kv " +
         std::to_string(p.max_seqlen_k) + " cus " + std::to_string(p.num_cus) + ": " + s.why;
}

// The workgroups that would do work for the chosen 2D path of `s` (the model's count).
uint64_t candidate_workgroups(const Selection& s) {
  for (const CandidateEstimate& c : s.candidates)
    if (c.row == s.attention.row && c.num_segments == s.num_segments) return c.workgroups;
  return 0;
}

// The lowest estimate among the candidates of `path` in `s` (an explained selection).
double best_cycles(const Selection& s, Path path) {
  double best = 1e300;
  for (const CandidateEstimate& c : s.candidates)
    if (c.row->path == path) best = std::min(best, c.cycles);
  return best;
}

}  // namespace

// Input 3: HIP reports WGPs on gfx10+; the one conversion doubles them, and a
// problem given the reported count through it selects what the CU count selects.
TEST(Select, ReportedUnitsAreConvertedToCUsInOnePlace) {
  Arch a950, a1030;
  ASSERT_TRUE(arch_from_name("gfx950", &a950) && arch_from_name("gfx1030", &a1030));
  EXPECT_EQ(cus_from_reported(a950, 256), 256);
  EXPECT_EQ(cus_from_reported(a1030, 36), 72);
  EXPECT_EQ(cus_from_reported(a1030, 36), cu_count(a1030));  // the reference part: 72 CUs, 36 WGPs
  if (!default_matrix() || !built("gfx1030")) GTEST_SKIP();
  // Five decodes at 2048 keys (the example) and the classes around it.
  for (const Seqs& seqs : {same(5, 1, 2048), same(5, 1, 32768), same(3, 4, 7168), same(40, 1, 4096)}) {
    Shape sh;
    sh.arch = "gfx1030"; sh.dt = DType::f16; sh.hq = 8; sh.hkv = 2;
    const Selection wgp = select(batch(sh, seqs, cus_from_reported(a1030, 36)));
    const Selection cu = select(batch(sh, seqs, 72));
    const Selection dflt = select(batch(sh, seqs, 0));
    ASSERT_TRUE(wgp.ok && cu.ok && dflt.ok);
    EXPECT_EQ(wgp.attention.row, cu.attention.row);
    EXPECT_EQ(wgp.num_segments, cu.num_segments);
    EXPECT_EQ(dflt.attention.row, cu.attention.row);
    EXPECT_EQ(dflt.num_segments, cu.num_segments);
  }
}

// Input 5: the working workgroups are counted (no spare per sequence) and a
// few long-walking workgroups are split, into segments sized from their KV tiles.
TEST(Select, FewLongWalkingWorkgroupsAreSplit) {
  if (!default_matrix()) GTEST_SKIP();
  struct Case { Shape sh; Seqs seqs; const char* what; };
  Shape r2;  // gfx1030, the heads
  r2.arch = "gfx1030"; r2.dt = DType::f16; r2.hq = 8; r2.hkv = 2;
  Shape r2b = r2;
  r2b.hq = 32; r2b.hkv = 8;
  Shape c4;  // gfx950, llama-3.1-8b heads
  const Case cases[] = {
      {r2, same(5, 1, 32768), "gfx1030: five decodes at 32K"},
      {r2b, same(5, 1, 32768), "gfx1030: five decodes at 32K, 32/8 heads"},
      {r2, same(3, 4, 7168), "gfx1030: three 4-token verifies at 7K"},
      {r2b, same(3, 4, 7168), "gfx1030: three 4-token verifies at 7K, 32/8 heads"},
      {c4, same(24, 4, 4096), "gfx950: a 24-sequence verify batch at 4K"},
      {c4, same(24, 4, 16384), "gfx950: a 24-sequence verify batch at 16K"},
  };
  for (const Case& c : cases) {
    if (!built(c.sh.arch)) continue;
    const ProblemDesc p = batch(c.sh, c.seqs);
    Selection s = explained(p);
    EXPECT_EQ(s.path, Path::k3D) << c.what << ": " << where(p, s);
    EXPECT_GE(s.num_segments, 2) << c.what;
    // Segments are sized from the tiles a workgroup walks: each gets >= min_tiles_per_segment.
    const int tiles = (p.max_seqlen_k + s.attention.row->block_n - 1) / s.attention.row->block_n;
    EXPECT_LE(s.num_segments * default_policy(p.arch).min_tiles_per_segment, tiles) << c.what;
    // The working workgroups: one per (sequence, KV head) when a sequence's packed rows fit one tile.
    const int rows = p.max_seqlen_q * (p.num_q_heads / p.num_kv_heads);
    if (rows <= s.attention.row->block_m)
      EXPECT_EQ(candidate_workgroups(s), (uint64_t)p.num_seqs * p.num_kv_heads * s.num_segments) << c.what;
    // A forced 3D path gets more than one segment too.
    SelectOptions o;
    o.path = ForcePath::k3D;
    s = explained(p, o);
    EXPECT_GE(s.num_segments, 2) << c.what;
  }
}

// The key split (the tile record's key_split: gfx1030's 8-wave d128 tile with
// 16-bit KV): a 2D window decode (256 keys of 3 sequences, qpk 8: 8 rows per
// workgroup, 2 row groups of 4 waves each) is priced with each wave walking a
// quarter of the window at the split walk's cycles, so 2D takes the 8-wave tile
// over the one-wave tile that walks all 9 tiles (the whole-launch model:
// docs/performance.md, "Key split in the gfx1030 8-wave tile").
TEST(Select, KeySplitWindowDecodeTakesTheEightWaveTile) {
  if (!default_matrix() || !built("gfx1030")) GTEST_SKIP();
  Shape sh;
  sh.arch = "gfx1030";
  sh.dt = DType::f16;
  sh.hq = 16; sh.hkv = 2;
  sh.window_left = 255;
  SelectOptions o;
  o.path = ForcePath::k2D;
  const ProblemDesc p = batch(sh, {{1, 2048}, {1, 4096}, {1, 8192}});
  const Selection s = explained(p, o);
  ASSERT_EQ(s.path, Path::k2D) << where(p, s);
  EXPECT_EQ(s.attention.row->tile, Tile::large) << where(p, s);
  EXPECT_TRUE(s.attention.row->key_split) << where(p, s);
  // Against the same row priced without the split: every wave would walk the 9 tiles
  // (the shared walk's 8 waves walk them together); with it 3 tiles (2 groups of 4 waves).
  const CandidateEstimate* c = nullptr;
  for (const CandidateEstimate& x : s.candidates)
    if (x.row == s.attention.row) c = &x;
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->tiles, 9) << where(p, s);
  const double c_split = s.attention.row->split_tile_cycles;
  EXPECT_GT(c_split, s.attention.row->tile_cycles);  // its own loads and conversions per wave
  // The critical path: one wave's walk of 3 split tiles (its SIMD's other wave
  // fills its waits), their round trips and the combine.
  const ArchSelectRecord& ar = kArchSelectRecords[(int)p.arch];
  EXPECT_NEAR(c->compute_cycles, ar.workgroup_latency_cycles + 3 * (c_split + ar.tile_latency_cycles) + kSplitCombineCycles,
              1.0)
      << where(p, s);
}

// The reduce's workgroup size: one wave per 16 segments (at most the row's
// waves) while its workgroups (tokens x query heads) leave SIMDs idle, one wave
// on a full device; LDS from the row.
TEST(Select, ReduceWavesSplitTheSegmentsOfFewRows) {
  if (!default_matrix() || !built("gfx950")) GTEST_SKIP();
  Shape sh;
  sh.hq = 16; sh.hkv = 2; sh.dt = DType::f16;
  struct Case { Seqs seqs; int segs, waves; };
  const Case cases[] = {
      {same(4, 1, 4096), 64, 4},   // 64 reduce workgroups on 1024 SIMDs
      {same(4, 1, 4096), 32, 2},
      {same(4, 1, 4096), 40, 2},
      {same(4, 1, 4096), 8, 1},
      {same(4, 1, 4096), 100, 4},
      {same(2, 512, 2048), 64, 1},  // 16384 reduce workgroups
  };
  for (const Case& c : cases) {
    SelectOptions o;
    o.path = ForcePath::k3D;
    o.num_segments = c.segs;
    const Selection s = explained(batch(sh, c.seqs), o);
    ASSERT_TRUE(s.reduce.row) << c.segs;
    EXPECT_EQ(s.reduce.threads, (uint32_t)(c.waves * s.reduce.row->wave_size)) << c.segs << " segments";
    EXPECT_EQ(s.reduce.lds_bytes, s.reduce.row->lds_bytes);
    EXPECT_EQ(s.reduce.row->lds_bytes, (uint32_t)(s.reduce.row->waves * 128 * 4));
  }
}

// Input 2 (class): an automatic 3D choice always has at least 2 segments (a
// best split of 1 segment is 2D, with no workspace). The gfx950 case
// (600 new tokens over 2000 keys): the whole-launch model has the large-tile 2D
// grid and the 8-way split within 1% (59.3 / 59.8 us, docs/performance.md), so
// either answer is right; a decode of 100 keys is 2D (7.8 us, every split slower).
TEST(Select, OneSegmentIsTwoD) {
  if (!default_matrix()) GTEST_SKIP();
  struct Case { Shape sh; Seqs seqs; };
  Shape g1030;
  g1030.arch = "gfx1030"; g1030.dt = DType::f16; g1030.hq = 8; g1030.hkv = 2;
  for (const Case& c : {Case{Shape{}, {{600, 2000}}}, Case{g1030, {{150, 1000}}}}) {
    if (!built(c.sh.arch)) continue;
    const ProblemDesc p = batch(c.sh, c.seqs);
    const Selection s = explained(p);
    if (std::string(c.sh.arch) == "gfx950") {
      Shape f16 = c.sh;
      f16.dt = DType::f16;
      const ProblemDesc d = batch(f16, {{1, 100}});
      const Selection short_decode = explained(d);
      EXPECT_EQ(short_decode.path, Path::k2D) << where(d, short_decode);
      EXPECT_EQ(short_decode.attention.row->tile, Tile::large) << where(d, short_decode);
    }
    if (s.path == Path::k2D) {
      EXPECT_EQ(s.num_segments, 1);
      EXPECT_EQ(s.workspace_bytes, 0u);
      EXPECT_EQ(s.attention.grid.z, 1u);
    } else {
      EXPECT_GE(s.num_segments, 2) << where(p, s);
    }
    SelectOptions o;
    o.path = ForcePath::k3D;
    o.num_segments = 1;
    const Selection f = select(p, o);  // asked for: honoured
    ASSERT_TRUE(f.ok) << f.error;
    EXPECT_EQ(f.path, Path::k3D);
    EXPECT_EQ(f.num_segments, 1);
  }
  size_t n3 = 0, n2 = 0;
  for (Arch a : built_archs())
    for (int qpk : {1, 4, 8})
      for (int seqs : {1, 2, 5, 16, 64})
        for (int q : {1, 4, 37, 150, 600})
          for (int k : {300, 1000, 2000, 8192, 32768})
            for (int cus : {0, 32, 512}) {
              if (q > k) continue;
              ProblemDesc p;
              p.arch = a; p.head_size = 128; p.block_size = 16; p.num_kv_heads = 2; p.num_q_heads = 2 * qpk;
              p.num_seqs = seqs; p.num_tokens = seqs * q; p.max_seqlen_q = q; p.max_seqlen_k = k; p.num_cus = cus;
              const Selection s = select(p);
              ASSERT_TRUE(s.ok) << s.error;
              if (s.path != Path::k3D) { ++n2; EXPECT_EQ(s.workspace_bytes, 0u); continue; }
              ++n3;
              EXPECT_GE(s.num_segments, 2) << to_string(a) << " qpk " << qpk << " seqs " << seqs << "x" << q << ":"
                                           << k << " cus " << cus;
            }
  EXPECT_GT(n3, 100u);
  EXPECT_GT(n2, 100u);
}

// Input 1 (class): a window bounds each row's keys, not the work of a
// workgroup. A long-context windowed decode that leaves the device idle is
// split, with segments sized from the window's tiles -- across segments (3D),
// or on gfx1030 within the workgroup by the 8-wave window tile's key split
// (whole-launch model, bf16 32 / 8 heads, 1 x 32768 keys: window 1024 2D 14.9
// us against 16.0 for the best 3D count; window 4096 40.6 against 40.6;
// docs/performance.md, "Key split in the gfx1030 8-wave tile"), taken where no
// 3D count beats it by the policy's margin.
TEST(Select, WindowedDecodeIsSplitByTheWindowsTiles) {
  if (!default_matrix()) GTEST_SKIP();
  for (const char* arch : {"gfx950", "gfx1030"}) {
    if (!built(arch)) continue;
    Shape sh;
    sh.arch = arch;
    for (int window : {1024, 4096}) {
      sh.window_left = window - 1;
      const ProblemDesc p = batch(sh, {{1, 32768}});
      const Selection s = explained(p);
      EXPECT_NE(s.attention.row->features & kFeatWindow, 0u) << s.attention.row->name;
      if (s.path == Path::k2D && s.attention.row->key_split) {
        const double best3 = best_cycles(s, Path::k3D);
        EXPECT_LT(best3, 1e300) << "no 3D count was weighed: " << where(p, s);
        EXPECT_GE(best3 * 100.0, s.estimate_cycles * default_policy(p.arch).split_margin_pct) << where(p, s);
        continue;
      }
      EXPECT_EQ(s.path, Path::k3D) << where(p, s);
      const int bn = s.attention.row->block_n;
      const int window_tiles = (window + 2 * bn - 2) / bn;  // the window's tiles at any alignment
      EXPECT_GE(s.num_segments, 2);
      EXPECT_LE(s.num_segments * default_policy(p.arch).min_tiles_per_segment, window_tiles) << where(p, s);
    }
    // A window of 64 keys is short work: 2D, whatever max_seqlen_k is.
    sh.window_left = 63;
    const ProblemDesc p = batch(sh, {{1, 32768}});
    EXPECT_EQ(select(p).path, Path::k2D);
  }
}

// The 2D large tile serving p stages each K / V tile once for all its waves
// (its tile record's shares_kv): every gfx950 tile, the gfx1030 8-wave tile.
static bool large_tile_shares_kv(const ProblemDesc& p) {
  for (const InstanceRow& r : all_rows())
    if (r.arch == p.arch && r.path == Path::k2D && r.tile == Tile::large && r.q_dtype == p.q_dtype &&
        r.kv_dtype == p.kv_dtype && r.head_size == p.head_size && (r.block_size == 0 || r.block_size == p.block_size) &&
        (p.features & ~r.features) == 0)
      return r.shares_kv;
  return false;
}

// The classes of the issue, on both architectures, through the model: a
// long-context decode batch never leaves the device idle -- it is split into
// >= 2 segments, or its 2D grid already runs a wave on every SIMD. On gfx950 a
// batch of <= 8 sequences (one workgroup per KV head) is always split; on
// gfx1030 the 8-wave tile reads each K/V tile once for its 32 rows and the
// batch is bound by memory bandwidth, where the whole-launch model has the 2D
// grid fastest (8 x 8192 keys: 561 us, every split slower; docs/performance.md).
// Past twice the wave size (auto_segment_cap: the reduce kernel's two segment
// weights per lane) only the fused reduce takes a count, up to
// auto_fused_segment_cap (256 on gfx950): a 64K fp8 KV decode of 4 packed rows
// per KV head (docs/performance.md, "256 segments with the fused reduce").
TEST(Select, FusedReduceAloneTakesMoreSegmentsThanTheReduceKernel) {
  if (!default_matrix() || !built("gfx950")) GTEST_SKIP();
  const auto fp8_decode = [](int hq, int kv) {
    ProblemArgs a;
    EXPECT_TRUE(arch_from_name("gfx950", &a.arch));
    a.q_dtype = a.out_dtype = DType::bf16;
    a.kv_dtype = DType::fp8e4m3;
    a.head_size = 128; a.block_size = 16; a.num_q_heads = hq; a.num_kv_heads = 8;
    const int32_t q = 1;
    a.q_lens = &q; a.kv_lens = &kv; a.num_seqs = 1;
    return make_problem(a);
  };
  const ProblemDesc p = fp8_decode(32, 65536);
  const int cap = auto_segment_cap(p.arch, default_policy(p.arch));
  const int fused_cap = auto_fused_segment_cap(p.arch, default_policy(p.arch));
  EXPECT_EQ(cap, 128);
  EXPECT_EQ(fused_cap, 256);
  const Selection s = explained(p);
  ASSERT_EQ(s.path, Path::k3D) << s.why;
  EXPECT_TRUE(s.fused_reduce) << s.why;
  EXPECT_EQ(s.num_segments, fused_cap) << s.why;
  bool past = false;
  for (const CandidateEstimate& c : s.candidates)
    if (c.num_segments > cap) {
      past = true;
      EXPECT_TRUE(c.fused_reduce) << c.num_segments << " segments with the reduce launch: " << s.why;
      EXPECT_EQ(c.num_segments % 16, 0) << c.num_segments << ": sub-groups of 16 past 128 segments";
    }
  EXPECT_TRUE(past) << s.why;
  // Without the fused reduce, or with 8 rows per KV head (it serves at most
  // 4), the reduce kernel's cap holds.
  SelectOptions o;
  o.fused_reduce = false;
  for (const Selection& t : {explained(p, o), explained(fp8_decode(64, 65536))}) {
    EXPECT_FALSE(t.fused_reduce) << t.why;
    EXPECT_LE(t.num_segments, cap) << t.why;
    for (const CandidateEstimate& c : t.candidates) EXPECT_LE(c.num_segments, cap) << t.why;
  }
}

TEST(Select, LongContextDecodeIsSplitWhileTheDeviceIsNotFull) {
  if (!default_matrix()) GTEST_SKIP();
  for (Arch a : built_archs())
    for (int b : {1, 2, 4, 8, 16, 32, 64})
      for (int kv : {8192, 32768, 131072}) {
        Shape sh;
        sh.arch = to_string(a);
        const ProblemDesc p = batch(sh, same(b, 1, kv));
        const Selection s = explained(p);
        ASSERT_TRUE(s.ok);
        const uint64_t lanes = (uint64_t)cu_count(a) * kArchSelectRecords[(int)a].simds_per_cu;
        if (s.path == Path::k3D) {
          EXPECT_GE(s.num_segments, 2);
          EXPECT_EQ(s.attention.row->tile, Tile::small);
        } else {
          EXPECT_GE(candidate_workgroups(s) * s.attention.row->waves, lanes) << where(p, s);
        }
        // One sequence per KV head is 8 workgroups: always split (MFMA; see above).
        if (b <= 8 && matrix_insn(a) != MatrixInsn::dot2) EXPECT_EQ(s.path, Path::k3D) << where(p, s);
      }
}

// Verify batches (2-8 query tokens per sequence) are split; on gfx1030 at
// d128 they may instead take the 8-wave tile, whose waves stage each K/V tile
// once for its 32 rows (the rows of 8 tokens at qpk 4), where the split's
// one-wave tiles read K/V once per 8 rows: then a split was weighed and lost.
TEST(Select, SpeculativeDecodeVerifyBatchesAreSplit) {
  if (!default_matrix()) GTEST_SKIP();
  for (Arch a : built_archs())
    for (int q : {2, 4, 8})
      for (int kv : {4096, 8192, 32768})
        for (int b : {1, 4, 8}) {
          Shape sh;
          sh.arch = to_string(a);
          const ProblemDesc p = batch(sh, same(b, q, kv));
          const Selection s = explained(p);
          if (matrix_insn(a) == MatrixInsn::dot2 && large_tile_shares_kv(p) && s.path == Path::k2D) {
            EXPECT_EQ(s.attention.row->tile, Tile::large) << where(p, s);
            const double best3 = best_cycles(s, Path::k3D);
            EXPECT_LT(best3, 1e300) << "no split was weighed: " << where(p, s);
            // 2D stands because no split beats it by the policy's margin (select()'s rule).
            EXPECT_GE(best3 * 100.0, s.estimate_cycles * default_policy(a).split_margin_pct) << where(p, s);
            continue;
          }
          EXPECT_EQ(s.path, Path::k3D) << where(p, s);
          EXPECT_GE(s.num_segments, 2) << where(p, s);
          EXPECT_EQ(s.attention.row->tile, Tile::small) << where(p, s);
        }
}

TEST(Select, ChunkedPrefillBehindALongPrefix) {
  if (!default_matrix()) GTEST_SKIP();
  for (Arch a : built_archs())
    for (int chunk : {1024, 2048, 4096})
      for (int prefix : {16384, 65536}) {
        Shape sh;
        sh.arch = to_string(a);
        // The chunk alone, and the chunk beside 32 decodes (a mixed step).
        Seqs mixed = same(32, 1, prefix);
        mixed.push_back({chunk, prefix + chunk});
        for (const Seqs& seqs : {Seqs{{chunk, prefix + chunk}}, mixed}) {
          const ProblemDesc p = batch(sh, seqs);
          const Selection s = explained(p);
          // gfx1030: 2D with the 8-wave tile, whose waves stage each K/V tile
          // once for their 32 rows. gfx950: the chunk's 128-row workgroups are
          // fewer than the CUs (32 per KV head for 1024 tokens at qpk 4) and
          // each walks the whole prefix, so a split is weighed against 2D (the
          // whole-launch model, a 256-token chunk behind 4096 keys: 2D 121 us,
          // 16 segments 61 us); whichever is chosen beats the other by the rule.
          if (matrix_insn(a) == MatrixInsn::dot2) {
            EXPECT_EQ(s.path, Path::k2D) << where(p, s);
            if (large_tile_shares_kv(p)) EXPECT_EQ(s.attention.row->tile, Tile::large) << where(p, s);
          } else if (s.path == Path::k3D) {
            EXPECT_GE(s.num_segments, 2) << where(p, s);
            EXPECT_LT(s.estimate_cycles * 100.0, best_cycles(s, Path::k2D) * default_policy(a).split_margin_pct)
                << where(p, s);
          } else {
            EXPECT_EQ(s.attention.row->tile, Tile::large) << where(p, s);
          }
        }
      }
}

TEST(Select, PrefillIsTwoDWithTheLargeTile) {
  if (!default_matrix()) GTEST_SKIP();
  for (Arch a : built_archs())
    for (int len : {1024, 4096})
      for (int b : {4, 16}) {
        Shape sh;
        sh.arch = to_string(a);
        const ProblemDesc p = batch(sh, same(b, len, len));
        const Selection s = explained(p);
        EXPECT_EQ(s.path, Path::k2D) << where(p, s);
        if (large_tile_shares_kv(p))
          EXPECT_EQ(s.attention.row->tile, Tile::large) << where(p, s);
      }
}

// The model's answer is the cheapest candidate it printed, and the knobs of
// SelectPolicy move it: a policy that never pays for a split keeps 2D.
TEST(Select, PolicyKnobsAndTheCandidates) {
  if (!default_matrix()) GTEST_SKIP();
  for (Arch a : built_archs()) {
    Shape sh;
    sh.arch = to_string(a);
    const ProblemDesc p = batch(sh, same(2, 1, 32768));
    Selection s = explained(p);
    ASSERT_EQ(s.path, Path::k3D) << s.why;
    ASSERT_GE(s.candidates.size(), 2u);
    double best2 = 1e300, best3 = 1e300;
    for (const CandidateEstimate& c : s.candidates) {
      EXPECT_GT(c.cycles, 0) << c.row->name;
      EXPECT_EQ(c.cycles, std::max(c.compute_cycles, c.memory_cycles) + c.reduce_cycles);
      (c.row->path == Path::k2D ? best2 : best3) = std::min(c.row->path == Path::k2D ? best2 : best3, c.cycles);
    }
    EXPECT_EQ(s.estimate_cycles, best3);
    EXPECT_LT(best3 * 100, best2 * default_policy(a).split_margin_pct);
    EXPECT_NE(s.why.find("path 3d: estimate"), std::string::npos) << s.why;
    // The same without the explanation: the same answer, no candidates kept.
    const Selection quiet = select(p);
    EXPECT_EQ(quiet.attention.row, s.attention.row);
    EXPECT_EQ(quiet.num_segments, s.num_segments);
    EXPECT_TRUE(quiet.candidates.empty());
    // A split must beat 2D by more than it can: 2D.
    SelectPolicy pol = default_policy(a);
    pol.split_margin_pct = 1;
    SelectOptions o;
    o.policy = &pol;
    s = explained(p, o);
    EXPECT_EQ(s.path, Path::k2D) << s.why;
    // Fewer allowed segments bound the split.
    pol = default_policy(a);
    pol.max_segments = 8;
    s = explained(p, o);
    EXPECT_EQ(s.path, Path::k3D) << s.why;
    EXPECT_LE(s.num_segments, 8);
    // A knob out of range is refused, naming it.
    pol.overlap_waves = 0;
    s = select(p, o);
    EXPECT_FALSE(s.ok);
    EXPECT_TRUE(s.invalid);
    EXPECT_EQ(s.error, "options.policy->overlap_waves = 0; expected 1 to 64");
    EXPECT_EQ(options_error(o), s.error);
  }
}

// The shared scenario sets: every entry resolves on every architecture, and
// the decisions have the classes' properties.
TEST(Select, SharedScenarioDecisions) {
  if (!default_matrix()) GTEST_SKIP();
  size_t n = 0;
  for (const char* file : {"default.json", "models.json"}) {
    std::vector<explain::Scenario> sc;
    std::string err;
    ASSERT_TRUE(explain::load_scenarios(std::string(UATTN_SCENARIO_DIR) + "/" + file, &sc, &err)) << err;
    for (explain::Scenario& s : sc) {
      std::vector<Seqs> batches;
      if (!s.seqs.empty()) batches.push_back(s.seqs);
      for (const auto& b : explain::default_batches()) batches.push_back(b.second);
      // The classes: long-context decode, a verify batch, a chunk behind a long prefix.
      batches.push_back(same(4, 1, 32768));
      batches.push_back(same(4, 4, 16384));
      batches.push_back({{2048, 34816}});
      for (const Seqs& seqs : batches)
        for (Arch a : built_archs()) {
          s.seqs = seqs;
          const ProblemDesc p = explain::to_problem(s, a, 0);
          const Selection sel = explained(p);
          ASSERT_TRUE(sel.ok) << s.name << ": " << sel.error;
          ++n;
          if (sel.path == Path::k3D) {
            EXPECT_GE(sel.num_segments, 2) << s.name << " " << where(p, sel);
            EXPECT_GT(sel.workspace_bytes, 0u);
          }
          // A decode of 4 sequences at 32K leaves gfx950 idle: split. (gfx1030:
          // bound by memory bandwidth, see LongContextDecodeIsSplitWhileTheDeviceIsNotFull.)
          const bool long_decode = seqs == same(4, 1, 32768) && matrix_insn(a) != MatrixInsn::dot2;
          if (long_decode && (s.window == 0 || s.window > 512))
            EXPECT_EQ(sel.path, Path::k3D) << s.name << " " << where(p, sel);
        }
    }
  }
  EXPECT_GT(n, 100u);
}

// Input 6: every attention row of the matrix is chosen automatically for at
// least one realistic problem of a broad grid. A row none reaches is named.
TEST(Select, EveryAttentionRowIsReachable) {
  const std::vector<Arch> archs = built_archs();
  const std::pair<DType, DType> dtypes[] = {{DType::f16, DType::f16}, {DType::bf16, DType::bf16},
                                            {DType::f16, DType::fp8e4m3}, {DType::bf16, DType::fp8e4m3}};
  std::set<int> heads;
  for (const InstanceRow& r : all_rows()) heads.insert(r.head_size);
  // Feature sets models use (models.json): none, window, window+softcap, softcap,
  // window+sinks, alibi, qq_bias (speculative trees), and every feature.
  const uint32_t feature_sets[] = {0, kFeatWindow, kFeatWindow | kFeatSoftcap, kFeatSoftcap,
                                   kFeatWindow | kFeatSinks, kFeatAlibi, kFeatQQBias, kFeatAll};
  const Seqs batches[] = {same(1, 1, 32768), same(8, 1, 4096),   same(64, 1, 2048), same(256, 1, 1024),
                          same(4, 4, 8192),  same(16, 8, 16384), same(1, 2048, 2048), same(8, 512, 512),
                          {{1024, 33792}},   same(2, 128, 128)};
  std::map<const InstanceRow*, int> chosen;
  size_t n = 0;
  for (Arch a : archs)
    for (auto [qd, kvd] : dtypes)
      for (int head : heads)
        for (int block : {8, 16, 32, 64})
          for (uint32_t f : feature_sets)
            for (int qpk : {1, 4, 8})
              for (const Seqs& seqs : batches)
                for (int cus : {0, 32})  // the reference part, and a 32-CU part or partition
                  for (bool aligned : {true, false}) {
                    std::vector<int32_t> q, kv;
                    for (auto [x, y] : seqs) { q.push_back(x); kv.push_back(y); }
                    ProblemArgs pa;
                    pa.arch = a; pa.q_dtype = pa.out_dtype = qd; pa.kv_dtype = kvd;
                    pa.head_size = head; pa.block_size = block; pa.num_kv_heads = 8; pa.num_q_heads = 8 * qpk;
                    pa.q_lens = q.data(); pa.kv_lens = kv.data(); pa.num_seqs = (int)seqs.size();
                    // A model window (mistral 4096, gemma 1024, gpt-oss 128).
                    pa.window_left = (f & kFeatWindow) ? (head == 64 ? 127 : head == 256 ? 1023 : 4095) : -1;
                    pa.softcap = (f & kFeatSoftcap) ? 50.f : 0.f;
                    pa.sinks = f & kFeatSinks; pa.alibi = f & kFeatAlibi; pa.qq_bias = f & kFeatQQBias;
                    pa.num_cus = cus;
                    pa.rows_aligned = aligned;
                    const Selection s = select(make_problem(pa));
                    if (!s.ok) continue;  // a head size the architecture does not serve
                    ++chosen[s.attention.row];
                    ++n;
                  }
  std::string unreachable;
  size_t rows = 0;
  for (const InstanceRow& r : all_rows()) {
    if (r.path == Path::kReduce ||
        std::find(archs.begin(), archs.end(), r.arch) == archs.end())
      continue;
    ++rows;
    if (!chosen.count(&r)) unreachable += std::string("\n  ") + r.name;
  }
  EXPECT_TRUE(unreachable.empty()) << "rows no problem of the grid (" << n << " problems) selects automatically;"
                                   << " make the model reach them or remove them from the matrix:" << unreachable;
  EXPECT_GT(rows, 0u);
}

// select() remembers each thread's last decision: a repeat answers from it, and
// every answer (repeat, alternation, other options in between) equals the cost
// model's own answer for that problem (asked with an explanation, which bypasses
// the memo).
TEST(Select, RememberedDecisionsAreTheModelsDecisions) {
  std::vector<ProblemDesc> probs;
  for (Arch a : built_archs()) {
    Shape s;
    s.arch = to_string(a);
    probs.push_back(batch(s, Seqs(64, {1, 2048})));
    probs.push_back(batch(s, Seqs(4, {1024, 1024})));
    probs.push_back(batch(s, Seqs(3, {4, 7168})));
    probs.push_back(batch(s, Seqs(1, {1, 32768})));
  }
  auto same = [](const Selection& x, const Selection& y) {
    return x.ok == y.ok && x.path == y.path && x.num_segments == y.num_segments &&
           x.attention.row == y.attention.row && x.attention.grid.x == y.attention.grid.x &&
           x.attention.grid.y == y.attention.grid.y && x.attention.grid.z == y.attention.grid.z &&
           x.reduce.row == y.reduce.row && x.workspace_bytes == y.workspace_bytes &&
           x.estimate_cycles == y.estimate_cycles;
  };
  const ForcePath paths[] = {ForcePath::kAuto, ForcePath::k2D, ForcePath::k3D};
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < probs.size(); ++i)
      for (ForcePath path : paths) {
        SelectOptions o, e;
        o.path = e.path = path;
        e.explain = true;
        const Selection want = select(probs[i], e);
        ASSERT_TRUE(want.ok) << want.error;
        const Selection first = select(probs[i], o), again = select(probs[i], o);
        EXPECT_TRUE(same(first, want)) << i << " " << (int)path;
        EXPECT_TRUE(same(again, want)) << i << " " << (int)path;
        EXPECT_TRUE(again.why.empty() && again.candidates.empty());
        // The neighbour's problem in between: the memo holds one decision.
        const Selection other = select(probs[(i + 1) % probs.size()], o);
        EXPECT_TRUE(other.ok) << other.error;
        EXPECT_TRUE(same(select(probs[i], o), want)) << i;
      }
}
