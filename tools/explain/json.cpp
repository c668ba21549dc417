// Recursive-descent JSON reader (see json.hpp).
#include "json.hpp"

#include <cstdlib>

namespace uattn::explain {

const Json* Json::find(const std::string& key) const {
  if (type != Type::kObject) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &it->second;
}

const char* Json::type_name() const {
  switch (type) {
    case Type::kNull: return "null";
    case Type::kBool: return "a boolean";
    case Type::kNumber: return "a number";
    case Type::kString: return "a string";
    case Type::kArray: return "an array";
    case Type::kObject: return "an object";
  }
  return "?";
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  bool document(Json* out) {
    if (!value(out, 0)) return false;
    ws();
    return pos_ == t_.size() || fail("unexpected text after the JSON value");
  }
  std::string error() const {
    int line = 1, col = 1;
    for (size_t i = 0; i < err_pos_ && i < t_.size(); ++i) {
      if (t_[i] == '\n') { ++line; col = 1; } else { ++col; }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + err_;
  }

 private:
  bool fail(const std::string& what) {
    if (err_.empty()) { err_ = what; err_pos_ = pos_; }
    return false;
  }
  void ws() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) ++pos_;
  }
  bool literal(const char* word) {
    size_t n = 0;
    while (word[n]) ++n;
    if (t_.compare(pos_, n, word) != 0) return fail("invalid literal");
    pos_ += n;
    return true;
  }
  bool value(Json* v, int depth) {
    if (depth > 64) return fail("nesting deeper than 64");
    ws();
    if (pos_ >= t_.size()) return fail("unexpected end of input");
    const char c = t_[pos_];
    if (c == '{') return object(v, depth);
    if (c == '[') return array(v, depth);
    if (c == '"') { v->type = Json::Type::kString; return string(&v->str); }
    if (c == 't') { v->type = Json::Type::kBool; v->b = true; return literal("true"); }
    if (c == 'f') { v->type = Json::Type::kBool; v->b = false; return literal("false"); }
    if (c == 'n') { v->type = Json::Type::kNull; return literal("null"); }
    if (c == '-' || (c >= '0' && c <= '9')) return number(v);
    return fail(std::string("unexpected character '") + c + "'");
  }
  bool number(Json* v) {
    const char* begin = t_.c_str() + pos_;
    char* end = nullptr;
    v->type = Json::Type::kNumber;
    v->num = std::strtod(begin, &end);
    if (end == begin) return fail("invalid number");
    pos_ += (size_t)(end - begin);
    return true;
  }
  static void utf8(unsigned cp, std::string* s) {
    if (cp < 0x80) { *s += (char)cp; }
    else if (cp < 0x800) { *s += (char)(0xC0 | (cp >> 6)); *s += (char)(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) {
      *s += (char)(0xE0 | (cp >> 12)); *s += (char)(0x80 | ((cp >> 6) & 0x3F)); *s += (char)(0x80 | (cp & 0x3F));
    } else {
      *s += (char)(0xF0 | (cp >> 18)); *s += (char)(0x80 | ((cp >> 12) & 0x3F));
      *s += (char)(0x80 | ((cp >> 6) & 0x3F)); *s += (char)(0x80 | (cp & 0x3F));
    }
  }
  bool hex4(unsigned* cp) {
    if (pos_ + 4 > t_.size()) return fail("truncated \\u escape");
    *cp = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = t_[pos_++];
      *cp <<= 4;
      if (h >= '0' && h <= '9') *cp |= (unsigned)(h - '0');
      else if (h >= 'a' && h <= 'f') *cp |= (unsigned)(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') *cp |= (unsigned)(h - 'A' + 10);
      else return fail("invalid \\u escape");
    }
    return true;
  }
  bool string(std::string* s) {
    ++pos_;  // opening quote
    s->clear();
    while (pos_ < t_.size()) {
      const char c = t_[pos_++];
      if (c == '"') return true;
      if ((unsigned char)c < 0x20) return fail("control character in a string");
      if (c != '\\') { *s += c; continue; }
      if (pos_ >= t_.size()) break;
      const char e = t_[pos_++];
      switch (e) {
        case '"': *s += '"'; break;
        case '\\': *s += '\\'; break;
        case '/': *s += '/'; break;
        case 'b': *s += '\b'; break;
        case 'f': *s += '\f'; break;
        case 'n': *s += '\n'; break;
        case 'r': *s += '\r'; break;
        case 't': *s += '\t'; break;
        case 'u': {
          unsigned cp;
          if (!hex4(&cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00 && t_.compare(pos_, 2, "\\u") == 0) {
            pos_ += 2;
            unsigned lo;
            if (!hex4(&lo)) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          utf8(cp, s);
          break;
        }
        default: return fail(std::string("invalid escape '\\") + e + "'");
      }
    }
    return fail("unterminated string");
  }
  bool array(Json* v, int depth) {
    v->type = Json::Type::kArray;
    ++pos_;
    ws();
    if (pos_ < t_.size() && t_[pos_] == ']') { ++pos_; return true; }
    for (;;) {
      v->arr.emplace_back();
      if (!value(&v->arr.back(), depth + 1)) return false;
      ws();
      if (pos_ < t_.size() && t_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < t_.size() && t_[pos_] == ']') { ++pos_; return true; }
      return fail("expected ',' or ']'");
    }
  }
  bool object(Json* v, int depth) {
    v->type = Json::Type::kObject;
    ++pos_;
    ws();
    if (pos_ < t_.size() && t_[pos_] == '}') { ++pos_; return true; }
    for (;;) {
      ws();
      if (pos_ >= t_.size() || t_[pos_] != '"') return fail("expected a member name");
      std::string key;
      if (!string(&key)) return false;
      ws();
      if (pos_ >= t_.size() || t_[pos_] != ':') return fail("expected ':'");
      ++pos_;
      if (!value(&v->obj[key], depth + 1)) return false;
      ws();
      if (pos_ < t_.size() && t_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < t_.size() && t_[pos_] == '}') { ++pos_; return true; }
      return fail("expected ',' or '}'");
    }
  }

  const std::string& t_;
  size_t pos_ = 0;
  std::string err_;
  size_t err_pos_ = 0;
};

}  // namespace

bool parse_json(const std::string& text, Json* out, std::string* error) {
  Parser p(text);
  *out = Json{};
  if (p.document(out)) return true;
  *error = p.error();
  return false;
}

}  // namespace uattn::explain
