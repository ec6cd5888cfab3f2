/// Reads the IFDs of a TIFF structure (a TIFF or TIFF-based raw file, or an
/// EXIF block too large for libexif) straight from its source, checking every
/// offset, and writes them again as one compact TIFF block that libexif can
/// parse: IFD0, ExifIFD, GPS, Interop and IFD1 with their values, nothing else.
/// Image data, strips and thumbnails are never read.
enum TIFFStructure {
    struct Repacked {
        var tiff: [UInt8]?
        var warnings: [String] = []
        /// Pixel size of the largest full-resolution image among IFD0 and its SubIFDs.
        var mainImageSize: (width: Int, height: Int)?
        /// IFD0 has a DNGVersion tag.
        var isDNG = false
        /// Tags left out of the compact block (offsets into the original, maker notes), for `inspect --all`.
        var omitted: [Omitted] = []
        /// Where the ExifIFD's MakerNote value lies in the source (it is not copied into the block).
        var makerNote: Range<Int>?
        /// Where IFD0's XMP packet (tag 700, XMLPacket) lies in the source.
        var xmp: Range<Int>?
    }

    /// A tag present in the source but not copied into the compact block.
    struct Omitted {
        var group: String
        var tag: UInt16
        var count: Int
        /// The value when it is small numbers (offsets, lengths); nil for maker notes and long tables.
        var value: ExifValue?
        var byteCount: Int
    }

    /// The IFDs of the compact block, in its order.
    static let groupNames = ["IFD0", "ExifIFD", "GPS", "Interop", "IFD1"]
    /// The IFD names reported by `inspect --all`; SubIFDs are read for the pixel size only.
    static let reportedGroups = Set(groupNames)

    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// The value's bytes, in the source's byte order (empty while `pending`).
        var data: [UInt8]
        /// Where an out-of-line value lies, until the budget lets it in (`loadValues`).
        var pending: PendingValue?
    }

    struct PendingValue {
        let source: ByteSource
        let offset: Int
        let length: Int
    }

    /// Largest IFD we accept; real ones have a few dozen entries.
    static let maximumEntries = 1000
    /// Values larger than this (maker notes, strip tables) are left out of the compact block.
    static let maximumValueSize = 24 * 1024
    static let exifPointer: UInt16 = 0x8769, gpsPointer: UInt16 = 0x8825, interopPointer: UInt16 = 0xA005
    static let makerNoteTag: UInt16 = 0x927C
    static let xmpTag: UInt16 = 0x02BC
    static let subIFDs: UInt16 = 0x014A
    /// Tags whose values are offsets into the original file: meaningless once repacked.
    static let droppedTags: Set<UInt16> = [0x0111, 0x0117, 0x0144, 0x0145, 0x0201, 0x0202, 0x014A, 0x927C]

    static func isTIFFHeader(_ b: [UInt8]) -> Bool {
        b.count >= 4 && (b[0...3] == [0x49, 0x49, 0x2A, 0x00] || b[0...3] == [0x4D, 0x4D, 0x00, 0x2A])
    }

    /// One compact block from Canon CR3's separate IFD0 (CMT1), ExifIFD (CMT2) and GPS (CMT4) TIFFs.
    static func combine(ifd0: ByteSource, exif: ByteSource?, gps: ByteSource?) -> Repacked {
        var reader = Reader(source: ifd0)
        var result = Repacked()
        do {
            try reader.combine(exifSource: exif, gpsSource: gps, &result)
        } catch {
            result.warnings.append("TIFF structure: \(error)")
        }
        result.warnings += reader.warnings
        result.omitted = reader.omitted
        return result
    }

    static func repack(_ source: ByteSource) -> Repacked {
        var reader = Reader(source: source)
        var result = Repacked()
        do {
            try reader.run(&result)
        } catch {
            result.warnings.append("TIFF structure: \(error)")
        }
        result.warnings += reader.warnings
        result.omitted = reader.omitted
        result.makerNote = reader.makerNote
        result.xmp = reader.xmp
        return result
    }

    /// Walks one source. Not shared between threads.
    struct Reader {
        let source: ByteSource
        var bigEndian = false
        var visited: Set<Int> = []
        var warnings: [String] = []
        var omitted: [Omitted] = []
        /// The ExifIFD's MakerNote value, once read past.
        var makerNote: Range<Int>?
        /// IFD0's XMP packet, once read past.
        var xmp: Range<Int>?

        init(source: ByteSource) {
            self.source = source
        }

        mutating func run(_ result: inout Repacked) throws {
            guard let (ifd0, next) = try readFirstIFD(name: "IFD0") else { return }
            result.isDNG = ifd0.contains { $0.tag == 0xC612 }
            result.mainImageSize = try mainImageSize(ifd0: ifd0)
            let exif = try child(of: ifd0, pointer: TIFFStructure.exifPointer, name: "ExifIFD")
            let gps = try child(of: ifd0, pointer: TIFFStructure.gpsPointer, name: "GPS")
            let interop = try exif.flatMap { try child(of: $0, pointer: TIFFStructure.interopPointer, name: "Interop") }
            var ifd1: [Entry]?
            if next != 0 { ifd1 = try readIFD(at: next, name: "IFD1")?.0 }
            result.tiff = writeWithinBudget([ifd0, exif, gps, interop, ifd1])
        }

        /// Reads the header (setting the byte order) and the first IFD, reported as `name`.
        mutating func readFirstIFD(name: String) throws -> ([Entry], Int)? {
            guard let header = try source.exactly(at: 0, count: 8) else {
                warnings.append("TIFF header cut off (file truncated)")
                return nil
            }
            switch (header[0], header[1]) {
            case (0x49, 0x49): bigEndian = false
            case (0x4D, 0x4D): bigEndian = true
            default:
                warnings.append("not a TIFF structure (byte order mark missing)")
                return nil
            }
            let magic = uint(header, 2, 2)
            // 42: TIFF; 0x4F52/0x5352: Olympus ORF; 0x55: Panasonic RW2.
            guard [42, 0x4F52, 0x5352, 0x55].contains(magic) else {
                warnings.append("not a TIFF structure (magic number \(magic))")
                return nil
            }
            return try readIFD(at: Int(uint(header, 4, 4)), name: name)
        }

        /// Canon CR3 keeps IFD0, ExifIFD and GPS as three separate TIFFs (CMT1, CMT2, CMT4): this reader
        /// holds CMT1; the others are read with their own readers and written into one compact block.
        mutating func combine(exifSource: ByteSource?, gpsSource: ByteSource?, _ result: inout Repacked) throws {
            guard let (ifd0, _) = try readFirstIFD(name: "IFD0") else { return }
            result.mainImageSize = try mainImageSize(ifd0: ifd0)
            func first(_ source: ByteSource?, name: String, then: ((inout Reader, [Entry]) throws -> [Entry]?)? = nil)
                throws -> ([Entry]?, [Entry]?) {
                guard let source else { return (nil, nil) }
                var reader = Reader(source: source)
                defer { warnings += reader.warnings }
                guard let (entries, _) = try reader.readFirstIFD(name: name) else { return (nil, nil) }
                guard reader.bigEndian == bigEndian else {
                    reader.warnings.append("\(name) uses another byte order than IFD0; skipped")
                    return (nil, nil)
                }
                return (entries, try then?(&reader, entries))
            }
            let (exif, interop) = try first(exifSource, name: "ExifIFD") { reader, entries in
                try reader.child(of: entries, pointer: TIFFStructure.interopPointer, name: "Interop")
            }
            let (gps, _) = try first(gpsSource, name: "GPS")
            result.tiff = writeWithinBudget([ifd0, exif, gps, interop, nil])
        }

        mutating func child(of parent: [Entry], pointer: UInt16, name: String) throws -> [Entry]? {
            guard let entry = parent.first(where: { $0.tag == pointer }) else { return nil }
            guard entry.data.count >= 4 else {
                warnings.append("\(name) pointer is malformed")
                return nil
            }
            return try readIFD(at: Int(uint(entry.data, 0, 4)), name: name)?.0
        }

        /// The entries of the IFD at `offset` and the offset of the next IFD (0 for none).
        mutating func readIFD(at offset: Int, name: String) throws -> ([Entry], Int)? {
            guard offset >= 8, offset < source.size else {
                warnings.append("\(name) offset \(offset) points outside the data (\(source.size) bytes)")
                return nil
            }
            guard visited.insert(offset).inserted else {
                warnings.append("\(name) offset \(offset) points back into an IFD already read (loop); skipped")
                return nil
            }
            guard let countBytes = try source.exactly(at: offset, count: 2) else { return nil }
            var count = Int(uint(countBytes, 0, 2))
            if count == 0 { return ([], 0) }  // an empty IFD is legal
            if count > TIFFStructure.maximumEntries {
                warnings.append("\(name) declares an absurd number of entries (\(count)); skipped")
                return nil
            }
            let available = (source.size - offset - 2) / 12
            if count > available {
                warnings.append("\(name) declares \(count) entries but only \(available) fit in the data (truncated)")
                count = available
            }
            let table = try source.bytes(at: offset + 2, count: count * 12 + 4)
            var entries: [Entry] = []
            for index in 0..<count {
                let base = index * 12
                let tag = UInt16(uint(table, base, 2))
                var type = UInt16(uint(table, base + 2, 2))
                if type == 13 { type = 4 }  // TIFF "IFD" type: an offset, stored like LONG
                let components = UInt32(uint(table, base + 4, 4))
                guard let size = ExifValue.componentSize(format: UInt32(type)) else {
                    warnings.append("\(name) tag 0x\(String(tag, radix: 16)) has an unknown value type \(type); skipped")
                    continue
                }
                let length = Int(components) * size
                // Where an out-of-line value lies in the source, when it lies inside it.
                func place() -> Range<Int>? {
                    let valueOffset = Int(uint(table, base + 8, 4))
                    return valueOffset <= source.size && length <= source.size - valueOffset ? valueOffset..<(valueOffset + length) : nil
                }
                if tag == TIFFStructure.makerNoteTag, name == "ExifIFD", length > 4, let range = place() { makerNote = range }
                if tag == TIFFStructure.xmpTag, name == "IFD0", length > 4, xmp == nil { xmp = place() }
                if TIFFStructure.droppedTags.contains(tag), TIFFStructure.reportedGroups.contains(name) {
                    let inline = length <= 4 ? Array(table[base + 8..<base + 8 + length]) : nil
                    omitted.append(Omitted(
                        group: name, tag: tag, count: Int(components),
                        value: inline.flatMap { ExifValue(format: UInt32(type), count: Int(components), raw: $0, bigEndian: bigEndian) },
                        byteCount: length))
                }
                if length <= 4 {
                    entries.append(Entry(tag: tag, type: type, count: components, data: Array(table[base + 8..<base + 8 + length])))
                    continue
                }
                if TIFFStructure.droppedTags.contains(tag) && tag != TIFFStructure.subIFDs { continue }
                let valueOffset = Int(uint(table, base + 8, 4))
                guard valueOffset <= source.size, length <= source.size - valueOffset else {
                    warnings.append("\(name) tag 0x\(String(tag, radix: 16)) points outside the data (\(length) bytes at \(valueOffset)); skipped")
                    continue
                }
                if length > TIFFStructure.maximumValueSize {
                    // Listed by inspect --all as not decoded (dropped tags are listed above).
                    if !TIFFStructure.droppedTags.contains(tag), TIFFStructure.reportedGroups.contains(name) {
                        omitted.append(Omitted(group: name, tag: tag, count: Int(components), value: nil, byteCount: length))
                    }
                    continue
                }
                if tag == TIFFStructure.subIFDs {
                    // Read now, for the pixel size; never written into the compact block.
                    guard let data = try source.exactly(at: valueOffset, count: length) else { continue }
                    entries.append(Entry(tag: tag, type: type, count: components, data: data))
                    continue
                }
                let value = PendingValue(source: source, offset: valueOffset, length: length)
                entries.append(Entry(tag: tag, type: type, count: components, data: [], pending: value))
            }
            let next = table.count >= count * 12 + 4 ? Int(uint(table, count * 12, 4)) : 0
            return (entries, next)
        }

        /// The largest image not marked as reduced-resolution (NewSubfileType bit 0)
        /// among IFD0 and the SubIFDs it lists.
        private mutating func mainImageSize(ifd0: [Entry]) throws -> (width: Int, height: Int)? {
            var candidates = [ifd0]
            if let sub = ifd0.first(where: { $0.tag == TIFFStructure.subIFDs }) {
                let pointers = ExifValue(format: UInt32(sub.type), count: Int(sub.count), raw: sub.data, bigEndian: bigEndian)
                if case .integers(let offsets)? = pointers {
                    for offset in offsets.prefix(8) {
                        if let (entries, _) = try readIFD(at: Int(offset), name: "SubIFD") { candidates.append(entries) }
                    }
                }
            }
            var best: (width: Int, height: Int)?
            for entries in candidates {
                func number(_ tag: UInt16) -> Int? {
                    guard let entry = entries.first(where: { $0.tag == tag }),
                          let value = ExifValue(format: UInt32(entry.type), count: Int(entry.count), raw: entry.data, bigEndian: bigEndian),
                          case .integers(let values) = value, let first = values.first else { return nil }
                    return Int(first)
                }
                if let subfile = number(0x00FE), subfile & 1 == 1 { continue }
                guard let width = number(0x0100), let height = number(0x0101), width > 0, height > 0 else { continue }
                if best == nil || width * height > best!.width * best!.height { best = (width, height) }
            }
            return best
        }

        // MARK: Writing the compact block

        /// The compact block of IFD0, ExifIFD, GPS, Interop and IFD1 (in that order; nil
        /// for those absent), with the out-of-line values that fit libexif's 64 KiB.
        private mutating func writeWithinBudget(_ groups: [[Entry]?]) -> [UInt8] {
            var groups = groups.map { $0.map(TIFFStructure.clean) }
            // A hostile file's tables alone can fill the block: the thumbnail's IFD1, then Interop, go.
            for group in [4, 3] where groups[group] != nil && valueBudget(groups) < 0 {
                warnings.append("\(TIFFStructure.groupNames[group]) left out: the EXIF tables alone exceed 64 KiB")
                groups[group] = nil
            }
            loadValues(&groups, budget: valueBudget(groups))
            return write(ifd0: groups[0] ?? [], exif: groups[1], gps: groups[2], interop: groups[3], ifd1: groups[4])
        }

        /// Bytes left for out-of-line values once the Exif and TIFF headers and every IFD's
        /// table (with the pointers `write` adds) are counted.
        private func valueBudget(_ groups: [[Entry]?]) -> Int {
            let pointers = [(groups[1] != nil ? 1 : 0) + (groups[2] != nil ? 1 : 0), groups[3] != nil ? 1 : 0, 0, 0, 0]
            let tables = groups.enumerated().reduce(0) { total, group in
                total + (group.element.map { 2 + ($0.count + pointers[group.offset]) * 12 + 4 } ?? 0)
            }
            return ExifBlockReader.maximumBlockSize - ExifBlockReader.exifHeader.count - 8 - tables
        }

        /// Reads the out-of-line values that fit `budget`, smallest first: the capture time,
        /// GPS position or lens name (a few dozen bytes) must not be crowded out by a long
        /// description or copyright text that comes before them. Only chosen values are read.
        private mutating func loadValues(_ groups: inout [[Entry]?], budget: Int) {
            var candidates: [(group: Int, index: Int, size: Int)] = []
            for (group, entries) in groups.enumerated() {
                for (index, entry) in (entries ?? []).enumerated() {
                    if let pending = entry.pending { candidates.append((group, index, (pending.length + 1) & ~1)) }
                }
            }
            var left = budget
            var unread: [Int: Set<Int>] = [:]
            var leftOut = (count: 0, bytes: 0)
            for candidate in candidates.sorted(by: { ($0.size, $0.group, $0.index) < ($1.size, $1.group, $1.index) }) {
                var entry = groups[candidate.group]![candidate.index]
                let pending = entry.pending!
                if candidate.size <= left, let data = try? pending.source.exactly(at: pending.offset, count: pending.length) {
                    left -= candidate.size
                    entry.data = data
                    entry.pending = nil
                    groups[candidate.group]![candidate.index] = entry
                    continue
                }
                unread[candidate.group, default: []].insert(candidate.index)
                guard candidate.size > left else { continue }  // unreadable (truncated): nothing to report
                leftOut = (leftOut.count + 1, leftOut.bytes + pending.length)
                omitted.append(Omitted(group: TIFFStructure.groupNames[candidate.group], tag: entry.tag, count: Int(entry.count),
                                       value: nil, byteCount: pending.length))
            }
            if leftOut.count > 0 {
                let values = leftOut.count == 1 ? "1 value" : "\(leftOut.count) values"
                warnings.append("\(values) (\(leftOut.bytes) bytes) left out, the largest first: an EXIF block holds 64 KiB at most")
            }
            for (group, indices) in unread {
                groups[group] = groups[group]!.enumerated().filter { !indices.contains($0.offset) }.map(\.element)
            }
        }

        /// Entries already `clean`ed.
        private func write(ifd0: [Entry], exif: [Entry]?, gps: [Entry]?, interop: [Entry]?, ifd1: [Entry]?) -> [UInt8] {
            var ifd0Entries = ifd0
            var exifEntries = exif
            let gpsEntries = gps, interopEntries = interop, ifd1Entries = ifd1
            // Placeholders for the pointers; their values are filled in once the layout is known.
            if exifEntries != nil { ifd0Entries.append(pointerEntry(TIFFStructure.exifPointer)) }
            if gpsEntries != nil { ifd0Entries.append(pointerEntry(TIFFStructure.gpsPointer)) }
            if interopEntries != nil { exifEntries?.append(pointerEntry(TIFFStructure.interopPointer)) }
            let order: [[Entry]?] = [ifd0Entries, exifEntries, gpsEntries, interopEntries, ifd1Entries]
            var offsets: [Int?] = []
            var position = 8
            for ifd in order {
                guard let ifd else { offsets.append(nil); continue }
                offsets.append(position)
                position += TIFFStructure.encodedSize(ifd)
            }
            func patch(_ entries: inout [Entry], _ tag: UInt16, _ target: Int?) {
                guard let target, let index = entries.firstIndex(where: { $0.tag == tag }) else { return }
                entries[index].data = bytes(UInt64(target), 4)
            }
            patch(&ifd0Entries, TIFFStructure.exifPointer, offsets[1])
            patch(&ifd0Entries, TIFFStructure.gpsPointer, offsets[2])
            if exifEntries != nil { patch(&exifEntries!, TIFFStructure.interopPointer, offsets[3]) }
            var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
            out.reserveCapacity(position)
            append(8, 4, to: &out)
            let final: [[Entry]?] = [ifd0Entries, exifEntries, gpsEntries, interopEntries, ifd1Entries]
            for (index, ifd) in final.enumerated() {
                guard let ifd, let start = offsets[index] else { continue }
                let next = index == 0 ? (offsets[4] ?? 0) : 0
                encode(ifd, at: start, next: next, to: &out)
            }
            return out
        }

        private func pointerEntry(_ tag: UInt16) -> Entry {
            Entry(tag: tag, type: 4, count: 1, data: [0, 0, 0, 0])
        }

        /// Appends one IFD (entry table, next-IFD offset, then its out-of-line values) starting at offset `start`.
        private func encode(_ entries: [Entry], at start: Int, next: Int, to out: inout [UInt8]) {
            append(UInt64(entries.count), 2, to: &out)
            var valueOffset = start + 2 + entries.count * 12 + 4
            for entry in entries {
                append(UInt64(entry.tag), 2, to: &out)
                append(UInt64(entry.type), 2, to: &out)
                append(UInt64(entry.count), 4, to: &out)
                if entry.data.count <= 4 {
                    out.append(contentsOf: entry.data)
                    for _ in entry.data.count..<4 { out.append(0) }
                } else {
                    append(UInt64(valueOffset), 4, to: &out)
                    valueOffset += (entry.data.count + 1) & ~1
                }
            }
            append(UInt64(next), 4, to: &out)
            for entry in entries where entry.data.count > 4 {
                out.append(contentsOf: entry.data)
                if entry.data.count % 2 == 1 { out.append(0) }
            }
        }

        private func bytes(_ value: UInt64, _ width: Int) -> [UInt8] {
            var out: [UInt8] = []
            append(value, width, to: &out)
            return out
        }

        private func append(_ value: UInt64, _ width: Int, to out: inout [UInt8]) {
            for i in 0..<width {
                out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(bigEndian ? width - 1 - i : i))))
            }
        }

        func uint(_ b: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
            var value: UInt64 = 0
            for i in 0..<width {
                value = value << 8 | UInt64(b[offset + (bigEndian ? i : width - 1 - i)])
            }
            return value
        }
    }

    /// Without the pointers to other IFDs (rewritten by `write`) and the tags it drops.
    static func clean(_ entries: [Entry]) -> [Entry] {
        entries.filter { ![exifPointer, gpsPointer, interopPointer].contains($0.tag) && !droppedTags.contains($0.tag) }
    }

    static func encodedSize(_ entries: [Entry]) -> Int {
        2 + entries.count * 12 + 4 + entries.reduce(0) { $0 + ($1.data.count > 4 ? ($1.data.count + 1) & ~1 : 0) }
    }
}
