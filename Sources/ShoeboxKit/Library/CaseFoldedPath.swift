import Foundation

/// The form under which two library paths name one file on a case-insensitive file
/// system (macOS, exFAT, Windows): "Été/IMG_1.JPG" and "été/img_1.jpg" are one file
/// there, so a library copied to one must not hold both.
///
/// Unicode-aware where SQLite's NOCASE folds ASCII only. The catalog stores it
/// (`originals.folded_path`), so any catalog backend looks it up without its own
/// collation rules.
public enum CaseFoldedPath {
    public static func fold(_ path: String) -> String {
        path.canonicallyComposed.lowercased().canonicallyComposed
    }
}
