// Many threads share one runtime (C++ and C APIs) without a kernel launch: the
// run under TSan (preset `tsan`) checks the runtime's shared state (bundle
// info, the per-device table behind its mutex, the selector's row index built
// on first use, the thread-local last-error text) for data races. Each thread
// also checks that it gets its own answers: the status and message of its own
// arguments, and uattn_last_error_message() of its own last call.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../runtime/args_fixture.hpp"
#include "../runtime/bundle_fixture.hpp"
#include "uattn/runtime.hpp"
#include "uattn/uattn.h"

namespace {

using namespace uattn;
using uattn::testing::ArgsFixture;
using uattn::testing::fake_bundle;

constexpr int kThreads = 16;
constexpr int kRounds = 40;

TEST(Threads, SharedRuntimeGivesEachThreadItsOwnAnswers) {
  const std::vector<uint8_t> bytes = fake_bundle({"gfx950", "gfx1030"});
  std::unique_ptr<Runtime> rt;
  ASSERT_TRUE(Runtime::create_from_buffer(&rt, bytes).ok());
  uattn_runtime_t* crt = nullptr;
  ASSERT_EQ(uattn_runtime_create_from_buffer(bytes.data(), bytes.size(), &crt), UATTN_OK);

  // What the device-dependent calls answer on this machine (no device: kNoDevice).
  ArgsFixture probe_args;
  Selection probe_sel;
  const Status probe = rt->plan(probe_args.args, &probe_sel);

  std::vector<std::string> errors(kThreads);
  std::atomic<int> go{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      while (go.load() == 0) std::this_thread::yield();
      auto expect = [&](bool ok, const std::string& what) {
        if (!ok && errors[t].empty()) errors[t] = what;
      };
      for (int r = 0; r < kRounds; ++r) {
        ArgsFixture f;
        // Own invalid argument: num_kv_heads = 3 + t does not divide 16 query heads unless it is 4, 8 or 16.
        const int hkv = 3 + t;
        f.args.k_cache.shape[2] = f.args.v_cache.shape[2] = hkv;
        const bool divides = 16 % hkv == 0;
        const Status s = rt->run(f.args, nullptr, 0, nullptr);
        if (!divides) {
          expect(s.code == kInvalidArgument &&
                     s.message.find("num_kv_heads) = " + std::to_string(hkv)) != std::string::npos,
                 "run: " + s.message);
        }
        // The same through the C API; the last error is this thread's.
        uattn_args_t c;
        uattn_args_init(&c);
        c.q.rank = 2 + (t % 2);  // rank 2: a refusal naming q.rank; rank 3: the next rule's refusal
        const uattn_status_t cs = uattn_run(crt, &c, nullptr, 0, nullptr, nullptr);
        const std::string cm = uattn_last_error_message();
        expect(cs == UATTN_ERR_INVALID_ARGUMENT, "uattn_run status " + std::to_string(cs));
        if (t % 2 == 0) expect(cm.find("q.rank = 2") != std::string::npos, "uattn_run message: " + cm);
        else expect(cm.find("q.rank") == std::string::npos, "another thread's message: " + cm);
        // Device-dependent calls answer as on the main thread.
        ArgsFixture g;
        Selection sel;
        const Status p = rt->plan(g.args, &sel);
        expect(p.code == probe.code, "plan: " + p.message);
        size_t ws = 1;
        const Status w = rt->workspace_size(g.args, &ws);
        expect(w.code == probe.code, "workspace_size: " + w.message);
        // The selector and the bundle info are shared read-only.
        ProblemDesc d;
        d.arch = kArchs[t % kNumArchs];
        d.head_size = 128;
        d.num_tokens = 1 + t;
        d.max_seqlen_k = 100 * (r + 1);
        SelectOptions o;
        o.explain = r % 2;
        const Selection s2 = select(d, o);
        expect(s2.ok && s2.attention.row && s2.attention.row->head_size == 128, "select: " + s2.error);
        expect(rt->bundle_info().archs.size() == 2, "bundle_info");
      }
    });
  go = 1;
  for (std::thread& x : threads) x.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  uattn_runtime_destroy(crt);
}

}  // namespace
