#!/usr/bin/env python3
"""Reads or rewrites the tile dialect version recorded in MLIR bytecode.

  tile_bytecode_version.py FILE
      prints "tile dialect version MAJOR.MINOR"
  tile_bytecode_version.py FILE --set MAJOR.MINOR -o OUT
      writes FILE with the tile dialect version replaced (values below 128)
  tile_bytecode_version.py FILE --truncate -o OUT
      writes FILE with the minor version cut short: its first byte announces
      a 9-byte varint that the 2-byte version blob does not hold

Used by bytecode.mlir to make bytecode of a dialect version this build does
not write. The file is parsed per the MLIR bytecode format (magic, version,
producer, then sections; the string section names the dialects, the dialect
section holds each dialect's version blob).
"""
import argparse
import sys

MAGIC = b"ML\xefR"
STRING_SECTION, DIALECT_SECTION, DIALECT_VERSIONS = 0, 1, 7


def fail(message):
    sys.exit("tile_bytecode_version.py: " + message)


def read_varint(buf, pos):
    """MLIR's prefix varint: the trailing zeros of the first byte count the
    extra bytes; a first byte of 0 means 8 more bytes."""
    first = buf[pos]
    if first & 1:
        return first >> 1, pos + 1
    if first == 0:
        return int.from_bytes(buf[pos + 1:pos + 9], "little"), pos + 9
    n = (first & -first).bit_length()  # bytes in all
    return int.from_bytes(buf[pos:pos + n], "little") >> n, pos + n


def sections(buf):
    """Yields (id, data_start, data_end) for each top-level section."""
    if buf[:4] != MAGIC:
        fail("not MLIR bytecode")
    _, pos = read_varint(buf, 4)  # bytecode version
    pos = buf.index(b"\0", pos) + 1  # producer
    while pos < len(buf):
        code = buf[pos]
        length, pos = read_varint(buf, pos + 1)
        if code & 0x80:
            align, pos = read_varint(buf, pos)
            while pos % align:
                pos += 1
        yield code & 0x7F, pos, pos + length
        pos += length


def strings(buf, start, end):
    count, pos = read_varint(buf, start)
    lengths = []
    for _ in range(count):
        n, pos = read_varint(buf, pos)
        lengths.append(n)
    result = []
    for n in reversed(lengths):
        result.append(buf[pos:pos + n - 1].decode())
        pos += n
    return result


def tile_version_span(buf):
    """Returns (start, end) of the tile dialect's version blob."""
    found = {}
    for sid, start, end in sections(buf):
        found.setdefault(sid, (start, end))
    if STRING_SECTION not in found or DIALECT_SECTION not in found:
        fail("no string or dialect section")
    names = strings(buf, *found[STRING_SECTION])
    start, end = found[DIALECT_SECTION]
    count, pos = read_varint(buf, start)
    for _ in range(count):
        value, pos = read_varint(buf, pos)
        name_id, versioned = value >> 1, value & 1
        if not versioned:
            continue
        if buf[pos] != DIALECT_VERSIONS:
            fail("malformed dialect version section")
        length, pos = read_varint(buf, pos + 1)
        if names[name_id] == "tile":
            return pos, pos + length
        pos += length
    fail("the tile dialect records no version")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("--set", metavar="MAJOR.MINOR")
    parser.add_argument("--truncate", action="store_true")
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    buf = bytearray(open(args.input, "rb").read())
    start, end = tile_version_span(buf)
    if not args.set and not args.truncate:
        major, pos = read_varint(buf, start)
        minor, pos = read_varint(buf, pos)
        if pos != end:
            fail("unexpected bytes after the tile dialect version")
        print("tile dialect version %d.%d" % (major, minor))
        return
    if end - start != 2:
        fail("expected a 2-byte version blob, got %d bytes" % (end - start))
    if args.set:
        major, minor = (int(v) for v in args.set.split("."))
        if not (0 <= major < 128 and 0 <= minor < 128):
            fail("versions must be below 128")
        buf[start], buf[start + 1] = (major << 1) | 1, (minor << 1) | 1
    else:
        buf[start + 1] = 0
    if not args.output:
        fail("-o is required with --set or --truncate")
    open(args.output, "wb").write(bytes(buf))


if __name__ == "__main__":
    main()
