// Selection: problem -> (path, instance, launch configuration).
//
// Rows are scanned in table order (most specialised first: exact block_size
// before generic, fewer compiled-in features before more); the first row that
// serves the problem with each tile kind is a candidate. The cost model
// (docs/architecture.md, "The cost model"; knobs in SelectPolicy) estimates the
// 2D candidates and the 3D one-wave row at a few segment counts, and takes the
// cheapest; 3D only when it beats 2D by split_margin_pct and splits in >= 2.
//
// Latency: select() runs on every attention call. The rows are grouped once
// (first call) by (architecture, path, dtypes, head size), so a call scans
// only the few rows of its groups; the decision is recorded as reason codes
// and numbers, and the text of Selection::why is written only when
// SelectOptions::explain asks for it. Strings are built on errors only.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "uattn/table.hpp"

namespace uattn {

namespace {

template <class E, size_t N>
const char* name_of(E v, const char* const (&names)[N]) {
  const size_t i = (size_t)v;
  return i < N ? names[i] : "?";
}

}  // namespace

const char* to_string(Arch a) { return (size_t)a < (size_t)kNumArchs ? arch_record(a).name : "?"; }
const char* to_string(Path p) { return name_of(p, kPathNames); }
const char* to_string(DType d) { return name_of(d, kDTypeNames); }
const char* to_string(Tile t) { return name_of(t, kTileNames); }
std::string features_to_string(uint32_t f) {
  if (f == 0) return "plain";
  std::string s;
  for (const FeatureName& n : kFeatureNames)
    if (f & n.bit) s += (s.empty() ? "" : "+") + std::string(n.name);
  return s;
}

bool arch_from_name(const std::string& name, Arch* a) {
  const std::string processor = name.substr(0, name.find(':'));
  for (Arch x : kArchs)
    if (processor == arch_record(x).name) { *a = x; return true; }
  for (Arch x : kArchs)
    if (processor == arch_record(x).offload_target) { *a = x; return true; }
  return false;
}

std::string arch_list() {
  std::string s;
  for (Arch x : kArchs) s += (s.empty() ? "" : ", ") + std::string(arch_record(x).name);
  return s;
}

std::string dtype_list(bool (*pred)(DType)) {
  std::vector<std::string> q;
  for (int i = 0; i < kNumDTypes; ++i)
    if (pred((DType)i)) q.push_back(kDTypeNames[i]);
  std::string s;
  for (size_t i = 0; i < q.size(); ++i) s += (i == 0 ? "" : i + 1 == q.size() ? " or " : ", ") + q[i];
  return s;
}

uint32_t features_used(const ProblemArgs& a) {
  uint32_t f = 0;
#define UATTN_FEATURE_BIT(TYPE, NAME, ARG, DEFAULT, ROLE, FEATURE, USED) \
  if (const auto v = a.NAME; USED) f |= FEATURE;
  UATTN_FOREACH_FEATURE_ARG(UATTN_FEATURE_BIT)
#undef UATTN_FEATURE_BIT
  return f;
}

namespace {

// Token sum and length maxima of `a`, in 64 bits, and the first negative length.
struct Lengths {
  int64_t tokens = 0, max_q = 0, max_k = 0;
  int bad_seq = -1;  // the first sequence with a negative length, -1 when none
  const char* bad_name = "";
  int64_t bad = 0;
};
Lengths lengths_of(const ProblemArgs& a) {
  Lengths l;
  if (!a.q_lens && !a.kv_lens) return l;  // nothing to sum (describe(): num_seqs alone, up to 2^31 - 1)
  for (int i = 0; i < a.num_seqs; ++i) {
    const int64_t q = a.q_lens ? a.q_lens[i] : 0, k = a.kv_lens ? a.kv_lens[i] : 0;
    if (l.bad_seq < 0 && (q < 0 || k < 0)) {
      l.bad_seq = i;
      l.bad_name = q < 0 ? "q_lens" : "kv_lens";
      l.bad = q < 0 ? q : k;
    }
    l.tokens += q > 0 ? q : 0;  // num_seqs <= 2^31 terms of < 2^31 each: no 64-bit overflow
    l.max_q = std::max(l.max_q, q);
    l.max_k = std::max(l.max_k, k);
  }
  return l;
}

int fit_int32(int64_t v) { return v >= 0 && v <= kMaxTokens ? (int)v : -1; }

}  // namespace

ProblemDesc make_problem(const ProblemArgs& a) {
  ProblemDesc p;
  p.arch = a.arch;
  p.q_dtype = a.q_dtype;
  p.kv_dtype = a.kv_dtype;
  p.out_dtype = a.out_dtype;
  p.head_size = a.head_size;
  p.block_size = a.block_size;
  p.features = features_used(a);
  p.window_left = a.window_left >= 0 ? a.window_left : -1;
  p.num_q_heads = a.num_q_heads;
  p.num_kv_heads = a.num_kv_heads;
  p.num_seqs = a.num_seqs;
  const Lengths l = lengths_of(a);
  p.num_tokens = a.num_tokens >= 0 ? a.num_tokens : l.bad_seq >= 0 ? -1 : fit_int32(l.tokens);
  p.max_seqlen_q = a.max_seqlen_q >= 0 ? a.max_seqlen_q : l.bad_seq >= 0 ? -1 : fit_int32(l.max_q);
  p.max_seqlen_k = a.max_seqlen_k >= 0 ? a.max_seqlen_k : l.bad_seq >= 0 ? -1 : fit_int32(l.max_k);
  p.num_cus = a.num_cus;
  p.rows_aligned = a.rows_aligned;
  return p;
}

std::string problem_args_error(const ProblemArgs& a) {
  std::ostringstream e;
  if (a.num_seqs < 0) {
    e << "num_seqs = " << a.num_seqs << "; expected >= 0";
    return e.str();
  }
  const Lengths l = lengths_of(a);
  if (l.bad_seq >= 0)
    e << l.bad_name << "[" << l.bad_seq << "] = " << l.bad << "; expected >= 0";
  else if (a.num_tokens < 0 && l.tokens > kMaxTokens)
    e << "num_tokens = sum of q_lens = " << l.tokens << " (" << a.num_seqs << " sequences); expected <= " << kMaxTokens
      << " (kMaxTokens)";
  else if (a.max_seqlen_k < 0 && l.max_k > kMaxKvLen)
    e << "max_seqlen_k = largest of kv_lens = " << l.max_k << "; expected <= " << kMaxKvLen << " (kMaxKvLen)";
  return e.str();
}

namespace {
std::string policy_error(const SelectPolicy& s);
}  // namespace

std::string options_error(const SelectOptions& o) {
  std::ostringstream e;
  const int path = (int)o.path;
  if (path < (int)ForcePath::kAuto || path > (int)ForcePath::k3D)
    e << "options.path = " << path << "; expected " << (int)ForcePath::kAuto << " (auto), " << (int)ForcePath::k2D
      << " (2d) or " << (int)ForcePath::k3D << " (3d)";
  else if (o.num_segments < 0 || o.num_segments > kMaxSegments)
    e << "options.num_segments = " << o.num_segments << "; expected 0 (automatic) to " << kMaxSegments;
  else if (o.num_segments > 0 && o.path == ForcePath::k2D)
    e << "options.num_segments = " << o.num_segments << " with options.path = " << path
      << " (2d): a segment count applies to the 3D (split-KV) path only; expected num_segments 0, or path "
      << (int)ForcePath::kAuto << " (auto) or " << (int)ForcePath::k3D << " (3d)";
  else if (o.policy)
    return policy_error(*o.policy);
  return e.str();
}

bool glob_match(const char* pat, const char* s) {
  // Iterative '*'/'?' matcher with single backtrack point.
  const char *star = nullptr, *ss = nullptr;
  while (*s) {
    if (*pat == '?' || *pat == *s) { ++pat; ++s; }
    else if (*pat == '*') { star = pat++; ss = s; }
    else if (star) { pat = star + 1; s = ++ss; }
    else return false;
  }
  while (*pat == '*') ++pat;
  return *pat == 0;
}

bool fused_reduce_arch(Arch a) { return a == Arch::gfx950; }

uint64_t fused_counter_words(uint64_t grid_x, int num_kv_heads, int num_segments) {
  if (num_kv_heads <= 0 || num_segments <= 0) return 0;
  const uint64_t g = (uint64_t)fused_sub_segments(num_segments);
  const uint64_t per = ((uint64_t)num_segments + g - 1) / g + 1;
  uint64_t w = 0;
  if (__builtin_mul_overflow(grid_x, (uint64_t)num_kv_heads, &w) || __builtin_mul_overflow(w, per, &w))
    return ~(uint64_t)0;
  return w;
}

WorkspaceLayout workspace_layout(int num_tokens, int num_q_heads, int num_segments, int head_size) {
  WorkspaceLayout w{0, 0, 0, 0};
  if (num_tokens < 0 || num_q_heads < 0 || num_segments < 0 || head_size < 0) return w;
  uint64_t rows = 0, acc = 0, acc_d = 0, tail = 0, total = 0;
  // rows * head_size * 4 + rows * 4 * 2 bytes, every step checked.
  if (__builtin_mul_overflow((uint64_t)num_tokens, (uint64_t)num_q_heads, &rows) ||
      __builtin_mul_overflow(rows, (uint64_t)num_segments, &rows) ||
      __builtin_mul_overflow(rows, (uint64_t)head_size, &acc_d) || __builtin_mul_overflow(acc_d, 4u, &acc) ||
      __builtin_mul_overflow(rows, 8u, &tail) || __builtin_add_overflow(acc, tail, &total))
    return w;
  // A multiple of 16 bytes: a buffer placed to end at a 16-byte boundary
  // (the CPU-backed device's guard pages) starts on one too.
  if (__builtin_add_overflow(total, 15u, &total)) return w;
  w.max_offset = acc;
  w.sum_offset = acc + rows * 4u;
  w.total_bytes = total & ~(uint64_t)15;
  return w;
}

namespace {

// Row groups: the rows of one (arch, path, q dtype, kv dtype, head size), in
// table order; reduce rows carry DType{} for both dtypes.
uint64_t group_key(Arch a, Path path, DType q, DType kv, int head_size) {
  return ((uint64_t)((size_t)a & 0xff) << 56) | ((uint64_t)((size_t)path & 0xff) << 48) |
         ((uint64_t)((size_t)q & 0xff) << 40) | ((uint64_t)((size_t)kv & 0xff) << 32) | (uint64_t)(uint32_t)head_size;
}

struct Span {
  const InstanceRow* const* begin = nullptr;
  const InstanceRow* const* end = nullptr;
  bool empty() const { return begin == end; }
};

class RowIndex {
 public:
  RowIndex() {
    const std::vector<InstanceRow>& rows = all_rows();
    std::vector<std::pair<uint64_t, const InstanceRow*>> keyed;
    keyed.reserve(rows.size());
    for (const InstanceRow& r : rows) keyed.push_back({key_of(r), &r});
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });  // keeps table order
    for (size_t i = 0; i < keyed.size(); ++i) {
      rows_.push_back(keyed[i].second);
      if (i == 0 || keyed[i].first != keyed[i - 1].first) groups_.push_back({keyed[i].first, i, i + 1});
      else groups_.back().end = i + 1;
    }
  }
  Span find(uint64_t key) const {
    auto it = std::lower_bound(groups_.begin(), groups_.end(), key,
                               [](const Group& g, uint64_t k) { return g.key < k; });
    if (it == groups_.end() || it->key != key) return {};
    return {rows_.data() + it->begin, rows_.data() + it->end};
  }

 private:
  struct Group { uint64_t key; size_t begin, end; };
  static uint64_t key_of(const InstanceRow& r) {
    return group_key(r.arch, r.path, r.q_dtype, r.kv_dtype, r.head_size);
  }
  std::vector<const InstanceRow*> rows_;
  std::vector<Group> groups_;
};

const RowIndex& row_index() {
  static const RowIndex index;
  return index;
}

// What an attention row of the problem's group must also match.
bool serves_rest(const InstanceRow& r, const ProblemDesc& p) {
  return (r.block_size == 0 || r.block_size == p.block_size) && (p.features & ~r.features) == 0 &&
         (p.rows_aligned || is_generic(r));
}

// The first row of `g` serving `p` (and passing the filter) with tile `t`.
const InstanceRow* pick(Span g, const ProblemDesc& p, const SelectOptions& opt, Tile t) {
  for (const InstanceRow* const* it = g.begin; it != g.end; ++it) {
    const InstanceRow& r = **it;
    if (r.tile != t || !serves_rest(r, p)) continue;
    if (!opt.filter.empty() && !glob_match(opt.filter.c_str(), r.name)) continue;
    return &r;
  }
  return nullptr;
}

// The attention grid's x (templates/uattn/kernel/phases.hpp, launch contract):
// the packed grid, floor(num_tokens * qpk / block_m) + num_seqs, or where it is
// smaller num_seqs * n with n = ceil(max_seqlen_q * qpk / block_m) blocks per
// sequence (then *blocks_per_seq = n, else 0). Decode (max_seqlen_q = 1, qpk <=
// block_m): one workgroup per sequence where the packed grid has
// num_tokens * qpk / block_m spare ones more.
uint64_t grid_x(const ProblemDesc& p, int block_m, int* blocks_per_seq) {
  const uint64_t qpk = (uint64_t)(p.num_q_heads / p.num_kv_heads);
  const uint64_t packed = (uint64_t)p.num_tokens * qpk / (uint64_t)block_m + (uint64_t)p.num_seqs;
  const uint64_t n = ((uint64_t)p.max_seqlen_q * qpk + (uint64_t)block_m - 1) / (uint64_t)block_m;
  *blocks_per_seq = 0;
  if (p.num_seqs <= 0 || n == 0 || n > 0x7fffffffull || (uint64_t)p.num_seqs * n >= packed) return packed;
  *blocks_per_seq = (int)n;
  return (uint64_t)p.num_seqs * n;
}

// Keys one workgroup's rows may see: max_seqlen_k, or with a known sliding
// window at most window_left + max_seqlen_q (the window of its first row to its
// last row; templates/uattn/kernel/phases.hpp, locate_work).
int64_t kv_span(const ProblemDesc& p) {
  if ((p.features & kFeatWindow) && p.window_left >= 0)
    return std::min<int64_t>(p.max_seqlen_k, (int64_t)p.window_left + p.max_seqlen_q);
  return p.max_seqlen_k;
}

// KV tiles one workgroup walks at most: the tiles of the longest sequence, or
// those a window's span can touch at any alignment (ceil((span + block_n - 1) /
// block_n)), whichever is fewer.
int kv_tiles_of(const ProblemDesc& p, const InstanceRow& r) {
  // In doubles (exact: < 2^33): integer division costs more than the rest of a hit.
  const double inv_bn = 1.0 / r.block_n, k = p.max_seqlen_k;
  double tiles = (double)(int64_t)((k + r.block_n - 1) * inv_bn);
  const double span = (double)kv_span(p);
  if (span < k) tiles = std::min(tiles, (double)(int64_t)((span + 2.0 * r.block_n - 2) * inv_bn));
  return (int)std::max(1.0, tiles);
}

// --- the cost model (docs/architecture.md, "The cost model") -----------------

// ceil / floor of 0 <= x < 2^62 without a libm call (the per-call path).
inline double ceil_pos(double x) {
  const double t = (double)(int64_t)x;
  return t < x ? t + 1 : t;
}
inline double floor_pos(double x) { return (double)(int64_t)x; }

// Keys the average workgroup of the longest sequence sees: a causal row at
// offset i of q_len new tokens sees kv_len - q_len + i + 1 keys, so the rows
// see max_seqlen_k - max_seqlen_q / 2 on average; a window caps it at its span.
double avg_keys(const ProblemDesc& p) {
  const double causal = std::max(1.0, (double)p.max_seqlen_k - 0.5 * (double)p.max_seqlen_q);
  return std::min(causal, (double)std::max<int64_t>(1, kv_span(p)));
}

// Workgroups of tile `block_m` that do work, for all KV heads (no spare
// workgroup per sequence): every sequence needs ceil(its packed rows /
// block_m); with only the token sum known, the sequences are taken as equal
// (ceil of the mean), bounded by the launched grid and by the rows' own count.
uint64_t working_workgroups(const ProblemDesc& p, int block_m, int qpk) {
  if (p.num_seqs <= 0 || p.num_tokens <= 0) return 0;
  // In doubles (exact below 2^53; 64-bit integer division costs more than the rest of a hit).
  const double rows = (double)p.num_tokens * qpk, seqs = p.num_seqs, inv_bm = 1.0 / block_m;
  const double per_seq = ceil_pos(rows / seqs);
  const double launched = floor_pos(rows * inv_bm) + seqs;  // grid_x()
  double wg = std::min(seqs * ceil_pos(per_seq * inv_bm), launched);
  wg = std::max(wg, ceil_pos(rows * inv_bm));
  return (uint64_t)wg * (uint64_t)p.num_kv_heads;
}

struct ModelInputs {
  const ProblemDesc* p;
  const SelectPolicy* pol;
  int cus, simds, qpk;
  double kv_bytes, keys_avg;
  // Per-call constants of estimate() (no division per candidate where one will do).
  double simd_count = 0;    // cus x SIMDs per CU
  double rows_per_seq = 0;  // ceil(num_tokens x qpk / num_seqs)
  double wg_simds = 0;      // SIMDs one workgroup's waves run on: a CU's, or a WGP's (2 CUs) on RDNA
  double inv_bw = 0;        // 1 / mem_bytes_per_cycle
  double ws_per_segment = 0;  // workspace bytes per segment, written and read
  double tile_latency = 0;    // ArchSelectRecord::tile_latency_cycles
  double wg_latency = 0;      // ArchSelectRecord::workgroup_latency_cycles
  // K/V bytes of every sequence's keys where they fit the last-level cache, else unbounded.
  double kv_footprint = 0;
  // The generic instance runs its full-feature loop variant (the rows' full_* cycles):
  // softcap, ALiBi or QQ-bias given, or unaligned rows.
  bool full_variant = false;
  void finish() {
    simd_count = (double)cus * simds;
    wg_simds = (double)simds * kArchSelectRecords[(int)p->arch].cus_per_workgroup;
    rows_per_seq = p->num_seqs > 0 ? ceil_pos((double)p->num_tokens * qpk / p->num_seqs) : 0;
    inv_bw = 1.0 / pol->mem_bytes_per_cycle;
    ws_per_segment = 2.0 * (double)p->num_tokens * p->num_q_heads * ((double)p->head_size + 2) * 4.0;
    const ArchSelectRecord& a = kArchSelectRecords[(int)p->arch];
    tile_latency = a.tile_latency_cycles;
    wg_latency = a.workgroup_latency_cycles;
    // Keys per sequence: at most max_seqlen_k (only the longest is known).
    const double kv = (double)p->num_seqs * (double)p->max_seqlen_k * p->num_kv_heads * p->head_size * 2.0 * kv_bytes;
    kv_footprint = kv <= a.llc_bytes ? kv : std::numeric_limits<double>::infinity();
    full_variant = (p->features & (kFeatSoftcap | kFeatAlibi | kFeatQQBias)) != 0 || !p->rows_aligned;
  }
};

// The estimate of running `r` with `segs` segments (1 = 2D); wg1 = working
// workgroups of one segment, tiles = KV tiles of the longest walk.
CandidateEstimate estimate(const ModelInputs& m, const InstanceRow& r, int segs, uint64_t wg1, int tiles,
                           bool fused = false) {
  CandidateEstimate e;
  e.row = &r;
  e.num_segments = segs;
  e.fused_reduce = fused;
  e.tiles = (int)ceil_pos((double)tiles / segs);                   // the longest walk, in tiles
  // Segments with at least one tile: each walks ceil(tiles / segs) (phases.hpp, locate_work).
  const int live = (int)ceil_pos((double)tiles / e.tiles);
  e.workgroups = wg1 * (uint64_t)live;
  // The key split (the tile record's key_split; attention_dot2.hpp, "Key split"):
  // a 2D workgroup of at most block_m / 2 rows forms `groups` groups of
  // rows_per_wave rows (1, 2 or 4), and the waves / groups waves of a group each
  // walk one consecutive share of its tiles with their own K / V loads, at the
  // split walk's cycles per tile (split_tile_cycles; unmeasured: kSplitTileFactor
  // x tile_cycles, table.hpp), then combine once through LDS. Approximations: the
  // split is decided from the average rows per sequence (the kernel decides per
  // workgroup: a prefill's last workgroup of few rows splits unpriced), and a
  // row group without rows (9-12 rows) counts as running and loading.
  const double wg_rows = std::min((double)r.block_m, m.rows_per_seq);
  const bool split = r.key_split && r.path == Path::k2D && wg_rows <= r.block_m / 2.0;
  const double split_groups = !split ? 1.0 : wg_rows <= r.rows_per_wave ? 1.0 : wg_rows <= 2.0 * r.rows_per_wave ? 2.0 : 4.0;
  const double split_ways = split ? r.waves / split_groups : 1.0;
  const int walk_tiles = (int)ceil_pos(e.tiles / split_ways);  // the longest walk of one wave
  const double tiles_avg = std::max(1.0, m.keys_avg / r.block_n) / live / split_ways;  // the average walk
  // Waves of a workgroup that own query rows (at least one); every wave of a
  // head-split tile owns all of them (the tile record's head_split).
  const double per_wave = (double)r.rows_per_wave;
  const double row_waves =
      r.head_split
          ? (double)r.waves
          : std::max(1.0, std::min((double)r.waves, ceil_pos(std::min((double)r.block_m, m.rows_per_seq) / per_wave)));
  // Waves that run: where waves are independent (each wave walks its own rows'
  // keys: the tile record's shares_kv false), those with rows; otherwise all of a workgroup's.
  const bool independent = !r.shares_kv || split;
  const double busy = split ? (double)r.waves : independent ? row_waves : (double)r.waves;
  const double overlap = std::max(0.25, std::min(r.occupancy, (double)m.pol->overlap_waves));
  const double lanes = m.simd_count * overlap;                     // waves making progress at once
  const double waves = (double)e.workgroups * busy;
  // Per tile: an interior tile's cycles, or a boundary (masked) tile's, of the
  // loop variant that runs (the slowest where the problem needs it: the row's full_*).
  const double c_split = r.split_tile_cycles > 0 ? r.split_tile_cycles : kSplitTileFactor * r.tile_cycles;
  const double c_in = split ? c_split : m.full_variant ? r.full_tile_cycles : r.tile_cycles;
  const double c_bd = split ? c_split : m.full_variant ? r.full_boundary_cycles : r.boundary_cycles;
  // Boundary tiles of a walk (phases.hpp, interior_tiles): those the causal
  // diagonal of the workgroup's tokens crosses, as many again at a sliding
  // window's lower edge, and with QQ-bias every tile of the new tokens' keys.
  const double tokens = std::max(1.0, std::min((double)m.p->max_seqlen_q, ceil_pos((double)r.block_m / m.qpk)));
  const double diagonal = ceil_pos((tokens - 1) / r.block_n) + 1;
  const double upper = (m.p->features & kFeatQQBias)
                           ? std::max(diagonal, ceil_pos((double)m.p->max_seqlen_q / r.block_n) + 1)
                           : diagonal;
  const double lower = (m.p->features & kFeatWindow) && m.p->window_left >= 0 ? diagonal : 0;
  // The longest walk ends at the diagonal; an average workgroup's boundary tiles spread over its segments.
  const double bd_walk = std::min((double)walk_tiles, upper + (live == 1 ? lower : 0));
  const double bd_avg = std::min(tiles_avg, (upper + lower) / live);
  const double walk_cycles = ((double)walk_tiles - bd_walk) * c_in + bd_walk * c_bd;
  const double avg_cycles = (tiles_avg - bd_avg) * c_in + bd_avg * c_bd;
  // The critical path: the longest walk of a workgroup whose waves have their
  // SIMDs to themselves (nothing hides its latencies): issue, at one wave per
  // SIMD or slower where the workgroup has more waves than the SIMDs it runs on
  // (the gfx1030 8-wave tile: 2 per SIMD of a WGP), of the work outside the
  // tile loop (workgroup_latency_cycles) and of each tile (tile_cycles), plus
  // each tile's dependent memory round trips (tile_latency_cycles): one where a
  // wave loads its own K/V, two where the waves stage K/V through LDS (the
  // global loads, then the LDS reads after the barrier: shares_kv).
  // The key split's walks are short and their llvm-mca cycles mostly each wave's
  // waits for its own loads (the f16 d128 window tile: 977 instructions in 2178
  // cycles per tile), which the other wave of its SIMD fills: one wave's time
  // (calibrated on the whole-launch model, docs/performance.md, "Key split in the
  // gfx1030 8-wave tile").
  const double per_simd = split ? 1.0 : std::max(1.0, std::ceil((double)r.waves / m.wg_simds));
  const double round_trips = r.shares_kv && !split ? 2.0 : 1.0;
  const double walk = per_simd * (m.wg_latency + walk_cycles) + (double)walk_tiles * m.tile_latency * round_trips +
                      (split ? kSplitCombineCycles : 0.0);
  // Or the work spread over the waves that make progress at once.
  e.compute_cycles = std::max(walk, waves * avg_cycles / lanes);
  // K and V of a tile, loaded once per workgroup, or once per wave where waves are independent
  // (with the key split: once per row group, whose waves share its tiles out).
  const double kv_tile_bytes =
      2.0 * r.block_n * m.p->head_size * m.kv_bytes * (split ? split_groups * split_ways : independent ? busy : 1);
  // Device-memory bandwidth: every tile's K/V, or, where every sequence's K/V
  // fits the last-level cache, each byte once. (Latency is the walk's part.)
  const double bytes = std::min((double)e.workgroups * tiles_avg * kv_tile_bytes, m.kv_footprint);
  e.memory_cycles = bytes * m.inv_bw;
  if (r.path == Path::k3D) {
    // The fused reduce (fused_reduce.hpp) pays no launch, but its combining wave
    // works after the last arrival (the tail) and, past 8 segments, once per
    // sub-group within the launch. Per row, kFusedRowCycles + 3 cycles per
    // segment (x head_size / 128 above d128), set from the whole-launch model's
    // tails of the gfx950 sets (docs/performance.md, "The fused reduce": 616 to
    // 807 cycles a row at 4 to 128 segments; table.hpp says why kFusedRowCycles
    // is above them); the sub-groups' combines add one
    // such row cost per sub-group and row to the work spread over the SIMDs.
    const double rows = std::max(1.0, std::min((double)r.block_m, m.rows_per_seq));
    const double per_row = (kFusedRowCycles + 3.0 * segs) * std::max(1.0, m.p->head_size / 128.0);
    if (fused) {
      const double sub = segs > kFusedSubSegments ? (double)segs / fused_sub_segments(segs) : 0.0;
      e.compute_cycles += (double)wg1 * sub * rows * per_row / lanes;
    }
    e.reduce_cycles = (fused ? rows * per_row : m.pol->launch_cycles) + m.ws_per_segment * segs * m.inv_bw;
  }
  e.cycles = std::max(e.compute_cycles, e.memory_cycles) + e.reduce_cycles;
  return e;
}

// The 3 rows of p's architecture the filter admits (all when it is empty)
// closest to p (most matching fields; table order among equals), without
// sorting the table (the miss path).
std::string nearest(const ProblemDesc& p, Path path, const std::string& filter) {
  const InstanceRow* best[3] = {nullptr, nullptr, nullptr};
  int score[3] = {-1, -1, -1};
  for (const InstanceRow& r : all_rows()) {
    if (r.arch != p.arch || r.path == Path::kReduce) continue;
    if (!filter.empty() && !glob_match(filter.c_str(), r.name)) continue;
    int s = (r.path == path) + 2 * (r.q_dtype == p.q_dtype) + 2 * (r.kv_dtype == p.kv_dtype) +
            2 * (r.head_size == p.head_size) + (r.block_size == 0 || r.block_size == p.block_size) +
            ((p.features & ~r.features) == 0);
    for (int i = 0; i < 3; ++i)
      if (s > score[i]) {  // strictly better: earlier rows keep their place among equals
        for (int j = 2; j > i; --j) { score[j] = score[j - 1]; best[j] = best[j - 1]; }
        score[i] = s;
        best[i] = &r;
        break;
      }
  }
  std::string out;
  for (int i = 0; i < 3 && best[i]; ++i) out += (i ? ", " : "") + std::string(best[i]->name);
  if (!out.empty()) return out;
  return filter.empty() ? "none for this architecture"
                        : "none: the filter admits no attention instance of " + std::string(to_string(p.arch));
}

bool served_head(const ProblemDesc& p) {
  for (const InstanceRow& r : all_rows())
    if (r.arch == p.arch && r.head_size == p.head_size) return true;
  return false;
}

std::string served_heads(Arch a) {
  std::vector<int> h;
  for (const InstanceRow& r : all_rows())
    if (r.arch == a && std::find(h.begin(), h.end(), r.head_size) == h.end()) h.push_back(r.head_size);
  std::sort(h.begin(), h.end());
  std::string s;
  for (int x : h) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s.empty() ? "none" : s;
}

std::string describe(const ProblemDesc& p) {
  return std::string("arch=") + to_string(p.arch) + " q_dtype=" + to_string(p.q_dtype) +
         " kv_dtype=" + to_string(p.kv_dtype) + " head_size=" + std::to_string(p.head_size) +
         " block_size=" + std::to_string(p.block_size) + " features=" + features_to_string(p.features);
}

// The same rules as check(), without building a message (the per-call path).
bool valid(const ProblemDesc& p) {
  return (size_t)p.arch < (size_t)kNumArchs && is_query_dtype(p.q_dtype) && kv_pairs_with(p.kv_dtype, p.q_dtype) &&
         (p.out_dtype == p.q_dtype || is_quantised_output_dtype(p.out_dtype)) && p.head_size > 0 &&
         p.block_size >= 1 && p.num_kv_heads >= 1 && p.num_q_heads >= 1 && p.num_q_heads % p.num_kv_heads == 0 &&
         p.num_seqs >= 0 && p.num_tokens >= 0 && p.max_seqlen_q >= 0 && p.max_seqlen_k >= 0 && p.max_seqlen_k <= kMaxKvLen && p.num_cus >= 0 &&
         (p.features & ~kFeatAll) == 0;
}

std::string check(const ProblemDesc& p) {
  std::ostringstream e;
  if ((size_t)p.arch >= (size_t)kNumArchs)
    e << "arch=" << (int)p.arch << ": expected one of " << arch_list();
  else if (!is_query_dtype(p.q_dtype))
    e << "q_dtype=" << to_string(p.q_dtype) << ": expected " << dtype_list(is_query_dtype);
  else if (!kv_pairs_with(p.kv_dtype, p.q_dtype))
    e << "kv_dtype=" << to_string(p.kv_dtype) << " with q_dtype=" << to_string(p.q_dtype)
      << ": expected the q dtype or " << dtype_list(kv_pairs_with_any_query);
  else if (p.out_dtype != p.q_dtype && !is_quantised_output_dtype(p.out_dtype))
    e << "out_dtype=" << to_string(p.out_dtype) << ": expected the q dtype or " << dtype_list(is_quantised_output_dtype);
  else if (p.head_size <= 0) e << "head_size=" << p.head_size << ": expected a positive head size";
  else if (p.block_size < 1) e << "block_size=" << p.block_size << ": expected >= 1";
  else if (p.num_kv_heads < 1 || p.num_q_heads < 1 || p.num_q_heads % p.num_kv_heads != 0)
    e << "num_q_heads=" << p.num_q_heads << ", num_kv_heads=" << p.num_kv_heads
      << ": expected num_q_heads a positive multiple of num_kv_heads";
  else if (p.num_seqs < 0 || p.num_tokens < 0) e << "num_seqs=" << p.num_seqs << ", num_tokens=" << p.num_tokens << ": expected >= 0";
  else if (p.max_seqlen_q < 0 || p.max_seqlen_k < 0)
    e << "max_seqlen_q=" << p.max_seqlen_q << ", max_seqlen_k=" << p.max_seqlen_k << ": expected >= 0";
  else if (p.max_seqlen_k > kMaxKvLen)
    e << "max_seqlen_k=" << p.max_seqlen_k << ": expected <= " << kMaxKvLen << " (kMaxKvLen)";
  else if (p.num_cus < 0) e << "num_cus=" << p.num_cus << ": expected 0 (the architecture's count) or > 0";
  else if ((p.features & ~kFeatAll) != 0) e << "features=0x" << std::hex << p.features << ": unknown feature bits";
  return e.str();
}

// Why the path was chosen; Decision records it, explanation() turns it into text.
enum class PathReason {
  kForced,             // ForcePath::k2D / k3D
  kSegmentsRequested,  // auto with num_segments > 0: a segment count asks for 3D
  kModel,              // the cost model's cheaper estimate
};

// Waves of a reduce workgroup (reduce.hpp splits the segments over the
// launch's waves): one per kReduceSegmentsPerWave segments, at most the row's,
// while the reduce's workgroups (tokens x query heads) are fewer than the
// device's SIMDs; one wave otherwise, where every SIMD already holds a reduce
// wave and extra waves would each repeat the segments' maxima and sums. In
// the whole-launch model (docs/performance.md, "The reduce across waves") four
// waves cut the reduce of gfx950's 64-segment decodes from 1.98 to 1.04 us of
// CU time (d128; d256 2.83 to 1.12); with four waves on every reduce launch,
// the full-device 3D launches (mixed batches, prefills) were 9-84% slower.
constexpr int kReduceSegmentsPerWave = 16;
int reduce_waves(const InstanceRow& red, int segs, uint64_t groups, double simd_count) {
  if ((double)groups >= simd_count) return 1;
  return std::max(1, std::min(red.waves, segs / kReduceSegmentsPerWave));
}

struct Decision {
  PathReason reason = PathReason::kForced;
  bool only_other = false;   // the chosen path is not served; the other one is
  int cus = 0;
  std::vector<CandidateEstimate> cand;  // every estimate weighed: one per 2D tile kind, one per 3D segment count
  int best2 = -1, best3 = -1;  // indices into cand
  bool segments_requested = false;
};

std::string fmt_cycles(double c) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", c);
  return b;
}

std::string explanation(const ProblemDesc& p, const Selection& sel, const Decision& d, const SelectPolicy& pol) {
  std::ostringstream why;
  const double e2 = d.best2 >= 0 ? d.cand[d.best2].cycles : 0, e3 = d.best3 >= 0 ? d.cand[d.best3].cycles : 0;
  switch (d.reason) {
    case PathReason::kForced: why << "path " << to_string(sel.path) << ": forced; "; break;
    case PathReason::kSegmentsRequested:
      why << "path 3d: " << sel.num_segments << " segments requested; "; break;
    case PathReason::kModel:
      if (d.best3 < 0)
        why << "path 2d: no split of at least 2 segments of " << pol.min_tiles_per_segment
            << " KV tiles each (or no 3D instance); ";
      else if (sel.path == Path::k3D)
        why << "path 3d: estimate " << fmt_cycles(e3) << " cycles < " << pol.split_margin_pct << "% of 2D's "
            << fmt_cycles(e2) << "; ";
      else
        why << "path 2d: estimate " << fmt_cycles(e2) << " cycles; the best split, " << fmt_cycles(e3)
            << ", is not below " << pol.split_margin_pct << "% of it; ";
      break;
  }
  if (d.only_other) why << "only " << to_string(sel.path) << " serves this problem; ";
  why << "instance " << sel.attention.row->name << " (first row serving " << describe(p) << " with the "
      << to_string(sel.attention.row->tile) << " tile)";
  if (sel.path == Path::k3D)
    why << "; segments " << sel.num_segments
        << (d.segments_requested ? " (requested)" : " (the cheapest estimate, each segment >= min_tiles_per_segment KV tiles)")
        << (sel.fused_reduce ? "; fused reduce (the attention launch combines the segments: no reduce launch where "
                               "the runtime has a counter buffer for the stream)"
                             : "; reduce launch");
  why << "; " << d.cus << " CUs";
  return why.str();
}

}  // namespace

SelectPolicy default_policy(Arch a) {
  SelectPolicy s;
  const ArchSelectRecord& r = kArchSelectRecords[(size_t)a < (size_t)kNumArchs ? (int)a : 0];
  s.mem_bytes_per_cycle = r.mem_bytes_per_cycle;
  s.launch_cycles = r.launch_cycles;
  s.overlap_waves = kPolicyDefault_overlap_waves;
  s.max_segments = r.max_segments;
  s.min_tiles_per_segment = kPolicyDefault_min_tiles_per_segment;
  s.split_margin_pct = kPolicyDefault_split_margin_pct;
  return s;
}

// Twice the wave size: the reduce kernel keeps each segment's weight in a lane
// while the segments fit two per lane; past it every chunk of segments re-reads
// and re-exponentiates its weights (reduce.hpp), which the whole-launch model
// has at 4-5x the cycles per segment (docs/performance.md, "Selector against
// the model").
int auto_segment_cap(Arch a, const SelectPolicy& pol) {
  return std::min(pol.max_segments, 2 * kArchRecords[(size_t)a < (size_t)kNumArchs ? (int)a : 0].wave_size);
}

int auto_fused_segment_cap(Arch a, const SelectPolicy& pol) {
  return fused_reduce_arch(a) ? std::min(pol.max_segments, kFusedMaxSegments) : auto_segment_cap(a, pol);
}

namespace {

// "" when every knob of `s` is within the range its comment gives (table.hpp).
std::string policy_error(const SelectPolicy& s) {
  std::ostringstream e;
  if (!(s.mem_bytes_per_cycle > 0) || !std::isfinite(s.mem_bytes_per_cycle))
    e << "options.policy->mem_bytes_per_cycle = " << s.mem_bytes_per_cycle << "; expected a finite number > 0";
  else if (!(s.launch_cycles >= 0) || !std::isfinite(s.launch_cycles))
    e << "options.policy->launch_cycles = " << s.launch_cycles << "; expected a finite number >= 0";
  else if (s.overlap_waves < 1 || s.overlap_waves > 64)
    e << "options.policy->overlap_waves = " << s.overlap_waves << "; expected 1 to 64";
  else if (s.max_segments < 1 || s.max_segments > kMaxSegments)
    e << "options.policy->max_segments = " << s.max_segments << "; expected 1 to " << kMaxSegments;
  else if (s.min_tiles_per_segment < 1)
    e << "options.policy->min_tiles_per_segment = " << s.min_tiles_per_segment << "; expected >= 1";
  else if (s.split_margin_pct < 1 || s.split_margin_pct > 1000)
    e << "options.policy->split_margin_pct = " << s.split_margin_pct << "; expected 1 to 1000";
  return e.str();
}

// True when estimate `a` is preferred to `b`: cheaper, or as cheap with less
// compute (a memory-bound tie goes to the kernel that computes faster).
bool better(const CandidateEstimate& a, const CandidateEstimate& b) {
  return a.cycles < b.cycles || (a.cycles == b.cycles && a.compute_cycles < b.compute_cycles);
}

// The most segments an automatic split chooses for a walk of `tiles` KV
// tiles: auto_segment_cap, or auto_fused_segment_cap where the fused reduce
// can be planned (`fused`; table.hpp), and at most `tiles /
// min_tiles_per_segment`.
int max_auto_segments(const ProblemDesc& p, const SelectPolicy& pol, int tiles, bool fused) {
  return std::min(fused ? auto_fused_segment_cap(p.arch, pol) : auto_segment_cap(p.arch, pol),
                  tiles / pol.min_tiles_per_segment);
}

// The segment counts the model weighs for 3D with row `r3`, each within [lo,
// cap]: every power of two, the count that fills the device's overlapped wave
// slots once and twice that, and the cap; distinct, at most kMaxSegmentCandidates.
constexpr int kMaxSegmentCandidates = 16;
int segment_candidates(const ModelInputs& m, const InstanceRow& r3, uint64_t wg1, int lo, int cap,
                       int out[kMaxSegmentCandidates], bool fused) {
  if (cap < lo) return 0;
  const double overlap = std::max(0.25, std::min(r3.occupancy, (double)m.pol->overlap_waves));
  const double slots = (double)m.cus * m.simds * overlap / r3.waves;  // workgroups in flight at once
  const double fill = wg1 > 0 ? slots / (double)wg1 : 1.0;
  int n = 0;
  auto push = [&](double w) {
    const int s = (int)std::min<double>(cap, std::max<double>(lo, floor_pos(w)));
    for (int i = 0; i < n; ++i)
      if (out[i] == s) return;
    if (n < kMaxSegmentCandidates) out[n++] = s;
  };
  push(fill);
  push(fill * 2);
  push(cap);
  for (int s = 1; s < cap && n < kMaxSegmentCandidates; s *= 2) push(s);
  // The fused reduce takes multiples of its sub-group size (8, 16 past 128
  // segments): where it is planned (`fused`), each count rounded down to one as well.
  for (int i = 0, k = fused ? n : 0; i < k; ++i) {
    const int g = fused_sub_segments(out[i]);
    if (out[i] > kFusedSubSegments && out[i] % g) push(out[i] / g * g);
  }
  return n;
}

}  // namespace

namespace {

bool same_problem(const ProblemDesc& a, const ProblemDesc& b) {
  return a.arch == b.arch && a.q_dtype == b.q_dtype && a.kv_dtype == b.kv_dtype && a.out_dtype == b.out_dtype &&
         a.head_size == b.head_size && a.block_size == b.block_size && a.features == b.features &&
         a.window_left == b.window_left && a.num_q_heads == b.num_q_heads && a.num_kv_heads == b.num_kv_heads &&
         a.num_seqs == b.num_seqs && a.num_tokens == b.num_tokens && a.max_seqlen_q == b.max_seqlen_q &&
         a.max_seqlen_k == b.max_seqlen_k && a.num_cus == b.num_cus && a.rows_aligned == b.rows_aligned;
}

// The last successful decision of this thread, for options without a filter, a
// policy or an explanation (the runtime's per-call options). Every layer of a
// model's step asks the same question, so the model runs once per step and the
// other layers get its answer back; the answer is a pure function of (problem,
// path, num_segments) and the read-only table, so the memo never changes one.
struct LastDecision {
  bool valid = false;
  ProblemDesc p;
  ForcePath path = ForcePath::kAuto;
  int num_segments = 0;
  bool fused_reduce = true;
  Selection sel;
};

thread_local LastDecision t_last;

Selection select_uncached(const ProblemDesc& p, const SelectOptions& opt);

}  // namespace

Selection select(const ProblemDesc& p, const SelectOptions& opt) {
  const bool memo = opt.filter.empty() && !opt.policy && !opt.explain;
  if (memo && t_last.valid && t_last.path == opt.path && t_last.num_segments == opt.num_segments &&
      t_last.fused_reduce == opt.fused_reduce && same_problem(t_last.p, p))
    return t_last.sel;
  Selection sel = select_uncached(p, opt);
  if (memo && sel.ok) {
    t_last.valid = true;
    t_last.p = p;
    t_last.path = opt.path;
    t_last.num_segments = opt.num_segments;
    t_last.fused_reduce = opt.fused_reduce;
    t_last.sel = sel;
  }
  return sel;
}

namespace {

Selection select_uncached(const ProblemDesc& p, const SelectOptions& opt) {
  Selection sel;
  if (!valid(p)) { sel.error = "invalid problem: " + check(p); sel.invalid = true; return sel; }
  const SelectPolicy pol = opt.policy ? *opt.policy : default_policy(p.arch);
  if (opt.num_segments < 0 || opt.num_segments > kMaxSegments || (uint32_t)opt.path > (uint32_t)ForcePath::k3D ||
      (opt.num_segments > 0 && opt.path == ForcePath::k2D) || (opt.policy && !policy_error(pol).empty())) {
    sel.error = options_error(opt);
    sel.invalid = true;
    return sel;
  }
  const bool segments_requested = opt.num_segments > 0;
  const RowIndex& index = row_index();
  const Span g2 = index.find(group_key(p.arch, Path::k2D, p.q_dtype, p.kv_dtype, p.head_size));
  const Span g3 = index.find(group_key(p.arch, Path::k3D, p.q_dtype, p.kv_dtype, p.head_size));
  Decision d;
  d.cus = p.num_cus > 0 ? p.num_cus : cu_count(p.arch);
  d.segments_requested = segments_requested;
  const int qpk = p.num_q_heads / p.num_kv_heads;
  ModelInputs m{&p, &pol, d.cus, kArchSelectRecords[(int)p.arch].simds_per_cu, qpk,
                (double)kDTypeBits[(int)p.kv_dtype] / 8.0, avg_keys(p)};
  m.finish();

  // 2D candidates: the first serving row of each tile kind. 3D: the first
  // serving row of the first tile kind (vocabulary order: the fewest waves
  // first; rule large-tile-2d-only) that has one the filter leaves.
  std::vector<const InstanceRow*> r2;
  const InstanceRow* r3 = nullptr;
  for (int t = 0; t < kNumTiles; ++t) {
    if (opt.path != ForcePath::k3D)
      if (const InstanceRow* r = pick(g2, p, opt, (Tile)t)) r2.push_back(r);
    if (opt.path != ForcePath::k2D && !r3) r3 = pick(g3, p, opt, (Tile)t);
  }
  // Working workgroups and tiles depend on block_m / block_n only: computed once per shape.
  struct Shape { int block_m, block_n, tiles; uint64_t wg; };
  std::vector<Shape> shapes;
  auto shape = [&](const InstanceRow& r, uint64_t* wg, int* tiles) {
    for (const Shape& s : shapes)
      if (s.block_m == r.block_m && s.block_n == r.block_n) { *wg = s.wg; *tiles = s.tiles; return; }
    *wg = working_workgroups(p, r.block_m, qpk);
    *tiles = kv_tiles_of(p, r);
    shapes.push_back(Shape{r.block_m, r.block_n, *tiles, *wg});
  };
  auto add = [&](const CandidateEstimate& e, int* best) {
    d.cand.push_back(e);
    const int i = (int)d.cand.size() - 1;
    if (*best < 0 || better(d.cand[i], d.cand[*best])) *best = i;
  };
  for (const InstanceRow* r : r2) {
    uint64_t wg;
    int tiles;
    shape(*r, &wg, &tiles);
    add(estimate(m, *r, 1, wg, tiles), &d.best2);
  }
  // The fused reduce at `segs` segments of row r3 (Selection::fused_reduce).
  uint64_t gx3 = 0;
  if (r3) {
    int bps = 0;
    gx3 = grid_x(p, r3->block_m, &bps);
  }
  const auto fused = [&](int segs) {
    return opt.fused_reduce && fused_reduce_arch(p.arch) && (int64_t)p.max_seqlen_q * qpk <= kFusedMaxRows &&
           (segs <= kFusedSubSegments || (segs % fused_sub_segments(segs) == 0 && segs <= kFusedMaxSegments)) &&
           fused_counter_words(gx3, p.num_kv_heads, segs) <= kFusedCounterWords;
  };
  // Row r3 at `segs` segments: with the reduce launch up to `unfused_cap`, and
  // fused where the fused reduce takes the count.
  const auto weigh3 = [&](int segs, uint64_t wg, int tiles, int unfused_cap) {
    if (segs <= unfused_cap) add(estimate(m, *r3, segs, wg, tiles), &d.best3);
    if (fused(segs)) add(estimate(m, *r3, segs, wg, tiles, true), &d.best3);
  };
  if (r3) {
    uint64_t wg1;
    int tiles;
    shape(*r3, &wg1, &tiles);
    int segs[kMaxSegmentCandidates];
    int ns;
    if (segments_requested) { segs[0] = opt.num_segments; ns = 1; }
    else {
      // Automatic: at least 2 segments (1 is 2D), unless 3D is forced.
      const int lo = opt.path == ForcePath::k3D ? 1 : 2;
      const bool f = fused(kFusedSubSegments);
      const int cap = std::max(opt.path == ForcePath::k3D ? 1 : 0, max_auto_segments(p, pol, tiles, f));
      ns = segment_candidates(m, *r3, wg1, lo, cap, segs, f);
    }
    // A count the fused reduce takes is weighed both ways (fused, and with the
    // reduce launch where an automatic split may take it without: at most
    // auto_segment_cap).
    const int unfused_cap = segments_requested ? kMaxSegments : auto_segment_cap(p.arch, pol);
    for (int i = 0; i < ns; ++i) weigh3(segs[i], wg1, tiles, unfused_cap);
  }

  Path path;
  if (opt.path == ForcePath::k2D) path = Path::k2D;
  else if (opt.path == ForcePath::k3D) path = Path::k3D;
  else if (segments_requested) { path = Path::k3D; d.reason = PathReason::kSegmentsRequested; }
  else {
    d.reason = PathReason::kModel;
    path = d.best3 >= 0 && (d.best2 < 0 || d.cand[d.best3].cycles * 100.0 <
                                                 d.cand[d.best2].cycles * (double)pol.split_margin_pct)
               ? Path::k3D
               : Path::k2D;
    if (path == Path::k2D && d.best2 < 0 && r3) {
      // Only 3D serves it (the filter, or a matrix without 2D rows): its cheapest count, 1 allowed.
      int segs[kMaxSegmentCandidates];
      const bool f = fused(kFusedSubSegments);
      const int ns = segment_candidates(m, *r3, working_workgroups(p, r3->block_m, qpk), 1,
                                        std::max(1, max_auto_segments(p, pol, kv_tiles_of(p, *r3), f)),
                                        segs, f);
      for (int i = 0; i < ns; ++i)
        weigh3(segs[i], working_workgroups(p, r3->block_m, qpk), kv_tiles_of(p, *r3), auto_segment_cap(p.arch, pol));
      path = Path::k3D;
      d.only_other = true;
    } else if (path == Path::k3D && d.best3 < 0) {
      path = Path::k2D;
      d.only_other = true;
    }
  }

  const int best = path == Path::k2D ? d.best2 : d.best3;
  const InstanceRow* row = best >= 0 ? d.cand[best].row : nullptr;
  if (!row && !served_head(p)) {
    sel.error = "head_size=" + std::to_string(p.head_size) + " is not served on " + to_string(p.arch) +
                " (served: " + served_heads(p.arch) + ")";
    return sel;
  }
  if (!row) {
    sel.error = "no instance for " + describe(p) + " path=" + to_string(path) +
                (opt.filter.empty() ? "" : " filter='" + opt.filter + "'") +
                (segments_requested ? " (num_segments=" + std::to_string(opt.num_segments) + " asks for 3d)" : "") +
                "; nearest: " + nearest(p, path, opt.filter);
    return sel;
  }
  sel.path = path;
  sel.estimate_cycles = d.cand[best].cycles;
  sel.attention.row = row;
  sel.attention.threads = (uint32_t)(row->waves * row->wave_size);
  sel.attention.lds_bytes = row->lds_bytes;
  int blocks_per_seq = 0;
  const uint64_t gx = grid_x(p, row->block_m, &blocks_per_seq);
  if (gx > 0x7fffffffull) {
    sel.error = "num_tokens=" + std::to_string(p.num_tokens) + ", num_seqs=" + std::to_string(p.num_seqs) +
                ": grid x = " + std::to_string(gx) + " workgroups of " + row->name + "; expected <= 2147483647";
    sel.invalid = true;
    return sel;
  }
  sel.attention.grid = Dim3{(uint32_t)gx, (uint32_t)p.num_kv_heads, 1};
  sel.q_blocks_per_seq = blocks_per_seq;
  {
    // The serpentine work order (work_order.hpp) for 2D prefills whose sequences
    // all have max_seqlen_q query tokens (num_tokens = num_seqs x max_seqlen_q:
    // every sequence's blocks then walk 1, 2, ... tiles alike; a mixed batch's
    // walks follow no order it could pair), of more than one query-row block per
    // sequence and more than one round.
    const uint64_t groups = gx * (uint64_t)p.num_kv_heads;
    const uint64_t qpk = (uint64_t)(p.num_q_heads / p.num_kv_heads);
    const bool uniform = (uint64_t)p.num_tokens == (uint64_t)p.num_seqs * (uint64_t)p.max_seqlen_q;
    const bool blocks = (uint64_t)p.max_seqlen_q * qpk > (uint64_t)row->block_m;
    if (path == Path::k2D && uniform && blocks && groups > (uint64_t)d.cus && groups <= 0x7fffffffull)
      sel.dispatch_round = d.cus;
  }

  if (path == Path::k3D) {
    const int segs = d.cand[best].num_segments;
    sel.num_segments = segs;
    sel.attention.grid.z = (uint32_t)segs;
    const Span gr = index.find(group_key(p.arch, Path::kReduce, DType{}, DType{}, p.head_size));
    if (gr.empty()) {
      sel.error = "no reduce instance for arch=" + std::string(to_string(p.arch)) + " head_size=" + std::to_string(p.head_size);
      return sel;
    }
    const InstanceRow* red = *gr.begin;
    sel.reduce.row = red;
    sel.reduce.grid = Dim3{(uint32_t)p.num_tokens, (uint32_t)p.num_q_heads, 1};
    sel.reduce.threads = (uint32_t)(reduce_waves(*red, segs, (uint64_t)p.num_tokens * (uint64_t)p.num_q_heads,
                                                 (double)d.cus * kArchSelectRecords[(int)p.arch].simds_per_cu) *
                                    red->wave_size);
    sel.reduce.lds_bytes = red->lds_bytes;
    const WorkspaceLayout w = workspace_layout(p.num_tokens, p.num_q_heads, segs, p.head_size);
    if (w.total_bytes == 0 && p.num_tokens > 0) {
      sel.error = "workspace = num_tokens * num_q_heads * num_segments * (head_size + 2) * 4 bytes = " +
                  std::to_string(p.num_tokens) + " * " + std::to_string(p.num_q_heads) + " * " + std::to_string(segs) +
                  " * (" + std::to_string(p.head_size) + " + 2) * 4 does not fit in 64 bits";
      sel.invalid = true;
      return sel;
    }
    sel.workspace_bytes = w.total_bytes;
    sel.fused_reduce = d.cand[best].fused_reduce;
  }
  if (opt.explain) {
    sel.why = explanation(p, sel, d, pol);
    sel.candidates = d.cand;
  }
  sel.ok = true;
  return sel;
}

}  // namespace

}  // namespace uattn
