import Foundation

/// The exposure a photo's metadata names: exposure time in seconds, f-number, ISO and focal
/// length in millimetres, any of them missing. The catalog keeps it as text in one column,
/// `originals.exposure` ("t=0.004 f=4 iso=200 fl=50"; "" when the file names none; NULL when
/// not known: catalogued before version 6), so a reader sees at once which it is.
public struct Exposure: Sendable, Equatable {
    public var time: Double?
    public var fNumber: Double?
    public var iso: Int?
    public var focalLength: Double?

    public init(time: Double? = nil, fNumber: Double? = nil, iso: Int? = nil, focalLength: Double? = nil) {
        self.time = time.flatMap(Self.usable)
        self.fNumber = fNumber.flatMap(Self.usable)
        self.iso = iso.flatMap { $0 > 0 ? $0 : nil }
        self.focalLength = focalLength.flatMap(Self.usable)
    }

    /// What `metadata` names (nothing for no metadata).
    public init(_ metadata: PhotoMetadata?) {
        self.init(time: metadata?.exposureTime, fNumber: metadata?.fNumber, iso: metadata?.iso,
                  focalLength: metadata?.focalLength)
    }

    private static func usable(_ value: Double) -> Double? { value.isFinite && value > 0 && value < 1e7 ? value : nil }

    public var isEmpty: Bool { time == nil && fNumber == nil && iso == nil && focalLength == nil }

    /// The catalog's text: "t=0.004 f=4 iso=200 fl=50", members left out when missing, "" for none.
    public var catalogText: String {
        var parts: [String] = []
        if let time { parts.append("t=" + PrintfText.double("%.6g", time)) }
        if let fNumber { parts.append("f=" + PrintfText.double("%.6g", fNumber)) }
        if let iso { parts.append("iso=\(iso)") }
        if let focalLength { parts.append("fl=" + PrintfText.double("%.6g", focalLength)) }
        return parts.joined(separator: " ")
    }

    /// Reads the catalog's text; unknown members are ignored (a later version may add some).
    public init(catalogText: String) {
        var exposure = Exposure()
        for part in catalogText.split(separator: " ") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "t": exposure.time = Double(pair[1]).flatMap(Self.usable)
            case "f": exposure.fNumber = Double(pair[1]).flatMap(Self.usable)
            case "iso": exposure.iso = Int(pair[1]).flatMap { $0 > 0 ? $0 : nil }
            case "fl": exposure.focalLength = Double(pair[1]).flatMap(Self.usable)
            default: continue
            }
        }
        self = exposure
    }

    /// As photographers write it: "1/250 s · f/4 · ISO 200 · 50 mm"; nil when nothing is known.
    public var text: String? {
        var parts: [String] = []
        if let time {
            if time < 0.25 {
                let denominator = (1 / time).rounded()
                parts.append(abs(1 / denominator - time) / time < 0.05 ? "1/\(Int(denominator)) s" : PrintfText.double("%.3g", time) + " s")
            } else {
                parts.append(PrintfText.double("%.3g", time) + " s")
            }
        }
        if let fNumber { parts.append("f/" + PrintfText.double("%.3g", fNumber)) }
        if let iso { parts.append("ISO \(iso)") }
        if let focalLength { parts.append(PrintfText.double("%.4g", focalLength) + " mm") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
