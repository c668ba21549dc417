// The C API's mirror of C++ arguments (tests only): uattn_args_t / uattn_tensor_t
// holding the same pointers, shapes, strides and scalars as an AttentionArgs, for
// tests that drive the C API (uattn.h) with a problem built for the C++ one.
#pragma once
#include "uattn/runtime.hpp"
#include "uattn/uattn.h"

namespace uattn::testing {

inline uattn_tensor_t c_tensor(const TensorDesc& t) {
  uattn_tensor_t c{};
  c.data = t.data;
  c.dtype = (int32_t)t.dtype;
  c.rank = t.rank;
  for (int i = 0; i < 5; ++i) { c.shape[i] = t.shape[i]; c.stride[i] = t.stride[i]; }
  return c;
}

template <class T>
T c_field(T v) { return v; }
inline uattn_tensor_t c_field(const TensorDesc& t) { return c_tensor(t); }

// Every field of `a` (the argument schema: UATTN_FOREACH_ARG), starting from uattn_args_init's defaults.
inline uattn_args_t c_args(const AttentionArgs& a) {
  uattn_args_t c;
  uattn_args_init(&c);
#define UATTN_C_FIELD(C_TYPE, CPP_TYPE, NAME, DEFAULT) c.NAME = c_field(a.NAME);
  UATTN_FOREACH_ARG(UATTN_C_FIELD)
#undef UATTN_C_FIELD
  return c;
}

}  // namespace uattn::testing
