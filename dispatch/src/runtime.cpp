// uattn::Runtime: device probing, lazy per-device code-object loading, kernel
// lookup and launch through the HIP module API. Every HIP error comes back as a
// Status naming the call and the error (hipGetErrorName: hipGetErrorString).
#include "uattn/runtime.hpp"

#include <hip/hip_runtime_api.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

namespace uattn {

static_assert(sizeof(AttnParams) % 8 == 0, "AttnParams is passed as one kernel-argument buffer");

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

struct DeviceState {
  bool probed = false;
  Status probe;             // result of the first probe (kept: the device does not change)
  std::string name;         // hipDeviceProp_t::name
  std::string gcn_arch;     // hipDeviceProp_t::gcnArchName, e.g. "gfx950:sramecc+:xnack-"
  Arch arch = kArchs[0];
  int cus = 0;              // CUs: cus_from_reported(arch, multiProcessorCount)
  bool load_tried = false;
  Status load;              // result of hipModuleLoadData
  hipModule_t module = nullptr;
  std::vector<uint8_t> image;  // the device's code object, when taken from an uncompressed bundle
  std::vector<hipFunction_t> functions;  // per table row index (row - all_rows().data()); null = not fetched yet
};

}  // namespace

struct Runtime::Impl {
  std::vector<uint8_t> bundle;
  std::string path;
  BundleInfo info;
  std::mutex mu;
  std::map<int, DeviceState> devices;

  ~Impl() {
    for (auto& d : devices)
      if (d.second.module) (void)hipModuleUnload(d.second.module);
  }

  std::string bundle_archs() const {
    if (!info.compressed) return join(info.archs);
    return join(table_archs()) + " (per the lookup table built with it; the bundle is compressed)";
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
    std::string why_not;
    const bool in_bundle = info.compressed || pick_code_object(info, d.gcn_arch, &why_not) != nullptr;
    bool in_table = false;
    Arch arch = kArchs[0];
    if (arch_from_name(processor, &arch))
      for (const InstanceRow& r : all_rows()) in_table = in_table || r.arch == arch;
    if (!in_bundle || !in_table) {
      std::ostringstream m;
      m << "uattn: device " << dev << " (" << d.name << ") is " << d.gcn_arch
        << ", which the kernel bundle does not serve: " << path << " has code objects for " << bundle_archs();
      if (!in_bundle && !why_not.empty()) m << " (" << why_not << ")";
      std::string all;
      for (Arch x : kArchs) all += (all.empty() ? "" : ";") + std::string(arch_record(x).name);
      if (arch_from_name(processor, &arch))
        m << "; rebuild uattn with " << to_string(arch) << " in GPU_TARGETS (-DGPU_TARGETS=\"" << all << "\")";
      else
        m << "; uattn serves " << arch_list() << " only";
      return d.probe = Status{kUnsupportedArch, m.str()};
    }
    d.arch = arch;
    // multiProcessorCount counts WGPs on RDNA (gfx10+): the selector takes CUs.
    d.cus = cus_from_reported(arch, prop.multiProcessorCount);
    return d.probe = Status::Ok();
  }

  // hipModuleLoadData once per device. Called with mu held, `dev` current.
  Status ensure_module(DeviceState& d, int dev) {
    if (d.load_tried) return d.load;
    d.load_tried = true;
    // An uncompressed bundle: hand HIP the device's own code object (an ELF);
    // a compressed one: the whole bundle (the HIP runtime decompresses and picks).
    // The entry is copied out: bundle entries need not be aligned for ELF reading.
    const void* image = bundle.data();
    if (!info.compressed) {
      std::string why;
      const BundleEntry* en = pick_code_object(info, d.gcn_arch, &why);
      if (!en) return d.load = Status{kUnsupportedArch, "uattn: " + path + ": " + why};
      const Status ok = check_code_object(bundle.data() + en->offset, en->size, path + " entry '" + en->target + "'");
      if (!ok.ok()) return d.load = ok;
      d.image.assign(bundle.begin() + (ptrdiff_t)en->offset, bundle.begin() + (ptrdiff_t)(en->offset + en->size));
      image = d.image.data();
    }
    const hipError_t e = hipModuleLoadData(&d.module, image);
    if (e == hipSuccess) return d.load = Status::Ok();
    d.module = nullptr;
    const std::string where = "uattn: hipModuleLoadData on device " + std::to_string(dev) + " (" + d.name + ", " +
                              d.gcn_arch + ") failed (" + hip_error(e) + "): the kernel bundle " + path;
    if (e == hipErrorNoBinaryForGpu)
      return d.load = Status{kUnsupportedArch, where + " has code objects for " + bundle_archs()};
    if (e == hipErrorInvalidImage || e == hipErrorInvalidKernelFile)
      return d.load = Status{kBundle, where + " holds a corrupt image (rebuild or reinstall it)"};
    return d.load = hip_failed("hipModuleLoadData(" + path + ") on device " + std::to_string(dev), e);
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
                        "): the kernel bundle " + path + " does not match the lookup table (rebuild both together)"};
    d.functions[i] = *f;
    return Status::Ok();
  }
};

namespace {

bool empty_call(const AttentionArgs& a) { return a.num_seqs == 0 || a.q.shape[0] == 0; }

Status null_out(const char* fn, const char* arg) {
  return Status{kInvalidArgument,
                std::string("uattn: Runtime::") + fn + ": " + arg + " is null; expected a pointer to the result"};
}

// validate() then the options (no device needed for either).
Status validate_call(const AttentionArgs& args, const SelectOptions& opt) {
  Status s = validate(args);
  if (!s.ok()) return s;
  const std::string bad = options_error(opt);
  if (!bad.empty()) return Status{kInvalidArgument, "uattn: " + bad};
  return Status::Ok();
}

Status launch(hipFunction_t f, const KernelLaunch& k, AttnParams* params, void* stream) {
  size_t size = sizeof(AttnParams);
  void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, params, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                    HIP_LAUNCH_PARAM_END};
  const hipError_t e = hipModuleLaunchKernel(f, k.grid.x, k.grid.y, k.grid.z, k.threads, 1, 1, /*sharedMemBytes=*/0,
                                             static_cast<hipStream_t>(stream), nullptr, config);
  if (e == hipSuccess) return Status::Ok();
  std::ostringstream c;
  c << "hipModuleLaunchKernel(" << k.row->name << ", grid " << k.grid.x << "x" << k.grid.y << "x" << k.grid.z
    << ", block " << k.threads << ")";
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
  if (s.ok()) (*out)->impl_->path = used;
  return s;
}

Status Runtime::create_from_buffer(std::unique_ptr<Runtime>* out, std::vector<uint8_t> bundle) {
  if (!out) return null_out("create_from_buffer", "out");
  auto impl = std::make_unique<Impl>();
  Status s = parse_bundle(bundle, &impl->info);
  if (!s.ok()) return Status{kBundle, s.message + " in the buffer given to create_from_buffer"};
  impl->bundle = std::move(bundle);
  impl->path = "<memory>";
  out->reset(new Runtime(std::move(impl)));
  return Status::Ok();
}

const std::string& Runtime::bundle_path() const { return impl_->path; }
const BundleInfo& Runtime::bundle_info() const { return impl_->info; }

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
  *sel = select(describe(args, d->arch, d->cus), opt);
  if (!sel->ok)
    return Status{sel->invalid ? kInvalidArgument : kNoInstance,
                  "uattn: on device " + std::to_string(dev) + " (" + d->gcn_arch + "): " + sel->error};
  return Status::Ok();
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
  hipFunction_t fa = nullptr, fr = nullptr;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    DeviceState* d = nullptr;
    int dev = -1;
    s = impl_->current_device(&d, &dev);
    if (!s.ok()) return s;
    sel = select(describe(args, d->arch, d->cus), opt);
    if (!sel.ok)
      return Status{kNoInstance, "uattn: on device " + std::to_string(dev) + " (" + d->gcn_arch + "): " + sel.error};
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
    s = impl_->ensure_module(*d, dev);
    if (s.ok()) s = impl_->function(*d, sel.attention.row, &fa);
    if (s.ok() && sel.path == Path::k3D) s = impl_->function(*d, sel.reduce.row, &fr);
  }
  if (!s.ok()) return s;
  AttnParams params = make_params(args, sel, workspace);
  s = launch(fa, sel.attention, &params, stream);
  if (s.ok() && sel.path == Path::k3D) s = launch(fr, sel.reduce, &params, stream);
  return s;
}

}  // namespace uattn
