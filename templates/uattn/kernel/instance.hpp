// Macros used by the generated instance files (one extern "C" kernel each; the
// symbol equals the instance name). Generated files only set template
// parameters; every line of logic lives in attention.hpp / reduce.hpp /
// check.hpp.
#pragma once
#include "uattn/kernel/attention.hpp"
#include "uattn/kernel/check.hpp"
#include "uattn/kernel/reduce.hpp"
#include "uattn/kernel/tile.hpp"

// UATTN_TILE_RECORD(NAME, fields...) (tile.hpp) defines NAME##_tile, the tile
// record the instance's body is handed.
#define UATTN_ATTENTION_INSTANCE(NAME, ARCH, PATH, QT, KVT, HEAD, BLOCK, FEATS)                            \
  using NAME##_traits = ::uattn::AttnKernel<::uattn::Arch::ARCH, ::uattn::Path::PATH, QT, KVT, HEAD, BLOCK, \
                                            FEATS, NAME##_tile>;                                            \
  UATTN_GLOBAL UATTN_LAUNCH_BOUNDS(NAME##_traits::kThreads, NAME##_traits::kWavesPerEU) void NAME(::uattn::AttnParams p) { \
    UATTN_LDS_DECL(uattn_lds, NAME##_traits::kLdsBytes);                                                   \
    NAME##_traits::run(p, uattn_lds);                                                                      \
  }

#define UATTN_REDUCE_INSTANCE(NAME, ARCH, HEAD, WAVES)                                          \
  using NAME##_traits = ::uattn::ReduceKernel<::uattn::Arch::ARCH, HEAD, WAVES>;               \
  UATTN_GLOBAL UATTN_LAUNCH_BOUNDS(NAME##_traits::kThreads, NAME##_traits::kWavesPerEU) void NAME(::uattn::AttnParams p) { \
    UATTN_LDS_DECL(uattn_lds, NAME##_traits::kLdsBytes);                                       \
    NAME##_traits::run(p, uattn_lds);                                                          \
  }

#define UATTN_CHECK_INSTANCE(NAME, ARCH)                                                        \
  using NAME##_traits = ::uattn::CheckKernel<::uattn::Arch::ARCH>;                             \
  UATTN_GLOBAL UATTN_LAUNCH_BOUNDS(NAME##_traits::kThreads, NAME##_traits::kWavesPerEU) void NAME(::uattn::AttnParams p) { \
    NAME##_traits::run(p, nullptr);                                                            \
  }
