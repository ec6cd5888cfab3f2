"""Raw thumbnail timing for bench/raw-thumbs.sh: see there. Arguments: SHOEBOX FILES ROUNDS."""
import os
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

shoebox, files, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
work = tempfile.mkdtemp(prefix="shoebox-raw-bench-")
WIDTH, HEIGHT = 6000, 4000


def dng(path, preview, orientation=6):
    """A little-endian DNG: IFD0 (a JPEG preview, or the sensor data itself), 16-bit RGGB Bayer data."""
    def pack(kind, values):
        if kind == 1: return bytes(values)
        if kind == 2: return values.encode() + b"\0"
        if kind == 3: return struct.pack("<%dH" % len(values), *values)
        if kind == 4: return struct.pack("<%dI" % len(values), *values)
        return b"".join(struct.pack("<ii" if kind == 10 else "<II", a, b) for a, b in values)
    sizes = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 10: 8}

    def ifd(entries, at):
        entries = sorted(entries)
        body, extra = struct.pack("<H", len(entries)), b""
        start = at + 2 + 12 * len(entries) + 4
        for tag, kind, values in entries:
            data = pack(kind, values)
            count = len(data) // sizes[kind]
            if len(data) <= 4:
                body += struct.pack("<HHI", tag, kind, count) + data.ljust(4, b"\0")
            else:
                body += struct.pack("<HHII", tag, kind, count, start + len(extra))
                extra += data + (b"\0" if len(data) % 2 else b"")
        return body + struct.pack("<I", 0) + extra
    # Two halves of different colours, with a little per-column texture.
    even = struct.pack("<%dH" % WIDTH, *[(30000 if x < WIDTH // 2 else 9000) + (x % 97) * 40 if x % 2 == 0 else 20000
                                         for x in range(WIDTH)])
    odd = struct.pack("<%dH" % WIDTH, *[20000 if x % 2 == 0 else (9000 if x < WIDTH // 2 else 30000) + (x % 89) * 40
                                        for x in range(WIDTH)])
    pixels = (even + odd) * (HEIGHT // 2)
    camera = [(0x010F, 2, "Shoebox"), (0x0110, 2, "Bench"), (0x0112, 3, [orientation]), (0xC612, 1, [1, 4, 0, 0]),
              (0xC621, 10, [(1, 1), (0, 1), (0, 1), (0, 1), (1, 1), (0, 1), (0, 1), (0, 1), (1, 1)]),
              (0xC628, 5, [(1, 1), (1, 1), (1, 1)])]

    def sensor(at):
        return [(0x00FE, 4, [0]), (0x0100, 4, [WIDTH]), (0x0101, 4, [HEIGHT]), (0x0102, 3, [16]), (0x0103, 3, [1]),
                (0x0106, 3, [32803]), (0x0111, 4, [at]), (0x0115, 3, [1]), (0x0116, 4, [HEIGHT]),
                (0x0117, 4, [len(pixels)]), (0x828D, 3, [2, 2]), (0x828E, 1, [0, 1, 1, 2]), (0xC61D, 4, [65535])]
    head = b"II*\0" + struct.pack("<I", 8)
    if preview is None:
        data = head + ifd(camera + sensor(8 + len(ifd(camera + sensor(0), 8))), 8) + pixels
    else:
        jpeg, width, height = preview

        def first(jpeg_at, sub_at):
            return camera + [(0x00FE, 4, [1]), (0x0100, 4, [width]), (0x0101, 4, [height]), (0x0102, 3, [8, 8, 8]),
                             (0x0103, 3, [7]), (0x0106, 3, [6]), (0x0111, 4, [jpeg_at]), (0x0115, 3, [3]),
                             (0x0116, 4, [height]), (0x0117, 4, [len(jpeg)]), (0x014A, 4, [sub_at])]
        jpeg_at = 8 + len(ifd(first(0, 0), 8))
        sub_at = jpeg_at + len(jpeg) + len(jpeg) % 2
        pixels_at = sub_at + len(ifd(sensor(0), sub_at))
        data = head + ifd(first(jpeg_at, sub_at), 8) + jpeg + b"\0" * (len(jpeg) % 2) + ifd(sensor(pixels_at), sub_at) + pixels
    with open(path, "wb") as out:
        out.write(data)


def make_inputs():
    preview_jpeg = os.path.join(work, "preview.jpg")
    subprocess.run(["/usr/bin/convert", "-size", "1620x1080", "plasma:fractal", "-quality", "90", preview_jpeg], check=True)
    preview = (open(preview_jpeg, "rb").read(), 1620, 1080)
    for kind in ("preview", "bare"):
        folder = os.path.join(work, kind)
        os.makedirs(folder)
        for index in range(files):
            dng(os.path.join(folder, "IMG_%04d.dng" % index), preview if kind == "preview" else None)


def library(kind):
    root = os.path.join(work, "lib-" + kind)
    shutil.rmtree(root, ignore_errors=True)
    subprocess.run([shoebox, "import", os.path.join(work, kind), "--library", root], check=True, capture_output=True)
    return root


def timed(command):
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(command), done.stderr[-600:]))
    return time.monotonic() - start


def peer_preview(kind):
    """exiftool extracts each preview, vipsthumbnail shrinks it."""
    folder = os.path.join(work, kind)
    out = os.path.join(work, "peer")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    start = time.monotonic()
    subprocess.run(["exiftool", "-q", "-b", "-PreviewImage", "-w", out + "/%f.jpg", folder], check=True)
    subprocess.run(["vipsthumbnail", "-s", "256", "-o", out + "/%s-256.jpg"] + sorted(
        os.path.join(out, name) for name in os.listdir(out)), check=True)
    return time.monotonic() - start


make_inputs()
cases = [
    ("shoebox: preview, -s 256", "preview", ["-s", "256"]),
    ("shoebox: preview, -s 256,1024", "preview", ["-s", "256,1024"]),
    ("shoebox: half-size decode (preview too small), -s 2048", "preview", ["-s", "2048"]),
    ("shoebox: half-size decode (no preview), -s 256", "bare", ["-s", "256"]),
]
results = {name: [] for name, _, _ in cases}
results["exiftool -b -PreviewImage + vipsthumbnail -s 256"] = []
for _ in range(rounds):
    for name, kind, arguments in cases:
        root = library(kind)
        results[name].append(timed([shoebox, "thumbs", "--library", root] + arguments))
    results["exiftool -b -PreviewImage + vipsthumbnail -s 256"].append(peer_preview("preview"))
print("%d DNGs of %dx%d (%.1f MB each), %d rounds, %d cores" % (
    files, WIDTH, HEIGHT, os.path.getsize(os.path.join(work, "bare", "IMG_0000.dng")) / 1e6, rounds, os.cpu_count()))
print("| case | median s | s per file |")
print("|---|---|---|")
for name, times in results.items():
    median = statistics.median(times)
    print("| %s | %.3f | %.3f |" % (name, median, median / files))
print("peak RSS of the largest process (shoebox, its LibRaw children, or a peer): %d MiB"
      % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024))
shutil.rmtree(work)
