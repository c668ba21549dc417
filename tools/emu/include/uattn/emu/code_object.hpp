// Reading AMDGPU code objects the way the HIP runtime's loader does, for the
// CPU-backed HIP device (tests/hipcpu) and the emulator (uattn-emu). No HIP dependency.
//
// Formats (public sources):
//   - ELF64: the System V gABI; AMDGPU specifics (e_machine EM_AMDGPU = 224,
//     EI_OSABI ELFOSABI_AMDGPU_HSA = 64, EI_ABIVERSION 2/3/4 = code object v4/v5/v6,
//     e_flags EF_AMDGPU_MACH_* and the xnack/sramecc feature bits, the kernel
//     descriptor symbol "<kernel>.kd" of 64 bytes, the NT_AMDGPU_METADATA = 32
//     note "AMDGPU" holding MessagePack): LLVM's docs/AMDGPUUsage.rst.
//   - Offload bundles ("__CLANG_OFFLOAD_BUNDLE__" + entry table) and compressed
//     bundles ("CCOB", versions 1-3, zlib = 0 / zstd = 1): clang's
//     docs/ClangOffloadBundler.rst and lib/Driver/OffloadBundler.cpp.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

namespace uattn::codeobj {

struct KernelArg {
  std::string value_kind;  // "by_value", "global_buffer", "hidden_*", ...
  uint32_t offset = 0, size = 0;
};

struct KernelInfo {
  std::string name;           // the kernel symbol (.name in the metadata)
  std::string symbol;         // .symbol: "<name>.kd"
  uint32_t group_segment_fixed_size = 0;    // static LDS bytes (metadata; equals the descriptor's)
  uint32_t private_segment_fixed_size = 0;  // scratch bytes per lane
  uint32_t kernarg_segment_size = 0, kernarg_segment_align = 0;
  uint32_t wavefront_size = 0;
  uint32_t max_flat_workgroup_size = 0;
  uint32_t reqd_workgroup_size[3] = {0, 0, 0};  // 0: not required
  uint32_t sgpr_count = 0, vgpr_count = 0;
  std::vector<KernelArg> args;  // explicit and hidden, in order
  // Size of the explicit arguments (end of the last non-hidden argument).
  uint32_t explicit_args_size() const;
};

struct CodeObject {
  std::string processor;      // from e_flags, e.g. "gfx950"
  std::string target;         // from the metadata's amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx950"
  int xnack = -1, sramecc = -1;  // -1 any / unsupported, 0 off, 1 on (from e_flags)
  int code_object_version = 0;   // 4, 5, 6
  std::vector<KernelInfo> kernels;
};

// A device's target id, "gfx950:sramecc+:xnack-": processor + feature settings.
struct TargetId {
  std::string processor;
  int xnack = -1, sramecc = -1;  // -1 not stated (any)
};
TargetId parse_target_id(const std::string& s);
// A code object for `co_features` runs on a device `dev` (HIP/LLVM's compatibility
// rule: same processor; each feature "any" on one side or equal).
bool compatible(const std::string& co_processor, int co_xnack, int co_sramecc, const TargetId& dev);

enum class LoadError { kNone, kInvalidImage, kNoBinaryForGpu, kNotSupported };
struct LoadResult {
  LoadError error = LoadError::kNone;
  std::string message;  // what was refused and why
};

// Parses one ELF code object (the whole image must be `size` bytes).
LoadResult parse_code_object(const uint8_t* data, size_t size, CodeObject* out);

// `image` as hipModuleLoadData receives it: an ELF code object, an offload
// bundle or a compressed bundle. Picks the code object for `device` and parses
// it. *image_bytes gets the ELF chosen (a copy).
LoadResult load_image(const void* image, const TargetId& device, CodeObject* out, std::vector<uint8_t>* elf);

// The size of an image without being told (HIP reads ELF headers / bundle
// tables to find the end): 0 when unrecognised.
size_t image_size(const uint8_t* p);

}  // namespace uattn::codeobj
