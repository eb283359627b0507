#include <functional>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "ranktest/param_test.h"
#include "ranktest/skip_codes.h"
#include "run/init_guard.h"

namespace ranktest::internal {
namespace {

std::vector<std::function<void()>>& deferred() {
  static std::vector<std::function<void()>> registrations;
  return registrations;
}

}  // namespace

bool deferRegistration(std::function<void()> registration) {
  noteDeclaredTest();
  deferred().push_back(std::move(registration));
  return true;
}

void runDeferredRegistrations() {
  auto registrations = std::move(deferred());
  deferred().clear();
  try {
    for (auto& registration : registrations) registration();
  } catch (const std::exception& error) {
    std::cerr << "[ranktest] " << error.what() << std::endl;
    std::exit(kTestErrorExitCode);
  }
}

}  // namespace ranktest::internal
