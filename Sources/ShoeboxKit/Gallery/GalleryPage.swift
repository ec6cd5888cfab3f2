import Foundation

/// The static gallery page: plain HTML and inline CSS, no scripts, relative
/// links only. Every value from the catalog is HTML-escaped and every path
/// percent-encoded.
public struct GalleryPage {
    public var sections: [GallerySection]
    /// Prefix leading from the page's folder to the library root ("../").
    public var libraryPrefix: String
    public var showGPS: Bool
    public var title = "Shoebox gallery"
    /// False when the originals are in an object store: thumbnails are shown without a link.
    public var linksOriginals = true

    public init(sections: [GallerySection], libraryPrefix: String, showGPS: Bool) {
        self.sections = sections
        self.libraryPrefix = libraryPrefix
        self.showGPS = showGPS
    }

    public var imageCount: Int { sections.reduce(0) { $0 + $1.items.count } }

    public func html() -> String {
        var page = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>\(HTMLEscaping.escape(title))</title>
        <style>
        \(Self.style)
        </style>
        </head>
        <body>
        <header><h1>\(HTMLEscaping.escape(title))</h1><p>\(imageCount) photo\(imageCount == 1 ? "" : "s")</p></header>

        """
        for section in sections {
            let id = section.day.map { "d" + $0 } ?? "undated"
            page += "<section id=\"\(id)\">\n<h2>\(HTMLEscaping.escape(section.title))</h2>\n<div class=\"grid\">\n"
            for item in section.items { page += figure(item) }
            page += "</div>\n</section>\n"
        }
        page += "</body>\n</html>\n"
        return page
    }

    private func link(_ path: String) -> String {
        HTMLEscaping.escape(libraryPrefix + RelativeLink.encode(path))
    }

    private func figure(_ item: GalleryItem) -> String {
        guard let smallest = item.thumbnails.first else { return "" }
        let srcset = item.thumbnails.map { "\(link($0.path)) \($0.width)w" }.joined(separator: ", ")
        let name = (item.original.path as NSString).lastPathComponent
        var caption: [String] = []
        if let camera = item.camera { caption.append("<span class=\"camera\">\(HTMLEscaping.escape(camera))</span>") }
        if let date = item.dateText { caption.append("<time>\(HTMLEscaping.escape(date))</time>") }
        if showGPS, let latitude = item.original.gpsLatitude, let longitude = item.original.gpsLongitude,
           latitude.isFinite, longitude.isFinite {
            let text = String(format: "%.5f, %.5f", latitude, longitude)
            caption.append("<span class=\"gps\">\(HTMLEscaping.escape(text))</span>")
        }
        if caption.isEmpty { caption.append("<span class=\"name\">\(HTMLEscaping.escape(name))</span>") }
        let image = """
        <img src="\(link(smallest.path))" srcset="\(srcset)" \
        sizes="(max-width: 36rem) 45vw, 15rem" width="\(smallest.width)" height="\(smallest.height)" \
        loading="lazy" decoding="async" alt="\(HTMLEscaping.escape(item.altText))">
        """
        // No link to an original whose file is missing (verify reports it): it would lead nowhere.
        if !item.originalExists { caption.append("<span class=\"missing\">original missing</span>") }
        let linkable = item.originalExists && linksOriginals
        let linked: String
        if linkable && !item.browserShowsOriginal, let largest = item.thumbnails.last {
            // A browser would download a HEIC or TIFF: the picture opens the largest thumbnail,
            // and the original is offered as the download it is.
            linked = "<a href=\"\(link(largest.path))\">\(image)</a>"
            let kind = HTMLEscaping.escape((item.original.path as NSString).pathExtension.uppercased())
            caption.append("<a class=\"original\" href=\"\(link(item.original.path))\" download>original\(kind.isEmpty ? "" : " (" + kind + ")")</a>")
        } else {
            linked = linkable ? "<a href=\"\(link(item.original.path))\">\(image)</a>" : image
        }
        return """
        <figure>\(linked)
        <figcaption>\(caption.joined(separator: " · "))</figcaption></figure>

        """
    }

    static let style = """
    body{margin:0;padding:1rem;font:14px/1.4 system-ui,sans-serif;background:#f4f4f2;color:#222}
    header h1{font-size:1.4rem;margin:0}header p{margin:.2rem 0 1rem;color:#555}
    h2{font-size:1.1rem;margin:1.5rem 0 .5rem;border-bottom:1px solid #ccc}
    .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:.75rem;align-items:start}
    figure{margin:0;background:#fff;padding:.4rem;border:1px solid #ddd}
    figure a{display:block}
    img{display:block;width:100%;height:auto;object-fit:contain}
    figcaption{margin-top:.3rem;color:#444;font-size:.85rem;overflow-wrap:anywhere}
    @media (max-width:36rem){.grid{grid-template-columns:repeat(2,1fr)}}
    """
}
