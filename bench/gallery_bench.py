#!/usr/bin/env python3
"""Benchmark of `shoebox gallery` (issue #22) on generated libraries of 10,000 and 100,000 photos.

Each library's catalog.sqlite is made by `shoebox reindex` (the current schema) and filled
through Python's sqlite3 with the rows bench/list_bench.py generates (capture dates over
decades, 5% undated, cameras, lenses, positions, datings, one source URL each), every original
with two thumbnails (256 and 1024) of its own shape: 4:3 landscapes, 3:4 portraits, squares,
16:9, 3:1 panoramas and 1:8 strips. Originals and thumbnails are hard links to a few small
JPEG files, so the files the gallery checks exist without filling the disk.

Reported per size, medians of ROUNDS runs: the first generation into an empty folder (time,
peak RSS), a rerun with nothing changed (time, files written), and the page weights: the
front page, the largest and the median page of photos, the largest photo page, map.svg (--gps),
files and bytes in all; and the bound stated in the manual (a page of photos holds at most
400 photos).

    python3 bench/gallery_bench.py --shoebox PATH [--sizes 10000,100000] [--rounds 3] [--keep DIR]
"""
import argparse
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from list_bench import generate  # noqa: E402

SHAPES = [((4, 3), 55), ((3, 4), 22), ((1, 1), 6), ((16, 9), 10), ((3, 1), 5), ((1, 8), 2)]
SETTINGS = "jpeg q80 inside stripped r2"


def fitted(shape, box):
    w, h = shape
    scale = min(box / w, box / h)
    return max(1, round(w * scale)), max(1, round(h * scale))


def build(shoebox, folder, rows, seed):
    os.makedirs(f"{folder}/originals")
    subprocess.run([shoebox, "reindex", "--library", folder], check=True, stdout=subprocess.DEVNULL)
    seeds = []  # a file has at most 65,000 links on ext4: a new seed every 60,000
    rng = random.Random(seed)
    db = sqlite3.connect(f"{folder}/catalog.sqlite")
    db.execute("PRAGMA synchronous=OFF")
    made_folders = set()

    def link(path):
        parent = os.path.dirname(f"{folder}/{path}")
        if parent not in made_folders:
            os.makedirs(parent, exist_ok=True)
            made_folders.add(parent)
        if not seeds or seeds[-1][1] >= 60_000:
            seed = f"{folder}/.seed-{len(seeds)}.jpg"
            subprocess.run(["/usr/bin/convert", "-size", "64x48", "xc:#4a7", seed], check=True)
            seeds.append([seed, 0])
        os.link(seeds[-1][0], f"{folder}/{path}")
        seeds[-1][1] += 1

    batch = 20_000
    for first in range(0, rows, batch):
        pairs = [generate(rng, n) for n in range(first, min(rows, first + batch))]
        originals, thumbnails = [], []
        for original, _ in pairs:
            shape = rng.choices([s for s, _ in SHAPES], [w for _, w in SHAPES])[0]
            width, height = fitted(shape, 4000)
            original = original[:4] + (width, height) + original[6:]
            originals.append(original)
            link(original[1])
            under = original[1][len("originals/"):]
            for box in (256, 1024):
                w, h = fitted(shape, box)
                path = f"thumbnails/{box}/{under}.jpg"
                thumbnails.append((path, original[0], str(box), "jpeg", w, h, 1500 + w * h // 20, original[13], SETTINGS))
                link(path)
        db.executemany("INSERT INTO originals (sha256, path, bytes, content_type, width, height, taken_at, make, model, "
                       "gps_latitude, gps_longitude, gps_altitude, orientation, added_at, dated_by, folded_path, lens) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", originals)
        db.executemany("INSERT INTO sources (url, sha256, fetched_at, outcome) VALUES (?,?,?,?)", [p[1] for p in pairs])
        db.executemany("INSERT INTO thumbnails (path, original_sha256, size, format, width, height, bytes, created_at, settings) "
                       "VALUES (?,?,?,?,?,?,?,?,?)", thumbnails)
    db.commit()
    db.close()


def run(command):
    """Wall seconds and peak RSS (MiB) of one run of command, from its own rusage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"gallery_bench: {' '.join(command)} failed ({result.returncode}): {result.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, peak / 1024, result.stdout, max(peak, before)


def measure_rss(command):
    """Peak RSS in MiB of one run, through /usr/bin/time when it is there (rusage of children is a running max)."""
    if os.path.exists("/usr/bin/time"):
        result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, capture_output=True, text=True)
        if result.returncode == 0:
            return int(result.stderr.strip().splitlines()[-1]) / 1024
    return float("nan")


def weights(out):
    sizes = {}
    for root, _, files in os.walk(out):
        for name in files:
            path = os.path.join(root, name)
            sizes[os.path.relpath(path, out)] = os.path.getsize(path)
    pages = [v for k, v in sizes.items() if k.startswith("months/")]
    photos = [v for k, v in sizes.items() if k.startswith("photos/")]
    return {
        "index.html": sizes.get("index.html", 0),
        "pages of photos": len(pages),
        "largest page": max(pages or [0]),
        "median page": int(statistics.median(pages or [0])),
        "largest photo page": max(photos or [0]),
        "map.svg": sizes.get("map.svg", 0),
        "files": len(sizes),
        "bytes in all": sum(sizes.values()),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shoebox", required=True)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep")
    args = parser.parse_args()
    base = args.keep or tempfile.mkdtemp(prefix="gallery-bench-")
    try:
        for rows in [int(x) for x in args.sizes.split(",")]:
            folder = f"{base}/lib-{rows}"
            if os.path.exists(folder):
                shutil.rmtree(folder)
            start = time.perf_counter()
            build(args.shoebox, folder, rows, seed=rows)
            print(f"\n## {rows:,} photos (library built in {time.perf_counter() - start:.1f} s)")
            first, rerun, rss, written = [], [], [], []
            for _ in range(args.rounds):
                out = f"{folder}/gallery"
                shutil.rmtree(out, ignore_errors=True)
                command = [args.shoebox, "gallery", "--library", folder, "--gps", "--json"]
                elapsed, _, _, _ = run(command)
                first.append(elapsed)
                elapsed, _, stdout, _ = run(command)
                rerun.append(elapsed)
                written.append(int(stdout.split('"files_written":')[1].split(",")[0].split("}")[0]))
            shutil.rmtree(f"{folder}/gallery", ignore_errors=True)
            rss.append(measure_rss([args.shoebox, "gallery", "--library", folder, "--gps"]))
            print(f"| run | median s | per photo ms |\n|---|---|---|")
            print(f"| first, into an empty folder | {statistics.median(first):.2f} | {statistics.median(first) / rows * 1000:.3f} |")
            print(f"| rerun, nothing changed ({statistics.median(written)} files written) | {statistics.median(rerun):.2f} | "
                  f"{statistics.median(rerun) / rows * 1000:.3f} |")
            print(f"\npeak RSS of a first run: {rss[0]:.0f} MiB")
            print("\n| page weight | value |\n|---|---|")
            for key, value in weights(f"{folder}/gallery").items():
                print(f"| {key} | {value:,} |")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
