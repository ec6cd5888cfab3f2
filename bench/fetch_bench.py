#!/usr/bin/env python3
"""Driver for bench/fetch.sh: makes the corpus, starts nginx on 127.0.0.1,
times each tool with os.wait4 (wall time and the child's own peak RSS), and
prints medians and ratios. Every tool downloads the same URLs with 16 transfers
at once; shoebox also hashes, checks, reads EXIF, fsyncs and records each file.
"curl+sync" is curl followed by a sync of the output's file system: the same
bytes made durable, which shoebox does before it reports and curl never does."""
import argparse, os, tempfile, shutil, socket, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS_VERSION = 2


def run(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def make_corpus(work, big_count, small_count, huge_list):
    corpus = os.path.join(work, "corpus")
    # A corpus made for at least as many files of each set serves (file i is the same bytes
    # whatever the counts): a run of fewer files, or bench/s3.sh, reuses fetch.sh's.
    for name in os.listdir(corpus) if os.path.isdir(corpus) else ():
        done = name.split("-")
        if done[0] == f".done{CORPUS_VERSION}" and len(done) == 4:
            have = [int(count) for count in done[1:]]
            if all(h >= want for h, want in zip(have, (big_count, small_count, huge_list))):
                return corpus
            # Made again for the larger of each count: a run of one set must not drop another's.
            big_count, small_count, huge_list = (max(h, want) for h, want in zip(have, (big_count, small_count, huge_list)))
    # The marker's name says what it was made for: the version of the recipe (v2: the small set
    # became 1024x768 at about 170 KB, the size the benchmark's issue names) and the counts.
    marker = os.path.join(corpus, f".done{CORPUS_VERSION}-{big_count}-{small_count}-{huge_list}")
    shutil.rmtree(corpus, ignore_errors=True)
    for d in ("big", "small", "tiny"):
        os.makedirs(os.path.join(corpus, d))
    seed = os.path.join(work, "seed.jpg")
    # A 4000x3000 (12 MP) photo-like image: smoothed noise compresses like a real photo.
    v = lambda name: os.path.join(work, name)
    run(["vips", "gaussnoise", v("noise.v"), "4000", "3000", "--sigma", "50", "--mean", "128"])
    run(["vips", "gaussblur", v("noise.v"), v("blur.v"), "0.8"])
    run(["vips", "cast", v("blur.v"), v("grey.v"), "uchar"])
    run(["vips", "bandjoin", f"{v('grey.v')} {v('grey.v')} {v('grey.v')}", v("rgb.v")])
    run(["vips", "copy", v("rgb.v"), v("srgb.v"), "--interpretation", "srgb"])
    run(["vips", "jpegsave", v("srgb.v"), seed, "--Q", "90"])
    run(["exiftool", "-q", "-overwrite_original", "-Make=Canon", "-Model=Canon EOS R5", "-LensModel=RF24-105mm F4 L IS USM",
         "-DateTimeOriginal=2024:06:01 12:34:56", "-OffsetTimeOriginal=+02:00", "-ExposureTime=1/250", "-FNumber=8",
         "-ISO=100", "-FocalLength=35", "-Orientation#=1", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N",
         "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", "-GPSAltitude=35", "-GPSAltitudeRef=0", seed])
    small_seed = os.path.join(work, "small.jpg")
    # 1024x768 at quality 78: about 173 KB with the seed's EXIF, the size of a web-sized photo.
    run(["vipsthumbnail", seed, "--size", "1024", "-o", small_seed + "[Q=78]"])
    run(["exiftool", "-q", "-overwrite_original", "-tagsFromFile", seed, "-all:all", small_seed])
    tiny_seed = os.path.join(work, "tiny.jpg")
    run(["vipsthumbnail", seed, "--size", "32", "-o", tiny_seed + "[Q=80,strip]"])
    # Distinct bytes per file: a comment appended after the image data.
    for folder, source, count in (("big", seed, big_count), ("small", small_seed, small_count), ("tiny", tiny_seed, huge_list)):
        data = open(source, "rb").read()
        for i in range(count):
            with open(os.path.join(corpus, folder, f"IMG_{i:06d}.jpg"), "wb") as f:
                f.write(data + b"shoebox-bench-%d" % i)
    open(marker, "w").close()
    return corpus


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_nginx(work, corpus):
    port = free_port()
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
daemon off;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  types {{ image/jpeg jpg; }}
  client_body_temp_path {work}/nginx-tmp;
  proxy_temp_path {work}/nginx-tmp;
  fastcgi_temp_path {work}/nginx-tmp;
  uwsgi_temp_path {work}/nginx-tmp;
  scgi_temp_path {work}/nginx-tmp;
  server {{ listen 127.0.0.1:{port}; root {corpus}; }}
}}
""")
    os.makedirs(os.path.join(work, "nginx-tmp"), exist_ok=True)
    proc = subprocess.Popen(["nginx", "-c", conf, "-p", work], stderr=subprocess.DEVNULL)
    wait_for_port(port, "nginx")
    return proc, port


def wait_for_port(port, what):
    """Returns once 127.0.0.1:PORT accepts a connection (about 5 s at most)."""
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{what} did not start")


def timed(cmd, cwd=None, stdout=subprocess.DEVNULL):
    """Wall time, peak RSS (MiB) and CPU seconds of one run. The peak RSS comes
    from /usr/bin/time inside the child: the kernel's figure for a child of this
    process starts at this (Python) process's own size, which hid curl's."""
    handle, rss_file = tempfile.mkstemp(prefix="shoebox-bench-rss-")
    os.close(handle)
    start = time.monotonic()
    # stderr to a file, not a pipe: a tool that printed more than a pipe holds would block.
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file, *cmd], cwd=cwd, stdout=stdout,
                                stderr=errors)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.monotonic() - start
        errors.seek(0)
        err = errors.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{cmd[0]} exited {code}: {err[-2000:]}")
    with open(rss_file) as f:
        rss_kb = int(f.read().split()[-1])
    os.unlink(rss_file)
    return elapsed, rss_kb / 1024.0, usage.ru_utime + usage.ru_stime  # s, MiB, CPU s


def machine_ticks():
    """(busy, idle) clock ticks of every core so far, from /proc/stat: busy counts user,
    system, interrupt and softirq time, which no process is charged with (on loopback the
    TCP receive work of both client and server runs there)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = fields
    return user + nice + system + irq + softirq + steal, idle + iowait


def process_cpu(pid):
    """CPU seconds used so far by `pid` and its children (nginx: master and worker)."""
    pids = [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            pids += [int(child) for child in f.read().split()]
    except OSError:
        pass
    total = 0
    for one in pids:
        try:
            with open(f"/proc/{one}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def write_list(work, port, folder, count, name):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        for i in range(count):
            f.write(f"http://127.0.0.1:{port}/{folder}/IMG_{i:06d}.jpg\n")
    return path


def tools(shoebox, work, url_list, baseline=None):
    """Each tool's command for an output folder: (command, working folder) from `out`."""
    curl_config = url_list + ".curl"
    curl = ["curl", "--silent", "--fail", "--parallel", "--parallel-max", "16", "--config", curl_config]
    with open(url_list) as src, open(curl_config, "w") as dst:
        for i, line in enumerate(src):
            dst.write(f'url = "{line.strip()}"\noutput = "f{i}.jpg"\n')
    table = {
        "shoebox": lambda out: ([shoebox, "fetch", url_list, "--library", out + "/lib", "--jobs", "16", "--per-host", "16"], None),
        "aria2c": lambda out: (["aria2c", "-q", "-j", "16", "--max-connection-per-server=16", "--allow-overwrite=true",
                                "--auto-file-renaming=false", "--file-allocation=none", "-d", out, "-i", url_list], None),
        "curl": lambda out: (curl, out),
        # curl's files reach the disk only after it exits; this row waits for them
        # (syncfs of the output's file system), as shoebox does before it reports.
        "curl+sync": lambda out: (["sh", "-c", '"$@" && sync -f .', "sh", *curl], out),
    }
    if baseline:
        # Another shoebox binary (an earlier commit's), timed in the same rounds: before/after.
        table["baseline"] = lambda out: ([baseline, "fetch", url_list, "--library", out + "/lib", "--jobs", "16", "--per-host", "16"], None)
    return table


def bench_set(name, shoebox, work, url_list, count, total_bytes, rounds, server, baseline=None, keep_runs=False):
    results = {}
    table = tools(shoebox, work, url_list, baseline)
    runs = os.path.join(work, "out", "runs")
    shutil.rmtree(runs, ignore_errors=True)  # left by an interrupted run
    for r in range(rounds):
        order = list(table) if r % 2 == 0 else list(reversed(table))
        for tool in order:
            # keep_runs (the small set): every run writes a folder of its own, all removed
            # after the set. This machine's ext4 has no journal, and there a new inode skips
            # each inode freed in the last 5 s (ext4's recently_deleted check), so a run
            # started right after the previous run's files were removed paid a scan for every
            # file it created. The big sets' runs would pile up to 15 GB, and their 200 inodes
            # cost no measurable scan: the previous run's folder goes first.
            if not keep_runs:
                shutil.rmtree(runs, ignore_errors=True)
            out = os.path.join(runs, f"{tool}-{r}".replace("+", "-"))
            os.makedirs(out)
            cmd, cwd = table[tool](out)
            subprocess.run(["sync"])
            server_before = process_cpu(server.pid)
            busy_before, _ = machine_ticks()
            elapsed, rss, cpu = timed(cmd, cwd=cwd)
            busy = (machine_ticks()[0] - busy_before) / os.sysconf("SC_CLK_TCK")
            results.setdefault(tool, []).append((elapsed, rss, cpu, process_cpu(server.pid) - server_before, busy))
    shutil.rmtree(runs, ignore_errors=True)
    print(f"\n== {name}: {count} files, {total_bytes / 1e6:.1f} MB, {rounds} rounds (median wall time)")
    print(f"{'tool':10} {'files/s':>10} {'MB/s':>10} {'peak RSS':>10} {'CPU s':>8} {'CPU ms/file':>12} {'nginx CPU s':>12} "
          f"{'machine busy s':>15}  wall s of each round")
    medians = {}
    busy = {}
    for tool, runs in results.items():
        t = statistics.median(r[0] for r in runs)
        rss = max(r[1] for r in runs)
        cpu = statistics.median(r[2] for r in runs)
        server_cpu = statistics.median(r[3] for r in runs)
        medians[tool] = t
        busy[tool] = statistics.median(r[4] for r in runs)
        print(f"{tool:10} {count / t:10.1f} {total_bytes / 1e6 / t:10.1f} {rss:8.1f} MB {cpu:8.3f} {cpu / count * 1000:12.3f} "
              f"{server_cpu:12.2f} {busy[tool]:15.2f}  "
              + " ".join(f"{r[0]:.3f}" for r in runs))
    # This VM's speed drifts: the same run of curl takes 0.21 s or 0.41 s, user and system time
    # doubling alike, in phases of a few runs. Tools timed side by side in one round share a
    # phase, so each round's ratio is also given: their median, and their range.
    for other in ("aria2c", "curl", "curl+sync") + (("baseline",) if baseline else ()):
        paired = sorted(o[0] / s[0] for o, s in zip(results[other], results["shoebox"]))
        print(f"shoebox vs {other}: {medians[other] / medians['shoebox']:.2f}x the throughput; round by round "
              f"{statistics.median(paired):.2f}x (median), {paired[0]:.2f}x to {paired[-1]:.2f}x")
    # Client, server and the kernel's network work (softirq, charged to no process)
    # share this machine's cores: their busy time spread over every core is the
    # shortest wall time a run can take. /proc/stat counts in 10 ms ticks, and counts
    # every process: the figure holds on an otherwise quiet machine.
    cores = os.cpu_count()
    floor = busy["shoebox"] / cores
    print(f"machine busy during shoebox's runs: {busy['shoebox']:.2f} core-s, so at least {floor:.3f} s on {cores} cores;"
          f" {medians['shoebox']:.3f} s taken; the most this allows vs curl: {medians['curl'] / floor:.2f}x")
    return medians


def durable_write_ceiling(work, total_bytes):
    """MB/s of writing the same number of bytes and fsyncing them: the most any tool
    that makes its files durable can reach on this disk (curl and aria2c never sync)."""
    path = os.path.join(work, "ceiling.bin")
    chunk = os.urandom(1 << 20)
    start = time.monotonic()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    written = 0
    while written < total_bytes:
        written += os.write(fd, chunk)
    os.fsync(fd)
    os.close(fd)
    elapsed = time.monotonic() - start
    os.unlink(path)
    return total_bytes / 1e6 / elapsed


SHA256_TIMER = """
import hashlib, sys, time
blobs = [open(p, "rb").read() for p in sys.argv[1:]]
start = time.process_time()
for blob in blobs:
    hashlib.sha256(blob).hexdigest()
print(time.process_time() - start)
"""


def sha256_seconds(paths):
    """CPU time of SHA-256 (OpenSSL, through hashlib) over the files' bytes, already
    in memory: work shoebox must add to every byte that curl only copies. Run in a
    child process: the bytes held here would otherwise count in the peak RSS the
    kernel reports for later children (it keeps the pre-exec figure)."""
    out = subprocess.run([sys.executable, "-c", SHA256_TIMER, *paths], check=True, capture_output=True, text=True)
    return float(out.stdout)


def repeated_list(shoebox, work, port, files, repeats, lib):
    """A list of FILES x REPEATS lines over FILES + 10% distinct URLs, each listed about REPEATS
    times: the files, and for a tenth of them a second URL (a query added) with the same
    bytes. Every distinct URL is fetched once and the other lines are told apart as repeats
    by the deduplicator, which spills its keys to disk past 100,000 (URLDeduplicator); the
    second URLs come out as duplicates of content already stored."""
    distinct = files + files // 10
    lines = files * repeats
    path = os.path.join(work, "repeated.txt")
    with open(path, "w") as f:
        for i in range(lines):
            url = i % distinct
            query = "" if url < files else "?copy=2"
            f.write(f"http://127.0.0.1:{port}/tiny/IMG_{url % files:06d}.jpg{query}\n")
    shutil.rmtree(lib, ignore_errors=True)
    elapsed, rss, _ = timed([shoebox, "fetch", path, "--library", lib, "--jobs", "16", "--per-host", "16", "--quiet"])
    stored = sum(len(names) for _, _, names in os.walk(os.path.join(lib, "originals")))
    if stored != files:
        raise SystemExit(f"the repeated list stored {stored} files, not {files}")
    print(f"== {lines:,}-line list, {distinct:,} distinct URLs ({files:,} files, {distinct - files:,} of them listed under a "
          f"second URL), each about {lines // distinct} times: shoebox fetch {elapsed:.1f} s, {lines / elapsed:.0f} lines/s, "
          f"{stored:,} files stored, peak RSS {rss:.1f} MB")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoebox", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(HERE, "work"))
    # 200 photos (about 1 GB, 0.7 s for curl here) measure throughput; the first 40
    # of them are also timed alone: a 0.16 s run, where starting and finishing (the
    # catalog created, the last files synced and recorded) weigh some 15%.
    ap.add_argument("--big", type=int, default=200)
    ap.add_argument("--short-big", type=int, default=40)
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--huge-list", type=int, default=100000, help="0: no long-list run nor reference figures")
    ap.add_argument("--repeats", type=int, default=10, help="the long list again, each URL this many times (1: not run)")
    ap.add_argument("--baseline", help="another shoebox binary to time in the same rounds (before/after a change)")
    args = ap.parse_args()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    corpus = make_corpus(work, args.big, args.small, args.huge_list)
    nginx, port = start_nginx(work, corpus)
    try:
        def size(folder, n):
            return sum(os.path.getsize(os.path.join(corpus, folder, f"IMG_{i:06d}.jpg")) for i in range(n))
        if args.small > 0:
            small = write_list(work, port, "small", args.small, "small.txt")
            bench_set("small set", args.shoebox, work, small, args.small, size("small", args.small), args.rounds, nginx, args.baseline,
                      keep_runs=True)
        if args.big == 0:  # only the small set (and the long list, unless --huge-list 0)
            args.short_big = 0
        else:
            big = write_list(work, port, "big", args.big, "big.txt")
            bench_set("big set (12 MP)", args.shoebox, work, big, args.big, size("big", args.big), args.rounds, nginx, args.baseline)
        if 0 < args.short_big < args.big:
            short = write_list(work, port, "big", args.short_big, "short-big.txt")
            bench_set(f"big set, first {args.short_big} photos only (start and finish weigh more)", args.shoebox, work, short,
                      args.short_big, size("big", args.short_big), args.rounds, nginx)
        big_paths = [os.path.join(corpus, "big", f"IMG_{i:06d}.jpg") for i in range(args.big)]
        if not big_paths or args.huge_list == 0:  # a partial run (see --help): no reference figures
            return
        hashing = statistics.median(sha256_seconds(big_paths) for _ in range(3))
        print(f"SHA-256 of the big set alone, one core: {hashing:.3f} CPU s ({size('big', args.big) / 1e6 / hashing:.0f} MB/s)")
        ceilings = [durable_write_ceiling(work, size("big", args.big)) for _ in range(3)]
        print(f"durable-write ceiling of this disk (write + fsync the same bytes, median of 3): {statistics.median(ceilings):.1f} MB/s")
        huge = write_list(work, port, "tiny", args.huge_list, "huge.txt")
        lib = os.path.join(work, "out", "hugelib")
        shutil.rmtree(lib, ignore_errors=True)
        elapsed, rss, _ = timed([args.shoebox, "fetch", huge, "--library", lib, "--jobs", "16", "--per-host", "16"])
        print(f"\n== {args.huge_list}-URL list: shoebox fetch {elapsed:.1f} s, {args.huge_list / elapsed:.0f} files/s, peak RSS {rss:.1f} MB")
        if args.repeats > 1:
            repeated_list(args.shoebox, work, port, args.huge_list, args.repeats, lib)
    finally:
        shutil.rmtree(os.path.join(work, "out"), ignore_errors=True)
        nginx.terminate()
        nginx.wait()


if __name__ == "__main__":
    main()
