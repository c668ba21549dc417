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
  std::vector<uint16_t> padded(6 * 16 * 136);  // q with padded head rows: a buffer of its own size
  f.args.q.data = padded.data();
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

// Hostile-input class 2: element counts and stride spans are checked 64-bit. A null
// k_cache whose shape multiplies past 2^64 must not pass as an empty tensor.
TEST(Validate, ElementCountOverflowIsRefused) {
  ArgsFixture f;
  f.args.k_cache.shape[0] = f.args.v_cache.shape[0] = 2147483647;
  f.args.k_cache.shape[1] = f.args.v_cache.shape[1] = 2147483647;
  f.args.k_cache.data = nullptr;
  f.args.max_blocks_per_seq = f.args.block_table_stride = 1;
  EXPECT_TRUE(Refused(validate(f.args), {"k_cache.shape = [2147483647, 2147483647, 2, 128]",
                                         "the element count overflows 64 bits",
                                         "expected at most 9223372036854775807 elements"}));
}

TEST(Validate, StrideSpanOverflowIsRefused) {
  ArgsFixture f;
  f.args.q.stride[0] = (int64_t)1 << 62;  // 5 rows of 2^62 elements of 2 bytes
  EXPECT_TRUE(Refused(validate(f.args), {"q.shape = [6, 16, 128] with its strides spans more than "
                                         "9223372036854775807 bytes"}));
  ArgsFixture g;
  g.args.out.stride[1] = std::numeric_limits<int64_t>::min();
  EXPECT_TRUE(Refused(validate(g.args), {"out.shape = [6, 16, 128] with its strides spans more than"}));
  ArgsFixture h;  // the largest span that fits is accepted
  h.args.k_cache.stride[0] = h.args.v_cache.stride[0] = ((int64_t)1 << 62) / 10;
  EXPECT_TRUE(validate(h.args).ok()) << validate(h.args).message;
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
  std::vector<uint16_t> q(6 * 142 * 128), out(q.size());  // buffers and token strides of 142 heads
  f.args.q.data = q.data();
  f.args.out.data = out.data();
  f.args.q.stride[0] = f.args.out.stride[0] = 142 * 128;
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

// Hostile-input class 4: negative host-known bounds are refused by name.
TEST(Validate, NegativeMaxSeqlens) {
  ArgsFixture f;
  f.args.max_seqlen_q = -1;
  EXPECT_TRUE(Refused(validate(f.args), {"uattn: max_seqlen_q = -1; expected >= 0"}));
  ArgsFixture g;
  g.args.max_seqlen_k = -7;
  EXPECT_TRUE(Refused(validate(g.args), {"uattn: max_seqlen_k = -7; expected >= 0"}));
}

// The kernels hold key indices in int32: max_seqlen_k (which bounds every
// seqused_k) is refused past kMaxKvLen = 2^31 - 2^16, and accepted up to it.
TEST(Validate, MaxSeqlenKAboveKMaxKvLen) {
  ArgsFixture f;
  f.args.max_seqlen_k = (int32_t)kMaxKvLen + 1;
  f.args.max_blocks_per_seq = f.args.block_table_stride = (int32_t)(kMaxKvLen / 16 + 1);
  EXPECT_TRUE(Refused(validate(f.args), {"uattn: max_seqlen_k = 2147418113; expected <= 2147418112 (kMaxKvLen"}));
  f.args.max_seqlen_k = (int32_t)kMaxKvLen;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
  EXPECT_EQ(kMaxKvLen, ((int64_t)1 << 31) - ((int64_t)1 << 16));
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

// Each scale alone finite and > 0, their product (the kernels' logit scale qk)
// outside [FLT_MIN, FLT_MAX / log2(e)]: 1 / qk or qk * log2(e) would not be finite.
TEST(Validate, LogitScale) {
  ArgsFixture f;
  f.args.softmax_scale = 1e-39f;  // subnormal: > 0, finite
  EXPECT_TRUE(Refused(validate(f.args), {"softmax_scale * k_scale", "expected a logit scale from"}));
  f.args.softmax_scale = 3e38f;  // finite, but qk * log2(e) is not
  EXPECT_TRUE(Refused(validate(f.args), {"softmax_scale * k_scale", "expected a logit scale from"}));
  f.args.k_cache.dtype = f.args.v_cache.dtype = DType::fp8e4m3;
  f.args.softmax_scale = 1e-20f;
  f.args.k_scale = 1e-20f;  // both normal, their product is not
  EXPECT_TRUE(Refused(validate(f.args), {"softmax_scale * k_scale", "1e-20"}));
  f.args.softmax_scale = 0.125f;
  f.args.k_scale = 0.01f;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
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
  // SPEC.md s.1 step 5 defines a bias narrower than max_seqlen_q (= 5 here):
  // keys past the width get none. Hostile-input class 9: this was refused.
  for (int width : {1, 4, 5, 8}) {
    f.args.qq_bias_stride = width;
    EXPECT_TRUE(validate(f.args).ok()) << width << ": " << validate(f.args).message;
  }
  f.args.qq_bias_stride = 0;
  EXPECT_TRUE(Refused(validate(f.args), {"qq_bias_stride = 0", "expected >= 1"}));
  f.args.qq_bias_stride = -3;
  EXPECT_TRUE(Refused(validate(f.args), {"qq_bias_stride = -3"}));
  // At most 2^29 fp32 values, 2 GiB (max_seqlen_q = 5 rows here).
  f.args.qq_bias_stride = (1 << 29) / 5;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
  f.args.qq_bias_stride = (1 << 29) / 5 + 1;
  EXPECT_TRUE(Refused(validate(f.args), {"qq_bias [max_seqlen_q = 5, qq_bias_stride = 107374183]",
                                         "holds 536870915 fp32 values", "expected at most 536870912 (2 GiB)"}));
  // Both bounds at their int32 maximum: the product is formed in 64 bits, refused.
  f.args.max_seqlen_q = f.args.qq_bias_stride = 2147483647;
  EXPECT_TRUE(Refused(validate(f.args), {"holds 4611686014132420609 fp32 values"}));
  f.args.max_seqlen_q = 5;
  f.args.qq_bias = nullptr;  // the stride is ignored without a bias
  f.args.qq_bias_stride = 0;
  EXPECT_TRUE(validate(f.args).ok());
}

// ---- layouts that overlap or run backwards (hostile-input class 3) --------------

TEST(Validate, NegativeStridesAreRefused) {
  for (const char* name : {"q", "k_cache", "v_cache", "out"}) {
    ArgsFixture f;
    TensorDesc& t = name[0] == 'q' ? f.args.q : name[0] == 'k' ? f.args.k_cache : name[0] == 'v' ? f.args.v_cache
                                                                                                   : f.args.out;
    t.stride[0] = -t.stride[0];
    EXPECT_TRUE(Refused(validate(f.args), {name, ".stride[0] = -", "expected >= 0"})) << name;
  }
}

TEST(Validate, OutRowsMustNotOverlap) {
  ArgsFixture f;  // out [6, 16, 128], strides [2048, 128, 1]
  f.args.out.stride[1] = 127;  // heads overlap by one element
  EXPECT_TRUE(Refused(validate(f.args), {"out.stride[1] (num_q_heads) = 127", "rows of out overlap",
                                         "expected a stride >= 128"}));
  f.args.out.stride[1] = 0;  // every head on the same row
  EXPECT_TRUE(Refused(validate(f.args), {"out.stride[1] (num_q_heads) = 0"}));
  f.args.out.stride[1] = 128;
  f.args.out.stride[0] = 16 * 128 - 1;  // tokens overlap
  EXPECT_TRUE(Refused(validate(f.args), {"out.stride[0] (num_tokens) = 2047", "expected a stride >= 2048"}));
  f.args.out.stride[0] = 16 * 128;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
  // Head-major out ([Hq, T, D] memory order) does not overlap: served.
  f.args.out.stride[0] = 128;
  f.args.out.stride[1] = 6 * 128;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
  f.args.out.stride[1] = 5 * 128;  // the last token of head h meets head h + 1
  EXPECT_TRUE(Refused(validate(f.args), {"rows of out overlap"}));
  // A dimension of size 1 may have any stride.
  ArgsFixture g;
  g.args.out.shape[0] = g.args.q.shape[0] = 1;
  g.cu_seqlens_q = {0, 1, 1};
  g.args.out.stride[0] = 0;
  EXPECT_TRUE(validate(g.args).ok()) << validate(g.args).message;
}

TEST(Validate, OutMustNotShareMemoryWithInputs) {
  ArgsFixture f;
  f.args.out.data = f.args.q.data;  // in place
  EXPECT_TRUE(Refused(validate(f.args), {"out.data (bytes [0x", "overlaps q.data", "out == q, is not served"}));
  f.args.out.data = f.k.data() + 10 * 16 * 2 * 128 - 1;  // the last element of k_cache
  EXPECT_TRUE(Refused(validate(f.args), {"overlaps k_cache"}));
  f.args.out.data = f.v.data() + 5;
  EXPECT_TRUE(Refused(validate(f.args), {"overlaps v_cache"}));
  // Adjacent is not overlapping: out right after q in one allocation.
  std::vector<uint16_t> both(2 * 6 * 16 * 128);
  f.args.q.data = both.data();
  f.args.out.data = both.data() + 6 * 16 * 128;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
  f.args.out.data = both.data() + 6 * 16 * 128 - 1;
  EXPECT_TRUE(Refused(validate(f.args), {"overlaps q"}));
  // The inputs may share memory with one another (they are only read).
  f.args.out.data = f.out.data();
  f.args.v_cache.data = f.args.k_cache.data;
  EXPECT_TRUE(validate(f.args).ok()) << validate(f.args).message;
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

TEST(ValidateIndices, CuSeqlensEndsAtMostAtNumTokens) {
  ArgsFixture f;
  f.cu_seqlens_q = {0, 1, 7};
  f.args.max_seqlen_q = 6;
  EXPECT_TRUE(Refused(f.check_indices(), {"cu_seqlens_q[2] = 7 > num_tokens = q.shape[0] = 6", "padding"}));
  f.cu_seqlens_q = {0, 1, 5};  // row 5 of q/out is padding (SPEC.md s.1): served, never written
  f.args.max_seqlen_q = 4;
  EXPECT_TRUE(f.check_indices().ok()) << f.check_indices().message;
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
  EXPECT_TRUE(Refused(f.check_indices(), {"block_table[1][1] = 10", "[0, num_blocks = 10)", "sequence 1 uses"}));
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

// ---- SPEC.md s.1 at its boundaries (hostile-input class 9) -------------------------
// Every rule of the contract that validate() / validate_indices() enforce, with
// the value at the boundary (accepted) and one step past it (refused, the
// message naming the argument): validation accepts exactly what SPEC defines.
struct Boundary {
  const char* rule;
  void (*set)(ArgsFixture& f, bool past);  // past = false: the last accepted value; true: the first refused
  const char* fragment;                    // in the refusal
};

const Boundary kBoundaries[] = {
    {"num_tokens >= 0", [](ArgsFixture& f, bool past) {
       f.args.q.shape[0] = f.args.out.shape[0] = past ? -1 : 0;
       f.args.num_seqs = 0;
     }, "q.shape[0] (num_tokens) = -1"},
    {"num_blocks >= 0", [](ArgsFixture& f, bool past) {
       f.args.k_cache.shape[0] = f.args.v_cache.shape[0] = past ? -1 : 0;
       f.args.num_seqs = 0;
     }, "k_cache.shape[0] (num_blocks) = -1"},
    {"block_size >= 1", [](ArgsFixture& f, bool past) {
       f.args.k_cache.shape[1] = f.args.v_cache.shape[1] = past ? 0 : 1;
       f.args.max_seqlen_k = 0;
       f.args.num_seqs = 0;
     }, "k_cache.shape[1] (block_size) = 0"},
    {"num_q_heads % num_kv_heads == 0", [](ArgsFixture& f, bool past) {
       f.args.k_cache.shape[2] = f.args.v_cache.shape[2] = past ? 3 : 16;  // Hq = 16
     }, "not a multiple of k_cache.shape[2] (num_kv_heads) = 3"},
    {"head_size contiguous", [](ArgsFixture& f, bool past) { f.args.q.stride[2] = past ? 2 : 1; },
     "q.stride[2] = 2"},
    {"strides >= 0", [](ArgsFixture& f, bool past) { f.args.k_cache.stride[2] = past ? -1 : 0; },
     "k_cache.stride[2] = -1"},
    {"out rows do not overlap", [](ArgsFixture& f, bool past) { f.args.out.stride[1] = past ? 127 : 128; },
     "out.stride[1] (num_q_heads) = 127"},
    {"num_seqs >= 0", [](ArgsFixture& f, bool past) { f.args.num_seqs = past ? -1 : 0; }, "num_seqs = -1"},
    {"max_seqlen_q >= 0", [](ArgsFixture& f, bool past) {
       f.args.max_seqlen_q = past ? -1 : 0;
       f.args.num_seqs = 0;
     }, "max_seqlen_q = -1"},
    {"max_seqlen_k >= 0", [](ArgsFixture& f, bool past) {
       f.args.max_seqlen_k = past ? -1 : 0;
       f.args.num_seqs = 0;
     }, "max_seqlen_k = -1"},
    {"block_table_stride >= max_blocks_per_seq", [](ArgsFixture& f, bool past) {
       f.args.block_table_stride = past ? 7 : 8;
     }, "block_table_stride = 7 < max_blocks_per_seq = 8"},
    {"max_blocks_per_seq * block_size >= max_seqlen_k", [](ArgsFixture& f, bool past) {
       f.args.max_seqlen_k = past ? 8 * 16 + 1 : 8 * 16;
     }, "max_seqlen_k = 129"},
    // softmax_scale's own bounds (> 0, finite); the accepted values are those of
    // the logit scale's bounds below (k_scale = 1), which is stricter.
    {"softmax_scale > 0", [](ArgsFixture& f, bool past) {
       f.args.softmax_scale = past ? 0.0f : std::numeric_limits<float>::min();
     }, "softmax_scale = 0"},
    {"softmax_scale finite", [](ArgsFixture& f, bool past) {
       f.args.softmax_scale =
           past ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::max() / 1.4426950408889634f;
     }, "softmax_scale = inf"},
    {"window_left >= -1", [](ArgsFixture& f, bool past) { f.args.window_left = past ? -2 : -1; },
     "window_left = -2"},
    {"softcap >= 0", [](ArgsFixture& f, bool past) {
       f.args.softcap = past ? -std::numeric_limits<float>::denorm_min() : 0.0f;
     }, "softcap = -"},
    {"softcap finite", [](ArgsFixture& f, bool past) {
       f.args.softcap = past ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::max();
     }, "softcap = inf"},
    {"k_scale = 1 for f16 KV", [](ArgsFixture& f, bool past) {
       f.args.k_scale = past ? std::nextafter(1.0f, 2.0f) : 1.0f;
     }, "k_scale = 1"},
    {"softmax_scale * k_scale >= FLT_MIN (1 / qk finite)", [](ArgsFixture& f, bool past) {
       const float lo = std::numeric_limits<float>::min();
       f.args.softmax_scale = past ? std::nextafter(lo, 0.0f) : lo;
     }, "softmax_scale * k_scale"},
    {"softmax_scale * k_scale <= FLT_MAX / log2(e) (qk * log2(e) finite)", [](ArgsFixture& f, bool past) {
       const float hi = std::numeric_limits<float>::max() / 1.4426950408889634f;
       f.args.softmax_scale = past ? std::nextafter(hi, 1e38f * 4.0f) : hi;
     }, "softmax_scale * k_scale"},
    {"qq_bias width >= 1 (narrower than max_seqlen_q is defined)", [](ArgsFixture& f, bool past) {
       static const float bias[64] = {};
       f.args.qq_bias = bias;
       f.args.qq_bias_stride = past ? 0 : 1;
     }, "qq_bias_stride = 0"},
    {"qq_bias at most 2^29 fp32 values (max_seqlen_q x width)", [](ArgsFixture& f, bool past) {
       static const float bias[64] = {};
       f.args.qq_bias = bias;
       f.args.qq_bias_stride = (1 << 29) / f.args.max_seqlen_q + (past ? 1 : 0);
     }, "expected at most 536870912 (2 GiB)"},
    // The index arrays (validate_indices).
    {"cu_seqlens_q[0] == 0", [](ArgsFixture& f, bool past) { f.cu_seqlens_q = {past ? -1 : 0, 1, 6}; },
     "cu_seqlens_q[0] = -1"},
    {"cu_seqlens_q non-decreasing", [](ArgsFixture& f, bool past) {
       f.cu_seqlens_q = {0, past ? 2 : 1, 1};  // equal: q_len 0 is ordinary
       f.args.max_seqlen_q = 6;
     }, "cu_seqlens_q[2] = 1 < cu_seqlens_q[1] = 2"},
    {"q_len <= max_seqlen_q", [](ArgsFixture& f, bool past) { f.args.max_seqlen_q = past ? 4 : 5; },
     "= 5 > max_seqlen_q = 4"},
    {"seqused_k >= q_len", [](ArgsFixture& f, bool past) { f.seqused_k = {100, past ? 4 : 5}; },
     "seqused_k[1] = 4 < q_len 5"},
    {"seqused_k <= max_seqlen_k", [](ArgsFixture& f, bool past) { f.seqused_k = {past ? 101 : 100, 20}; },
     "seqused_k[0] = 101 > max_seqlen_k = 100"},
    {"block id >= 0", [](ArgsFixture& f, bool past) { f.block_table[8] = past ? -1 : 0; },
     "block_table[1][0] = -1"},
    {"block id < num_blocks", [](ArgsFixture& f, bool past) { f.block_table[8 + 1] = past ? 10 : 9; },
     "block_table[1][1] = 10 is outside [0, num_blocks = 10)"},
    {"block ids of the used columns only", [](ArgsFixture& f, bool past) {
       f.seqused_k = {100, past ? 33 : 32};  // 32 keys use 2 blocks; 33 reach column 2 (garbage -1)
     }, "block_table[1][2] = -1"},
    {"cu_seqlens_q[num_seqs] <= num_tokens", [](ArgsFixture& f, bool past) {
       f.args.q.shape[0] = f.args.out.shape[0] = past ? 5 : 6;  // fewer rows than tokens; more is padding
     }, "cu_seqlens_q[2] = 6 > num_tokens = q.shape[0] = 5"},
};

TEST(SpecBoundaries, EachRuleAcceptsItsBoundaryAndRefusesOnePast) {
  for (const Boundary& b : kBoundaries) {
    ArgsFixture at;
    b.set(at, false);
    const Status ok = at.check_indices();
    EXPECT_TRUE(ok.ok()) << b.rule << ": the boundary value was refused: " << ok.message;
    ArgsFixture past;
    b.set(past, true);
    EXPECT_TRUE(Refused(past.check_indices(), {b.fragment})) << b.rule;
  }
}

TEST(SpecBoundaries, PaddingRowsPastTheLastSequenceAreServed) {  // SPEC.md s.1, hostile-input class 8
  ArgsFixture f;
  f.args.q.shape[0] = f.args.out.shape[0] = 6;
  f.cu_seqlens_q = {0, 1, 3};  // 3 padding rows
  f.seqused_k = {100, 20};
  EXPECT_TRUE(f.check_indices().ok()) << f.check_indices().message;
}

TEST(SpecBoundaries, HostAndDeviceStatusWordsGiveOneMessage) {
  ArgsFixture f;
  // The status words of a checked launch (uattn/kernel/check.hpp) name the same
  // violation as the host check: rule 7 (block id), sequence 1, column 1, value 10.
  const uint32_t st[4] = {7, 1, 1, 10};
  f.block_table[8 + 1] = 10;
  EXPECT_EQ(index_violation_message(f.args, st), f.check_indices().message);
  const uint32_t ok[4] = {0, 0, 0, 0};
  EXPECT_EQ(index_violation_message(f.args, ok), "");
  const uint32_t bad[4] = {99, 0, 0, 0};
  EXPECT_NE(index_violation_message(f.args, bad).find("not a known rule"), std::string::npos);
}

TEST(ValidateIndices, ArgsOwnHostCopies) {
  ArgsFixture f;
  f.args.cu_seqlens_q_host = f.cu_seqlens_q.data();
  f.args.seqused_k_host = f.seqused_k.data();
  f.args.block_table_host = f.block_table.data();
  EXPECT_TRUE(validate_indices(f.args).ok());
  f.block_table[0] = 10;
  EXPECT_TRUE(Refused(validate_indices(f.args), {"block_table[0][0] = 10"}));
  f.args.seqused_k_host = nullptr;
  EXPECT_TRUE(Refused(validate_indices(f.args), {"seqused_k_host is null"}));
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

// ---- the selector's refusals (Selection::invalid) ----------------------------

ProblemDesc small_problem() {
  ProblemDesc p;
  p.arch = Arch::gfx950;
  p.head_size = 128;
  p.block_size = 16;
  p.num_q_heads = 16;
  p.num_kv_heads = 2;
  p.num_seqs = 1;
  p.num_tokens = 1;
  p.max_seqlen_q = 1;
  p.max_seqlen_k = 4096;
  return p;
}

TEST(SelectRefusal, FixtureProblemIsServed) {
  const Selection s = select(small_problem());
  EXPECT_TRUE(s.ok) << s.error;
  EXPECT_FALSE(s.invalid);
}

// Hostile-input class 4: an Arch outside the enum is refused, not read as another.
TEST(SelectRefusal, ArchOutsideTheEnum) {
  for (int a : {kNumArchs, -1, 1000}) {
    ProblemDesc p = small_problem();
    p.arch = (Arch)a;
    const Selection s = select(p);
    EXPECT_FALSE(s.ok);
    EXPECT_TRUE(s.invalid);
    EXPECT_EQ(s.error, "invalid problem: arch=" + std::to_string(a) + ": expected one of gfx950, gfx1030");
  }
}

TEST(SelectRefusal, NegativeSeqlens) {
  ProblemDesc p = small_problem();
  p.max_seqlen_q = -1;
  Selection s = select(p);
  EXPECT_TRUE(s.invalid);
  EXPECT_EQ(s.error, "invalid problem: max_seqlen_q=-1, max_seqlen_k=4096: expected >= 0");
  p = small_problem();
  p.max_seqlen_k = -5;
  s = select(p);
  EXPECT_TRUE(s.invalid);
  EXPECT_EQ(s.error, "invalid problem: max_seqlen_q=1, max_seqlen_k=-5: expected >= 0");
  p = small_problem();
  p.num_cus = -2;
  s = select(p);
  EXPECT_TRUE(s.invalid);
  EXPECT_EQ(s.error, "invalid problem: num_cus=-2: expected 0 (the architecture's count) or > 0");
}

// Hostile-input class 4: options outside their ranges are refusals (INVALID_ARGUMENT),
// never "no instance" and never silently "auto".
TEST(SelectRefusal, OptionsOutOfRange) {
  SelectOptions o;
  o.num_segments = kMaxSegments + 1;
  EXPECT_EQ(options_error(o), "options.num_segments = 1025; expected 0 (automatic) to 1024");
  Selection s = select(small_problem(), o);
  EXPECT_FALSE(s.ok);
  EXPECT_TRUE(s.invalid);
  EXPECT_EQ(s.error, "options.num_segments = 1025; expected 0 (automatic) to 1024");
  o.num_segments = -1;
  EXPECT_EQ(options_error(o), "options.num_segments = -1; expected 0 (automatic) to 1024");
  o.num_segments = kMaxSegments;
  EXPECT_EQ(options_error(o), "");
  // A segment count with a forced 2D path is a usage error too (it was "no instance").
  o.num_segments = 3;
  o.path = ForcePath::k2D;
  const std::string two_d = "options.num_segments = 3 with options.path = 1 (2d): a segment count applies to the 3D "
                            "(split-KV) path only; expected num_segments 0, or path 0 (auto) or 2 (3d)";
  EXPECT_EQ(options_error(o), two_d);
  s = select(small_problem(), o);
  EXPECT_FALSE(s.ok);
  EXPECT_TRUE(s.invalid);
  EXPECT_EQ(s.error, two_d);
  o.num_segments = 0;
  EXPECT_EQ(options_error(o), "");
  o.num_segments = kMaxSegments;
  for (int bad : {3, -1, 99}) {
    o.path = (ForcePath)bad;
    EXPECT_EQ(options_error(o), "options.path = " + std::to_string(bad) + "; expected 0 (auto), 1 (2d) or 2 (3d)");
    s = select(small_problem(), o);
    EXPECT_FALSE(s.ok);
    EXPECT_TRUE(s.invalid);
  }
}

// Hostile-input class 2: max_seqlen_k + block_n - 1 is computed in 64 bits; past
// kMaxKvLen (the kernels' int32 key indices) the problem is refused by name.
TEST(SelectRefusal, KvTilesNearInt32Max) {
  ProblemDesc p = small_problem();
  p.max_seqlen_k = (int)kMaxKvLen + 1;
  Selection s = select(p);
  EXPECT_FALSE(s.ok);
  EXPECT_TRUE(s.invalid);
  EXPECT_EQ(s.error, "invalid problem: max_seqlen_k=2147418113: expected <= 2147418112 (kMaxKvLen)");
  p.max_seqlen_k = 2147483647;
  EXPECT_FALSE(select(p).ok);
  p.max_seqlen_k = (int)kMaxKvLen;
  SelectOptions o;
  o.path = ForcePath::k3D;
  o.explain = true;
  s = select(p, o);
  ASSERT_TRUE(s.ok) << s.error;
  const int64_t bn = s.attention.row->block_n;
  const int64_t tiles = (kMaxKvLen + bn - 1) / bn;
  // The cap, not 1 from a wrapped tile count: with the reduce kernel (8 packed
  // rows: no fused reduce) twice the wave size; with the fused reduce it would
  // be gfx950's max_segments.
  EXPECT_FALSE(s.fused_reduce);
  EXPECT_EQ(auto_fused_segment_cap(p.arch, default_policy(p.arch)), 256);
  const int cap = auto_segment_cap(p.arch, default_policy(p.arch));
  EXPECT_EQ(cap, 128);
  EXPECT_EQ(s.num_segments, cap);
  bool seen = false;  // the chosen candidate walks ceil(tiles / cap) tiles, from the unwrapped count
  for (const CandidateEstimate& c : s.candidates)
    if (c.num_segments == cap) { seen = true; EXPECT_EQ(c.tiles, (tiles + cap - 1) / cap) << s.why; }
  EXPECT_TRUE(seen) << s.why;
}

// Hostile-input class 2: the workspace size is checked 64-bit and refused when it wraps.
TEST(SelectRefusal, WorkspaceOverflow) {
  const WorkspaceLayout w = workspace_layout(2147483647, 1 << 20, 1024, 128);
  EXPECT_EQ(w.total_bytes, 0u);
  const WorkspaceLayout ok = workspace_layout(6, 16, 4, 128);
  EXPECT_EQ(ok.total_bytes, 6u * 16 * 4 * (128 + 2) * 4);
  EXPECT_EQ(ok.sum_offset, 6u * 16 * 4 * (128 + 1) * 4);
  // An odd row count: 1 row of 16 dims = 64 + 8 bytes, rounded up to 80 (the
  // 3D epilogue stores 16-byte vectors; a buffer that ends on a 16-byte
  // boundary then starts on one).
  const WorkspaceLayout odd = workspace_layout(1, 1, 1, 16);
  EXPECT_EQ(odd.total_bytes, 80u);
  EXPECT_EQ(odd.max_offset, 64u);
  EXPECT_EQ(odd.sum_offset, 68u);
  ProblemDesc p = small_problem();
  p.num_tokens = 2147483647 / 64;
  p.max_seqlen_q = 1;
  p.num_q_heads = p.num_kv_heads = 1 << 24;
  SelectOptions o;
  o.path = ForcePath::k3D;
  o.num_segments = 1024;
  const Selection s = select(p, o);
  EXPECT_FALSE(s.ok);
  EXPECT_TRUE(s.invalid);
  EXPECT_EQ(s.error, "workspace = num_tokens * num_q_heads * num_segments * (head_size + 2) * 4 bytes = 33554431 * "
                     "16777216 * 1024 * (128 + 2) * 4 does not fit in 64 bits");
}

// Hostile-input class 2: the problem builder sums token counts in 64 bits (four
// sequences of 2^30 tokens are not zero tokens).
TEST(ProblemBuilder, KvLenAboveKMaxKvLen) {
  const int32_t q_lens[] = {1, 1}, kv_lens[] = {64, (int32_t)kMaxKvLen + 1};
  ProblemArgs a;
  a.head_size = 128; a.block_size = 16; a.num_q_heads = 8; a.num_kv_heads = 2;
  a.q_lens = q_lens;
  a.kv_lens = kv_lens;
  a.num_seqs = 2;
  EXPECT_EQ(problem_args_error(a), "max_seqlen_k = largest of kv_lens = 2147418113; expected <= 2147418112 (kMaxKvLen)");
  EXPECT_FALSE(select(make_problem(a)).ok);
  a.num_seqs = 1;  // the first sequence alone
  EXPECT_EQ(problem_args_error(a), "");
}

TEST(ProblemBuilder, TokenSumOverflow) {
  const int32_t q_lens[] = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
  ProblemArgs a;
  a.head_size = 128; a.block_size = 16; a.num_q_heads = 8; a.num_kv_heads = 2;
  a.q_lens = a.kv_lens = q_lens;
  a.num_seqs = 4;
  EXPECT_EQ(problem_args_error(a),
            "num_tokens = sum of q_lens = 4294967296 (4 sequences); expected <= 2147483647 (kMaxTokens)");
  const ProblemDesc p = make_problem(a);
  EXPECT_EQ(p.num_tokens, -1);
  EXPECT_EQ(p.max_seqlen_q, 1 << 30);
  const Selection s = select(p);
  EXPECT_FALSE(s.ok);
  EXPECT_TRUE(s.invalid);
  a.num_seqs = 1;
  EXPECT_EQ(problem_args_error(a), "");
  EXPECT_EQ(make_problem(a).num_tokens, 1 << 30);
  const int32_t neg[] = {3, -2};
  a.q_lens = neg;
  a.num_seqs = 2;
  EXPECT_EQ(problem_args_error(a), "q_lens[1] = -2; expected >= 0");
  a.num_seqs = -1;
  EXPECT_EQ(problem_args_error(a), "num_seqs = -1; expected >= 0");
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
