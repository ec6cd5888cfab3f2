import CExempi
import Foundation

/// Fills what a photo's EXIF leaves out from its XMP packet, read with Exempi (Adobe's XMP
/// Toolkit): capture dates, camera, lens, exposure, orientation, software and position,
/// each under exiftool's key name in exiftool's `-n` form, and marks each value so taken
/// with its source (`PhotoMetadata.sources`). EXIF always wins where both have a value, as
/// exiftool's JSON does for tags of the same name.
enum XMPReader {
    /// A packet larger than this is not parsed (a camera's or an editor's packet is a few
    /// KiB; one JPEG segment holds at most 64 KiB).
    static let maximumPacket = 1024 * 1024

    /// The namespaces the values are read from.
    private static let exif = "http://ns.adobe.com/exif/1.0/"
    private static let tiff = "http://ns.adobe.com/tiff/1.0/"
    private static let xmpBasic = "http://ns.adobe.com/xap/1.0/"
    private static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
    private static let exifEX = "http://cipa.jp/exif/1.0/"

    /// Exempi's one-time set-up (thread-safe: a static's initializer runs once).
    private static let initialized: Bool = xmp_init()

    /// Parses `packet` and fills `metadata`'s missing values from it; a packet Exempi cannot
    /// parse leaves a warning and nothing else.
    /// The packet up to the end of its trailer (`<?xpacket end="w"?>`): an editor that wrote a
    /// shorter packet over a longer one leaves the old one's tail after it, which is not XML
    /// (exiftool stops at the trailer too). The first trailer counts; unchanged without one.
    static func trimmedAtTrailer(_ packet: [UInt8]) -> [UInt8] {
        let trailer = Array("<?xpacket end=".utf8)
        guard packet.count >= trailer.count else { return packet }
        var index = 0
        while index + trailer.count <= packet.count {
            if packet[index] == trailer[0], packet[index..<index + trailer.count].elementsEqual(trailer) {
                var end = index + trailer.count
                while end + 1 < packet.count, !(packet[end] == UInt8(ascii: "?") && packet[end + 1] == UInt8(ascii: ">")) { end += 1 }
                return end + 1 < packet.count ? Array(packet[..<(end + 2)]) : packet
            }
            index += 1
        }
        return packet
    }

    static func merge(_ packet: [UInt8], into metadata: inout PhotoMetadata) {
        guard initialized else {
            metadata.warnings.append("XMP not read: the XMP library did not start")
            return
        }
        guard packet.count <= maximumPacket else {
            metadata.warnings.append("XMP packet of \(packet.count) bytes is over \(maximumPacket / 1024) KiB; not read")
            return
        }
        let packet = trimmedAtTrailer(packet)
        let xmp: XmpPtr? = packet.withUnsafeBufferPointer { bytes in
            bytes.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { xmp_new($0, bytes.count) }
            }
        }
        guard let xmp else {
            metadata.warnings.append("XMP packet is not well-formed RDF/XML (error \(xmp_get_error())); not read")
            return
        }
        defer { xmp_free(xmp) }
        let reader = Packet(xmp: xmp)

        func fill<Value>(_ key: String, _ field: WritableKeyPath<PhotoMetadata, Value?>, _ value: Value?) {
            guard metadata[keyPath: field] == nil, let value else { return }
            metadata[keyPath: field] = value
            metadata.sources[key] = .xmp
        }
        fill("Make", \.make, reader.text(tiff, "Make"))
        fill("Model", \.model, reader.text(tiff, "Model"))
        fill("LensModel", \.lensModel, reader.text(exifEX, "LensModel"))
        fill("Software", \.software, reader.text(tiff, "Software"))
        fill("DateTimeOriginal", \.dateTimeOriginal, reader.text(exif, "DateTimeOriginal").flatMap(XMPDate.exiftoolForm))
        fill("CreateDate", \.createDate, reader.text(xmpBasic, "CreateDate").flatMap(XMPDate.exiftoolForm))
        fill("DateCreated", \.dateCreated, reader.text(photoshop, "DateCreated").flatMap(XMPDate.exiftoolForm))
        fill("Orientation", \.orientation, reader.text(tiff, "Orientation").flatMap { Int($0) }.flatMap { (1...8).contains($0) ? $0 : nil })
        fill("ExposureTime", \.exposureTime, reader.text(exif, "ExposureTime").flatMap(rational))
        fill("FNumber", \.fNumber, reader.text(exif, "FNumber").flatMap(rational))
        fill("FocalLength", \.focalLength, reader.text(exif, "FocalLength").flatMap(rational))
        fill("ISO", \.iso, (reader.item(exif, "ISOSpeedRatings", 1) ?? reader.item(exifEX, "PhotographicSensitivity", 0))
            .flatMap { Int($0.trimmingSpaces) }.flatMap { $0 >= 0 ? $0 : nil })
        if metadata.gps == nil, metadata.altitudeWithoutPosition == nil {
            var altitude = reader.text(exif, "GPSAltitude").flatMap(rational)
            if let value = altitude, reader.text(exif, "GPSAltitudeRef")?.trimmingSpaces == "1" { altitude = -value }
            if let latitude = reader.text(exif, "GPSLatitude").flatMap(coordinate),
               let longitude = reader.text(exif, "GPSLongitude").flatMap(coordinate),
               abs(latitude) <= 90, abs(longitude) <= 180 {
                metadata.gps = GPSPosition(latitude: latitude, longitude: longitude, altitude: altitude)
                metadata.sources["GPSLatitude"] = .xmp
                metadata.sources["GPSLongitude"] = .xmp
                if altitude != nil { metadata.sources["GPSAltitude"] = .xmp }
            } else if let altitude {
                metadata.altitudeWithoutPosition = altitude
                metadata.sources["GPSAltitude"] = .xmp
            }
        }
    }

    /// Property reads on one parsed packet.
    private struct Packet {
        let xmp: XmpPtr

        /// A simple property's text; nil when absent, empty, or not a simple value.
        func text(_ schema: String, _ name: String) -> String? {
            read { xmp_get_property(xmp, schema, name, $0, nil) }
        }

        /// The `index`th item (from 1) of an array property; with 0, the property itself
        /// when it is a simple value, else its first item.
        func item(_ schema: String, _ name: String, _ index: Int32) -> String? {
            if index == 0 { return text(schema, name) ?? item(schema, name, 1) }
            return read { xmp_get_array_item(xmp, schema, name, index, $0, nil) }
        }

        private func read(_ get: (XmpStringPtr) -> Bool) -> String? {
            guard let value = xmp_string_new() else { return nil }
            defer { xmp_string_free(value) }
            guard get(value), let text = xmp_string_cstr(value) else { return nil }
            let string = String(cString: text)
            return string.isEmpty ? nil : string
        }
    }

    /// "1/250", "28/10", "50" as a number; nil for a zero denominator or a non-number.
    static func rational(_ text: String) -> Double? {
        let parts = text.trimmingSpaces.split(separator: "/", omittingEmptySubsequences: false)
        guard let numerator = parts.first.flatMap({ Double($0) }), numerator.isFinite, parts.count <= 2 else { return nil }
        guard parts.count == 2 else { return numerator }
        guard let denominator = Double(parts[1]), denominator != 0, denominator.isFinite else { return nil }
        return numerator / denominator
    }

    /// XMP's GPS coordinate, "DDD,MM,SSk" or "DDD,MM.mmk" (k: N, S, E or W), as signed
    /// decimal degrees (south and west negative).
    static func coordinate(_ text: String) -> Double? {
        var body = text.trimmingSpaces
        guard let reference = body.last, "NSEWnsew".contains(reference) else { return nil }
        body.removeLast()
        let parts = body.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0).trimmingSpaces) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0!.isFinite && $0! >= 0 }) else { return nil }
        var degrees = parts[0]! + parts[1]! / 60
        if parts.count == 3 { degrees += parts[2]! / 3600 }
        return "SWsw".contains(reference) ? -degrees : degrees
    }
}
