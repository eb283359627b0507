#include "hooks/internal/exchange.h"

#include <ATen/ATen.h>

namespace distalgo::hooks::internal {

namespace {

// Whether a tensor to move, or to receive into, is not in host memory.
bool movesDeviceMemory(const std::vector<at::Tensor>& to,
                       const std::vector<at::Tensor>& from, int rank) {
  for (int r = 0; r < static_cast<int>(to.size()); ++r) {
    if (r == rank) continue;
    if (!to[r].is_cpu() || !from[r].is_cpu()) return true;
  }
  return false;
}

}  // namespace

void exchange(c10d::ProcessGroup& pg, const std::vector<at::Tensor>& to,
              const std::vector<at::Tensor>& from, int tag) {
  const int world = pg.getSize();
  const int rank = pg.getRank();
  if (movesDeviceMemory(to, from, rank)) {
    // Gloo sends and receives host memory only: CUDA tensors go through
    // host copies.
    std::vector<at::Tensor> host_to(world), host_from(world);
    for (int r = 0; r < world; ++r) {
      if (r == rank) continue;
      host_to[r] = to[r].cpu();
      host_from[r] =
          at::empty_like(from[r], from[r].options().device(at::kCPU));
    }
    exchange(pg, host_to, host_from, tag);
    for (int r = 0; r < world; ++r) {
      if (r != rank) from[r].copy_(host_from[r]);
    }
    return;
  }
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  // Each call takes its own vector: Gloo's work keeps what it is given.
  std::vector<std::vector<at::Tensor>> held;
  held.reserve(2 * static_cast<std::size_t>(world));
  for (int r = 0; r < world; ++r) {
    if (r == rank || from[r].numel() == 0) continue;
    held.push_back({from[r]});
    works.push_back(pg.recv(held.back(), r, tag));
  }
  for (int offset = 1; offset < world; ++offset) {
    // From the next rank on, so that no rank is everyone's first.
    const int r = (rank + offset) % world;
    if (to[r].numel() == 0) continue;
    held.push_back({to[r]});
    works.push_back(pg.send(held.back(), r, tag));
  }
  for (const auto& work : works) work->wait();
}

}  // namespace distalgo::hooks::internal
