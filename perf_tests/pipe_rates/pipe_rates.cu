// What an SM's FP32 pipe (FFMA) and its FP64 tensor cores (DMMA) sustain, alone and issued
// together by the same warps. A question for fp32 kernels bound by FFMA issue (the VNM SpMM):
// products of fp32 inputs are exact in fp64, so DMMA could take part of an fp32 product's work
// without losing accuracy, if its pipe runs beside the FFMA one.
// Each warp runs `trips` trips of a loop held in registers (no memory traffic): a trip is the
// 8 x 16 outer product of an SGEMM-like thread tile (128 FFMAs, one row per step) and `kDmmas`
// DMMAs of one shape on 8 independent accumulator tiles, spread over the 8 steps or issued after
// them; with `kConvert` each DMMA's fp64 operands are converted from fp32 registers first
// (cvt.f64.f32), as a kernel that stages fp32 data must convert what it loads. Every
// configuration runs in this process on the same GPU, one block per SM; rates from CUDA events
// (median of 5 launches of about 2 ms) and the SM clock read by the kernel (clock64 over
// globaltimer).
// Usage: pipe_rates   (prints a markdown table; CMake target pipe_rates, sm_90 or newer)
#include <cuda_runtime.h>

#include <cstdio>
#include <exception>

#include "../common/event_timing.hpp"
#include "../common/harness_check.hpp"

enum Shape { M8N8K4, M16N8K4, M16N8K8, M16N8K16 };
template <Shape S> struct Dmma;
// A and B fragment sizes per thread (doubles); FMAs per warp instruction.
template <> struct Dmma<M8N8K4> { static constexpr int a = 1, b = 1, fmas = 8 * 8 * 4; };
template <> struct Dmma<M16N8K4> { static constexpr int a = 2, b = 1, fmas = 16 * 8 * 4; };
template <> struct Dmma<M16N8K8> { static constexpr int a = 4, b = 2, fmas = 16 * 8 * 8; };
template <> struct Dmma<M16N8K16> { static constexpr int a = 8, b = 4, fmas = 16 * 8 * 16; };

template <Shape S>
__device__ __forceinline__ void dmma(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
  if constexpr (S == M8N8K4)
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d[0]), "+d"(d[1]) : "d"(a[0]), "d"(b[0]));
  else if constexpr (S == M16N8K4)
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a[0]), "d"(a[1]), "d"(b[0]));
  else if constexpr (S == M16N8K8)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
                 "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                   "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}

struct Clocks { long long cycles, ns; };

// kRows FFMA rows of 16 per step (0: none); kDmmas DMMAs per trip of 8 steps, spread evenly
// over the steps or, with kBurst, all after the last step (as a kernel that issues a tile's
// DMMAs after its FFMAs).
template <int kRows, Shape S, int kDmmas, bool kConvert, bool kBurst = false>
__global__ void __launch_bounds__(256, 1) pipes(int trips, float seed, float* out, Clocks* clocks) {
  static_assert(kDmmas == 0 || 8 % kDmmas == 0 || kDmmas % 8 == 0, "DMMAs spread evenly over the 8 steps");
  constexpr int kF = kRows > 0 ? kRows : 1;
  constexpr int kEvery = kBurst ? 8 : kDmmas >= 8 ? 1 : (kDmmas > 0 ? 8 / kDmmas : 8);
  constexpr int kPerStep = kBurst ? kDmmas : kDmmas >= 8 ? kDmmas / 8 : kDmmas > 0 ? 1 : 0;
  constexpr int kAt = kBurst ? 7 : 0;  // the step (mod kEvery) that issues DMMAs
  float a[8], b[kF], acc[8][kF];
  float fa[8], fb[4];  // fp32 sources of the converted operands
  double da[8], db[4], dacc[8][4];
  for (int i = 0; i < 8; ++i) a[i] = seed + threadIdx.x * 1e-6f * i, fa[i] = seed * i, da[i] = 1.0 + i * 1e-9;
  for (int j = 0; j < kF; ++j) b[j] = 0.999f - j * 1e-7f;
  for (int j = 0; j < 4; ++j) fb[j] = seed - j, db[j] = 0.5 - j * 1e-9;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < kF; ++j) acc[i][j] = 0.f;
  for (int t = 0; t < 8; ++t)
    for (int j = 0; j < 4; ++j) dacc[t][j] = 0.0;
  Clocks c0;
  c0.cycles = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(c0.ns));
  for (int trip = 0; trip < trips; ++trip) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
      for (int j = 0; j < kRows; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      if (i % kEvery == kAt) {
#pragma unroll
        for (int r = 0; r < kPerStep; ++r) {
          if constexpr (kConvert) {
#pragma unroll
            for (int x = 0; x < Dmma<S>::a; ++x) da[x] = static_cast<double>(fa[(x + i) % 8]);
#pragma unroll
            for (int x = 0; x < Dmma<S>::b; ++x) db[x] = static_cast<double>(fb[(x + r) % 4]);
          }
          dmma<S>(dacc[(i / kEvery * kPerStep + r) % 8], da, db);
        }
      }
    }
    if constexpr (kConvert) {
      // New fp32 sources every trip, so the conversions cannot be hoisted: one bit flipped by an
      // integer XOR (12 per trip, not on the FP32 pipe). FFMA accumulators as sources would tie
      // each conversion to the FFMAs around it (the FFMA that next writes one waits until the
      // conversion has read it), which a kernel converting loaded data does not pay.
#pragma unroll
      for (int x = 0; x < 8; ++x) fa[x] = __int_as_float(__float_as_int(fa[x]) ^ 1);
#pragma unroll
      for (int x = 0; x < 4; ++x) fb[x] = __int_as_float(__float_as_int(fb[x]) ^ 1);
    }
  }
  Clocks c1;
  c1.cycles = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(c1.ns));
  float s = 0.f;
  for (int t = 0; t < 8; ++t)
    for (int j = 0; j < 4; ++j) s += static_cast<float>(dacc[t][j]);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < kRows; ++j) s += acc[i][j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0 && blockIdx.x == 0) *clocks = {c1.cycles - c0.cycles, c1.ns - c0.ns};
}

const char* shape_name(Shape s) {
  return s == M8N8K4 ? "m8n8k4" : s == M16N8K4 ? "m16n8k4" : s == M16N8K8 ? "m16n8k8" : "m16n8k16";
}

struct Device { int sms; float* out; Clocks* clocks; };

// One row of the table: FMAs per SM per clock, and TFLOP/s of each pipe.
template <int kRows, Shape S, int kDmmas, bool kConvert, bool kBurst = false>
void run(const Device& dev, int warps, double* ffma_only) {
  auto kernel = pipes<kRows, S, kDmmas, kConvert, kBurst>;
  const int ffma_per_trip = 8 * kRows * 32, dmma_per_trip = kDmmas * Dmma<S>::fmas;  // FMAs per warp
  // about 2 ms per launch whatever the mix (clocks per trip if the two pipes did not overlap:
  // four FFMA issues per clock, 128 DMMA FMAs per clock)
  const double clocks_per_trip = warps * (8.0 * kRows / 4 + kDmmas * Dmma<S>::fmas / 128.0);
  const int trips = static_cast<int>(2.0e-3 * 1.9e9 / clocks_per_trip);
  const double ms = median_event_ms(
      [&] {
        kernel<<<dev.sms, warps * 32>>>(trips, 1.0f, dev.out, dev.clocks);
        HARNESS_CHECK(cudaGetLastError());
      },
      EventTiming{1, 5, 1, nullptr});
  Clocks c{};
  HARNESS_CHECK(cudaMemcpy(&c, dev.clocks, sizeof c, cudaMemcpyDeviceToHost));
  const double ghz = static_cast<double>(c.cycles) / static_cast<double>(c.ns), seconds = ms * 1e-3;
  const double ffma = static_cast<double>(ffma_per_trip) * trips * warps, dm = static_cast<double>(dmma_per_trip) * trips * warps;
  const double per_clock = (ffma + dm) / (seconds * ghz * 1e9);  // FMAs per SM per clock
  if (kDmmas == 0 && kRows > 0) *ffma_only = per_clock;
  char what[128];
  if (kRows == 0) std::snprintf(what, sizeof what, "%s only%s", shape_name(S), kConvert ? ", operands converted" : "");
  else if (kDmmas == 0) std::snprintf(what, sizeof what, "FFMA only (128 per trip)");
  else std::snprintf(what, sizeof what, "128 FFMA + %d %s per trip%s%s", kDmmas, shape_name(S),
                     kBurst ? " (after the FFMAs)" : "", kConvert ? ", operands converted" : "");
  std::printf("| %-52s | %d | %4.0f%% | %.2f | %6.1f | %6.1f | %6.1f | %5.1f | %.2fx |\n", what, warps,
              100.0 * dm / (ffma + dm), ghz, 2 * ffma * dev.sms / seconds * 1e-12, 2 * dm * dev.sms / seconds * 1e-12,
              2 * (ffma + dm) * dev.sms / seconds * 1e-12, per_clock, per_clock / *ffma_only);
}

int main() try {
  cudaDeviceProp prop{};
  HARNESS_CHECK(cudaGetDeviceProperties(&prop, 0));
  Device dev{prop.multiProcessorCount, nullptr, nullptr};
  HARNESS_CHECK(cudaMalloc(&dev.out, sizeof(float) * dev.sms * 256));
  HARNESS_CHECK(cudaMalloc(&dev.clocks, sizeof(Clocks)));
  std::printf("# %s, %d SMs, one block per SM\n\n", prop.name, dev.sms);
  std::printf("| loop | warps per SM | DMMA share of FMAs | SM GHz | FFMA TFLOP/s | DMMA TFLOP/s | total TFLOP/s | FMAs per SM per clock | over FFMA only |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int warps : {8, 4}) {
    double base = 0;
    run<16, M16N8K4, 0, false>(dev, warps, &base);
    run<0, M8N8K4, 8, false>(dev, warps, &base);
    run<0, M16N8K4, 8, false>(dev, warps, &base);
    run<0, M16N8K8, 8, false>(dev, warps, &base);
    run<0, M16N8K16, 8, false>(dev, warps, &base);
    run<16, M16N8K4, 2, false>(dev, warps, &base);
    run<16, M16N8K4, 4, false>(dev, warps, &base);
    run<16, M16N8K4, 8, false>(dev, warps, &base);
    run<16, M16N8K8, 2, false>(dev, warps, &base);
    run<16, M16N8K8, 4, false>(dev, warps, &base);
    run<16, M16N8K16, 1, false>(dev, warps, &base);
    run<16, M16N8K16, 2, false>(dev, warps, &base);
    run<16, M16N8K4, 4, true>(dev, warps, &base);
    run<16, M16N8K4, 8, true>(dev, warps, &base);
    run<16, M16N8K8, 4, true>(dev, warps, &base);
    run<16, M16N8K16, 2, true>(dev, warps, &base);
    run<16, M16N8K4, 8, false, true>(dev, warps, &base);
    run<16, M16N8K4, 8, true, true>(dev, warps, &base);
  }
  HARNESS_CHECK(cudaFree(dev.out));
  HARNESS_CHECK(cudaFree(dev.clocks));
  return 0;
} catch (const std::exception& e) {
  return harness_error(e.what());
}
