#!/usr/bin/env python3
"""Disassembles the machine code (SASS) that NVIDIA's Vulkan driver made of forkboard's compute pipelines.

    python3 scripts/sass.py run BINARY OUT_DIR -- ARGS...   # run BINARY ARGS with a fresh shader cache, read it
    python3 scripts/sass.py read CACHE_DIR OUT_DIR          # read a cache captured before (copied off the GPU host)

`run` needs an NVIDIA GPU; both need `nvdisasm` (the CUDA toolkit's; the lent H100 has it in /usr/local/cuda/bin)
and zstd (the `zstandard` module or the `zstd` command). Example, for the N-Queens kernels:

    python3 scripts/sass.py run target/release/forkboard sass -- queens 12 --engine gpu

The driver keeps compiled pipelines in its disk cache (`__GL_SHADER_DISK_CACHE_PATH`). Each entry there is a zstd
frame holding an image that starts with "NVDANVVMNVuc"; its code (16-byte sm_90 instructions) starts at byte 0x178,
its length is the u32 at byte 0x4c. That layout was found by inspection on driver 580 and is not documented, so
expect it to change; `nvdisasm` rejects what is not code, which shows when it does.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
IMAGE_MAGIC = b"NVDANVVMNVuc"
CODE_START = 0x178
CODE_LENGTH_AT = 0x4C


def decompress(frame: bytes) -> bytes:
    """One zstd frame (trailing bytes of the next cache entry are ignored)."""
    try:
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj().decompress(frame)
    except ImportError:
        done = subprocess.run(["zstd", "-d", "-c"], input=frame, capture_output=True)
        return done.stdout  # zstd complains about the trailing bytes but writes the frame first


def images(cache_dir: str):
    """Every pipeline image in a driver cache folder."""
    for root, _, files in os.walk(cache_dir):
        for name in sorted(files):
            data = open(os.path.join(root, name), "rb").read()
            start = data.find(ZSTD_MAGIC)
            while start >= 0:
                end = data.find(ZSTD_MAGIC, start + 4)
                image = decompress(data[start : end if end >= 0 else len(data)])
                if image.startswith(IMAGE_MAGIC):
                    yield image
                start = end


def nvdisasm() -> str:
    found = shutil.which("nvdisasm") or "/usr/local/cuda/bin/nvdisasm"
    if not os.path.exists(found):
        sys.exit("sass.py: nvdisasm not found (the CUDA toolkit's; put it on PATH)")
    return found


def read(cache_dir: str, out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    tool = nvdisasm()
    count = 0
    for image in images(cache_dir):
        (length,) = struct.unpack_from("<I", image, CODE_LENGTH_AT)
        code = image[CODE_START : CODE_START + length]
        stem = os.path.join(out_dir, f"pipeline-{count}")
        open(stem + ".bin", "wb").write(code)
        listing = subprocess.run([tool, "-b", "SM90", stem + ".bin"], capture_output=True, text=True)
        open(stem + ".sass", "w").write(listing.stdout + listing.stderr)
        lines = listing.stdout.count("\n")
        print(f"{stem}.sass: {length} bytes of code, {lines} lines")
        count += 1
    if count == 0:
        sys.exit(f"sass.py: no pipeline images under {cache_dir}")


def run(binary: str, out_dir: str, args: list) -> None:
    cache = tempfile.mkdtemp(prefix="forkboard-shader-cache-")
    env = dict(
        os.environ,
        __GL_SHADER_DISK_CACHE="1",
        __GL_SHADER_DISK_CACHE_PATH=cache,
        __GL_SHADER_DISK_CACHE_SKIP_CLEANUP="1",
    )
    subprocess.run([binary, *args], env=env, check=True, stdout=subprocess.DEVNULL)
    read(cache, out_dir)


def main() -> None:
    argv = sys.argv[1:]
    if len(argv) >= 3 and argv[0] == "run" and "--" in argv:
        split = argv.index("--")
        if split == 3:
            return run(argv[1], argv[2], argv[split + 1 :])
    if len(argv) == 3 and argv[0] == "read":
        return read(argv[1], argv[2])
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
