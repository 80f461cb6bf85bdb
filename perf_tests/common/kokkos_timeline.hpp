#pragma once
// KokkosTimeline: one call seen from the host through Kokkos Tools callbacks, step by step, for
// machines without a system profiler: each kernel (launch to end), deep copy, fence, allocation
// and profiling region with its time, and the host time between them (allocations, library calls
// outside Kokkos). While callbacks are attached Kokkos fences around every kernel (its default
// for tools), so a kernel's time is its whole run and the steps add up to the call.
//
//   { KokkosTimeline timeline; call(); timeline.print(stdout, "add, whole call"); }
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tessera_bench {

class KokkosTimeline {
 public:
  /// Attaches the callbacks (one timeline at a time).
  KokkosTimeline() {
    events().clear();
    origin() = now();
    attach(true);
  }
  KokkosTimeline(const KokkosTimeline&) = delete;
  KokkosTimeline& operator=(const KokkosTimeline&) = delete;
  ~KokkosTimeline() { attach(false); }

  /// Detaches the callbacks and prints the steps: start (us from the timeline's start), the host
  /// time since the previous step ended, the step's own time, what it was; then the totals.
  void print(std::FILE* out, const char* title) {
    attach(false);
    const double end = now() - origin();
    std::fprintf(out, "\n%s: steps seen through Kokkos Tools (us)\n\n| start | host before | own | step |\n|---:|---:|---:|---|\n",
                 title);
    // Steps nest (the fence Kokkos runs at a kernel's end lies within the kernel): time is
    // counted once, up to the latest end seen so far.
    double covered = 0, in_steps = 0, between = 0;
    for (const Event& e : events()) {
      const double before = std::max(0.0, e.start - covered);
      std::fprintf(out, "| %.1f | %.1f | %.1f | %s |\n", e.start, before, e.own(), e.what.c_str());
      between += before;
      if (e.finish >= 0) in_steps += std::max(0.0, e.finish - std::max(e.start, covered));
      covered = std::max({covered, e.start, e.finish});
    }
    between += std::max(0.0, end - covered);
    std::fprintf(out, "\n%s: %.1f us in all, %.1f in kernels, copies and fences, %.1f on the host between them\n",
                 title, end, in_steps, between);
  }

 private:
  struct Event {
    double start;
    double finish;  ///< negative for a point event (allocation, region)
    std::string what;
    double own() const { return finish < 0 ? 0.0 : finish - start; }
  };

  static double now() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  static double& origin() {
    static double t = 0;
    return t;
  }
  static std::vector<Event>& events() {
    static std::vector<Event> list;
    return list;
  }
  static std::uint64_t open(std::string what) {
    const double t = now() - origin();
    events().push_back({t, t, std::move(what)});  // an end never seen leaves it of no length
    return events().size() - 1;
  }
  static void close(std::uint64_t id) {
    if (id < events().size()) events()[id].finish = now() - origin();
  }
  static void point(std::string what) { events().push_back({now() - origin(), -1.0, std::move(what)}); }

  static void begin_kernel(const char* name, std::uint32_t, std::uint64_t* id) { *id = open(std::string("kernel ") + name); }
  static void begin_fence(const char* name, std::uint32_t, std::uint64_t* id) { *id = open(std::string("fence ") + name); }
  static void end_kernel(std::uint64_t id) { close(id); }
  static void begin_copy(Kokkos::Tools::SpaceHandle, const char* to, const void*, Kokkos::Tools::SpaceHandle,
                         const char* from, const void*, std::uint64_t bytes) {
    copy_id() = open("deep_copy " + std::string(from) + " -> " + to + " (" + std::to_string(bytes) + " B)");
  }
  static void end_copy() { close(copy_id()); }
  static std::uint64_t& copy_id() {
    static std::uint64_t id = 0;
    return id;
  }
  static void allocated(Kokkos::Tools::SpaceHandle space, const char* label, const void*, std::uint64_t bytes) {
    point("allocated " + std::string(label) + " in " + space.name + " (" + std::to_string(bytes) + " B)");
  }
  static void deallocated(Kokkos::Tools::SpaceHandle space, const char* label, const void*, std::uint64_t bytes) {
    point("freeing " + std::string(label) + " in " + space.name + " (" + std::to_string(bytes) + " B)");
  }
  static void push_region(const char* name) { point(std::string("region ") + name); }

  /// Sets every callback of the timeline, or clears them.
  static void attach(bool on) {
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_begin_parallel_for_callback(on ? begin_kernel : nullptr);
    tools::set_end_parallel_for_callback(on ? end_kernel : nullptr);
    tools::set_begin_parallel_reduce_callback(on ? begin_kernel : nullptr);
    tools::set_end_parallel_reduce_callback(on ? end_kernel : nullptr);
    tools::set_begin_parallel_scan_callback(on ? begin_kernel : nullptr);
    tools::set_end_parallel_scan_callback(on ? end_kernel : nullptr);
    tools::set_begin_deep_copy_callback(on ? begin_copy : nullptr);
    tools::set_end_deep_copy_callback(on ? end_copy : nullptr);
    tools::set_begin_fence_callback(on ? begin_fence : nullptr);
    tools::set_end_fence_callback(on ? end_kernel : nullptr);
    tools::set_allocate_data_callback(on ? allocated : nullptr);
    tools::set_deallocate_data_callback(on ? deallocated : nullptr);
    tools::set_push_region_callback(on ? push_region : nullptr);
  }
};

}  // namespace tessera_bench
