// Finding, reading and inspecting the kernel bundle (no HIP dependency).
//
// Search order (Runtime::create): explicit path > $UATTN_LIBRARY_PATH (files or
// folders, ':'-separated) > <folder of libuattn>/uattn > <folder of
// libuattn>/../lib/uattn > <folder of the executable>/../lib/uattn > the
// per-architecture packages' folder (UATTN_PACKAGE_BUNDLE_DIR, compiled in) >
// the build tree (UATTN_BUILD_BUNDLE_PATH, compiled in). In a folder, the bundle
// of every architecture (uattn_kernels.hipfb) comes before the
// per-architecture ones (uattn_kernels-<arch>.hipfb). A failure names every
// path tried and why (STYLE.md: never a bare "No such file or directory").
//
// Bundle format (clang-offload-bundler, binary "-type=o"), little-endian:
//   "__CLANG_OFFLOAD_BUNDLE__" u64 n, then n x {u64 offset, u64 size, u64 id_len, id}
// A compressed bundle starts with "CCOB" and holds that, compressed; its entry
// list is read by the HIP runtime when it loads the bundle. Its header
// (clang's CompressedOffloadBundle), little-endian after the magic:
//   v1: u16 version, u16 method, u32 uncompressed size, u64 hash            (20 bytes)
//   v2: u16 version, u16 method, u32 file size, u32 uncompressed size, u64 hash  (24)
//   v3: u16 version, u16 method, u64 file size, u64 uncompressed size, u64 hash  (32)
// method 0 = zlib, 1 = zstd; the compressed stream follows the header.
#include <dlfcn.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "uattn/input_file.hpp"
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

uint64_t read_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t read_u64(const uint8_t* p) { return read_le(p, 8); }

std::string hex_prefix(const std::vector<uint8_t>& b) {
  std::ostringstream o;
  o << std::hex;
  for (size_t i = 0; i < b.size() && i < 8; ++i) o << (i ? " " : "") << (b[i] >> 4) << (b[i] & 15);
  return o.str();
}

// A whole bundle or stamp file (read_input_file(): regular files only, never
// blocking on a FIFO) of at most kMaxBundleBytes; "" on success, else the reason.
std::string read_file(const std::string& path, std::vector<uint8_t>* out) {
  return read_input_file(path, kMaxBundleBytes, "kMaxBundleBytes", out);
}

Status bad_compressed(const std::vector<uint8_t>& b, const std::string& what) {
  return Status{kBundle, "uattn: corrupt compressed offload bundle (" + std::to_string(b.size()) + " bytes): " + what};
}

Status parse_compressed(const std::vector<uint8_t>& b, BundleInfo* info) {
  if (b.size() < 8) return bad_compressed(b, "the header is truncated; expected at least 8 bytes");
  const uint64_t version = read_le(b.data() + 4, 2), method = read_le(b.data() + 6, 2);
  if (version < 1 || version > 3)
    return bad_compressed(b, "version = " + std::to_string(version) + "; expected 1, 2 or 3");
  const size_t header = version == 1 ? 20 : version == 2 ? 24 : 32;
  if (b.size() < header)
    return bad_compressed(b, "the version " + std::to_string(version) + " header is truncated; expected " +
                                 std::to_string(header) + " bytes");
  if (method > 1)
    return bad_compressed(b, "method = " + std::to_string(method) + "; expected 0 (zlib) or 1 (zstd)");
  const int field = version == 3 ? 8 : 4;
  if (version >= 2) {
    const uint64_t total = read_le(b.data() + 8, field);
    if (total != b.size())
      return bad_compressed(b, "the header declares a file size of " + std::to_string(total) +
                                   " bytes; expected the " + std::to_string(b.size()) + " bytes read" +
                                   (total > b.size() ? " (a truncated copy?)" : ""));
  }
  const uint64_t raw = read_le(b.data() + (version == 1 ? 8 : 8 + field), field);
  if (raw == 0 || raw > kMaxUncompressedBundleBytes)
    return bad_compressed(b, "the header declares an uncompressed size of " + std::to_string(raw) +
                                 " bytes; expected 1 to " + std::to_string(kMaxUncompressedBundleBytes));
  if (b.size() == header) return bad_compressed(b, "no compressed data follows the header");
  info->compressed = true;
  info->compressed_version = (int)version;
  info->uncompressed_size = raw;
  return Status::Ok();
}

// "gfx950:sramecc+:xnack-" -> {"sramecc+", "xnack-"}
std::vector<std::string> target_features(const std::string& id) {
  std::vector<std::string> f;
  size_t p = id.find(':');
  while (p != std::string::npos) {
    const size_t q = id.find(':', p + 1);
    f.push_back(id.substr(p + 1, q == std::string::npos ? std::string::npos : q - p - 1));
    p = q;
  }
  return f;
}

}  // namespace

Status parse_bundle(const std::vector<uint8_t>& b, BundleInfo* info) {
  *info = BundleInfo{};
  const size_t magic_len = sizeof(kBundleMagic) - 1;
  if (b.size() >= 4 && std::memcmp(b.data(), kCompressedMagic, 4) == 0) return parse_compressed(b, info);
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

Status check_code_object(const uint8_t* p, uint64_t size, const std::string& what) {
  auto bad = [&](const std::string& why) {
    return Status{kBundle, "uattn: corrupt code object in " + what + " (" + std::to_string(size) + " bytes): " + why};
  };
  if (size < 64) return bad("shorter than an ELF64 header (64 bytes)");
  if (std::memcmp(p, "\x7f" "ELF", 4) != 0) return bad("no ELF magic (7f 45 4c 46)");
  if (p[4] != 2 || p[5] != 1) return bad("expected a 64-bit little-endian ELF (class 2, data 1)");
  const uint64_t machine = read_le(p + 18, 2);
  if (machine != 224) return bad("e_machine = " + std::to_string(machine) + "; expected 224 (EM_AMDGPU)");
  // A table of `num` entries of `entsize` bytes at `off` lies inside the image.
  auto table_ok = [&](uint64_t off, uint64_t entsize, uint64_t num, uint64_t min_entsize) {
    if (num == 0) return true;
    return entsize >= min_entsize && off <= size && num <= (size - off) / entsize;
  };
  const uint64_t phoff = read_u64(p + 32), shoff = read_u64(p + 40);
  const uint64_t phentsize = read_le(p + 54, 2), phnum = read_le(p + 56, 2);
  const uint64_t shentsize = read_le(p + 58, 2), shnum = read_le(p + 60, 2);
  if (!table_ok(phoff, phentsize, phnum, 56))
    return bad("program headers (e_phoff " + std::to_string(phoff) + ", " + std::to_string(phnum) + " x " +
               std::to_string(phentsize) + " bytes) extend past the image");
  if (!table_ok(shoff, shentsize, shnum, 64))
    return bad("section headers (e_shoff " + std::to_string(shoff) + ", " + std::to_string(shnum) + " x " +
               std::to_string(shentsize) + " bytes) extend past the image");
  for (uint64_t i = 0; i < phnum; ++i) {
    const uint8_t* h = p + phoff + i * phentsize;
    const uint64_t off = read_u64(h + 8), filesz = read_u64(h + 32);
    if (off > size || filesz > size - off)
      return bad("program header " + std::to_string(i) + " (offset " + std::to_string(off) + ", " +
                 std::to_string(filesz) + " bytes) extends past the image");
  }
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t* h = p + shoff + i * shentsize;
    const uint64_t type = read_le(h + 4, 4), off = read_u64(h + 24), sz = read_u64(h + 32);
    if (type != 8 /* SHT_NOBITS */ && (off > size || sz > size - off))
      return bad("section " + std::to_string(i) + " (offset " + std::to_string(off) + ", " + std::to_string(sz) +
                 " bytes) extends past the image");
  }
  return Status::Ok();
}

const BundleEntry* pick_code_object(const BundleInfo& info, const std::string& device, std::string* why) {
  const std::string processor = device.substr(0, device.find(':'));
  const std::vector<std::string> have = target_features(device);
  const BundleEntry* best = nullptr;
  size_t best_n = 0;
  std::string seen;
  for (const BundleEntry& e : info.entries) {
    if (e.arch.empty() || e.arch != processor) continue;  // "": not an amdgcn entry (an empty device id too)
    const std::string id = e.target.substr(e.target.find("--") + 2);
    seen += (seen.empty() ? "" : ", ") + id;
    const std::vector<std::string> want = target_features(id);
    bool ok = true;
    for (const std::string& f : want) {
      bool match = false;
      for (const std::string& h : have) match = match || h == f;
      ok = ok && match;
    }
    if (ok && (!best || want.size() > best_n)) { best = &e; best_n = want.size(); }
  }
  if (!best && why)
    *why = seen.empty() ? "the bundle has no code object for " + processor
                        : "no code object compatible with " + device + " (the bundle has " + seen +
                              "; each target feature an entry names must be set the same way on the device)";
  return best;
}

std::string arch_bundle_file_name(const std::string& arch) { return "uattn_kernels-" + arch + ".hipfb"; }
std::string arch_package_name(const std::string& arch) { return "uattn-" + arch; }
std::string package_bundle_dir() {
#ifdef UATTN_PACKAGE_BUNDLE_DIR
  return UATTN_PACKAGE_BUNDLE_DIR;
#else
  return "";
#endif
}

std::vector<BundleLocation> bundle_search_locations(const std::string& explicit_path) {
  if (!explicit_path.empty()) return {{explicit_path, false}};
  std::vector<BundleLocation> locs;
  auto add = [&](const std::string& p, bool folder) {
    for (const BundleLocation& q : locs)
      if (q.path == p) return;
    locs.push_back({p, folder});
  };
  const char* env = std::getenv(kLibraryPathEnv);
  if (env && *env) {
    const std::string v = env;
    size_t start = 0;
    while (start <= v.size()) {
      const size_t colon = v.find(':', start);
      std::string p = v.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!p.empty()) {
        const bool folder = is_dir(p);
        if (folder && p.size() > 1 && p.back() == '/') p.pop_back();
        add(p, folder);
      }
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    return locs;
  }
  // <dir>/../lib/uattn, with ".." resolved lexically.
  auto sibling_lib = [](const std::string& dir) {
    const std::string up = dir_of(dir);
    return (up == "/" ? "" : up) + "/lib/uattn";
  };
  const std::string lib = this_library_file();
  if (!lib.empty()) {
    add(dir_of(lib) + "/uattn", true);  // <libdir>/uattn, also multiarch libdirs
    add(sibling_lib(dir_of(lib)), true);
  }
  const std::string exe = executable_file();
  if (!exe.empty()) add(sibling_lib(dir_of(exe)), true);
  if (!package_bundle_dir().empty()) add(package_bundle_dir(), true);
#ifdef UATTN_BUILD_BUNDLE_PATH
  add(dir_of(UATTN_BUILD_BUNDLE_PATH), true);
#endif
  return locs;
}

namespace {
std::string in_folder(const std::string& dir, const std::string& file) {
  return dir + (dir == "/" ? "" : "/") + file;
}
}  // namespace

std::vector<std::string> bundle_search_paths(const std::string& explicit_path) {
  std::vector<std::string> out;
  for (const BundleLocation& l : bundle_search_locations(explicit_path))
    out.push_back(l.folder ? in_folder(l.path, kBundleFileName) : l.path);
  return out;
}

std::vector<std::string> bundle_search_paths_for_arch(const std::string& arch, const std::string& explicit_path) {
  std::vector<std::string> out;
  for (const BundleLocation& l : bundle_search_locations(explicit_path)) {
    if (!l.folder) {
      out.push_back(l.path);
      continue;
    }
    out.push_back(in_folder(l.path, kBundleFileName));
    out.push_back(in_folder(l.path, arch_bundle_file_name(arch)));
  }
  return out;
}

Status read_bundle_file(const std::string& path, std::vector<uint8_t>* bytes, std::string* why) {
  std::vector<uint8_t> data;
  *why = read_file(path, &data);
  if (why->empty() && data.empty()) *why = "empty file";
  if (!why->empty()) return Status{kBundle, "uattn: cannot read " + path + " (" + *why + ")"};
  BundleInfo info;
  Status s = parse_bundle(data, &info);
  if (!s.ok()) return Status{kBundle, s.message + " in " + path};
  *bytes = std::move(data);
  return Status::Ok();
}

Status read_bundle(const std::string& explicit_path, std::vector<uint8_t>* bytes, std::string* path_used) {
  // Candidates: per location, the bundle of every architecture, then one
  // bundle per architecture of the table (the per-architecture packages).
  std::vector<std::string> archs;
  for (const InstanceRow& r : all_rows()) {
    const std::string a = to_string(r.arch);
    bool seen = false;
    for (const std::string& x : archs) seen = seen || x == a;
    if (!seen) archs.push_back(a);
  }
  std::vector<std::string> paths;
  for (const BundleLocation& l : bundle_search_locations(explicit_path)) {
    if (!l.folder) {
      paths.push_back(l.path);
      continue;
    }
    paths.push_back(in_folder(l.path, kBundleFileName));
    for (const std::string& a : archs) paths.push_back(in_folder(l.path, arch_bundle_file_name(a)));
  }
  std::ostringstream tried;
  for (const std::string& p : paths) {
    std::string why;
    Status s = read_bundle_file(p, bytes, &why);
    if (s.ok()) {
      *path_used = p;
      return s;
    }
    if (why.empty()) return s;  // read, but not a bundle
    tried << "\n  " << p << " (" << why << ")";
  }
  const char* env = std::getenv(kLibraryPathEnv);
  std::ostringstream m;
  m << "uattn: cannot read a kernel bundle (" << kBundleFileName << ", or " << arch_bundle_file_name("<arch>")
    << " per architecture); tried:" << tried.str() << "\n";
  if (!explicit_path.empty())
    m << "The path was given explicitly (Runtime::create / uattn_runtime_create), so $" << kLibraryPathEnv
      << " and the default locations were not consulted.";
  else if (env && *env)
    m << "$" << kLibraryPathEnv << " is set to '" << env << "', so the default locations were not consulted.";
  else
    m << "$" << kLibraryPathEnv << " is not set; set it to a bundle file or a folder holding bundles (several, "
      << "separated by ':'), or pass the path to Runtime::create / uattn_runtime_create.";
  m << " The bundles are built by the CMake target uattn_bundle (<build>/" << kBundleFileName << ", <build>/"
    << arch_bundle_file_name("<arch>") << ") and installed to <libdir>/uattn/ next to libuattn";
  if (!archs.empty()) {
    m << " by the per-architecture packages:";
    for (const std::string& a : archs) m << " " << arch_package_name(a) << " (" << a << ")";
  }
  m << ".";
  return Status{kBundle, m.str()};
}

// A bundle's stamp file (runtime.cpp): "" and *text on success, else why not
// ("No such file or directory" when absent). Same rules as the bundle itself:
// regular files only, never blocking on a FIFO; at most 64 KiB.
std::string read_stamp_file(const std::string& path, std::string* text) {
  std::vector<uint8_t> data;
  const std::string why = read_file(path, &data);
  if (!why.empty()) return why;
  if (data.size() > (64u << 10)) return "is " + std::to_string(data.size()) + " bytes; expected at most 65536";
  text->assign(data.begin(), data.end());
  return "";
}

Status read_code_object_stamp(const uint8_t* p, uint64_t size, std::string* text) {
  text->clear();
  const Status ok = check_code_object(p, size, "the code object");
  if (!ok.ok()) return ok;
  const uint64_t shoff = read_u64(p + 40), shentsize = read_le(p + 58, 2), shnum = read_le(p + 60, 2),
                 shstrndx = read_le(p + 62, 2);
  if (shnum == 0 || shstrndx >= shnum) return Status::Ok();
  const uint8_t* strh = p + shoff + shstrndx * shentsize;
  const uint64_t str_off = read_u64(strh + 24), str_size = read_u64(strh + 32);
  const char kName[] = ".uattn.stamp";
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t* h = p + shoff + i * shentsize;
    const uint64_t name = read_le(h, 4), type = read_le(h + 4, 4), off = read_u64(h + 24), sz = read_u64(h + 32);
    if (name + sizeof(kName) > str_size || type == 8 /* SHT_NOBITS */) continue;
    if (std::memcmp(p + str_off + name, kName, sizeof(kName)) != 0) continue;
    text->assign(reinterpret_cast<const char*>(p + off), (size_t)sz);
    return Status::Ok();
  }
  return Status::Ok();
}

}  // namespace uattn
