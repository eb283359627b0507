#include <stdexcept>
#include <string>

#include "hookparity/hook_parity.h"

namespace hookparity {

void checkHookCase(const HookCase& row) {
  const std::string where = "CommHookParity row '" + row.name + "': ";
  if (!row.make) {
    throw std::invalid_argument(where +
                                "expected .make, the hook to test; got none");
  }
  if (!row.traffic) {
    throw std::invalid_argument(
        where +
        "expected .traffic, the bytes the hook sends (hookparity::Bytes{} "
        "for none); got none");
  }
}

}  // namespace hookparity
