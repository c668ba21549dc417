// uattn lookup table: maps a problem to an instance and its launch configuration.
// Pure C++17, no GPU runtime dependency: link uattn_table alone to use it.
//
// The rows are generated (table_rows.inc, one UATTN_ROW per instance, most
// specialised first); selection logic is select.cpp. Errors never throw.
#pragma once
#include <stdint.h>
#include <string>
#include <vector>

#include "uattn/kernel/config.hpp"
#include "uattn/kernel/params.hpp"

namespace uattn {

// One generated instance (a table row).
struct InstanceRow {
  const char* name;      // instance name = file stem = kernel symbol = filter key
  Arch arch;
  Path path;             // k2D, k3D (split-KV segment kernel) or kReduce
  DType q_dtype;         // unused for kReduce
  DType kv_dtype;        // unused for kReduce
  int head_size;
  int block_size;        // 0 = generic (any block_size >= 1)
  uint32_t features;     // Feature bits compiled in
  int block_m;           // query rows (token x head pairs) per workgroup
  int block_n;           // keys per KV tile
  int waves;             // waves per workgroup
  int wave_size;         // 64 (gfx950) or 32 (gfx1030)
  uint32_t lds_bytes;    // static LDS per workgroup
};

// All rows of the table (every architecture), in table order.
const std::vector<InstanceRow>& all_rows();

enum class ForcePath : int32_t { kAuto = 0, k2D = 1, k3D = 2 };

// The shape of a problem as the selector sees it.
struct ProblemDesc {
  Arch arch = Arch::gfx950;
  DType q_dtype = DType::f16;
  DType kv_dtype = DType::f16;
  DType out_dtype = DType::f16;  // q_dtype, or fp8e4m3 (needs output_scale)
  int head_size = 128;
  int block_size = 16;
  uint32_t features = 0;         // Feature bits the problem uses
  int num_q_heads = 16;
  int num_kv_heads = 2;
  int num_seqs = 1;
  int num_tokens = 1;            // total query tokens (cu_seqlens_q[num_seqs])
  int max_seqlen_q = 1;
  int max_seqlen_k = 1;
  int num_cus = 0;               // 0 = the architecture's usual count (gfx950 256, gfx1030 72)
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

// Largest segment count a caller may request (more segments than KV tiles is
// allowed: the extra segments are empty).
constexpr int kMaxSegments = 1024;

struct SelectOptions {
  ForcePath path = ForcePath::kAuto;
  std::string filter;            // glob over instance names ('*', '?'); empty = all
  int num_segments = 0;          // 3D only; 0 = chosen by the selector, else 1..kMaxSegments
};

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
  Path path = Path::k2D;
  int num_segments = 1;
  uint64_t workspace_bytes = 0;  // fp32 workspace for 3D (acc + max + sum)
  KernelLaunch attention;
  KernelLaunch reduce;           // valid when path == k3D
  std::string why;               // human-readable reasons for the choices
};

Selection select(const ProblemDesc& p, const SelectOptions& opt = {});

// Workspace layout (bytes offsets) for 3D: acc, then max, then sum.
struct WorkspaceLayout { uint64_t acc_offset, max_offset, sum_offset, total_bytes; };
WorkspaceLayout workspace_layout(int num_tokens, int num_q_heads, int num_segments, int head_size);

// glob match used by --filter at build time and SelectOptions::filter at run time.
bool glob_match(const char* pattern, const char* name);

const char* to_string(Arch a);
const char* to_string(Path p);
const char* to_string(DType d);
std::string features_to_string(uint32_t f);

}  // namespace uattn
