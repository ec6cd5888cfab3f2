import Foundation
import XCTest

/// A tmpfs of a few hundred KiB mounted for one test (needs root), unmounted in
/// teardown: for full-disk and read-only-library tests.
final class SmallFilesystem {
    let path: String

    init(kilobytes: Int, test: XCTestCase) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("shoebox-fs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0755", "tmpfs", path])
        let path = path
        test.addTeardownBlock {
            try? Self.run("/usr/bin/umount", ["-l", path])
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    func remount(readOnly: Bool) throws {
        try Self.run("/usr/bin/mount", ["-o", readOnly ? "remount,ro" : "remount,rw", path])
    }

    /// Writes a filler file until the file system is full; returns its path.
    @discardableResult
    func fill(name: String = "filler") -> String {
        let filler = path + "/" + name
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let chunk = [UInt8](repeating: 0xAB, count: 4096)
        while write(fd, chunk, chunk.count) > 0 {}
        while write(fd, chunk, 1) > 0 {}
        close(fd)
        return filler
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "SmallFilesystem", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments.joined(separator: " ")) failed"])
        }
    }
}
