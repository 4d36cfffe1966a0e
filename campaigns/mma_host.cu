// Host driver of the mma device campaign (see campaigns/notes/2026-11-22-mma.md).
//
//   mma_run IN.bin OUT.bin
//
// Reads the register inputs written by gen_mma.py (mma_harness.write_inputs): per kernel, the A,
// B, C (and metadata) words of every thread of every case. Launches each kernel once with one
// warp (block of 32 threads) per case, and writes every case's D words, with the launch status
// of the kernel, to OUT.bin (mma_harness.read_outputs). D is filled with 0xEEEEEEEE before each
// launch, so a register the kernel did not store shows.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "mma_parts.h"

static const uint32_t MAGIC_IN = 0x49414D4D, MAGIC_OUT = 0x4F414D4D;
static const int THREADS = 32;

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  uint32_t u32() {
    if (p + 4 > end) { fprintf(stderr, "input file truncated\n"); exit(2); }
    uint32_t v; memcpy(&v, p, 4); p += 4; return v;
  }
  const uint32_t* words(size_t n) {
    if (p + 4 * n > end) { fprintf(stderr, "input file truncated\n"); exit(2); }
    const uint32_t* q = (const uint32_t*)p; p += 4 * n; return q;
  }
};

int main(int argc, char** argv)
{
  if (argc < 3) { fprintf(stderr, "usage: %s IN OUT\n", argv[0]); return 2; }
  FILE* f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 2; }
  std::vector<uint8_t> file;
  { uint8_t tmp[1 << 16]; size_t n; while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) file.insert(file.end(), tmp, tmp + n); }
  fclose(f);
  Reader r{file.data(), file.data() + file.size()};
  if (r.u32() != MAGIC_IN) { fprintf(stderr, "bad input file\n"); return 2; }
  r.u32();
  uint32_t nk = r.u32();

  void* table[NKERNELS] = {0};
  mma_register_all(table);
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) { fprintf(stderr, "no device\n"); return 2; }
  printf("device %s sm_%d%d, %d kernels compiled, %u in the input\n", prop.name, prop.major, prop.minor, NKERNELS, nk);

  FILE* fo = fopen(argv[2], "wb");
  if (!fo) { perror(argv[2]); return 2; }
  uint32_t hdr[2] = {MAGIC_OUT, nk};
  fwrite(hdr, 4, 2, fo);
  int failed = 0;
  uint32_t total = 0;
  for (uint32_t j = 0; j < nk; ++j) {
    uint32_t kid = r.u32(), n = r.u32();
    uint32_t w[5];  // a, b, c, meta, d
    for (int q = 0; q < 5; ++q) w[q] = r.u32();
    if (kid >= NKERNELS || !table[kid]) { fprintf(stderr, "kernel %u not compiled\n", kid); return 2; }
    const uint32_t* host[4];
    uint32_t* dev[5] = {0, 0, 0, 0, 0};
    cudaError_t e = cudaSuccess;
    for (int q = 0; q < 4; ++q) {
      size_t cnt = (size_t)n * THREADS * w[q];
      host[q] = r.words(cnt);
      size_t bytes = cnt ? cnt * 4 : 4;
      if (e == cudaSuccess) e = cudaMalloc(&dev[q], bytes);
      if (e == cudaSuccess && cnt) e = cudaMemcpy(dev[q], host[q], cnt * 4, cudaMemcpyHostToDevice);
    }
    size_t dcnt = (size_t)n * THREADS * w[4];
    std::vector<uint32_t> out(dcnt, 0xEEEEEEEEu);
    if (e == cudaSuccess) e = cudaMalloc(&dev[4], dcnt * 4);
    if (e == cudaSuccess) e = cudaMemset(dev[4], 0xEE, dcnt * 4);
    if (e == cudaSuccess) {
      void* args[] = {&dev[0], &dev[1], &dev[2], &dev[3], &dev[4]};
      e = cudaLaunchKernel(table[kid], dim3(n), dim3(THREADS), args, 0, 0);
    }
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(out.data(), dev[4], dcnt * 4, cudaMemcpyDeviceToHost);
    for (int q = 0; q < 5; ++q) if (dev[q]) cudaFree(dev[q]);
    uint32_t kh[4] = {kid, n, w[4], (uint32_t)e};
    fwrite(kh, 4, 4, fo);
    fwrite(out.data(), 4, dcnt, fo);
    total += n;
    if (e != cudaSuccess) {
      printf("kernel %u FAILED: %s\n", kid, cudaGetErrorString(e));
      failed++;
      if (e != cudaErrorInvalidValue && e != cudaErrorInvalidDeviceFunction) break;  // context lost
    }
  }
  fclose(fo);
  printf("done: %u cases, %d kernels failed\n", total, failed);
  return failed ? 3 : 0;
}
