// Correctness sweep of the NV24 kernel on the GPU against a double-precision host reference:
// random operands for fp16 and bf16, every tile shape (the sm_90a wgmma.sp tiles too when the
// device has compute capability 9.0), odd shapes (m, n, k not multiples of
// the tiles, k not a multiple of 4 or 8), padded row strides, k = 0, weights pruned from real
// matrices, outputs poisoned with NaN before every run, bad arguments rejected; nv24_tune's
// launch (C checked untouched by the tuning) and every launch it weighs on the larger shapes.
// Usage: nv24_check [matrix_dir] [--quick]   (exit 0 when everything passes)
#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "nv24_harness.hpp"
#include "tessera/core/command_line.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/io/matrix_market.hpp"

using namespace nv24_harness;
namespace kc = tessera::kernels::cuda;

static int failures = 0, runs = 0;

// Runs `call` (which launches on the arguments it gets and says how) against the reference.
static void run_with(const std::string& what, const HostMat& A, const Nv24Host& w, const std::vector<double>& ref,
                     Nv24Type t, std::int64_t ldc, const std::function<std::string(const kc::Nv24Args&)>& call) {
  const std::int64_t m = A.rows, n = w.n;
  DeviceBuf<std::uint16_t> dA(A.bits), dV(w.vals), dC(static_cast<std::size_t>(m * ldc));
  DeviceBuf<std::uint32_t> dM(w.meta);
  if (dC.count) HARNESS_CHECK(cudaMemset(dC.p, 0xFF, dC.count * 2));  // NaN in fp16 and bf16
  const kc::Nv24Args args{t, m, n, w.k, w.kp, dA.p, A.ld, dV.p, dM.p, dC.p, ldc};
  const std::string how = call(args);
  HARNESS_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> got(dC.count);
  if (dC.count) HARNESS_CHECK(cudaMemcpy(got.data(), dC.p, dC.count * 2, cudaMemcpyDeviceToHost));
  const Error e = compare(ref, m, n, got, ldc, t);
  const double tol = t == Nv24Type::F16 ? 2e-3 : 1.5e-2;
  const bool ok = e.nonfinite == 0 && e.rel <= tol;
  ++runs;
  if (!ok) ++failures;
  std::printf("%s %-34s %s m=%lld n=%lld k=%lld ldc=%lld %s rel=%.2e nonfinite=%lld\n", ok ? "ok  " : "FAIL",
              what.c_str(), name(t), (long long)m, (long long)n, (long long)w.k, (long long)ldc, how.c_str(), e.rel,
              (long long)e.nonfinite);
}
// nv24_spmm with `tile` (Auto: its own choice, printed) and `splits` (0: chosen).
static void run_case(const std::string& what, const HostMat& A, const Nv24Host& w, const std::vector<double>& ref,
                     Nv24Type t, kc::Nv24Tile tile, std::int64_t ldc, int splits = 0) {
  run_with(what, A, w, ref, t, ldc, [&](const kc::Nv24Args& args) {
    kc::nv24_spmm(args, nullptr, tile, splits);
    std::string how = std::string("tile=") + kc::to_string(tile) + " splits=" + std::to_string(splits);
    if (tile == kc::Nv24Tile::Auto && splits == 0) how += " (" + kc::to_string(kc::nv24_choose(args)) + ")";
    return how;
  });
}
// Exactly `launch` (a head and a tail launch where it has one).
static void run_case(const std::string& what, const HostMat& A, const Nv24Host& w, const std::vector<double>& ref,
                     Nv24Type t, const kc::Nv24Launch& launch, std::int64_t ldc) {
  run_with(what, A, w, ref, t, ldc, [&](const kc::Nv24Args& args) {
    kc::nv24_spmm(args, nullptr, launch);
    return "launch=" + kc::to_string(launch);
  });
}

// nv24_tune's launch, after checking that the tuning left C as it was (all NaN).
static void run_tuned(const std::string& what, const HostMat& A, const Nv24Host& w, const std::vector<double>& ref,
                      Nv24Type t, std::int64_t ldc) {
  run_with(what, A, w, ref, t, ldc, [&](const kc::Nv24Args& args) {
    const kc::Nv24Launch l = kc::nv24_tune(args, nullptr);
    std::vector<std::uint16_t> after(static_cast<std::size_t>(args.m * args.ldc));
    if (!after.empty())
      HARNESS_CHECK(cudaMemcpy(after.data(), args.C, after.size() * 2, cudaMemcpyDeviceToHost));
    if (std::any_of(after.begin(), after.end(), [](std::uint16_t b) { return b != 0xFFFF; })) {
      ++runs, ++failures;
      std::printf("FAIL %s: nv24_tune wrote C\n", what.c_str());
    }
    kc::nv24_spmm(args, nullptr, l);
    return "tuned=" + kc::to_string(l);
  });
}

// Rejected with tessera::ShapeError, whose message holds nv24_can_implement's reason.
static void expect_throw(const std::string& what, const kc::Nv24Args& args, const kc::Nv24Launch* launch = nullptr) {
  ++runs;
  const kc::KernelStatus status = launch ? kc::nv24_can_implement(args, *launch) : kc::nv24_can_implement(args);
  try {
    if (launch) kc::nv24_spmm(args, nullptr, *launch);
    else kc::nv24_spmm(args, nullptr);
    ++failures;
    std::printf("FAIL %s: no error\n", what.c_str());
  } catch (const tessera::ShapeError& e) {
    const bool same = !status.ok && std::string(e.what()).find(status.reason) != std::string::npos;
    failures += !same;
    std::printf("%s %s: %s (nv24_can_implement: %s)\n", same ? "ok  " : "FAIL", what.c_str(), e.what(),
                status.ok ? "ok" : status.reason.c_str());
  }
}


int main(int argc, char** argv) {
  std::string dir = ".nv24_dev/data/matrices";
  bool quick = false;
  const auto status = tessera::walk_command_line("nv24_check", [&] {
    for (tessera::CommandLine cl(argc, argv, "usage: nv24_check [matrix_dir] [--quick]\n"); cl.next();) {
      if (cl.is("--quick")) quick = true;
      else if (cl.is_option()) cl.reject();
      else dir = cl.single_argument();
    }
  });
  if (status) return *status;
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    return harness_error("no CUDA device");
  }
  const bool hopper = prop.major == 9 && prop.minor == 0;
  std::vector<kc::Nv24Tile> tiles;
  const kc::Nv24Tile last = hopper ? kc::Nv24Tile::HopperLarge : kc::Nv24Tile::Small;
  for (int t = 0; t <= static_cast<int>(last); ++t) tiles.push_back(kc::Nv24Tile(t));
  // the launch Auto makes, plus the wgmma.sp kernel where it runs
  std::vector<kc::Nv24Tile> auto_tiles = {kc::Nv24Tile::Auto};
  if (hopper) auto_tiles.push_back(kc::Nv24Tile::HopperWide);
  std::printf("GPU %s (compute capability %d.%d): wgmma.sp tiles %s\n", prop.name, prop.major, prop.minor,
              hopper ? "checked" : "skipped");
  struct Dims {
    std::int64_t m, n, k;
  };
  std::vector<Dims> dims = {{1, 1, 1},     {3, 5, 7},      {16, 16, 64},    {17, 33, 65},  {64, 64, 64},
                            {100, 200, 300}, {255, 130, 1000}, {513, 257, 129}, {7, 2000, 515}, {300, 129, 0},
                            {1000, 1000, 1000}, {256, 384, 4096}, {3100, 4096, 384}};  // the last: Auto adds a tail on an H100
  if (quick) dims.resize(6);
  try {
    std::uint64_t seed = 1;
    for (Nv24Type t : {Nv24Type::F16, Nv24Type::BF16}) {
      for (const Dims& d : dims) {
        const Nv24Host w = prune_encode(random_mat(d.k, d.n, d.n, t, seed++), t);
        // lda: k rounded up to 8 (the kernel's alignment), plus 8 more to test a padded stride
        const std::int64_t lda = (d.k + 7) / 8 * 8;
        const HostMat A = random_mat(d.m, d.k, lda, t, seed++);
        const std::vector<double> ref = reference(A, w.pruned, t);
        for (kc::Nv24Tile tile : tiles) run_case("random", A, w, ref, t, tile, d.n);
        for (kc::Nv24Tile tile : tiles)
          for (int splits : {2, 3, 7, 8}) run_case("random, split K", A, w, ref, t, tile, d.n, splits);
        const HostMat A2 = random_mat(d.m, d.k, lda + 8, t, seed++);
        const std::vector<double> ref2 = reference(A2, w.pruned, t);
        for (kc::Nv24Tile tile : auto_tiles) run_case("random, lda+8, ldc+3", A2, w, ref2, t, tile, d.n + 3);
        run_tuned("random, tuned, lda+8, ldc+3", A2, w, ref2, t, d.n + 3);
        // every launch nv24_tune weighs (they depend on the shape only)
        if (d.m * d.n * d.k >= 1000 * 1000 * 1000)
          for (const kc::Nv24Launch& l :
               kc::nv24_candidates(kc::Nv24Args{t, d.m, d.n, d.k, w.kp, nullptr, lda, nullptr, nullptr, nullptr, d.n}))
            run_case("random, tuning candidate", A, w, ref, t, l, d.n);
        // a head launch and a tail launch of another wgmma.sp tile, the split anywhere
        if (hopper && d.m >= 2) {
          using kc::Nv24Tile;
          for (const kc::Nv24Launch& l :
               {kc::Nv24Launch{Nv24Tile::HopperLarge, 1, Nv24Tile::HopperTall, std::max<std::int64_t>(1, d.m / 3)},
                kc::Nv24Launch{Nv24Tile::HopperTall, 1, Nv24Tile::HopperSquare, d.m - 1},
                kc::Nv24Launch{Nv24Tile::HopperWide, 1, Nv24Tile::HopperLarge, 1},
                kc::Nv24Launch{Nv24Tile::HopperSquare, 1, Nv24Tile::HopperWide, (d.m + 1) / 2}}) {
            run_case("random, head + tail", A, w, ref, t, l, d.n);
            run_case("random, head + tail, lda+8, ldc+3", A2, w, ref2, t, l, d.n + 3);
          }
        }
      }
      // weights pruned from real matrices (the matrix is B, k x n; A random)
      for (const char* mtx : {"west0497", "cryg2500"}) {
        const auto coo = tessera::io::read_matrix_market(dir + "/" + mtx + ".mtx.gz");
        HostMat B{coo.shape[0], coo.shape[1], coo.shape[1],
                  std::vector<std::uint16_t>(static_cast<std::size_t>(coo.shape[0] * coo.shape[1]), to_bits(0, t))};
        double amax = 0;
        for (double v : coo.values) amax = std::max(amax, std::fabs(v));
        for (std::size_t e = 0; e < coo.values.size(); ++e)
          B.bits[coo.coords[2 * e] * B.ld + coo.coords[2 * e + 1]] = to_bits(coo.values[e] / amax, t);
        const Nv24Host w = prune_encode(B, t);
        const HostMat A = random_mat(300, w.k, (w.k + 7) / 8 * 8, t, seed++);
        const std::vector<double> ref = reference(A, w.pruned, t);
        for (kc::Nv24Tile tile : auto_tiles) run_case(std::string("pruned ") + mtx, A, w, ref, t, tile, w.n);
      }
    }
    // each tile's extent, against the one its name states (weight rows x activation rows)
    for (int t = static_cast<int>(kc::Nv24Tile::Large); t <= static_cast<int>(kc::Nv24Tile::HopperLarge); ++t) {
      const kc::Nv24TileShape e = kc::nv24_tile_shape(kc::Nv24Tile(t));
      const std::string name = kc::to_string(kc::Nv24Tile(t));
      const std::string dims = "(" + std::to_string(e.weight_rows) + "x" + std::to_string(e.activation_rows) + ")";
      const bool ok = name.find(dims) != std::string::npos;
      ++runs;
      failures += !ok;
      std::printf("%s tile shape of %s: %s\n", ok ? "ok  " : "FAIL", name.c_str(), dims.c_str());
    }
    ++runs;
    try {
      kc::nv24_tile_shape(kc::Nv24Tile::Auto);
      ++failures;
      std::printf("FAIL tile shape of Auto: no error\n");
    } catch (const tessera::ShapeError& e) {
      std::printf("ok   tile shape of Auto: %s\n", e.what());
    }
    // bad arguments
    DeviceBuf<std::uint16_t> buf(4096);
    DeviceBuf<std::uint32_t> mbuf(64);
    expect_throw("lda not a multiple of 8",
                 kc::Nv24Args{Nv24Type::F16, 4, 4, 12, 64, buf.p, 12, buf.p, mbuf.p, buf.p, 4});
    expect_throw("k_padded wrong", kc::Nv24Args{Nv24Type::F16, 4, 4, 16, 32, buf.p, 16, buf.p, mbuf.p, buf.p, 4});
    expect_throw("ldc < n", kc::Nv24Args{Nv24Type::F16, 4, 8, 16, 64, buf.p, 16, buf.p, mbuf.p, buf.p, 4});
    const kc::Nv24Args ok_args{Nv24Type::F16, 4, 4, 16, 64, buf.p, 16, buf.p, mbuf.p, buf.p, 4};
    const kc::Nv24Launch no_tile{kc::Nv24Tile::Auto, 1}, no_split{kc::Nv24Tile::Large, 0};
    expect_throw("launch without a tile", ok_args, &no_tile);
    expect_throw("launch with 0 splits", ok_args, &no_split);
    if (hopper) {
      const kc::Nv24Launch split_tail{kc::Nv24Tile::HopperLarge, 2, kc::Nv24Tile::HopperTall, 1},
          mma_tail{kc::Nv24Tile::HopperLarge, 1, kc::Nv24Tile::Large, 1},
          all_tail{kc::Nv24Tile::HopperLarge, 1, kc::Nv24Tile::HopperTall, 4};
      expect_throw("tail with K splits", ok_args, &split_tail);
      expect_throw("tail of an mma.sp tile", ok_args, &mma_tail);
      expect_throw("tail of all rows", ok_args, &all_tail);
      const kc::Nv24Launch nine_splits{kc::Nv24Tile::HopperSquare, 9};  // more than a cluster holds
      expect_throw("9 K splits on a wgmma.sp tile", ok_args, &nine_splits);
    }
    // nv24_choose depends on the device, type, tile and shape alone: a forced tile asked after
    // Auto on the same shape is still that tile, and Auto's launch stays the same.
    for (auto [m, n, k] : {std::array<std::int64_t, 3>{256, 2048, 2048}, {2048, 8192, 8192}}) {
      const kc::Nv24Args shape{Nv24Type::F16, m, n, k, tessera::nv24::padded_k(k), nullptr, k, nullptr, nullptr,
                               nullptr, n};
      const kc::Nv24Launch first = kc::nv24_choose(shape);
      std::string bad;
      for (kc::Nv24Tile tile : tiles)
        if (tile != kc::Nv24Tile::Auto && kc::nv24_choose(shape, tile).tile != tile)
          bad += std::string(" ") + kc::to_string(tile);
      const kc::Nv24Launch again = kc::nv24_choose(shape);
      if (again.tile != first.tile || again.splits != first.splits || again.tail_tile != first.tail_tile ||
          again.tail_rows != first.tail_rows)
        bad += " Auto changed: " + kc::to_string(first) + " then " + kc::to_string(again);
      ++runs;
      if (!bad.empty()) ++failures;
      std::printf("%s repeated choice at %lldx%lldx%lld (Auto: %s)%s\n", bad.empty() ? "ok  " : "FAIL", (long long)m,
                  (long long)n, (long long)k, kc::to_string(first).c_str(), bad.c_str());
    }
  } catch (const std::exception& e) {
    return harness_error(e.what());
  }
  std::printf("TOTAL %d runs, %d failures\n", runs, failures);
  return failures == 0 ? 0 : 1;
}
