// Host driver of the wgmma device campaign (see campaigns/README.md).
//
//   wgmma_run CASES.bin OUT.bin [FIRST_CASE]
//
// Reads the case file written by gen_wgmma.py, materialises each case's raw inputs (random
// segments by the counter-based hash shared with wgmma_harness.py, explicit segments as given),
// launches the case's kernel on one warpgroup and appends its D registers to OUT.bin. If a launch
// fails (the CUDA context is then lost), it writes the case as failed, prints NEXT <i> and exits
// with status 3 so that run_wgmma.sh can start a fresh process at case i.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "wgmma_parts.h"

static const uint32_t MAGIC_IN = 0x434D4757, MAGIC_OUT = 0x4F4D4757;
static const uint32_t SEG_DATA = 2;  // SEG_RAND = 1: anything else
static const int THREADS = 128;

static uint64_t splitmix(uint64_t seed, uint64_t j)
{
  uint64_t z = seed + (j + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  uint32_t u32() { uint32_t v; memcpy(&v, p, 4); p += 4; return v; }
  uint64_t u64() { uint64_t v; memcpy(&v, p, 8); p += 8; return v; }
};

// Fill `buf` (already zeroed) from the segments that follow in the case file.
static void read_array(Reader& r, std::vector<uint8_t>& buf)
{
  uint32_t nseg = r.u32();
  for (uint32_t s = 0; s < nseg; ++s) {
    uint32_t kind = r.u32(), off = r.u32(), nbytes = r.u32();
    if (off + nbytes > buf.size()) { fprintf(stderr, "segment out of range\n"); exit(2); }
    if (kind == SEG_DATA) {
      memcpy(buf.data() + off, r.p, nbytes);
      r.p += (nbytes + 3) & ~3u;
      continue;
    }
    uint64_t seed = r.u64();
    uint32_t slot_bits = r.u32(), junk = r.u32(), alen = r.u32();
    std::vector<uint32_t> alpha(alen);
    memcpy(alpha.data(), r.p, 4 * alen);
    r.p += 4 * alen;
    uint64_t nslots = (uint64_t)nbytes * 8 / slot_bits;
    uint8_t* dst = buf.data() + off;
    for (uint64_t j = 0; j < nslots; ++j) {
      uint64_t z = splitmix(seed, j);
      uint64_t v = (uint64_t)alpha[(z >> 32) % alen] ^ (z & junk);
      if (slot_bits >= 8) {
        for (uint32_t b = 0; b < slot_bits / 8; ++b) dst[j * (slot_bits / 8) + b] = (uint8_t)(v >> (8 * b));
      } else {
        uint64_t bit = j * slot_bits;
        dst[bit / 8] |= (uint8_t)((v & ((1u << slot_bits) - 1)) << (bit % 8));
      }
    }
  }
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); return e_; } } while (0)

int main(int argc, char** argv)
{
  if (argc < 3) { fprintf(stderr, "usage: %s CASES OUT [FIRST]\n", argv[0]); return 2; }
  uint32_t first = argc > 3 ? (uint32_t)atoi(argv[3]) : 0;
  FILE* f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 2; }
  std::vector<uint8_t> file;
  { uint8_t tmp[1 << 16]; size_t n; while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) file.insert(file.end(), tmp, tmp + n); }
  fclose(f);
  Reader r{file.data(), file.data() + file.size()};
  if (r.u32() != MAGIC_IN) { fprintf(stderr, "bad case file\n"); return 2; }
  r.u32();
  uint32_t ncases = r.u32(), target = r.u32();

  // WGMMA_DUMP=FILE: write every case's materialised inputs (img, a, c, meta) and stop, no GPU
  // needed; used to check that this file and wgmma_harness.py draw the same inputs.
  if (const char* dump = getenv("WGMMA_DUMP")) {
    FILE* fd = fopen(dump, "wb");
    std::vector<uint8_t> img, a, c, m;
    for (uint32_t i = 0; i < ncases; ++i) {
      r.u32(); r.u32(); uint32_t n_a = r.u32(), n_d = r.u32(), img_bytes = r.u32(), has_meta = r.u32();
      r.u64(); r.u64();
      img.assign(img_bytes, 0); a.assign(THREADS * n_a * 4, 0); c.assign(THREADS * n_d * 4, 0);
      m.assign(has_meta ? THREADS * 4 : 0, 0);
      read_array(r, img); read_array(r, a); read_array(r, c); read_array(r, m);
      for (auto* v : {&img, &a, &c, &m}) fwrite(v->data(), 1, v->size(), fd);
    }
    fclose(fd);
    return 0;
  }

  void* table[NKERNELS] = {0};
  wgmma_register_all(table);
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) { fprintf(stderr, "no device\n"); return 2; }
  if (first == 0) printf("device %s sm_%d%d, %d kernels, %u cases\n", prop.name, prop.major, prop.minor, NKERNELS, ncases);

  const size_t MAXIMG = 192 * 1024, MAXREG = THREADS * 256 * 4;
  uint8_t *d_img; uint32_t *d_a, *d_c, *d_m, *d_out, *d_status;
  cudaMalloc(&d_img, MAXIMG); cudaMalloc(&d_a, MAXREG); cudaMalloc(&d_c, MAXREG); cudaMalloc(&d_m, THREADS * 4);
  cudaMalloc(&d_out, MAXREG); cudaMalloc(&d_status, 64);
  for (int k = 0; k < NKERNELS; ++k)
    if (cudaFuncSetAttribute(table[k], cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024) != cudaSuccess) {
      fprintf(stderr, "kernel %d: cudaFuncSetAttribute failed\n", k); return 2;
    }

  FILE* fo = fopen(argv[2], first == 0 ? "wb" : "ab");
  std::vector<uint8_t> img, a, c, m;
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < ncases; ++i) {
    uint32_t kid = r.u32(), scale_d = r.u32(), n_a = r.u32(), n_d = r.u32(), img_bytes = r.u32(), has_meta = r.u32();
    uint64_t adesc = r.u64(), bdesc = r.u64();
    img.assign(img_bytes, 0); a.assign(THREADS * n_a * 4, 0); c.assign(THREADS * n_d * 4, 0);
    m.assign(has_meta ? THREADS * 4 : 0, 0);
    read_array(r, img); read_array(r, a); read_array(r, c); read_array(r, m);
    if (i < first) continue;
    if (img_bytes > MAXIMG || a.size() > MAXREG || c.size() > MAXREG || kid >= NKERNELS) {
      fprintf(stderr, "case %u too large\n", i); return 2;
    }
    uint32_t status[2] = {0xFFFFFFFFu, 0};
    cudaMemcpy(d_img, img.data(), img.size(), cudaMemcpyHostToDevice);
    if (!a.empty()) cudaMemcpy(d_a, a.data(), a.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(d_c, c.data(), c.size(), cudaMemcpyHostToDevice);
    if (!m.empty()) cudaMemcpy(d_m, m.data(), m.size(), cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0xEE, THREADS * n_d * 4);
    cudaMemcpy(d_status, status, 8, cudaMemcpyHostToDevice);
    const uint8_t* p_img = d_img; const uint32_t *p_a = d_a, *p_c = d_c, *p_m = d_m;
    uint32_t *p_out = d_out, *p_status = d_status;
    void* args[] = {&p_img, &img_bytes, &p_a, &p_c, &p_m, &adesc, &bdesc, &scale_d, &p_out, &p_status};
    cudaError_t e = cudaLaunchKernel(table[kid], dim3(1), dim3(THREADS), args, target + img_bytes, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    out.assign(THREADS * n_d, 0);
    uint32_t st = 0xFFFFFFFFu;
    if (e == cudaSuccess) e = cudaMemcpy(out.data(), d_out, out.size() * 4, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(status, d_status, 8, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) st = status[0];
    uint32_t hdr[4] = {MAGIC_OUT, i, e == cudaSuccess ? st : (0xE0000000u | (uint32_t)e), n_d};
    fwrite(hdr, 4, 4, fo);
    fwrite(out.data(), 4, out.size(), fo);
    fflush(fo);
    if (e != cudaSuccess) {
      printf("CASE %u kernel %u FAILED: %s\nNEXT %u\n", i, kid, cudaGetErrorString(e), i + 1);
      fclose(fo);
      return 3;
    }
  }
  fclose(fo);
  printf("done %u cases\n", ncases);
  return 0;
}
