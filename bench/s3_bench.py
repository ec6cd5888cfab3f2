#!/usr/bin/env python3
"""Driver for bench/s3.sh: shoebox fetch into a local library and into an S3 bucket
(OpenStack Swift with s3api on 127.0.0.1), against rclone copy and curl, on the corpus
and nginx of fetch_bench.py (imported, not copied). Alternating rounds, medians.

Rows, each over the same N URLs (or the same N files for rclone):
  shoebox-local  shoebox fetch LIST -L LIB                       (originals in LIB)
  shoebox-s3     shoebox fetch LIST -L LIB --store s3://B/run-K  (staged in LIB/.tmp, then uploaded)
  rclone         rclone copy DIR s3:B/rclone-K                   (the files already local: upload only)
  curl+curl      curl --parallel downloads into a folder, then curl --parallel
                 --aws-sigv4 -T uploads of them (download, then upload; no sync, no checks)
Every tool runs 16 transfers at once. Each run gets its own prefix; the prefix is
deleted (untimed) after the run, after checking that it holds N objects.

S3 requests are counted from Swift's proxy access log: start-swift-s3.sh is started
with SWIFT_S3_LOG_UDP_PORT, so the proxy sends its syslog lines to a UDP socket of
this process; a client request is a line from 127.0.0.1 (the proxy's own
subrequests to the Swift API are logged with '-' as client and are not counted)."""
import argparse, os, re, shutil, signal, socket, statistics, subprocess, sys, threading, time, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fetch_bench as fb  # noqa: E402  (corpus, nginx, timing: shared with bench/fetch.sh)

BUCKET = "bench-bucket"
ACCESS, SECRET = "test:tester", "testing"
ACCESS_LINE = re.compile(rb"proxy-server: 127\.0\.0\.1 \S+ \S+ ([A-Z]+) (\S+) HTTP/[\d.]+ (\d{3}) ")


class ProxyLog:
    """Collects the proxy's syslog datagrams; counts client requests between marks."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.lines = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            data = self.sock.recv(65536)
            match = ACCESS_LINE.search(data)
            if match:
                with self.lock:
                    self.lines.append((match.group(1).decode(), match.group(2).decode(), match.group(3).decode()))

    def mark(self):
        with self.lock:
            return len(self.lines)

    def since(self, mark, settle=0.5):
        """Client requests logged since `mark`: {method: count}, and the count of 4xx/5xx answers."""
        time.sleep(settle)  # the last datagrams of a run
        with self.lock:
            lines = self.lines[mark:]
        self.last = lines
        counts, errors = {}, 0
        for method, _path, status in lines:
            counts[method] = counts.get(method, 0) + 1
            errors += status[0] in "45"
        return counts, errors


def split_path(path):
    """(bucket, key, query names) of a logged path: the proxy logs the path with its query
    string, percent-encoded once more ('/b%3Fuploads%3D' is '/b?uploads=')."""
    path, _, query = urllib.parse.unquote(path).partition("?")
    bucket, _, key = path.lstrip("/").partition("/")
    return bucket, key, {part.split("=", 1)[0] for part in query.split("&") if part}


def request_kind(method, path):
    """A client request's kind: PUT (an object), HEAD (an object or the bucket), GET (an
    object), LIST (a bucket's objects or its multipart uploads), multipart (initiate, part,
    complete, abort, list parts), DELETE (an object, or many at once), or other."""
    _, key, query = split_path(path)
    if "uploadId" in query or (method == "POST" and "uploads" in query):
        return "multipart"
    if method == "GET":
        return "GET" if key else "LIST"
    if method == "HEAD":
        return "HEAD"
    if method == "PUT" and key:
        return "PUT"
    if method == "DELETE" or (method == "POST" and "delete" in query):
        return "DELETE"
    return "other"


def start_swift(work, log_port):
    folder = os.path.join(work, "swift")
    shutil.rmtree(folder, ignore_errors=True)
    script = os.path.join(HERE, "..", "Tests", "ShoeboxTestSupport", "Resources", "swift-s3", "start-swift-s3.sh")
    env = dict(os.environ, SWIFT_S3_LOG_UDP_PORT=str(log_port))
    proc = subprocess.Popen(["bash", script, folder], stdout=subprocess.PIPE, env=env, start_new_session=True)
    endpoint = proc.stdout.readline().decode().strip()
    if not endpoint.startswith("http://127.0.0.1:"):
        raise SystemExit(f"start-swift-s3.sh printed no endpoint (logs in {folder}/log)")
    return proc, endpoint, folder


def stop_swift(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def rclone_env(endpoint):
    env = {k: v for k, v in os.environ.items() if k != "AWS_CA_BUNDLE"}  # rclone 1.60 fails on any custom CA bundle with its own transport
    env.update(RCLONE_CONFIG="/dev/null", RCLONE_CONFIG_S3_TYPE="s3", RCLONE_CONFIG_S3_PROVIDER="Other",
               RCLONE_CONFIG_S3_ENDPOINT=endpoint, RCLONE_CONFIG_S3_ACCESS_KEY_ID=ACCESS,
               RCLONE_CONFIG_S3_SECRET_ACCESS_KEY=SECRET, RCLONE_CONFIG_S3_REGION="us-east-1",
               RCLONE_CONFIG_S3_FORCE_PATH_STYLE="true")
    return env


def store_env(endpoint):
    """The environment of a shoebox run with --store s3://…: endpoint and credentials in the
    AWS_* variables, no SHOEBOX_STORE."""
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS, AWS_SECRET_ACCESS_KEY=SECRET, AWS_ENDPOINT_URL=endpoint,
               AWS_REGION="us-east-1")
    env.pop("SHOEBOX_STORE", None)
    return env


def s3_objects(env, prefix, bucket=BUCKET):
    """(objects, bytes) under bucket/prefix, by rclone's listing."""
    out = subprocess.run(["rclone", "size", "--json", f"s3:{bucket}/{prefix}"], env=env, check=True,
                         capture_output=True, text=True).stdout
    import json
    info = json.loads(out)
    return info["count"], info["bytes"]


def purge(env, prefix):
    subprocess.run(["rclone", "purge", "--checkers", "16", f"s3:{BUCKET}/{prefix}"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def source_folder(work, corpus, folder, count):
    """A folder of exactly the first `count` files of the corpus folder (hard links), for rclone;
    named after the corpus version (links into an older corpus are other bytes)."""
    path = os.path.join(work, "s3src", f"{folder}-v{fb.CORPUS_VERSION}-{count}")
    if not os.path.isdir(path):
        os.makedirs(path + ".part", exist_ok=True)
        for i in range(count):
            name = f"IMG_{i:06d}.jpg"
            target = os.path.join(path + ".part", name)
            if not os.path.exists(target):
                os.link(os.path.join(corpus, folder, name), target)
        os.rename(path + ".part", path)
    return path


def large_folder(corpus, count, megabytes):
    """`count` incompressible bodies of `megabytes` MB each (a JPEG start, random bytes) in
    corpus/large-MB/: the set that streams into a multipart upload (over 8 MiB)."""
    folder = f"large-{megabytes}"
    path = os.path.join(corpus, folder)
    os.makedirs(path, exist_ok=True)
    for i in range(count):
        target = os.path.join(path, f"IMG_{i:06d}.jpg")
        if not os.path.exists(target) or os.path.getsize(target) != megabytes * 1_000_000:
            with open(target + ".part", "wb") as f:
                f.write(b"\xff\xd8\xff\xe0")
                left = megabytes * 1_000_000 - 4
                while left > 0:
                    chunk = os.urandom(min(left, 8 << 20))
                    f.write(chunk)
                    left -= len(chunk)
            os.rename(target + ".part", target)
    return folder


class FolderPeak:
    """The largest total size of the files under a folder while a run goes on (sampled every
    20 ms): how much of the downloads sat on the local disk at once."""
    def __init__(self, folder):
        self.folder, self.peak, self.stop = folder, 0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _size(self):
        total = 0
        for root, _, files in os.walk(self.folder):
            for name in files:
                try:
                    total += os.lstat(os.path.join(root, name)).st_blocks * 512
                except OSError:
                    pass
        return total

    def _run(self):
        while not self.stop.wait(0.02):
            self.peak = max(self.peak, self._size())

    def finish(self):
        self.stop.set()
        self.thread.join()
        return self.peak / 1e6


def bench_set(name, args, work, corpus, port, folder, count, endpoint, log, swift, seq):
    url_list = fb.write_list(work, port, folder, count, f"s3-{folder}-{count}.txt")
    total = sum(os.path.getsize(os.path.join(corpus, folder, f"IMG_{i:06d}.jpg")) for i in range(count))
    src = source_folder(work, corpus, folder, count)
    out = os.path.join(work, "out")
    renv = rclone_env(endpoint)
    s3env = store_env(endpoint)
    # curl: downloads as in fetch_bench, then signed uploads of the same files.
    down = url_list + ".curl"
    with open(down, "w") as f:
        for i in range(count):
            f.write(f'url = "http://127.0.0.1:{port}/{folder}/IMG_{i:06d}.jpg"\noutput = "IMG_{i:06d}.jpg"\n')
    curl_script = (
        'set -e; curl --silent --fail --parallel --parallel-max 16 --config "$1"; '
        'for f in IMG_*.jpg; do printf \'upload-file = "%s"\\nurl = "%s/%s"\\n\' "$f" "$2" "$f"; done > ../up.curl; '
        'curl --silent --fail --show-error --parallel --parallel-max 16 --aws-sigv4 aws:amz:us-east-1:s3 '
        '-H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -H "Content-Type: image/jpeg" '
        '--config ../up.curl -o /dev/null')

    def fresh():
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(os.path.join(out, "files"))

    def shoebox(binary, store):
        def cmd(prefix):
            c = [binary, "fetch", url_list, "--library", os.path.join(out, "lib"), "--jobs", "16", "--per-host", "16",
                 "--max-size", "2G"]
            return c + (["--store", f"s3://{BUCKET}/{prefix}"] if store else [])
        return cmd

    table = {  # tool: (command for a prefix, cwd, env, uses S3)
        "shoebox-local": (shoebox(args.shoebox, False), None, s3env, False),
        "shoebox-s3": (shoebox(args.shoebox, True), None, s3env, True),
        **({"shoebox-s3-staged": (shoebox(args.shoebox, True), None, dict(s3env, SHOEBOX_STREAM_ABOVE=args.stream_above), True)}
           if args.stream_above else {}),
        "rclone": (lambda prefix: ["rclone", "copy", "--transfers", "16", "--checkers", "16", src,
                                   f"s3:{BUCKET}/{prefix}"], None, renv, True),
        # The access key has a colon: credentials go in the URL, the colon percent-encoded.
        "curl+curl": (lambda prefix: ["sh", "-c", curl_script, "sh", down,
                                      endpoint.replace("http://", f"http://{ACCESS.replace(':', '%3A')}:{SECRET}@")
                                      + f"/{BUCKET}/{prefix}"],
                      os.path.join(out, "files"), s3env, True),
    }
    results = {}
    for r in range(args.rounds):
        order = list(table) if r % 2 == 0 else list(reversed(table))
        for tool in order:
            cmd, cwd, env, uses_s3 = table[tool]
            seq[0] += 1
            prefix = f"{tool.replace('+', '-')}-run-{seq[0]}"
            fresh()
            subprocess.run(["sync"])
            mark = log.mark()
            swift_before = fb.process_cpu(swift.pid)
            disk = FolderPeak(out)  # downloads staged or saved locally (not rclone's source folder)
            elapsed, rss, cpu = timed_env(cmd(prefix), cwd, env)
            disk_peak = disk.finish()
            swift_cpu = fb.process_cpu(swift.pid) - swift_before
            counts, errors = log.since(mark)
            if uses_s3:  # the last run's requests of each tool, for a look at what each one asks
                with open(os.path.join(work, f"s3-requests-{folder}-{tool}.log"), "w") as f:
                    f.writelines(f"{m} {p} {st}\n" for m, p, st in log.last)
            if uses_s3:
                objects, size = s3_objects(renv, prefix)
                if objects != count or size != total:
                    raise SystemExit(f"{tool}: {objects} objects, {size} bytes under {prefix}; expected {count}, {total}")
                purge(renv, prefix)
            results.setdefault(tool, []).append((elapsed, rss, cpu, swift_cpu, counts, errors, disk_peak))
            print(f"  {name} round {r + 1} {tool}: {elapsed:.2f} s, {rss:.0f} MB, local disk {disk_peak:.1f} MB, requests {counts}"
                  + (f", {errors} 4xx/5xx" if errors else ""), file=sys.stderr, flush=True)
    fresh()
    print(f"\n== {name}: {count} files, {total / 1e6:.1f} MB, {args.rounds} rounds (median wall time)")
    print(f"{'tool':14} {'files/s':>9} {'MB/s':>8} {'peak RSS':>10} {'local disk':>11} {'CPU s':>7} {'Swift CPU s':>11}"
          f" {'S3 req/file':>11} {'PUT+POST/file':>13}  requests of one run")
    medians = {}
    for tool, runs in results.items():
        t = statistics.median(x[0] for x in runs)
        medians[tool] = t
        rss = max(x[1] for x in runs)
        cpu = statistics.median(x[2] for x in runs)
        swift_cpu = statistics.median(x[3] for x in runs)
        counts = runs[-1][4]
        requests = statistics.median(sum(x[4].values()) for x in runs)
        writes = statistics.median(x[4].get("PUT", 0) + x[4].get("POST", 0) for x in runs)
        per = f"{requests / count:11.3f} {writes / count:13.3f}  " + " ".join(f"{m} {n}" for m, n in sorted(counts.items())) \
            if table[tool][3] else f"{'-':>11} {'-':>13}"
        disk_peak = max(x[6] for x in runs)
        print(f"{tool:14} {count / t:9.1f} {total / 1e6 / t:8.1f} {rss:7.1f} MB {disk_peak:8.1f} MB {cpu:7.2f} {swift_cpu:11.2f} {per}")
    for a, b in (("shoebox-s3", "shoebox-local"), ("shoebox-s3", "rclone"), ("shoebox-s3", "curl+curl")):
        print(f"{a} vs {b}: {medians[b] / medians[a]:.2f}x the throughput")
    return medians


def timed_env(cmd, cwd, env):
    """fb.timed with an environment: GNU time's peak RSS, wall time, CPU s."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        return fb.timed(cmd, cwd=cwd)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoebox", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(HERE, "work"))
    ap.add_argument("--big", type=int, default=200, help="photos of the big set (12 MP, ~5 MB each); fewer to fit in time; 0: the small set only")
    ap.add_argument("--small", type=int, default=1000, help="files of the small set; 0 runs the big set only")
    ap.add_argument("--large", type=int, default=0, help="bodies of the large set (streamed into multipart uploads); 0: none")
    ap.add_argument("--large-mb", type=int, default=200, help="MB of each large body")
    ap.add_argument("--stream-above", default="", help="also run shoebox-s3-staged: shoebox into S3 with SHOEBOX_STREAM_ABOVE set to this size")
    args = ap.parse_args()
    for tool in ("rclone", "curl", "nginx", "/usr/bin/time"):
        if not shutil.which(tool):
            raise SystemExit(f"missing {tool}")
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    corpus = fb.make_corpus(work, args.big, args.small, 0)  # fetch.sh's corpus when it is there (as big or bigger)
    log = ProxyLog()
    swift, endpoint, swift_dir = start_swift(work, log.port)
    nginx = None
    try:
        nginx, port = fb.start_nginx(work, corpus)
        subprocess.run(["rclone", "mkdir", f"s3:{BUCKET}"], env=rclone_env(endpoint), check=True)
        print(f"Swift s3api at {endpoint}, bucket {BUCKET}; shoebox {args.shoebox}; {os.cpu_count()} cores;"
              f" {subprocess.run(['rclone', 'version'], capture_output=True, text=True).stdout.splitlines()[0]};"
              f" {subprocess.run(['curl', '--version'], capture_output=True, text=True).stdout.split()[1]}")
        seq = [0]
        if args.small > 0:
            bench_set("small set", args, work, corpus, port, "small", args.small, endpoint, log, swift, seq)
        if args.big > 0:
            bench_set("big set (12 MP)", args, work, corpus, port, "big", args.big, endpoint, log, swift, seq)
        if args.large > 0:
            folder = large_folder(corpus, args.large, args.large_mb)
            bench_set(f"large set ({args.large_mb} MB bodies)", args, work, corpus, port, folder, args.large,
                      endpoint, log, swift, seq)
        print(f"\nSwift's stored data now: {subprocess.run(['du', '-sh', swift_dir], capture_output=True, text=True).stdout.split()[0]}"
              f" (deleted objects leave tombstones);  df: " +
              " | ".join(l for l in subprocess.run(["df", "-h", "--output=target,avail", "/tmp", work], capture_output=True,
                                                   text=True).stdout.splitlines()[1:]))
    finally:
        if nginx:
            nginx.terminate()
            nginx.wait()
        stop_swift(swift)
        shutil.rmtree(os.path.join(work, "out"), ignore_errors=True)
        shutil.rmtree(swift_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
