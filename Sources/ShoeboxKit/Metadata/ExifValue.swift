/// One EXIF entry's value decoded from its raw bytes with the block's byte order.
enum ExifValue: Equatable {
    /// ASCII (stops at the first NUL; the value need not be NUL-terminated; trailing blanks dropped).
    case text(String)
    /// BYTE, SHORT, LONG, their signed forms, FLOAT and DOUBLE.
    case integers([Int64])
    case reals([Double])
    /// RATIONAL and SRATIONAL as numerator/denominator pairs.
    case rationals([(Int64, Int64)])
    /// UNDEFINED: opaque bytes.
    case bytes([UInt8])

    static func == (lhs: ExifValue, rhs: ExifValue) -> Bool {
        switch (lhs, rhs) {
        case (.text(let a), .text(let b)): return a == b
        case (.integers(let a), .integers(let b)): return a == b
        case (.reals(let a), .reals(let b)): return a == b
        case (.rationals(let a), .rationals(let b)): return a.elementsEqual(b) { $0 == $1 }
        case (.bytes(let a), .bytes(let b)): return a == b
        default: return false
        }
    }

    /// Size in bytes of one component of EXIF format `format`, or nil for an unknown format.
    static func componentSize(format: UInt32) -> Int? {
        switch format {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11: return 4
        case 5, 10, 12: return 8
        default: return nil
        }
    }

    /// Decodes `count` components of `format` from `raw` (already bounds-checked by the caller
    /// or truncated here to what `raw` holds).
    init?(format: UInt32, count: Int, raw: [UInt8], bigEndian: Bool) {
        guard let size = Self.componentSize(format: format) else { return nil }
        let n = min(count, raw.count / size)
        func unsigned(_ offset: Int, _ width: Int) -> UInt64 {
            var value: UInt64 = 0
            for i in 0..<width {
                let byte = UInt64(raw[offset + (bigEndian ? i : width - 1 - i)])
                value = value << 8 | byte
            }
            return value
        }
        switch format {
        case 2:
            var stop = raw.prefix(n).firstIndex(of: 0) ?? min(n, raw.count)
            // Trailing blanks are padding (cameras pad Model to a fixed width); exiftool drops them too.
            while stop > 0, [0x20, 0x09, 0x0A, 0x0D].contains(raw[stop - 1]) { stop -= 1 }
            self = .text(String(decoding: raw[..<stop], as: UTF8.self))
        case 7:
            self = .bytes(Array(raw.prefix(n)))
        case 1: self = .integers((0..<n).map { Int64(raw[$0]) })
        case 6: self = .integers((0..<n).map { Int64(Int8(bitPattern: raw[$0])) })
        case 3: self = .integers((0..<n).map { Int64(unsigned($0 * 2, 2)) })
        case 8: self = .integers((0..<n).map { Int64(Int16(truncatingIfNeeded: unsigned($0 * 2, 2))) })
        case 4: self = .integers((0..<n).map { Int64(unsigned($0 * 4, 4)) })
        case 9: self = .integers((0..<n).map { Int64(Int32(truncatingIfNeeded: unsigned($0 * 4, 4))) })
        case 5: self = .rationals((0..<n).map { (Int64(unsigned($0 * 8, 4)), Int64(unsigned($0 * 8 + 4, 4))) })
        case 10:
            self = .rationals((0..<n).map {
                (Int64(Int32(truncatingIfNeeded: unsigned($0 * 8, 4))), Int64(Int32(truncatingIfNeeded: unsigned($0 * 8 + 4, 4))))
            })
        case 11: self = .reals((0..<n).map { Double(Float(bitPattern: UInt32(unsigned($0 * 4, 4)))) })
        case 12: self = .reals((0..<n).map { Double(bitPattern: unsigned($0 * 8, 8)) })
        default: return nil
        }
    }

    /// The value as numbers (rationals divided out; a zero denominator gives nil for that component).
    var numbers: [Double?] {
        switch self {
        case .integers(let values): return values.map { Double($0) }
        case .reals(let values): return values.map { $0.isFinite ? $0 : nil }
        case .rationals(let values): return values.map { $0.1 == 0 ? nil : Double($0.0) / Double($0.1) }
        case .text, .bytes: return []
        }
    }

    /// The first component as a number, when it is a valid one.
    var firstNumber: Double? { numbers.first ?? nil }

    var string: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// Text for people: numbers as decimals separated by spaces, rationals as
    /// "n/d" when that reads better (exposure times), bytes as text when printable.
    var displayText: String {
        switch self {
        case .text(let text):
            return text
        case .integers(let values):
            return values.map(String.init).joined(separator: " ")
        case .reals(let values):
            return values.map { NumberText.format($0) }.joined(separator: " ")
        case .rationals(let values):
            return values.map { pair in
                if pair.1 == 0 { return "undef" }
                if pair.0 == 1 && pair.1 > 1 { return "1/\(pair.1)" }
                return NumberText.format(Double(pair.0) / Double(pair.1))
            }.joined(separator: " ")
        case .bytes(let bytes):
            return Self.bytesText(bytes)
        }
    }

    private static func bytesText(_ bytes: [UInt8]) -> String {
        var body = bytes[...]
        // UserComment and similar carry an 8-byte character-code prefix.
        for code in ["ASCII\0\0\0", "UNICODE\0", "\0\0\0\0\0\0\0\0"] where body.starts(with: Array(code.utf8)) && body.count > 8 {
            body = body.dropFirst(8)
            break
        }
        while let last = body.last, last == 0 || last == 0x20 { body = body.dropLast() }
        if !body.isEmpty, body.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return String(decoding: body, as: UTF8.self)
        }
        if bytes.count <= 16 {
            return bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined(separator: " ")
        }
        return "(binary data, \(bytes.count) bytes)"
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
