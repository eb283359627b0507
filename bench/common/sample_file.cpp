#include "common/sample_file.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace bench {
namespace {

std::string joinTabs(const Row& row) {
  std::string line;
  for (const std::string& field : row) {
    line += (line.empty() ? "" : "\t") + field;
  }
  return line;
}

// The first line that is not a fact, or "" when there is none.
std::string headerOf(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') return line;
  }
  return "";
}

}  // namespace

SampleFile::SampleFile(std::string path, const Row& header)
    : path_(std::move(path)) {
  const std::string existing = headerOf(path_);
  if (existing.empty()) {
    append({header});
  } else if (existing != joinTabs(header)) {
    throw std::runtime_error(path_ + " has the header '" + existing +
                             "', not '" + joinTabs(header) + "'");
  }
}

void SampleFile::append(const std::vector<Row>& rows) const {
  std::ofstream out(path_, std::ios::app);
  for (const Row& row : rows) out << joinTabs(row) << "\n";
  if (!out.flush()) throw std::runtime_error("cannot write " + path_);
}

std::string toText(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

}  // namespace bench
