// The lookup table: the whole served space resolves, every shared scenario
// resolves on both AMD architectures, selection is most-specialised-first, and
// the bundle holds exactly the table's kernels per architecture.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "scenario.hpp"  // tools/explain
#include "uattn/table.hpp"

using namespace uattn;

namespace {

std::vector<Arch> built_archs() {
  std::vector<Arch> a;
  const std::string t = std::string(",") + UATTN_GPU_TARGETS + ",";
  for (Arch x : kArchs)
    if (t.find(std::string(",") + to_string(x) + ",") != std::string::npos) a.push_back(x);
  return a;
}

bool full_matrix() {
  // A subset/filter build serves only part of the space; the served-space tests need the general group.
  for (const InstanceRow& r : all_rows())
    if (r.block_size == 0 && r.features == kFeatAll) return true;
  return false;
}

// Every head size the table serves on some architecture.
std::vector<int> served_heads() {
  std::set<int> h;
  for (const InstanceRow& r : all_rows()) h.insert(r.head_size);
  return {h.begin(), h.end()};
}
const std::array<std::pair<DType, DType>, 4> kPairs = {{{DType::f16, DType::f16}, {DType::bf16, DType::bf16},
                                                        {DType::f16, DType::fp8e4m3}, {DType::bf16, DType::fp8e4m3}}};

TEST(Table, RowsAreWellFormed) {
  std::set<std::string> names;
  for (const InstanceRow& r : all_rows()) {
    EXPECT_TRUE(names.insert(r.name).second) << "duplicate row " << r.name;
    EXPECT_EQ(std::string(r.name).rfind(std::string("uattn_") + to_string(r.arch) + "_", 0), 0u) << r.name;
    EXPECT_LE(r.lds_bytes, lds_budget(r.arch)) << r.name;
    EXPECT_EQ(r.wave_size, wave_size_of(r.arch)) << r.name;
    if (r.path == Path::kReduce) continue;
    // The row's tile record (generator/uattn_gen/tiles.py) is self-consistent:
    // block_m = rows per wave x waves, or the rows where the waves split the
    // head; a wave owns at most rows_per_wave(arch) rows; the tile kind's waves,
    // or more where the architecture record's entry sets them.
    EXPECT_EQ(r.block_m, r.head_split ? r.rows_per_wave : r.rows_per_wave * r.waves) << r.name;
    EXPECT_GE(r.rows_per_wave, 1) << r.name;
    EXPECT_LE(r.rows_per_wave, rows_per_wave(r.arch)) << r.name;
    EXPECT_GE(r.waves, tile_waves(r.tile)) << r.name;
    EXPECT_TRUE(!r.head_split || r.waves > 1) << r.name;
    // kTileBlockN keys, or a multiple for the wider tiles a record allows (ArchInfo.block_n_by_head).
    EXPECT_TRUE(r.block_n >= kTileBlockN && r.block_n % kTileBlockN == 0) << r.name << " block_n " << r.block_n;
    // kMaxKvLen's margin: the last KV tile and the tile prefetched after it keep
    // their key indices in int32 (table.hpp).
    EXPECT_LE(2 * (int64_t)r.block_n, (int64_t)2147483647 - kMaxKvLen) << r.name << " block_n " << r.block_n;
  }
  EXPECT_FALSE(all_rows().empty());
}

TEST(Table, EveryPointOfTheServedSpaceResolves) {
  if (!full_matrix()) GTEST_SKIP() << "subset build: the general instances are not part of it";
  const int blocks[] = {1, 13, 16, 32, 48, 64, 784};
  const int qpks[] = {1, 7, 8, 71};
  const ForcePath paths[] = {ForcePath::kAuto, ForcePath::k2D, ForcePath::k3D};
  size_t n = 0;
  for (Arch a : built_archs())
    for (auto [qd, kvd] : kPairs)
      for (int head : served_heads())
        for (int bs : blocks)
          for (uint32_t f = 0; f <= kFeatAll; ++f)
            for (int qpk : qpks)
              for (ForcePath fp : paths) {
                ProblemDesc p;
                p.arch = a; p.q_dtype = qd; p.kv_dtype = kvd; p.out_dtype = qd;
                p.head_size = head; p.block_size = bs; p.features = f;
                p.num_kv_heads = 2; p.num_q_heads = 2 * qpk;
                p.num_seqs = 3; p.num_tokens = 40; p.max_seqlen_q = 37; p.max_seqlen_k = 3000;
                SelectOptions o; o.path = fp;
                const Selection s = select(p, o);
                ASSERT_TRUE(s.ok) << s.error;
                const InstanceRow& r = *s.attention.row;
                ASSERT_EQ(r.arch, a);
                ASSERT_EQ(r.head_size, head);
                ASSERT_TRUE(r.block_size == 0 || r.block_size == bs) << r.name;
                ASSERT_EQ(p.features & ~r.features, 0u) << r.name;
                if (fp == ForcePath::k2D) ASSERT_EQ(s.path, Path::k2D);
                if (fp == ForcePath::k3D) {
                  ASSERT_EQ(s.path, Path::k3D);
                  ASSERT_NE(s.reduce.row, nullptr);
                  ASSERT_GT(s.workspace_bytes, 0u);
                }
                ++n;
              }
  EXPECT_GT(n, 10000u);
}

TEST(Table, MostSpecialisedFirst) {
  if (!full_matrix()) GTEST_SKIP();
  for (Arch a : built_archs()) {
    ProblemDesc p;
    p.arch = a; p.head_size = 128; p.block_size = 16; p.num_q_heads = 16; p.num_kv_heads = 2;
    p.num_seqs = 1; p.num_tokens = 1; p.max_seqlen_q = 1; p.max_seqlen_k = 100;
    Selection s = select(p);
    ASSERT_TRUE(s.ok) << s.error;
    EXPECT_EQ(s.attention.row->block_size, 16) << s.attention.row->name;
    EXPECT_EQ(s.attention.row->features, 0u) << s.attention.row->name;
    p.block_size = 13;  // only the generic instance serves it
    s = select(p);
    ASSERT_TRUE(s.ok) << s.error;
    EXPECT_EQ(s.attention.row->block_size, 0) << s.attention.row->name;
    // Deterministic: the same problem always gives the same row.
    EXPECT_EQ(select(p).attention.row, s.attention.row);
  }
}

TEST(Table, OutsideTheServedSpaceNamesWhatIsMissing) {
  ProblemDesc p;
  p.head_size = 100;
  Selection s = select(p);
  ASSERT_FALSE(s.ok);
  EXPECT_NE(s.error.find("head_size=100 is not served"), std::string::npos) << s.error;
  if (full_matrix()) EXPECT_NE(s.error.find("served: 64, 80, 96, 112, 128, 192, 256"), std::string::npos) << s.error;
  p.head_size = 128; p.num_q_heads = 12; p.num_kv_heads = 5;
  s = select(p);
  ASSERT_FALSE(s.ok);
  EXPECT_NE(s.error.find("num_q_heads=12"), std::string::npos) << s.error;
  p.num_q_heads = 16; p.num_kv_heads = 2; p.q_dtype = DType::f16; p.kv_dtype = DType::bf16;
  s = select(p);
  ASSERT_FALSE(s.ok);
  EXPECT_NE(s.error.find("kv_dtype=bf16"), std::string::npos) << s.error;
  SelectOptions o; o.filter = "no_such_instance*";
  p.kv_dtype = DType::f16;
  s = select(p, o);
  ASSERT_FALSE(s.ok);
  EXPECT_NE(s.error.find("filter='no_such_instance*'"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("; nearest: none: the filter admits no attention instance of gfx950"), std::string::npos)
      << s.error;
  // The nearest instances of a filter miss are instances the filter admits.
  o.filter = "uattn_gfx950_3d_*";
  o.path = ForcePath::k2D;
  s = select(p, o);
  ASSERT_FALSE(s.ok);
  EXPECT_FALSE(s.invalid);
  const size_t at = s.error.find("; nearest: ");
  ASSERT_NE(at, std::string::npos) << s.error;
  std::stringstream names(s.error.substr(at + 11));
  std::string name;
  int listed = 0;
  while (std::getline(names, name, ',')) {
    name.erase(0, name.find_first_not_of(' '));
    EXPECT_EQ(name.rfind("uattn_gfx950_3d_", 0), 0u) << name << " is not admitted by the filter: " << s.error;
    ++listed;
  }
  EXPECT_GE(listed, 1) << s.error;
  o.filter.clear();
  o.path = ForcePath::kAuto;
  for (int bad_segments : {-3, kMaxSegments + 1}) {
    o.num_segments = bad_segments;
    o.path = ForcePath::k3D;
    s = select(p, o);
    ASSERT_FALSE(s.ok);
    EXPECT_TRUE(s.invalid);
    EXPECT_EQ(s.error, "options.num_segments = " + std::to_string(bad_segments) + "; expected 0 (automatic) to 1024");
  }
}

// The one builder of ProblemDesc (runtime describe(), uattn-explain, the tests).
TEST(Table, ProblemBuilder) {
  const int32_t q_lens[] = {3, 0, 5}, kv_lens[] = {10, 5, 40};
  ProblemArgs a;
  a.arch = kArchs[kNumArchs - 1];
  a.q_dtype = DType::bf16; a.kv_dtype = DType::fp8e4m3; a.out_dtype = DType::bf16;
  a.head_size = 96; a.block_size = 13; a.num_q_heads = 12; a.num_kv_heads = 3;
  a.q_lens = q_lens; a.kv_lens = kv_lens; a.num_seqs = 3;
  a.window_left = 0; a.softcap = 30.0f; a.sinks = true;
  ProblemDesc p = make_problem(a);
  EXPECT_EQ(p.arch, kArchs[kNumArchs - 1]);
  EXPECT_EQ(p.num_tokens, 8);
  EXPECT_EQ(p.max_seqlen_q, 5);
  EXPECT_EQ(p.max_seqlen_k, 40);
  EXPECT_EQ(p.features, (uint32_t)(kFeatWindow | kFeatSoftcap | kFeatSinks));
  EXPECT_EQ(features_to_string(p.features), "window+softcap+sinks");
  EXPECT_EQ(p.head_size, 96);
  EXPECT_EQ(p.block_size, 13);
  a.num_tokens = 9; a.max_seqlen_q = 6; a.max_seqlen_k = 41;  // host-known bounds win
  a.window_left = -1; a.softcap = 0; a.sinks = false; a.alibi = true; a.qq_bias = true;
  p = make_problem(a);
  EXPECT_EQ(p.num_tokens, 9);
  EXPECT_EQ(p.max_seqlen_q, 6);
  EXPECT_EQ(p.max_seqlen_k, 41);
  EXPECT_EQ(p.features, (uint32_t)(kFeatAlibi | kFeatQQBias));
  EXPECT_EQ(features_used(ProblemArgs{}), 0u);  // the defaults use no feature
  ProblemArgs all;
  all.window_left = 5; all.softcap = 1.0f; all.alibi = all.qq_bias = all.sinks = true;
  EXPECT_EQ(features_used(all), (uint32_t)kFeatAll);
  all.window_left = 0;  // window W = 1: still a window
  all.softcap = 0;
  EXPECT_EQ(features_used(all), (uint32_t)(kFeatAll & ~kFeatSoftcap));
}

// Names come from the generated records.
TEST(Table, NamesFromTheRecords) {
  for (Arch a : kArchs) {
    Arch b = kArchs[0];
    ASSERT_TRUE(arch_from_name(arch_record(a).name, &b));
    EXPECT_EQ(b, a);
    EXPECT_STREQ(to_string(a), arch_record(a).name);
    EXPECT_NE(arch_list().find(arch_record(a).name), std::string::npos);
  }
  Arch b = kArchs[0];
  EXPECT_TRUE(arch_from_name("gfx1030:xnack-", &b));
  EXPECT_EQ(b, Arch::gfx1030);
  EXPECT_FALSE(arch_from_name("gfx942", &b));
  EXPECT_STREQ(to_string(Tile::large), "large");
  EXPECT_STREQ(to_string(Path::kReduce), "reduce");
  EXPECT_STREQ(to_string(DType::fp8e4m3), "fp8e4m3");
  EXPECT_STREQ(to_string((DType)7), "?");
  EXPECT_EQ(dtype_list(is_query_dtype), "f16 or bf16");
  EXPECT_EQ(cu_count(Arch::gfx950), 256);
  EXPECT_EQ(cu_count(Arch::gfx1030), 72);
  EXPECT_EQ(features_to_string(kFeatAll), "window+softcap+alibi+qq_bias+sinks");
}

// The shared cases of the one glob syntax (also run against the generator's matcher).
TEST(Table, GlobMatch) {
  std::ifstream f(UATTN_GLOB_CASES);
  ASSERT_TRUE(f) << UATTN_GLOB_CASES;
  const nlohmann::json cases = nlohmann::json::parse(f)["cases"];
  ASSERT_GE(cases.size(), 15u);
  for (const auto& c : cases)
    EXPECT_EQ(glob_match(c[0].get<std::string>().c_str(), c[1].get<std::string>().c_str()), c[2].get<bool>())
        << c.dump();
}

// Every scenario of ../shared/scenarios resolves on both architectures for auto, 2d and 3d.
TEST(Table, SharedScenariosResolve) {
  if (!full_matrix()) GTEST_SKIP();
  size_t n = 0;
  for (const char* file : {"default.json", "models.json"}) {
    std::vector<explain::Scenario> list;
    std::string err;
    ASSERT_TRUE(explain::load_scenarios(std::string(UATTN_SCENARIO_DIR) + "/" + file, &list, &err)) << err;
    for (explain::Scenario sc : list) {
      if (sc.seqs.empty()) sc.seqs = {{1, 2048}, {1, 2048}, {512, 1024}};
      for (Arch a : built_archs())
        for (ForcePath fp : {ForcePath::kAuto, ForcePath::k2D, ForcePath::k3D}) {
          SelectOptions o; o.path = fp;
          const Selection s = select(explain::to_problem(sc, a, 0), o);
          EXPECT_TRUE(s.ok) << sc.name << " " << to_string(a) << ": " << s.error;
          ++n;
        }
    }
  }
  EXPECT_GE(n, 30u * built_archs().size() * 3u / 2u);
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, k);
  pclose(f);
  return out;
}

TEST(Bundle, HoldsExactlyTheBuiltTargets) {
  const std::string list = run(std::string(UATTN_BUNDLER) + " -list -type=o -input=" + UATTN_BUNDLE_PATH);
  std::set<std::string> got;
  std::istringstream in(list);
  for (std::string l; std::getline(in, l);)
    if (l.rfind("hipv4-", 0) == 0) got.insert(l);
  std::set<std::string> want;
  for (Arch a : built_archs()) want.insert(std::string("hipv4-amdgcn-amd-amdhsa--") + arch_record(a).offload_target);
  EXPECT_EQ(got, want) << list;
}

// Every code object holds exactly the table's kernels of its architecture and
// its check kernel (checked launches, uattn/kernel/check.hpp).
TEST(Bundle, CodeObjectSymbolsEqualTableRows) {
  for (Arch a : built_archs()) {
    const std::string co = std::string(UATTN_BUILD_DIR) + "/test_unbundled_" + to_string(a) + ".co";
    run(std::string(UATTN_BUNDLER) + " -unbundle -type=o -targets=hipv4-amdgcn-amd-amdhsa--" +
        arch_record(a).offload_target +
        " -input=" + UATTN_BUNDLE_PATH + " -output=" + co);
    const std::string notes = run(std::string(UATTN_READELF) + " --notes " + co);
    std::set<std::string> kernels;
    std::istringstream in(notes);
    for (std::string l; std::getline(in, l);) {
      const auto pos = l.find(".name:");
      if (pos != std::string::npos) {
        std::string n = l.substr(pos + 6);
        n.erase(0, n.find_first_not_of(' '));
        kernels.insert(n);
      }
    }
    std::set<std::string> rows;
    for (const InstanceRow& r : all_rows())
      if (r.arch == a) rows.insert(r.name);
    rows.insert("uattn_" + std::string(to_string(a)) + "_check");  // the index-array check kernel: no table row
    EXPECT_EQ(kernels, rows) << "code object " << co;
    EXPECT_FALSE(kernels.empty());
    // wavefront size of every kernel matches the architecture
    const std::string ws = std::string(".wavefront_size: ") + std::to_string(wave_size_of(a));
    size_t count = 0;
    for (size_t p = notes.find(".wavefront_size:"); p != std::string::npos; p = notes.find(".wavefront_size:", p + 1)) {
      std::string l = notes.substr(p, notes.find('\n', p) - p);
      l.erase(std::remove(l.begin(), l.end(), ' '), l.end());
      EXPECT_EQ(l, ".wavefront_size:" + std::to_string(wave_size_of(a)));
      ++count;
    }
    EXPECT_EQ(count, rows.size());
  }
}

}  // namespace

// Rows that are not 8-element aligned go to the generic instances only, on
// every built architecture (specialised instances move rows with 16-byte
// vector accesses on gfx950 and dword accesses on gfx1030; the generic ones
// test the alignment per launch).
TEST(Table, UnalignedRowsRouteToGenericInstances) {
  ProblemDesc p;
  p.head_size = 128;
  p.block_size = 16;
  p.num_q_heads = 8;
  p.num_kv_heads = 1;
  p.max_seqlen_q = p.num_tokens = 1;
  p.max_seqlen_k = 100;
  for (Arch arch : built_archs()) {
    for (ForcePath f : {ForcePath::k2D, ForcePath::k3D}) {
      p.arch = arch;
      SelectOptions o;
      o.path = f;
      p.rows_aligned = true;
      const Selection a = select(p, o);
      ASSERT_TRUE(a.ok) << a.error;
      p.rows_aligned = false;
      const Selection u = select(p, o);
      ASSERT_TRUE(u.ok) << u.error;
      EXPECT_EQ(u.attention.row->arch, arch) << u.attention.row->name;
      EXPECT_TRUE(is_generic(*u.attention.row)) << u.attention.row->name;
      if (full_matrix()) EXPECT_FALSE(is_generic(*a.attention.row)) << a.attention.row->name;
    }
  }
}

namespace {

// The selector's view of a batch (q_len, kv_len per sequence), head size 128,
// block size 16, through the one builder make_problem().
ProblemDesc batch(const char* arch, DType dt, int q_heads, int kv_heads,
                  const std::vector<std::pair<int, int>>& seqs, int window_left = -1) {
  std::vector<int32_t> q, kv;
  for (auto [a, b] : seqs) { q.push_back(a); kv.push_back(b); }
  ProblemArgs a;
  EXPECT_TRUE(arch_from_name(arch, &a.arch)) << arch;
  a.q_dtype = a.kv_dtype = a.out_dtype = dt;
  a.head_size = 128; a.block_size = 16; a.num_q_heads = q_heads; a.num_kv_heads = kv_heads;
  a.q_lens = q.data(); a.kv_lens = kv.data(); a.num_seqs = (int)seqs.size();
  a.window_left = window_left;
  return make_problem(a);
}

bool built(const char* arch) {
  Arch a;
  if (!arch_from_name(arch, &a)) return false;
  const std::vector<Arch> b = built_archs();
  return std::find(b.begin(), b.end(), a) != b.end();
}

}  // namespace

// select() writes the explanation only when asked; the answer is the same.
TEST(Table, ExplanationOnlyWhenAsked) {
  if (!full_matrix()) GTEST_SKIP();
  for (const auto& seqs : {std::vector<std::pair<int, int>>{{1, 2048}}, {{1, 100}, {5, 18}}, {{512, 1024}}}) {
    const ProblemDesc p = batch("gfx950", DType::f16, 32, 8, seqs);
    SelectOptions o;
    const Selection quiet = select(p, o);
    o.explain = true;
    const Selection told = select(p, o);
    ASSERT_TRUE(quiet.ok && told.ok) << quiet.error << told.error;
    EXPECT_TRUE(quiet.why.empty()) << quiet.why;
    EXPECT_NE(told.why.find(std::string("instance ") + told.attention.row->name), std::string::npos) << told.why;
    EXPECT_EQ(quiet.attention.row, told.attention.row);
    EXPECT_EQ(quiet.path, told.path);
    EXPECT_EQ(quiet.num_segments, told.num_segments);
    EXPECT_EQ(quiet.workspace_bytes, told.workspace_bytes);
  }
}

// A requested segment count is honoured or refused, never dropped (also
// with path 2d, or auto choosing 2D).
TEST(Table, RequestedSegmentsAreNeverDropped) {
  if (!full_matrix()) GTEST_SKIP();
  for (Arch a : built_archs()) {
    ProblemDesc p = batch("gfx950", DType::f16, 32, 8, {{1, 100}});
    p.arch = a;
    SelectOptions o;
    o.num_segments = 7;
    o.path = ForcePath::k2D;
    Selection s = select(p, o);
    ASSERT_FALSE(s.ok);
    EXPECT_TRUE(s.invalid);  // a usage error (options_error()), not "no instance"
    EXPECT_EQ(s.error, "options.num_segments = 7 with options.path = 1 (2d): a segment count applies to the 3D "
                       "(split-KV) path only; expected num_segments 0, or path 0 (auto) or 2 (3d)");
    // Automatic path: without a count this problem is 2D on gfx950 (max_seqlen_k 100); the count asks for 3D.
    o.path = ForcePath::kAuto;
    if (a == Arch::gfx950) EXPECT_EQ(select(p, SelectOptions{}).path, Path::k2D);
    o.explain = true;
    s = select(p, o);
    ASSERT_TRUE(s.ok) << s.error;
    EXPECT_EQ(s.path, Path::k3D);
    EXPECT_EQ(s.num_segments, 7);
    EXPECT_EQ(s.attention.grid.z, 7u);
    EXPECT_EQ(s.workspace_bytes, workspace_layout(1, 32, 7, 128).total_bytes);
    EXPECT_NE(s.why.find("path 3d: 7 segments requested"), std::string::npos) << s.why;
    // One bound: kMaxSegments is accepted, one more is not.
    o.num_segments = kMaxSegments;
    s = select(p, o);
    ASSERT_TRUE(s.ok) << s.error;
    EXPECT_EQ(s.num_segments, kMaxSegments);
    o.num_segments = kMaxSegments + 1;
    s = select(p, o);
    ASSERT_FALSE(s.ok);
    EXPECT_NE(s.error.find("expected 0 (automatic) to 1024"), std::string::npos) << s.error;
  }
}

// The selector's decisions (the cost model): test_select.cpp.
