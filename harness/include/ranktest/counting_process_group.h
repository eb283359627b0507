#pragma once

// A process group that forwards every collective to a real one and counts,
// per collective, the calls and the bytes this rank puts in: a test can
// assert what an algorithm sends (e.g. fp16 compression halves allreduce's
// bytes) without a packet capture.
//
// Example:
//   auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
//   DistributedDataParallel ddp(model, counting);
//   ...
//   EXPECT_EQ(counting->traffic("allreduce").bytes, expected);

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

namespace ranktest {

struct Traffic {
  std::int64_t calls = 0;
  std::int64_t bytes = 0;  // payload this rank contributes
};

class CountingProcessGroup : public c10d::ProcessGroup {
 public:
  explicit CountingProcessGroup(c10::intrusive_ptr<c10d::ProcessGroup> inner);

  // What was counted for one collective ("allreduce", "broadcast", ...).
  Traffic traffic(const std::string& collective) const;
  // Everything counted, by collective.
  std::map<std::string, Traffic> allTraffic() const;
  void reset();

  const std::string getBackendName() const override;

  c10::intrusive_ptr<c10d::Work> broadcast(
      std::vector<at::Tensor>& tensors,
      const c10d::BroadcastOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> allreduce(
      std::vector<at::Tensor>& tensors,
      const c10d::AllreduceOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
      std::vector<at::Tensor>& tensors,
      const c10d::AllreduceCoalescedOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> reduce(
      std::vector<at::Tensor>& tensors,
      const c10d::ReduceOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> allgather(
      std::vector<std::vector<at::Tensor>>& outputs,
      std::vector<at::Tensor>& inputs,
      const c10d::AllgatherOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> gather(
      std::vector<std::vector<at::Tensor>>& outputs,
      std::vector<at::Tensor>& inputs,
      const c10d::GatherOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> scatter(
      std::vector<at::Tensor>& outputs,
      std::vector<std::vector<at::Tensor>>& inputs,
      const c10d::ScatterOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(
      std::vector<at::Tensor>& outputs,
      std::vector<std::vector<at::Tensor>>& inputs,
      const c10d::ReduceScatterOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(
      at::Tensor& output, at::Tensor& input,
      std::vector<int64_t>& output_split_sizes,
      std::vector<int64_t>& input_split_sizes,
      const c10d::AllToAllOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> alltoall(
      std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
      const c10d::AllToAllOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors,
                                      int dst_rank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors,
                                      int src_rank, int tag) override;
  c10::intrusive_ptr<c10d::Work> barrier(
      const c10d::BarrierOptions& opts = {}) override;

 private:
  void count(const std::string& collective,
             const std::vector<at::Tensor>& payload);

  c10::intrusive_ptr<c10d::ProcessGroup> inner_;
  mutable std::mutex mutex_;
  std::map<std::string, Traffic> traffic_;
};

}  // namespace ranktest
