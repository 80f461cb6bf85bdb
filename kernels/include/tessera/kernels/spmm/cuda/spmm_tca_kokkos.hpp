#pragma once
// Kokkos glue for TCA-SpMM: Views -> raw pointers, the per-matrix plan cache (with the kernels
// SpmmOptions::tune timed), and the Kokkos::Cuda instance's stream. Included by spmm.hpp only
// in CUDA builds that link tessera_kernels_cuda (TESSERA_HAVE_CUDA_KERNELS).
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include "tessera/core/error.hpp"
#include "tessera/kernels/spmm/cuda/spmm_tca.hpp"

namespace tessera::kernels::cuda {

template <class T>
constexpr bool tca_value_supported_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                       std::is_same_v<T, Kokkos::Experimental::half_t>;

template <class T>
constexpr TcaType tca_type_of() {
  if constexpr (std::is_same_v<T, float>) return TcaType::F32;
  else if constexpr (std::is_same_v<T, double>) return TcaType::F64;
  else return TcaType::F16;  // Kokkos::Experimental::half_t stores a __half
}

// Plans keyed by the row-offset and column-id arrays they were built from. An entry holds
// handles to both, so their addresses cannot be reused while the entry lives; entries whose
// arrays nobody else holds any more are dropped on the next lookup, and all entries at
// Kokkos::finalize. A plan depends on the sparsity pattern only (not on values or N): the
// row offsets, and the column ids where windows share columns (TcaPlan::build). The cache
// cannot see the arrays' contents: after rewriting a tensor's pos or crd in place, forget()
// its entry (tessera::spmm_forget_plan). Unmanaged Views (memory Kokkos does not own) are
// never cached, as their addresses may come back for another matrix unseen: each lookup
// builds their plan again.
class TcaPlanCache {
 public:
  // `stream`: the caller's; building a plan synchronizes the device, which a stream being
  // captured into a CUDA graph does not allow, so a miss during capture throws tessera::Error.
  template <class PosView, class CrdView>
  static std::shared_ptr<const TcaPlan> get(const PosView& pos, const CrdView& crd, std::int64_t rows,
                                            cudaStream_t stream = nullptr) {
    static_assert(std::is_same_v<typename PosView::non_const_value_type, int>, "TCA plans need int row offsets");
    static_assert(std::is_same_v<typename CrdView::non_const_value_type, int>, "TCA plans need int column ids");
    const bool managed = pos.use_count() > 0 && crd.use_count() > 0;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (const cudaError_t err = cudaStreamIsCapturing(stream, &capture); err != cudaSuccess)
      throw CudaError(std::string("tessera::spmm: cudaStreamIsCapturing failed on the execution space's stream: ") +
                      cudaGetErrorString(err));
    const bool capturing = capture != cudaStreamCaptureStatusNone;
    auto& self = instance();
    const Key key{pos.data(), crd.data()};
    {
      std::lock_guard<std::mutex> lock(self.mutex_);
      // Dropping an entry frees device memory, which invalidates a capture: not while capturing.
      for (auto it = self.entries_.begin(); !capturing && it != self.entries_.end();) {
        if (it->second.pos.use_count() <= 1 || it->second.crd.use_count() <= 1) it = self.entries_.erase(it);
        else ++it;
      }
      auto found = self.entries_.find(key);
      if (managed && found != self.entries_.end() && found->second.rows == rows &&
          found->second.pos.extent(0) == pos.extent(0) && found->second.crd.extent(0) == crd.extent(0))
        return found->second.plan;
    }
    if (capturing)
      throw Error(
          "tessera::spmm: the first call for a matrix builds its plan, which synchronizes the device and cannot run "
          "while the stream is being captured into a CUDA graph; call spmm (or spmm_choose_algorithm) for this matrix "
          "once before the capture");
    auto pos_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pos);
    auto crd_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), crd);
    auto plan = TcaPlan::build(pos_host.data(), rows, 0, 0, crd_host.data());
    if (!managed) return plan;
    std::lock_guard<std::mutex> lock(self.mutex_);
    self.entries_[key] = Entry{Kokkos::View<const int*, typename PosView::memory_space>(pos),
                               Kokkos::View<const int*, typename CrdView::memory_space>(crd), rows, plan, {}};
    return plan;
  }
  // Drops the entry of the matrix of pos and crd (its plan and tuned picks), so that the next
  // get() builds the plan from the arrays' current contents.
  template <class PosView, class CrdView>
  static void forget(const PosView& pos, const CrdView& crd) {
    auto& self = instance();
    std::lock_guard<std::mutex> lock(self.mutex_);
    self.entries_.erase(Key{pos.data(), crd.data()});
  }
  // tca_tune's pick for the matrix of pos and crd (an entry get() made), the shape of args
  // (value type, N, whether B is read in place, C's layout, TF32 allowed) and the L2 state:
  // timed on the first call for that shape and state and kept with the entry. tca_choose's
  // pick while `stream` is being captured into a graph (tuning synchronizes) or where get()
  // kept no entry.
  template <class PosView, class CrdView>
  static TcaKernel tuned(const PosView& pos, const CrdView& crd, const TcaPlan& plan, const TcaArgs& args,
                         bool allow_tf32, TcaTuneCache cache, cudaStream_t stream) {
    auto& self = instance();
    const Key key{pos.data(), crd.data()};
    const TuneKey shape{static_cast<int>(args.type), args.n,     tca_b_in_place(args), args.c_col_stride == 1,
                        allow_tf32,                    static_cast<int>(cache)};
    {
      std::lock_guard<std::mutex> lock(self.mutex_);
      const auto e = self.entries_.find(key);
      if (e == self.entries_.end()) return tca_choose(plan, args, allow_tf32);
      const auto t = e->second.tuned.find(shape);
      if (t != e->second.tuned.end()) return t->second;
    }
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (const cudaError_t err = cudaStreamIsCapturing(stream, &capture); err != cudaSuccess)
      throw CudaError(std::string("tessera::spmm: cudaStreamIsCapturing failed on the execution space's stream: ") +
                      cudaGetErrorString(err));
    if (capture != cudaStreamCaptureStatusNone) return tca_choose(plan, args, allow_tf32);
    const TcaKernel picked = tca_tune(plan, args, allow_tf32, stream, cache);  // unlocked: it synchronizes
    std::lock_guard<std::mutex> lock(self.mutex_);
    const auto e = self.entries_.find(key);
    if (e != self.entries_.end()) e->second.tuned[shape] = picked;
    return picked;
  }
  // Shapes tuned() has timed for the matrix of pos and crd.
  template <class PosView, class CrdView>
  static std::size_t tuned_shapes(const PosView& pos, const CrdView& crd) {
    auto& self = instance();
    std::lock_guard<std::mutex> lock(self.mutex_);
    const auto e = self.entries_.find(Key{pos.data(), crd.data()});
    return e == self.entries_.end() ? 0 : e->second.tuned.size();
  }
  static std::size_t size() {
    auto& self = instance();
    std::lock_guard<std::mutex> lock(self.mutex_);
    return self.entries_.size();
  }

 private:
  using Key = std::pair<const void*, const void*>;
  using TuneKey = std::tuple<int, std::int64_t, bool, bool, bool, int>;
  struct Entry {
    Kokkos::View<const int*, Kokkos::CudaSpace> pos, crd;
    std::int64_t rows;
    std::shared_ptr<const TcaPlan> plan;
    std::map<TuneKey, TcaKernel> tuned;
  };
  static TcaPlanCache& instance() {
    static TcaPlanCache* cache = [] {
      auto* c = new TcaPlanCache();  // never destroyed: Views must be released before finalize
      Kokkos::push_finalize_hook([c] {
        std::lock_guard<std::mutex> lock(c->mutex_);
        c->entries_.clear();
      });
      return c;
    }();
    return *cache;
  }
  std::mutex mutex_;
  std::map<Key, Entry> entries_;
};

template <class T, class PosView, class CrdView, class ValView, class BView, class CView>
TcaArgs make_tca_args(double alpha, const PosView& pos, const CrdView& crd, const ValView& vals, const BView& B,
                      double beta, const CView& C, std::int64_t rows, std::int64_t cols) {
  TcaArgs a{};
  a.type = tca_type_of<T>();
  a.rows = rows;
  a.cols = cols;
  a.n = static_cast<std::int64_t>(C.extent(1));
  a.pos = pos.data();
  a.crd = crd.data();
  a.vals = vals.data();
  a.B = DenseRef{B.data(), static_cast<std::int64_t>(B.stride(0)), static_cast<std::int64_t>(B.stride(1))};
  a.C = C.data();
  a.c_row_stride = static_cast<std::int64_t>(C.stride(0));
  a.c_col_stride = static_cast<std::int64_t>(C.stride(1));
  a.alpha = alpha;
  a.beta = beta;
  return a;
}

}  // namespace tessera::kernels::cuda
