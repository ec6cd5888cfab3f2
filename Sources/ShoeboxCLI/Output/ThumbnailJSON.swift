import ShoeboxKit

/// The `--json` line for one thumbnail made.
enum ThumbnailJSON {
    static func line(_ record: ThumbnailRecord, original: String, milliseconds: Double) -> String {
        JSONLine.encode([
            "original": original,
            "sha256": record.originalSHA256,
            "size": record.size,
            "path": record.path,
            "format": record.format,
            "width": record.width,
            "height": record.height,
            "bytes": record.bytes,
            "milliseconds": (milliseconds * 10).rounded() / 10,
        ])
    }
}
