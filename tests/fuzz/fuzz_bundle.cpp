// libFuzzer target: the kernel bundle parser (uattn/runtime.hpp).
//
// Any bytes, including compressed-bundle ("CCOB") headers, give kOk or kBundle
// from parse_bundle(), the same from Runtime::create_from_buffer() and the C
// API's uattn_runtime_create_from_buffer() (which read no device), and every
// entry of an accepted uncompressed bundle lies inside the bytes; each entry's
// code object check (check_code_object) and the target-id pick
// (pick_code_object) finish with kOk / kBundle and an entry of the bundle.
// libFuzzer's -rss_limit_mb / -malloc_limit_mb and -timeout (set by the CTest
// runs) turn a huge allocation or a hang into a failure too.
#include <stddef.h>
#include <stdint.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "uattn/runtime.hpp"
#include "uattn/uattn.h"

using namespace uattn;

namespace {

[[noreturn]] void fail(const char* what, const Status& s) {
  std::fprintf(stderr, "fuzz_bundle: %s\n  status %d: %s\n", what, s.code, s.message.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  BundleInfo info;
  const Status s = parse_bundle(bytes, &info);
  if (s.code != kOk && s.code != kBundle) fail("parse_bundle: neither kOk nor kBundle", s);
  if (!s.ok() && s.message.rfind("uattn: ", 0) != 0) fail("parse_bundle: message without 'uattn: '", s);

  std::unique_ptr<Runtime> rt;
  const Status r = Runtime::create_from_buffer(&rt, bytes);
  if (r.code != s.code || (r.ok() != (rt != nullptr))) fail("create_from_buffer disagrees with parse_bundle", r);
  uattn_runtime_t* crt = nullptr;
  const uattn_status_t cs = uattn_runtime_create_from_buffer(data, size, &crt);
  if ((int)cs != s.code || (cs == UATTN_OK) != (crt != nullptr)) fail("the C API disagrees with parse_bundle", s);
  uattn_runtime_destroy(crt);
  if (!s.ok()) return 0;

  if (info.compressed) {
    if (info.compressed_version < 1 || info.compressed_version > 3 || info.uncompressed_size == 0 ||
        info.uncompressed_size > kMaxUncompressedBundleBytes || !info.entries.empty())
      fail("accepted compressed header out of its ranges", s);
    return 0;
  }
  for (const BundleEntry& e : info.entries) {
    if (e.offset > size || e.size > size - e.offset) fail("an accepted entry lies outside the bytes", s);
    const Status c = check_code_object(data + e.offset, e.size, "entry '" + e.target + "'");
    if (c.code != kOk && c.code != kBundle) fail("check_code_object: neither kOk nor kBundle", c);
  }
  for (const char* dev : {"gfx950", "gfx950:sramecc+:xnack-", "gfx1030", "gfx950:xnack+", ""}) {
    std::string why;
    const BundleEntry* e = pick_code_object(info, dev, &why);
    if (e && (e < info.entries.data() || e >= info.entries.data() + info.entries.size()))
      fail("pick_code_object returned no entry of the bundle", s);
    if (!e && why.empty()) fail("pick_code_object found nothing and said nothing", s);
  }
  return 0;
}
