#!/usr/bin/env python3
"""Benchmark of `shoebox list` (issue #21) on a catalog of 1,000,000 originals.

Builds a library whose catalog.sqlite is made by `shoebox reindex` (the current schema,
list indexes included) and filled by this script through Python's sqlite3 with generated
rows: capture dates 1960-2026 (5% undated, some before 1970), 40 camera models (10% with
none), 40% with a position around 30 cities (some at exactly 0,0), five formats, three
datings, added times over two years, and one source URL each on one of 200 hosts (a few
large, many small). Then times a few `shoebox list` queries, stdout to /dev/null, and the
equivalent SQL in the `sqlite3` shell on the same file as the reference (selecting the
columns shoebox reads, which it needs for any output, so both look rows up in the table;
`sqlite3` prints them in its list format): ROUNDS rounds,
alternating tools, medians in milliseconds, and how many originals each query gives.

    python3 bench/list_bench.py --shoebox PATH [--rows 1000000] [--rounds 5] [--keep DIR]
"""
import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

CAMERAS = [("Canon", f"Canon EOS {m}") for m in ("R5", "R6", "5D Mark IV", "80D", "M50", "6D", "R", "90D")] + \
    [("NIKON CORPORATION", f"NIKON {m}") for m in ("D850", "D750", "Z 6", "Z 7", "D3500", "D7500", "Z fc", "D5600")] + \
    [("Apple", f"iPhone {m}") for m in ("8", "X", "11", "12", "13 Pro", "14", "15 Pro", "SE")] + \
    [("SONY", f"ILCE-{m}") for m in ("7M3", "7RM4", "6400", "7C", "9", "1", "6000", "7SM3")] + \
    [("FUJIFILM", f"X-{m}") for m in ("T4", "T30", "S10", "E4", "H2", "T5", "Pro3", "A7")]
CITIES = [(48.8584, 2.2945), (51.5007, -0.1246), (40.6892, -74.0445), (35.6586, 139.7454), (-33.8568, 151.2153),
          (41.8902, 12.4922), (52.5163, 13.3777), (55.7539, 37.6208), (-22.9519, -43.2105), (37.8199, -122.4783),
          (25.1972, 55.2744), (1.2834, 103.8607), (-17.7134, 178.065), (64.1466, -21.9426), (30.0444, 31.2357),
          (19.4326, -99.1332), (-34.6037, -58.3816), (59.3293, 18.0686), (45.4642, 9.19), (39.9042, 116.4074),
          (28.6139, 77.209), (13.7563, 100.5018), (-1.2921, 36.8219), (60.1699, 24.9384), (38.7223, -9.1393),
          (50.0755, 14.4378), (47.4979, 19.0402), (43.6532, -79.3832), (49.2827, -123.1207), (21.3069, -157.8583)]
FORMATS = [("image/jpeg", "jpg", 80), ("image/heic", "heic", 8), ("image/png", "png", 5), ("image/x-canon-cr3", "cr3", 4),
           ("image/webp", "webp", 3)]
HOSTS = [f"host{k}.example.com" for k in range(200)]
LENSES = ["EF24-105mm f/4L IS USM", "RF24-70mm F2.8 L IS USM", "EF50mm f/1.8 STM", "AF-S NIKKOR 24-70mm f/2.8E ED VR",
          "NIKKOR Z 24-120mm f/4 S", "FE 24-105mm F4 G OSS", "FE 85mm F1.8", "XF16-55mmF2.8 R LM WR", "XF35mmF1.4 R",
          "iPhone 12 back dual wide camera 4.2mm f/1.6", "iPhone 13 Pro back triple camera 5.7mm f/1.5"]


def generate(rng, n):
    """Rows of originals (15 columns + folded_path) and sources for original number n."""
    if rng.random() < 0.05:
        taken = None
        dated = "fetch-time" if rng.random() < 0.5 else None
    else:
        year = rng.randint(1960, 2026) if rng.random() < 0.1 else rng.randint(2000, 2026)
        taken = f"{year}:{rng.randint(1, 12):02d}:{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
        dated = rng.choices(["exif", "last-modified", "fetch-time"], [85, 10, 5])[0]
    make, model = rng.choice(CAMERAS) if rng.random() > 0.1 else (None, None)
    lens = rng.choice(LENSES) if make and rng.random() < 0.7 else ""
    lat = lon = None
    if rng.random() < 0.4:
        if rng.random() < 0.002:
            lat, lon = 0.0, 0.0
        else:
            city = rng.choice(CITIES)
            lat, lon = city[0] + rng.gauss(0, 0.05), city[1] + rng.gauss(0, 0.05)
    ctype, ext = rng.choices([(f[0], f[1]) for f in FORMATS], [f[2] for f in FORMATS])[0]
    day = (taken or "undated/0000:00:00")[:10].replace(":", "/")
    path = f"originals/{day}/IMG_{n:07d}.{ext}"
    sha = "%064x" % rng.getrandbits(256)
    added_day = rng.randint(0, 700)
    added = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1735689600 + added_day * 86400 + rng.randint(0, 86399)))
    original = (sha, path, rng.randint(200_000, 30_000_000), ctype, 4000, 3000, taken, make, model, lat, lon, None, 1,
                added, dated, path.lower(), lens)
    host = HOSTS[min(int(rng.paretovariate(1.2)) - 1, len(HOSTS) - 1)] if rng.random() < 0.7 else rng.choice(HOSTS)
    source = (f"https://{host}/photos/{n}.{ext}", sha, added, "stored")  # also its one version (source_versions)
    return original, source


def build(shoebox, folder, rows, seed):
    os.makedirs(f"{folder}/originals")
    subprocess.run([shoebox, "reindex", "--library", folder], check=True, stdout=subprocess.DEVNULL)
    start = time.perf_counter()
    rng = random.Random(seed)
    db = sqlite3.connect(f"{folder}/catalog.sqlite")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("PRAGMA cache_size=-400000")
    batch = 50_000
    for first in range(0, rows, batch):
        pairs = [generate(rng, n) for n in range(first, min(rows, first + batch))]
        db.executemany("INSERT INTO originals (sha256, path, bytes, content_type, width, height, taken_at, make, model, "
                       "gps_latitude, gps_longitude, gps_altitude, orientation, added_at, dated_by, folded_path, lens) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", [p[0] for p in pairs])
        db.executemany("INSERT INTO sources (url, sha256, fetched_at, outcome) VALUES (?,?,?,?)", [p[1] for p in pairs])
        db.executemany("INSERT INTO source_versions (url, sha256, first_fetched_at, last_fetched_at) VALUES (?,?,?,?)",
                       [(p[1][0], p[1][1], p[1][2], p[1][2]) for p in pairs])
    db.commit()
    db.execute("ANALYZE")
    db.commit()
    db.close()
    return time.perf_counter() - start


def undated_too(select):
    """The two statements of a capture-time sort: dated originals in order, then the undated by path
    (the near query's exact distance is checked by shoebox alone, on the rows of this box)."""
    return f"{select} AND taken_at IS NOT NULL ORDER BY taken_at, path; {select} AND taken_at IS NULL ORDER BY path"


# (name, shoebox list arguments, the equivalent SQL for the sqlite3 shell)
COLUMNS = "sha256, path, bytes, content_type, width, height, taken_at, make, model, gps_latitude, gps_longitude, gps_altitude, orientation, added_at, dated_by, lens"
QUERIES = [
    ("newest 50 (table)", ["--reverse", "-n", "50"],
     f"SELECT {COLUMNS} FROM originals WHERE taken_at IS NOT NULL ORDER BY taken_at DESC, path DESC LIMIT 50"),
    ("one month (--paths)", ["--since", "2019-06", "--until", "2019-06", "--paths"],
     f"SELECT {COLUMNS} FROM originals WHERE taken_at >= '2019:06:01 00:00:00' AND taken_at < '2019:07:01 00:00:00' ORDER BY taken_at, path"),
    ("before 1970 (--json)", ["--until", "1969", "--json"],
     f"SELECT {COLUMNS} FROM originals WHERE taken_at < '1970:01:01 00:00:00' ORDER BY taken_at, path"),
    ("make+model+since, 100", ["--make", "nikon", "--model", "nikon z 6", "--since", "2020", "-n", "100", "--json"],
     f"SELECT {COLUMNS} FROM originals WHERE taken_at >= '2020:01:01 00:00:00' AND make >= 'nikon' COLLATE NOCASE AND make < 'nikoo' COLLATE NOCASE "
     "AND model >= 'nikon z 6' COLLATE NOCASE AND model < 'nikon z 7' COLLATE NOCASE ORDER BY taken_at, path LIMIT 100"),
    ("bbox Paris (--paths)", ["--bbox", "48.80,2.20,48.90,2.40", "--paths"],
     undated_too(f"SELECT {COLUMNS} FROM originals WHERE gps_latitude >= 48.8 AND gps_latitude <= 48.9 AND gps_longitude >= 2.2 AND gps_longitude <= 2.4")),
    ("near 2 km (--paths)", ["--near", "48.8584,2.2945,2km", "--paths"],
     undated_too(f"SELECT {COLUMNS} FROM originals WHERE gps_latitude >= 48.8404 AND gps_latitude <= 48.8764 AND gps_longitude >= 2.2672 AND gps_longitude <= 2.3218")),
    ("small host (--paths)", ["--host", "host150.example.com", "--paths"],
     undated_too(f"SELECT {COLUMNS} FROM originals WHERE sha256 IN (SELECT sha256 FROM source_versions WHERE url >= 'https://host150.example.com/' AND url < 'https://host150.example.com0')")),
    ("lens 24-105, 100 (--json)", ["--lens", "24-105", "-n", "100", "--json"],
     f"SELECT {COLUMNS} FROM originals WHERE instr(lower(lens), '24-105') > 0 AND taken_at IS NOT NULL ORDER BY taken_at, path LIMIT 100; "
     "SELECT count(*) FROM (SELECT path FROM originals WHERE lens IS NULL ORDER BY path LIMIT 10000)"),
    ("heic with GPS, 100", ["--format", "heic", "--has-gps", "-n", "100"],
     f"SELECT {COLUMNS} FROM originals WHERE gps_latitude IS NOT NULL AND gps_longitude IS NOT NULL AND content_type = 'image/heic' "
     "AND taken_at IS NOT NULL ORDER BY taken_at, path LIMIT 100"),
    ("10 largest (no index)", ["--sort", "size", "--reverse", "-n", "10"],
     f"SELECT {COLUMNS} FROM originals ORDER BY bytes DESC, path DESC LIMIT 10"),
    ("added last week, 1000", ["--added-since", "2026-11-25", "--sort", "added", "-n", "1000", "--paths"],
     f"SELECT {COLUMNS} FROM originals WHERE added_at >= '2026-11-25T00:00:00Z' ORDER BY added_at, path LIMIT 1000"),
    ("everything (--paths -0)", ["--paths", "-0", "--sort", "path"],
     f"SELECT {COLUMNS} FROM originals ORDER BY path"),
]


def timed(command):
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stderr.decode()}")
    return elapsed, result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shoebox", required=True)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--keep", help="build the library here and keep it (reused when its catalog exists)")
    args = parser.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="shoebox-list-bench.")
    try:
        if args.keep and os.path.exists(f"{folder}/catalog.sqlite"):
            print(f"reusing {folder}", file=sys.stderr)
        else:
            if args.keep:
                shutil.rmtree(folder, ignore_errors=True)
            else:
                os.rmdir(folder)
            seconds = build(args.shoebox, folder, args.rows, args.seed)
            print(f"catalog of {args.rows:,} originals built in {seconds:.1f} s", file=sys.stderr)
        size = os.path.getsize(f"{folder}/catalog.sqlite")
        catalog = f"{folder}/catalog.sqlite"
        subprocess.run(["cat", catalog], stdout=subprocess.DEVNULL)  # page cache warm, as for a catalog in use
        times = {name: ([], []) for name, _, _ in QUERIES}
        counts = {}
        for _ in range(args.rounds):
            for name, arguments, sql in QUERIES:
                elapsed, out = timed([args.shoebox, "list", "--library", folder] + arguments)
                times[name][0].append(elapsed)
                if "-0" in arguments:
                    counts[name] = out.count(b"\0")
                elif "--paths" in arguments or "--json" in arguments:
                    counts[name] = out.count(b"\n")
                else:
                    counts[name] = out.count(b"\n") - 1
                elapsed, out = timed(["sqlite3", "-readonly", catalog, sql])
                times[name][1].append(elapsed)
        print(f"shoebox list on {args.rows:,} originals (catalog {size / 2**20:.0f} MiB, warm cache), "
              f"{args.rounds} rounds, medians; sqlite3 runs the equivalent SQL")
        print(f"{'query':<26} {'originals':>9} {'shoebox ms':>11} {'sqlite3 ms':>11}")
        for name, _, _ in QUERIES:
            mine, reference = times[name]
            print(f"{name:<26} {counts[name]:>9,} {statistics.median(mine) * 1000:>11.1f} {statistics.median(reference) * 1000:>11.1f}")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
