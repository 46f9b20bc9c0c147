#!/usr/bin/env python3
"""Which kernels of libmha's instances compile to the same sm_90a machine code here as at another
commit: so that a change meant to leave a kernel alone can be shown to, and a kernel's checks and
timings from a GPU run of that commit carry over to it. No GPU needed, only nvcc.

  python3 native/hopper/same_machine_code.py REV [INSTANCE_GLOB]   # e.g. 6467cc1 'bwd_*16_d128_*'

For each instance (native/src/main/kernels/*/cuda/INSTANCE.cu, default every one) it compiles an
sm_90a cubin from the working tree's headers and one from REV's (git archive), with the flags the
plugin gives nvcc, and prints per kernel whether its .text section is byte for byte the same.
Exit status 1 when some kernel differs.
"""
import fnmatch
import glob
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NVCC = os.environ.get("NVCC", "nvcc")
FLAGS = ["-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-O3", "-std=c++17", "-DMHA_KERNEL_VARIANT=1",
         "-Xcompiler", "-fPIC", "-Xcompiler", "-fvisibility=hidden"]


def text_sections(cubin):
    """The .text.<kernel> sections of an ELF64 cubin, by kernel name. (binutils' objcopy does not
    take the CUDA machine type, so the section headers are read here.)"""
    data = open(cubin, "rb").read()
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    entsize, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * entsize) for i in range(count)]
    names = headers[names_index][4]
    sections = {}
    for name_at, kind, _, _, offset, size, *_ in headers:
        name = data[names + name_at:data.index(b"\0", names + name_at)].decode()
        if name.startswith(".text.") and kind != 8:  # 8: SHT_NOBITS
            sections[name[len(".text."):]] = data[offset:offset + size]
    return sections


def compile_cubin(include, source, out):
    subprocess.run([NVCC, *FLAGS, "-I" + include, "-o", out, source], check=True)
    return text_sections(out)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rev, pattern = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "*"
    sources = sorted(s for s in glob.glob(os.path.join(ROOT, "native/src/main/kernels/*/cuda/*.cu"))
                     if fnmatch.fnmatch(os.path.basename(s)[:-3], pattern))
    if not sources:
        sys.exit("no instance matches %r under native/src/main/kernels/*/cuda" % pattern)
    differ = 0
    with tempfile.TemporaryDirectory() as scratch:
        archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "native/src/main/include"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", scratch], input=archive, check=True)
        for source in sources:
            instance = os.path.basename(source)[:-3]
            here = compile_cubin(os.path.join(ROOT, "native/src/main/include"), source,
                                 os.path.join(scratch, instance + ".here.cubin"))
            there = compile_cubin(os.path.join(scratch, "native/src/main/include"), source,
                                  os.path.join(scratch, instance + ".rev.cubin"))
            for kernel in sorted(set(here) | set(there)):
                same = here.get(kernel) == there.get(kernel)
                differ += not same
                print("%-26s %-8s %s" % (instance, "same" if same else "DIFFERS", kernel))
    print("%d kernel(s) differ from %s" % (differ, rev))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
