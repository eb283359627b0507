// A hook table row is checked when ranktest registers it (through
// CommHookParity::paramName): one without its hook or its traffic prediction
// stops the binary with the row's name instead of killing every rank with
// std::bad_function_call.

#include <gmock/gmock.h>

#include <stdexcept>
#include <string>

#include "distalgo/hooks/default_hooks.h"
#include "hookparity/hook_parity.h"

namespace {

using testing::AllOf;
using testing::HasSubstr;
using testing::ThrowsMessage;

hookparity::HookCase completeRow() {
  return {.name = "complete",
          .make = [](const auto&) { return distalgo::hooks::noopHook(); },
          .parity = hookparity::local(),
          .traffic = [](const auto&) { return hookparity::Bytes{}; }};
}

TEST(CommHookTableCheck, CompleteRowRegistersUnderItsName) {
  EXPECT_EQ(CommHookParity::paramName(completeRow(), 0), "complete");
}

// Expects registering `row` to be refused with a message that names the row
// and the missing `field`.
void expectRefused(const hookparity::HookCase& row, const std::string& field) {
  EXPECT_THAT([&] { CommHookParity::paramName(row, 0); },
              ThrowsMessage<std::invalid_argument>(
                  AllOf(HasSubstr("CommHookParity row '" + row.name + "'"),
                        HasSubstr("expected " + field))));
}

TEST(CommHookTableCheck, RowWithoutTrafficPredictionIsRefusedByName) {
  hookparity::HookCase row = completeRow();
  row.name = "unpredicted";
  row.traffic = nullptr;
  expectRefused(row, ".traffic");
}

TEST(CommHookTableCheck, RowWithoutHookIsRefusedByName) {
  hookparity::HookCase row = completeRow();
  row.name = "hookless";
  row.make = nullptr;
  expectRefused(row, ".make");
}

}  // namespace
