// Byte reader of the fuzz targets: fixed-width little-endian fields taken from
// the front of libFuzzer's input; past the end every field reads as 0. The seed
// writer (make_seeds.py) packs the same layouts with Python's struct module.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <cstring>
#include <string>

namespace uattn_fuzz {

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  template <class T>
  T get() {
    T v{};
    uint8_t b[sizeof(T)] = {};
    const size_t k = n_ < sizeof(T) ? n_ : sizeof(T);
    if (k) std::memcpy(b, p_, k);
    p_ += k;
    n_ -= k;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }
  // A string of up to `max` bytes, length-prefixed by one byte.
  std::string str(size_t max) {
    size_t len = get<uint8_t>();
    if (len > max) len = max;
    if (len > n_) len = n_;
    std::string s(reinterpret_cast<const char*>(p_), len);
    p_ += len;
    n_ -= len;
    return s;
  }
  size_t left() const { return n_; }
  const uint8_t* rest() const { return p_; }

 private:
  const uint8_t* p_;
  size_t n_;
};

}  // namespace uattn_fuzz
