/// What happened to one thumbnail or one original while making thumbnails.
public enum ThumbnailEvent: Sendable {
    /// A thumbnail of `original` (its path under the library root) was written.
    case made(ThumbnailRecord, original: String, milliseconds: Double)
    /// An up-to-date thumbnail that the catalog did not list yet.
    case found(ThumbnailRecord)
    /// Every requested thumbnail of this original was already up to date.
    case upToDate(ThumbnailSource)
    /// This original got no (or not all) thumbnails.
    case failed(ThumbnailSource, ThumbnailError)
    /// Work on this original is over (always the last event for it).
    case finished(ThumbnailSource)
    /// Shared work: this worker has nothing left but originals other workers hold, and waits
    /// for them; what it finished is to be recorded now (others may be waiting for it too).
    case waitingForOthers
}
