"""Reading an input file the one way uattn does (the C++ twin is read_input_file() of
dispatch/include/uattn/input_file.hpp): the generator's matrix files and the code objects,
bundles, stamps and budget files uattn-inspect reads. Standard library only (uattn-inspect
imports it from its installed copy)."""
from __future__ import annotations

import os
import stat


def read_input_file(path: str, max_bytes: int) -> bytes:
    """The bytes of the regular file `path`, of at most `max_bytes` bytes.

    Raises OSError (filename = path) whose strerror says why not: the open() error
    ("No such file or directory"), "it is a folder", "it is a FIFO", "it is a device",
    "it is N bytes, more than MAX". The file is opened non-blocking and never read
    unless it is a regular file, so a FIFO at the path is refused, not waited on."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            mode = st.st_mode
            kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                    else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                    else "not a regular file")
            raise OSError(0, f"it is {kind}", path)
        if st.st_size > max_bytes:
            raise OSError(0, f"it is {st.st_size} bytes, more than {max_bytes}", path)
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:
            raise OSError(0, f"it is more than {max_bytes} bytes", path)
        return data
    finally:
        os.close(fd)
