#include "rank/throw_sites.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <array>
#include <atomic>
#include <mutex>
#include <typeinfo>

#include "rank/rank_signals.h"

namespace ranktest::internal {
namespace {

constexpr int kMaxFrames = 48;

struct ThrowSite {
  const void* object = nullptr;
  int count = 0;
  void* frames[kMaxFrames];
};

// The last throws of the process, from any thread: an exception thrown in a
// worker thread (a future's error) reaches the body as the same object.
class ThrowSites {
 public:
  void record(const void* object, void* const* frames, int count) {
    std::lock_guard<std::mutex> lock(mutex_);
    ThrowSite& site = sites_[next_++ % sites_.size()];
    site.object = object;
    site.count = count;
    std::copy(frames, frames + count, site.frames);
  }

  bool find(const void* object, ThrowSite* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Newest first: an address is reused once an exception is destroyed.
    for (std::size_t age = 1; age <= sites_.size() && age <= next_; ++age) {
      const ThrowSite& site = sites_[(next_ - age) % sites_.size()];
      if (site.object == object) {
        *out = site;
        return true;
      }
    }
    return false;
  }

 private:
  std::mutex mutex_;
  std::array<ThrowSite, 16> sites_{};
  std::size_t next_ = 0;
};

std::atomic<bool> g_recording{false};

ThrowSites& sites() {
  static ThrowSites* const instance = new ThrowSites;  // never destroyed
  return *instance;
}

using CxaThrow = void (*)(void*, std::type_info*, void (*)(void*));

CxaThrow realCxaThrow() {
  static const auto real =
      reinterpret_cast<CxaThrow>(::dlsym(RTLD_NEXT, "__cxa_throw"));
  return real;
}

[[gnu::noinline]] void recordThrow(void* object) {
  void* frames[kMaxFrames + 2];
  const int count = ::backtrace(frames, kMaxFrames + 2);
  // Skip this function and __cxa_throw: the first frame is the thrower.
  if (count > 2) sites().record(object, frames + 2, count - 2);
}

}  // namespace

void recordThrowSites() {
  realCxaThrow();
  sites();
  g_recording = true;
}

bool printThrowSite(const void* object, const char* reason) {
  ThrowSite site;
  if (object == nullptr || !sites().find(object, &site)) return false;
  printStack(reason, site.frames, site.count);
  return true;
}

}  // namespace ranktest::internal

// The C++ runtime's throw, interposed (as declared in <cxxabi.h>): records
// the stack, then throws.
namespace __cxxabiv1 {
extern "C" void __cxa_throw(void* object, std::type_info* type,
                            void (*destructor)(void*)) {
  if (ranktest::internal::g_recording.load(std::memory_order_relaxed)) {
    ranktest::internal::recordThrow(object);
  }
  ranktest::internal::realCxaThrow()(object, type, destructor);
  __builtin_unreachable();
}
}  // namespace __cxxabiv1
