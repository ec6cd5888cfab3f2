#!/usr/bin/env python3
"""Driver for bench/import.sh: times shoebox import, exiftool's date-folder copy and
rsync -a on the same local photos (the fetch benchmark's corpus), alternating the tools
round by round, and prints medians. Each run writes into a fresh folder on the same file
system as the sources; the page cache is warm for every tool alike (the sources are read
once before the first round)."""
import argparse, os, shutil, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch_bench import CORPUS_VERSION, make_corpus, timed  # noqa: E402


def tools(shoebox, source, out):
    return {
        "shoebox import": [[shoebox, "import", source, "--library", out]],
        "exiftool -o (date folders)": [["exiftool", "-q", "-q", "-r", "-o", out + "/", "-d", out + "/%Y/%m/%d",
                                        "-Directory<DateTimeOriginal", source]],
        "rsync -a": [["rsync", "-a", source + "/", out + "/"]],
        "rsync -a + sync": [["rsync", "-a", source + "/", out + "/"], ["sync", "-f", out]],
    }


def bench_set(name, shoebox, work, source, rounds):
    files = [os.path.join(source, f) for f in os.listdir(source)]
    count, total = len(files), sum(os.path.getsize(f) for f in files)
    for f in files:  # warm the page cache for everyone
        with open(f, "rb") as handle:
            while handle.read(1 << 20):
                pass
    results = {}
    for round_ in range(rounds):
        for tool, commands in tools(shoebox, source, "").items():
            out = os.path.join(work, "import-out")
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            subprocess.run(["sync"], check=True)
            wall = cpu = rss = 0.0
            for command in tools(shoebox, source, out)[tool]:
                w, r, c = timed(command)
                wall, cpu, rss = wall + w, cpu + c, max(rss, r)
            results.setdefault(tool, []).append((wall, rss, cpu))
            if tool == "shoebox import":
                # The same tree again: every file unchanged by size and time.
                w, r, c = timed(tools(shoebox, source, out)[tool][0])
                results.setdefault("shoebox import again (no-op)", []).append((w, r, c))
                stored = sum(len(fs) for _, _, fs in os.walk(os.path.join(out, "originals")))
                if stored != count:
                    raise SystemExit(f"shoebox import stored {stored} of {count} files")
    print(f"\n{name}: {count} files, {total / 1e6:.1f} MB, {rounds} rounds (medians)")
    print(f"{'tool':32} {'wall s':>8} {'files/s':>9} {'MB/s':>8} {'CPU s':>7} {'RSS MiB':>8} {'vs shoebox':>11}")
    base = statistics.median(w for w, _, _ in results["shoebox import"])
    for tool, runs in results.items():
        wall = statistics.median(w for w, _, _ in runs)
        rss = statistics.median(r for _, r, _ in runs)
        cpu = statistics.median(c for _, _, c in runs)
        print(f"{tool:32} {wall:8.2f} {count / wall:9.1f} {total / 1e6 / wall:8.1f} {cpu:7.2f} {rss:8.1f} {base / wall:10.2f}x")
    shutil.rmtree(os.path.join(work, "import-out"), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoebox", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", required=True)
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--big", type=int, default=200)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    corpus = make_corpus(os.path.abspath(args.work), args.big, args.small, 0)
    for name, folder, count in (("small set", "small", args.small), ("big set", "big", args.big)):
        # Named after the corpus version: links into an older corpus are other bytes.
        source = os.path.join(os.path.abspath(args.work), f"import-src-v{CORPUS_VERSION}-{folder}")
        if not os.path.isdir(source) or len(os.listdir(source)) != count:
            shutil.rmtree(source, ignore_errors=True)
            os.makedirs(source)
            for i in range(count):
                name_ = f"IMG_{i:06d}.jpg"
                os.link(os.path.join(corpus, folder, name_), os.path.join(source, name_))
        bench_set(name, args.shoebox, os.path.abspath(args.work), source, args.rounds)


if __name__ == "__main__":
    main()
