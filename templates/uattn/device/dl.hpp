// uattn device layer: the only header kernel templates include.
//
// Exactly one backend is selected at compile time:
//   UATTN_BACKEND_AMD   - HIP device compile for gfx950 / gfx1030 (clang -x hip
//                         --cuda-device-only -nogpuinc -nogpulib); uses
//                         __builtin_amdgcn_* only, no HIP headers.
//   UATTN_BACKEND_HOST  - plain C++ on the CPU: every lane runs as a fiber under
//                         the host execution engine (tests/hostexec), which
//                         checks LDS races, partial-wave operations and emulates
//                         MFMA from AMD's documented register layouts.
//   UATTN_BACKEND_CUDA  - reserved for the sm_90 validation target.
// If none is defined, AMD is chosen when compiling HIP device code
// (__HIP_DEVICE_COMPILE__ / __AMDGPU__), otherwise HOST.
//
// Everything a kernel needs from the hardware goes through namespace dl:
// workgroup/lane ids, barriers, wave operations, MFMA, LDS views, exp2 and the
// dtype conversions (types.hpp).
#pragma once

#if !defined(UATTN_BACKEND_AMD) && !defined(UATTN_BACKEND_HOST) && !defined(UATTN_BACKEND_CUDA)
#  if defined(__AMDGPU__) || defined(__HIP_DEVICE_COMPILE__)
#    define UATTN_BACKEND_AMD 1
#  else
#    define UATTN_BACKEND_HOST 1
#  endif
#endif

#include "uattn/device/types.hpp"

#if defined(UATTN_BACKEND_AMD)
#  include "uattn/device/backend_amd.hpp"
#elif defined(UATTN_BACKEND_HOST)
#  include "uattn/device/backend_host.hpp"
#else
#  error "uattn: UATTN_BACKEND_CUDA is not implemented yet"
#endif

#include "uattn/device/lds.hpp"
