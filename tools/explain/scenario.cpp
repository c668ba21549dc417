// Scenario files -> Scenario -> ProblemDesc (see scenario.hpp).
#include "scenario.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "uattn/input_file.hpp"

namespace uattn::explain {

std::vector<std::pair<std::string, std::vector<std::pair<int, int>>>> default_batches() {
  return {{"decode 4x(1,2048)", std::vector<std::pair<int, int>>(4, {1, 2048})},
          {"prefill 2x(512,1024)", std::vector<std::pair<int, int>>(2, {512, 1024})}};
}

bool parse_dtype(const std::string& s, DType* d) {
  for (int i = 0; i < kNumDTypes; ++i) {
    bool match = s == kDTypeNames[i];
    for (const char* const* a = kDTypeAliases[i]; *a && !match; ++a) match = s == *a;
    if (match) { *d = (DType)i; return true; }
  }
  return false;
}

std::vector<std::string> dtype_spellings() {
  std::vector<std::string> out;
  for (int i = 0; i < kNumDTypes; ++i) {
    out.push_back(kDTypeNames[i]);
    for (const char* const* a = kDTypeAliases[i]; *a; ++a) out.push_back(*a);
  }
  return out;
}

bool parse_seqs(const std::string& s, std::vector<std::pair<int, int>>* out, std::string* error) {
  out->clear();
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t c = item.find(':');
    char* e1 = nullptr;
    char* e2 = nullptr;
    long long q = 0, k = 0;
    if (c != std::string::npos) {
      q = std::strtoll(item.c_str(), &e1, 10);
      errno = 0;  // an out-of-range kv_len: ERANGE (q_len's is refused below by q_len <= kv_len)
      k = std::strtoll(item.c_str() + c + 1, &e2, 10);
    }
    const std::string where = "--seqs entry '" + item + "': ";
    if (c == std::string::npos || e1 == item.c_str() || e1 != item.c_str() + c || *e2 != 0 ||
        e2 == item.c_str() + c + 1) {
      *error = where + "expected q_len:kv_len, two integers";
      return false;
    }
    if (errno == ERANGE || k > kMaxKvLen) {
      *error = where + "kv_len = " + item.substr(c + 1) + "; expected at most " + std::to_string(kMaxKvLen) +
               " (kMaxKvLen: the kernels index keys in int32)";
      return false;
    }
    if (q < 0 || k < q) {
      *error = where + "expected q_len:kv_len with 0 <= q_len <= kv_len";
      return false;
    }
    out->emplace_back((int)q, (int)k);
  }
  if (out->empty()) { *error = "--seqs '" + s + "': expected a list like 1:1024,5:18"; return false; }
  return true;
}

namespace {

using nlohmann::json;

// Errors say where: "<file>: scenarios[3] (name): 'field' ...".
struct Ctx {
  std::string where;
  std::string* error;
  bool bad(const std::string& what) { *error = where + ": " + what; return false; }
};

// Bound of the integer fields other than the sequence lengths (q_len takes
// kMaxTokens, kv_len kMaxKvLen).
constexpr int64_t kMaxField = 1 << 30;

bool get_int(Ctx& c, const json& e, const char* key, int* v, bool required, int lo, int64_t hi = kMaxField) {
  auto it = e.find(key);
  if (it == e.end()) return required ? c.bad(std::string("'") + key + "' is missing") : true;
  if (!it->is_number_integer() || (it->is_number_unsigned() && it->get<uint64_t>() > (uint64_t)hi) ||
      it->get<int64_t>() < lo || it->get<int64_t>() > hi)
    return c.bad(std::string("'") + key + "' must be an integer from " + std::to_string(lo) + " to " +
                 std::to_string(hi) + (hi == kMaxTokens ? " (kMaxTokens)" : hi == kMaxKvLen ? " (kMaxKvLen)" : "") +
                 ", not " + it->dump());
  *v = it->get<int>();
  return true;
}

bool get_bool(Ctx& c, const json& e, const char* key, bool* v) {
  auto it = e.find(key);
  if (it == e.end() || it->is_null()) return true;
  if (!it->is_boolean()) return c.bad(std::string("'") + key + "' must be true or false, not " + it->dump());
  *v = it->get<bool>();
  return true;
}

// "f16, bf16, fp8e4m3"
std::string dtype_names() {
  std::string s;
  for (const char* n : kDTypeNames) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

bool get_dtype(Ctx& c, const json& e, const char* key, DType* d, bool* present) {
  auto it = e.find(key);
  *present = it != e.end();
  if (!*present) return true;
  if (!it->is_string() || !parse_dtype(it->get<std::string>(), d))
    return c.bad(std::string("'") + key + "' must be one of " + dtype_names() + ", not " + it->dump());
  return true;
}

bool read_entry(Ctx& c, const json& e, Scenario* sc) {
  if (!e.is_object()) return c.bad(std::string("expected an object, found ") + e.type_name());
  auto name = e.find("name");
  if (name == e.end() || !name->is_string()) return c.bad("'name' (a string) is missing");
  sc->name = name->get<std::string>();
  c.where += " (" + sc->name + ")";
  bool has = false;
  if (!get_dtype(c, e, "dtype", &sc->q_dtype, &has)) return false;
  if (!has) sc->defaulted.push_back("dtype=f16");
  sc->kv_dtype = sc->q_dtype;
  if (!get_dtype(c, e, "kv_dtype", &sc->kv_dtype, &has)) return false;
  if (!get_int(c, e, "num_query_heads", &sc->num_q_heads, true, 1)) return false;
  if (!get_int(c, e, "num_kv_heads", &sc->num_kv_heads, true, 1)) return false;
  if (!get_int(c, e, "head_size", &sc->head_size, true, 1)) return false;
  if (!e.contains("block_size")) sc->defaulted.push_back("block_size=16");
  if (!get_int(c, e, "block_size", &sc->block_size, false, 1)) return false;
  if (!get_int(c, e, "window", &sc->window, false, 0)) return false;
  if (auto it = e.find("softcap"); it != e.end()) {
    if (!it->is_number() || !(it->get<double>() >= 0) || !(it->get<double>() <= std::numeric_limits<float>::max()))
      return c.bad("'softcap' must be a finite number >= 0 (an fp32), not " + it->dump());
    sc->softcap = it->get<double>();
  }
  if (!get_int(c, e, "qq_bias_stride", &sc->qq_bias_stride, false, 1)) return false;
  if (auto it = e.find("softmax_scale"); it != e.end()) {
    if (!it->is_number() || !(it->get<double>() > 0) || !(it->get<double>() <= std::numeric_limits<float>::max()))
      return c.bad("'softmax_scale' must be a finite number > 0 (an fp32), not " + it->dump());
    sc->softmax_scale = it->get<double>();
  }
  if (!get_bool(c, e, "alibi", &sc->alibi) || !get_bool(c, e, "qq_bias", &sc->qq_bias) ||
      !get_bool(c, e, "sinks", &sc->sinks))
    return false;
  if (auto s = e.find("seqs"); s != e.end()) {
    if (!s->is_array()) return c.bad("'seqs' must be an array");
    for (size_t i = 0; i < s->size(); ++i) {
      Ctx ci{c.where + ": seqs[" + std::to_string(i) + "]", c.error};
      const json& q = (*s)[i];
      if (!q.is_object()) return ci.bad("expected an object {\"q_len\": .., \"kv_len\": ..}");
      int ql = 0, kl = 0;
      if (!get_int(ci, q, "q_len", &ql, true, 0, kMaxTokens) || !get_int(ci, q, "kv_len", &kl, true, 0, kMaxKvLen))
        return false;
      if (kl < ql) return ci.bad("kv_len " + std::to_string(kl) + " < q_len " + std::to_string(ql));
      sc->seqs.emplace_back(ql, kl);
    }
  }
  return true;
}

}  // namespace

bool load_scenarios(const std::string& path, std::vector<Scenario>* out, std::string* error) {
  std::vector<uint8_t> bytes;
  const std::string why = read_input_file(path, kMaxScenarioFileBytes, "kMaxScenarioFileBytes", &bytes);
  if (!why.empty()) {
    *error = path + ": cannot open (" + why + "; scenario files live in ../shared/scenarios)";
    return false;
  }
  json doc;
  try {
    doc = json::parse(bytes);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers such as 1e400
    *error = path + ": invalid JSON: " + e.what();
    return false;
  }
  const char* key = doc.contains("scenarios") ? "scenarios" : "models";
  if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array()) {
    *error = path + ": expected a top-level object with a \"scenarios\" or \"models\" array";
    return false;
  }
  const json& list = doc[key];
  for (size_t i = 0; i < list.size(); ++i) {
    Ctx c{path + ": " + key + "[" + std::to_string(i) + "]", error};
    Scenario sc;
    if (!read_entry(c, list[i], &sc)) return false;
    out->push_back(std::move(sc));
  }
  return true;
}

ProblemDesc to_problem(const Scenario& sc, Arch arch, int num_cus, std::string* error) {
  std::vector<int32_t> q_lens, kv_lens;
  for (const auto& s : sc.seqs) {
    q_lens.push_back(s.first);
    kv_lens.push_back(s.second);
  }
  ProblemArgs a;
  a.arch = arch;
  a.q_dtype = sc.q_dtype;
  a.kv_dtype = sc.kv_dtype;
  a.out_dtype = sc.q_dtype;
  a.head_size = sc.head_size;
  a.block_size = sc.block_size;
  a.num_q_heads = sc.num_q_heads;
  a.num_kv_heads = sc.num_kv_heads;
  a.q_lens = q_lens.data();
  a.kv_lens = kv_lens.data();
  a.num_seqs = (int)sc.seqs.size();
  a.window_left = sc.window > 0 ? sc.window - 1 : -1;
  a.softcap = (float)sc.softcap;
  a.alibi = sc.alibi;
  a.qq_bias = sc.qq_bias;
  a.sinks = sc.sinks;
  a.num_cus = num_cus;
  if (error) *error = problem_args_error(a);
  return make_problem(a);
}

std::string summary(const Scenario& sc) {
  std::ostringstream o;
  o << to_string(sc.q_dtype) << "/" << to_string(sc.kv_dtype) << " d" << sc.head_size << " b" << sc.block_size
    << " heads " << sc.num_q_heads << "/" << sc.num_kv_heads;
  if (sc.window > 0) o << " window " << sc.window;
  if (sc.softcap != 0) o << " softcap " << sc.softcap;
  if (sc.alibi) o << " alibi";
  if (sc.qq_bias) o << " qq_bias";
  if (sc.sinks) o << " sinks";
  o << "; " << sc.seqs.size() << " seq" << (sc.seqs.size() == 1 ? "" : "s") << " (q:kv";
  const size_t show = 6;
  for (size_t i = 0; i < sc.seqs.size() && i < show; ++i) o << " " << sc.seqs[i].first << ":" << sc.seqs[i].second;
  if (sc.seqs.size() > show) o << " ...";
  o << ")";
  return o.str();
}

}  // namespace uattn::explain
