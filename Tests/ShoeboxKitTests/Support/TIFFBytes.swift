import Foundation

/// A minimal TIFF (header and one IFD0, values after it) with the tags a test names.
struct TIFFBytes {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var value: [UInt8]
    }

    var littleEndian = true
    var entries: [Entry] = []

    func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
    func u32(_ v: UInt32) -> [UInt8] {
        littleEndian ? u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) : u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF))
    }

    mutating func ascii(_ tag: UInt16, _ text: String) {
        let bytes = Array(text.utf8) + [0]
        entries.append(Entry(tag: tag, type: 2, count: UInt32(bytes.count), value: bytes))
    }

    mutating func short(_ tag: UInt16, _ value: UInt16) {
        entries.append(Entry(tag: tag, type: 3, count: 1, value: u16(value) + [0, 0]))
    }

    mutating func long(_ tag: UInt16, _ value: UInt32) {
        entries.append(Entry(tag: tag, type: 4, count: 1, value: u32(value)))
    }

    mutating func bytes(_ tag: UInt16, _ value: [UInt8]) {
        entries.append(Entry(tag: tag, type: 1, count: UInt32(value.count), value: value))
    }

    var data: [UInt8] {
        var out: [UInt8] = littleEndian ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]
        out += u32(8)
        let sorted = entries.sorted { $0.tag < $1.tag }
        var extra: [UInt8] = []
        let extraStart = 8 + 2 + sorted.count * 12 + 4
        out += u16(UInt16(sorted.count))
        for entry in sorted {
            out += u16(entry.tag) + u16(entry.type) + u32(entry.count)
            if entry.value.count <= 4 {
                out += entry.value + Array(repeating: 0, count: 4 - entry.value.count)
            } else {
                out += u32(UInt32(extraStart + extra.count))
                extra += entry.value
                if extra.count % 2 == 1 { extra.append(0) }
            }
        }
        out += u32(0)
        // Some "pixels", so the file is more than its header.
        return out + extra + Array(repeating: 0x80, count: 256)
    }
}
