// A test kernel for the emulator's global atomics and cache-control
// instructions (tests/isa/test_atomics.cpp): the "last-arriving workgroup"
// protocol of a split reduction. Each workgroup sums its slice of `in` into
// partial[g], releases it (agent-scope fence), and counts itself in `counter`
// (an atomic add that returns the count before it); the workgroup that sees
// groups - 1 acquires (fence), sums every partial into *out, counts itself in
// *reducers and sets the counter back to 0, so the next launch can reuse it.
// `arrivals` takes an add whose result is unused (the no-return atomic form).
// First every work-item draws a ticket (an add whose value each lane uses: the
// compiler's one atomic per wave plus each lane's rank among the active lanes,
// v_mbcnt) and writes its global id into slots[ticket]: a permutation.
// Built without HIP headers (-nogpuinc): the clang builtins directly.
#include <stdint.h>

extern "C" __attribute__((global)) __attribute__((amdgpu_flat_work_group_size(1, 256))) void last_arriver(
    const uint32_t* in, uint32_t* partial, uint32_t* counter, uint32_t* out, uint32_t* reducers, uint32_t* arrivals,
    uint32_t* tickets, uint32_t* slots, int per_group) {
  const int g = __builtin_amdgcn_workgroup_id_x();
  const int groups = __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x();
  const uint32_t t = __builtin_amdgcn_workitem_id_x();
  const uint32_t ticket = __hip_atomic_fetch_add(tickets, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  slots[ticket] = (uint32_t)g * __builtin_amdgcn_workgroup_size_x() + t;
  if (t != 0) return;
  uint32_t s = 0;
  for (int i = 0; i < per_group; ++i) s += in[g * per_group + i];
  partial[g] = s;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
  __hip_atomic_fetch_add(arrivals, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  const uint32_t prev = __hip_atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  if (prev != (uint32_t)groups - 1) return;
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
  uint32_t total = 0;
  for (int i = 0; i < groups; ++i) total += __builtin_nontemporal_load(&partial[i]);
  *out = total;
  __hip_atomic_fetch_add(reducers, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_store(counter, 0u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
