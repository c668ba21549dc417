// Reading an input file the one way uattn does: the runtime's bundles and
// stamp files, the scenario files of uattn-explain / uattn-bench and the code
// objects uattn-run / uattn-emu load. No GPU runtime dependency (uattn_table).
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

namespace uattn {

// Reads the whole regular file `path` into *out. Returns "" on success, else why
// not, in words that follow the path in a message:
//   the strerror of open() ("No such file or directory", "Permission denied"),
//   "is a folder",
//   "is a FIFO; expected a regular file" (likewise a character device, block
//     device or socket: opened non-blocking, never read, so a FIFO cannot block),
//   "is <n> bytes; expected at most <max_bytes> (<limit_name>)",
//   "read error: <strerror>", "shrank while being read (<got> of <n> bytes)".
// *out is left untouched on failure.
std::string read_input_file(const std::string& path, uint64_t max_bytes, const char* limit_name,
                            std::vector<uint8_t>* out);

}  // namespace uattn
