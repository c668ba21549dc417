// The generated rows (table_rows.inc, written by generator/uattn_gen) turned
// into a constant array. No parsing happens at run time.
#include "uattn/table_row.hpp"

namespace uattn {
namespace {

#define UATTN_ROW_ENTRY(NAME, ROW) ROW,
constexpr InstanceRow kRows[] = {
#include "table_rows.inc"
};
#undef UATTN_ROW_ENTRY

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
