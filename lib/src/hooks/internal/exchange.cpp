#include "hooks/internal/exchange.h"

namespace distalgo::hooks::internal {

void exchange(c10d::ProcessGroup& pg, const std::vector<at::Tensor>& to,
              const std::vector<at::Tensor>& from, int tag) {
  const int world = pg.getSize();
  const int rank = pg.getRank();
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
