#!/usr/bin/env python3
"""How often `shoebox inspect --json` agrees with `exiftool -json -n` on real camera files.

Compares the values photographers and fetch's dating rely on (KEYS) on every file under the
given folders, and prints the share of agreeing values per key, per format (file extension) and
in all, then every disagreement (file, key, exiftool's value, shoebox's). A value counts once
for each key either tool reports: both must report it, equal (numbers within a relative 1e-9,
coordinates within 1e-6 degrees, altitude within 1 cm; text exactly).

Usage: bench/agreement_bench.py SHOEBOX FOLDER... [--json OUT] [--list N]
"""
import argparse
import collections
import json
import os
import subprocess
import sys

KEYS = ["Make", "Model", "LensModel", "DateTimeOriginal", "Orientation", "ISO", "ExposureTime", "FNumber",
        "FocalLength", "GPSLatitude", "GPSLongitude", "GPSAltitude", "ImageWidth", "ImageHeight"]


def run_json(command):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    text = done.stdout.decode("utf-8", "replace").strip()
    if not text:
        return []
    return json.loads(text)


def equal(key, ours, theirs):
    if isinstance(theirs, bool) or isinstance(ours, bool):
        return ours == theirs
    if isinstance(theirs, (int, float)) and isinstance(ours, (int, float)):
        if key in ("GPSLatitude", "GPSLongitude"):
            return abs(ours - theirs) <= 1e-6
        if key == "GPSAltitude":
            return abs(ours - theirs) <= 0.01
        return abs(ours - theirs) <= max(1e-9, abs(theirs) * 1e-9)
    return str(ours).strip() == str(theirs).strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("shoebox")
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--json", dest="json_out")
    parser.add_argument("--list", type=int, default=200, help="disagreements to print (default 200)")
    args = parser.parse_args()

    files = sorted(os.path.join(root, name) for folder in args.folders
                   for root, _, names in os.walk(folder) for name in names)
    theirs = {o["SourceFile"]: o for o in run_json(["exiftool", "-json", "-n", "-q", "-q"]
                                                   + ["-" + k for k in KEYS] + files)}
    ours = {}
    for start in range(0, len(files), 500):
        for o in run_json([args.shoebox, "inspect", "--json"] + files[start:start + 500]):
            ours[o.get("SourceFile")] = o

    per_key = collections.defaultdict(lambda: [0, 0])
    per_format = collections.defaultdict(lambda: [0, 0])
    misses = []
    unread = []
    for path in files:
        fmt = os.path.splitext(path)[1].lower().lstrip(".") or "(none)"
        a = theirs.get(path, {})
        b = ours.get(path)
        if b is None:
            unread.append(path)
            b = {}
        for key in KEYS:
            if key not in a and key not in b:
                continue
            ok = key in a and key in b and equal(key, b[key], a[key])
            for table, name in ((per_key, key), (per_format, fmt)):
                table[name][0] += ok
                table[name][1] += 1
            if not ok:
                misses.append((path, key, a.get(key, "-"), b.get(key, "-")))

    agreed = sum(v[0] for v in per_key.values())
    compared = sum(v[1] for v in per_key.values())
    share = 100.0 * agreed / compared if compared else 0.0
    print(f"files: {len(files)}, read by shoebox: {len(files) - len(unread)}, "
          f"values compared: {compared}, agreeing: {agreed} ({share:.1f}%)")
    print("\n| key | agree | compared | share |\n|---|---|---|---|")
    for key in KEYS:
        a, n = per_key.get(key, [0, 0])
        if n:
            print(f"| {key} | {a} | {n} | {100.0 * a / n:.1f}% |")
    print("\n| format | files | agree | compared | share |\n|---|---|---|---|---|")
    counts = collections.Counter(os.path.splitext(p)[1].lower().lstrip(".") or "(none)" for p in files)
    for fmt, (a, n) in sorted(per_format.items(), key=lambda item: -item[1][1]):
        print(f"| {fmt} | {counts[fmt]} | {a} | {n} | {100.0 * a / n:.1f}% |")
    if unread:
        print(f"\nnot read by shoebox ({len(unread)}):")
        for path in unread:
            print("  " + path)
    print(f"\ndisagreements ({len(misses)}; file, key, exiftool, shoebox):")
    for path, key, a, b in misses[:args.list]:
        print(f"  {os.path.basename(path)}\t{key}\t{a!r}\t{b!r}")
    if args.json_out:
        with open(args.json_out, "w") as out:
            json.dump({"files": len(files), "compared": compared, "agreeing": agreed,
                       "perKey": per_key, "perFormat": per_format,
                       "disagreements": misses, "unread": unread}, out, indent=1)


if __name__ == "__main__":
    sys.exit(main())
