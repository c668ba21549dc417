// Scenario files -> Scenario -> ProblemDesc (see scenario.hpp).
#include "scenario.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "json.hpp"

namespace uattn::explain {

std::vector<std::pair<std::string, std::vector<std::pair<int, int>>>> default_batches() {
  return {{"decode 4x(1,2048)", std::vector<std::pair<int, int>>(4, {1, 2048})},
          {"prefill 2x(512,1024)", std::vector<std::pair<int, int>>(2, {512, 1024})}};
}

bool parse_dtype(const std::string& s, DType* d) {
  if (s == "f16" || s == "fp16" || s == "float16") { *d = DType::f16; return true; }
  if (s == "bf16" || s == "bfloat16") { *d = DType::bf16; return true; }
  if (s == "fp8" || s == "fp8e4m3" || s == "fp8_e4m3" || s == "float8_e4m3fn") { *d = DType::fp8e4m3; return true; }
  return false;
}

bool parse_seqs(const std::string& s, std::vector<std::pair<int, int>>* out, std::string* error) {
  out->clear();
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t c = item.find(':');
    char* e1 = nullptr;
    char* e2 = nullptr;
    long q = 0, k = 0;
    if (c != std::string::npos) {
      q = std::strtol(item.c_str(), &e1, 10);
      k = std::strtol(item.c_str() + c + 1, &e2, 10);
    }
    if (c == std::string::npos || e1 != item.c_str() + c || *e2 != 0 || e2 == item.c_str() + c + 1 || q < 0 ||
        k < q || k > (1L << 30)) {
      *error = "--seqs entry '" + item + "': expected q_len:kv_len with 0 <= q_len <= kv_len";
      return false;
    }
    out->emplace_back((int)q, (int)k);
  }
  if (out->empty()) { *error = "--seqs '" + s + "': expected a list like 1:1024,5:18"; return false; }
  return true;
}

namespace {

struct Ctx {  // where a field is, for messages
  std::string where;
  std::string* error;
  bool bad(const std::string& what) { *error = where + ": " + what; return false; }
};

bool get_int(Ctx& c, const Json& e, const char* key, int* v, bool required, int lo) {
  const Json* j = e.find(key);
  if (!j) return required ? c.bad(std::string("'") + key + "' is missing") : true;
  if (j->type != Json::Type::kNumber || j->num != std::floor(j->num) || j->num < lo || j->num > (1 << 30))
    return c.bad(std::string("'") + key + "' must be an integer >= " + std::to_string(lo));
  *v = (int)j->num;
  return true;
}

bool get_bool(Ctx& c, const Json& e, const char* key, bool* v) {
  const Json* j = e.find(key);
  if (!j || j->type == Json::Type::kNull) return true;
  if (j->type != Json::Type::kBool) return c.bad(std::string("'") + key + "' must be true or false, not " + j->type_name());
  *v = j->b;
  return true;
}

bool get_dtype(Ctx& c, const Json& e, const char* key, DType* d, bool* present) {
  const Json* j = e.find(key);
  *present = j != nullptr;
  if (!j) return true;
  if (j->type != Json::Type::kString || !parse_dtype(j->str, d))
    return c.bad(std::string("'") + key + "' must be one of fp16, bf16, fp8e4m3");
  return true;
}

bool read_entry(Ctx& c, const Json& e, Scenario* sc) {
  if (e.type != Json::Type::kObject) return c.bad(std::string("expected an object, found ") + e.type_name());
  const Json* name = e.find("name");
  if (!name || name->type != Json::Type::kString) return c.bad("'name' (a string) is missing");
  sc->name = name->str;
  c.where += " (" + sc->name + ")";
  bool has = false;
  if (!get_dtype(c, e, "dtype", &sc->q_dtype, &has)) return false;
  if (!has) sc->defaulted.push_back("dtype=f16");
  sc->kv_dtype = sc->q_dtype;
  if (!get_dtype(c, e, "kv_dtype", &sc->kv_dtype, &has)) return false;
  if (!get_int(c, e, "num_query_heads", &sc->num_q_heads, true, 1)) return false;
  if (!get_int(c, e, "num_kv_heads", &sc->num_kv_heads, true, 1)) return false;
  if (!get_int(c, e, "head_size", &sc->head_size, true, 1)) return false;
  if (!e.find("block_size")) sc->defaulted.push_back("block_size=16");
  if (!get_int(c, e, "block_size", &sc->block_size, false, 1)) return false;
  if (!get_int(c, e, "window", &sc->window, false, 0)) return false;
  if (const Json* j = e.find("softcap")) {
    if (j->type != Json::Type::kNumber || !(j->num >= 0)) return c.bad("'softcap' must be a number >= 0");
    sc->softcap = j->num;
  }
  if (!get_bool(c, e, "alibi", &sc->alibi) || !get_bool(c, e, "qq_bias", &sc->qq_bias) ||
      !get_bool(c, e, "sinks", &sc->sinks))
    return false;
  if (const Json* s = e.find("seqs")) {
    if (s->type != Json::Type::kArray) return c.bad("'seqs' must be an array");
    for (size_t i = 0; i < s->arr.size(); ++i) {
      Ctx ci{c.where + ": seqs[" + std::to_string(i) + "]", c.error};
      int q = 0, k = 0;
      if (!get_int(ci, s->arr[i], "q_len", &q, true, 0) || !get_int(ci, s->arr[i], "kv_len", &k, true, 0)) return false;
      if (k < q) return ci.bad("kv_len " + std::to_string(k) + " < q_len " + std::to_string(q));
      sc->seqs.emplace_back(q, k);
    }
  }
  return true;
}

}  // namespace

bool load_scenarios(const std::string& path, std::vector<Scenario>* out, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) { *error = path + ": cannot open (does the file exist? scenario files live in ../shared/scenarios)"; return false; }
  std::stringstream ss;
  ss << f.rdbuf();
  Json doc;
  std::string perr;
  if (!parse_json(ss.str(), &doc, &perr)) { *error = path + ": invalid JSON at " + perr; return false; }
  const char* key = doc.find("scenarios") ? "scenarios" : "models";
  const Json* list = doc.find(key);
  if (!list || list->type != Json::Type::kArray) {
    *error = path + ": expected a top-level object with a \"scenarios\" or \"models\" array";
    return false;
  }
  for (size_t i = 0; i < list->arr.size(); ++i) {
    Ctx c{path + ": " + key + "[" + std::to_string(i) + "]", error};
    Scenario sc;
    if (!read_entry(c, list->arr[i], &sc)) return false;
    out->push_back(std::move(sc));
  }
  return true;
}

ProblemDesc to_problem(const Scenario& sc, Arch arch, int num_cus) {
  ProblemDesc p;
  p.arch = arch;
  p.q_dtype = sc.q_dtype;
  p.kv_dtype = sc.kv_dtype;
  p.out_dtype = sc.q_dtype;
  p.head_size = sc.head_size;
  p.block_size = sc.block_size;
  p.features = (sc.window > 0 ? kFeatWindow : 0u) | (sc.softcap != 0 ? kFeatSoftcap : 0u) |
               (sc.alibi ? kFeatAlibi : 0u) | (sc.qq_bias ? kFeatQQBias : 0u) | (sc.sinks ? kFeatSinks : 0u);
  p.num_q_heads = sc.num_q_heads;
  p.num_kv_heads = sc.num_kv_heads;
  p.num_seqs = (int)sc.seqs.size();
  p.num_tokens = 0;
  p.max_seqlen_q = 0;
  p.max_seqlen_k = 0;
  for (const auto& s : sc.seqs) {
    p.num_tokens += s.first;
    p.max_seqlen_q = std::max(p.max_seqlen_q, s.first);
    p.max_seqlen_k = std::max(p.max_seqlen_k, s.second);
  }
  p.num_cus = num_cus;
  return p;
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
