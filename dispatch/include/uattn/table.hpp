// uattn lookup table: maps a problem to an instance and its launch configuration.
// Pure C++17, no GPU runtime dependency: link uattn_table alone to use it.
//
// The rows are generated (table_rows.inc, one row per instance, most specialised
// first, read through uattn/table_row.hpp); selection logic is select.cpp.
// Architectures, dtypes, features, paths and tiles are the generated records and
// vocabularies (uattn/generated/). Errors never throw.
#pragma once
#include <stdint.h>
#include <string>
#include <vector>

#include "uattn/generated/args.hpp"
#include "uattn/generated/select.hpp"
#include "uattn/kernel/config.hpp"
#include "uattn/kernel/params.hpp"

namespace uattn {

// One generated instance (a table row). Attention rows (path k2D, k3D) set every
// field; reduce rows (kReduce) carry name, arch and head_size only, the
// attention-only fields (marked *) hold their zero values and mean nothing.
struct InstanceRow {
  const char* name;      // instance name = file stem = kernel symbol = filter key
  Arch arch;
  Path path;             // k2D, k3D (split-KV segment kernel) or kReduce
  DType q_dtype;         // * query (and default output) dtype
  DType kv_dtype;        // * KV-cache dtype
  int head_size;
  int block_size;        // * 0 = generic (any block_size >= 1)
  uint32_t features;     // * Feature bits compiled in
  Tile tile;             // * workgroup tile kind
  int block_m;           // * query rows (token x head pairs) per workgroup
  int block_n;           // * keys per KV tile
  int waves;             // waves per workgroup (1 for reduce)
  int wave_size;         // wave_size_of(arch)
  // From the instance's tile record (generator/uattn_gen/tiles.py; the kernel
  // is compiled with the same record, uattn/kernel/tile.hpp):
  uint32_t lds_bytes;    // static LDS bytes per workgroup (0 for reduce and where the kernel uses none)
  int rows_per_wave;     // query rows one wave owns (block_m, or block_m / waves)
  bool head_split;       // the waves own the same rows and split the head
  bool shares_kv;        // the waves walk one KV range and load each K / V tile once between them
  // A workgroup of at most block_m / 2 rows (a window decode) splits its KV range
  // among its waves instead, each walking one share, and combines them through
  // LDS (the gfx1030 8-wave window tile, 16-bit KV).
  bool key_split;
  // The cost model's figures of the compiled kernel (instances/measured.yaml,
  // from uattn-inspect on the code objects; docs/architecture.md "The cost model"):
  int vgprs;             // * VGPRs per lane
  double occupancy;      // * waves per SIMD the kernel's VGPRs and LDS allow
  double tile_cycles;    // * cycles of one wave per KV tile (llvm-mca on the KV-tile loop)
  double boundary_cycles;       // * the same per masked (boundary) KV tile (its boundary loop)
  // * Those of the slowest loop variant (the generic instance's variant with every
  // feature: softcap, ALiBi or QQ-bias given, or unaligned rows); the others' equal tile / boundary.
  double full_tile_cycles;
  double full_boundary_cycles;
  // * The key split's walk per KV tile (key_split rows; 0: not measured, the
  // selector scales tile_cycles: select.cpp).
  double split_tile_cycles;
  bool measured;         // * false: tile_cycles is the documented fallback, not a measurement
};

// All rows of the table (every architecture), in table order.
const std::vector<InstanceRow>& all_rows();

// The build stamp (docs/packaging.md, "Version stamp"): which uattn, which
// generator and which instance matrix a table, library, code object or bundle
// came from. matrix_hash: 16 lowercase hex digits, the start of the SHA-256 of
// the matrix YAML files' bytes followed by the subset and filter that selected
// from them (cmake/UattnStamp.cmake). Two artefacts belong together when all
// three fields are equal.
struct BuildStamp {
  std::string uattn_version;      // e.g. "0.1.0" (the CMake project version)
  std::string generator_version;  // uattn_gen's __version__, e.g. "1.0.0"
  std::string matrix_hash;        // e.g. "3f2a9c0d41b7e655"
  bool operator==(const BuildStamp& o) const {
    return uattn_version == o.uattn_version && generator_version == o.generator_version &&
           matrix_hash == o.matrix_hash;
  }
  bool operator!=(const BuildStamp& o) const { return !(*this == o); }
};
// The stamp this table was generated with.
const BuildStamp& table_stamp();
// "uattn 0.1.0, uattn_gen 1.0.0, matrix 3f2a9c0d41b7e655"
std::string to_string(const BuildStamp& s);
// Reads the "key value" lines of a stamp (uattn_version, generator_version,
// matrix_hash; other keys are ignored). False, with *why naming the missing
// key, when one of the three is absent.
bool parse_stamp(const std::string& text, BuildStamp* out, std::string* why);

// The shape of a problem as the selector sees it.
struct ProblemDesc {
  Arch arch = kArchs[0];
  DType q_dtype = DType::f16;
  DType kv_dtype = DType::f16;
  DType out_dtype = DType::f16;  // q_dtype, or fp8e4m3 (needs output_scale)
  int head_size = 128;
  int block_size = 16;
  uint32_t features = 0;         // Feature bits the problem uses
  int window_left = -1;          // keys before the query a row may see (kFeatWindow); -1 = no window or unknown
  int num_q_heads = 16;
  int num_kv_heads = 2;
  int num_seqs = 1;
  int num_tokens = 1;            // total query tokens (cu_seqlens_q[num_seqs])
  int max_seqlen_q = 1;
  int max_seqlen_k = 1;
  // Compute units (CUs, not WGPs); 0 = cu_count(arch), the reference part's count.
  // From HIP's multiProcessorCount: cus_from_reported().
  int num_cus = 0;
  // Every q/out/k_cache/v_cache row starts on an 8-element boundary (base
  // addresses aligned to 8 elements, strides multiples of 8: uattn::rows_aligned,
  // templates/uattn/kernel/phases.hpp). Specialised instances move rows with
  // vector accesses and require it; false routes to the generic instances
  // (any block size, every feature), which test it at run time.
  bool rows_aligned = true;
};

// True when `r` is a generic instance (any block size, every feature): it
// serves unaligned rows too.
inline bool is_generic(const InstanceRow& r) { return r.block_size == 0 && r.features == kFeatAll; }

// What a call looks like before it is reduced to a ProblemDesc: the one builder
// used by the runtime (describe()), uattn-explain and the tests.
struct ProblemArgs {
  Arch arch = kArchs[0];
  DType q_dtype = DType::f16, kv_dtype = DType::f16, out_dtype = DType::f16;
  int head_size = 0, block_size = 0, num_q_heads = 0, num_kv_heads = 0;
  const int32_t* q_lens = nullptr;   // [num_seqs] query tokens per sequence (host memory)
  const int32_t* kv_lens = nullptr;  // [num_seqs] KV tokens per sequence, new ones included
  int num_seqs = 0;
  int num_tokens = -1;               // -1 = the sum of q_lens
  int max_seqlen_q = -1, max_seqlen_k = -1;  // -1 = the maxima of q_lens / kv_lens
  // The feature switches (UATTN_FOREACH_FEATURE_ARG, uattn/generated/args.hpp):
  // int window_left = -1 (no sliding window), float softcap = 0 (off), and for each
  // optional tensor whether it is given: bool alibi, qq_bias, sinks = false.
#define UATTN_FEATURE_FIELD(TYPE, NAME, ARG, DEFAULT, ROLE, FEATURE, USED) TYPE NAME = DEFAULT;
  UATTN_FOREACH_FEATURE_ARG(UATTN_FEATURE_FIELD)
#undef UATTN_FEATURE_FIELD
  int num_cus = 0;
  bool rows_aligned = true;          // ProblemDesc::rows_aligned
};
// Feature bits a call uses (SPEC.md s.1; the bits are kFeat* of vocab.hpp, each
// used when its switch in `a` says so: UATTN_FOREACH_FEATURE_ARG).
uint32_t features_used(const ProblemArgs& a);
// The selector's view of `a`; lengths come from q_lens / kv_lens unless given.
// The sums and maxima are taken in 64 bits; when one does not fit the int32
// fields of ProblemDesc (or a length is negative) the field is set to -1, which
// select() refuses: call problem_args_error() first for a message naming it.
ProblemDesc make_problem(const ProblemArgs& a);
// "" when make_problem(a) describes `a` exactly, else what does not fit, e.g.
// "num_tokens = sum of q_lens = 4294967296 (4 sequences); expected <= 2147483647 (kMaxTokens)"
// or "max_seqlen_k = largest of kv_lens = 2147418113; expected <= 2147418112 (kMaxKvLen)".
std::string problem_args_error(const ProblemArgs& a);

// Largest segment count a caller may request (more segments than KV tiles is
// allowed: the extra segments are empty). The one bound: select(), uattn-explain
// --segments and uattn-run --segments all use it.
constexpr int kMaxSegments = 1024;

// Most tokens a call may describe: one sequence's q_len, and the sum of the
// q_lens (num_tokens). cu_seqlens_q is int32 (SPEC.md s.1). The one bound:
// problem_args_error(), uattn-explain (--seqs and scenario files) and uattn-run
// --seqs all use it and name it in their refusals. A KV length has the tighter
// kMaxKvLen (below).
constexpr int64_t kMaxTokens = 2147483647;

// Longest KV length a call may have: one sequence's seqused_k (kv_len), hence
// max_seqlen_k; 2^31 - 2^16. The kernels hold key indices in int32: the end of a
// workgroup's last KV tile (kv_len + block_n - 1, templates/uattn/kernel/phases.hpp
// locate_work), the keys of that tile and of the tile a workgroup prefetches
// after it must not wrap, which holds while 2 x block_n <= 2^31 - 1 - kMaxKvLen
// (every table row; the table test checks it). Enforced by validate()
// (max_seqlen_k), select() (ProblemDesc::max_seqlen_k), problem_args_error()
// (kv_lens) and uattn-explain / uattn-run (--seqs, scenario files), which name it.
constexpr int64_t kMaxKvLen = 2147483647 - 65535;

// CUs of a device whose HIP properties report `reported_units` in
// hipDeviceProp_t::multiProcessorCount: on RDNA (gfx10+) HIP runs in WGP mode and
// counts work-group processors of two CUs each, so 36 on a 72-CU gfx1030
// (ArchInfo.cus_per_reported_unit, generator/uattn_gen/model.py, with its
// source). The one conversion: the runtime applies it to the device's
// properties; uattn-explain --cus and ProblemDesc::num_cus take CUs.
inline int cus_from_reported(Arch a, int reported_units) {
  return reported_units * kArchSelectRecords[(int)a].cus_per_reported_unit;
}

// The knobs of the selector's cost model (docs/architecture.md, "The cost
// model"). default_policy(arch) holds the generated defaults (model.py:
// ArchInfo.mem_bytes_per_cycle / launch_cycles / max_segments, SELECT_POLICY); pass another
// through SelectOptions::policy to override them at run time.
struct SelectPolicy {
  double mem_bytes_per_cycle = 0;  // device-memory bandwidth, bytes per engine cycle (> 0)
  double launch_cycles = 0;        // cycles one more dependent kernel launch costs (the 3D reduce) (>= 0)
  int overlap_waves = 0;           // waves per SIMD whose latencies hide each other (>= 1), capped by occupancy
  int max_segments = 0;            // most segments an automatic split chooses (1..kMaxSegments)
  int min_tiles_per_segment = 0;   // KV tiles every automatic segment walks at least (>= 1)
  int split_margin_pct = 0;        // 3D only when its estimate < this % of 2D's (1..1000)
};
SelectPolicy default_policy(Arch a);
// The most segments an automatic split of architecture `a` chooses under
// `pol`: pol.max_segments, at most twice the wave size (the reduce kernel
// keeps up to two segments' weights per lane: reduce.hpp). A walk of fewer
// KV tiles caps it further (tiles / min_tiles_per_segment; select.cpp).
int auto_segment_cap(Arch a, const SelectPolicy& pol);
// The same with the fused reduce (no reduce kernel): pol.max_segments, at most
// kFusedMaxSegments; auto_segment_cap where `a` has no fused reduce.
int auto_fused_segment_cap(Arch a, const SelectPolicy& pol);

// One candidate the cost model estimated (Selection::candidates).
struct CandidateEstimate {
  const InstanceRow* row = nullptr;
  int num_segments = 1;          // 1 for 2D
  uint64_t workgroups = 0;       // workgroups that do work (x segments for 3D)
  int tiles = 0;                 // KV tiles the longest-walking workgroup walks
  double compute_cycles = 0;     // max(critical path, work / (CUs x SIMDs x overlapped waves))
  double memory_cycles = 0;      // K/V bytes moved / mem_bytes_per_cycle
  double reduce_cycles = 0;      // 3D: launch_cycles (the fused reduce: its serial tail) + workspace bytes
                                 // written and read / bandwidth
  bool fused_reduce = false;     // 3D: estimated with the fused reduce (Selection::fused_reduce)
  double cycles = 0;             // max(compute, memory) + reduce: the estimate compared
};

// The fused reduce (templates/uattn/kernel/fused_reduce.hpp): a 3D attention
// launch whose workgroups count their arrivals on device counters combines the
// segments itself, with no reduce launch. Served where the attention bodies
// carry it: the matrix-core (MFMA) bodies, gfx950 (attention_mfma.hpp); not
// the dot2 bodies of gfx1030. A plan takes it at 1..kFusedSubSegments
// segments or at multiples of fused_sub_segments(S) up to kFusedMaxSegments
// (sub-groups of 8 segments up to 128, of 16 past it; at most 16 of them), where its counters,
// fused_counter_words(), fit kFusedCounterWords, at most kFusedMaxRows rows
// per workgroup, and its estimate is the lower. 256 segments: the one-wave
// workgroups of a long decode two to a SIMD instead of one, whose latencies
// hide each other (docs/performance.md, "256 segments with the fused reduce").
constexpr int kFusedSubSegments = 8;
constexpr int kFusedMaxSegments = 256;
// Segments per first-level sub-group at S segments (fused_reduce.hpp sub_size).
constexpr int fused_sub_segments(int num_segments) {
  return num_segments <= 16 * kFusedSubSegments ? kFusedSubSegments : 2 * kFusedSubSegments;
}
// Planned only where every workgroup serves at most kFusedMaxRows packed rows
// (max_seqlen_q x qpk): the combining wave works on 4 rows at a time at most;
// with 8 its tail took 2.38 us at 128 segments and the first-level combines
// doubled the launch's CU time, within 4% of the reduce launch in the model.
// kFusedRowCycles: its per-row cost in the selector's estimate (select.cpp,
// estimate), plus 3 cycles per segment: 890 at 64 segments, where the
// whole-launch model's tails take 616-633 cycles a row at 4-64 segments and
// 807 at 128 (4 rows; docs/performance.md, "The fused reduce"). Set above
// them: at 450 the short decodes (100 keys; a 64-key window) went to the 3D
// split, whose walk the estimate charges less than the model does.
constexpr int kFusedMaxRows = 4;
constexpr double kFusedRowCycles = 700;
// The key split's walk per KV tile over the shared walk's, where the measured
// figures lack split_tile_cycles (a kernel not in instances/measured.yaml): the
// gfx1030 8-wave d128 window tiles measure 2178.2 / 1334.1 (f16) and 2341.2 /
// 1389.2 (bf16) llvm-mca cycles (docs/performance.md, "Key split in the gfx1030
// 8-wave tile").
constexpr double kSplitTileFactor = 1.7;
// What the key split adds to its workgroup's critical path beyond its walk: the
// partials' LDS stores, the barrier and the combining wave's reads, and 8 waves
// set up instead of the rows' few. Set from the whole-launch model: a window-1
// decode (one tile per row group) takes 6.4 us with the split against 6.1 with
// the one-wave tile, where the estimate without this term had the split 1057
// cycles ahead (docs/performance.md, "Key split in the gfx1030 8-wave tile").
constexpr double kSplitCombineCycles = 1500;
// Counter words (uint32) of one counter buffer: 64 KiB. The runtime owns one
// per device and stream (zeroed when allocated; every completed launch leaves
// the words it used at 0).
constexpr uint64_t kFusedCounterWords = 16384;
bool fused_reduce_arch(Arch a);
// Counter words of a fused launch: grid x * num_kv_heads * (ceil(S / G) + 1),
// G = fused_sub_segments(S).
uint64_t fused_counter_words(uint64_t grid_x, int num_kv_heads, int num_segments);

struct SelectOptions {
  ForcePath path = ForcePath::kAuto;
  std::string filter;            // glob over instance names ('*', '?'); empty = all
  // 3D only: 0 = chosen by the selector, else 1..kMaxSegments. With path kAuto a
  // count > 0 selects the 3D path; with path k2D it is an error (never dropped).
  int num_segments = 0;
  // Fill Selection::why and Selection::candidates. Off on the per-call path
  // (select() then builds no strings unless it fails); uattn-explain and
  // Runtime::plan() turn it on.
  bool explain = false;
  // 3D: plan the fused reduce where it is served (Selection::fused_reduce);
  // false: every 3D plan combines its segments with the reduce launch.
  bool fused_reduce = true;
  // The cost model's knobs; nullptr = default_policy(problem's arch). Checked
  // by options_error(). Not copied: it must outlive the select() call.
  const SelectPolicy* policy = nullptr;
};
// "" when `o` is within its ranges (path one of ForcePath, num_segments in
// [0, kMaxSegments] and 0 with path k2D, every policy knob in the range its
// comment gives), else the refusal, e.g.
// "options.num_segments = 2000; expected 0 (automatic) to 1024".
std::string options_error(const SelectOptions& o);

struct Dim3 { uint32_t x = 1, y = 1, z = 1; };

struct KernelLaunch {
  const InstanceRow* row = nullptr;
  Dim3 grid;
  uint32_t threads = 0;          // workgroup size (waves x wave_size)
  uint32_t lds_bytes = 0;
};

// The selector's answer: one attention launch, and for 3D a reduce launch.
struct Selection {
  bool ok = false;
  std::string error;             // when !ok: what is not served and the nearest instances
  bool invalid = false;          // when !ok: the problem or the options are outside the contract
                                 // (a refusal, uattn::kInvalidArgument), not a missing instance
  Path path = Path::k2D;
  int num_segments = 1;
  // The attention grid's x: 0 = the packed grid (floor(num_tokens * qpk / block_m)
  // + num_seqs workgroups), n > 0 = n blocks of block_m rows per sequence
  // (num_seqs * n workgroups, n = ceil(max_seqlen_q * qpk / block_m)), taken
  // where it is the smaller (decode: one workgroup per sequence, no spare).
  // The launch passes it as AttnParams::q_blocks_per_seq.
  int q_blocks_per_seq = 0;
  // The 2D work order (AttnParams::dispatch_round): 0 = grid order; R > 0 =
  // the serpentine order over rounds of R workgroups (templates/uattn/kernel/
  // work_order.hpp), R = the CU count: set for 2D launches of more than one
  // round whose sequences all hold max_seqlen_q > 1 query-row blocks' worth of
  // tokens (prefills of equal lengths, num_tokens = num_seqs x max_seqlen_q:
  // their causal walks grow alike along every sequence), under 2^31 workgroups.
  int dispatch_round = 0;
  uint64_t workspace_bytes = 0;  // fp32 workspace for 3D (acc + max + sum)
  KernelLaunch attention;
  KernelLaunch reduce;           // valid when path == k3D
  // 3D: the attention launch combines the segments itself when it is given a
  // zeroed counter buffer (AttnParams::ws_count, kFusedCounterWords words, left
  // zeroed by the launch); the reduce launch is then not made. Without one
  // (ws_count null) the reduce launch combines them as usual.
  bool fused_reduce = false;
  std::string why;               // human-readable reasons; only with SelectOptions::explain, else empty
  double estimate_cycles = 0;    // the cost model's estimate of the chosen launch(es); 0 when forced without a model
  // Every candidate the cost model estimated (2D tiles, 3D segment counts), in
  // the order considered; only with SelectOptions::explain, else empty.
  std::vector<CandidateEstimate> candidates;
};

// The instance and launch configuration for `p`. Never throws; on failure ok is
// false and error says why (an invalid problem, num_segments outside
// 0..kMaxSegments or given with path k2D, nothing served). Cost: a hit builds no
// string; each thread remembers its last successful decision made without a
// filter, policy or explanation, and answers a repeat of that problem and
// options from it (docs/performance.md "Selector latency"). Thread-safe.
Selection select(const ProblemDesc& p, const SelectOptions& opt = {});

// Workspace layout (bytes offsets) for 3D: acc, then max, then sum.
// Every field is 0 when the total does not fit in 64 bits (negative inputs too):
// select() refuses such a problem.
struct WorkspaceLayout { uint64_t acc_offset, max_offset, sum_offset, total_bytes; };
WorkspaceLayout workspace_layout(int num_tokens, int num_q_heads, int num_segments, int head_size);

// glob match used by --filter at build time and SelectOptions::filter at run time.
bool glob_match(const char* pattern, const char* name);

// Names from the generated records: "gfx950", "2d" / "3d" / "reduce", "f16",
// "small"; "?" for a value outside the enum.
const char* to_string(Arch a);
const char* to_string(Path p);
const char* to_string(DType d);
const char* to_string(Tile t);
// "plain", or the feature names joined by '+' in bit order, e.g. "window+softcap".
std::string features_to_string(uint32_t f);
// The Arch named `name` (its record's name) or whose offload target is the
// processor `name` ("gfx950", also "gfx950:sramecc+:xnack-"); false when none.
bool arch_from_name(const std::string& name, Arch* a);
// "gfx950, gfx1030": every architecture of the records.
std::string arch_list();
// The dtypes for which pred holds, in enum order: "f16 or bf16".
std::string dtype_list(bool (*pred)(DType));

}  // namespace uattn
