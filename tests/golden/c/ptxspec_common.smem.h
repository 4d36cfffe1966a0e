namespace smem_wgmma {
// How wgmma finds A and B in shared memory: the 64-bit matrix descriptor, the swizzle modes and the canonical layouts. Matrices start 16-byte aligned. A K-major operand (imm-trans = 0) has its K elements contiguous; an MN-major operand (imm-trans = 1, f16/bf16 only) has its M or N elements contiguous.
// Descriptor fields (spec/smem): encode_<field>(x) is the field's value for x.
// start_address: bits 0..13. Shared-memory byte address of the matrix, in 16-byte units.
PTXSPEC_HD constexpr uint64_t encode_start_address(uint64_t x) { return (x & 0x3ffff) >> 4; }
// leading_byte_offset: bits 16..29. LBO, in 16-byte units. K-major: no swizzle - offset between the two 8x16-byte core matrices along K; swizzled - unused while the K extent fits in one swizzle row, otherwise the offset from one W-byte chunk of K to the next (sparse B in 32B swizzle). MN-major: interleaved - offset from the first 8 K columns to the next 8; swizzled - offset from one swizzle width of M/N elements to the next.
PTXSPEC_HD constexpr uint64_t encode_leading_byte_offset(uint64_t x) { return (x & 0x3ffff) >> 4; }
// stride_byte_offset: bits 32..45. SBO, in 16-byte units. K-major: offset from 8 rows to the next 8 rows. MN-major: interleaved - offset from one 16-byte group of M/N elements to the next; swizzled - offset from the first 8 K columns to the next 8.
PTXSPEC_HD constexpr uint64_t encode_stride_byte_offset(uint64_t x) { return (x & 0x3ffff) >> 4; }
// base_offset: bits 49..51. Matrix base offset, for swizzled modes whose repeating pattern does not start on its natural boundary: (pattern start address >> 7) & 7; 0 when it does. The hardware subtracts it from the row phase of the address (see `swizzle`, measured on an H100).
PTXSPEC_HD constexpr uint64_t encode_base_offset(uint64_t x) { return x; }
// swizzle: bits 62..63. Swizzle mode code (see swizzle_modes).
PTXSPEC_HD constexpr uint64_t encode_swizzle(uint64_t x) { return x; }
constexpr uint64_t swizzle_none = 0;  // No swizzle: 8 rows of 16 bytes (interleaved core matrices).
constexpr uint64_t swizzle_128B = 1;  // 128-byte rows; the 16-byte units of row r are permuted by r mod 8.
constexpr uint64_t swizzle_64B = 2;  // 64-byte rows; the 16-byte units of row r are permuted by (r / 2) mod 4.
constexpr uint64_t swizzle_32B = 3;  // 32-byte rows; the 16-byte units of row r are swapped by (r / 4) mod 2.
// The 64-bit matrix descriptor; byte values as in the field descriptions, swizzle a swizzle_* code.
PTXSPEC_HD constexpr uint64_t make_descriptor(uint64_t start_address, uint64_t leading_byte_offset, uint64_t stride_byte_offset, uint64_t base_offset, uint64_t swizzle) {
  return (((encode_start_address(start_address)) & 0x3fffull) << 0)
       | (((encode_leading_byte_offset(leading_byte_offset)) & 0x3fffull) << 16)
       | (((encode_stride_byte_offset(stride_byte_offset)) & 0x3fffull) << 32)
       | (((encode_base_offset(base_offset)) & 0x7ull) << 49)
       | (((encode_swizzle(swizzle)) & 0x3ull) << 62);
}
// The swizzle on absolute byte address a: b = the mode's B (none 0, 32B 1, 64B 2, 128B 3),
// o = the base offset.
PTXSPEC_HD constexpr long long swizzle_address(long long a, long long b, long long o) { return a ^ ((((a >> 7) - o) & ((1 << b) - 1)) << 4); }
// canonical layout, K-major, no swizzle: ((8,m),(T,2k)):((1T,SBO),(1,LBO)); bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_K_major_interleaved(long long mn, long long k, long long bits, long long /*W*/, long long LBO, long long SBO) { return ((((mn % 8) * 128) + (((mn / 8) * SBO) * 8)) + ((k * bits) % 128)) + ((((k * bits) / 128) * LBO) * 8); }
// canonical layout, K-major, swizzled: ((8,m),(T,2k)):((sT,SBO),(1,T)) with s = W/16; bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_K_major_swizzled(long long mn, long long k, long long bits, long long W, long long LBO, long long SBO) { return (((((mn % 8) * W) * 8) + (((mn / 8) * SBO) * 8)) + ((k * bits) % (W * 8))) + ((((k * bits) / (W * 8)) * LBO) * 8); }
// canonical layout, MN-major, no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)); bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_MN_major_interleaved(long long mn, long long k, long long bits, long long /*W*/, long long LBO, long long SBO) { return ((((mn * bits) % 128) + ((((mn * bits) / 128) * SBO) * 8)) + ((k % 8) * 128)) + (((k / 8) * LBO) * 8); }
// canonical layout, MN-major, swizzled: ((T,s,m),(8,k)):((1,T,LBO),(sT,SBO)) with s = W/16; bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_MN_major_swizzled(long long mn, long long k, long long bits, long long W, long long LBO, long long SBO) { return ((((mn * bits) % (W * 8)) + ((((mn * bits) / (W * 8)) * LBO) * 8)) + (((k % 8) * W) * 8)) + (((k / 8) * SBO) * 8); }
}  // namespace smem_wgmma
}  // namespace ptxspec
