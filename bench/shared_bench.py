#!/usr/bin/env python3
"""Driver for bench/shared.sh: shoebox fetch with the embedded catalog (SQLite) against
the shared catalog in PostgreSQL with 1, 2 and 3 workers on one list, and curl, on
fetch_bench.py's small set and nginx (imported, not copied). Alternating rounds, a fresh
library folder and a fresh database for every run, medians.

Per run: wall time until every worker has ended; user+sys CPU and peak RSS of each
worker (/usr/bin/time inside the child); CPU of the whole PostgreSQL server (postmaster,
its live children and the backends it has reaped: utime+stime+cutime+cstime of
/proc/PID/stat, before and after, once the run's backends are gone); transactions the
run's database committed (pg_stat_database.xact_commit, flushed when a backend ends).
Then one untimed run per worker count with log_statement = 'all' on its database: the
statements (one libpq round trip each) per URL, by kind, and the longest pause between
two logged statements; and pgbench's latency of one SELECT 1, the floor of a round trip. Last, the load of a
1,000,000-line list into the queue, timed by the server's own clock (work_lists.created_at
to loaded_at) and by a poll from outside; its URLs point at a port nothing listens on and
the worker is interrupted (SIGINT hands its claims back) as soon as the list is loaded;
beside it, psql's \\copy of the same rows into a table LIKE work_items (same indexes) as a
floor for the server's share.

The throw-away server runs with fsync=off and full_page_writes=off (start-postgres.sh):
commits cost no disk flush here, which a real database would add."""
import argparse, datetime, hashlib, os, re, shutil, signal, statistics, subprocess, sys, time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fetch_bench as fb  # noqa: E402  (corpus, nginx, URL lists, curl's command)

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


def run_workers(cmds, logdir):
    """Starts every command at once; returns the wall time until the last one ends and
    (peak RSS MiB, user+sys s) per command, from /usr/bin/time inside each child."""
    procs = []
    start = time.monotonic()
    for i, cmd in enumerate(cmds):
        out = os.path.join(logdir, f"time-{i}")
        err = open(os.path.join(logdir, f"stderr-{i}"), "w")
        procs.append((subprocess.Popen(["/usr/bin/time", "-f", "%M %U %S", "-o", out, *cmd], stdout=subprocess.DEVNULL,
                                       stderr=err), out, err))
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
    """A short label for a logged statement: its first words, numbers and literals dropped."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"'[^']*'|\$\d+|\b\d+\b", "?", text)
    words = text.split(" ")
    head = " ".join(words[:3])
    m = re.search(r"\b(FROM|INTO|UPDATE) (\w+)", text)
    return f"{head} … {m.group(1)} {m.group(2)}" if m and m.group(2) not in head else head


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoebox", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(HERE, "work"))
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--workers", default="1,2,3", help="worker counts for the PostgreSQL rows")
    ap.add_argument("--jobs", type=int, default=16, help="--jobs (and --per-host) of each worker")
    ap.add_argument("--load-lines", type=int, default=1000000, help="0: no load timing")
    ap.add_argument("--no-statements", action="store_true", help="skip the log_statement runs")
    args = ap.parse_args()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    corpus = fb.make_corpus(work, 0, args.small, 0)
    nginx, port = fb.start_nginx(work, corpus)
    pg = Postgres(os.path.join(work, "shared-pg"))
    out = os.path.join(work, "shared-out")
    logs = os.path.join(work, "shared-logs")
    os.makedirs(logs, exist_ok=True)
    try:
        n = args.small
        url_list = fb.write_list(work, port, "small", n, "shared-small.txt")
        total_bytes = sum(os.path.getsize(os.path.join(corpus, "small", f"IMG_{i:06d}.jpg")) for i in range(n))
        _, curl_cmd, _ = fb.tools(args.shoebox, work, url_list)["curl"]
        jobs = ["--jobs", str(args.jobs), "--per-host", str(args.jobs)]
        lib = os.path.join(out, "lib")

        def fresh():
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)

        configs = {"sqlite, 1 process": None}
        for w in (int(x) for x in args.workers.split(",")):
            configs[f"postgres, {w} worker{'s' if w > 1 else ''}"] = w
        configs["curl"] = "curl"

        def one_run(name, log_statements=False):
            kind = configs[name]
            fresh()
            subprocess.run(["sync"])
            db = None
            if kind == "curl":
                cmds, cwd = [curl_cmd], out
            elif kind is None:
                cmds, cwd = [[args.shoebox, "fetch", url_list, "--library", lib, *jobs]], None
            else:
                db = pg.fresh_db()
                if log_statements:
                    pg.sql(f"ALTER DATABASE {db} SET log_statement = 'all'")
                cmds = [[args.shoebox, "fetch", url_list, "--library", lib, "--catalog", f"{pg.base}/{db}", *jobs]] * kind
                cwd = None
            idle = len(pg.children())
            log_path = os.path.join(pg.folder, "server.log")
            log_start = os.path.getsize(log_path)
            pg_before = pg.cpu()
            if cwd:  # curl writes into its working folder
                here = os.getcwd()
                os.chdir(cwd)
            try:
                wall, workers = run_workers(cmds, logs)
            finally:
                if cwd:
                    os.chdir(here)
            result = {"wall": wall, "workers": workers}
            if db:
                pg.settle(idle)
                result["pg_cpu"] = pg.cpu() - pg_before
                result["xact"] = pg.stats(db)
                done = int(pg.sql("SELECT count(*) FROM work_items WHERE state = 'done'", db))
                if done != n:
                    raise SystemExit(f"{name}: {done} of {n} items done")
                result["split"] = sorted(int(x) for x in pg.sql(
                    "SELECT coalesce(t.done, 0) FROM work_workers w LEFT JOIN work_tallies t ON t.worker = w.id", db).split())
                if log_statements:
                    with open(log_path, errors="replace") as f:
                        f.seek(log_start)
                        text = f.read()
                    kinds = Counter()
                    pause, previous = (0.0, ""), None
                    for m in re.finditer(r"(?m)^(\S+ \S+) \S+ \[\d+\] LOG:  (?:statement|execute [^:]*): (.*(?:\n\t.*)*)", text):
                        kinds[statement_kind(m.group(2))] += 1
                        stamp = datetime.datetime.fromisoformat(m.group(1))  # log_line_prefix '%m [%p] ' (the default)
                        if previous and (stamp - previous).total_seconds() > pause[0]:
                            pause = ((stamp - previous).total_seconds(), statement_kind(m.group(2)))
                        previous = stamp
                    result["statements"] = kinds
                    result["pause"] = pause
                pg.drop(db)
            return result

        results = {}
        names = list(configs)
        for r in range(args.rounds):
            for name in names if r % 2 == 0 else reversed(names):
                results.setdefault(name, []).append(one_run(name))
                print(f"  round {r + 1}: {name}: {results[name][-1]['wall']:.2f} s", file=sys.stderr, flush=True)

        cores = os.cpu_count()
        print(f"\n== small set: {n} files, {total_bytes / 1e6:.1f} MB, {args.rounds} rounds, median of each figure;"
              f" each shoebox worker --jobs {args.jobs} --per-host {args.jobs}; {cores} cores")
        print(f"{'configuration':22} {'files/s':>8} {'wall s':>7} {'shoebox CPU s':>14} {'PG CPU s':>9} {'RSS/worker MB':>14}"
              f" {'commits/URL':>12}  items per worker; wall s of each round")
        for name, runs in results.items():
            wall = statistics.median(x["wall"] for x in runs)
            cpu = statistics.median(sum(w[1] for w in x["workers"]) for x in runs)
            rss = max(w[0] for x in runs for w in x["workers"])
            pg_cpu = f"{statistics.median(x['pg_cpu'] for x in runs):9.2f}" if "pg_cpu" in runs[0] else f"{'-':>9}"
            commits = f"{statistics.median(x['xact'][0] for x in runs) / n:12.2f}" if "xact" in runs[0] else f"{'-':>12}"
            split = ("/".join(str(s) for s in runs[len(runs) // 2]["split"]) + "; ") if "split" in runs[0] else ""
            print(f"{name:22} {n / wall:8.1f} {wall:7.2f} {cpu:14.2f} {pg_cpu} {rss:14.1f} {commits}  {split}"
                  + " ".join(f"{x['wall']:.2f}" for x in runs))
        print(f"(curl's row: CPU s and RSS are curl's. PG CPU s: the whole server. Peak RSS: the largest of any worker"
              f" in any round. Items per worker: the middle round's split.)")

        rtt = round_trip(pg)
        print(f"\nround trip to PostgreSQL (pgbench, SELECT 1, extended protocol, 1 connection, idle server): {rtt:.3f} ms")

        if not args.no_statements:
            print("\n== statements per URL (one run per worker count, log_statement = 'all', not timed;"
                  " each is one round trip through libpq)")
            for name, kind in configs.items():
                if not isinstance(kind, int):
                    continue
                res = one_run(name, log_statements=True)
                kinds = res["statements"]
                total = sum(kinds.values())
                print(f"{name}: {total} statements, {total / n:.2f} per URL; commits {res['xact'][0]} ({res['xact'][0] / n:.2f} per URL),"
                      f" rows inserted {res['xact'][2]}, updated {res['xact'][3]}")
                for k, c in kinds.most_common(12):
                    print(f"  {c:6d}  {c / n:6.3f}/URL  {k[:110]}")
                print(f"  longest pause between two statements (any connection): {res['pause'][0]:.3f} s, before {res['pause'][1][:60]}")

        if args.load_lines > 0:
            load_list(args, pg, work, logs)
    finally:
        shutil.rmtree(out, ignore_errors=True)
        pg.stop()
        nginx.terminate()
        nginx.wait()


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
