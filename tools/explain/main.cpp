// uattn-explain: shows what the lookup table selects for a scenario, per
// architecture -- path, instance, grid, workgroup size, LDS, segments,
// workspace and the selector's reasons. Needs no GPU (links uattn_table only).
//
//   uattn-explain --scenarios ../shared/scenarios/default.json [--name decode_d128_b16]
//   uattn-explain --head-size 128 --block-size 16 --q-heads 32 --kv-heads 8 \
//                 --dtype bf16 --kv-dtype fp8e4m3 --seqs 1:1024,5:18 [--window 4096 ...]
//
// Exit status: 0 when every scenario resolves on every architecture asked for,
// 1 when one does not (its error is printed), 2 on a usage error.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "uattn/table.hpp"

namespace {

using uattn::explain::Scenario;

const char kUsage[] =
    "usage: uattn-explain --scenarios FILE [--name GLOB] [options]\n"
    "       uattn-explain --head-size D --block-size B --q-heads HQ --kv-heads HKV [problem flags] [options]\n"
    "\n"
    "Scenario files (../shared/scenarios/*.json):\n"
    "  --scenarios FILE   default.json (\"scenarios\" with batches) or models.json (\"models\");\n"
    "                     an entry without seqs gets the default batches decode 4x(1,2048) and\n"
    "                     prefill 2x(512,1024); missing dtype = fp16, block_size = 16\n"
    "  --name GLOB        only entries whose name matches ('*', '?')\n"
    "Problem flags (without --scenarios):\n"
    "  --head-size D --block-size B --q-heads HQ --kv-heads HKV\n"
    "  --dtype f16|bf16 (default f16)   --kv-dtype f16|bf16|fp8e4m3 (default: --dtype)\n"
    "  --seqs Q:K,...     (q_len:kv_len per sequence; default: the default batches)\n"
    "  --window W (model window; window_left = W-1)  --softcap C  --alibi  --qq-bias  --sinks\n"
    "Options:\n"
    "  --arch gfx950|gfx1030|all   (default all)\n"
    "  --path auto|2d|3d           (default auto)\n"
    "  --cus N                     compute units (default: gfx950 256, gfx1030 72)\n"
    "  --filter GLOB               only instances whose name matches\n"
    "  --segments N                3D segment count (default: the selector's)\n"
    "  --seqs Q:K,...              with --scenarios: replaces every entry's batch\n";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "uattn-explain: %s\n\n%s", what.c_str(), kUsage);
  return 2;
}

bool to_int(const std::string& s, int lo, int* v) {
  char* end = nullptr;
  const long x = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != 0 || x < lo || x > (1L << 30)) return false;
  *v = (int)x;
  return true;
}

struct Args {
  std::string scenarios, name = "*", seqs, filter;
  std::vector<uattn::Arch> archs{uattn::Arch::gfx950, uattn::Arch::gfx1030};
  uattn::ForcePath path = uattn::ForcePath::kAuto;
  int cus = 0, segments = 0;
  Scenario adhoc;
  bool have_adhoc = false;
};

// Returns "" or the usage error.
std::string parse_args(int argc, char** argv, Args* a) {
  bool dtype_set = false, kv_dtype_set = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i], val;
    const size_t eq = flag.find('=');
    bool has_val = false;
    if (flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      val = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_val = true;
    }
    auto value = [&](std::string* out) -> bool {
      if (has_val) { *out = val; return true; }
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    auto int_flag = [&](int lo, int* out) -> std::string {
      std::string v;
      if (!value(&v)) return flag + " needs a value";
      if (!to_int(v, lo, out)) return flag + " " + v + ": expected an integer >= " + std::to_string(lo);
      return "";
    };
    auto switch_flag = [&](bool* out) -> std::string {
      if (has_val) return flag + " takes no value";
      *out = true;
      a->have_adhoc = true;
      return "";
    };
    std::string err, v;
    Scenario& s = a->adhoc;
    if (flag == "--help" || flag == "-h") { std::fputs(kUsage, stdout); std::exit(0); }
    else if (flag == "--scenarios") { if (!value(&a->scenarios)) err = "--scenarios needs a file"; }
    else if (flag == "--name") { if (!value(&a->name)) err = "--name needs a value"; }
    else if (flag == "--seqs") { if (!value(&a->seqs)) err = "--seqs needs a value"; }
    else if (flag == "--filter") { if (!value(&a->filter)) err = "--filter needs a value"; }
    else if (flag == "--cus") err = int_flag(1, &a->cus);
    else if (flag == "--segments") err = int_flag(1, &a->segments);
    else if (flag == "--arch") {
      if (!value(&v)) err = "--arch needs a value";
      else if (v == "all") a->archs = {uattn::Arch::gfx950, uattn::Arch::gfx1030};
      else if (v == "gfx950") a->archs = {uattn::Arch::gfx950};
      else if (v == "gfx1030") a->archs = {uattn::Arch::gfx1030};
      else err = "--arch " + v + ": expected gfx950, gfx1030 or all";
    } else if (flag == "--path") {
      if (!value(&v)) err = "--path needs a value";
      else if (v == "auto") a->path = uattn::ForcePath::kAuto;
      else if (v == "2d") a->path = uattn::ForcePath::k2D;
      else if (v == "3d") a->path = uattn::ForcePath::k3D;
      else err = "--path " + v + ": expected auto, 2d or 3d";
    } else if (flag == "--head-size") { err = int_flag(1, &s.head_size); a->have_adhoc = true; }
    else if (flag == "--block-size") { err = int_flag(1, &s.block_size); a->have_adhoc = true; }
    else if (flag == "--q-heads") { err = int_flag(1, &s.num_q_heads); a->have_adhoc = true; }
    else if (flag == "--kv-heads") { err = int_flag(1, &s.num_kv_heads); a->have_adhoc = true; }
    else if (flag == "--window") { err = int_flag(1, &s.window); a->have_adhoc = true; }
    else if (flag == "--dtype" || flag == "--kv-dtype") {
      uattn::DType d;
      if (!value(&v)) err = flag + " needs a value";
      else if (!uattn::explain::parse_dtype(v, &d)) err = flag + " " + v + ": expected f16, bf16 or fp8e4m3";
      else if (flag == "--dtype") { s.q_dtype = d; dtype_set = true; }
      else { s.kv_dtype = d; kv_dtype_set = true; }
      a->have_adhoc = true;
    } else if (flag == "--softcap") {
      char* end = nullptr;
      if (!value(&v)) err = "--softcap needs a value";
      else if ((s.softcap = std::strtod(v.c_str(), &end)) < 0 || *end != 0 || v.empty())
        err = "--softcap " + v + ": expected a number >= 0";
      a->have_adhoc = true;
    } else if (flag == "--alibi") err = switch_flag(&s.alibi);
    else if (flag == "--qq-bias") err = switch_flag(&s.qq_bias);
    else if (flag == "--sinks") err = switch_flag(&s.sinks);
    else err = "unknown argument '" + std::string(argv[i]) + "'";
    if (!err.empty()) return err;
  }
  if (!kv_dtype_set && dtype_set) a->adhoc.kv_dtype = a->adhoc.q_dtype;
  if (a->scenarios.empty() && !a->have_adhoc) return "give --scenarios FILE or the problem flags";
  if (!a->scenarios.empty() && a->have_adhoc)
    return "--scenarios cannot be combined with problem flags (--head-size, --dtype, ...)";
  if (a->have_adhoc) {
    const Scenario& s = a->adhoc;
    if (s.head_size == 0 || s.num_q_heads == 0 || s.num_kv_heads == 0)
      return "the problem flags need --head-size, --q-heads and --kv-heads (and --block-size, default 16)";
  }
  return "";
}

void print_launch(const char* label, const uattn::KernelLaunch& k) {
  std::printf("    %-10s %s\n", label, k.row->name);
  std::printf("    %-10s grid %ux%ux%u, workgroup %u threads (%d wave%s x %d), LDS %u bytes\n", "", k.grid.x, k.grid.y,
              k.grid.z, k.threads, k.row->waves, k.row->waves == 1 ? "" : "s", k.row->wave_size, k.lds_bytes);
}

// Explains one scenario on every requested architecture; false when one fails.
bool explain(const Scenario& sc, const std::string& batch_note, const Args& a) {
  std::printf("%s%s: %s\n", sc.name.c_str(), batch_note.c_str(), uattn::explain::summary(sc).c_str());
  if (!sc.defaulted.empty()) {
    std::string d;
    for (const std::string& x : sc.defaulted) d += (d.empty() ? "" : ", ") + x;
    std::printf("  (not in the file, defaulted: %s)\n", d.c_str());
  }
  bool ok = true;
  uattn::SelectOptions opt;
  opt.path = a.path;
  opt.filter = a.filter;
  opt.num_segments = a.segments;
  for (uattn::Arch arch : a.archs) {
    const uattn::ProblemDesc p = uattn::explain::to_problem(sc, arch, a.cus);
    const uattn::Selection sel = uattn::select(p, opt);
    const int cus = a.cus > 0 ? a.cus : (arch == uattn::Arch::gfx950 ? 256 : 72);
    if (!sel.ok) {
      std::printf("  %s (%d CUs): NOT RESOLVED: %s\n", uattn::to_string(arch), cus, sel.error.c_str());
      std::fprintf(stderr, "uattn-explain: %s on %s: %s\n", sc.name.c_str(), uattn::to_string(arch), sel.error.c_str());
      ok = false;
      continue;
    }
    std::printf("  %s (%d CUs): path %s, %d segment%s, workspace %llu bytes\n", uattn::to_string(arch), cus,
                uattn::to_string(sel.path), sel.num_segments, sel.num_segments == 1 ? "" : "s",
                (unsigned long long)sel.workspace_bytes);
    print_launch("attention", sel.attention);
    if (sel.path == uattn::Path::k3D) print_launch("reduce", sel.reduce);
    std::printf("    %-10s %s\n", "why", sel.why.c_str());
  }
  std::printf("\n");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  const std::string err = parse_args(argc, argv, &a);
  if (!err.empty()) return usage_error(err);

  std::vector<std::pair<int, int>> seqs_override;
  if (!a.seqs.empty()) {
    std::string e;
    if (!uattn::explain::parse_seqs(a.seqs, &seqs_override, &e)) return usage_error(e);
  }

  std::vector<Scenario> scenarios;
  if (!a.scenarios.empty()) {
    std::string e;
    if (!uattn::explain::load_scenarios(a.scenarios, &scenarios, &e)) {
      std::fprintf(stderr, "uattn-explain: %s\n", e.c_str());
      return 1;
    }
    std::vector<Scenario> picked;
    for (Scenario& s : scenarios)
      if (uattn::glob_match(a.name.c_str(), s.name.c_str())) picked.push_back(std::move(s));
    if (picked.empty()) {
      std::fprintf(stderr, "uattn-explain: no entry of %s is named '%s'\n", a.scenarios.c_str(), a.name.c_str());
      return 1;
    }
    scenarios = std::move(picked);
  } else {
    a.adhoc.name = "command line";
    scenarios.push_back(a.adhoc);
  }

  bool ok = true;
  for (Scenario& s : scenarios) {
    if (!seqs_override.empty()) s.seqs = seqs_override;
    if (!s.seqs.empty()) {
      ok = explain(s, "", a) && ok;
      continue;
    }
    for (const auto& b : uattn::explain::default_batches()) {
      Scenario with = s;
      with.seqs = b.second;
      ok = explain(with, " [no seqs given: default batch " + b.first + "]", a) && ok;
    }
  }
  return ok ? 0 : 1;
}
