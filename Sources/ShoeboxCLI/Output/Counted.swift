import ShoeboxKit

/// "1 original", "2 originals": a count with its noun in the right number; and rates in
/// IEC binary units (KiB/s, MiB/s, GiB/s), as `ByteSize.format` gives amounts.
enum Counted {
    static func text(_ count: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
    }

    /// "1.4 GiB/s"; "0 B/s" when nothing was timed.
    static func rate(bytes: Int64, seconds: Double) -> String {
        guard seconds > 0 else { return "0 B/s" }
        return ByteSize.format(Int64(Double(bytes) / seconds)) + "/s"
    }
}
