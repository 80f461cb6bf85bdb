#pragma once
/// \file
/// The workspace a policy stands for, and how kernels run one per host thread.
/// \code{.unparsed}
///   WorkspaceFor<Policy, T, N>  a type with
///     reset(KeySpace<N>, nnz_estimate)  start accumulating over an output of N levels
///     add(key, value)                   scatter one product (duplicates are summed)
///     drain(emit)                       emit(key, value) ascending, unique; then empty
///     peak_bytes()                      bytes allocated at peak
///   with_policy<Policy>(prefer_dense, f)  calls f(PolicyTag) with Auto resolved.
/// \endcode
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "tessera/workspace/accumulation/bucket_accumulation.hpp"
#include "tessera/workspace/accumulation/coord_accumulation.hpp"
#include "tessera/workspace/accumulation/hash_accumulation.hpp"
#include "tessera/workspace/dense_workspace.hpp"
#include "tessera/workspace/ism_workspace.hpp"
#include "tessera/workspace/policies.hpp"
#include "tessera/workspace/single_array_workspaces.hpp"

namespace tessera::workspace {

/// Maps a policy tag to its workspace type (WorkspaceFor).
template <class Policy, class T, int N>
struct WorkspaceType;
/// The Dense policy's workspace.
template <class T, int N>
struct WorkspaceType<Dense, T, N> { using type = DenseWorkspace<T, N>; };
/// \typedef WorkspaceType<Dense, T, N>::type
/// DenseWorkspace<T, N>.

/// The Bucket policy's workspace.
template <class T, int N>
struct WorkspaceType<Bucket, T, N> { using type = IsmWorkspace<BucketAccumulation, T, N>; };
/// \typedef WorkspaceType<Bucket, T, N>::type
/// IsmWorkspace<BucketAccumulation, T, N>.

/// The Hash policy's workspace.
template <class T, int N>
struct WorkspaceType<Hash, T, N> { using type = IsmWorkspace<HashAccumulation, T, N>; };
/// \typedef WorkspaceType<Hash, T, N>::type
/// IsmWorkspace<HashAccumulation, T, N>.

/// The Coord policy's workspace.
template <class T, int N>
struct WorkspaceType<Coord, T, N> { using type = IsmWorkspace<CoordAccumulation, T, N>; };
/// \typedef WorkspaceType<Coord, T, N>::type
/// IsmWorkspace<CoordAccumulation, T, N>.

/// The Map policy's workspace.
template <class T, int N>
struct WorkspaceType<Map, T, N> { using type = MapWorkspace<T, N>; };
/// \typedef WorkspaceType<Map, T, N>::type
/// MapWorkspace<T, N>.

/// The SortOnce policy's workspace.
template <class T, int N>
struct WorkspaceType<SortOnce, T, N> { using type = SortOnceWorkspace<T, N>; };
/// \typedef WorkspaceType<SortOnce, T, N>::type
/// SortOnceWorkspace<T, N>.

/// The workspace type of Policy (not Auto) for values T and N output levels.
template <class Policy, class T, int N>
using WorkspaceFor = typename WorkspaceType<Policy, T, N>::type;

/// True when Policy is one of the policy tags.
template <class Policy>
inline constexpr bool is_policy_v =
    std::is_same_v<Policy, Dense> || std::is_same_v<Policy, Bucket> || std::is_same_v<Policy, Hash> ||
    std::is_same_v<Policy, Coord> || std::is_same_v<Policy, Map> || std::is_same_v<Policy, SortOnce> ||
    std::is_same_v<Policy, Auto>;

/// One workspace per host thread (indexed by a Kokkos UniqueToken); they are not
/// movable, their arrays report to a meter they own.
template <class Policy, class T, int N>
class PerThread {
 public:
  /// `threads` workspaces, each made with `options`.
  PerThread(std::int64_t threads, const IsmOptions& options) {
    for (std::int64_t t = 0; t < threads; ++t) all_.push_back(std::make_unique<WorkspaceFor<Policy, T, N>>(options));
  }
  /// Workspace of thread `t`.
  WorkspaceFor<Policy, T, N>& operator[](std::int64_t t) { return *all_[t]; }
  /// Bytes allocated at peak, summed over the threads.
  std::int64_t peak_bytes() const {
    std::int64_t sum = 0;
    for (const auto& w : all_) sum += w->peak_bytes();
    return sum;
  }

 private:
  std::vector<std::unique_ptr<WorkspaceFor<Policy, T, N>>> all_;
};

/// Calls f(PolicyTag) with Auto resolved: Dense when `prefer_dense`, Hash otherwise.
template <class Policy, class F>
decltype(auto) with_policy(bool prefer_dense, F&& f) {
  static_assert(is_policy_v<Policy>, "Policy must be one of tessera::workspace::{Dense, Bucket, Hash, Coord, "
                                     "Map, SortOnce, Auto}");
  if constexpr (std::is_same_v<Policy, Auto>) {
    return prefer_dense ? f(Dense{}) : f(Hash{});
  } else {
    return f(Policy{});
  }
}

}  // namespace tessera::workspace
