import Foundation

/// The overview of where the photos were taken (map.svg, only with --gps): a dot per place on
/// the plain world outline shipped with Shoebox, nothing loaded from the network. Places are
/// merged per map unit (about 55 km at the equator), so the file is bounded by the map's area
/// (at most 720 x 360 dots), not by the number of photos.
public enum GalleryMap {
    public static let width = GalleryWorldOutline.width, height = GalleryWorldOutline.height

    /// Map units (x, y) with photos, and how many photos have a usable position.
    static func places<S: Sequence>(_ items: S) -> (units: [Int], photos: Int) where S.Element == GalleryItem {
        var units = Set<Int>(), photos = 0
        for item in items {
            guard let latitude = item.original.gpsLatitude, let longitude = item.original.gpsLongitude,
                  latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { continue }
            // The catalog's 0,0 is as likely a camera's "no fix" as a photo in the Gulf of Guinea; shown anyway.
            let x = min(width - 1, Int(((longitude + 180) / 360 * Double(width)).rounded(.down)))
            let y = min(height - 1, Int(((90 - latitude) / 180 * Double(height)).rounded(.down)))
            units.insert(y * width + x)
            photos += 1
        }
        return (units.sorted(), photos)
    }

    /// The SVG, or nil when no photo has a position.
    static func svg<S: Sequence>(_ items: S) -> (svg: String, photos: Int)? where S.Element == GalleryItem {
        let (units, photos) = places(items)
        guard photos > 0 else { return nil }
        var dots = ""
        dots.reserveCapacity(units.count * 12)
        for unit in units { dots += "M\(unit % width).5 \(unit / width).5h0" }
        let svg = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(width) \(height)" width="\(width)" height="\(height)">
        <title>Where the photos were taken</title>
        <rect width="\(width)" height="\(height)" fill="#dfe9f3"/>
        <path fill="#cfcfc6" stroke="#7d7d74" stroke-width=".5" d="\(GalleryWorldOutline.path)"/>
        <path fill="none" stroke="#b00020" stroke-width="5" stroke-linecap="round" d="\(dots)"/>
        </svg>

        """
        return (svg, photos)
    }
}
