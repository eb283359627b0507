#include "internal/same_parameters.h"

#include <ATen/ATen.h>

#include <sstream>

#include "internal/check.h"

namespace distalgo::internal {
namespace {

// [group count, group sizes..., parameter count, then per parameter: dtype,
// ndim, sizes...] as int64.
std::vector<int64_t> describe(const std::vector<at::Tensor>& parameters,
                              const std::vector<int64_t>& group_sizes) {
  std::vector<int64_t> out{static_cast<int64_t>(group_sizes.size())};
  out.insert(out.end(), group_sizes.begin(), group_sizes.end());
  out.push_back(static_cast<int64_t>(parameters.size()));
  for (const at::Tensor& p : parameters) {
    out.push_back(static_cast<int64_t>(p.scalar_type()));
    out.push_back(p.dim());
    for (int64_t size : p.sizes()) out.push_back(size);
  }
  return out;
}

struct Signature {
  c10::ScalarType dtype;
  std::vector<int64_t> sizes;
};

struct Description {
  std::vector<int64_t> group_sizes;
  std::vector<Signature> parameters;
};

Description decode(const int64_t* data) {
  Description out;
  std::size_t at = 0;
  const auto groups = static_cast<std::size_t>(data[at++]);
  out.group_sizes.assign(data + at, data + at + groups);
  at += groups;
  out.parameters.resize(static_cast<std::size_t>(data[at++]));
  for (Signature& s : out.parameters) {
    s.dtype = static_cast<c10::ScalarType>(data[at++]);
    const int64_t dims = data[at++];
    s.sizes.assign(data + at, data + at + dims);
    at += static_cast<std::size_t>(dims);
  }
  return out;
}

std::string show(const Signature& s) {
  std::ostringstream out;
  out << c10::toString(s.dtype) << c10::IntArrayRef(s.sizes);
  return out.str();
}

// Gathered on `device` (NCCL needs the parameters' device), returned on CPU.
std::vector<at::Tensor> allgather(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const at::Tensor& t,
    const c10::Device& device) {
  std::vector<std::vector<at::Tensor>> out(1);
  const at::Tensor local = t.to(device);
  for (int r = 0; r < pg->getSize(); ++r) {
    out[0].push_back(at::empty_like(local));
  }
  std::vector<at::Tensor> in{local};
  pg->allgather(out, in)->wait();
  for (at::Tensor& gathered : out[0]) gathered = gathered.cpu();
  return out[0];
}

std::string show(const std::vector<int64_t>& sizes) {
  std::ostringstream out;
  out << c10::IntArrayRef(sizes);
  return out.str();
}

}  // namespace

void checkSameParametersOnEveryRank(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const std::vector<at::Tensor>& parameters,
    const std::vector<std::string>& names, const std::string& owner,
    const std::vector<std::int64_t>& group_sizes) {
  const c10::Device device =
      parameters.empty() ? c10::Device(c10::kCPU) : parameters[0].device();
  const std::vector<int64_t> mine = describe(
      parameters,
      group_sizes.empty()
          ? std::vector<int64_t>{static_cast<int64_t>(parameters.size())}
          : group_sizes);
  // Descriptions differ in length when models differ: pad to the longest.
  int64_t longest = 0;
  for (const at::Tensor& n :
       allgather(pg, at::tensor({static_cast<int64_t>(mine.size())}), device)) {
    longest = std::max(longest, n.item<int64_t>());
  }
  at::Tensor padded = at::zeros({longest}, at::kLong);
  std::copy(mine.begin(), mine.end(), padded.data_ptr<int64_t>());
  const std::vector<at::Tensor> all = allgather(pg, padded, device);

  const Description reference_description = decode(all[0].data_ptr<int64_t>());
  const std::vector<Signature>& reference = reference_description.parameters;
  std::ostringstream problems;
  for (int r = 1; r < pg->getSize(); ++r) {
    const Description other_description = decode(all[r].data_ptr<int64_t>());
    const std::vector<Signature>& other = other_description.parameters;
    if (other_description.group_sizes != reference_description.group_sizes) {
      problems << "\n  rank " << r << " has parameter groups of sizes "
               << show(other_description.group_sizes) << ", rank 0 has "
               << show(reference_description.group_sizes);
    }
    if (other.size() != reference.size()) {
      problems << "\n  rank " << r << " has " << other.size()
               << " parameters, rank 0 has " << reference.size();
    }
    const std::size_t common = std::min(other.size(), reference.size());
    for (std::size_t i = 0; i < common; ++i) {
      const bool same = other[i].dtype == reference[i].dtype &&
                        other[i].sizes == reference[i].sizes;
      if (same) continue;
      problems << "\n  parameter " << i << " ("
               << (i < names.size() ? names[i] : "?") << " here): rank " << r
               << " has " << show(other[i]) << ", rank 0 has "
               << show(reference[i]);
      break;  // the first difference per rank
    }
  }
  const std::string differences = problems.str();
  DISTALGO_CHECK_ARG(differences.empty(), owner,
                     " needs the same parameters on every rank:", differences);
}

}  // namespace distalgo::internal
