"""The argument schema: every argument of one attention call, declared once.

From these records the generator emits (emit.render_args):
  include/uattn/generated/args.h    the C API's uattn_args_t (included by uattn/uattn.h)
  include/uattn/generated/args.hpp  X-macro lists the hand-written C++ expands:
      UATTN_FOREACH_ARG            the fields of uattn::AttentionArgs, and the C -> C++ converter
      UATTN_FOREACH_SCALAR_CHECK   the per-scalar validation rules (dispatch/src/validate.cpp)
      UATTN_FOREACH_FEATURE_ARG    the feature switches of uattn::ProblemArgs and features_used()
      UATTN_FOREACH_PARAM          the fields of uattn::AttnParams, in kernel layout order
      UATTN_FOREACH_PARAM_COPY / _GATED  what make_params() copies from AttentionArgs

ARGS is in uattn_args_t order, which is the C ABI (uattn.h is public): append,
never reorder. PARAMS is the kernel parameter block's layout (the code objects
depend on it): a field's place there is its place in PARAMS. Shapes and
conventions of every argument: SPEC.md s.1.

Adding a feature (a score modifier, say) is one Feature in FEATURES, its
arguments in ARGS (with feature=...) and their kernel fields in PARAMS, plus
the kernel code that reads them.
"""
from __future__ import annotations

from dataclasses import dataclass

# Roles of an argument.
TENSOR = "tensor"      # uattn_tensor_t (C) / uattn::TensorDesc (C++): data, dtype, rank, shape, stride
INDEX = "index"        # device int32 index array, required when num_seqs > 0
SCALAR = "scalar"      # a plain value
OPTIONAL = "optional"  # device tensor given by pointer or NULL; a non-NULL pointer switches its feature on
HOST_INDEX = "host"    # optional host copy of an index array (host-side checks only)
STATUS = "status"      # the checked-launch status buffer (device memory) or NULL
ROLES = (TENSOR, INDEX, SCALAR, OPTIONAL, HOST_INDEX, STATUS)

# Validation rules of a scalar (dispatch/src/validate.cpp, check_scalar()).
CHECKS = ("", "positive", "off_or_positive", "window", "kv_scale", "out_scale")

# C type -> type in uattn::AttentionArgs (the C++ view). Other types are the same.
CPP_TYPE = {"uattn_tensor_t": "TensorDesc", "int32_t": "int"}


@dataclass(frozen=True)
class Feature:
    """A feature bit: instances compiled with it serve calls that use it."""
    name: str    # YAML name and features_to_string() word
    token: str   # token in instance names (prefix-free among FEATURES)
    bit: int     # mask bit (uattn::Feature)
    cpp: str     # uattn::Feature enumerator

    @property
    def used_when(self) -> str:
        """When a call uses it, in words of its arguments (C++ comment of uattn::Feature)."""
        return " or ".join(a.used_when.replace("v ", a.name + " ", 1) if a.role == SCALAR else f"{a.name} != nullptr"
                           for a in feature_args(self.name))


# The fixed order used by instance names.
FEATURES = (
    Feature("window", "win", 0x01, "kFeatWindow"),
    Feature("softcap", "cap", 0x02, "kFeatSoftcap"),
    Feature("alibi", "alibi", 0x04, "kFeatAlibi"),
    Feature("qq_bias", "qqb", 0x08, "kFeatQQBias"),
    Feature("sinks", "sink", 0x10, "kFeatSinks"),
)


@dataclass(frozen=True)
class Arg:
    """One argument of a call (a field of uattn_args_t and uattn::AttentionArgs)."""
    name: str
    c_type: str           # type in uattn_args_t
    role: str             # one of ROLES
    doc: str              # shape, dtype, unit, meaning of special values (header comment)
    default: str = ""     # value set by uattn_args_init and AttentionArgs' initialiser ("" = zero / NULL)
    check: str = ""       # validation rule of a scalar (CHECKS)
    feature: str = ""     # Feature.name this argument switches on (OPTIONAL: when given; SCALAR: see used_when)
    used_when: str = ""   # SCALAR with a feature: C++ condition on `v` (its value) under which the call uses it
    gated_by: str = ""    # the OPTIONAL tensor this scalar describes: 0 in AttnParams when that tensor is NULL

    @property
    def cpp_type(self) -> str:
        return CPP_TYPE.get(self.c_type, self.c_type)

    @property
    def cpp_default(self) -> str:
        if self.default:
            return self.default
        return "{}" if self.role == TENSOR else "nullptr" if self.c_type.endswith("*") else "0"


ARGS = (
    Arg("q", "uattn_tensor_t", TENSOR, "[num_tokens, Hq, D] f16 / bf16"),
    Arg("k_cache", "uattn_tensor_t", TENSOR, "[num_blocks, block_size, Hkv, D] q's dtype or fp8e4m3"),
    Arg("v_cache", "uattn_tensor_t", TENSOR, "[num_blocks, block_size, Hkv, D] k_cache's dtype"),
    Arg("out", "uattn_tensor_t", TENSOR, "[num_tokens, Hq, D] q's dtype or fp8e4m3"),
    Arg("cu_seqlens_q", "const int32_t*", INDEX, "[num_seqs + 1] prefix sums of the query lengths from 0, device"),
    Arg("seqused_k", "const int32_t*", INDEX, "[num_seqs] KV length of each sequence (new tokens included), device"),
    Arg("block_table", "const int32_t*", INDEX, "[num_seqs, block_table_stride] physical block ids, device"),
    Arg("num_seqs", "int32_t", SCALAR, "sequences in the batch (>= 0)"),
    Arg("max_blocks_per_seq", "int32_t", SCALAR, "columns of block_table in use"),
    Arg("block_table_stride", "int64_t", SCALAR, "row stride of block_table, elements (>= max_blocks_per_seq)"),
    Arg("max_seqlen_q", "int32_t", SCALAR, "host-known bound of every q_len"),
    Arg("max_seqlen_k", "int32_t", SCALAR, "host-known bound of every seqused_k"),
    Arg("softmax_scale", "float", SCALAR, "scale of q.k (finite, > 0)", check="positive"),
    Arg("window_left", "int32_t", SCALAR, "-1 = no sliding window; a model window W is W - 1", default="-1",
        check="window", feature="window", used_when="v >= 0"),
    Arg("softcap", "float", SCALAR, "0 = off; else scores become softcap * tanh(score / softcap)",
        check="off_or_positive", feature="softcap", used_when="v != 0"),
    Arg("k_scale", "float", SCALAR, "fp8 K dequantisation; exactly 1 for f16 / bf16 KV", default="1.0f",
        check="kv_scale"),
    Arg("v_scale", "float", SCALAR, "fp8 V dequantisation; exactly 1 for f16 / bf16 KV", default="1.0f",
        check="kv_scale"),
    Arg("alibi_slopes", "const float*", OPTIONAL, "[Hq] fp32 ALiBi slope per query head, or NULL", feature="alibi"),
    Arg("qq_bias", "const float*", OPTIONAL, "[max_seqlen_q, qq_bias_stride] fp32 query-query bias (at most 2^29 values), or NULL",
        feature="qq_bias"),
    Arg("qq_bias_stride", "int32_t", SCALAR, "row stride (= width) of qq_bias (>= 1 when qq_bias is given)",
        gated_by="qq_bias"),
    Arg("sinks", "const float*", OPTIONAL, "[Hq] fp32 attention-sink logit per query head, or NULL",
        feature="sinks"),
    Arg("output_scale", "float", SCALAR, "fp8 out quantisation; exactly 1 otherwise", default="1.0f",
        check="out_scale"),
    Arg("cu_seqlens_q_host", "const int32_t*", HOST_INDEX, "[num_seqs + 1] host copy of cu_seqlens_q, or NULL"),
    Arg("seqused_k_host", "const int32_t*", HOST_INDEX, "[num_seqs] host copy of seqused_k, or NULL"),
    Arg("block_table_host", "const int32_t*", HOST_INDEX,
        "[num_seqs, block_table_stride] host copy of block_table, or NULL"),
    Arg("index_status", "uint32_t*", STATUS,
        "checked launch: UATTN_INDEX_STATUS_BYTES of device memory (4-byte aligned), or NULL"),
)

# Where a kernel field's value comes from (make_params, dispatch/src/validate.cpp).
FROM_ARG = "arg"          # the argument of the same name, copied (gated_by: 0 without its tensor)
DERIVED = "derived"       # computed by make_params from shapes, strides, the selection or the workspace


@dataclass(frozen=True)
class Param:
    """One field of the kernel parameter block uattn::AttnParams."""
    name: str
    type: str
    doc: str = ""
    source: str = DERIVED  # FROM_ARG or DERIVED


def _from(name: str, doc: str = "") -> Param:
    arg = ARG[name]
    return Param(name, arg.c_type, doc or arg.doc, FROM_ARG)


ARG = {a.name: a for a in ARGS}

PARAMS = (
    Param("q", "const void*", "q.data"),
    Param("k_cache", "const void*", "k_cache.data"),
    Param("v_cache", "const void*", "v_cache.data"),
    Param("out", "void*", "out.data"),
    _from("cu_seqlens_q", "[num_seqs + 1]"),
    _from("seqused_k", "[num_seqs]"),
    _from("block_table", "[num_seqs, block_table_stride]"),
    _from("alibi_slopes", "[Hq] or null"),
    _from("qq_bias", "[Lq, qq_bias_stride] or null"),
    _from("sinks", "[Hq] or null"),
    Param("ws_acc", "float*", "3D: [num_tokens, Hq, num_segments, head_size] fp32 (unnormalised, x v_scale); "
          "null for 2D"),
    Param("ws_max", "float*", "3D: [num_tokens, Hq, num_segments] fp32 (max in log2 units); null for 2D"),
    Param("ws_sum", "float*", "3D: [num_tokens, Hq, num_segments] fp32; null for 2D"),
    Param("q_stride_token", "int64_t", "q.stride[0], elements"),
    Param("q_stride_head", "int64_t", "q.stride[1]"),
    Param("k_stride_block", "int64_t", "k_cache.stride[0]"),
    Param("k_stride_slot", "int64_t", "k_cache.stride[1]"),
    Param("k_stride_head", "int64_t", "k_cache.stride[2]"),
    Param("v_stride_block", "int64_t", "v_cache.stride[0]"),
    Param("v_stride_slot", "int64_t", "v_cache.stride[1]"),
    Param("v_stride_head", "int64_t", "v_cache.stride[2]"),
    Param("o_stride_token", "int64_t", "out.stride[0]"),
    Param("o_stride_head", "int64_t", "out.stride[1]"),
    _from("block_table_stride"),
    _from("num_seqs"),
    Param("num_tokens", "int32_t", "q.shape[0]"),
    Param("num_q_heads", "int32_t", "q.shape[1]"),
    Param("num_kv_heads", "int32_t", "k_cache.shape[2]"),
    Param("head_size", "int32_t", "q.shape[2]: D of the call; an instance computes with its compile-time HEAD, "
          "which the selector matched to it (launchers check the two agree)"),
    Param("block_size", "int32_t", "k_cache.shape[1]"),
    _from("qq_bias_stride", "row stride (= width) of qq_bias; 0 without qq_bias"),
    _from("window_left", "-1: no window"),
    _from("softcap", "0: off"),
    _from("softmax_scale"),
    _from("k_scale"),
    _from("v_scale"),
    _from("output_scale", "used when out_dtype == fp8e4m3"),
    Param("out_dtype", "int32_t", "DType of out: the Q dtype, or fp8e4m3"),
    Param("num_segments", "int32_t", "1 for 2D"),
    Param("num_blocks", "int32_t", "k_cache.shape[0]; checked launches: the bounds the index arrays are checked "
          "against on the device (no kernel reads them in an unchecked launch)"),
    _from("max_seqlen_q", "host-known bound of every q_len; also qq_bias's rows (the gfx950 QQ-bias tiles read "
          "qq_bias through a buffer of max_seqlen_q x qq_bias_stride fp32)"),
    _from("max_seqlen_k"),
    _from("max_blocks_per_seq"),
    Param("q_blocks_per_seq", "int32_t", "0: grid x packs the sequences' query-row blocks (floor(num_tokens * qpk "
          "/ block_m) + num_seqs workgroups); n > 0: workgroup x serves block x % n of sequence x / n "
          "(num_seqs * n workgroups; Selection::q_blocks_per_seq, where that grid is the smaller)"),
    Param("status", "uint32_t*", "[kStatusWords] device memory written by the check kernel (index_status), "
          "or null: an unchecked launch"),
    Param("dispatch_round", "int32_t", "0: workgroup (x, y) takes the work of query-row block x and KV head y; "
          "R > 0 (2D prefills of more than one round of R = the device's CU count: Selection::dispatch_round): "
          "the serpentine work order of templates/uattn/kernel/work_order.hpp"),
    Param("ws_count", "uint32_t*", "3D with the fused reduce (Selection::fused_reduce): the arrival counters, "
          "a buffer apart from the workspace (kFusedCounterWords words, zero before the launch and left zero "
          "by it; templates/uattn/kernel/fused_reduce.hpp); null: the reduce kernel combines the segments"),
)


def feature_args(feature: str) -> list[Arg]:
    """The arguments that switch `feature` on."""
    return [a for a in ARGS if a.feature == feature]


def problem_field(arg: Arg) -> tuple[str, str, str]:
    """(type, name, default) of `arg`'s switch in uattn::ProblemArgs: the scalar itself,
    or for an OPTIONAL tensor a bool named after its feature (whether it is given)."""
    if arg.role == OPTIONAL:
        return "bool", arg.feature, "false"
    return arg.cpp_type, arg.name, arg.cpp_default


def check_schema() -> None:
    """Raises ValueError when the schema is inconsistent (run on import)."""
    names = [a.name for a in ARGS]
    if len(set(names)) != len(names):
        raise ValueError("args.py: duplicate argument names")
    feats = {f.name for f in FEATURES}
    bits = [f.bit for f in FEATURES]
    if len(set(bits)) != len(bits) or any(b & (b - 1) for b in bits):
        raise ValueError("args.py: feature bits must be distinct powers of two")
    for a in ARGS:
        if a.role not in ROLES:
            raise ValueError(f"args.py: {a.name}: role {a.role!r}; expected one of {ROLES}")
        if a.check not in CHECKS:
            raise ValueError(f"args.py: {a.name}: check {a.check!r}; expected one of {CHECKS}")
        if a.feature and a.feature not in feats:
            raise ValueError(f"args.py: {a.name}: feature {a.feature!r} is not in FEATURES")
        if a.feature and a.role == SCALAR and not a.used_when:
            raise ValueError(f"args.py: {a.name}: a scalar feature switch needs used_when")
        if a.feature and a.role not in (SCALAR, OPTIONAL):
            raise ValueError(f"args.py: {a.name}: only scalars and optional tensors switch features")
        if a.gated_by and ARG.get(a.gated_by, Arg("", "", "", "")).role != OPTIONAL:
            raise ValueError(f"args.py: {a.name}: gated_by {a.gated_by!r} is not an optional tensor")
    for f in FEATURES:
        if not feature_args(f.name):
            raise ValueError(f"args.py: feature {f.name!r} has no argument that switches it on")
    pnames = [p.name for p in PARAMS]
    if len(set(pnames)) != len(pnames):
        raise ValueError("args.py: duplicate kernel parameter names")
    for a in ARGS:
        if a.role in (OPTIONAL,) and a.name not in pnames:
            raise ValueError(f"args.py: optional tensor {a.name} has no kernel parameter in PARAMS")


check_schema()
