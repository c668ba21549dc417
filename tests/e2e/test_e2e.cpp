// End to end: the real runtime (libuattn's sources, built as uattn_cpudev)
// on the CPU-backed HIP device (tests/hipcpu). Every call goes the runtime's
// own way: probe the device, pick the bundle entry for its target id,
// hipModuleLoadData, hipModuleGetFunction, pack AttnParams as the kernel
// argument buffer, compute the grid, carve the workspace, launch attention and
// reduce on the caller's stream. Results are compared with the fp64 reference.
//
// Process-wide devices: 0 = gfx950:sramecc+:xnack- (256 CUs), 1 = gfx1030 (reports 36 WGPs = 72 CUs).
// Built with UATTN_E2E_ENGINE_ISA (CTest), every launched kernel runs as its code
// object in the instruction-level emulator (tools/emu): the runtime on the shipped
// bytes. Without it, the device's default engine ($UATTN_HIPCPU_ENGINE, else the twin).
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>
#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "device_problem.hpp"
#include "hipcpu.hpp"
#include "scenario.hpp"  // tools/explain
#include "sets.hpp"  // tools/bench
#include "uattn/validate.hpp"  // dtype_name

using namespace uattn;
namespace ut = uattn::testing;
using uattn::e2e::RunOutcome;
using uattn::e2e::RunSpec;

namespace {

constexpr double kWorkBudget = 1200;  // scenario scaling for CPU execution (sets.hpp)

struct Devices : ::testing::Environment {
  void SetUp() override {
    hipcpu::set_devices({{"gfx950:sramecc+:xnack-", 0, ""}, {"gfx1030", 0, ""}});
#ifdef UATTN_E2E_ENGINE_ISA
    hipcpu::set_engine(hipcpu::Engine::kIsa);
#endif
  }
};
const auto* const kEnv = ::testing::AddGlobalTestEnvironment(new Devices);

int device_of(Arch a) { return a == Arch::gfx950 ? 0 : 1; }
const char* lane_name(ForcePath p) { return p == ForcePath::kAuto ? "auto" : p == ForcePath::k2D ? "2d" : "3d"; }

Runtime& runtime() {
  static std::unique_ptr<Runtime> rt = [] {
    std::unique_ptr<Runtime> r;
    const Status s = Runtime::create(&r);  // the bundle search: ends at this build tree's bundle
    if (!s.ok()) throw std::runtime_error(s.message);
    return r;
  }();
  return *rt;
}

uattn_runtime_t* c_runtime() {
  static uattn_runtime_t* rt = [] {
    uattn_runtime_t* r = nullptr;
    if (uattn_runtime_create(nullptr, &r) != UATTN_OK) throw std::runtime_error(uattn_last_error_message());
    return r;
  }();
  return rt;
}

// Whether a 3D plan of `arch` may take the fused reduce (uattn/table.hpp):
// gfx950, at most 4 packed rows per sequence (max_seqlen_q x qpk), 1..8
// segments, a multiple of 8 up to 128 or a multiple of 16 up to 256 (sub-groups
// of 8, or of 16 past 128), its counters within one buffer (the selector then
// takes it where its estimate is the lower).
bool fused_plan(Arch arch, const Selection& sel, const ut::ProblemSpec& spec) {
  const int s = sel.num_segments;
  const int sub = s <= 128 ? 8 : 16;
  int max_q = 0;
  for (const auto& sq : spec.seqs) max_q = std::max(max_q, sq.first);
  return arch == Arch::gfx950 && max_q * (spec.num_q_heads / spec.num_kv_heads) <= 4 &&
         (s <= 8 || (s % sub == 0 && s <= 256)) &&
         (uint64_t)sel.attention.grid.x * (uint64_t)spec.num_kv_heads * (uint64_t)((s + sub - 1) / sub + 1) <=
             kFusedCounterWords;
}

// Runs `spec` on `arch` through the chosen API and checks what was launched.
void expect_runs(const ut::ProblemSpec& spec, Arch arch, ForcePath lane, bool c_api, int pad_rows = 0,
                 const std::string& what = "") {
  ASSERT_EQ(hipSetDevice(device_of(arch)), hipSuccess);
  auto prob = ut::make_problem(spec, exec::guarded_allocator());
  RunSpec rs;
  rs.opt.path = lane;
  rs.c_api = c_api;
  rs.c_runtime = c_runtime();
  rs.pad_rows = pad_rows;
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  rs.stream = stream;
  hipcpu::clear_launches();
  Runtime* rt = &runtime();
  const RunOutcome r = e2e::run_on_device(rt, *prob, rs);
  ASSERT_EQ(hipStreamDestroy(stream), hipSuccess);
  ASSERT_TRUE(r.ok) << what << " " << ut::describe(spec) << ": " << r.error;
  // What ran is what the runtime planned, on this device and stream, in order.
  const std::vector<hipcpu::LaunchRecord> l = hipcpu::launches();
  if (prob->num_tokens == 0 || spec.seqs.empty()) {
    EXPECT_TRUE(l.empty());
    return;
  }
  ASSERT_TRUE(r.sel.ok);
  if (lane == ForcePath::k2D) {
    EXPECT_EQ(r.sel.path, Path::k2D);
  }
  if (lane == ForcePath::k3D) {
    EXPECT_EQ(r.sel.path, Path::k3D);
  }
  // 3D: attention and reduce, or the attention launch alone with the fused
  // reduce (the runtime has a counter buffer for every stream of this device).
  const bool reduce_launch = r.sel.path == Path::k3D && !r.sel.fused_reduce;
  EXPECT_TRUE(!r.sel.fused_reduce || (r.sel.path == Path::k3D && fused_plan(arch, r.sel, spec)));
  ASSERT_EQ(l.size(), reduce_launch ? 2u : 1u);
  auto same = [&](const hipcpu::LaunchRecord& rec, const KernelLaunch& k) {
    EXPECT_EQ(rec.kernel, k.row->name);
    EXPECT_EQ(rec.device, device_of(arch));
    EXPECT_EQ(rec.stream, stream);
    EXPECT_EQ(rec.grid[0], k.grid.x);
    EXPECT_EQ(rec.grid[1], k.grid.y);
    EXPECT_EQ(rec.grid[2], k.grid.z);
    EXPECT_EQ(rec.block, k.threads);
  };
  same(l[0], r.sel.attention);
  if (reduce_launch) same(l[1], r.sel.reduce);
}

// ---------------------------------------------------------- scenario sets --
struct Case { size_t idx; Arch arch; ForcePath lane; };

const std::vector<bench::BenchScenario>& scenarios() {
  static const std::vector<bench::BenchScenario> s = [] {
    std::vector<bench::BenchScenario> out;
    std::string err;
    for (const char* set : {"default", "models"})
      if (!bench::load_set(set, UATTN_SCENARIO_DIR, UATTN_SETS_DIR, kWorkBudget, &out, &err))
        throw std::runtime_error(err);
    return out;
  }();
  return s;
}

std::vector<Case> cases() {
  std::vector<Case> c;
  for (size_t i = 0; i < scenarios().size(); ++i)
    for (Arch a : {Arch::gfx950, Arch::gfx1030})
      for (ForcePath p : {ForcePath::kAuto, ForcePath::k2D, ForcePath::k3D}) c.push_back({i, a, p});
  return c;
}

class Scenario : public ::testing::TestWithParam<Case> {};

// auto runs through the C API, the forced lanes through the C++ API.
TEST_P(Scenario, MatchesReference) {
  const Case c = GetParam();
  const bench::BenchScenario& s = scenarios()[c.idx];
  expect_runs(s.spec, c.arch, c.lane, /*c_api=*/c.lane == ForcePath::kAuto, 0,
              s.name + " (scale 1/" + std::to_string(s.scale) + ")");
}

INSTANTIATE_TEST_SUITE_P(Sets, Scenario, ::testing::ValuesIn(cases()), [](const auto& i) {
  std::string n = scenarios()[i.param.idx].set + "_" + scenarios()[i.param.idx].name + "_" + to_string(i.param.arch) +
                  "_" + lane_name(i.param.lane);
  for (char& ch : n) if (!isalnum((unsigned char)ch)) ch = '_';
  return n;
});

// ------------------------------------------------- dtypes, padding, q_len 0 --
struct Variant { Arch arch; ForcePath lane; };
std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (Arch a : {Arch::gfx950, Arch::gfx1030})
    for (ForcePath p : {ForcePath::kAuto, ForcePath::k2D, ForcePath::k3D}) v.push_back({a, p});
  return v;
}
std::string variant_name(const ::testing::TestParamInfo<Variant>& i) {
  return std::string(to_string(i.param.arch)) + "_" + lane_name(i.param.lane);
}
class Paths : public ::testing::TestWithParam<Variant> {};

ut::ProblemSpec mixed(uint64_t seed) {
  ut::ProblemSpec s;
  s.head_size = 128;
  s.block_size = 16;
  s.num_q_heads = 8;
  s.num_kv_heads = 2;
  s.seqs = {{1, 300}, {7, 90}, {33, 33}};
  s.seed = seed;
  return s;
}

TEST_P(Paths, Fp8KvCache) {
  ut::ProblemSpec s = mixed(11);
  s.q_dtype = s.out_dtype = DType::bf16;
  s.kv_dtype = DType::fp8e4m3;
  s.k_scale = 0.05f;
  s.v_scale = 0.08f;
  expect_runs(s, GetParam().arch, GetParam().lane, false);
  s.q_dtype = s.out_dtype = DType::f16;
  s.seed = 12;
  expect_runs(s, GetParam().arch, GetParam().lane, true);
}

TEST_P(Paths, Fp8Output) {
  ut::ProblemSpec s = mixed(13);
  s.out_dtype = DType::fp8e4m3;
  s.output_scale = 0.02f;
  expect_runs(s, GetParam().arch, GetParam().lane, false);
  s.kv_dtype = DType::fp8e4m3;  // fp8 in and out
  s.k_scale = s.v_scale = 0.0625f;
  s.seed = 14;
  expect_runs(s, GetParam().arch, GetParam().lane, true);
}

TEST_P(Paths, PaddedBatchLeavesPaddingRowsAlone) {
  ut::ProblemSpec s = mixed(15);
  s.window = 40;
  s.sinks = true;
  expect_runs(s, GetParam().arch, GetParam().lane, false, /*pad_rows=*/5);
  s.seed = 16;
  expect_runs(s, GetParam().arch, GetParam().lane, true, /*pad_rows=*/3);
}

TEST_P(Paths, ZeroLengthQueries) {
  ut::ProblemSpec s = mixed(17);
  s.seqs = {{0, 64}, {3, 100}, {0, 1}, {1, 17}, {0, 0}};
  expect_runs(s, GetParam().arch, GetParam().lane, false);
  s.seqs = {{0, 50}, {0, 3}};  // no query at all: nothing is launched
  expect_runs(s, GetParam().arch, GetParam().lane, true);
}

// The longest KV length a call may have (kMaxKvLen = 2^31 - 2^16, uattn/table.hpp),
// with a sliding window so that the kernels walk only the last few KV tiles: the
// tile bounds and key indices near 2^31 (locate_work's kv_hi + block_n - 1,
// phases.hpp) in the shipped code objects, for a specialised instance (block size
// 16) and the generic one (block size 48), decode and short-prefill rows, against
// the fp64 reference. Every block wholly outside the window names one NaN-filled
// block (shared_nan_block), so a read outside the window poisons the output.
TEST_P(Paths, WindowAtTheLongestKvLength) {
  for (int bs : {16, 48}) {
    ut::ProblemSpec s = mixed(19);
    s.block_size = bs;
    s.window = 100;
    s.shared_nan_block = true;
    s.seqs = {{3, (int)kMaxKvLen}};  // 2^27 block-table columns at block size 16
    expect_runs(s, GetParam().arch, GetParam().lane, bs == 16, 0, "block_size " + std::to_string(bs));
  }
}

INSTANTIATE_TEST_SUITE_P(E2E, Paths, ::testing::ValuesIn(variants()), variant_name);

// ------------------------------------------------------------- workspace --
class PerArch : public ::testing::TestWithParam<Arch> {};

TEST_P(PerArch, WorkspaceIsReusedAcrossCalls) {
  const Arch arch = GetParam();
  ASSERT_EQ(hipSetDevice(device_of(arch)), hipSuccess);
  ut::ProblemSpec a = mixed(21), b = mixed(22);
  a.seqs = {{1, 900}, {1, 400}};
  b.seqs = {{5, 300}, {40, 60}, {1, 1000}};
  b.num_q_heads = 16;
  SelectOptions o8, o3;
  o8.path = o3.path = ForcePath::k3D;
  o8.num_segments = 8;
  o3.num_segments = 3;
  auto pa = ut::make_problem(a, exec::guarded_allocator());
  auto pb = ut::make_problem(b, exec::guarded_allocator());
  size_t need_a = 0, need_b = 0;
  {
    e2e::DeviceProblem da(*pa), db(*pb);
    ASSERT_TRUE(runtime().workspace_size(da.args(), &need_a, o8).ok());
    ASSERT_TRUE(runtime().workspace_size(db.args(), &need_b, o3).ok());
    // Too small a workspace is refused before anything is launched.
    void* small = nullptr;
    ASSERT_EQ(hipMalloc(&small, need_a / 2), hipSuccess);
    hipcpu::clear_launches();
    const Status s = runtime().run(da.args(), small, need_a / 2, nullptr, o8);
    EXPECT_EQ(s.code, kInvalidArgument);
    EXPECT_NE(s.message.find("workspace_bytes = " + std::to_string(need_a / 2)), std::string::npos) << s.message;
    EXPECT_TRUE(hipcpu::launches().empty());
    ASSERT_EQ(hipFree(small), hipSuccess);
  }
  ASSERT_GT(need_a, 0u);
  ASSERT_GT(need_b, 0u);
  const size_t bytes = std::max(need_a, need_b);
  void* ws = nullptr;
  ASSERT_EQ(hipMalloc(&ws, bytes), hipSuccess);
  for (int round = 0; round < 2; ++round)
    for (auto [prob, opt] : {std::pair{pa.get(), o8}, std::pair{pb.get(), o3}}) {
      RunSpec rs;
      rs.opt = opt;
      rs.workspace = ws;
      rs.workspace_bytes = bytes;
      const RunOutcome r = e2e::run_on_device(&runtime(), *prob, rs);
      EXPECT_TRUE(r.ok) << "round " << round << ": " << r.error;
      EXPECT_EQ(r.sel.num_segments, opt.num_segments);
    }
  ASSERT_EQ(hipFree(ws), hipSuccess);
}

// The reduce kernel's waves split the segments (reduce.hpp): one wave (up to
// 31 segments), 2 (33, 40), 3 (63) and 4 waves (64 and more; select.cpp
// reduce_waves), segments with no KV tile, counts past the wave size up to
// twice it (two segments' weights per lane: wave64 65-128, wave32 33-64) and
// past that (the lane-strided maxima and sums), against the fp64 reference.
TEST_P(PerArch, ReduceAtEverySegmentSplit) {
  const Arch arch = GetParam();
  ASSERT_EQ(hipSetDevice(device_of(arch)), hipSuccess);
  ut::ProblemSpec s = mixed(23);
  s.seqs = {{1, 1000}, {3, 47}, {1, 5}};
  for (int segs : {1, 2, 3, 4, 5, 17, 33, 40, 63, 64, 65, 100, 127, 128, 129}) {
    RunSpec rs;
    rs.opt.path = ForcePath::k3D;
    rs.opt.num_segments = segs;
    rs.opt.fused_reduce = false;  // the reduce kernel (FusedReduceAtEverySegmentSplit: the fused one)
    const RunOutcome r = e2e::run_on_device(&runtime(), *ut::make_problem(s, exec::guarded_allocator()), rs);
    EXPECT_TRUE(r.ok) << segs << " segments: " << r.error;
    EXPECT_EQ(r.sel.num_segments, segs);
    // 5 tokens x 8 query heads = 40 reduce workgroups, fewer than either device's SIMDs.
    ASSERT_NE(r.sel.reduce.row, nullptr) << segs;
    EXPECT_EQ(r.sel.reduce.threads, (uint32_t)(std::clamp(segs / 16, 1, 4) * r.sel.reduce.row->wave_size)) << segs;
  }
}

// The fused reduce (templates/uattn/kernel/fused_reduce.hpp; gfx950): the
// attention launch alone combines the segments, at one level (up to 8
// segments) and two (sub-groups of 8 up to 128 segments, of 16 up to 256), for workgroups of 1 to 4
// packed rows (the plans it is taken for: decodes of up to 4 query heads per KV
// head, and up to 4 tokens of one head), with segments that walk no KV tile.
// Head sizes 64 / 128 / 256 and the generic instance (block size 13: d80,
// ALiBi): the combining wave's 1, 2 and 4 dims per lane, 4, 2 or 1 rows at
// once; its output in f16, bf16 and fp8 e4m3 (a per-dtype store, chosen once),
// from f16 and fp8 KV; 16 sub-groups (both halves of the second level's
// 16 slots in flight at once); past 128 segments sub-groups of 16 (144: 9 of
// them, 160: 10, 256: 16). Runs on one stream, so every launch reuses the counter buffer the first
// one zeroed: a counter left unreset leaves rows unwritten (NaN-poisoned) in the
// next. Counts the fused reduce does not take (12, 129, 136, 257), and 8 rows, fall back
// to the reduce launch. Against the fp64 reference; the launches counted.
TEST_P(PerArch, FusedReduceAtEverySegmentSplit) {
  const Arch arch = GetParam();
  ASSERT_EQ(hipSetDevice(device_of(arch)), hipSuccess);
  // out: the output dtype (q_dtype the same, but where fp8 e4m3: then f16 Q);
  // kv8: fp8 e4m3 KV cache.
  struct Shape { int head, block, qpk, q_len; bool alibi; std::vector<int> segs; DType out = DType::f16; bool kv8 = false; };
  const std::vector<int> all = {1, 2, 3, 8, 12, 16, 24, 64, 120, 128, 129, 136, 144, 256, 257};
  const std::vector<int> some = {3, 16, 64, 129, 160};
  const std::vector<int> two_levels = {16, 128, 256};  // 2 and 16 sub-groups of 8; 16 of 16
  const Shape shapes[] = {{128, 16, 4, 1, false, all},
                          {128, 16, 1, 4, false, all},
                          {128, 16, 2, 2, false, some},
                          {128, 16, 8, 1, false, some},
                          {64, 16, 4, 1, false, some},
                          {256, 16, 4, 1, false, some},
                          {256, 16, 1, 3, false, some},
                          {80, 13, 4, 1, true, some},
                          {64, 32, 2, 2, true, some},
                          {128, 16, 4, 1, false, two_levels, DType::bf16, true},
                          {128, 16, 3, 1, false, two_levels, DType::fp8e4m3},
                          {256, 16, 2, 2, false, two_levels, DType::bf16}};
  for (const Shape& sh : shapes) {
    const int qpk = sh.qpk;
    ut::ProblemSpec s = mixed(24 + qpk + sh.head + 7 * (int)sh.out + sh.kv8);
    s.head_size = sh.head;
    s.block_size = sh.block;
    s.alibi = sh.alibi;
    s.num_q_heads = 2 * qpk;
    s.seqs = {{1, 1000}, {sh.q_len, 47}, {1, 5}, {sh.q_len, 200}};
    s.out_dtype = sh.out;
    s.q_dtype = s.kv_dtype = sh.out == DType::fp8e4m3 ? DType::f16 : sh.out;
    if (sh.out == DType::fp8e4m3) s.output_scale = 0.02f;
    if (sh.kv8) {
      s.kv_dtype = DType::fp8e4m3;
      s.k_scale = 0.05f;
      s.v_scale = 0.08f;
    }
    SCOPED_TRACE("d" + std::to_string(sh.head) + " block " + std::to_string(sh.block) + " qpk " + std::to_string(qpk) +
                 " q_len " + std::to_string(sh.q_len) + " out " + dtype_name(sh.out) + (sh.kv8 ? " fp8 KV" : ""));
    int fused_runs = 0;
    for (int segs : sh.segs) {
      RunSpec rs;
      rs.opt.path = ForcePath::k3D;
      rs.opt.num_segments = segs;
      hipcpu::clear_launches();
      const RunOutcome r = e2e::run_on_device(&runtime(), *ut::make_problem(s, exec::guarded_allocator()), rs);
      EXPECT_TRUE(r.ok) << segs << " segments: " << r.error;
      EXPECT_EQ(r.sel.num_segments, segs);
      const bool eligible = arch == Arch::gfx950 && qpk * sh.q_len <= 4 &&
                            (segs <= 8 || (segs % (segs <= 128 ? 8 : 16) == 0 && segs <= 256));
      EXPECT_EQ(fused_plan(arch, r.sel, s), eligible) << segs;
      // Where it may, the selector weighs both and takes the lower estimate: at
      // d128 the fused one everywhere (its combining wave's ~4 x 900 cycles
      // against a launch's 8400).
      if (sh.head == 128) EXPECT_EQ(r.sel.fused_reduce, eligible) << segs;
      else EXPECT_TRUE(eligible || !r.sel.fused_reduce) << segs;
      fused_runs += r.sel.fused_reduce;
      EXPECT_EQ(hipcpu::launches().size(), r.sel.fused_reduce ? 1u : 2u) << segs;
    }
    // Every shape of 4 rows or fewer runs the fused kernels at some count.
    if (arch == Arch::gfx950 && qpk * sh.q_len <= 4) EXPECT_GT(fused_runs, 0);
  }
}

// ------------------------------------------------------ devices, threads --
TEST(E2EDevices, TwoArchitecturesInOneProcess) {
  hipcpu::clear_launches();
  std::vector<std::string> errors(2);
  std::vector<std::thread> t;
  for (int dev = 0; dev < 2; ++dev)
    t.emplace_back([&, dev] {
      if (hipSetDevice(dev) != hipSuccess) { errors[dev] = "hipSetDevice"; return; }
      ut::ProblemSpec s = mixed(30 + dev);
      auto prob = ut::make_problem(s, exec::guarded_allocator());
      for (ForcePath p : {ForcePath::k2D, ForcePath::k3D}) {
        RunSpec rs;
        rs.opt.path = p;
        rs.opt.fused_reduce = false;  // 3D: attention + reduce on both devices
        const RunOutcome r = e2e::run_on_device(&runtime(), *prob, rs);
        if (!r.ok) errors[dev] += std::string(lane_name(p)) + ": " + r.error + "; ";
      }
    });
  for (std::thread& x : t) x.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
  int per_dev[2] = {0, 0};
  for (const hipcpu::LaunchRecord& l : hipcpu::launches()) {
    ++per_dev[l.device];
    EXPECT_NE(l.kernel.find(l.device == 0 ? "gfx950" : "gfx1030"), std::string::npos) << l.kernel;
  }
  EXPECT_EQ(per_dev[0], 3);  // 2D: 1 launch, 3D: attention + reduce
  EXPECT_EQ(per_dev[1], 3);
}

TEST(E2EDevices, ManyThreadsShareOneRuntime) {
  constexpr int kThreads = 8;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> t;
  for (int i = 0; i < kThreads; ++i)
    t.emplace_back([&, i] {
      const int dev = i % 2;
      if (hipSetDevice(dev) != hipSuccess) { errors[i] = "hipSetDevice"; return; }
      hipStream_t stream;
      if (hipStreamCreateWithFlags(&stream, i % 4 < 2 ? hipStreamDefault : hipStreamNonBlocking) != hipSuccess) {
        errors[i] = "hipStreamCreate";
        return;
      }
      for (int k = 0; k < 2; ++k) {
        ut::ProblemSpec s = mixed(100 + i * 2 + k);
        s.seqs = {{1 + i, 40 + 13 * i}, {1, 70}};
        s.q_dtype = s.out_dtype = s.kv_dtype = (i + k) % 2 ? DType::bf16 : DType::f16;
        auto prob = ut::make_problem(s, exec::guarded_allocator());
        RunSpec rs;
        rs.stream = stream;
        rs.opt.path = k ? ForcePath::k3D : ForcePath::kAuto;
        rs.c_api = i % 3 == 0;
        rs.c_runtime = c_runtime();
        const RunOutcome r = e2e::run_on_device(&runtime(), *prob, rs);
        if (!r.ok) errors[i] += r.error + "; ";
      }
      (void)hipStreamDestroy(stream);
    });
  for (std::thread& x : t) x.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(errors[i], "") << "thread " << i;
}

TEST(E2EDevices, NoDeviceIsReportedByBothApis) {
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  auto prob = ut::make_problem(mixed(70), exec::guarded_allocator());
  e2e::DeviceProblem dp(*prob);
  std::unique_ptr<Runtime> rt;
  ASSERT_TRUE(Runtime::create(&rt).ok());
  uattn_runtime_t* c = nullptr;
  ASSERT_EQ(uattn_runtime_create(nullptr, &c), UATTN_OK);
  hipcpu::set_devices({});
  const Status s = rt->run(dp.args(), nullptr, 0, nullptr, {});
  const uattn_args_t ca = dp.c_args();
  const uattn_status_t cs = uattn_run(c, &ca, nullptr, 0, nullptr, nullptr);
  const std::string cmsg = uattn_last_error_message();
  hipcpu::set_devices({{"gfx950:sramecc+:xnack-", 0, ""}, {"gfx1030", 0, ""}});
  EXPECT_EQ(s.code, kNoDevice) << s.message;
  EXPECT_NE(s.message.find("no ROCm-capable device"), std::string::npos) << s.message;
  EXPECT_EQ(cs, UATTN_ERR_NO_DEVICE) << cmsg;
  uattn_runtime_destroy(c);
}

// ------------------------------------------- a bundle missing one arch --
std::vector<uint8_t> read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void put64(std::vector<uint8_t>& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(uint8_t(v >> (8 * i)));
}

// An uncompressed offload bundle (clang-offload-bundler layout) of a host
// entry and the gfx950 code object only.
std::vector<uint8_t> gfx950_only_bundle() {
  const std::vector<uint8_t> co = read_file(std::string(UATTN_BUILD_DIR) + "/uattn_gfx950.co");
  const std::string ids[2] = {"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx950"};
  std::vector<uint8_t> b(std::begin("__CLANG_OFFLOAD_BUNDLE__"), std::end("__CLANG_OFFLOAD_BUNDLE__") - 1);
  put64(b, 2);
  const size_t table = b.size() + 2 * 24 + ids[0].size() + ids[1].size();
  const size_t co_at = (table + 4095) / 4096 * 4096;
  put64(b, table); put64(b, 0); put64(b, ids[0].size()); b.insert(b.end(), ids[0].begin(), ids[0].end());
  put64(b, co_at); put64(b, co.size()); put64(b, ids[1].size()); b.insert(b.end(), ids[1].begin(), ids[1].end());
  b.resize(co_at);
  b.insert(b.end(), co.begin(), co.end());
  return b;
}

// The same, compressed ("CCOB" version 3, zstd).
std::vector<uint8_t> compress(const std::vector<uint8_t>& plain) {
  std::vector<uint8_t> z(ZSTD_compressBound(plain.size()));
  const size_t n = ZSTD_compress(z.data(), z.size(), plain.data(), plain.size(), 3);
  std::vector<uint8_t> b = {'C', 'C', 'O', 'B', 3, 0, 1, 0};
  put64(b, 32 + n);
  put64(b, plain.size());
  put64(b, 0);  // hash: not checked by the loader
  b.insert(b.end(), z.begin(), z.begin() + n);
  return b;
}

TEST(E2EBundle, MissingArchitectureIsRefusedByNameOnThatDeviceOnly) {
  for (bool compressed : {false, true}) {
    SCOPED_TRACE(compressed ? "compressed" : "uncompressed");
    std::vector<uint8_t> bytes = gfx950_only_bundle();
    if (compressed) bytes = compress(bytes);
    std::unique_ptr<Runtime> rt;
    ASSERT_TRUE(Runtime::create_from_buffer(&rt, bytes).ok());
    // gfx950 runs.
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    auto prob = ut::make_problem(mixed(40), exec::guarded_allocator());
    RunOutcome r = e2e::run_on_device(rt.get(), *prob, RunSpec{});
    EXPECT_TRUE(r.ok) << r.error;
    // gfx1030 is refused, naming the device, its target and what the bundle has.
    ASSERT_EQ(hipSetDevice(1), hipSuccess);
    r = e2e::run_on_device(rt.get(), *prob, RunSpec{});
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("gfx1030"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(compressed ? "hipErrorNoBinaryForGpu" : "has code objects for gfx950"), std::string::npos)
        << r.error;
    // What is known and what was assumed: a compressed buffer names no architecture, so
    // the table's were assumed; it never claims a gfx1030 code object it does not hold.
    EXPECT_EQ(r.error.find("code objects for gfx950, gfx1030"), std::string::npos) << r.error;
    if (compressed)
      EXPECT_NE(r.error.find("the kernel bundle <memory> holds no code object for gfx1030; it is compressed and "
                             "names none of its architectures (no stamp file, not named uattn_kernels-<arch>.hipfb), "
                             "so it was assumed to hold code objects for every architecture of the lookup table "
                             "built with it (gfx950, gfx1030)"),
                std::string::npos)
          << r.error;
    e2e::DeviceProblem dp(*prob);
    SelectOptions two_d;  // no workspace needed: the refusal must come from the device
    two_d.path = ForcePath::k2D;
    const Status s = rt->run(dp.args(), nullptr, 0, nullptr, two_d);
    EXPECT_EQ(s.code, kUnsupportedArch) << s.message;
    // The C API says the same.
    uattn_runtime_t* c = nullptr;
    ASSERT_EQ(uattn_runtime_create_from_buffer(bytes.data(), bytes.size(), &c), UATTN_OK);
    const uattn_args_t ca = dp.c_args();
    const uattn_options_t c_two_d{UATTN_PATH_2D, nullptr, 0};
    EXPECT_EQ(uattn_run(c, &ca, nullptr, 0, nullptr, &c_two_d), UATTN_ERR_UNSUPPORTED_ARCH);
    EXPECT_NE(std::string(uattn_last_error_message()).find("gfx1030"), std::string::npos);
    uattn_runtime_destroy(c);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
  }
}

// One select-and-report path: a selection the selector refuses as outside the
// contract (here the 3D workspace size does not fit in 64 bits) is
// kInvalidArgument from plan(), prepare() and run() alike (run() said kNoInstance).
TEST(E2EBundle, InvalidSelectionIsAnInvalidArgumentEverywhere) {
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  auto prob = ut::make_problem(mixed(51), exec::guarded_allocator());
  e2e::DeviceProblem dp(*prob);
  // Tensors of 2^54 bytes at addresses 2^56 apart: never read, the selection is refused first.
  AttentionArgs a = dp.args();
  const int64_t tokens = 2147483647 / 64, heads = 1 << 21;
  int place = 0;
  a.q.shape[0] = a.out.shape[0] = tokens;
  auto reshape = [&](TensorDesc* t, int dim, int64_t n) {
    t->shape[dim] = n;
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; --i) { t->stride[i] = s; s *= t->shape[i]; }
    t->data = reinterpret_cast<const void*>((uintptr_t)++place << 56);
  };
  reshape(&a.q, 1, heads);
  reshape(&a.out, 1, heads);
  reshape(&a.k_cache, 2, heads);
  reshape(&a.v_cache, 2, heads);
  ASSERT_TRUE(validate(a).ok()) << validate(a).message;
  SelectOptions o;
  o.path = ForcePath::k3D;
  o.num_segments = kMaxSegments;
  hipcpu::clear_launches();
  Selection sel;
  const Status planned = runtime().plan(a, &sel, o), prepared = runtime().prepare(a, o),
               ran = runtime().run(a, nullptr, 0, nullptr, o);
  for (const Status* s : {&planned, &prepared, &ran}) {
    EXPECT_EQ(s->code, kInvalidArgument) << s->message;
    EXPECT_EQ(s->message, "uattn: on device 0 (gfx950:sramecc+:xnack-): workspace = num_tokens * num_q_heads * "
                          "num_segments * (head_size + 2) * 4 bytes = 33554431 * 2097152 * 1024 * (128 + 2) * 4 "
                          "does not fit in 64 bits");
  }
  EXPECT_TRUE(hipcpu::launches().empty());
}

TEST(E2EBundle, InvalidArgumentsLaunchNothing) {
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  auto prob = ut::make_problem(mixed(50), exec::guarded_allocator());
  e2e::DeviceProblem dp(*prob);
  AttentionArgs a = dp.args();
  a.k_cache.shape[2] = 3;  // 8 query heads over 3 KV heads
  a.v_cache.shape[2] = 3;
  hipcpu::clear_launches();
  const Status s = runtime().run(a, nullptr, 0, nullptr, {});
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_NE(s.message.find("= 3"), std::string::npos) << s.message;
  EXPECT_TRUE(hipcpu::launches().empty());
}

// The kernelParams form of hipModuleLaunchKernel (the runtime uses `extra`):
// the same kernel, packed by make_params, gives the reference's answer.
TEST(E2EModule, KernelParamsLaunchMatchesReference) {
  for (Arch arch : {Arch::gfx950, Arch::gfx1030}) {
    SCOPED_TRACE(to_string(arch));
    ASSERT_EQ(hipSetDevice(device_of(arch)), hipSuccess);
    auto prob = ut::make_problem(mixed(60), exec::guarded_allocator());
    prob->poison_output();
    e2e::DeviceProblem dp(*prob);
    ASSERT_EQ(dp.error(), "");
    SelectOptions o;
    o.path = ForcePath::k2D;
    Selection sel;
    ASSERT_TRUE(runtime().plan(dp.args(), &sel, o).ok());
    AttnParams p = make_params(dp.args(), sel, nullptr);
    const std::vector<uint8_t> bundle = read_file(runtime().bundle_path());
    hipModule_t m = nullptr;
    ASSERT_EQ(hipModuleLoadData(&m, bundle.data()), hipSuccess) << hipcpu::last_fault();
    hipFunction_t f = nullptr;
    ASSERT_EQ(hipModuleGetFunction(&f, m, sel.attention.row->name), hipSuccess);
    void* args[] = {&p};
    const KernelLaunch& k = sel.attention;
    ASSERT_EQ(hipModuleLaunchKernel(f, k.grid.x, k.grid.y, k.grid.z, k.threads, 1, 1, 0, nullptr, args, nullptr),
              hipSuccess) << hipcpu::last_fault();
    ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess) << hipcpu::last_fault();
    ASSERT_TRUE(dp.download());
    const exec::Tolerance t = exec::tolerance_for(prob->spec.q_dtype, prob->spec.out_dtype);
    const ut::CompareResult c = ut::compare_output(*prob, prob->reference(), t.atol, t.rtol);
    EXPECT_TRUE(c.ok) << c.first_failure;
    EXPECT_EQ(hipModuleUnload(m), hipSuccess);
  }
}

// ------------------- per-architecture bundles and the build stamp (docs/packaging.md) --
struct EnvVar {
  std::string name, old;
  bool had;
  EnvVar(const char* n, const std::string& value) : name(n) {
    const char* o = getenv(n);
    had = o != nullptr;
    if (had) old = o;
    setenv(n, value.c_str(), 1);
  }
  ~EnvVar() {
    if (had) setenv(name.c_str(), old.c_str(), 1); else unsetenv(name.c_str());
  }
};

// An empty scratch folder under the test temp dir.
std::string scratch_dir(const std::string& name) {
  const std::string d = ::testing::TempDir() + "uattn_e2e_pkg_" + name;
  EXPECT_EQ(system(("rm -rf '" + d + "' && mkdir -p '" + d + "'").c_str()), 0);
  return d;
}
void write_file(const std::string& p, const std::vector<uint8_t>& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), (std::streamsize)b.size());
}
void write_text(const std::string& p, const std::string& t) { write_file(p, std::vector<uint8_t>(t.begin(), t.end())); }
// This build's bundle of `arch` and its stamp, copied into `dir` (as its package installs them).
void install_arch_bundle(const std::string& dir, const std::string& arch) {
  const std::string from = std::string(UATTN_BUILD_DIR) + "/" + arch_bundle_file_name(arch);
  const std::vector<uint8_t> b = read_file(from), st = read_file(from + ".stamp");
  ASSERT_FALSE(b.empty()) << from;
  ASSERT_FALSE(st.empty()) << from << ".stamp";
  write_file(dir + "/" + arch_bundle_file_name(arch), b);
  write_file(dir + "/" + arch_bundle_file_name(arch) + ".stamp", st);
}
// rt->run of a mixed problem (seed `seed`) on the gfx950 device (device 0), the 2D
// path forced; the recorded launches are cleared first.
Status run_2d_on_gfx950(Runtime* rt, int seed) {
  EXPECT_EQ(hipSetDevice(0), hipSuccess);
  auto prob = ut::make_problem(mixed(seed), exec::guarded_allocator());
  e2e::DeviceProblem dp(*prob);
  EXPECT_EQ(dp.error(), "");
  SelectOptions two_d;
  two_d.path = ForcePath::k2D;
  hipcpu::clear_launches();
  return rt->run(dp.args(), nullptr, 0, nullptr, two_d);
}
std::string stamp_lines(const BuildStamp& s) {
  return "uattn_version " + s.uattn_version + "\ngenerator_version " + s.generator_version + "\nmatrix_hash " +
         s.matrix_hash + "\n";
}

TEST(E2EPackages, EachArchitectureComesFromItsOwnFolder) {
  const std::string a = scratch_dir("a"), b = scratch_dir("b");
  install_arch_bundle(a, "gfx950");
  install_arch_bundle(b, "gfx1030");
  EnvVar env(kLibraryPathEnv, a + ":" + b);
  std::unique_ptr<Runtime> rt;
  const Status s = Runtime::create(&rt);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(rt->bundle_path(), a + "/uattn_kernels-gfx950.hipfb");
  for (Arch arch : {Arch::gfx950, Arch::gfx1030}) {
    SCOPED_TRACE(to_string(arch));
    ASSERT_EQ(hipSetDevice(device_of(arch)), hipSuccess);
    auto prob = ut::make_problem(mixed(70), exec::guarded_allocator());
    hipcpu::clear_launches();
    const RunOutcome r = e2e::run_on_device(rt.get(), *prob, RunSpec{});
    EXPECT_TRUE(r.ok) << r.error;
    const std::vector<hipcpu::LaunchRecord> l = hipcpu::launches();
    ASSERT_FALSE(l.empty());
    EXPECT_EQ(l[0].device, device_of(arch));
    EXPECT_EQ(l[0].kernel.rfind(std::string("uattn_") + to_string(arch) + "_", 0), 0u) << l[0].kernel;
  }
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
}

// Without stamp files, a compressed uattn_kernels-<arch>.hipfb serves <arch> only (its
// name says so): the gfx1030 device is not handed the gfx950 bundle found first.
TEST(E2EPackages, PerArchitectureBundlesWithoutStampFilesInOneFolder) {
  const std::string a = scratch_dir("nostamp");
  for (const char* arch : {"gfx950", "gfx1030"}) {
    install_arch_bundle(a, arch);
    std::remove((a + "/" + arch_bundle_file_name(arch) + ".stamp").c_str());
  }
  EnvVar env(kLibraryPathEnv, a);
  std::unique_ptr<Runtime> rt;
  ASSERT_TRUE(Runtime::create(&rt).ok());
  for (Arch arch : {Arch::gfx950, Arch::gfx1030}) {
    SCOPED_TRACE(to_string(arch));
    ASSERT_EQ(hipSetDevice(device_of(arch)), hipSuccess);
    auto prob = ut::make_problem(mixed(76), exec::guarded_allocator());
    const RunOutcome r = e2e::run_on_device(rt.get(), *prob, RunSpec{});
    EXPECT_TRUE(r.ok) << r.error;
  }
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
}

TEST(E2EPackages, MissingArchitecturePackageNamesTargetPathsAndPackage) {
  const std::string a = scratch_dir("only950"), empty = scratch_dir("empty");
  install_arch_bundle(a, "gfx950");
  EnvVar env(kLibraryPathEnv, empty + ":" + a);
  std::unique_ptr<Runtime> rt;
  ASSERT_TRUE(Runtime::create(&rt).ok());
  auto prob = ut::make_problem(mixed(71), exec::guarded_allocator());
  ASSERT_EQ(hipSetDevice(1), hipSuccess);  // gfx1030: no bundle anywhere
  e2e::DeviceProblem dp(*prob);
  ASSERT_EQ(dp.error(), "");
  SelectOptions two_d;
  two_d.path = ForcePath::k2D;
  hipcpu::clear_launches();
  const Status s = rt->run(dp.args(), nullptr, 0, nullptr, two_d);
  EXPECT_EQ(s.code, kUnsupportedArch) << s.message;
  EXPECT_NE(s.message.find("has target id gfx1030,"), std::string::npos) << s.message;
  const std::vector<std::string> searched = bundle_search_paths_for_arch("gfx1030");
  ASSERT_EQ(searched.size(), 4u);
  for (const std::string& p : searched) EXPECT_NE(s.message.find(p + " ("), std::string::npos) << p << "\n" << s.message;
  EXPECT_NE(s.message.find("Install the package uattn-gfx1030"), std::string::npos) << s.message;
  EXPECT_TRUE(hipcpu::launches().empty());
  // The C API says the same.
  uattn_runtime_t* c = nullptr;
  ASSERT_EQ(uattn_runtime_create(nullptr, &c), UATTN_OK);
  const uattn_args_t ca = dp.c_args();
  const uattn_options_t c_two_d{UATTN_PATH_2D, nullptr, 0};
  EXPECT_EQ(uattn_run(c, &ca, nullptr, 0, nullptr, &c_two_d), UATTN_ERR_UNSUPPORTED_ARCH);
  EXPECT_NE(std::string(uattn_last_error_message()).find("uattn-gfx1030"), std::string::npos);
  uattn_runtime_destroy(c);
  // The gfx950 device is served.
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  const RunOutcome r = e2e::run_on_device(rt.get(), *prob, RunSpec{});
  EXPECT_TRUE(r.ok) << r.error;
}

TEST(E2EPackages, BundleFromAnotherBuildIsRefusedNamingBothStamps) {
  const BuildStamp& mine = table_stamp();
  for (int field = 0; field < 3; ++field) {
    BuildStamp other = mine;
    if (field == 0) other.uattn_version += ".1";
    if (field == 1) other.generator_version = "0.0.1";
    if (field == 2) other.matrix_hash = mine.matrix_hash == "0123456789abcdef" ? "fedcba9876543210" : "0123456789abcdef";
    SCOPED_TRACE(to_string(other));
    const std::string a = scratch_dir("other" + std::to_string(field));
    install_arch_bundle(a, "gfx950");
    const std::string side = a + "/uattn_kernels-gfx950.hipfb.stamp";
    write_text(side, stamp_lines(other) + "archs gfx950\n");
    EnvVar env(kLibraryPathEnv, a);
    std::unique_ptr<Runtime> rt;
    ASSERT_TRUE(Runtime::create(&rt).ok());
    const Status s = run_2d_on_gfx950(rt.get(), 72);
    EXPECT_EQ(s.code, kBundle) << s.message;
    EXPECT_NE(s.message.find("bundle stamp '" + to_string(other) + "' (" + side + ")"), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("table stamp '" + to_string(mine) + "'"), std::string::npos) << s.message;
    EXPECT_TRUE(hipcpu::launches().empty());
    // Refused for good: the next call says the same, still launching nothing.
    EXPECT_EQ(run_2d_on_gfx950(rt.get(), 72).code, kBundle);
    EXPECT_TRUE(hipcpu::launches().empty());
  }
}

TEST(E2EPackages, MalformedStampFileIsRefused) {
  const std::string a = scratch_dir("malformed");
  install_arch_bundle(a, "gfx950");
  write_text(a + "/uattn_kernels-gfx950.hipfb.stamp", "uattn_version 0.1.0\narchs gfx950\n");
  EnvVar env(kLibraryPathEnv, a);
  std::unique_ptr<Runtime> rt;
  ASSERT_TRUE(Runtime::create(&rt).ok());
  const Status s = run_2d_on_gfx950(rt.get(), 73);
  EXPECT_EQ(s.code, kBundle) << s.message;
  EXPECT_NE(s.message.find("no 'generator_version ...' line"), std::string::npos) << s.message;
}

// A stamp file that is not a regular file is refused without reading from it
// (a FIFO would block a plain read forever).
TEST(E2EPackages, StampFileThatIsAFifoIsRefused) {
  const std::string a = scratch_dir("fifo");
  install_arch_bundle(a, "gfx950");
  const std::string side = a + "/uattn_kernels-gfx950.hipfb.stamp";
  std::remove(side.c_str());
  ASSERT_EQ(mkfifo(side.c_str(), 0600), 0);
  EnvVar env(kLibraryPathEnv, a);
  std::unique_ptr<Runtime> rt;
  ASSERT_TRUE(Runtime::create(&rt).ok());
  const Status s = run_2d_on_gfx950(rt.get(), 77);
  EXPECT_EQ(s.code, kBundle) << s.message;
  EXPECT_NE(s.message.find(side + " of the kernel bundle (is a FIFO; expected a regular file)"), std::string::npos)
      << s.message;
}

// An uncompressed bundle has no sidecar here (a buffer): the code object's own
// .uattn.stamp section is checked.
TEST(E2EPackages, CodeObjectStampSectionIsChecked) {
  std::vector<uint8_t> bytes = gfx950_only_bundle();
  const std::string key = "matrix_hash " + table_stamp().matrix_hash;
  auto at = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
  ASSERT_NE(at, bytes.end()) << "no stamp section in uattn_gfx950.co";
  BuildStamp other = table_stamp();
  for (char& c : other.matrix_hash) c = c == 'a' ? 'b' : 'a';
  std::copy(other.matrix_hash.begin(), other.matrix_hash.end(), at + (ptrdiff_t)(key.size() - other.matrix_hash.size()));
  std::unique_ptr<Runtime> rt;
  ASSERT_TRUE(Runtime::create_from_buffer(&rt, bytes).ok());
  const Status s = run_2d_on_gfx950(rt.get(), 74);
  EXPECT_EQ(s.code, kBundle) << s.message;
  EXPECT_NE(s.message.find("bundle stamp '" + to_string(other) + "' (the code object's .uattn.stamp section)"),
            std::string::npos) << s.message;
  EXPECT_NE(s.message.find("table stamp '" + to_string(table_stamp()) + "'"), std::string::npos) << s.message;
  EXPECT_TRUE(hipcpu::launches().empty());
}

// Runtime::prepare loads and fetches what run() would launch, launching nothing.
TEST(E2EPackages, PrepareFetchesWithoutLaunching) {
  std::unique_ptr<Runtime> rt;
  ASSERT_TRUE(Runtime::create(&rt, std::string(UATTN_BUILD_DIR) + "/" + arch_bundle_file_name("gfx950")).ok());
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  auto prob = ut::make_problem(mixed(75), exec::guarded_allocator());
  e2e::DeviceProblem dp(*prob);
  hipcpu::clear_launches();
  const Status s = rt->prepare(dp.args());
  EXPECT_TRUE(s.ok()) << s.message;
  EXPECT_TRUE(hipcpu::launches().empty());
  const RunOutcome r = e2e::run_on_device(rt.get(), *prob, RunSpec{});
  EXPECT_TRUE(r.ok) << r.error;
}

// ------------------------------ index data: host copies and checked launches --
// Hostile-input class 1. Every violation of SPEC's index rules, written into the
// device arrays: a checked launch reports the first one (the message of the
// host check of the same arrays), every workgroup exits before reading an
// index, so nothing is read out of bounds (guard pages: a stray read faults the
// launch) and out, padding included, keeps its poison; passing the host copies
// refuses the same input before anything is launched.
ut::ProblemSpec small(uint64_t seed) {  // served by the ci subset on both paths and architectures
  ut::ProblemSpec s;
  s.head_size = 128;
  s.block_size = 16;
  s.num_q_heads = 8;
  s.num_kv_heads = 2;
  s.seqs = {{1, 70}, {9, 40}, {4, 4}};  // cu_seqlens_q = {0, 1, 10, 14}
  s.seed = seed;
  return s;
}

int32_t* i32(ut::Buffer& b) { return static_cast<int32_t*>(b.ptr); }

struct Violation {
  const char* name;
  void (*arrays)(ut::Problem& p);   // edits the host arrays before they are copied to the device
  void (*args)(AttentionArgs& a);   // edits the host-known bounds (may be null)
};

const Violation kViolations[] = {
    {"cu_seqlens_q[0] != 0", [](ut::Problem& p) { i32(p.cu_seqlens_q)[0] = 1; }, nullptr},
    {"cu_seqlens_q decreasing", [](ut::Problem& p) { i32(p.cu_seqlens_q)[2] = 0; }, nullptr},
    {"q_len > max_seqlen_q", [](ut::Problem&) {}, [](AttentionArgs& a) { a.max_seqlen_q = 8; }},
    {"seqused_k < q_len", [](ut::Problem& p) { i32(p.seqused_k)[1] = 8; }, nullptr},
    {"seqused_k > max_seqlen_k", [](ut::Problem& p) { i32(p.seqused_k)[0] = p.max_seqlen_k + 1; }, nullptr},
    {"block id = num_blocks", [](ut::Problem& p) {
       i32(p.block_table)[p.params.block_table_stride + 1] = (int32_t)p.num_blocks;
     }, nullptr},
    {"block id far past the cache", [](ut::Problem& p) {
       i32(p.block_table)[2 * p.params.block_table_stride] = 1 << 30;
     }, nullptr},
    {"block id negative", [](ut::Problem& p) { i32(p.block_table)[4] = -1; }, nullptr},
    {"two violations (the first is reported)", [](ut::Problem& p) {
       i32(p.block_table)[2 * p.params.block_table_stride] = 1 << 30;  // sequence 2
       i32(p.seqused_k)[1] = 8;                                        // sequence 1: reported
     }, nullptr},
    {"cu_seqlens_q[num_seqs] > num_tokens", [](ut::Problem& p) {
       i32(p.cu_seqlens_q)[3] = p.num_tokens + 3;  // q has 2 padding rows: one row past q
       i32(p.seqused_k)[2] = 7;                     // keeps seqused_k >= q_len for the longer sequence
     }, nullptr},
};

class Checked : public ::testing::TestWithParam<Arch> {};

TEST_P(Checked, InvalidIndexDataIsReportedAndNothingIsWritten) {
  const Arch arch = GetParam();
  ASSERT_EQ(hipSetDevice(device_of(arch)), hipSuccess);
  const std::string check_kernel = "uattn_" + std::string(to_string(arch)) + "_check";
  for (const Violation& v : kViolations)
    for (ForcePath lane : {ForcePath::k2D, ForcePath::k3D})
      for (bool c_api : {false, true}) {
        SCOPED_TRACE(std::string(v.name) + ", " + lane_name(lane) + (c_api ? ", C API" : ", C++ API"));
        auto prob = ut::make_problem(small(80), exec::guarded_allocator());
        prob->poison_output();
        const std::vector<uint8_t> poisoned(static_cast<uint8_t*>(prob->out.ptr),
                                            static_cast<uint8_t*>(prob->out.ptr) + prob->out.bytes);
        v.arrays(*prob);
        e2e::DeviceProblem dp(*prob, /*pad_rows=*/2);
        ASSERT_EQ(dp.error(), "");
        AttentionArgs a = dp.args();
        if (v.args) v.args(a);
        const Status expected = validate_indices(a, i32(prob->cu_seqlens_q), i32(prob->seqused_k),
                                                 i32(prob->block_table));
        ASSERT_EQ(expected.code, kInvalidArgument) << "the host check accepts the violation";
        if (std::string(v.name).rfind("two", 0) == 0)
          ASSERT_NE(expected.message.find("seqused_k[1] = 8"), std::string::npos) << expected.message;
        SelectOptions o;
        o.path = lane;
        size_t ws_bytes = 0;
        ASSERT_TRUE(runtime().workspace_size(a, &ws_bytes, o).ok());
        void* ws = nullptr;
        if (ws_bytes) ASSERT_EQ(hipMalloc(&ws, ws_bytes), hipSuccess);
        uattn_args_t ca = dp.c_args();
        ca.max_seqlen_q = a.max_seqlen_q;
        uattn_options_t co{(int32_t)lane, nullptr, 0};
        // (a) host copies: refused before anything is launched.
        AttentionArgs h = a;
        h.cu_seqlens_q_host = ca.cu_seqlens_q_host = i32(prob->cu_seqlens_q);
        h.seqused_k_host = ca.seqused_k_host = i32(prob->seqused_k);
        h.block_table_host = ca.block_table_host = i32(prob->block_table);
        hipcpu::clear_launches();
        Status s = c_api ? Status{(int)uattn_run(c_runtime(), &ca, ws, ws_bytes, nullptr, &co),
                                  uattn_last_error_message()}
                         : runtime().run(h, ws, ws_bytes, nullptr, o);
        EXPECT_EQ(s.code, kInvalidArgument);
        EXPECT_EQ(s.message, expected.message);
        EXPECT_TRUE(hipcpu::launches().empty());
        // (b) a checked launch on the device arrays alone.
        ca.cu_seqlens_q_host = ca.seqused_k_host = ca.block_table_host = nullptr;
        void* status = nullptr;
        ASSERT_EQ(hipMalloc(&status, kIndexStatusBytes), hipSuccess);
        ASSERT_EQ(hipMemset(status, 0, kIndexStatusBytes), hipSuccess);  // "valid": the kernel must overwrite it
        a.index_status = ca.index_status = static_cast<uint32_t*>(status);
        hipStream_t stream = nullptr;
        ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
        s = c_api ? Status{(int)uattn_run(c_runtime(), &ca, ws, ws_bytes, stream, &co), uattn_last_error_message()}
                  : runtime().run(a, ws, ws_bytes, stream, o);
        EXPECT_EQ(s.code, kInvalidIndex) << s.message;
        EXPECT_EQ(s.message.rfind(expected.message, 0), 0u) << s.message << "\nexpected " << expected.message;
        EXPECT_NE(s.message.find("nothing was written to out"), std::string::npos) << s.message;
        EXPECT_EQ(hipStreamSynchronize(stream), hipSuccess) << hipcpu::last_fault();
        ASSERT_EQ(hipStreamDestroy(stream), hipSuccess);
        const std::vector<hipcpu::LaunchRecord> l = hipcpu::launches();
        // check + attention (+ reduce, unless the plan fuses it)
        Selection plan;
        ASSERT_TRUE(runtime().plan(a, &plan, o).ok());
        ASSERT_EQ(l.size(), lane == ForcePath::k3D && !plan.fused_reduce ? 3u : 2u);
        EXPECT_EQ(l[0].kernel, check_kernel);
        EXPECT_EQ(l[0].grid[0] * l[0].grid[1] * l[0].grid[2], 1u);
        ASSERT_TRUE(dp.download());
        EXPECT_EQ(std::memcmp(prob->out.ptr, poisoned.data(), poisoned.size()), 0) << "out was written";
        EXPECT_TRUE(dp.padding_intact());
        ASSERT_EQ(hipFree(status), hipSuccess);
        if (ws) ASSERT_EQ(hipFree(ws), hipSuccess);
      }
}

TEST_P(Checked, ValidInputGivesTheUncheckedResult) {
  const Arch arch = GetParam();
  ASSERT_EQ(hipSetDevice(device_of(arch)), hipSuccess);
  for (ForcePath lane : {ForcePath::k2D, ForcePath::k3D}) {
    SCOPED_TRACE(lane_name(lane));
    auto prob = ut::make_problem(small(81), exec::guarded_allocator());
    RunSpec rs;
    rs.opt.path = lane;
    rs.pad_rows = 3;
    const RunOutcome plain = e2e::run_on_device(&runtime(), *prob, rs);
    ASSERT_TRUE(plain.ok) << plain.error;
    const std::vector<uint8_t> want(static_cast<uint8_t*>(prob->out.ptr),
                                    static_cast<uint8_t*>(prob->out.ptr) + prob->out.bytes);
    for (bool c_api : {false, true}) {
      rs.checked = true;
      rs.host_copies = !c_api;
      rs.c_api = c_api;
      rs.c_runtime = c_runtime();
      hipcpu::clear_launches();
      const RunOutcome r = e2e::run_on_device(&runtime(), *prob, rs);
      ASSERT_TRUE(r.ok) << r.error;  // the reference comparison and the untouched padding rows
      EXPECT_EQ(std::memcmp(prob->out.ptr, want.data(), want.size()), 0) << "checked and unchecked results differ";
      const std::vector<hipcpu::LaunchRecord> l = hipcpu::launches();
      ASSERT_EQ(l.size(), lane == ForcePath::k3D && !r.sel.fused_reduce ? 3u : 2u);
      EXPECT_EQ(l[0].kernel, "uattn_" + std::string(to_string(arch)) + "_check");
    }
  }
}

// The runtime, on devices whose HIP properties report what HIP
// reports (gfx1030: 36 WGPs for 72 CUs), and uattn-explain's route
// (explain::to_problem + select() with the CU count) give the same answer:
// instance, path, segments, grids and workspace.
TEST(E2ESelect, RuntimeAndExplainAgree) {
  using Seqs = std::vector<std::pair<int, int>>;
  const Seqs batches[] = {Seqs(5, {1, 2048}), Seqs(5, {1, 8192}), Seqs(3, {4, 7168}), Seqs(24, {4, 1024}),
                          Seqs{{1, 100}, {5, 18}}, Seqs{{512, 1024}}, Seqs(40, {1, 512})};
  for (Arch arch : {Arch::gfx950, Arch::gfx1030}) {
    SCOPED_TRACE(to_string(arch));
    ASSERT_EQ(hipSetDevice(device_of(arch)), hipSuccess);
    hipDeviceProp_t prop;
    ASSERT_EQ(hipGetDeviceProperties(&prop, device_of(arch)), hipSuccess);
    EXPECT_EQ(cus_from_reported(arch, prop.multiProcessorCount), cu_count(arch));
    int k = 0;
    for (const Seqs& seqs : batches) {
      ut::ProblemSpec spec;
      spec.seqs = seqs;
      spec.seed = 900 + k++;
      auto prob = ut::make_problem(spec, exec::guarded_allocator());
      e2e::DeviceProblem dp(*prob);
      ASSERT_EQ(dp.error(), "");
      Selection rt;
      ASSERT_TRUE(runtime().plan(dp.args(), &rt).ok());
      explain::Scenario sc;
      sc.num_q_heads = spec.num_q_heads;
      sc.num_kv_heads = spec.num_kv_heads;
      sc.head_size = spec.head_size;
      sc.block_size = spec.block_size;
      sc.seqs = seqs;
      SelectOptions o;
      o.explain = true;
      const Selection ex = select(explain::to_problem(sc, arch, cu_count(arch)), o);
      ASSERT_TRUE(ex.ok) << ex.error;
      EXPECT_EQ(rt.attention.row, ex.attention.row) << rt.why << "\n" << ex.why;
      EXPECT_EQ(rt.path, ex.path);
      EXPECT_EQ(rt.num_segments, ex.num_segments);
      EXPECT_EQ(rt.workspace_bytes, ex.workspace_bytes);
      EXPECT_EQ(rt.attention.grid.x, ex.attention.grid.x);
      EXPECT_EQ(rt.attention.grid.z, ex.attention.grid.z);
      EXPECT_EQ(rt.why, ex.why);  // the same CU count and the same reasons
    }
  }
}

// Hostile-input class 3: a layout whose writes alias is refused by run(), nothing launched.
TEST_P(Checked, OutAliasingAnInputLaunchesNothing) {
  ASSERT_EQ(hipSetDevice(device_of(GetParam())), hipSuccess);
  auto prob = ut::make_problem(small(82), exec::guarded_allocator());
  e2e::DeviceProblem dp(*prob);
  ASSERT_EQ(dp.error(), "");
  hipcpu::clear_launches();
  for (const void* alias : {dp.args().q.data, dp.args().k_cache.data}) {
    AttentionArgs a = dp.args();
    a.out.data = alias;
    a.out.dtype = a.q.dtype;
    const Status s = runtime().run(a, nullptr, 0, nullptr, {});
    EXPECT_EQ(s.code, kInvalidArgument);
    EXPECT_NE(s.message.find("overlaps"), std::string::npos) << s.message;
    uattn_args_t ca = dp.c_args();
    ca.out.data = alias;
    EXPECT_EQ(uattn_run(c_runtime(), &ca, nullptr, 0, nullptr, nullptr), UATTN_ERR_INVALID_ARGUMENT);
  }
  // The 3D workspace may not share memory with out either.
  AttentionArgs a = dp.args();
  SelectOptions o;
  o.path = ForcePath::k3D;
  size_t bytes = 0;
  ASSERT_TRUE(runtime().workspace_size(a, &bytes, o).ok());
  const Status s = runtime().run(a, const_cast<void*>(a.out.data), bytes, nullptr, o);
  EXPECT_EQ(s.code, kInvalidArgument);
  EXPECT_NE(s.message.find("workspace overlaps"), std::string::npos) << s.message;
  EXPECT_TRUE(hipcpu::launches().empty());
}

INSTANTIATE_TEST_SUITE_P(E2E, Checked, ::testing::Values(Arch::gfx950, Arch::gfx1030),
                         [](const auto& i) { return std::string(to_string(i.param)); });

INSTANTIATE_TEST_SUITE_P(E2E, PerArch, ::testing::Values(Arch::gfx950, Arch::gfx1030),
                         [](const auto& i) { return std::string(to_string(i.param)); });

}  // namespace
