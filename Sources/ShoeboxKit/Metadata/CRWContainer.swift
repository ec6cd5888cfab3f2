import Foundation

/// Canon CRW (CIFF): "II", the header's length, "HEAPCCDR", then one heap to the end of the file.
/// A heap's last 4 bytes give the offset of its directory (within the heap): a count, then
/// 10-byte entries (tag, size, offset within the heap; tags with 0x4000 keep their 8 bytes in
/// the entry; types 0x28 and 0x30 are heaps of their own). Read as exiftool's CanonRaw tables:
/// Make and Model (0x080A), DateTimeOriginal (0x180E, seconds since 1970 as written), the pixel
/// size (0x1810), and from Canon's CameraSettings (0x102D), ShotInfo (0x102A) and FocalLength
/// (0x1029) arrays the ISO, ExposureTime, FNumber and FocalLength, as for Canon's maker notes.
/// Pixels are never read.
enum CRWContainer {
    static let maximumDepth = 8, maximumEntries = 1000
    /// A value larger than this is not read (the ones used are a few dozen bytes).
    static let maximumValue = 64 * 1024

    static func isCRW(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 14 && prefix[0] == 0x49 && prefix[1] == 0x49 && Array(prefix[6..<14]) == Array("HEAPCCDR".utf8)
    }

    /// The same heaps inside a JPEG's APP0 segment ("HEAPJPGM").
    static func isCIFF(_ prefix: [UInt8]) -> Bool {
        prefix.count >= 14 && prefix[0] == 0x49 && prefix[1] == 0x49 && Array(prefix[6..<14]) == Array("HEAPJPGM".utf8)
    }

    static func read(_ source: ByteSource) throws -> ContainerContents {
        var contents = ContainerContents(format: .crw)
        guard let header = try source.exactly(at: 0, count: 14), isCRW(header) || isCIFF(header) else {
            contents.warnings.append("CRW header cut off (file truncated)")
            return contents
        }
        let headerLength = Int(le32(header, 2))
        var walk = Walk(source: source)
        if headerLength >= 14, headerLength < source.size {
            try walk.heap(headerLength..<source.size, depth: 0)
        } else {
            walk.warnings.append("CRW header length \(headerLength) points outside the file")
        }
        contents.warnings = walk.warnings
        var values = PhotoMetadata()
        if let text = walk.values[0x080A] {
            let parts = text.split(separator: 0, omittingEmptySubsequences: false)
            values.make = parts.first.map { String(decoding: $0, as: UTF8.self) }.flatMap { $0.isEmpty ? nil : $0 }
            values.model = parts.dropFirst().first.map { String(decoding: $0, as: UTF8.self) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        if let stamp = walk.words32(0x180E)?.first { values.dateTimeOriginal = Timestamp.exif(time_t(stamp)) }
        if let info = walk.words32(0x1810), info.count >= 2, info[0] > 0, info[1] > 0, info[0] < 1 << 20, info[1] < 1 << 20 {
            contents.setSize(width: Int(info[0]), height: Int(info[1]))
        }
        let settings = walk.words16(0x102D), shot = walk.words16(0x102A)
        if let iso = MakerNoteReader.canonISO(cameraSettings: settings, shotInfo: shot), iso.isFinite, iso > 0, iso < 10_000_000 {
            values.iso = Int(iso.rounded())
            if iso != iso.rounded() { values.isoAsWritten = .number(iso) }
        }
        if let shot, shot.count > 22 {
            // FNumber (21, not when 0) and ExposureTime (22; 0 is one second in a CRW) in Canon's EV steps.
            if shot[21] != 0 { values.fNumber = exp(canonEv(shot[21]) * log(2.0) / 2) }
            values.exposureTime = exp(-canonEv(shot[22]) * log(2.0))
        }
        if let focal = walk.words16(0x1029), focal.count > 1, focal[1] != 0 {
            let units = settings.flatMap { $0.count > 25 && $0[25] > 0 ? Double($0[25]) : nil } ?? 1
            values.focalLength = Double(focal[1]) / units
        }
        if values != PhotoMetadata() { contents.rawHeader = values }
        return contents
    }

    static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in (0..<4).reversed() { value = value << 8 | UInt32(bytes[at + index]) }
        return value
    }

    /// Canon's EV code: 1/32 steps, with 0x0C and 0x14 as a third and two thirds (exiftool's CanonEv).
    static func canonEv(_ raw: Int64) -> Double {
        let value = Int64(Int16(truncatingIfNeeded: raw))
        let sign: Double = value < 0 ? -1 : 1
        let magnitude = abs(value)
        var fraction = Double(magnitude & 0x1F)
        if fraction == 0x0C { fraction = 32.0 / 3 } else if fraction == 0x14 { fraction = 64.0 / 3 }
        return sign * (Double(magnitude - (magnitude & 0x1F)) + fraction) / 32
    }

    /// The heaps' values by tag (the first of each), read within checked bounds.
    private struct Walk {
        let source: ByteSource
        var values: [UInt16: [UInt8]] = [:]
        var warnings: [String] = []
        var visited: Set<Int> = []

        mutating func heap(_ block: Range<Int>, depth: Int) throws {
            guard depth <= CRWContainer.maximumDepth, block.count >= 6 else { return }
            guard let tail = try source.exactly(at: block.upperBound - 4, count: 4) else { return }
            let directory = block.lowerBound + Int(CRWContainer.le32(tail, 0))
            guard directory >= block.lowerBound, directory + 2 <= block.upperBound else {
                warnings.append("CRW directory offset \(directory) lies outside its heap")
                return
            }
            guard visited.insert(directory).inserted else {
                warnings.append("CRW directory at \(directory) is referenced twice (loop); skipped")
                return
            }
            guard let countBytes = try source.exactly(at: directory, count: 2) else { return }
            var count = Int(countBytes[0]) | Int(countBytes[1]) << 8
            if count > CRWContainer.maximumEntries {
                warnings.append("CRW directory at \(directory) declares an absurd number of entries (\(count)); skipped")
                return
            }
            count = min(count, (block.upperBound - directory - 2) / 10)
            guard let table = try source.exactly(at: directory + 2, count: count * 10) else { return }
            for index in 0..<count {
                let at = index * 10
                let tag = UInt16(table[at]) | UInt16(table[at + 1]) << 8
                guard tag & 0x8000 == 0 else {
                    warnings.append("CRW directory at \(directory) has a bad entry")
                    return
                }
                let size = Int(CRWContainer.le32(table, at + 2)), offset = Int(CRWContainer.le32(table, at + 6))
                let id = tag & 0x3FFF, type = (tag >> 8) & 0x38
                if tag & 0x4000 != 0 {
                    if values[id] == nil { values[id] = Array(table[at + 2..<at + 10]) }
                    continue
                }
                let start = block.lowerBound + offset
                guard offset >= 0, size >= 0, start <= block.upperBound, size <= block.upperBound - start else { continue }
                if type == 0x28 || type == 0x30 {
                    try heap(start..<start + size, depth: depth + 1)
                } else if values[id] == nil, [0x080A, 0x180E, 0x1810, 0x102A, 0x102D, 0x1029].contains(id),
                          size <= CRWContainer.maximumValue, let data = try source.exactly(at: start, count: size) {
                    values[id] = data
                }
            }
        }

        func words16(_ id: UInt16) -> [Int64]? {
            guard let data = values[id], data.count >= 2 else { return nil }
            return stride(from: 0, to: data.count - 1, by: 2).map { Int64(UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8) }
        }

        func words32(_ id: UInt16) -> [Int64]? {
            guard let data = values[id], data.count >= 4 else { return nil }
            return stride(from: 0, to: data.count - 3, by: 4).map { Int64(CRWContainer.le32(data, $0)) }
        }
    }
}
