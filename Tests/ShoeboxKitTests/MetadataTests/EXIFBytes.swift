/// Hand-made little-endian EXIF blocks and JPEG files for the broken-input tests.
enum EXIFBytes {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// One IFD entry: tag, type, count and the 4-byte value/offset field.
    static func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
        le16(tag) + le16(type) + le32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
    }

    /// "II*\0", IFD0 at 8 with `entries` (count written as `declaredCount` when given), next-IFD `next`, then `tail`.
    static func tiff(_ entries: [[UInt8]], declaredCount: Int? = nil, next: Int = 0, tail: [UInt8] = []) -> [UInt8] {
        [0x49, 0x49, 0x2A, 0x00] + le32(8) + le16(declaredCount ?? entries.count) + entries.flatMap { $0 } + le32(next) + tail
    }

    /// Offset of the byte after IFD0 when it has `n` entries (where `tail` starts).
    static func tailOffset(entries n: Int) -> Int { 8 + 2 + 12 * n + 4 }

    /// A JPEG of `width`×`height` whose APP1 holds `tiff`, with a frame header and a scan header.
    static func jpeg(tiff: [UInt8]?, width: Int = 40, height: Int = 30) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        if let tiff {
            let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
            bytes += [0xFF, 0xE1] + be16(payload.count + 2) + payload
        }
        let frame: [UInt8] = [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        bytes += [0xFF, 0xC0] + be16(frame.count + 2) + frame
        let scan: [UInt8] = [3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0]
        bytes += [0xFF, 0xDA] + be16(scan.count + 2) + scan + [0x12, 0x34, 0xFF, 0xD9]
        return bytes
    }

    /// ASCII entry whose text lives in the tail at `offset`.
    static func ascii(_ tag: Int, _ text: [UInt8], at offset: Int) -> [UInt8] {
        text.count <= 4 ? entry(tag, 2, text.count, text) : entry(tag, 2, text.count, le32(offset))
    }

    /// A TIFF with one IFD whose values are laid out automatically: (tag, type, count, value bytes).
    static func tiff(values: [(Int, Int, Int, [UInt8])]) -> [UInt8] {
        var tail: [UInt8] = []
        let tailStart = tailOffset(entries: values.count)
        let entries = values.map { tag, type, count, bytes -> [UInt8] in
            if bytes.count <= 4 { return entry(tag, type, count, bytes) }
            defer { tail += bytes + (bytes.count % 2 == 1 ? [0] : []) }
            return entry(tag, type, count, le32(tailStart + tail.count))
        }
        return tiff(entries, tail: tail)
    }

    static func rationals(_ pairs: [(Int, Int)]) -> [UInt8] { pairs.flatMap { le32($0.0) + le32($0.1) } }
}
