/// Where an original's `takenAt` came from: the photo's own capture time (EXIF, else XMP, IPTC or
/// a raw header), or
/// a fallback used to date a photo that has none (catalog column `originals.dated_by`).
public enum CaptureDateSource: String, Sendable, Codable, CaseIterable {
    /// EXIF DateTimeOriginal, else CreateDate, else DateTime.
    case exif
    /// The maker notes' capture time (Reconyx trail cameras), for a photo whose EXIF names none.
    case makerNotes = "maker-notes"
    /// The XMP packet's exif:DateTimeOriginal, else xmp:CreateDate, else photoshop:DateCreated,
    /// for a photo whose EXIF has no plausible capture time.
    case xmp
    /// The IPTC record's DateCreated with its TimeCreated, for a photo whose EXIF and XMP name no
    /// capture time.
    case iptc
    /// A camera's own header (a raw format's: CRW, X3F, Kyocera RAW; a JPEG's APP0 CIFF or APP12
    /// Picture Info), for a photo whose EXIF, XMP and IPTC name none.
    case rawHeader = "raw-header"
    /// The HTTP Last-Modified header of the response that delivered the bytes.
    case lastModified = "last-modified"
    /// The time the bytes were downloaded.
    case fetchTime = "fetch-time"
    /// The file's modification time (originals `reindex` found without a journal entry).
    case fileTime = "file-time"

    /// Whether the photo's own metadata dated it (rather than the server, the download or the file).
    public var isCamera: Bool { [.exif, .makerNotes, .xmp, .iptc, .rawHeader].contains(self) }
}
