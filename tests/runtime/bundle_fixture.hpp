// A synthetic uncompressed clang offload bundle: a host entry and one entry per
// architecture whose bytes are "code object for <arch>" (not loadable; enough for
// parsing and for create_from_buffer).
#pragma once
#include <stdint.h>

#include <cstring>
#include <string>
#include <vector>

namespace uattn::testing {

inline std::vector<uint8_t> fake_bundle(const std::vector<std::string>& archs) {
  std::vector<std::string> ids{"host-x86_64-unknown-linux-gnu"}, data{""};
  for (const std::string& a : archs) {
    ids.push_back("hipv4-amdgcn-amd-amdhsa--" + a);
    data.push_back("code object for " + a.substr(0, a.find(':')));
  }
  auto u64 = [](std::vector<uint8_t>* b, uint64_t v) {
    for (int i = 0; i < 8; ++i) b->push_back((uint8_t)(v >> (8 * i)));
  };
  size_t header = 24 + 8;
  for (const std::string& id : ids) header += 24 + id.size();
  std::vector<uint8_t> b;
  const char magic[] = "__CLANG_OFFLOAD_BUNDLE__";
  b.insert(b.end(), magic, magic + 24);
  u64(&b, ids.size());
  size_t off = header;
  for (size_t i = 0; i < ids.size(); ++i) {
    u64(&b, off);
    u64(&b, data[i].size());
    u64(&b, ids[i].size());
    b.insert(b.end(), ids[i].begin(), ids[i].end());
    off += data[i].size();
  }
  for (const std::string& d : data) b.insert(b.end(), d.begin(), d.end());
  return b;
}

}  // namespace uattn::testing
