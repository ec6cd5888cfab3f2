import Foundation
import ShoeboxKit

/// How `inspect` prints one file: a block for people, or a JSON object
/// compatible with `exiftool -json -n` for the shared keys.
enum InspectPrinter {
    // MARK: JSON

    static func json(_ item: MetadataBatch.Item, includeAllTags: Bool) -> String {
        var members: [(String, String)] = [("SourceFile", JSONText.string(item.path))]
        switch item.result {
        case .failure(let error):
            members.append(("Error", JSONText.string(error.description)))
            if let size = item.fileSize { members.append(("FileSize", JSONText.number(Double(size)))) }
        case .success(let metadata):
            if let size = item.fileSize { members.append(("FileSize", JSONText.number(Double(size)))) }
            if let format = metadata.format { members.append(("FileType", JSONText.string(format.rawValue.uppercased()))) }
            var seen = Set(members.map(\.0))
            for field in metadata.exiftoolFields {
                seen.insert(field.key)
                members.append((field.key, jsonValue(field.value)))
            }
            // Where a value came from when not from EXIF: {"DateTimeOriginal": "XMP"}, in the keys' order.
            let sources = metadata.exiftoolFields.compactMap { field in
                metadata.sources[field.key].map { (field.key, JSONText.string($0.rawValue)) }
            }
            if !sources.isEmpty { members.append(("Sources", JSONText.line(sources))) }
            if includeAllTags {
                for tag in metadata.tags where seen.insert(tag.name).inserted && isPrintableRaw(tag) {
                    let value = tag.numbers.count == 1 ? JSONText.number(tag.numbers[0]) : JSONText.textOrNumber(tag.value)
                    members.append((tag.name, value))
                }
            }
            if !metadata.warnings.isEmpty {
                members.append(("Warning", JSONText.string(metadata.warnings.joined(separator: "; "))))
            }
        }
        return JSONText.object(members)
    }

    /// Under a key shared with exiftool (that the summary left out) a raw tag goes only as one
    /// number, already in exiftool's unit (an altitude in metres); never as text such as
    /// "undef undef undef", nor a coordinate, whose degrees need its reference and minutes.
    private static func isPrintableRaw(_ tag: ExifTag) -> Bool {
        guard PhotoMetadata.exiftoolFieldKeys.contains(tag.name) else { return true }
        return tag.numbers.count == 1 && !["GPSLatitude", "GPSLongitude"].contains(tag.name)
    }

    private static func jsonValue(_ value: MetadataValue) -> String {
        switch value {
        case .text(let text): return JSONText.textOrNumber(text)
        case .number(let number): return JSONText.number(number)
        }
    }

    // MARK: People

    static func block(_ metadata: PhotoMetadata, path: String, fileSize: Int64?, includeAllTags: Bool) -> String {
        var lines = [TerminalText.oneLine(path)]
        func add(_ label: String, _ value: String?, keys: [String] = [], from: MetadataSource? = nil) {
            guard let value, !value.isEmpty else { return }
            // A value read from somewhere other than EXIF says where: "(XMP)".
            let places = Set(keys.compactMap { metadata.sources[$0]?.rawValue } + [from?.rawValue].compactMap { $0 }).sorted()
            let source = places.isEmpty ? "" : " (" + places.joined(separator: ", ") + ")"
            lines.append("  " + label.padding(toLength: 13, withPad: " ", startingAt: 0) + TerminalText.oneLine(value) + source)
        }
        var format = metadata.format?.rawValue.uppercased() ?? "unknown format"
        if let width = metadata.width, let height = metadata.height { format += ", \(width) × \(height) px" }
        if let fileSize { format += ", " + byteCount(fileSize) }
        add("Format", format)
        add("Camera", camera(make: metadata.make, model: metadata.model), keys: ["Make", "Model"])
        add("Lens", metadata.lensModel?.trimmingCharacters(in: .whitespaces), keys: ["LensModel"])
        add("Taken", captureTime(metadata), from: metadata.bestCaptureDateSource)
        add("Exposure", exposure(metadata), keys: ["ExposureTime", "FNumber", "ISO", "FocalLength"])
        add("Orientation", metadata.orientation.map { "\(orientationWords($0)) (\($0))" }, keys: ["Orientation"])
        add("GPS", metadata.gps.map(position) ?? metadata.altitudeWithoutPosition.map { "altitude " + fixed($0, places: 2) + " m, no position" },
            keys: ["GPSLatitude", "GPSAltitude"])
        add("Software", metadata.software?.trimmingCharacters(in: .whitespaces), keys: ["Software"])
        for warning in metadata.warnings { add("Warning", warning) }
        if includeAllTags {
            var group = ""
            for tag in metadata.tags {
                if tag.group != group {
                    group = tag.group
                    lines.append("  [\(group)]")
                }
                lines.append("    " + tag.name.padding(toLength: 28, withPad: " ", startingAt: 0) + " " + TerminalText.oneLine(tag.value))
            }
        }
        // Every value from the file went through TerminalText.oneLine above (a hostile EXIF
        // string could carry terminal escapes or a line break); labels and tag names are ours.
        return lines.joined(separator: "\n")
    }

    static func camera(make: String?, model: String?) -> String? {
        let make = make?.trimmingCharacters(in: .whitespaces), model = model?.trimmingCharacters(in: .whitespaces)
        guard let model, !model.isEmpty else { return make }
        guard let make, !make.isEmpty else { return model }
        // "Canon" + "Canon EOS 5D" reads better as "Canon EOS 5D"; "NIKON CORPORATION" + "NIKON D850" too.
        let brand = make.split(separator: " ").first.map(String.init) ?? make
        if model.lowercased().hasPrefix(brand.lowercased()) { return model }
        return make + " " + model
    }

    static func captureTime(_ metadata: PhotoMetadata) -> String? {
        guard let date = metadata.bestCaptureDate?.trimmingCharacters(in: .whitespaces), !date.isEmpty else { return nil }
        var text = date
        if date.count >= 10, date.dropFirst(4).first == ":", date.dropFirst(7).first == ":" {
            var characters = Array(date)
            characters[4] = "-"
            characters[7] = "-"
            text = String(characters)
        }
        if metadata.dateTimeOriginal != nil, let offset = metadata.offsetTimeOriginal?.trimmingCharacters(in: .whitespaces), !offset.isEmpty {
            text += " " + offset
        }
        return text
    }

    static func exposure(_ metadata: PhotoMetadata) -> String? {
        var parts: [String] = []
        if let time = metadata.exposureTime, time > 0 {
            if time < 1, (1 / time - (1 / time).rounded()).magnitude < 0.01 * (1 / time) {
                parts.append("1/\(Int((1 / time).rounded())) s")
            } else {
                parts.append(decimal(time, places: 4) + " s")
            }
        }
        if let f = metadata.fNumber, f > 0 { parts.append("f/" + decimal(f, places: 1)) }
        if let iso = metadata.iso { parts.append("ISO \(iso)") }
        if let focal = metadata.focalLength, focal > 0 { parts.append(decimal(focal, places: 1) + " mm") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    static func orientationWords(_ value: Int) -> String {
        switch value {
        case 1: return "normal"
        case 2: return "mirrored horizontally"
        case 3: return "rotated 180°"
        case 4: return "mirrored vertically"
        case 5: return "mirrored horizontally, rotated 270° clockwise"
        case 6: return "rotated 90° clockwise"
        case 7: return "mirrored horizontally, rotated 90° clockwise"
        case 8: return "rotated 270° clockwise"
        default: return "unknown"
        }
    }

    /// "33.856800 S, 151.215300 E, altitude -12.30 m": decimal degrees with the hemisphere.
    static func position(_ gps: GPSPosition) -> String {
        var text = fixed(abs(gps.latitude), places: 6) + (gps.latitude < 0 ? " S" : " N") + ", "
            + fixed(abs(gps.longitude), places: 6) + (gps.longitude < 0 ? " W" : " E")
        if let altitude = gps.altitude { text += ", altitude " + fixed(altitude, places: 2) + " m" }
        return text
    }

    /// In IEC binary units as everywhere in shoebox ("512 B", "2.3 MiB"); --json keeps the number of bytes.
    static func byteCount(_ bytes: Int64) -> String {
        ByteSize.format(bytes)
    }

    /// Up to `places` decimals, trailing zeros removed.
    static func decimal(_ value: Double, places: Int) -> String {
        var text = fixed(value, places: places)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    static func fixed(_ value: Double, places: Int) -> String {
        let scale = (0..<places).reduce(1.0) { result, _ in result * 10 }
        let scaled = (value.magnitude * scale).rounded()
        guard scaled < 1e17 else { return NumberText.format(value) }
        let whole = Int64(scaled)
        let integer = whole / Int64(scale), fraction = whole % Int64(scale)
        var text = (value < 0 && whole != 0 ? "-" : "") + String(integer)
        if places > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: places - digits.count) + digits
        }
        return text
    }
}
