import Foundation

/// Where a damaged original is kept when its right bytes are put back (`verify --repair`,
/// `fetch --refresh`): `damaged/STAMP/originals/...`, beside originals/ (never inside it,
/// so verify and reindex never take it for an original), one folder per repair run. The
/// damaged bytes may be someone's edit: they are kept, for the user to look at and delete.
public enum DamagedCopy {
    /// The folder under the library (or the bucket's prefix) that damaged copies go into.
    public static let folder = "damaged"

    /// The path (relative to the library) a damaged `path` is kept at, for a repair at `time`:
    /// the first of `damaged/STAMP/PATH`, `damaged/STAMP-2/PATH`, … that `isTaken` says is free.
    public static func path(for path: String, at time: time_t, isTaken: (String) throws -> Bool) throws -> String {
        let stamp = Timestamp.compact(time)
        for attempt in 1...1000 {
            let candidate = folder + "/" + stamp + (attempt == 1 ? "" : "-\(attempt)") + "/" + path
            if try !isTaken(candidate) { return candidate }
        }
        throw LibraryError.cannotCreate(path: folder + "/" + stamp, reason: "a thousand damaged copies of \(path) are kept already")
    }
}
