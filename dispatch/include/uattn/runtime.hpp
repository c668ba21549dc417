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

// Environment variable naming bundle files or folders holding them (several
// separated by ':', searched in order).
constexpr const char* kLibraryPathEnv = "UATTN_LIBRARY_PATH";
// The bundle of every architecture of a build (the build tree's).
constexpr const char* kBundleFileName = "uattn_kernels.hipfb";
// The bundle of one architecture, "uattn_kernels-<arch>.hipfb": what the
// per-architecture package arch_package_name(arch) installs into <libdir>/uattn/.
std::string arch_bundle_file_name(const std::string& arch);
// The package serving an architecture: "uattn-<arch>" (docs/packaging.md).
std::string arch_package_name(const std::string& arch);
// The folder the per-architecture packages install their bundles into
// (<package prefix>/<libdir>/uattn, compiled in); "" when unknown.
std::string package_bundle_dir();
// The stamp libuattn itself was built with (table_stamp(): its lookup table's).
const BuildStamp& library_stamp();

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

// Where bundles are looked for, in order (see Runtime::create): `explicit_path`
// alone; else each entry of $UATTN_LIBRARY_PATH; else the default folders.
struct BundleLocation {
  std::string path;
  bool folder = false;  // a folder (holding uattn_kernels*.hipfb), else a file
};
std::vector<BundleLocation> bundle_search_locations(const std::string& explicit_path = "");

// The bundle of every architecture the runtime would read for `explicit_path`
// (a folder location gives <folder>/uattn_kernels.hipfb), in the order tried.
std::vector<std::string> bundle_search_paths(const std::string& explicit_path = "");
// The files tried for a device of architecture `arch` ("gfx950"), in order: per
// location, a file as is; a folder's uattn_kernels.hipfb, then its
// uattn_kernels-<arch>.hipfb.
std::vector<std::string> bundle_search_paths_for_arch(const std::string& arch,
                                                      const std::string& explicit_path = "");

// Reads one bundle file (regular, at most kMaxBundleBytes) and checks it with
// parse_bundle(). kBundle otherwise; *why is the reason the file could not be
// read ("No such file or directory", "is a folder", ...) or "" when it was read
// but is not a bundle.
Status read_bundle_file(const std::string& path, std::vector<uint8_t>* bytes, std::string* why);

// The text of the ".uattn.stamp" section of an AMDGPU code object ("" when it
// has none); kBundle when check_code_object() refuses the image.
Status read_code_object_stamp(const uint8_t* image, uint64_t size, std::string* text);

// Reads the first existing bundle into *bytes and checks it with
// parse_bundle(); *path_used names the file read. Tried in order: per location
// of bundle_search_locations(explicit_path), a file as is; a folder's
// uattn_kernels.hipfb, then its uattn_kernels-<arch>.hipfb for each
// architecture of the table.
// Only regular files of at most kMaxBundleBytes are read (a FIFO or a device
// such as /dev/zero at the path is refused without reading from it).
// kBundle when none can be read (the message names every path tried, why each
// failed, the env var and the per-architecture packages).
Status read_bundle(const std::string& explicit_path, std::vector<uint8_t>* bytes, std::string* path_used);

class Runtime {
 public:
  // Reads the first bundle found (read_bundle): `bundle_path` if given; else
  // $UATTN_LIBRARY_PATH (files or folders, ':'-separated); else
  // <folder of libuattn>/uattn/ and <folder of libuattn>/../lib/uattn/, then
  // <folder of the executable>/../lib/uattn/, then the per-architecture
  // packages' folder (package_bundle_dir()), then the build tree (compiled in).
  // On failure (kBundle) the message names every path tried, the env var and
  // the packages. Without `bundle_path`, a device whose architecture that bundle
  // does not serve gets the first bundle of bundle_search_paths_for_arch() that
  // does (each architecture may come from its own file, e.g. one per installed
  // package); when none does, its first run() fails with kUnsupportedArch naming
  // the device's target id, every path searched and the package to install.
  // Before a device's code object is loaded, the bundle's build stamp (its
  // "<bundle>.stamp" sidecar, else for an uncompressed bundle the code object's
  // ".uattn.stamp" section) is compared with table_stamp(): a different stamp is
  // kBundle naming both; a bundle without a stamp is loaded unchecked.
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
  // on the 3D path, unless the plan fuses it: Selection::fused_reduce) on
  // `stream`. Asynchronous: device-side faults surface on the stream. The fused
  // reduce counts arrivals in a counter buffer the runtime owns per device and
  // stream handle (kFusedCounterWords x 4 = 64 KiB, hipMalloc and
  // hipMemsetAsync on the stream at its first fused call, kept until the
  // Runtime is destroyed; every completed launch leaves it zeroed), so calls on
  // one stream use it in stream order. Calls on hipStreamPerThread, calls on a
  // stream that is capturing a graph, and calls whose allocation HIP refuses
  // take the reduce launch instead, at the plan's segment count (which the
  // fused reduce allows up to kFusedMaxSegments, past auto_segment_cap: correct,
  // the reduce kernel re-reading weights past two per lane). A stream destroyed while a fused launch
  // runs must not be replaced by one with the same handle before it ends; a
  // launch that faults part-way may leave the stream's counters non-zero (the
  // Runtime is then to be recreated, as after any device fault). num_seqs == 0 or num_tokens == 0: success, nothing launched, no
  // device needed. workspace: device memory of workspace_size() bytes, 16-byte
  // aligned (hipMalloc's are; may be null when the size is 0). Errors: kInvalidArgument, kNoDevice, kUnsupportedArch,
  // kNoInstance, kBundle, kHip (names the HIP call and its error). `opt` out of
  // its ranges (options_error(): a path outside ForcePath, num_segments above
  // kMaxSegments or given with path k2D) and problems the selector refuses as outside the contract
  // (Selection::invalid) are kInvalidArgument. A null out-parameter (here and in
  // create, create_from_buffer, plan, workspace_size) is kInvalidArgument.
  // With args.cu_seqlens_q_host / seqused_k_host / block_table_host set, the
  // host copies are checked first (validate_indices(); kInvalidArgument, nothing
  // launched). With args.index_status set (a checked launch), the index-array
  // check kernel runs first on the stream, and run() waits for the stream and
  // returns kInvalidIndex naming the first violation, in which case no
  // attention or reduce workgroup read an index or wrote out (an empty call
  // launches nothing and leaves index_status untouched). The workspace and
  // index_status must not share memory with a tensor (kInvalidArgument).
  Status run(const AttentionArgs& args, void* workspace, size_t workspace_bytes, void* stream,
             const SelectOptions& opt = {});

  // What run() does before launching, without launching: validates, selects for
  // the current device, loads its code object and fetches the kernel(s) run()
  // would launch. Same errors as run(). For warming up before timing-critical calls.
  Status prepare(const AttentionArgs& args, const SelectOptions& opt = {});

  // Workspace bytes run() needs on the current device with `opt` (0 for 2D).
  Status workspace_size(const AttentionArgs& args, size_t* bytes, const SelectOptions& opt = {});

  // The selection run() would make on the current device (for logs and tests),
  // with Selection::why filled (SelectOptions::explain is turned on).
  Status plan(const AttentionArgs& args, Selection* sel, const SelectOptions& opt = {});

  // Where the first bundle came from ("<memory>" for create_from_buffer) and its
  // contents (devices of other architectures may use other files: see create()).
  const std::string& bundle_path() const;
  const BundleInfo& bundle_info() const;

 private:
  struct Impl;
  explicit Runtime(std::unique_ptr<Impl> impl);
  Status plan_validated(const AttentionArgs& args, Selection* sel, const SelectOptions& opt);
  std::unique_ptr<Impl> impl_;
};

}  // namespace uattn
