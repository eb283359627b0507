#include "zero/internal/gather_bytes.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "internal/collective_device.h"

namespace distalgo::zero::internal {

std::vector<std::string> gatherBytes(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const std::string& bytes,
    int root) {
  const int world_size = pg->getSize();
  const at::TensorOptions on_device =
      at::TensorOptions().device(distalgo::internal::collectiveDevice(*pg));
  std::vector<at::Tensor> size_in{
      at::full({1}, static_cast<std::int64_t>(bytes.size()),
               on_device.dtype(at::kLong))};
  std::vector<std::vector<at::Tensor>> size_out(1);
  for (int r = 0; r < world_size; ++r) {
    size_out[0].push_back(at::empty({1}, on_device.dtype(at::kLong)));
  }
  pg->allgather(size_out, size_in)->wait();
  std::vector<std::int64_t> sizes;
  for (const auto& t : size_out[0]) sizes.push_back(t.item<std::int64_t>());
  // At least one byte: every rank then sends a real buffer.
  const std::int64_t padded =
      std::max<std::int64_t>(1, *std::max_element(sizes.begin(), sizes.end()));

  at::Tensor host = at::zeros({padded}, at::kByte);
  std::memcpy(host.data_ptr(), bytes.data(), bytes.size());
  std::vector<at::Tensor> in{host.to(on_device.device())};
  std::vector<std::vector<at::Tensor>> out;
  const bool is_root = pg->getRank() == root;
  if (is_root) {
    out.emplace_back();
    for (int r = 0; r < world_size; ++r) {
      out[0].push_back(at::empty({padded}, on_device.dtype(at::kByte)));
    }
  }
  c10d::GatherOptions options;
  options.rootRank = root;
  pg->gather(out, in, options)->wait();
  if (!is_root) return {};
  std::vector<std::string> gathered;
  for (int r = 0; r < world_size; ++r) {
    const at::Tensor received = out[0][r].cpu();
    gathered.emplace_back(static_cast<const char*>(received.data_ptr()),
                          static_cast<std::size_t>(sizes[r]));
  }
  return gathered;
}

}  // namespace distalgo::zero::internal
