#include "bench_common/table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace bench_common {
namespace {

// UTF-8 aware enough for the dashes and arrows the tables hold: counts the
// bytes that start a character.
std::size_t displayWidth(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

Table::Table(std::vector<std::string> header) {
  rows_.push_back(std::move(header));
}

void Table::add(std::vector<std::string> row) {
  rows_.push_back(std::move(row));
}

std::string Table::markdown() const {
  std::ostringstream out;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    out << "|";
    for (const std::string& c : rows_[r]) out << " " << c << " |";
    out << "\n";
    if (r == 0) {
      out << "|";
      for (std::size_t c = 0; c < rows_[0].size(); ++c) {
        out << (c == 0 ? " --- |" : " ---: |");
      }
      out << "\n";
    }
  }
  return out.str();
}

std::string Table::text() const {
  std::vector<std::size_t> width(rows_[0].size(), 0);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], displayWidth(row[c]));
    }
  }
  std::ostringstream out;
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) {
      const std::string pad(width[c] - displayWidth(row[c]), ' ');
      out << (c == 0 ? row[c] + pad : pad + row[c]) << "  ";
    }
    out << "\n";
  }
  return out.str();
}

std::string ms(double value) {
  char text[32];
  const double a = std::fabs(value);
  const char* format = "%.2f";
  if (a >= 100) {
    format = "%.0f";
  } else if (a >= 10) {
    format = "%.1f";
  }
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

std::string ms(const std::optional<double>& value) {
  return value ? ms(*value) : std::string("–");
}

std::string ratio(const std::optional<double>& a,
                  const std::optional<double>& b) {
  if (!a || !b || *b <= 0) return "–";
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", *a / *b);
  return text;
}

}  // namespace bench_common
