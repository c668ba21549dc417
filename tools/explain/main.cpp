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
// Command line: CLI11; scenario files: nlohmann-json (scenario.cpp).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "scenario.hpp"
#include "uattn/table.hpp"

namespace {

using uattn::explain::Scenario;

const char kDescription[] =
    "Shows what the uattn lookup table selects, per architecture: path, instance, grid, workgroup size, LDS, "
    "segments, workspace and the selector's reasons. Needs no GPU.";
const char kFooter[] =
    "Scenario files (../shared/scenarios/*.json): entries without seqs (models.json) get the default batches "
    "decode 4x(1,2048) and prefill 2x(512,1024); a missing dtype is fp16 and a missing block_size 16 (the report "
    "says so). Exit status: 0 all resolved, 1 something did not resolve (or a file is unreadable), 2 usage error.";

struct Args {
  std::string scenarios, name = "*", seqs, filter, arch = "all", path = "auto";
  std::string dtype = "f16", kv_dtype;
  int cus = 0, segments = 0;
  std::vector<std::string> policy;  // --policy knob=value
  Scenario adhoc;
  bool have_adhoc = false;
  bool seqs_given = false;  // --seqs on the command line, even as an empty string
  std::vector<uattn::Arch> archs;
  uattn::ForcePath force = uattn::ForcePath::kAuto;
};

std::string apply_policy(const std::vector<std::string>& kv, uattn::SelectPolicy* pol);

// Returns -1 to go on, else the exit status (help: 0, usage error: 2).
int parse_args(int argc, char** argv, Args* a) {
  CLI::App app{kDescription, "uattn-explain"};
  app.footer(kFooter);
  // The build stamp of the linked lookup table (docs/packaging.md, "Version stamp").
  const uattn::BuildStamp& st = uattn::table_stamp();
  app.set_version_flag("--version", uattn::to_string(st) + "; lookup table of " +
                                        std::to_string(uattn::all_rows().size()) + " rows");
  Scenario& s = a->adhoc;
  const auto dtypes = CLI::IsMember(uattn::explain::dtype_spellings());
  auto* scen = app.add_option("--scenarios", a->scenarios, "scenario file: default.json or models.json")
                   ->option_text("FILE");
  app.add_option("--name", a->name, "only entries whose name matches this glob ('*', '?')")->needs(scen);
  auto* seqs = app.add_option("--seqs", a->seqs,
                              "q_len:kv_len per sequence, e.g. 1:1024,5:18 (with --scenarios: replaces "
                              "every entry's batch; default: the default batches)");
  // The problem, when no scenario file is given.
  std::vector<CLI::Option*> problem{
      app.add_option("--head-size", s.head_size, "head size D")->check(CLI::Range(1, 1 << 16)),
      app.add_option("--block-size", s.block_size, "paged-cache block size (default 16)")->check(CLI::Range(1, 1 << 20)),
      app.add_option("--q-heads", s.num_q_heads, "query heads Hq")->check(CLI::Range(1, 1 << 20)),
      app.add_option("--kv-heads", s.num_kv_heads, "KV heads Hkv")->check(CLI::Range(1, 1 << 20)),
      app.add_option("--dtype", a->dtype, "q / out dtype (default f16)")->check(dtypes),
      app.add_option("--kv-dtype", a->kv_dtype, "cache dtype (default: --dtype)")->check(dtypes),
      app.add_option("--window", s.window, "model sliding window W (window_left = W - 1)")->check(CLI::Range(1, 1 << 30)),
      app.add_option("--softcap", s.softcap, "logit softcap (0 = off)")->check(CLI::NonNegativeNumber),
      app.add_flag("--alibi", s.alibi, "ALiBi slopes given"),
      app.add_flag("--qq-bias", s.qq_bias, "qq_bias given"),
      app.add_flag("--sinks", s.sinks, "attention sinks given"),
  };
  for (CLI::Option* o : problem) o->excludes(scen);
  std::vector<std::string> arch_choices;
  for (uattn::Arch x : uattn::kArchs) arch_choices.push_back(uattn::to_string(x));
  arch_choices.push_back("all");
  app.add_option("--arch", a->arch, uattn::arch_list() + " or all (default)")->check(CLI::IsMember(arch_choices));
  app.add_option("--path", a->path, "auto (default), 2d or 3d")->check(CLI::IsMember({"auto", "2d", "3d"}));
  std::string cus_help = "compute units (default:";
  for (uattn::Arch x : uattn::kArchs)
    cus_help += std::string(x == uattn::kArchs[0] ? " " : ", ") + uattn::to_string(x) + " " +
                std::to_string(uattn::cu_count(x));
  app.add_option("--cus", a->cus, cus_help + ")")->check(CLI::Range(1, 1 << 20));
  app.add_option("--filter", a->filter, "only instances whose name matches this glob");
  app.add_option("--segments", a->segments,
                 "3D segment count, 1.." + std::to_string(uattn::kMaxSegments) +
                     " (default: the selector's; with --path auto it selects 3D, with --path 2d it is an error)")
      ->check(CLI::Range(1, uattn::kMaxSegments));
  app.add_option("--policy", a->policy,
                 "a cost-model knob, knob=value (repeatable): mem_bytes_per_cycle, launch_cycles, overlap_waves, "
                 "max_segments, min_tiles_per_segment, split_margin_pct (uattn::SelectPolicy; default: the "
                 "architecture's, printed with each answer)")
      ->option_text("KNOB=VALUE");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "uattn-explain: %s\nRun with --help for more information.\n", e.what());
    return 2;
  }
  for (CLI::Option* o : problem) a->have_adhoc = a->have_adhoc || o->count() > 0;
  a->seqs_given = seqs->count() > 0;
  auto usage = [](const std::string& what) {
    std::fprintf(stderr, "uattn-explain: %s\nRun with --help for more information.\n", what.c_str());
    return 2;
  };
  // CLI::NonNegativeNumber lets nan and inf through.
  if (!std::isfinite(s.softcap) || s.softcap > std::numeric_limits<float>::max())
    return usage("--softcap: " + std::to_string(s.softcap) + "; expected a finite number >= 0 (0 = off)");
  if (a->scenarios.empty() && !a->have_adhoc) return usage("give --scenarios FILE or the problem flags");
  if (a->have_adhoc && (s.head_size == 0 || s.num_q_heads == 0 || s.num_kv_heads == 0))
    return usage("the problem flags need --head-size, --q-heads and --kv-heads (--block-size defaults to 16)");
  uattn::explain::parse_dtype(a->dtype, &s.q_dtype);
  s.kv_dtype = s.q_dtype;
  if (!a->kv_dtype.empty()) uattn::explain::parse_dtype(a->kv_dtype, &s.kv_dtype);
  if (a->arch == "all") {
    a->archs.assign(std::begin(uattn::kArchs), std::end(uattn::kArchs));
  } else {
    uattn::Arch x = uattn::kArchs[0];
    uattn::arch_from_name(a->arch, &x);
    a->archs = {x};
  }
  uattn::SelectPolicy probe = uattn::default_policy(uattn::kArchs[0]);
  const std::string bad_policy = apply_policy(a->policy, &probe);
  if (!bad_policy.empty()) return usage(bad_policy);
  a->force = a->path == "2d" ? uattn::ForcePath::k2D : a->path == "3d" ? uattn::ForcePath::k3D : uattn::ForcePath::kAuto;
  uattn::SelectOptions probe_opt;  // the selector's own rules (options_error), e.g. --segments with --path 2d
  probe_opt.path = a->force;
  probe_opt.num_segments = a->segments;
  probe_opt.policy = &probe;
  if (!uattn::options_error(probe_opt).empty()) return usage(uattn::options_error(probe_opt));
  return -1;
}

// Applies the --policy knob=value pairs to `pol`; "" or the usage error.
std::string apply_policy(const std::vector<std::string>& kv, uattn::SelectPolicy* pol) {
  for (const std::string& x : kv) {
    const size_t eq = x.find('=');
    const std::string k = x.substr(0, eq), v = eq == std::string::npos ? "" : x.substr(eq + 1);
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !std::isfinite(d)) return "--policy " + x + ": expected knob=number";
    const bool integral = d == std::floor(d) && std::fabs(d) < 1e9;
    if (k == "mem_bytes_per_cycle") pol->mem_bytes_per_cycle = d;
    else if (k == "launch_cycles") pol->launch_cycles = d;
    else if (!integral) return "--policy " + x + ": expected an integer for " + k;
    else if (k == "overlap_waves") pol->overlap_waves = (int)d;
    else if (k == "max_segments") pol->max_segments = (int)d;
    else if (k == "min_tiles_per_segment") pol->min_tiles_per_segment = (int)d;
    else if (k == "split_margin_pct") pol->split_margin_pct = (int)d;
    else
      return "--policy " + x + ": unknown knob '" + k + "'; expected mem_bytes_per_cycle, launch_cycles, "
             "overlap_waves, max_segments, min_tiles_per_segment or split_margin_pct";
  }
  return "";
}

void print_estimates(const uattn::Selection& sel, const uattn::SelectPolicy& pol) {
  std::printf("    %-10s mem_bytes_per_cycle %g, launch_cycles %g, overlap_waves %d, max_segments %d, "
              "min_tiles_per_segment %d, split_margin_pct %d\n", "policy", pol.mem_bytes_per_cycle, pol.launch_cycles,
              pol.overlap_waves, pol.max_segments, pol.min_tiles_per_segment, pol.split_margin_pct);
  if (sel.candidates.empty()) return;
  std::printf("    %-10s (cycles; docs/architecture.md \"The cost model\")\n", "estimates");
  for (const uattn::CandidateEstimate& c : sel.candidates) {
    const bool chosen = c.row == sel.attention.row && c.num_segments == sel.num_segments;
    std::printf("    %s %-2s %-5s %4d seg  %7llu wg x %5d tiles  compute %10.0f  memory %10.0f  reduce %8.0f  "
                "total %10.0f  %s%s\n",
                chosen ? "  *" : "   ", uattn::to_string(c.row->path), uattn::to_string(c.row->tile), c.num_segments,
                (unsigned long long)c.workgroups, c.tiles, c.compute_cycles, c.memory_cycles, c.reduce_cycles, c.cycles,
                c.row->name, c.row->measured ? "" : " (fallback figures)");
  }
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
  opt.path = a.force;
  opt.filter = a.filter;
  opt.num_segments = a.segments;
  opt.explain = true;
  for (uattn::Arch arch : a.archs) {
    uattn::SelectPolicy pol = uattn::default_policy(arch);
    apply_policy(a.policy, &pol);  // checked in parse_args
    opt.policy = &pol;
    std::string args_error;
    const uattn::ProblemDesc p = uattn::explain::to_problem(sc, arch, a.cus, &args_error);
    uattn::Selection sel;
    if (args_error.empty()) sel = uattn::select(p, opt);
    else sel.error = args_error;
    const int cus = a.cus > 0 ? a.cus : uattn::cu_count(arch);
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
    if (sel.path == uattn::Path::k3D) {
      if (sel.fused_reduce)
        std::printf("    %-10s fused into the attention launch (a counter buffer of the stream; %s without one)\n",
                    "reduce", sel.reduce.row->name);
      else
        print_launch("reduce", sel.reduce);
    }
    std::printf("    %-10s %s\n", "why", sel.why.c_str());
    print_estimates(sel, pol);
  }
  std::printf("\n");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  const int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;

  std::vector<std::pair<int, int>> seqs_override;
  if (a.seqs_given) {  // an empty --seqs is refused by parse_seqs, not ignored
    std::string e;
    if (!uattn::explain::parse_seqs(a.seqs, &seqs_override, &e)) {
      std::fprintf(stderr, "uattn-explain: %s\n", e.c_str());
      return 2;
    }
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
