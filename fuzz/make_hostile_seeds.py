#!/usr/bin/env python3
"""Writes the hand-made hostile seeds of the fuzz corpus.

Each seed is a small, deliberately malformed input that a parser must reject
(or read partially) without reading out of bounds, looping or allocating
without limit: sizes that lie, offsets past the end, zero strides, overflow
bait. Run from the repository root; files go to fuzz/corpus/<target>/ with a
`hostile-` prefix. The toolchain-built seeds next to them are copies of small
fixtures (see fuzz/corpus/README.md).
"""
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

CONTAINER_MAGIC = 0xBA55ED50


def container(body, fat_size=None, version=1, hsize=16):
    if fat_size is None:
        fat_size = len(body)
    return struct.pack("<IHHQ", CONTAINER_MAGIC, version, hsize, fat_size) + body


def entry(kind=2, payload=b"", header_size=0x40, payload_size=None, compressed_size=0,
          options_offset=0, code=(0, 0), arch=80, ident_offset=0, ident_size=0,
          flags=0x11, uncompressed_size=0, extra=b""):
    if payload_size is None:
        payload_size = len(payload)
    hdr = struct.pack("<HHIQIIHHIIIQQQ", kind, 0x0101, header_size, payload_size, compressed_size,
                      options_offset, code[1], code[0], arch, ident_offset, ident_size, flags, 0,
                      uncompressed_size)
    assert len(hdr) == 64
    return hdr + extra + payload


def elf64(e_type=3, machine=62, phoff=0, shoff=0, phnum=0, shnum=0, shstrndx=0, flags=0,
          osabi=0, abiver=0):
    ident = b"\x7fELF" + bytes([2, 1, 1, osabi, abiver]) + b"\0" * 7
    return ident + struct.pack("<HHIQQQIHHHHHH", e_type, machine, 1, 0, phoff, shoff, flags, 64,
                               56, phnum, 64, shnum, shstrndx)


def shdr(name=0, type_=0, flags=0, addr=0, offset=0, size=0, link=0, info=0, align=0, entsize=0):
    return struct.pack("<IIQQQQIIQQ", name, type_, flags, addr, offset, size, link, info, align, entsize)


def phdr(type_=1, flags=4, offset=0, vaddr=0, filesz=0, memsz=0, align=0):
    return struct.pack("<IIQQQQQQ", type_, flags, offset, vaddr, vaddr, filesz, memsz, align)


def ar_member(name, data, size_field=None):
    size = str(len(data) if size_field is None else size_field).encode()
    hdr = name.encode().ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"644".ljust(8) + \
        size.ljust(10) + b"`\n"
    assert len(hdr) == 60
    return hdr + data + (b"\n" if len(data) % 2 else b"")


def fatbin_seeds():
    tiny_ptx = b".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n\0"
    s = {}
    s["empty-container"] = container(b"")
    s["fat-size-past-end"] = container(entry(payload=b"x" * 16), fat_size=0xFFFFFFFFFFFFFFF0)
    s["header-size-zero"] = container(entry(header_size=0, payload=b""))
    s["header-size-small"] = container(entry(header_size=0x10, payload=b"\0" * 64))
    s["payload-size-overflow"] = container(entry(payload_size=0xFFFFFFFFFFFFFFC0) + b"\0" * 32)
    s["ident-outside-header"] = container(entry(ident_offset=0x40, ident_size=0x1000, header_size=0x48,
                                                extra=b"a.cu\0\0\0\0"))
    s["options-outside-header"] = container(entry(options_offset=0xFFFFFFF0, header_size=0x48,
                                                  extra=b"\0" * 8))
    s["options-lying-length"] = container(entry(options_offset=0x40, header_size=0x48,
                                                extra=struct.pack("<II", 8, 0xFFFFFFFF)))
    s["zero-padding-between"] = container(entry(kind=1, payload=tiny_ptx, code=(9, 0))) + b"\0" * 8 + \
        container(entry(kind=1, payload=tiny_ptx, code=(9, 0)))
    s["trailing-garbage"] = container(entry(kind=1, payload=tiny_ptx)) + b"\x01\x02\x03"
    s["many-empty-entries"] = container(entry(kind=1) * 64)
    s["lz4-lying-size"] = container(entry(kind=2, flags=0x2011, payload=b"\x1f\x00\x01\x00" + b"\0" * 12,
                                          compressed_size=16, uncompressed_size=0x7FFFFFFF))
    s["lz4-corrupt"] = container(entry(kind=2, flags=0x2011, payload=b"\xff" * 32, compressed_size=32,
                                       uncompressed_size=64))
    s["zstd-lying-size"] = container(entry(kind=2, flags=0x8011, payload=b"\x28\xb5\x2f\xfd" + b"\0" * 12,
                                           compressed_size=16, uncompressed_size=0xFFFFFFFFFFFF))
    s["zstd-compressed-gt-payload"] = container(entry(kind=1, flags=0x8011, payload=b"\0" * 8,
                                                      compressed_size=0x100, uncompressed_size=8))
    # Five ZSTD PTX entries that each declare almost 1 GiB: past any small
    # input's decode budget (DecodeBudget), so none is decoded.
    s["zstd-bomb-over-budget"] = container(entry(kind=1, flags=0x8011, payload=b"\x28\xb5\x2f\xfd" + b"\0" * 12,
                                                 compressed_size=16, uncompressed_size=0x3FFFFFC0) * 5)
    s["legacy-compression"] = container(entry(kind=2, flags=0x1011, payload=b"\0" * 8))
    s["ptx-no-version"] = container(entry(kind=1, payload=b".target sm_90a, sm_80 // c\n/* .version 1.0 */\n"
                                                          b".entry a(\n.entry b\n", code=(8, 8)))
    s["container-hsize-large"] = container(b"\0" * 64, hsize=0xFFFF)
    return s


def elf_seeds():
    s = {}
    s["hdr-only"] = elf64()
    s["shoff-past-end"] = elf64(shoff=0xFFFFFFFFFFFFFF00, shnum=0xFFFF, shstrndx=1)
    s["phoff-past-end"] = elf64(phoff=0x7FFFFFFFFFFFFFFF, phnum=0xFFFF)
    # Extended numbering: e_shnum 0, the count in section 0's sh_size (huge).
    body = elf64(shoff=64, shnum=0, shstrndx=0xFFFF)
    s["extended-shnum"] = body + shdr(size=0xFFFFFFFF, link=0xFFFFFFFF)
    # A dynamic section whose tables point anywhere, with a PT_LOAD covering the file.
    hdr = elf64(phoff=64, phnum=2)
    dyn_off = 64 + 2 * 56
    dyn = struct.pack("<" + "QQ" * 9, 5, 0x0, 10, 0xFFFFFFFFFFFFFFFF, 6, 0x10, 11, 0, 4, 0x40,
                      0x6ffffffe, 0x40, 0x6fffffff, 0x7FFFFFFF, 1, 0xFFFFFFFF, 0, 0)
    ph = phdr(1, 5, 0, 0, 0x1000, 0x1000) + phdr(2, 6, dyn_off, dyn_off, len(dyn), len(dyn))
    img = hdr + ph + dyn
    s["dynamic-lies"] = img + b"\0" * (0x200 - len(img))
    # Section table with a symtab whose entsize is 0 and whose link loops to itself.
    hdr = elf64(e_type=1, shoff=64, shnum=4, shstrndx=3)
    names = b"\0.symtab\0.rela.text\0.shstrtab\0"
    data_off = 64 + 4 * 64
    secs = shdr() + shdr(1, 2, offset=data_off, size=48, link=1, entsize=0) + \
        shdr(9, 4, offset=data_off, size=0xFFFFFFFFFFFF, link=1, info=0xFFFF, entsize=0) + \
        shdr(20, 3, offset=data_off + 48, size=len(names))
    s["symtab-zero-entsize"] = hdr + secs + b"\0" * 48 + names
    # .gnu.version_r whose records overlap: vn_next = vna_next = 16, vn_aux = 0.
    vn = struct.pack("<HHIII", 1, 0xFFFF, 0, 0, 16) * 64
    names = b"\0.dynstr\0.dynamic\0.gnu.version_r\0.shstrtab\0"
    off = 64 + 5 * 64
    hdr = elf64(e_type=3, shoff=64, shnum=5, shstrndx=4)
    secs = shdr() + shdr(1, 3, offset=off, size=1) + shdr(9, 6, offset=off + 8, size=16, link=1) + \
        shdr(18, 0x6ffffffe, offset=off + 24, size=len(vn), link=1, info=64) + \
        shdr(33, 3, offset=off + 24 + len(vn), size=len(names))
    s["verneed-overlapping"] = hdr + secs + b"\0" * 24 + vn + names
    return s


def archive_seeds():
    s = {}
    s["thin"] = b"!<thin>\n" + ar_member("a.o/", b"")
    s["size-past-end"] = b"!<arch>\n" + ar_member("a.o/", b"xx", size_field=99999999)
    s["size-not-decimal"] = b"!<arch>\n" + ar_member("a.o/", b"xx", size_field="0x10")
    s["longname-outside-table"] = b"!<arch>\n" + ar_member("//", b"long_name.o/\n") + ar_member("/999", b"x")
    s["longname-no-table"] = b"!<arch>\n" + ar_member("/0", b"x")
    s["bsd-name-longer-than-member"] = b"!<arch>\n" + ar_member("#1/50", b"short")
    s["bsd-and-gnu-names"] = b"!<arch>\n" + ar_member("#1/20", b"a_long_bsd_name.o\0\0\0" + b"\x7fELF") + \
        ar_member("//", b"gnu_member_long_name.o/\n") + ar_member("/0", b"\x50\xed\x55\xba")
    s["zero-size-members"] = b"!<arch>\n" + ar_member("a/", b"") * 32
    s["bad-terminator"] = b"!<arch>\n" + ar_member("a/", b"ab")[:58] + b"XX"
    fat = container(entry(payload=b"\x7fELF" + b"\0" * 60, payload_size=0xFFFF))
    s["fatbin-member-lying"] = b"!<arch>\n" + ar_member("f.fatbin/", fat)
    return s


def toml_seeds():
    """Policies and a lock file as users write them, and the shapes the
    TOML shield exists for (deep keys, deep nesting, bad UTF-8)."""
    s = {}
    s["check-policy"] = (b'[tool.cuwheel]\ncuda-major = 12\nsass = ["sm_80", "sm_90a"]\nptx = "newest"\n'
                         b'gpus = ["sm_80", "sm_120"]\nmin-driver = "525.60.13"\nmax-size = "500MB"\n'
                         b'exports = ["PyInit_*"]\nlicense-files = ["LICENSE"]\nentry-points = ["console_scripts:x"]\n'
                         b'[tool.cuwheel.pins]\ntorch = "exact"\n[tool.cuwheel.severity]\nmissing-sass = "warning"\n')
    s["release-policy"] = (b'[project]\nname = "dyng"\n[tool.cuwheel.release]\ncore = "dyng"\n'
                           b'plugins = ["dyng-cu12", "dyng-cu13"]\nplugins-since = "0.2"\n'
                           b'platforms = ["manylinux_2_28_x86_64"]\nplugin-tag = "cp312-abi3"\n'
                           b'core-wheels = ["py3-none-any"]\n[tool.cuwheel.release.indexes]\n'
                           b'test = { name = "testpypi", environment = "testpypi" }\n')
    s["lock"] = (b'schema = 1\n[toolkit.cu12]\nrelease = "12.9"\nrepo = "https://example.invalid/x/"\n'
                 b'key_url = "https://example.invalid/x/k.pub"\n'
                 b'key_fingerprint = "610C7B14E068A878070DA4E99CD0A493D42D0685"\nrequested = ["cuda-nvcc-12-9"]\n'
                 b'external = ["/bin/sh"]\n[[toolkit.cu12.rpm]]\nname = "cuda-nvcc-12-9"\nevr = "12.9.86-1"\n'
                 b'arch = "x86_64"\nlocation = "cuda-nvcc-12-9-12.9.86-1.x86_64.rpm"\nsha256 = "' + b"a" * 64 +
                 b'"\nsize = 42\n')
    s["deep-key"] = b"[tool.other]\n" + b".".join([b"k"] * 200) + b" = 1\n"
    s["deep-header"] = b"[" + b".".join([b"t"] * 200) + b"]\n"
    s["deep-array"] = b"x = " + b"[" * 200 + b"]" * 200 + b"\n"
    s["deep-inline"] = b"x = " + b"{a=" * 150 + b"1" + b"}" * 150 + b"\n"
    s["bad-utf8"] = b'[tool.cuwheel]\nmin-driver = "\xff\xfe\xc0\x80"\n'
    s["long-value"] = b'[tool.cuwheel]\nmin-driver = "' + b"1" * 5000 + b'"\n'
    return s


def rules_seeds():
    """Models for fuzz_rules: sections split by 0x1e (see fuzz/fuzz_rules.cc)."""
    RS = b"\x1e"
    meta = b"Metadata-Version: 2.1\nName: cuext\nVersion: 1.0\nRequires-Dist: nvidia-cuda-runtime-cu12>=12.4\n" \
           b"Requires-Dist: torch==2.8.0\n"
    wheel = b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\nTag: cp312-cp312-manylinux_2_28_x86_64\n"
    record = b"cuext/_ext.so,sha256=AAAA,10\ncuext-1.0.dist-info/RECORD,,\n"
    members = b"cuext/__init__.py\ncuext/_ext.so\ncuext/lib/libcuda.so.1\ncuext-1.0.dist-info/METADATA\n" \
              b"cuext-1.0.dist-info/RECORD\ncuext-1.0.dist-info/WHEEL\n"
    py = b'import ctypes\nctypes.CDLL("libcudart.so.12")\nload_nvidia_dynamic_lib("cublas")\n'
    ext = b"member cuext/_ext.so\nneeded libcudart.so.12 libcublas.so.12 libc.so.6 libtorch_cuda.so\n" \
          b"runpath $ORIGIN/../nvidia/cuda_runtime/lib:/usr/local/cuda/lib64\nsass 80 90a 120f\nptx 90\n" \
          b"strings libcusolver.so.11 libplugin_%s.so\nexports PyInit__ext cudaMalloc"
    drv = b"member cuext/lib/libcuda.so.1\nsoname libcuda.so.1\nneeded libc.so.6"
    s = {}
    s["cu12-extension"] = RS.join([b"cuext-1.0-cp312-cp312-manylinux_2_28_x86_64.whl", meta, wheel, record,
                                   members, py, ext, drv])
    # The last library a real one: the fixture built for CUDA 12 (a
    # shared library with SASS and PTX), read as check reads a member.
    with open(os.path.join(os.path.dirname(ROOT), "..", "tests", "fixtures", "bin", "cu12_plain.so"), "rb") as f:
        elf = f.read()
    s["cu12-real-library"] = RS.join([b"cuext-1.0-cp312-cp312-manylinux_2_28_x86_64.whl", meta, wheel, record,
                                      members, py, ext, elf])
    s["empty-sections"] = RS * 8
    s["no-metadata"] = RS.join([b"x-1.0-py3-none-any.whl", b"", b"", b"", b"x/a.so\n", b"", b"member x/a.so\nsass 75"])
    return s


def write(target, seeds):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(d, "hostile-" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    fb = fatbin_seeds()
    write("fatbin", fb)
    write("elf", elf_seeds())
    write("archive", archive_seeds())
    dc = dict(fb)
    dc.update(elf_seeds())
    write("devicecode", dc)
    write("toml", toml_seeds())
    write("rules", rules_seeds())
