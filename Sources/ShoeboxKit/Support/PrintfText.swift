import Foundation

/// A number as C's printf writes it with one conversion (`%.15g`, `%.1f`), the text
/// `String(format:)` gives, without Foundation's formatter: that one builds a CFString for
/// every call and was a fifth of `shoebox list`'s time on a million originals.
public enum PrintfText {
    /// `value` written with `format`, which holds exactly one conversion of a double.
    public static func double(_ format: StaticString, _ value: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let written = withVaList([value]) { arguments in
            buffer.withUnsafeMutableBufferPointer { target in
                format.withUTF8Buffer { text in
                    text.withMemoryRebound(to: CChar.self) { vsnprintf(target.baseAddress, target.count, $0.baseAddress, arguments) }
                }
            }
        }
        guard written > 0, Int(written) < buffer.count else { return String(format: format.description, value) }
        return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
