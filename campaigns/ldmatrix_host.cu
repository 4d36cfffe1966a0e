// Host driver of the ldmatrix / stmatrix / movmatrix device campaign (see ldmatrix_harness.py).
//
//   ldmatrix_run JOBS.bin RESULTS.bin [FIRST_JOB]
//
// Every job names a kernel, the threads to launch (one CTA), a shared-memory image, input words
// and how many output words and shared-memory bytes to return. The kernel copies the image so
// that its byte 0 lies at shared address TARGET, runs, and hands back its outputs (and the
// window, for the stores). A failed launch loses the CUDA context: the job is written as failed,
// the program prints NEXT <i> and exits with status 3 so that run_ldmatrix.sh starts again at i.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "ldmatrix_parts.h"

typedef void (*Kernel)(const uint8_t*, uint32_t, const uint32_t*, uint32_t*, uint8_t*, uint32_t, uint32_t*);

int main(int argc, char** argv)
{
  if (argc < 3) { fprintf(stderr, "usage: %s JOBS RESULTS [FIRST]\n", argv[0]); return 2; }
  FILE* f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 2; }
  std::vector<uint8_t> data;
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) data.insert(data.end(), chunk, chunk + n);
  fclose(f);
  if (data.size() < 8 || memcmp(data.data(), "LDMJ", 4) != 0) { fprintf(stderr, "bad job file\n"); return 2; }
  uint32_t count;
  memcpy(&count, data.data() + 4, 4);
  int first = argc > 3 ? atoi(argv[3]) : 0;

  void* table[NKERNELS] = {0};
  ldmatrix_register_all(table);
  cudaFuncAttributes attr;
  for (int k = 0; k < NKERNELS; ++k) {
    if (!table[k]) { fprintf(stderr, "kernel %d missing\n", k); return 2; }
    cudaFuncSetAttribute(table[k], cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
    (void)attr;
  }
  const size_t CAP = 1 << 20;
  uint8_t *d_img, *d_smem;
  uint32_t *d_in, *d_out, *d_status;
  cudaMalloc(&d_img, CAP);
  cudaMalloc(&d_smem, CAP);
  cudaMalloc(&d_in, CAP);
  cudaMalloc(&d_out, CAP);
  cudaMalloc(&d_status, 64);

  FILE* o = fopen(argv[2], first ? "ab" : "wb");
  if (!o) { perror(argv[2]); return 2; }
  if (!first) { fwrite("LDMR", 1, 4, o); fwrite(&count, 4, 1, o); }
  size_t pos = 8;
  std::vector<uint32_t> out;
  std::vector<uint8_t> smem;
  int failed = 0;
  for (uint32_t j = 0; j < count; ++j) {
    uint32_t h[6];
    memcpy(h, data.data() + pos, 24);
    pos += 24;
    const uint8_t* img = data.data() + pos;
    pos += h[2];
    const uint8_t* ins = data.data() + pos;
    pos += 4 * (size_t)h[3];
    if ((int)j < first) continue;
    uint32_t kid = h[0], threads = h[1], nimg = h[2], nin = h[3], nout = h[4], nsmem = h[5];
    out.assign(nout, 0xEEEEEEEEu);
    smem.assign(nsmem, 0xEE);
    cudaMemcpy(d_img, img, nimg, cudaMemcpyHostToDevice);
    cudaMemcpy(d_in, ins, 4 * (size_t)nin, cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0xEE, 4 * (size_t)nout + 4);
    cudaMemset(d_smem, 0xEE, nsmem + 16);
    cudaMemset(d_status, 0, 64);
    Kernel k = (Kernel)table[kid];
    k<<<1, threads, SMEM_BYTES>>>(d_img, nimg, d_in, d_out, d_smem, nsmem, d_status);
    cudaError_t e = cudaDeviceSynchronize();
    uint32_t status[2] = {0, 0};
    if (e == cudaSuccess) {
      cudaMemcpy(out.data(), d_out, 4 * (size_t)nout, cudaMemcpyDeviceToHost);
      cudaMemcpy(smem.data(), d_smem, nsmem, cudaMemcpyDeviceToHost);
      cudaMemcpy(status, d_status, 8, cudaMemcpyDeviceToHost);
      e = cudaGetLastError();
    }
    uint32_t st = e == cudaSuccess ? (status[1] ? 2u : 0u) : 1000u + (uint32_t)e;
    uint32_t rec[4] = {kid, st, nout, nsmem};
    fwrite(rec, 4, 4, o);
    fwrite(out.data(), 4, nout, o);
    fwrite(smem.data(), 1, nsmem, o);
    if (st) {
      ++failed;
      printf("FAILED job %u kernel %u: %s (smem base %u)\n", j, kid,
             e == cudaSuccess ? "image could not be placed" : cudaGetErrorString(e), status[0]);
      if (e != cudaSuccess) {
        fclose(o);
        printf("NEXT %u\n", j + 1);
        return 3;
      }
    }
  }
  fclose(o);
  printf("%u jobs, %d failed\n", count, failed);
  return 0;
}
