// The HIP runtime API subset of the CPU-backed device (hipcpu.hpp). Each
// function follows the behaviour documented in HIP's hip_runtime_api.h (HIP 6.4)
// and the HIP programming guide; the citations are in docs/testing.md.
#include <hip/hip_runtime_api.h>

#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "uattn/generated/device.hpp"  // the architecture records
#include "uattn/generated/select.hpp"
#include "uattn/emu/code_object.hpp"
#include "uattn/emu/emu.hpp"  // tools/emu
#include "engine.hpp"         // tests/hostexec
#include "host_registry.hpp"  // tests/exec
#include "hipcpu.hpp"

using namespace uattn::hipcpu;
using namespace uattn::codeobj;

namespace {

// Appends (name, value) to *out when `value` is a pointer (a kernel field of AttnParams).
template <class T>
void add_pointer(std::vector<std::pair<const char*, const void*>>* out, const char* name, T value) {
  if constexpr (std::is_pointer_v<T>) out->emplace_back(name, (const void*)value);
}

// Which executor runs a launched kernel: its host-compiled twin, or the code
// object's own instructions in the emulator (hipcpu.hpp, set_engine).
std::atomic<int> g_engine{[] {
  const char* e = std::getenv("UATTN_HIPCPU_ENGINE");
  return e && std::string(e) == "isa" ? 1 : 0;
}()};
bool isa_engine() { return g_engine.load() == 1; }

// ---------------------------------------------------------------- devices --
struct Device {
  DeviceConfig cfg;
  TargetId target;
  uattn::Arch arch{};             // the record of target.processor
  int wave_size = 0;              // the record's wave_size
  uint32_t lds_per_workgroup = 0;  // the record's lds_budget
};

std::mutex g_mu;  // devices, streams, allocations, modules
std::vector<Device> g_devices;
bool g_devices_set = false;
std::mutex g_exec_mu;  // one kernel at a time on the CPU engine (engine.hpp: "run one launch at a time")
uattn::hipcpu::IsaHook g_isa_hook;  // guarded by g_exec_mu (set_isa_hook)
std::vector<LaunchRecord> g_launches;
std::string g_fault;
thread_local int t_device = 0;
thread_local hipError_t t_last_error = hipSuccess;

// The architecture record of the device's processor: the record whose offload
// target it is (what a real device reports in gcnArchName). Throws
// std::invalid_argument naming the entry when no record has it.
uattn::Arch record_of(const DeviceConfig& c, const TargetId& t) {
  std::string known;
  for (uattn::Arch a : uattn::kArchs) {
    if (t.processor == uattn::arch_record(a).offload_target) return a;
    known += (known.empty() ? "" : ", ") + std::string(uattn::arch_record(a).offload_target);
  }
  throw std::invalid_argument("uattn::hipcpu: device '" + c.gcn_arch_name + "': processor '" + t.processor +
                              "' has no architecture record, expected one of " + known);
}

// Every fact of the device comes from its architecture record (uattn/generated/
// arch.hpp, device.hpp, select.hpp: generator/uattn_gen/model.py ArchInfo).
Device make_device(DeviceConfig c) {
  Device d;
  d.target = parse_target_id(c.gcn_arch_name);
  d.arch = record_of(c, d.target);
  const uattn::ArchDeviceRecord& r = uattn::arch_device_record(d.arch);
  // What HIP reports in multiProcessorCount: CUs on CDNA, WGPs (2 CUs each) on RDNA
  // gfx10+ (uattn::cus_from_reported()).
  if (c.compute_units == 0) c.compute_units = r.reported_units;
  if (c.name.empty()) c.name = std::string(r.product) + " (CPU-backed)";
  d.wave_size = uattn::arch_record(d.arch).wave_size;
  d.lds_per_workgroup = uattn::arch_record(d.arch).lds_budget;
  d.cfg = c;
  return d;
}

// Without $UATTN_HIPCPU_DEVICES: one device per architecture record, as HIP
// reports the record's reference part.
std::vector<DeviceConfig> default_devices() {
  std::vector<DeviceConfig> out;
  for (uattn::Arch a : uattn::kArchs) out.push_back(DeviceConfig{uattn::arch_device_record(a).gcn_arch_name, 0, ""});
  return out;
}

std::vector<DeviceConfig> parse_env_devices() {
  const char* env = std::getenv("UATTN_HIPCPU_DEVICES");
  if (!env || !*env) return default_devices();
  std::vector<DeviceConfig> out;
  std::stringstream in(env);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    DeviceConfig c;
    const size_t at = item.find('@');
    c.gcn_arch_name = item.substr(0, at);
    if (at != std::string::npos) c.compute_units = std::atoi(item.c_str() + at + 1);
    out.push_back(c);
  }
  return out;
}

// Called with g_mu held.
void ensure_devices() {
  if (g_devices_set) return;
  try {
    for (const DeviceConfig& c : parse_env_devices()) g_devices.push_back(make_device(c));
  } catch (const std::invalid_argument& e) {  // a bad $UATTN_HIPCPU_DEVICES: no API call can report it
    std::fprintf(stderr, "%s (from $UATTN_HIPCPU_DEVICES)\n", e.what());
    std::abort();
  }
  g_devices_set = true;
}

hipError_t ret(hipError_t e) {
  if (e != hipSuccess) t_last_error = e;
  return e;
}

void set_fault(const std::string& m) {
  std::lock_guard<std::mutex> l(g_mu);
  g_fault = m;
}

// ---------------------------------------------------------------- memory ---
struct Allocation { size_t bytes; int device; };
std::map<uintptr_t, Allocation> g_allocs;  // base -> allocation

bool in_allocation(const void* p, size_t bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = g_allocs.upper_bound(a);
  if (it == g_allocs.begin()) return false;
  --it;
  return a >= it->first && a + bytes <= it->first + std::max<size_t>(it->second.bytes, 1);
}

// ---------------------------------------------------------------- streams --
struct Marker {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::chrono::steady_clock::time_point when;
  void finish() {
    std::lock_guard<std::mutex> l(mu);
    when = std::chrono::steady_clock::now();
    done = true;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return done; });
  }
  bool is_done() {
    std::lock_guard<std::mutex> l(mu);
    return done;
  }
};
using MarkerP = std::shared_ptr<Marker>;

}  // namespace

struct ihipStream_t {
  int device = 0;
  unsigned flags = 0;
  bool is_null = false;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool stop = false;
  MarkerP tail;                          // the last operation enqueued (g_mu held to read/write)
  std::atomic<hipError_t> sticky{hipSuccess};  // first asynchronous fault
  std::thread worker;

  ihipStream_t(int dev, unsigned f, bool null) : device(dev), flags(f), is_null(null) {
    worker = std::thread([this] { run(); });
  }
  ~ihipStream_t() {
    {
      std::lock_guard<std::mutex> l(mu);
      stop = true;
    }
    cv.notify_all();
    worker.join();
  }
  void run() {
    for (;;) {
      std::function<void()> f;
      {
        std::unique_lock<std::mutex> l(mu);
        cv.wait(l, [&] { return stop || !queue.empty(); });
        if (queue.empty()) return;
        f = std::move(queue.front());
        queue.pop_front();
      }
      f();
    }
  }
};

struct ihipEvent_t {
  unsigned flags = 0;
  MarkerP marker;  // the latest record; null until recorded
};

struct ihipModuleSymbol_t;
struct ihipModule_t {
  int device = 0;
  CodeObject co;
  std::vector<uint8_t> elf;
  std::shared_ptr<uattn::emu::CodeObject> isa;  // the emulator's view of `elf` (ISA engine), made on first launch
  std::map<std::string, std::unique_ptr<ihipModuleSymbol_t>> functions;
};
struct ihipModuleSymbol_t {
  ihipModule_t* module = nullptr;
  const KernelInfo* info = nullptr;
  uattn::exec::HostKernelFn fn = nullptr;
};

namespace {

std::set<ihipStream_t*> g_streams;              // user streams
std::map<int, std::unique_ptr<ihipStream_t>> g_null_streams;
std::set<ihipEvent_t*> g_events;
std::set<ihipModule_t*> g_modules;

// g_mu held.
ihipStream_t* null_stream(int dev) {
  auto& s = g_null_streams[dev];
  if (!s) s.reset(new ihipStream_t(dev, hipStreamDefault, true));
  return s.get();
}

// g_mu held. The stream a call on `s` means (nullptr: the current device's
// null stream), or nullptr when `s` is not a live stream.
ihipStream_t* resolve(hipStream_t s) {
  if (!s) return null_stream(t_device);
  if (g_streams.count(s)) return s;
  for (auto& [d, n] : g_null_streams)
    if (n.get() == s) return s;
  return nullptr;
}

// Enqueues `work` on `s` with HIP's ordering: FIFO within a stream; the null
// stream waits for all earlier work of the blocking streams of its device and
// they wait for earlier null-stream work (HIP programming guide, "Stream
// synchronization": the legacy default stream); hipStreamNonBlocking streams
// do not synchronise with the null stream. Returns the operation's marker.
// g_mu held.
MarkerP enqueue(ihipStream_t* s, std::function<void()> work, std::vector<MarkerP> extra_deps = {},
                bool sync_with_null = true) {
  std::vector<MarkerP> deps = std::move(extra_deps);
  if (s->tail) deps.push_back(s->tail);
  if (!sync_with_null) {
  } else if (s->is_null) {
    for (ihipStream_t* o : g_streams)
      if (o->device == s->device && !(o->flags & hipStreamNonBlocking) && o->tail) deps.push_back(o->tail);
  } else if (!(s->flags & hipStreamNonBlocking)) {
    ihipStream_t* n = null_stream(s->device);
    if (n->tail) deps.push_back(n->tail);
  }
  MarkerP m = std::make_shared<Marker>();
  s->tail = m;
  {
    std::lock_guard<std::mutex> l(s->mu);
    s->queue.push_back([deps, m, work = std::move(work)] {
      for (const MarkerP& d : deps) d->wait();
      work();
      m->finish();
    });
  }
  s->cv.notify_all();
  return m;
}

// g_mu held: the markers to wait for to drain `dev` (every stream of it).
std::vector<MarkerP> device_tails(int dev) {
  std::vector<MarkerP> out;
  for (ihipStream_t* o : g_streams)
    if (o->device == dev && o->tail) out.push_back(o->tail);
  auto it = g_null_streams.find(dev);
  if (it != g_null_streams.end() && it->second->tail) out.push_back(it->second->tail);
  return out;
}

hipError_t device_sticky(int dev) {
  std::lock_guard<std::mutex> l(g_mu);
  for (ihipStream_t* o : g_streams)
    if (o->device == dev && o->sticky != hipSuccess) return o->sticky;
  auto it = g_null_streams.find(dev);
  if (it != g_null_streams.end() && it->second->sticky != hipSuccess) return it->second->sticky;
  return hipSuccess;
}

void wait_all(const std::vector<MarkerP>& ms) {
  for (const MarkerP& m : ms) m->wait();
}

}  // namespace

// ====================================================================== API ==
extern "C" {

const char* hipGetErrorName(hipError_t e) {
  switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorInvalidImage: return "hipErrorInvalidImage";
    case hipErrorInvalidHandle: return "hipErrorInvalidHandle";
    case hipErrorNotFound: return "hipErrorNotFound";
    case hipErrorNotReady: return "hipErrorNotReady";
    case hipErrorNoBinaryForGpu: return "hipErrorNoBinaryForGpu";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    case hipErrorIllegalAddress: return "hipErrorIllegalAddress";
    case hipErrorInvalidConfiguration: return "hipErrorInvalidConfiguration";
    case hipErrorInvalidDeviceFunction: return "hipErrorInvalidDeviceFunction";
    default: return "hipErrorUnknown";
  }
}

const char* hipGetErrorString(hipError_t e) {
  switch (e) {
    case hipSuccess: return "no error";
    case hipErrorInvalidValue: return "invalid argument";
    case hipErrorOutOfMemory: return "out of memory";
    case hipErrorNoDevice: return "no ROCm-capable device is detected";
    case hipErrorInvalidDevice: return "invalid device ordinal";
    case hipErrorInvalidImage: return "device kernel image is invalid";
    case hipErrorInvalidHandle: return "invalid resource handle";
    case hipErrorNotFound: return "named symbol not found";
    case hipErrorNotReady: return "device not ready";
    case hipErrorNoBinaryForGpu: return "no kernel image is available for execution on the device";
    case hipErrorNotSupported: return "operation not supported";
    case hipErrorLaunchFailure: return "unspecified launch failure";
    case hipErrorIllegalAddress: return "an illegal memory access was encountered";
    case hipErrorInvalidConfiguration: return "invalid configuration argument";
    default: return "unknown error";
  }
}

hipError_t hipGetLastError(void) {
  const hipError_t e = t_last_error;
  t_last_error = hipSuccess;
  return e;
}
hipError_t hipPeekAtLastError(void) { return t_last_error; }

hipError_t hipGetDeviceCount(int* count) {
  if (!count) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> l(g_mu);
  ensure_devices();
  *count = (int)g_devices.size();
  return ret(g_devices.empty() ? hipErrorNoDevice : hipSuccess);
}

hipError_t hipGetDevice(int* dev) {
  if (!dev) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> l(g_mu);
  ensure_devices();
  if (g_devices.empty()) return ret(hipErrorNoDevice);
  *dev = t_device;
  return hipSuccess;
}

hipError_t hipSetDevice(int dev) {
  std::lock_guard<std::mutex> l(g_mu);
  ensure_devices();
  if (dev < 0 || dev >= (int)g_devices.size()) return ret(hipErrorInvalidDevice);
  t_device = dev;
  return hipSuccess;
}

hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_t* prop, int dev) {
  if (!prop) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> l(g_mu);
  ensure_devices();
  if (dev < 0 || dev >= (int)g_devices.size()) return ret(hipErrorInvalidDevice);
  const Device& d = g_devices[dev];
  memset(prop, 0, sizeof *prop);
  strncpy(prop->name, d.cfg.name.c_str(), sizeof prop->name - 1);
  strncpy(prop->gcnArchName, d.cfg.gcn_arch_name.c_str(), sizeof prop->gcnArchName - 1);
  prop->multiProcessorCount = d.cfg.compute_units;
  prop->warpSize = d.wave_size;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = prop->maxThreadsDim[2] = 1024;
  prop->maxGridSize[0] = prop->maxGridSize[1] = prop->maxGridSize[2] = 0x7fffffff;
  prop->sharedMemPerBlock = d.lds_per_workgroup;
  prop->totalGlobalMem = size_t(16) << 30;
  const uattn::ArchDeviceRecord& r = uattn::arch_device_record(d.arch);
  const int cus_per_unit = uattn::kArchSelectRecords[(int)d.arch].cus_per_reported_unit;
  prop->major = r.gfx_major;
  prop->minor = r.gfx_minor;
  // Per multiprocessor as HIP counts them (a CU; a WGP of cus_per_unit CUs on RDNA):
  // its LDS, and wave slots per SIMD x SIMDs x lanes.
  prop->maxSharedMemoryPerMultiProcessor = r.lds_per_cu;
  prop->maxThreadsPerMultiProcessor = r.max_waves_per_simd * r.simds_per_cu * cus_per_unit * d.wave_size;
  return hipSuccess;
}

hipError_t hipDeviceSynchronize(void) {
  std::vector<MarkerP> ms;
  int dev;
  {
    std::lock_guard<std::mutex> l(g_mu);
    dev = t_device;
    ms = device_tails(dev);
  }
  wait_all(ms);
  return ret(device_sticky(dev));
}

// ---- memory: host memory between guard pages (tests/hostexec), so a kernel
// reading past a buffer stops with the buffer's name.
hipError_t hipMalloc(void** p, size_t bytes) {
  if (!p) return ret(hipErrorInvalidValue);
  if (bytes == 0) { *p = nullptr; return hipSuccess; }  // HIP: size 0 returns hipSuccess and nullptr
  int dev;
  {
    std::lock_guard<std::mutex> l(g_mu);
    ensure_devices();
    if (g_devices.empty()) return ret(hipErrorNoDevice);
    dev = t_device;
  }
  char name[64];
  snprintf(name, sizeof name, "hipMalloc(%zu) on device %d", bytes, dev);
  void* m = uattn::hostexec::guarded_alloc(bytes, name);
  if (!m) return ret(hipErrorOutOfMemory);
  memset(m, 0xFF, bytes);  // hipMalloc memory is uninitialised: poison it (NaN in every float format)
  std::lock_guard<std::mutex> l(g_mu);
  g_allocs[reinterpret_cast<uintptr_t>(m)] = Allocation{bytes, dev};
  *p = m;
  return hipSuccess;
}

hipError_t hipFree(void* p) {
  if (!p) return hipSuccess;
  // hipFree synchronises the device before releasing (HIP API reference, hipFree).
  hipError_t e = hipDeviceSynchronize();
  (void)e;
  {
    std::lock_guard<std::mutex> l(g_mu);
    auto it = g_allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == g_allocs.end()) return ret(hipErrorInvalidValue);
    g_allocs.erase(it);
  }
  uattn::hostexec::guarded_free(p);
  return hipSuccess;
}

static hipError_t check_copy(void* dst, const void* src, size_t bytes, hipMemcpyKind kind) {
  const bool dd = in_allocation(dst, bytes), sd = in_allocation(src, bytes);
  switch (kind) {
    case hipMemcpyHostToDevice: return dd ? hipSuccess : hipErrorInvalidValue;
    case hipMemcpyDeviceToHost: return sd ? hipSuccess : hipErrorInvalidValue;
    case hipMemcpyDeviceToDevice: return dd && sd ? hipSuccess : hipErrorInvalidValue;
    case hipMemcpyHostToHost: case hipMemcpyDefault: return hipSuccess;
    default: return hipErrorInvalidValue;
  }
}

hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, hipMemcpyKind kind, hipStream_t stream) {
  if (bytes == 0) return hipSuccess;
  if (!dst || !src) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> l(g_mu);
  if (hipError_t e = check_copy(dst, src, bytes, kind)) return ret(e);
  ihipStream_t* s = resolve(stream);
  if (!s) return ret(hipErrorInvalidHandle);
  enqueue(s, [=] { memcpy(dst, src, bytes); });
  return hipSuccess;
}

hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, hipMemcpyKind kind) {
  // Synchronous: ordered on the null stream, returns when done.
  if (bytes == 0) return hipSuccess;
  if (!dst || !src) return ret(hipErrorInvalidValue);
  MarkerP m;
  int dev;
  {
    std::lock_guard<std::mutex> l(g_mu);
    if (hipError_t e = check_copy(dst, src, bytes, kind)) return ret(e);
    dev = t_device;
    m = enqueue(null_stream(dev), [=] { memcpy(dst, src, bytes); });
  }
  m->wait();
  return ret(device_sticky(dev));
}

hipError_t hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t stream) {
  if (bytes == 0) return hipSuccess;
  std::lock_guard<std::mutex> l(g_mu);
  if (!in_allocation(dst, bytes)) return ret(hipErrorInvalidValue);
  ihipStream_t* s = resolve(stream);
  if (!s) return ret(hipErrorInvalidHandle);
  enqueue(s, [=] { memset(dst, value, bytes); });
  return hipSuccess;
}

hipError_t hipMemset(void* dst, int value, size_t bytes) {
  hipError_t e = hipMemsetAsync(dst, value, bytes, nullptr);
  if (e != hipSuccess) return e;
  std::vector<MarkerP> ms;
  int dev;
  {
    std::lock_guard<std::mutex> l(g_mu);
    dev = t_device;
    ms.push_back(null_stream(dev)->tail);
  }
  wait_all(ms);
  return ret(device_sticky(dev));
}

// ---- streams and events
hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned int flags) {
  if (!s || (flags & ~unsigned(hipStreamNonBlocking))) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> l(g_mu);
  ensure_devices();
  ihipStream_t* st = new ihipStream_t(t_device, flags, false);
  g_streams.insert(st);
  *s = st;
  return hipSuccess;
}
hipError_t hipStreamCreate(hipStream_t* s) { return hipStreamCreateWithFlags(s, hipStreamDefault); }

hipError_t hipStreamSynchronize(hipStream_t stream) {
  // The null stream: waits for the other streams of the device too (HIP API
  // reference, hipStreamSynchronize: "standard null-stream semantics").
  if (!stream) return hipDeviceSynchronize();
  MarkerP m;
  ihipStream_t* s;
  {
    std::lock_guard<std::mutex> l(g_mu);
    s = resolve(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    m = s->tail;
  }
  if (m) m->wait();
  return ret(s->sticky.load());
}

hipError_t hipStreamQuery(hipStream_t stream) {
  std::lock_guard<std::mutex> l(g_mu);
  ihipStream_t* s = resolve(stream);
  if (!s) return ret(hipErrorInvalidHandle);
  if (s->sticky != hipSuccess) return ret(s->sticky.load());
  return !s->tail || s->tail->is_done() ? hipSuccess : hipErrorNotReady;
}

// Streams of the CPU-backed device never capture graphs.
hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus* status) {
  std::lock_guard<std::mutex> l(g_mu);
  if (!status) return ret(hipErrorInvalidValue);
  if (!resolve(stream)) return ret(hipErrorInvalidHandle);
  *status = hipStreamCaptureStatusNone;
  return ret(hipSuccess);
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  // HIP: work already enqueued completes before the stream's resources go.
  if (!stream) return ret(hipErrorInvalidHandle);
  MarkerP m;
  {
    std::lock_guard<std::mutex> l(g_mu);
    if (!g_streams.count(stream)) return ret(hipErrorInvalidHandle);
    m = stream->tail;
    g_streams.erase(stream);
  }
  if (m) m->wait();
  delete stream;
  return hipSuccess;
}

hipError_t hipEventCreateWithFlags(hipEvent_t* e, unsigned flags) {
  if (!e) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> l(g_mu);
  ihipEvent_t* ev = new ihipEvent_t;
  ev->flags = flags;
  g_events.insert(ev);
  *e = ev;
  return hipSuccess;
}
hipError_t hipEventCreate(hipEvent_t* e) { return hipEventCreateWithFlags(e, hipEventDefault); }

hipError_t hipEventDestroy(hipEvent_t e) {
  std::lock_guard<std::mutex> l(g_mu);
  if (!g_events.erase(e)) return ret(hipErrorInvalidHandle);
  delete e;  // a pending record keeps its marker alive through the queue
  return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t e, hipStream_t stream) {
  std::lock_guard<std::mutex> l(g_mu);
  if (!g_events.count(e)) return ret(hipErrorInvalidHandle);
  ihipStream_t* s = resolve(stream);
  if (!s) return ret(hipErrorInvalidHandle);
  e->marker = enqueue(s, [] {});
  return hipSuccess;
}

hipError_t hipEventSynchronize(hipEvent_t e) {
  MarkerP m;
  {
    std::lock_guard<std::mutex> l(g_mu);
    if (!g_events.count(e)) return ret(hipErrorInvalidHandle);
    m = e->marker;
  }
  if (m) m->wait();  // never recorded: returns at once (HIP API reference)
  return hipSuccess;
}

hipError_t hipEventQuery(hipEvent_t e) {
  std::lock_guard<std::mutex> l(g_mu);
  if (!g_events.count(e)) return ret(hipErrorInvalidHandle);
  return !e->marker || e->marker->is_done() ? hipSuccess : hipErrorNotReady;
}

hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  if (!ms) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> l(g_mu);
  if (!g_events.count(start) || !g_events.count(stop)) return ret(hipErrorInvalidHandle);
  if ((start->flags | stop->flags) & hipEventDisableTiming) return ret(hipErrorInvalidHandle);
  if (!start->marker || !stop->marker) return ret(hipErrorInvalidHandle);  // not recorded
  if (!start->marker->is_done() || !stop->marker->is_done()) return ret(hipErrorNotReady);
  *ms = std::chrono::duration<float, std::milli>(stop->marker->when - start->marker->when).count();
  return hipSuccess;
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t e, unsigned int flags) {
  if (flags != 0) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> l(g_mu);
  if (!g_events.count(e)) return ret(hipErrorInvalidHandle);
  ihipStream_t* s = resolve(stream);
  if (!s) return ret(hipErrorInvalidHandle);
  if (!e->marker) return hipSuccess;  // never recorded: nothing to wait for
  // "does not implicitly wait for commands in the default stream" (HIP API reference).
  enqueue(s, [] {}, {e->marker}, /*sync_with_null=*/false);
  return hipSuccess;
}

hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* user_data) {
  if (!fn) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> l(g_mu);
  ihipStream_t* s = resolve(stream);
  if (!s) return ret(hipErrorInvalidHandle);
  enqueue(s, [=] { fn(user_data); });
  return hipSuccess;
}

// ---- modules
hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  if (!module || !image) return ret(hipErrorInvalidValue);
  TargetId dev;
  int d;
  {
    std::lock_guard<std::mutex> l(g_mu);
    ensure_devices();
    if (g_devices.empty()) return ret(hipErrorNoDevice);
    d = t_device;
    dev = g_devices[d].target;
  }
  auto m = std::make_unique<ihipModule_t>();
  m->device = d;
  const LoadResult r = load_image(image, dev, &m->co, &m->elf);
  if (r.error != LoadError::kNone) {
    set_fault("hipModuleLoadData on device " + std::to_string(d) + ": " + r.message);
    switch (r.error) {
      case LoadError::kNoBinaryForGpu: return ret(hipErrorNoBinaryForGpu);
      case LoadError::kNotSupported: return ret(hipErrorNotSupported);
      default: return ret(hipErrorInvalidImage);
    }
  }
  std::lock_guard<std::mutex> l(g_mu);
  g_modules.insert(m.get());
  *module = m.release();
  return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t module) {
  std::lock_guard<std::mutex> l(g_mu);
  if (!g_modules.erase(module)) return ret(hipErrorInvalidHandle);
  delete module;
  return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t* f, hipModule_t module, const char* name) {
  if (!f || !name) return ret(hipErrorInvalidValue);
  std::lock_guard<std::mutex> l(g_mu);
  if (!g_modules.count(module)) return ret(hipErrorInvalidHandle);
  auto it = module->functions.find(name);
  if (it != module->functions.end()) { *f = it->second.get(); return hipSuccess; }
  const KernelInfo* info = nullptr;
  for (const KernelInfo& k : module->co.kernels)
    if (k.name == name) info = &k;
  if (!info) return ret(hipErrorNotFound);
  auto fn = std::make_unique<ihipModuleSymbol_t>();
  fn->module = module;
  fn->info = info;
  fn->fn = uattn::exec::find_host_kernel(name);
  if (!fn->fn && !isa_engine()) {
    g_fault = std::string("hipModuleGetFunction: kernel ") + name +
              " is in the code object but this test build has no host-compiled twin of it";
    return ret(hipErrorNotFound);
  }
  *f = fn.get();
  module->functions.emplace(name, std::move(fn));
  return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shared_bytes, hipStream_t stream, void** kernel_params,
                                 void** extra) {
  std::unique_lock<std::mutex> l(g_mu);
  bool live = false;
  for (ihipModule_t* m : g_modules) live = live || (f && f->module == m);
  if (!f || !live) return ret(hipErrorInvalidHandle);
  const KernelInfo& k = *f->info;
  const Device& dev = g_devices[f->module->device];
  ihipStream_t* s = resolve(stream);
  if (!s) return ret(hipErrorInvalidHandle);
  auto refuse = [&](hipError_t e, const std::string& why) {
    g_fault = "hipModuleLaunchKernel(" + k.name + "): " + why;
    return ret(e);
  };
  if (s->device != f->module->device)
    return refuse(hipErrorInvalidHandle, "the stream belongs to device " + std::to_string(s->device) +
                                             ", the module to device " + std::to_string(f->module->device));
  // Kernel arguments: exactly one of kernelParams / extra (HIP API reference,
  // hipModuleLaunchKernel; "extra" = {HIP_LAUNCH_PARAM_BUFFER_POINTER, p,
  // HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END}).
  const uint32_t explicit_size = k.explicit_args_size();
  std::vector<uint8_t> kernarg(std::max<uint32_t>(k.kernarg_segment_size, explicit_size), 0);
  if (kernel_params && extra) return refuse(hipErrorInvalidValue, "both kernelParams and extra given");
  if (extra) {
    if (extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER || extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE ||
        extra[4] != HIP_LAUNCH_PARAM_END || !extra[1] || !extra[3])
      return refuse(hipErrorInvalidValue, "extra is not {BUFFER_POINTER, p, BUFFER_SIZE, &size, END}");
    const size_t size = *static_cast<size_t*>(extra[3]);
    if (size != explicit_size)
      return refuse(hipErrorInvalidValue, "argument buffer of " + std::to_string(size) +
                                              " bytes; the kernel's explicit arguments take " +
                                              std::to_string(explicit_size));
    memcpy(kernarg.data(), extra[1], size);
  } else if (kernel_params) {
    size_t i = 0;
    for (const KernelArg& a : k.args) {
      if (a.value_kind.rfind("hidden_", 0) == 0) continue;
      if (!kernel_params[i]) return refuse(hipErrorInvalidValue, "kernelParams[" + std::to_string(i) + "] is null");
      memcpy(kernarg.data() + a.offset, kernel_params[i], a.size);
      ++i;
    }
  } else if (explicit_size) {
    return refuse(hipErrorInvalidValue, "no kernelParams and no extra for a kernel with arguments");
  }
  // The host twin's signature is void(uattn::AttnParams): the metadata must say
  // one by-value argument of that size at offset 0.
  {
    int n = 0;
    bool ok = true;
    for (const KernelArg& a : k.args)
      if (a.value_kind.rfind("hidden_", 0) != 0) {
        ++n;
        ok = ok && a.value_kind == "by_value" && a.offset == 0 && a.size == sizeof(uattn::AttnParams);
      }
    if (n != 1 || !ok)
      return refuse(hipErrorInvalidValue, "the code object's argument list is not one by_value AttnParams (" +
                                              std::to_string(sizeof(uattn::AttnParams)) + " bytes) at offset 0");
  }
  // Launch configuration against the kernel descriptor and the device.
  const uint64_t block = uint64_t(bx) * by * bz;
  if (!gx || !gy || !gz || !bx || !by || !bz) return refuse(hipErrorInvalidValue, "a grid or block dimension is 0");
  if (block > k.max_flat_workgroup_size)
    return refuse(hipErrorInvalidValue, "block of " + std::to_string(block) + " work-items > the kernel's " +
                                            ".max_flat_workgroup_size " + std::to_string(k.max_flat_workgroup_size));
  if (k.reqd_workgroup_size[0] &&
      (bx != k.reqd_workgroup_size[0] || by != k.reqd_workgroup_size[1] || bz != k.reqd_workgroup_size[2]))
    return refuse(hipErrorInvalidValue, "block differs from the kernel's .reqd_workgroup_size");
  if (uint64_t(gx) * bx >= (1ull << 32) || uint64_t(gy) * by >= (1ull << 32) || uint64_t(gz) * bz >= (1ull << 32))
    return refuse(hipErrorInvalidValue, "gridDim * blockDim >= 2^32 in a dimension");
  const uint64_t lds = uint64_t(k.group_segment_fixed_size) + shared_bytes;
  if (lds > dev.lds_per_workgroup)
    return refuse(hipErrorInvalidValue, "LDS " + std::to_string(k.group_segment_fixed_size) + " static + " +
                                            std::to_string(shared_bytes) + " dynamic > " +
                                            std::to_string(dev.lds_per_workgroup) + " bytes on " + dev.cfg.gcn_arch_name);
  if (k.wavefront_size != (uint32_t)dev.wave_size)
    return refuse(hipErrorInvalidDeviceFunction, "kernel wave size " + std::to_string(k.wavefront_size) +
                                                     " on a wave" + std::to_string(dev.wave_size) + " device");
  if (by != 1 || bz != 1)
    return refuse(hipErrorNotSupported, "the CPU engine runs 1-D workgroups only (blockDim.y = blockDim.z = 1)");

  uattn::AttnParams p;
  memcpy(&p, kernarg.data(), sizeof p);
  const std::string name = k.name;
  const uattn::exec::HostKernelFn fn = f->fn;
  const int device = f->module->device;
  const uint32_t wave = k.wavefront_size;
  const uint32_t lds32 = (uint32_t)lds;
  ihipModule_t* const mod = f->module;
  enqueue(s, [=] {
    if (s->sticky != hipSuccess) return;  // a faulted stream runs nothing more (sticky error)
    // Every pointer argument must be device memory (a GPU faults on anything else):
    // the pointer fields of AttnParams, in layout order (UATTN_FOREACH_PARAM).
    std::vector<std::pair<const char*, const void*>> ptrs;
#define UATTN_POINTER_PARAM(TYPE, NAME) add_pointer(&ptrs, #NAME, p.NAME);
    UATTN_FOREACH_PARAM(UATTN_POINTER_PARAM)
#undef UATTN_POINTER_PARAM
    {
      std::lock_guard<std::mutex> g(g_mu);
      for (auto [what, ptr] : ptrs)
        if (ptr && !in_allocation(ptr, 1)) {
          std::ostringstream m;
          m << name << ": argument " << what << " = " << ptr << " is not device memory (no live hipMalloc holds it)";
          g_fault = m.str();
          s->sticky.store(hipErrorIllegalAddress);
          return;
        }
    }
    if (isa_engine()) {
      // The code object's own bytes, instruction by instruction (tools/emu);
      // every global access checked against the live allocations.
      uattn::emu::RangeSet live;
      std::shared_ptr<uattn::emu::CodeObject> co;
      std::string err;
      {
        std::lock_guard<std::mutex> g(g_mu);
        for (const auto& [base, a] : g_allocs) live.add(base, std::max<size_t>(a.bytes, 1));
        try {
          if (!mod->isa) mod->isa = uattn::emu::CodeObject::load(mod->elf);
          co = mod->isa;
        } catch (const std::exception& e) {
          err = e.what();
        }
      }
      uattn::emu::LaunchResult r;
      if (co) {
        uattn::emu::LaunchRequest rq;
        rq.kernel = name;
        rq.grid[0] = gx; rq.grid[1] = gy; rq.grid[2] = gz;
        rq.block = bx;
        rq.dynamic_lds = shared_bytes;
        rq.kernarg.assign(kernarg.begin(), kernarg.begin() + explicit_size);
        rq.valid = live.callback();
        std::lock_guard<std::mutex> g(g_exec_mu);
        if (g_isa_hook) g_isa_hook(*co, rq);
        r = co->launch(rq);
      } else {
        r.ok = false;
        r.error = err;
      }
      std::lock_guard<std::mutex> g(g_mu);
      g_launches.push_back(LaunchRecord{device, name, {gx, gy, gz}, bx, lds32, s->is_null ? nullptr : s});
      if (!r.ok) {
        g_fault = "uattn-emu: " + r.error;
        s->sticky.store(hipErrorLaunchFailure);
      }
      return;
    }
    uattn::hostexec::Launch launch{};
    launch.kernel_name = name.c_str();
    launch.grid[0] = gx; launch.grid[1] = gy; launch.grid[2] = gz;
    launch.threads = (int)bx;
    launch.wave_size = (int)wave;
    launch.lds_bytes = lds32;
    uattn::hostexec::Result r;
    {
      std::lock_guard<std::mutex> g(g_exec_mu);
      r = uattn::hostexec::launch(fn, launch, p);
    }
    std::lock_guard<std::mutex> g(g_mu);
    g_launches.push_back(LaunchRecord{device, name, {gx, gy, gz}, bx, lds32, s->is_null ? nullptr : s});
    if (!r.ok) {
      g_fault = r.error;
      s->sticky.store(hipErrorLaunchFailure);
    }
  });
  return hipSuccess;
}

}  // extern "C"

// ================================================================ control ==
namespace uattn::hipcpu {

void set_devices(const std::vector<DeviceConfig>& devs) {
  std::vector<Device> made;
  for (const DeviceConfig& c : devs) made.push_back(make_device(c));  // throws before anything changes
  std::lock_guard<std::mutex> l(g_mu);
  g_devices = std::move(made);
  g_devices_set = true;
  t_device = 0;
}

std::vector<DeviceConfig> devices() {
  std::lock_guard<std::mutex> l(g_mu);
  ensure_devices();
  std::vector<DeviceConfig> out;
  for (const Device& d : g_devices) out.push_back(d.cfg);
  return out;
}

void set_engine(Engine e) { g_engine.store(e == Engine::kIsa ? 1 : 0); }
void set_isa_hook(IsaHook hook) {
  std::lock_guard<std::mutex> g(g_exec_mu);
  g_isa_hook = std::move(hook);
}
Engine engine() { return isa_engine() ? Engine::kIsa : Engine::kTwin; }

std::vector<LaunchRecord> launches() {
  std::lock_guard<std::mutex> l(g_mu);
  return g_launches;
}
void clear_launches() {
  std::lock_guard<std::mutex> l(g_mu);
  g_launches.clear();
}
std::string last_fault() {
  std::lock_guard<std::mutex> l(g_mu);
  return g_fault;
}
bool is_device_memory(const void* p, size_t bytes) {
  std::lock_guard<std::mutex> l(g_mu);
  return in_allocation(p, bytes);
}

}  // namespace uattn::hipcpu
