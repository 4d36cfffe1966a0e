// Host driver of the executor campaign's wgmma kernels (campaigns/numerics/numgen.py).
//
//   ngwg_run IN.bin OUT.bin
//
// IN: u32 magic, kernel, ncases, A words, D words, has metadata, image bytes; then the images
// (ncases x image bytes), A (ncases x 128 x A words), C (ncases x 128 x D words), metadata
// (ncases x 128), descriptors (ncases x 2 u64: A, B), scale-d (ncases u32). One launch, one
// warpgroup (block) per case. OUT: u32 magic, kernel, ncases, D words, status; D words.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#include "ngwg_parts.h"

static const uint32_t MAGIC_IN = 0x4E474E49, MAGIC_OUT = 0x4E474E4F;

int main(int argc, char** argv)
{
  if (argc < 3) { fprintf(stderr, "usage: %s IN OUT\n", argv[0]); return 2; }
  FILE* f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 2; }
  std::vector<uint8_t> file;
  { uint8_t tmp[1 << 16]; size_t n; while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) file.insert(file.end(), tmp, tmp + n); }
  fclose(f);
  const uint32_t* h = (const uint32_t*)file.data();
  if (h[0] != MAGIC_IN) { fprintf(stderr, "bad input\n"); return 2; }
  uint32_t kid = h[1], n = h[2], na = h[3], nd = h[4], hm = h[5], ib = h[6];
  const uint8_t* p = file.data() + 28;
  size_t s_img = (size_t)n * ib, s_a = (size_t)n * 128 * na * 4, s_c = (size_t)n * 128 * nd * 4,
         s_m = (size_t)n * 128 * 4, s_d = (size_t)n * 16, s_sd = (size_t)n * 4;
  if (28 + s_img + s_a + s_c + s_m + s_d + s_sd != file.size()) { fprintf(stderr, "size mismatch\n"); return 2; }
  void* table[NKERNELS] = {0};
  ngwg_register_all(table);
  if (kid >= NKERNELS || !table[kid]) { fprintf(stderr, "kernel %u not compiled\n", kid); return 2; }
  uint8_t* d_img; uint32_t *d_a, *d_c, *d_m, *d_sd, *d_out, *d_status; uint64_t* d_desc;
  cudaError_t e = cudaSuccess;
  e = cudaMalloc(&d_img, s_img ? s_img : 16);
  if (e == cudaSuccess) e = cudaMalloc(&d_a, s_a ? s_a : 16);
  if (e == cudaSuccess) e = cudaMalloc(&d_c, s_c);
  if (e == cudaSuccess) e = cudaMalloc(&d_m, s_m);
  if (e == cudaSuccess) e = cudaMalloc(&d_desc, s_d);
  if (e == cudaSuccess) e = cudaMalloc(&d_sd, s_sd);
  if (e == cudaSuccess) e = cudaMalloc(&d_out, s_c);
  if (e == cudaSuccess) e = cudaMalloc(&d_status, 64);
  if (e == cudaSuccess) e = cudaMemcpy(d_img, p, s_img, cudaMemcpyHostToDevice); p += s_img;
  if (e == cudaSuccess && s_a) e = cudaMemcpy(d_a, p, s_a, cudaMemcpyHostToDevice); p += s_a;
  if (e == cudaSuccess) e = cudaMemcpy(d_c, p, s_c, cudaMemcpyHostToDevice); p += s_c;
  if (e == cudaSuccess) e = cudaMemcpy(d_m, p, s_m, cudaMemcpyHostToDevice); p += s_m;
  if (e == cudaSuccess) e = cudaMemcpy(d_desc, p, s_d, cudaMemcpyHostToDevice); p += s_d;
  if (e == cudaSuccess) e = cudaMemcpy(d_sd, p, s_sd, cudaMemcpyHostToDevice); p += s_sd;
  if (e == cudaSuccess) e = cudaMemset(d_out, 0xEE, s_c);
  uint32_t smem = 8192 + ib;
  if (e == cudaSuccess) e = cudaFuncSetAttribute(table[kid], cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (e == cudaSuccess) {
    void* args[] = {&d_img, &ib, &d_a, &d_c, &d_m, &d_desc, &d_sd, &d_out, &d_status};
    e = cudaLaunchKernel(table[kid], dim3(n), dim3(128), args, smem, 0);
  }
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  std::vector<uint32_t> out(s_c / 4, 0xEEEEEEEEu);
  if (e == cudaSuccess) e = cudaMemcpy(out.data(), d_out, s_c, cudaMemcpyDeviceToHost);
  FILE* fo = fopen(argv[2], "wb");
  uint32_t hdr[5] = {MAGIC_OUT, kid, n, nd, (uint32_t)e};
  fwrite(hdr, 4, 5, fo);
  fwrite(out.data(), 4, out.size(), fo);
  fclose(fo);
  if (e != cudaSuccess) { printf("kernel %u: %s\n", kid, cudaGetErrorString(e)); return 3; }
  return 0;
}
