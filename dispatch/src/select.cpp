// Selection: problem -> (path, instance, launch configuration).
//
// Rows are scanned in table order (most specialised first: exact block_size
// before generic, fewer compiled-in features before more); the first row that
// serves the problem with the preferred tile wins, else the first that serves it
// with any tile. The path heuristic follows the peer selector described in
// docs/architecture.md: 2D when the keys a workgroup may see are few
// (max_seqlen_k, or a sliding window's span), or when the 2D grid alone fills
// the device; 3D split-KV otherwise, with enough segments for ~2 workgroups per
// CU (at most the KV tiles of that span), and 2D again when that comes to a
// single segment.
//
// Latency: select() runs on every attention call. The rows are grouped once
// (first call) by (architecture, path, dtypes, head size), so a call scans
// only the few rows of its groups; the decision is recorded as reason codes
// and numbers, and the text of Selection::why is written only when
// SelectOptions::explain asks for it. Strings are built on errors only.
#include <algorithm>
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

uint32_t features_used(int window_left, float softcap, bool alibi, bool qq_bias, bool sinks) {
  return (window_left >= 0 ? kFeatWindow : 0u) | (softcap != 0.0f ? kFeatSoftcap : 0u) | (alibi ? kFeatAlibi : 0u) |
         (qq_bias ? kFeatQQBias : 0u) | (sinks ? kFeatSinks : 0u);
}

namespace {

constexpr int64_t kInt32Max = 0x7fffffff;

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

int fit_int32(int64_t v) { return v >= 0 && v <= kInt32Max ? (int)v : -1; }

}  // namespace

ProblemDesc make_problem(const ProblemArgs& a) {
  ProblemDesc p;
  p.arch = a.arch;
  p.q_dtype = a.q_dtype;
  p.kv_dtype = a.kv_dtype;
  p.out_dtype = a.out_dtype;
  p.head_size = a.head_size;
  p.block_size = a.block_size;
  p.features = features_used(a.window_left, a.softcap, a.alibi, a.qq_bias, a.sinks);
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
  else if (a.num_tokens < 0 && l.tokens > kInt32Max)
    e << "num_tokens = sum of q_lens = " << l.tokens << " (" << a.num_seqs << " sequences); expected <= " << kInt32Max;
  return e.str();
}

std::string options_error(const SelectOptions& o) {
  std::ostringstream e;
  const int path = (int)o.path;
  if (path < (int)ForcePath::kAuto || path > (int)ForcePath::k3D)
    e << "options.path = " << path << "; expected " << (int)ForcePath::kAuto << " (auto), " << (int)ForcePath::k2D
      << " (2d) or " << (int)ForcePath::k3D << " (3d)";
  else if (o.num_segments < 0 || o.num_segments > kMaxSegments)
    e << "options.num_segments = " << o.num_segments << "; expected 0 (automatic) to " << kMaxSegments;
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
  w.max_offset = acc;
  w.sum_offset = acc + rows * 4u;
  w.total_bytes = total;
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

// The first row of `g` serving `p` (and passing the filter) with the large tile
// when `large`, else with the one-wave tile; failing that, the first with any tile.
const InstanceRow* pick(Span g, const ProblemDesc& p, const SelectOptions& opt, bool large) {
  const InstanceRow* fallback = nullptr;
  for (const InstanceRow* const* it = g.begin; it != g.end; ++it) {
    const InstanceRow& r = **it;
    if (!serves_rest(r, p)) continue;
    if (!opt.filter.empty() && !glob_match(opt.filter.c_str(), r.name)) continue;
    if ((r.tile == Tile::large) == large) return &r;
    if (!fallback) fallback = &r;
  }
  return fallback;
}

uint64_t grid_x(const ProblemDesc& p, int block_m) {
  const int qpk = p.num_q_heads / p.num_kv_heads;
  return (uint64_t)p.num_tokens * (uint64_t)qpk / (uint64_t)block_m + (uint64_t)p.num_seqs;
}

// Segments for ~2 workgroups per CU, at most the KV tiles of the longest
// sequence (and 64).
int auto_segments(uint64_t workgroups, int cus, int kv_tiles) {
  const uint64_t want = (2ull * (uint64_t)cus + workgroups - 1) / std::max<uint64_t>(workgroups, 1);
  return (int)std::min<uint64_t>(std::max<uint64_t>(want, 1), (uint64_t)std::min(kv_tiles, 64));
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
  const int64_t bn = r.block_n;
  int64_t tiles = ((int64_t)p.max_seqlen_k + bn - 1) / bn;
  const int64_t span = kv_span(p);
  if (span < p.max_seqlen_k) tiles = std::min(tiles, (span + 2 * bn - 2) / bn);
  return (int)std::max<int64_t>(1, tiles);
}

std::string nearest(const ProblemDesc& p, Path path) {
  struct Cand { int score; const InstanceRow* r; };
  std::vector<Cand> c;
  for (const InstanceRow& r : all_rows()) {
    if (r.arch != p.arch || r.path == Path::kReduce) continue;
    int s = (r.path == path) + 2 * (r.q_dtype == p.q_dtype) + 2 * (r.kv_dtype == p.kv_dtype) +
            2 * (r.head_size == p.head_size) + (r.block_size == 0 || r.block_size == p.block_size) +
            ((p.features & ~r.features) == 0);
    c.push_back({s, &r});
  }
  std::stable_sort(c.begin(), c.end(), [](const Cand& a, const Cand& b) { return a.score > b.score; });
  std::string out;
  for (size_t i = 0; i < c.size() && i < 3; ++i) out += (i ? ", " : "") + std::string(c[i].r->name);
  return out.empty() ? "none for this architecture" : out;
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
  std::ostringstream o;
  o << "arch=" << to_string(p.arch) << " q_dtype=" << to_string(p.q_dtype) << " kv_dtype=" << to_string(p.kv_dtype)
    << " head_size=" << p.head_size << " block_size=" << p.block_size << " features=" << features_to_string(p.features);
  return o.str();
}

// The same rules as check(), without building a message (the per-call path).
bool valid(const ProblemDesc& p) {
  return (size_t)p.arch < (size_t)kNumArchs && is_query_dtype(p.q_dtype) && kv_pairs_with(p.kv_dtype, p.q_dtype) &&
         (p.out_dtype == p.q_dtype || is_quantised_output_dtype(p.out_dtype)) && p.head_size > 0 &&
         p.block_size >= 1 && p.num_kv_heads >= 1 && p.num_q_heads >= 1 && p.num_q_heads % p.num_kv_heads == 0 &&
         p.num_seqs >= 0 && p.num_tokens >= 0 && p.max_seqlen_q >= 0 && p.max_seqlen_k >= 0 && p.num_cus >= 0 &&
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
  else if (p.num_cus < 0) e << "num_cus=" << p.num_cus << ": expected 0 (the architecture's count) or > 0";
  else if ((p.features & ~kFeatAll) != 0) e << "features=0x" << std::hex << p.features << ": unknown feature bits";
  return e.str();
}

// Why the path was chosen; Decision records it, explanation() turns it into text.
enum class PathReason {
  kForced,             // ForcePath::k2D / k3D
  kSegmentsRequested,  // auto with num_segments > 0: a segment count asks for 3D
  kShortKv,            // 2D: the keys a workgroup may see (kv_span) <= kShortKv
  kFills,              // 2D: the 2D grid fills the CUs
  kOneSegment,         // 2D: 3D would run a single segment
  kSplit,              // 3D: the 2D grid leaves CUs idle
};

constexpr int kShortKv = 256;

struct Decision {
  PathReason reason = PathReason::kForced;
  bool only_other = false;   // the heuristic's path is not served; the other one is
  uint64_t wg2d = 0;         // 2D workgroups (grid x * KV heads) with the preferred 2D tile
  int cus = 0;
  int kv_tiles = 0;          // 3D: KV tiles of the longest sequence
  bool segments_requested = false;
};

std::string explanation(const ProblemDesc& p, const Selection& sel, const Decision& d) {
  std::ostringstream why;
  switch (d.reason) {
    case PathReason::kForced: why << "path " << to_string(sel.path) << ": forced; "; break;
    case PathReason::kSegmentsRequested:
      why << "path 3d: " << sel.num_segments << " segments requested; "; break;
    case PathReason::kShortKv:
      if (kv_span(p) < p.max_seqlen_k) why << "path 2d: the sliding window bounds each row to " << kv_span(p) << " keys <= " << kShortKv << "; ";
      else why << "path 2d: max_seqlen_k=" << p.max_seqlen_k << " <= " << kShortKv << "; ";
      break;
    case PathReason::kFills: why << "path 2d: " << d.wg2d << " workgroups fill " << d.cus << " CUs; "; break;
    case PathReason::kOneSegment:
      why << "path 2d: " << d.wg2d << " 2D workgroups < " << d.cus << " CUs, but 3D would run 1 segment; "; break;
    case PathReason::kSplit: why << "path 3d: " << d.wg2d << " 2D workgroups < " << d.cus << " CUs; "; break;
  }
  if (d.only_other) why << "only " << to_string(sel.path) << " serves this problem; ";
  why << "instance " << sel.attention.row->name << " (first row serving " << describe(p) << ")";
  if (sel.path == Path::k3D) {
    if (d.segments_requested) why << "; segments " << sel.num_segments << " (requested)";
    else
      why << "; segments " << sel.num_segments << " (~2 workgroups per CU, <= KV tiles " << d.kv_tiles
          << (kv_span(p) < p.max_seqlen_k ? " of the window)" : ")");
  }
  return why.str();
}

}  // namespace

Selection select(const ProblemDesc& p, const SelectOptions& opt) {
  Selection sel;
  if (!valid(p)) { sel.error = "invalid problem: " + check(p); sel.invalid = true; return sel; }
  if (opt.num_segments < 0 || opt.num_segments > kMaxSegments || (uint32_t)opt.path > (uint32_t)ForcePath::k3D) {
    sel.error = options_error(opt);
    sel.invalid = true;
    return sel;
  }
  const bool segments_requested = opt.num_segments > 0;
  if (segments_requested && opt.path == ForcePath::k2D) {
    sel.error = "num_segments=" + std::to_string(opt.num_segments) +
                " with path 2d: a segment count applies to the 3D (split-KV) path only; ask for path 3d or auto, "
                "or num_segments 0";
    return sel;
  }
  const RowIndex& index = row_index();
  const Span g2 = index.find(group_key(p.arch, Path::k2D, p.q_dtype, p.kv_dtype, p.head_size));
  const Span g3 = index.find(group_key(p.arch, Path::k3D, p.q_dtype, p.kv_dtype, p.head_size));
  Decision d;
  d.cus = p.num_cus > 0 ? p.num_cus : cu_count(p.arch);
  d.segments_requested = segments_requested;
  const int qpk = p.num_q_heads / p.num_kv_heads;

  // Preferred tile: the large (multi-wave) tile when one sequence has enough
  // packed rows (q_len x qpk) to fill it, else the one-wave tile. 3D always
  // uses the one-wave tile.
  const int large_m = rows_per_wave(p.arch) * tile_waves(Tile::large);
  const bool want_large = (int64_t)p.max_seqlen_q * qpk >= large_m;
  const InstanceRow* r2 = pick(g2, p, opt, want_large);
  const InstanceRow* r3 = pick(g3, p, opt, false);

  Path path;
  if (opt.path == ForcePath::k2D) path = Path::k2D;
  else if (opt.path == ForcePath::k3D) path = Path::k3D;
  else if (segments_requested) { path = Path::k3D; d.reason = PathReason::kSegmentsRequested; }
  else {
    d.wg2d = r2 ? grid_x(p, r2->block_m) * (uint64_t)p.num_kv_heads : 0;
    if (kv_span(p) <= kShortKv) { path = Path::k2D; d.reason = PathReason::kShortKv; }
    else if (d.wg2d >= (uint64_t)d.cus) { path = Path::k2D; d.reason = PathReason::kFills; }
    else { path = Path::k3D; d.reason = PathReason::kSplit; }
    if (path == Path::k3D && r3 && r2 &&
        auto_segments(grid_x(p, r3->block_m) * (uint64_t)p.num_kv_heads, d.cus, kv_tiles_of(p, *r3)) == 1) {
      path = Path::k2D;  // a single segment: 3D would only add the workspace and the reduce
      d.reason = PathReason::kOneSegment;
    }
    if (!(path == Path::k2D ? r2 : r3)) {  // fall back to the other path if only it is served
      const Path other = path == Path::k2D ? Path::k3D : Path::k2D;
      if (other == Path::k2D ? r2 : r3) { path = other; d.only_other = true; }
    }
  }

  const InstanceRow* row = path == Path::k2D ? r2 : r3;
  if (!row && !served_head(p)) {
    sel.error = "head_size=" + std::to_string(p.head_size) + " is not served on " + to_string(p.arch) +
                " (served: " + served_heads(p.arch) + ")";
    return sel;
  }
  if (!row) {
    sel.error = "no instance for " + describe(p) + " path=" + to_string(path) +
                (opt.filter.empty() ? "" : " filter='" + opt.filter + "'") +
                (segments_requested ? " (num_segments=" + std::to_string(opt.num_segments) + " asks for 3d)" : "") +
                "; nearest: " + nearest(p, path);
    return sel;
  }
  sel.path = path;
  sel.attention.row = row;
  sel.attention.threads = (uint32_t)(row->waves * row->wave_size);
  sel.attention.lds_bytes = row->lds_bytes;
  const uint64_t gx = grid_x(p, row->block_m);
  if (gx > 0x7fffffffull) {
    sel.error = "num_tokens=" + std::to_string(p.num_tokens) + ", num_seqs=" + std::to_string(p.num_seqs) +
                ": grid x = " + std::to_string(gx) + " workgroups of " + row->name + "; expected <= 2147483647";
    sel.invalid = true;
    return sel;
  }
  sel.attention.grid = Dim3{(uint32_t)gx, (uint32_t)p.num_kv_heads, 1};

  if (path == Path::k3D) {
    d.kv_tiles = kv_tiles_of(p, *row);
    const int segs = segments_requested ? opt.num_segments
                                        : auto_segments(gx * (uint64_t)p.num_kv_heads, d.cus, d.kv_tiles);
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
    sel.reduce.threads = (uint32_t)red->wave_size;
    sel.reduce.lds_bytes = 0;
    const WorkspaceLayout w = workspace_layout(p.num_tokens, p.num_q_heads, segs, p.head_size);
    if (w.total_bytes == 0 && p.num_tokens > 0) {
      sel.error = "workspace = num_tokens * num_q_heads * num_segments * (head_size + 2) * 4 bytes = " +
                  std::to_string(p.num_tokens) + " * " + std::to_string(p.num_q_heads) + " * " + std::to_string(segs) +
                  " * (" + std::to_string(p.head_size) + " + 2) * 4 does not fit in 64 bits";
      sel.invalid = true;
      return sel;
    }
    sel.workspace_bytes = w.total_bytes;
  }
  if (opt.explain) sel.why = explanation(p, sel, d);
  sel.ok = true;
  return sel;
}

}  // namespace uattn
