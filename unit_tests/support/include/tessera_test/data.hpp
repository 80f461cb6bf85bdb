#pragma once
// Where the real test data lives: $TESSERA_DATA_DIR (ctest sets it to the
// configured folder). The data is required: a missing folder fails the test.
#include <string>
#include <vector>

namespace tessera_test {

std::string data_dir();
// Every matrices/*.mtx.gz file, sorted by name; empty (and a test failure) if none.
std::vector<std::string> real_matrix_paths();
// A named matrix, e.g. "cage10".
std::string real_matrix(const std::string& name);

}  // namespace tessera_test
