#include "distalgo/ddp/internal/parameter_check.h"

#include <ATen/ATen.h>

#include <sstream>
#include <stdexcept>

namespace distalgo::ddp::internal {
namespace {

// [count, then per parameter: dtype, ndim, sizes...] as int64.
std::vector<int64_t> describe(const std::vector<at::Tensor>& parameters) {
  std::vector<int64_t> out{static_cast<int64_t>(parameters.size())};
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

std::vector<Signature> decode(const int64_t* data) {
  std::vector<Signature> out(static_cast<std::size_t>(data[0]));
  std::size_t at = 1;
  for (Signature& s : out) {
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

std::vector<at::Tensor> allgather(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const at::Tensor& t) {
  std::vector<std::vector<at::Tensor>> out(1);
  for (int r = 0; r < pg->getSize(); ++r) out[0].push_back(at::empty_like(t));
  std::vector<at::Tensor> in{t};
  pg->allgather(out, in)->wait();
  return out[0];
}

}  // namespace

void checkSameParametersOnEveryRank(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const std::vector<at::Tensor>& parameters,
    const std::vector<std::string>& names) {
  const std::vector<int64_t> mine = describe(parameters);
  // Descriptions differ in length when models differ: pad to the longest.
  int64_t longest = 0;
  for (const at::Tensor& n :
       allgather(pg, at::tensor({static_cast<int64_t>(mine.size())}))) {
    longest = std::max(longest, n.item<int64_t>());
  }
  at::Tensor padded = at::zeros({longest}, at::kLong);
  std::copy(mine.begin(), mine.end(), padded.data_ptr<int64_t>());
  const std::vector<at::Tensor> all = allgather(pg, padded);

  const std::vector<Signature> reference = decode(all[0].data_ptr<int64_t>());
  std::ostringstream problems;
  for (int r = 1; r < pg->getSize(); ++r) {
    const std::vector<Signature> other = decode(all[r].data_ptr<int64_t>());
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
  if (!problems.str().empty()) {
    throw std::invalid_argument(
        "distalgo::DistributedDataParallel needs the same parameters on every "
        "rank:" +
        problems.str());
  }
}

}  // namespace distalgo::ddp::internal
