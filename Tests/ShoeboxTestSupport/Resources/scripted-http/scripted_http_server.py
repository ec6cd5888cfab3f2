#!/usr/bin/python3
"""A loopback HTTP server answering a fixed script of responses, for client retry tests.

    python3 scripted_http_server.py SCRIPT.json LOG.jsonl

SCRIPT.json: a list of {"status": N, "body": "...", "headers": {...}}; request i gets answer i
(the last one repeats; a request whose body ends early gets none and uses none up). Each
request is appended to LOG.jsonl as {"method", "path", "headers", "bodyLength", "bodySHA256"}
(the length and SHA-256, hex, of the body received).
Prints the port it listens on (127.0.0.1 only), then serves until stdin closes.
"""
import hashlib
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

script = json.load(open(sys.argv[1]))
log_path = sys.argv[2]
lock = threading.Lock()
count = [0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        received = self.rfile.read(length) if length else b""
        whole = len(received) == length
        with lock:
            index = min(count[0], len(script) - 1)
            count[0] += whole
            with open(log_path, "a") as log:
                log.write(json.dumps({"method": self.command, "path": self.path,
                                      "headers": {k.lower(): v for k, v in self.headers.items()},
                                      "bodyLength": len(received),
                                      "bodySHA256": hashlib.sha256(received).hexdigest()}) + "\n")
        if not whole:  # the client gave up mid-body: no one to answer
            self.close_connection = True
            return
        entry = script[index]
        body = entry.get("body", "").encode()
        self.send_response(entry["status"])
        for name, value in entry.get("headers", {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = answer

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
