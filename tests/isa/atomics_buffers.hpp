// The buffers and arguments of the atomics test kernel (tests/isa/atomics.hip),
// shared by its emulator tests (test_atomics.cpp) and the model's tail tests
// (test_model_tail.cpp). UATTN_ATOMIC_COS: the kernel's code object per
// architecture, comma-separated (tests/isa/CMakeLists.txt).
#pragma once
#include <stdint.h>

#include <sstream>
#include <string>
#include <vector>

#include "uattn/emu/emu.hpp"

namespace uattn::atomics_test {

inline std::vector<std::string> code_objects() {
  std::vector<std::string> v;
  std::stringstream ss(UATTN_ATOMIC_COS);
  for (std::string p; std::getline(ss, p, ',');) v.push_back(p);
  return v;
}

// groups x per_group inputs (a fixed pseudo-random pattern), one partial per
// group and one slot per work-item poisoned with 0xDEADBEEF, the counters at 0;
// `valid` holds every buffer.
struct Buffers {
  std::vector<uint32_t> in, partial, counter{0}, out{0}, reducers{0}, arrivals{0}, tickets{0}, slots;
  emu::RangeSet valid;
  Buffers(int groups, int per_group, int block)
      : in((size_t)groups * per_group), partial(groups, 0xDEADBEEFu), slots((size_t)groups * block, 0xDEADBEEFu) {
    for (size_t i = 0; i < in.size(); ++i) in[i] = (uint32_t)(i * 2654435761u >> 7);
    for (auto* b : {&in, &partial, &counter, &out, &reducers, &arrivals, &tickets, &slots})
      valid.add((uint64_t)b->data(), b->size() * 4);
  }
  // The kernel's pointer arguments in order; `arrivals_at` in place of the
  // arrivals counter (a test points it elsewhere).
  std::vector<uint64_t> pointers(uint64_t arrivals_at) {
    return {(uint64_t)in.data(),       (uint64_t)partial.data(), (uint64_t)counter.data(), (uint64_t)out.data(),
            (uint64_t)reducers.data(), arrivals_at,              (uint64_t)tickets.data(), (uint64_t)slots.data()};
  }
  std::vector<uint64_t> pointers() { return pointers((uint64_t)arrivals.data()); }
};

}  // namespace uattn::atomics_test
