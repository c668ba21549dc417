// Declares every host-compiled instance from the generated table rows; rows of
// architectures not in this build (UATTN_HOST_HAS_<arch> undefined) are skipped.
#include "host_registry.hpp"

#include <cstring>

#ifdef UATTN_HOST_HAS_gfx950
#define UATTN_ROW_gfx950(NAME) X(NAME)
#else
#define UATTN_ROW_gfx950(NAME)
#endif
#ifdef UATTN_HOST_HAS_gfx1030
#define UATTN_ROW_gfx1030(NAME) X(NAME)
#else
#define UATTN_ROW_gfx1030(NAME)
#endif
#define UATTN_ROW(NAME, ARCH, ...) UATTN_ROW_##ARCH(NAME)

#define X(NAME) extern "C" void NAME(uattn::AttnParams);
#include "table_rows.inc"
#undef X

namespace uattn::exec {

const std::vector<HostKernel>& host_kernels() {
#define X(NAME) HostKernel{#NAME, &NAME},
  static const std::vector<HostKernel> k = {
#include "table_rows.inc"
  };
#undef X
  return k;
}

HostKernelFn find_host_kernel(const std::string& name) {
  for (const HostKernel& k : host_kernels())
    if (name == k.name) return k.fn;
  return nullptr;
}

}  // namespace uattn::exec
