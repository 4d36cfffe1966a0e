// There: ptxspec::SmemAddress built from a pointer, in a debug build (NDEBUG not defined), keeps a
// shared-memory pointer's address and traps on a pointer into global memory.
//   nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -I generated/c smem_address_check.cu -o check
//   ./check shared   -> prints "shared: ok <address>" and exits 0
//   ./check global   -> the kernel traps: prints "global: trapped (<CUDA error>)" and exits 0
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "ptxspec.h"

__global__ void probe(unsigned* out, int use_global) {
  __shared__ unsigned s[32];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  const void* p = use_global ? static_cast<const void*>(out) : static_cast<const void*>(&s[1]);
  out[0] = ptxspec::SmemAddress(p).value;
  out[1] = static_cast<unsigned>(__cvta_generic_to_shared(&s[1]));
}

int main(int argc, char** argv) {
  const int use_global = argc > 1 && std::strcmp(argv[1], "global") == 0;
  unsigned* d = nullptr;
  cudaMalloc(&d, 2 * sizeof(unsigned));
  probe<<<1, 32>>>(d, use_global);
  const cudaError_t e = cudaDeviceSynchronize();
  if (use_global) {
    std::printf("global: %s (%s)\n", e != cudaSuccess ? "trapped" : "NOT trapped", cudaGetErrorString(e));
    return e != cudaSuccess ? 0 : 1;
  }
  unsigned h[2] = {0, 0};
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("shared: %s %u %u (%s)\n", e == cudaSuccess && h[0] == h[1] ? "ok" : "WRONG", h[0], h[1],
              cudaGetErrorString(e));
  return e == cudaSuccess && h[0] == h[1] ? 0 : 1;
}
