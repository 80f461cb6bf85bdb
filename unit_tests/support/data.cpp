#include "tessera_test/data.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

namespace tessera_test {

std::string data_dir() {
  const char* env = std::getenv("TESSERA_DATA_DIR");
  return env && *env ? env : "../shared/data";
}

std::vector<std::string> real_matrix_paths() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(data_dir()) / "matrices";
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().string().size() > 7 && entry.path().string().substr(entry.path().string().size() - 7) == ".mtx.gz")
      paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) ADD_FAILURE() << "no real matrices (*.mtx.gz) under " << dir << "; set TESSERA_DATA_DIR";
  return paths;
}

std::string real_matrix(const std::string& name) {
  return (std::filesystem::path(data_dir()) / "matrices" / (name + ".mtx.gz")).string();
}

}  // namespace tessera_test
