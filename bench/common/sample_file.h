#pragma once

// The samples a benchmark writes: one tab-separated file, a header line, then
// one row per sample (bench/README.md, "Samples"). Lines that start with '#'
// are the run's facts, written by bench/run. Several runs of a binary, and
// its rank processes, append to the same file.

#include <string>
#include <vector>

namespace bench {

using Row = std::vector<std::string>;

class SampleFile {
 public:
  // Writes `header` unless the file has it already; throws
  // std::runtime_error when the file holds rows under another header.
  SampleFile(std::string path, const Row& header);

  // Appends `rows`; any process may call it (ranks inherit the object).
  void append(const std::vector<Row>& rows) const;

 private:
  std::string path_;
};

// `value` with up to 6 significant digits ("512.345", "0", "1.5e+07").
std::string toText(double value);

}  // namespace bench
