import Foundation

/// Puts an original's right bytes back in place: the one owner of that rule, for
/// `verify --repair` and for `fetch --refresh` of a URL whose original is gone or damaged.
///
/// The content must be staged and synced first (`OriginalStore.stage`, `syncStaged`), and
/// proven to be the catalogued content (its SHA-256 is the catalog's). Then: an original
/// that already holds that content is left alone (never are good bytes replaced); one
/// that holds other bytes is moved aside (`DamagedCopy`, never deleted); the staged content
/// is published at its path. A crash between the two steps leaves the path empty and the
/// content staged with its row committed: the next writer's recovery publishes it.
public enum OriginalPutBack {
    public enum Outcome: Sendable, Equatable {
        /// The original was missing: put in place.
        case created
        /// The original already held the content (repaired meanwhile): nothing changed.
        case alreadyPresent
        /// The original held other bytes: kept at `aside` (relative to the library), replaced.
        case replaced(aside: String)
    }

    public static func run(store: OriginalStore, sha256: String, path: String, time: time_t = time(nil)) throws -> Outcome {
        guard try store.exists(path: path) else {
            return try store.publish(sha256: sha256, to: path) == .created ? .created : .alreadyPresent
        }
        if try holds(store, path: path, sha256: sha256) {
            store.discardStaged(sha256: sha256)
            return .alreadyPresent
        }
        let aside = try DamagedCopy.path(for: path, at: time) { try store.exists(path: $0) }
        try store.setAside(path: path, to: aside)
        try store.publish(sha256: sha256, to: path)
        return .replaced(aside: aside)
    }

    /// Whether the bytes at `path` hash to `sha256`: read and hashed, whatever the store keeps
    /// beside them (a bucket's recorded hash says what was uploaded, not what is there now).
    public static func holds(_ store: OriginalStore, path: String, sha256: String) throws -> Bool {
        let hasher = SHA256Hasher()
        do {
            try store.stream(path: path) { hasher.update($0) }
        } catch let error as POSIXFileError where error.code == ENOENT {
            return false
        }
        return hasher.finalizeHex() == sha256
    }
}
