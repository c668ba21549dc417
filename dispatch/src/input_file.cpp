// read_input_file(): see uattn/input_file.hpp.
#include "uattn/input_file.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace uattn {
namespace {

const char* file_kind(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string read_input_file(const std::string& path, uint64_t max_bytes, const char* limit_name,
                            std::vector<uint8_t>* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  struct Closer { int fd; ~Closer() { ::close(fd); } } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return std::string("fstat: ") + std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "is a folder";
  if (!S_ISREG(st.st_mode)) return std::string("is ") + file_kind(st.st_mode) + "; expected a regular file";
  if ((uint64_t)st.st_size > max_bytes)
    return "is " + std::to_string((uint64_t)st.st_size) + " bytes; expected at most " + std::to_string(max_bytes) +
           " (" + limit_name + ")";
  std::vector<uint8_t> data((size_t)st.st_size);
  size_t got = 0;
  while (got < data.size()) {
    const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::string("read error: ") + std::strerror(errno);
    if (n == 0) break;
    got += (size_t)n;
  }
  if (got != data.size())
    return "shrank while being read (" + std::to_string(got) + " of " + std::to_string(data.size()) + " bytes)";
  *out = std::move(data);
  return "";
}

}  // namespace uattn
