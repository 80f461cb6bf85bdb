// Layout probe for the sm_90a sparse warpgroup MMA: one warpgroup, one 64 x 64 (weight rows
// x activation rows) tile, k = 64 = two wgmma.mma_async.sp m64n64k32 (sparsity selectors 0
// and 1), fp16 and bf16, against a double-precision host reference. The weight is encoded
// by the library's NV24 codec (formats/nv24), so a pass shows that NV24's metadata tiles
// feed wgmma.sp unchanged (warp w of the warpgroup: word `lane` of the tile of rows
// 16w .. 16w+15). Variants: A (the weight values) from registers (ldmatrix) or from shared
// memory (64-byte swizzle); B (the activations, K-major) without swizzle or with the 128-byte
// swizzle. Without swizzle the leading byte offset is the distance between core matrices
// along k and the stride byte offset the one between 8-row groups (swapped, every product
// came out wrong on an H100).
// Usage: nv24_wgmma_probe   (exit 0 when every variant matches)
#include <cstdio>
#include <string>
#include <vector>

#include "nv24_harness.hpp"
#include "../../kernels/src/common/ptx_wgmma.cuh"

using namespace nv24_harness;
namespace kc = tessera::kernels::cuda;
namespace wg = tessera::kernels::cuda::wgmma;

enum class AMode { Registers, Shared64B };
enum class BMode { None, Swizzle128B };

constexpr int kRows = 64, kCols = 64, kK = 64;  // W 64 x 64 (k), A 64 (rows) x 64 (k)

// Byte offset of element (row, k) of the activation tile (64 rows x 64 k) in each B layout.
__device__ int b_offset(int row, int k, BMode mode) {
  if (mode == BMode::Swizzle128B) return row * 128 + (((k >> 3) ^ (row & 7)) << 4) + (k & 7) * 2;
  // no swizzle: 8 x 8 core matrices of 128 contiguous bytes, the 8 along k adjacent
  return ((row >> 3) * 8 + (k >> 3)) * 128 + (row & 7) * 16 + (k & 7) * 2;
}
// Byte offset of compressed value (row, c) (c < 32) in the 64-byte-swizzled values tile.
__device__ int a_offset(int row, int c) { return row * 64 + (((c >> 3) ^ ((row >> 1) & 3)) << 4) + (c & 7) * 2; }

template <class T, AMode AM, BMode BM>
__global__ void probe(const T* vals, const unsigned* meta, const T* act, float* out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ __align__(1024) unsigned char sb[kCols * kK * 2];
  __shared__ __align__(1024) unsigned char sa[kRows * 64];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  for (int i = tid; i < kCols * kK; i += 128)
    *reinterpret_cast<T*>(sb + b_offset(i / kK, i % kK, BM)) = act[i];
  for (int i = tid; i < kRows * 32; i += 128) *reinterpret_cast<T*>(sa + a_offset(i / 32, i % 32)) = vals[i];
  kc::fence_proxy_async();
  __syncthreads();
  const unsigned e = meta[warp * 32 + lane];  // k_padded = 64: row tile `warp`, one k tile
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.f;
  std::uint64_t b0, b1;
  if (BM == BMode::Swizzle128B) {
    b0 = wg::descriptor(sb, 16, 1024, wg::Swizzle::B128);
    b1 = wg::descriptor(sb + 64, 16, 1024, wg::Swizzle::B128);
  } else {
    b0 = wg::descriptor(sb, 128, 1024, wg::Swizzle::None);  // k: core matrices 128 B apart; rows: 8 x 128 B
    b1 = wg::descriptor(sb + 512, 128, 1024, wg::Swizzle::None);
  }
  wg::fence_regs(d);
  wg::fence();
  if (AM == AMode::Shared64B) {
    wg::mma_sp_ss<0>(d, wg::descriptor(sa, 16, 512, wg::Swizzle::B64), b0, e, 1, T());
    wg::mma_sp_ss<1>(d, wg::descriptor(sa + 32, 16, 512, wg::Swizzle::B64), b1, e, 1, T());
  } else {
    // fragment of k32 half h: (rows 0-7, chunk 2h), (rows 8-15, 2h), (rows 0-7, 2h+1), (rows 8-15, 2h+1)
    const int row = warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, ch = lane >> 4;
    unsigned a0[4], a1[4];
    kc::ldmatrix_x4(a0, sa + a_offset(row, ch * 8));
    kc::ldmatrix_x4(a1, sa + a_offset(row, (2 + ch) * 8));
    wg::mma_sp_rs<0>(d, a0, b0, e, T());
    wg::mma_sp_rs<1>(d, a1, b1, e, T());
  }
  wg::commit();
  wg::wait<0>();
  wg::fence_regs(d);
  const int g = lane >> 2, t = lane & 3;
  for (int j = 0; j < 8; ++j)
    for (int q = 0; q < 4; ++q) out[(warp * 16 + g + 8 * (q >> 1)) * kCols + 8 * j + 2 * t + (q & 1)] = d[4 * j + q];
#endif
}

template <class T, AMode AM, BMode BM>
static bool run(const char* what, Nv24Type t, std::uint64_t seed) {
  // B (k x n) = W^T; the harness prunes and encodes it with the library codec
  const Nv24Host w = prune_encode(random_mat(kK, kRows, kRows, t, seed), t);
  const HostMat A = random_mat(kCols, kK, kK, t, seed + 1);
  DeviceBuf<std::uint16_t> dV(w.vals), dA(A.bits);
  DeviceBuf<std::uint32_t> dM(w.meta);
  DeviceBuf<float> dOut(kRows * kCols);
  HARNESS_CHECK(cudaMemset(dOut.p, 0xFF, kRows * kCols * 4));  // NaN
  probe<T, AM, BM><<<1, 128>>>(reinterpret_cast<const T*>(dV.p), dM.p, reinterpret_cast<const T*>(dA.p), dOut.p);
  HARNESS_CHECK(cudaGetLastError());
  HARNESS_CHECK(cudaDeviceSynchronize());
  std::vector<float> got(kRows * kCols);
  HARNESS_CHECK(cudaMemcpy(got.data(), dOut.p, got.size() * 4, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  long long bad = 0;
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) {
      double ref = 0;
      for (int k = 0; k < kK; ++k) ref += w.pruned.at(k, r, t) * A.at(c, k, t);
      const double g = got[r * kCols + c];
      if (!std::isfinite(g)) ++bad;
      num += (g - ref) * (g - ref);
      den += ref * ref;
    }
  const double rel = std::sqrt(num / den);
  const bool ok = bad == 0 && rel < 1e-5;  // fp32 accumulation of exact products
  std::printf("%s %-34s %s rel=%.2e nonfinite=%lld\n", ok ? "ok  " : "FAIL", what, name(t), rel, bad);
  return ok;
}

template <class T>
static int run_all(Nv24Type t) {
  int failures = 0;
  failures += !run<T, AMode::Registers, BMode::None>("A regs, B no swizzle", t, 11);
  failures += !run<T, AMode::Registers, BMode::Swizzle128B>("A regs, B 128B swizzle", t, 15);
  failures += !run<T, AMode::Shared64B, BMode::Swizzle128B>("A smem 64B swizzle, B 128B swizzle", t, 17);
  failures += !run<T, AMode::Shared64B, BMode::None>("A smem 64B swizzle, B no swizzle", t, 19);
  return failures;
}

int main() {
  try {
    const int failures = run_all<__half>(Nv24Type::F16) + run_all<__nv_bfloat16>(Nv24Type::BF16);
    std::printf("PROBE %d failures\n", failures);
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    return harness_error(e.what());
  }
}
