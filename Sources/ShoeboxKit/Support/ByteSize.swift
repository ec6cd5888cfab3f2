import Foundation

/// Byte counts as users write them ("200M", "1.5G", "512K", "1000") and as they read them.
public enum ByteSize {
    /// Parses a size with an optional K, M, G or T suffix (powers of 1024; a trailing "B"/"iB" is allowed).
    public static func parse(_ text: String) -> Int64? {
        var body = text.trimmingCharacters(in: .whitespaces).uppercased()
        if body.hasSuffix("IB") { body.removeLast(2) } else if body.hasSuffix("B") { body.removeLast() }
        var multiplier: Double = 1
        if let last = body.last, let power = "KMGT".firstIndex(of: last) {
            multiplier = pow1024("KMGT".distance(from: "KMGT".startIndex, to: power) + 1)
            body.removeLast()
        }
        // Plain decimal only: Double alone would also take "0x10", "1e3" and "inf".
        let digitsAndOnePoint = !body.isEmpty && body.filter { $0 == "." }.count <= 1
            && body.allSatisfy { $0 == "." || ("0"..."9").contains($0) } && body != "."
        guard digitsAndOnePoint, let number = Double(body) else { return nil }
        let value = number * multiplier
        guard value < 9e18 else { return nil }
        return Int64(value)
    }

    /// "1.5 MiB"-style text: IEC binary units (powers of 1024), one decimal.
    public static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : PrintfText.double("%.1f", value) + " " + units[unit]
    }

    private static func pow1024(_ exponent: Int) -> Double {
        (0..<exponent).reduce(1.0) { result, _ in result * 1024 }
    }
}
