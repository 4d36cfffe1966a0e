// Host driver of the bindings campaign: loads in.bin, launches every generated kernel once (one
// block: a warp for mma, a warpgroup for wgmma), writes every kernel's D registers to out.bin.
//   bindings_run IN OUT_WORDS OUT
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "bindings_parts.h"

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 2; } } while (0)

int main(int argc, char** argv) {
  if (argc != 4) { std::fprintf(stderr, "usage: %s IN OUT_WORDS OUT\n", argv[0]); return 1; }
  FILE* f = std::fopen(argv[1], "rb");
  if (!f) { std::perror(argv[1]); return 1; }
  std::vector<uint32_t> in;
  uint32_t w;
  while (std::fread(&w, 4, 1, f) == 1) in.push_back(w);
  std::fclose(f);
  size_t out_words = std::strtoull(argv[2], nullptr, 10);
  uint32_t *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, in.size() * 4));
  CHECK(cudaMalloc(&d_out, out_words * 4));
  CHECK(cudaMemcpy(d_in, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0xFF, out_words * 4));
  int launched = 0;
  for (int p = 0; p < PARTS; ++p)
    for (int i = 0; i < *part_n[p]; ++i) {
      parts[p][i].fn<<<1, parts[p][i].threads>>>(d_in, d_out);
      ++launched;
    }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<uint32_t> out(out_words);
  CHECK(cudaMemcpy(out.data(), d_out, out_words * 4, cudaMemcpyDeviceToHost));
  f = std::fopen(argv[3], "wb");
  std::fwrite(out.data(), 4, out_words, f);
  std::fclose(f);
  std::printf("launched %d kernels, %zu output words\n", launched, out_words);
  return 0;
}
