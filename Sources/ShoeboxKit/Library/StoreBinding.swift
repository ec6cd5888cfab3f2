import Foundation

/// Which store a library's originals are in, remembered in LIBRARY/store (one line, the
/// store URL) from the first write to a store outside the library folder: later commands
/// find it without --store, and a command pointed at another store is refused. Without
/// it, a reindex run without --store would rebuild the catalog from an empty originals/,
/// and a fetch would scatter originals over two places.
public enum StoreBinding {
    /// The store LIBRARY/store names; nil when the file is missing (the library folder).
    public static func recorded(in layout: LibraryLayout) throws -> StoreLocation? {
        guard let data = FileManager.default.contents(atPath: layout.storeFile) else { return nil }
        let url = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !url.isEmpty else { return nil }
        return .objectStore(url: url)
    }

    /// Throws when the configuration names another store than the library records.
    public static func check(_ configuration: LibraryConfiguration) throws {
        guard let recorded = try recorded(in: configuration.layout), recorded != configuration.store else { return }
        throw LibraryError.storeMismatch(library: configuration.layout.root, recorded: recorded.shown, given: configuration.store.shown)
    }

    /// Records an object store for a library writing to it the first time; refuses one whose
    /// originals are in its own folder already.
    static func record(_ configuration: LibraryConfiguration) throws {
        guard case .objectStore(let url) = configuration.store, try recorded(in: configuration.layout) == nil else { return }
        var hasLocalOriginals = false
        DirectoryWalker.walk(configuration.layout.originals) { _ in hasLocalOriginals = true }
        if hasLocalOriginals {
            throw LibraryError.storeMismatch(library: configuration.layout.root, recorded: StoreLocation.libraryFolder.shown, given: url)
        }
        do {
            try AtomicFileWriter.write(Array((url + "\n").utf8), to: configuration.layout.storeFile, temporaryPrefix: ".store.tmp-")
        } catch let error as POSIXFileError {
            throw LibraryError.notWritable(path: configuration.layout.root, reason: "cannot record its store: \(error)")
        }
    }
}

extension StoreLocation {
    /// How a shared catalog records the store: its URL, or "library-folder".
    var bindingName: String {
        switch self {
        case .libraryFolder: return "library-folder"
        case .objectStore(let url): return url
        }
    }

    init(bound name: String) {
        self = name == "library-folder" ? .libraryFolder : .objectStore(url: name)
    }

    /// For messages: the URL, or the library's own folder.
    var shown: String {
        switch self {
        case .libraryFolder: return "LIBRARY/originals/"
        case .objectStore(let url): return url
        }
    }
}
