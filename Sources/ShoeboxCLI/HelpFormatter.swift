import ShoeboxKit
import Foundation

/// Renders `--help` text for a command, and the top-level command list.
public enum HelpFormatter {
    public static func usage(of spec: CommandSpec) -> String {
        var lines = ["USAGE: shoebox \(spec.name) [OPTIONS]\(spec.arguments.isEmpty ? "" : " " + spec.arguments)", "", spec.abstract, "", "OPTIONS:"]
        let names = spec.options.map { option in
            (option.short.map { "-\($0), " } ?? "    ") + "--\(option.long)" + (option.valueName.map { " \($0)" } ?? "")
        }
        // One column for every help text: at least 30 wide, wider when a name needs it.
        let column = max(30, (names.map(\.count).max() ?? 0) + 2)
        for (option, name) in zip(spec.options, names) {
            var help = option.help
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            if case .values = option.kind { help += " Repeatable." }
            lines.append("  " + name.padding(toLength: column, withPad: " ", startingAt: 0) + help)
        }
        if !spec.discussion.isEmpty {
            lines += ["", spec.discussion]
        }
        return lines.joined(separator: "\n")
    }

    public static func overview(commands: [CommandSpec]) -> String {
        var lines = [
            "shoebox \(Shoebox.version) - download, archive, inspect and verify photos",
            "",
            "USAGE: shoebox COMMAND [OPTIONS] [ARGUMENTS]",
            "",
            "COMMANDS:",
        ]
        for spec in commands {
            lines.append("  " + spec.name.padding(toLength: 14, withPad: " ", startingAt: 0) + spec.abstract)
        }
        lines += [
            "",
            "OPTIONS:",
            "  -h, --help     List the commands; after a command, print its usage.",
            "  -V, --version  Print the version and exit.",
            "",
            "Run 'shoebox help COMMAND' or 'shoebox COMMAND --help' for a command's options.",
            "'man shoebox' is the full manual.",
        ]
        return lines.joined(separator: "\n")
    }
}
