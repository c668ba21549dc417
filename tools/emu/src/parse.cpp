// Parsing llvm-objdump's AMDGPU disassembly into the instruction form of
// machine.hpp. The operand syntax is LLVM's AMDGPU assembler syntax
// (llvm/docs/AMDGPUOperandSyntax.rst, AMDGPUModifierSyntax.rst).
#include <stdlib.h>

#include <sstream>

#include "machine.hpp"

namespace uattn::emu {

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// Splits at `sep` outside brackets / parentheses / quotes.
std::vector<std::string> split_top(const std::string& s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  bool quote = false;
  std::string cur;
  for (char ch : s) {
    if (ch == '"') quote = !quote;
    if (!quote) {
      if (ch == '[' || ch == '(') ++depth;
      if (ch == ']' || ch == ')') --depth;
    }
    if (ch == sep && depth == 0 && !quote) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

bool parse_int(const std::string& t, int64_t* v) {
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long x = strtoll(t.c_str(), &end, 0);
  if (*end != 0) {
    // hex literals above INT64_MAX do not occur (32-bit literals)
    unsigned long long u = strtoull(t.c_str(), &end, 0);
    if (*end != 0) return false;
    x = (long long)u;
  }
  *v = x;
  return true;
}

bool reg_range(const std::string& t, char prefix, uint16_t* reg, uint8_t* n) {
  if (t.size() < 2 || t[0] != prefix) return false;
  if (t[1] == '[') {
    int a = 0, b = 0;
    if (sscanf(t.c_str() + 1, "[%d:%d]", &a, &b) == 2 && b >= a) {
      *reg = (uint16_t)a;
      *n = (uint8_t)(b - a + 1);
      return true;
    }
    if (sscanf(t.c_str() + 1, "[%d]", &a) == 1) {
      *reg = (uint16_t)a;
      *n = 1;
      return true;
    }
    return false;
  }
  for (size_t i = 1; i < t.size(); ++i)
    if (t[i] < '0' || t[i] > '9') return false;
  *reg = (uint16_t)atoi(t.c_str() + 1);
  *n = 1;
  return true;
}

Operand parse_operand(std::string t, Gen gen) {
  Operand o;
  o.text = t;
  if (t.rfind("sext(", 0) == 0 && t.back() == ')') {
    o.sext = true;
    t = t.substr(5, t.size() - 6);
  }
  if (!t.empty() && t[0] == '-' && t.size() > 1 && (t[1] == 'v' || t[1] == 's' || t[1] == '|' || t[1] == 'a')) {
    o.neg = true;
    t = t.substr(1);
  }
  if (t.size() > 2 && t.front() == '|' && t.back() == '|') {
    o.abs = true;
    t = t.substr(1, t.size() - 2);
  }
  if (t.rfind("neg(", 0) == 0 && t.back() == ')') { o.neg = true; t = t.substr(4, t.size() - 5); }
  if (t.rfind("abs(", 0) == 0 && t.back() == ')') { o.abs = true; t = t.substr(4, t.size() - 5); }
  if (reg_range(t, 'v', &o.reg, &o.n)) { o.kind = Operand::kVgpr; return o; }
  if (reg_range(t, 'a', &o.reg, &o.n)) { o.kind = Operand::kAgpr; return o; }
  if (reg_range(t, 's', &o.reg, &o.n)) { o.kind = Operand::kSgpr; return o; }
  struct Named { const char* name; int slot, n; };
  static const Named named[] = {{"vcc", kVccLo, 2},     {"vcc_lo", kVccLo, 1}, {"vcc_hi", kVccHi, 1},
                                {"exec", kExecLo, 2},   {"exec_lo", kExecLo, 1}, {"exec_hi", kExecHi, 1},
                                {"m0", kM0, 1},         {"null", kNull, 1},
                                {"flat_scratch", 102, 2}, {"flat_scratch_lo", 102, 1}, {"flat_scratch_hi", 103, 1},
                                {"xnack_mask", 104, 2}};
  for (const Named& nm : named)
    if (t == nm.name) {
      o.kind = Operand::kSgpr;
      o.reg = (uint16_t)nm.slot;
      o.n = (uint8_t)nm.n;
      if (gen == Gen::kGfx10 && (t == "vcc" || t == "exec")) o.n = 2;
      return o;
    }
  if (t == "scc" || t == "src_scc") { o.kind = Operand::kScc; return o; }
  if (t == "off") { o.kind = Operand::kOff; return o; }
  int64_t iv;
  if (parse_int(t, &iv)) {
    o.kind = Operand::kInt;
    o.ival = iv;
    o.literal = !(iv >= -16 && iv <= 64);
    return o;
  }
  if (t.find('.') != std::string::npos) {
    char* end = nullptr;
    double d = strtod(t.c_str(), &end);
    if (*end == 0) {
      o.kind = Operand::kFloat;
      o.fval = d;
      return o;
    }
  }
  o.kind = Operand::kOther;
  return o;
}

Sel parse_sel(const std::string& v) {
  if (v == "BYTE_0") return Sel::kByte0;
  if (v == "BYTE_1") return Sel::kByte1;
  if (v == "BYTE_2") return Sel::kByte2;
  if (v == "BYTE_3") return Sel::kByte3;
  if (v == "WORD_0") return Sel::kWord0;
  if (v == "WORD_1") return Sel::kWord1;
  if (v == "DWORD") return Sel::kDword;
  fail("unknown SDWA select " + v);
}

uint8_t parse_bits(const std::string& v) {  // "[0,1,1]" -> bit i = element i
  uint8_t bits = 0;
  int i = 0;
  for (char ch : v) {
    if (ch == '0') ++i;
    if (ch == '1') bits |= uint8_t(1u << i++);
  }
  return bits;
}

// A modifier token "name:value" or a bare flag; false when it is not one.
bool apply_modifier(Inst& in, const std::string& tok) {
  const size_t colon = tok.find(':');
  const std::string name = colon == std::string::npos ? tok : tok.substr(0, colon);
  const std::string val = colon == std::string::npos ? std::string() : tok.substr(colon + 1);
  int64_t iv = 0;
  auto num = [&] {
    if (!parse_int(val, &iv)) fail("modifier " + tok + ": not a number");
    return iv;
  };
  if (colon == std::string::npos) {
    if (name == "offen") return in.offen = true;
    if (name == "idxen") return in.idxen = true;
    if (name == "glc") return in.glc = true;
    if (name == "slc") return in.slc = true;
    if (name == "dlc") return in.dlc = true;
    if (name == "lds") return in.lds = true;
    if (name == "sc0") return in.sc0 = true;
    if (name == "sc1") return in.sc1 = true;
    if (name == "nt") return in.nt = true;
    if (name == "clamp") return in.clamp = true;
    if (name == "row_mirror") { in.dpp = Inst::kRowMirror; return true; }
    if (name == "row_half_mirror") { in.dpp = Inst::kRowHalfMirror; return true; }
    return false;
  }
  if (name == "offset") {
    if (val.rfind("swizzle(", 0) == 0) { in.extra = val; return true; }
    in.offset = num();
    in.has_offset = true;
    return true;
  }
  if (name == "offset0") return (in.offset0 = (int)num()), true;
  if (name == "offset1") return (in.offset1 = (int)num()), true;
  if (name == "op_sel") return (in.op_sel = parse_bits(val)), true;
  if (name == "op_sel_hi") { in.op_sel_hi = parse_bits(val); in.has_op_sel_hi = true; return true; }
  if (name == "neg_lo") return (in.neg_lo = parse_bits(val)), true;
  if (name == "neg_hi") return (in.neg_hi = parse_bits(val)), true;
  if (name == "bitop3") return (in.bitop3 = (uint32_t)num()), true;
  if (name == "cbsz") return (in.cbsz = (int)num()), true;
  if (name == "abid") return (in.abid = (int)num()), true;
  if (name == "blgp") return (in.blgp = (int)num()), true;
  if (name == "mul") { in.omod = num() == 2 ? 1 : 2; return true; }
  if (name == "div") { in.omod = 3; return true; }
  if (name == "row_mask") return (in.row_mask = (uint8_t)num()), true;
  if (name == "bank_mask") return (in.bank_mask = (uint8_t)num()), true;
  if (name == "bound_ctrl") { in.bound_ctrl = true; return true; }  // printed when the BOUND_CTRL bit is set
  if (name == "fi") return (in.fi = num() != 0), true;
  if (name == "quad_perm") {
    int a, b, c2, d;
    if (sscanf(val.c_str(), "[%d,%d,%d,%d]", &a, &b, &c2, &d) != 4) fail("quad_perm " + val);
    in.dpp = Inst::kQuadPerm;
    in.dpp_arg = uint8_t(a | b << 2 | c2 << 4 | d << 6);
    return true;
  }
  struct D { const char* n; Inst::DppKind k; };
  static const D dpps[] = {{"row_shl", Inst::kRowShl},   {"row_shr", Inst::kRowShr},     {"row_ror", Inst::kRowRor},
                           {"wave_shl", Inst::kWaveShl}, {"wave_rol", Inst::kWaveRol},   {"wave_shr", Inst::kWaveShr},
                           {"wave_ror", Inst::kWaveRor}, {"row_share", Inst::kRowShare}, {"row_xmask", Inst::kRowXmask},
                           {"row_newbcast", Inst::kRowNewBcast}};
  for (const D& d : dpps)
    if (name == d.n) {
      in.dpp = d.k;
      in.dpp_arg = (uint8_t)num();
      return true;
    }
  if (name == "row_bcast") {
    in.dpp = num() == 15 ? Inst::kRowBcast15 : Inst::kRowBcast31;
    return true;
  }
  if (name == "dst_sel") return (in.dst_sel = parse_sel(val)), true;
  if (name == "src0_sel") return (in.src_sel[0] = parse_sel(val)), true;
  if (name == "src1_sel") return (in.src_sel[1] = parse_sel(val)), true;
  if (name == "dst_unused") {
    in.dst_unused = val == "UNUSED_SEXT" ? Unused::kSext : val == "UNUSED_PRESERVE" ? Unused::kPreserve : Unused::kPad;
    return true;
  }
  return false;
}

void parse_waitcnt(Inst& in, const std::string& rest, Gen gen) {
  // "vmcnt(0) lgkmcnt(0)" / "vmcnt(0) expcnt(0) lgkmcnt(0)" / a bare number / "null, 0x0" (s_waitcnt_vscnt)
  if (in.base == "s_waitcnt_vscnt") {
    auto parts = split_top(rest, ',');
    int64_t v = 0;
    if (parts.size() != 2 || !parse_int(trim(parts[1]), &v)) fail("s_waitcnt_vscnt operands: " + rest);
    in.vscnt = (int)v;
    return;
  }
  std::istringstream is(rest);
  std::string tok;
  while (is >> tok) {
    int v = 0;
    if (sscanf(tok.c_str(), "vmcnt(%d)", &v) == 1) in.vmcnt = v;
    else if (sscanf(tok.c_str(), "lgkmcnt(%d)", &v) == 1) in.lgkmcnt = v;
    else if (sscanf(tok.c_str(), "expcnt(%d)", &v) == 1) in.expcnt = v;
    else if (sscanf(tok.c_str(), "vscnt(%d)", &v) == 1) in.vscnt = v;
    else {
      int64_t raw;
      if (!parse_int(tok, &raw)) fail("s_waitcnt operand " + tok);
      // a raw immediate: decode per generation (ISA: S_WAITCNT fields)
      if (in.base == "s_waitcnt") {
        in.vmcnt = (int)((raw & 0xf) | ((raw >> 10) & 0x30));
        in.expcnt = (int)((raw >> 4) & 7);
        in.lgkmcnt = (int)((raw >> 8) & (gen == Gen::kGfx10 ? 0x3f : 0xf));  // gfx9 [11:8], gfx10 [13:8]
      }
    }
  }
}

std::string strip_enc(const std::string& m, Enc* enc) {
  struct S { const char* s; Enc e; };
  static const S suf[] = {{"_e32", Enc::kE32}, {"_e64", Enc::kE64}, {"_dpp", Enc::kDpp}, {"_sdwa", Enc::kSdwa}};
  for (const S& x : suf) {
    const size_t n = strlen(x.s);
    if (m.size() > n && m.compare(m.size() - n, n, x.s) == 0) {
      *enc = x.e;
      return m.substr(0, m.size() - n);
    }
  }
  *enc = Enc::kNative;
  return m;
}

}  // namespace

std::map<std::string, Program> parse_disassembly(const std::string& text, Gen gen) {
  std::map<std::string, Program> progs;
  Program* cur = nullptr;
  std::istringstream is(text);
  std::string line;
  while (std::getline(is, line)) {
    if (line.empty()) continue;
    if (line[0] != '\t') {
      // "0000000000033c00 <name>:"
      const size_t lt = line.find('<'), gt = line.rfind(">:");
      if (lt != std::string::npos && gt != std::string::npos && gt > lt) {
        const std::string name = line.substr(lt + 1, gt - lt - 1);
        cur = &progs[name];
        cur->kernel = name;
        cur->gen = gen;
      }
      continue;
    }
    if (!cur) continue;
    const size_t cm = line.find("//");
    if (cm == std::string::npos) continue;
    Inst in;
    in.text = trim(line);
    // "// 000000033C00: C0060180 00000110"
    {
      const std::string c = line.substr(cm + 2);
      unsigned long long addr = 0;
      char* end = nullptr;
      addr = strtoull(c.c_str(), &end, 16);
      if (!end || *end != ':') continue;
      in.addr = addr;
      int words = 0;
      std::istringstream ws(std::string(end + 1));
      std::string w;
      while (ws >> w && w[0] != '<') {
        if (w.size() == 8) ++words;
        else break;
      }
      in.size = (uint32_t)(4 * std::max(words, 1));
    }
    const std::string body = trim(line.substr(0, cm));
    const size_t sp = body.find_first_of(" \t");
    in.mnemonic = sp == std::string::npos ? body : body.substr(0, sp);
    const std::string rest = sp == std::string::npos ? std::string() : trim(body.substr(sp));
    in.base = strip_enc(in.mnemonic, &in.enc);
    if (in.base == "s_waitcnt" || in.base == "s_waitcnt_vscnt") {
      parse_waitcnt(in, rest, gen);
    } else if (!rest.empty()) {
      std::vector<std::string> parts = split_top(rest, ',');
      // the last part may carry space-separated modifiers; so may any part's tail
      std::vector<std::string> operands;
      for (size_t i = 0; i < parts.size(); ++i) {
        std::vector<std::string> toks = split_top(trim(parts[i]), ' ');
        std::vector<std::string> clean;
        for (auto& t : toks)
          if (!trim(t).empty()) clean.push_back(trim(t));
        if (clean.empty()) continue;
        size_t k = 0;
        if (i + 1 < parts.size() || !apply_modifier(in, clean[0])) {
          operands.push_back(clean[0]);
          k = 1;
        }
        for (; k < clean.size(); ++k) {
          if (!apply_modifier(in, clean[k])) {
            if (clean[k].rfind("hwreg(", 0) == 0 || clean[k].rfind("sendmsg(", 0) == 0) in.extra = clean[k];
            else operands.push_back(clean[k]);
          }
        }
      }
      for (const std::string& t : operands) {
        if (in.nops == 8) fail("more than 8 operands: " + in.text);
        in.ops[in.nops++] = parse_operand(t, gen);
      }
    }
    // src0 of DPP / SDWA forms: after the vector destination and a carry-out
    in.src0 = 1;
    if (in.nops > 2 && in.ops[1].kind == Operand::kSgpr &&
        (in.base.find("_co_") != std::string::npos || in.base.find("addc") != std::string::npos ||
         in.base.find("subb") != std::string::npos))
      in.src0 = 2;
    // branches: SOPP SIMM16 in dwords from the next instruction (ISA: "Program flow")
    if (in.base.rfind("s_cbranch", 0) == 0 || in.base == "s_branch") {
      if (in.nops < 1 || in.ops[0].kind != Operand::kInt) fail("branch without offset: " + in.text);
      in.simm = (int16_t)(uint16_t)(in.ops[0].ival & 0xffff);  // SIMM16, printed unsigned
    } else if (in.base == "s_nop" || in.base == "s_movk_i32" || in.base == "s_addk_i32" || in.base == "s_mulk_i32") {
      if (in.nops > 0 && in.ops[in.nops - 1].kind == Operand::kInt) in.simm = in.ops[in.nops - 1].ival;
    }
    // Memory instructions return their data in order with the earlier loads of
    // their counter, so they may target a register whose load is outstanding.
    for (const char* pre : {"s_load", "s_buffer_load", "ds_", "global_", "flat_", "buffer_", "scratch_"})
      if (in.base.rfind(pre, 0) == 0) in.is_mem = true;
    cur->by_addr[in.addr] = cur->insts.size();
    cur->insts.push_back(std::move(in));
  }
  for (auto& [name, p] : progs) {
    for (Inst& in : p.insts) {
      in.fn = find_handler(in.base);
      if (in.base.rfind("s_cbranch", 0) == 0 || in.base == "s_branch") {
        const uint64_t t = in.addr + 4 + (uint64_t)(in.simm * 4);
        auto it = p.by_addr.find(t);
        if (it == p.by_addr.end()) {
          std::ostringstream m;
          m << name << ": branch at 0x" << std::hex << in.addr << " to 0x" << t << ", not an instruction";
          fail(m.str());
        }
        in.target = (int64_t)it->second;
      }
    }
  }
  return progs;
}

}  // namespace uattn::emu
