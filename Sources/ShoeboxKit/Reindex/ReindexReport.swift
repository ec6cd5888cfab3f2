/// What `shoebox reindex` rebuilt, and what it could not.
public struct ReindexReport: Sendable, Equatable, Codable {
    /// Originals restored with their journaled record.
    public var originalsFromJournal = 0
    /// Files under originals/ without a journal entry: recorded from the file itself and journaled.
    public var originalsFromFiles = 0
    public var sources = 0
    public var thumbnails = 0
    /// Journaled originals whose file is gone (never committed, or lost): left out.
    public var journaledOriginalsWithoutFile = 0
    /// Journaled sources naming an original that is not in the library: left out.
    public var sourcesDropped = 0
    /// Journaled thumbnails whose file or original is gone: left out.
    public var thumbnailsDropped = 0
    /// Extra files holding the same bytes as another original: left out (verify lists them).
    public var duplicateFiles: [String] = []
    /// Files under originals/ that could not be read: left out.
    public var unreadableFiles: [String] = []
    /// Folders under originals/ that could not be listed or entered: the originals in them are
    /// left out of the catalog until a reindex can read them (the journal keeps them).
    public var unreadableFolders: [UnlistedFolder] = []
    /// Files whose bytes differ from what the journal stored at their path (bit rot, edits):
    /// kept with their journaled record, so verify reports the hash mismatch.
    public var changedFiles: [String] = []
    /// Files under originals/ that are no image and have no journal entry: left out.
    public var notImages: [String] = []
    /// Entries under originals/ that are no regular file (symbolic links, FIFOs): left out.
    public var notRegularFiles: [String] = []
    /// Files whose name is not UTF-8 (shown with `\xNN` escapes), which the catalog cannot record: left out.
    public var nonUTF8Names: [String] = []
    /// Rows of the healthy catalog replaced with --force that the journal lacked: journaled first.
    public var entriesFromCatalog = 0
    /// Staged content of an interrupted run moved into place / removed.
    public var stagedPublished = 0
    public var tempFilesRemoved = 0
    /// Lines of journal.jsonl that could not be read and were skipped (1-based), then
    /// removed from it; the damaged file is kept beside it under this name.
    public var damagedJournalLines: [Int] = []
    public var damagedJournalKept: String?
    public var bytesHashed: Int64 = 0
    /// Where the previous catalog was moved (relative to the library), if there was one.
    public var previousCatalog: String?
    /// Why the previous catalog was replaced: "corrupt: …", "--force", or nil when there was none.
    public var previousCatalogState: String?
    public var seconds = 0.0

    public init() {}

    public var originals: Int { originalsFromJournal + originalsFromFiles }
}
