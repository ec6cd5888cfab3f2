import Foundation

/// Every entry under a folder, named by its exact bytes, without following symbolic
/// links. FileManager's enumerator skips names that are not UTF-8 (old Latin-1 archives),
/// and Swift compares strings up to Unicode equivalence: "café" composed and decomposed
/// are two files on Linux but one `String`.
enum DirectoryWalker {
    struct Entry {
        /// Path relative to the walked folder, as the file system spells it.
        var relativePath: [UInt8]
        var info: stat
    }

    /// A folder that could not be listed: its entries were not visited.
    struct UnreadableFolder: Equatable {
        /// Path relative to the walked folder (empty for the walked folder itself).
        var relativePath: [UInt8]
        var code: Int32
    }

    /// Calls `visit` for every entry that is not a folder; folders are walked
    /// depth-first. Returns the folders that could not be listed (permissions,
    /// an I/O error), so that a caller never takes "not listed" for "empty".
    /// A walked folder that does not exist gives no entries and no failure.
    @discardableResult
    static func walk(_ folder: String, _ visit: (Entry) -> Void) -> [UnreadableFolder] {
        let root = Array(folder.utf8)
        var pending: [[UInt8]] = [[]]
        var unreadable: [UnreadableFolder] = []
        while let relative = pending.popLast() {
            let absolute = relative.isEmpty ? root : root + [UInt8(ascii: "/")] + relative
            let listing = names(in: absolute)
            guard let entries = listing.names else {
                if !(relative.isEmpty && listing.code == ENOENT) {
                    unreadable.append(UnreadableFolder(relativePath: relative, code: listing.code))
                }
                continue
            }
            var entered = true
            for name in entries {
                let child = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
                var info = stat()
                let code = withCString(root + [UInt8(ascii: "/")] + child) { lstat($0, &info) == 0 ? 0 : errno }
                guard code == 0 else {
                    // Gone since the listing: nothing to see. Otherwise the folder can be listed
                    // but not entered (read without search permission): its entries are unseen.
                    if code != ENOENT && entered {
                        entered = false
                        unreadable.append(UnreadableFolder(relativePath: relative, code: code))
                    }
                    continue
                }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    pending.append(child)
                } else {
                    visit(Entry(relativePath: child, info: info))
                }
            }
        }
        return unreadable
    }

    /// The names in `folder` (without "." and ".."), or nil and the `errno` of the failure.
    static func names(in folder: [UInt8]) -> (names: [[UInt8]]?, code: Int32) {
        var code: Int32 = 0
        let opened = withCString(folder) { path in
            let stream = opendir(path)
            if stream == nil { code = errno }
            return stream
        }
        guard let stream = opened else { return (nil, code) }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else { break }
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            names.append(name)
        }
        // readdir gives nil at the end and on an error; only an error sets errno.
        if errno != 0 { return (nil, errno) }
        return (names, 0)
    }

    /// A path's bytes for people: as is when UTF-8, else with `\xNN` for every byte outside
    /// printable ASCII (and for backslashes, so the escapes read one way).
    static func shown(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return bytes.map { (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\\") ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }
            .joined()
    }

    /// `body` with `bytes` as a C path.
    static func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}
