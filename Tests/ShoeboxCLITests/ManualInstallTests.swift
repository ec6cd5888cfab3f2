import XCTest
@testable import ShoeboxCLI
import ShoeboxKit

/// man/install.sh installs the binary, the manual page and the completions under PREFIX (and DESTDIR).
final class ManualInstallTests: XCTestCase {
    func testInstallPutsBinaryManualAndCompletionsUnderThePrefix() throws {
        let prefix = try makeTemporaryDirectory(self).appendingPathComponent("usr local")
        let result = try ManualTool.run("bash", [ManualTool.path("man/install.sh"), prefix.path],
                                        environment: ["SHOEBOX_BINARY": ShoeboxProcess.executable.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let files = [
            ("bin/shoebox", 0o755), ("share/man/man1/shoebox.1", 0o644),
            ("share/bash-completion/completions/shoebox", 0o644), ("share/zsh/site-functions/_shoebox", 0o644),
            ("share/fish/vendor_completions.d/shoebox.fish", 0o644),
        ]
        for (path, mode) in files {
            let attributes = try FileManager.default.attributesOfItem(atPath: prefix.appendingPathComponent(path).path)
            XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, mode, path)
        }
        XCTAssertEqual(try Data(contentsOf: prefix.appendingPathComponent("share/man/man1/shoebox.1")),
                       try Data(contentsOf: URL(fileURLWithPath: ManualTool.path("man/shoebox.1"))))
        let version = try ManualTool.run(prefix.appendingPathComponent("bin/shoebox").path, ["--version"])
        XCTAssertEqual(version.stdout, "shoebox \(Shoebox.version)\n")
        for (shell, path) in [("bash", "share/bash-completion/completions/shoebox"), ("zsh", "share/zsh/site-functions/_shoebox"),
                              ("fish", "share/fish/vendor_completions.d/shoebox.fish")] {
            let installed = try String(contentsOf: prefix.appendingPathComponent(path), encoding: .utf8)
            XCTAssertEqual(installed, try CompletionsCommand.script(for: shell, commands: CommandRegistry.commands.map { $0.spec }), shell)
        }
        // man finds the installed page through the prefix's man folder.
        let man = try ManualTool.run("man", ["-M", prefix.appendingPathComponent("share/man").path, "shoebox"],
                                     environment: ["MANWIDTH": "80", "MANPAGER": "cat"])
        XCTAssertEqual(man.status, 0, man.stderr)
        XCTAssertTrue(man.stdout.contains("shoebox - download, archive, inspect and verify photos"), man.stdout)
    }

    func testDestdirIsPrependedAndBadArgumentsAreRefused() throws {
        // Both paths inside a temporary folder, so a broken DESTDIR cannot write anywhere else.
        let stage = try makeTemporaryDirectory(self)
        let prefix = stage.path + "/prefix", destdir = stage.path + "/destdir"
        let result = try ManualTool.run("bash", [ManualTool.path("man/install.sh"), prefix],
                                        environment: ["SHOEBOX_BINARY": ShoeboxProcess.executable.path, "DESTDIR": destdir])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: destdir + prefix + "/bin/shoebox"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: prefix))
        let bad = try ManualTool.run("bash", [ManualTool.path("man/install.sh"), "--bogus"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("usage: bash man/install.sh [PREFIX]"), bad.stderr)
    }
}
