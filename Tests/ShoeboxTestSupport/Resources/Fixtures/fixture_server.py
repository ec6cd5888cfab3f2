#!/usr/bin/env python3
"""Loopback HTTP server for Shoebox's fetch tests. Binds 127.0.0.1 on a free
port, prints the port on stdout, and serves each behaviour the tests need:

  /photo/NAME?seed=S&ct=TYPE&date=EXIFDATE&lat=..&lon=..&alt=..&lens=L&lm=HTTPDATE&etag=E&cd=FILENAME&xmpdate=XMPDATE
        a small JPEG with EXIF (Make, Model, DateTimeOriginal, LensModel, GPS); distinct per seed/NAME;
        ct=none omits Content-Type; etag/lm enable conditional requests (304).
  /png/NAME, /html, /empty, /text, /status/CODE
  /flaky/KEY?status=503&times=1&retry_after=2     fails `times` times, then a photo
  /truncate-once/KEY, /truncate-always/KEY        body shorter than Content-Length
  /big/KEY?size=N&cl=0|1&cut=C&html=1             N bytes (JPEG magic + zeros; html=1: an HTML page), as image/jpeg, with or without Content-Length; the connection closed after C
  /stall/KEY                                      headers and a little body, then silence
  /redirect/N, /redirect-loop, /redirect-to?to=URL
  /versioned/KEY?change=0|1                       ETag "vN"; with change=1 every request gives new bytes
  /gzip/NAME                                      a photo sent with Content-Encoding: gzip
  /encoded/KEY?as=gzip|deflate|raw-deflate|br|gzip2|bogus&cut=once|always|no&junk=1
        a photo (KEY/seed as /photo) compressed as asked (gzip2: two gzip members; bogus: an
        unknown coding); cut: the compressed stream cut in half with a matching Content-Length;
        junk: bytes that are no compressed stream
  /slow/NAME?delay=SECONDS                        a photo after a delay
  /trickle/KEY?seconds=S                          a photo whose body takes S seconds to arrive
  /partial/KEY                                    206 with half of a photo (no Range was asked)
  /cut-headers/KEY?times=1                        closes inside the headers `times` times, then a photo
  /auth/KEY?user=U&password=P&delay=S              a photo for Basic U:P, else (after S seconds) 401
  /need-cookie/KEY?name=N&value=V                 a photo when the request carries cookie N=V, else 403
  /set-cookie/KEY?name=N&value=V                  a photo with Set-Cookie: N=V
  /resumable/KEY?size=N&mode=ok|ignore|shifted|lm  N bytes (JPEG magic + a pattern) with Accept-Ranges and
        ETag "KEY-1" (mode=lm: Last-Modified only); the first request without Range is cut at half;
        a request with Range: bytes=S- and a matching If-Range gets 206 with the rest (mode=ignore:
        200 with the whole body; mode=shifted: a 206 that starts 1000 bytes past S; mode=empty: an
        empty 200; mode=lm-changed: a 206 of a newer version with another Last-Modified; mode=short-close:
        the first 206 has no Content-Length and the connection closes after half of the rest, later
        ones are whole); later requests without Range get the whole body
  /resumable-whole/KEY?size=N                     the same body, whole (reference bytes)
  /_requests/KEY  JSON: per request to KEY, its Range and If-Range headers and the body bytes sent
  /_log/KEY    JSON: request times (monotonic seconds) seen for KEY
  /_access     JSON: [method, path with query, status, time (monotonic seconds)] of every request
        answered so far, in order (bookkeeping routes, /_..., not counted)
  /_sent/KEY   JSON: body bytes actually written for KEY
  /_finished/KEY  JSON: true once the /big or page handler for KEY has returned (its /_sent/ is final)
  /_headers/KEY  JSON: the request headers last seen for KEY
  /dated/KEY?lm=HTTPDATE                          a photo with Last-Modified only (no ETag); 304 to an
        If-Modified-Since equal to lm (requests under "dated/KEY", 304s under "dated-304/KEY")
  /_concurrency  JSON: {"now": requests in flight, "max": most seen at once} (bookkeeping routes
        themselves not counted); /_concurrency/reset sets max to now
"""
import base64, ctypes, gzip, json, struct, sys, threading, time, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs, unquote

TINY_JPEG = base64.b64decode(
    "/9j/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAAIAAgBAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/APn+v//Z")

state_lock = threading.Lock()
request_log = {}
sent_bytes = {}
counters = {}
request_headers = {}
resumable_requests = {}
finished = set()
access_log = []
in_flight = 0
max_in_flight = 0


def tiff_exif(make, model, date, lat, lon, alt, lens=None):
    """A little-endian TIFF block: IFD0 (Make, Model, ExifIFD, GPS), ExifIFD (DateTimeOriginal, LensModel), GPS IFD."""
    def ascii_value(s):
        return s.encode() + b"\0"

    def rational(num, den):
        return struct.pack("<II", num, den)

    def dms(value):
        value = abs(value)
        d = int(value)
        m = int((value - d) * 60)
        s = round(((value - d) * 60 - m) * 60 * 10000)
        return rational(d, 1) + rational(m, 1) + rational(s, 10000)

    def build_ifd(entries, start):
        # entries: (tag, type, count, bytes); returns (ifd bytes, data bytes)
        count = len(entries)
        data_offset = start + 2 + count * 12 + 4
        ifd = struct.pack("<H", count)
        data = b""
        for tag, typ, n, payload in sorted(entries):
            if len(payload) <= 4:
                ifd += struct.pack("<HHI", tag, typ, n) + payload.ljust(4, b"\0")
            else:
                ifd += struct.pack("<HHII", tag, typ, n, data_offset + len(data))
                data += payload
                if len(data) % 2:
                    data += b"\0"
        ifd += struct.pack("<I", 0)
        return ifd, data

    ifd0_entries = [(0x010F, 2, len(ascii_value(make)), ascii_value(make)),
                    (0x0110, 2, len(ascii_value(model)), ascii_value(model))]
    # Placeholders for sub-IFD pointers; sizes are fixed so offsets can be computed in two passes.
    ifd0_entries.append((0x8769, 4, 1, struct.pack("<I", 0)))
    if lat is not None:
        ifd0_entries.append((0x8825, 4, 1, struct.pack("<I", 0)))
    ifd0, data0 = build_ifd(ifd0_entries, 8)
    exif_start = 8 + len(ifd0) + len(data0)
    exif_entries = [(0x9003, 2, 20, ascii_value(date))] if date else [(0x9000, 7, 4, b"0232")]
    if lens:
        exif_entries.append((0xA434, 2, len(ascii_value(lens)), ascii_value(lens)))
    exif_ifd, exif_data = build_ifd(exif_entries, exif_start)
    gps_start = exif_start + len(exif_ifd) + len(exif_data)
    gps_block = b""
    if lat is not None:
        gps_entries = [
            (0x0000, 1, 4, bytes([2, 3, 0, 0])),
            (0x0001, 2, 2, b"N\0" if lat >= 0 else b"S\0"), (0x0002, 5, 3, dms(lat)),
            (0x0003, 2, 2, b"E\0" if lon >= 0 else b"W\0"), (0x0004, 5, 3, dms(lon)),
        ]
        if alt is not None:
            gps_entries += [(0x0005, 1, 1, bytes([0 if alt >= 0 else 1])), (0x0006, 5, 1, rational(int(abs(alt) * 100), 100))]
        gps_ifd, gps_data = build_ifd(gps_entries, gps_start)
        gps_block = gps_ifd + gps_data
    ifd0_entries = [e for e in ifd0_entries if e[0] not in (0x8769, 0x8825)]
    ifd0_entries.append((0x8769, 4, 1, struct.pack("<I", exif_start)))
    if lat is not None:
        ifd0_entries.append((0x8825, 4, 1, struct.pack("<I", gps_start)))
    ifd0, data0 = build_ifd(ifd0_entries, 8)
    return b"II*\0" + struct.pack("<I", 8) + ifd0 + data0 + exif_ifd + exif_data + gps_block


def jpeg_with_exif(seed, make="TestCam", model="Model 1", date=None, lat=None, lon=None, alt=None, lens=None,
                   xmp_date=None):
    exif = b"Exif\0\0" + tiff_exif(make, model, date, lat, lon, alt, lens)
    app1 = b"\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif
    if xmp_date:
        # An XMP packet (its own APP1 segment) naming the capture time as exif:DateTimeOriginal.
        packet = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
                  '<rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:DateTimeOriginal="%s"/>'
                  '</rdf:RDF></x:xmpmeta>' % xmp_date).encode()
        xmp = b"http://ns.adobe.com/xap/1.0/\0" + packet
        app1 += b"\xff\xe1" + struct.pack(">H", len(xmp) + 2) + xmp
    comment = ("seed:" + seed).encode()
    com = b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment
    return TINY_JPEG[:2] + app1 + com + TINY_JPEG[2:]


def tiny_png(seed):
    raw = b"\0" + bytes([len(seed) % 256, 0, 0])
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    text = chunk(b"tEXt", b"Comment\0" + seed.encode())
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + text + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_response(self, code, message=None):
        if not self.path.startswith("/_"):
            with state_lock:
                access_log.append([self.command, self.path, code, time.monotonic()])
        super().send_response(code, message)

    def send_body(self, status, body, content_type="image/jpeg", headers=None):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def note(self, key):
        with state_lock:
            request_headers[key] = dict(self.headers.items())
            request_log.setdefault(key, []).append(time.monotonic())
            counters[key] = counters.get(key, 0) + 1
            return counters[key]

    def do_GET(self):
        url = urlparse(self.path)
        q = {k: v[-1] for k, v in parse_qs(url.query).items()}
        parts = url.path.split("/")
        kind = parts[1] if len(parts) > 1 else ""
        rest = "/".join(parts[2:])
        key = unquote(rest) or kind
        counted = not kind.startswith("_")
        if counted:
            self.enter()
        try:
            getattr(self, "route_" + kind.replace("-", "_"), self.route_missing)(key, q)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            if counted:
                self.leave()

    def enter(self):
        global in_flight, max_in_flight
        with state_lock:
            in_flight += 1
            max_in_flight = max(max_in_flight, in_flight)

    def leave(self):
        global in_flight
        with state_lock:
            in_flight -= 1

    def route__concurrency(self, key, q):
        global max_in_flight
        with state_lock:
            if key == "reset":
                max_in_flight = in_flight
            body = json.dumps({"now": in_flight, "max": max_in_flight}).encode()
        self.send_body(200, body, "application/json")

    def route_dated(self, key, q):
        """Last-Modified and no ETag: a conditional request can only be If-Modified-Since."""
        lm = q.get("lm", "Wed, 01 May 2024 10:00:00 GMT")
        if self.headers.get("If-Modified-Since") == lm:
            self.note("dated-304/" + key)
            with state_lock:
                request_headers["dated/" + key] = dict(self.headers.items())
            self.send_response(304)
            self.send_header("Last-Modified", lm)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.note("dated/" + key)
        self.send_body(200, self.photo_bytes(key, q), "image/jpeg", {"Last-Modified": lm})

    def route_auth(self, key, q):
        self.note(key)
        expected = "Basic " + base64.b64encode(f"{q.get('user', '')}:{q.get('password', '')}".encode()).decode()
        if self.headers.get("Authorization") == expected:
            self.send_body(200, self.photo_bytes(key, q))
        else:
            time.sleep(float(q.get("delay", "0")))
            self.send_body(401, b"who are you?", "text/plain", {"WWW-Authenticate": 'Basic realm="test"'})

    def route_missing(self, key, q):
        self.send_body(404, b"not found", "text/plain")

    def photo_bytes(self, key, q):
        lat = float(q["lat"]) if "lat" in q else None
        lon = float(q["lon"]) if "lon" in q else None
        alt = float(q["alt"]) if "alt" in q else None
        return jpeg_with_exif(q.get("seed", key), q.get("make", "TestCam"), q.get("model", "Model 1"),
                              q.get("date"), lat, lon, alt, q.get("lens"), q.get("xmpdate"))

    def route_photo(self, key, q):
        self.note(key)
        if "delay" in q:
            time.sleep(float(q["delay"]))
        body = self.photo_bytes(key, q)
        headers = {}
        if "etag" in q:
            headers["ETag"] = '"%s"' % q["etag"]
            if self.headers.get("If-None-Match") == headers["ETag"]:
                self.send_response(304)
                self.send_header("ETag", headers["ETag"])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        if "lm" in q:
            headers["Last-Modified"] = q["lm"]
        if "cd" in q:
            headers["Content-Disposition"] = 'attachment; filename="%s"' % q["cd"]
        ct = q.get("ct", "image/jpeg")
        self.send_body(200, body, None if ct == "none" else ct, headers)

    def route_disposition(self, key, q):
        """A photo with the Content-Disposition header whose bytes are base64 in ?h=, sent as they are."""
        self.note(key)
        value = base64.b64decode(q.get("h", "")).decode("latin-1")
        self.send_body(200, self.photo_bytes(key, q), q.get("ct", "image/jpeg"), {"Content-Disposition": value})

    def route_bytes(self, key, q):
        """The body whose bytes are base64 in ?b=, with the Content-Type in ?ct=."""
        self.note(key)
        self.send_body(200, base64.b64decode(q.get("b", "")), q.get("ct", "application/octet-stream"))

    def route_versioned(self, key, q):
        """New bytes (and a new ETag) on every unconditional request; 304 when the ETag matches."""
        with state_lock:
            version = counters.get("versioned/" + key, 0)
        etag = '"v%d"' % version
        if version and self.headers.get("If-None-Match") == etag and q.get("change") != "1":
            self.note("versioned-304/" + key)
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        n = self.note("versioned/" + key)
        self.send_body(200, jpeg_with_exif("%s-v%d" % (key, n)), "image/jpeg", {"ETag": '"v%d"' % n})

    def route_png(self, key, q):
        self.send_body(200, tiny_png(key), q.get("ct", "image/png"))

    def route_html(self, key, q):
        self.send_body(200, b"<!doctype html><html><body>Error: not found</body></html>", "text/html; charset=utf-8")

    def route_text(self, key, q):
        self.send_body(200, b"just some text\n", q.get("ct", "image/jpeg"))

    def route_empty(self, key, q):
        self.send_body(200, b"", "image/jpeg")

    def route_status(self, key, q):
        self.note("status/" + key)
        self.send_body(int(key), b"error page", "text/html")

    def route_flaky(self, key, q):
        n = self.note("flaky/" + key)
        if n <= int(q.get("times", "1")):
            headers = {"Retry-After": q["retry_after"]} if "retry_after" in q else {}
            if "page" in q:
                self.send_page(int(q.get("status", "503")), int(q["page"]), key, headers)
                return
            self.send_body(int(q.get("status", "503")), b"try later", "text/plain", headers)
        else:
            self.send_body(200, self.photo_bytes(key, q))

    def truncated(self, key, q, always):
        n = self.note("trunc/" + key)
        body = self.photo_bytes(key, q)
        if always or n == 1:
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
        else:
            self.send_body(200, body)

    def route_close_delimited(self, key, q):
        """HTTP/1 with neither Content-Length nor chunked framing: the body ends where the
        connection closes. cut=once|always|tiny cuts it (60% of the photo, or 4 bytes)."""
        n = self.note("close/" + key)
        body = self.photo_bytes(key, q)
        cut = q.get("cut", "never")
        if cut == "tiny":
            body = body[:4]
        elif cut == "always" or (cut == "once" and n == 1):
            body = body[: len(body) * 6 // 10]
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.close_connection = True

    def route_cut_error_page(self, key, q):
        """An error status whose page stops before its Content-Length."""
        self.note("cut-error/" + key)
        self.send_response(int(q.get("status", "404")))
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(b"<html>nope")
        self.wfile.flush()
        self.close_connection = True

    def route_chunked_with_length(self, key, q):
        """Chunked framing plus a Content-Length, which a recipient must ignore."""
        body = self.photo_bytes(key, q)
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Content-Length", q.get("cl", str(len(body))))
        self.end_headers()
        self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))

    def route_huge_length(self, key, q):
        """A Content-Length too long for a 64-bit number, then the photo and a close."""
        self.note("huge-length/" + key)
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", "99999999999999999999999")
        self.end_headers()
        self.wfile.write(self.photo_bytes(key, q))
        self.wfile.flush()
        self.close_connection = True

    def route_conflicting_length(self, key, q):
        """Two Content-Length headers that disagree; the body is cut to the smaller."""
        self.note("conflict/" + key)
        body = self.photo_bytes(key, q)
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", "5")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[:5])
        self.wfile.flush()
        self.close_connection = True

    def route_truncate_once(self, key, q):
        self.truncated(key, q, False)

    def route_truncate_always(self, key, q):
        self.truncated(key, q, True)

    def route_big(self, key, q):
        self.note("big/" + key)
        size = int(q.get("size", "1000000"))
        with_length = q.get("cl", "1") == "1"
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        if with_length:
            self.send_header("Content-Length", str(size))
        else:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b"\xff\xd8\xff\xe0" + b"\0" * 65532
        if q.get("html") == "1":  # an HTML page sent as a JPEG
            chunk = b"<!doctype html><html><body>" + b" " * (65536 - 27)
        sent = 0
        cut = int(q.get("cut", str(size)))
        try:
            while sent < min(size, cut):
                piece = chunk[: min(len(chunk), size - sent)]
                if with_length:
                    self.wfile.write(piece)
                else:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
                sent += len(piece)
                with state_lock:
                    sent_bytes[key] = sent
                time.sleep(0.002)
            if not with_length and sent == size:
                self.wfile.write(b"0\r\n\r\n")
        finally:
            with state_lock:
                sent_bytes[key] = sent
                finished.add(key)
            self.close_connection = True

    def route_stall(self, key, q):
        self.note("stall/" + key)
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b"\xff\xd8\xff\xe0" + b"\0" * 100)
        self.wfile.flush()
        time.sleep(float(q.get("for", "20")))
        self.close_connection = True

    def route_redirect(self, key, q):
        n = int(key or "1")
        target = "/redirect/%d" % (n - 1) if n > 1 else "/photo/redirected?seed=redirect"
        self.redirect(target)

    def route_redirect_loop(self, key, q):
        self.redirect("/redirect-loop/x")

    def route_redirect_to(self, key, q):
        if "page" in q:
            self.send_page(302, int(q["page"]), key, {"Location": q["to"]})
            return
        self.redirect(q["to"])

    def send_page(self, status, size, key, headers):
        """An HTML page of `size` bytes with its Content-Length, sent in pieces; the bytes
        sent so far are kept under `key` (see /_sent/)."""
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(size))
        self.end_headers()
        sent = 0
        try:
            while sent < size:
                piece = min(65536, size - sent)
                self.wfile.write(b"<p>" + b"x" * (piece - 3) if piece > 3 else b"x" * piece)
                self.wfile.flush()
                sent += piece
                with state_lock:
                    sent_bytes[key] = sent
                if size > 1 << 20:
                    time.sleep(0.002)
        finally:
            with state_lock:
                sent_bytes[key] = sent
                finished.add(key)

    def redirect(self, location):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def route_gzip(self, key, q):
        body = gzip.compress(self.photo_bytes(key, q))
        self.send_body(200, body, "image/jpeg", {"Content-Encoding": "gzip"})

    def route_trickle(self, key, q):
        body = self.photo_bytes(key, q)
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        pieces = 10
        step = (len(body) + pieces - 1) // pieces
        for start in range(0, len(body), step):
            self.wfile.write(body[start:start + step])
            self.wfile.flush()
            time.sleep(float(q.get("seconds", "2")) / pieces)

    def route_partial(self, key, q):
        """Half a photo with its Content-Range; status=200 sends it as if whole,
        whole=1 sends all of it with a Content-Range that says so."""
        self.note("partial/" + key)
        body = self.photo_bytes(key, q)
        half = body if q.get("whole") == "1" else body[: len(body) // 2]
        self.send_response(int(q.get("status", "206")))
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Range", "bytes 0-%d/%d" % (len(half) - 1, len(body)))
        self.send_header("Content-Length", str(len(half)))
        self.end_headers()
        self.wfile.write(half)

    def route_cut_headers(self, key, q):
        n = self.note("cut-headers/" + key)
        if n <= int(q.get("times", "1")):
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Len")
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_body(200, self.photo_bytes(key, q))

    def route_encoded(self, key, q):
        n = self.note("encoded/" + key)
        photo = self.photo_bytes(key, q)
        coding = q.get("as", "gzip")
        if coding == "gzip":
            body = gzip.compress(photo)
        elif coding == "gzip2":
            middle = len(photo) // 2
            body, coding = gzip.compress(photo[:middle]) + gzip.compress(photo[middle:]), "gzip"
        elif coding == "deflate":
            body = zlib.compress(photo)
        elif coding == "raw-deflate":
            packer = zlib.compressobj(9, zlib.DEFLATED, -15)
            body, coding = packer.compress(photo) + packer.flush(), "deflate"
        elif coding == "br":
            body = brotli_compress(photo)
        else:
            body = photo
        if q.get("junk") == "1":
            body = b"this is no compressed stream at all" * 20
        cut = q.get("cut", "no")
        if cut == "always" or (cut == "once" and n == 1):
            body = body[: len(body) // 2]
        self.send_body(200, body, "image/jpeg", {"Content-Encoding": coding})

    def route_slow(self, key, q):
        time.sleep(float(q.get("delay", "0.05")))
        self.send_body(200, self.photo_bytes(key, q))

    def route_need_cookie(self, key, q):
        self.note("need-cookie/" + key)
        wanted = "%s=%s" % (q.get("name", "session"), q.get("value", "secret-42"))
        cookies = [c.strip() for c in self.headers.get("Cookie", "").split(";")]
        if wanted in cookies:
            self.send_body(200, self.photo_bytes(key, q))
        else:
            self.send_body(403, b"no cookie", "text/plain")

    def route_set_cookie(self, key, q):
        self.note("set-cookie/" + key)
        cookie = "%s=%s; Path=/" % (q.get("name", "session"), q.get("value", "v"))
        self.send_body(200, self.photo_bytes(key, q), "image/jpeg", {"Set-Cookie": cookie})

    @staticmethod
    def resumable_body(key, size):
        pattern = bytes((i * 7 + len(key)) % 251 for i in range(65536))
        body = b"\xff\xd8\xff\xe0" + (pattern * (size // len(pattern) + 1))
        return body[:size]

    def route_resumable_whole(self, key, q):
        self.send_body(200, self.resumable_body(key, int(q.get("size", "2000000"))))

    def route_resumable(self, key, q):
        n = self.note("resumable/" + key)
        body = self.resumable_body(key, int(q.get("size", "2000000")))
        mode = q.get("mode", "ok")
        validator = {"Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT"} if mode in ("lm", "lm-changed") else {"ETag": '"%s-1"' % key}
        asked = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        entry = {"range": asked, "if_range": if_range, "sent": 0}
        with state_lock:
            resumable_requests.setdefault(key, []).append(entry)
        headers = dict(validator, **{"Accept-Ranges": "bytes"})
        start = None
        if asked and asked.startswith("bytes=") and asked.endswith("-") and if_range in validator.values():
            start = int(asked[6:-1])
        if start is not None and mode == "empty":
            # A Range request answered with an empty 200: nothing to complete the kept part with.
            self.send_response(200)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if start is not None and mode == "lm-changed":
            # Range honoured, If-Range ignored: the rest of a newer version, same length.
            headers["Last-Modified"] = "Wed, 02 Dec 2026 10:00:00 GMT"
            body = self.resumable_body(key + "-v2", len(body))
        if start is not None and mode == "short-close" and n == 2:
            # The first Range answer ends cleanly (close-delimited) but short of what it announced.
            part = body[start:start + (len(body) - start) // 2]
            self.send_response(206)
            self.send_header("Content-Type", "image/jpeg")
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(body) - 1, len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.send_pieces(part, entry)
            self.close_connection = True
            return
        if start is not None and mode != "ignore" and start < len(body):
            first = start + 1000 if mode == "shifted" else start
            part = body[first:]
            self.send_response(206)
            self.send_header("Content-Type", "image/jpeg")
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (first, len(body) - 1, len(body)))
            self.send_header("Content-Length", str(len(part)))
            self.end_headers()
            self.send_pieces(part, entry)
            return
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if n == 1 and not asked:
            self.send_pieces(body[: len(body) // 2], entry)
            self.close_connection = True
            return
        self.send_pieces(body, entry)

    def send_pieces(self, data, entry):
        for start in range(0, len(data), 65536):
            piece = data[start:start + 65536]
            self.wfile.write(piece)
            self.wfile.flush()
            with state_lock:
                entry["sent"] += len(piece)

    def route__requests(self, key, q):
        with state_lock:
            self.send_body(200, json.dumps(resumable_requests.get(key, [])).encode(), "application/json")

    def route__log(self, key, q):
        with state_lock:
            self.send_body(200, json.dumps(request_log.get(key, [])).encode(), "application/json")

    def route__access(self, key, q):
        with state_lock:
            body = json.dumps(access_log).encode()
        self.send_body(200, body, "application/json")

    def route__headers(self, key, q):
        with state_lock:
            self.send_body(200, json.dumps(request_headers.get(key, {})).encode(), "application/json")

    def route__finished(self, key, q):
        with state_lock:
            self.send_body(200, json.dumps(key in finished).encode(), "application/json")

    def route__sent(self, key, q):
        with state_lock:
            self.send_body(200, json.dumps(sent_bytes.get(key, 0)).encode(), "application/json")


def brotli_compress(data):
    """Brotli through libbrotlienc (Python's standard library has no brotli)."""
    library = ctypes.CDLL("libbrotlienc.so.1")
    size = ctypes.c_size_t(len(data) * 2 + 1024)
    out = ctypes.create_string_buffer(size.value)
    ok = library.BrotliEncoderCompress(11, 22, 0, ctypes.c_size_t(len(data)), data, ctypes.byref(size), out)
    if not ok:
        raise RuntimeError("BrotliEncoderCompress failed")
    return out.raw[: size.value]


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


if __name__ == "__main__":
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    # Stop with the test process: exit when stdin closes.
    threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    server.serve_forever()
