import Foundation

/// Rewrites fixtures into the container variants no common tool writes any
/// more: PNG "Raw profile type exif" text chunks (tEXt, zTXt, iTXt) instead of
/// eXIf, and a WebP EXIF chunk with the "Exif\0\0" prefix removed or added. Done by a small
/// Python script (zlib and CRC-32 come with Python).
enum ContainerVariants {
    static let script = #"""
import struct, sys, zlib

def chunks(data):
    offset = 8
    while offset < len(data):
        length, = struct.unpack(">I", data[offset:offset + 4])
        yield data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
        offset += 12 + length

def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)

def png_variant(source, target, kind):
    data = open(source, "rb").read()
    exif = None
    out = data[:8]
    for name, body in chunks(data):
        if name == b"eXIf":
            exif = body
            continue
        if name == b"IEND":
            blob = b"Exif\0\0" + exif
            hexed = blob.hex()
            text = "\nexif\n%8d\n" % len(blob) + "\n".join(hexed[i:i + 72] for i in range(0, len(hexed), 72)) + "\n"
            key = b"Raw profile type exif\0"
            if kind == "tEXt":
                out += chunk(b"tEXt", key + text.encode())
            elif kind == "zTXt":
                out += chunk(b"zTXt", key + b"\0" + zlib.compress(text.encode()))
            else:
                out += chunk(b"iTXt", key + b"\1\0" + b"\0" + b"\0" + zlib.compress(text.encode()))
        out += chunk(name, body)
    assert exif is not None, "no eXIf chunk in " + source
    open(target, "wb").write(out)

def webp_toggled(source, target):
    data = open(source, "rb").read()
    offset, out = 12, b""
    while offset < len(data):
        kind = data[offset:offset + 4]
        length, = struct.unpack("<I", data[offset + 4:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"EXIF":
            body = body[6:] if body.startswith(b"Exif\0\0") else b"Exif\0\0" + body
        out += kind + struct.pack("<I", len(body)) + body + (b"\0" if len(body) % 2 else b"")
        offset += 8 + length + (length & 1)
    open(target, "wb").write(b"RIFF" + struct.pack("<I", len(out) + 4) + b"WEBP" + out)

for line in sys.stdin:
    kind, source, target = line.split("\t")
    target = target.strip()
    if kind == "webp":
        webp_toggled(source, target)
    else:
        png_variant(source, target, kind)
"""#

    /// Each job: (variant "tEXt" | "zTXt" | "iTXt" | "webp", source, target).
    /// A write to a script that already ended fails with EPIPE (a test failure) instead of
    /// SIGPIPE ending the whole test run without its summary.
    private static let brokenPipesAreErrors: Void = { signal(SIGPIPE, SIG_IGN) }()

    static func make(_ jobs: [(String, URL, URL)]) throws {
        brokenPipesAreErrors
        let scriptURL = FileManager.default.temporaryDirectory.appendingPathComponent("variants-\(UUID().uuidString).py")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: scriptURL) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [scriptURL.path]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        let text = jobs.map { "\($0.0)\t\($0.1.path)\t\($0.2.path)\n" }.joined()
        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolProcess.Failure(description: "container variant script failed")
        }
    }
}
