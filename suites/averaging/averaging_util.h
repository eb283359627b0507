#pragma once

// Rank-dependent parameters whose means are exact in float, and the expected
// means computed locally.
//
// Tensor i of rank r holds (r + 1) * base_i, base_i small integers. Over a
// power-of-two number of ranks every division by the group size and every
// partial sum is exact in float, so averages are compared with a tolerance
// of zero (at::Tensor::equal).

#include <ATen/ATen.h>
#include <gmock/gmock.h>

#include <cstdint>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace averaging_suite {

// Three parameters ({2, 3}, {4} and {1} elements) of global rank `rank`,
// each with a gradient of ones unless `with_grad` is false.
inline std::vector<at::Tensor> rankParameters(int rank, bool with_grad = true) {
  std::vector<at::Tensor> params;
  const std::vector<std::vector<std::int64_t>> shapes{{2, 3}, {4}, {1}};
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto numel = std::accumulate(shapes[i].begin(), shapes[i].end(),
                                       std::int64_t{1}, std::multiplies<>());
    const auto base = at::arange(1, numel + 1, at::kFloat).reshape(shapes[i]) +
                      10 * static_cast<int>(i);
    auto p = (base * (rank + 1)).requires_grad_();
    if (with_grad) p.mutable_grad() = at::ones_like(p);
    params.push_back(p);
  }
  return params;
}

// The mean of rankParameters over `ranks`.
inline std::vector<at::Tensor> meanParameters(const std::vector<int>& ranks) {
  std::vector<at::Tensor> sum;
  for (const int r : ranks) {
    const auto params = rankParameters(r, /*with_grad=*/false);
    if (sum.empty()) {
      for (const auto& p : params) sum.push_back(p.detach().clone());
    } else {
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += params[i].detach();
    }
  }
  for (auto& s : sum) s /= static_cast<double>(ranks.size());
  return sum;
}

inline std::vector<int> allRanks(int world_size) {
  std::vector<int> ranks(world_size);
  for (int r = 0; r < world_size; ++r) ranks[r] = r;
  return ranks;
}

template <typename Call>
void expectInvalidArgument(Call call, const char* message) {
  EXPECT_THAT(call, testing::ThrowsMessage<std::invalid_argument>(
                        testing::HasSubstr(message)));
}

}  // namespace averaging_suite
