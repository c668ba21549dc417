// extern "C" wrapper of uattn::Runtime (uattn.h). Converts the plain C structs,
// records the calling thread's last error message and keeps every C++ exception
// (only std::bad_alloc is possible) from crossing the C boundary.
#include <exception>
#include <new>
#include <string>

#include "uattn/runtime.hpp"
#include "uattn/uattn.h"

// uattn_dtype_t / uattn_path_t and uattn::DType / uattn::ForcePath are generated
// from one vocabulary (uattn/generated/vocab.h, vocab.hpp): the values agree.

struct uattn_runtime {
  std::unique_ptr<uattn::Runtime> rt;
};

namespace {

thread_local std::string g_last_error;

uattn_status_t finish(const uattn::Status& s) {
  g_last_error = s.message;
  return static_cast<uattn_status_t>(s.code);
}

uattn_status_t null_arg(const char* fn, const char* arg) {
  return finish({uattn::kInvalidArgument, std::string("uattn: ") + fn + ": " + arg + " is null"});
}

uattn::TensorDesc to_cpp(const uattn_tensor_t& t) {
  uattn::TensorDesc d;
  d.data = t.data;
  d.dtype = static_cast<uattn::DType>(t.dtype);
  d.rank = t.rank;
  for (int i = 0; i < 5; ++i) { d.shape[i] = t.shape[i]; d.stride[i] = t.stride[i]; }
  return d;
}

template <class T>
T to_cpp(T v) { return v; }

// Field by field over the argument schema (uattn/generated/args.hpp).
uattn::AttentionArgs to_cpp(const uattn_args_t& a) {
  uattn::AttentionArgs r;
#define UATTN_CONVERT(C_TYPE, CPP_TYPE, NAME, DEFAULT) r.NAME = to_cpp(a.NAME);
  UATTN_FOREACH_ARG(UATTN_CONVERT)
#undef UATTN_CONVERT
  return r;
}

uattn::SelectOptions to_cpp(const uattn_options_t* o) {
  uattn::SelectOptions s;
  if (!o) return s;
  s.path = static_cast<uattn::ForcePath>(o->path);
  if (o->filter) s.filter = o->filter;
  s.num_segments = o->num_segments;
  return s;
}

bool bad_options(const uattn_options_t* o, uattn::Status* s) {
  if (o && (o->path < UATTN_PATH_AUTO || o->path > UATTN_PATH_LAST)) {
    std::string expected;
    for (int p = UATTN_PATH_AUTO; p <= UATTN_PATH_LAST; ++p) {
      const std::string name = p == UATTN_PATH_AUTO ? "AUTO" : uattn::kPathNames[p - 1];
      std::string upper;
      for (char c : name) upper += (char)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
      expected += std::string(p == UATTN_PATH_AUTO ? "" : p == UATTN_PATH_LAST ? " or " : ", ") + "UATTN_PATH_" +
                  upper + " (" + std::to_string(p) + ")";
    }
    *s = {uattn::kInvalidArgument, "uattn: options.path = " + std::to_string(o->path) + "; expected " + expected};
    return true;
  }
  if (o) {  // num_segments: the C++ rule (options_error), one message for both APIs
    const std::string bad = uattn::options_error(to_cpp(o));
    if (!bad.empty()) {
      *s = {uattn::kInvalidArgument, "uattn: " + bad};
      return true;
    }
  }
  return false;
}

template <class F>
uattn_status_t guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return finish({uattn::kHip, "uattn: out of host memory"});
  } catch (const std::exception& e) {
    return finish({uattn::kHip, std::string("uattn: internal error: ") + e.what()});
  }
}

}  // namespace

extern "C" {

void uattn_args_init(uattn_args_t* args) {
  if (!args) return;
  *args = uattn_args_t{};
#define UATTN_DEFAULT(C_TYPE, CPP_TYPE, NAME, DEFAULT) args->NAME = DEFAULT;
  UATTN_FOREACH_ARG(UATTN_DEFAULT)
#undef UATTN_DEFAULT
}

uattn_status_t uattn_runtime_create(const char* bundle_path, uattn_runtime_t** out) {
  if (!out) return null_arg("uattn_runtime_create", "out");
  *out = nullptr;
  return guarded([&] {
    std::unique_ptr<uattn::Runtime> rt;
    uattn::Status s = uattn::Runtime::create(&rt, bundle_path ? bundle_path : "");
    if (s.ok()) *out = new uattn_runtime{std::move(rt)};
    return finish(s);
  });
}

uattn_status_t uattn_runtime_create_from_buffer(const void* data, size_t size, uattn_runtime_t** out) {
  if (!out) return null_arg("uattn_runtime_create_from_buffer", "out");
  *out = nullptr;
  if (!data && size > 0) return null_arg("uattn_runtime_create_from_buffer", "data");
  return guarded([&] {
    const uint8_t* p = static_cast<const uint8_t*>(data);
    std::unique_ptr<uattn::Runtime> rt;
    uattn::Status s = uattn::Runtime::create_from_buffer(&rt, std::vector<uint8_t>(p, p + size));
    if (s.ok()) *out = new uattn_runtime{std::move(rt)};
    return finish(s);
  });
}

void uattn_runtime_destroy(uattn_runtime_t* rt) { delete rt; }

const char* uattn_last_error_message(void) { return g_last_error.c_str(); }

const char* uattn_version_stamp(void) {
  static const std::string s = uattn::to_string(uattn::library_stamp());
  return s.c_str();
}

uattn_status_t uattn_validate(const uattn_args_t* args) {
  if (!args) return null_arg("uattn_validate", "args");
  return guarded([&] { return finish(uattn::validate(to_cpp(*args))); });
}

uattn_status_t uattn_validate_indices(const uattn_args_t* args) {
  if (!args) return null_arg("uattn_validate_indices", "args");
  return guarded([&] { return finish(uattn::validate_indices(to_cpp(*args))); });
}

uattn_status_t uattn_workspace_size(uattn_runtime_t* rt, const uattn_args_t* args, const uattn_options_t* opt,
                                    size_t* bytes) {
  if (!rt) return null_arg("uattn_workspace_size", "rt");
  if (!args) return null_arg("uattn_workspace_size", "args");
  if (!bytes) return null_arg("uattn_workspace_size", "bytes");
  *bytes = 0;
  return guarded([&] {
    uattn::Status s;
    if (bad_options(opt, &s)) return finish(s);
    return finish(rt->rt->workspace_size(to_cpp(*args), bytes, to_cpp(opt)));
  });
}

uattn_status_t uattn_run(uattn_runtime_t* rt, const uattn_args_t* args, void* workspace, size_t workspace_bytes,
                         void* stream, const uattn_options_t* opt) {
  if (!rt) return null_arg("uattn_run", "rt");
  if (!args) return null_arg("uattn_run", "args");
  return guarded([&] {
    uattn::Status s;
    if (bad_options(opt, &s)) return finish(s);
    return finish(rt->rt->run(to_cpp(*args), workspace, workspace_bytes, stream, to_cpp(opt)));
  });
}

}  // extern "C"
