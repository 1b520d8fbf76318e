#!/usr/bin/env python3
"""Writes the small GGUF seed files of the fuzz-gguf corpus into tests/fuzz/seeds-gguf/.

Each seed is a valid file exercising one part of the format, so that mutations start from
deep inside the parser. Run it again after changing the format coverage; the outputs are checked in.
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds-gguf")

U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
FMT = {U8: "B", I8: "b", U16: "H", I16: "h", U32: "I", I32: "i", F32: "f", BOOL: "B", U64: "Q", I64: "q", F64: "d"}


def s(x):
    b = x.encode() if isinstance(x, str) else x
    return struct.pack("<Q", len(b)) + b


def val(t, v):
    if t == STR:
        return s(v)
    if t == ARR:
        et, items = v
        out = struct.pack("<IQ", et, len(items))
        for it in items:
            out += val(et, it)
        return out
    return struct.pack("<" + FMT[t], v)


def kv(key, t, v):
    return s(key) + struct.pack("<I", t) + val(t, v)


def tensor(name, ne, ttype, off):
    return s(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", d) for d in ne) + struct.pack("<IQ", ttype, off)


def gguf(kvs, tensors=(), data=b"", version=3, align=32):
    meta = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs)) + b"".join(kvs) + b"".join(tensors)
    if tensors:
        meta += b"\0" * ((-len(meta)) % align)
    return meta + data


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "empty.gguf": gguf([]),
        "scalars.gguf": gguf([kv("u8", U8, 200), kv("i8", I8, -3), kv("u16", U16, 600), kv("i16", I16, -600),
                              kv("u32", U32, 7), kv("i32", I32, -7), kv("f32", F32, 1.5), kv("b", BOOL, 1),
                              kv("s", STR, "hello"), kv("u64", U64, 1 << 40), kv("i64", I64, -(1 << 40)),
                              kv("f64", F64, 2.5)]),
        "arrays.gguf": gguf([kv("a.u8", ARR, (U8, [1, 2, 3])), kv("a.i32", ARR, (I32, [-1, 5])),
                             kv("a.f32", ARR, (F32, [0.5, 1.0])), kv("a.s", ARR, (STR, ["x", "", "yz"])),
                             kv("a.e", ARR, (U64, [])), kv("a.n", ARR, (ARR, [(U8, [1]), (STR, ["q"])]))]),
        "tensors.gguf": gguf([kv("general.architecture", STR, "llama")],
                             [tensor("a", [4], 0, 0), tensor("b", [32, 2], 8, 32), tensor("c", [2, 2, 1, 1], 1, 128)],
                             bytes(range(136))),
        "align64.gguf": gguf([kv("general.alignment", U32, 64)], [tensor("w", [16], 0, 0), tensor("v", [256], 12, 64)],
                             bytes(208), align=64),
        "v2.gguf": gguf([kv("k", STR, "v2")], [tensor("t", [8], 30, 0)], bytes(16), version=2),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
