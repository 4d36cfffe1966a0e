// Host side of the wmma device campaign (see gen_wmma.py): a shared library that
// wmma_device.py drives through ctypes. Every kernel has one signature
//   (in0, in1, in2, buf, stride, nbytes, out)
// and runs as one warp. wmma_launch copies the inputs and the buffer to the device, fills the
// output with 0xEE bytes (a register the kernel did not write shows), launches, and copies the
// buffer and the output back.
//
// With WMMA_CUBINS=DIR in the environment the kernels come instead from DIR/wmma_kernels_P.cubin
// (built elsewhere, e.g. by the ptxas of the test oracle) and launch through the driver API.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>

#include "wmma_table.h"

static unsigned* dev[5];
static const size_t CAP = 1 << 20;
static CUmodule modules[WMMA_PARTS];
static bool from_cubins = false;

extern "C" int wmma_kernels(void) { return WMMA_KERNELS; }

extern "C" int wmma_init(void)
{
  for (int i = 0; i < 5; ++i)
    if (cudaMalloc(&dev[i], CAP) != cudaSuccess) return 1;
  const char* dir = getenv("WMMA_CUBINS");
  if (dir && *dir) {
    for (int p = 0; p < WMMA_PARTS; ++p) {
      char path[4096];
      snprintf(path, sizeof path, "%s/wmma_kernels_%d.cubin", dir, p);
      CUresult r = cuModuleLoad(&modules[p], path);
      if (r != CUDA_SUCCESS) { fprintf(stderr, "cuModuleLoad %s: error %d\n", path, (int)r); return 2; }
    }
    from_cubins = true;
  }
  return 0;
}

extern "C" int wmma_launch(int idx, const void* in0, size_t n0, const void* in1, size_t n1, const void* in2,
                           size_t n2, void* buf, size_t nbuf, unsigned stride, void* out, size_t nout)
{
  if (idx < 0 || idx >= WMMA_KERNELS) return -1;
  if (n0 > CAP || n1 > CAP || n2 > CAP || nbuf > CAP || nout > CAP) return -2;
  const void* fn = wmma_parts[idx % WMMA_PARTS][idx / WMMA_PARTS];
  if (n0) cudaMemcpy(dev[0], in0, n0, cudaMemcpyHostToDevice);
  if (n1) cudaMemcpy(dev[1], in1, n1, cudaMemcpyHostToDevice);
  if (n2) cudaMemcpy(dev[2], in2, n2, cudaMemcpyHostToDevice);
  if (nbuf) cudaMemcpy(dev[3], buf, nbuf, cudaMemcpyHostToDevice);
  cudaMemset(dev[4], 0xEE, nout ? nout : 4);
  unsigned nbytes = (unsigned)nbuf;
  void* args[] = {&dev[0], &dev[1], &dev[2], &dev[3], &stride, &nbytes, &dev[4]};
  cudaError_t e;
  if (from_cubins) {
    char name[32];
    snprintf(name, sizeof name, "wk%d", idx);
    CUfunction f;
    CUresult r = cuModuleGetFunction(&f, modules[idx % WMMA_PARTS], name);
    if (r == CUDA_SUCCESS) r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, args, 0);
    if (r != CUDA_SUCCESS) { fprintf(stderr, "kernel %d (cubin): error %d\n", idx, (int)r); return 1000 + (int)r; }
    e = cudaSuccess;
  } else {
    e = cudaLaunchKernel(fn, dim3(1), dim3(32), args, 0, 0);
  }
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    fprintf(stderr, "kernel %d: %s\n", idx, cudaGetErrorString(e));
    return (int)e;
  }
  if (nbuf) cudaMemcpy(buf, dev[3], nbuf, cudaMemcpyDeviceToHost);
  if (nout) cudaMemcpy(out, dev[4], nout, cudaMemcpyDeviceToHost);
  return (int)cudaGetLastError();
}
