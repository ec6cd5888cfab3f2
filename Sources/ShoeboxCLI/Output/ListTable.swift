import Foundation
import ShoeboxKit

/// `shoebox list`'s table: one original a line, fixed-width columns (so a line can be printed
/// as soon as its row arrives, without reading the whole answer first) and the library path
/// last, at full length. Text from the files (make, model, path) is made safe for a terminal.
struct ListTable {
    /// Colour (bold header, dim placeholders): only on a terminal, never with NO_COLOR.
    var color: Bool

    private static let cameraWidth = 24
    /// As wide as the longest dating word ("maker notes").
    private static let datingWidth = CaptureDateSource.allCases.map { dating($0).count }.max() ?? 8

    var header: String {
        let line = Self.pad("TAKEN", 19) + "  " + Self.pad("DATED BY", Self.datingWidth) + "  " + Self.pad("CAMERA", Self.cameraWidth) + "  "
            + Self.pad("PIXELS", 11) + "  " + "      SIZE" + "  " + Self.pad("GPS", 21) + "  " + "PATH"
        return color ? "\u{1B}[1m" + line + "\u{1B}[0m" : line
    }

    func row(_ original: OriginalRecord) -> String {
        let camera = Self.camera(make: original.make, model: original.model)
        let pixels = original.width.flatMap { width in original.height.map { "\(width)x\($0)" } } ?? ""
        var gps = ""
        if let latitude = original.gpsLatitude, let longitude = original.gpsLongitude {
            gps = Self.fixed(latitude) + "," + Self.fixed(longitude)
        }
        let size = ByteSize.format(original.bytes)
        return cell(original.takenAt.map(Self.readableTime), 19) + "  " + cell(original.datedBy.map(Self.dating), Self.datingWidth) + "  "
            + cell(camera.isEmpty ? nil : camera, Self.cameraWidth) + "  " + Self.pad(pixels, 11) + "  "
            + String(repeating: " ", count: max(0, 10 - size.count)) + size + "  " + Self.pad(gps, 21) + "  "
            + TerminalText.oneLine(original.path)
    }

    /// A column's text padded to `width`; a missing value is a dimmed "-".
    private func cell(_ text: String?, _ width: Int) -> String {
        guard let text else {
            let padding = String(repeating: " ", count: width - 1)
            return (color ? "\u{1B}[2m-\u{1B}[0m" : "-") + padding
        }
        return Self.pad(text, width)
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// "2024:05:01 10:30:00" as "2024-05-01 10:30:00"; other text as it is (made safe).
    static func readableTime(_ text: String) -> String {
        var bytes = Array(text.utf8)
        if bytes.count >= 10, bytes[4] == UInt8(ascii: ":"), bytes[7] == UInt8(ascii: ":") {
            bytes[4] = UInt8(ascii: "-")
            bytes[7] = UInt8(ascii: "-")
        }
        return TerminalText.oneLine(String(decoding: bytes, as: UTF8.self))
    }

    /// Who gave the date, in the words of `--dated-by`'s aliases.
    static func dating(_ source: CaptureDateSource) -> String {
        switch source {
        case .exif: return "camera"
        case .makerNotes: return "maker notes"
        case .xmp: return "XMP"
        case .iptc: return "IPTC"
        case .rawHeader: return "raw header"
        case .lastModified: return "server"
        case .fetchTime: return "download"
        case .fileTime: return "file"
        }
    }

    /// "Canon EOS R5" rather than "Canon Canon EOS R5": the make is left out when the model
    /// already starts with its first word; cut to the column's width with "…".
    static func camera(make: String?, model: String?) -> String {
        let make = make?.trimmingWhitespace() ?? "", model = model?.trimmingWhitespace() ?? ""
        // "NIKON CORPORATION" + "NIKON D850" is "NIKON D850": the model names the make's first word.
        let brand = make.split(separator: " ").first.map { $0.lowercased() } ?? ""
        var text = make.isEmpty || model.lowercased().hasPrefix(brand) ? model
            : model.isEmpty ? make : make + " " + model
        text = TerminalText.oneLine(text)
        return text.count > cameraWidth ? String(text.prefix(cameraWidth - 1)) + "…" : text
    }

    private static func fixed(_ degrees: Double) -> String {
        guard degrees.isFinite else { return "?" }
        let scaled = (abs(degrees) * 100_000).rounded()
        let whole = Int(scaled / 100_000), fraction = Int(scaled.truncatingRemainder(dividingBy: 100_000))
        let digits = String(fraction)
        return (degrees < 0 && scaled > 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: 5 - digits.count) + digits
    }
}
