// uattn HIP runtime: loads the kernel bundle, selects an instance for the current
// device and launches it. Library `uattn` (links uattn_table, uattn_validate and
// libamdhip64). This header includes no HIP header: streams are `void*`
// (a hipStream_t; nullptr = the default stream).
//
// Design (STYLE.md, "selection data apart from code objects, loaded lazily"):
// the bundle bytes are read once at create(); the code object of a device is
// loaded on that device's first run() (hipModuleLoadData, once per device, under
// a mutex); kernels are fetched on first use (hipModuleGetFunction, cached per
// table row). run() takes the mutex once per call.
// Errors are returned as Status (codes: uattn.h); nothing throws or aborts.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

#include "uattn/table.hpp"
#include "uattn/validate.hpp"

namespace uattn {

// Environment variable naming the bundle file (or the folder holding it).
constexpr const char* kLibraryPathEnv = "UATTN_LIBRARY_PATH";
constexpr const char* kBundleFileName = "uattn_kernels.hipfb";

// What an offload bundle says about itself (clang-offload-bundler format:
// "__CLANG_OFFLOAD_BUNDLE__" with an entry table, or "CCOB" when compressed).
struct BundleEntry {
  std::string target;        // e.g. "hipv4-amdgcn-amd-amdhsa--gfx950", "host-x86_64-unknown-linux-gnu"
  std::string arch;          // the amdgcn processor ("gfx950"); "" for other entries
  uint64_t offset = 0, size = 0;  // bytes within the bundle
};
struct BundleInfo {
  bool compressed = false;          // a compressed bundle lists nothing until decompressed
  int compressed_version = 0;       // compressed: the header's version (1, 2 or 3)
  uint64_t uncompressed_size = 0;   // compressed: the size the header declares once decompressed
  std::vector<BundleEntry> entries; // uncompressed only
  std::vector<std::string> archs;   // the amdgcn processors among the entries, in order
};
// The largest bundle file read (regular files only), and the largest size a
// compressed bundle may declare once decompressed.
constexpr uint64_t kMaxBundleBytes = 1ull << 30;
constexpr uint64_t kMaxUncompressedBundleBytes = 4ull << 30;

// kBundle when the bytes are neither form (the message says what was found), or
// when the form is broken: an entry table or entry outside the bytes; a
// compressed header that is truncated, of an unknown version or method, whose
// declared file size differs from the bytes' size, or whose declared
// uncompressed size is 0 or above kMaxUncompressedBundleBytes.
Status parse_bundle(const std::vector<uint8_t>& bytes, BundleInfo* info);

// Checks that `size` bytes at `image` are a 64-bit little-endian AMDGPU ELF whose
// program and section headers, and the file ranges they name, lie inside the
// bytes. kBundle naming `what` (e.g. "entry 'hipv4-amdgcn-amd-amdhsa--gfx950'")
// otherwise. Run on a code object before hipModuleLoadData reads it.
Status check_code_object(const uint8_t* image, uint64_t size, const std::string& what);

// The amdgcn entry of an uncompressed bundle for the device whose target id is
// `device_target_id` (hipDeviceProp_t::gcnArchName, "gfx950:sramecc+:xnack-"):
// same processor, and every target feature the entry names (sramecc, xnack)
// set the same way on the device; of several, the one naming the most features.
// nullptr when none is compatible, with *why listing the processor's entries.
const BundleEntry* pick_code_object(const BundleInfo& info, const std::string& device_target_id, std::string* why);

// The bundle file the runtime would read for `explicit_path` (see
// Runtime::create), in the order tried. The env var, when set, is the only entry.
std::vector<std::string> bundle_search_paths(const std::string& explicit_path = "");

// Reads the first existing bundle of bundle_search_paths(explicit_path) into
// *bytes and checks it with parse_bundle(); *path_used names the file read.
// Only regular files of at most kMaxBundleBytes are read (a FIFO or a device
// such as /dev/zero at the path is refused without reading from it).
// kBundle when none can be read (the message names every path tried, why each
// failed, and the env var).
Status read_bundle(const std::string& explicit_path, std::vector<uint8_t>* bytes, std::string* path_used);

class Runtime {
 public:
  // Reads the bundle file: `bundle_path` if given; else $UATTN_LIBRARY_PATH (a
  // file, or a folder holding uattn_kernels.hipfb); else
  // <folder of libuattn>/uattn/ and <folder of libuattn>/../lib/uattn/, then
  // <folder of the executable>/../lib/uattn/, then the build tree's bundle (path
  // compiled in). On failure
  // (kBundle) the message names every path tried and the env var.
  static Status create(std::unique_ptr<Runtime>* out, const std::string& bundle_path = "");
  // Same from bundle bytes already in memory (taken over).
  static Status create_from_buffer(std::unique_ptr<Runtime>* out, std::vector<uint8_t> bundle);

  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Validates `args` (validate()), selects for the current HIP device (arch from
  // gcnArchName, CU count from multiProcessorCount through
  // cus_from_reported(): WGPs x 2 on RDNA), loads the device's code
  // object on first use and launches the attention kernel (+ the reduce kernel
  // on the 3D path) on `stream`. Asynchronous: device-side faults surface on the
  // stream. num_seqs == 0 or num_tokens == 0: success, nothing launched, no
  // device needed. workspace: device memory of workspace_size() bytes (may be
  // null when that is 0). Errors: kInvalidArgument, kNoDevice, kUnsupportedArch,
  // kNoInstance, kBundle, kHip (names the HIP call and its error). `opt` out of
  // its ranges (options_error(): a path outside ForcePath, num_segments above
  // kMaxSegments) and problems the selector refuses as outside the contract
  // (Selection::invalid) are kInvalidArgument. A null out-parameter (here and in
  // create, create_from_buffer, plan, workspace_size) is kInvalidArgument.
  Status run(const AttentionArgs& args, void* workspace, size_t workspace_bytes, void* stream,
             const SelectOptions& opt = {});

  // Workspace bytes run() needs on the current device with `opt` (0 for 2D).
  Status workspace_size(const AttentionArgs& args, size_t* bytes, const SelectOptions& opt = {});

  // The selection run() would make on the current device (for logs and tests),
  // with Selection::why filled (SelectOptions::explain is turned on).
  Status plan(const AttentionArgs& args, Selection* sel, const SelectOptions& opt = {});

  // Where the bundle came from ("<memory>" for create_from_buffer) and its contents.
  const std::string& bundle_path() const;
  const BundleInfo& bundle_info() const;

 private:
  struct Impl;
  explicit Runtime(std::unique_ptr<Impl> impl);
  Status plan_validated(const AttentionArgs& args, Selection* sel, const SelectOptions& opt);
  std::unique_ptr<Impl> impl_;
};

}  // namespace uattn
