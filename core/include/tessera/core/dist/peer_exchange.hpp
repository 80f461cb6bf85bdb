#pragma once
/// \file
/// PeerExchange: the halo's transport between GPUs of one node through CUDA IPC (built with CUDA
/// only). Each rank exports its send buffer and two interprocess events to its neighbours; a
/// receiver copies its ghost rows straight out of each sender's send buffer (peer copies over
/// NVLink or PCIe, on one side stream per sender, so that they overlap the interior work queued
/// before them and each other). MPI carries two empty notes per neighbour and call: "packed"
/// (sender to receiver) and "copied" (receiver to sender; the next pack waits on the GPU for the
/// copies). The host never waits for the GPU in a call.
#include <mpi.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/core/dist/import_plan.hpp"

namespace tessera::dist {

/// Halo transport through CUDA IPC between the ranks of one node (see the file's comment).
class PeerExchange {
 public:
  /// Collective over `comm`: an exchange for `plan` on every rank when each rank reaches all its
  /// neighbours this way (same node, GPUs with peer access or the same GPU, handles that open),
  /// rows of `row_bytes` to start with; null on every rank otherwise, or when the environment
  /// variable TESSERA_HALO_PEER is 0.
  static std::unique_ptr<PeerExchange> try_create(MPI_Comm comm, std::shared_ptr<const ImportPlan> plan,
                                                  std::size_t row_bytes);
  PeerExchange(const PeerExchange&) = delete;
  PeerExchange& operator=(const PeerExchange&) = delete;
  /// Waits for the receivers' copies out of the send buffer before freeing it.
  ~PeerExchange();

  /// The send buffer, (sends x row_bytes) in device memory. Every rank of the exchange asks for
  /// the same row_bytes in a call; where it grows, the new buffer's handle goes to the receivers.
  void* send_buffer(std::size_t row_bytes);
  /// Queues on `stream`, before the pack: wait for the receivers' copies of the last call. Marks
  /// the last call's ghost rows as read by what is queued so far.
  void before_pack(cudaStream_t stream);
  /// Queues on `stream`, after the pack: mark it, then tell the receivers.
  void after_pack(cudaStream_t stream);
  /// Waits (on the host) for every sender's note, queues the copies into `ghosts` (ghosts x
  /// row_bytes, device memory) and makes `stream` wait for them; tells the senders.
  void receive(void* ghosts, cudaStream_t stream);

 private:
  /// What a receiver keeps of one sender.
  struct Source {
    char* buffer = nullptr;           ///< the sender's send buffer, opened
    std::int64_t row_offset = 0;      ///< first row of ours in it
    cudaEvent_t packed = nullptr;     ///< the sender's "packed" event, opened
    cudaStream_t stream = nullptr;    ///< where its rows are copied: the senders' copies run side by side
    cudaEvent_t copied = nullptr;     ///< its copy done (local; the first sender's stream waits on the others')
  };

  PeerExchange(MPI_Comm comm, std::shared_ptr<const ImportPlan> plan);
  bool neighbours_reachable() const;
  bool open_events();
  bool open_buffers(std::size_t row_bytes);
  cudaError_t wait_for_receivers();
  cudaError_t release_sources();

  MPI_Comm comm_;
  std::shared_ptr<const ImportPlan> plan_;
  std::size_t row_bytes_ = 0, capacity_ = 0;  ///< bytes per row now; of the largest rows the buffer holds
  char* send_ = nullptr;
  cudaEvent_t packed_ = nullptr, copied_ = nullptr;  ///< ours, exported
  cudaEvent_t ghosts_read_ = nullptr;                ///< the last call's ghosts read by the caller's stream
  std::vector<Source> sources_;                      ///< one per plan_->recv_ranks
  std::vector<cudaEvent_t> receivers_copied_;        ///< the receivers' "copied" events, one per plan_->send_ranks
  std::vector<MPI_Request> packed_notes_, copied_notes_, notes_out_;
  bool copies_recorded_ = false;  ///< copied_ has been recorded (our copies may be in flight)
};

}  // namespace tessera::dist
