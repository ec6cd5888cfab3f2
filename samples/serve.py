#!/usr/bin/env python3
"""Serves the sample photos on 127.0.0.1 for the Shoebox demo (samples/demo.sh).

    python3 samples/serve.py [--port N] [--port-file FILE] [--verbose]

--port 0 picks a free port; --port-file writes the port once the server
listens (the demo waits for it). Routes, matching samples/urls.txt:

  /photos/NAME               the file samples/photos/NAME, with its image type,
                             an ETag and a fixed Last-Modified (2017-09-02), and
                             304 answers to If-None-Match / If-Modified-Since
  /mirror/NAME               the same bytes under a second URL (a duplicate)
  /photos/expired-link.jpg   an HTML page served as 200 (fails on purpose)
  anything else              404 with an HTML body (fails on purpose)

Only the standard library; listens on loopback only.
"""
import argparse
import hashlib
import http.server
import os
import sys
from email.utils import formatdate, parsedate_to_datetime

PHOTOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "photos")
TYPES = {
    ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png",
    ".webp": "image/webp", ".heic": "image/heic", ".avif": "image/avif",
}
# Fixed, so that the photo without EXIF is dated the same on every run.
LAST_MODIFIED_EPOCH = 1504346400  # Sat, 02 Sep 2017 10:00:00 GMT
LAST_MODIFIED = formatdate(LAST_MODIFIED_EPOCH, usegmt=True)
EXPIRED_PAGE = b"""<!doctype html>
<html><head><title>Link expired</title></head>
<body><h1>This link has expired</h1><p>The photo you asked for is no longer shared.</p></body></html>
"""
NOT_FOUND_PAGE = b"""<!doctype html>
<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>
"""


class SampleHandler(http.server.BaseHTTPRequestHandler):
    server_version = "shoebox-samples/1"
    verbose = False

    def do_HEAD(self):
        self.answer(send_body=False)

    def do_GET(self):
        self.answer(send_body=True)

    def answer(self, send_body):
        path = self.path.split("?", 1)[0]
        if path == "/photos/expired-link.jpg":
            return self.send(200, "text/html; charset=utf-8", EXPIRED_PAGE, send_body)
        for prefix in ("/photos/", "/mirror/"):
            if path.startswith(prefix):
                name = path[len(prefix):]
                file = os.path.join(PHOTOS, name)
                if "/" not in name and not name.startswith(".") and os.path.isfile(file):
                    return self.send_photo(file, send_body)
        self.send(404, "text/html; charset=utf-8", NOT_FOUND_PAGE, send_body)

    def send_photo(self, file, send_body):
        with open(file, "rb") as handle:
            body = handle.read()
        etag = '"%s"' % hashlib.sha256(body).hexdigest()[:16]
        extra = {"ETag": etag, "Last-Modified": LAST_MODIFIED}
        if self.not_modified(etag):
            return self.send(304, None, b"", False, extra)
        content_type = TYPES.get(os.path.splitext(file)[1].lower(), "application/octet-stream")
        self.send(200, content_type, body, send_body, extra)

    def not_modified(self, etag):
        match = self.headers.get("If-None-Match")
        if match is not None:
            return etag in [tag.strip() for tag in match.split(",")] or match.strip() == "*"
        since = self.headers.get("If-Modified-Since")
        if since:
            try:
                return parsedate_to_datetime(since).timestamp() >= LAST_MODIFIED_EPOCH
            except (TypeError, ValueError):
                return False
        return False

    def send(self, status, content_type, body, send_body, extra=None):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body and status != 304:
            self.wfile.write(body)

    def log_message(self, format, *args):
        if self.verbose:
            sys.stderr.write("serve.py: %s\n" % (format % args))


def main():
    parser = argparse.ArgumentParser(description="Serve the Shoebox sample photos on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on; 0 picks a free one (default 8000)")
    parser.add_argument("--port-file", help="write the port to this file once listening")
    parser.add_argument("--verbose", action="store_true", help="log every request on stderr")
    options = parser.parse_args()
    SampleHandler.verbose = options.verbose
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", options.port), SampleHandler)
    except OSError as error:
        sys.exit("serve.py: cannot listen on 127.0.0.1:%d: %s; try another --port, or --port 0" % (options.port, error.strerror))
    port = server.server_address[1]
    sys.stderr.write("serve.py: serving samples/photos on http://127.0.0.1:%d/ (Ctrl-C stops)\n" % port)
    sys.stderr.flush()
    if options.port_file:
        with open(options.port_file + ".tmp", "w") as handle:
            handle.write("%d\n" % port)
        os.replace(options.port_file + ".tmp", options.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
