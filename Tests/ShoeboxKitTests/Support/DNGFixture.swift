import Foundation

/// A small but real DNG that LibRaw decodes: 16-bit uncompressed Bayer (RGGB) sensor data,
/// upright the left half red and the right half blue with a green 64x64 block in the top
/// left corner, stored with `orientation`; optionally an embedded JPEG preview in IFD0
/// (the sensor data then in a SubIFD, as cameras and converters write them) and GPS.
struct DNGFixture {
    var width = 640
    var height = 480
    var orientation: UInt16 = 1
    /// A JPEG preview and its size.
    var preview: (jpeg: [UInt8], width: Int, height: Int)?
    var gps = false

    /// A JPEG preview: orange, with a purple 10% block in the top left corner.
    static func previewJPEG(width: Int, height: Int, in folder: String) throws -> (jpeg: [UInt8], width: Int, height: Int) {
        let path = folder + "/preview-\(UUID().uuidString).jpg"
        let block = "0,0 \(width / 10),\(height / 10)"
        try ImageFixtures.run(ImageFixtures.convert, ["-size", "\(width)x\(height)", "xc:orange", "-fill", "purple",
                                                      "-draw", "rectangle \(block)", "-quality", "90", path])
        defer { try? FileManager.default.removeItem(atPath: path) }
        return (Array(try Data(contentsOf: URL(fileURLWithPath: path))), width, height)
    }

    private struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: Int
        var data: [UInt8]
    }

    private static func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    private static func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16((v >> 16) & 0xFFFF) }
    private static func short(_ tag: UInt16, _ values: [Int]) -> Entry { Entry(tag: tag, type: 3, count: values.count, data: values.flatMap(u16)) }
    private static func long(_ tag: UInt16, _ values: [Int]) -> Entry { Entry(tag: tag, type: 4, count: values.count, data: values.flatMap(u32)) }
    private static func byte(_ tag: UInt16, _ values: [UInt8]) -> Entry { Entry(tag: tag, type: 1, count: values.count, data: values) }
    private static func ascii(_ tag: UInt16, _ text: String) -> Entry {
        let bytes = Array(text.utf8) + [0]
        return Entry(tag: tag, type: 2, count: bytes.count, data: bytes)
    }
    private static func rational(_ tag: UInt16, _ values: [(Int, Int)], signed: Bool = false) -> Entry {
        Entry(tag: tag, type: signed ? 10 : 5, count: values.count, data: values.flatMap { u32($0.0) + u32($0.1) })
    }

    /// An IFD written at `offset`: its entries, next-IFD 0, then the values that do not fit in an entry.
    private static func ifd(_ entries: [Entry], at offset: Int) -> [UInt8] {
        let sorted = entries.sorted { $0.tag < $1.tag }
        var out = u16(sorted.count)
        var extra: [UInt8] = []
        let extraStart = offset + 2 + sorted.count * 12 + 4
        for entry in sorted {
            out += u16(Int(entry.tag)) + u16(Int(entry.type)) + u32(entry.count)
            if entry.data.count <= 4 {
                out += entry.data + [UInt8](repeating: 0, count: 4 - entry.data.count)
            } else {
                out += u32(extraStart + extra.count)
                extra += entry.data
                if extra.count % 2 == 1 { extra.append(0) }
            }
        }
        return out + u32(0) + extra
    }

    /// The Bayer mosaic, 16 bits little-endian per photosite.
    private var sensor: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(width * height * 2)
        for y in 0..<height {
            for x in 0..<width {
                var (r, g, b) = x < width / 2 ? (60000, 4000, 4000) : (4000, 4000, 60000)
                if x < 64 && y < 64 { (r, g, b) = (4000, 60000, 4000) }
                let value = y % 2 == 0 ? (x % 2 == 0 ? r : g) : (x % 2 == 0 ? g : b)
                out += Self.u16(value)
            }
        }
        return out
    }

    private var cameraTags: [Entry] {
        [Self.ascii(0x010F, "Shoebox"), Self.ascii(0x0110, "Test Raw"), Self.short(0x0112, [Int(orientation)]),
         Self.byte(0xC612, [1, 4, 0, 0]), Self.ascii(0xC614, "Shoebox Test Raw"),
         Self.rational(0xC621, [(1, 1), (0, 1), (0, 1), (0, 1), (1, 1), (0, 1), (0, 1), (0, 1), (1, 1)], signed: true),
         Self.short(0xC65A, [21]), Self.rational(0xC628, [(1, 1), (1, 1), (1, 1)])]
    }

    private func rawTags(pixelsAt offset: Int, bytes: Int) -> [Entry] {
        [Self.long(0x00FE, [0]), Self.long(0x0100, [width]), Self.long(0x0101, [height]), Self.short(0x0102, [16]),
         Self.short(0x0103, [1]), Self.short(0x0106, [32803]), Self.long(0x0111, [offset]), Self.short(0x0115, [1]),
         Self.long(0x0116, [height]), Self.long(0x0117, [bytes]), Self.short(0x011C, [1]), Self.short(0x828D, [2, 2]),
         Self.byte(0x828E, [0, 1, 1, 2]), Self.long(0xC61D, [65535]), Self.long(0xC61A, [0])]
    }

    private static let gpsTags: [Entry] = [
        Self.byte(0x0000, [2, 3, 0, 0]), Self.ascii(0x0001, "N"), Self.rational(0x0002, [(48, 1), (51, 1), (30, 1)]),
        Self.ascii(0x0003, "E"), Self.rational(0x0004, [(2, 1), (17, 1), (40, 1)]),
    ]

    /// The file's bytes.
    var bytes: [UInt8] {
        let pixels = sensor
        // Each IFD's length does not depend on the offsets in it: lay out with zeros, then fill in.
        func layout(_ ifd0Extra: (Int, Int, Int) -> [Entry]) -> [UInt8] {
            var probe = Self.ifd(ifd0Extra(0, 0, 0), at: 8)
            var next = 8 + probe.count
            let previewAt = next
            next += preview.map { $0.jpeg.count + $0.jpeg.count % 2 } ?? 0
            let gpsAt = next
            let gpsIFD = Self.ifd(Self.gpsTags, at: gpsAt)
            next += gps ? gpsIFD.count : 0
            let rawIFDAt = next
            let rawProbe = preview == nil ? [] : Self.ifd(rawTags(pixelsAt: 0, bytes: pixels.count), at: rawIFDAt)
            let pixelsAt = rawIFDAt + rawProbe.count
            probe = Self.ifd(ifd0Extra(previewAt, gpsAt, preview == nil ? pixelsAt : rawIFDAt), at: 8)
            var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + Self.u32(8) + probe
            if let preview { out += preview.jpeg + [UInt8](repeating: 0, count: preview.jpeg.count % 2) }
            if gps { out += gpsIFD }
            if preview != nil { out += Self.ifd(rawTags(pixelsAt: pixelsAt, bytes: pixels.count), at: rawIFDAt) }
            return out + pixels
        }
        return layout { previewAt, gpsAt, rawAt in
            var entries = cameraTags
            if gps { entries.append(Self.long(0x8825, [gpsAt])) }
            if let preview {
                entries += [Self.long(0x00FE, [1]), Self.long(0x0100, [preview.width]), Self.long(0x0101, [preview.height]),
                            Self.short(0x0102, [8, 8, 8]), Self.short(0x0103, [7]), Self.short(0x0106, [6]),
                            Self.long(0x0111, [previewAt]), Self.short(0x0115, [3]), Self.long(0x0116, [preview.height]),
                            Self.long(0x0117, [preview.jpeg.count]), Self.long(0x014A, [rawAt])]
            } else {
                entries += rawTags(pixelsAt: rawAt, bytes: width * height * 2)
            }
            return entries
        }
    }
}
