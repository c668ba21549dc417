// Declares every host-compiled instance from the generated table rows (the rows
// of this build are exactly the instances compiled for the host).
#include "host_registry.hpp"

#include <cstring>

#include "uattn/table_row.hpp"

#define UATTN_ROW_ENTRY(NAME, ROW) extern "C" void NAME(uattn::AttnParams);
#include "table_rows.inc"
#undef UATTN_ROW_ENTRY
#define UATTN_CHECK_ENTRY(NAME) extern "C" void NAME(uattn::AttnParams);
#include "checks.inc"
#undef UATTN_CHECK_ENTRY

namespace uattn::exec {

const std::vector<HostKernel>& host_kernels() {
#define UATTN_ROW_ENTRY(NAME, ROW) HostKernel{#NAME, &NAME},
  static const std::vector<HostKernel> k = {
#include "table_rows.inc"
#define UATTN_CHECK_ENTRY(NAME) HostKernel{#NAME, &NAME},
#include "checks.inc"
#undef UATTN_CHECK_ENTRY
  };
#undef UATTN_ROW_ENTRY
  return k;
}

HostKernelFn find_host_kernel(const std::string& name) {
  for (const HostKernel& k : host_kernels())
    if (name == k.name) return k.fn;
  return nullptr;
}

}  // namespace uattn::exec
