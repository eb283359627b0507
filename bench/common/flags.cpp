#include "common/flags.h"

#include <cstdio>
#include <exception>
#include <sstream>
#include <stdexcept>

namespace bench {

Flags::Flags(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--gtest_", 0) == 0 || arg.rfind("--ranktest_", 0) == 0) {
      continue;
    }
    const std::size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
      throw std::invalid_argument("expected --name=value, not " + arg);
    }
    values_[arg.substr(2, eq - 2)] = arg.substr(eq + 1);
  }
}

std::string Flags::text(const std::string& name, const std::string& fallback) {
  read_.insert(name);
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

int Flags::integer(const std::string& name, int fallback) {
  return std::stoi(text(name, std::to_string(fallback)));
}

double Flags::number(const std::string& name, double fallback) {
  return std::stod(text(name, std::to_string(fallback)));
}

std::vector<std::string> Flags::list(const std::string& name,
                                     const std::string& fallback) {
  std::vector<std::string> items;
  std::stringstream in(text(name, fallback));
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

std::vector<int> Flags::integers(const std::string& name,
                                 const std::string& fallback) {
  std::vector<int> numbers;
  for (const std::string& item : list(name, fallback)) {
    numbers.push_back(std::stoi(item));
  }
  return numbers;
}

void Flags::checkAllRead() const {
  for (const auto& [name, value] : values_) {
    if (!read_.count(name)) {
      throw std::invalid_argument("unknown flag --" + name);
    }
  }
}

int guardedMain(const char* tool, const std::function<void()>& body) {
  try {
    body();
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "[%s] %s\n", tool, error.what());
    return 1;
  }
}

}  // namespace bench
