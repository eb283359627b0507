#include "ranktest/collective_check.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupWrapper.hpp>

#include "rank/process_group_factory.h"
#include "torch_compat/process_group.h"

namespace ranktest {

c10::intrusive_ptr<c10d::ProcessGroup> withCollectiveCheck(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const c10::intrusive_ptr<c10d::Store>& store,
    std::chrono::milliseconds timeout, const std::string& host) {
  // The side group is Gloo whatever the test's backend: the fingerprints are
  // small CPU tensors.
  auto side = internal::createGlooGroup(
      c10::make_intrusive<c10d::PrefixStore>("collective-check", store),
      pg->getRank(), pg->getSize(), timeout, host);
  return torch_compat::wrapDefaultBackend(pg, store, [&](const auto& inner) {
    return c10::make_intrusive<c10d::ProcessGroupWrapper>(inner, side);
  });
}

}  // namespace ranktest
