// uattn-model: the per-CU cycle simulation over workgroup traces and the
// device-level combination (model.hpp states the model).
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <deque>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>
#include <unordered_set>

#include "uattn/model/model.hpp"

#ifndef UATTN_MODEL_MACHINES
#define UATTN_MODEL_MACHINES "machines"
#endif

namespace uattn::model {

using json = nlohmann::json;

Machine load_machine(const std::string& arch, const std::string& dir_in) {
  std::string dir = dir_in;
  if (dir.empty()) {
    const char* e = getenv("UATTN_MODEL_MACHINES");
    dir = e && *e ? e : UATTN_MODEL_MACHINES;
  }
  const std::string path = dir + "/" + arch + ".json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("uattn-model: no machine record " + path + " for arch " + arch);
  json j;
  try {
    j = json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error("uattn-model: " + path + ": " + e.what());
  }
  Machine m;
  m.arch = j.value("arch", "");
  m.product = j.value("product", "");
  if (m.arch != arch) throw std::runtime_error("uattn-model: " + path + " is for arch '" + m.arch + "', not " + arch);
  auto get = [&](const char* k, auto* out) {
    if (!j.contains(k) || !j[k].contains("value") || !j[k].contains("source"))
      throw std::runtime_error("uattn-model: " + path + ": field '" + k + "' needs a value and a source");
    *out = j[k]["value"].get<std::remove_pointer_t<decltype(out)>>();
    m.sources[k] = j[k]["source"].get<std::string>();
  };
  get("compute_units", &m.compute_units);
  get("clock_mhz", &m.clock_mhz);
  get("hbm_gbs", &m.hbm_gbs);
  get("last_level_cache_bytes", &m.last_level_cache_bytes);
  get("l2_bytes", &m.l2_bytes);
  get("cache_line_bytes", &m.cache_line_bytes);
  get("lds_bytes_per_cu", &m.lds_bytes_per_cu);
  get("lds_banks", &m.lds_banks);
  get("simds_per_cu", &m.simds_per_cu);
  get("wave_size", &m.wave_size);
  get("max_waves_per_simd", &m.max_waves_per_simd);
  get("vgprs_per_simd_lane", &m.vgprs_per_simd_lane);
  get("vgpr_granule", &m.vgpr_granule);
  get("sgprs_per_simd", &m.sgprs_per_simd);
  get("store_counter", &m.store_counter);
  get("clocks_per_model_unit", &m.clocks_per_model_unit);
  get("sched_model", &m.sched_model);
  get("launch_overhead_us", &m.launch_overhead_us);
  (void)inst_cost(m.sched_model, "s_endpgm");  // throws for a scheduling model without costs here
  if (m.compute_units <= 0 || m.simds_per_cu <= 0 || m.clock_mhz <= 0 || m.hbm_gbs <= 0 || m.max_waves_per_simd <= 0 ||
      m.clocks_per_model_unit <= 0 || m.lds_banks <= 0 || m.cache_line_bytes <= 0)
    throw std::runtime_error("uattn-model: " + path + ": a count, clock or bandwidth is not positive");
  return m;
}

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max() / 4;

// Static facts of one instruction of the kernel.
struct StaticInst {
  InstCost cost;
  std::vector<uint16_t> reads, writes;  // registers (emu ids); writes only for non-memory results
  int vmcnt = -1, lgkmcnt = -1, vscnt = -1;
  bool store = false, flat = false;
  bool returning_atomic = false;  // a global / flat / buffer atomic that returns the value before it
};

// One issued instruction of a wave: its static index, and for LDS its
// bank-conflict cycles (model units).
struct Op {
  uint32_t inst;
  uint16_t lds_units;
};
struct GroupStream {
  std::vector<std::vector<Op>> waves;
};

// The end of a wave's main part: one past its last returning atomic (0: none,
// the whole wave is main). The ops after it are the wave's tail (model.hpp);
// a group has a tail when one of its waves issues anything after that atomic.
size_t main_end(const std::vector<Op>& ops, const std::vector<StaticInst>& insts) {
  for (size_t i = ops.size(); i-- > 0;)
    if (ops[i].inst < insts.size() && insts[ops[i].inst].returning_atomic) return i + 1;
  return 0;
}

enum Reason : uint8_t { kRIssue, kRMfma, kRLds, kRMem, kRDep, kRBarrier, kRIdle, kRCount };

}  // namespace

struct LaunchModel::Impl {
  Machine m;
  std::string kernel;
  uint64_t groups = 0;
  uint32_t grid[3] = {1, 1, 1};
  int waves_per_group = 1;
  uint32_t lds_per_group = 0;
  int vgprs = 0, agprs = 0, sgprs = 0;
  std::vector<StaticInst> insts;
  bool store_counter = false;  // Machine::store_counter
  int vmem_latency = 80, lds_latency = 5, smem_latency = 5;

  std::mutex mu;
  std::map<uint64_t, GroupStream> streams;  // linear group id -> trace (each wave's main part)
  std::map<uint64_t, GroupStream> tails;    // the groups with a returning atomic: each wave's tail
  std::unordered_set<uint64_t> lines_read, lines_written;
  double global_bytes = 0;
  double group_unique_lines = 0;  // sum over traced workgroups of their distinct lines
  uint64_t max_groups = 0;  // Sampling::max_groups in force (0: none)
  uint32_t keep_y = 0;      // Sampling::heads in force (0: none)
  std::function<uint64_t(uint64_t)> work_of;  // Sampling::work_of (empty: each takes its own)
  uint64_t work(uint64_t g) const { return work_of ? work_of(g) : g; }

  // Occupancy (descriptor + machine).
  int waves_per_simd = 0, groups_per_cu = 0;
  std::string limit;

  void occupancy() {
    const int g = m.vgpr_granule;
    const int regs = ((vgprs + agprs + g - 1) / g) * g;
    int w = m.max_waves_per_simd;
    limit = "waves per SIMD (" + std::to_string(w) + ")";
    if (regs > 0 && m.vgprs_per_simd_lane / regs < w) {
      w = m.vgprs_per_simd_lane / regs;
      limit = "VGPRs (" + std::to_string(regs) + " per wave)";
    }
    if (m.sgprs_per_simd > 0 && sgprs > 0 && m.sgprs_per_simd / sgprs < w) {
      w = m.sgprs_per_simd / sgprs;
      limit = "SGPRs";
    }
    waves_per_simd = std::max(1, w);
    int by_waves = (m.simds_per_cu * waves_per_simd) / waves_per_group;
    int gpc = std::max(1, by_waves);
    if (lds_per_group > 0 && (int)(m.lds_bytes_per_cu / lds_per_group) < gpc) {
      gpc = std::max<int>(1, m.lds_bytes_per_cu / lds_per_group);
      limit = "LDS (" + std::to_string(lds_per_group) + " B per workgroup)";
    }
    groups_per_cu = gpc;
  }

  // LDS bank-conflict cycles of one instruction's lane accesses: the accesses
  // are taken in lane order in passes of lds_banks x 4 bytes; a pass costs the
  // largest number of distinct dwords any bank serves (one dword read by many
  // lanes is a broadcast).
  uint16_t lds_units(const emu::WaveTrace& w, const emu::TraceOp& op) const {
    const uint32_t pass_bytes = 4u * (uint32_t)m.lds_banks;
    uint64_t clocks = 0;
    std::vector<std::vector<uint32_t>> bank(m.lds_banks);
    uint32_t in_pass = 0;
    auto flush = [&] {
      size_t worst = 0;
      for (auto& b : bank) {
        std::sort(b.begin(), b.end());
        worst = std::max<size_t>(worst, std::unique(b.begin(), b.end()) - b.begin());
        b.clear();
      }
      clocks += worst;
      in_pass = 0;
    };
    for (uint32_t i = op.mem_begin; i < op.mem_begin + op.mem_count; ++i) {
      const emu::TraceMem& a = w.mem[i];
      if (a.space != emu::Space::kLds) continue;
      if (in_pass + a.bytes > pass_bytes && in_pass) flush();
      for (uint64_t d = a.addr / 4; d <= (a.addr + std::max<uint32_t>(a.bytes, 1) - 1) / 4; ++d)
        bank[d % m.lds_banks].push_back((uint32_t)d);
      in_pass += a.bytes;
    }
    if (in_pass) flush();
    const uint64_t units = (clocks + m.clocks_per_model_unit - 1) / m.clocks_per_model_unit;
    return (uint16_t)std::min<uint64_t>(std::max<uint64_t>(units, 1), 65535);
  }

  void add(emu::GroupTrace&& g) {
    GroupStream s, tail;  // tail: each wave's ops after its last returning atomic (none: empty)
    std::vector<uint64_t> rd, wr;
    double bytes = 0;
    const uint64_t line = (uint64_t)m.cache_line_bytes;
    for (const emu::WaveTrace& w : g.waves) {
      std::vector<Op> ops;
      ops.reserve(w.ops.size());
      for (const emu::TraceOp& op : w.ops) {
        uint16_t lu = 0;
        if (op.inst < insts.size() && insts[op.inst].cost.unit == Unit::kLds) lu = lds_units(w, op);
        uint64_t last = ~0ull;
        for (uint32_t i = op.mem_begin; i < op.mem_begin + op.mem_count; ++i) {
          const emu::TraceMem& a = w.mem[i];
          if (a.space != emu::Space::kGlobal) continue;
          bytes += a.bytes;
          for (uint64_t l = a.addr / line; l <= (a.addr + a.bytes - 1) / line; ++l) {
            if (l == last) continue;  // one line of one instruction counts once
            last = l;
            (a.store ? wr : rd).push_back(l);
          }
        }
        ops.push_back(Op{op.inst, lu});
      }
      // main part: up to and including the last returning atomic; the rest, the tail
      const size_t end = main_end(ops, insts);
      if (end > 0 && end < ops.size()) {
        tail.waves.resize(g.waves.size());
        tail.waves[s.waves.size()].assign(ops.begin() + end, ops.end());
        ops.resize(end);
      }
      s.waves.push_back(std::move(ops));
    }
    const uint64_t id = g.id[0] + (uint64_t)grid[0] * (g.id[1] + (uint64_t)grid[1] * g.id[2]);
    std::vector<uint64_t> mine(rd);  // this workgroup's distinct lines
    mine.insert(mine.end(), wr.begin(), wr.end());
    std::sort(mine.begin(), mine.end());
    const double group_lines = (double)(std::unique(mine.begin(), mine.end()) - mine.begin());
    std::lock_guard<std::mutex> l(mu);
    group_unique_lines += group_lines;
    lines_read.insert(rd.begin(), rd.end());
    lines_written.insert(wr.begin(), wr.end());
    global_bytes += bytes;
    streams.emplace(id, std::move(s));
    if (!tail.waves.empty()) tails.emplace(id, std::move(tail));
  }

  // ---- one CU
  struct WaveState {
    const std::vector<Op>* ops = nullptr;
    size_t pc = 0;
    int simd = 0, slot = 0;
    uint64_t ready = 0;
    std::vector<uint64_t> reg;          // register ready times (emu ids)
    std::deque<uint64_t> vm, lds, vs;   // completion times, in issue order
    std::vector<uint64_t> smem;         // out of order
    bool at_barrier = false, done = false;
  };

  // Simulates the workgroups `queue` (stream pointers) on one CU; returns its
  // last cycle (model units) and adds SIMD-cycles per reason into `acct`.
  uint64_t run_cu(const std::vector<const GroupStream*>& queue, double* acct) const {
    const int S = m.simds_per_cu;
    std::vector<WaveState> waves;
    // Never reallocated while a wave is referenced: every resident wave fits.
    waves.reserve((size_t)groups_per_cu * std::max(1, waves_per_group) + 64);
    std::vector<int> simd_load(S, 0);
    std::vector<int> slot_live(groups_per_cu, 0);  // live waves per resident slot (0 = free)
    std::vector<std::vector<int>> slot_waves(groups_per_cu);
    size_t next = 0;
    uint64_t t = 0, lds_free = 0;
    std::vector<std::array<uint64_t, 12>> unit_free(S);
    for (auto& u : unit_free) u.fill(0);
    std::vector<size_t> rr(S, 0);
    std::vector<std::vector<int>> on_simd(S);
    std::function<void(int)> dispatch = [&](int slot) {
      if (next >= queue.size()) return;
      const GroupStream* g = queue[next++];
      slot_waves[slot].clear();
      for (const auto& ops : g->waves) {
        int s = (int)(std::min_element(simd_load.begin(), simd_load.end()) - simd_load.begin());
        WaveState w;
        w.ops = &ops;
        w.simd = s;
        w.slot = slot;
        w.ready = t + 1;
        w.reg.assign(1024, 0);
        w.done = ops.empty();
        int id = -1;
        for (size_t i = 0; i < waves.size(); ++i)
          if (waves[i].done && waves[i].ops == nullptr) { id = (int)i; break; }
        if (id < 0) { id = (int)waves.size(); waves.emplace_back(); }
        waves[id] = std::move(w);
        if (!waves[id].done) {
          ++simd_load[s];
          on_simd[s].push_back(id);
          slot_waves[slot].push_back(id);
          ++slot_live[slot];
        }
      }
      if (slot_live[slot] == 0) dispatch(slot);  // an empty workgroup
    };
    for (int s = 0; s < groups_per_cu; ++s) dispatch(s);
    auto retire_wave = [&](int id) {
      WaveState& w = waves[id];
      w.done = true;
      --simd_load[w.simd];
      auto& v = on_simd[w.simd];
      v.erase(std::find(v.begin(), v.end(), id));
      if (--slot_live[w.slot] == 0) {
        const int slot = w.slot;
        w.ops = nullptr;
        for (int o : slot_waves[slot]) waves[o].ops = nullptr;
        dispatch(slot);
      }
    };
    auto unit_index = [](Unit u) { return (int)u; };
    uint64_t last = 0;
    for (;;) {
      bool any_live = false;
      for (int s = 0; s < S; ++s) any_live |= !on_simd[s].empty();
      if (!any_live) break;
      uint64_t next_event = kNever;
      bool issued_any = false;
      std::vector<Reason> reason(S, kRIdle);
      for (int s = 0; s < S; ++s) {
        auto& list = on_simd[s];
        if (list.empty()) continue;
        uint32_t used = 0;
        bool issued = false;
        Reason first_stall = kRIdle;
        const size_t n = list.size();
        const size_t start = rr[s] % n;
        std::vector<int> order;
        for (size_t k = 0; k < n; ++k) order.push_back(list[(start + k) % n]);
        for (int id : order) {
          WaveState& w = waves[id];
          if (w.done) continue;
          Reason why = kRIdle;
          uint64_t when = kNever;
          if (w.at_barrier) {
            why = kRBarrier;
          } else if (w.ready > t) {
            why = kRDep;
            when = w.ready;
          } else {
            const Op& op = (*w.ops)[w.pc];
            const StaticInst& si = insts[op.inst];
            const Unit u = si.cost.unit;
            // retire completed memory operations
            while (!w.vm.empty() && w.vm.front() <= t) w.vm.pop_front();
            while (!w.lds.empty() && w.lds.front() <= t) w.lds.pop_front();
            while (!w.vs.empty() && w.vs.front() <= t) w.vs.pop_front();
            w.smem.erase(std::remove_if(w.smem.begin(), w.smem.end(), [&](uint64_t x) { return x <= t; }),
                         w.smem.end());
            if (u == Unit::kWait) {
              uint64_t need = 0;
              Reason r = kRMem;
              if (si.vmcnt >= 0 && (int)w.vm.size() > si.vmcnt) need = std::max(need, w.vm[w.vm.size() - si.vmcnt - 1]);
              if (si.vscnt >= 0 && (int)w.vs.size() > si.vscnt) need = std::max(need, w.vs[w.vs.size() - si.vscnt - 1]);
              if (si.lgkmcnt >= 0) {
                if ((int)w.lds.size() > si.lgkmcnt) {
                  const uint64_t x = w.lds[w.lds.size() - si.lgkmcnt - 1];
                  if (x > need) { need = x; r = kRLds; }
                }
                if (si.lgkmcnt == 0)
                  for (uint64_t x : w.smem) need = std::max(need, x);
              }
              if (need > t) {
                why = r;
                when = need;
              }
            } else if (u == Unit::kBarrier) {
              // handled at issue
            } else {
              uint64_t rdy = 0;
              for (uint16_t r : si.reads) rdy = std::max(rdy, w.reg[r]);
              const int ui = unit_index(u);
              uint64_t uf = (u == Unit::kLds) ? lds_free : unit_free[s][ui];
              if (rdy > t) {
                why = u == Unit::kMfma ? kRMfma : kRDep;
                when = rdy;
              } else if (uf > t) {
                why = u == Unit::kMfma ? kRMfma : u == Unit::kLds ? kRLds : kRDep;
                when = uf;
              } else if (used >> ui & 1) {
                why = u == Unit::kMfma ? kRMfma : kRDep;
                when = t + 1;
              }
            }
            if (why == kRIdle) {
              // issue
              issued = true;
              issued_any = true;
              w.ready = t + 1;
              if (u != Unit::kWait && u != Unit::kBarrier && u != Unit::kEnd && u != Unit::kNop)
                used |= 1u << unit_index(u);
              if (u == Unit::kMfma) reason[s] = kRMfma;
              else if (reason[s] != kRMfma) reason[s] = kRIssue;
              switch (u) {
                case Unit::kLds: {
                  const uint64_t start_t = std::max(t, lds_free);
                  lds_free = start_t + op.lds_units;
                  w.lds.push_back(std::max(lds_free + lds_latency, w.lds.empty() ? 0 : w.lds.back()));
                  break;
                }
                case Unit::kVmem: {
                  const uint64_t done_t = t + vmem_latency;
                  if (si.flat) w.lds.push_back(std::max(done_t, w.lds.empty() ? 0 : w.lds.back()));
                  auto& q = (si.store && store_counter) ? w.vs : w.vm;
                  q.push_back(std::max(done_t, q.empty() ? 0 : q.back()));
                  unit_free[s][unit_index(u)] = t + si.cost.issue;
                  break;
                }
                case Unit::kSmem:
                  w.smem.push_back(t + smem_latency);
                  unit_free[s][unit_index(u)] = t + si.cost.issue;
                  break;
                case Unit::kBarrier: {
                  w.at_barrier = true;
                  bool all = true;
                  for (int o : slot_waves[w.slot])
                    if (!waves[o].done && !waves[o].at_barrier) all = false;
                  if (all)
                    for (int o : slot_waves[w.slot]) {
                      waves[o].at_barrier = false;
                      waves[o].ready = t + 1;
                    }
                  break;
                }
                case Unit::kWait: case Unit::kEnd: case Unit::kNop:
                  break;
                default:
                  unit_free[s][unit_index(u)] = t + si.cost.issue;
                  for (uint16_t r : si.writes) w.reg[r] = t + si.cost.latency;
              }
              ++w.pc;
              if (u == Unit::kEnd || w.pc >= w.ops->size()) {
                // a wave that ends while its workgroup's others wait at a barrier releases them
                const int slot = w.slot;
                retire_wave(id);
                bool all = true;
                for (int o : slot_waves[slot])
                  if (!waves[o].done && !waves[o].at_barrier) all = false;
                if (all)
                  for (int o : slot_waves[slot])
                    if (!waves[o].done && waves[o].at_barrier) { waves[o].at_barrier = false; waves[o].ready = t + 1; }
              }
              continue;
            }
          }
          if (first_stall == kRIdle) first_stall = why;
          next_event = std::min(next_event, when);
        }
        if (!issued) reason[s] = first_stall == kRIdle ? kRDep : first_stall;
        else next_event = std::min(next_event, t + 1);
        ++rr[s];
      }
      // account this cycle (and the skipped ones) per SIMD
      uint64_t step = 1;
      if (!issued_any) {
        if (next_event == kNever) throw std::runtime_error("uattn-model: " + kernel + ": no wave can proceed (deadlock)");
        step = std::max<uint64_t>(1, next_event - t);
      }
      for (int s = 0; s < S; ++s) acct[on_simd[s].empty() && reason[s] == kRIdle ? kRIdle : reason[s]] += (double)step;
      t += step;
      last = t;
    }
    return last;
  }
};

// The machine's memory latencies and the kernel's instructions with their costs
// (the launch model and the one-wave llvm-mca check share it). An atomic
// without return counts as a store (gfx10: VS_CNT), one with return as a load
// (VM_CNT, where its value returns). A returning atomic: a global / flat /
// buffer atomic to which the emulator's decoder gives a destination register
// (Instruction::writes), i.e. one with GLC (RDNA2) / SC0 (CDNA4) set.
static bool is_returning_atomic(const emu::Instruction& in) {
  const std::string& n = in.mnemonic;
  const bool atomic =
      n.rfind("global_atomic", 0) == 0 || n.rfind("flat_atomic", 0) == 0 || n.rfind("buffer_atomic", 0) == 0;
  return atomic && !in.writes.empty();
}

static void load_code(LaunchModel::Impl& p, const Machine& m, const std::vector<emu::Instruction>& insts) {
  p.store_counter = m.store_counter;
  p.vmem_latency = inst_cost(m.sched_model, "global_load_dword").latency;
  p.lds_latency = inst_cost(m.sched_model, "ds_read_b32").latency;
  p.smem_latency = inst_cost(m.sched_model, "s_load_dword").latency;
  for (const emu::Instruction& in : insts) {
    StaticInst s;
    s.cost = inst_cost(m.sched_model, in.mnemonic);
    s.reads = in.reads;
    if (!in.is_mem) s.writes = in.writes;
    s.vmcnt = in.vmcnt;
    s.lgkmcnt = in.lgkmcnt;
    s.vscnt = in.vscnt;
    s.returning_atomic = is_returning_atomic(in);
    s.store = in.mnemonic.find("store") != std::string::npos ||
              (in.mnemonic.find("atomic") != std::string::npos && !s.returning_atomic);
    s.flat = in.mnemonic.rfind("flat_", 0) == 0;
    p.insts.push_back(std::move(s));
  }
}

LaunchModel::LaunchModel(const Machine& m, const emu::CodeObject& co, const emu::LaunchRequest& rq)
    : p_(std::make_unique<Impl>()) {
  Impl& p = *p_;
  p.m = m;
  if (co.processor() != m.arch)
    throw std::runtime_error("uattn-model: a " + co.processor() + " code object on the " + m.arch + " machine record");
  const emu::KernelDesc* d = co.kernel(rq.kernel);
  if (!d) throw std::runtime_error("uattn-model: no kernel " + rq.kernel + " in the code object");
  p.kernel = rq.kernel;
  for (int i = 0; i < 3; ++i) p.grid[i] = rq.grid[i];
  p.groups = (uint64_t)rq.grid[0] * rq.grid[1] * rq.grid[2];
  p.waves_per_group = (int)((rq.block + d->wavefront_size - 1) / d->wavefront_size);
  p.lds_per_group = d->group_segment_fixed_size + rq.dynamic_lds;
  p.vgprs = d->vgprs;
  p.agprs = d->agprs;
  p.sgprs = d->sgprs;
  load_code(p, m, co.instructions(rq.kernel));
  p.occupancy();
}

LaunchModel::~LaunchModel() = default;

void LaunchModel::attach(emu::LaunchRequest& rq, const Sampling& smp) {
  Impl* p = p_.get();
  rq.trace = [p](emu::GroupTrace&& g) { p->add(std::move(g)); };
  rq.trace_group = nullptr;
  rq.run_group = nullptr;
  p->max_groups = 0;
  p->keep_y = 0;
  p->work_of = smp.work_of;
  const uint64_t gx = p->grid[0], gy = p->grid[1];
  if (smp.heads > 0 && smp.heads < p->grid[1]) {
    const uint32_t keep = smp.heads;
    p->keep_y = keep;
    if (p->work_of)
      rq.run_group = [p, gx, gy, keep](uint32_t x, uint32_t y, uint32_t z) {
        return p->work(x + gx * (y + gy * (uint64_t)z)) / gx % gy < keep;
      };
    else
      rq.run_group = [keep](uint32_t, uint32_t y, uint32_t) { return y < keep; };
  } else if (smp.max_groups > 0 && smp.max_groups < p->groups) {
    // whole dispatch rounds from the start of the grid
    const uint64_t round = (uint64_t)p->m.compute_units * p->groups_per_cu;
    const uint64_t keep = std::max<uint64_t>(round, smp.max_groups / round * round);
    if (keep < p->groups) {
      p->max_groups = keep;
      rq.trace_group = [p, gx, gy, keep](uint32_t x, uint32_t y, uint32_t z) {
        return p->work(x + gx * (y + gy * (uint64_t)z)) < keep;
      };
    }
  }
}

void LaunchModel::add(emu::GroupTrace&& g) { p_->add(std::move(g)); }

KernelTime LaunchModel::finish() {
  Impl& p = *p_;
  KernelTime r;
  r.kernel = p.kernel;
  r.groups = p.groups;
  r.traced_groups = p.streams.size();
  r.waves_per_group = p.waves_per_group;
  r.waves_per_simd = p.waves_per_simd;
  r.groups_per_cu = p.groups_per_cu;
  r.occupancy_limit = p.limit;
  if (p.streams.empty()) throw std::runtime_error("uattn-model: " + p.kernel + ": no workgroup was traced");
  // Groups in grid order over the CUs (g -> CU g mod CUs); an untraced group is
  // taken to be the traced group at its index modulo the traced count.
  std::vector<const GroupStream*> traced;
  for (auto& [id, s] : p.streams) traced.push_back(&s);
  const int cus = p.m.compute_units;
  const uint64_t gx = p.grid[0], gy = p.grid[1];
  std::vector<std::vector<const GroupStream*>> queues(std::min<uint64_t>(cus, p.groups));
  for (uint64_t g = 0; g < p.groups; ++g) {
    uint64_t rep = g;
    if (p.keep_y) {  // work (x, y, z) stands in as work (x, y mod heads, z)
      const uint64_t w = p.work(g);
      const uint64_t x = w % gx, y = w / gx % gy, z = w / (gx * gy);
      rep = p.work(x + gx * (y % p.keep_y + gy * z));  // the workgroup taking that work (an involution)
    } else if (p.max_groups && p.work_of && !p.streams.count(g)) {
      rep = p.work(p.work(g) % p.max_groups);  // the traced workgroup at its work index modulo the traced count
    }
    auto it = p.streams.find(rep);
    if (p.keep_y && it == p.streams.end())
      throw std::runtime_error("uattn-model: " + p.kernel + ": workgroup " + std::to_string(rep) +
                               " of the sampled heads was not traced");
    queues[g % queues.size()].push_back(it != p.streams.end() ? &it->second : traced[g % traced.size()]);
  }
  // CUs are independent: simulated on the host's cores.
  double acct[kRCount] = {};
  uint64_t worst = 0;
  {
    const unsigned nt = (unsigned)std::max<size_t>(
        1, std::min<size_t>(queues.size(), std::max(1u, std::thread::hardware_concurrency())));
    std::vector<std::array<double, kRCount>> part(nt);
    std::vector<uint64_t> part_worst(nt, 0);
    std::vector<std::string> part_err(nt);
    std::atomic<size_t> next{0};
    auto work = [&](unsigned t) {
      part[t].fill(0);
      try {
        for (size_t q; (q = next.fetch_add(1)) < queues.size();)
          part_worst[t] = std::max(part_worst[t], p.run_cu(queues[q], part[t].data()));
      } catch (const std::exception& e) {
        part_err[t] = e.what();
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < nt; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    for (unsigned t = 0; t < nt; ++t) {
      if (!part_err[t].empty()) throw std::runtime_error(part_err[t]);
      worst = std::max(worst, part_worst[t]);
      for (int k = 0; k < kRCount; ++k) acct[k] += part[t][k];
    }
  }
  // CUs with no workgroup are idle for the whole launch.
  acct[kRIdle] += (double)(cus - (int)queues.size()) * p.m.simds_per_cu * (double)worst;
  // and CUs finishing early idle until the last one ends
  double counted = 0;
  for (double a : acct) counted += a;
  const double total = (double)worst * p.m.simds_per_cu * cus;
  if (total > counted) acct[kRIdle] += total - counted;
  const double sum = std::max(1.0, std::max(total, counted));
  r.simd.issue = acct[kRIssue] / sum;
  r.simd.mfma = acct[kRMfma] / sum;
  r.simd.lds = acct[kRLds] / sum;
  r.simd.mem_wait = acct[kRMem] / sum;
  r.simd.dependency = acct[kRDep] / sum;
  r.simd.barrier = acct[kRBarrier] / sum;
  r.simd.idle = acct[kRIdle] / sum;
  r.cu_cycles = (double)worst * p.m.clocks_per_model_unit;
  r.compute_us = r.cu_cycles / p.m.clock_mhz;
  // The tails (model.hpp): each traced group's, alone on an empty CU after its
  // returning atomic's value is back (one VMEM latency); the longest counts.
  uint64_t tail = 0;
  for (const auto& [id, t] : p.tails) {
    double scratch[kRCount] = {};  // SIMD-cycle shares: the main part's only
    tail = std::max(tail, (uint64_t)p.vmem_latency + p.run_cu({&t}, scratch));
  }
  r.tail_us = (double)tail * p.m.clocks_per_model_unit / p.m.clock_mhz;
  // HBM: compulsory lines when the footprint fits the last-level cache.
  const double scale = p.max_groups || p.keep_y ? (double)p.groups / (double)r.traced_groups : 1.0;
  const double line = p.m.cache_line_bytes;
  const double unique = (double)(p.lines_read.size() + p.lines_written.size()) * line * scale;
  // Above the last-level cache: each workgroup's distinct lines (a line it reads
  // again hits in L2 / LLC meanwhile; lines shared between workgroups miss).
  const double per_group = p.group_unique_lines * line * scale;
  r.hbm_bytes = unique <= p.m.last_level_cache_bytes ? unique : per_group;
  r.global_bytes = p.global_bytes * scale;
  r.memory_us = r.hbm_bytes / (p.m.hbm_gbs * 1e3);
  r.launch_us = p.m.launch_overhead_us;
  r.bound = r.memory_us > r.compute_us ? "memory" : "compute";
  r.us = std::max(r.compute_us, r.memory_us) + r.tail_us + r.launch_us;  // tail_us 0: as without tails
  r.sampling = p.keep_y ? "workgroups with grid.y < " + std::to_string(p.keep_y) + " of " + std::to_string(gy) +
                              " (heads) run and traced: " + std::to_string(r.traced_groups) + " of " +
                              std::to_string(p.groups) + "; (x, y, z) modelled as (x, y mod " +
                              std::to_string(p.keep_y) + ", z), memory traffic scaled by " +
                              std::to_string(p.groups) + "/" + std::to_string(r.traced_groups)
               : p.max_groups ? "first " + std::to_string(r.traced_groups) + " of " + std::to_string(p.groups) +
                                    " workgroups traced (whole dispatch rounds); the rest taken as alike"
                              : "every workgroup traced";
  if (p.work_of && (p.keep_y || p.max_groups))
    r.sampling += " (serpentine work order: the sampled coordinates are those of the work a workgroup takes)";
  return r;
}

double one_wave_units_per_iteration(const Machine& m, const std::vector<emu::Instruction>& insts,
                                    const std::vector<uint32_t>& body, int iterations) {
  LaunchModel::Impl p;
  p.m = m;
  p.kernel = "llvm-mca check";
  load_code(p, m, insts);
  p.waves_per_group = 1;
  p.groups_per_cu = 1;
  GroupStream g;
  g.waves.emplace_back();
  for (int i = 0; i < iterations; ++i)
    for (uint32_t k : body) {
      const Unit u = p.insts.at(k).cost.unit;
      if (u == Unit::kBranch || u == Unit::kEnd || u == Unit::kBarrier) continue;  // as uattn-inspect drops branches
      g.waves[0].push_back(Op{k, 1});
    }
  Machine one = m;
  one.simds_per_cu = 1;
  p.m = one;
  double acct[kRCount] = {};
  const uint64_t cycles = p.run_cu({&g}, acct);
  return (double)cycles / iterations;
}

}  // namespace uattn::model
