#pragma once
// Calls f(Tag<T>{}) for each type in a list: sweeps over encodings inside one test.
#include <utility>

namespace tessera_test {

template <class T>
struct Tag {
  using type = T;
};

template <class... Ts, class F>
void for_each_type(F&& f) {
  (f(Tag<Ts>{}), ...);
}

}  // namespace tessera_test
