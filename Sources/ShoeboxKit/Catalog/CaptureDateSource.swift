/// Where an original's `takenAt` came from: the photo's own EXIF capture time, or a
/// fallback used to date a photo that has none (catalog column `originals.dated_by`).
public enum CaptureDateSource: String, Sendable, Codable, CaseIterable {
    /// EXIF DateTimeOriginal, else CreateDate, else DateTime.
    case exif
    /// The HTTP Last-Modified header of the response that delivered the bytes.
    case lastModified = "last-modified"
    /// The time the bytes were downloaded.
    case fetchTime = "fetch-time"
    /// The file's modification time (originals `reindex` found without a journal entry).
    case fileTime = "file-time"
}
