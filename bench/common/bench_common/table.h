#pragma once

// The report's tables, written once and shown twice: as markdown for the
// results file and as aligned text on the console.

#include <optional>
#include <string>
#include <vector>

namespace bench_common {

class Table {
 public:
  explicit Table(std::vector<std::string> header);
  void add(std::vector<std::string> row);

  // The first column left-aligned, the others right-aligned (numbers).
  std::string markdown() const;
  std::string text() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// Milliseconds with a precision that suits the size ("0.43", "41.5", "198");
// "–" for nothing.
std::string ms(double value);
std::string ms(const std::optional<double>& value);
// a / b with two decimals; "–" unless both are there and b is positive.
std::string ratio(const std::optional<double>& a,
                  const std::optional<double>& b);

}  // namespace bench_common
