"""Independent truths about tcgen05 for the tests: transcribed by hand, never read from the spec.

Sources (read with the search tool; facts restated as data, nothing copied):

* PTX ISA manual, 9.7.16.4.2 "Instruction descriptor", Tables 42-44 (the 32-bit idesc of
  tcgen05.mma per kind), 9.7.16.4.1 (shared-memory descriptor), 9.7.16.2.1 Table 39 (shapes),
  9.7.16.10.5 (data-path layouts), 9.7.16.8.3 Table 49 (.num x shape register counts).
* The ld/st fragment figures (Figures 183-187 of 9.7.16.2.3.1) are images; their content is
  transcribed here from two independent public encodings of them: CuTe's copy traits
  (CUTLASS include/cute/atom/copy_traits_sm100.hpp, Copy_Traits<SM100_TMEM_LOAD_*>: a
  (thread, value) -> bit layout and a bit -> (bits along a lane, lane) layout, written below as
  shape:stride) and Triton's linear layouts (lib/Dialect/TritonNvidiaGPU, getTileLayout: the
  lane and register bases of each access atom as (row, column) vectors). The tests check that
  the two agree with each other and with the database.
* Instruction descriptors CUTLASS builds (include/cute/arch/mma_sm100_desc.hpp,
  UMMA::make_instr_desc and UMMA::make_instr_desc_block_scaled, used by the MMA_Traits of
  include/cute/atom/mma_traits_sm100.hpp), evaluated by hand for named configurations.
"""
from __future__ import annotations

# ----------------------------------------------------------------------------------------------
# The instruction descriptor (PTX ISA 9.7.16.4.2, Tables 42, 43 and 44).
# Each field: (name, first bit, width, {kind: {value name: code}} or a formula name).
# "reserved" fields must be 0. Codes transcribed from the tables' value columns.
F8F6F4_CODES = {"e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5}

IDESC_TABLE_42 = {  # .kind::tf32, .kind::f16, .kind::f8f6f4, .kind::i8
    "kinds": ("tf32", "f16", "f8f6f4", "i8"),
    "fields": [
        ("sparsity_selector", 0, 2, "0-3 when sparse"),
        ("sparse", 2, 1, {"dense": 0, "sparse": 1}),
        ("saturate", 3, 1, {"i8": {"no": 0, "yes": 1}, "other": {"no": 0}}),
        ("dtype", 4, 2, {"tf32": {"f32": 1}, "f16": {"f16": 0, "f32": 1},
                         "f8f6f4": {"f16": 0, "f32": 1}, "i8": {"s32": 2}}),
        ("reserved", 6, 1, 0),
        ("atype", 7, 3, {"tf32": {"tf32": 2}, "f16": {"f16": 0, "bf16": 1},
                         "f8f6f4": F8F6F4_CODES, "i8": {"u8": 0, "s8": 1}}),
        ("btype", 10, 3, "as atype"),
        ("negate_a", 13, 1, {"i8": {"no": 0}, "other": {"no": 0, "yes": 1}}),
        ("negate_b", 14, 1, "as negate_a"),
        ("transpose_a", 15, 1, {"no": 0, "yes": 1}),
        ("transpose_b", 16, 1, {"no": 0, "yes": 1}),
        ("n", 17, 6, "N >> 3"),
        ("reserved", 23, 1, 0),
        ("m", 24, 5, "M >> 4"),
        ("reserved", 29, 1, 0),
        ("max_shift", 30, 2, {"none": 0, "8": 1, "16": 2, "32": 3}),  # B reuse shift in .ws
    ],
}

IDESC_TABLE_43 = {  # .kind::mxf8f6f4
    "kinds": ("mxf8f6f4",),
    "fields": [
        ("reserved", 0, 2, 0),
        ("sparse", 2, 1, {"dense": 0, "sparse": 1}),
        ("reserved", 3, 1, 0),
        ("b_scale_id", 4, 2, "0-3"),
        ("reserved", 6, 1, 0),
        ("atype", 7, 3, F8F6F4_CODES),
        ("btype", 10, 3, F8F6F4_CODES),
        ("negate_a", 13, 1, {"no": 0, "yes": 1}),
        ("negate_b", 14, 1, {"no": 0, "yes": 1}),
        ("transpose_a", 15, 1, {"no": 0, "yes": 1}),
        ("transpose_b", 16, 1, {"no": 0, "yes": 1}),
        ("n", 17, 6, "N >> 3"),
        ("scale_type", 23, 1, {"ue8m0": 1}),
        ("reserved", 24, 3, 0),
        ("m", 27, 2, "M >> 7"),
        ("a_scale_id", 29, 2, "0-3"),
        ("reserved", 31, 1, 0),
    ],
}

IDESC_TABLE_44 = {  # .kind::mxf4 and .kind::mxf4nvf4
    "kinds": ("mxf4", "mxf4nvf4"),
    "fields": [
        ("reserved", 0, 2, 0),
        ("sparse", 2, 1, {"dense": 0, "sparse": 1}),
        ("reserved", 3, 1, 0),
        ("b_scale_id", 4, 2, "0 or 2"),
        ("reserved", 6, 1, 0),
        ("atype", 7, 3, {"e2m1": 1}),
        ("btype", 10, 2, {"e2m1": 1}),
        ("reserved", 12, 1, 0),
        ("negate_a", 13, 1, {"no": 0, "yes": 1}),
        ("negate_b", 14, 1, {"no": 0, "yes": 1}),
        ("transpose_a", 15, 1, {"no": 0}),
        ("transpose_b", 16, 1, {"no": 0}),
        ("n", 17, 6, "N >> 3"),
        # mxf4: UE8M0 = 1; mxf4nvf4: UE4M3 = 0 (and UE8M0 = 1, Table 55 allows both scales)
        ("scale_type", 23, 1, {"mxf4": {"ue8m0": 1}, "mxf4nvf4": {"ue4m3": 0, "ue8m0": 1}}),
        ("reserved", 24, 3, 0),
        ("m", 27, 2, "M >> 7"),
        ("a_scale_id", 29, 2, "0 or 2"),
        ("k", 31, 1, {"dense K64 / sparse K128": 0, "dense K96": 1}),
    ],
}

IDESC_TABLES = (IDESC_TABLE_42, IDESC_TABLE_43, IDESC_TABLE_44)


def idesc_fields(kind: str) -> list[tuple[str, int, int, object]]:
    for t in IDESC_TABLES:
        if kind in t["kinds"]:
            return t["fields"]
    raise KeyError(kind)


# ----------------------------------------------------------------------------------------------
# Instruction descriptors CUTLASS builds (values worked out by hand from make_instr_desc /
# make_instr_desc_block_scaled in include/cute/arch/mma_sm100_desc.hpp: each template argument
# goes to one bit field of UMMA::InstrDescriptor / InstrDescriptorBlockScaled; the MMA_Traits of
# the named atoms in include/cute/atom/mma_traits_sm100.hpp pass their template arguments
# through unchanged, the 2x1SM atoms with the M of the CTA pair).
# (atom, kind, fields as this project names them, 32-bit value)
CUTLASS_IDESCS = [
    ("SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, K, K>", "f16",
     dict(dtype="f32", atype="f16", btype="f16", m=128, n=256), 0x08400010),
    ("SM100_MMA_F16BF16_SS<bfloat16_t, bfloat16_t, float, 64, 128, MN, K>", "f16",
     dict(dtype="f32", atype="bf16", btype="bf16", m=64, n=128, transpose_a=1), 0x04208490),
    ("SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 64, K, K, ScaleIn::Neg>", "f16",
     dict(dtype="f32", atype="f16", btype="f16", m=128, n=64, negate_a=1), 0x08102010),
    ("SM100_MMA_F16BF16_2x1SM_SS<half_t, half_t, half_t, 256, 256, K, K>", "f16",
     dict(dtype="f16", atype="f16", btype="f16", m=256, n=256), 0x10400000),
    ("SM100_MMA_TF32_SS<tfloat32_t, tfloat32_t, float, 128, 128, K, MN>", "tf32",
     dict(dtype="f32", atype="tf32", btype="tf32", m=128, n=128, transpose_b=1), 0x08210910),
    ("SM100_MMA_S8_SS<int8_t, uint8_t, int32_t, 128, 64, K, K, Saturate::True>", "i8",
     dict(dtype="s32", atype="s8", btype="u8", m=128, n=64, saturate=1), 0x081000A8),
    ("SM100_MMA_F8F6F4_SS<float_e4m3_t, float_e5m2_t, float, 128, 256, K, K>", "f8f6f4",
     dict(dtype="f32", atype="e4m3", btype="e5m2", m=128, n=256), 0x08400410),
    ("SM100_MMA_MXF8F6F4_SS<float_e4m3_t, float_e4m3_t, float, float_ue8m0_t, 128, 128, K, K>", "mxf8f6f4",
     dict(atype="e4m3", btype="e4m3", scale_type="ue8m0", m=128, n=128), 0x08A00000),
    ("SM100_MMA_MXF4_SS<float_e2m1_t, float_e2m1_t, float, float_ue4m3_t, 128, 256, 16, K, K>", "mxf4nvf4",
     dict(atype="e2m1", btype="e2m1", scale_type="ue4m3", m=128, n=256), 0x08400480),
    ("SM100_MMA_MXF4_2x1SM_SS<float_e2m1_t, float_e2m1_t, float, float_ue8m0_t, 256, 256, 32, K, K>", "mxf4",
     dict(atype="e2m1", btype="e2m1", scale_type="ue8m0", m=256, n=256), 0x10C00480),
    # make_runtime_instr_desc_block_scaled takes the scale-factor ids from bits 30-31 of the
    # scale TMEM addresses: sfa at byte 2 (0x80000000 | column) and sfb at byte 2.
    ("make_runtime_instr_desc_block_scaled(MXF4 1SM 128x256 ue8m0, tmem_sfa=0x80000000, tmem_sfb=0x80000000)",
     "mxf4", dict(atype="e2m1", btype="e2m1", scale_type="ue8m0", m=128, n=256, a_scale_id=2, b_scale_id=2),
     0x08400480 | (1 << 23) | (2 << 29) | (2 << 4)),
]

# ----------------------------------------------------------------------------------------------
# tcgen05.ld / tcgen05.st fragments (Figures 183-187 via CuTe and Triton).
# CuTe: (shape, .num, pack) -> (ValID bits along one lane, DstLayout (thread, value) -> bit) as
# nested (shape, stride); bit b of the reference space is lane b // bits_per_lane, bit
# b % bits_per_lane of that lane (32 bits per TMEM column). Values of a thread are numbered bit
# by bit; register r holds values [32 r, 32 r + 32). With pack::16b the ValID takes the low 16
# bits of each 32-bit column: bits_per_lane counts 16-bit halves (columns = half // 1).
CUTE_TMEM_LOAD = {
    ("32x32b", 1, False): (32, ((32, 32), (32, 1))),
    ("32x32b", 2, False): (64, ((32, 64), (64, 1))),
    ("32x32b", 4, False): (128, ((32, 128), (128, 1))),
    ("16x64b", 1, False): (64, (((2, 2, 8), 32), ((512, 32, 64), 1))),
    ("16x64b", 2, False): (128, (((2, 2, 8), (32, 2)), ((1024, 32, 128), (1, 64)))),
    ("16x64b", 4, False): (256, (((2, 2, 8), (32, 4)), ((2048, 32, 256), (1, 64)))),
    ("16x128b", 1, False): (128, (((4, 8), (32, 2)), ((32, 128), (1, 1024)))),
    ("16x128b", 2, False): (256, (((4, 8), (32, 2, 2)), ((32, 256), (1, 2048, 128)))),
    ("16x128b", 4, False): (512, (((4, 8), (32, 2, 4)), ((32, 512), (1, 4096, 128)))),
    ("16x256b", 1, False): (256, (((4, 8), (64, 2)), ((64, 256), (1, 2048)))),
    ("16x256b", 2, False): (512, (((4, 8), (64, 2, 2)), ((64, 512), (1, 4096, 256)))),
    ("16x256b", 4, False): (1024, (((4, 8), (64, 2, 4)), ((64, 1024), (1, 8192, 256)))),
    # 16x32bx2: the two 16x32b accesses (at taddr and taddr + immHalfSplitoff) side by side
    ("16x32bx2", 1, False): (64, (((16, 2), 32), ((64, 32), 1))),
    ("16x32bx2", 2, False): (128, (((16, 2), 64), ((128, 64), 1))),
    ("16x32bx2", 4, False): (256, (((16, 2), 128), ((256, 128), 1))),
}
# pack::16b: CuTe keeps the thread/value layout of the unpacked atom and gathers the low 16
# bits of two adjacent 32-bit columns into one register (ValID ((16, n), lanes):((1, 32), DP)).
CUTE_PACK16_SAME_THREAD_LAYOUT = ("16x64b", "32x32b", "16x128b", "16x256b")

# Triton: bases of the access atom (lib/Dialect/TritonNvidiaGPU/.../getTileLayout): for each bit
# of the lane id and of the register index, the (row, column) it adds (32-bit columns, rows
# within the warp's 32-lane slab). Registers beyond the atom repeat it along the columns.
TRITON_TILE = {
    "32x32b": {"lane": [(1, 0), (2, 0), (4, 0), (8, 0), (16, 0)], "reg": [], "cols": 1},
    "16x64b": {"lane": [(8, 0), (0, 1), (1, 0), (2, 0), (4, 0)], "reg": [], "cols": 2},
    "16x128b": {"lane": [(0, 1), (0, 2), (1, 0), (2, 0), (4, 0)], "reg": [(8, 0)], "cols": 4},
    "16x256b": {"lane": [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], "reg": [(0, 1), (8, 0)], "cols": 8},
    # lanes 16..31 take the second access (taddr + immHalfSplitoff): column offset "half"
    "16x32bx2": {"lane": [(1, 0), (2, 0), (4, 0), (8, 0), ("half", 0)], "reg": [], "cols": 1},
}

# Table 49 (9.7.16.8.3): registers per thread for .num x shape (None = not allowed).
NUM_SHAPE_REGS = {
    "x1": (1, 2, 4), "x2": (2, 4, 8), "x4": (4, 8, 16), "x8": (8, 16, 32), "x16": (16, 32, 64),
    "x32": (32, 64, 128), "x64": (64, 128, None), "x128": (128, None, None),
}  # columns: (.16x32bx2 / .16x64b / .32x32b), .16x128b, .16x256b

# ----------------------------------------------------------------------------------------------
# D (and A) in TMEM per data-path organisation (9.7.16.10.5; CuTe UMMA::tmem_frg /
# tmem_frg_ws atoms in include/cute/atom/mma_traits_sm100_frag.hpp): element (m, n) of a CTA's
# M_cta x N tile -> (lane, column) relative to the tile's TMEM address, 32-bit cells.
DATAPATH_LAYOUTS = {
    # name: (manual layout ids, CuTe atom (shape, stride) in (dp stride 1, column stride 128))
    "4x1": ("A, D, ws M=128", ((128, "N"), (1, 128))),
    "4x1 half": ("C, F (lane alignment 0 or 16)", (((16, 4), "N"), ((1, 32), 128))),
    "2x2": ("B, E", ((64, ("N/2", 2)), (1, (128, 64)))),
    "1x4": ("G", ((32, ("N/4", 4)), (1, (128, 32)))),
}
# Manual's table (9.7.16.10.5): (M, cta_group, sparse, ws) -> (organisation, layout id)
DATAPATH_TABLE = [
    (32, 1, "either", True, "1x4", "G"),
    (64, 1, "either", True, "2x2", "E"),   # the manual prints "2x3"; CuTe's atom is 2x2
    (64, 1, "either", False, "4x1 half", "F"),
    (128, 1, "either", "either", "4x1", "D"),
    (128, 2, False, False, "2x2", "B"),
    (128, 2, True, False, "4x1 half", "C"),
    (256, 2, "either", False, "4x1", "A"),
]

# ----------------------------------------------------------------------------------------------
# Shapes (PTX ISA 9.7.16.2.1, Table 39): per (kind, ws, cta_group) the legal M, the N set, and K
# dense / sparse. N ranges are written (first, last, step); i8 without .ws at cta_group::1 is
# 8, 16, 24, 32 and then 48..256 in steps of 16. None = "Invalid" in the table.
def _rng(a, b, s):
    return tuple(range(a, b + 1, s))


_WS_N = (64, 128, 256)
_WS_N_SPARSE = (64, 128)
SHAPES_TABLE_39 = {
    # (kind, ws, cta_group): (M values, N dense, N sparse, K dense, K sparse, M sparse if different)
    ("f16", False, 1): ((64, 128), _rng(8, 256, 8), _rng(8, 256, 8), 16, 32, None),
    ("f16", False, 2): ((128, 256), _rng(16, 256, 16), _rng(16, 256, 16), 16, 32, None),
    ("f16", True, 1): ((32, 64, 128), _WS_N, _WS_N_SPARSE, 16, 32, None),
    ("tf32", False, 1): ((64, 128), _rng(8, 256, 8), _rng(8, 256, 8), 8, 16, None),
    ("tf32", False, 2): ((128, 256), _rng(16, 256, 16), _rng(16, 256, 16), 8, 16, None),
    ("tf32", True, 1): ((32, 64, 128), _WS_N, _WS_N_SPARSE, 8, 16, None),
    ("f8f6f4", False, 1): ((64, 128), _rng(8, 256, 8), _rng(8, 256, 8), 32, 64, None),
    ("f8f6f4", False, 2): ((128, 256), _rng(16, 256, 16), _rng(16, 256, 16), 32, 64, None),
    ("f8f6f4", True, 1): ((32, 64, 128), _WS_N, _WS_N_SPARSE, 32, 64, None),
    ("i8", False, 1): ((64, 128), (8, 16, 24, 32) + _rng(48, 256, 16), (8, 16, 24, 32) + _rng(48, 256, 16), 32, 64, None),
    ("i8", False, 2): ((128, 256), _rng(32, 256, 32), _rng(32, 256, 32), 32, 64, None),
    ("i8", True, 1): ((32, 64, 128), _WS_N, _WS_N_SPARSE, 32, 64, None),
    ("mxf8f6f4", False, 1): ((128,), _rng(8, 256, 8), _rng(8, 256, 8), 32, 64, None),
    ("mxf8f6f4", False, 2): ((128, 256), _rng(16, 256, 16), _rng(16, 256, 16), 32, 64, (256,)),
    ("mxf4", False, 1): ((128,), _rng(8, 256, 8), _rng(8, 256, 8), 64, 128, None),
    ("mxf4", False, 2): ((128, 256), _rng(16, 256, 16), _rng(16, 256, 16), 64, 128, (256,)),
    ("mxf4nvf4", False, 1): ((128,), _rng(8, 256, 8), _rng(8, 256, 8), 64, 128, None),
    ("mxf4nvf4", False, 2): ((128, 256), _rng(16, 256, 16), _rng(16, 256, 16), 64, 128, (256,)),
}
# Also in the table: K = 96 (dense, M = 256, cta_group::2) for mxf4 and mxf4nvf4 (sm_103a and,
# from PTX 9.4, sm_107a); every block-scaled kind and cta_group::2 with .ws are "Invalid".
K96 = {("mxf4", 2, 256), ("mxf4nvf4", 2, 256)}

# dtype / atype / btype per kind (Table 39 and Table 42).
KIND_TYPES = {
    "f16": {"dtype": ("f16", "f32"), "ab": ("f16", "bf16"), "bf16_needs_f32": True},
    "tf32": {"dtype": ("f32",), "ab": ("tf32",)},
    "f8f6f4": {"dtype": ("f16", "f32"), "ab": ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1")},
    "i8": {"dtype": ("s32",), "ab": ("s8", "u8")},
    "mxf8f6f4": {"dtype": ("f32",), "ab": ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1"), "scale": ("ue8m0",)},
    "mxf4": {"dtype": ("f32",), "ab": ("e2m1",), "scale": ("ue8m0",)},
    "mxf4nvf4": {"dtype": ("f32",), "ab": ("e2m1",), "scale": ("ue8m0", "ue4m3")},
}

# ----------------------------------------------------------------------------------------------
# The shared-memory matrix descriptor of tcgen05 (PTX ISA 9.7.16.4.1, its field table).
# (field, first bit, width, content); "fixed" fields hold the given value.
SMEM_DESC_TABLE = [
    ("start_address", 0, 14, "(address & 0x3FFFF) >> 4"),
    ("leading_byte_offset", 16, 14, "(LBO & 0x3FFFF) >> 4"),
    ("stride_byte_offset", 32, 14, "(SBO & 0x3FFFF) >> 4"),
    ("fixed", 46, 3, 0b001),
    ("base_offset", 49, 3, "0-7"),
    ("lbo_mode", 52, 1, "0 relative, 1 absolute"),
    ("fixed", 53, 8, 0),
    ("swizzle", 61, 3, "mode code"),
]
SMEM_SWIZZLE_CODES = {"none": 0, "128B_base32B": 1, "128B": 2, "64B": 4, "32B": 6}  # 3, 5, 7 invalid
# CuTe's swizzle functor per mode, Swizzle<B, M, S>: bits [M, M+B) XOR bits [M+S, M+S+B)
# (include/cute/atom/mma_traits_sm100.hpp: layout_type(); 128B_base32B is Swizzle<2,5,2>).
SMEM_CUTE_SWIZZLE = {"none": (0, 4, 3), "32B": (1, 4, 3), "64B": (2, 4, 3), "128B": (3, 4, 3),
                     "128B_base32B": (2, 5, 2)}

# Descriptors CUTLASS builds (UMMA::make_umma_desc in include/cute/atom/mma_traits_sm100.hpp:
# version 1, lbo_mode 0, base offset 0, start >> 4; LBO/SBO from the strides of the canonical
# layout in 16-byte units), worked out by hand for tile_to_shape(<atom>, <shape>) at a start
# address: (configuration, start, LBO bytes, SBO bytes, swizzle, 64-bit value).
CUTLASS_SMEM_DESCS = [
    # K-major SW128, bf16, 128 x 64: atoms of 8 rows x 128 B stacked along M every 1024 B; CuTe
    # writes LBO 1 (16 B) for swizzled K-major, SBO 64 units.
    ("Layout_K_SW128_Atom<bfloat16_t> to (128, 64) at 0x400", 0x400, 16, 1024, "128B", 0x4000404000010040),
    # K-major interleaved, half, 64 x 16: core matrices of 8 rows x 16 B; 8 of them along M
    # (SBO 128 B), the second K half 1024 B on (LBO).
    ("Layout_K_INTER_Atom<half_t> to (64, 16) at 0x2000", 0x2000, 1024, 128, "none", 0x0000400800400200),
    # MN-major SW128, bf16, 128 (MN) x 64 (K): two 1024-B atoms along MN (LBO 1024 B), then K
    # groups of 8 rows every 2048 B (SBO).
    ("Layout_MN_SW128_Atom<bfloat16_t> to (128, 64) at 0x1000", 0x1000, 1024, 2048, "128B", 0x4000408000400100),
    # MN-major SW128_32B, tf32, 64 (MN) x 8 (K): atoms of 4 rows x 128 B; two along MN (LBO
    # 512 B), two along K (SBO 1024 B).
    ("Layout_MN_SW128_32B_Atom<tfloat32_t> to (64, 8) at 0x800", 0x800, 512, 1024, "128B_base32B", 0x2000404000200080),
]
# The same MN-major SW128_32B tile as CuTe lays it out, in 16-byte units: ((8,2),(4,2)):((1,32),(8,64))
# over (MN / 4 tf32 per unit, K); the byte of tf32 element (mn, k) is 16 * unit + 4 * (mn % 4).
CUTE_MN_SW128_32B_TF32 = (((8, 2), (4, 2)), ((1, 32), (8, 64)))
