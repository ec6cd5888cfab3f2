#!/usr/bin/env python3
"""A slow origin for bench/latency.sh, on 127.0.0.1 only: serves the files under
ROOT over HTTP/1.1 (keep-alive), each response's first byte after --ttfb
milliseconds and its body paced at --rate bytes a second per connection, as a
distant server on a real link would. Several --port values serve the same files
on several ports (bench/latency.sh uses one, behind nginx's ports). Standard
library only.

    latency_origin.py ROOT --port P [--port P2 ...] --ttfb MS --rate BYTES

Writes "ready" on stdout once every port listens."""
import argparse, asyncio, os, sys

CHUNK = 16 * 1024


async def serve(reader, writer, root, ttfb, rate):
    loop = asyncio.get_running_loop()
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            close = any(l.lower().startswith("connection:") and "close" in l.lower() for l in lines[1:])
            # Resolved as ROOT was, so neither ".." nor a symbolic link leads out of it.
            path = os.path.realpath(os.path.join(root, target.split("?", 1)[0].lstrip("/")))
            await asyncio.sleep(ttfb)
            if not path.startswith(root + os.sep) or not os.path.isfile(path):
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
                continue
            with open(path, "rb") as f:
                body = f.read()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n%s\r\n"
                         % (len(body), b"Connection: close\r\n" if close else b""))
            if method == "HEAD":
                await writer.drain()
                continue
            # Paced: a chunk leaves once the link would have carried it, so the body's last
            # byte leaves size / rate after its first could have.
            start = loop.time()
            for offset in range(0, len(body), CHUNK):
                due = start + min(offset + CHUNK, len(body)) / rate
                delay = due - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                writer.write(body[offset:offset + CHUNK])
                await writer.drain()
            if close:
                break
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        pass
    finally:
        writer.close()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--port", type=int, action="append", required=True)
    ap.add_argument("--ttfb", type=float, required=True, help="milliseconds before each response")
    ap.add_argument("--rate", type=float, required=True, help="body bytes a second, per connection")
    args = ap.parse_args()
    root = os.path.realpath(args.root)
    servers = [await asyncio.start_server(lambda r, w: serve(r, w, root, args.ttfb / 1000, args.rate), "127.0.0.1", port,
                                          backlog=1024) for port in args.port]
    print("ready", flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
