// Finding, reading and inspecting the kernel bundle (no HIP dependency).
//
// Search order (Runtime::create): explicit path > $UATTN_LIBRARY_PATH >
// <folder of libuattn>/uattn > <folder of libuattn>/../lib/uattn >
// <folder of the executable>/../lib/uattn >
// the build tree's bundle (UATTN_BUILD_BUNDLE_PATH, compiled in). A failure names
// every path tried and why (STYLE.md: never a bare "No such file or directory").
//
// Bundle format (clang-offload-bundler, binary "-type=o"), little-endian:
//   "__CLANG_OFFLOAD_BUNDLE__" u64 n, then n x {u64 offset, u64 size, u64 id_len, id}
// A compressed bundle starts with "CCOB" and holds that, compressed; its entry
// list is read by the HIP runtime when it loads the bundle.
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "uattn/runtime.hpp"

namespace uattn {
namespace {

constexpr char kBundleMagic[] = "__CLANG_OFFLOAD_BUNDLE__";  // 24 bytes
constexpr char kCompressedMagic[] = "CCOB";

std::string dir_of(const std::string& file) {
  const size_t s = file.rfind('/');
  if (s == std::string::npos) return ".";
  return s == 0 ? "/" : file.substr(0, s);
}

bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The file this function's code lives in: libuattn.so, or the executable when
// the library is linked statically.
std::string this_library_file() {
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&this_library_file), &info) && info.dli_fname && info.dli_fname[0] == '/')
    return info.dli_fname;
  return "";
}

std::string executable_file() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return buf;
}

uint64_t read_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string hex_prefix(const std::vector<uint8_t>& b) {
  std::ostringstream o;
  o << std::hex;
  for (size_t i = 0; i < b.size() && i < 8; ++i) o << (i ? " " : "") << (b[i] >> 4) << (b[i] & 15);
  return o.str();
}

// Reads a whole file; "" on success, else the reason.
std::string read_file(const std::string& path, std::vector<uint8_t>* out) {
  if (is_dir(path)) return "is a folder";
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return std::strerror(errno);
  std::vector<uint8_t> data;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) data.insert(data.end(), buf, buf + n);
  const bool err = std::ferror(f) != 0;
  const int e = errno;
  std::fclose(f);
  if (err) return std::string("read error: ") + std::strerror(e);
  *out = std::move(data);
  return "";
}

}  // namespace

Status parse_bundle(const std::vector<uint8_t>& b, BundleInfo* info) {
  *info = BundleInfo{};
  const size_t magic_len = sizeof(kBundleMagic) - 1;
  if (b.size() >= 4 && std::memcmp(b.data(), kCompressedMagic, 4) == 0) {
    info->compressed = true;
    return Status::Ok();
  }
  if (b.size() < magic_len + 8 || std::memcmp(b.data(), kBundleMagic, magic_len) != 0)
    return Status{kBundle, "uattn: not a clang offload bundle (" + std::to_string(b.size()) +
                               " bytes, starting with " + (b.empty() ? std::string("nothing") : hex_prefix(b)) +
                               "); expected \"__CLANG_OFFLOAD_BUNDLE__\" or a compressed \"CCOB\" bundle"};
  const uint64_t n = read_u64(b.data() + magic_len);
  size_t pos = magic_len + 8;
  auto corrupt = [&](const std::string& what) {
    return Status{kBundle, "uattn: corrupt offload bundle: " + what + " (entry table at byte " + std::to_string(pos) +
                               " of " + std::to_string(b.size()) + ")"};
  };
  if (n > b.size() / 24) return corrupt(std::to_string(n) + " entries cannot fit");
  for (uint64_t i = 0; i < n; ++i) {
    if (pos + 24 > b.size()) return corrupt("entry " + std::to_string(i) + " is truncated");
    const uint64_t off = read_u64(b.data() + pos), size = read_u64(b.data() + pos + 8),
                   id_len = read_u64(b.data() + pos + 16);
    pos += 24;
    if (id_len > b.size() - pos) return corrupt("entry " + std::to_string(i) + " id is truncated");
    std::string id(reinterpret_cast<const char*>(b.data() + pos), (size_t)id_len);
    pos += (size_t)id_len;
    if (off > b.size() || size > b.size() - off) return corrupt("entry '" + id + "' lies outside the file");
    BundleEntry e{id, "", off, size};
    // "hipv4-amdgcn-amd-amdhsa--gfx950[:feature+...]" -> "gfx950"
    const size_t dd = id.find("--");
    if (id.find("amdgcn") != std::string::npos && dd != std::string::npos) {
      e.arch = id.substr(dd + 2);
      e.arch = e.arch.substr(0, e.arch.find(':'));
      if (!e.arch.empty()) info->archs.push_back(e.arch);
    }
    info->entries.push_back(std::move(e));
  }
  return Status::Ok();
}

std::vector<std::string> bundle_search_paths(const std::string& explicit_path) {
  if (!explicit_path.empty()) return {explicit_path};
  const char* env = std::getenv(kLibraryPathEnv);
  if (env && *env) {
    std::string p = env;
    if (is_dir(p)) p += std::string(p.back() == '/' ? "" : "/") + kBundleFileName;
    return {p};
  }
  std::vector<std::string> paths;
  auto add = [&](const std::string& p) {
    for (const std::string& q : paths)
      if (q == p) return;
    paths.push_back(p);
  };
  // <dir>/../lib/uattn/<file>, with ".." resolved lexically.
  auto sibling_lib = [](const std::string& dir) {
    const std::string up = dir_of(dir);
    return (up == "/" ? "" : up) + "/lib/uattn/" + kBundleFileName;
  };
  const std::string lib = this_library_file();
  if (!lib.empty()) {
    add(dir_of(lib) + "/uattn/" + kBundleFileName);  // <libdir>/uattn, also multiarch libdirs
    add(sibling_lib(dir_of(lib)));
  }
  const std::string exe = executable_file();
  if (!exe.empty()) add(sibling_lib(dir_of(exe)));
#ifdef UATTN_BUILD_BUNDLE_PATH
  add(UATTN_BUILD_BUNDLE_PATH);
#endif
  return paths;
}

Status read_bundle(const std::string& explicit_path, std::vector<uint8_t>* bytes, std::string* path_used) {
  const std::vector<std::string> paths = bundle_search_paths(explicit_path);
  std::ostringstream tried;
  for (const std::string& p : paths) {
    std::vector<uint8_t> data;
    std::string why = read_file(p, &data);
    if (why.empty() && data.empty()) why = "empty file";
    if (why.empty()) {
      BundleInfo info;
      Status s = parse_bundle(data, &info);
      if (!s.ok()) return Status{kBundle, s.message + " in " + p};
      *bytes = std::move(data);
      *path_used = p;
      return Status::Ok();
    }
    tried << "\n  " << p << " (" << why << ")";
  }
  const char* env = std::getenv(kLibraryPathEnv);
  std::ostringstream m;
  m << "uattn: cannot read the kernel bundle " << kBundleFileName << "; tried:" << tried.str() << "\n";
  if (!explicit_path.empty())
    m << "The path was given explicitly (Runtime::create / uattn_runtime_create), so $" << kLibraryPathEnv
      << " and the default locations were not consulted.";
  else if (env && *env)
    m << "$" << kLibraryPathEnv << " is set to '" << env << "', so the default locations were not consulted.";
  else
    m << "$" << kLibraryPathEnv << " is not set; set it to the bundle file (or its folder), or pass the path to "
      << "Runtime::create / uattn_runtime_create.";
  m << " The bundle is built by the CMake target uattn_bundle (<build>/" << kBundleFileName
    << ") and installed to <libdir>/uattn/ next to libuattn.";
  return Status{kBundle, m.str()};
}

}  // namespace uattn
