#include "distalgo/join/join_args.h"

#include "internal/check.h"

namespace distalgo::join {

std::vector<std::string> JoinArgs::unread() const {
  std::vector<std::string> out;
  for (const auto& [name, value] : values_) {
    if (read_.count(name) == 0) out.push_back(name);
  }
  return out;
}

void JoinArgs::throwTypeMismatch(const std::string& name) {
  DISTALGO_CHECK_ARG(false, "join argument '", name,
                     "' was set with another type than its reader expects");
}

}  // namespace distalgo::join
