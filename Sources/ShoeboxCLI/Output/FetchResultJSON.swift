import Foundation
import ShoeboxKit

/// The `fetch --json` object for one URL.
enum FetchResultJSON {
    static func object(for result: FetchResult) -> [String: Any] {
        [
            "url": result.url,
            "source": result.origin,
            "final_url": result.finalURL ?? NSNull(),
            "outcome": result.outcome.rawValue,
            "reason": result.reason ?? NSNull(),
            "http_status": result.httpStatus ?? NSNull(),
            "content_type": result.contentType ?? NSNull(),
            "extension": result.fileExtension ?? NSNull(),
            "bytes": result.bytes ?? NSNull(),
            "sha256": result.sha256 ?? NSNull(),
            "path": result.path ?? NSNull(),
            "attempts": result.attempts,
            "warnings": result.warnings,
            "metadata": result.original.map(metadata) ?? NSNull(),
        ]
    }

    private static func metadata(_ original: OriginalRecord) -> [String: Any] {
        var gps: Any = NSNull()
        if let latitude = original.gpsLatitude, let longitude = original.gpsLongitude {
            gps = ["latitude": printable(latitude), "longitude": printable(longitude),
                   "altitude": original.gpsAltitude.map(printable) ?? NSNull()] as [String: Any]
        }
        return [
            "taken_at": original.takenAt ?? NSNull(),
            "dated_by": original.datedBy?.rawValue ?? NSNull(),
            "make": original.make ?? NSNull(),
            "model": original.model ?? NSNull(),
            "width": original.width ?? NSNull(),
            "height": original.height ?? NSNull(),
            "orientation": original.orientation ?? NSNull(),
            "gps": gps,
        ]
    }

    /// The value as inspect and exiftool -n print it (15 significant digits): degrees summed
    /// from minutes and seconds come out as 2.2944999999999998 where the camera meant 2.2945.
    private static func printable(_ value: Double) -> Double {
        Double(NumberText.format(value)) ?? value
    }
}
