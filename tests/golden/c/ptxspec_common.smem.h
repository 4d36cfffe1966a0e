namespace smem_tcgen05 {
// How tcgen05.mma (A and B) and tcgen05.cp (the source) find a matrix in shared memory: the 64-bit shared-memory descriptor of Blackwell. Start address, LBO, SBO, base offset and the canonical layouts are those of wgmma (spec/smem/wgmma.yaml); what changed: bits 46-48 hold a fixed 0b001 (CUTLASS calls bits 46-47 the descriptor version, 1 for Blackwell), bit 52 says how LBO is read, and the swizzle field grows to 3 bits at 61-63 (a Hopper code c reads as 2c here) with one new mode, 128-byte swizzling of 32-byte units (MN-major only). Runtime facts: ptxas never looks inside a descriptor, and nothing here ran on hardware. advance_k reads LBO as a byte offset (lbo_mode 0).

// Swizzle modes (spec/smem swizzle_modes); the value is the mode's code in the descriptor.
enum class SwizzleMode : uint32_t { none = 0, _128B_base32B = 1, _128B = 2, _64B = 4, _32B = 6 };
constexpr SwizzleMode swizzle_none = SwizzleMode::none;  // No swizzle: 8 rows of 16 bytes (interleaved core matrices).
constexpr SwizzleMode swizzle_128B_base32B = SwizzleMode::_128B_base32B;  // 128-byte rows of 32-byte units, 4 rows per atom; the 32-byte units of row r are permuted by r mod 4. MN-major only.
constexpr SwizzleMode swizzle_128B = SwizzleMode::_128B;  // 128-byte rows; the 16-byte units of row r are permuted by r mod 8.
constexpr SwizzleMode swizzle_64B = SwizzleMode::_64B;  // 64-byte rows; the 16-byte units of row r are permuted by (r / 2) mod 4.
constexpr SwizzleMode swizzle_32B = SwizzleMode::_32B;  // 32-byte rows; the 16-byte units of row r are swapped by (r / 4) mod 2.
// the mode's width
PTXSPEC_HD constexpr int swizzle_width(SwizzleMode m) { return m == SwizzleMode::none ? 16 : m == SwizzleMode::_128B_base32B ? 128 : m == SwizzleMode::_128B ? 128 : m == SwizzleMode::_64B ? 64 : m == SwizzleMode::_32B ? 32 : -1; }
// the mode's b
PTXSPEC_HD constexpr int swizzle_b(SwizzleMode m) { return m == SwizzleMode::none ? 0 : m == SwizzleMode::_128B_base32B ? 2 : m == SwizzleMode::_128B ? 3 : m == SwizzleMode::_64B ? 2 : m == SwizzleMode::_32B ? 1 : -1; }
// the mode's repeat
PTXSPEC_HD constexpr int swizzle_repeat(SwizzleMode m) { return m == SwizzleMode::none ? 128 : m == SwizzleMode::_128B_base32B ? 512 : m == SwizzleMode::_128B ? 1024 : m == SwizzleMode::_64B ? 512 : m == SwizzleMode::_32B ? 256 : -1; }
// the mode's unit
PTXSPEC_HD constexpr int swizzle_unit(SwizzleMode m) { return m == SwizzleMode::none ? 16 : m == SwizzleMode::_128B_base32B ? 32 : m == SwizzleMode::_128B ? 16 : m == SwizzleMode::_64B ? 16 : m == SwizzleMode::_32B ? 16 : -1; }
// the mode's rows
PTXSPEC_HD constexpr int swizzle_rows(SwizzleMode m) { return m == SwizzleMode::none ? 8 : m == SwizzleMode::_128B_base32B ? 4 : m == SwizzleMode::_128B ? 8 : m == SwizzleMode::_64B ? 8 : m == SwizzleMode::_32B ? 8 : -1; }

// Majors (spec/smem majors); the value is the transpose bit that selects it.
enum class Major : int { K = 0, MN = 1 };
// K: K-major: the K elements of a row of A (a column of B) are contiguous.
// MN: MN-major: the M elements of a column of A (N elements of a row of B) are contiguous.
// Whether a swizzle mode may describe an operand of a major (128B_base32B: MN only).
PTXSPEC_HD constexpr bool describes(SwizzleMode mode, Major major) {
  return mode == SwizzleMode::_128B_base32B ? (major == Major::MN) : true;
}

// Descriptor fields (spec/smem): encode_<field>(x) is the field's value for x, decode_<field> its inverse.
// start_address: bits 0..13. Shared-memory byte address of the matrix, in 16-byte units.
PTXSPEC_HD constexpr uint64_t encode_start_address(uint64_t x) { return (x & 0x3ffff) >> 4; }
PTXSPEC_HD constexpr uint64_t decode_start_address(uint64_t f) { return ((f & 0x3fffu) << 4); }
// leading_byte_offset: bits 16..29. LBO, in 16-byte units, as for wgmma (the offset between core matrices or swizzle atoms along the leading dimension); with lbo_mode 1 the address of the second 16-byte chunk of K instead (see lbo_mode).
PTXSPEC_HD constexpr uint64_t encode_leading_byte_offset(uint64_t x) { return (x & 0x3ffff) >> 4; }
PTXSPEC_HD constexpr uint64_t decode_leading_byte_offset(uint64_t f) { return ((f & 0x3fffu) << 4); }
// stride_byte_offset: bits 32..45. SBO, in 16-byte units, as for wgmma (the offset from one group of 8 rows, or of K columns, to the next).
PTXSPEC_HD constexpr uint64_t encode_stride_byte_offset(uint64_t x) { return (x & 0x3ffff) >> 4; }
PTXSPEC_HD constexpr uint64_t decode_stride_byte_offset(uint64_t f) { return ((f & 0x3fffu) << 4); }
// version: bits 46..48. Fixed 0b001 (bits 46-48; CUTLASS names bits 46-47 the version, 1 on Blackwell).
// base_offset: bits 49..51. Matrix base offset, as for wgmma: 0 when the swizzle pattern starts on its repeat boundary, else (pattern start address >> 7) & 7.
PTXSPEC_HD constexpr uint64_t encode_base_offset(uint64_t x) { return x; }
PTXSPEC_HD constexpr uint64_t decode_base_offset(uint64_t f) { return (f & 0x7u); }
// lbo_mode: bits 52..52. How LBO is read: 0 as a byte offset (as on Hopper); 1 as the absolute address of the second chunk of a 48-byte K extent that would cross a 128-byte boundary (sm_103a only, with 128-byte swizzling and base offset 0).
PTXSPEC_HD constexpr uint64_t encode_lbo_mode(uint64_t x) { return x; }
PTXSPEC_HD constexpr uint64_t decode_lbo_mode(uint64_t f) { return (f & 0x1u); }
// fixed_53: bits 53..60. Fixed 0 (bits 53-60).
// swizzle: bits 61..63. Swizzle mode code (see swizzle_modes); 3, 5 and 7 are invalid.
PTXSPEC_HD constexpr uint64_t encode_swizzle(uint64_t x) { return x; }
PTXSPEC_HD constexpr uint64_t decode_swizzle(uint64_t f) { return (f & 0x7u); }

/* The 64-bit matrix descriptor, built field by field with named setters (each returns the
   changed descriptor), read with the getters of the same names; it converts to the uint64_t that
   the instructions take. A new descriptor holds the fixed fields' values (version = 1, fixed_53 = 0), which have no setter. Defaults: lbo_mode = 0. */
struct MatrixDescriptor {
  uint64_t bits;
  PTXSPEC_HD constexpr MatrixDescriptor() : bits(0x400000000000ull) {}
  PTXSPEC_HD constexpr explicit MatrixDescriptor(uint64_t raw) : bits(raw) {}
  PTXSPEC_HD constexpr operator uint64_t() const { return bits; }
  // start_address: Shared-memory byte address of the matrix, in 16-byte units
  PTXSPEC_HD constexpr MatrixDescriptor start_address(SmemAddress x) const {
    return MatrixDescriptor((bits & ~(0x3fffull << 0)) | ((encode_start_address(x.value) & 0x3fffull) << 0));
  }
  PTXSPEC_HD constexpr SmemAddress start_address() const { return SmemAddress(static_cast<uint32_t>(decode_start_address((bits >> 0) & 0x3fffull))); }
  // leading_byte_offset: LBO, in 16-byte units, as for wgmma (the offset between core matrices or swizzle atoms along the leading dimension); with lbo_mode 1 the address of the second 16-byte chunk of K instead (see lbo_mode)
  PTXSPEC_HD constexpr MatrixDescriptor leading_byte_offset(uint32_t x) const {
    return MatrixDescriptor((bits & ~(0x3fffull << 16)) | ((encode_leading_byte_offset(x) & 0x3fffull) << 16));
  }
  PTXSPEC_HD constexpr uint32_t leading_byte_offset() const { return static_cast<uint32_t>(decode_leading_byte_offset((bits >> 16) & 0x3fffull)); }
  // stride_byte_offset: SBO, in 16-byte units, as for wgmma (the offset from one group of 8 rows, or of K columns, to the next)
  PTXSPEC_HD constexpr MatrixDescriptor stride_byte_offset(uint32_t x) const {
    return MatrixDescriptor((bits & ~(0x3fffull << 32)) | ((encode_stride_byte_offset(x) & 0x3fffull) << 32));
  }
  PTXSPEC_HD constexpr uint32_t stride_byte_offset() const { return static_cast<uint32_t>(decode_stride_byte_offset((bits >> 32) & 0x3fffull)); }
  // base_offset: Matrix base offset, as for wgmma: 0 when the swizzle pattern starts on its repeat boundary, else (pattern start address >> 7) & 7
  PTXSPEC_HD constexpr MatrixDescriptor base_offset(uint32_t x) const {
    return MatrixDescriptor((bits & ~(0x7ull << 49)) | ((encode_base_offset(x) & 0x7ull) << 49));
  }
  PTXSPEC_HD constexpr uint32_t base_offset() const { return static_cast<uint32_t>(decode_base_offset((bits >> 49) & 0x7ull)); }
  // lbo_mode: How LBO is read: 0 as a byte offset (as on Hopper); 1 as the absolute address of the second chunk of a 48-byte K extent that would cross a 128-byte boundary (sm_103a only, with 128-byte swizzling and base offset 0)
  PTXSPEC_HD constexpr MatrixDescriptor lbo_mode(uint32_t x) const {
    return MatrixDescriptor((bits & ~(0x1ull << 52)) | ((encode_lbo_mode(x) & 0x1ull) << 52));
  }
  PTXSPEC_HD constexpr uint32_t lbo_mode() const { return static_cast<uint32_t>(decode_lbo_mode((bits >> 52) & 0x1ull)); }
  // swizzle: Swizzle mode code (see swizzle_modes); 3, 5 and 7 are invalid
  PTXSPEC_HD constexpr MatrixDescriptor swizzle(SwizzleMode x) const {
    return MatrixDescriptor((bits & ~(0x7ull << 61)) | ((encode_swizzle(static_cast<uint64_t>(x)) & 0x7ull) << 61));
  }
  PTXSPEC_HD constexpr SwizzleMode swizzle() const { return static_cast<SwizzleMode>(decode_swizzle((bits >> 61) & 0x7ull)); }
};

// The descriptor from every field at once (fixed fields hold their value); byte values as in the field descriptions.
PTXSPEC_HD constexpr MatrixDescriptor make_descriptor(SmemAddress start_address, uint32_t leading_byte_offset, uint32_t stride_byte_offset, uint32_t base_offset, uint32_t lbo_mode, SwizzleMode swizzle) {
  return MatrixDescriptor().start_address(start_address).leading_byte_offset(leading_byte_offset).stride_byte_offset(stride_byte_offset).base_offset(base_offset).lbo_mode(lbo_mode).swizzle(swizzle);
}

// The spec's swizzle formula on absolute byte address a (b: the mode's b, o: the base offset, u: the mode's unit).
PTXSPEC_HD constexpr long long swizzle_formula(long long a, long long b, long long o, long long u) { return a ^ ((((a >> 7) - o) & ((1 << b) - 1)) * u); }
// The swizzled address of absolute shared-memory byte address a in a mode, with a base offset.
PTXSPEC_HD constexpr uint32_t swizzle_address(uint32_t a, SwizzleMode mode, uint32_t base_offset = 0) {
  return static_cast<uint32_t>(swizzle_formula(a, swizzle_b(mode), base_offset, swizzle_unit(mode)));
}
PTXSPEC_HD constexpr SmemAddress swizzle_address(SmemAddress a, SwizzleMode mode, uint32_t base_offset = 0) {
  return SmemAddress(swizzle_address(a.value, mode, base_offset));
}
// canonical layout, K-major, no swizzle: ((8,m),(T,2k)):((1T,SBO),(1,LBO)); bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_K_major_interleaved(long long mn, long long k, long long bits, long long /*W*/, long long LBO, long long SBO) { return ((((mn % 8) * 128) + (((mn / 8) * SBO) * 8)) + ((k * bits) % 128)) + ((((k * bits) / 128) * LBO) * 8); }
// canonical layout, K-major, swizzled: ((8,m),(T,2k)):((sT,SBO),(1,T)) with s = W/16; bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_K_major_swizzled(long long mn, long long k, long long bits, long long W, long long LBO, long long SBO) { return (((((mn % 8) * W) * 8) + (((mn / 8) * SBO) * 8)) + ((k * bits) % (W * 8))) + ((((k * bits) / (W * 8)) * LBO) * 8); }
// canonical layout, MN-major, no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)); bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_MN_major_interleaved(long long mn, long long k, long long bits, long long /*W*/, long long LBO, long long SBO) { return ((((mn * bits) % 128) + ((((mn * bits) / 128) * SBO) * 8)) + ((k % 8) * 128)) + (((k / 8) * LBO) * 8); }
// canonical layout, MN-major, swizzled: ((T,s,m),(R,k)):((1,T,LBO),(sT,SBO)) with s = W/16; bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_MN_major_swizzled(long long mn, long long k, long long bits, long long W, long long R, long long LBO, long long SBO) { return ((((mn * bits) % (W * 8)) + ((((mn * bits) / (W * 8)) * LBO) * 8)) + (((k % R) * W) * 8)) + (((k / R) * SBO) * 8); }
// The bit offset of element (mn, k) before swizzling, in the canonical layout of a major and mode (-1: none).
PTXSPEC_HD constexpr long long bit_offset(Major major, SwizzleMode mode, long long mn, long long k, long long bits, long long LBO, long long SBO) {
  return !describes(mode, major) ? -1 : major == Major::K && (swizzle_b(mode) == 0) ? bit_offset_K_major_interleaved(mn, k, bits, swizzle_width(mode), LBO, SBO) : major == Major::K && (swizzle_b(mode) != 0) ? bit_offset_K_major_swizzled(mn, k, bits, swizzle_width(mode), LBO, SBO) : major == Major::MN && (swizzle_b(mode) == 0) ? bit_offset_MN_major_interleaved(mn, k, bits, swizzle_width(mode), LBO, SBO) : major == Major::MN && (swizzle_b(mode) != 0) ? bit_offset_MN_major_swizzled(mn, k, bits, swizzle_width(mode), swizzle_rows(mode), LBO, SBO) : -1;
}

/* advance_k<Major, Mode, Bits, K, Step>(d): the descriptor d of an operand whose instruction
   reads K columns of Bits-bit elements, moved Step columns along K (its start address moves;
   the swizzle acts on absolute addresses). Legal exactly where the spec (spec/smem advance_k)
   says, checked by static_assert:
     K-major, no swizzle: (k * bits) % 128 == 0
     K-major, swizzled: ((k * bits) % 128 == 0) & (((k * bits) % (W * 8) == 0) | ((k * bits) % (W * 8) + K * bits <= W * 8))
     MN-major, no swizzle: (k % 8 == 0) | (k % 8 + K <= 8)
     MN-major, swizzled: (k % R == 0) | (k % R + K <= R)
   (k = Step, bits = Bits, W = the mode's width in bytes, R = its rows per atom). */
PTXSPEC_HD constexpr bool advance_k_legal_K_major_interleaved(long long k, long long bits, long long /*W*/, long long /*K*/) { return ((int)((((k * bits) % 128) == 0))) != 0; }
PTXSPEC_HD constexpr long long advance_k_bytes_K_major_interleaved(long long k, long long bits, long long /*W*/, long long LBO, long long /*SBO*/) { return ((k * bits) / 128) * LBO; }
PTXSPEC_HD constexpr bool advance_k_legal_K_major_swizzled(long long k, long long bits, long long W, long long K) { return ((int)((((k * bits) % 128) == 0)) & ((int)((((k * bits) % (W * 8)) == 0)) | (int)(((((k * bits) % (W * 8)) + (K * bits)) <= (W * 8))))) != 0; }
PTXSPEC_HD constexpr long long advance_k_bytes_K_major_swizzled(long long k, long long bits, long long W, long long LBO, long long /*SBO*/) { return (((k * bits) % (W * 8)) / 8) + (((k * bits) / (W * 8)) * LBO); }
PTXSPEC_HD constexpr bool advance_k_legal_MN_major_interleaved(long long k, long long /*bits*/, long long /*W*/, long long K) { return ((int)(((k % 8) == 0)) | (int)((((k % 8) + K) <= 8))) != 0; }
PTXSPEC_HD constexpr long long advance_k_bytes_MN_major_interleaved(long long k, long long /*bits*/, long long /*W*/, long long LBO, long long /*SBO*/) { return ((k % 8) * 16) + ((k / 8) * LBO); }
PTXSPEC_HD constexpr bool advance_k_legal_MN_major_swizzled(long long k, long long /*bits*/, long long /*W*/, long long R, long long K) { return ((int)(((k % R) == 0)) | (int)((((k % R) + K) <= R))) != 0; }
PTXSPEC_HD constexpr long long advance_k_bytes_MN_major_swizzled(long long k, long long /*bits*/, long long W, long long R, long long /*LBO*/, long long SBO) { return ((k % R) * W) + ((k / R) * SBO); }
template <Major Mj, SwizzleMode Mode, int Bits, int K, int Step>
PTXSPEC_HD constexpr MatrixDescriptor advance_k(MatrixDescriptor d) {
  static_assert(describes(Mode, Mj), "advance_k: this swizzle mode does not describe operands of this major");
  static_assert(!(Mj == Major::K && (swizzle_b(Mode) == 0)) || advance_k_legal_K_major_interleaved(Step, Bits, swizzle_width(Mode), K),
                "advance_k, K-major, no swizzle: legal only when (k * bits) % 128 == 0");
  static_assert(!(Mj == Major::K && (swizzle_b(Mode) != 0)) || advance_k_legal_K_major_swizzled(Step, Bits, swizzle_width(Mode), K),
                "advance_k, K-major, swizzled: legal only when ((k * bits) % 128 == 0) & (((k * bits) % (W * 8) == 0) | ((k * bits) % (W * 8) + K * bits <= W * 8))");
  static_assert(!(Mj == Major::MN && (swizzle_b(Mode) == 0)) || advance_k_legal_MN_major_interleaved(Step, Bits, swizzle_width(Mode), K),
                "advance_k, MN-major, no swizzle: legal only when (k % 8 == 0) | (k % 8 + K <= 8)");
  static_assert(!(Mj == Major::MN && (swizzle_b(Mode) != 0)) || advance_k_legal_MN_major_swizzled(Step, Bits, swizzle_width(Mode), swizzle_rows(Mode), K),
                "advance_k, MN-major, swizzled: legal only when (k % R == 0) | (k % R + K <= R)");
  return d.start_address(d.start_address() + static_cast<uint32_t>(
      Mj == Major::K && (swizzle_b(Mode) == 0) ? advance_k_bytes_K_major_interleaved(Step, Bits, swizzle_width(Mode), d.leading_byte_offset(), d.stride_byte_offset()) :
      Mj == Major::K && (swizzle_b(Mode) != 0) ? advance_k_bytes_K_major_swizzled(Step, Bits, swizzle_width(Mode), d.leading_byte_offset(), d.stride_byte_offset()) :
      Mj == Major::MN && (swizzle_b(Mode) == 0) ? advance_k_bytes_MN_major_interleaved(Step, Bits, swizzle_width(Mode), d.leading_byte_offset(), d.stride_byte_offset()) :
      Mj == Major::MN && (swizzle_b(Mode) != 0) ? advance_k_bytes_MN_major_swizzled(Step, Bits, swizzle_width(Mode), swizzle_rows(Mode), d.leading_byte_offset(), d.stride_byte_offset()) :
      0));
}
}  // namespace smem_tcgen05

namespace smem_wgmma {
// How wgmma finds A and B in shared memory: the 64-bit matrix descriptor, the swizzle modes and the canonical layouts. Matrices start 16-byte aligned. A K-major operand (imm-trans = 0) has its K elements contiguous; an MN-major operand (imm-trans = 1, f16/bf16 only) has its M or N elements contiguous.

// Swizzle modes (spec/smem swizzle_modes); the value is the mode's code in the descriptor.
enum class SwizzleMode : uint32_t { none = 0, _128B = 1, _64B = 2, _32B = 3 };
constexpr SwizzleMode swizzle_none = SwizzleMode::none;  // No swizzle: 8 rows of 16 bytes (interleaved core matrices).
constexpr SwizzleMode swizzle_128B = SwizzleMode::_128B;  // 128-byte rows; the 16-byte units of row r are permuted by r mod 8.
constexpr SwizzleMode swizzle_64B = SwizzleMode::_64B;  // 64-byte rows; the 16-byte units of row r are permuted by (r / 2) mod 4.
constexpr SwizzleMode swizzle_32B = SwizzleMode::_32B;  // 32-byte rows; the 16-byte units of row r are swapped by (r / 4) mod 2.
// the mode's width
PTXSPEC_HD constexpr int swizzle_width(SwizzleMode m) { return m == SwizzleMode::none ? 16 : m == SwizzleMode::_128B ? 128 : m == SwizzleMode::_64B ? 64 : m == SwizzleMode::_32B ? 32 : -1; }
// the mode's b
PTXSPEC_HD constexpr int swizzle_b(SwizzleMode m) { return m == SwizzleMode::none ? 0 : m == SwizzleMode::_128B ? 3 : m == SwizzleMode::_64B ? 2 : m == SwizzleMode::_32B ? 1 : -1; }
// the mode's repeat
PTXSPEC_HD constexpr int swizzle_repeat(SwizzleMode m) { return m == SwizzleMode::none ? 128 : m == SwizzleMode::_128B ? 1024 : m == SwizzleMode::_64B ? 512 : m == SwizzleMode::_32B ? 256 : -1; }

// Majors (spec/smem majors); the value is the transpose bit that selects it.
enum class Major : int { K = 0, MN = 1 };
// K: K-major: the K elements of a row of A (a column of B) are contiguous.
// MN: MN-major: the M elements of a column of A (N elements of a row of B) are contiguous.

// Descriptor fields (spec/smem): encode_<field>(x) is the field's value for x, decode_<field> its inverse.
// start_address: bits 0..13. Shared-memory byte address of the matrix, in 16-byte units.
PTXSPEC_HD constexpr uint64_t encode_start_address(uint64_t x) { return (x & 0x3ffff) >> 4; }
PTXSPEC_HD constexpr uint64_t decode_start_address(uint64_t f) { return ((f & 0x3fffu) << 4); }
// leading_byte_offset: bits 16..29. LBO, in 16-byte units. K-major: no swizzle - offset between the two 8x16-byte core matrices along K; swizzled - unused while the K extent fits in one swizzle row, otherwise the offset from one W-byte chunk of K to the next (sparse B in 32B swizzle). MN-major: interleaved - offset from the first 8 K columns to the next 8; swizzled - offset from one swizzle width of M/N elements to the next.
PTXSPEC_HD constexpr uint64_t encode_leading_byte_offset(uint64_t x) { return (x & 0x3ffff) >> 4; }
PTXSPEC_HD constexpr uint64_t decode_leading_byte_offset(uint64_t f) { return ((f & 0x3fffu) << 4); }
// stride_byte_offset: bits 32..45. SBO, in 16-byte units. K-major: offset from 8 rows to the next 8 rows. MN-major: interleaved - offset from one 16-byte group of M/N elements to the next; swizzled - offset from the first 8 K columns to the next 8.
PTXSPEC_HD constexpr uint64_t encode_stride_byte_offset(uint64_t x) { return (x & 0x3ffff) >> 4; }
PTXSPEC_HD constexpr uint64_t decode_stride_byte_offset(uint64_t f) { return ((f & 0x3fffu) << 4); }
// base_offset: bits 49..51. Matrix base offset, for swizzled modes whose repeating pattern does not start on its natural boundary: (pattern start address >> 7) & 7; 0 when it does. The hardware subtracts it from the row phase of the address (see `swizzle`, measured on an H100).
PTXSPEC_HD constexpr uint64_t encode_base_offset(uint64_t x) { return x; }
PTXSPEC_HD constexpr uint64_t decode_base_offset(uint64_t f) { return (f & 0x7u); }
// swizzle: bits 62..63. Swizzle mode code (see swizzle_modes).
PTXSPEC_HD constexpr uint64_t encode_swizzle(uint64_t x) { return x; }
PTXSPEC_HD constexpr uint64_t decode_swizzle(uint64_t f) { return (f & 0x3u); }

/* The 64-bit matrix descriptor, built field by field with named setters (each returns the
   changed descriptor), read with the getters of the same names; it converts to the uint64_t that
   the instructions take. */
struct MatrixDescriptor {
  uint64_t bits;
  PTXSPEC_HD constexpr MatrixDescriptor() : bits(0) {}
  PTXSPEC_HD constexpr explicit MatrixDescriptor(uint64_t raw) : bits(raw) {}
  PTXSPEC_HD constexpr operator uint64_t() const { return bits; }
  // start_address: Shared-memory byte address of the matrix, in 16-byte units
  PTXSPEC_HD constexpr MatrixDescriptor start_address(SmemAddress x) const {
    return MatrixDescriptor((bits & ~(0x3fffull << 0)) | ((encode_start_address(x.value) & 0x3fffull) << 0));
  }
  PTXSPEC_HD constexpr SmemAddress start_address() const { return SmemAddress(static_cast<uint32_t>(decode_start_address((bits >> 0) & 0x3fffull))); }
  // leading_byte_offset: LBO, in 16-byte units
  PTXSPEC_HD constexpr MatrixDescriptor leading_byte_offset(uint32_t x) const {
    return MatrixDescriptor((bits & ~(0x3fffull << 16)) | ((encode_leading_byte_offset(x) & 0x3fffull) << 16));
  }
  PTXSPEC_HD constexpr uint32_t leading_byte_offset() const { return static_cast<uint32_t>(decode_leading_byte_offset((bits >> 16) & 0x3fffull)); }
  // stride_byte_offset: SBO, in 16-byte units
  PTXSPEC_HD constexpr MatrixDescriptor stride_byte_offset(uint32_t x) const {
    return MatrixDescriptor((bits & ~(0x3fffull << 32)) | ((encode_stride_byte_offset(x) & 0x3fffull) << 32));
  }
  PTXSPEC_HD constexpr uint32_t stride_byte_offset() const { return static_cast<uint32_t>(decode_stride_byte_offset((bits >> 32) & 0x3fffull)); }
  // base_offset: Matrix base offset, for swizzled modes whose repeating pattern does not start on its natural boundary: (pattern start address >> 7) & 7; 0 when it does
  PTXSPEC_HD constexpr MatrixDescriptor base_offset(uint32_t x) const {
    return MatrixDescriptor((bits & ~(0x7ull << 49)) | ((encode_base_offset(x) & 0x7ull) << 49));
  }
  PTXSPEC_HD constexpr uint32_t base_offset() const { return static_cast<uint32_t>(decode_base_offset((bits >> 49) & 0x7ull)); }
  // swizzle: Swizzle mode code (see swizzle_modes)
  PTXSPEC_HD constexpr MatrixDescriptor swizzle(SwizzleMode x) const {
    return MatrixDescriptor((bits & ~(0x3ull << 62)) | ((encode_swizzle(static_cast<uint64_t>(x)) & 0x3ull) << 62));
  }
  PTXSPEC_HD constexpr SwizzleMode swizzle() const { return static_cast<SwizzleMode>(decode_swizzle((bits >> 62) & 0x3ull)); }
};

// The descriptor from every field at once (fixed fields hold their value); byte values as in the field descriptions.
PTXSPEC_HD constexpr MatrixDescriptor make_descriptor(SmemAddress start_address, uint32_t leading_byte_offset, uint32_t stride_byte_offset, uint32_t base_offset, SwizzleMode swizzle) {
  return MatrixDescriptor().start_address(start_address).leading_byte_offset(leading_byte_offset).stride_byte_offset(stride_byte_offset).base_offset(base_offset).swizzle(swizzle);
}

// The spec's swizzle formula on absolute byte address a (b: the mode's b, o: the base offset).
PTXSPEC_HD constexpr long long swizzle_formula(long long a, long long b, long long o) { return a ^ ((((a >> 7) - o) & ((1 << b) - 1)) << 4); }
// The swizzled address of absolute shared-memory byte address a in a mode, with a base offset.
PTXSPEC_HD constexpr uint32_t swizzle_address(uint32_t a, SwizzleMode mode, uint32_t base_offset = 0) {
  return static_cast<uint32_t>(swizzle_formula(a, swizzle_b(mode), base_offset));
}
PTXSPEC_HD constexpr SmemAddress swizzle_address(SmemAddress a, SwizzleMode mode, uint32_t base_offset = 0) {
  return SmemAddress(swizzle_address(a.value, mode, base_offset));
}
// canonical layout, K-major, no swizzle: ((8,m),(T,2k)):((1T,SBO),(1,LBO)); bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_K_major_interleaved(long long mn, long long k, long long bits, long long /*W*/, long long LBO, long long SBO) { return ((((mn % 8) * 128) + (((mn / 8) * SBO) * 8)) + ((k * bits) % 128)) + ((((k * bits) / 128) * LBO) * 8); }
// canonical layout, K-major, swizzled: ((8,m),(T,2k)):((sT,SBO),(1,T)) with s = W/16; bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_K_major_swizzled(long long mn, long long k, long long bits, long long W, long long LBO, long long SBO) { return (((((mn % 8) * W) * 8) + (((mn / 8) * SBO) * 8)) + ((k * bits) % (W * 8))) + ((((k * bits) / (W * 8)) * LBO) * 8); }
// canonical layout, MN-major, no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)); bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_MN_major_interleaved(long long mn, long long k, long long bits, long long /*W*/, long long LBO, long long SBO) { return ((((mn * bits) % 128) + ((((mn * bits) / 128) * SBO) * 8)) + ((k % 8) * 128)) + (((k / 8) * LBO) * 8); }
// canonical layout, MN-major, swizzled: ((T,s,m),(8,k)):((1,T,LBO),(sT,SBO)) with s = W/16; bit offset of element (mn, k) before swizzling
PTXSPEC_HD constexpr long long bit_offset_MN_major_swizzled(long long mn, long long k, long long bits, long long W, long long LBO, long long SBO) { return ((((mn * bits) % (W * 8)) + ((((mn * bits) / (W * 8)) * LBO) * 8)) + (((k % 8) * W) * 8)) + (((k / 8) * SBO) * 8); }
// The bit offset of element (mn, k) before swizzling, in the canonical layout of a major and mode (-1: none).
PTXSPEC_HD constexpr long long bit_offset(Major major, SwizzleMode mode, long long mn, long long k, long long bits, long long LBO, long long SBO) {
  return major == Major::K && (swizzle_b(mode) == 0) ? bit_offset_K_major_interleaved(mn, k, bits, swizzle_width(mode), LBO, SBO) : major == Major::K && (swizzle_b(mode) != 0) ? bit_offset_K_major_swizzled(mn, k, bits, swizzle_width(mode), LBO, SBO) : major == Major::MN && (swizzle_b(mode) == 0) ? bit_offset_MN_major_interleaved(mn, k, bits, swizzle_width(mode), LBO, SBO) : major == Major::MN && (swizzle_b(mode) != 0) ? bit_offset_MN_major_swizzled(mn, k, bits, swizzle_width(mode), LBO, SBO) : -1;
}

/* advance_k<Major, Mode, Bits, K, Step>(d): the descriptor d of an operand whose instruction
   reads K columns of Bits-bit elements, moved Step columns along K (its start address moves;
   the swizzle acts on absolute addresses). Legal exactly where the spec (spec/smem advance_k)
   says, checked by static_assert:
     K-major, no swizzle: (k * bits) % 128 == 0
     K-major, swizzled: ((k * bits) % 128 == 0) & (((k * bits) % (W * 8) == 0) | ((k * bits) % (W * 8) + K * bits <= W * 8))
     MN-major, no swizzle: (k % 8 == 0) | (k % 8 + K <= 8)
     MN-major, swizzled: (k % 8 == 0) | (k % 8 + K <= 8)
   (k = Step, bits = Bits, W = the mode's width in bytes). */
PTXSPEC_HD constexpr bool advance_k_legal_K_major_interleaved(long long k, long long bits, long long /*W*/, long long /*K*/) { return ((int)((((k * bits) % 128) == 0))) != 0; }
PTXSPEC_HD constexpr long long advance_k_bytes_K_major_interleaved(long long k, long long bits, long long /*W*/, long long LBO, long long /*SBO*/) { return ((k * bits) / 128) * LBO; }
PTXSPEC_HD constexpr bool advance_k_legal_K_major_swizzled(long long k, long long bits, long long W, long long K) { return ((int)((((k * bits) % 128) == 0)) & ((int)((((k * bits) % (W * 8)) == 0)) | (int)(((((k * bits) % (W * 8)) + (K * bits)) <= (W * 8))))) != 0; }
PTXSPEC_HD constexpr long long advance_k_bytes_K_major_swizzled(long long k, long long bits, long long W, long long LBO, long long /*SBO*/) { return (((k * bits) % (W * 8)) / 8) + (((k * bits) / (W * 8)) * LBO); }
PTXSPEC_HD constexpr bool advance_k_legal_MN_major_interleaved(long long k, long long /*bits*/, long long /*W*/, long long K) { return ((int)(((k % 8) == 0)) | (int)((((k % 8) + K) <= 8))) != 0; }
PTXSPEC_HD constexpr long long advance_k_bytes_MN_major_interleaved(long long k, long long /*bits*/, long long /*W*/, long long LBO, long long /*SBO*/) { return ((k % 8) * 16) + ((k / 8) * LBO); }
PTXSPEC_HD constexpr bool advance_k_legal_MN_major_swizzled(long long k, long long /*bits*/, long long /*W*/, long long K) { return ((int)(((k % 8) == 0)) | (int)((((k % 8) + K) <= 8))) != 0; }
PTXSPEC_HD constexpr long long advance_k_bytes_MN_major_swizzled(long long k, long long /*bits*/, long long W, long long /*LBO*/, long long SBO) { return ((k % 8) * W) + ((k / 8) * SBO); }
template <Major Mj, SwizzleMode Mode, int Bits, int K, int Step>
PTXSPEC_HD constexpr MatrixDescriptor advance_k(MatrixDescriptor d) {
  static_assert(!(Mj == Major::K && (swizzle_b(Mode) == 0)) || advance_k_legal_K_major_interleaved(Step, Bits, swizzle_width(Mode), K),
                "advance_k, K-major, no swizzle: legal only when (k * bits) % 128 == 0");
  static_assert(!(Mj == Major::K && (swizzle_b(Mode) != 0)) || advance_k_legal_K_major_swizzled(Step, Bits, swizzle_width(Mode), K),
                "advance_k, K-major, swizzled: legal only when ((k * bits) % 128 == 0) & (((k * bits) % (W * 8) == 0) | ((k * bits) % (W * 8) + K * bits <= W * 8))");
  static_assert(!(Mj == Major::MN && (swizzle_b(Mode) == 0)) || advance_k_legal_MN_major_interleaved(Step, Bits, swizzle_width(Mode), K),
                "advance_k, MN-major, no swizzle: legal only when (k % 8 == 0) | (k % 8 + K <= 8)");
  static_assert(!(Mj == Major::MN && (swizzle_b(Mode) != 0)) || advance_k_legal_MN_major_swizzled(Step, Bits, swizzle_width(Mode), K),
                "advance_k, MN-major, swizzled: legal only when (k % 8 == 0) | (k % 8 + K <= 8)");
  return d.start_address(d.start_address() + static_cast<uint32_t>(
      Mj == Major::K && (swizzle_b(Mode) == 0) ? advance_k_bytes_K_major_interleaved(Step, Bits, swizzle_width(Mode), d.leading_byte_offset(), d.stride_byte_offset()) :
      Mj == Major::K && (swizzle_b(Mode) != 0) ? advance_k_bytes_K_major_swizzled(Step, Bits, swizzle_width(Mode), d.leading_byte_offset(), d.stride_byte_offset()) :
      Mj == Major::MN && (swizzle_b(Mode) == 0) ? advance_k_bytes_MN_major_interleaved(Step, Bits, swizzle_width(Mode), d.leading_byte_offset(), d.stride_byte_offset()) :
      Mj == Major::MN && (swizzle_b(Mode) != 0) ? advance_k_bytes_MN_major_swizzled(Step, Bits, swizzle_width(Mode), d.leading_byte_offset(), d.stride_byte_offset()) :
      0));
}
}  // namespace smem_wgmma

namespace idesc_tcgen05 {
// The 32-bit instruction descriptor of tcgen05.mma (a register operand, or a constant): the shape M x N, the element types, sparsity, negation, transposition and, for the block-scaled kinds, the scale-factor format and which part of the scale registers is used. Its layout depends on the .kind qualifier (Tables 42, 43 and 44). ptxas never looks inside it: a bad descriptor assembles (campaigns/survey/tcgen05.md), so everything here is a runtime fact, not checked by ptxas and not run on hardware by this project.
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
// dtype: bits 4..5. The type of D (Table 42 gives kind::f16 and kind::f8f6f4 one cell, F16 = 0 and F32 = 1; Table 39 lists .f32 and .f16 for kind::f8f6f4).
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
// Combination (make() does not check it): kind::f16: when dtype f16, then atype f16 and btype f16 (Table 39).
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

namespace zero_column_mask_tcgen05 {
// The optional 64-bit operand of tcgen05.mma.ws and .ws.sp that makes the instruction use zeros for some columns of B whatever shared memory holds: an N-bit mask (1: the column is zero) built from one sub-mask (M = 128), two of N/2 bits (M = 64) or four of N/4 bits (M = 32); sub-mask i uses start count sci and first span fsi and alternates runs of the two span lengths, after the columns of B are shifted by the column shift. Only the .ws forms take it, and they are .cta_group::1 only: the layout is picked by that qualifier. The manual's table and its examples disagree on which span counts zero columns (its Example 2 and CUTLASS read use_span as the columns of B used, skip_span as the zero ones; the table says the opposite), so only the bit fields are data here: a runtime fact ptxas never checks, not run on hardware.
// (PTX ISA 9.7.16.4.3; spec/descriptors.) One namespace per layout (the .kind picks it). make()
// takes every field but the reserved ones, in bit order: a number field the number it describes
// (M, N, a scale-factor id), a code field its code (the <field>_<value> constants); get_<field>
// reads it back the same way.
namespace ws {  // cta_group::1 (Table 45)
// sc0: bits 0..7. Start count of sub-mask 0: the low mask bits skipped.
PTXSPEC_HD constexpr uint32_t encode_sc0(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_sc0(uint32_t v) { return (v & 0xffu); }
// sc1: bits 8..15. Start count of sub-mask 1 (M = 64 and 32).
PTXSPEC_HD constexpr uint32_t encode_sc1(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_sc1(uint32_t v) { return (v & 0xffu); }
// sc2: bits 16..23. Start count of sub-mask 2 (M = 32).
PTXSPEC_HD constexpr uint32_t encode_sc2(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_sc2(uint32_t v) { return (v & 0xffu); }
// sc3: bits 24..31. Start count of sub-mask 3 (M = 32).
PTXSPEC_HD constexpr uint32_t encode_sc3(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_sc3(uint32_t v) { return (v & 0xffu); }
// fs0: bits 32..32. First span of sub-mask 0: which run it starts with. Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_fs0(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_fs0(uint32_t v) { return (v & 0x1u); }
// fs1: bits 33..33. First span of sub-mask 1. Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_fs1(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_fs1(uint32_t v) { return (v & 0x1u); }
// fs2: bits 34..34. First span of sub-mask 2. Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_fs2(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_fs2(uint32_t v) { return (v & 0x1u); }
// fs3: bits 35..35. First span of sub-mask 3. Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_fs3(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_fs3(uint32_t v) { return (v & 0x1u); }
// reserved_36: bits 36..38. Reserved, 0.
// non_zero_mask: bits 39..39. 0: the mask is all 0s (every column of B used, the other fields ignored); 1: the mask is generated. Legal: 0, 1.
PTXSPEC_HD constexpr uint32_t encode_non_zero_mask(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_non_zero_mask(uint32_t v) { return (v & 0x1u); }
// skip_span: bits 40..47. One run length minus 1 (the table: columns where B is used; Example 2 and CUTLASS: zero columns).
PTXSPEC_HD constexpr uint32_t encode_skip_span(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_skip_span(uint32_t v) { return (v & 0xffu); }
// use_span: bits 48..55. The other run length minus 1 (the table: zero columns; Example 2 and CUTLASS: columns where B is used).
PTXSPEC_HD constexpr uint32_t encode_use_span(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_use_span(uint32_t v) { return (v & 0xffu); }
// column_shift: bits 56..61. The columns of B start this many columns on (at most 16 for M = 32, 32 otherwise). Legal: cta_group::1: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32.
PTXSPEC_HD constexpr uint32_t encode_column_shift(uint32_t x) { return x; }
PTXSPEC_HD constexpr uint32_t decode_column_shift(uint32_t v) { return (v & 0x3fu); }
// reserved_62: bits 62..63. Not in the manual's table: 0.
PTXSPEC_HD constexpr uint64_t make(uint64_t sc0, uint64_t sc1, uint64_t sc2, uint64_t sc3, uint64_t fs0, uint64_t fs1, uint64_t fs2, uint64_t fs3, uint64_t non_zero_mask, uint64_t skip_span, uint64_t use_span, uint64_t column_shift) {
  return ((uint64_t)(encode_sc0(sc0) & 0xffu) << 0)
       | ((uint64_t)(encode_sc1(sc1) & 0xffu) << 8)
       | ((uint64_t)(encode_sc2(sc2) & 0xffu) << 16)
       | ((uint64_t)(encode_sc3(sc3) & 0xffu) << 24)
       | ((uint64_t)(encode_fs0(fs0) & 0x1u) << 32)
       | ((uint64_t)(encode_fs1(fs1) & 0x1u) << 33)
       | ((uint64_t)(encode_fs2(fs2) & 0x1u) << 34)
       | ((uint64_t)(encode_fs3(fs3) & 0x1u) << 35)
       | ((uint64_t)0u << 36)
       | ((uint64_t)(encode_non_zero_mask(non_zero_mask) & 0x1u) << 39)
       | ((uint64_t)(encode_skip_span(skip_span) & 0xffu) << 40)
       | ((uint64_t)(encode_use_span(use_span) & 0xffu) << 48)
       | ((uint64_t)(encode_column_shift(column_shift) & 0x3fu) << 56)
       | ((uint64_t)0u << 62);
}
PTXSPEC_HD constexpr uint64_t get_sc0(uint64_t desc) { return decode_sc0((desc >> 0) & 0xffu); }
PTXSPEC_HD constexpr uint64_t get_sc1(uint64_t desc) { return decode_sc1((desc >> 8) & 0xffu); }
PTXSPEC_HD constexpr uint64_t get_sc2(uint64_t desc) { return decode_sc2((desc >> 16) & 0xffu); }
PTXSPEC_HD constexpr uint64_t get_sc3(uint64_t desc) { return decode_sc3((desc >> 24) & 0xffu); }
PTXSPEC_HD constexpr uint64_t get_fs0(uint64_t desc) { return decode_fs0((desc >> 32) & 0x1u); }
PTXSPEC_HD constexpr uint64_t get_fs1(uint64_t desc) { return decode_fs1((desc >> 33) & 0x1u); }
PTXSPEC_HD constexpr uint64_t get_fs2(uint64_t desc) { return decode_fs2((desc >> 34) & 0x1u); }
PTXSPEC_HD constexpr uint64_t get_fs3(uint64_t desc) { return decode_fs3((desc >> 35) & 0x1u); }
PTXSPEC_HD constexpr uint64_t get_non_zero_mask(uint64_t desc) { return decode_non_zero_mask((desc >> 39) & 0x1u); }
PTXSPEC_HD constexpr uint64_t get_skip_span(uint64_t desc) { return decode_skip_span((desc >> 40) & 0xffu); }
PTXSPEC_HD constexpr uint64_t get_use_span(uint64_t desc) { return decode_use_span((desc >> 48) & 0xffu); }
PTXSPEC_HD constexpr uint64_t get_column_shift(uint64_t desc) { return decode_column_shift((desc >> 56) & 0x3fu); }
}  // namespace ws
}  // namespace zero_column_mask_tcgen05
}  // namespace ptxspec
