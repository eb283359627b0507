#pragma once

// Process groups over a subset of another group's ranks, as PyTorch's
// dist.new_group and dist.new_subgroups, built on Gloo so that they work on
// CPU (PyTorch 1.13's new_subgroups needs CUDA).

#include <chrono>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

namespace distalgo::groups {

// How a subgroup's Gloo process group is built.
struct GroupOptions {
  std::chrono::milliseconds timeout = ::kProcessGroupDefaultTimeout;
  // Address or host name the group's Gloo device binds to; empty: one device
  // per interface named in GLOO_SOCKET_IFNAME (comma-separated, as in
  // PyTorch), else Gloo's default device (this machine's hostname, else the
  // loopback interface).
  std::string hostname;
};

// Creates the process group of `ranks` (ranks of `pg`, any order, no
// duplicates). Collective over `pg`: every rank of `pg` calls it with the same
// ranks and in the same order relative to its other collectives. Returns the
// new group to its members (group rank = position among the sorted ranks) and
// nullptr to the others. The group's keys live in `store` under a prefix unique
// to this group. Returns once every rank of `pg` has built its part (a
// barrier on `pg`), so a member may use or drop the group at once. Throws
// std::invalid_argument for an empty list, a rank outside [0, pg size) or a
// duplicate.
//
// Example:
//   auto pair = newGroup(store, pg, {0, 1});  // on every rank
//   if (pair) pair->allreduce(tensors)->wait();
c10::intrusive_ptr<c10d::ProcessGroup> newGroup(
    const c10::intrusive_ptr<c10d::Store>& store,
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, std::vector<int> ranks,
    const GroupOptions& options = {});

// PyTorch's new_subgroups: splits `pg` into consecutive groups of
// `group_size` ranks ({0..g-1}, {g..2g-1}, ...), creating every one of them
// (collective over `pg`), and returns this rank's. Throws
// std::invalid_argument unless 0 < group_size <= pg size and the size is
// divisible by group_size.
c10::intrusive_ptr<c10d::ProcessGroup> newSubgroups(
    const c10::intrusive_ptr<c10d::Store>& store,
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int group_size,
    const GroupOptions& options = {});

}  // namespace distalgo::groups
