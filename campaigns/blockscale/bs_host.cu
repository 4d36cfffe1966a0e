// Host driver of the .kind::* mma campaign (campaigns/blockscale/bsgen.py).
//
//   bs_run IN.bin OUT.bin
//
// IN.bin: magic, kernel count, then per kernel: id, cases, input words and output words per
// thread, and the input words of every thread of every case (case, lane, word). Each kernel runs
// once with one warp per case; OUT.bin gets, per kernel, id, cases, output words per thread, the
// launch status, and the D words (filled with 0xEEEEEEEE first, so a register not stored shows).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "bs_table.h"

static const uint32_t MAGIC_IN = 0x49534B42, MAGIC_OUT = 0x4F534B42;

int main(int argc, char** argv)
{
  if (argc < 3) { fprintf(stderr, "usage: %s IN OUT\n", argv[0]); return 2; }
  FILE* f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 2; }
  FILE* fo = fopen(argv[2], "wb");
  if (!fo) { perror(argv[2]); return 2; }
  uint32_t hdr[2];
  if (fread(hdr, 4, 2, f) != 2 || hdr[0] != MAGIC_IN) { fprintf(stderr, "bad input file\n"); return 2; }
  void* table[NKERNELS] = {0};
  bs_register_all(table);
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) { fprintf(stderr, "no device\n"); return 2; }
  printf("device %s sm_%d%d, %d kernels compiled, %u in the input\n", prop.name, prop.major, prop.minor,
         NKERNELS, hdr[1]);
  uint32_t out_hdr[2] = {MAGIC_OUT, hdr[1]};
  fwrite(out_hdr, 4, 2, fo);
  int failed = 0;
  for (uint32_t j = 0; j < hdr[1]; ++j) {
    uint32_t kh[4];  // id, cases, words in, words out (per thread)
    if (fread(kh, 4, 4, f) != 4) { fprintf(stderr, "input file truncated\n"); return 2; }
    uint32_t kid = kh[0], n = kh[1];
    if (kid >= NKERNELS || !table[kid]) { fprintf(stderr, "kernel %u not compiled\n", kid); return 2; }
    size_t nin = (size_t)n * 32 * kh[2], nout = (size_t)n * 32 * kh[3];
    std::vector<uint32_t> in(nin), out(nout, 0xEEEEEEEEu);
    if (fread(in.data(), 4, nin, f) != nin) { fprintf(stderr, "input file truncated\n"); return 2; }
    uint32_t *din = 0, *dout = 0;
    cudaError_t e = cudaMalloc(&din, nin * 4 + 4);
    if (e == cudaSuccess) e = cudaMalloc(&dout, nout * 4 + 4);
    if (e == cudaSuccess) e = cudaMemcpy(din, in.data(), nin * 4, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemset(dout, 0xEE, nout * 4);
    if (e == cudaSuccess) {
      void* args[] = {&din, &dout};
      e = cudaLaunchKernel(table[kid], dim3(n), dim3(32), args, 0, 0);
    }
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(out.data(), dout, nout * 4, cudaMemcpyDeviceToHost);
    if (din) cudaFree(din);
    if (dout) cudaFree(dout);
    uint32_t oh[4] = {kid, n, kh[3], (uint32_t)e};
    fwrite(oh, 4, 4, fo);
    fwrite(out.data(), 4, nout, fo);
    if (e != cudaSuccess) {
      printf("kernel %u FAILED: %s\n", kid, cudaGetErrorString(e));
      failed++;
      if (e != cudaErrorInvalidValue && e != cudaErrorInvalidDeviceFunction) break;  // context lost
    }
  }
  fclose(f);
  fclose(fo);
  printf("done, %d kernels failed\n", failed);
  return failed ? 3 : 0;
}
