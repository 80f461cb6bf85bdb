#pragma once
// Helpers of the file I/O tests: a temporary directory per test, raw file access that
// bypasses the library, and checks of ParseErrors and exact round trips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include "tessera/core/coo.hpp"
#include "tessera/core/error.hpp"

namespace tessera_test {

namespace fs = std::filesystem;
using tessera::HostCoo;

// A fresh directory per test, so parallel runs and reruns never share files.
class IoTest : public testing::Test {
 protected:
  void SetUp() override {
    const auto* test = testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("tessera_io_") + test->test_suite_name() + "_" + test->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = fs::path(testing::TempDir()) / name;
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string path(const std::string& file_name) const { return (dir_ / file_name).string(); }

  // Writes raw bytes without going through the library under test.
  std::string write_raw(const std::string& file_name, const std::string& content) const {
    const std::string p = path(file_name);
    std::ofstream out(p, std::ios::binary);
    out << content;
    return p;
  }

  static std::string read_raw(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  fs::path dir_;
};

// Runs `action`, which must throw ParseError for `file` at `line` with a message
// containing `fragment`.
inline void expect_parse_error(const std::function<void()>& action, const std::string& file, std::int64_t line,
                        const std::string& fragment) {
  try {
    action();
    ADD_FAILURE() << "no ParseError thrown; expected '" << fragment << "' at line " << line;
  } catch (const tessera::ParseError& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.line(), line) << message;
    EXPECT_NE(message.find(file + ":" + std::to_string(line) + ": "), std::string::npos) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << "message: " << message << "\nexpected: " << fragment;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type; message: " << e.what();
  }
}

// Entries as sortable tuples, for comparing COOs whose order may differ.
inline std::vector<std::tuple<std::vector<std::int64_t>, double>> sorted_entries(const HostCoo<double>& coo) {
  std::vector<std::tuple<std::vector<std::int64_t>, double>> entries;
  for (std::int64_t n = 0; n < coo.nnz(); ++n) {
    std::vector<std::int64_t> index(coo.coords.begin() + n * coo.order(), coo.coords.begin() + (n + 1) * coo.order());
    entries.emplace_back(index, coo.values[n]);
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

inline void expect_identical(const HostCoo<double>& got, const HostCoo<double>& want) {
  EXPECT_EQ(got.shape, want.shape);
  EXPECT_EQ(got.coords, want.coords);
  ASSERT_EQ(got.values.size(), want.values.size());
  for (std::size_t n = 0; n < want.values.size(); ++n) {
    // Bit-exact, NaN included: the writers promise exact round trips.
    if (std::isnan(want.values[n])) {
      EXPECT_TRUE(std::isnan(got.values[n])) << "entry " << n;
    } else {
      EXPECT_EQ(got.values[n], want.values[n]) << "entry " << n;
      EXPECT_EQ(std::signbit(got.values[n]), std::signbit(want.values[n])) << "entry " << n;
    }
  }
}

}  // namespace tessera_test
