#pragma once
// The encodings the formats and assembly tests walk, shared by both bodies.
#include <tuple>

#include "tessera/tessera.hpp"
#include "tessera_test/type_list.hpp"

namespace {

using tessera::HostCoo;
using tessera_test::for_each_type;

// A dense last level stores zeros as structure; to_coo leaves them out.
template <class Enc>
constexpr bool last_level_dense() {
  return Enc::level_kinds[Enc::order - 1] == tessera::LevelKind::Dense;
}

using MatrixEncodings = std::tuple<tessera::CSR, tessera::CSC, tessera::DCSR, tessera::DCSC, tessera::COO,
                                   tessera::CSF<2>, tessera::Dense<2>>;

template <class F, class... Es>
void for_each_in(std::tuple<Es...>*, F&& f) {
  for_each_type<Es...>(f);
}
template <class Tuple, class F>
void for_each_encoding(F&& f) {
  for_each_in(static_cast<Tuple*>(nullptr), f);
}

using Order3Encodings =
    std::tuple<tessera::CSF<3>, tessera::COOTensor<3>, tessera::Dense<3>,
               tessera::Encoding<int, int, tessera::ModeOrder<2, 0, 1>, tessera::levels::Dense,
                                 tessera::levels::Compressed, tessera::levels::Compressed>,
               tessera::Encoding<int, long, tessera::ModeOrder<1, 2, 0>, tessera::levels::Compressed,
                                 tessera::levels::Dense, tessera::levels::Compressed>>;
using Order4Encodings =
    std::tuple<tessera::CSF<4>, tessera::COOTensor<4>, tessera::Dense<4>,
               tessera::Encoding<long, long, tessera::ModeOrder<3, 1, 0, 2>, tessera::levels::Compressed,
                                 tessera::levels::Compressed, tessera::levels::Compressed, tessera::levels::Compressed>>;

}  // namespace
