import Foundation
import XCTest

/// Asks real shells what they would complete, with a generated script loaded:
/// bash calls the completion function the way `complete -F` does, fish answers
/// `complete -C`, and zsh runs interactively in a pseudo-terminal (zpty) where
/// TAB is pressed and every match offered through `compadd` is recorded.
struct CompletionsHarness {
    /// Where the script and scratch files go; completions of paths are relative to it.
    let directory: URL

    /// Matches bash offers with `words` typed (the last word is the one being completed).
    func bash(_ script: String, words: [String]) throws -> [String] {
        let file = try write(script, to: "completion.bash")
        let driver = """
        source "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _shoebox
        (( ${#COMPREPLY[@]} )) && printf '%s\\n' "${COMPREPLY[@]}"
        exit 0
        """
        let result = try ManualTool.run("bash", ["--norc", "--noprofile", "-c", driver, "driver", file] + words, in: directory)
        XCTAssertEqual(result.status, 0, result.stderr)
        return lines(result.stdout)
    }

    /// Matches fish offers for `line` (without descriptions), or with them when `descriptions`.
    func fish(_ script: String, line: String, descriptions: Bool = false) throws -> [String] {
        let file = try write(script, to: "completion.fish")
        let result = try ManualTool.run("fish", ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", file, line],
                                        in: directory, environment: ["HOME": directory.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return lines(result.stdout).map { descriptions ? $0 : String($0.prefix { $0 != "\t" }) }
    }

    /// Matches zsh offers for each of `lines`, in one interactive session.
    func zsh(_ script: String, lines commandLines: [String]) throws -> [[String]] {
        let file = try write(script, to: "_shoebox")
        let driver = try write(Self.zptyDriver, to: "zpty-driver.zsh")
        let outputs = commandLines.indices.map { directory.appendingPathComponent("zsh-matches-\($0)").path }
        let result = try ManualTool.run("zsh", ["-f", driver, file] + zip(outputs, commandLines).flatMap { [$0, $1] },
                                        in: directory, environment: ["HOME": directory.path])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        return outputs.map { path in
            XCTAssertTrue(FileManager.default.fileExists(atPath: path + ".done"), "zsh did not finish completing: \(path)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: path + ".end"), "zsh did not run the completion: \(path)")
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            var seen = Set<String>()
            return lines(text).filter { seen.insert($0).inserted }  // one file may be offered by two tags
        }
    }

    private func write(_ text: String, to name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// zsh -f driver.zsh SCRIPT OUT1 LINE1 [OUT2 LINE2 ...]: for each LINE, types it in an
    /// interactive zsh, presses TAB, and appends every match offered to OUT; OUT.done marks the end.
    static let zptyDriver = #"""
    zmodload zsh/zpty || exit 3
    script=$1; shift
    zpty shell zsh -f -i
    # What the shell prints (the listings of matches) is read and dropped as it comes: a terminal
    # nobody reads fills up, and the shell then blocks mid-listing (many options, a long list).
    drain() { local __junk; while zpty -rt shell __junk 2>/dev/null; do :; done }
    zpty -w shell "PS1=''; PROMPT=''; RPROMPT=''; unsetopt beep; autoload -Uz compinit; compinit -u -D"
    # Record the matches of every compadd call that adds to the list (not those only collecting with -O/-A/-D).
    zpty -w shell 'compadd() { if [[ " $* " == *" -"[OAD]" "* ]]; then builtin compadd "$@"; return; fi; local -a __m; builtin compadd -A __m "$@"; (( $#__m )) && print -rl -- $__m >> $__out; builtin compadd "$@"; }'
    zpty -w shell "source ${(q)script}; bindkey '^I' complete-word; print -r -- ready > ${(q)1}.ready"
    # Keys typed before the line editor is up may be lost: wait until the set-up has run.
    for i in {1..200}; do drain; [[ -e $1.ready ]] && break; sleep 0.05; done
    # After each completion, zsh runs the functions in comppostfuncs (then empties it): mark the end.
    zpty -w shell '__completed() { print -r -- end > $__out.end; }'
    while (( $# >= 2 )); do
        out=$1 line=$2; shift 2
        : > $out
        zpty -w shell "__out=${(q)out}; comppostfuncs=(__completed)"
        zpty -w -n shell "$line"$'\t'
        # Type nothing more until the completion has finished: zsh cuts a completion short when keys are waiting.
        for i in {1..500}; do drain; [[ -e $out.end ]] && break; sleep 0.02; done
        # Ctrl-U clears the line; the marker says the shell is ready for the next line.
        zpty -w shell $'\x15'"print -r -- done > ${(q)out}.done"
        for i in {1..500}; do drain; [[ -e $out.done ]] && break; sleep 0.02; done
    done
    zpty -d shell
    exit 0
    """#
}
