import ShoeboxKit
import Foundation

/// Renders `--help` text for a command, and the top-level command list.
public enum HelpFormatter {
    public static func usage(of spec: CommandSpec) -> String {
        var lines = ["USAGE: shoebox \(spec.name) [OPTIONS]\(spec.arguments.isEmpty ? "" : " " + spec.arguments)", "", spec.abstract, "", "OPTIONS:"]
        for option in spec.options {
            var names = option.short.map { "-\($0), " } ?? "    "
            names += "--\(option.long)"
            if let value = option.valueName { names += " \(value)" }
            var help = option.help
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            if case .values = option.kind { help += " Repeatable." }
            lines.append("  " + names.padding(toLength: max(names.count + 2, 30), withPad: " ", startingAt: 0) + help)
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
            "Run 'shoebox help COMMAND' or 'shoebox COMMAND --help' for a command's options.",
            "'shoebox --version' prints the version; 'man shoebox' is the full manual.",
        ]
        return lines.joined(separator: "\n")
    }
}
