// A bf16 GEMM on the ptxspec header: C (M x N, f32) = A (M x K, bf16, row-major) * B, where B is
// given as Bt (N x K, bf16, row-major): both operands K-major, as wgmma reads them fastest.
//
// What comes from ptxspec.h: the matrix instruction (the generic entry point
// ptxspec::ops::wgmma_mma_async, m64n256k16 f32 += bf16 * bf16, both operands from shared memory
// through descriptors), the ordering instructions its rules ask for (wgmma.fence,
// wgmma.commit_group, wgmma.wait_group, fence.proxy.async), the matrix descriptor
// (smem_wgmma::MatrixDescriptor with named fields, the 128-byte swizzle mode, advance_k along K)
// and the accumulator's fragment map (where each of a thread's 128 results lies in D).
// What does not: moving tiles from global to shared memory. The bulk tensor copy engine (TMA)
// and the mbarriers it completes on are not matrix instructions and not in the spec; the few
// lines of inline asm for them are below, marked.
//
// Tiles: a CTA computes 128 x 256 of C; two consumer warpgroups take 64 rows each, one producer
// warp streams 64-column K slices of A and B into a ring of 4 shared-memory stages with TMA, in
// the 128-byte swizzled K-major layout that the descriptors describe.
#include <cuda.h>          // CUtensorMap and its enums (the encoder is looked up at run time)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#include <cuda_runtime.h>
#include <stdint.h>

#include "ptxspec.h"

namespace gemm {

namespace sm = ptxspec::smem_wgmma;
using ptxspec::SmemAddress;

constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, CONSUMERS = 2;
constexpr int THREADS = CONSUMERS * 128 + 32;  // the consumer warpgroups, then the producer warp
constexpr uint32_t A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2, STAGE_BYTES = A_BYTES + B_BYTES;
constexpr uint32_t SMEM_BYTES = STAGES * STAGE_BYTES + 2 * STAGES * 8 + 1024;  // + barriers, alignment

// The generic entry point: the wgmma.mma_async variant with these opcode fields. A shape or type
// combination the spec does not have is a compile error that lists the valid ones.
using MMA = ptxspec::ops::wgmma_mma_async<64, BN, 16, ptxspec::type::f32, ptxspec::type::bf16, ptxspec::type::bf16>;
using Acc = MMA::desc::d;  // the accumulator's fragment map (descriptor form)
static_assert(Acc::regs == BN / 2, "64 x 256 f32 accumulators: 128 registers per thread");
constexpr sm::SwizzleMode SWIZZLE = sm::swizzle_128B;

// A K-major operand of 64-element (128-byte) rows in 128B-swizzled shared memory: 8-row groups
// are 1024 bytes apart (SBO); LBO is not used while one instruction's K extent (16 elements,
// 32 bytes) fits in a swizzle row.
__device__ __forceinline__ sm::MatrixDescriptor operand(SmemAddress start) {
  return sm::MatrixDescriptor().start_address(start).leading_byte_offset(16).stride_byte_offset(1024).swizzle(SWIZZLE);
}

// The KK-th 16-column step of a 64-column stage: advance_k checks (static_assert, from the
// spec's advance_k rule for K-major swizzled operands) that the move stays legal.
template <int KK>
__device__ __forceinline__ void mma_step(float (&acc)[BN / 2], sm::MatrixDescriptor a, sm::MatrixDescriptor b,
                                         bool accumulate) {
  MMA::call(acc, sm::advance_k<sm::Major::K, SWIZZLE, 16, 16, 16 * KK>(a),
            sm::advance_k<sm::Major::K, SWIZZLE, 16, 16, 16 * KK>(b), accumulate);
}

// Keeps the compiler from touching the accumulators between the asynchronous instructions that
// own them (a code-generation fence; it emits nothing).
__device__ __forceinline__ void hold(float (&acc)[BN / 2]) {
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) asm volatile("" : "+f"(acc[i])::"memory");
}

// ---- not in ptxspec: mbarriers and the bulk tensor copy (inline asm) -------------------------
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_expect(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  } while (!done);
}
__device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap* map, int inner, int outer, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      ::"r"(dst), "l"(map), "r"(inner), "r"(outer), "r"(bar) : "memory");
}
// ---------------------------------------------------------------------------------------------

__global__ void __launch_bounds__(THREADS, 1)
kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_bt, float* __restrict__ c,
       int n, int k) {
  extern __shared__ uint8_t smem[];
  // The swizzle acts on absolute shared-memory addresses and its pattern repeats every 1024 bytes
  // (spec/smem: repeat): stages start on a 1024-byte boundary, so every base offset is 0.
  const uint32_t base = (SmemAddress(smem).value + 1023u) & ~1023u;
  const uint32_t bars = base + STAGES * STAGE_BYTES;
  auto full = [&](int s) { return bars + 8u * s; };                 // stage s holds data
  auto empty = [&](int s) { return bars + 8u * (STAGES + s); };     // stage s may be refilled
  auto a_tile = [&](int s) { return SmemAddress(base + s * STAGE_BYTES); };
  auto b_tile = [&](int s) { return SmemAddress(base + s * STAGE_BYTES + A_BYTES); };
  const int warp = threadIdx.x / 32, m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, tiles = k / BK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full(s), 1);
      mbar_init(empty(s), CONSUMERS * 128);
    }
    mbar_init_fence();
    ptxspec::fence_proxy_async_shared_cta();  // the initialised barriers, seen by the copy engine
  }
  __syncthreads();

  if (warp == CONSUMERS * 4) {  // the producer warp: one thread issues the copies
    if (threadIdx.x % 32 == 0) {
      for (int t = 0; t < tiles; ++t) {
        const int s = t % STAGES;
        if (t >= STAGES) mbar_wait(empty(s), ((t / STAGES) - 1) & 1);
        mbar_expect(full(s), STAGE_BYTES);
        tma_load(a_tile(s).value, &map_a, t * BK, m0, full(s));
        tma_load(b_tile(s).value, &map_bt, t * BK, n0, full(s));
      }
    }
    return;
  }

  // A consumer warpgroup: rows 64 * wg .. 64 * wg + 63 of the CTA's tile.
  const int wg = warp / 4, lane = threadIdx.x % 128;
  float acc[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
  for (int t = 0; t < tiles; ++t) {
    const int s = t % STAGES;
    mbar_wait(full(s), (t / STAGES) & 1);  // the copy engine wrote it: no proxy fence needed
    const sm::MatrixDescriptor a = operand(a_tile(s) + wg * 64 * 128), b = operand(b_tile(s));
    ptxspec::wgmma_fence_sync_aligned();  // rule: before the first wgmma, and after touching acc
    hold(acc);
    mma_step<0>(acc, a, b, t > 0);  // the first product overwrites D (scale-d false)
    mma_step<1>(acc, a, b, true);
    mma_step<2>(acc, a, b, true);
    mma_step<3>(acc, a, b, true);
    ptxspec::wgmma_commit_group_sync_aligned();
    hold(acc);
    ptxspec::wgmma_wait_group_sync_aligned<1>();  // the previous stage's products are done ...
    if (t > 0) mbar_arrive(empty((t - 1) % STAGES));  // ... so the producer may refill it
  }
  ptxspec::wgmma_wait_group_sync_aligned<0>();
  hold(acc);

  // Each thread's results, placed by the accumulator's fragment map (pairs of adjacent columns).
  float* out = c + static_cast<size_t>(m0 + wg * 64) * n + n0;
#pragma unroll
  for (int i = 0; i < BN / 2; i += 2) {
    const int row = Acc::row(lane, i), col = Acc::col(lane, i);
    *reinterpret_cast<float2*>(out + static_cast<size_t>(row) * n + col) = make_float2(acc[i], acc[i + 1]);
  }
}

static bool tensor_map(PFN_cuTensorMapEncodeTiled_v12000 encode, CUtensorMap* map, const void* data, int rows,
                       int cols, int box_rows) {
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 2};
  const cuuint32_t box[2] = {BK, static_cast<cuuint32_t>(box_rows)}, one[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(data), dims, strides, box, one,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace gemm

// C = A * Bt^T; M a multiple of 128, N of 256, K of 64. Returns 0, or a CUDA error code (negative:
// unsupported shape, no tensor-map encoder, bad tensor map).
extern "C" int gemm_bf16_f32(const void* a, const void* bt, float* c, int m, int n, int k, void* stream) {
  using namespace gemm;
  if (m % BM || n % BN || k % BK || k <= 0) return -1;
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (encode == nullptr) {
    cudaDriverEntryPointQueryResult found;
    void* fn = nullptr;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess || found != cudaDriverEntryPointSuccess)
      return -2;
    encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }
  CUtensorMap map_a, map_bt;
  if (!tensor_map(encode, &map_a, a, m, k, BM) || !tensor_map(encode, &map_bt, bt, n, k, BN)) return -3;
  static bool sized = false;
  if (!sized) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
    if (e != cudaSuccess) return e;
    sized = true;
  }
  kernel<<<dim3(n / BN, m / BM), THREADS, SMEM_BYTES, static_cast<cudaStream_t>(stream)>>>(map_a, map_bt, c, n, k);
  return cudaGetLastError();
}
