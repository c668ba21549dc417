// The fault kernel (fault_kernel.hpp, built from the mutated template copy) as a
// device kernel: tests/faults/CMakeLists.txt compiles it for the fault's
// architecture and links it into fault_<name>.co, which test_fault_<name>_isa
// runs in the instruction-level emulator (tools/emu).
#include "uattn/kernel/instance.hpp"
#include "fault_kernel.hpp"

UATTN_GLOBAL UATTN_LAUNCH_BOUNDS(::uattn::fault::K::kThreads, ::uattn::fault::K::kWavesPerEU)
void uattn_fault_kernel(::uattn::AttnParams p) {
  UATTN_LDS_DECL(uattn_lds, ::uattn::fault::K::kLdsBytes);
  ::uattn::fault::K::run(p, uattn_lds);
}
