// The emulator's global atomics (GLOBAL_ATOMIC_ADD with and without a returned
// value) and cache-control instructions (CDNA4 BUFFER_WBL2 / BUFFER_INV, RDNA2
// BUFFER_GL0_INV / BUFFER_GL1_INV), on a test kernel compiled for each
// architecture of the build (atomics.hip): the last-arriving workgroup of a
// split reduction sums the partials the others wrote, with every workgroup on
// the emulator's parallel host threads. Checked against sums on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "atomics_buffers.hpp"  // tests/isa
#include "uattn/emu/emu.hpp"

namespace {

using namespace uattn::emu;

using uattn::atomics_test::Buffers;
using uattn::atomics_test::code_objects;

// The explicit arguments at the offsets of the kernel's metadata (the emulator
// adds the hidden ones from the launch).
std::vector<uint8_t> kernarg(const KernelDesc& k, const std::vector<uint64_t>& ptrs, int per_group) {
  size_t end = 0;
  for (const KernelDesc::Arg& arg : k.args)
    if (arg.value_kind.rfind("hidden_", 0) != 0) end = std::max<size_t>(end, arg.offset + arg.size);
  std::vector<uint8_t> a(end, 0);
  size_t n = 0;
  for (const KernelDesc::Arg& arg : k.args) {
    if (arg.value_kind.rfind("hidden_", 0) == 0) continue;
    if (n < ptrs.size()) std::memcpy(&a[arg.offset], &ptrs[n], 8);
    else std::memcpy(&a[arg.offset], &per_group, 4);
    ++n;
  }
  EXPECT_EQ(n, ptrs.size() + 1);
  return a;
}

class Atomics : public ::testing::TestWithParam<std::string> {};

TEST_P(Atomics, LastArrivingWorkgroupReducesAndResetsTheCounter) {
  const auto co = CodeObject::load_file(GetParam());
  const KernelDesc* k = co->kernel("last_arriver");
  ASSERT_NE(k, nullptr);
  const int groups = 301, per_group = 5;
  Buffers b(groups, per_group, (int)k->wavefront_size);
  const uint32_t want = std::accumulate(b.in.begin(), b.in.end(), 0u);
  for (int launch = 1; launch <= 8; ++launch) {  // the counter, reset by the reducer, is reused
    LaunchRequest rq;
    rq.kernel = "last_arriver";
    rq.grid[0] = groups;
    rq.block = k->wavefront_size;
    rq.threads = 4;
    rq.valid = b.valid.callback();
    b.out[0] = 0;
    b.tickets[0] = 0;
    std::fill(b.slots.begin(), b.slots.end(), 0xDEADBEEFu);
    rq.kernarg = kernarg(*k, b.pointers((uint64_t)b.arrivals.data()), per_group);
    const LaunchResult r = co->launch(rq);
    ASSERT_TRUE(r.ok) << co->processor() << ": " << r.error;
    EXPECT_EQ(r.groups_run, (uint64_t)groups);
    EXPECT_EQ(b.out[0], want) << "launch " << launch;
    EXPECT_EQ(b.counter[0], 0u) << "launch " << launch;
    EXPECT_EQ(b.reducers[0], (uint32_t)launch) << "exactly one reducer per launch";
    EXPECT_EQ(b.arrivals[0], (uint32_t)(groups * launch)) << "the no-return adds";
    // Every work-item's ticket is its own: slots holds each global id once.
    std::vector<uint32_t> ids = b.slots;
    std::sort(ids.begin(), ids.end());
    for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], (uint32_t)i) << "launch " << launch;
  }
  for (int g = 0; g < groups; ++g)
    ASSERT_EQ(b.partial[g], std::accumulate(b.in.begin() + g * per_group, b.in.begin() + (g + 1) * per_group, 0u));
}

// An atomic outside valid memory, or at an address that is not 4-byte aligned,
// fails the launch naming it.
TEST_P(Atomics, MisalignedOrInvalidAtomicFailsTheLaunch) {
  const auto co = CodeObject::load_file(GetParam());
  const KernelDesc* k = co->kernel("last_arriver");
  ASSERT_NE(k, nullptr);
  Buffers b(4, 1, (int)k->wavefront_size);
  std::vector<uint32_t> wide(4, 0);
  b.valid.add((uint64_t)wide.data(), 16);
  for (const auto& [arrivals, what] : {std::pair<uint64_t, std::string>{(uint64_t)wide.data() + 2, "not 4-byte aligned"},
                                       {uint64_t{0x1000}, "outside every valid allocation"}}) {
    LaunchRequest rq;
    rq.kernel = "last_arriver";
    rq.grid[0] = 4;
    rq.block = k->wavefront_size;
    rq.valid = b.valid.callback();
    b.tickets[0] = 0;  // the launch before stopped part way through its tickets
    rq.kernarg = kernarg(*k, b.pointers(arrivals), 1);
    const LaunchResult r = co->launch(rq);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find(what), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("global_atomic_add"), std::string::npos) << r.error;
  }
}

std::string arch_of(const ::testing::TestParamInfo<std::string>& i) {  // ".../atomics_gfx950.co" -> "gfx950"
  const size_t a = i.param.rfind("atomics_") + 8;
  return i.param.substr(a, i.param.rfind(".co") - a);
}
INSTANTIATE_TEST_SUITE_P(Emu, Atomics, ::testing::ValuesIn(code_objects()), arch_of);

}  // namespace
