// The generated rows (table_rows.inc, written by generator/uattn_gen) turned
// into a constant array. No parsing happens at run time.
#include "uattn/table.hpp"

namespace uattn {
namespace {

constexpr uint32_t row_lds(Arch a, Path p, int head, int bm, int bn) {
  return p == Path::kReduce ? 0u : attn_lds_bytes(a, head, bm, bn);
}

#define UATTN_ROW(NAME, ARCH, PATH, QDT, KVDT, HEAD, BLOCK, FEATS, BM, BN, WAVES)                       \
  InstanceRow{#NAME, Arch::ARCH, Path::PATH, DType::QDT, DType::KVDT, HEAD, BLOCK, FEATS, BM, BN, WAVES, \
              wave_size_of(Arch::ARCH), row_lds(Arch::ARCH, Path::PATH, HEAD, BM, BN)},
constexpr InstanceRow kRows[] = {
#include "table_rows.inc"
};
#undef UATTN_ROW

constexpr bool rows_fit_lds() {
  for (const InstanceRow& r : kRows)
    if (r.lds_bytes > lds_budget(r.arch)) return false;
  return true;
}
static_assert(rows_fit_lds(), "a generated instance exceeds its architecture's LDS budget");

}  // namespace

const std::vector<InstanceRow>& all_rows() {
  static const std::vector<InstanceRow> rows(std::begin(kRows), std::end(kRows));
  return rows;
}

}  // namespace uattn
