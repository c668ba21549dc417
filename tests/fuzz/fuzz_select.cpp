// libFuzzer target: the lookup table and selector (uattn/table.hpp).
//
// Any ProblemDesc + SelectOptions gives either an instance whose declared
// predicates hold, each checked here independently of select.cpp (arch, path,
// dtypes, head size, block size, feature bits, row alignment, the filter glob,
// a forced path or segment count, the reduce row, grid, workgroup size, LDS
// and the workspace size in 128-bit arithmetic), or an error that says what is
// missing: a refusal (`invalid`) exactly when the problem or the options are
// outside the contract, and otherwise "no instance" only when no table row
// serves the problem on the path asked for. Never a crash (ASan/UBSan).
//
// Input layout (little-endian; make_seeds.py writes it): i32 arch, q_dtype,
// kv_dtype, out_dtype, head_size, block_size; u32 features; i32 window_left,
// num_q_heads, num_kv_heads, num_seqs, num_tokens, max_seqlen_q, max_seqlen_k,
// num_cus; u8 rows_aligned; i32 path, num_segments; u8 explain; u8 length +
// filter bytes.
#include <cstring>
#include <vector>
#include <stddef.h>
#include <stdint.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_reader.hpp"
#include "uattn/table.hpp"

using namespace uattn;

namespace {

[[noreturn]] void fail(const char* what, const ProblemDesc& p, const SelectOptions& o, const Selection& s) {
  std::fprintf(stderr,
               "fuzz_select: %s\n  problem: arch=%d q=%d kv=%d out=%d D=%d bs=%d feat=0x%x win=%d Hq=%d Hkv=%d "
               "seqs=%d tokens=%d msq=%d msk=%d cus=%d aligned=%d\n  options: path=%d segments=%d filter='%s'\n"
               "  selection: ok=%d invalid=%d path=%d segments=%d row=%s error='%s'\n",
               what, (int)p.arch, (int)p.q_dtype, (int)p.kv_dtype, (int)p.out_dtype, p.head_size, p.block_size,
               p.features, p.window_left, p.num_q_heads, p.num_kv_heads, p.num_seqs, p.num_tokens, p.max_seqlen_q,
               p.max_seqlen_k, p.num_cus, (int)p.rows_aligned, (int)o.path, o.num_segments, o.filter.c_str(),
               (int)s.ok, (int)s.invalid, (int)s.path, s.num_segments,
               s.attention.row ? s.attention.row->name : "-", s.error.c_str());
  std::abort();
}

// '*' any run of characters, '?' one character, anything else itself; written
// apart from table.cpp's glob_match on purpose.
bool glob(const char* p, const char* s) {
  // Dynamic programming over (pattern prefix, name prefix): m[j] = the pattern
  // read so far matches s[0, j). O(|p| |s|), so hostile patterns stay cheap.
  const size_t n = std::strlen(s);
  std::vector<char> m(n + 1, 0), next(n + 1, 0);
  m[0] = 1;
  for (; *p; ++p) {
    next.assign(n + 1, 0);
    if (*p == '*') {
      char any = 0;
      for (size_t j = 0; j <= n; ++j) next[j] = any = (char)(any | m[j]);
    } else {
      for (size_t j = 1; j <= n; ++j) next[j] = (char)(m[j - 1] && (*p == '?' || *p == s[j - 1]));
    }
    m.swap(next);
  }
  return m[n] != 0;
}

bool in_enum_dtype(DType d) { return (int)d >= 0 && (int)d < kNumDTypes; }

// The contract of a ProblemDesc (table.hpp, SPEC.md s.1), restated.
bool problem_in_contract(const ProblemDesc& p) {
  if ((int)p.arch < 0 || (int)p.arch >= kNumArchs) return false;
  if (!in_enum_dtype(p.q_dtype) || !in_enum_dtype(p.kv_dtype) || !in_enum_dtype(p.out_dtype)) return false;
  if (!is_query_dtype(p.q_dtype)) return false;
  if (p.kv_dtype != p.q_dtype && !kv_pairs_with_any_query(p.kv_dtype)) return false;
  if (p.out_dtype != p.q_dtype && !is_quantised_output_dtype(p.out_dtype)) return false;
  if (p.head_size < 1 || p.block_size < 1 || p.num_q_heads < 1 || p.num_kv_heads < 1) return false;
  if (p.num_q_heads % p.num_kv_heads) return false;
  if (p.num_seqs < 0 || p.num_tokens < 0 || p.max_seqlen_q < 0 || p.max_seqlen_k < 0 || p.num_cus < 0) return false;
  if (p.max_seqlen_k > kMaxKvLen) return false;  // the kernels' int32 key indices (table.hpp)
  return (p.features & ~(uint32_t)kFeatAll) == 0;
}

bool options_in_contract(const SelectOptions& o) {
  const int path = (int)o.path;
  return path >= 0 && path <= (int)ForcePath::k3D && o.num_segments >= 0 && o.num_segments <= kMaxSegments &&
         !(o.num_segments > 0 && o.path == ForcePath::k2D);  // a count applies to 3D only
}

// Does table row `r` serve `p` on `path`, as the row declares it?
bool row_serves(const InstanceRow& r, const ProblemDesc& p, Path path, const std::string& filter) {
  return r.arch == p.arch && r.path == path && r.q_dtype == p.q_dtype && r.kv_dtype == p.kv_dtype &&
         r.head_size == p.head_size && (r.block_size == 0 || r.block_size == p.block_size) &&
         (p.features & ~r.features) == 0 && (p.rows_aligned || (r.block_size == 0 && r.features == kFeatAll)) &&
         (filter.empty() || glob(filter.c_str(), r.name));
}

bool any_row_serves(const ProblemDesc& p, Path path, const std::string& filter) {
  for (const InstanceRow& r : all_rows())
    if (row_serves(r, p, path, filter)) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uattn_fuzz::Reader in(data, size);
  ProblemDesc p;
  p.arch = (Arch)in.get<int32_t>();
  p.q_dtype = (DType)in.get<int32_t>();
  p.kv_dtype = (DType)in.get<int32_t>();
  p.out_dtype = (DType)in.get<int32_t>();
  p.head_size = in.get<int32_t>();
  p.block_size = in.get<int32_t>();
  p.features = in.get<uint32_t>();
  p.window_left = in.get<int32_t>();
  p.num_q_heads = in.get<int32_t>();
  p.num_kv_heads = in.get<int32_t>();
  p.num_seqs = in.get<int32_t>();
  p.num_tokens = in.get<int32_t>();
  p.max_seqlen_q = in.get<int32_t>();
  p.max_seqlen_k = in.get<int32_t>();
  p.num_cus = in.get<int32_t>();
  p.rows_aligned = in.get<uint8_t>() & 1;
  SelectOptions o;
  o.path = (ForcePath)in.get<int32_t>();
  o.num_segments = in.get<int32_t>();
  o.explain = in.get<uint8_t>() & 1;
  o.filter = in.str(64);
  if (o.filter.find('\0') != std::string::npos) return -1;  // a C string cannot hold it (reject the input)

  const Selection s = select(p, o);
  const bool contract = problem_in_contract(p) && options_in_contract(o);

  if (!s.ok) {
    if (s.error.empty()) fail("refused without a message", p, o, s);
    if (!contract) {
      if (!s.invalid) fail("a problem or options outside the contract is not marked invalid", p, o, s);
      return 0;
    }
    if (s.invalid) {
      // Inside the contract, the only refusals are sizes that do not fit: the grid or the workspace.
      if (s.error.find("grid x") == std::string::npos && s.error.find("workspace") == std::string::npos)
        fail("a problem inside the contract refused as invalid", p, o, s);
      return 0;
    }
    // "No instance": true only when no row serves the path asked for (auto: neither path).
    const bool want3 = o.path == ForcePath::k3D || (o.path == ForcePath::kAuto && o.num_segments > 0);
    const bool want2 = o.path == ForcePath::k2D;
    bool served = want3 ? any_row_serves(p, Path::k3D, o.filter)
                        : want2 ? any_row_serves(p, Path::k2D, o.filter)
                                : any_row_serves(p, Path::k2D, o.filter) || any_row_serves(p, Path::k3D, o.filter);
    if (served && s.error.find("no reduce instance") == std::string::npos)
      fail("no instance reported, yet a table row serves the problem", p, o, s);
    const std::string head = "head_size=" + std::to_string(p.head_size);
    if (s.error.find(head) == std::string::npos && s.error.find("no instance for") == std::string::npos)
      fail("the error names neither the head size nor the missing instance", p, o, s);
    return 0;
  }

  // ok: every declared predicate of the chosen rows holds.
  if (!contract) fail("a problem or options outside the contract was served", p, o, s);
  if (s.path != Path::k2D && s.path != Path::k3D) fail("path is neither 2d nor 3d", p, o, s);
  if (o.path == ForcePath::k2D && s.path != Path::k2D) fail("forced 2d not honoured", p, o, s);
  if ((o.path == ForcePath::k3D || o.num_segments > 0) && s.path != Path::k3D) fail("3d not honoured", p, o, s);
  const InstanceRow* r = s.attention.row;
  if (!r) fail("no attention row", p, o, s);
  if (!row_serves(*r, p, s.path, o.filter)) fail("the attention row does not serve the problem", p, o, s);
  const ArchRecord& rec = arch_record(p.arch);
  if (r->wave_size != rec.wave_size) fail("row wave size differs from the architecture's", p, o, s);
  if (s.attention.threads != (uint32_t)(r->waves * r->wave_size) || s.attention.threads == 0)
    fail("workgroup size is not waves x wave_size", p, o, s);
  if (s.attention.lds_bytes != r->lds_bytes || r->lds_bytes > rec.lds_budget)
    fail("LDS above the architecture's budget", p, o, s);
  if (r->block_m <= 0 || r->block_n <= 0) fail("row tile sizes", p, o, s);
  // Grid x: the packed grid, or num_seqs x the longest sequence's row blocks
  // where that is smaller (phases.hpp, launch contract).
  const unsigned qpk = (unsigned)(p.num_q_heads / p.num_kv_heads);
  const unsigned __int128 packed =
      (unsigned __int128)p.num_tokens * qpk / (unsigned)r->block_m + (unsigned)p.num_seqs;
  const unsigned __int128 n = ((unsigned __int128)p.max_seqlen_q * qpk + (unsigned)r->block_m - 1) / (unsigned)r->block_m;
  const bool per_seq = p.num_seqs > 0 && n > 0 && n <= 0x7fffffffu && (unsigned __int128)p.num_seqs * n < packed;
  const unsigned __int128 gx = per_seq ? (unsigned __int128)p.num_seqs * n : packed;
  if (gx != s.attention.grid.x || gx > 0x7fffffffu) fail("grid x", p, o, s);
  if (s.q_blocks_per_seq != (per_seq ? (int)n : 0)) fail("q_blocks_per_seq", p, o, s);
  if (s.attention.grid.y != (uint32_t)p.num_kv_heads) fail("grid y is not num_kv_heads", p, o, s);
  // The serpentine work order: 2D launches of more than one round of the CU
  // count whose sequences all have max_seqlen_q tokens, more than one query-row
  // block each, below 2^31 workgroups.
  const unsigned __int128 cus = (unsigned)(p.num_cus > 0 ? p.num_cus : rec.cu_count);
  const unsigned __int128 groups = gx * (unsigned)p.num_kv_heads;
  const bool uniform = (unsigned __int128)(unsigned)p.num_tokens == (unsigned __int128)(unsigned)p.num_seqs * (unsigned)p.max_seqlen_q;
  const bool serpentine = s.path == Path::k2D && uniform &&
                          (unsigned __int128)p.max_seqlen_q * qpk > (unsigned)r->block_m && groups > cus &&
                          groups <= 0x7fffffffu;
  if (s.dispatch_round != (serpentine ? (int)cus : 0)) fail("dispatch_round", p, o, s);
  if (s.path == Path::k2D) {
    if (s.attention.grid.z != 1 || s.workspace_bytes != 0 || s.reduce.row || s.fused_reduce)
      fail("2d launch shape", p, o, s);
    return 0;
  }
  if (s.num_segments < 1 || s.num_segments > kMaxSegments) fail("segments outside 1..kMaxSegments", p, o, s);
  if (o.num_segments > 0 && s.num_segments != o.num_segments) fail("requested segment count not honoured", p, o, s);
  if (s.attention.grid.z != (uint32_t)s.num_segments) fail("grid z is not the segment count", p, o, s);
  const InstanceRow* red = s.reduce.row;
  if (!red || red->path != Path::kReduce || red->arch != p.arch || red->head_size != p.head_size)
    fail("reduce row does not match", p, o, s);
  if (s.reduce.grid.x != (uint32_t)p.num_tokens || s.reduce.grid.y != (uint32_t)p.num_q_heads ||
      s.reduce.threads == 0 || s.reduce.threads % (uint32_t)red->wave_size != 0 ||
      s.reduce.threads > (uint32_t)(red->waves * red->wave_size) || s.reduce.lds_bytes != red->lds_bytes)
    fail("reduce launch shape", p, o, s);
  const unsigned __int128 ws = ((unsigned __int128)p.num_tokens * (unsigned)p.num_q_heads * (unsigned)s.num_segments *
                                    ((unsigned __int128)p.head_size + 2) * 4u + 15u) / 16u * 16u;
  if (ws != s.workspace_bytes)
    fail("workspace bytes differ from num_tokens*Hq*segments*(D+2)*4 rounded up to 16", p, o, s);
  // The fused reduce (uattn/table.hpp): gfx950 only, 1..8 segments, a multiple
  // of 8 up to 128 or of 16 up to 256 (G = 8 or 16 segments per sub-group),
  // gx * kv_heads * (ceil(S / G) + 1) counters within one buffer.
  if (s.fused_reduce) {
    const int S = s.num_segments;
    const int G = S <= 128 ? 8 : 16;
    const unsigned __int128 words =
        (unsigned __int128)s.attention.grid.x * (unsigned)p.num_kv_heads * (unsigned)((S + G - 1) / G + 1);
    if (!o.fused_reduce || p.arch != Arch::gfx950 || !(S <= 8 || (S % G == 0 && S <= 256)) ||
        words > kFusedCounterWords || (int64_t)p.max_seqlen_q * (p.num_q_heads / p.num_kv_heads) > 4)
      fail("fused reduce outside its rule", p, o, s);
  }
  return 0;
}
