import Foundation

/// The page of one photo (photos/ID.html): the picture as large as its largest thumbnail,
/// what is known of it (camera, lens, exposure, capture date and where the date came from, size, place
/// with --gps), its original and the URLs it came from; links to the photos before and after
/// it, and back to its month. Works without scripts; with gallery.js, ←, → and Esc follow them.
public struct GalleryPhotoPage {
    public var item: GalleryItem
    /// The page (name) the photo is on, and the photos before and after it.
    public var pageName: String
    public var pageTitle: String
    public var previous: GalleryItem?
    public var next: GalleryItem?
    /// From photos/ to the library root.
    public var libraryPrefix: String
    public var showGPS: Bool
    public var title: String
    public var linksOriginals = true

    public init(item: GalleryItem, pageName: String, pageTitle: String, previous: GalleryItem?, next: GalleryItem?,
                libraryPrefix: String, showGPS: Bool, title: String) {
        self.item = item
        self.pageName = pageName
        self.pageTitle = pageTitle
        self.previous = previous
        self.next = next
        self.libraryPrefix = libraryPrefix
        self.showGPS = showGPS
        self.title = title
    }

    /// One line of what is known: "Canon EOS R5 · RF24-105mm F4 L IS USM · 1/250 s · f/8 · ISO 100 ·
    /// 35 mm · 2024-05-01 10:20",
    /// the date's source when it is not the camera, the position with --gps.
    static func summary(_ item: GalleryItem, showGPS: Bool) -> String {
        var parts: [String] = []
        if let camera = item.camera { parts.append(camera) }
        if let lens = item.original.lens?.nonEmpty { parts.append(lens) }
        if let exposure = item.original.exposureValues?.text { parts.append(exposure) }
        if let date = item.dateText {
            parts.append(item.dateCaveat.map { "\(date) (\($0.short))" } ?? date)
        }
        if showGPS, let position = position(item) { parts.append(position.text) }
        return parts.isEmpty ? (item.original.path as NSString).lastPathComponent : parts.joined(separator: " · ")
    }

    static func position(_ item: GalleryItem) -> (text: String, map: String)? {
        guard let latitude = item.original.gpsLatitude, let longitude = item.original.gpsLongitude,
              latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        let text = String(format: "%.5f, %.5f", latitude, longitude)
        let map = String(format: "https://www.openstreetmap.org/?mlat=%.5f&mlon=%.5f#map=15/%.5f/%.5f",
                         latitude, longitude, latitude, longitude)
        return (text, map)
    }

    private func link(_ path: String) -> String {
        GalleryHTML.escape(libraryPrefix + RelativeLink.encode(path))
    }

    public func html() -> String {
        guard let largest = item.thumbnails.last else { return "" }
        let heading = item.altText
        var html = GalleryHTML.head(title: heading + " · " + title, assets: "../")
        let back = "../months/" + RelativeLink.encode(pageName + ".html") + "#p" + item.id
        html += "<header>\n<nav class=\"crumbs\" aria-label=\"Gallery\"><a href=\"../index.html\">\(GalleryHTML.escape(title))</a> › "
            + "<a rel=\"up\" href=\"\(GalleryHTML.escape(back))\">\(GalleryHTML.escape(pageTitle))</a></nav>\n</header>\n<main>\n"
        html += "<h1>\(GalleryHTML.escape(heading))</h1>\n"
        let srcset = item.thumbnails.map { "\(link($0.path)) \($0.width)w" }.joined(separator: ", ")
        html += "<figure class=\"view\"><img src=\"\(link(largest.path))\" srcset=\"\(srcset)\""
            + " sizes=\"(max-width: \(largest.width)px) 100vw, \(largest.width)px\""
            + " width=\"\(largest.width)\" height=\"\(largest.height)\" alt=\"\(GalleryHTML.escape(item.altText))\"></figure>\n"
        html += pager()
        html += "<dl class=\"facts\">\n"
        if let date = item.dateText {
            var text = GalleryHTML.escape(date)
            if let caveat = item.dateCaveat { text += " <span class=\"caveat\">(dated \(GalleryHTML.escape(caveat.long)))</span>" }
            html += "<dt>Taken</dt><dd>\(text)</dd>\n"
        } else {
            html += "<dt>Taken</dt><dd>unknown: the file names no capture time</dd>\n"
        }
        if let camera = item.camera { html += "<dt>Camera</dt><dd>\(GalleryHTML.escape(camera))</dd>\n" }
        if let lens = item.original.lens?.nonEmpty { html += "<dt>Lens</dt><dd>\(GalleryHTML.escape(lens))</dd>\n" }
        if let exposure = item.original.exposureValues?.text {
            html += "<dt>Exposure</dt><dd>\(GalleryHTML.escape(exposure))</dd>\n"
        }
        var size = ByteSize.format(item.original.bytes)
        if let width = item.original.width, let height = item.original.height { size = "\(width) × \(height) px, " + size }
        html += "<dt>Original</dt><dd>\(GalleryHTML.escape(size)) \(GalleryHTML.escape(item.original.contentType))<br>"
        let name = GalleryHTML.escape((item.original.path as NSString).lastPathComponent)
        if !item.originalExists {
            html += "\(name) <strong>(missing from the library: run shoebox verify)</strong>"
        } else if linksOriginals {
            html += "<a href=\"\(link(item.original.path))\"\(item.browserShowsOriginal ? "" : " download")>\(name)</a>"
        } else {
            html += name
        }
        html += "</dd>\n"
        if showGPS, let position = Self.position(item) {
            html += "<dt>Place</dt><dd>\(position.text) <a href=\"\(GalleryHTML.escape(position.map))\" rel=\"noreferrer\">map</a></dd>\n"
        }
        if !item.sources.isEmpty {
            html += "<dt>Fetched from</dt><dd><ul>"
            for source in item.sources.prefix(20) { html += "<li>\(GalleryHTML.escape(source))</li>" }
            if item.sources.count > 20 { html += "<li>and \(item.sources.count - 20) more</li>" }
            html += "</ul></dd>\n"
        }
        html += "</dl>\n</main>\n<script src=\"../gallery.js\" defer></script>\n</body>\n</html>\n"
        return html
    }

    private func pager() -> String {
        var links: [String] = []
        if let previous { links.append("<a rel=\"prev\" href=\"\(previous.id).html\">← Earlier</a>") }
        if let next { links.append("<a rel=\"next\" href=\"\(next.id).html\">Later →</a>") }
        return links.isEmpty ? "" : "<nav class=\"pager\" aria-label=\"Photos\">" + links.joined(separator: " ") + "</nav>\n"
    }
}
