// Selects an instance for a decode batch through the installed table.
#include <cstdio>

#include "uattn/table.hpp"

int main() {
  uattn::ProblemDesc p;
  p.arch = uattn::Arch::gfx950;
  p.head_size = 128;
  p.block_size = 16;
  p.num_q_heads = 32;
  p.num_kv_heads = 8;
  p.num_seqs = 4;
  p.num_tokens = 4;
  p.max_seqlen_q = 1;
  p.max_seqlen_k = 4096;
  const uattn::Selection s = uattn::select(p);
  if (!s.ok) {
    std::printf("error: %s\n", s.error.c_str());
    return 1;
  }
  std::printf("instance %s grid %ux%ux%u threads %u\n", s.attention.row->name, s.attention.grid.x,
              s.attention.grid.y, s.attention.grid.z, s.attention.threads);
  return 0;
}
