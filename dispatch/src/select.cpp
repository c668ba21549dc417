// Selection: problem -> (path, instance, launch configuration).
//
// Rows are scanned in table order (most specialised first: exact block_size
// before generic, fewer compiled-in features before more); the first row that
// serves the problem with the preferred tile wins, else the first that serves it
// with any tile. The path heuristic follows the peer selector described in
// docs/architecture.md: 2D when a sliding window bounds the work, when
// max_seqlen_k is short, or when the 2D grid alone fills the device; 3D
// split-KV otherwise, with enough segments for ~2 workgroups per CU.
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

bool serves(const InstanceRow& r, const ProblemDesc& p, Path path) {
  return r.arch == p.arch && r.path == path && r.q_dtype == p.q_dtype && r.kv_dtype == p.kv_dtype &&
         r.head_size == p.head_size && (r.block_size == 0 || r.block_size == p.block_size) &&
         (p.features & ~r.features) == 0 && (p.rows_aligned || is_generic(r) || r.path == Path::kReduce);
}

uint64_t grid_x(const ProblemDesc& p, int block_m) {
  const int qpk = p.num_q_heads / p.num_kv_heads;
  return (uint64_t)p.num_tokens * (uint64_t)qpk / (uint64_t)block_m + (uint64_t)p.num_seqs;
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

}  // namespace

Selection select(const ProblemDesc& p, const SelectOptions& opt) {
  Selection sel;
  const std::string bad = check(p);
  if (!bad.empty()) { sel.error = "invalid problem: " + bad; sel.invalid = true; return sel; }
  const std::string bad_opt = options_error(opt);
  if (!bad_opt.empty()) { sel.error = bad_opt; sel.invalid = true; return sel; }
  const int cus = p.num_cus > 0 ? p.num_cus : cu_count(p.arch);
  const int qpk = p.num_q_heads / p.num_kv_heads;
  const int rows_per_wave = uattn::rows_per_wave(p.arch);
  std::ostringstream why;

  // Preferred tile: the large (multi-wave) tile when one sequence has enough
  // packed rows (q_len x qpk) to fill it, else the one-wave tile.
  const int large_m = rows_per_wave * tile_waves(Tile::large);
  const bool want_large = (int64_t)p.max_seqlen_q * qpk >= large_m;

  auto pick = [&](Path path, bool large) -> const InstanceRow* {
    const InstanceRow* fallback = nullptr;
    for (const InstanceRow& r : all_rows()) {
      if (!serves(r, p, path)) continue;
      if (!opt.filter.empty() && !glob_match(opt.filter.c_str(), r.name)) continue;
      if ((r.tile == Tile::large) == large) return &r;
      if (!fallback) fallback = &r;
    }
    return fallback;
  };

  Path path;
  if (opt.path == ForcePath::k2D) { path = Path::k2D; why << "path 2d: forced; "; }
  else if (opt.path == ForcePath::k3D) { path = Path::k3D; why << "path 3d: forced; "; }
  else {
    const bool window = (p.features & kFeatWindow) != 0;
    const InstanceRow* r2 = pick(Path::k2D, want_large);
    const uint64_t wg2d = r2 ? grid_x(p, r2->block_m) * (uint64_t)p.num_kv_heads : 0;
    if (window) { path = Path::k2D; why << "path 2d: a sliding window bounds the KV range; "; }
    else if (p.max_seqlen_k <= 256) { path = Path::k2D; why << "path 2d: max_seqlen_k=" << p.max_seqlen_k << " <= 256; "; }
    else if (wg2d >= (uint64_t)cus) { path = Path::k2D; why << "path 2d: " << wg2d << " workgroups fill " << cus << " CUs; "; }
    else { path = Path::k3D; why << "path 3d: " << wg2d << " 2D workgroups < " << cus << " CUs; "; }
    if (!pick(path, want_large)) {  // fall back to the other path if only it is served
      const Path other = path == Path::k2D ? Path::k3D : Path::k2D;
      if (pick(other, want_large)) { path = other; why << "only " << to_string(other) << " serves this problem; "; }
    }
  }

  const InstanceRow* row = pick(path, path == Path::k2D && want_large);
  if (!row && !served_head(p)) {
    sel.error = "head_size=" + std::to_string(p.head_size) + " is not served on " + to_string(p.arch) +
                " (served: " + served_heads(p.arch) + ")";
    return sel;
  }
  if (!row) {
    sel.error = "no instance for " + describe(p) + " path=" + to_string(path) +
                (opt.filter.empty() ? "" : " filter='" + opt.filter + "'") + "; nearest: " + nearest(p, path);
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
  why << "instance " << row->name << " (first row serving " << describe(p) << ")";

  if (path == Path::k3D) {
    int segs = opt.num_segments;
    // 64-bit: max_seqlen_k + block_n - 1 overflows int for max_seqlen_k near 2^31.
    const int kv_tiles =
        (int)std::max<int64_t>(1, ((int64_t)p.max_seqlen_k + row->block_n - 1) / (int64_t)row->block_n);
    if (segs <= 0) {
      const uint64_t base = gx * (uint64_t)p.num_kv_heads;
      const uint64_t want = (2ull * (uint64_t)cus + base - 1) / std::max<uint64_t>(base, 1);
      segs = (int)std::min<uint64_t>(std::max<uint64_t>(want, 1), (uint64_t)std::min(kv_tiles, 64));
      why << "; segments " << segs << " (~2 workgroups per CU, <= KV tiles " << kv_tiles << ")";
    } else {
      why << "; segments " << segs << " (requested)";
    }
    sel.num_segments = segs;
    sel.attention.grid.z = (uint32_t)segs;
    const InstanceRow* red = nullptr;
    for (const InstanceRow& r : all_rows())
      if (r.arch == p.arch && r.path == Path::kReduce && r.head_size == p.head_size) { red = &r; break; }
    if (!red) {
      sel.error = "no reduce instance for arch=" + std::string(to_string(p.arch)) + " head_size=" + std::to_string(p.head_size);
      return sel;
    }
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
  sel.why = why.str();
  sel.ok = true;
  return sel;
}

}  // namespace uattn
