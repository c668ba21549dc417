// The CPU-backed HIP device: a library exporting the subset of the HIP runtime
// API that libuattn calls (hip/hip_runtime_api.h, HIP 6.4 signatures), linked
// in place of libamdhip64 for test builds of the runtime. Kernels run on the
// CPU execution engine (tests/hostexec) as their host-compiled twins
// (tests/exec/host_registry); the code object handed to hipModuleLoadData is
// read and checked as a driver would (code_object.hpp). What it mirrors and
// what it cannot: docs/testing.md, "The CPU-backed HIP device".
//
// This header is the control side for tests and uattn-bench (no HIP types).
#pragma once
#include <stdint.h>

#include <functional>
#include <string>
#include <vector>

#include "uattn/emu/emu.hpp"

namespace uattn::hipcpu {

struct DeviceConfig {
  std::string gcn_arch_name;  // hipDeviceProp_t::gcnArchName, e.g. "gfx950:sramecc+:xnack-", "gfx1030"
  int compute_units = 0;      // multiProcessorCount; 0 = what HIP reports for the record's reference part
  std::string name;           // hipDeviceProp_t::name; "" = the record's product name
};

// Replaces the device list (before or between uses: streams and modules made
// for the old list must not be used afterwards; allocations stay valid; the
// calling thread's current device becomes 0). Without a call, the devices come
// from $UATTN_HIPCPU_DEVICES ("gfx950:sramecc+:xnack-,gfx1030", an optional
// "@CUS" per entry), else one device per architecture record (its gcnArchName).
// A device's processor (gcnArchName up to ':') must be the offload target of an
// architecture record (uattn/generated/arch.hpp), whose facts it reports: wave
// size, LDS per workgroup, CUs, product name, gfx major / minor. Throws
// std::invalid_argument naming the entry otherwise (the list is then unchanged);
// from $UATTN_HIPCPU_DEVICES the message goes to stderr and the process aborts.
void set_devices(const std::vector<DeviceConfig>& devices);
std::vector<DeviceConfig> devices();

// What runs a launched kernel: its host-compiled twin (tests/hostexec), or its
// code object, instruction by instruction, in the emulator (tools/emu). Default:
// $UATTN_HIPCPU_ENGINE ("isa" or "twin"), else the twin.
enum class Engine { kTwin, kIsa };
void set_engine(Engine e);
Engine engine();

// ISA engine: called before each code-object launch with the emulator's
// request, which it may change (e.g. to trace the launch for uattn-bench
// --model); launches run one at a time. Null (the default): none.
using IsaHook = std::function<void(const uattn::emu::CodeObject& co, uattn::emu::LaunchRequest& rq)>;
void set_isa_hook(IsaHook hook);

// One line per kernel launch executed (in execution order): for tests.
struct LaunchRecord {
  int device;
  std::string kernel;
  uint32_t grid[3];
  uint32_t block;
  uint32_t lds_bytes;
  const void* stream;
};
std::vector<LaunchRecord> launches();
void clear_launches();

// The text of the last asynchronous fault (a kernel that failed on the CPU
// engine, an invalid device pointer in its arguments): "" when none. HIP
// reports such faults as an error code from the next synchronising call; the
// message is kept here so tests can print what happened.
std::string last_fault();

// True for a pointer inside a live hipMalloc allocation of `bytes` from `p`.
bool is_device_memory(const void* p, size_t bytes);

}  // namespace uattn::hipcpu
