// CUDA IPC halo transport. Setup failures (no peer access, handles that do not open in a
// container) make every rank fall back to MPI; failures after setup throw CudaError.
#include "tessera/core/dist/peer_exchange.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "tessera/core/dist/mpi_datatype.hpp"
#include "tessera/core/dist/scope_guard.hpp"
#include "tessera/core/error.hpp"

namespace tessera::dist {
namespace {

constexpr int kSetupTag = 7302, kPackedTag = 7303, kCopiedTag = 7304;

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess)
    throw CudaError(std::string("dist::PeerExchange: ") + call + ": " + cudaGetErrorString(status));
}

bool all_ranks(MPI_Comm comm, bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
  return all != 0;
}

void wait_all(std::vector<MPI_Request>& requests) {
  if (!requests.empty()) MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  requests.clear();
}

// Handles sent at setup; `ok` is false where the sender could not make them, so that the
// receiver does not try to open them (and every rank still gets its message).
template <class Handle>
struct Offer {
  int ok = 0;
  Handle handle{};
  std::int64_t row_offset = 0;
};

// Sends `to_send[i]` to `send_to[i]` and receives `received[j]` from `receive_from[j]`.
template <class Out, class In>
void swap_offers(MPI_Comm comm, const std::vector<int>& send_to, const std::vector<Out>& to_send,
                 const std::vector<int>& receive_from, std::vector<In>& received) {
  std::vector<MPI_Request> requests;
  received.assign(receive_from.size(), In{});
  for (std::size_t j = 0; j < receive_from.size(); ++j)
    MPI_Irecv(&received[j], sizeof(In), MPI_BYTE, receive_from[j], kSetupTag, comm, &requests.emplace_back());
  for (std::size_t i = 0; i < send_to.size(); ++i)
    MPI_Isend(&to_send[i], sizeof(Out), MPI_BYTE, send_to[i], kSetupTag, comm, &requests.emplace_back());
  wait_all(requests);
}

bool device_uuid(int device, cudaUUID_t& uuid) {
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) return false;
  uuid = properties.uuid;
  return true;
}

bool peer_disabled_by_environment() {
  const char* env = std::getenv("TESSERA_HALO_PEER");
  return env && std::string(env) == "0";
}

}  // namespace

PeerExchange::PeerExchange(MPI_Comm comm, std::shared_ptr<const ImportPlan> plan)
    : comm_(comm), plan_(std::move(plan)) {}

std::unique_ptr<PeerExchange> PeerExchange::try_create(MPI_Comm comm, std::shared_ptr<const ImportPlan> plan,
                                                       std::size_t row_bytes) {
  std::unique_ptr<PeerExchange> exchange(new PeerExchange(comm, std::move(plan)));
  if (!all_ranks(comm, !peer_disabled_by_environment() && exchange->neighbours_reachable())) return nullptr;
  const bool events = exchange->open_events();
  const bool buffers = exchange->open_buffers(row_bytes);
  if (!all_ranks(comm, events && buffers)) return nullptr;
  return exchange;
}

// Same node (the node's lowest rank as its name) and a GPU this process sees with peer access.
bool PeerExchange::neighbours_reachable() const {
  const int ranks = comm_size(comm_);
  const int leader = node_leader(comm_);
  std::vector<int> leaders(ranks);
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm_);

  int device = -1, devices = 0;
  cudaUUID_t mine{};
  const bool have_device = cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceCount(&devices) == cudaSuccess &&
                           device_uuid(device, mine);
  std::vector<cudaUUID_t> uuids(ranks);
  MPI_Allgather(&mine, sizeof(cudaUUID_t), MPI_BYTE, uuids.data(), sizeof(cudaUUID_t), MPI_BYTE, comm_);
  if (!have_device) return false;

  const auto reachable = [&](int rank) {
    if (leaders[rank] != leader) return false;
    for (int d = 0; d < devices; ++d) {
      cudaUUID_t uuid{};
      if (!device_uuid(d, uuid) || std::memcmp(&uuid, &uuids[rank], sizeof uuid) != 0) continue;
      int can = 0;
      return d == device || (cudaDeviceCanAccessPeer(&can, device, d) == cudaSuccess && can == 1);
    }
    return false;  // that rank's GPU is not visible here
  };
  for (const int rank : plan_->recv_ranks)
    if (!reachable(rank)) return false;
  for (const int rank : plan_->send_ranks)
    if (!reachable(rank)) return false;
  return true;
}

// Our "packed" event to the receivers, our "copied" event to the senders.
bool PeerExchange::open_events() {
  bool ok = true;
  cudaIpcEventHandle_t packed{}, copied{};
  try {
    const unsigned flags = cudaEventDisableTiming | cudaEventInterprocess;
    check(cudaEventCreateWithFlags(&packed_, flags), "cudaEventCreateWithFlags");
    check(cudaEventCreateWithFlags(&copied_, flags), "cudaEventCreateWithFlags");
    check(cudaEventCreateWithFlags(&ghosts_read_, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    check(cudaIpcGetEventHandle(&packed, packed_), "cudaIpcGetEventHandle");
    check(cudaIpcGetEventHandle(&copied, copied_), "cudaIpcGetEventHandle");
  } catch (const CudaError&) {
    ok = false;
  }
  using EventOffer = Offer<cudaIpcEventHandle_t>;
  std::vector<EventOffer> received;
  swap_offers(comm_, plan_->send_ranks, std::vector<EventOffer>(plan_->send_ranks.size(), {ok, packed, 0}),
              plan_->recv_ranks, received);
  sources_.assign(plan_->recv_ranks.size(), Source{});
  for (std::size_t q = 0; q < received.size(); ++q)
    ok = ok && received[q].ok && cudaIpcOpenEventHandle(&sources_[q].packed, received[q].handle) == cudaSuccess &&
         cudaStreamCreateWithFlags(&sources_[q].stream, cudaStreamNonBlocking) == cudaSuccess &&
         cudaEventCreateWithFlags(&sources_[q].copied, cudaEventDisableTiming) == cudaSuccess;
  swap_offers(comm_, plan_->recv_ranks, std::vector<EventOffer>(plan_->recv_ranks.size(), {ok, copied, 0}),
              plan_->send_ranks, received);
  receivers_copied_.assign(plan_->send_ranks.size(), nullptr);
  for (std::size_t q = 0; q < received.size(); ++q)
    ok = ok && received[q].ok && cudaIpcOpenEventHandle(&receivers_copied_[q], received[q].handle) == cudaSuccess;
  return ok;
}

// Allocates the send buffer for rows of `row_bytes` and opens the senders' buffers.
bool PeerExchange::open_buffers(std::size_t row_bytes) {
  bool ok = true;
  cudaIpcMemHandle_t handle{};
  const std::size_t bytes = static_cast<std::size_t>(plan_->sends()) * row_bytes;
  if (bytes > 0)
    ok = cudaMalloc(reinterpret_cast<void**>(&send_), bytes) == cudaSuccess &&
         cudaIpcGetMemHandle(&handle, send_) == cudaSuccess;
  capacity_ = row_bytes_ = row_bytes;
  using BufferOffer = Offer<cudaIpcMemHandle_t>;
  std::vector<BufferOffer> offers(plan_->send_ranks.size());
  for (std::size_t q = 0; q < offers.size(); ++q) offers[q] = {ok, handle, plan_->send_offsets[q]};
  std::vector<BufferOffer> received;
  swap_offers(comm_, plan_->send_ranks, offers, plan_->recv_ranks, received);
  for (std::size_t q = 0; q < received.size(); ++q) {
    void* opened = nullptr;
    ok = ok && received[q].ok &&
         cudaIpcOpenMemHandle(&opened, received[q].handle, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess;
    sources_[q].buffer = static_cast<char*>(opened);
    sources_[q].row_offset = received[q].row_offset;
  }
  return ok;
}

void* PeerExchange::send_buffer(std::size_t row_bytes) {
  if (row_bytes > capacity_) {
    // Nothing may still copy out of the old buffers when they go. Every rank grows in the same
    // call (the kernels calling the halo are collective), so all of them agree on the outcome.
    check(wait_for_receivers(), "cudaEventSynchronize");
    if (copies_recorded_) check(cudaEventSynchronize(copied_), "cudaEventSynchronize");
    check(release_sources(), "cudaIpcCloseMemHandle");
    if (send_) check(cudaFree(send_), "cudaFree");
    send_ = nullptr;
    if (!all_ranks(comm_, open_buffers(row_bytes)))
      throw CudaError("dist::PeerExchange: the send buffers for rows of " + std::to_string(row_bytes) +
                      " bytes could not be allocated or opened");
  }
  row_bytes_ = row_bytes;
  return send_;
}

void PeerExchange::before_pack(cudaStream_t stream) {
  wait_all(notes_out_);
  if (!copied_notes_.empty()) {
    wait_all(copied_notes_);
    for (cudaEvent_t copied : receivers_copied_) check(cudaStreamWaitEvent(stream, copied, 0), "cudaStreamWaitEvent");
  }
  check(cudaEventRecord(ghosts_read_, stream), "cudaEventRecord");
}

void PeerExchange::after_pack(cudaStream_t stream) {
  check(cudaEventRecord(packed_, stream), "cudaEventRecord");
  for (const int rank : plan_->send_ranks) {
    MPI_Isend(nullptr, 0, MPI_BYTE, rank, kPackedTag, comm_, &notes_out_.emplace_back());
    MPI_Irecv(nullptr, 0, MPI_BYTE, rank, kCopiedTag, comm_, &copied_notes_.emplace_back());
  }
  for (const int rank : plan_->recv_ranks)
    MPI_Irecv(nullptr, 0, MPI_BYTE, rank, kPackedTag, comm_, &packed_notes_.emplace_back());
}

void PeerExchange::receive(void* ghosts, cudaStream_t stream) {
  wait_all(packed_notes_);
  if (sources_.empty()) return;
  // One stream per sender, so that the copies from several GPUs use their links at once; the
  // first sender's stream then waits for the others and marks them all copied.
  const cudaStream_t joined = sources_.front().stream;
  for (std::size_t q = 0; q < sources_.size(); ++q) {
    const Source& source = sources_[q];
    const std::int64_t first = plan_->recv_offsets[q], rows = plan_->recv_offsets[q + 1] - first;
    check(cudaStreamWaitEvent(source.stream, ghosts_read_, 0), "cudaStreamWaitEvent");
    check(cudaStreamWaitEvent(source.stream, source.packed, 0), "cudaStreamWaitEvent");
    check(cudaMemcpyAsync(static_cast<char*>(ghosts) + first * row_bytes_, source.buffer + source.row_offset * row_bytes_,
                          rows * row_bytes_, cudaMemcpyDeviceToDevice, source.stream),
          "cudaMemcpyAsync");
    if (q == 0) continue;
    check(cudaEventRecord(source.copied, source.stream), "cudaEventRecord");
    check(cudaStreamWaitEvent(joined, source.copied, 0), "cudaStreamWaitEvent");
  }
  check(cudaEventRecord(copied_, joined), "cudaEventRecord");
  copies_recorded_ = true;
  check(cudaStreamWaitEvent(stream, copied_, 0), "cudaStreamWaitEvent");
  for (const int rank : plan_->recv_ranks)
    MPI_Isend(nullptr, 0, MPI_BYTE, rank, kCopiedTag, comm_, &notes_out_.emplace_back());
}

// Returns once the receivers have queued their copies of the last call and those have finished.
cudaError_t PeerExchange::wait_for_receivers() {
  if (copied_notes_.empty()) return cudaSuccess;
  wait_all(copied_notes_);
  cudaError_t status = cudaSuccess;
  for (cudaEvent_t copied : receivers_copied_) {
    const cudaError_t event = cudaEventSynchronize(copied);
    if (status == cudaSuccess) status = event;
  }
  return status;
}

// Closes the senders' buffers; returns the first failure.
cudaError_t PeerExchange::release_sources() {
  cudaError_t status = cudaSuccess;
  for (Source& source : sources_) {
    if (source.buffer) {
      const cudaError_t closed = cudaIpcCloseMemHandle(source.buffer);
      if (status == cudaSuccess) status = closed;
    }
    source.buffer = nullptr;
  }
  return status;
}

PeerExchange::~PeerExchange() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    wait_all(packed_notes_);
    wait_for_receivers();  // destructors do not throw: a failure here leaves nothing else to do
    wait_all(notes_out_);
  }
  if (copies_recorded_) cudaEventSynchronize(copied_);
  release_sources();
  for (Source& source : sources_) {
    for (cudaEvent_t event : {source.packed, source.copied})
      if (event) cudaEventDestroy(event);
    if (source.stream) cudaStreamDestroy(source.stream);
  }
  for (cudaEvent_t copied : receivers_copied_)
    if (copied) cudaEventDestroy(copied);
  for (cudaEvent_t event : {packed_, copied_, ghosts_read_})
    if (event) cudaEventDestroy(event);
  if (send_) cudaFree(send_);
}

}  // namespace tessera::dist
