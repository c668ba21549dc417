#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer targets (corpus/<target>/), in the
input layouts their sources document. Deterministic; rerun after changing a
layout: python3 tests/fuzz/make_seeds.py"""
import struct
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
F16, BF16, FP8 = 0, 1, 2
GFX950, GFX1030 = 0, 1
# kFeat* bits (vocab.hpp): window, softcap, alibi, qq_bias, sinks
WINDOW, SOFTCAP, ALIBI, QQ, SINKS = 1, 2, 4, 8, 16


def write(target, name, data):
    d = HERE / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


# ---- fuzz_select: ProblemDesc + SelectOptions -------------------------------------------
def select_seed(arch=GFX950, q=F16, kv=F16, out=None, d=128, bs=16, feat=0, win=-1, hq=32, hkv=8, seqs=2,
                tokens=6, msq=5, msk=1024, cus=0, aligned=1, path=0, segs=0, explain=0, filt=b""):
    return struct.pack("<6iI8iBiiBB", arch, q, kv, q if out is None else out, d, bs, feat, win, hq, hkv, seqs, tokens,
                       msq, msk, cus, aligned, path, segs, explain, len(filt)) + filt


SELECT = {
    "decode_d128_b16": select_seed(),
    "prefill_bf16_large": select_seed(q=BF16, kv=BF16, tokens=4096, msq=2048, msk=4096, seqs=2),
    "fp8kv_window_3d": select_seed(kv=FP8, feat=WINDOW, win=255, path=2, msk=65536),
    "gfx1030_d80_b13_all": select_seed(arch=GFX1030, d=80, bs=13, feat=WINDOW | SOFTCAP | ALIBI | QQ | SINKS, win=7),
    "unaligned_generic": select_seed(aligned=0, d=64, hq=8, hkv=1),
    "segments_requested": select_seed(segs=7, explain=1),
    "filter_glob": select_seed(filt=b"uattn_gfx950_2d_*_m32n32w1"),
    "fp8_out": select_seed(out=FP8, d=256, bs=32),
    "not_served_head": select_seed(d=100),
    "segments_with_2d": select_seed(path=1, segs=3),
    "zero_tokens": select_seed(tokens=0, seqs=0, msq=0, msk=0),
    "huge_lengths": select_seed(tokens=2**31 - 1, msq=2**31 - 1, msk=2**31 - 1, seqs=2**31 - 1, path=2, segs=1024),
}


# ---- fuzz_validate: uattn_args_t + host index arrays -------------------------------------
# Fake device addresses (fuzz_validate: 64 KiB * (value >> 1), + 2 bytes when odd): q at
# 1 MiB, out at 4 MiB, k_cache at 16 MiB, v_cache at 64 MiB, apart for the seeds' sizes.
Q_AT, OUT_AT, K_AT, V_AT = 2 * 16, 2 * 64, 2 * 256, 2 * 1024


def tensor(dtype, shape, stride=None, data=Q_AT):
    rank = len(shape)
    if stride is None:
        stride, acc = [], 1
        for n in reversed(shape):
            stride.insert(0, acc)
            acc *= n
    shape = list(shape) + [0] * (5 - rank)
    stride = list(stride) + [0] * (5 - rank)
    return struct.pack("<ii5q5qH", dtype, rank, *shape, *stride, data)


def validate_seed(q=F16, kv=F16, out=None, t=6, hq=8, hkv=2, d=128, nb=64, bs=16, seqs=2, mbps=8, bts=8, msq=5,
                  msk=100, scale=0.088, win=-1, softcap=0.0, ks=1.0, vs=1.0, ptrs=7, qqs=0, oscale=1.0, arch=0,
                  cu=(0, 1, 6), su=(37, 100), bt=None, qstride=None, data=Q_AT):
    out = q if out is None else out
    b = tensor(q, (t, hq, d), qstride, data) + tensor(kv, (nb, bs, hkv, d), data=K_AT)
    b += tensor(kv, (nb, bs, hkv, d), data=V_AT)
    b += tensor(out, (t, hq, d), qstride, OUT_AT + data % 2 if data else 0)
    b += struct.pack("<iiqiififf" "f" "BifB", seqs, mbps, bts, msq, msk, scale, win, softcap, ks, vs, ptrs, qqs,
                     oscale, arch)
    if bt is None:
        bt = [(i * 3) % nb for i in range(seqs * bts)]
    b += struct.pack(f"<{len(cu)}i", *cu) + struct.pack(f"<{len(su)}i", *su) + struct.pack(f"<{len(bt)}i", *bt)
    return b


VALIDATE = {
    "decode_prefill": validate_seed(),
    "fp8_kv_scales": validate_seed(kv=FP8, ks=0.5, vs=0.25),
    "fp8_out": validate_seed(out=FP8, oscale=2.0, q=BF16, kv=BF16),
    "all_features": validate_seed(win=31, softcap=30.0, ptrs=63, qqs=5, arch=0x31),
    "empty_batch": validate_seed(t=0, seqs=0, ptrs=0, cu=(0,), su=(), bt=[], msq=0, msk=0, data=0),
    "padded_strides": validate_seed(qstride=(8 * 136, 136, 1), data=Q_AT + 1),
    "bad_index_arrays": validate_seed(cu=(0, 4, 3), su=(2, 999), bt=[-1] * 16),
    "block_id_out_of_range": validate_seed(bt=[64] * 16),
    "overflowing_shape": validate_seed(nb=2**31 - 1, bs=2**31 - 1, d=128),
    "negative_stride": validate_seed(qstride=(-1024, 128, 1)),
    "nan_scale": validate_seed(scale=float("nan")),
    "tied_shapes_strides": validate_seed(ptrs=7 | 64 | 128),
    "tied_fp8": validate_seed(kv=FP8, out=FP8, ks=0.5, vs=2.0, oscale=0.5, ptrs=7 | 64 | 128, hq=12, hkv=4),
}


# ---- fuzz_bundle: clang offload bundles, plain and compressed ---------------------------
def elf(machine=224, extra=b""):
    """A 64-bit little-endian ELF header with one section header table entry inside the image."""
    shoff = 64 + len(extra)
    h = b"\x7fELF" + bytes([2, 1, 1, 64, 4]) + b"\0" * 7
    h += struct.pack("<HHIQQQIHHHHHH", 3, machine, 1, 0, 0, shoff, 0, 64, 56, 0, 64, 1, 0)
    return h + extra + b"\0" * 64


def bundle(entries):
    magic = b"__CLANG_OFFLOAD_BUNDLE__"
    table_len = 8 + sum(24 + len(t) for t, _ in entries)
    pos = len(magic) + table_len
    head, body = magic + struct.pack("<Q", len(entries)), b""
    for target, blob in entries:
        head += struct.pack("<QQQ", pos + len(body), len(blob), len(target)) + target
        body += blob
    return head + body


def ccob(version, method, payload, raw_size):
    if version == 1:
        h = b"CCOB" + struct.pack("<HHIQ", 1, method, raw_size, 0)
    elif version == 2:
        h = b"CCOB" + struct.pack("<HHIIQ", 2, method, 24 + len(payload), raw_size, 0)
    else:
        h = b"CCOB" + struct.pack("<HHQQQ", 3, method, 32 + len(payload), raw_size, 0)
    return h + payload


HOST = b"host-x86_64-unknown-linux-gnu"
plain = bundle([(HOST, b""), (b"hipv4-amdgcn-amd-amdhsa--gfx950", elf()),
                (b"hipv4-amdgcn-amd-amdhsa--gfx1030", elf())])
BUNDLE = {
    "plain_two_archs": plain,
    "target_features": bundle([(HOST, b""), (b"hipv4-amdgcn-amd-amdhsa--gfx950:xnack+", elf()),
                               (b"hipv4-amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-", elf())]),
    "not_amdgpu_elf": bundle([(b"hipv4-amdgcn-amd-amdhsa--gfx950", elf(machine=62))]),
    "entry_outside": plain[:-40],
    "ccob_v1_zlib": ccob(1, 0, zlib.compress(plain), len(plain)),
    "ccob_v2_zlib": ccob(2, 0, zlib.compress(plain), len(plain)),
    "ccob_v3_zstd": ccob(3, 1, b"\x28\xb5\x2f\xfd" + bytes(16), len(plain)),
    "ccob_truncated": ccob(2, 0, zlib.compress(plain), len(plain))[:40],
    "garbage": b"MZ\x90\x00" + bytes(60),
}

if __name__ == "__main__":
    for target, seeds in (("fuzz_select", SELECT), ("fuzz_validate", VALIDATE), ("fuzz_bundle", BUNDLE)):
        for name, data in seeds.items():
            write(target, name, data)
    print("seeds:", {t: len(s) for t, s in (("fuzz_select", SELECT), ("fuzz_validate", VALIDATE),
                                            ("fuzz_bundle", BUNDLE))})
