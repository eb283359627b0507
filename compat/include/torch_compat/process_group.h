#pragma once

// Process groups across libtorch's two shapes. Up to 1.13, Gloo and NCCL are
// c10d::ProcessGroups themselves; since 2.0 they are c10d::Backends, and the
// c10d::ProcessGroup that collectives are called on dispatches to one backend
// per device type. Chosen by what the headers declare, not by version.

#include <c10/core/Device.h>

#include <initializer_list>
#include <optional>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <type_traits>

namespace torch_compat {

template <class Group>
concept DispatchesToBackends = requires(Group& group) {
  group.getDefaultBackend();
};

// True on libtorch 2.x: backends sit behind a dispatching ProcessGroup.
inline constexpr bool kBackendSplit = DispatchesToBackends<c10d::ProcessGroup>;

// The backend kinds ranktest builds.
enum class BackendKind { kGloo, kNccl };

// `backend` (a ProcessGroupGloo, ProcessGroupNCCL or ProcessGroupWrapper) as
// the group collectives are called on: itself up to 1.13; since 2.0 a
// ProcessGroup over `store` that dispatches to it for `devices`, bound to
// `bound_device` where given (NCCL then connects eagerly, on that GPU).
template <class Backend, class Group = c10d::ProcessGroup>
c10::intrusive_ptr<Group> asProcessGroup(
    c10::intrusive_ptr<Backend> backend,
    const c10::intrusive_ptr<c10d::Store>& store, BackendKind kind,
    std::initializer_list<c10::DeviceType> devices,
    std::optional<c10::Device> bound_device = std::nullopt) {
  if constexpr (std::is_base_of_v<Group, Backend>) {
    return backend;
  } else {
    auto group = c10::make_intrusive<Group>(store, backend->getRank(),
                                            backend->getSize());
    const auto type = kind == BackendKind::kGloo ? Group::BackendType::GLOO
                                                 : Group::BackendType::NCCL;
    if (bound_device) group->setBoundDeviceId(bound_device);
    group->setDefaultBackend(type);
    for (const c10::DeviceType device : devices) {
      group->setBackend(device, type, backend);
    }
    return group;
  }
}

// The object that runs `group`'s collectives: the group itself up to 1.13,
// its default backend since 2.0 (what a ProcessGroupWrapper wraps, and what a
// dynamic_cast to ProcessGroupGloo/Wrapper must look at).
template <class Group>
auto defaultBackend(const c10::intrusive_ptr<Group>& group) {
  if constexpr (DispatchesToBackends<Group>) {
    return group->getDefaultBackend();
  } else {
    return group;
  }
}

// `group` with its default backend replaced by `wrap(backend)` for every
// device the group serves (a ProcessGroupWrapper, say): up to 1.13, where
// the group is its own backend, just `wrap(group)`.
template <class Wrap, class Group = c10d::ProcessGroup>
c10::intrusive_ptr<Group> wrapDefaultBackend(
    const c10::intrusive_ptr<Group>& group,
    const c10::intrusive_ptr<c10d::Store>& store, Wrap wrap) {
  if constexpr (DispatchesToBackends<Group>) {
    auto wrapped = wrap(group->getDefaultBackend());
    auto result =
        c10::make_intrusive<Group>(store, group->getRank(), group->getSize());
    const auto type = group->getBackendType();
    result->setBoundDeviceId(group->getBoundDeviceId());
    result->setDefaultBackend(type);
    for (const c10::Device& device : group->getDeviceTypes()) {
      result->setBackend(device.type(), type, wrapped);
    }
    return result;
  } else {
    return wrap(group);
  }
}

}  // namespace torch_compat
