// Host driver of the tcgen05 campaigns (tmemgen.py, mmagen.py, redgen.py): runs every kernel once
// (tmem_ctas[k] CTAs of 128 threads: 1 where the kernels define no tmem_ctas, 2 for a cluster pair,
// whose kernel declares its cluster shape) and writes RESULTS: "MSRT", the kernel count, then per
// kernel its index, its CUDA error (0: none) and its output words.
//
//   tmem_run RESULTS
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

extern const void* const tmem_kernels[];
extern const uint32_t tmem_words[];
extern const uint32_t tmem_nkernels;
extern const uint32_t tmem_ctas[] __attribute__((weak));  // absent: one CTA per kernel

typedef void (*Kernel)(uint32_t*);

int main(int argc, char** argv)
{
  if (argc < 2) { fprintf(stderr, "usage: %s RESULTS\n", argv[0]); return 2; }
  FILE* o = fopen(argv[1], "wb");
  if (!o) { perror(argv[1]); return 2; }
  const uint32_t magic = 0x5452534Du;
  fwrite(&magic, 4, 1, o);
  fwrite(&tmem_nkernels, 4, 1, o);
  uint32_t* d_out = 0;
  if (cudaMalloc(&d_out, 4u << 20) != cudaSuccess) { fprintf(stderr, "cudaMalloc failed\n"); return 2; }
  std::vector<uint32_t> out;
  int failed = 0;
  for (uint32_t k = 0; k < tmem_nkernels; ++k) {
    out.assign(tmem_words[k], 0xDDDDDDDDu);
    cudaMemset(d_out, 0xDD, 4u * tmem_words[k]);
    ((Kernel)tmem_kernels[k])<<<tmem_ctas ? tmem_ctas[k] : 1u, 128>>>(d_out);
    uint32_t err = (uint32_t)cudaDeviceSynchronize();
    if (!err) err = (uint32_t)cudaMemcpy(out.data(), d_out, 4u * tmem_words[k], cudaMemcpyDeviceToHost);
    if (err) { ++failed; fprintf(stderr, "kernel %u: %s\n", k, cudaGetErrorString((cudaError_t)err)); }
    const uint32_t head[3] = {k, err, tmem_words[k]};
    fwrite(head, 4, 3, o);
    fwrite(out.data(), 4, out.size(), o);
    if (err == cudaErrorIllegalInstruction || err == cudaErrorLaunchFailure) break;  // the context is lost
  }
  fclose(o);
  printf("%u kernels, %d failed\n", tmem_nkernels, failed);
  return failed ? 1 : 0;
}
