/// Why a library cannot be used; each message names the folder and what to do.
public enum LibraryError: Error, CustomStringConvertible, Equatable {
    /// Another writer holds the library's lock.
    case locked(path: String, holder: String?)
    /// A `--wait` for the lock ended by a signal before the lock was free.
    case waitInterrupted(path: String)
    /// The file system gives no locks at all (NFS without a lock service: ENOLCK).
    case cannotLock(path: String, reason: String)
    case notADirectory(path: String)
    /// A file where the library keeps a folder of its own (originals/, .tmp/).
    case fileInTheWay(path: String)
    case cannotCreate(path: String, reason: String)
    /// A symbolic link where the library keeps a folder of its own: never written through.
    case symbolicLinkInside(path: String)
    case notWritable(path: String, reason: String)
    case diskFull(path: String)
    case missingLibrary
    /// --store names a kind of store shoebox does not know.
    case unsupportedStore(url: String)
    /// The library keeps its originals in another store than the one given.
    case storeMismatch(library: String, recorded: String, given: String)
    /// A command that reads a library was pointed at a folder that does not exist.
    case doesNotExist(path: String)
    /// The folder exists but holds no catalog.
    case noCatalog(path: String)
    /// This user may not read the library (or its catalog, or a folder above it).
    case permissionDenied(path: String, kind: String, owner: String, mode: String, user: String)

    public var description: String {
        switch self {
        case .locked(let path, let holder):
            let who = holder.map { " (\($0))" } ?? ""
            return "library \(path) is in use by another shoebox process\(who); wait for it to finish, or pass --wait to queue behind it"
        case .cannotLock(let path, let reason):
            return "cannot lock \(path): \(reason); the library's file system gives no locks (NFS without a lock service?): "
                + "keep the library on a local disk, or enable file locking there"
        case .waitInterrupted(let path):
            return "interrupted while waiting for library \(path) to be free; nothing was done"
        case .notADirectory(let path):
            return "library \(path) exists but is not a folder; choose another --library path"
        case .fileInTheWay(let path):
            return "\(path) is a file where the library keeps a folder; move the file away and run the command again"
        case .symbolicLinkInside(let path):
            return "\(path) is a symbolic link inside the library; shoebox never writes through links there "
                + "(the file would land outside the library): replace the link with a real folder and run the command again"
        case .cannotCreate(let path, let reason):
            return "cannot create library folder \(path): \(reason); check the path and its permissions"
        case .notWritable(let path, let reason):
            return "library \(path) is not writable: \(reason); check its permissions or free space"
        case .diskFull(let path):
            return "no space left on the device holding \(path); free some space and run the same command again (completed work is kept)"
        case .doesNotExist(let path):
            return "no library at \(path): the folder does not exist; check the path (a library is created by 'shoebox fetch LIST --library \(path)')"
        case .noCatalog(let path):
            return "\(path) has no catalog.sqlite: fetch into it first, or, if its catalog was lost, rebuild it with 'shoebox reindex --library \(path)'"
        case .permissionDenied(let path, let kind, let owner, let mode, let user):
            return "permission denied: \(kind) \(path) is owned by \(owner) (mode \(mode)) and cannot be read by \(user); "
                + "run as \(owner), or have its permissions changed (nothing in it was touched)"
        case .storeMismatch(let library, let recorded, let given):
            return "library \(library) keeps its originals in \(recorded), not \(given): pass --store \(recorded) "
                + "(or no --store and no SHOEBOX_STORE: the library remembers its store), or use another --library"
        case .unsupportedStore(let url):
            return "unsupported store '\(url)': --store takes s3://BUCKET[/PREFIX] (or nothing, for LIBRARY/originals/)"
        case .missingLibrary:
            return "no library given: pass --library DIR (or -L DIR), or set SHOEBOX_LIBRARY"
        }
    }
}
