// uattn-run: runs one instance (or the table's own choice) under CPU execution
// on a problem given on the command line, and compares it with the fp64
// reference. The command a developer uses to debug a kernel.
//
//   uattn-run --arch gfx950 --instance uattn_gfx950_2d_f16_f16_d128_b16_plain_m32n32w1 \
//             --seqs 1:37,0:9,5:70 --q-heads 8 --kv-heads 2
//   uattn-run --arch gfx1030 --head-size 80 --block-size 13 --dtype bf16 --kv-dtype fp8e4m3 \
//             --seqs 3:100 --window 20 --sinks --path 3d --segments 5
//
//   uattn-run --engine isa --arch gfx950 --seqs 5:70   (the shipped code object, in the emulator)
//
// Without --instance the lookup table chooses (auto path unless --path).
// Exit status: 0 match, 1 mismatch / launch failure / not served, 2 usage error.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "run.hpp"
#include "scenario.hpp"  // tools/explain: parse_seqs

using namespace uattn;

namespace {

DType parse_dtype(const std::string& s) {
  if (s == "bf16") return DType::bf16;
  if (s == "fp8" || s == "fp8e4m3") return DType::fp8e4m3;
  return DType::f16;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs one uattn instance under CPU execution on a chosen problem and compares it with the fp64 "
               "reference.", "uattn-run"};
  std::string arch = "gfx950", instance, seqs = "1:37,0:9,5:70", dtype = "f16", kv_dtype, out_dtype, path = "auto";
  uattn::testing::ProblemSpec s{};
  s.head_size = 128; s.block_size = 16; s.num_q_heads = 8; s.num_kv_heads = 2;
  int segments = 0;
  const auto dtypes = CLI::IsMember({"f16", "bf16", "fp8", "fp8e4m3"});
  std::vector<std::string> arch_choices;
  for (Arch a : kArchs) arch_choices.push_back(to_string(a));
  app.add_option("--arch", arch, arch_list())->check(CLI::IsMember(arch_choices));
  app.add_option("--instance", instance, "instance name (a glob is accepted; default: the table's choice)");
  std::string engine = "twin";
  app.add_option("--engine", engine,
                 "twin: the host-compiled twin; isa: the shipped code object (uattn_<arch>.co of this build) in the "
                 "instruction-level emulator")
      ->check(CLI::IsMember({"twin", "isa"}));
  std::string code_object;
  app.add_option("--code-object", code_object,
                 "with --engine isa: run this code object (.co / .hsaco, or an offload bundle: its --arch entry) "
                 "instead of the build's uattn_<arch>.co")
      ->check(CLI::ExistingFile);
  app.add_option("--seqs", seqs, "q_len:kv_len per sequence, comma separated");
  app.add_option("--head-size", s.head_size, "head size D");
  app.add_option("--block-size", s.block_size, "paged-cache block size (any >= 1)");
  app.add_option("--q-heads", s.num_q_heads, "query heads");
  app.add_option("--kv-heads", s.num_kv_heads, "KV heads");
  app.add_option("--dtype", dtype, "q dtype")->check(dtypes);
  app.add_option("--kv-dtype", kv_dtype, "cache dtype (default: the q dtype)")->check(dtypes);
  app.add_option("--out-dtype", out_dtype, "output dtype (default: the q dtype; fp8 uses --output-scale)")->check(dtypes);
  app.add_option("--window", s.window, "model sliding window W (window_left = W-1), 0 = off");
  app.add_option("--softcap", s.softcap, "softcap, 0 = off");
  app.add_option("--scale", s.softmax_scale, "softmax scale (default 1/sqrt(D))");
  app.add_option("--k-scale", s.k_scale, "fp8 K scale");
  app.add_option("--v-scale", s.v_scale, "fp8 V scale");
  app.add_option("--output-scale", s.output_scale, "fp8 output scale");
  app.add_flag("--alibi", s.alibi, "random ALiBi slopes");
  app.add_flag("--qq-bias", s.qq_bias, "random QQ bias");
  app.add_flag("--sinks", s.sinks, "random per-head sinks");
  app.add_option("--seed", s.seed, "random seed");
  app.add_option("--path", path, "auto, 2d or 3d")->check(CLI::IsMember({"auto", "2d", "3d"}));
  app.add_option("--segments", segments,
                 "3D segments, 0 (selector's choice) to " + std::to_string(kMaxSegments) +
                     "; with --path auto it selects 3D, with --path 2d it is an error")
      ->check(CLI::Range(0, kMaxSegments));
  // Not CLI11_PARSE: it exits with CLI11's own codes (104, 105, 109, ...), the
  // help above documents 2 for every usage error.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "uattn-run: %s\nRun with --help for more information.\n", e.what());
    return 2;
  }
  if (path == "2d" && segments > 0) {  // the help calls it an error: a usage error
    std::fprintf(stderr,
                 "uattn-run: --segments %d with --path 2d: expected --segments 0 (2D runs no segments), or --path "
                 "auto / 3d\nRun with --help for more information.\n",
                 segments);
    return 2;
  }

  s.q_dtype = parse_dtype(dtype);
  s.kv_dtype = kv_dtype.empty() ? s.q_dtype : parse_dtype(kv_dtype);
  s.out_dtype = out_dtype.empty() ? s.q_dtype : parse_dtype(out_dtype);
  std::string err;
  if (!explain::parse_seqs(seqs, &s.seqs, &err)) {
    std::fprintf(stderr, "uattn-run: %s\n", err.c_str());
    return 2;
  }

  std::unique_ptr<uattn::testing::Problem> prob;
  try {
    prob = uattn::testing::make_problem(s, exec::guarded_allocator());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "uattn-run: %s\n", e.what());
    return 2;
  }
  exec::RunOptions o;
  o.engine = engine == "isa" ? exec::Engine::kIsa : exec::Engine::kTwin;
  if (!code_object.empty()) {
    if (o.engine != exec::Engine::kIsa) {
      std::fprintf(stderr, "uattn-run: --code-object %s needs --engine isa\nRun with --help for more information.\n",
                   code_object.c_str());
      return 2;
    }
    try {
      o.code_object = emu::CodeObject::load_file(code_object, arch);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "uattn-run: --code-object: %s\n", e.what());
      return 1;
    }
  }
  arch_from_name(arch, &o.arch);
  o.select.filter = instance;
  o.select.path = path == "2d" ? ForcePath::k2D : path == "3d" ? ForcePath::k3D : ForcePath::kAuto;
  o.select.num_segments = segments;
  exec::RunResult r;
  try {
    r = exec::run_problem(*prob, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "uattn-run: %s\n", e.what());
    return 1;
  }
  std::printf("problem   %s\n", uattn::testing::describe(s).c_str());
  std::printf("instance  %s%s%s (path %s, segments %d)\n", r.instance.c_str(), r.reduce_instance.empty() ? "" : " + ",
              r.reduce_instance.c_str(), to_string(r.path), r.num_segments);
  std::printf("compared  %zu values: max_abs %.3e mean_abs %.3e nan %zu fail %zu\n", r.cmp.n, r.cmp.max_abs,
              r.cmp.mean_abs, r.cmp.nan_count, r.cmp.fail_count);
  if (!r.ok) {
    std::printf("FAILED    %s\n", r.error.c_str());
    return 1;
  }
  for (const std::string& w : r.emu_warnings) std::printf("warning   %s\n", w.c_str());
  if (o.engine == exec::Engine::kIsa)
    std::printf("emulated  %llu wave-instructions in %.2f s (%.2f M wave-instructions/s)\n",
                (unsigned long long)r.wave_instructions, r.emu_seconds,
                r.emu_seconds > 0 ? r.wave_instructions / r.emu_seconds / 1e6 : 0.0);
  std::printf("OK\n");
  return 0;
}
