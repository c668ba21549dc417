// uattn-bench --model (uattn-bench-cpu only): each lane's launches run on their
// code objects in the instruction-level emulator (tools/emu), traced, and the
// whole-launch model (tools/model) turns the traces into modelled µs; beside
// them Triton's compiled kernels (../shared/triton, vLLM's wrapper logic,
// tests/isa/triton_launch.hpp) run the same problem through the same model,
// with both outputs' error against the fp64 reference, and the seed's measured
// MI355X Triton times (seed_triton_mi355x.json). docs/performance.md,
// "Whole-launch model", says what the model captures and what it cannot.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sets.hpp"

namespace uattn::bench {

class ModelBench {
 public:
  // `arch`: gfx950 or gfx1030 (the machine record tools/model/machines/<arch>.json);
  // `max_groups`: trace at most this many workgroups per launch (0 = all);
  // `kv_heads` > 0: run and trace only the workgroups of the first `kv_heads` KV
  // heads of each launch whose grid.y is a multiple of the scenario's
  // num_kv_heads (model::LaunchModel::Sampling::heads), the outputs checked for
  // their query heads only. Throws std::runtime_error naming a missing record or file.
  static std::unique_ptr<ModelBench> create(const std::string& arch, const std::string& triton_dir,
                                            const std::string& seed_file, uint64_t max_groups, int kv_heads = 0);
  virtual ~ModelBench() = default;
  // Around one uattn lane's run (Runtime::run on the CPU-backed device, ISA engine).
  virtual void begin_lane(const BenchScenario& sc) = 0;
  // The query heads whose outputs a lane of `sc` computes (0: all).
  virtual int checked_q_heads(const BenchScenario& sc) const = 0;
  virtual void end_lane(const BenchScenario& sc, const std::string& lane, bool ok) = 0;
  // The modelled µs of a lane run between begin_lane and end_lane (every launch summed), or NaN
  // with `*err` set when it failed or was not run.
  virtual double lane_us(const BenchScenario& sc, const std::string& lane, std::string* err) const = 0;
  // After a scenario's lanes: runs Triton's lanes and adds every model field to `rec`.
  virtual void scenario_done(const BenchScenario& sc, const std::vector<std::string>& lanes, nlohmann::json& rec) = 0;
  virtual void print_tables(const std::vector<std::string>& lanes) const = 0;
  virtual nlohmann::json header() const = 0;  // the machine record and method, for the report
};

}  // namespace uattn::bench
