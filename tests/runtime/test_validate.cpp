// validate(), validate_indices(), describe(), make_params(): one test per rule;
// every refusal must name the argument and the offending value (SPEC.md s.1).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "args_fixture.hpp"
#include "uattn/validate.hpp"

namespace uattn {
namespace {

using testing::ArgsFixture;

// The status is kInvalidArgument and its message holds every fragment.
::testing::AssertionResult Refused(const Status& s, std::initializer_list<const char*> fragments) {
  if (s.code != kInvalidArgument)
    return ::testing::AssertionFailure() << "code " << s.code << ", message '" << s.message << "'";
  if (s.message.rfind("uattn: ", 0) != 0) return ::testing::AssertionFailure() << "no 'uattn: ' prefix: " << s.message;
  for (const char* f : fragments)
    if (s.message.find(f) == std::string::npos)
      return ::testing::AssertionFailure() << "'" << f << "' missing from: " << s.message;
  return ::testing::AssertionSuccess();
}

TEST(Validate, FixtureIsValid) {
  ArgsFixture f;
  const Status s = validate(f.args);
  EXPECT_TRUE(s.ok()) << s.message;
  const Status d = f.check_indices();
  EXPECT_TRUE(d.ok()) << d.message;
}

TEST(Validate, QDtype) {
  ArgsFixture f;
  f.args.q.dtype = DType::fp8e4m3;
  EXPECT_TRUE(Refused(validate(f.args), {"q.dtype = fp8e4m3", "f16 or bf16"}));
  f.args.q.dtype = static_cast<DType>(7);
  EXPECT_TRUE(Refused(validate(f.args), {"q.dtype = DType(7)"}));
}

TEST(Validate, KvDtype) {
  ArgsFixture f;
  f.args.k_cache.dtype = DType::bf16;
  f.args.v_cache.dtype = DType::bf16;
  EXPECT_TRUE(Refused(validate(f.args), {"k_cache.dtype = bf16", "q.dtype = f16", "fp8e4m3"}));
}

TEST(Validate, KvDtypeFp8IsServed) {
  ArgsFixture f;
  f.args.k_cache.dtype = f.args.v_cache.dtype = DType::fp8e4m3;
  f.args.k_scale = 0.5f;
  f.args.v_scale = 2.0f;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
}

TEST(Validate, VDtypeDiffersFromK) {
  ArgsFixture f;
  f.args.v_cache.dtype = DType::fp8e4m3;
  EXPECT_TRUE(Refused(validate(f.args), {"v_cache.dtype = fp8e4m3", "k_cache.dtype = f16"}));
}

TEST(Validate, OutDtype) {
  ArgsFixture f;
  f.args.out.dtype = DType::bf16;
  EXPECT_TRUE(Refused(validate(f.args), {"out.dtype = bf16", "f16 or fp8e4m3"}));
  f.args.out.dtype = DType::fp8e4m3;
  f.args.output_scale = 0.25f;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
}

TEST(Validate, Ranks) {
  ArgsFixture f;
  f.args.q.rank = 4;
  EXPECT_TRUE(Refused(validate(f.args), {"q.rank = 4", "expected 3"}));
  ArgsFixture g;
  g.args.v_cache.rank = 5;
  EXPECT_TRUE(Refused(validate(g.args), {"v_cache.rank = 5", "expected 4"}));
}

TEST(Validate, LastDimContiguous) {
  ArgsFixture f;
  f.args.k_cache.stride[3] = 2;
  EXPECT_TRUE(Refused(validate(f.args), {"k_cache.stride[3] = 2", "contiguous"}));
  ArgsFixture g;
  g.args.out.stride[2] = 0;
  EXPECT_TRUE(Refused(validate(g.args), {"out.stride[2] = 0"}));
}

TEST(Validate, AnyOtherStridesAreServed) {  // views of [num_blocks, 2, block_size, Hkv, D], padded rows
  ArgsFixture f;
  f.args.k_cache.stride[0] = f.args.v_cache.stride[0] = 2 * 16 * 2 * 128;
  f.args.q.stride[1] = 136;
  f.args.q.stride[0] = 16 * 136;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
}

TEST(Validate, HeadSizesEqual) {
  ArgsFixture f;
  f.args.k_cache.shape[3] = 64;
  EXPECT_TRUE(Refused(validate(f.args), {"k_cache.shape[3] (head_size) = 64", "q.shape[2] (head_size) = 128"}));
  ArgsFixture g;
  g.args.v_cache.shape[3] = 96;
  EXPECT_TRUE(Refused(validate(g.args), {"v_cache.shape[3] (head_size) = 96"}));
  ArgsFixture h;
  h.args.out.shape[2] = 256;
  EXPECT_TRUE(Refused(validate(h.args), {"out.shape[2] (head_size) = 256"}));
}

TEST(Validate, BlockSizeAtLeastOne) {
  ArgsFixture f;
  f.args.k_cache.shape[1] = f.args.v_cache.shape[1] = 0;
  EXPECT_TRUE(Refused(validate(f.args), {"k_cache.shape[1] (block_size) = 0", ">= 1"}));
}

TEST(Validate, OddBlockSizesAreServed) {
  ArgsFixture f;
  f.args.k_cache.shape[1] = f.args.v_cache.shape[1] = 13;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
}

TEST(Validate, NegativeDims) {
  ArgsFixture f;
  f.args.q.shape[0] = f.args.out.shape[0] = -1;
  EXPECT_TRUE(Refused(validate(f.args), {"q.shape[0] (num_tokens) = -1", ">= 0"}));
  ArgsFixture g;
  g.args.q.shape[1] = g.args.out.shape[1] = 0;
  EXPECT_TRUE(Refused(validate(g.args), {"q.shape[1] (num_q_heads) = 0"}));
}

TEST(Validate, NumTokensFitsInt32) {
  ArgsFixture f;
  f.args.q.shape[0] = f.args.out.shape[0] = (int64_t)1 << 31;
  EXPECT_TRUE(Refused(validate(f.args), {"q.shape[0] (num_tokens) = 2147483648", "2147483647"}));
}

TEST(Validate, GqaMultiple) {
  ArgsFixture f;
  f.args.q.shape[1] = f.args.out.shape[1] = 12;
  f.args.k_cache.shape[2] = f.args.v_cache.shape[2] = 5;
  const Status s = validate(f.args);
  EXPECT_TRUE(Refused(s, {}));
  EXPECT_EQ(s.message, "uattn: q.shape[1] (num_q_heads) = 12 is not a multiple of k_cache.shape[2] (num_kv_heads) = 5");
}

TEST(Validate, UnusualGqaRatiosAreServed) {  // qpk 7, 71 occur in real models
  ArgsFixture f;
  f.args.q.shape[1] = f.args.out.shape[1] = 14;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
  f.args.q.shape[1] = f.args.out.shape[1] = 142;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
}

TEST(Validate, KvShapesEqual) {
  ArgsFixture f;
  f.args.v_cache.shape[0] = 11;
  EXPECT_TRUE(Refused(validate(f.args), {"v_cache.shape[0] = 11", "k_cache.shape[0] = 10"}));
  ArgsFixture g;
  g.args.v_cache.shape[2] = 4;
  EXPECT_TRUE(Refused(validate(g.args), {"v_cache.shape[2] = 4", "k_cache.shape[2] = 2"}));
}

TEST(Validate, OutShapeEqualsQ) {
  ArgsFixture f;
  f.args.out.shape[0] = 5;
  EXPECT_TRUE(Refused(validate(f.args), {"out.shape[0] = 5", "q.shape[0] = 6"}));
}

TEST(Validate, NullTensorPointers) {
  const char* names[] = {"q.data is null", "k_cache.data is null", "v_cache.data is null", "out.data is null"};
  for (int i = 0; i < 4; ++i) {
    ArgsFixture f;
    TensorDesc* t[] = {&f.args.q, &f.args.k_cache, &f.args.v_cache, &f.args.out};
    t[i]->data = nullptr;
    EXPECT_TRUE(Refused(validate(f.args), {names[i]}));
  }
}

TEST(Validate, NullIndexPointers) {
  ArgsFixture f;
  f.args.cu_seqlens_q = nullptr;
  EXPECT_TRUE(Refused(validate(f.args), {"cu_seqlens_q is null", "num_seqs = 2"}));
  ArgsFixture g;
  g.args.seqused_k = nullptr;
  EXPECT_TRUE(Refused(validate(g.args), {"seqused_k is null"}));
  ArgsFixture h;
  h.args.block_table = nullptr;
  EXPECT_TRUE(Refused(validate(h.args), {"block_table is null"}));
}

TEST(Validate, EmptyCallMayHaveNullPointers) {  // num_seqs = 0 / num_tokens = 0 is a no-op
  ArgsFixture f;
  f.args.num_seqs = 0;
  f.args.q.shape[0] = f.args.out.shape[0] = 0;
  f.args.q.data = f.args.out.data = nullptr;
  f.args.cu_seqlens_q = f.args.seqused_k = f.args.block_table = nullptr;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
}

TEST(Validate, NumSeqsNonNegative) {
  ArgsFixture f;
  f.args.num_seqs = -3;
  EXPECT_TRUE(Refused(validate(f.args), {"num_seqs = -3", ">= 0"}));
}

TEST(Validate, BlockTableStride) {
  ArgsFixture f;
  f.args.block_table_stride = 4;
  EXPECT_TRUE(Refused(validate(f.args), {"block_table_stride = 4", "max_blocks_per_seq = 8"}));
}

TEST(Validate, BlockTableCoversMaxSeqlenK) {
  ArgsFixture f;
  f.args.max_seqlen_k = 129;  // 8 blocks x 16 = 128
  EXPECT_TRUE(Refused(validate(f.args), {"max_blocks_per_seq * block_size = 8 * 16 = 128", "max_seqlen_k = 129"}));
}

TEST(Validate, WindowLeft) {
  ArgsFixture f;
  f.args.window_left = -2;
  EXPECT_TRUE(Refused(validate(f.args), {"window_left = -2", "-1"}));
  f.args.window_left = 0;  // a window of one key
  EXPECT_TRUE(validate(f.args).ok());
}

TEST(Validate, Softcap) {
  ArgsFixture f;
  f.args.softcap = -1.5f;
  EXPECT_TRUE(Refused(validate(f.args), {"softcap = -1.5"}));
  f.args.softcap = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(Refused(validate(f.args), {"softcap = inf"}));
}

TEST(Validate, SoftmaxScale) {
  ArgsFixture f;
  f.args.softmax_scale = 0;
  EXPECT_TRUE(Refused(validate(f.args), {"softmax_scale = 0", "finite value > 0"}));
  f.args.softmax_scale = std::nanf("");
  EXPECT_TRUE(Refused(validate(f.args), {"softmax_scale = nan"}));
}

TEST(Validate, KvScales) {
  ArgsFixture f;
  f.args.k_cache.dtype = f.args.v_cache.dtype = DType::fp8e4m3;
  f.args.k_scale = -1;
  EXPECT_TRUE(Refused(validate(f.args), {"k_scale = -1", "finite value > 0"}));
  f.args.k_scale = 1;
  f.args.v_scale = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(Refused(validate(f.args), {"v_scale = inf"}));
}

TEST(Validate, KvScalesAreOneForF16Cache) {
  ArgsFixture f;
  f.args.v_scale = 0.5f;
  EXPECT_TRUE(Refused(validate(f.args), {"v_scale = 0.5", "k_cache.dtype = f16", "expected 1"}));
}

TEST(Validate, OutputScale) {
  ArgsFixture f;
  f.args.output_scale = 2.0f;  // f16 out
  EXPECT_TRUE(Refused(validate(f.args), {"output_scale = 2", "out.dtype = f16"}));
  f.args.out.dtype = DType::fp8e4m3;
  f.args.output_scale = 0;
  EXPECT_TRUE(Refused(validate(f.args), {"output_scale = 0", "finite value > 0"}));
}

TEST(Validate, QqBiasStride) {
  ArgsFixture f;
  const float bias[64] = {};
  f.args.qq_bias = bias;
  f.args.qq_bias_stride = 4;  // max_seqlen_q = 5
  EXPECT_TRUE(Refused(validate(f.args), {"qq_bias_stride = 4", "max_seqlen_q = 5"}));
  f.args.qq_bias_stride = 8;
  EXPECT_TRUE(validate(f.args).ok());
  f.args.qq_bias = nullptr;  // the stride is ignored without a bias
  f.args.qq_bias_stride = 0;
  EXPECT_TRUE(validate(f.args).ok());
}

// ---- validate_indices -------------------------------------------------------

TEST(ValidateIndices, CuSeqlensStartsAtZero) {
  ArgsFixture f;
  f.cu_seqlens_q = {1, 1, 6};
  EXPECT_TRUE(Refused(f.check_indices(), {"cu_seqlens_q[0] = 1", "expected 0"}));
}

TEST(ValidateIndices, CuSeqlensNonMonotonic) {
  ArgsFixture f;
  f.cu_seqlens_q = {0, 4, 3};
  EXPECT_TRUE(Refused(f.check_indices(), {"cu_seqlens_q[2] = 3 < cu_seqlens_q[1] = 4", "non-decreasing"}));
}

TEST(ValidateIndices, CuSeqlensEndsAtNumTokens) {
  ArgsFixture f;
  f.cu_seqlens_q = {0, 1, 5};
  EXPECT_TRUE(Refused(f.check_indices(), {"cu_seqlens_q[2] = 5", "num_tokens = q.shape[0] = 6"}));
}

TEST(ValidateIndices, QLenWithinMaxSeqlenQ) {
  ArgsFixture f;
  f.args.max_seqlen_q = 4;
  EXPECT_TRUE(Refused(f.check_indices(), {"q_len of sequence 1", "= 5 > max_seqlen_q = 4"}));
}

TEST(ValidateIndices, SequsedKAtLeastQLen) {
  ArgsFixture f;
  f.seqused_k = {100, 3};
  EXPECT_TRUE(Refused(f.check_indices(), {"seqused_k[1] = 3 < q_len 5"}));
}

TEST(ValidateIndices, SequsedKWithinMaxSeqlenK) {
  ArgsFixture f;
  f.seqused_k = {101, 20};
  EXPECT_TRUE(Refused(f.check_indices(), {"seqused_k[0] = 101 > max_seqlen_k = 100"}));
}

TEST(ValidateIndices, BlockIdsInRange) {
  ArgsFixture f;
  f.block_table[8 + 1] = 10;  // sequence 1 uses 2 blocks; num_blocks = 10
  EXPECT_TRUE(Refused(f.check_indices(), {"block_table[1][1] = 10", "[0, num_blocks = 10)", "first 2 entries"}));
  ArgsFixture g;
  g.block_table[3] = -5;
  EXPECT_TRUE(Refused(g.check_indices(), {"block_table[0][3] = -5"}));
}

TEST(ValidateIndices, UnusedEntriesMayHoldGarbage) {  // SPEC.md s.1 edge rules
  ArgsFixture f;
  f.block_table[7] = std::numeric_limits<int32_t>::min();  // sequence 0 uses 7 of 8
  f.block_table[8 + 2] = 0x7fffffff;
  EXPECT_TRUE(f.check_indices().ok()) << f.check_indices().message;
}

TEST(ValidateIndices, ZeroLengthQueryIsOrdinary) {
  ArgsFixture f;
  f.cu_seqlens_q = {0, 0, 6};  // sequence 0 has q_len 0 ...
  f.args.max_seqlen_q = 6;
  EXPECT_TRUE(f.check_indices().ok()) << f.check_indices().message;
}

TEST(ValidateIndices, RunsValidateFirst) {
  ArgsFixture f;
  f.args.window_left = -7;
  EXPECT_TRUE(Refused(f.check_indices(), {"window_left = -7"}));
}

// ---- describe / make_params -------------------------------------------------

TEST(Describe, ProblemAndFeatures) {
  ArgsFixture f;
  const float slopes[16] = {}, sinks[16] = {};
  f.args.window_left = 255;
  f.args.softcap = 50;
  f.args.alibi_slopes = slopes;
  f.args.sinks = sinks;
  const ProblemDesc p = describe(f.args, Arch::gfx1030, 60);
  EXPECT_EQ(p.arch, Arch::gfx1030);
  EXPECT_EQ(p.head_size, 128);
  EXPECT_EQ(p.block_size, 16);
  EXPECT_EQ(p.num_q_heads, 16);
  EXPECT_EQ(p.num_kv_heads, 2);
  EXPECT_EQ(p.num_tokens, 6);
  EXPECT_EQ(p.num_seqs, 2);
  EXPECT_EQ(p.max_seqlen_q, 5);
  EXPECT_EQ(p.max_seqlen_k, 100);
  EXPECT_EQ(p.num_cus, 60);
  EXPECT_EQ(p.features, (uint32_t)(kFeatWindow | kFeatSoftcap | kFeatAlibi | kFeatSinks));
  EXPECT_EQ(features_of(ArgsFixture().args), 0u);
}

TEST(MakeParams, StridesScalarsAndWorkspace) {
  ArgsFixture f;
  f.args.k_cache.stride[0] = f.args.v_cache.stride[0] = 2 * 16 * 2 * 128;  // a combined-kv view
  f.args.window_left = 31;
  Selection sel;
  sel.ok = true;
  sel.path = Path::k3D;
  sel.num_segments = 4;
  alignas(16) static char ws[1 << 20];
  const AttnParams p = make_params(f.args, sel, ws);
  EXPECT_EQ(p.q, f.q.data());
  EXPECT_EQ(p.out, f.out.data());
  EXPECT_EQ(p.k_stride_block, 8192);
  EXPECT_EQ(p.k_stride_slot, 256);
  EXPECT_EQ(p.k_stride_head, 128);
  EXPECT_EQ(p.q_stride_token, 2048);
  EXPECT_EQ(p.o_stride_head, 128);
  EXPECT_EQ(p.block_table_stride, 8);
  EXPECT_EQ(p.num_tokens, 6);
  EXPECT_EQ(p.num_q_heads, 16);
  EXPECT_EQ(p.num_kv_heads, 2);
  EXPECT_EQ(p.head_size, 128);
  EXPECT_EQ(p.block_size, 16);
  EXPECT_EQ(p.window_left, 31);
  EXPECT_EQ(p.out_dtype, (int32_t)DType::f16);
  EXPECT_EQ(p.num_segments, 4);
  const WorkspaceLayout w = workspace_layout(6, 16, 4, 128);
  EXPECT_EQ((char*)p.ws_acc, ws + w.acc_offset);
  EXPECT_EQ((char*)p.ws_max, ws + w.max_offset);
  EXPECT_EQ((char*)p.ws_sum, ws + w.sum_offset);

  sel.path = Path::k2D;
  const AttnParams p2 = make_params(f.args, sel, nullptr);
  EXPECT_EQ(p2.num_segments, 1);
  EXPECT_EQ(p2.ws_acc, nullptr);
}

}  // namespace
}  // namespace uattn
