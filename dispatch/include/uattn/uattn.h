/* uattn C API: paged "unified attention" (vLLM/AITER convention) for FFI users
 * (ctypes, cffi, Rust bindgen, ...). Mirrors the C++ API of uattn/runtime.hpp.
 *
 * Contract of every argument: SPEC.md s.1. In short:
 *   q, out            [num_tokens, Hq, D]                 f16 / bf16 (out also fp8e4m3)
 *   k_cache, v_cache  [num_blocks, block_size, Hkv, D]    q's dtype or fp8e4m3
 *   cu_seqlens_q      [num_seqs + 1] int32, device memory (prefix sums from 0)
 *   seqused_k         [num_seqs] int32, device memory (KV length incl. new tokens)
 *   block_table       [num_seqs, block_table_stride] int32, device memory
 * Strides are in elements; only the last dimension must be contiguous.
 *
 * Errors: every function returns a uattn_status_t; the text of the last error of
 * the calling thread is uattn_last_error_message() (never NULL, "" after success).
 * No function aborts or throws across the C boundary.
 *
 * Thread safety: one runtime may be used from many threads at once.
 */
#ifndef UATTN_UATTN_H_
#define UATTN_UATTN_H_

#include <stddef.h>
#include <stdint.h>

/* uattn_dtype_t (UATTN_DTYPE_F16 = 0, UATTN_DTYPE_BF16 = 1, UATTN_DTYPE_FP8E4M3 = 2)
 * and uattn_path_t (UATTN_PATH_AUTO = 0, UATTN_PATH_2D = 1, UATTN_PATH_3D = 2),
 * generated from the generator's vocabulary (the values equal uattn::DType and
 * uattn::ForcePath). */
#include "uattn/generated/vocab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum uattn_status {
  UATTN_OK = 0,
  UATTN_ERR_INVALID_ARGUMENT = 1, /* an argument breaks the contract; nothing was launched */
  UATTN_ERR_NO_DEVICE = 2,        /* no ROCm-capable device is visible */
  UATTN_ERR_UNSUPPORTED_ARCH = 3, /* the device's architecture has no code object in the bundle */
  UATTN_ERR_NO_INSTANCE = 4,      /* no kernel instance serves this problem (see the message) */
  UATTN_ERR_BUNDLE = 5,           /* the kernel bundle cannot be found, read or parsed, or holds a corrupt image */
  UATTN_ERR_HIP = 6,              /* a HIP call failed (the message names the call and the error) */
  UATTN_ERR_INVALID_INDEX = 7     /* checked launch: the device check found invalid index data (the message
                                     names the first violation); nothing was written to out */
} uattn_status_t;

/* Bytes of the checked-launch status buffer (uattn_args_t.index_status). */
#define UATTN_INDEX_STATUS_BYTES 16

typedef struct uattn_tensor {
  const void* data;  /* device pointer; may be NULL only when the tensor has no elements */
  int32_t dtype;     /* uattn_dtype_t */
  int32_t rank;      /* 3 for q/out, 4 for the caches */
  int64_t shape[5];
  int64_t stride[5]; /* in elements */
} uattn_tensor_t;

/* The arguments of one call: uattn_args_t, generated from the argument schema
 * (generator/uattn_gen/args.py) into uattn/generated/args.h, which lists every
 * field, in order, with its shape, dtype and meaning (the field order is the
 * ABI: fields are only ever appended). uattn_args_init gives the defaults.
 * Optional host copies of the index arrays (*_host: same contents as the device
 * arrays; all three or none). When given, uattn_run checks them
 * (uattn_validate_indices) before launching anything: UATTN_ERR_INVALID_ARGUMENT
 * on a violation.
 * Lengths: max_seqlen_k (the bound of every seqused_k) is at most
 * 2^31 - 2^16 = 2147418112 (kMaxKvLen, uattn/table.hpp: the kernels index keys
 * in int32); above it uattn_run returns UATTN_ERR_INVALID_ARGUMENT.
 * Checked launch (index_status): device memory of UATTN_INDEX_STATUS_BYTES (4-byte
 * aligned), or NULL. When given, uattn_run first launches a kernel that checks the
 * device index arrays against the rules of uattn_validate_indices; on a violation
 * every attention/reduce workgroup exits without reading an index or writing out,
 * and uattn_run (which then waits for the stream: synchronous) returns
 * UATTN_ERR_INVALID_INDEX naming the first violation. */
#include "uattn/generated/args.h"

/* Selection options; pass NULL for the defaults (automatic path, every instance). */
typedef struct uattn_options {
  int32_t path;         /* uattn_path_t */
  const char* filter;   /* glob over instance names ('*', '?'); NULL or "" = all */
  int32_t num_segments; /* 3D only; 0 = chosen by the selector, else 1..1024; outside, or > 0 with
                           UATTN_PATH_2D: INVALID_ARGUMENT */
} uattn_options_t;

typedef struct uattn_runtime uattn_runtime_t;

/* Fills *args with the defaults: everything 0 / NULL except window_left = -1
 * and k_scale = v_scale = output_scale = 1 (no host copies, unchecked launch). */
void uattn_args_init(uattn_args_t* args);

/* Creates a runtime from the kernel bundle file uattn_kernels.hipfb.
 * bundle_path NULL or "": $UATTN_LIBRARY_PATH (a file or its folder), else
 * <folder of libuattn>/uattn/, <folder of libuattn or of the executable>/../lib/uattn/
 * (file uattn_kernels.hipfb), else the build tree's bundle. On failure the
 * message names every path tried. Loads no code object yet (that happens on the
 * first uattn_run per device). */
uattn_status_t uattn_runtime_create(const char* bundle_path, uattn_runtime_t** out);
/* Same from bundle bytes in memory (copied). */
uattn_status_t uattn_runtime_create_from_buffer(const void* data, size_t size, uattn_runtime_t** out);
void uattn_runtime_destroy(uattn_runtime_t* rt); /* NULL is a no-op */

/* Text of the calling thread's last error ("" after a success). Valid until the
 * thread's next uattn call. */
const char* uattn_last_error_message(void);

/* The build stamp of this libuattn: "uattn <version>, uattn_gen <version>, matrix
 * <16 hex digits>" (docs/packaging.md, "Build stamp"). Static storage, never NULL. */
const char* uattn_version_stamp(void);

/* Checks the arguments against the contract (host-side; reads no device memory). */
uattn_status_t uattn_validate(const uattn_args_t* args);

/* uattn_validate, then the host copies of the index arrays (args->*_host, which
 * must be set), in this order, reporting the first violation:
 * cu_seqlens_q[0] == 0; per sequence i: cu_seqlens_q[i+1] >= cu_seqlens_q[i],
 * q_len_i <= max_seqlen_q, q_len_i <= seqused_k[i] <= max_seqlen_k,
 * ceil(seqused_k[i] / block_size) <= max_blocks_per_seq, those block-table
 * entries in [0, num_blocks); then cu_seqlens_q[num_seqs] <= num_tokens (rows
 * past it are padding and are never written). UATTN_ERR_INVALID_ARGUMENT. */
uattn_status_t uattn_validate_indices(const uattn_args_t* args);

/* Workspace bytes uattn_run needs on the current device (0 for the 2D path). */
uattn_status_t uattn_workspace_size(uattn_runtime_t* rt, const uattn_args_t* args, const uattn_options_t* opt,
                                    size_t* bytes);

/* Validates, selects an instance for the current HIP device and launches it
 * (plus the reduce kernel on the 3D path, unless the plan fuses it into the
 * attention launch: gfx950, Runtime::run in uattn/runtime.hpp) on `stream` (a
 * hipStream_t; NULL = the default stream). Asynchronous; workspace must hold uattn_workspace_size bytes
 * of 16-byte aligned device memory (hipMalloc's is; may be NULL when the size is
 * 0), sharing no memory with a tensor.
 * With args->*_host set, the host copies are checked first (nothing launched on a
 * violation: UATTN_ERR_INVALID_ARGUMENT). With args->index_status set (a checked
 * launch) the call is synchronous: it waits for the stream and returns
 * UATTN_ERR_INVALID_INDEX when the device check found invalid index data. */
uattn_status_t uattn_run(uattn_runtime_t* rt, const uattn_args_t* args, void* workspace, size_t workspace_bytes,
                         void* stream, const uattn_options_t* opt);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* UATTN_UATTN_H_ */
