// VNM SpMM (fp32, CUDA cores) vs cuBLAS SGEMM (CUBLAS_DEFAULT_MATH: TF32 off), same process,
// same device data: B is a random VNM matrix (L = 32 unless --l), cuBLAS multiplies its dense
// decoding. C = A (m x k) * B (k x n), all row-major (--col-major: A and C column-major, for
// both). Every shape also compares our C with cuBLAS's (relative Frobenius error, printed).
// Timing: CUDA events, warm-ups then the median of --reps runs, cuBLAS's and ours interleaved.
// Shapes: 4096^3, then the LLM linear-layer set (m in {256..4096} x 20 (n, k) pairs).
// Sparsities: 16:32, 12:32, 8:32, 4:32 (50, 62.5, 75, 87.5 %).
// Options: kUsage below (vnm_bench --help).
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../common/event_timing.hpp"
#include "tessera/core/command_line.hpp"
#include "vnm_harness.hpp"

namespace kc = tessera::kernels::cuda;
using namespace vnm_harness;

#define CUBLAS_CHECK(expr)                                                             \
  do {                                                                                 \
    const cublasStatus_t s_ = (expr);                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS)                                                   \
      throw std::runtime_error(std::string(#expr) + ": cublas status " + std::to_string(s_)); \
  } while (0)

namespace {

int reps = 7;
// Medians of `reps` single calls of each operation after 2 warm-ups, their samples interleaved
// (median_event_ms_interleaved: both see the same clock and power state of the GPU).
std::vector<double> time_ms(const std::vector<std::function<void()>>& ops) {
  return median_event_ms_interleaved(ops, EventTiming{2, reps, 1, nullptr});
}

__global__ void fill_uniform(float* x, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
    x[i] = (h >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}

// Dense k x n decoding of vals/meta (B zeroed beforehand).
__global__ void scatter_vnm(const float* vals, const std::uint8_t* meta, std::int64_t stored_rows, std::int64_t n,
                            int N, int M, int L, float* B) {
  const std::int64_t total = stored_rows * n, groups = n / L;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total; i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = i / n, j = i % n;
    B[((r / N) * M + meta[r * groups + j / L]) * n + j] = vals[i];
  }
}

// Sums of (got - ref)^2 and ref^2 (NaN in got counts as infinite error).
__global__ void error_sums(const float* got, const float* ref, std::size_t n, double* sums) {
  double diff = 0, norm = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const double d = double(got[i]) - ref[i];
    diff += isnan(got[i]) ? INFINITY : d * d;
    norm += double(ref[i]) * ref[i];
  }
  atomicAdd(&sums[0], diff);
  atomicAdd(&sums[1], norm);
}

void fill(float* x, std::size_t n, unsigned seed) {
  fill_uniform<<<1024, 256>>>(x, n, seed);
  HARNESS_CHECK(cudaGetLastError());
}

struct Row {
  std::int64_t m, n, k;
  int N, M;
  double ours_ms, cublas_ms, err;
  std::string launch;
};

constexpr const char* kUsage =
    "usage: vnm_bench [--reps R] [--only-4096] [--shape MxNxK]... [--l L] [--layout auto|plain|packed]\n"
    "                 [--copier auto|producer|warp0] [--a-staging auto|panels|row-boxes] [--sweep] [--col-major]\n"
    "  --shape replaces the shape list (repeatable; k a multiple of 32, n of L); --copier forces who\n"
    "  issues the copies (VnmCopier: the producer warpgroup needs a compute capability 9.0 device);\n"
    "  --a-staging where row-major A comes from (VnmAStaging; row boxes only where they apply).\n"
    "  --sweep also times every (row tile, split-K) launch per case and prints them as \"sweep\" lines\n"
    "  after the table (the data the launch model's constants are read from).\n";

}  // namespace

int main(int argc, char** argv) {
  bool only_4096 = false;
  int L = 32;
  std::string layout = "auto", copier = "auto", a_staging = "auto";
  bool col_major = false;
  std::vector<std::array<std::int64_t, 3>> only_shapes;
  bool sweep = false;
  const auto status = tessera::walk_command_line("vnm_bench", [&] {
    for (tessera::CommandLine cl(argc, argv, kUsage); cl.next();) {
      if (cl.is("--reps")) reps = static_cast<int>(cl.integer(1, 1000000));
      else if (cl.is("--only-4096")) only_4096 = true;
      else if (cl.is("--l")) L = cl.int_value();
      else if (cl.is("--layout")) layout = cl.text();
      else if (cl.is("--copier")) copier = cl.text();
      else if (cl.is("--a-staging")) a_staging = cl.text();
      else if (cl.is("--sweep")) sweep = true;
      else if (cl.is("--col-major")) col_major = true;
      else if (cl.is("--shape")) {
        const auto v = cl.int64_list('x');
        if (v.size() != 3 || v[0] < 1 || v[1] < 1 || v[2] < 1)
          throw tessera::Error("--shape wants MxNxK with three positive extents");
        only_shapes.push_back({v[0], v[1], v[2]});
      }
      else cl.reject();
    }
  });
  if (status) return *status;
  if (L != 4 && L != 8 && L != 16 && L != 32 && L != 64) {
    std::fprintf(stderr, "vnm_bench: --l must be 4, 8, 16, 32 or 64\n");
    return 2;
  }
  // B is generated as whole windows and column groups (scatter_vnm): other shapes are
  // vnm_check's business.
  for (const auto& s : only_shapes)
    if (s[2] % 32 != 0 || s[1] % L != 0) {
      std::fprintf(stderr, "vnm_bench: --shape %lldx%lldx%lld: k must be a multiple of 32 and n of L = %d\n",
                   (long long)s[0], (long long)s[1], (long long)s[2], L);
      return 2;
    }
  if (a_staging != "auto" && a_staging != "panels" && a_staging != "row-boxes") {
    std::fprintf(stderr, "vnm_bench: --a-staging must be auto, panels or row-boxes\n");
    return 2;
  }
  if (layout != "auto" && layout != "plain" && layout != "packed") {
    std::fprintf(stderr, "vnm_bench: --layout must be auto, plain or packed\n");
    return 2;
  }
  if (copier != "auto" && copier != "producer" && copier != "warp0") {
    std::fprintf(stderr, "vnm_bench: --copier must be auto, producer or warp0\n");
    return 2;
  }
  try {
    cudaDeviceProp prop;
    HARNESS_CHECK(cudaGetDeviceProperties(&prop, 0));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    std::printf("# VNM SpMM vs cuBLAS SGEMM on %s (%d SMs), L = %d, layout %s, copier %s, A and C %s, median of %d reps\n\n",
                prop.name, prop.multiProcessorCount, L, layout.c_str(), copier.c_str(),
                col_major ? "column-major" : "row-major", reps);

    std::vector<std::array<std::int64_t, 3>> shapes = {{4096, 4096, 4096}};  // m, n, k
    if (!only_shapes.empty()) {
      shapes = only_shapes;
    } else if (!only_4096) {
      const std::int64_t nk[][2] = {{2048, 2048},  {6144, 2048},  {2048, 5632},  {5632, 2048},  {4096, 4096},
                                    {12288, 4096}, {4096, 11008}, {11008, 4096}, {5120, 5120},  {15360, 5120},
                                    {5120, 13824}, {13824, 5120}, {6656, 6656},  {19968, 6656}, {6656, 17920},
                                    {17920, 6656}, {8192, 8192},  {24576, 8192}, {8192, 22016}, {22016, 8192}};
      for (std::int64_t m : {256, 512, 1024, 2048, 4096})
        for (const auto& p : nk) shapes.push_back({m, p[0], p[1]});
    }
    const int kept[] = {16, 12, 8, 4};
    std::vector<Row> rows;
    std::vector<std::string> sweep_lines;
    std::mt19937_64 rng(7);
    DeviceBuffer<double> sums(2);
    for (const auto& s : shapes) {
      const std::int64_t m = s[0], n = s[1], k = s[2];
      DeviceBuffer<float> A(m * k), Bd(k * n), C(m * n), Cref(m * n);
      fill(A.ptr, A.count, 1);
      for (int N : kept) {
        const tessera::VnmPattern p{N, 32, L};
        const auto e = tessera::vnm_extents(k, n, p);
        std::vector<std::uint8_t> meta(e.stored_rows * e.groups);
        std::vector<int> pos(p.m);
        for (std::int64_t w = 0; w < e.windows; ++w)
          for (std::int64_t g = 0; g < e.groups; ++g) {
            for (int d = 0; d < p.m; ++d) pos[d] = d;
            for (int d = 0; d < p.n; ++d) std::swap(pos[d], pos[d + rng() % (p.m - d)]);
            std::sort(pos.begin(), pos.begin() + p.n);
            for (int d = 0; d < p.n; ++d) meta[(w * p.n + d) * e.groups + g] = static_cast<std::uint8_t>(pos[d]);
          }
        const bool packed = layout == "packed" || (layout == "auto" && kc::vnm_prefers_packed(p.n, p.m, p.l));
        DeviceVnm B(p, e, meta, packed);
        fill(B.vals.ptr, B.vals.count, 100 + N);
        DeviceBuffer<std::uint8_t> dmeta(meta.size());
        dmeta.upload(meta);
        HARNESS_CHECK(cudaMemset(Bd.ptr, 0, Bd.count * sizeof(float)));
        scatter_vnm<<<1024, 256>>>(B.vals.ptr, dmeta.ptr, e.stored_rows, n, p.n, p.m, p.l, Bd.ptr);
        HARNESS_CHECK(cudaGetLastError());
        const float one = 1.f, zero = 0.f;
        auto cublas = [&] {
          if (col_major)  // B row-major is B^T column-major
            CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &one, A.ptr, m, Bd.ptr, n, &zero,
                                     Cref.ptr, m));
          else  // row-major C = A B  <=>  column-major C^T = B^T A^T
            CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, Bd.ptr, n, A.ptr, k, &zero,
                                     Cref.ptr, n));
        };
        auto args = B.args(A.ptr, m, C.ptr);
        if (col_major) {
          args.a_col_major = args.c_col_major = true;
          args.lda = args.ldc = m;
        }
        auto launch = kc::vnm_choose_launch(args);
        if (copier != "auto")
          launch.copier = copier == "producer" ? kc::VnmCopier::ProducerWarpgroup : kc::VnmCopier::ComputingWarp;
        if (a_staging != "auto")  // the launch column names what runs: row boxes only where they apply
          launch.a_staging = a_staging == "row-boxes" && kc::vnm_row_boxes_apply(args) ? kc::VnmAStaging::RowBoxes
                                                                                       : kc::VnmAStaging::Panels;
        auto ours = [&] { kc::vnm_spmm(args, nullptr, &launch); };
        HARNESS_CHECK(cudaMemset(C.ptr, 0xff, C.count * sizeof(float)));
        const std::vector<double> times = time_ms({cublas, ours});
        const double cublas_ms = times[0], ms = times[1];
        HARNESS_CHECK(cudaMemset(sums.ptr, 0, 2 * sizeof(double)));
        error_sums<<<1024, 256>>>(C.ptr, Cref.ptr, C.count, sums.ptr);
        HARNESS_CHECK(cudaGetLastError());
        const auto s2 = sums.download();
        rows.push_back({m, n, k, N, 32, ms, cublas_ms, std::sqrt(s2[0] / s2[1]),
                        launch.describe() + (packed ? " packed" : " plain")});
        if (sweep) {
          const std::pair<kc::VnmRowTile, int> forced[] = {
              {kc::VnmRowTile::Rows128, 1}, {kc::VnmRowTile::Rows128, 2},  {kc::VnmRowTile::Rows128, 3},
              {kc::VnmRowTile::Rows128, 4}, {kc::VnmRowTile::Rows128, 5},  {kc::VnmRowTile::Rows128, 6},
              {kc::VnmRowTile::Rows128, 8}, {kc::VnmRowTile::Rows128, 10}, {kc::VnmRowTile::Rows128, 12},
              {kc::VnmRowTile::Rows128, 16}, {kc::VnmRowTile::Rows64, 1},  {kc::VnmRowTile::Rows64, 2},
              {kc::VnmRowTile::Rows64, 4},  {kc::VnmRowTile::Rows64, 8}};
          for (const auto& [tile, split] : forced) {
            if (split > 1 && split > args.max_tile_stages) continue;  // the kernel would clamp it
            kc::VnmLaunch f = launch;
            f.rows = tile, f.split_k = split;
            const double f_ms = median_event_ms([&] { kc::vnm_spmm(args, nullptr, &f); }, EventTiming{1, 5, 1, nullptr});
            char line[256];
            std::snprintf(line, sizeof line, "sweep %lld %lld %lld %d stages %lld rows %d split %d ms %.4f auto_rows %d auto_split %d auto_ms %.4f",
                          (long long)m, (long long)n, (long long)k, N, (long long)args.max_tile_stages,
                          tile == kc::VnmRowTile::Rows128 ? 128 : 64, split, f_ms,
                          launch.rows == kc::VnmRowTile::Rows128 ? 128 : 64, launch.split_k, ms);
            sweep_lines.push_back(line);
          }
        }
        const auto& r = rows.back();
        std::fprintf(stderr, "m=%lld n=%lld k=%lld %d:32 ours %.3f ms cublas %.3f ms speedup %.2f err %.1e\n",
                     (long long)m, (long long)n, (long long)k, N, ms, cublas_ms, cublas_ms / ms, r.err);
      }
    }
    std::printf("| m | n | k | N:M | ours ms | ours GFLOP/s (dense-equiv.) | cuBLAS ms | cuBLAS GFLOP/s | speedup | ideal M/N | %% of ideal | rel. err vs cuBLAS | launch |\n");
    std::printf("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (const auto& r : rows) {
      const double flop = 2.0 * r.m * r.n * r.k, sp = r.cublas_ms / r.ours_ms, ideal = double(r.M) / r.N;
      std::printf("| %lld | %lld | %lld | %d:%d | %.3f | %.0f | %.3f | %.0f | %.2f | %.2f | %.0f%% | %.1e | %s |\n",
                  (long long)r.m, (long long)r.n, (long long)r.k, r.N, r.M, r.ours_ms, flop / r.ours_ms / 1e6,
                  r.cublas_ms, flop / r.cublas_ms / 1e6, sp, ideal, 100 * sp / ideal, r.err, r.launch.c_str());
    }
    if (only_shapes.empty()) {  // the summary reads the first shape as 4096^3, then the set
      std::printf("\n| N:M | sparsity | speedup at 4096^3 | geomean speedup (shape set) | geomean %% of ideal | min speedup |\n|---|---:|---:|---:|---:|---:|\n");
      for (int N : kept) {
        double at4096 = 0, logsum = 0, minsp = 1e30;
        int cnt = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
          const auto& r = rows[i];
          if (r.N != N) continue;
          const double sp = r.cublas_ms / r.ours_ms;
          if (i < 4) { at4096 = sp; continue; }  // the first shape is 4096^3
          logsum += std::log(sp);
          minsp = std::min(minsp, sp);
          ++cnt;
        }
        const double geo = cnt ? std::exp(logsum / cnt) : 0;
        std::printf("| %d:32 | %.1f%% | %.2f | %.2f | %.0f%% | %.2f |\n", N, 100.0 * (32 - N) / 32, at4096, geo,
                    100 * geo / (32.0 / N), cnt ? minsp : 0);
      }
    }
    if (!sweep_lines.empty()) {
      std::printf("\n");
      for (const auto& l : sweep_lines) std::printf("%s\n", l.c_str());
    }
  } catch (const std::exception& ex) {
    return harness_error(ex.what());
  }
  return 0;
}
