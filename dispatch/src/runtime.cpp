// uattn::Runtime: device probing, lazy per-device code-object loading, kernel
// lookup and launch through the HIP module API. Every HIP error comes back as a
// Status naming the call and the error (hipGetErrorName: hipGetErrorString).
#include "uattn/runtime.hpp"

// The stamp compiled into libuattn (dispatch/runtime.cmake, from cmake/UattnStamp.cmake).
#if !defined(UATTN_STAMP_UATTN_VERSION) || !defined(UATTN_STAMP_GENERATOR_VERSION) || !defined(UATTN_STAMP_MATRIX_HASH)
#error "UATTN_STAMP_* are defined by dispatch/runtime.cmake"
#endif

#include <hip/hip_runtime_api.h>

#include <errno.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "uattn/generated/device.hpp"  // the check kernel's symbol

namespace uattn {

static_assert(sizeof(AttnParams) % 8 == 0, "AttnParams is passed as one kernel-argument buffer");

// A bundle's stamp file: "" and *text, else why it cannot be read (runtime_bundle.cpp).
std::string read_stamp_file(const std::string& path, std::string* text);

namespace {

std::string hip_error(hipError_t e) {
  return std::string(hipGetErrorName(e)) + ": " + hipGetErrorString(e);
}

Status hip_failed(const std::string& call, hipError_t e) {
  return Status{kHip, "uattn: " + call + " failed (" + hip_error(e) + ")"};
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

// Architectures the lookup table (built with the bundle) has rows for.
std::vector<std::string> table_archs() {
  std::vector<std::string> out;
  for (const InstanceRow& r : all_rows()) {
    const std::string a = to_string(r.arch);
    bool seen = false;
    for (const std::string& x : out) seen = seen || x == a;
    if (!seen) out.push_back(a);
  }
  return out;
}

// One bundle file (or the buffer of create_from_buffer) and its stamp.
struct Source {
  std::string path;
  std::vector<uint8_t> bytes;
  BundleInfo info;
  bool stamp_read = false;
  Status stamp_status;       // kBundle when the sidecar is unreadable or malformed
  bool has_stamp = false;
  BuildStamp stamp;
  std::string stamp_origin;  // "<bundle>.stamp" or "the code object's .uattn.stamp section"
  std::vector<std::string> sidecar_archs;  // "archs" line of the sidecar (empty: none)
  bool has_sidecar = false;
};

// The sidecar "<bundle>.stamp", read once.
void read_sidecar(Source* src) {
  if (src->stamp_read) return;
  src->stamp_read = true;
  if (src->path == "<memory>") return;
  const std::string side = src->path + ".stamp";
  std::string text;
  const std::string unreadable = read_stamp_file(side, &text);
  if (unreadable == std::strerror(ENOENT)) return;  // no sidecar: checked from the code object when uncompressed
  src->has_sidecar = true;
  if (!unreadable.empty()) {
    src->stamp_status = Status{kBundle, "uattn: cannot read the stamp file " + side + " of the kernel bundle (" +
                                            unreadable + ")"};
    return;
  }
  std::string why;
  if (!parse_stamp(text, &src->stamp, &why)) {
    src->stamp_status = Status{kBundle, "uattn: the stamp file " + side + " of the kernel bundle is malformed: " + why +
                                            "; expected the lines written by the uattn build (docs/packaging.md)"};
    return;
  }
  src->has_stamp = true;
  src->stamp_origin = side;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("archs ", 0) == 0) {
      std::istringstream w(line.substr(6));
      std::string a;
      while (w >> a) src->sidecar_archs.push_back(a);
    }
}

// Where served_archs() took a source's architectures from.
enum class ArchBasis { kEntries, kStampFile, kFileName, kTable };

// The architectures a source serves: the entries of an uncompressed bundle;
// for a compressed one its sidecar's "archs" line, else <arch> for a file named
// uattn_kernels-<arch>.hipfb, else (assumed) the table's.
std::vector<std::string> served_archs(Source* src, ArchBasis* basis = nullptr) {
  ArchBasis b = ArchBasis::kEntries;
  std::vector<std::string> archs;
  if (!src->info.compressed) {
    archs = src->info.archs;
  } else {
    read_sidecar(src);
    const std::string file = src->path.substr(src->path.rfind('/') + 1);
    if (!src->sidecar_archs.empty()) {
      b = ArchBasis::kStampFile;
      archs = src->sidecar_archs;
    } else {
      for (const std::string& a : table_archs())
        if (file == arch_bundle_file_name(a)) archs = {a};
      b = archs.empty() ? ArchBasis::kTable : ArchBasis::kFileName;
      if (archs.empty()) archs = table_archs();
    }
  }
  if (basis) *basis = b;
  return archs;
}

// True when `src` serves devices of `processor`: an entry names it, or names an
// architecture record whose offload target it is (the stamp file, the file name
// and the table name records, whose name may differ from their processor).
bool serves(Source* src, const std::string& processor) {
  for (const std::string& a : served_archs(src)) {
    Arch x;
    if (a == processor || (arch_from_name(a, &x) && processor == arch_record(x).offload_target)) return true;
  }
  return false;
}

// What is known of the code objects `src` holds, and what was assumed: the
// rest of a sentence whose subject is the bundle.
std::string archs_of(Source* src) {
  ArchBasis basis;
  const std::string s = join(served_archs(src, &basis));
  switch (basis) {
    case ArchBasis::kEntries: return "has code objects for " + s;
    case ArchBasis::kStampFile: return "has code objects for " + s + " per its stamp file (the bundle is compressed)";
    case ArchBasis::kFileName: return "has code objects for " + s + " per its file name (the bundle is compressed)";
    case ArchBasis::kTable:
      return "is compressed and names none of its architectures (no stamp file, not named "
             "uattn_kernels-<arch>.hipfb), so it was assumed to hold code objects for every architecture of the "
             "lookup table built with it (" + s + ")";
  }
  return s;
}

struct DeviceState {
  bool probed = false;
  Status probe;             // result of the first probe (kept: the device does not change)
  std::string name;         // hipDeviceProp_t::name
  std::string gcn_arch;     // hipDeviceProp_t::gcnArchName, e.g. "gfx950:sramecc+:xnack-"
  Arch arch = kArchs[0];
  int cus = 0;              // CUs: cus_from_reported(arch, multiProcessorCount)
  Source* src = nullptr;    // the bundle serving this device
  bool load_tried = false;
  Status load;              // result of hipModuleLoadData
  hipModule_t module = nullptr;
  std::vector<uint8_t> image;  // the device's code object, when taken from an uncompressed bundle
  std::vector<hipFunction_t> functions;  // per table row index (row - all_rows().data()); null = not fetched yet
  hipFunction_t check = nullptr;         // the index-array check kernel (checked launches); null = not fetched yet
  // The fused reduce's counter buffers (kFusedCounterWords words) by stream.
  std::map<void*, uint32_t*> counters;
};

}  // namespace

struct Runtime::Impl {
  Source primary;               // the bundle create() read (or the buffer)
  bool search = false;          // create() without a path: other architectures may come from other files
  std::map<std::string, std::unique_ptr<Source>> others;  // by path, read on demand
  std::mutex mu;
  std::map<int, DeviceState> devices;

  ~Impl() {
    for (auto& d : devices) {
      if (d.second.module) (void)hipModuleUnload(d.second.module);
      for (auto& c : d.second.counters) (void)hipFree(c.second);
    }
  }

  // The counter buffer of the fused reduce (Selection::fused_reduce) for
  // `stream` on device d: allocated and zeroed on the stream at its first use
  // (hipMalloc, hipMemsetAsync), left zeroed by every fused launch after.
  // nullptr for hipStreamPerThread, for a stream that is capturing a graph, and
  // where HIP refuses the allocation: the call then takes its reduce launch.
  // Called with mu held.
  uint32_t* counters(DeviceState& d, void* stream) {
    // hipStreamPerThread names a different stream in each host thread: one
    // buffer for it would be shared by concurrent launches.
    if (stream == static_cast<void*>(hipStreamPerThread)) return nullptr;
    // A launch captured into a graph would carry the stream's buffer into every
    // replay, on whatever stream, concurrently with others: captured calls take
    // the reduce launch.
    hipStreamCaptureStatus cs = hipStreamCaptureStatusNone;
    if (hipStreamIsCapturing(static_cast<hipStream_t>(stream), &cs) != hipSuccess || cs != hipStreamCaptureStatusNone) {
      (void)hipGetLastError();
      return nullptr;
    }
    const auto it = d.counters.find(stream);
    if (it != d.counters.end()) return it->second;
    void* p = nullptr;
    const size_t bytes = (size_t)kFusedCounterWords * 4u;
    if (hipMalloc(&p, bytes) != hipSuccess) {
      (void)hipGetLastError();
      return nullptr;
    }
    if (hipMemsetAsync(p, 0, bytes, static_cast<hipStream_t>(stream)) != hipSuccess) {
      (void)hipFree(p);
      (void)hipGetLastError();
      return nullptr;
    }
    uint32_t* c = static_cast<uint32_t*>(p);
    d.counters.emplace(stream, c);
    return c;
  }

  // The bundle serving `gcn_arch`: the primary when it does (always, when the
  // path was explicit or a buffer), else the first file of the arch's search
  // order that does. Called with mu held.
  Status source_for(const std::string& dev_desc, const std::string& gcn_arch, Source** out) {
    const std::string processor = gcn_arch.substr(0, gcn_arch.find(':'));
    Arch rec;  // the record of the processor names the per-architecture bundle and package
    const std::string arch = arch_from_name(processor, &rec) ? to_string(rec) : processor;
    std::string why_not;
    auto ok_for = [&](Source* src) {
      if (!serves(src, processor)) return false;
      return src->info.compressed || pick_code_object(src->info, gcn_arch, &why_not) != nullptr;
    };
    if (ok_for(&primary) || !search) {
      *out = &primary;
      if (ok_for(&primary)) return Status::Ok();
      std::ostringstream m;
      m << "uattn: " << dev_desc << " is " << gcn_arch << ", which the kernel bundle does not serve: " << primary.path
        << " " << archs_of(&primary);
      if (!why_not.empty()) m << " (" << why_not << ")";
      return Status{kUnsupportedArch, m.str()};
    }
    std::ostringstream tried;
    for (const std::string& p : bundle_search_paths_for_arch(arch)) {
      Source* src = nullptr;
      if (p == primary.path) {
        src = &primary;
      } else {
        auto it = others.find(p);
        if (it == others.end()) {
          auto fresh = std::make_unique<Source>();
          std::string why;
          const Status s = read_bundle_file(p, &fresh->bytes, &why);
          if (!s.ok()) {
            if (why.empty()) return s;  // present but not a bundle: say so rather than skip it
            tried << "\n  " << p << " (" << why << ")";
            continue;
          }
          fresh->path = p;
          (void)parse_bundle(fresh->bytes, &fresh->info);
          it = others.emplace(p, std::move(fresh)).first;
        }
        src = it->second.get();
      }
      why_not.clear();
      if (ok_for(src)) {
        *out = src;
        return Status::Ok();
      }
      tried << "\n  " << p << " (" << archs_of(src)
            << (why_not.empty() ? "" : "; " + why_not) << ")";
    }
    std::ostringstream m;
    m << "uattn: " << dev_desc << " has target id " << gcn_arch << ", and no kernel bundle found serves "
      << processor << "; searched:" << tried.str() << "\nInstall the package " << arch_package_name(arch)
      << " (it puts " << arch_bundle_file_name(arch) << " in "
      << (package_bundle_dir().empty() ? std::string("<libdir>/uattn") : package_bundle_dir())
      << "), or point $" << kLibraryPathEnv << " at a folder holding it.";
    return Status{kUnsupportedArch, m.str()};
  }

  // The current device, probed once. Called with mu held.
  Status current_device(DeviceState** out, int* device_id) {
    int dev = -1;
    hipError_t e = hipGetDevice(&dev);
    if (e != hipSuccess) {
      int count = 0;
      const hipError_t ec = hipGetDeviceCount(&count);
      if (ec != hipSuccess || count == 0) {
        std::string m = "uattn: no ROCm-capable device is visible (hipGetDeviceCount: " +
                        (ec != hipSuccess ? hip_error(ec) : std::string("0 devices")) + ")";
        const char* vis = std::getenv("HIP_VISIBLE_DEVICES");
        if (vis) m += "; HIP_VISIBLE_DEVICES='" + std::string(vis) + "'";
        return Status{kNoDevice, m};
      }
      return hip_failed("hipGetDevice", e);
    }
    DeviceState& d = devices[dev];
    *device_id = dev;
    *out = &d;
    if (d.probed) return d.probe;
    d.probed = true;
    hipDeviceProp_t prop;
    e = hipGetDeviceProperties(&prop, dev);
    if (e != hipSuccess) return d.probe = hip_failed("hipGetDeviceProperties(device " + std::to_string(dev) + ")", e);
    d.name = prop.name;
    d.gcn_arch = prop.gcnArchName;
    d.cus = prop.multiProcessorCount;
    const std::string processor = d.gcn_arch.substr(0, d.gcn_arch.find(':'));
    const std::string desc = "device " + std::to_string(dev) + " (" + d.name + ")";
    Arch arch = kArchs[0];
    bool in_table = false;
    const bool known = arch_from_name(processor, &arch);
    if (known)
      for (const InstanceRow& r : all_rows()) in_table = in_table || r.arch == arch;
    if (!in_table) {
      std::ostringstream m;
      m << "uattn: " << desc << " is " << d.gcn_arch << ", which this build of uattn does not serve (its lookup table "
        << "has rows for " << join(table_archs()) << ")";
      std::string all;
      for (Arch x : kArchs) all += (all.empty() ? "" : ";") + std::string(arch_record(x).name);
      if (known)
        m << "; rebuild uattn with " << to_string(arch) << " in GPU_TARGETS (-DGPU_TARGETS=\"" << all << "\")";
      else
        m << "; uattn serves " << arch_list() << " only";
      return d.probe = Status{kUnsupportedArch, m.str()};
    }
    const Status s = source_for(desc, d.gcn_arch, &d.src);
    if (!s.ok()) return d.probe = s;
    d.arch = arch;
    // multiProcessorCount counts WGPs on RDNA (gfx10+): the selector takes CUs.
    d.cus = cus_from_reported(arch, prop.multiProcessorCount);
    return d.probe = Status::Ok();
  }

  // The bundle's stamp against the table's, before anything of it is loaded.
  Status check_stamp(Source& src, const std::string& arch_entry_image_stamp) {
    read_sidecar(&src);
    if (!src.stamp_status.ok()) return src.stamp_status;
    BuildStamp st;
    std::string origin;
    if (src.has_stamp) {
      st = src.stamp;
      origin = src.stamp_origin;
    } else if (!arch_entry_image_stamp.empty()) {
      std::string why;
      if (!parse_stamp(arch_entry_image_stamp, &st, &why))
        return Status{kBundle, "uattn: the .uattn.stamp section of the code object in " + src.path +
                                   " is malformed: " + why};
      origin = "the code object's .uattn.stamp section";
    } else {
      return Status::Ok();  // no stamp: built before stamps, or an in-memory compressed bundle
    }
    if (st == table_stamp()) return Status::Ok();
    return Status{kBundle, "uattn: the kernel bundle " + src.path + " comes from another build than the linked " +
                               "lookup table: bundle stamp '" + to_string(st) + "' (" + origin +
                               "), table stamp '" + to_string(table_stamp()) +
                               "'; install the bundle package of the same version and matrix as libuattn, or "
                               "rebuild the table and the bundle together"};
  }

  // hipModuleLoadData once per device. Called with mu held, `dev` current.
  Status ensure_module(DeviceState& d, int dev) {
    if (d.load_tried) return d.load;
    d.load_tried = true;
    Source& src = *d.src;
    // An uncompressed bundle: hand HIP the device's own code object (an ELF);
    // a compressed one: the whole bundle (the HIP runtime decompresses and picks).
    // The entry is copied out: bundle entries need not be aligned for ELF reading.
    const void* image = src.bytes.data();
    std::string co_stamp;
    if (!src.info.compressed) {
      std::string why;
      const BundleEntry* en = pick_code_object(src.info, d.gcn_arch, &why);
      if (!en) return d.load = Status{kUnsupportedArch, "uattn: " + src.path + ": " + why};
      const Status ok =
          check_code_object(src.bytes.data() + en->offset, en->size, src.path + " entry '" + en->target + "'");
      if (!ok.ok()) return d.load = ok;
      d.image.assign(src.bytes.begin() + (ptrdiff_t)en->offset,
                     src.bytes.begin() + (ptrdiff_t)(en->offset + en->size));
      image = d.image.data();
      (void)read_code_object_stamp(d.image.data(), d.image.size(), &co_stamp);
    }
    const Status st = check_stamp(src, co_stamp);
    if (!st.ok()) return d.load = st;
    const hipError_t e = hipModuleLoadData(&d.module, image);
    if (e == hipSuccess) return d.load = Status::Ok();
    d.module = nullptr;
    const std::string where = "uattn: hipModuleLoadData on device " + std::to_string(dev) + " (" + d.name + ", " +
                              d.gcn_arch + ") failed (" + hip_error(e) + "): the kernel bundle " + src.path;
    if (e == hipErrorNoBinaryForGpu)
      return d.load = Status{kUnsupportedArch, where + " holds no code object for " +
                                                   d.gcn_arch.substr(0, d.gcn_arch.find(':')) + "; it " +
                                                   archs_of(&src)};
    if (e == hipErrorInvalidImage || e == hipErrorInvalidKernelFile)
      return d.load = Status{kBundle, where + " holds a corrupt image (rebuild or reinstall it)"};
    return d.load = hip_failed("hipModuleLoadData(" + src.path + ") on device " + std::to_string(dev), e);
  }

  // hipModuleGetFunction once per device and table row (cached by row index:
  // no name lookup per call). Called with mu held.
  Status function(DeviceState& d, const InstanceRow* row, hipFunction_t* f) {
    const size_t i = (size_t)(row - all_rows().data());
    if (d.functions.empty()) d.functions.assign(all_rows().size(), nullptr);
    if (d.functions[i]) { *f = d.functions[i]; return Status::Ok(); }
    const hipError_t e = hipModuleGetFunction(f, d.module, row->name);
    if (e != hipSuccess)
      return Status{e == hipErrorNotFound ? kBundle : kHip,
                    "uattn: hipModuleGetFunction(" + std::string(row->name) + ") failed (" + hip_error(e) +
                        "): the kernel bundle " + d.src->path + " does not match the lookup table (rebuild both together)"};
    d.functions[i] = *f;
    return Status::Ok();
  }

  // The architecture's index-array check kernel (its record's check_kernel),
  // fetched once per device. Called with mu held.
  Status check_function(DeviceState& d, hipFunction_t* f) {
    if (d.check) { *f = d.check; return Status::Ok(); }
    const std::string name = arch_device_record(d.arch).check_kernel;
    const hipError_t e = hipModuleGetFunction(f, d.module, name.c_str());
    if (e != hipSuccess)
      return Status{e == hipErrorNotFound ? kBundle : kHip,
                    "uattn: hipModuleGetFunction(" + name + ") failed (" + hip_error(e) + "): the kernel bundle " +
                        d.src->path + " has no index-array check kernel (rebuild it; needed by checked launches)"};
    d.check = *f;
    return Status::Ok();
  }
};

namespace {

bool empty_call(const AttentionArgs& a) { return a.num_seqs == 0 || a.q.shape[0] == 0; }

// The selection for `args` on device `dev`, reported the one way plan(),
// prepare() and run() share: a problem or options outside the contract
// (Selection::invalid) is kInvalidArgument, a problem no instance serves
// kNoInstance; both name the device.
Status select_for(const AttentionArgs& args, const SelectOptions& opt, const DeviceState& d, int dev,
                  Selection* sel) {
  *sel = select(describe(args, d.arch, d.cus), opt);
  if (sel->ok) return Status::Ok();
  return Status{sel->invalid ? kInvalidArgument : kNoInstance,
                "uattn: on device " + std::to_string(dev) + " (" + d.gcn_arch + "): " + sel->error};
}

Status null_out(const char* fn, const char* arg) {
  return Status{kInvalidArgument,
                std::string("uattn: Runtime::") + fn + ": " + arg + " is null; expected a pointer to the result"};
}

// validate(), the options, then the host copies of the index arrays when
// given and the checked-launch status buffer (no device needed for any).
Status validate_call(const AttentionArgs& args, const SelectOptions& opt) {
  Status s = validate(args);
  if (!s.ok()) return s;
  const std::string bad = options_error(opt);
  if (!bad.empty()) return Status{kInvalidArgument, "uattn: " + bad};
  const int copies = (args.cu_seqlens_q_host != nullptr) + (args.seqused_k_host != nullptr) +
                     (args.block_table_host != nullptr);
  if (copies != 0 && copies != 3)
    return Status{kInvalidArgument, std::string("uattn: host copies of the index arrays: cu_seqlens_q_host ") +
                                        (args.cu_seqlens_q_host ? "set" : "null") + ", seqused_k_host " +
                                        (args.seqused_k_host ? "set" : "null") + ", block_table_host " +
                                        (args.block_table_host ? "set" : "null") + "; expected all three or none"};
  if (copies == 3) {
    s = validate_indices(args);
    if (!s.ok()) return s;
  }
  if (reinterpret_cast<uintptr_t>(args.index_status) % 4 != 0)
    return Status{kInvalidArgument, "uattn: index_status is not 4-byte aligned; expected device memory of "
                                    "kIndexStatusBytes from hipMalloc"};
  return Status::Ok();
}

// Bytes spanned by t ([lo, hi), empty when it has no elements); validate() holds.
std::pair<uintptr_t, uintptr_t> span_of(const TensorDesc& t) {
  int64_t n = 1, last = 0;
  for (int i = 0; i < t.rank; ++i) { n *= t.shape[i]; last += (t.shape[i] - 1) * t.stride[i]; }
  if (!t.data || n == 0) return {0, 0};
  const uintptr_t lo = reinterpret_cast<uintptr_t>(t.data);
  return {lo, lo + (uintptr_t)((last + 1) * (t.dtype == DType::fp8e4m3 ? 1 : 2))};
}

// The workspace and the status buffer are written by the kernels: neither may
// share memory with a tensor, nor with each other.
Status check_scratch_overlap(const AttentionArgs& a, const void* ws, size_t ws_bytes) {
  const uintptr_t w = reinterpret_cast<uintptr_t>(ws), st = reinterpret_cast<uintptr_t>(a.index_status);
  const struct { const char* name; std::pair<uintptr_t, uintptr_t> r; } ts[] = {
      {"q", span_of(a.q)}, {"k_cache", span_of(a.k_cache)}, {"v_cache", span_of(a.v_cache)},
      {"out", span_of(a.out)}, {"workspace", {w, ws ? w + ws_bytes : w}}};
  const struct { const char* name; uintptr_t lo, hi; } scratch[] = {
      {"workspace", w, ws ? w + ws_bytes : w}, {"index_status", st, st ? st + kIndexStatusBytes : st}};
  for (const auto& sc : scratch) {
    if (sc.lo == sc.hi) continue;
    for (const auto& t : ts) {
      if (t.r.first == t.r.second || std::string(t.name) == sc.name) continue;
      if (sc.lo < t.r.second && t.r.first < sc.hi)
        return Status{kInvalidArgument, std::string("uattn: ") + sc.name + " overlaps " + t.name +
                                            "; expected memory of its own (the kernels write it)"};
    }
  }
  return Status::Ok();
}

Status launch(hipFunction_t f, const KernelLaunch& k, AttnParams* params, void* stream, const char* name = nullptr) {
  size_t size = sizeof(AttnParams);
  void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, params, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                    HIP_LAUNCH_PARAM_END};
  const hipError_t e = hipModuleLaunchKernel(f, k.grid.x, k.grid.y, k.grid.z, k.threads, 1, 1, /*sharedMemBytes=*/0,
                                             static_cast<hipStream_t>(stream), nullptr, config);
  if (e == hipSuccess) return Status::Ok();
  std::ostringstream c;
  c << "hipModuleLaunchKernel(" << (name ? name : k.row->name) << ", grid " << k.grid.x << "x" << k.grid.y << "x"
    << k.grid.z << ", block " << k.threads << ")";
  return hip_failed(c.str(), e);
}

}  // namespace

Runtime::Runtime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Runtime::~Runtime() = default;

Status Runtime::create(std::unique_ptr<Runtime>* out, const std::string& bundle_path) {
  if (!out) return null_out("create", "out");
  std::vector<uint8_t> bytes;
  std::string used;
  Status s = read_bundle(bundle_path, &bytes, &used);
  if (!s.ok()) return s;
  s = create_from_buffer(out, std::move(bytes));
  if (s.ok()) {
    (*out)->impl_->primary.path = used;
    (*out)->impl_->search = bundle_path.empty();
  }
  return s;
}

Status Runtime::create_from_buffer(std::unique_ptr<Runtime>* out, std::vector<uint8_t> bundle) {
  if (!out) return null_out("create_from_buffer", "out");
  auto impl = std::make_unique<Impl>();
  Status s = parse_bundle(bundle, &impl->primary.info);
  if (!s.ok()) return Status{kBundle, s.message + " in the buffer given to create_from_buffer"};
  impl->primary.bytes = std::move(bundle);
  impl->primary.path = "<memory>";
  out->reset(new Runtime(std::move(impl)));
  return Status::Ok();
}

const std::string& Runtime::bundle_path() const { return impl_->primary.path; }
const BundleInfo& Runtime::bundle_info() const { return impl_->primary.info; }

const BuildStamp& library_stamp() {
  static const BuildStamp s{UATTN_STAMP_UATTN_VERSION, UATTN_STAMP_GENERATOR_VERSION, UATTN_STAMP_MATRIX_HASH};
  return s;
}

Status Runtime::plan(const AttentionArgs& args, Selection* sel, const SelectOptions& opt) {
  if (!sel) return null_out("plan", "sel");
  const Status s = validate_call(args, opt);
  if (!s.ok()) return s;
  SelectOptions explained = opt;
  explained.explain = true;
  return plan_validated(args, sel, explained);
}

// plan() for arguments validate() already accepted.
Status Runtime::plan_validated(const AttentionArgs& args, Selection* sel, const SelectOptions& opt) {
  Status s;
  DeviceState* d = nullptr;
  int dev = -1;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    s = impl_->current_device(&d, &dev);
  }
  if (!s.ok()) return s;
  return select_for(args, opt, *d, dev, sel);
}

Status Runtime::prepare(const AttentionArgs& args, const SelectOptions& opt) {
  Status s = validate_call(args, opt);
  if (!s.ok() || empty_call(args)) return s;
  std::lock_guard<std::mutex> lock(impl_->mu);
  DeviceState* d = nullptr;
  int dev = -1;
  s = impl_->current_device(&d, &dev);
  if (!s.ok()) return s;
  Selection sel;
  s = select_for(args, opt, *d, dev, &sel);
  if (!s.ok()) return s;
  s = impl_->ensure_module(*d, dev);
  hipFunction_t f = nullptr;
  if (s.ok()) s = impl_->function(*d, sel.attention.row, &f);
  if (s.ok() && sel.path == Path::k3D) s = impl_->function(*d, sel.reduce.row, &f);
  return s;
}

Status Runtime::workspace_size(const AttentionArgs& args, size_t* bytes, const SelectOptions& opt) {
  if (!bytes) return null_out("workspace_size", "bytes");
  *bytes = 0;
  Status s = validate_call(args, opt);
  if (!s.ok() || empty_call(args)) return s;
  Selection sel;
  s = plan_validated(args, &sel, opt);
  if (s.ok()) *bytes = (size_t)sel.workspace_bytes;
  return s;
}

Status Runtime::run(const AttentionArgs& args, void* workspace, size_t workspace_bytes, void* stream,
                    const SelectOptions& opt) {
  Status s = validate_call(args, opt);
  if (!s.ok() || empty_call(args)) return s;
  // One lock per call: the device state, the selection (pure, cheap) and the
  // cached kernel handles are all taken under it.
  Selection sel;
  hipFunction_t fa = nullptr, fr = nullptr, fc = nullptr;
  uint32_t* counters = nullptr;  // the fused reduce's (null: the reduce launch)
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    DeviceState* d = nullptr;
    int dev = -1;
    s = impl_->current_device(&d, &dev);
    if (!s.ok()) return s;
    s = select_for(args, opt, *d, dev, &sel);
    if (!s.ok()) return s;
    if (sel.path == Path::k3D) {
      if (!workspace || workspace_bytes < sel.workspace_bytes) {
        std::ostringstream m;
        m << "uattn: workspace_bytes = " << workspace_bytes << (workspace ? "" : " (workspace null)") << " < "
          << sel.workspace_bytes << " needed by the 3D path (" << sel.num_segments << " segments, "
          << sel.attention.row->name << "); allocate Runtime::workspace_size() bytes";
        return Status{kInvalidArgument, m.str()};
      }
      if (reinterpret_cast<uintptr_t>(workspace) % 16 != 0)
        return Status{kInvalidArgument, "uattn: workspace is not 16-byte aligned; expected device memory from hipMalloc"};
    }
    s = check_scratch_overlap(args, sel.path == Path::k3D ? workspace : nullptr, workspace_bytes);
    if (s.ok()) s = impl_->ensure_module(*d, dev);
    if (s.ok()) s = impl_->function(*d, sel.attention.row, &fa);
    if (s.ok() && sel.fused_reduce) counters = impl_->counters(*d, stream);
    if (s.ok() && sel.path == Path::k3D && !counters) s = impl_->function(*d, sel.reduce.row, &fr);
    if (s.ok() && args.index_status) s = impl_->check_function(*d, &fc);
  }
  if (!s.ok()) return s;
  AttnParams params = make_params(args, sel, workspace);
  params.ws_count = counters;
  if (params.status) {
    KernelLaunch ck;  // one wave (check.hpp)
    ck.row = sel.attention.row;
    ck.grid = {1, 1, 1};
    ck.threads = (uint32_t)arch_record(sel.attention.row->arch).wave_size;
    s = launch(fc, ck, &params, stream, arch_device_record(sel.attention.row->arch).check_kernel);
    if (!s.ok()) return s;
  }
  s = launch(fa, sel.attention, &params, stream);
  if (s.ok() && sel.path == Path::k3D && !counters) s = launch(fr, sel.reduce, &params, stream);
  if (!s.ok() || !params.status) return s;
  // Checked launch: read the status words back once the stream has run the kernels.
  uint32_t st[4] = {0, 0, 0, 0};
  hipError_t e = hipMemcpyAsync(st, params.status, sizeof st, hipMemcpyDeviceToHost, static_cast<hipStream_t>(stream));
  if (e != hipSuccess) return hip_failed("hipMemcpyAsync(index_status -> host)", e);
  e = hipStreamSynchronize(static_cast<hipStream_t>(stream));
  if (e != hipSuccess) return hip_failed("hipStreamSynchronize (reading index_status back)", e);
  const std::string bad = index_violation_message(args, st);
  if (!bad.empty())
    return Status{kInvalidIndex, bad + " (found by the checked launch's device check; nothing was written to out)"};
  return Status::Ok();
}

}  // namespace uattn
