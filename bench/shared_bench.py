#!/usr/bin/env python3
"""Driver for bench/shared.sh: shoebox fetch with the embedded catalog (SQLite) against the
shared catalog in PostgreSQL with 1, 2 and 3 workers on one list, the originals in a library
folder and in an S3 bucket (OpenStack Swift with s3api on 127.0.0.1), and curl; on
fetch_bench.py's small set (1,000 1024x768 JPEGs, ~173 KB) and big set (--big 12-MP JPEGs,
~4.9 MB, one PUT each), served by its nginx. fetch_bench.py (corpus, nginx, lists, curl) and
s3_bench.py (Swift, its request log, rclone's listing) are imported, not copied.

Rows of each set (same list, --jobs 16 --per-host 16 per worker):
  sqlite, 1 process        fetch LIST --library LIB
  postgres, N workers      fetch LIST --library LIB --catalog postgres://…/DB    (N at once)
  postgres+S3, N workers   fetch LIST --catalog postgres://…/DB --store s3://BUCKET/archive
                           (no library folder: staged under TMPDIR=bench/work/shared-tmp;
                           endpoint and credentials in AWS_*, as s3_bench.py sets them)
  curl                     curl --parallel --parallel-max 16, the reference
Alternating rounds (--rounds; the S3 rows --s3-rounds, as Swift makes each of their runs 20-40
s), a fresh library folder, a fresh database (CREATE DATABASE on one throw-away server) and a
fresh bucket for every run; medians.

Per run: wall time until every worker has ended (files/s, MB/s); user+sys CPU and peak RSS of
each worker (/usr/bin/time inside the child); CPU of the whole PostgreSQL server (postmaster,
its live children and the backends it has reaped: utime+stime+cutime+cstime of
/proc/PID/stat, before and after, once the run's backends are gone) and of Swift's four
servers; transactions the run's database committed (pg_stat_database.xact_commit).
Statements: every PostgreSQL run has log_statement = 'all' on its database (unless
--no-statements): each logged statement is one libpq round trip; per URL, by kind (a COMMIT
named by its BEGIN), and the longest pause between two of them. With the batched catalog that
is a few hundred log lines a run: the timing does not notice them.
S3 requests: the client requests in Swift's proxy access log (s3_bench.ProxyLog: UDP syslog
lines; the proxy's own subrequests are not counted) whose path is the run's bucket, per
original by kind: PUT, HEAD (objects and the bucket), multipart (initiate, part, complete,
abort), GET, LIST (objects or multipart uploads), DELETE; 4xx/5xx other than a HEAD's 404.
After each S3 run the bucket is listed (rclone): N objects of the set's bytes, or the run fails.
Then pgbench's latency of one SELECT 1 (the floor of a round trip). Last, the load of a
1,000,000-line list into the queue, timed by the server's own clock (work_lists.created_at
to loaded_at) and by a poll from outside; its URLs point at a port nothing listens on and
the worker is interrupted (SIGINT hands its claims back) as soon as the list is loaded;
beside it, psql's \\copy of the same rows into a table LIKE work_items (same indexes) as a
floor for the server's share.

The throw-away server runs with fsync=off and full_page_writes=off (start-postgres.sh):
commits cost no disk flush here, which a real database would add. Client, nginx, PostgreSQL
and Swift share this machine's cores."""
import argparse, datetime, hashlib, os, re, shutil, signal, statistics, subprocess, sys, time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fetch_bench as fb  # noqa: E402  (corpus, nginx, URL lists, curl's command)
import s3_bench as s3b  # noqa: E402  (Swift s3api, its request log, rclone's listing)

ROOT = os.path.dirname(HERE)
START_PG = os.path.join(ROOT, "Tests/ShoeboxTestSupport/Resources/postgres/start-postgres.sh")
TICK = os.sysconf("SC_CLK_TCK")
PGBENCH = os.path.join(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"), "pgbench")


class Postgres:
    def __init__(self, folder):
        self.folder = folder
        shutil.rmtree(folder, ignore_errors=True)
        self.uri = subprocess.run(["bash", START_PG, folder], check=True, capture_output=True,
                                  text=True).stdout.strip().splitlines()[-1]
        self.base = self.uri.rsplit("/", 1)[0]
        with open(os.path.join(folder, "data", "postmaster.pid")) as f:
            self.pid = int(f.readline())
        self.count = 0

    def stop(self):
        subprocess.run(["bash", START_PG, "stop", self.folder], check=False)

    def sql(self, query, db="postgres"):
        return subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", f"{self.base}/{db}", "-c", query],
                              check=True, capture_output=True, text=True).stdout.strip()

    def fresh_db(self):
        self.count += 1
        name = f"bench{self.count}"
        self.sql(f"CREATE DATABASE {name}")
        return name

    def drop(self, name):
        self.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def children(self):
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children") as f:
                return [int(c) for c in f.read().split()]
        except OSError:
            return []

    def cpu(self):
        """CPU seconds of the server so far: the postmaster with the backends it has reaped
        (cutime, cstime) and its live children."""
        total = 0
        for pid in [self.pid] + self.children():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
            except OSError:
                pass
        return total / TICK

    def settle(self, count, timeout=5.0):
        """Waits until the server has no more children than `count` (the run's backends ended
        and reaped: their CPU is in the postmaster's cutime, their statistics flushed)."""
        end = time.monotonic() + timeout
        while len(self.children()) > count and time.monotonic() < end:
            time.sleep(0.05)

    def stats(self, db):
        row = self.sql(f"SELECT xact_commit, xact_rollback, tup_inserted, tup_updated FROM pg_stat_database WHERE datname = '{db}'")
        return [int(x) for x in row.split("|")]


def run_workers(cmds, logdir, env=None, cwd=None):
    """Starts every command at once; returns the wall time until the last one ends and
    (peak RSS MiB, user+sys s) per command, from /usr/bin/time inside each child."""
    procs = []
    start = time.monotonic()
    for i, cmd in enumerate(cmds):
        out = os.path.join(logdir, f"time-{i}")
        err = open(os.path.join(logdir, f"stderr-{i}"), "w")
        procs.append((subprocess.Popen(["/usr/bin/time", "-f", "%M %U %S", "-o", out, *cmd], stdout=subprocess.DEVNULL,
                                       stderr=err, env=env, cwd=cwd), out, err))
    for p, _, _ in procs:
        p.wait()
    wall = time.monotonic() - start
    workers = []
    for i, (p, out, err) in enumerate(procs):
        err.close()
        if p.returncode != 0:
            with open(err.name) as f:
                raise SystemExit(f"worker {i} of {cmds[i][:2]} exited {p.returncode}: {f.read()[-2000:]}")
        with open(out) as f:
            rss, user, system = f.read().split()[-3:]
        workers.append((int(rss) / 1024.0, float(user) + float(system)))
    return wall, workers


def statement_kind(text):
    """A short label for a logged statement: its first words, numbers and literals dropped;
    for a WITH statement, its first CTE's name and the first words of its main statement
    (the queue's claim and renewal both start WITH heartbeat: the main part tells them apart)."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"'[^']*'|\$\d+|\b\d+\b", "?", text)
    words = text.split(" ")
    head = " ".join(words[:3])
    if words[0].upper() == "WITH":
        for m in re.finditer(r"\b(SELECT|UPDATE|INSERT|DELETE)\b", text):
            if text.count("(", 0, m.start()) == text.count(")", 0, m.start()):  # outside every parenthesis
                return f"WITH {words[1]} … " + " ".join(text[m.start():].split(" ")[:5])
    m = re.search(r"\b(FROM|INTO|UPDATE) (\w+)\b(?![(.])", text)  # a table: not now(), not w.id
    return f"{head} … {m.group(1)} {m.group(2)}" if m and m.group(2) not in head else head


def logged_statements(text):
    """The statements of a stretch of server.log, by kind (a COMMIT labelled with its
    transaction's BEGIN), and the longest pause between two of them (seconds, the kind after
    it). log_line_prefix is '%m [%p] ' (the default)."""
    kinds = Counter()
    pause, previous = (0.0, ""), None
    begun = {}  # backend pid: its open transaction's BEGIN
    for m in re.finditer(r"(?m)^(\S+ \S+) \S+ \[(\d+)\] LOG:  (?:statement|execute [^:]*): (.*(?:\n\t.*)*)", text):
        kind = statement_kind(m.group(3))
        if kind.startswith("BEGIN"):
            begun[m.group(2)] = kind
        elif kind in ("COMMIT", "ROLLBACK"):
            kind = f"{kind} ({begun.pop(m.group(2), '?')})"
        kinds[kind] += 1
        stamp = datetime.datetime.fromisoformat(m.group(1))
        if previous and (stamp - previous).total_seconds() > pause[0]:
            pause = ((stamp - previous).total_seconds(), kind)
        previous = stamp
    return kinds, pause


S3_KINDS = ("PUT", "HEAD", "multipart", "GET", "LIST", "DELETE", "other")


def plural(n, word):
    return f"{n} {word}{'s' if n > 1 else ''}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoebox", required=True)
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the rows without S3")
    ap.add_argument("--s3-rounds", type=int, default=1,
                    help="rounds of the postgres+S3 rows (Swift takes some 40 ms of CPU per object: a small-set run is 20-40 s here)")
    ap.add_argument("--work", default=os.path.join(HERE, "work"))
    ap.add_argument("--small", type=int, default=1000, help="files of the small set (1024x768, ~173 KB); 0 leaves it out")
    ap.add_argument("--big", type=int, default=100,
                    help="photos of the big set (12 MP, ~4.9 MB: one PUT each); 0 leaves it out. At least 3 claims of"
                         " 2 x --jobs URLs, so that every worker gets some")
    ap.add_argument("--workers", default="1,2,3", help="worker counts of the postgres rows with a library folder; '' none")
    ap.add_argument("--s3-workers", default="1,2,3", help="worker counts of the postgres+S3 rows; '' none (no Swift)")
    ap.add_argument("--jobs", type=int, default=16, help="--jobs (and --per-host) of each worker")
    ap.add_argument("--load-lines", type=int, default=1000000, help="0: no load timing")
    ap.add_argument("--no-statements", action="store_true", help="no log_statement = 'all' on the PostgreSQL rows")
    args = ap.parse_args()
    counts = lambda text: [int(x) for x in text.split(",") if x.strip()]
    configs = {"sqlite, 1 process": ("sqlite", 1, False)}
    for w in counts(args.workers):
        configs[f"postgres, {plural(w, 'worker')}"] = ("postgres", w, False)
    for w in counts(args.s3_workers):
        configs[f"postgres+S3, {plural(w, 'worker')}"] = ("postgres", w, True)
    configs["curl"] = ("curl", 1, False)
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    corpus = fb.make_corpus(work, args.big, args.small, 0)
    logs = os.path.join(work, "shared-logs")
    os.makedirs(logs, exist_ok=True)
    s3 = {}
    nginx = pg = None
    try:
        if counts(args.s3_workers):
            for tool in ("rclone", "/usr/bin/time"):
                if not shutil.which(tool):
                    raise SystemExit(f"missing {tool}")
            s3["log"] = s3b.ProxyLog()
            s3["swift"], s3["endpoint"], s3["folder"] = s3b.start_swift(work, s3["log"].port)
            s3["env"] = dict(s3b.store_env(s3["endpoint"]), TMPDIR=os.path.join(work, "shared-tmp"))
            s3["rclone"] = s3b.rclone_env(s3["endpoint"])
            s3["buckets"] = 0
            os.makedirs(s3["env"]["TMPDIR"], exist_ok=True)
        nginx, port = fb.start_nginx(work, corpus)
        pg = Postgres(os.path.join(work, "shared-pg"))
        print(f"shoebox {args.shoebox}; {os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.2f}"
              + (f"; Swift s3api at {s3['endpoint']}" if s3 else ""))
        for label, folder, n in (("small set", "small", args.small), ("big set (12 MP)", "big", args.big)):
            if n > 0:
                bench_set(label, folder, n, configs, args, work, corpus, port, pg, s3, logs)
        rtt = round_trip(pg)
        print(f"\nround trip to PostgreSQL (pgbench, SELECT 1, extended protocol, 1 connection, idle server): {rtt:.3f} ms")
        if args.load_lines > 0:
            load_list(args, pg, work, logs)
    finally:
        shutil.rmtree(os.path.join(work, "shared-out"), ignore_errors=True)
        if pg:
            pg.stop()
        if nginx:
            nginx.terminate()
            nginx.wait()
        if s3:
            s3b.stop_swift(s3["swift"])
            shutil.rmtree(s3["folder"], ignore_errors=True)
            shutil.rmtree(s3["env"]["TMPDIR"], ignore_errors=True)


def bench_set(label, folder, n, configs, args, work, corpus, port, pg, s3, logs):
    """Every configuration on the first `n` files of the corpus folder: rounds, then the tables."""
    url_list = fb.write_list(work, port, folder, n, f"shared-{folder}-{n}.txt")
    total_bytes = sum(os.path.getsize(os.path.join(corpus, folder, f"IMG_{i:06d}.jpg")) for i in range(n))
    _, curl_cmd, _ = fb.tools(args.shoebox, work, url_list)["curl"]
    jobs = ["--jobs", str(args.jobs), "--per-host", str(args.jobs)]
    out = os.path.join(work, "shared-out")
    lib = os.path.join(out, "lib")
    plain_env = {k: v for k, v in os.environ.items() if not k.startswith("SHOEBOX_")}

    def one_run(name):
        kind, count, in_s3 = configs[name]
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        subprocess.run(["sync"])
        db = bucket = None
        env, cwd = plain_env, None
        if kind == "curl":
            cmds, cwd = [curl_cmd], out  # curl writes into its working folder
        elif kind == "sqlite":
            cmds = [[args.shoebox, "fetch", url_list, "--library", lib, *jobs]]
        else:
            db = pg.fresh_db()
            if not args.no_statements:
                pg.sql(f"ALTER DATABASE {db} SET log_statement = 'all'")
            cmd = [args.shoebox, "fetch", url_list, "--catalog", f"{pg.base}/{db}", *jobs]
            if in_s3:  # a fresh bucket per run, no library folder: staged under TMPDIR
                s3["buckets"] += 1
                bucket = f"shared-{s3['buckets']}"
                subprocess.run(["rclone", "mkdir", f"s3:{bucket}"], env=s3["rclone"], check=True)
                cmd += ["--store", f"s3://{bucket}/archive"]
                env = s3["env"]
            else:
                cmd += ["--library", lib]
            cmds = [cmd] * count
        idle = len(pg.children())
        log_path = os.path.join(pg.folder, "server.log")
        log_start = os.path.getsize(log_path)
        pg_before = pg.cpu()
        if bucket:
            mark = s3["log"].mark()
            swift_before = fb.process_cpu(s3["swift"].pid)
        wall, workers = run_workers(cmds, logs, env, cwd)
        result = {"wall": wall, "workers": workers}
        if bucket:
            result["swift_cpu"] = fb.process_cpu(s3["swift"].pid) - swift_before
            s3["log"].since(mark)
            requests = [(m, p, st) for m, p, st in s3["log"].last if s3b.split_path(p)[0] == bucket]
            result["s3"] = Counter(s3b.request_kind(m, p) for m, p, _ in requests)
            # A HEAD answered 404 is the look before each PUT; any other 4xx/5xx is counted.
            result["s3_errors"] = sum(st[0] in "45" and not (m == "HEAD" and st == "404") for m, _, st in requests)
            with open(os.path.join(work, f"shared-requests-{folder}-{count}.log"), "w") as f:  # the last run's, to look at
                f.writelines(f"{m} {p} {st}\n" for m, p, st in requests)
            objects, size = s3b.s3_objects(s3["rclone"], "archive/", bucket)
            if (objects, size) != (n, total_bytes):
                raise SystemExit(f"{name}: {objects} objects, {size} bytes in {bucket}; expected {n}, {total_bytes}")
        if db:
            pg.settle(idle)
            result["pg_cpu"] = pg.cpu() - pg_before
            log_end = os.path.getsize(log_path)  # before this driver's own queries below
            result["xact"] = pg.stats(db)
            if not args.no_statements:
                with open(log_path, errors="replace") as f:
                    f.seek(log_start)
                    result["statements"], result["pause"] = logged_statements(f.read(log_end - log_start))
            done = int(pg.sql("SELECT count(*) FROM work_items WHERE state = 'done'", db))
            if done != n:
                raise SystemExit(f"{name}: {done} of {n} items done")
            result["split"] = sorted(int(x) for x in pg.sql(
                "SELECT coalesce(t.done, 0) FROM work_workers w LEFT JOIN work_tallies t ON t.worker = w.id", db).split())
            pg.drop(db)
        return result

    results = {}
    rounds = lambda name: args.s3_rounds if configs[name][2] else args.rounds
    for r in range(max(args.rounds, args.s3_rounds)):
        names = [name for name in configs if rounds(name) > r]
        for name in names if r % 2 == 0 else reversed(names):
            results.setdefault(name, []).append(one_run(name))
            print(f"  {label} round {r + 1}: {name}: {results[name][-1]['wall']:.2f} s", file=sys.stderr, flush=True)

    med = lambda runs, f: statistics.median(f(x) for x in runs)
    print(f"\n== {label}: {n} files, {total_bytes / 1e6:.1f} MB; median of each figure over the rounds;"
          f" each shoebox worker --jobs {args.jobs} --per-host {args.jobs}; {os.cpu_count()} cores")
    print(f"{'configuration':26} {'rounds':>6} {'files/s':>8} {'MB/s':>7} {'wall s':>7} {'shoebox CPU s':>13} {'PG CPU s':>8}"
          f" {'Swift CPU s':>11} {'RSS/worker MB':>13} {'commits/URL':>11} {'stmts/URL':>9}  items per worker; wall s of each round")
    dash = lambda width: f"{'-':>{width}}"
    for name, runs in results.items():
        wall = med(runs, lambda x: x["wall"])
        cpu = med(runs, lambda x: sum(w[1] for w in x["workers"]))
        rss = max(w[0] for x in runs for w in x["workers"])
        pg_cpu = f"{med(runs, lambda x: x['pg_cpu']):8.2f}" if "pg_cpu" in runs[0] else dash(8)
        swift_cpu = f"{med(runs, lambda x: x['swift_cpu']):11.2f}" if "swift_cpu" in runs[0] else dash(11)
        commits = f"{med(runs, lambda x: x['xact'][0]) / n:11.3f}" if "xact" in runs[0] else dash(11)
        stmts = f"{med(runs, lambda x: sum(x['statements'].values())) / n:9.3f}" if "statements" in runs[0] else dash(9)
        split = ("/".join(str(s) for s in runs[len(runs) // 2]["split"]) + "; ") if "split" in runs[0] else ""
        print(f"{name:26} {len(runs):6d} {n / wall:8.1f} {total_bytes / 1e6 / wall:7.1f} {wall:7.2f} {cpu:13.2f} {pg_cpu}"
              f" {swift_cpu} {rss:13.1f} {commits} {stmts}  {split}" + " ".join(f"{x['wall']:.2f}" for x in runs))
    print("(shoebox CPU: user+sys of all its workers; curl's row: curl's. PG CPU: the whole server, reaped backends included."
          " Swift CPU: its four servers. RSS: the largest peak of any worker in any round. Items per worker: the middle"
          " round's split. stmts/URL: statements logged by log_statement = 'all', one libpq round trip each.)")

    s3_rows = {name: runs for name, runs in results.items() if "s3" in runs[0]}
    if s3_rows:
        print(f"\nS3 requests per original ({n} originals per run; client requests in Swift's proxy log, median over the rounds)")
        print(f"{'configuration':26} {'all':>6} " + " ".join(f"{k:>9}" for k in S3_KINDS) + "  errors; requests of the last run")
        for name, runs in s3_rows.items():
            per = lambda f: med(runs, f) / n
            row = " ".join(f"{per(lambda x: x['s3'][k]):9.3f}" for k in S3_KINDS)
            last = runs[-1]["s3"]
            print(f"{name:26} {per(lambda x: sum(x['s3'].values())):6.3f} {row}  {runs[-1]['s3_errors']};"
                  f" " + " ".join(f"{k} {last[k]}" for k in S3_KINDS if last[k]))
        print("(HEAD: objects and the bucket; LIST: a bucket's objects or its multipart uploads; multipart: initiate, part,"
              " complete, abort. errors: 4xx/5xx answers other than a HEAD's 404. Requests of each last run:"
              f" {work}/shared-requests-{folder}-WORKERS.log)")

    pg_rows = {name: runs for name, runs in results.items() if "statements" in runs[0]}
    if pg_rows:
        print(f"\nstatements by kind (log_statement = 'all'; the middle round of each row)")
        for name, runs in pg_rows.items():
            res = runs[len(runs) // 2]
            kinds = res["statements"]
            total = sum(kinds.values())
            xact = res["xact"]
            print(f"{name}: {total} statements, {total / n:.3f} per URL; commits {xact[0]} ({xact[0] / n:.3f} per URL),"
                  f" rows inserted {xact[2]}, updated {xact[3]}; longest pause between two statements {res['pause'][0]:.3f} s,"
                  f" before {res['pause'][1][:50]}")
            for k, c in kinds.most_common(12):
                print(f"  {c:6d}  {c / n:6.3f}/URL  {k[:110]}")


def load_list(args, pg, work, logs):
    """Times the load of a long list into the queue: one worker started on a fresh database,
    interrupted once work_lists says loaded. Its URLs point at a port nothing listens on, so
    what it fetches meanwhile fails at once (and no bytes are written)."""
    lines = args.load_lines
    closed = fb.free_port()
    path = os.path.join(work, f"shared-load-{lines}.txt")
    with open(path, "w") as f:
        for i in range(lines):
            f.write(f"http://127.0.0.1:{closed}/load/IMG_{i:07d}.jpg\n")
    db = pg.fresh_db()
    lib = os.path.join(work, "shared-out", "loadlib")
    shutil.rmtree(lib, ignore_errors=True)
    idle = len(pg.children())
    pg_before = pg.cpu()
    err = open(os.path.join(logs, "load-stderr"), "w")
    start = time.monotonic()
    proc = subprocess.Popen([args.shoebox, "fetch", path, "--library", lib, "--catalog", f"{pg.base}/{db}", "--jobs", "16",
                             "--retries", "0"], stdout=subprocess.DEVNULL, stderr=err)
    seen = None
    while proc.poll() is None and time.monotonic() - start < 900:
        state = pg.sql("SELECT state FROM work_lists", db) if pg.sql("SELECT to_regclass('work_lists') IS NOT NULL", db) == "t" else ""
        if state == "loaded":
            seen = time.monotonic() - start
            break
        time.sleep(0.2)
    try:
        with open(f"/proc/{proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        worker_cpu = (int(fields[11]) + int(fields[12])) / TICK
    except OSError:
        worker_cpu = float("nan")
    pg_cpu_loaded = pg.cpu() - pg_before
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    err.close()
    pg.settle(idle)
    row = pg.sql("SELECT items, extract(epoch FROM loaded_at - created_at) FROM work_lists", db).split("|")
    xact = pg.stats(db)
    size = pg.sql(f"SELECT pg_size_pretty(pg_database_size('{db}'))")
    # The server's share alone: the same rows (line, URL, its SHA-256 key) copied with COPY into
    # a table made LIKE work_items with all its indexes, as one statement: a floor for the load.
    copy_file = path + ".copy"
    with open(path) as src, open(copy_file, "w") as dst:
        for line, url in enumerate(src, 1):
            url = url.strip()
            dst.write(f"1\t{line}\t{url}\t\\\\x{hashlib.sha256(url.encode()).hexdigest()}\n")
    pg.sql("CREATE TABLE copy_floor (LIKE work_items INCLUDING ALL)", db)
    copy_start = time.monotonic()
    pg.sql(f"\\copy copy_floor (list_id, line, url, url_key) FROM '{copy_file}'", db)
    copy_time = time.monotonic() - copy_start
    os.unlink(copy_file)
    pg.drop(db)
    if seen is None:
        raise SystemExit(f"the {lines}-line list was not loaded (worker exit {proc.returncode}); see {logs}/load-stderr")
    server = float(row[1])
    print(f"\n== load of a {lines:,}-line list into the queue (one worker, fresh database, once)")
    print(f"server clock (work_lists.created_at → loaded_at): {server:.1f} s, {lines / server:,.0f} URLs/s; {row[0]} items")
    print(f"from the worker's start until a poll (every 0.2 s) saw it loaded: {seen:.1f} s;"
          f" worker CPU by then {worker_cpu:.1f} s, server CPU {pg_cpu_loaded:.1f} s")
    print(f"database afterwards: {size}; commits in that database (load and the interrupted fetch) {xact[0]}")
    print(f"floor: psql \\copy of the same {lines:,} rows (line, URL, SHA-256 key) into a table LIKE work_items"
          f" INCLUDING ALL (same indexes), one statement: {copy_time:.1f} s, {lines / copy_time:,.0f} rows/s")


def round_trip(pg):
    """Mean latency of one statement (SELECT 1, extended protocol as libpq's PQexecParams)
    over one connection: pgbench, 3 s. Each catalog lookup or insert costs at least this."""
    db = pg.fresh_db()
    script = os.path.join(pg.folder, "select1.sql")
    with open(script, "w") as f:
        f.write("SELECT 1;\n")
    os.chmod(script, 0o644)
    out = subprocess.run([PGBENCH, "-n", "-M", "extended", "-c", "1", "-T", "3", "-f", script, f"{pg.base}/{db}"],
                         check=True, capture_output=True, text=True).stdout
    pg.drop(db)
    m = re.search(r"latency average = ([0-9.]+) ms", out)
    return float(m.group(1)) if m else float("nan")


if __name__ == "__main__":
    main()
