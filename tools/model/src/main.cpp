// uattn-model: command-line checks of the whole-launch model (model.hpp).
//
//   uattn-model mca-check --code-object CO --inspect JSON [--tolerance 0.25] [--explained FILE]
//     For every kernel of `uattn-inspect --json` (JSON) with an llvm-mca estimate of its KV-tile
//     loop, the model's cycles per iteration for one wave alone on a SIMD running that loop body
//     (same instructions, branches dropped as uattn-inspect drops them, 20 iterations), against
//     llvm-mca's. Exit 1 when a kernel differs by more than the tolerance and is not listed in
//     FILE (lines "<kernel glob> <reason>"); 2 on a usage error.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <fnmatch.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "uattn/model/model.hpp"

int main(int argc, char** argv) {
  CLI::App app{"uattn-model: checks of the whole-launch model"};
  app.require_subcommand(1);
  auto* mca = app.add_subcommand("mca-check", "one wave's KV-tile loop: the model against llvm-mca");
  std::string co_path, inspect_path, explained_path;
  double tol = 0.25;
  mca->add_option("--code-object", co_path, "the code object (.co)")->required()->check(CLI::ExistingFile);
  mca->add_option("--inspect", inspect_path, "uattn-inspect --json output for it")->required()->check(CLI::ExistingFile);
  mca->add_option("--tolerance", tol, "allowed relative difference")->check(CLI::PositiveNumber);
  mca->add_option("--explained", explained_path, "kernels whose difference is explained: '<glob> <reason>' lines");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::pair<std::string, std::string>> explained;
  if (!explained_path.empty()) {
    std::ifstream in(explained_path);
    if (!in) { fprintf(stderr, "uattn-model: --explained %s: cannot open\n", explained_path.c_str()); return 2; }
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string glob, reason;
      ls >> glob;
      std::getline(ls, reason);
      explained.emplace_back(glob, reason);
    }
  }
  try {
    auto co = uattn::emu::CodeObject::load_file(co_path);
    const uattn::model::Machine m = uattn::model::load_machine(co->processor());
    std::ifstream in(inspect_path);
    const nlohmann::json rows = nlohmann::json::parse(in);
    int checked = 0, outside = 0, unexplained = 0;
    printf("| kernel (instrument: uattn-model mca-check, %s) | llvm-mca cycles/iter | model cycles/iter | model / llvm-mca |\n",
           m.sched_model.c_str());
    printf("|---|---:|---:|---:|\n");
    for (const auto& r : rows) {
      if (r.value("arch", "") != co->processor() || r["tile_loop"].is_null()) continue;
      const auto& lp = r["loops"][r["tile_loop"].get<int>()];
      if (!lp.contains("cycles_per_iter")) continue;
      const std::string name = r["name"];
      const auto insts = co->instructions(name);
      const uint64_t lo = std::stoull(lp["start_addr"].get<std::string>(), nullptr, 16),
                     hi = std::stoull(lp["end_addr"].get<std::string>(), nullptr, 16);
      std::vector<uint32_t> body;
      for (uint32_t i = 0; i < insts.size(); ++i)
        if (insts[i].addr >= lo && insts[i].addr <= hi) body.push_back(i);
      if (body.empty()) continue;
      const double mine = uattn::model::one_wave_units_per_iteration(m, insts, body);
      const double ref = lp["cycles_per_iter"].get<double>();
      const double ratio = mine / ref;
      ++checked;
      std::string note;
      if (std::fabs(ratio - 1) > tol) {
        ++outside;
        note = " **outside**";
        bool ok = false;
        for (auto& [g, why] : explained)
          if (fnmatch(g.c_str(), name.c_str(), 0) == 0) { ok = true; note += ": explained:" + why; }
        if (!ok) ++unexplained;
      }
      printf("| %s | %.1f | %.1f | %.2f%s |\n", name.c_str(), ref, mine, ratio, note.c_str());
    }
    printf("\n%d kernels checked, %d outside +-%.0f%%, %d of them unexplained\n", checked, outside, tol * 100,
           unexplained);
    return checked == 0 || unexplained ? 1 : 0;
  } catch (const std::exception& e) {
    fprintf(stderr, "uattn-model: %s\n", e.what());
    return 2;
  }
}
