// The CPU-backed HIP device on its own: what hipModuleLoadData reads and
// refuses, what hipModuleLaunchKernel checks, and stream/event ordering.
// Uses this build's real code objects (uattn_<arch>.co) and bundle.
#include <gtest/gtest.h>
#include <hip/hip_runtime_api.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>

#include "uattn/emu/code_object.hpp"
#include "hipcpu.hpp"
#include "uattn/kernel/params.hpp"

using namespace uattn::hipcpu;
using namespace uattn::codeobj;

namespace {

std::vector<uint8_t> read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}
std::vector<uint8_t> code_object(const char* arch) {
  return read(std::string(UATTN_CODE_OBJECT_DIR) + "/uattn_" + arch + ".co");
}

class HipCpu : public ::testing::Test {
 protected:
  void SetUp() override { set_devices({{"gfx950:sramecc+:xnack-", 0, ""}, {"gfx1030", 0, ""}}); }
};

TEST_F(HipCpu, DevicePropertiesReportTheConfiguredTargets) {
  int n = 0;
  ASSERT_EQ(hipGetDeviceCount(&n), hipSuccess);
  ASSERT_EQ(n, 2);
  hipDeviceProp_t p;
  ASSERT_EQ(hipGetDeviceProperties(&p, 0), hipSuccess);
  // MI355X: 256 CUs, wave64, 160 KiB LDS per workgroup, gfx IP 9.5 (AMD product page, CDNA4 ISA guide).
  EXPECT_STREQ(p.gcnArchName, "gfx950:sramecc+:xnack-");
  EXPECT_STREQ(p.name, "AMD Instinct MI355X (CPU-backed)");
  EXPECT_EQ(p.multiProcessorCount, 256);
  EXPECT_EQ(p.warpSize, 64);
  EXPECT_EQ(p.sharedMemPerBlock, 160u * 1024);
  EXPECT_EQ(p.major, 9);
  EXPECT_EQ(p.minor, 5);
  EXPECT_EQ(p.maxSharedMemoryPerMultiProcessor, 160u * 1024);
  EXPECT_EQ(p.maxThreadsPerMultiProcessor, 2048);  // 8 waves x 4 SIMDs x 64 lanes
  // Radeon PRO V620: 72 CUs in 36 WGPs, wave32, 64 KiB LDS per workgroup, gfx IP 10.3 (RDNA2 ISA guide).
  ASSERT_EQ(hipGetDeviceProperties(&p, 1), hipSuccess);
  EXPECT_STREQ(p.gcnArchName, "gfx1030");
  EXPECT_STREQ(p.name, "AMD Radeon PRO V620 (CPU-backed)");
  EXPECT_EQ(p.multiProcessorCount, 36);  // WGPs, as HIP reports on RDNA
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_EQ(p.sharedMemPerBlock, 64u * 1024);
  EXPECT_EQ(p.major, 10);
  EXPECT_EQ(p.minor, 3);
  EXPECT_EQ(p.maxSharedMemoryPerMultiProcessor, 128u * 1024);  // per WGP
  EXPECT_EQ(p.maxThreadsPerMultiProcessor, 2048);  // 16 waves x 2 SIMD32 x 2 CUs x 32 lanes
  EXPECT_EQ(hipGetDeviceProperties(&p, 2), hipErrorInvalidDevice);
  EXPECT_EQ(hipSetDevice(2), hipErrorInvalidDevice);
}

TEST_F(HipCpu, RefusesAProcessorWithoutArchitectureRecord) {
  try {
    set_devices({{"gfx1100", 0, ""}});
    FAIL() << "gfx1100 has no architecture record";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("device 'gfx1100': processor 'gfx1100' has no architecture record"),
              std::string::npos) << e.what();
  }
  int n = 0;  // the list is unchanged
  ASSERT_EQ(hipGetDeviceCount(&n), hipSuccess);
  EXPECT_EQ(n, 2);
}

TEST_F(HipCpu, ParsesEveryKernelOfTheCodeObjects) {
  for (const char* arch : {"gfx950", "gfx1030"}) {
    const std::vector<uint8_t> co = code_object(arch);
    ASSERT_FALSE(co.empty()) << arch;
    CodeObject c;
    const LoadResult r = parse_code_object(co.data(), co.size(), &c);
    ASSERT_EQ(r.error, LoadError::kNone) << r.message;
    EXPECT_EQ(c.processor, arch);
    EXPECT_EQ(image_size(co.data()), co.size());
    ASSERT_FALSE(c.kernels.empty());
    for (const KernelInfo& k : c.kernels) {
      EXPECT_EQ(k.symbol, k.name + ".kd");
      EXPECT_EQ(k.wavefront_size, std::string(arch) == "gfx950" ? 64u : 32u) << k.name;
      EXPECT_EQ(k.explicit_args_size(), sizeof(uattn::AttnParams)) << k.name;
      EXPECT_GE(k.kernarg_segment_size, k.explicit_args_size()) << k.name;
      EXPECT_GT(k.max_flat_workgroup_size, 0u) << k.name;
    }
  }
}

TEST_F(HipCpu, LoadsTheRightEntryOfTheCompressedBundle) {
  const std::vector<uint8_t> b = read(UATTN_BUNDLE_PATH);
  ASSERT_GE(b.size(), 4u);
  for (int dev : {0, 1}) {
    ASSERT_EQ(hipSetDevice(dev), hipSuccess);
    hipModule_t m = nullptr;
    ASSERT_EQ(hipModuleLoadData(&m, b.data()), hipSuccess) << last_fault();
    EXPECT_EQ(hipModuleUnload(m), hipSuccess);
  }
}

TEST_F(HipCpu, RefusesACodeObjectForAnotherArchitecture) {
  const std::vector<uint8_t> co = code_object("gfx950");
  ASSERT_EQ(hipSetDevice(1), hipSuccess);  // gfx1030
  hipModule_t m = nullptr;
  EXPECT_EQ(hipModuleLoadData(&m, co.data()), hipErrorNoBinaryForGpu);
  EXPECT_NE(last_fault().find("gfx950"), std::string::npos) << last_fault();
  // The code objects are built for "any" sramecc/xnack setting: they load on every gfx950 variant.
  set_devices({{"gfx950:sramecc-:xnack-", 0, ""}});
  EXPECT_EQ(hipModuleLoadData(&m, co.data()), hipSuccess) << last_fault();
  EXPECT_EQ(hipModuleUnload(m), hipSuccess);
}

TEST_F(HipCpu, RefusesDamagedImages) {
  const std::vector<uint8_t> good = code_object("gfx950");
  auto load = [](std::vector<uint8_t> img) {
    hipModule_t m = nullptr;
    const hipError_t e = hipModuleLoadData(&m, img.data());
    if (e == hipSuccess) {
      EXPECT_EQ(hipModuleUnload(m), hipSuccess);
    }
    return e;
  };
  ASSERT_EQ(load(good), hipSuccess) << last_fault();
  std::vector<uint8_t> b = good;
  b[0] = 0;  // magic
  EXPECT_EQ(load(b), hipErrorInvalidImage);
  b = good;
  b[18] = 62;  // e_machine = EM_X86_64
  EXPECT_EQ(load(b), hipErrorInvalidImage);
  EXPECT_NE(last_fault().find("e_machine"), std::string::npos);
  b = good;
  b[7] = 0;  // EI_OSABI
  EXPECT_EQ(load(b), hipErrorInvalidImage);
  // A kernel descriptor whose LDS size disagrees with the metadata.
  CodeObject c;
  ASSERT_EQ(parse_code_object(good.data(), good.size(), &c).error, LoadError::kNone);
  b = good;
  // Find the first descriptor by scanning for its group_segment_fixed_size + kernarg_size pair.
  const KernelInfo& k = c.kernels.front();
  bool patched = false;
  for (size_t i = 0; i + 64 <= b.size() && !patched; i += 64) {
    uint32_t g, ka;
    memcpy(&g, &b[i], 4);
    memcpy(&ka, &b[i + 8], 4);
    if (g == k.group_segment_fixed_size && ka == k.kernarg_segment_size && ka != 0) {
      const uint32_t bad = g + 256;
      memcpy(&b[i], &bad, 4);
      patched = true;
    }
  }
  ASSERT_TRUE(patched);
  EXPECT_EQ(load(b), hipErrorInvalidImage);
  EXPECT_NE(last_fault().find("group_segment_fixed_size"), std::string::npos) << last_fault();
  std::vector<uint8_t> junk(64, 0xAB);
  EXPECT_EQ(load(junk), hipErrorInvalidImage);
}

struct Loaded {
  hipModule_t m = nullptr;
  hipFunction_t f = nullptr;
  KernelInfo k;
};
Loaded load_first_kernel(const char* arch) {
  Loaded l;
  const std::vector<uint8_t> co = code_object(arch);
  CodeObject c;
  EXPECT_EQ(parse_code_object(co.data(), co.size(), &c).error, LoadError::kNone);
  l.k = c.kernels.front();
  EXPECT_EQ(hipModuleLoadData(&l.m, co.data()), hipSuccess);
  EXPECT_EQ(hipModuleGetFunction(&l.f, l.m, l.k.name.c_str()), hipSuccess) << last_fault();
  return l;
}

TEST_F(HipCpu, LaunchChecksConfigurationAgainstTheDescriptor) {
  Loaded l = load_first_kernel("gfx950");
  hipFunction_t none = nullptr;
  EXPECT_EQ(hipModuleGetFunction(&none, l.m, "no_such_kernel"), hipErrorNotFound);
  uattn::AttnParams p{};
  size_t size = sizeof p;
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &p, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  const unsigned wg = l.k.max_flat_workgroup_size;
  EXPECT_EQ(hipModuleLaunchKernel(l.f, 1, 1, 1, wg + 64, 1, 1, 0, nullptr, nullptr, extra), hipErrorInvalidValue);
  EXPECT_NE(last_fault().find("max_flat_workgroup_size"), std::string::npos) << last_fault();
  EXPECT_EQ(hipModuleLaunchKernel(l.f, 0, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleLaunchKernel(l.f, 1, 1, 1, 64, 1, 1, 200 * 1024, nullptr, nullptr, extra), hipErrorInvalidValue);
  EXPECT_NE(last_fault().find("LDS"), std::string::npos) << last_fault();
  void* args[] = {&p};
  EXPECT_EQ(hipModuleLaunchKernel(l.f, 1, 1, 1, 64, 1, 1, 0, nullptr, args, extra), hipErrorInvalidValue);
  size = sizeof p - 8;
  EXPECT_EQ(hipModuleLaunchKernel(l.f, 1, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra), hipErrorInvalidValue);
  EXPECT_NE(last_fault().find("argument buffer"), std::string::npos) << last_fault();
  // A stream of another device.
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  hipStream_t s1;
  ASSERT_EQ(hipStreamCreate(&s1), hipSuccess);
  size = sizeof p;
  EXPECT_EQ(hipModuleLaunchKernel(l.f, 1, 1, 1, 64, 1, 1, 0, s1, nullptr, extra), hipErrorInvalidHandle);
  EXPECT_EQ(hipStreamDestroy(s1), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  EXPECT_EQ(hipModuleUnload(l.m), hipSuccess);
}

TEST_F(HipCpu, HostPointerArgumentIsAnIllegalAddressOnTheStream) {
  Loaded l = load_first_kernel("gfx950");
  std::vector<uint16_t> host(64);
  uattn::AttnParams p{};
  p.q = host.data();
  void* args[] = {&p};
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  ASSERT_EQ(hipModuleLaunchKernel(l.f, 1, 1, 1, 64, 1, 1, 0, s, args, nullptr), hipSuccess);  // kernelParams form
  EXPECT_EQ(hipStreamSynchronize(s), hipErrorIllegalAddress);
  EXPECT_NE(last_fault().find("argument q"), std::string::npos) << last_fault();
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(hipModuleUnload(l.m), hipSuccess);
}

// A host function that blocks its stream until released.
struct Gate {
  std::atomic<bool> open{false};
  static void wait(void* g) {
    while (!static_cast<Gate*>(g)->open) std::this_thread::yield();
  }
};

TEST_F(HipCpu, StreamsOrderWorkAndEventsCarryDependencies) {
  int* a = nullptr;
  ASSERT_EQ(hipMalloc(reinterpret_cast<void**>(&a), 4 * sizeof(int)), hipSuccess);
  int poison = 0;
  memset(&poison, 0xFF, sizeof poison);
  int h = 0;
  ASSERT_EQ(hipMemcpy(&h, a, sizeof h, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h, poison) << "hipMalloc memory is poisoned";
  hipStream_t s1, s2;
  ASSERT_EQ(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking), hipSuccess);
  ASSERT_EQ(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking), hipSuccess);
  hipEvent_t e0, e1;
  ASSERT_EQ(hipEventCreate(&e0), hipSuccess);
  ASSERT_EQ(hipEventCreate(&e1), hipSuccess);
  Gate gate;
  const int seven = 7;
  ASSERT_EQ(hipEventRecord(e0, s1), hipSuccess);
  ASSERT_EQ(hipLaunchHostFunc(s1, &Gate::wait, &gate), hipSuccess);
  ASSERT_EQ(hipMemcpyAsync(a, &seven, sizeof seven, hipMemcpyHostToDevice, s1), hipSuccess);
  ASSERT_EQ(hipEventRecord(e1, s1), hipSuccess);
  // s2 copies a[0] to a[1] only after e1.
  ASSERT_EQ(hipStreamWaitEvent(s2, e1, 0), hipSuccess);
  ASSERT_EQ(hipMemcpyAsync(a + 1, a, sizeof(int), hipMemcpyDeviceToDevice, s2), hipSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(hipEventQuery(e1), hipErrorNotReady);
  EXPECT_EQ(hipStreamQuery(s2), hipErrorNotReady);
  float ms = 0;
  EXPECT_EQ(hipEventElapsedTime(&ms, e0, e1), hipErrorNotReady);
  gate.open = true;
  ASSERT_EQ(hipStreamSynchronize(s2), hipSuccess);
  int got[2];
  ASSERT_EQ(hipMemcpy(got, a, sizeof got, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(got[0], 7);
  EXPECT_EQ(got[1], 7);
  ASSERT_EQ(hipEventSynchronize(e1), hipSuccess);
  ASSERT_EQ(hipEventElapsedTime(&ms, e0, e1), hipSuccess);
  EXPECT_GE(ms, 15.0f);  // the gate held s1 at least 20 ms between the records
  hipEvent_t never;
  ASSERT_EQ(hipEventCreate(&never), hipSuccess);
  EXPECT_EQ(hipEventElapsedTime(&ms, e0, never), hipErrorInvalidHandle);
  EXPECT_EQ(hipEventSynchronize(never), hipSuccess);
  for (hipEvent_t e : {e0, e1, never}) EXPECT_EQ(hipEventDestroy(e), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s1), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s2), hipSuccess);
  EXPECT_EQ(hipFree(a), hipSuccess);
  EXPECT_EQ(hipFree(a), hipErrorInvalidValue);
}

TEST_F(HipCpu, NullStreamWaitsForBlockingStreams) {
  int* a = nullptr;
  ASSERT_EQ(hipMalloc(reinterpret_cast<void**>(&a), sizeof(int)), hipSuccess);
  hipStream_t s;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);  // blocking
  Gate gate;
  const int five = 5;
  ASSERT_EQ(hipLaunchHostFunc(s, &Gate::wait, &gate), hipSuccess);
  ASSERT_EQ(hipMemcpyAsync(a, &five, sizeof five, hipMemcpyHostToDevice, s), hipSuccess);
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    gate.open = true;
  });
  int got = 0;
  // hipMemcpy is on the null stream: it waits for s's earlier work.
  ASSERT_EQ(hipMemcpy(&got, a, sizeof got, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(got, 5);
  opener.join();
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(hipFree(a), hipSuccess);
}

TEST_F(HipCpu, CopiesRefuseHostPointersAsDevicePointers) {
  int h[2] = {1, 2}, g[2];
  EXPECT_EQ(hipMemcpy(g, h, sizeof h, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpy(g, h, sizeof h, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  EXPECT_EQ(hipMemset(g, 0, sizeof g), hipErrorInvalidValue);
}

}  // namespace
