import Foundation

/// man/shoebox.1 read back: its sections, and the options each command's
/// subsection documents as `.TP` tags such as `\fB\-L\fR, \fB\-\-library\fR \fIDIR\fR`.
struct ManualPage {
    struct DocumentedOption: Equatable {
        var long: String
        var short: Character?
        var valueName: String?
        /// The option's description, as plain text.
        var text: String
    }

    let source: String

    init(path: String) throws {
        source = try String(contentsOfFile: path, encoding: .utf8)
    }

    /// Source lines, without comment lines.
    var lines: [String] {
        source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.hasPrefix(".\\\"") }
    }

    /// The lines of the `.SH` section named `name` (without its heading).
    func section(_ name: String) -> [String] {
        block(in: lines, heading: ".SH", named: name)
    }

    /// The names of the `.SS` subsections of COMMANDS.
    var commandNames: [String] {
        section("COMMANDS").filter { $0.hasPrefix(".SS ") }.map { Self.headingName($0) }
    }

    /// The lines of the subsection of COMMANDS for `command`.
    func subsection(_ command: String) -> [String] {
        block(in: section("COMMANDS"), heading: ".SS", named: command)
    }

    /// The options documented in the subsection of COMMANDS for `command`.
    func options(of command: String) -> [DocumentedOption] {
        Self.options(in: subsection(command))
    }

    /// Every `--name` written anywhere in the page.
    var longOptionsMentioned: Set<String> {
        let pattern = try! NSRegularExpression(pattern: #"\\-\\-([a-z0-9]+(?:\\-[a-z0-9]+)*)"#)
        let text = lines.joined(separator: "\n")
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
        return Set(matches.map { Self.unescape(String(text[Range($0.range(at: 1), in: text)!])) })
    }

    /// The section as plain text (font escapes and macros removed).
    func text(ofSection name: String) -> String {
        Self.plain(section(name))
    }

    // MARK: parsing

    static func options(in lines: [String]) -> [DocumentedOption] {
        var options: [DocumentedOption] = []
        var index = 0
        while index < lines.count {
            defer { index += 1 }
            guard lines[index] == ".TP", index + 1 < lines.count, let option = parseTag(lines[index + 1]) else { continue }
            var body: [String] = []
            var next = index + 2
            while next < lines.count, ![".TP", ".PP", ".SS", ".SH"].contains(where: { lines[next].hasPrefix($0) }) {
                body.append(lines[next])
                next += 1
            }
            options.append(DocumentedOption(long: option.long, short: option.short, valueName: option.valueName, text: plain(body)))
        }
        return options
    }

    /// `\fB\-j\fR, \fB\-\-jobs\fR \fIN\fR` → ("jobs", "j", "N").
    static func parseTag(_ tag: String) -> (long: String, short: Character?, valueName: String?)? {
        let pattern = try! NSRegularExpression(pattern:
            #"^(?:\\fB\\-([A-Za-z0-9])\\fR, )?\\fB\\-\\-([a-z0-9]+(?:\\-[a-z0-9]+)*)\\fR(?: \\fI(.+)\\fR)?$"#)
        guard let match = pattern.firstMatch(in: tag, range: NSRange(tag.startIndex..., in: tag)) else { return nil }
        func group(_ number: Int) -> String? {
            Range(match.range(at: number), in: tag).map { String(tag[$0]) }
        }
        return (unescape(group(2)!), group(1).flatMap(\.first), group(3).map(unescape))
    }

    private func block(in lines: [String], heading: String, named name: String) -> [String] {
        guard let start = lines.firstIndex(where: { $0.hasPrefix(heading + " ") && Self.headingName($0) == name }) else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix(heading + " ") || $0.hasPrefix(".SH ") } ?? lines.endIndex
        return Array(lines[(start + 1)..<end])
    }

    private static func headingName(_ line: String) -> String {
        String(line.split(separator: " ", maxSplits: 1).last ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    /// troff escapes a reader does not see: `\-` is `-`, `\e` is `\`, font changes vanish.
    static func unescape(_ text: String) -> String {
        var result = text
        for (escape, plain) in [("\\fB", ""), ("\\fI", ""), ("\\fR", ""), ("\\fP", ""), ("\\-", "-"), ("\\e", "\\"),
                                ("\\(aq", "'"), ("\\&", ""), ("\\c", "")] {
            result = result.replacingOccurrences(of: escape, with: plain)
        }
        return result
    }

    /// Lines of troff as running text: macro names dropped, quotes of macro arguments removed.
    static func plain(_ lines: [String]) -> String {
        lines.map { line -> String in
            guard line.hasPrefix(".") else { return unescape(line) }
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { return "" }
            return unescape(String(parts[1]).replacingOccurrences(of: "\"", with: ""))
        }
        .joined(separator: " ")
    }
}
