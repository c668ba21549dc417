// Kernel arguments of every uattn instance. Plain data with the same layout on
// the host (x86-64), on amdgcn and in the host execution engine, passed by value
// as the single kernel argument. Shapes and conventions: SPEC.md s.1. All
// strides are in elements of the tensor's own dtype. DType and the Feature bits
// come from the generated vocabulary (uattn/generated/vocab.hpp).
//
// The fields, in layout order, with what each holds, are the argument schema's
// kernel block (generator/uattn_gen/args.py, PARAMS; emitted as
// UATTN_FOREACH_PARAM in uattn/generated/args.hpp): the tensors' data pointers
// q, k_cache, v_cache, out; the index arrays; the optional tensors (alibi_slopes,
// qq_bias, sinks: null when not given); the 3D split-KV workspace ws_acc /
// ws_max / ws_sum (null for the 2D path); the strides; the sizes; the scalars;
// out_dtype; num_segments (1 for 2D); the bounds a checked launch checks the
// index arrays against (check.hpp) and its status words (null: an unchecked
// launch). make_params() (uattn/validate.hpp) fills it from the arguments.
#pragma once
#include <stdint.h>

#include "uattn/generated/args.hpp"
#include "uattn/generated/vocab.hpp"

namespace uattn {

struct AttnParams {
#define UATTN_PARAM_FIELD(TYPE, NAME) TYPE NAME;
  UATTN_FOREACH_PARAM(UATTN_PARAM_FIELD)
#undef UATTN_PARAM_FIELD
};

}  // namespace uattn
