/// Reads the `meta` box of an ISO base media file (HEIC, HEIF, AVIF): the EXIF
/// block is the item of type "Exif" listed in `iinf` and located by `iloc`
/// (in the file or in `idat`); the pixel size is the `ispe` property that `ipma`
/// associates with the primary item (`pitm`). Media data (`mdat`) is never read.
enum ISOMediaContainer {
    /// A meta box larger than this is not read (real ones are a few KiB).
    static let maximumMetaSize = 8 * 1024 * 1024
    static let maximumExifSize = 16 * 1024 * 1024
    static let maximumBoxes = 10_000

    struct Box {
        var type: String
        /// Offset and size of the payload (after the header) within its parent's bytes.
        var payload: Range<Int>
    }

    struct Location {
        var constructionMethod: Int
        var baseOffset: Int
        var extents: [(offset: Int, length: Int)]
    }

    static func read(_ source: ByteSource, format: ImageFormat) throws -> ContainerContents {
        var contents = ContainerContents(format: format)
        guard let meta = try topLevelBox("meta", in: source, warnings: &contents.warnings) else {
            if contents.warnings.isEmpty { contents.warnings.append("\(format.rawValue.uppercased()) has no meta box") }
            return contents
        }
        // meta is a full box: 4 bytes of version and flags before its children.
        guard meta.count >= 4 else { return contents }
        let children = boxes(in: meta, range: 4..<meta.count, warnings: &contents.warnings)
        func child(_ type: String) -> Box? { children.first { $0.type == type } }
        let primary = child("pitm").flatMap { primaryItem(meta, $0) }
        if let primary, let iprp = child("iprp"),
           let size = imageSize(meta, iprp: iprp, item: primary, warnings: &contents.warnings) {
            contents.setSize(width: size.0, height: size.1)
        }
        guard let iinf = child("iinf") else { return contents }
        let describesPrimary = child("iref").map { contentDescriptions(meta, $0, warnings: &contents.warnings) } ?? [:]
        // Several Exif (or XMP) items (one per image): take the one whose `cdsc` reference names the primary item.
        func describingPrimary(_ items: [Int]) -> Int? {
            items.first { item in primary.map { describesPrimary[item]?.contains($0) ?? false } ?? false } ?? items.first
        }
        let label = format.rawValue.uppercased()
        let items = metadataItemIDs(meta, iinf, warnings: &contents.warnings)
        if let exifItem = describingPrimary(items.exif),
           let payload = try itemPayload(source, meta: meta, children: children, item: exifItem, label: "\(label) Exif item",
                                         warnings: &contents.warnings) {
            // The Exif item starts with a 32-bit offset to the TIFF header, counted after itself.
            // An empty one is no EXIF (exiftool leaves it so when it deletes the EXIF).
            if payload.isEmpty {
            } else if payload.count < 4 {
                contents.warnings.append("Exif item is too short")
            } else if Int(bigEndian(payload, 0, 4)) > payload.count - 4 {
                contents.warnings.append("Exif item's TIFF header offset \(bigEndian(payload, 0, 4)) points past its end")
            } else {
                contents.setExif(Array(payload[(4 + Int(bigEndian(payload, 0, 4)))...]), from: "\(label) Exif item")
            }
        }
        if let xmpItem = describingPrimary(items.xmp),
           let payload = try itemPayload(source, meta: meta, children: children, item: xmpItem, label: "\(label) XMP item",
                                         warnings: &contents.warnings) {
            contents.setXMP(payload, from: "\(label) XMP item")
        }
        return contents
    }

    /// The bytes of `item`, located by `iloc` (in the file or in `idat`); nil with a warning when they cannot be had.
    private static func itemPayload(_ source: ByteSource, meta: [UInt8], children: [Box], item: Int, label: String,
                                    warnings: inout [String]) throws -> [UInt8]? {
        guard let iloc = children.first(where: { $0.type == "iloc" }),
              let location = locate(meta, iloc, item: item, warnings: &warnings) else {
            warnings.append("\(label) \(item) has no location in iloc")
            return nil
        }
        return try itemData(source, meta: meta, idat: children.first { $0.type == "idat" }, location: location, label: label,
                            warnings: &warnings)
    }

    /// The payload of the first top-level box of `wanted` type, reading only box headers on the way.
    static func topLevelBox(_ wanted: String, in source: ByteSource, warnings: inout [String]) throws -> [UInt8]? {
        var offset = 0
        for _ in 0..<maximumBoxes {
            guard let header = try source.exactly(at: offset, count: 8) else { return nil }
            var size = Int(bigEndian(header, 0, 4))
            let type = String(decoding: header[4..<8], as: UTF8.self)
            var headerLength = 8
            if size == 1 {
                guard let large = try source.exactly(at: offset + 8, count: 8) else { return nil }
                let value = bigEndian(large, 0, 8)
                guard value <= UInt64(Int.max) else { return nil }
                size = Int(value)
                headerLength = 16
            } else if size == 0 {
                size = source.size - offset
            }
            guard size >= headerLength else {
                warnings.append("ISO box \(type) at byte \(offset) has an impossible size \(size)")
                return nil
            }
            if type == wanted {
                guard size <= maximumMetaSize else {
                    warnings.append("\(type) box of \(size) bytes is too large to read")
                    return nil
                }
                let payload = try source.bytes(at: offset + headerLength, count: size - headerLength)
                if payload.count < size - headerLength { warnings.append("\(type) box is cut off (file truncated)") }
                return payload
            }
            guard size <= source.size - offset else { return nil }
            offset += size
        }
        if offset + 8 <= source.size {
            warnings.append("more than \(maximumBoxes) top-level boxes: those after byte \(offset) were not read (\(wanted) not found)")
        }
        return nil
    }

    /// The child boxes in `range` of `data`.
    static func boxes(in data: [UInt8], range: Range<Int>, warnings: inout [String]) -> [Box] {
        var result: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, result.count < maximumBoxes {
            var size = Int(bigEndian(data, offset, 4))
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            var headerLength = 8
            if size == 1 {
                guard offset + 16 <= range.upperBound else { break }
                let value = bigEndian(data, offset + 8, 8)
                size = value > UInt64(range.upperBound - offset) ? -1 : Int(value)
                headerLength = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= headerLength, size <= range.upperBound - offset else {
                warnings.append("ISO box \(type) has an impossible size; the rest of its parent is skipped")
                break
            }
            result.append(Box(type: type, payload: offset + headerLength..<offset + size))
            offset += size
        }
        if result.count == maximumBoxes && offset + 8 <= range.upperBound {
            warnings.append("more than \(maximumBoxes) boxes in one ISO box: the rest were not read")
        }
        return result
    }

    private static func primaryItem(_ meta: [UInt8], _ pitm: Box) -> Int? {
        let p = pitm.payload
        guard p.count >= 6 else { return nil }
        let version = meta[p.lowerBound]
        if version == 0 { return Int(bigEndian(meta, p.lowerBound + 4, 2)) }
        guard p.count >= 8 else { return nil }
        return Int(bigEndian(meta, p.lowerBound + 4, 4))
    }

    /// The IDs of the `infe` entries of type "Exif", and of type "mime" with the content type
    /// "application/rdf+xml" (an XMP packet), in order.
    private static func metadataItemIDs(_ meta: [UInt8], _ iinf: Box, warnings: inout [String]) -> (exif: [Int], xmp: [Int]) {
        let p = iinf.payload
        guard p.count >= 6 else { return ([], []) }
        let version = meta[p.lowerBound]
        let entriesStart = p.lowerBound + 4 + (version == 0 ? 2 : 4)
        guard entriesStart <= p.upperBound else { return ([], []) }
        var exif: [Int] = [], xmp: [Int] = []
        for infe in boxes(in: meta, range: entriesStart..<p.upperBound, warnings: &warnings) where infe.type == "infe" {
            let q = infe.payload
            guard q.count >= 4 else { continue }
            let infeVersion = meta[q.lowerBound]
            guard infeVersion >= 2 else { continue }
            let idLength = infeVersion == 2 ? 2 : 4
            let typeOffset = q.lowerBound + 4 + idLength + 2
            guard typeOffset + 4 <= q.upperBound else { continue }
            let id = Int(bigEndian(meta, q.lowerBound + 4, idLength))
            switch String(decoding: meta[typeOffset..<typeOffset + 4], as: UTF8.self) {
            case "Exif":
                exif.append(id)
            case "mime":
                // item_name, then content_type: NUL-terminated strings.
                var at = typeOffset + 4
                while at < q.upperBound && meta[at] != 0 { at += 1 }
                at += 1
                guard at < q.upperBound else { continue }
                var end = at
                while end < q.upperBound && meta[end] != 0 { end += 1 }
                if String(decoding: meta[at..<end], as: UTF8.self) == "application/rdf+xml" { xmp.append(id) }
            default:
                continue
            }
        }
        return (exif, xmp)
    }

    /// The `cdsc` ("content describes") references of `iref`: item ID -> the items it describes.
    private static func contentDescriptions(_ meta: [UInt8], _ iref: Box, warnings: inout [String]) -> [Int: [Int]] {
        let p = iref.payload
        guard p.count >= 4 else { return [:] }
        let idLength = meta[p.lowerBound] == 0 ? 2 : 4
        var references: [Int: [Int]] = [:]
        for reference in boxes(in: meta, range: p.lowerBound + 4..<p.upperBound, warnings: &warnings) where reference.type == "cdsc" {
            var reader = FieldReader(data: meta, range: reference.payload)
            guard let from = reader.read(idLength), let count = reader.read(2) else { continue }
            for _ in 0..<count {
                guard let to = reader.read(idLength) else { break }
                references[Int(from), default: []].append(Int(to))
            }
        }
        return references
    }

    /// The iloc entry of `item`.
    private static func locate(_ meta: [UInt8], _ iloc: Box, item: Int, warnings: inout [String]) -> Location? {
        var found: Location?
        _ = readLocations(meta, iloc, warnings: &warnings) { id, location in
            if id == item && location.baseOffset >= 0 { found = location }
            return id != item
        }
        return found
    }

    /// Where the last item kept in the file itself (not in `idat`) ends, from the
    /// payload of a `meta` box; nil when its iloc cannot be read or an item runs to
    /// the end of the file. A file shorter than this was cut.
    static func endOfFileItems(meta: [UInt8]) -> Int? {
        guard meta.count >= 4 else { return nil }
        var warnings: [String] = []
        guard let iloc = boxes(in: meta, range: 4..<meta.count, warnings: &warnings).first(where: { $0.type == "iloc" }) else {
            return nil
        }
        var end = 0
        var readable = true
        let complete = readLocations(meta, iloc, warnings: &warnings) { _, location in
            guard location.constructionMethod == 0 else { return true }
            guard location.baseOffset >= 0 else { readable = false; return false }
            for extent in location.extents {
                guard extent.length > 0 else { readable = false; return false }  // "to the end of the file"
                let (start, pastStart) = location.baseOffset.addingReportingOverflow(extent.offset)
                let (stop, pastStop) = start.addingReportingOverflow(extent.length)
                end = max(end, pastStart || pastStop ? Int.max : stop)
            }
            return true
        }
        return complete && readable ? end : nil
    }

    /// Reads iloc entries in order, handing each to `visit` until it returns false;
    /// false when the box cannot be read to its last entry.
    private static func readLocations(
        _ meta: [UInt8], _ iloc: Box, warnings: inout [String], visit: (Int, Location) -> Bool
    ) -> Bool {
        var reader = FieldReader(data: meta, range: iloc.payload)
        guard let version = reader.read(1), reader.skip(3),
              let sizes = reader.read(1), let sizes2 = reader.read(1) else { return false }
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0xF), baseOffsetSize = Int(sizes2 >> 4)
        let indexSize = version == 1 || version == 2 ? Int(sizes2 & 0xF) : 0
        guard [0, 4, 8].contains(offsetSize), [0, 4, 8].contains(lengthSize), [0, 4, 8].contains(baseOffsetSize),
              [0, 4, 8].contains(indexSize), version <= 2 else {
            warnings.append("iloc box has unsupported field sizes")
            return false
        }
        guard let count = reader.read(version < 2 ? 2 : 4) else { return false }
        for _ in 0..<count {
            guard let id = reader.read(version < 2 ? 2 : 4) else { return false }
            var method: UInt64 = 0
            if version == 1 || version == 2 {
                guard let value = reader.read(2) else { return false }
                method = value & 0xF
            }
            guard reader.skip(2), let base = reader.read(baseOffsetSize), let declaredExtents = reader.read(2) else { return false }
            var extents: [(Int, Int)] = []
            // Zero-width fields make every extent (0, 0) and consume nothing: one stands for all.
            let extentCount = indexSize + offsetSize + lengthSize == 0 ? min(declaredExtents, 1) : declaredExtents
            for _ in 0..<extentCount {
                guard reader.skip(indexSize), let offset = reader.read(offsetSize), let length = reader.read(lengthSize),
                      offset <= UInt64(Int.max / 2), length <= UInt64(Int.max / 2) else { return false }
                extents.append((Int(offset), Int(length)))
            }
            // A base offset past any file is -1: unusable, and no reason to stop reading.
            let baseOffset = base <= UInt64(Int.max / 2) ? Int(base) : -1
            if !visit(Int(id), Location(constructionMethod: Int(method), baseOffset: baseOffset, extents: extents)) { return true }
        }
        return true
    }

    /// The bytes of an item: its extents concatenated, from the file (method 0) or from idat (method 1).
    private static func itemData(
        _ source: ByteSource, meta: [UInt8], idat: Box?, location: Location, label: String, warnings: inout [String]
    ) throws -> [UInt8]? {
        var data: [UInt8] = []
        for extent in location.extents {
            let start = location.baseOffset + extent.offset
            switch location.constructionMethod {
            case 0:
                let length = extent.length == 0 ? source.size - start : extent.length
                guard start >= 0, length >= 0, data.count + length <= maximumExifSize,
                      let bytes = try source.exactly(at: start, count: length) else {
                    warnings.append("\(label) extent (\(extent.length) bytes at \(start)) lies outside the file")
                    return nil
                }
                data += bytes
            case 1:
                guard let idat else {
                    warnings.append("\(label) is stored in idat, but there is no idat box")
                    return nil
                }
                let length = extent.length == 0 ? idat.payload.count - start : extent.length
                guard start >= 0, length >= 0, start <= idat.payload.count, length <= idat.payload.count - start else {
                    warnings.append("\(label) extent lies outside the idat box")
                    return nil
                }
                let absolute = idat.payload.lowerBound + start
                data += meta[absolute..<absolute + length]
            default:
                warnings.append("\(label) uses unsupported construction method \(location.constructionMethod)")
                return nil
            }
        }
        return data
    }

    /// Width and height of the `ispe` property associated with `item`.
    private static func imageSize(_ meta: [UInt8], iprp: Box, item: Int, warnings: inout [String]) -> (Int, Int)? {
        let children = boxes(in: meta, range: iprp.payload, warnings: &warnings)
        guard let ipco = children.first(where: { $0.type == "ipco" }) else { return nil }
        let properties = boxes(in: meta, range: ipco.payload, warnings: &warnings)
        for ipma in children where ipma.type == "ipma" {
            var reader = FieldReader(data: meta, range: ipma.payload)
            guard let version = reader.read(1), let flags = reader.read(3), let count = reader.read(4) else { continue }
            for _ in 0..<min(count, 100_000) {
                guard let id = reader.read(version < 1 ? 2 : 4), let associations = reader.read(1) else { break }
                var indexes: [Int] = []
                for _ in 0..<associations {
                    guard let value = reader.read(flags & 1 == 1 ? 2 : 1) else { break }
                    indexes.append(Int(value & (flags & 1 == 1 ? 0x7FFF : 0x7F)))
                }
                guard Int(id) == item else { continue }
                for index in indexes where index >= 1 && index <= properties.count {
                    let property = properties[index - 1]
                    guard property.type == "ispe", property.payload.count >= 12 else { continue }
                    let width = Int(bigEndian(meta, property.payload.lowerBound + 4, 4))
                    let height = Int(bigEndian(meta, property.payload.lowerBound + 8, 4))
                    return (width, height)
                }
            }
        }
        return nil
    }

    static func bigEndian(_ b: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<width { value = value << 8 | UInt64(b[offset + i]) }
        return value
    }

    /// Reads big-endian fields of 0...8 bytes from a range, refusing to read past its end.
    struct FieldReader {
        let data: [UInt8]
        let range: Range<Int>
        var position: Int

        init(data: [UInt8], range: Range<Int>) {
            self.data = data
            self.range = range
            position = range.lowerBound
        }

        mutating func read(_ width: Int) -> UInt64? {
            guard width >= 0, width <= 8, position + width <= range.upperBound else { return nil }
            defer { position += width }
            return ISOMediaContainer.bigEndian(data, position, width)
        }

        mutating func skip(_ width: Int) -> Bool {
            guard width >= 0, position + width <= range.upperBound else { return false }
            position += width
            return true
        }
    }
}
