// Host-compiled instances (the same generated .hip files, built with
// UATTN_BACKEND_HOST) looked up by instance name.
#pragma once
#include <string>
#include <vector>

#include "uattn/kernel/params.hpp"

namespace uattn::exec {

using HostKernelFn = void (*)(uattn::AttnParams);
struct HostKernel { const char* name; HostKernelFn fn; };

// Every instance compiled into this test binary, in table order, then the
// index-array check kernel of each architecture (uattn_<arch>_check).
const std::vector<HostKernel>& host_kernels();
// nullptr when `name` was not compiled for the host.
HostKernelFn find_host_kernel(const std::string& name);

}  // namespace uattn::exec
