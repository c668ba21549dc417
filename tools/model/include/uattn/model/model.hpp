// uattn-model: whole-launch time from the emulator's dynamic traces (tools/emu,
// LaunchRequest::trace). A model, not a measurement: docs/performance.md,
// "Whole-launch model", says what it captures and what it cannot.
//
// Per CU: SIMDs, waves per SIMD bounded by the kernel's own VGPR / AGPR / SGPR
// and LDS allocation (code object descriptor) and the machine; workgroups
// resident up to that bound; every cycle each SIMD issues from its resident
// waves round-robin, at most one instruction per wave and per functional unit
// (VALU, MFMA, SALU, VMEM, LDS / SMEM, branch), an instruction waiting for its
// source registers (the producer's latency), its unit (issue cost), its
// s_waitcnt (memory returns after a latency, in order) or its s_barrier. LDS
// instructions hold the CU's LDS for their bank-conflict cycles, computed from
// the traced addresses. Issue costs and latencies: LLVM's AMDGPU scheduling
// model (the data llvm-mca uses), SchedModel.cpp cites the values.
// Per device: workgroups dispatched over the CUs in grid order; the launch ends
// with its last CU (the tail of the last round); HBM traffic from the traced
// global addresses (unique cache lines when the launch's footprint fits the
// last-level cache, otherwise each workgroup's distinct lines summed) against
// the HBM bandwidth;
// launch time = max(CU time, HBM time) + tail time + launch overhead.
// Tails (a fused reduce: each workgroup stores its partial results, then takes
// a ticket with a returning global atomic, e.g. `global_atomic_add ... sc0` on
// gfx950 / `glc` on gfx1030, and the one that arrives last reduces the
// others' results): a wave's tail is what it issues after its last returning
// atomic (global / flat / buffer, identified by the destination register the
// emulator's decoder gives it); everything up to and including that atomic is
// its main part (a wave without one is all main). That work waits for the
// group's last arrival, so it cannot overlap the launch's other work as the
// round-robin CU simulation assumes (and the emulator runs the workgroups in
// host-thread order: where the tail falls in the trace is arbitrary). So the
// CU time is that of the main parts only (KernelTime::compute_us, cu_cycles);
// each traced workgroup's tail (its waves' tails together) is simulated as one
// group alone on an otherwise empty CU, after the atomic's value is back (one
// VMEM latency), and the longest is KernelTime::tail_us, added after the
// whole launch's main work: the latest the last arrival can come is when the
// slowest CU's main work ends. Not a bound for a chain of arrivals: with two
// levels (fused_reduce.hpp) a sub-group's combine, done by a wave before its
// second returning atomic, counts as main work where the round robin puts it,
// not after its sub-group's last arrival (about one combine short). Memory
// counts every traced line, tails included; the SIMD-cycle shares
// (KernelTime::simd) cover the main part only. A launch without returning
// atomics has tail_us = 0 and the times it had before tails were modelled.
// The rule reads any returning atomic as an arrival count: one taken for
// another purpose (a work-queue ticket) would make the rest of its wave a tail.
// Sampled launches (Sampling): the tails come from the traced workgroups only,
// so where the last arrival was not traced (max_groups: every workgroup runs,
// the first rounds are traced) its tail is missing; with `heads`, the
// untraced workgroups do not run, so a counter that waits for workgroups of
// several heads never reaches its count (no reduction runs, no tail).
// Machine parameters: tools/model/machines/<arch>.json, each with its source.
#pragma once
#include <stdint.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "uattn/emu/emu.hpp"

namespace uattn::model {

// One architecture record (machines/<arch>.json).
struct Machine {
  std::string arch, product;
  int compute_units = 0, simds_per_cu = 0, wave_size = 0, max_waves_per_simd = 0;
  int vgprs_per_simd_lane = 0, vgpr_granule = 8, sgprs_per_simd = 0, lds_banks = 32, cache_line_bytes = 128;
  int clocks_per_model_unit = 1;
  uint32_t lds_bytes_per_cu = 0;
  bool store_counter = false;  // stores counted apart from loads (gfx10 VS_CNT), else with them (VM_CNT)
  double clock_mhz = 0, hbm_gbs = 0, last_level_cache_bytes = 0, l2_bytes = 0, launch_overhead_us = 0;
  std::string sched_model;
  std::map<std::string, std::string> sources;  // field -> where the value comes from
};
// Reads <dir>/<arch>.json (default dir: the machines folder of this source tree,
// or $UATTN_MODEL_MACHINES). Throws std::runtime_error naming the file and field.
Machine load_machine(const std::string& arch, const std::string& dir = "");

// Instruction classes and their LLVM scheduling data (model units: see
// Machine::clocks_per_model_unit).
enum class Unit : uint8_t { kValu, kTrans, kMfma, kSalu, kSmem, kVmem, kLds, kBranch, kWait, kBarrier, kEnd, kNop };
struct InstCost {
  Unit unit = Unit::kValu;
  int issue = 1;    // cycles the unit is held (ResourceCycles)
  int latency = 1;  // until a reader of its result may issue (Latency)
};
// The class of one instruction under LLVM scheduling model `sched_model`
// (Machine::sched_model: "SIDPGFX940FullSpeedModel" or "GFX10SpeedModel").
// Throws std::runtime_error for another model.
InstCost inst_cost(const std::string& sched_model, const std::string& mnemonic);

// Where the SIMD-cycles of a launch went (each SIMD, each cycle from the
// launch's start to its end, is counted once: issuing, or the reason its
// oldest resident wave could not, or idle).
struct Breakdown {
  double issue = 0;       // an instruction issued (any unit but MFMA)
  double mfma = 0;        // an MFMA issued, or waves waiting for the MFMA pipe
  double lds = 0;         // waiting for the LDS pipe (bank-conflict cycles) or an lgkmcnt on LDS
  double mem_wait = 0;    // s_waitcnt on global memory / SMEM
  double dependency = 0;  // a source register's producer latency or a busy unit
  double barrier = 0;     // s_barrier
  double idle = 0;        // no resident wave: dispatch gaps and the tail of the last round
};

struct KernelTime {
  std::string kernel;
  uint64_t groups = 0, traced_groups = 0;
  int waves_per_group = 0, waves_per_simd = 0, groups_per_cu = 0;
  std::string occupancy_limit;  // "VGPRs", "LDS", "waves", ...
  double cu_cycles = 0;         // clocks of the busiest CU (main parts only)
  // compute_us: the main parts' CU time (cu_cycles); tail_us: the longest tail
  // after the last returning atomic (0: none); us = max(compute_us, memory_us)
  // + tail_us + launch_us (the header comment states the rule).
  double compute_us = 0, memory_us = 0, tail_us = 0, launch_us = 0, us = 0;
  std::string bound;            // "compute" or "memory"
  double hbm_bytes = 0, global_bytes = 0;
  std::string sampling;         // how the traced workgroups stand for the launch
  Breakdown simd;               // fractions of SIMD-cycles (sum 1), over the main parts
};

// One kernel launch: built from the code object and the request, fed the
// workgroup traces (thread-safe), finished once.
class LaunchModel {
 public:
  LaunchModel(const Machine& m, const emu::CodeObject& co, const emu::LaunchRequest& rq);
  ~LaunchModel();
  // How a launch is sampled; KernelTime::sampling states the rule used.
  struct Sampling {
    // > 0: trace at most this many workgroups, chosen as whole dispatch rounds
    // from the start of the grid; every workgroup still runs, the untraced ones
    // are modelled as the traced one at their index modulo the traced count.
    uint64_t max_groups = 0;
    // > 0 and < grid.y: run and trace only the workgroups with y < heads; the
    // workgroup (x, y, z) is modelled as the traced (x, y mod heads, z). For
    // kernels whose grid.y is the head dimension (uattn's and Triton's attention
    // and reduce kernels: the tile count, masks and control flow of a workgroup
    // depend on its sequence and Q block, not on its head), so the stand-in
    // issues the same instruction stream; its addresses are another head's.
    // HBM bytes: the traced lines times grid.y / heads, an upper bound (lines
    // every head reads, e.g. the block table, count once per head).
    uint32_t heads = 0;
    // Set where workgroup g (linear, x + gx (y + gy z)) takes the work of
    // another: g -> the linear index of the work it takes, an involution on
    // the grid (uattn's 2D serpentine order, AttnParams::dispatch_round). The
    // rules above then apply to the work: `heads` runs the workgroups whose
    // work has y < heads, and g stands in as the workgroup taking work (x, y
    // mod heads, z) of its own work (x, y, z); `max_groups` traces those whose
    // work index is below the rounds kept. Empty: every g takes its own.
    std::function<uint64_t(uint64_t)> work_of;
  };
  // Sets rq.trace (and rq.trace_group / rq.run_group when sampling) to feed
  // this model.
  void attach(emu::LaunchRequest& rq, const Sampling& s);
  void attach(emu::LaunchRequest& rq, uint64_t max_groups = 0) { attach(rq, Sampling{max_groups, 0, {}}); }
  void add(emu::GroupTrace&& g);
  KernelTime finish();

  struct Impl;

 private:
  std::unique_ptr<Impl> p_;
};

// One wave alone on a SIMD running `body` (instruction indices into `insts`)
// `iterations` times, no memory stalls beyond LLVM's latencies: model cycles
// (model units, as llvm-mca reports them) per iteration. For the llvm-mca check.
double one_wave_units_per_iteration(const Machine& m, const std::vector<emu::Instruction>& insts,
                                    const std::vector<uint32_t>& body, int iterations = 20);

}  // namespace uattn::model
