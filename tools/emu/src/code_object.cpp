#include "uattn/emu/code_object.hpp"

#include <elf.h>
#include <string.h>
#include <zstd.h>

#include <algorithm>
#include <msgpack.hpp>
#include <sstream>

namespace uattn::codeobj {
namespace {

// LLVM AMDGPUUsage.rst, "ELF Header" / "AMDGPU ELF Header e_flags".
constexpr uint16_t kEmAmdgpu = 224;
constexpr uint8_t kOsAbiAmdgpuHsa = 64;
constexpr uint32_t kMachMask = 0x0ff;
constexpr uint32_t kXnackMask = 0x300, kSrameccMask = 0xc00;  // code object v4+
constexpr uint32_t kFeatUnsupported = 0, kFeatAny = 1, kFeatOff = 2, kFeatOn = 3;  // value >> shift
constexpr uint32_t kNtAmdgpuMetadata = 32;
constexpr char kBundleMagic[] = "__CLANG_OFFLOAD_BUNDLE__";
constexpr size_t kBundleMagicLen = sizeof(kBundleMagic) - 1;

struct Mach { uint32_t value; const char* name; };
// The EF_AMDGPU_MACH values (LLVM AMDGPUUsage, "AMDGPU ELF Header") of the
// processors of the ISAs the emulator runs (gfx950; the RDNA2 ISA of gfx1030-gfx1032)
// plus neighbours, so a wrong-architecture image is named in the refusal.
constexpr Mach kMachs[] = {{0x2f, "gfx908"}, {0x30, "gfx90a"}, {0x36, "gfx1030"}, {0x37, "gfx1031"},
                           {0x38, "gfx1032"}, {0x41, "gfx1100"}, {0x4c, "gfx942"}, {0x4f, "gfx950"},
                           {0x4e, "gfx1201"}};

const char* mach_name(uint32_t m) {
  for (const Mach& x : kMachs)
    if (x.value == m) return x.name;
  return nullptr;
}

uint64_t rd64(const uint8_t* p) { uint64_t v; memcpy(&v, p, 8); return v; }
uint32_t rd32(const uint8_t* p) { uint32_t v; memcpy(&v, p, 4); return v; }
uint16_t rd16(const uint8_t* p) { uint16_t v; memcpy(&v, p, 2); return v; }

LoadResult fail(LoadError e, const std::string& m) { return LoadResult{e, m}; }

std::string str_of(const msgpack::object& o) {
  if (o.type == msgpack::type::STR) return std::string(o.via.str.ptr, o.via.str.size);
  return "";
}
uint64_t uint_of(const msgpack::object& o) {
  return o.type == msgpack::type::POSITIVE_INTEGER ? o.via.u64 : 0;
}
const msgpack::object* field(const msgpack::object& map, const char* key) {
  if (map.type != msgpack::type::MAP) return nullptr;
  for (uint32_t i = 0; i < map.via.map.size; ++i)
    if (str_of(map.via.map.ptr[i].key) == key) return &map.via.map.ptr[i].val;
  return nullptr;
}

// Metadata map (AMDGPUUsage.rst "Code Object V4/V5 Metadata") -> kernels.
LoadResult read_metadata(const uint8_t* desc, size_t n, CodeObject* co) {
  msgpack::object_handle oh;
  try {
    oh = msgpack::unpack(reinterpret_cast<const char*>(desc), n);
  } catch (const std::exception& e) {
    return fail(LoadError::kInvalidImage, std::string("the AMDGPU metadata note is not valid MessagePack: ") + e.what());
  }
  const msgpack::object& root = oh.get();
  if (const msgpack::object* t = field(root, "amdhsa.target")) co->target = str_of(*t);
  const msgpack::object* ks = field(root, "amdhsa.kernels");
  if (!ks || ks->type != msgpack::type::ARRAY)
    return fail(LoadError::kInvalidImage, "the AMDGPU metadata has no amdhsa.kernels array");
  for (uint32_t i = 0; i < ks->via.array.size; ++i) {
    const msgpack::object& k = ks->via.array.ptr[i];
    KernelInfo ki;
    auto u = [&](const char* key) { const msgpack::object* f = field(k, key); return f ? (uint32_t)uint_of(*f) : 0u; };
    if (const msgpack::object* f = field(k, ".name")) ki.name = str_of(*f);
    if (const msgpack::object* f = field(k, ".symbol")) ki.symbol = str_of(*f);
    if (ki.name.empty() || ki.symbol.empty())
      return fail(LoadError::kInvalidImage, "amdhsa.kernels[" + std::to_string(i) + "] has no .name or .symbol");
    ki.group_segment_fixed_size = u(".group_segment_fixed_size");
    ki.private_segment_fixed_size = u(".private_segment_fixed_size");
    ki.kernarg_segment_size = u(".kernarg_segment_size");
    ki.kernarg_segment_align = u(".kernarg_segment_align");
    ki.wavefront_size = u(".wavefront_size");
    ki.max_flat_workgroup_size = u(".max_flat_workgroup_size");
    ki.sgpr_count = u(".sgpr_count");
    ki.vgpr_count = u(".vgpr_count");
    if (const msgpack::object* r = field(k, ".reqd_workgroup_size"); r && r->type == msgpack::type::ARRAY)
      for (uint32_t d = 0; d < 3 && d < r->via.array.size; ++d) ki.reqd_workgroup_size[d] = (uint32_t)uint_of(r->via.array.ptr[d]);
    if (const msgpack::object* a = field(k, ".args"); a && a->type == msgpack::type::ARRAY)
      for (uint32_t j = 0; j < a->via.array.size; ++j) {
        const msgpack::object& ao = a->via.array.ptr[j];
        KernelArg arg;
        if (const msgpack::object* f = field(ao, ".value_kind")) arg.value_kind = str_of(*f);
        if (const msgpack::object* f = field(ao, ".offset")) arg.offset = (uint32_t)uint_of(*f);
        if (const msgpack::object* f = field(ao, ".size")) arg.size = (uint32_t)uint_of(*f);
        ki.args.push_back(arg);
      }
    if (ki.wavefront_size != 32 && ki.wavefront_size != 64)
      return fail(LoadError::kInvalidImage, "kernel " + ki.name + ": .wavefront_size = " +
                                                std::to_string(ki.wavefront_size) + ", expected 32 or 64");
    co->kernels.push_back(std::move(ki));
  }
  return {};
}

int feature_of(uint32_t flags, uint32_t mask, int shift) {
  switch ((flags & mask) >> shift) {
    case kFeatOff: return 0;
    case kFeatOn: return 1;
    default: return -1;  // any / unsupported
  }
}

// The tail of a "...--gfx950:sramecc+:xnack-" bundle id (or a target id) as a TargetId.
TargetId target_of_bundle_id(const std::string& id) {
  const size_t dd = id.find("--");
  return parse_target_id(dd == std::string::npos ? id : id.substr(dd + 2));
}

}  // namespace

uint32_t KernelInfo::explicit_args_size() const {
  uint32_t end = 0;
  for (const KernelArg& a : args)
    if (a.value_kind.rfind("hidden_", 0) != 0) end = std::max(end, a.offset + a.size);
  return end;
}

TargetId parse_target_id(const std::string& s) {
  TargetId t;
  std::stringstream in(s);
  std::string part;
  bool first = true;
  while (std::getline(in, part, ':')) {
    if (first) { t.processor = part; first = false; continue; }
    if (part.size() < 2) continue;
    const int v = part.back() == '+' ? 1 : part.back() == '-' ? 0 : -1;
    const std::string f = part.substr(0, part.size() - 1);
    if (f == "xnack") t.xnack = v;
    if (f == "sramecc") t.sramecc = v;
  }
  return t;
}

bool compatible(const std::string& p, int xnack, int sramecc, const TargetId& dev) {
  if (p != dev.processor) return false;
  if (xnack >= 0 && dev.xnack >= 0 && xnack != dev.xnack) return false;
  if (sramecc >= 0 && dev.sramecc >= 0 && sramecc != dev.sramecc) return false;
  return true;
}

size_t image_size(const uint8_t* p) {
  if (memcmp(p, ELFMAG, SELFMAG) == 0 && p[EI_CLASS] == ELFCLASS64) {
    const Elf64_Ehdr* h = reinterpret_cast<const Elf64_Ehdr*>(p);
    size_t end = std::max<size_t>(sizeof(Elf64_Ehdr), h->e_shoff + (size_t)h->e_shnum * h->e_shentsize);
    end = std::max<size_t>(end, h->e_phoff + (size_t)h->e_phnum * h->e_phentsize);
    for (int i = 0; i < h->e_shnum && h->e_shoff; ++i) {
      const Elf64_Shdr* s = reinterpret_cast<const Elf64_Shdr*>(p + h->e_shoff + (size_t)i * h->e_shentsize);
      if (s->sh_type != SHT_NOBITS) end = std::max<size_t>(end, s->sh_offset + s->sh_size);
    }
    return end;
  }
  if (memcmp(p, kBundleMagic, kBundleMagicLen) == 0) {
    const uint64_t n = rd64(p + kBundleMagicLen);
    size_t pos = kBundleMagicLen + 8, end = pos;
    for (uint64_t i = 0; i < n && i < 4096; ++i) {
      const uint64_t off = rd64(p + pos), size = rd64(p + pos + 8), id_len = rd64(p + pos + 16);
      pos += 24 + id_len;
      end = std::max<size_t>(end, std::max<size_t>(pos, off + size));
    }
    return end;
  }
  if (memcmp(p, "CCOB", 4) == 0) {
    const uint16_t version = rd16(p + 4);
    if (version == 2) return rd32(p + 8);
    if (version == 3) return rd64(p + 8);
  }
  return 0;
}

LoadResult parse_code_object(const uint8_t* p, size_t size, CodeObject* co) {
  *co = CodeObject{};
  if (size < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG) != 0)
    return fail(LoadError::kInvalidImage, "not an ELF file (no \\x7fELF magic)");
  if (p[EI_CLASS] != ELFCLASS64 || p[EI_DATA] != ELFDATA2LSB)
    return fail(LoadError::kInvalidImage, "not a little-endian ELF64 file (AMDGPU code objects are)");
  Elf64_Ehdr h;
  memcpy(&h, p, sizeof h);
  if (h.e_machine != kEmAmdgpu)
    return fail(LoadError::kInvalidImage, "e_machine = " + std::to_string(h.e_machine) + ", expected EM_AMDGPU (224)");
  if (p[EI_OSABI] != kOsAbiAmdgpuHsa)
    return fail(LoadError::kInvalidImage, "EI_OSABI = " + std::to_string(p[EI_OSABI]) +
                                              ", expected ELFOSABI_AMDGPU_HSA (64)");
  const int abiv = p[EI_ABIVERSION];
  if (abiv < 2 || abiv > 4)
    return fail(LoadError::kNotSupported, "EI_ABIVERSION = " + std::to_string(abiv) +
                                              ": code object v" + std::to_string(abiv + 2) +
                                              "; this device loads v4-v6 (ABI versions 2-4)");
  co->code_object_version = abiv + 2;
  if (h.e_type != ET_DYN)
    return fail(LoadError::kInvalidImage, "e_type = " + std::to_string(h.e_type) +
                                              ", expected ET_DYN (a linked code object, not a relocatable .o)");
  const char* mn = mach_name(h.e_flags & kMachMask);
  if (!mn) {
    std::ostringstream m;
    m << "e_flags EF_AMDGPU_MACH = 0x" << std::hex << (h.e_flags & kMachMask) << " is no processor this device knows";
    return fail(LoadError::kNoBinaryForGpu, m.str());
  }
  co->processor = mn;
  co->xnack = feature_of(h.e_flags, kXnackMask, 8);
  co->sramecc = feature_of(h.e_flags, kSrameccMask, 10);
  if (h.e_shoff == 0 || h.e_shentsize != sizeof(Elf64_Shdr) || h.e_shoff + (size_t)h.e_shnum * sizeof(Elf64_Shdr) > size)
    return fail(LoadError::kInvalidImage, "section header table missing or outside the image");
  std::vector<Elf64_Shdr> sh(h.e_shnum);
  memcpy(sh.data(), p + h.e_shoff, sh.size() * sizeof(Elf64_Shdr));
  for (size_t i = 0; i < sh.size(); ++i)
    if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_offset + sh[i].sh_size > size)
      return fail(LoadError::kInvalidImage, "section " + std::to_string(i) + " lies outside the image");

  // Metadata note.
  bool have_md = false;
  for (const Elf64_Shdr& s : sh) {
    if (s.sh_type != SHT_NOTE) continue;
    size_t pos = s.sh_offset;
    const size_t end = s.sh_offset + s.sh_size;
    while (pos + 12 <= end) {
      const uint32_t namesz = rd32(p + pos), descsz = rd32(p + pos + 4), type = rd32(p + pos + 8);
      const size_t name_at = pos + 12, desc_at = name_at + ((namesz + 3) & ~3u);
      if (desc_at + descsz > end) return fail(LoadError::kInvalidImage, "a note runs past its section");
      const std::string name(reinterpret_cast<const char*>(p + name_at), namesz ? namesz - 1 : 0);
      if (name == "AMDGPU" && type == kNtAmdgpuMetadata) {
        LoadResult r = read_metadata(p + desc_at, descsz, co);
        if (r.error != LoadError::kNone) return r;
        have_md = true;
      }
      pos = desc_at + ((descsz + 3) & ~3u);
    }
  }
  if (!have_md) return fail(LoadError::kInvalidImage, "no NT_AMDGPU_METADATA note (\"AMDGPU\", type 32)");

  // Symbol table: every kernel needs its STT_FUNC symbol and a 64-byte
  // STT_OBJECT "<name>.kd" whose group_segment_fixed_size (bytes 0-3) and
  // kernarg_size (bytes 8-11) agree with the metadata (AMDGPUUsage.rst,
  // "Kernel Descriptor").
  const Elf64_Shdr* symtab = nullptr;
  for (const Elf64_Shdr& s : sh)
    if (s.sh_type == SHT_SYMTAB || (s.sh_type == SHT_DYNSYM && !symtab)) symtab = &s;
  if (!symtab || symtab->sh_link >= sh.size()) return fail(LoadError::kInvalidImage, "no symbol table");
  const Elf64_Shdr& strtab = sh[symtab->sh_link];
  struct Sym { unsigned type; uint64_t value, size; uint16_t shndx; };
  auto lookup = [&](const std::string& want, Sym* out) {
    const size_t n = symtab->sh_size / sizeof(Elf64_Sym);
    for (size_t i = 0; i < n; ++i) {
      Elf64_Sym s;
      memcpy(&s, p + symtab->sh_offset + i * sizeof(Elf64_Sym), sizeof s);
      if (s.st_name >= strtab.sh_size) continue;
      const char* nm = reinterpret_cast<const char*>(p + strtab.sh_offset + s.st_name);
      if (strnlen(nm, strtab.sh_size - s.st_name) == want.size() && want == nm) {
        *out = Sym{(unsigned)ELF64_ST_TYPE(s.st_info), s.st_value, s.st_size, s.st_shndx};
        return true;
      }
    }
    return false;
  };
  for (const KernelInfo& k : co->kernels) {
    Sym fn{}, kd{};
    if (!lookup(k.name, &fn) || fn.type != STT_FUNC)
      return fail(LoadError::kInvalidImage, "kernel " + k.name + " has no STT_FUNC symbol");
    if (!lookup(k.symbol, &kd) || kd.type != STT_OBJECT || kd.size != 64)
      return fail(LoadError::kInvalidImage, "kernel " + k.name + ": no 64-byte STT_OBJECT descriptor " + k.symbol);
    if (kd.shndx == SHN_UNDEF || kd.shndx >= sh.size())
      return fail(LoadError::kInvalidImage, "kernel descriptor " + k.symbol + " is in no section");
    const Elf64_Shdr& sec = sh[kd.shndx];
    if (kd.value < sec.sh_addr || kd.value + 64 > sec.sh_addr + sec.sh_size || sec.sh_type == SHT_NOBITS)
      return fail(LoadError::kInvalidImage, "kernel descriptor " + k.symbol + " lies outside its section");
    const uint8_t* d = p + sec.sh_offset + (kd.value - sec.sh_addr);
    const uint32_t group = rd32(d), kernarg = rd32(d + 8);
    if (group != k.group_segment_fixed_size || kernarg != k.kernarg_segment_size) {
      std::ostringstream m;
      m << "kernel " << k.name << ": descriptor says group_segment_fixed_size " << group << ", kernarg_size "
        << kernarg << "; the metadata says " << k.group_segment_fixed_size << ", " << k.kernarg_segment_size;
      return fail(LoadError::kInvalidImage, m.str());
    }
  }
  return {};
}

LoadResult load_image(const void* image, const TargetId& dev, CodeObject* co, std::vector<uint8_t>* elf) {
  if (!image) return fail(LoadError::kInvalidImage, "image is null");
  const uint8_t* p = static_cast<const uint8_t*>(image);
  std::vector<uint8_t> plain;  // decompressed bundle
  if (memcmp(p, "CCOB", 4) == 0) {
    const uint16_t version = rd16(p + 4), method = rd16(p + 6);
    size_t hdr = 0, total = 0, raw = 0;
    if (version == 2) { total = rd32(p + 8); raw = rd32(p + 12); hdr = 24; }
    else if (version == 3) { total = rd64(p + 8); raw = rd64(p + 16); hdr = 32; }
    else return fail(LoadError::kNotSupported, "compressed bundle version " + std::to_string(version) +
                                                   "; this device reads versions 2 and 3 (they state their size)");
    if (method != 1)
      return fail(LoadError::kNotSupported, "compressed bundle method " + std::to_string(method) +
                                                " (0 = zlib); this device decompresses zstd (1) only");
    if (total < hdr) return fail(LoadError::kInvalidImage, "compressed bundle size field is smaller than its header");
    plain.resize(raw);
    const size_t got = ZSTD_decompress(plain.data(), raw, p + hdr, total - hdr);
    if (ZSTD_isError(got) || got != raw)
      return fail(LoadError::kInvalidImage, std::string("compressed bundle does not decompress: ") +
                                                (ZSTD_isError(got) ? ZSTD_getErrorName(got) : "size mismatch"));
    p = plain.data();
    if (memcmp(p, kBundleMagic, kBundleMagicLen) != 0)
      return fail(LoadError::kInvalidImage, "compressed bundle does not hold an offload bundle");
  }
  if (memcmp(p, kBundleMagic, kBundleMagicLen) == 0) {
    const uint64_t n = rd64(p + kBundleMagicLen);
    size_t pos = kBundleMagicLen + 8;
    std::string seen;
    for (uint64_t i = 0; i < n && i < 4096; ++i) {
      const uint64_t off = rd64(p + pos), size = rd64(p + pos + 8), id_len = rd64(p + pos + 16);
      const std::string id(reinterpret_cast<const char*>(p + pos + 24), id_len);
      pos += 24 + id_len;
      if (id.find("amdgcn-amd-amdhsa") == std::string::npos) continue;
      seen += (seen.empty() ? "" : ", ") + id;
      const TargetId t = target_of_bundle_id(id);
      if (!compatible(t.processor, t.xnack, t.sramecc, dev) || size == 0) continue;
      elf->assign(p + off, p + off + size);
      LoadResult r = parse_code_object(elf->data(), elf->size(), co);
      if (r.error != LoadError::kNone) r.message = "bundle entry " + id + ": " + r.message;
      return r;
    }
    std::string want = dev.processor + (dev.sramecc >= 0 ? (dev.sramecc ? ":sramecc+" : ":sramecc-") : "") +
                       (dev.xnack >= 0 ? (dev.xnack ? ":xnack+" : ":xnack-") : "");
    return fail(LoadError::kNoBinaryForGpu, "the bundle has no code object for " + want + " (entries: " +
                                                (seen.empty() ? std::string("none") : seen) + ")");
  }
  const size_t size = image_size(p);
  if (size == 0) return fail(LoadError::kInvalidImage, "neither an ELF code object nor an offload bundle");
  elf->assign(p, p + size);
  LoadResult r = parse_code_object(elf->data(), elf->size(), co);
  if (r.error != LoadError::kNone) return r;
  if (!compatible(co->processor, co->xnack, co->sramecc, dev))
    return fail(LoadError::kNoBinaryForGpu, "the code object is for " + co->processor + " (" + co->target +
                                                "), the device is " + dev.processor);
  return {};
}

}  // namespace uattn::codeobj
