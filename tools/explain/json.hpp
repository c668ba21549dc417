// A small JSON reader for the scenario files (RFC 8259 values; numbers as double).
// Kept to what uattn-explain needs: parse a whole document, then look fields up.
// (Once the toolchain root carries nlohmann-json3-dev this file can be replaced
// by it; scenario.cpp is the only user.)
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace uattn::explain {

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;

  // Object member or nullptr (also when this is not an object).
  const Json* find(const std::string& key) const;
  const char* type_name() const;
};

// Parses `text`; on error returns false and sets *error to "line L, column C: <what>".
bool parse_json(const std::string& text, Json* out, std::string* error);

}  // namespace uattn::explain
