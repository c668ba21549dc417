// A valid AttentionArgs over host arrays, for tests that never launch a kernel:
// 2 sequences (q_len 1 and 5, seqused_k 100 and 20), q/out [6, 16, 128] f16,
// caches [10, 16, 2, 128] f16, block table 2 x 8.
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "uattn/validate.hpp"

namespace uattn::testing {

struct ArgsFixture {
  std::vector<uint16_t> q = std::vector<uint16_t>(6 * 16 * 128), out = q;
  std::vector<uint16_t> k = std::vector<uint16_t>(10 * 16 * 2 * 128), v = k;
  std::vector<int32_t> cu_seqlens_q{0, 1, 6};
  std::vector<int32_t> seqused_k{100, 20};
  std::vector<int32_t> block_table{3, 1, 4, 0, 5, 9, 2, 6,  // sequence 0: 7 blocks used
                                   8, 7, -1, -1, -1, -1, -1, -1};  // sequence 1: 2 used, rest garbage
  AttentionArgs args;

  ArgsFixture() {
    auto tensor = [](const void* data, std::vector<int64_t> shape) {
      TensorDesc t;
      t.data = data;
      t.dtype = DType::f16;
      t.rank = (int)shape.size();
      int64_t s = 1;
      for (int i = t.rank - 1; i >= 0; --i) { t.shape[i] = shape[i]; t.stride[i] = s; s *= shape[i]; }
      return t;
    };
    args.q = tensor(q.data(), {6, 16, 128});
    args.out = tensor(out.data(), {6, 16, 128});
    args.k_cache = tensor(k.data(), {10, 16, 2, 128});
    args.v_cache = tensor(v.data(), {10, 16, 2, 128});
    args.cu_seqlens_q = cu_seqlens_q.data();
    args.seqused_k = seqused_k.data();
    args.block_table = block_table.data();
    args.num_seqs = 2;
    args.block_table_stride = 8;
    args.max_blocks_per_seq = 8;
    args.max_seqlen_q = 5;
    args.max_seqlen_k = 100;
    args.softmax_scale = 0.088388f;
  }
  ArgsFixture(const ArgsFixture&) = delete;

  Status check_indices() const {
    return validate_indices(args, cu_seqlens_q.data(), seqused_k.data(), block_table.data());
  }
};

}  // namespace uattn::testing
