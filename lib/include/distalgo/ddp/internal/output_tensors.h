#pragma once

// The tensors of a forward's output, wherever they are nested, as PyTorch's
// DDP finds them (_find_tensors walks lists, tuples and dicts).

#include <ATen/core/Tensor.h>
#include <c10/util/Optional.h>
#include <torch/version.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace distalgo::ddp::internal {

template <typename T>
struct IsSequence : std::false_type {};
template <typename T, typename A>
struct IsSequence<std::vector<T, A>> : std::true_type {};
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
#if TORCH_VERSION_MAJOR < 2
// libtorch 1.13's own optional (2.x's is std::optional).
template <typename T>
struct IsOptional<c10::optional<T>> : std::true_type {};
#endif
template <typename T>
struct IsAggregate : std::false_type {};
template <typename... T>
struct IsAggregate<std::tuple<T...>> : std::true_type {};
template <typename A, typename B>
struct IsAggregate<std::pair<A, B>> : std::true_type {};
template <typename T>
struct IsMap : std::false_type {};
template <typename K, typename V, typename... R>
struct IsMap<std::map<K, V, R...>> : std::true_type {};
template <typename K, typename V, typename... R>
struct IsMap<std::unordered_map<K, V, R...>> : std::true_type {};

// Types that hold no tensor, which the walk passes over.
template <typename T>
inline constexpr bool kHoldsNoTensor =
    std::is_arithmetic_v<T> || std::is_enum_v<T> ||
    std::is_same_v<T, std::string>;

// Calls visit(tensor) for every defined tensor in `value` (const or not),
// depth first, in the order of its elements (a map's in its iteration
// order, the same for both walks of one output).
template <typename V, typename Visit>
void forEachTensor(V& value, Visit& visit) {
  using T = std::remove_cv_t<V>;
  if constexpr (std::is_same_v<T, at::Tensor>) {
    if (value.defined()) visit(value);
  } else if constexpr (IsSequence<T>::value) {
    if constexpr (!kHoldsNoTensor<typename T::value_type>) {
      for (auto& element : value) forEachTensor(element, visit);
    }
  } else if constexpr (IsOptional<T>::value) {
    if (value) forEachTensor(*value, visit);
  } else if constexpr (IsAggregate<T>::value) {
    std::apply([&](auto&... element) { (forEachTensor(element, visit), ...); },
               value);
  } else if constexpr (IsMap<T>::value) {
    for (auto& entry : value) forEachTensor(entry.second, visit);
  } else {
    static_assert(kHoldsNoTensor<T>,
                  "distalgo::DistributedDataParallel cannot find the tensors "
                  "in this type of forward output: return tensors in "
                  "std::vector, std::tuple, std::pair, std::optional, "
                  "std::map or std::unordered_map (nested as you like)");
  }
}

// Every defined tensor of `output`, in forEachTensor's order.
template <typename Output>
std::vector<at::Tensor> tensorsIn(const Output& output) {
  std::vector<at::Tensor> tensors;
  auto collect = [&](const at::Tensor& t) { tensors.push_back(t); };
  forEachTensor(output, collect);
  return tensors;
}

// The inverse of tensorsIn: puts `tensors` back where it found them.
template <typename Output>
void replaceTensorsIn(Output& output, std::vector<at::Tensor> tensors) {
  std::size_t next = 0;
  auto replace = [&](at::Tensor& t) { t = std::move(tensors.at(next++)); };
  forEachTensor(output, replace);
}

}  // namespace distalgo::ddp::internal
