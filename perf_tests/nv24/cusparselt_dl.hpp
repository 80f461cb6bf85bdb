#pragma once
// cuSPARSELt loaded at run time (dlopen), for the benchmark's baseline column: only the few
// functions the benchmark calls, declared with the types of cuSPARSELt's public
// documentation (opaque 512-byte handles, the enums of cusparse.h). Absent library: the
// column is skipped.
#include <cusparse.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace nv24_harness::lt {

struct alignas(16) Opaque {
  std::uint8_t data[512];
};
using Handle = Opaque;
using MatDescr = Opaque;
using MatmulDescr = Opaque;
using AlgSelection = Opaque;
using Plan = Opaque;
enum Sparsity { kSparsity50 = 0 };               // CUSPARSELT_SPARSITY_50_PERCENT
enum ComputeType { kCompute32F = 2 };            // CUSPARSE_COMPUTE_32F (cusparseLt's own enum)
enum MatmulAlg { kAlgDefault = 0 };              // CUSPARSELT_MATMUL_ALG_DEFAULT

struct Api {
  void* lib = nullptr;
  std::string path;
  cusparseStatus_t (*init)(Handle*);
  cusparseStatus_t (*destroy)(const Handle*);
  cusparseStatus_t (*dense_init)(const Handle*, MatDescr*, std::int64_t, std::int64_t, std::int64_t, std::uint32_t,
                                 cudaDataType, cusparseOrder_t);
  cusparseStatus_t (*structured_init)(const Handle*, MatDescr*, std::int64_t, std::int64_t, std::int64_t,
                                      std::uint32_t, cudaDataType, cusparseOrder_t, Sparsity);
  cusparseStatus_t (*mat_destroy)(const MatDescr*);
  cusparseStatus_t (*matmul_init)(const Handle*, MatmulDescr*, cusparseOperation_t, cusparseOperation_t,
                                  const MatDescr*, const MatDescr*, const MatDescr*, const MatDescr*, ComputeType);
  cusparseStatus_t (*alg_init)(const Handle*, AlgSelection*, const MatmulDescr*, MatmulAlg);
  cusparseStatus_t (*alg_destroy)(const AlgSelection*);
  cusparseStatus_t (*plan_init)(const Handle*, Plan*, const MatmulDescr*, const AlgSelection*);
  cusparseStatus_t (*plan_destroy)(const Plan*);
  cusparseStatus_t (*workspace)(const Handle*, const Plan*, std::size_t*);
  cusparseStatus_t (*compressed_size)(const Handle*, const Plan*, std::size_t*, std::size_t*);
  cusparseStatus_t (*compress)(const Handle*, const Plan*, const void*, void*, void*, cudaStream_t);
  cusparseStatus_t (*matmul)(const Handle*, const Plan*, const void*, const void*, const void*, const void*,
                             const void*, void*, void*, cudaStream_t*, std::int32_t);
  // Times the library's algorithm configurations (and split-K) on these operands and leaves
  // the fastest in the plan.
  cusparseStatus_t (*search)(const Handle*, Plan*, const void*, const void*, const void*, const void*, const void*,
                             void*, void*, cudaStream_t*, std::int32_t);

  // Tries $CUSPARSELT_LIB, then the plain soname; false when not found.
  bool load() {
    std::vector<std::string> names;
    if (const char* env = std::getenv("CUSPARSELT_LIB")) names.push_back(env);
    names.push_back("libcusparseLt.so.0");
    for (const auto& n : names) {
      lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib) {
        path = n;
        break;
      }
    }
    if (!lib) return false;
    bool ok = true;
    auto sym = [&](auto& fn, const char* s) {
      void* p = dlsym(lib, s);
      ok = ok && p != nullptr;
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    sym(init, "cusparseLtInit");
    sym(destroy, "cusparseLtDestroy");
    sym(dense_init, "cusparseLtDenseDescriptorInit");
    sym(structured_init, "cusparseLtStructuredDescriptorInit");
    sym(mat_destroy, "cusparseLtMatDescriptorDestroy");
    sym(matmul_init, "cusparseLtMatmulDescriptorInit");
    sym(alg_init, "cusparseLtMatmulAlgSelectionInit");
    sym(alg_destroy, "cusparseLtMatmulAlgSelectionDestroy");
    sym(plan_init, "cusparseLtMatmulPlanInit");
    sym(plan_destroy, "cusparseLtMatmulPlanDestroy");
    sym(workspace, "cusparseLtMatmulGetWorkspace");
    sym(compressed_size, "cusparseLtSpMMACompressedSize");
    sym(compress, "cusparseLtSpMMACompress");
    sym(matmul, "cusparseLtMatmul");
    sym(search, "cusparseLtMatmulSearch");
    return ok;
  }
};

}  // namespace nv24_harness::lt
