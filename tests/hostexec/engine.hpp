// uattn host execution engine: runs kernel templates compiled with
// -DUATTN_BACKEND_HOST on the CPU, one Boost.Context fiber per lane, and
// implements every function of namespace dl::host
// (templates/uattn/device/backend_host.hpp).
//
// What a launch checks (SPEC.md s.5):
//   - wave-level operations (wave_barrier, shfl_bits, readfirstlane, ballot,
//     mfma_32x32x16, mfma_16x16x32) are reached by all lanes of the wave with the same kind of
//     operation, otherwise "partial wave";
//   - workgroup barriers are reached by every lane that has not finished, and
//     no wave is part finished / part waiting ("partial wave", "deadlock");
//   - every LDS access through dl::Lds is in bounds and race-free: two lanes
//     touching one byte, at least one writing, must be separated by a
//     workgroup barrier, or by a wave-level operation when both lanes are in
//     the same wave;
//   - global memory from guarded_alloc() sits between PROT_NONE pages; an
//     out-of-bounds access kills the process with exit code 3 and a message
//     naming kernel, workgroup, lane and buffer (use a GoogleTest death test).
// Any other detected fault fails the launch: Result{false, message}; the
// fibers of the workgroup are unwound (destructors run), nothing leaks and the
// process carries on.
//
// Threads: a launch runs on the calling thread (engine state is thread_local;
// guarded_alloc/free are thread-safe), but the kernel/workgroup/lane named in
// the out-of-bounds message is process-wide, so run one launch at a time.
// The first launch or guarded_alloc installs the SIGSEGV/SIGBUS handler
// (replacing e.g. a sanitizer's) and an alternate signal stack per thread.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "uattn/kernel/params.hpp"

namespace uattn::hostexec {

struct Launch {
  const char* kernel_name;  // for messages
  uint32_t grid[3];         // workgroups in x, y, z (run z, y, x sequentially, x fastest)
  int threads;              // lanes per workgroup: a multiple of wave_size, at most 1024
  int wave_size;            // 64 (gfx950) or 32 (gfx1030)
  uint32_t lds_bytes;       // LDS arena per workgroup (fresh, filled with 0xFF bytes)
};

// ok == false: `error` names the kernel, the workgroup, the lane(s) and what
// happened (first fault only).
struct Result {
  bool ok = true;
  std::string error;
};

using KernelFn = void (*)(uattn::AttnParams);

// Runs fn(p) for every lane of every workgroup of l.grid.
Result launch(KernelFn fn, const Launch& l, const uattn::AttnParams& p);

// Guard-page memory: `bytes` placed so that its end touches a PROT_NONE
// region (64 KiB) and a PROT_NONE region (64 KiB) lies before the page that
// holds its start. Contents start zeroed. Alignment: the buffer starts at
// page_end - bytes, so it is aligned to the largest power of two dividing
// `bytes` (up to the page size) - allocate whole elements. `name` is copied
// (up to 95 characters) and used in the out-of-bounds message. Returns
// nullptr only if the mapping fails. bytes == 0 gives a pointer at the
// guard (every access faults).
void* guarded_alloc(size_t bytes, const char* name);
// Frees a pointer returned by guarded_alloc (nullptr: no-op).
void guarded_free(void* p);

// The live guarded buffers as [base, base + bytes) ranges with their names,
// sorted by base (for executors that check every access themselves, e.g. the
// instruction-level emulator of tools/emu).
struct GuardedRange { uintptr_t base; size_t bytes; std::string name; };
std::vector<GuardedRange> guarded_ranges();

// Typed convenience wrapper.
template <class T>
T* guarded_array(size_t n, const char* name) {
  return static_cast<T*>(guarded_alloc(n * sizeof(T), name));
}

}  // namespace uattn::hostexec
