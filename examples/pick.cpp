// uattn_pick SCENARIOS.json [ARCH...]: for every scenario of the file (the format of
// ../shared/scenarios/default.json: "scenarios": [{name, dtype, kv_dtype,
// num_query_heads, num_kv_heads, head_size, block_size, seqs: [{q_len, kv_len}],
// window?, softcap?, alibi?, qq_bias?, sinks?}]) and every architecture (default:
// all of the table), prints the instance the lookup table selects and its launch
// configuration. Links uattn::uattn_table only: no GPU and no HIP runtime needed.
// Exit status: 0 when every scenario resolved, 1 when one did not (its reason is
// printed), 2 for a bad command line or file.
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "uattn/input_file.hpp"
#include "uattn/table.hpp"

namespace {

bool dtype_of(const std::string& s, uattn::DType* d) {
  for (int i = 0; i < uattn::kNumDTypes; ++i) {
    bool match = s == uattn::kDTypeNames[i];
    for (int j = 0; uattn::kDTypeAliases[i][j]; ++j) match = match || s == uattn::kDTypeAliases[i][j];
    if (match) {
      *d = static_cast<uattn::DType>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCENARIOS.json [ARCH...]\n", argv[0]);
    return 2;
  }
  std::vector<uattn::Arch> archs;
  for (int i = 2; i < argc; ++i) {
    uattn::Arch a;
    if (!uattn::arch_from_name(argv[i], &a)) {
      std::fprintf(stderr, "uattn_pick: architecture '%s': expected one of %s\n", argv[i], uattn::arch_list().c_str());
      return 2;
    }
    archs.push_back(a);
  }
  if (archs.empty())
    for (const uattn::InstanceRow& r : uattn::all_rows()) {
      bool seen = false;
      for (uattn::Arch a : archs) seen = seen || a == r.arch;
      if (!seen) archs.push_back(r.arch);
    }
  std::vector<uint8_t> bytes;  // a regular file only: a FIFO is refused, not waited on
  const std::string why = uattn::read_input_file(argv[1], 64u << 20, "64 MiB", &bytes);
  if (!why.empty()) {
    std::fprintf(stderr, "uattn_pick: %s: cannot open (%s)\n", argv[1], why.c_str());
    return 2;
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "uattn_pick: %s: invalid JSON: %s\n", argv[1], e.what());
    return 2;
  }
  if (!doc.contains("scenarios") || !doc["scenarios"].is_array()) {
    std::fprintf(stderr, "uattn_pick: %s: expected an object with a \"scenarios\" array\n", argv[1]);
    return 2;
  }
  const uattn::BuildStamp& st = uattn::table_stamp();
  std::printf("lookup table: %s (%zu rows)\n", uattn::to_string(st).c_str(), uattn::all_rows().size());
  int unresolved = 0;
  for (const nlohmann::json& s : doc["scenarios"]) {
    const std::string name = s.value("name", std::string("?"));
    try {
      uattn::ProblemArgs a;
      if (!dtype_of(s.at("dtype").get<std::string>(), &a.q_dtype) ||
          !dtype_of(s.value("kv_dtype", s.at("dtype").get<std::string>()), &a.kv_dtype)) {
        std::fprintf(stderr, "uattn_pick: %s: scenario %s: unknown dtype\n", argv[1], name.c_str());
        return 2;
      }
      a.out_dtype = a.q_dtype;
      a.head_size = s.at("head_size").get<int>();
      a.block_size = s.value("block_size", 16);
      a.num_q_heads = s.at("num_query_heads").get<int>();
      a.num_kv_heads = s.at("num_kv_heads").get<int>();
      std::vector<int32_t> q, kv;
      for (const nlohmann::json& x : s.at("seqs")) {
        q.push_back(x.at("q_len").get<int32_t>());
        kv.push_back(x.at("kv_len").get<int32_t>());
      }
      a.q_lens = q.data();
      a.kv_lens = kv.data();
      a.num_seqs = (int)q.size();
      const int window = s.value("window", 0);
      a.window_left = window > 0 ? window - 1 : -1;
      a.softcap = s.value("softcap", 0.0f);
      a.alibi = s.value("alibi", false);
      a.qq_bias = s.value("qq_bias", false);
      a.sinks = s.value("sinks", false);
      for (uattn::Arch arch : archs) {
        a.arch = arch;
        const std::string bad = uattn::problem_args_error(a);
        const uattn::Selection sel = uattn::select(uattn::make_problem(a));
        if (!bad.empty() || !sel.ok) {
          std::printf("%-28s %-8s NOT RESOLVED: %s\n", name.c_str(), uattn::to_string(arch),
                      (bad.empty() ? sel.error : bad).c_str());
          ++unresolved;
          continue;
        }
        std::printf("%-28s %-8s %s grid %ux%ux%u x %u threads", name.c_str(), uattn::to_string(arch),
                    sel.attention.row->name, sel.attention.grid.x, sel.attention.grid.y, sel.attention.grid.z,
                    sel.attention.threads);
        if (sel.path == uattn::Path::k3D)
          std::printf(", %d segments, reduce %s, workspace %llu bytes", sel.num_segments, sel.reduce.row->name,
                      (unsigned long long)sel.workspace_bytes);
        std::printf("\n");
      }
    } catch (const nlohmann::json::exception& e) {
      std::fprintf(stderr, "uattn_pick: %s: scenario %s: %s\n", argv[1], name.c_str(), e.what());
      return 2;
    }
  }
  return unresolved ? 1 : 0;
}
