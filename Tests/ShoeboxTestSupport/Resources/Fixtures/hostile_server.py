#!/usr/bin/env python3
"""Loopback server of hostile HTTP responses for Shoebox's fetch tests, written on raw
sockets so that every byte of the framing is the test's choice. Binds 127.0.0.1 on a
free port, prints the port on stdout, stops when stdin closes. Every route bounds its
own sending (bytes and seconds), so no test can make it run on for ever.

  /gzip-boundary/KEY            a photo as two gzip members, the first ending exactly at a read boundary
  /tiff/KEY?cut=0|1&ifd=start|end   HTTP/1.0, no Content-Length: a TIFF (strips; IFD before or after them), cut in half
  /bad-length/KEY?value=V&send=all|half   a photo under the Content-Length line V (e.g. 12abc, "N, M")
  /redirect/KEY?to=URL&page=N    302 to URL with an N-byte page
  /loop/KEY?page=N               302 to itself with an N-byte page, for ever
  /photo/KEY                     a photo; its request headers are kept
  /unframed/KEY                  HTTP/1.0, no Content-Length: a JPEG XL codestream (no end marker to check)
  /trickle/KEY?interval=S        a 200 KB body announced, then one byte every S seconds
  /steady/KEY?rate=B&seconds=S   a body sent at B bytes a second for S seconds
  /gzip-tail/KEY                 a gzip photo followed by endless bytes that are no gzip member
  /deflate-empty/KEY             a deflate stream of endless empty blocks
  /bomb/KEY?as=gzip|deflate|br&mib=N   a JPEG start and N MiB of zeros, compressed (a few hundred KB on the wire)
  /_headers/KEY  JSON: the request headers last seen for KEY
  /_count/KEY    JSON: requests seen for KEY
  /_sent/KEY     JSON: body bytes written for KEY
"""
import gzip, json, os, socket, socketserver, sys, threading, time, struct, zlib
from urllib.parse import urlparse, parse_qs, unquote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_server import brotli_compress, jpeg_with_exif  # noqa: E402

lock = threading.RLock()
headers_seen, counts, sent = {}, {}, {}
MAX_SECONDS = 60
MAX_BYTES = 256 << 20


def big_photo(key, size=300_000):
    """A JPEG with EXIF and a long comment segment run, distinct per key."""
    base = jpeg_with_exif(key)
    filler = b""
    chunk = (key.encode() * 1000)[:65000]
    while len(filler) < size:
        filler += b"\xff\xfe" + struct.pack(">H", len(chunk) + 2) + chunk
    return base[:2] + filler + base[2:]


def tiff(key, ifd_at_end):
    """A little-endian RGB TIFF, 64 x 512 pixels in 8 strips, its IFD before or after the strips."""
    width, height, rows = 64, 512, 64
    strip = width * rows * 3
    pixels = [bytes([(i * 7 + len(key)) % 256]) * strip for i in range(height // rows)]
    entries_count = 10
    ifd_size = 2 + entries_count * 12 + 4
    extra = 6 + 32 + 32  # BitsPerSample (3 shorts), StripOffsets (8 longs), StripByteCounts (8 longs)
    if ifd_at_end:
        data_start = 8
        ifd_offset = 8 + strip * len(pixels)
    else:
        ifd_offset = 8
        data_start = 8 + ifd_size + extra
    extra_at = ifd_offset + ifd_size
    offsets = [data_start + i * strip for i in range(len(pixels))]
    bits_at, offsets_at, counts_at = extra_at, extra_at + 6, extra_at + 38

    def entry(tag, typ, count, value):
        return struct.pack("<HHII", tag, typ, count, value)
    ifd = struct.pack("<H", entries_count) + b"".join([
        entry(256, 4, 1, width), entry(257, 4, 1, height), entry(258, 3, 3, bits_at),
        entry(259, 3, 1, 1), entry(262, 3, 1, 2), entry(273, 4, len(offsets), offsets_at),
        entry(277, 3, 1, 3), entry(278, 4, 1, rows), entry(279, 4, len(offsets), counts_at),
        entry(284, 3, 1, 1),
    ]) + struct.pack("<I", 0)
    extra_bytes = struct.pack("<HHH", 8, 8, 8) + struct.pack("<8I", *offsets) + struct.pack("<8I", *([strip] * 8))
    header = b"II*\0" + struct.pack("<I", ifd_offset)
    if ifd_at_end:
        return header + b"".join(pixels) + ifd + extra_bytes
    return header + ifd + extra_bytes + b"".join(pixels)


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(MAX_SECONDS)
        data = b""
        while b"\r\n\r\n" not in data:
            piece = self.request.recv(65536)
            if not piece:
                return
            data += piece
        head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        _, target, _ = head[0].split(" ", 2)
        fields = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            fields[name.strip()] = value.strip()
        url = urlparse(target)
        q = {k: v[-1] for k, v in parse_qs(url.query).items()}
        parts = url.path.split("/")
        kind, key = parts[1], unquote("/".join(parts[2:]))
        if not kind.startswith("_"):
            with lock:
                headers_seen[key] = fields
                counts[key] = counts.get(key, 0) + 1
        self.key = key
        try:
            getattr(self, "route_" + kind.replace("-", "_"), self.route_missing)(key, q)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass

    def send(self, data):
        self.request.sendall(data)
        with lock:
            sent[self.key] = sent.get(self.key, 0) + len(data)

    def respond(self, status, headers, body=b"", version="HTTP/1.1"):
        lines = ["%s %s X" % (version, status)] + ["%s: %s" % kv for kv in headers]
        self.request.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        if body:
            self.send(body)

    def json(self, value):
        body = json.dumps(value).encode()
        self.respond(200, [("Content-Type", "application/json"), ("Content-Length", len(body)), ("Connection", "close")], body)

    def route_missing(self, key, q):
        self.respond(404, [("Content-Length", 0), ("Connection", "close")])

    def route__headers(self, key, q):
        with lock:
            self.json(headers_seen.get(key, {}))

    def route__count(self, key, q):
        with lock:
            self.json(counts.get(key, 0))

    def route__sent(self, key, q):
        with lock:
            self.json(sent.get(key, 0))

    def route_photo(self, key, q):
        body = jpeg_with_exif(key)
        self.respond(200, [("Content-Type", "image/jpeg"), ("Content-Length", len(body)), ("Connection", "close")], body)

    def route_gzip_boundary(self, key, q):
        photo = big_photo(key, 60_000)
        first, second = gzip.compress(photo[:len(photo) // 2]), gzip.compress(photo[len(photo) // 2:])
        self.respond(200, [("Content-Type", "image/jpeg"), ("Content-Encoding", "gzip"),
                           ("Content-Length", len(first) + len(second)), ("Connection", "close")])
        self.send(first)
        time.sleep(0.3)  # the client reads the first member alone
        self.send(second)

    def route_tiff(self, key, q):
        body = tiff(key, q.get("ifd") == "end")
        if q.get("cut") == "1":
            body = body[: len(body) // 2]
        self.respond(200, [("Content-Type", q.get("ct", "image/tiff")), ("Connection", "close")], version="HTTP/1.0")
        self.send(body)

    def route_unframed(self, key, q):
        body = b"\xff\x0a" + (key.encode() * 4000)[:8000]
        self.respond(200, [("Content-Type", "image/jxl")], version="HTTP/1.0")
        self.send(body)

    def route_bad_length(self, key, q):
        photo = jpeg_with_exif(key)
        value = q["value"].replace("N", str(len(photo))).replace("H", str(len(photo) // 2))
        body = photo[: len(photo) // 2] if q.get("send") == "half" else photo
        self.respond(200, [("Content-Type", "image/jpeg"), ("Content-Length", value), ("Connection", "close")])
        self.send(body)

    def page(self, status, location, size):
        self.respond(status, [("Content-Type", "text/html"), ("Location", location), ("Content-Length", size)])
        piece = b"<p>" + b"x" * 65533
        left, started = size, time.time()
        while left > 0 and time.time() - started < MAX_SECONDS:
            self.send(piece[: min(left, len(piece))])
            left -= min(left, len(piece))

    def route_redirect(self, key, q):
        self.page(302, q["to"], int(q.get("page", "0")))

    def route_loop(self, key, q):
        self.page(302, "/loop/%s?page=%s" % (key, q.get("page", "0")), int(q.get("page", "0")))

    def route_trickle(self, key, q):
        photo = big_photo(key, 200_000)
        self.respond(200, [("Content-Type", "image/jpeg"), ("Content-Length", len(photo))])
        started = time.time()
        for byte in photo:
            if time.time() - started > MAX_SECONDS:
                break
            self.send(bytes([byte]))
            time.sleep(float(q.get("interval", "0.5")))

    def route_steady(self, key, q):
        rate, seconds = int(q.get("rate", "10000")), float(q.get("seconds", "10"))
        photo = big_photo(key, int(rate * seconds))
        self.respond(200, [("Content-Type", "image/jpeg"), ("Content-Length", len(photo))])
        step = max(1, rate // 10)
        for start in range(0, len(photo), step):
            self.send(photo[start:start + step])
            time.sleep(0.1)

    def endless(self, head, piece):
        """Sends `head`, then `piece` over and over, for at most MAX_BYTES or MAX_SECONDS."""
        self.send(head)
        started = time.time()
        with lock:
            total = sent.get(self.key, 0)
        while total < MAX_BYTES and time.time() - started < MAX_SECONDS:
            self.send(piece)
            total += len(piece)

    def route_bomb(self, key, q):
        plain = b"\xff\xd8\xff\xe0" + bytes(int(q.get("mib", "64")) << 20)
        coding = q.get("as", "gzip")
        body = {"gzip": gzip.compress, "deflate": zlib.compress, "br": brotli_compress}[coding](plain)
        self.respond(200, [("Content-Type", "image/jpeg"), ("Content-Encoding", coding), ("Content-Length", len(body))], body)

    def route_gzip_tail(self, key, q):
        self.respond(200, [("Content-Type", "image/jpeg"), ("Content-Encoding", "gzip"), ("Connection", "close")])
        self.endless(gzip.compress(jpeg_with_exif(key)), b"this is not a gzip member " * 2500)

    def route_deflate_empty(self, key, q):
        self.respond(200, [("Content-Type", "image/jpeg"), ("Content-Encoding", "deflate"), ("Connection", "close")])
        # A zlib header, then empty stored blocks that are never the last (BFINAL 0, LEN 0).
        self.endless(b"\x78\x9c", b"\x00\x00\x00\xff\xff" * 20000)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


if __name__ == "__main__":
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    server.serve_forever()
