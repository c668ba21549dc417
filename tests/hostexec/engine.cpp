// uattn host execution engine (see engine.hpp for what a launch checks).
//
// Execution model
//   One workgroup at a time (z, y, x order, x fastest). Each lane of the
//   workgroup is a boost::context::fiber on a pooled 256 KiB stack. A lane runs
//   until it reaches a synchronisation point (workgroup barrier or wave-level
//   operation), records what it waits for in its Lane slot and switches back
//   to the scheduler. The scheduler runs one wave at a time: it resumes every
//   ready lane of the wave once (each runs to its next sync point), then looks
//   at the wave as a whole:
//     - all lanes at the same wave operation  -> execute it (O(wave) work),
//       advance the wave's epoch, make the lanes ready, repeat;
//     - some lanes at a wave operation, others elsewhere (another operation,
//       a barrier, finished)                   -> "partial wave" failure;
//     - some at a barrier, the rest finished   -> "partial wave" failure;
//     - all at a barrier or all finished       -> the wave is done for now.
//   When every wave is done for now, either all lanes have finished (the
//   workgroup is complete) or every unfinished lane waits at the barrier:
//   the barrier is released (workgroup epoch + 1). Because every lane is
//   parked when the wave is inspected, a mismatch can never resolve later, so
//   it is reported at once; no other deadlock shape exists.
//
// LDS race detector
//   Per LDS byte a shadow record holds the last writer (lane, workgroup epoch,
//   wave epoch of the writer's wave) and a summary of the readers since that
//   write. Two accesses by lanes a != b are ordered iff the workgroup epoch
//   advanced between them (a barrier), or a and b are in the same wave and
//   that wave's epoch advanced (any wave-level operation). The reader summary
//   is exact for this rule: within the current workgroup epoch it keeps
//   either the readers of one wave at that wave's latest epoch (up to two
//   distinct lanes are remembered, which is all a conflict report needs), or
//   "several waves" with one lane from each of two different waves. A write
//   that does not race is ordered after every recorded reader, so it clears
//   the summary. Epochs increase monotonically over the whole launch, so a
//   new workgroup needs no shadow reset.
//
// Failure handling
//   A fault detected inside a lane records the first error, marks the lane
//   faulted and switches to the scheduler, which never resumes it. The
//   scheduler then destroys every lane fiber of the workgroup; Boost.Context
//   unwinds a suspended fiber by throwing forced_unwind from its suspension
//   point, so kernel destructors run and the stacks go back to the pool.
//   Exceptions thrown by kernel code are caught at the lane entry and fail the
//   launch too.
#include "engine.hpp"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <boost/context/fiber.hpp>

#include "uattn/device/dl.hpp"

namespace ctx = boost::context;

namespace uattn::hostexec {
namespace {

// ---------------------------------------------------------------------------
// Async-signal-safe registries: guarded buffers, fiber stack guard pages and
// the current kernel / workgroup / lane for the SIGSEGV message.

constexpr size_t kGuardBytes = 64 * 1024;  // PROT_NONE on each side of a guarded buffer
constexpr int kMaxGuarded = 4096;
constexpr int kNameLen = 96;

struct GuardedSlot {
  std::atomic<int> used{0};
  char* map = nullptr;    // whole mapping (guard + data pages + guard)
  size_t map_len = 0;
  char* base = nullptr;   // user pointer
  size_t bytes = 0;
  char name[kNameLen] = {};
};
GuardedSlot g_guarded[kMaxGuarded];
std::mutex g_guarded_mu;

constexpr size_t kStackGuardBytes = 64 * 1024;  // PROT_NONE below each fiber stack
constexpr int kMaxStacks = 8192;
std::atomic<uintptr_t> g_stack_guard[kMaxStacks];  // start of each fiber stack's guard region
std::atomic<int> g_stack_count{0};

struct CrashContext {
  std::atomic<const char*> kernel{nullptr};  // non-null while a launch runs
  std::atomic<uint32_t> wg[3];
  std::atomic<int> lane{-1};
};
CrashContext g_crash;

size_t page_size() {
  static const size_t p = (size_t)sysconf(_SC_PAGESIZE);
  return p;
}

// Minimal formatter usable from a signal handler (no malloc, no stdio).
struct SigWriter {
  char buf[1024];
  size_t n = 0;
  void s(const char* t) {
    while (t && *t && n + 1 < sizeof(buf)) buf[n++] = *t++;
  }
  void u(uint64_t v) {
    char tmp[24];
    int k = 0;
    do { tmp[k++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (k && n + 1 < sizeof(buf)) buf[n++] = tmp[--k];
  }
  void i(int64_t v) {
    if (v < 0) { s("-"); u((uint64_t)(-(v + 1)) + 1); } else { u((uint64_t)v); }
  }
  void x(uint64_t v) {
    s("0x");
    char tmp[16];
    int k = 0;
    do { tmp[k++] = "0123456789abcdef"[v & 15]; v >>= 4; } while (v);
    while (k && n + 1 < sizeof(buf)) buf[n++] = tmp[--k];
  }
  void flush() {
    size_t off = 0;
    while (off < n) {
      ssize_t w = ::write(2, buf + off, n - off);
      if (w <= 0) { if (w < 0 && errno == EINTR) continue; break; }
      off += (size_t)w;
    }
  }
};

void segv_handler(int sig, siginfo_t* si, void*) {
  const uintptr_t a = (uintptr_t)si->si_addr;
  SigWriter w;
  w.s("uattn hostexec: out-of-bounds access");
  const char* k = g_crash.kernel.load(std::memory_order_relaxed);
  if (k) {
    w.s(" in kernel ");
    w.s(k);
    w.s(" (workgroup ");
    w.u(g_crash.wg[0].load()); w.s(","); w.u(g_crash.wg[1].load()); w.s(","); w.u(g_crash.wg[2].load());
    w.s(" lane ");
    w.i(g_crash.lane.load());
    w.s(")");
  } else {
    w.s(" outside any kernel launch");
  }
  w.s(": ");
  bool found = false;
  for (int i = 0; i < kMaxGuarded && !found; ++i) {
    GuardedSlot& g = g_guarded[i];
    if (!g.used.load(std::memory_order_acquire)) continue;
    const uintptr_t lo = (uintptr_t)g.map, hi = lo + g.map_len;
    if (a < lo || a >= hi) continue;
    const uintptr_t b = (uintptr_t)g.base, e = b + g.bytes;
    if (a >= e) {
      w.u(a - e);
      w.s(" bytes past the end of buffer '");
      w.s(g.name);
      w.s("' (size ");
      w.u(g.bytes);
      w.s(", fault at byte offset ");
      w.u(a - b);
      w.s(")");
    } else if (a < b) {
      w.u(b - a);
      w.s(" bytes before the start of buffer '");
      w.s(g.name);
      w.s("' (size ");
      w.u(g.bytes);
      w.s(")");
    } else {
      w.s("inside buffer '");
      w.s(g.name);
      w.s("' at byte offset ");
      w.u(a - b);
      w.s(" (");
      w.s(sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
      w.s(")");
    }
    found = true;
  }
  const int ns = g_stack_count.load(std::memory_order_acquire);
  for (int i = 0; i < ns && !found; ++i) {
    const uintptr_t gpage = g_stack_guard[i].load(std::memory_order_relaxed);
    if (a >= gpage && a < gpage + kStackGuardBytes) {
      w.s("fiber stack overflow (lane stacks are 256 KiB)");
      found = true;
    }
  }
  if (!found) {
    w.s("unknown address ");
    w.x(a);
  }
  w.s("\n");
  w.flush();
  _exit(3);
}

// The handler runs on an alternate signal stack: a fault inside a lane may be
// a fiber stack overflow, and fiber stacks are small anyway.
void ensure_signal_handling() {
  thread_local bool altstack_done = false;
  if (!altstack_done) {
    stack_t cur{};
    if (sigaltstack(nullptr, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
      const size_t sz = 64 * 1024;
      void* mem = mmap(nullptr, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mem != MAP_FAILED) {
        stack_t ss{};
        ss.ss_sp = mem;
        ss.ss_size = sz;
        ss.ss_flags = 0;
        sigaltstack(&ss, nullptr);  // kept for the thread's lifetime
      }
    }
    altstack_done = true;
  }
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa{};
    sa.sa_sigaction = segv_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
  });
}

// ---------------------------------------------------------------------------
// Fiber stacks: 256 KiB each with a 64 KiB PROT_NONE guard below, pooled per
// thread and reused across workgroups and launches (never unmapped).

constexpr size_t kStackBytes = 256 * 1024;

class StackPool {
 public:
  ctx::stack_context allocate() {
    char* mem;
    if (!free_.empty()) {
      mem = free_.back();
      free_.pop_back();
    } else {
      void* m = mmap(nullptr, kStackBytes + kStackGuardBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED) throw std::bad_alloc();
      mem = static_cast<char*>(m);
      mprotect(mem, kStackGuardBytes, PROT_NONE);
      const int idx = g_stack_count.load();
      if (idx < kMaxStacks) {
        g_stack_guard[idx].store((uintptr_t)mem, std::memory_order_relaxed);
        g_stack_count.store(idx + 1, std::memory_order_release);
      }
    }
    ctx::stack_context sc;
    sc.size = kStackBytes;
    sc.sp = mem + kStackGuardBytes + kStackBytes;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) {
    free_.push_back(static_cast<char*>(sc.sp) - kStackBytes - kStackGuardBytes);
  }

 private:
  std::vector<char*> free_;
};

StackPool& stack_pool() {
  thread_local StackPool pool;
  return pool;
}

// StackAllocator concept of Boost.Context (allocate / deallocate).
struct PooledStack {
  ctx::stack_context allocate() { return stack_pool().allocate(); }
  void deallocate(ctx::stack_context& sc) { stack_pool().deallocate(sc); }
};

// ---------------------------------------------------------------------------
// Engine state.

enum class LState : uint8_t { Ready, Barrier, WaveOp, Finished, Faulted };
enum class Op : uint8_t { None, WaveBarrier, Shfl, ReadFirstLane, Ballot, MfmaF16, MfmaBf16, Mfma16F16, Mfma16Bf16 };

const char* op_name(Op o) {
  switch (o) {
    case Op::WaveBarrier: return "wave_barrier";
    case Op::Shfl: return "shfl";
    case Op::ReadFirstLane: return "readfirstlane";
    case Op::Ballot: return "ballot";
    case Op::MfmaF16: return "mfma_32x32x16_f16";
    case Op::MfmaBf16: return "mfma_32x32x16_bf16";
    case Op::Mfma16F16: return "mfma_16x16x32_f16";
    case Op::Mfma16Bf16: return "mfma_16x16x32_bf16";
    default: return "none";
  }
}

struct Lane {
  ctx::fiber f;      // the lane's continuation while it is parked
  ctx::fiber sched;  // the scheduler's continuation while the lane runs
  LState st = LState::Ready;
  Op op = Op::None;
  bool started = false;
  int src = 0;
  uint32_t in = 0;
  uint32_t out = 0;
  uint64_t out64 = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  float* c = nullptr;
};

constexpr int16_t kNone = -1;
constexpr int16_t kMultiWave = -2;

struct ByteShadow {
  uint32_t w_ep = 0;   // workgroup epoch of the last write (0: none)
  uint32_t w_wep = 0;  // wave epoch of the writer's wave at that write
  uint32_t r_ep = 0;   // workgroup epoch of the reader summary (0: none)
  uint32_t r_wep = 0;  // single-wave summary: that wave's epoch of the readers kept
  int16_t w_lane = kNone;
  int16_t r_wave = kNone;  // wave of the readers, or kMultiWave
  int16_t r_lane0 = kNone; // a reader (single wave: at r_wep)
  int16_t r_lane1 = kNone; // another distinct reader (multi-wave: in another wave than r_lane0)
};

struct Engine {
  KernelFn fn = nullptr;
  Launch l{};
  AttnParams p{};
  int ws = 64;
  int nwaves = 1;
  uint32_t wg[3] = {0, 0, 0};
  std::vector<Lane> lanes;
  int cur = -1;  // running lane
  char* lds = nullptr;
  std::vector<ByteShadow> shadow;
  uint32_t wg_epoch = 0;
  std::vector<uint32_t> wave_epoch;
  bool failed = false;
  bool unwinding = false;
  std::string error;
};

thread_local Engine* t_eng = nullptr;

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof(buf), f, ap);
  va_end(ap);
  return buf;
}

std::string where(const Engine& e) {
  return fmt("kernel %s, workgroup (%u,%u,%u)", e.l.kernel_name ? e.l.kernel_name : "?", e.wg[0], e.wg[1],
             e.wg[2]);
}

void record_error(Engine& e, std::string msg) {
  if (!e.failed) {
    e.failed = true;
    e.error = "uattn hostexec: " + std::move(msg);
  }
}

[[noreturn]] void outside_launch(const char* fn) {
  fprintf(stderr, "uattn hostexec: dl::host::%s called outside a kernel launch\n", fn);
  std::abort();
}

Engine& eng(const char* fn) {
  Engine* e = t_eng;
  if (!e || e->cur < 0) outside_launch(fn);
  return *e;
}

// Switch from the running lane back to the scheduler.
void yield_lane(Engine& e, int me) {
  Lane& L = e.lanes[me];
  L.sched = std::move(L.sched).resume();
}

// Fault detected in the running lane: record it and park forever. The
// scheduler destroys the fiber, which unwinds it from here (forced_unwind).
[[noreturn]] void fail_lane(Engine& e, int me, std::string msg) {
  record_error(e, std::move(msg));
  e.lanes[me].st = LState::Faulted;
  yield_lane(e, me);
  // Not reached: a faulted lane is never resumed, only unwound.
  std::abort();
}

// Park the running lane at a wave-level operation.
Lane& wave_op(Engine& e, int me, Op op) {
  Lane& L = e.lanes[me];
  L.op = op;
  L.st = LState::WaveOp;
  yield_lane(e, me);
  return e.lanes[me];
}

// ---------------------------------------------------------------------------
// LDS race detector.

const char* rw(bool write) { return write ? "writes" : "reads"; }

void report_race(Engine& e, int me, bool write, uint32_t byte, uint32_t off, uint32_t bytes, int other,
                 bool other_wrote) {
  record_error(e, fmt("LDS race in %s: lane %d (wave %d) %s byte offset %u (a %u-byte access at offset %u), "
                      "which lane %d (wave %d) %s with no intervening synchronisation (workgroup barrier, or a "
                      "wave-level operation for lanes of one wave)",
                      where(e).c_str(), me, me / e.ws, rw(write), byte, bytes, off, other, other / e.ws,
                      other_wrote ? "wrote" : "read"));
}

// Returns false (error recorded) on a race.
bool lds_track(Engine& e, int me, uint32_t off, uint32_t bytes, bool write) {
  const int16_t wb = (int16_t)(me / e.ws);
  const uint32_t E = e.wg_epoch;
  const uint32_t We = e.wave_epoch[wb];
  ByteShadow* sh = e.shadow.data();
  for (uint32_t x = off; x < off + bytes; ++x) {
    ByteShadow& s = sh[x];
    // Against the last write (read-after-write and write-after-write).
    if (s.w_ep == E && s.w_lane != me && (s.w_lane / e.ws != wb || s.w_wep == We)) {
      report_race(e, me, write, x, off, bytes, s.w_lane, true);
      return false;
    }
    if (!write) {
      if (s.r_ep != E) {
        s.r_ep = E;
        s.r_wave = wb;
        s.r_wep = We;
        s.r_lane0 = (int16_t)me;
        s.r_lane1 = kNone;
      } else if (s.r_wave == kMultiWave) {
        // already readers from two waves; any writer races with one of them
      } else if (s.r_wave != wb) {
        s.r_wave = kMultiWave;
        s.r_lane1 = (int16_t)me;  // r_lane0 is in the other wave
      } else if (s.r_wep != We) {
        s.r_wep = We;  // earlier readers of this wave are ordered before us
        s.r_lane0 = (int16_t)me;
        s.r_lane1 = kNone;
      } else if (s.r_lane0 != me && s.r_lane1 == kNone) {
        s.r_lane1 = (int16_t)me;
      }
    } else {
      // Write-after-read.
      if (s.r_ep == E) {
        int other = kNone;
        if (s.r_wave == kMultiWave) {
          other = (s.r_lane0 / e.ws != wb) ? s.r_lane0 : s.r_lane1;
        } else if (s.r_wave != wb) {
          other = s.r_lane0;
        } else if (s.r_wep == We) {
          other = (s.r_lane0 != me) ? s.r_lane0 : s.r_lane1;
        }
        if (other != kNone) {
          report_race(e, me, write, x, off, bytes, other, false);
          return false;
        }
      }
      s.w_ep = E;
      s.w_wep = We;
      s.w_lane = (int16_t)me;
      s.r_ep = 0;
      s.r_wave = kNone;
      s.r_lane0 = s.r_lane1 = kNone;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Wave-level operations, executed by the scheduler once all lanes arrived.

// v_mfma_f32_32x32x16_{f16,bf16} and v_mfma_f32_16x16x32_{f16,bf16} (gfx950):
// D (M x M) = A (M x K) B (K x M) + C with M x K = 32 x 16 or 16 x 32, 8 values of
// A and B per lane. Register layouts from AMD's documentation:
// ROCm/amd_matrix_instruction_calculator (matrix_calculator.py, CDNA4 tables)
// and the AMD Instinct CDNA4 ISA reference guide (section on matrix
// fused-multiply-add); G = 64 / M lane groups:
//   A (M x K): lane l, element e holds A[l % M][8 * (l / M) + e]
//   B (K x M): lane l, element e holds B[8 * (l / M) + e][l % M]
//   C/D (M x M f32): lane l, register r holds D[i][l % M] with
//                    i = (r % 4) + 4 * (l / M) + 4 G (r / 4)
//     (32x32: i = (r % 4) + 8 (r / 4) + 4 (l / 32); 16x16: i = r + 4 (l / 16))
// Products of f16/bf16 values are exact in float (11x11 and 8x8 significant
// bits); they are accumulated in float in a fixed order: d = c, then
// d += A[i][k] * B[k][j] for k = 0..K-1. Real hardware may sum in another order
// (and flush/round differently), so compare results with a tolerance.
template <class T, int M, int K>
void exec_mfma(Engine& e, int base) {
  constexpr int G = 64 / M, R = M * M / 64;
  float A[M][K], B[K][M], D[M][M];
  for (int l = 0; l < 64; ++l) {
    const Lane& L = e.lanes[base + l];
    const T* a = static_cast<const T*>(L.a);
    const T* b = static_cast<const T*>(L.b);
    const int grp = l / M, col = l % M;
    for (int el = 0; el < 8; ++el) {
      A[col][8 * grp + el] = (float)a[el];
      B[8 * grp + el][col] = (float)b[el];
    }
    for (int r = 0; r < R; ++r) D[(r % 4) + 4 * grp + 4 * G * (r / 4)][col] = L.c[r];
  }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) {
      float acc = D[i][j];
      for (int k = 0; k < K; ++k) acc += A[i][k] * B[k][j];
      D[i][j] = acc;
    }
  for (int l = 0; l < 64; ++l) {
    const Lane& L = e.lanes[base + l];
    const int grp = l / M, col = l % M;
    for (int r = 0; r < R; ++r) L.c[r] = D[(r % 4) + 4 * grp + 4 * G * (r / 4)][col];
  }
}

void exec_wave_op(Engine& e, int w, Op op) {
  const int base = w * e.ws;
  Lane* L = e.lanes.data() + base;
  switch (op) {
    case Op::WaveBarrier:
      break;
    case Op::Shfl: {
      // ds_bpermute_b32 addresses the source lane with address bits [7:2]
      // (AMD CDNA3/CDNA4 ISA, DS_BPERMUTE_B32), i.e. the source index modulo
      // 64 for wave64; for wave32 we likewise keep the low 5 bits. So an out
      // of range src (negative or >= wave size) wraps: src & (wave_size - 1).
      const int m = e.ws - 1;
      for (int i = 0; i < e.ws; ++i) L[i].out = L[L[i].src & m].in;
      break;
    }
    case Op::ReadFirstLane: {
      // Every lane of the wave takes part (partial waves are errors), so the
      // lowest live lane is the wave's lane 0.
      const uint32_t v = L[0].in;
      for (int i = 0; i < e.ws; ++i) L[i].out = v;
      break;
    }
    case Op::Ballot: {
      uint64_t m = 0;
      for (int i = 0; i < e.ws; ++i) m |= (uint64_t)(L[i].in & 1u) << i;
      for (int i = 0; i < e.ws; ++i) L[i].out64 = m;
      break;
    }
    case Op::MfmaF16: exec_mfma<_Float16, 32, 16>(e, base); break;
    case Op::MfmaBf16: exec_mfma<__bf16, 32, 16>(e, base); break;
    case Op::Mfma16F16: exec_mfma<_Float16, 16, 32>(e, base); break;
    case Op::Mfma16Bf16: exec_mfma<__bf16, 16, 32>(e, base); break;
    default: break;
  }
}

// ---------------------------------------------------------------------------
// Scheduler.

const char* state_name(const Lane& L) {
  switch (L.st) {
    case LState::Ready: return "running";
    case LState::Barrier: return "at barrier";
    case LState::WaveOp: return op_name(L.op);
    case LState::Finished: return "finished";
    case LState::Faulted: return "faulted";
  }
  return "?";
}

void resume_lane(Engine& e, int i) {
  Lane& L = e.lanes[i];
  if (!L.started) {
    L.started = true;
    Engine* ep = &e;
    L.f = ctx::fiber(std::allocator_arg, PooledStack{}, [ep, i](ctx::fiber&& s) {
      ep->lanes[i].sched = std::move(s);
      try {
        ep->fn(ep->p);
        ep->lanes[i].st = LState::Finished;
      } catch (const ctx::detail::forced_unwind&) {
        throw;  // Boost.Context unwinding a destroyed fiber: must propagate
      } catch (const std::exception& ex) {
        record_error(*ep, fmt("%s, lane %d: kernel threw an exception: %s", where(*ep).c_str(), i, ex.what()));
        ep->lanes[i].st = LState::Faulted;
      } catch (...) {
        record_error(*ep, fmt("%s, lane %d: kernel threw an exception", where(*ep).c_str(), i));
        ep->lanes[i].st = LState::Faulted;
      }
      return std::move(ep->lanes[i].sched);
    });
  }
  L.st = LState::Ready;
  e.cur = i;
  g_crash.lane.store(i, std::memory_order_relaxed);
  L.f = std::move(L.f).resume();
  e.cur = -1;
  g_crash.lane.store(-1, std::memory_order_relaxed);
}

// Partial-wave message: what the lanes of wave w wait at.
std::string partial_wave_msg(const Engine& e, int w, const char* what, int reached, int first_at,
                             int first_missing) {
  const int base = w * e.ws;
  int fin = 0, bar = 0, other_op = 0;
  for (int i = 0; i < e.ws; ++i) {
    const Lane& L = e.lanes[base + i];
    if (L.st == LState::Finished) ++fin;
    else if (L.st == LState::Barrier) ++bar;
    else if (L.st == LState::WaveOp) ++other_op;
  }
  return fmt("partial wave in %s, wave %d: op %s reached by %d of %d lanes (first lane there: %d; lane %d is %s; "
             "in this wave %d finished, %d at barrier, %d at wave operations)",
             where(e).c_str(), w, what, reached, e.ws, first_at, first_missing,
             state_name(e.lanes[first_missing]), fin, bar, other_op);
}

// Runs wave w until all its lanes wait at the barrier or have finished.
// Returns false on failure (error recorded).
bool run_wave(Engine& e, int w) {
  const int base = w * e.ws;
  for (;;) {
    for (int i = base; i < base + e.ws; ++i) {
      if (e.lanes[i].st != LState::Ready) continue;
      resume_lane(e, i);
      if (e.failed) return false;
    }
    // Every lane of the wave is now parked or finished.
    const Lane* L = e.lanes.data() + base;
    int first_op = -1, nbar = 0, nfin = 0;
    for (int i = 0; i < e.ws; ++i) {
      if (L[i].st == LState::WaveOp && first_op < 0) first_op = i;
      else if (L[i].st == LState::Barrier) ++nbar;
      else if (L[i].st == LState::Finished) ++nfin;
    }
    if (first_op >= 0) {
      const Op op = L[first_op].op;
      int same = 0, missing = -1;
      for (int i = 0; i < e.ws; ++i) {
        if (L[i].st == LState::WaveOp && L[i].op == op) ++same;
        else if (missing < 0) missing = i;
      }
      if (same != e.ws) {
        record_error(e, partial_wave_msg(e, w, op_name(op), same, base + first_op, base + missing));
        return false;
      }
      exec_wave_op(e, w, op);
      ++e.wave_epoch[w];
      for (int i = base; i < base + e.ws; ++i) e.lanes[i].st = LState::Ready;
      continue;
    }
    if (nbar > 0 && nfin > 0) {
      int first_at = -1, missing = -1;
      for (int i = 0; i < e.ws; ++i) {
        if (L[i].st == LState::Barrier && first_at < 0) first_at = i;
        if (L[i].st == LState::Finished && missing < 0) missing = i;
      }
      record_error(e, partial_wave_msg(e, w, "barrier", nbar, base + first_at, base + missing) +
                          " - the wave can never reach the barrier as a whole (deadlock)");
      return false;
    }
    return true;
  }
}

bool run_workgroup(Engine& e) {
  const int n = e.l.threads;
  for (int i = 0; i < n; ++i) {
    Lane& L = e.lanes[i];
    L.st = LState::Ready;
    L.op = Op::None;
    L.started = false;
  }
  ++e.wg_epoch;
  if (e.l.lds_bytes) memset(e.lds, 0xFF, e.l.lds_bytes);
  for (;;) {
    bool all_done = true;
    for (int w = 0; w < e.nwaves; ++w) {
      if (!run_wave(e, w)) return false;
    }
    for (int i = 0; i < n; ++i)
      if (e.lanes[i].st != LState::Finished) all_done = false;
    if (all_done) return true;
    // Every unfinished lane waits at the barrier (run_wave guarantees it).
    ++e.wg_epoch;
    for (int i = 0; i < n; ++i)
      if (e.lanes[i].st == LState::Barrier) e.lanes[i].st = LState::Ready;
  }
}

// Destroys every lane fiber of the workgroup; suspended fibers are unwound.
void unwind_workgroup(Engine& e) {
  e.unwinding = true;
  for (Lane& L : e.lanes) {
    if (L.f) {
      // ~fiber throws forced_unwind inside the lane, which runs its
      // destructors and returns its stack to the pool.
      ctx::fiber dead = std::move(L.f);
    }
    L.sched = ctx::fiber{};
  }
  e.unwinding = false;
}

struct LaunchScope {
  Engine* prev;
  explicit LaunchScope(Engine* e) : prev(t_eng) {
    t_eng = e;
  }
  ~LaunchScope() {
    t_eng = prev;
    g_crash.kernel.store(nullptr);
    g_crash.lane.store(-1);
  }
};

}  // namespace

// ---------------------------------------------------------------------------
// Public API.

Result launch(KernelFn fn, const Launch& l, const uattn::AttnParams& p) {
  Result r;
  const char* kname = l.kernel_name ? l.kernel_name : "?";
  auto bad = [&](std::string m) {
    r.ok = false;
    r.error = "uattn hostexec: kernel " + std::string(kname) + ": " + m;
    return r;
  };
  if (!fn) return bad("null kernel function");
  if (t_eng) return bad("launch() called from inside a kernel");
  if (l.wave_size != 64 && l.wave_size != 32) return bad(fmt("wave_size %d is not 32 or 64", l.wave_size));
  if (l.threads <= 0 || l.threads > 1024 || l.threads % l.wave_size)
    return bad(fmt("threads %d must be a positive multiple of wave_size %d, at most 1024", l.threads, l.wave_size));
  ensure_signal_handling();

  Engine e;
  e.fn = fn;
  e.l = l;
  e.l.kernel_name = kname;
  e.p = p;
  e.ws = l.wave_size;
  e.nwaves = l.threads / l.wave_size;
  e.lanes.resize((size_t)l.threads);
  e.wave_epoch.assign((size_t)e.nwaves, 1);
  e.shadow.assign(l.lds_bytes, ByteShadow{});
  std::string lds_name = std::string("LDS arena of ") + kname;
  e.lds = static_cast<char*>(guarded_alloc(l.lds_bytes, lds_name.c_str()));
  if (!e.lds) return bad("cannot map the LDS arena");

  LaunchScope scope(&e);
  g_crash.kernel.store(kname);
  for (uint32_t z = 0; z < l.grid[2] && !e.failed; ++z)
    for (uint32_t y = 0; y < l.grid[1] && !e.failed; ++y)
      for (uint32_t x = 0; x < l.grid[0] && !e.failed; ++x) {
        e.wg[0] = x; e.wg[1] = y; e.wg[2] = z;
        g_crash.wg[0].store(x); g_crash.wg[1].store(y); g_crash.wg[2].store(z);
        if (!run_workgroup(e)) {
          unwind_workgroup(e);
          break;
        }
      }
  guarded_free(e.lds);
  if (e.failed) {
    r.ok = false;
    r.error = e.error;
  }
  return r;
}

void* guarded_alloc(size_t bytes, const char* name) {
  ensure_signal_handling();
  const size_t pg = page_size();
  const size_t data = (bytes + pg - 1) / pg * pg;
  const size_t len = kGuardBytes + data + kGuardBytes;
  void* m = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  char* map = static_cast<char*>(m);
  if (data && mprotect(map + kGuardBytes, data, PROT_READ | PROT_WRITE) != 0) {
    munmap(map, len);
    return nullptr;
  }
  char* base = map + kGuardBytes + data - bytes;
  std::lock_guard<std::mutex> lk(g_guarded_mu);
  for (GuardedSlot& g : g_guarded) {
    if (g.used.load(std::memory_order_relaxed)) continue;
    g.map = map;
    g.map_len = len;
    g.base = base;
    g.bytes = bytes;
    snprintf(g.name, sizeof(g.name), "%s", name ? name : "?");
    g.used.store(1, std::memory_order_release);
    return base;
  }
  munmap(map, len);
  fprintf(stderr, "uattn hostexec: guarded_alloc: more than %d live guarded buffers\n", kMaxGuarded);
  return nullptr;
}

void guarded_free(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> lk(g_guarded_mu);
  for (GuardedSlot& g : g_guarded) {
    if (!g.used.load(std::memory_order_relaxed) || g.base != p) continue;
    g.used.store(0, std::memory_order_release);
    munmap(g.map, g.map_len);
    return;
  }
  fprintf(stderr, "uattn hostexec: guarded_free(%p): not a guarded_alloc pointer\n", p);
  std::abort();
}

std::vector<GuardedRange> guarded_ranges() {
  std::vector<GuardedRange> out;
  std::lock_guard<std::mutex> lk(g_guarded_mu);
  for (const GuardedSlot& g : g_guarded)
    if (g.used.load(std::memory_order_acquire)) out.push_back({reinterpret_cast<uintptr_t>(g.base), g.bytes, g.name});
  std::sort(out.begin(), out.end(), [](const GuardedRange& a, const GuardedRange& b) { return a.base < b.base; });
  return out;
}

}  // namespace uattn::hostexec

// ---------------------------------------------------------------------------
// dl::host: the device layer's host backend (backend_host.hpp).

namespace dl::host {
using namespace uattn::hostexec;

int wave_size() { return eng("wave_size").ws; }
int thread_id() { return eng("thread_id").cur; }
int block_threads() { return eng("block_threads").l.threads; }

int block_id(int axis) {
  Engine& e = eng("block_id");
  if (axis < 0 || axis > 2) {
    fail_lane(e, e.cur, fmt("%s, lane %d: block_id(%d): axis must be 0, 1 or 2", where(e).c_str(), e.cur, axis));
  }
  return (int)e.wg[axis];
}

void barrier() {
  Engine& e = eng("barrier");
  if (e.unwinding) return;
  const int me = e.cur;
  e.lanes[me].st = LState::Barrier;
  yield_lane(e, me);
}

void wave_barrier() {
  Engine& e = eng("wave_barrier");
  if (e.unwinding) return;
  wave_op(e, e.cur, Op::WaveBarrier);
}

uint32_t shfl_bits(uint32_t v, int src) {
  Engine& e = eng("shfl_bits");
  if (e.unwinding) return v;
  const int me = e.cur;
  e.lanes[me].in = v;
  e.lanes[me].src = src;
  return wave_op(e, me, Op::Shfl).out;
}

uint32_t readfirstlane(uint32_t v) {
  Engine& e = eng("readfirstlane");
  if (e.unwinding) return v;
  const int me = e.cur;
  e.lanes[me].in = v;
  return wave_op(e, me, Op::ReadFirstLane).out;
}

uint64_t ballot(bool p) {
  Engine& e = eng("ballot");
  if (e.unwinding) return 0;
  const int me = e.cur;
  e.lanes[me].in = p ? 1u : 0u;
  return wave_op(e, me, Op::Ballot).out64;
}

namespace {
template <class T>
void mfma(const char* name, Op op, const T* a, const T* b, float* c) {
  Engine& e = eng(name);
  if (e.unwinding) return;
  const int me = e.cur;
  if (e.ws != 64) {
    fail_lane(e, me, fmt("%s, lane %d: %s needs a wave64 launch (gfx950); this launch has wave_size %d",
                         where(e).c_str(), me, name, e.ws));
  }
  Lane& L = e.lanes[me];
  L.a = a;
  L.b = b;
  L.c = c;
  wave_op(e, me, op);
}
}  // namespace

void mfma_32x32x16_f16(const _Float16* a, const _Float16* b, float* c) {
  mfma("mfma_32x32x16_f16", Op::MfmaF16, a, b, c);
}
void mfma_32x32x16_bf16(const __bf16* a, const __bf16* b, float* c) {
  mfma("mfma_32x32x16_bf16", Op::MfmaBf16, a, b, c);
}
void mfma_16x16x32_f16(const _Float16* a, const _Float16* b, float* c) {
  mfma("mfma_16x16x32_f16", Op::Mfma16F16, a, b, c);
}
void mfma_16x16x32_bf16(const __bf16* a, const __bf16* b, float* c) {
  mfma("mfma_16x16x32_bf16", Op::Mfma16Bf16, a, b, c);
}

char* lds_base() { return eng("lds_base").lds; }

void lds_access(uint32_t offset, uint32_t bytes, bool write) {
  Engine& e = eng("lds_access");
  if (e.unwinding) return;
  const int me = e.cur;
  if ((uint64_t)offset + bytes > e.l.lds_bytes) {
    fail_lane(e, me, fmt("LDS access out of range in %s: lane %d %s %u bytes at offset %u, but the LDS arena "
                         "is %u bytes",
                         where(e).c_str(), me, rw(write), bytes, offset, e.l.lds_bytes));
  }
  if ((bytes & (bytes - 1)) == 0 && offset % bytes != 0) {
    fail_lane(e, me, fmt("misaligned LDS access in %s: lane %d %s %u bytes at offset %u (ds_read/ds_write of %u "
                         "bytes needs a %u-byte aligned address)",
                         where(e).c_str(), me, rw(write), bytes, offset, bytes, bytes));
  }
  if (!lds_track(e, me, offset, bytes, write)) {
    e.lanes[me].st = LState::Faulted;
    yield_lane(e, me);
    std::abort();  // not reached
  }
}

float exp2(float x) { return std::exp2(x); }

void misaligned(const void* p, uint32_t bytes, uint32_t align, bool write) {
  Engine& e = eng("misaligned");
  const int me = e.cur;
  fail_lane(e, me, fmt("misaligned vector access in %s: lane %d %s %u bytes at %p, which is not %u-byte aligned",
                       where(e).c_str(), me, rw(write), bytes, p, align));
}

}  // namespace dl::host
