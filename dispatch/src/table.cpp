// The generated rows (table_rows.inc, written by generator/uattn_gen) turned
// into a constant array. No parsing happens at run time.
#include <sstream>

#include "stamp.inc"
#include "uattn/table.hpp"
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

const BuildStamp& table_stamp() {
  static const BuildStamp s{UATTN_STAMP_UATTN_VERSION, UATTN_STAMP_GENERATOR_VERSION, UATTN_STAMP_MATRIX_HASH};
  return s;
}

std::string to_string(const BuildStamp& s) {
  return "uattn " + s.uattn_version + ", uattn_gen " + s.generator_version + ", matrix " + s.matrix_hash;
}

bool parse_stamp(const std::string& text, BuildStamp* out, std::string* why) {
  BuildStamp s;
  bool have[3] = {false, false, false};
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t sp = line.find(' ');
    if (sp == std::string::npos) continue;
    const std::string key = line.substr(0, sp), value = line.substr(sp + 1);
    if (key == "uattn_version") { s.uattn_version = value; have[0] = true; }
    if (key == "generator_version") { s.generator_version = value; have[1] = true; }
    if (key == "matrix_hash") { s.matrix_hash = value; have[2] = true; }
  }
  const char* keys[3] = {"uattn_version", "generator_version", "matrix_hash"};
  for (int i = 0; i < 3; ++i)
    if (!have[i]) {
      if (why) *why = std::string("no '") + keys[i] + " ...' line";
      return false;
    }
  *out = s;
  return true;
}

}  // namespace uattn
