// The structs generated from the argument schema (generator/uattn_gen/args.py)
// against their documented layouts. uattn_args_t is the C ABI (uattn.h) and
// AttnParams the kernel argument every shipped code object reads: both are
// compared, field by field, with frozen copies of the layouts they had when they
// were hand-written (Frozen* below, copied from uattn.h and params.hpp of uattn
// 0.1.0, which the schema must keep: the same fields in the same order, of the
// same types at the same offsets; new fields only after them).
// AttentionArgs and ProblemArgs are checked against the schema's lists
// themselves (every entry a field of the documented type).
#include <stddef.h>

#include <type_traits>

#include <gtest/gtest.h>

#include "uattn/generated/args.hpp"
#include "uattn/kernel/params.hpp"
#include "uattn/uattn.h"
#include "uattn/validate.hpp"

namespace {

struct FrozenArgs {  // uattn.h, uattn_args_t
  uattn_tensor_t q, k_cache, v_cache, out;
  const int32_t* cu_seqlens_q;
  const int32_t* seqused_k;
  const int32_t* block_table;
  int32_t num_seqs;
  int32_t max_blocks_per_seq;
  int64_t block_table_stride;
  int32_t max_seqlen_q;
  int32_t max_seqlen_k;
  float softmax_scale;
  int32_t window_left;
  float softcap;
  float k_scale, v_scale;
  const float* alibi_slopes;
  const float* qq_bias;
  int32_t qq_bias_stride;
  const float* sinks;
  float output_scale;
  const int32_t* cu_seqlens_q_host;
  const int32_t* seqused_k_host;
  const int32_t* block_table_host;
  uint32_t* index_status;
};

struct FrozenParams {  // params.hpp, AttnParams
  const void* q;
  const void* k_cache;
  const void* v_cache;
  void* out;
  const int32_t* cu_seqlens_q;
  const int32_t* seqused_k;
  const int32_t* block_table;
  const float* alibi_slopes;
  const float* qq_bias;
  const float* sinks;
  float* ws_acc;
  float* ws_max;
  float* ws_sum;
  int64_t q_stride_token, q_stride_head;
  int64_t k_stride_block, k_stride_slot, k_stride_head;
  int64_t v_stride_block, v_stride_slot, v_stride_head;
  int64_t o_stride_token, o_stride_head;
  int64_t block_table_stride;
  int32_t num_seqs;
  int32_t num_tokens;
  int32_t num_q_heads;
  int32_t num_kv_heads;
  int32_t head_size;
  int32_t block_size;
  int32_t qq_bias_stride;
  int32_t window_left;
  float softcap;
  float softmax_scale;
  float k_scale;
  float v_scale;
  float output_scale;
  int32_t out_dtype;
  int32_t num_segments;
  int32_t num_blocks;
  int32_t max_seqlen_q;
  int32_t max_seqlen_k;
  int32_t max_blocks_per_seq;
  int32_t q_blocks_per_seq;
  uint32_t* status;
};

// Each frozen field is the generated struct's field of the same type at the same offset.
#define SAME_FIELD(GEN, FROZEN, NAME)                                                            \
  static_assert(offsetof(GEN, NAME) == offsetof(FROZEN, NAME), #GEN "::" #NAME " moved");         \
  static_assert(std::is_same_v<decltype(GEN::NAME), decltype(FROZEN::NAME)>, #GEN "::" #NAME " changed type");
#define FROZEN_ARGS(X)                                                                              \
  X(q) X(k_cache) X(v_cache) X(out) X(cu_seqlens_q) X(seqused_k) X(block_table) X(num_seqs)         \
  X(max_blocks_per_seq) X(block_table_stride) X(max_seqlen_q) X(max_seqlen_k) X(softmax_scale)      \
  X(window_left) X(softcap) X(k_scale) X(v_scale) X(alibi_slopes) X(qq_bias) X(qq_bias_stride)      \
  X(sinks) X(output_scale) X(cu_seqlens_q_host) X(seqused_k_host) X(block_table_host) X(index_status)
#define FROZEN_PARAMS(X)                                                                            \
  X(q) X(k_cache) X(v_cache) X(out) X(cu_seqlens_q) X(seqused_k) X(block_table) X(alibi_slopes)     \
  X(qq_bias) X(sinks) X(ws_acc) X(ws_max) X(ws_sum) X(q_stride_token) X(q_stride_head)              \
  X(k_stride_block) X(k_stride_slot) X(k_stride_head) X(v_stride_block) X(v_stride_slot)            \
  X(v_stride_head) X(o_stride_token) X(o_stride_head) X(block_table_stride) X(num_seqs)             \
  X(num_tokens) X(num_q_heads) X(num_kv_heads) X(head_size) X(block_size) X(qq_bias_stride)         \
  X(window_left) X(softcap) X(softmax_scale) X(k_scale) X(v_scale) X(output_scale) X(out_dtype)     \
  X(num_segments) X(num_blocks) X(max_seqlen_q) X(max_seqlen_k) X(max_blocks_per_seq) X(q_blocks_per_seq)       \
  X(status)
#define SAME_ARG(NAME) SAME_FIELD(uattn_args_t, FrozenArgs, NAME)
#define SAME_PARAM(NAME) SAME_FIELD(uattn::AttnParams, FrozenParams, NAME)
FROZEN_ARGS(SAME_ARG)
FROZEN_PARAMS(SAME_PARAM)
// x86-64 figures of the frozen layouts (4 tensors of 96 bytes, 8-byte pointers).
static_assert(sizeof(uattn_tensor_t) == 96 && sizeof(FrozenArgs) == 528, "uattn_args_t layout");
static_assert(sizeof(FrozenParams) == 280 && offsetof(FrozenParams, status) == 272, "AttnParams layout");

// Every schema list names fields of the documented types.
#define ARG_TYPES(C_TYPE, CPP_TYPE, NAME, DEFAULT)                                                            \
  static_assert(std::is_same_v<decltype(uattn_args_t::NAME), C_TYPE>, "uattn_args_t::" #NAME);                 \
  static_assert(std::is_same_v<decltype(AttentionArgs::NAME), CPP_TYPE>, "AttentionArgs::" #NAME);
#define PARAM_TYPES(TYPE, NAME) static_assert(std::is_same_v<decltype(uattn::AttnParams::NAME), TYPE>, #NAME);
UATTN_FOREACH_PARAM(PARAM_TYPES)
#define FEATURE_TYPES(TYPE, NAME, ARG, DEFAULT, ROLE, FEATURE, USED)                                     \
  static_assert(std::is_same_v<decltype(uattn::ProblemArgs::NAME), TYPE>, "ProblemArgs::" #NAME);     \
  static_assert(std::is_same_v<decltype(uattn::AttnParams::ARG), decltype(uattn_args_t::ARG)>, #ARG);
UATTN_FOREACH_FEATURE_ARG(FEATURE_TYPES)

// The schema's lists begin with exactly the frozen fields, in their order: a new
// argument or kernel field is appended after them (into no padding hole either).
#define ARG_NAME(C_TYPE, CPP_TYPE, NAME, DEFAULT) #NAME,
#define PARAM_NAME(TYPE, NAME) #NAME,
#define FROZEN_NAME(NAME) #NAME,
constexpr const char* kArgNames[] = {UATTN_FOREACH_ARG(ARG_NAME)};
constexpr const char* kParamNames[] = {UATTN_FOREACH_PARAM(PARAM_NAME)};
constexpr const char* kFrozenArgNames[] = {FROZEN_ARGS(FROZEN_NAME)};
constexpr const char* kFrozenParamNames[] = {FROZEN_PARAMS(FROZEN_NAME)};

constexpr bool same(const char* a, const char* b) { return *a == *b && (*a == 0 || same(a + 1, b + 1)); }
template <size_t N, size_t M>
constexpr bool starts_with(const char* const (&list)[N], const char* const (&prefix)[M]) {
  if (N < M) return false;
  for (size_t i = 0; i < M; ++i)
    if (!same(list[i], prefix[i])) return false;
  return true;
}
static_assert(starts_with(kArgNames, kFrozenArgNames), "UATTN_FOREACH_ARG must begin with uattn_args_t's fields");
static_assert(starts_with(kParamNames, kFrozenParamNames), "UATTN_FOREACH_PARAM must begin with AttnParams' fields");
static_assert(sizeof(uattn_args_t) >= sizeof(FrozenArgs) && sizeof(uattn::AttnParams) >= sizeof(FrozenParams),
              "fields are only appended");

// The defaults: uattn_args_init and AttentionArgs{} both take them from the schema.
TEST(ArgsSchema, DefaultsOfTheCAndCppViewsAgree) {
  uattn_args_t c;
  uattn_args_init(&c);
  const uattn::AttentionArgs a;
  EXPECT_EQ(c.window_left, -1);
  EXPECT_EQ(a.window_left, -1);
  EXPECT_EQ(c.softcap, 0.0f);
  EXPECT_EQ(c.k_scale, 1.0f);
  EXPECT_EQ(c.v_scale, 1.0f);
  EXPECT_EQ(c.output_scale, 1.0f);
  EXPECT_EQ(a.output_scale, 1.0f);
  EXPECT_EQ(c.alibi_slopes, nullptr);
  EXPECT_EQ(c.index_status, nullptr);
  EXPECT_EQ(c.q.rank, 0);
#define SAME_DEFAULT(C_TYPE, CPP_TYPE, NAME, DEFAULT) \
  if constexpr (!std::is_same_v<C_TYPE, uattn_tensor_t>) {          \
    EXPECT_EQ(c.NAME, a.NAME) << #NAME;                             \
  }
  UATTN_FOREACH_ARG(SAME_DEFAULT)
  // and ProblemArgs' switches default to "feature unused"
  EXPECT_EQ(uattn::features_used(uattn::ProblemArgs{}), 0u);
  EXPECT_EQ(uattn::features_of(a), 0u);
}

// make_params copies every schema argument the kernel reads, and zeroes a gated one
// whose optional tensor is absent.
TEST(ArgsSchema, MakeParamsCopiesTheSchemaFields) {
  uattn::AttentionArgs a;
  static const float slopes[4] = {1, 2, 3, 4}, bias[4] = {0}, sinks[4] = {0};
  a.q.shape[0] = 3; a.q.shape[1] = 4; a.q.shape[2] = 64;
  a.k_cache.shape[0] = 9; a.k_cache.shape[1] = 16; a.k_cache.shape[2] = 2;
  a.num_seqs = 2; a.max_blocks_per_seq = 5; a.block_table_stride = 7; a.max_seqlen_q = 2; a.max_seqlen_k = 70;
  a.softmax_scale = 0.125f; a.window_left = 31; a.softcap = 30.0f; a.alibi_slopes = slopes; a.sinks = sinks;
  a.qq_bias_stride = 6;  // qq_bias absent: the kernel sees width 0
  uattn::Selection sel;
  sel.path = uattn::Path::k2D;
  uattn::AttnParams p = uattn::make_params(a, sel, nullptr);
  EXPECT_EQ(p.alibi_slopes, slopes);
  EXPECT_EQ(p.sinks, sinks);
  EXPECT_EQ(p.qq_bias, nullptr);
  EXPECT_EQ(p.qq_bias_stride, 0);
  EXPECT_EQ(p.window_left, 31);
  EXPECT_EQ(p.softcap, 30.0f);
  EXPECT_EQ(p.softmax_scale, 0.125f);
  EXPECT_EQ(p.block_table_stride, 7);
  EXPECT_EQ(p.max_blocks_per_seq, 5);
  EXPECT_EQ(p.max_seqlen_k, 70);
  EXPECT_EQ(p.num_tokens, 3);
  EXPECT_EQ(p.num_blocks, 9);
  EXPECT_EQ(p.num_segments, 1);
  a.qq_bias = bias;
  p = uattn::make_params(a, sel, nullptr);
  EXPECT_EQ(p.qq_bias, bias);
  EXPECT_EQ(p.qq_bias_stride, 6);
  EXPECT_EQ(uattn::features_of(a), (uint32_t)uattn::kFeatAll);
}

}  // namespace

namespace uattn {  // CPP_TYPE names uattn types (TensorDesc)
UATTN_FOREACH_ARG(ARG_TYPES)
}  // namespace uattn
