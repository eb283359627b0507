#include "run/init_guard.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace ranktest::internal {
namespace {

constexpr char kMissingInit[] =
    "[ranktest] this binary declares distributed tests (RANKTEST_F/"
    "RANKTEST_P), but main() never called ranktest::init(&argc, argv): add "
    "it after testing::InitGoogleTest, or link ranktest::main instead of "
    "your own main";

std::atomic<bool> g_init_called{false};

// std::fprintf and std::_Exit: also sound while exit() runs atexit handlers,
// after static objects (std::cerr's users among them) may be gone.
void failIfInitMissing() {
  if (g_init_called) return;
  std::fprintf(stderr, "%s\n", kMissingInit);
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(1);
}

// Before the first test runs. googletest has no earlier hook that a static
// initializer can install.
class InitCheck : public ::testing::EmptyTestEventListener {
  void OnTestProgramStart(const ::testing::UnitTest&) override {
    failIfInitMissing();
  }
};

}  // namespace

void noteDeclaredTest() {
  // A test registered after init() (at run time) needs no guard, and gtest's
  // listeners must not change while a test runs.
  if (g_init_called) return;
  static const bool armed = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new InitCheck);
    // --gtest_list_tests (and --help) return from RUN_ALL_TESTS() before any
    // listener is called: the process's exit is the one point left.
    std::atexit(failIfInitMissing);
    return true;
  }();
  (void)armed;
}

void noteInitCalled() { g_init_called = true; }

}  // namespace ranktest::internal
