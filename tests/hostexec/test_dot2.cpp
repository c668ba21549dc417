// Host emulation of the device-layer operations used by the wave32 packed-math
// body (templates/uattn/kernel/attention_dot2.hpp), checked against values
// worked out from their definitions in AMD's RDNA2 ISA reference guide
// (s.6 VOP2/VOP3P: v_dot2_f32_f16, v_pk_mul_f16, v_pk_fma_f16,
// v_cvt_pkrtz_f16_f32; s.12 DPP / v_permlanex16_b32 / v_readlane_b32), and the
// exact fp8 e4m3 -> f16 conversion against dl::fp8e4m3_to_f32 for all 256 codes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine.hpp"
#include "uattn/kernel/attention_dot2.hpp"

using uattn::AttnParams;
using namespace uattn::hostexec;

namespace {

uint32_t h2(float lo, float hi) {
  return (uint32_t)__builtin_bit_cast(uint16_t, (_Float16)lo) |
         ((uint32_t)__builtin_bit_cast(uint16_t, (_Float16)hi) << 16);
}
float lo_f(uint32_t w) { return (float)__builtin_bit_cast(_Float16, (uint16_t)w); }
float hi_f(uint32_t w) { return (float)__builtin_bit_cast(_Float16, (uint16_t)(w >> 16)); }

// One wave32 workgroup, no LDS: the launch of the device-operation kernels below.
Launch one_wave32(const char* kernel_name) {
  Launch l{};
  l.kernel_name = kernel_name;
  l.grid[0] = l.grid[1] = l.grid[2] = 1;
  l.threads = 32;
  l.wave_size = 32;
  l.lds_bytes = 0;
  return l;
}

}  // namespace

TEST(Dot2, Fdot2SumsBothProductsAndTheAccumulator) {
  EXPECT_EQ(dl::fdot2(h2(1.5f, -2.0f), h2(4.0f, 0.25f), 0.5f), 6.0f);
  // f16 products are exact in f32: 2049 * 2049 needs 23 bits.
  EXPECT_EQ(dl::fdot2(h2(2048.0f, 0.0f), h2(2048.0f, 0.0f), 1.0f), 4194305.0f);
  // One rounding of the three-term sum: 2^24 + 1 + 1 = 2^24 + 2 exactly.
  EXPECT_EQ(dl::fdot2(h2(1.0f, 1.0f), h2(1.0f, 1.0f), 16777216.0f), 16777218.0f);
  EXPECT_TRUE(std::isnan(dl::fdot2(h2(INFINITY, 0.0f), h2(0.0f, 0.0f), 0.0f)));
}

TEST(Dot2, PackedHalfMulAndFma) {
  const uint32_t m = dl::pk_mul_f16(h2(3.0f, -0.5f), h2(2.0f, 8.0f));
  EXPECT_EQ(lo_f(m), 6.0f);
  EXPECT_EQ(hi_f(m), -4.0f);
  const uint32_t o = dl::pk_mul_f16(h2(1.875f, -1.75f), h2(36864.0f, 36864.0f));  // 69120 overflows, 64512 fits
  EXPECT_TRUE(std::isinf(lo_f(o)));
  EXPECT_EQ(hi_f(o), -64512.0f);
  const uint32_t f = dl::pk_fma_f16(o, 0u, h2(1.875f, -1.75f));  // inf * 0 = NaN; finite * 0 + h = h
  EXPECT_TRUE(std::isnan(lo_f(f)));
  EXPECT_EQ(hi_f(f), -1.75f);
  // Round to nearest even: 1 + 2^-11 is a tie between 1 and 1 + 2^-10.
  EXPECT_EQ(lo_f(dl::pk_fma_f16(h2(1.0f, 0.0f), h2(1.0f, 0.0f), h2(0.00048828125f, 0.0f))), 1.0f);
}

TEST(Dot2, CvtPkrtzRoundsTowardZero) {
  const float up = 1.0f + 1.5f * 0.00048828125f;  // between 1 + 2^-11 and 1 + 2^-10: RNE would round up
  EXPECT_EQ(lo_f(dl::cvt_pkrtz(up, -up)), 1.0f);
  EXPECT_EQ(hi_f(dl::cvt_pkrtz(up, -up)), -1.0f);
  EXPECT_EQ(lo_f(dl::cvt_pkrtz(70000.0f, -70000.0f)), 65504.0f);
  EXPECT_EQ(hi_f(dl::cvt_pkrtz(70000.0f, -70000.0f)), -65504.0f);
  EXPECT_TRUE(std::isinf(lo_f(dl::cvt_pkrtz(INFINITY, NAN))));
  EXPECT_TRUE(std::isnan(hi_f(dl::cvt_pkrtz(INFINITY, NAN))));
  EXPECT_EQ(lo_f(dl::cvt_pkrtz(0.333251953125f, 0.0f)), 0.333251953125f);  // exact in f16
}

// Every e4m3 code, in both halves of the pair, converts to exactly code / 256.
TEST(Dot2, Fp8ToF16IsExactForEveryCode) {
  for (int c = 0; c < 256; ++c) {
    const float want = dl::fp8e4m3_to_f32((uint8_t)c);
    for (int half = 0; half < 2; ++half) {
      const uint32_t w = half == 0 ? (uint32_t)c : (uint32_t)c << 8;  // the code in byte 0 or byte 1
      const uint32_t h = uattn::dot2::fp8_pair_to_f16_div256(uattn::dot2::fp8_bytes_to_pair(w, 0));
      const float got = (half == 0 ? lo_f(h) : hi_f(h)) * 256.0f;
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << "code " << c;
      } else {
        EXPECT_EQ(got, want) << "code " << c;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << "code " << c;
      }
    }
    // The key-pair interleave used for V: byte e of two dwords.
    const uint32_t wa = (uint32_t)c << 16, wb = (uint32_t)(255 - c) << 16;
    const uint32_t hv = uattn::dot2::fp8_pair_to_f16_div256(uattn::dot2::fp8_interleave(wa, wb, 2));
    const float wb_want = dl::fp8e4m3_to_f32((uint8_t)(255 - c));
    if (!std::isnan(want)) EXPECT_EQ(lo_f(hv) * 256.0f, want) << c;
    if (!std::isnan(wb_want)) EXPECT_EQ(hi_f(hv) * 256.0f, wb_want) << c;
  }
}

TEST(Dot2, Bf16PairToF16IsExactInRange) {
  const uint32_t w = 0x3FC0BF80u;  // bf16 hi 1.5, lo -1.0
  const uint32_t h = uattn::dot2::bf16_pair_to_f16(w);
  EXPECT_EQ(lo_f(h), -1.0f);
  EXPECT_EQ(hi_f(h), 1.5f);
}

TEST(Dot2, PermSelectsBytesOfHiLo) {
  // Selectors 0-3: bytes of `lo`, 4-7: bytes of `hi`, 0x0C: zero.
  EXPECT_EQ(dl::perm(0x44332211u, 0x88776655u, 0x05040100u), 0x22116655u);
  EXPECT_EQ(dl::perm(0x44332211u, 0x88776655u, 0x07060302u), 0x44338877u);
  EXPECT_EQ(dl::perm(0x44332211u, 0x88776655u, 0x0C070C00u), 0x00440055u);
}

TEST(Dot2, MaxNonan) {
  EXPECT_EQ(dl::max_nonan(-INFINITY, -3.0f), -3.0f);
  EXPECT_EQ(dl::max_nonan(2.5f, -INFINITY), 2.5f);
  EXPECT_EQ(dl::max_nonan(-INFINITY, -INFINITY), -INFINITY);
  EXPECT_EQ(dl::max_nonan(1e30f, 2e30f), 2e30f);
}

TEST(Dot2, DwordLoadsAndStores) {
  alignas(16) uint32_t buf[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const auto a = dl::ld_dwords<4>(buf + 1);  // 4-byte aligned only
  EXPECT_EQ(a[0], 2u);
  EXPECT_EQ(a[3], 5u);
  const auto b = dl::ld_dwords<2>((uint64_t)(uintptr_t)buf, 36u);  // base + byte offset
  EXPECT_EQ(b[0], 10u);
  EXPECT_EQ(b[1], 11u);
  dl::vec<uint32_t, 2> v;
  v[0] = 77u;
  v[1] = 88u;
  dl::st_dwords<2>(buf + 5, v);
  EXPECT_EQ(buf[5], 77u);
  EXPECT_EQ(buf[6], 88u);
  EXPECT_EQ(buf[7], 8u);
}

// Dword loads / stores need a 4-byte aligned address (the kernels do not rely
// on the hardware's unaligned access mode): the host backend fails the launch
// otherwise. p.num_seqs = byte offset of the access, p.num_segments: 1 = store.
UATTN_GLOBAL void k_dword_access(AttnParams p) {
  if (dl::lane_id() != 0) return;
  const bool store = p.num_segments != 0;
  const char* in = static_cast<const char*>(p.q) + (store ? 0 : p.num_seqs);
  char* out = static_cast<char*>(p.out) + (store ? p.num_seqs : 0);
  dl::st_dwords<4>(out, dl::ld_dwords<4>(in));
}

TEST(Dot2, DwordAccessMisalignedFailsTheLaunch) {
  alignas(16) uint8_t in[64], out[64];
  for (int i = 0; i < 64; ++i) in[i] = (uint8_t)(3 * i + 1);
  AttnParams p{};
  p.q = in;
  p.out = out;
  const Launch l = one_wave32("k_dword_access");
  for (int off : {0, 4, 8}) {  // dword-aligned loads and stores pass, values intact
    p.num_seqs = off;
    p.num_segments = 0;
    const Result r = launch(k_dword_access, l, p);
    ASSERT_TRUE(r.ok) << off << ": " << r.error;
    for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], in[off + i]) << off << " byte " << i;
  }
  for (int off : {1, 2, 6}) {
    p.num_seqs = off;
    p.num_segments = 0;  // misaligned load
    Result r = launch(k_dword_access, l, p);
    EXPECT_FALSE(r.ok) << off;
    EXPECT_NE(r.error.find("misaligned vector access"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("reads 16 bytes"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("not 4-byte aligned"), std::string::npos) << r.error;
    p.num_segments = 1;  // misaligned store
    r = launch(k_dword_access, l, p);
    EXPECT_FALSE(r.ok) << off;
    EXPECT_NE(r.error.find("misaligned vector access"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("not 4-byte aligned"), std::string::npos) << r.error;
  }
}

// The element path of the unaligned rows (dot2::ld_row / st_row with kAl =
// false): the same dwords as a dword load, from 2-byte / 1-byte aligned rows.
TEST(Dot2, ElementRowAccessMatchesDwordLayout) {
  alignas(16) uint8_t in[48], out[48];
  for (int i = 0; i < 48; ++i) in[i] = (uint8_t)(7 * i + 5);
  for (int off : {2, 6, 1, 3}) {
    dl::vec<uint32_t, 4> v;
    if (off % 2 == 0) v = uattn::dot2::ld_row<false, 2, 4>(in + off);
    else v = uattn::dot2::ld_row<false, 1, 4>(in + off);
    for (int i = 0; i < 4; ++i) {
      uint32_t w;
      __builtin_memcpy(&w, in + off + 4 * i, 4);
      EXPECT_EQ(v[i], w) << off << " dword " << i;
    }
    for (int i = 0; i < 48; ++i) out[i] = 0xEE;
    if (off % 2 == 0) uattn::dot2::st_row<false, 2, 4>(out + off, v);
    else uattn::dot2::st_row<false, 1, 4>(out + off, v);
    for (int i = 0; i < 48; ++i)
      EXPECT_EQ(out[i], i >= off && i < off + 16 ? in[i] : 0xEE) << off << " byte " << i;
  }
}

// xor_lanes<M> and readlane in a wave32 launch.
UATTN_GLOBAL void k_dot2_lanes(AttnParams p) {
  uint32_t* out = static_cast<uint32_t*>(p.out) + dl::lane_id() * 6;
  const uint32_t v = (uint32_t)dl::lane_id() * 10u + 7u;
  out[0] = dl::xor_lanes<1>(v);
  out[1] = dl::xor_lanes<2>(v);
  out[2] = dl::xor_lanes<4>(v);
  out[3] = dl::xor_lanes<8>(v);
  out[4] = dl::xor_lanes<16>(v);
  out[5] = dl::readlane(v, 19);
}

TEST(Dot2, XorLanesAndReadlane) {
  std::vector<uint32_t> out(32 * 6, 0);
  AttnParams p{};
  p.out = out.data();
  const Launch l = one_wave32("k_dot2_lanes");
  const Result r = launch(k_dot2_lanes, l, p);
  ASSERT_TRUE(r.ok) << r.error;
  const int masks[5] = {1, 2, 4, 8, 16};
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 5; ++i) EXPECT_EQ(out[lane * 6 + i], (uint32_t)(lane ^ masks[i]) * 10u + 7u) << lane;
    EXPECT_EQ(out[lane * 6 + 5], 197u) << lane;
  }
}

// fdot2_row_share<N>: v_dot2c_f32_f16 with DPP ROW_SHARE N (RDNA2 ISA reference
// guide, DPP16): every lane of a row of 16 takes `a` from lane N of that row.
template <int N>
void row_share_body(AttnParams p) {
  const int l = dl::lane_id();
  const uint32_t* in = static_cast<const uint32_t*>(p.q);
  float* out = static_cast<float*>(p.out);
  out[l] = dl::fdot2_row_share<N>(in[l], in[32 + l], static_cast<const float*>(p.k_cache)[l]);
}
UATTN_GLOBAL void k_dot2_row_share_0(AttnParams p) { row_share_body<0>(p); }
UATTN_GLOBAL void k_dot2_row_share_5(AttnParams p) { row_share_body<5>(p); }
UATTN_GLOBAL void k_dot2_row_share_15(AttnParams p) { row_share_body<15>(p); }

template <int N>
void check_row_share(void (*kernel)(AttnParams)) {
  std::vector<uint32_t> ab(64);
  std::vector<float> c(32), out(32, std::nanf(""));
  for (int l = 0; l < 32; ++l) {
    ab[l] = h2(0.25f * (float)(l + 1), -0.5f * (float)(l % 7));  // a: distinct per lane
    ab[32 + l] = h2(1.0f + (float)(l % 5), 0.125f * (float)l);   // b
    c[l] = (float)l - 3.0f;
  }
  AttnParams p{};
  p.q = ab.data();
  p.k_cache = c.data();
  p.out = out.data();
  const Launch l = one_wave32("k_dot2_row_share");
  const Result r = launch(kernel, l, p);
  ASSERT_TRUE(r.ok) << r.error;
  for (int lane = 0; lane < 32; ++lane) {
    const uint32_t a = ab[(lane & 16) + N], b = ab[32 + lane];  // lane N of this lane's row
    const double want = (double)lo_f(a) * lo_f(b) + (double)hi_f(a) * hi_f(b) + c[lane];
    EXPECT_EQ(out[lane], (float)want) << "N " << N << " lane " << lane;
  }
}

TEST(Dot2, Fdot2RowShareTakesAFromLaneNOfTheRow) {
  check_row_share<0>(k_dot2_row_share_0);
  check_row_share<5>(k_dot2_row_share_5);
  check_row_share<15>(k_dot2_row_share_15);
}
