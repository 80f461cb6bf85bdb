#pragma once
/// \file
/// Halo<T, Space>: the ghost-row exchange of a row-distributed (multi)vector,
/// following an ImportPlan, with non-blocking MPI so that callers overlap it with
/// local work:
///
/// \code
///   halo.start(space, owned);   // pack the rows others need, post MPI_Irecv/MPI_Isend
///   halo.overlap([&] { ...interior work... });
///   auto ghosts = halo.finish(space);   // MPI_Waitall; (ghosts x k) rows in Space's memory
/// \endcode
///
/// Device memory moves by one of three transports (HaloTransport), picked once for all ranks:
/// peer copies between the GPUs of one node through CUDA IPC (peer_exchange.hpp) where every
/// rank reaches its neighbours that way; else device buffers handed to MPI where it is
/// CUDA-aware (cuda_aware.hpp); else pinned host staging buffers, copied on the execution
/// space's queue. On a device nothing in the exchange fences the queue: MPI's transports wait on
/// the host for the pack alone (StreamMarker) while the interior work queued after it runs; the
/// peer copies wait for it on the GPU.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "tessera/core/dist/cuda_aware.hpp"
#include "tessera/core/dist/import_plan.hpp"
#include "tessera/core/dist/mpi_datatype.hpp"
#include "tessera/core/dist/stream_marker.hpp"
#ifdef KOKKOS_ENABLE_CUDA
#include "tessera/core/dist/peer_exchange.hpp"
#endif
#include "tessera/core/error.hpp"

namespace tessera::dist {

/// How a halo moves its rows.
enum class HaloTransport {
  HostMemory,   ///< host buffers through MPI
  PeerCopies,   ///< GPU to GPU copies within a node, through CUDA IPC
  DeviceMpi,    ///< device buffers through a CUDA-aware MPI
  HostStaging,  ///< device buffers copied to pinned host memory for MPI and back
};

/// A short description of `transport` for logs and benchmark tables.
inline const char* describe(HaloTransport transport) {
  switch (transport) {
    case HaloTransport::HostMemory: return "host memory through MPI";
    case HaloTransport::PeerCopies: return "GPU peer copies (CUDA IPC)";
    case HaloTransport::DeviceMpi: return "device buffers through CUDA-aware MPI";
    case HaloTransport::HostStaging: return "staged through pinned host memory";
  }
  return "unknown";
}

namespace detail {

/// Queues on `space`: send(s, :) = owned(indices(s), :) for every row s of send.
template <class Space, class Indices, class Owned, class Send>
void pack_rows(const Space& space, const Indices& indices, const Owned& owned, const Send& send) {
  const std::int64_t k = static_cast<std::int64_t>(send.extent(1));
  // One row per iteration, not one entry split by e / k and e % k: a 64-bit division per
  // entry, or a 2-D MDRange, costs several times the plain loop on the host.
  Kokkos::parallel_for(
      "tessera::Halo::pack", Kokkos::RangePolicy<Space>(space, 0, static_cast<std::int64_t>(send.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t s) {
        for (std::int64_t c = 0; c < k; ++c) send(s, c) = owned(indices(s), c);
      });
}

}  // namespace detail

/// Ghost exchange of a distributed matrix: sends owned rows of x, receives ghost rows (see the file's comment).
template <class T, class Space>
class Halo {
 public:
  /// Kokkos device (execution and memory space) of the buffers.
  using device_type = Kokkos::Device<Space, typename Space::memory_space>;
  using block_view = Kokkos::View<T**, Kokkos::LayoutRight, device_type>;  ///< Rows of a block of k columns.
  /// Read-only rows of a block of k columns.
  using const_block_view = Kokkos::View<const T**, Kokkos::LayoutRight, device_type>;

  /// Collective over `comm`: exchange plan `plan`; picks the transport (see the file's comment)
  /// and allocates the send indices in Space's memory.
  Halo(MPI_Comm comm, std::shared_ptr<const ImportPlan> plan) : comm_(comm), plan_(std::move(plan)) {
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (peer_capable) peer_ = PeerExchange::try_create(comm_, plan_, sizeof(T));
#endif
    transport_ = host_memory ? HaloTransport::HostMemory
                 : peer()    ? HaloTransport::PeerCopies
                 : mpi_is_cuda_aware() ? HaloTransport::DeviceMpi
                                       : HaloTransport::HostStaging;
    staged_ = transport_ == HaloTransport::HostStaging;
    send_indices_ = Kokkos::View<std::int64_t*, device_type>("tessera::Halo::send_indices", plan_->sends());
    auto host = Kokkos::create_mirror_view(send_indices_);
    for (std::int64_t s = 0; s < plan_->sends(); ++s) host(s) = plan_->send_indices[s];
    Kokkos::deep_copy(send_indices_, host);
  }

  /// True when this rank neither sends nor receives anything.
  bool idle() const { return plan_->ghosts() == 0 && plan_->sends() == 0; }
  /// How this halo moves its rows (the same on every rank).
  HaloTransport transport() const { return transport_; }
  /// True when device memory goes through host staging buffers.
  bool staged() const { return staged_; }

  /// owned: (local rows x k). Posts the receives, queues the pack (and, staged, its copy to the
  /// host) on `space`, and returns; on host spaces the sends are posted too. On a device the
  /// sends wait for the pack in overlap(), after the interior work is queued behind it.
  void start(const Space& space, const const_block_view& owned) {
    start_packed(space, static_cast<std::int64_t>(owned.extent(1)),
                 [&](const block_view& send) { detail::pack_rows(space, send_indices_, owned, send); });
  }

  /// start() for rows that the caller packs: `pack(send)` queues on `space` the writing of
  /// `send` (sends x k), its row s for local row send_indices()(s). Every rank passes the same k.
  template <class Pack>
  void start_packed(const Space& space, std::int64_t k, Pack&& pack) {
    if (!requests_.empty() || peer_in_flight_)
      throw Error("Halo::start: the previous exchange is still in flight (start() without finish())");
    reserve(k);
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (peer_capable) {
      if (peer_) {
        send_ = block_view(static_cast<T*>(peer_->send_buffer(k * sizeof(T))), plan_->sends(), k);
        peer_->before_pack(space.cuda_stream());
        pack(send_);
        peer_->after_pack(space.cuda_stream());
        peer_space_ = space;
        peer_in_flight_ = true;
        return;
      }
    }
#endif
    requests_.assign(plan_->recv_ranks.size() + plan_->send_ranks.size(), MPI_REQUEST_NULL);
    receives_posted_ = false;
    // Device buffers handed to MPI may still be read by work queued before this call:
    // their receives wait for the pack, queued after that work, in post_sends().
    if (host_memory || staged_) post_receives();
    pack(send_);
    if (staged_) Kokkos::deep_copy(space, send_host_, send_);
    packed_.record(space);
    sends_posted_ = false;
    if constexpr (host_memory) post_sends();
  }

  /// The local rows sent, in the order of the send buffer (plan().send_indices in Space).
  const Kokkos::View<std::int64_t*, device_type>& send_indices() const { return send_indices_; }

  /// Runs `interior`, the work that overlaps the exchange started last, then posts the sends
  /// (once the pack queued before `interior` is done). Where it throws, the exchange is
  /// completed before the exception leaves: MPI would otherwise still own the buffers and the
  /// requests, and the next start() could not begin.
  template <class Work>
  void overlap(Work&& interior) {
    try {
      interior();
      post_sends();
    } catch (...) {
      complete();
      throw;
    }
  }

  /// Completes the exchange started last; returns (ghosts x k) in Space's memory, valid
  /// until the next start(). Staged ghosts are copied on `space`'s queue, not waited for.
  block_view finish(const Space& space) {
#ifdef KOKKOS_ENABLE_CUDA
    if (peer_in_flight_) peer_space_ = space;
#endif
    complete();
    if (staged_) {
      Kokkos::deep_copy(space, ghosts_, ghosts_host_);
      ghosts_copied_.record(space);
    }
    return ghosts_;
  }

  /// (rows x k) scratch, k of the last start(), kept between calls: the callers' product
  /// of the boundary rows lands here before it is added to the owned rows. (Allocated
  /// per call, its pages were faulted in again on every call.)
  block_view scratch(std::int64_t rows) {
    const std::int64_t size = rows * columns_;
    if (size > static_cast<std::int64_t>(scratch_storage_.extent(0)))
      scratch_storage_ = Kokkos::View<T*, device_type>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::Halo::scratch"), size);
    return block_view(scratch_storage_.data(), rows, columns_);
  }

 private:
  static constexpr int kTag = 7301;

  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
#ifdef KOKKOS_ENABLE_CUDA
  static constexpr bool peer_capable = std::is_same_v<typename Space::memory_space, Kokkos::CudaSpace>;
#endif
#ifdef KOKKOS_ENABLE_CUDA
  /// Staging buffers in pinned memory, so that their copies run on the stream asynchronously.
  using staging_memory = std::conditional_t<std::is_same_v<typename Space::memory_space, Kokkos::CudaSpace>,
                                            Kokkos::CudaHostPinnedSpace, Kokkos::HostSpace>;
#else
  using staging_memory = Kokkos::HostSpace;
#endif
  using staging_view = Kokkos::View<T**, Kokkos::LayoutRight, staging_memory>;

  /// Ends the exchange started last: MPI's requests, or the peer copies queued on the space of
  /// the last start() or finish().
  void complete() {
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (peer_capable) {
      if (peer_in_flight_) {
        peer_in_flight_ = false;
        peer_->receive(ghosts_.data(), peer_space_.cuda_stream());
        return;
      }
    }
#endif
    post_sends();
    wait();
  }

  bool peer() const {
#ifdef KOKKOS_ENABLE_CUDA
    return peer_ != nullptr;
#else
    return false;
#endif
  }

  void post_receives() {
    receives_posted_ = true;
    ghosts_copied_.wait();  // MPI writes the staging buffer the last finish() copied from
    const std::int64_t k = columns_;
    T* const ghost_data = staged_ ? ghosts_host_.data() : ghosts_.data();
    for (std::size_t q = 0; q < plan_->recv_ranks.size(); ++q) {
      const std::int64_t from = plan_->recv_offsets[q] * k;
      MPI_Irecv(ghost_data + from, mpi_count(plan_->recv_offsets[q + 1] * k - from, "halo receive"),
                mpi_datatype<T>(), plan_->recv_ranks[q], kTag, comm_, &requests_[q]);
    }
  }

  void post_sends() {
    if (sends_posted_) return;
    sends_posted_ = true;
    packed_.wait();
    if (!receives_posted_) post_receives();
    const std::int64_t k = columns_;
    T* const send_data = staged_ ? send_host_.data() : send_.data();
    std::size_t r = plan_->recv_ranks.size();
    for (std::size_t q = 0; q < plan_->send_ranks.size(); ++q, ++r) {
      const std::int64_t from = plan_->send_offsets[q] * k;
      MPI_Isend(send_data + from, mpi_count(plan_->send_offsets[q + 1] * k - from, "halo send"), mpi_datatype<T>(),
                plan_->send_ranks[q], kTag, comm_, &requests_[r]);
    }
  }

  void wait() {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
  }

  /// Buffers for k columns, kept between calls. Their storage keeps the largest k seen,
  /// so that calls alternating between vectors (k = 1) and multivectors reshape it
  /// instead of reallocating it on every switch.
  void reserve(std::int64_t k) {
    if (k == columns_) return;
    const std::int64_t sends = plan_->sends(), ghosts = plan_->ghosts();
    if (k > capacity_) {
      capacity_ = k;
      using storage = Kokkos::View<T*, device_type>;
      if (!peer())  // the peer transport owns the send buffer, which it exports
        send_storage_ = storage(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::Halo::send"), sends * k);
      ghost_storage_ = storage(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::Halo::ghosts"), ghosts * k);
      if (staged_) {
        using staging = Kokkos::View<T*, staging_memory>;
        send_host_storage_ = staging(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::Halo::send_staging"),
                                     sends * k);
        ghost_host_storage_ = staging(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::Halo::ghost_staging"), ghosts * k);
      }
    }
    columns_ = k;
    send_ = block_view(send_storage_.data(), sends, k);
    ghosts_ = block_view(ghost_storage_.data(), ghosts, k);
    if (staged_) {
      send_host_ = staging_view(send_host_storage_.data(), sends, k);
      ghosts_host_ = staging_view(ghost_host_storage_.data(), ghosts, k);
    }
  }

  MPI_Comm comm_;
  std::shared_ptr<const ImportPlan> plan_;
  HaloTransport transport_ = HaloTransport::HostMemory;
  bool staged_ = false;
  bool peer_in_flight_ = false;  ///< a peer exchange was started and not completed
  std::int64_t columns_ = -1;  ///< k of the current views
  std::int64_t capacity_ = 0;  ///< largest k the storage holds
  Kokkos::View<std::int64_t*, device_type> send_indices_;
  Kokkos::View<T*, device_type> send_storage_, ghost_storage_, scratch_storage_;
  Kokkos::View<T*, staging_memory> send_host_storage_, ghost_host_storage_;
  block_view send_, ghosts_;  ///< (sends x k), (ghosts x k) views of the storage
  staging_view send_host_, ghosts_host_;
  std::vector<MPI_Request> requests_;
  bool receives_posted_ = true, sends_posted_ = true;
  StreamMarker<Space> packed_;         ///< end of the last pack (and its copy to the host)
  StreamMarker<Space> ghosts_copied_;  ///< end of the last copy out of the ghost staging buffer
#ifdef KOKKOS_ENABLE_CUDA
  Space peer_space_;  ///< where the peer exchange in flight completes
  /// Declared last so that it goes first: it waits for its copies into the ghost rows.
  std::unique_ptr<PeerExchange> peer_;
#endif
};

}  // namespace tessera::dist
