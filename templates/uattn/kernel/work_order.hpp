// The order in which a 2D attention launch's workgroups take their work
// (AttnParams::dispatch_round). Host and device code: the selector, the
// kernels and the whole-launch model's sampling use the same function.
#pragma once
#include "uattn/device/types.hpp"

namespace uattn {

// Serpentine work order. Workgroup g of a launch of n (linear g = x + gx y)
// is dispatched in round g / R, R workgroups per round (R = dispatch_round:
// the device's CU count, so that a CU receives one workgroup per round: the
// hardware dispatcher hands workgroups out in grid order). In an odd round
// the workgroup takes the work of its mirror within the round, position i
// of L (the round's length: R, or what is left of n) taking L - 1 - i. The
// workgroups a CU receives then alternate between the work of the start and
// of the end of the grid order; in a causal prefill, where the grid's query
// blocks walk 1, 2, ... KV tiles, a CU so pairs long walks with short ones
// instead of walking the longest of every head. An involution on [0, n)
// (every work item is taken exactly once); R = 0 or a single round: g.
// Requires n < 2^32 (the selector sets R only for n < 2^31).
UATTN_HOST_DEVICE inline uint32_t serpentine(uint32_t g, uint32_t n, uint32_t R) {
  if (R == 0 || n <= R) return g;
  const uint32_t r = g / R, b = r * R;
  if ((r & 1u) == 0) return g;
  const uint32_t len = n - b < R ? n - b : R;
  return b + (len - 1u - (g - b));
}

}  // namespace uattn
