import XCTest
@testable import ShoeboxCLI

/// `shoebox completions`: scripts generated from the specs, checked in real bash, zsh and fish.
final class CompletionsTests: XCTestCase {
    /// A command using every kind of value the generators know, with awkward help text.
    let grab = CommandSpec(name: "grab", abstract: "Grab: things [really], it's \"quoted\".", arguments: "[LIST ...]", options: [
        OptionSpec("library", short: "L", .value("DIR"), help: "Library: the folder [default: none]."),
        OptionSpec("format", .value("jpeg|webp|avif"), help: "Format's name."),
        OptionSpec("jobs", short: "j", .value("N"), help: "Jobs at once. More text."),
        OptionSpec("header", short: "H", .values("'NAME: VALUE'"), help: "A header \\ with a backslash."),
        OptionSpec("json", help: "JSON."),
    ])
    let help = CommandSpec(name: "help", abstract: "Help.", arguments: "[COMMAND]", options: [])
    let pick = CommandSpec(name: "pick", abstract: "Pick a shell.", arguments: "bash|zsh|fish", options: [])
    var specs: [CommandSpec] { [grab, help, pick] }
    var registered: [CommandSpec] { CommandRegistry.commands.map { $0.spec } }

    private func harness() throws -> CompletionsHarness {
        let directory = try makeTemporaryDirectory(self)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("albums"), withIntermediateDirectories: true)
        try Data("http://127.0.0.1/x.jpg\n".utf8).write(to: directory.appendingPathComponent("list.txt"))
        return CompletionsHarness(directory: directory)
    }

    private func script(_ shell: String, _ commands: [CommandSpec]) throws -> String {
        try CompletionsCommand.script(for: shell, commands: commands)
    }

    private func longOptions(_ spec: CommandSpec) -> Set<String> {
        Set(spec.options.map { "--" + $0.long })
    }

    // MARK: the real commands

    func testBinaryPrintsTheGeneratedScriptsAndEachShellAcceptsItsOwn() throws {
        let directory = try makeTemporaryDirectory(self)
        for (shell, check) in [("bash", ["bash", "-n"]), ("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-config", "-n"])] {
            let result = try ShoeboxProcess.run(["completions", shell])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stdout, try script(shell, registered), shell)
            let file = directory.appendingPathComponent("script.\(shell)")
            try result.stdout.write(to: file, atomically: true, encoding: .utf8)
            let syntax = try ManualTool.run(check[0], Array(check.dropFirst()) + [file.path])
            XCTAssertEqual(syntax.status, 0, "\(shell): \(syntax.stderr)")
        }
    }

    func testUnknownOrMissingShellIsAUsageError() throws {
        let unknown = try ShoeboxProcess.run(["completions", "tcsh"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown shell 'tcsh'") && unknown.stderr.contains("bash, zsh or fish"), unknown.stderr)
        XCTAssertEqual(unknown.stdout, "")
        let missing = try ShoeboxProcess.run(["completions"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("bash, zsh or fish"), missing.stderr)
    }

    func testEveryShellCompletesEveryCommandAndEveryOptionOfTheRegisteredCommands() throws {
        let harness = try harness()
        let names = Set(registered.map(\.name))
        XCTAssertEqual(Set(try harness.bash(try script("bash", registered), words: ["shoebox", ""])), names.union(["--help", "--version"]))
        XCTAssertEqual(Set(try harness.fish(try script("fish", registered), line: "shoebox ")), names)
        let zshLines = ["shoebox "] + registered.map { "shoebox \($0.name) --" } + ["shoebox help "]
        let zsh = try harness.zsh(try script("zsh", registered), lines: zshLines)
        XCTAssertEqual(Set(zsh[0]), names)
        XCTAssertEqual(Set(zsh.last ?? []), names, "shoebox help offers the commands")
        for (index, spec) in registered.enumerated() {
            let bash = try harness.bash(try script("bash", registered), words: ["shoebox", spec.name, "--"])
            XCTAssertEqual(Set(bash), longOptions(spec), "bash, \(spec.name)")
            let fish = try harness.fish(try script("fish", registered), line: "shoebox \(spec.name) --")
            XCTAssertEqual(Set(fish), longOptions(spec), "fish, \(spec.name)")
            XCTAssertEqual(Set(zsh[index + 1].filter { $0.hasPrefix("--") }), longOptions(spec), "zsh, \(spec.name)")
        }
    }

    // MARK: values and arguments, from the value names

    func testBashCompletesValuesByTheirNames() throws {
        let harness = try harness()
        let bash = try script("bash", specs)
        XCTAssertEqual(try harness.bash(bash, words: ["shoebox", "grab", "--library", ""]), ["albums"])
        XCTAssertEqual(try harness.bash(bash, words: ["shoebox", "grab", "-L", "al"]), ["albums"])
        XCTAssertEqual(try harness.bash(bash, words: ["shoebox", "grab", "--library", "=", ""]), ["albums"], "--library=DIR")
        XCTAssertEqual(try harness.bash(bash, words: ["shoebox", "grab", "--format", ""]), ["jpeg", "webp", "avif"])
        XCTAssertEqual(try harness.bash(bash, words: ["shoebox", "grab", "--format", "w"]), ["webp"])
        XCTAssertEqual(try harness.bash(bash, words: ["shoebox", "grab", "--jobs", ""]), [], "a number: nothing to offer")
        XCTAssertEqual(Set(try harness.bash(bash, words: ["shoebox", "grab", ""])), ["albums", "list.txt", "completion.bash"])
        XCTAssertEqual(Set(try harness.bash(bash, words: ["shoebox", "grab", "-"])), ["--library", "-L", "--format", "--jobs", "-j", "--header", "-H", "--json", "--help", "-h"])
        XCTAssertEqual(try harness.bash(bash, words: ["shoebox", "help", ""]), ["grab", "help", "pick"])
        XCTAssertEqual(try harness.bash(bash, words: ["shoebox", "pick", "z"]), ["zsh"])
    }

    func testFishCompletesValuesByTheirNamesWithDescriptions() throws {
        let harness = try harness()
        let fish = try script("fish", specs)
        XCTAssertEqual(try harness.fish(fish, line: "shoebox grab --library "), ["albums/"])
        XCTAssertEqual(try harness.fish(fish, line: "shoebox grab -L "), ["albums/"])
        XCTAssertEqual(Set(try harness.fish(fish, line: "shoebox grab --format ")), ["jpeg", "webp", "avif"])
        XCTAssertEqual(try harness.fish(fish, line: "shoebox grab --jobs "), [])
        XCTAssertTrue(Set(try harness.fish(fish, line: "shoebox grab ")).isSuperset(of: ["albums/", "list.txt"]))
        XCTAssertEqual(Set(try harness.fish(fish, line: "shoebox help ")), ["grab", "help", "pick"])
        XCTAssertEqual(Set(try harness.fish(fish, line: "shoebox pick ")), ["bash", "zsh", "fish"])
        XCTAssertEqual(try harness.fish(fish, line: "shoebox gr", descriptions: true), ["grab\tGrab: things [really], it's \"quoted\"."])
        XCTAssertEqual(try harness.fish(fish, line: "shoebox grab --head", descriptions: true), ["--header\tA header \\ with a backslash"])
    }

    func testZshCompletesValuesByTheirNames() throws {
        let harness = try harness()
        let matches = try harness.zsh(try script("zsh", specs), lines: [
            "shoebox grab --library ", "shoebox grab -L ", "shoebox grab --format ", "shoebox grab --jobs ",
            "shoebox grab ", "shoebox help ", "shoebox pick ", "shoebox gr", "shoebox grab --",
        ])
        XCTAssertEqual(matches[0], ["albums"])
        XCTAssertEqual(matches[1], ["albums"])
        XCTAssertEqual(Set(matches[2]), ["jpeg", "webp", "avif"])
        XCTAssertEqual(matches[3], [])
        XCTAssertTrue(Set(matches[4]).isSuperset(of: ["albums", "list.txt"]), "\(matches[4])")
        XCTAssertEqual(Set(matches[5]), ["grab", "help", "pick"])
        XCTAssertEqual(Set(matches[6]), ["bash", "zsh", "fish"])
        XCTAssertEqual(matches[7], ["grab"])
        XCTAssertEqual(Set(matches[8]), ["--library", "--format", "--jobs", "--header", "--json", "--help"])
    }
}
