#!/usr/bin/env python3
"""Driver for bench/latency.sh: latency hiding on a slow link.

An origin on 127.0.0.1 (bench/latency_origin.py) answers each request after a
time to first byte (50 ms, 200 ms) and paces each body at a per-connection rate
(2 MB/s). nginx in front of it serves TLS on 127.0.0.1, HTTP/1.1 only on one
set of ports and HTTP/2 on another (proxy buffering off: the pacing reaches the
client), so both protocols see the same origin, the same TLS and the same files.

Every tool downloads the same URLs with 16 transfers at once: shoebox fetch
(-j 16 --per-host 16; and on one host also with its default --per-host 6),
curl --parallel --parallel-max 16, aria2c -j 16 (HTTP/1.1 only: it has no
HTTP/2), wget2 --max-threads 16 (over HTTP/2 with one stream a connection: its
default window would run 30 a thread). "one host": every URL on one port; "8 hosts":
URLs spread over 8 ports (curl and shoebox count a host by name and port).

The ideal rate is jobs / (TTFB + mean size / rate): every slot busy all the
time. Efficiency is measured files/s over that ideal. Medians of ROUNDS runs,
tools alternating."""
import argparse, os, shutil, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fetch_bench  # noqa: E402  (corpus, free ports, timing)

JOBS = 16
HOSTS = 8


def make_certificates(work):
    """A throwaway CA and a certificate for 127.0.0.1, made with openssl."""
    folder = os.path.join(work, "latency-tls")
    ca, key, cert = (os.path.join(folder, n) for n in ("ca.pem", "server.key", "server.pem"))
    if os.path.exists(cert):
        return ca, key, cert
    os.makedirs(folder, exist_ok=True)
    ca_key = os.path.join(folder, "ca.key")
    run = lambda *a: subprocess.run(a, check=True, capture_output=True)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "30",
        "-subj", "/CN=shoebox bench CA")
    csr = os.path.join(folder, "server.csr")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1")
    ext = os.path.join(folder, "ext.cnf")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n")
    run("openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
        "-days", "30", "-extfile", ext)
    return ca, key, cert


def start_origin(corpus, ttfb_ms, rate):
    port = fetch_bench.free_port()
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "latency_origin.py"), corpus, "--port", str(port),
                             "--ttfb", str(ttfb_ms), "--rate", str(rate)], stdout=subprocess.PIPE)
    if proc.stdout.readline().strip() != b"ready":
        raise SystemExit("the origin did not start")
    return proc, port


def start_nginx(work, origin_port, key, cert, started):
    h1 = [fetch_bench.free_port() for _ in range(HOSTS)]
    h2 = [fetch_bench.free_port() for _ in range(HOSTS)]
    conf = os.path.join(work, "latency-nginx.conf")
    tmp = os.path.join(work, "latency-nginx-tmp")
    os.makedirs(tmp, exist_ok=True)
    proxy = f"""
    ssl_certificate {cert};
    ssl_certificate_key {key};
    keepalive_requests 1000000;
    location / {{
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }}"""
    with open(conf, "w") as f:
        f.write(f"""
worker_processes 1;
pid {work}/latency-nginx.pid;
error_log {work}/latency-nginx-error.log;
daemon off;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {tmp};
  proxy_temp_path {tmp};
  fastcgi_temp_path {tmp};
  uwsgi_temp_path {tmp};
  scgi_temp_path {tmp};
  upstream origin {{ server 127.0.0.1:{origin_port}; keepalive 256; }}
  server {{ {" ".join(f"listen 127.0.0.1:{p} ssl;" for p in h1)} {proxy} }}
  server {{ {" ".join(f"listen 127.0.0.1:{p} ssl http2;" for p in h2)} {proxy} }}
}}
""")
    proc = subprocess.Popen(["nginx", "-c", conf, "-p", work], stderr=subprocess.DEVNULL)
    started.append(proc)  # stopped by the caller, whatever happens next
    fetch_bench.wait_for_port(h2[-1], "nginx")
    return proc, h1, h2


def write_list(work, ports, count, name):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        for i in range(count):
            f.write(f"https://127.0.0.1:{ports[i % len(ports)]}/small/IMG_{i:06d}.jpg\n")
    return path


def tools(shoebox, work, url_list, ca, protocol, one_host):
    out = os.path.join(work, "latency-out")
    curl_config = url_list + ".curl"
    with open(url_list) as src, open(curl_config, "w") as dst:
        for i, line in enumerate(src):
            dst.write(f'url = "{line.strip()}"\noutput = "f{i}.jpg"\n')
    h1 = protocol == "HTTP/1.1"
    shoebox_cmd = [shoebox, "fetch", url_list, "--library", out + "/lib", "--jobs", str(JOBS), "--cacert", ca, "--quiet"]
    table = {
        "shoebox": (shoebox_cmd + ["--per-host", str(JOBS)], None, JOBS),
        "curl": (["curl", "--silent", "--fail", "--parallel", "--parallel-max", str(JOBS), "--cacert", ca,
                  "--http1.1" if h1 else "--http2", "--config", curl_config], out, JOBS),
        "wget2": (["wget2", "--quiet", "--max-threads", str(JOBS), "--ca-certificate", ca, "--no-robots",
                   # HTTP/2: one stream a connection, else each of its 16 threads runs 30 (its default window).
                   *(["--no-http2"] if h1 else ["--http2", "--http2-request-window", "1"]),
                   "--directory-prefix", out, "--input-file", url_list], None, JOBS),
    }
    if h1:
        table["aria2c"] = (["aria2c", "-q", "-j", str(JOBS), f"--max-connection-per-server={JOBS}",
                            "--ca-certificate", ca, "--allow-overwrite=true", "--auto-file-renaming=false",
                            "--file-allocation=none", "-d", out, "-i", url_list], None, JOBS)
    if one_host:
        # Its default, polite cap on one host: 6 connections, so 6 slots over HTTP/1.1; over
        # HTTP/2 streams share connections and all 16 run (libcurl's cap counts connections).
        table["shoebox (default --per-host 6)"] = (shoebox_cmd, None, 6 if h1 else JOBS)
    return table, out


def bench(shoebox, work, corpus, ca, key, cert, ttfb_ms, rate, count, rounds, mean_size):
    per_file = ttfb_ms / 1000 + mean_size / rate
    expected_bytes = round(mean_size * count)
    started = []
    try:
        origin, origin_port = start_origin(corpus, ttfb_ms, rate)
        started.append(origin)
        nginx, h1_ports, h2_ports = start_nginx(work, origin_port, key, cert, started)
        for protocol, ports in (("HTTP/1.1", h1_ports), ("HTTP/2", h2_ports)):
            for one_host in (True, False):
                hosts = ports[:1] if one_host else ports
                url_list = write_list(work, hosts, count, "latency-list.txt")
                table, out = tools(shoebox, work, url_list, ca, protocol, one_host)
                results = {}
                for r in range(rounds):
                    order = list(table) if r % 2 == 0 else list(reversed(table))
                    for tool in order:
                        cmd, cwd, _ = table[tool]
                        shutil.rmtree(out, ignore_errors=True)
                        os.makedirs(out)
                        elapsed, rss, cpu = fetch_bench.timed(cmd, cwd=cwd)
                        kept = os.path.join(out, "lib", "originals") if tool.startswith("shoebox") else out
                        sizes = [os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(kept) for f in files]
                        if len(sizes) != count or sum(sizes) != expected_bytes:
                            raise SystemExit(f"{tool} kept {len(sizes)} files of {sum(sizes)} bytes, not {count} of "
                                             f"{expected_bytes} ({protocol}, TTFB {ttfb_ms} ms)")
                        results.setdefault(tool, []).append((elapsed, rss, cpu))
                where = "one host" if one_host else f"{HOSTS} hosts"
                print(f"\n== TTFB {ttfb_ms:.0f} ms, {rate / 1e6:.1f} MB/s a connection, {protocol}, {where}: {count} files "
                      f"of {mean_size / 1e3:.0f} kB mean, {rounds} rounds (median)")
                print(f"{'tool':32} {'files/s':>8} {'ideal':>8} {'of ideal':>9} {'CPU s':>7} {'peak RSS':>9}  wall s of each round")
                medians = {}
                for tool, runs in results.items():
                    slots = table[tool][2]
                    wall = statistics.median(x[0] for x in runs)
                    medians[tool] = wall
                    ideal = slots / per_file
                    print(f"{tool:32} {count / wall:8.1f} {ideal:8.1f} {count / wall / ideal * 100:8.1f}% "
                          f"{statistics.median(x[2] for x in runs):7.2f} {max(x[1] for x in runs):7.1f} MB  "
                          + " ".join(f"{x[0]:.2f}" for x in runs))
                for other in medians:
                    if not other.startswith("shoebox"):
                        print(f"shoebox vs {other}: {medians[other] / medians['shoebox']:.2f}x the files/s")
    finally:
        for proc in reversed(started):
            proc.terminate()
            proc.wait()
        shutil.rmtree(os.path.join(work, "latency-out"), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoebox", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(HERE, "work"))
    ap.add_argument("--rate", type=float, default=2e6, help="body bytes a second per connection")
    ap.add_argument("--ttfb", type=float, action="append", help="milliseconds; repeatable (default 50 and 200)")
    ap.add_argument("--slots", type=int, default=30, help="files per transfer slot: the list has 16 x SLOTS URLs")
    args = ap.parse_args()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    ttfbs = args.ttfb or [50, 200]
    most = JOBS * args.slots
    corpus = fetch_bench.make_corpus(work, 0, most, 0)
    ca, key, cert = make_certificates(work)
    sizes = [os.path.getsize(os.path.join(corpus, "small", f"IMG_{i:06d}.jpg")) for i in range(most)]
    for ttfb in ttfbs:
        bench(args.shoebox, work, corpus, ca, key, cert, ttfb, args.rate, most, args.rounds, sum(sizes) / len(sizes))


if __name__ == "__main__":
    main()
