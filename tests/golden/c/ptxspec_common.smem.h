namespace smem_tcgen05 {
// How tcgen05.mma (A and B) and tcgen05.cp (the source) find a matrix in shared memory: the 64-bit shared-memory descriptor of Blackwell. Start address, LBO, SBO, base offset and the canonical layouts are those of wgmma (spec/smem/wgmma.yaml); what changed: bits 46-48 hold a fixed 0b001 (CUTLASS calls bits 46-47 the descriptor version, 1 for Blackwell), bit 52 says how LBO is read, and the swizzle field grows to 3 bits at 61-63 (a Hopper code c reads as 2c here) with one new mode, 128-byte swizzling of 32-byte units (MN-major only). Runtime facts: ptxas never looks inside a descriptor, and nothing here ran on hardware.
// Descriptor fields (spec/smem): encode_<field>(x) is the field's value for x.
// start_address: bits 0..13. Shared-memory byte address of the matrix, in 16-byte units.
PTXSPEC_HD constexpr uint64_t encode_start_address(uint64_t x) { return (x & 0x3ffff) >> 4; }
// leading_byte_offset: bits 16..29. LBO, in 16-byte units, as for wgmma (the offset between core matrices or swizzle atoms along the leading dimension); with lbo_mode 1 the address of the second 16-byte chunk of K instead (see lbo_mode).
PTXSPEC_HD constexpr uint64_t encode_leading_byte_offset(uint64_t x) { return (x & 0x3ffff) >> 4; }
// stride_byte_offset: bits 32..45. SBO, in 16-byte units, as for wgmma (the offset from one group of 8 rows, or of K columns, to the next).
PTXSPEC_HD constexpr uint64_t encode_stride_byte_offset(uint64_t x) { return (x & 0x3ffff) >> 4; }
// version: bits 46..48. Fixed 0b001 (bits 46-48; CUTLASS names bits 46-47 the version, 1 on Blackwell).
PTXSPEC_HD constexpr uint64_t encode_version(uint64_t /*x*/) { return 1; }
// base_offset: bits 49..51. Matrix base offset, as for wgmma: 0 when the swizzle pattern starts on its repeat boundary, else (pattern start address >> 7) & 7.
PTXSPEC_HD constexpr uint64_t encode_base_offset(uint64_t x) { return x; }
// lbo_mode: bits 52..52. How LBO is read: 0 as a byte offset (as on Hopper); 1 as the absolute address of the second chunk of a 48-byte K extent that would cross a 128-byte boundary (sm_103a only, with 128-byte swizzling and base offset 0).
PTXSPEC_HD constexpr uint64_t encode_lbo_mode(uint64_t x) { return x; }
// fixed_53: bits 53..60. Fixed 0 (bits 53-60).
PTXSPEC_HD constexpr uint64_t encode_fixed_53(uint64_t /*x*/) { return 0; }
// swizzle: bits 61..63. Swizzle mode code (see swizzle_modes); 3, 5 and 7 are invalid.
PTXSPEC_HD constexpr uint64_t encode_swizzle(uint64_t x) { return x; }
constexpr uint64_t swizzle_none = 0;  // No swizzle: 8 rows of 16 bytes (interleaved core matrices).
constexpr uint64_t swizzle_128B_base32B = 1;  // 128-byte rows of 32-byte units, 4 rows per atom; the 32-byte units of row r are permuted by r mod 4. MN-major only.
constexpr uint64_t swizzle_128B = 2;  // 128-byte rows; the 16-byte units of row r are permuted by r mod 8.
constexpr uint64_t swizzle_64B = 4;  // 64-byte rows; the 16-byte units of row r are permuted by (r / 2) mod 4.
constexpr uint64_t swizzle_32B = 6;  // 32-byte rows; the 16-byte units of row r are swapped by (r / 4) mod 2.
// The 64-bit matrix descriptor; byte values as in the field descriptions, swizzle a swizzle_* code; fixed fields hold their value.
PTXSPEC_HD constexpr uint64_t make_descriptor(uint64_t start_address, uint64_t leading_byte_offset, uint64_t stride_byte_offset, uint64_t base_offset, uint64_t lbo_mode, uint64_t swizzle) {
  return (((encode_start_address(start_address)) & 0x3fffull) << 0)
       | (((encode_leading_byte_offset(leading_byte_offset)) & 0x3fffull) << 16)
       | (((encode_stride_byte_offset(stride_byte_offset)) & 0x3fffull) << 32)
       | (((encode_version(0)) & 0x7ull) << 46)
       | (((encode_base_offset(base_offset)) & 0x7ull) << 49)
       | (((encode_lbo_mode(lbo_mode)) & 0x1ull) << 52)
       | (((encode_fixed_53(0)) & 0xffull) << 53)
       | (((encode_swizzle(swizzle)) & 0x7ull) << 61);
}
// The swizzle on absolute byte address a: b = the mode's B (none 0, 32B 1, 64B 2, 128B 3),
// o = the base offset, u = the bytes the mode moves as one (16; 32 for swizzle_128B_base32B).
PTXSPEC_HD constexpr long long swizzle_address(long long a, long long b, long long o, long long u) { return a ^ ((((a >> 7) - o) & ((1 << b) - 1)) * u); }
// canonical layout, K-major, no swizzle: ((8,m),(T,2k)):((1T,SBO),(1,LBO)); bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_K_major_interleaved(long long mn, long long k, long long bits, long long /*W*/, long long LBO, long long SBO) { return ((((mn % 8) * 128) + (((mn / 8) * SBO) * 8)) + ((k * bits) % 128)) + ((((k * bits) / 128) * LBO) * 8); }
// canonical layout, K-major, swizzled: ((8,m),(T,2k)):((sT,SBO),(1,T)) with s = W/16; bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_K_major_swizzled(long long mn, long long k, long long bits, long long W, long long LBO, long long SBO) { return (((((mn % 8) * W) * 8) + (((mn / 8) * SBO) * 8)) + ((k * bits) % (W * 8))) + ((((k * bits) / (W * 8)) * LBO) * 8); }
// canonical layout, MN-major, no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)); bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_MN_major_interleaved(long long mn, long long k, long long bits, long long /*W*/, long long LBO, long long SBO) { return ((((mn * bits) % 128) + ((((mn * bits) / 128) * SBO) * 8)) + ((k % 8) * 128)) + (((k / 8) * LBO) * 8); }
// canonical layout, MN-major, swizzled: ((T,s,m),(R,k)):((1,T,LBO),(sT,SBO)) with s = W/16; bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_MN_major_swizzled(long long mn, long long k, long long bits, long long W, long long R, long long LBO, long long SBO) { return ((((mn * bits) % (W * 8)) + ((((mn * bits) / (W * 8)) * LBO) * 8)) + (((k % R) * W) * 8)) + (((k / R) * SBO) * 8); }
}  // namespace smem_tcgen05

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

namespace idesc_tcgen05 {
// The 32-bit instruction descriptor of tcgen05.mma (a register operand, or a constant): the shape M x N, the element types, sparsity, negation, transposition and, for the block-scaled kinds, the scale-factor format and which part of the scale registers is used. Its layout depends on the .kind qualifier (Tables 42, 43 and 44). ptxas never looks inside it: a bad descriptor assembles (tests/survey/tcgen05.md), so everything here is a runtime fact, not checked by ptxas and not run on hardware by this project.
// (PTX ISA 9.7.16.4.2; spec/descriptors.) One namespace per layout (the .kind picks it). make()
// takes every field but the reserved ones, in bit order: a number field the number it describes
// (M, N, a scale-factor id), a code field its code (the <field>_<value> constants); get_<field>
// reads it back the same way.
namespace dense {  // kind::f16, kind::tf32, kind::f8f6f4, kind::i8 (Table 42)
constexpr uint32_t atype_bf16 = 1;
constexpr uint32_t atype_e2m1 = 5;
constexpr uint32_t atype_e2m3 = 3;
constexpr uint32_t atype_e3m2 = 4;
constexpr uint32_t atype_e4m3 = 0;
constexpr uint32_t atype_e5m2 = 1;
constexpr uint32_t atype_f16 = 0;
constexpr uint32_t atype_s8 = 1;
constexpr uint32_t atype_tf32 = 2;
constexpr uint32_t atype_u8 = 0;
constexpr uint32_t btype_bf16 = 1;
constexpr uint32_t btype_e2m1 = 5;
constexpr uint32_t btype_e2m3 = 3;
constexpr uint32_t btype_e3m2 = 4;
constexpr uint32_t btype_e4m3 = 0;
constexpr uint32_t btype_e5m2 = 1;
constexpr uint32_t btype_f16 = 0;
constexpr uint32_t btype_s8 = 1;
constexpr uint32_t btype_tf32 = 2;
constexpr uint32_t btype_u8 = 0;
constexpr uint32_t dtype_f16 = 0;
constexpr uint32_t dtype_f32 = 1;
constexpr uint32_t dtype_s32 = 2;
constexpr uint32_t max_shift_16 = 2;
constexpr uint32_t max_shift_32 = 3;
constexpr uint32_t max_shift_8 = 1;
constexpr uint32_t max_shift_none = 0;
constexpr uint32_t sparse_dense = 0;
constexpr uint32_t sparse_sparse = 1;
// sparsity_selector: bits 0..1. Which threads supply the sparsity metadata (0-3); 0 when dense. Legal: 0, 1, 2, 3.
PTXSPEC_HD constexpr uint32_t encode_sparsity_selector(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_sparsity_selector(uint32_t v) { return (v & 0x3u); }
// sparse: bits 2..2. Whether A is 2:4 sparse (tcgen05.mma.sp).
// saturate: bits 3..3. Clamp the integer result to the s32 range (kind::i8 only). Legal: kind::i8: 0, 1; other kinds: 0.
PTXSPEC_HD constexpr uint32_t encode_saturate(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_saturate(uint32_t v) { return (v & 0x1u); }
// dtype: bits 4..5. The type of D.
// reserved_6: bits 6..6. Reserved, 0.
// atype: bits 7..9. The type of A.
// btype: bits 10..12. The type of B.
// negate_a: bits 13..13. Negate A (not with kind::i8). Legal: kind::i8: 0; other kinds: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_negate_a(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_negate_a(uint32_t v) { return (v & 0x1u); }
// negate_b: bits 14..14. Negate B (not with kind::i8). Legal: kind::i8: 0; other kinds: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_negate_b(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_negate_b(uint32_t v) { return (v & 0x1u); }
// transpose_a: bits 15..15. A is MN-major (1) rather than K-major (0). Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_transpose_a(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_transpose_a(uint32_t v) { return (v & 0x1u); }
// transpose_b: bits 16..16. B is MN-major (1) rather than K-major (0). Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_transpose_b(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_transpose_b(uint32_t v) { return (v & 0x1u); }
// n: bits 17..22. N, in units of 8.
PTXSPEC_HD constexpr uint32_t encode_n(uint32_t x) { return x >> 3; }
PTXSPEC_HD constexpr uint32_t decode_n(uint32_t v) { return ((v & 0x3fu) << 3); }
// reserved_23: bits 23..23. Reserved, 0.
// m: bits 24..28. M, in units of 16 (the M of the CTA pair with .cta_group::2).
PTXSPEC_HD constexpr uint32_t encode_m(uint32_t x) { return x >> 4; }
PTXSPEC_HD constexpr uint32_t decode_m(uint32_t v) { return ((v & 0x1fu) << 4); }
// reserved_29: bits 29..29. Reserved, 0.
// max_shift: bits 30..31. The largest shift of B that .ws may reuse (none, 8, 16 or 32 columns); 0 outside .ws.
PTXSPEC_HD constexpr uint32_t make(uint32_t sparsity_selector, uint32_t sparse, uint32_t saturate, uint32_t dtype, uint32_t atype, uint32_t btype, uint32_t negate_a, uint32_t negate_b, uint32_t transpose_a, uint32_t transpose_b, uint32_t n, uint32_t m, uint32_t max_shift) {
  return ((encode_sparsity_selector(sparsity_selector) & 0x3u) << 0)
       | ((sparse & 0x1u) << 2)
       | ((encode_saturate(saturate) & 0x1u) << 3)
       | ((dtype & 0x3u) << 4)
       | ((uint32_t)0u << 6)
       | ((atype & 0x7u) << 7)
       | ((btype & 0x7u) << 10)
       | ((encode_negate_a(negate_a) & 0x1u) << 13)
       | ((encode_negate_b(negate_b) & 0x1u) << 14)
       | ((encode_transpose_a(transpose_a) & 0x1u) << 15)
       | ((encode_transpose_b(transpose_b) & 0x1u) << 16)
       | ((encode_n(n) & 0x3fu) << 17)
       | ((uint32_t)0u << 23)
       | ((encode_m(m) & 0x1fu) << 24)
       | ((uint32_t)0u << 29)
       | ((max_shift & 0x3u) << 30);
}
PTXSPEC_HD constexpr uint32_t get_sparsity_selector(uint32_t desc) { return decode_sparsity_selector((desc >> 0) & 0x3u); }
PTXSPEC_HD constexpr uint32_t get_sparse(uint32_t desc) { return (desc >> 2) & 0x1u; }
PTXSPEC_HD constexpr uint32_t get_saturate(uint32_t desc) { return decode_saturate((desc >> 3) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_dtype(uint32_t desc) { return (desc >> 4) & 0x3u; }
PTXSPEC_HD constexpr uint32_t get_atype(uint32_t desc) { return (desc >> 7) & 0x7u; }
PTXSPEC_HD constexpr uint32_t get_btype(uint32_t desc) { return (desc >> 10) & 0x7u; }
PTXSPEC_HD constexpr uint32_t get_negate_a(uint32_t desc) { return decode_negate_a((desc >> 13) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_negate_b(uint32_t desc) { return decode_negate_b((desc >> 14) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_transpose_a(uint32_t desc) { return decode_transpose_a((desc >> 15) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_transpose_b(uint32_t desc) { return decode_transpose_b((desc >> 16) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_n(uint32_t desc) { return decode_n((desc >> 17) & 0x3fu); }
PTXSPEC_HD constexpr uint32_t get_m(uint32_t desc) { return decode_m((desc >> 24) & 0x1fu); }
PTXSPEC_HD constexpr uint32_t get_max_shift(uint32_t desc) { return (desc >> 30) & 0x3u; }
}  // namespace dense
namespace mxf8f6f4 {  // kind::mxf8f6f4 (Table 43)
constexpr uint32_t atype_e2m1 = 5;
constexpr uint32_t atype_e2m3 = 3;
constexpr uint32_t atype_e3m2 = 4;
constexpr uint32_t atype_e4m3 = 0;
constexpr uint32_t atype_e5m2 = 1;
constexpr uint32_t btype_e2m1 = 5;
constexpr uint32_t btype_e2m3 = 3;
constexpr uint32_t btype_e3m2 = 4;
constexpr uint32_t btype_e4m3 = 0;
constexpr uint32_t btype_e5m2 = 1;
constexpr uint32_t scale_type_ue8m0 = 1;
constexpr uint32_t sparse_dense = 0;
constexpr uint32_t sparse_sparse = 1;
// reserved_0: bits 0..1. Reserved, 0.
// sparse: bits 2..2. Whether A is 2:4 sparse (tcgen05.mma.sp).
// reserved_3: bits 3..3. Reserved, 0.
// b_scale_id: bits 4..5. Which byte of B's scale-factor registers is used. Legal: 0, 1, 2, 3.
PTXSPEC_HD constexpr uint32_t encode_b_scale_id(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_b_scale_id(uint32_t v) { return (v & 0x3u); }
// reserved_6: bits 6..6. Reserved, 0.
// atype: bits 7..9. The type of A.
// btype: bits 10..12. The type of B.
// negate_a: bits 13..13. Negate A. Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_negate_a(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_negate_a(uint32_t v) { return (v & 0x1u); }
// negate_b: bits 14..14. Negate B. Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_negate_b(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_negate_b(uint32_t v) { return (v & 0x1u); }
// transpose_a: bits 15..15. A is MN-major (1) rather than K-major (0). Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_transpose_a(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_transpose_a(uint32_t v) { return (v & 0x1u); }
// transpose_b: bits 16..16. B is MN-major (1) rather than K-major (0). Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_transpose_b(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_transpose_b(uint32_t v) { return (v & 0x1u); }
// n: bits 17..22. N, in units of 8.
PTXSPEC_HD constexpr uint32_t encode_n(uint32_t x) { return x >> 3; }
PTXSPEC_HD constexpr uint32_t decode_n(uint32_t v) { return ((v & 0x3fu) << 3); }
// scale_type: bits 23..23. The scale-factor format: UE8M0.
// reserved_24: bits 24..26. Reserved, 0.
// m: bits 27..28. M, in units of 128.
PTXSPEC_HD constexpr uint32_t encode_m(uint32_t x) { return x >> 7; }
PTXSPEC_HD constexpr uint32_t decode_m(uint32_t v) { return ((v & 0x3u) << 7); }
// a_scale_id: bits 29..30. Which byte of A's scale-factor registers is used. Legal: 0, 1, 2, 3.
PTXSPEC_HD constexpr uint32_t encode_a_scale_id(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_a_scale_id(uint32_t v) { return (v & 0x3u); }
// reserved_31: bits 31..31. Reserved, 0.
PTXSPEC_HD constexpr uint32_t make(uint32_t sparse, uint32_t b_scale_id, uint32_t atype, uint32_t btype, uint32_t negate_a, uint32_t negate_b, uint32_t transpose_a, uint32_t transpose_b, uint32_t n, uint32_t scale_type, uint32_t m, uint32_t a_scale_id) {
  return ((uint32_t)0u << 0)
       | ((sparse & 0x1u) << 2)
       | ((uint32_t)0u << 3)
       | ((encode_b_scale_id(b_scale_id) & 0x3u) << 4)
       | ((uint32_t)0u << 6)
       | ((atype & 0x7u) << 7)
       | ((btype & 0x7u) << 10)
       | ((encode_negate_a(negate_a) & 0x1u) << 13)
       | ((encode_negate_b(negate_b) & 0x1u) << 14)
       | ((encode_transpose_a(transpose_a) & 0x1u) << 15)
       | ((encode_transpose_b(transpose_b) & 0x1u) << 16)
       | ((encode_n(n) & 0x3fu) << 17)
       | ((scale_type & 0x1u) << 23)
       | ((uint32_t)0u << 24)
       | ((encode_m(m) & 0x3u) << 27)
       | ((encode_a_scale_id(a_scale_id) & 0x3u) << 29)
       | ((uint32_t)0u << 31);
}
PTXSPEC_HD constexpr uint32_t get_sparse(uint32_t desc) { return (desc >> 2) & 0x1u; }
PTXSPEC_HD constexpr uint32_t get_b_scale_id(uint32_t desc) { return decode_b_scale_id((desc >> 4) & 0x3u); }
PTXSPEC_HD constexpr uint32_t get_atype(uint32_t desc) { return (desc >> 7) & 0x7u; }
PTXSPEC_HD constexpr uint32_t get_btype(uint32_t desc) { return (desc >> 10) & 0x7u; }
PTXSPEC_HD constexpr uint32_t get_negate_a(uint32_t desc) { return decode_negate_a((desc >> 13) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_negate_b(uint32_t desc) { return decode_negate_b((desc >> 14) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_transpose_a(uint32_t desc) { return decode_transpose_a((desc >> 15) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_transpose_b(uint32_t desc) { return decode_transpose_b((desc >> 16) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_n(uint32_t desc) { return decode_n((desc >> 17) & 0x3fu); }
PTXSPEC_HD constexpr uint32_t get_scale_type(uint32_t desc) { return (desc >> 23) & 0x1u; }
PTXSPEC_HD constexpr uint32_t get_m(uint32_t desc) { return decode_m((desc >> 27) & 0x3u); }
PTXSPEC_HD constexpr uint32_t get_a_scale_id(uint32_t desc) { return decode_a_scale_id((desc >> 29) & 0x3u); }
}  // namespace mxf8f6f4
namespace mxf4 {  // kind::mxf4, kind::mxf4nvf4 (Table 44)
constexpr uint32_t atype_e2m1 = 1;
constexpr uint32_t btype_e2m1 = 1;
constexpr uint32_t scale_type_ue4m3 = 0;
constexpr uint32_t scale_type_ue8m0 = 1;
constexpr uint32_t sparse_dense = 0;
constexpr uint32_t sparse_sparse = 1;
// reserved_0: bits 0..1. Reserved, 0.
// sparse: bits 2..2. Whether A is 2:4 sparse (tcgen05.mma.sp).
// reserved_3: bits 3..3. Reserved, 0.
// b_scale_id: bits 4..5. Which half of B's scale-factor registers is used (0 or 2). Legal: 0, 2.
PTXSPEC_HD constexpr uint32_t encode_b_scale_id(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_b_scale_id(uint32_t v) { return (v & 0x3u); }
// reserved_6: bits 6..6. Reserved, 0.
// atype: bits 7..9. The type of A: E2M1.
// btype: bits 10..11. The type of B: E2M1.
// reserved_12: bits 12..12. Reserved, 0.
// negate_a: bits 13..13. Negate A. Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_negate_a(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_negate_a(uint32_t v) { return (v & 0x1u); }
// negate_b: bits 14..14. Negate B. Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_negate_b(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_negate_b(uint32_t v) { return (v & 0x1u); }
// transpose_a: bits 15..15. No transpose: A is K-major. Legal: 0.
PTXSPEC_HD constexpr uint32_t encode_transpose_a(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_transpose_a(uint32_t v) { return (v & 0x1u); }
// transpose_b: bits 16..16. No transpose: B is K-major. Legal: 0.
PTXSPEC_HD constexpr uint32_t encode_transpose_b(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_transpose_b(uint32_t v) { return (v & 0x1u); }
// n: bits 17..22. N, in units of 8.
PTXSPEC_HD constexpr uint32_t encode_n(uint32_t x) { return x >> 3; }
PTXSPEC_HD constexpr uint32_t decode_n(uint32_t v) { return ((v & 0x3fu) << 3); }
// scale_type: bits 23..23. The scale-factor format: UE8M0 (mxf4), UE4M3 or UE8M0 (mxf4nvf4).
// reserved_24: bits 24..26. Reserved, 0.
// m: bits 27..28. M, in units of 128.
PTXSPEC_HD constexpr uint32_t encode_m(uint32_t x) { return x >> 7; }
PTXSPEC_HD constexpr uint32_t decode_m(uint32_t v) { return ((v & 0x3u) << 7); }
// a_scale_id: bits 29..30. Which half of A's scale-factor registers is used (0 or 2). Legal: 0, 2.
PTXSPEC_HD constexpr uint32_t encode_a_scale_id(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_a_scale_id(uint32_t v) { return (v & 0x3u); }
// k96: bits 31..31. K = 96 (1, dense, M = 256 with .cta_group::2); 0: K = 64 dense, 128 sparse. Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_k96(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_k96(uint32_t v) { return (v & 0x1u); }
PTXSPEC_HD constexpr uint32_t make(uint32_t sparse, uint32_t b_scale_id, uint32_t atype, uint32_t btype, uint32_t negate_a, uint32_t negate_b, uint32_t transpose_a, uint32_t transpose_b, uint32_t n, uint32_t scale_type, uint32_t m, uint32_t a_scale_id, uint32_t k96) {
  return ((uint32_t)0u << 0)
       | ((sparse & 0x1u) << 2)
       | ((uint32_t)0u << 3)
       | ((encode_b_scale_id(b_scale_id) & 0x3u) << 4)
       | ((uint32_t)0u << 6)
       | ((atype & 0x7u) << 7)
       | ((btype & 0x3u) << 10)
       | ((uint32_t)0u << 12)
       | ((encode_negate_a(negate_a) & 0x1u) << 13)
       | ((encode_negate_b(negate_b) & 0x1u) << 14)
       | ((encode_transpose_a(transpose_a) & 0x1u) << 15)
       | ((encode_transpose_b(transpose_b) & 0x1u) << 16)
       | ((encode_n(n) & 0x3fu) << 17)
       | ((scale_type & 0x1u) << 23)
       | ((uint32_t)0u << 24)
       | ((encode_m(m) & 0x3u) << 27)
       | ((encode_a_scale_id(a_scale_id) & 0x3u) << 29)
       | ((encode_k96(k96) & 0x1u) << 31);
}
PTXSPEC_HD constexpr uint32_t get_sparse(uint32_t desc) { return (desc >> 2) & 0x1u; }
PTXSPEC_HD constexpr uint32_t get_b_scale_id(uint32_t desc) { return decode_b_scale_id((desc >> 4) & 0x3u); }
PTXSPEC_HD constexpr uint32_t get_atype(uint32_t desc) { return (desc >> 7) & 0x7u; }
PTXSPEC_HD constexpr uint32_t get_btype(uint32_t desc) { return (desc >> 10) & 0x3u; }
PTXSPEC_HD constexpr uint32_t get_negate_a(uint32_t desc) { return decode_negate_a((desc >> 13) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_negate_b(uint32_t desc) { return decode_negate_b((desc >> 14) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_transpose_a(uint32_t desc) { return decode_transpose_a((desc >> 15) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_transpose_b(uint32_t desc) { return decode_transpose_b((desc >> 16) & 0x1u); }
PTXSPEC_HD constexpr uint32_t get_n(uint32_t desc) { return decode_n((desc >> 17) & 0x3fu); }
PTXSPEC_HD constexpr uint32_t get_scale_type(uint32_t desc) { return (desc >> 23) & 0x1u; }
PTXSPEC_HD constexpr uint32_t get_m(uint32_t desc) { return decode_m((desc >> 27) & 0x3u); }
PTXSPEC_HD constexpr uint32_t get_a_scale_id(uint32_t desc) { return decode_a_scale_id((desc >> 29) & 0x3u); }
PTXSPEC_HD constexpr uint32_t get_k96(uint32_t desc) { return decode_k96((desc >> 31) & 0x1u); }
}  // namespace mxf4
}  // namespace idesc_tcgen05
}  // namespace ptxspec
