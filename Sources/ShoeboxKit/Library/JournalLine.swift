/// One journal entry as its line of JSON, written directly: the same bytes Foundation's
/// JSONEncoder gives with sorted keys and unescaped slashes (`JournalLineTests` compares
/// them), at a fraction of the cost: JSONEncoder's boxing and key sorting were some 3% of
/// fetch's CPU on small photos, for two or three entries a file.
///
/// Keys go out in sorted order as written here; absent optional fields are left out. A
/// number that is not finite (which JSONEncoder refuses, failing the whole batch) is left
/// out as well: the entry reads back without it.
enum JournalLine {
    static func encode(_ entry: JournalEntry) -> [UInt8] {
        var out = JSONObjectBytes()
        out.text("kind", entry.kind.rawValue)
        if let original = entry.original { out.object("original") { encode(original, &$0) } }
        out.text("path", entry.path)
        if let source = entry.source { out.object("source") { encode(source, &$0) } }
        if let thumbnail = entry.thumbnail { out.object("thumbnail") { encode(thumbnail, &$0) } }
        return out.finished()
    }

    private static func encode(_ record: OriginalRecord, _ out: inout JSONObjectBytes) {
        out.text("addedAt", record.addedAt)
        out.integer("bytes", record.bytes)
        out.text("contentType", record.contentType)
        out.text("datedBy", record.datedBy?.rawValue)
        out.text("exposure", record.exposure)
        out.number("gpsAltitude", record.gpsAltitude)
        out.number("gpsLatitude", record.gpsLatitude)
        out.number("gpsLongitude", record.gpsLongitude)
        out.integer("height", record.height)
        out.text("lens", record.lens)
        out.text("make", record.make)
        out.text("model", record.model)
        out.integer("orientation", record.orientation)
        out.text("path", record.path)
        out.text("sha256", record.sha256)
        out.text("takenAt", record.takenAt)
        out.integer("width", record.width)
    }

    private static func encode(_ record: SourceRecord, _ out: inout JSONObjectBytes) {
        out.text("etag", record.etag)
        out.text("fetchedAt", record.fetchedAt)
        out.text("finalURL", record.finalURL)
        out.integer("httpStatus", record.httpStatus)
        out.text("lastModified", record.lastModified)
        out.text("outcome", record.outcome.rawValue)
        out.text("reason", record.reason)
        out.text("sha256", record.sha256)
        out.text("url", record.url)
    }

    private static func encode(_ record: ThumbnailRecord, _ out: inout JSONObjectBytes) {
        out.integer("bytes", record.bytes)
        out.text("createdAt", record.createdAt)
        out.text("format", record.format)
        out.integer("height", record.height)
        out.text("originalSHA256", record.originalSHA256)
        out.text("path", record.path)
        out.text("settings", record.settings)
        out.text("size", record.size)
        out.integer("width", record.width)
    }
}

/// A JSON object's bytes, one member at a time (keys are plain ASCII names, written as given).
private struct JSONObjectBytes {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
    private var bytes: [UInt8] = [0x7B]
    private var empty = true

    init() { bytes.reserveCapacity(768) }

    mutating func text(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        string(value)
    }

    mutating func integer<Number: BinaryInteger>(_ key: StaticString, _ value: Number?) {
        guard let value else { return }
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func number(_ key: StaticString, _ value: Double?) {
        guard let value, value.isFinite else { return }
        self.key(key)
        // JSONEncoder's form: the shortest text that reads back as the same Double, without
        // a trailing ".0" on whole numbers.
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func object(_ key: StaticString, _ members: (inout JSONObjectBytes) -> Void) {
        self.key(key)
        var inner = JSONObjectBytes()
        members(&inner)
        bytes.append(contentsOf: inner.finished())
    }

    func finished() -> [UInt8] { bytes + [0x7D] }

    private mutating func key(_ key: StaticString) {
        if !empty { bytes.append(0x2C) }
        empty = false
        bytes.append(0x22)
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [0x22, 0x3A])
    }

    /// A JSON string as JSONEncoder writes it: quote, backslash and control characters
    /// escaped; everything else, slashes and non-ASCII included, as it is.
    private mutating func string(_ value: String) {
        bytes.append(0x22)
        for byte in value.utf8 {
            switch byte {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x08: bytes.append(contentsOf: [0x5C, 0x62])
            case 0x0C: bytes.append(contentsOf: [0x5C, 0x66])
            case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
            case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
            case ..<0x20:
                bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }
}
