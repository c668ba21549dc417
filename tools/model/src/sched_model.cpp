// Instruction classes with LLVM's AMDGPU scheduling data: the issue cost
// (ResourceCycles) and latency (Latency) of each SchedWrite, in model units.
//
// Source: llvm/lib/Target/AMDGPU/SISchedule.td (llvm-project main; the same
// file llvm-mca-21 reads), for the two models the processors use
// (llvm/lib/Target/AMDGPU/GCNProcessors.td):
//   gfx950, SIDPGFX940FullSpeedModel (SICommonWriteRes + its own):
//     WriteBranch 8, WriteLDS 5, WriteSALU 1, WriteSMEM 5, WriteVMEM 80,
//     WriteBarrier 500; Write32Bit 1, WriteFloatCvt 4, WriteTrans32 4,
//     WriteQuarterRate32 4, WriteIntMul 1, Write64Bit 1, WriteFloatFMA 1,
//     WriteDouble 1; each VALU write holds HWVALU 1 cycle. MFMA: HWXDL held
//     for its passes, latency = passes: V_MFMA_.32_4X4X 2; 16X16X8X / 16X16X16
//     / 16X16X32 4; 16X16X[14][FBI] 8; 32X32X4XF / 32X32X8 / 32X32X16 8;
//     32X32X[124][FBI] 16. Units: "1 / (operations / cycle) / 4", one wave64
//     VALU instruction = 4 clocks.
//   gfx1030, GFX10SpeedModel: Write32Bit 5, WriteFloatCvt 5, Write64Bit 6,
//     WriteTrans32 10 (HWTransVALU), WriteQuarterRate32 8, WriteFloatFMA 5,
//     WriteDouble 22, WriteIntMul 8, WriteBranch 32, WriteLDS 20, WriteSALU 2,
//     WriteSMEM 20, WriteVMEM 320, WriteBarrier 2000; every write also holds
//     HWRC 1 cycle. Units: clocks.
// The class of an instruction is read from its mnemonic the way the .td files
// assign SchedWrites (VOP3 transcendental and conversion opcodes, 64-bit
// operations, integer multiplies); the barrier is modelled explicitly (all
// waves of the workgroup), not with WriteBarrier's guessed 500 / 2000.
#include <cstring>
#include <stdexcept>
#include <string>

#include "uattn/model/model.hpp"

namespace uattn::model {
namespace {

bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
bool has(const std::string& s, const char* p) { return s.find(p) != std::string::npos; }

// MFMA passes on gfx950 (SIDPGFX940FullSpeedModel's InstRW regexes).
int mfma_passes(const std::string& m) {
  if (has(m, "_4x4x")) return 2;
  const bool f64 = has(m, "_f64_");
  if (f64) return has(m, "_16x16x") ? 8 : 4;
  // "16x16x4f32" / "16x16x1f32" / ...: the [14][FBI] forms (K 1 or 4 with a type suffix)
  auto k_digit_then_type = [&](const char* shape) {
    const size_t p = m.find(shape);
    if (p == std::string::npos) return false;
    const size_t q = p + strlen(shape);
    return q + 1 < m.size() && (m[q] == '1' || m[q] == '2' || m[q] == '4') &&
           (m[q + 1] == 'f' || m[q + 1] == 'b' || m[q + 1] == 'i');
  };
  if (has(m, "_16x16x")) return k_digit_then_type("_16x16x") ? 8 : 4;
  if (has(m, "_32x32x")) return k_digit_then_type("_32x32x") ? 16 : 8;
  return 8;
}

bool is_trans(const std::string& m) {
  for (const char* t : {"v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_"})
    if (starts(m, t)) return true;
  return false;
}
bool is_cvt(const std::string& m) { return starts(m, "v_cvt_") && !has(m, "_f64") && !has(m, "pk"); }
bool is_int_mul(const std::string& m) {
  return starts(m, "v_mul_lo_u32") || starts(m, "v_mul_hi_") || starts(m, "v_mad_u64") || starts(m, "v_mad_i64") ||
         starts(m, "v_mul_lo_i32") || starts(m, "v_mad_u32_u24") || starts(m, "v_mul_u32_u24");
}
bool is_64(const std::string& m) {
  return has(m, "_f64") || has(m, "_b64") || has(m, "_u64") || has(m, "_i64") || starts(m, "v_lshl_add_u64");
}

}  // namespace

InstCost inst_cost(const std::string& sched_model, const std::string& m) {
  const bool g10 = sched_model == "GFX10SpeedModel";
  if (sched_model != "SIDPGFX940FullSpeedModel" && !g10)
    throw std::runtime_error("uattn-model: sched_model '" + sched_model +
                             "' has no instruction costs here; expected SIDPGFX940FullSpeedModel or GFX10SpeedModel");
  auto c = [](Unit u, int issue, int lat) { return InstCost{u, issue, lat}; };
  if (m == "s_waitcnt" || starts(m, "s_waitcnt_")) return c(Unit::kWait, 1, 1);
  if (m == "s_barrier") return c(Unit::kBarrier, 1, 1);
  if (m == "s_endpgm") return c(Unit::kEnd, 1, 1);
  if (starts(m, "s_nop") || m == "s_setprio" || starts(m, "s_sleep") || starts(m, "s_delay_alu") ||
      starts(m, "s_clause") || starts(m, "s_inst_prefetch"))
    return c(Unit::kNop, 1, 1);
  if (starts(m, "s_branch") || starts(m, "s_cbranch") || starts(m, "s_setpc") || starts(m, "s_swappc"))
    return g10 ? c(Unit::kBranch, 1, 32) : c(Unit::kBranch, 1, 8);
  if (starts(m, "s_load") || starts(m, "s_buffer_load") || starts(m, "s_store") || starts(m, "s_dcache") ||
      starts(m, "s_memtime") || starts(m, "s_memrealtime"))
    return g10 ? c(Unit::kSmem, 1, 20) : c(Unit::kSmem, 1, 5);
  if (starts(m, "s_")) return g10 ? c(Unit::kSalu, 1, 2) : c(Unit::kSalu, 1, 1);
  if (starts(m, "ds_")) return g10 ? c(Unit::kLds, 1, 20) : c(Unit::kLds, 1, 5);
  if (starts(m, "global_") || starts(m, "buffer_") || starts(m, "flat_") || starts(m, "scratch_"))
    return g10 ? c(Unit::kVmem, 1, 320) : c(Unit::kVmem, 1, 80);
  if (starts(m, "v_mfma") || starts(m, "v_smfmac")) {
    const int p = mfma_passes(m);
    return c(Unit::kMfma, p, p);
  }
  if (is_trans(m)) return g10 ? c(Unit::kTrans, 1, 10) : c(Unit::kTrans, 1, 4);
  if (g10) {
    if (has(m, "_f64")) return c(Unit::kValu, 1, 22);
    if (is_int_mul(m)) return c(Unit::kValu, 1, 8);
    if (is_64(m)) return c(Unit::kValu, 1, 6);
    return c(Unit::kValu, 1, 5);
  }
  if (is_cvt(m)) return c(Unit::kValu, 1, 4);
  return c(Unit::kValu, 1, 1);  // Write32Bit / Write64Bit / WriteIntMul / WriteFloatFMA: 1 on gfx940+
}

}  // namespace uattn::model
