#include "ranktest/counting_process_group.h"

namespace ranktest {

CountingProcessGroup::CountingProcessGroup(
    c10::intrusive_ptr<c10d::ProcessGroup> inner)
    : c10d::ProcessGroup(inner->getRank(), inner->getSize()),
      inner_(std::move(inner)) {}

void CountingProcessGroup::count(const std::string& collective,
                                 const std::vector<at::Tensor>& payload) {
  std::int64_t bytes = 0;
  for (const at::Tensor& t : payload) {
    bytes += static_cast<std::int64_t>(t.numel() * t.element_size());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Traffic& traffic = traffic_[collective];
  ++traffic.calls;
  traffic.bytes += bytes;
}

Traffic CountingProcessGroup::traffic(const std::string& collective) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = traffic_.find(collective);
  return it == traffic_.end() ? Traffic{} : it->second;
}

std::map<std::string, Traffic> CountingProcessGroup::allTraffic() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return traffic_;
}

void CountingProcessGroup::reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  traffic_.clear();
}

const std::string CountingProcessGroup::getBackendName() const {
  return inner_->getBackendName();
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::broadcast(
    std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) {
  // Only the root's tensor travels.
  if (getRank() == opts.rootRank)
    count("broadcast", tensors);
  else
    count("broadcast", {});
  return inner_->broadcast(tensors, opts);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::allreduce(
    std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) {
  count("allreduce", tensors);
  return inner_->allreduce(tensors, opts);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::allreduce_coalesced(
    std::vector<at::Tensor>& tensors,
    const c10d::AllreduceCoalescedOptions& opts) {
  count("allreduce_coalesced", tensors);
  return inner_->allreduce_coalesced(tensors, opts);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::reduce(
    std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) {
  count("reduce", tensors);
  return inner_->reduce(tensors, opts);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::allgather(
    std::vector<std::vector<at::Tensor>>& outputs,
    std::vector<at::Tensor>& inputs, const c10d::AllgatherOptions& opts) {
  count("allgather", inputs);
  return inner_->allgather(outputs, inputs, opts);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::gather(
    std::vector<std::vector<at::Tensor>>& outputs,
    std::vector<at::Tensor>& inputs, const c10d::GatherOptions& opts) {
  count("gather", inputs);
  return inner_->gather(outputs, inputs, opts);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::scatter(
    std::vector<at::Tensor>& outputs,
    std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ScatterOptions& opts) {
  count("scatter", inputs.empty() ? std::vector<at::Tensor>{} : inputs[0]);
  return inner_->scatter(outputs, inputs, opts);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::reduce_scatter(
    std::vector<at::Tensor>& outputs,
    std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ReduceScatterOptions& opts) {
  count("reduce_scatter",
        inputs.empty() ? std::vector<at::Tensor>{} : inputs[0]);
  return inner_->reduce_scatter(outputs, inputs, opts);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::alltoall_base(
    at::Tensor& output, at::Tensor& input,
    std::vector<int64_t>& output_split_sizes,
    std::vector<int64_t>& input_split_sizes,
    const c10d::AllToAllOptions& opts) {
  count("alltoall_base", {input});
  return inner_->alltoall_base(output, input, output_split_sizes,
                               input_split_sizes, opts);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::alltoall(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllToAllOptions& opts) {
  count("alltoall", inputs);
  return inner_->alltoall(outputs, inputs, opts);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::send(
    std::vector<at::Tensor>& tensors, int dst_rank, int tag) {
  count("send", tensors);
  return inner_->send(tensors, dst_rank, tag);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::recv(
    std::vector<at::Tensor>& tensors, int src_rank, int tag) {
  count("recv", {});
  return inner_->recv(tensors, src_rank, tag);
}

c10::intrusive_ptr<c10d::Work> CountingProcessGroup::barrier(
    const c10d::BarrierOptions& opts) {
  count("barrier", {});
  return inner_->barrier(opts);
}

}  // namespace ranktest
