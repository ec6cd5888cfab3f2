import Foundation

/// What every gallery page shares: the head (shared style sheet, no external resources,
/// no referrer) and small text helpers.
enum GalleryHTML {
    static func escape(_ text: String) -> String { HTMLEscaping.escape(text) }

    /// "1 photo", "1,234 photos".
    static func count(_ number: Int, _ noun: String) -> String {
        var digits = String(number.magnitude), text = ""
        while digits.count > 3 {
            text = "," + digits.suffix(3) + text
            digits.removeLast(3)
        }
        text = (number < 0 ? "-" : "") + digits + text
        return "\(text) \(noun)\(number == 1 ? "" : "s")"
    }

    /// The document up to and including `<body>`; `assets` leads to gallery.css ("" or "../").
    static func head(title: String, assets: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>\(escape(title))</title>
        <link rel="stylesheet" href="\(assets)gallery.css">
        </head>
        <body>

        """
    }
}
