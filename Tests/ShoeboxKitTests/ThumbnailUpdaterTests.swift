import Foundation
import XCTest
@testable import ShoeboxKit

final class ThumbnailUpdaterTests: XCTestCase {
    private let photo = "originals/2024/05/01/IMG_0001.jpg"

    private func makeRotatedLibrary() throws -> TestLibrary {
        let library = try TestLibrary(self)
        try ImageFixtures.rotatedJPEG(at: try library.prepare(photo))
        try library.add(photo)
        return library
    }

    private func update(_ library: TestLibrary, _ options: ThumbnailOptions, prune: Bool = false)
        throws -> (ThumbnailSummary, [ThumbnailEvent]) {
        var events: [ThumbnailEvent] = []
        let summary = try ThumbnailUpdater(libraryRoot: library.root, catalog: library.catalog, options: options)
            .run(prune: prune) { events.append($0) }
        return (summary, events)
    }

    func testThumbnailsAreUprightNeverEnlargedAndCarryNoGPS() throws {
        let library = try makeRotatedLibrary()
        let original = try ImageFixtures.tags(library.root + "/" + photo)
        XCTAssertNotNil(original["GPS:GPSLatitude"], "fixture must carry GPS for this test to mean anything")
        XCTAssertEqual(original["IFD0:Orientation"] as? Int, 6)

        let (summary, _) = try update(library, ThumbnailOptions(sizes: [.init(width: 256, height: 256), .init(width: 1024, height: 1024)], jobs: 2))
        XCTAssertEqual(summary.made, 2)
        XCTAssertEqual(summary.failed, 0)

        let small = library.root + "/thumbnails/256/2024/05/01/IMG_0001.jpg.jpg"
        let large = library.root + "/thumbnails/1024/2024/05/01/IMG_0001.jpg.jpg"
        let (w, h) = try ImageFixtures.size(small)
        XCTAssertEqual(w, 256)
        XCTAssertEqual(h, 171)
        let (lw, lh) = try ImageFixtures.size(large)
        XCTAssertEqual([lw, lh], [600, 400], "1024 must not enlarge a 600x400 image")
        for file in [small, large] {
            let (fw, fh) = try ImageFixtures.size(file)
            let top = try ImageFixtures.pixel(file, x: fw / 2, y: fh / 6)
            let bottom = try ImageFixtures.pixel(file, x: fw / 2, y: fh * 5 / 6)
            XCTAssertGreaterThan(top[0], 200, "top should be red: \(top)")
            XCTAssertLessThan(top[2], 60, "top should be red: \(top)")
            XCTAssertGreaterThan(bottom[2], 200, "bottom should be blue: \(bottom)")
            XCTAssertLessThan(bottom[0], 60, "bottom should be blue: \(bottom)")
            let tags = try ImageFixtures.tags(file)
            XCTAssertTrue(tags.keys.filter { $0.hasPrefix("GPS:") || $0.contains("GPS") }.isEmpty, "GPS leaked: \(tags.keys)")
            XCTAssertNil(tags["IFD0:Orientation"])
            XCTAssertNil(tags["IFD0:Make"])
        }
        let records = try library.catalog.allThumbnails()
        XCTAssertEqual(records.map(\.path), ["thumbnails/1024/2024/05/01/IMG_0001.jpg.jpg",
                                             "thumbnails/256/2024/05/01/IMG_0001.jpg.jpg"])
        XCTAssertEqual(records.map { [$0.width, $0.height] }, [[600, 400], [256, 171]])
        XCTAssertEqual(Set(records.map(\.originalSHA256)), [try library.catalog.allOriginals()[0].sha256])
        let tag = try String(contentsOfFile: library.root + "/thumbnails/CACHEDIR.TAG", encoding: .utf8)
        XCTAssertTrue(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
    }

    func testKeepMetadataKeepsGPSButStillRotates() throws {
        let library = try makeRotatedLibrary()
        _ = try update(library, ThumbnailOptions(sizes: [.init(width: 128, height: 128)], keepMetadata: true))
        let file = library.root + "/thumbnails/128/2024/05/01/IMG_0001.jpg.jpg"
        let tags = try ImageFixtures.tags(file)
        XCTAssertNotNil(tags["GPS:GPSLatitude"])
        XCTAssertNotEqual(tags["IFD0:Orientation"] as? Int, 6, "an upright thumbnail must not ask to be rotated again")
        XCTAssertEqual(try ImageFixtures.size(file).0, 128)
    }

    func testNoFormatCarriesGPSUnlessAskedAndKeepMetadataKeepsIt() throws {
        for format in ThumbnailFormat.allCases {
            for keep in [false, true] {
                let library = try makeRotatedLibrary()
                _ = try update(library, ThumbnailOptions(sizes: [.init(width: 96, height: 96)], format: format, keepMetadata: keep))
                let tags = try ImageFixtures.tags(library.root + "/thumbnails/96/2024/05/01/IMG_0001.jpg." + format.fileExtension)
                let kept = tags.keys.filter { $0.contains("GPS") || $0.hasSuffix(":Make") || $0.hasSuffix(":DateTimeOriginal") }
                if keep {
                    XCTAssertNotNil(tags["GPS:GPSLatitude"], "\(format) with keepMetadata: \(tags.keys.sorted())")
                } else {
                    XCTAssertEqual(kept, [], "\(format) thumbnail leaks metadata")
                }
            }
        }
    }

    func testChangedSettingsRemakeThumbnailsSoMetadataIsStrippedAgain() throws {
        let library = try makeRotatedLibrary()
        let file = library.root + "/thumbnails/96/2024/05/01/IMG_0001.jpg.jpg"
        let kept = ThumbnailOptions(sizes: [.init(width: 96, height: 96)], keepMetadata: true)
        XCTAssertEqual(try update(library, kept).0.made, 1)
        XCTAssertNotNil(try ImageFixtures.tags(file)["GPS:GPSLatitude"])
        XCTAssertEqual(try update(library, kept).0.upToDate, 1, "same settings: kept")

        let plain = ThumbnailOptions(sizes: [.init(width: 96, height: 96)])
        XCTAssertEqual(try update(library, plain).0.made, 1, "other settings: remade")
        XCTAssertNil(try ImageFixtures.tags(file)["GPS:GPSLatitude"], "GPS gone once --keep-metadata is dropped")
        XCTAssertEqual(try library.catalog.allThumbnails().map(\.settings), [plain.settings])
        XCTAssertEqual(try update(library, ThumbnailOptions(sizes: [.init(width: 96, height: 96)], quality: 40)).0.made, 1)
        XCTAssertEqual(try update(library, ThumbnailOptions(sizes: [.init(width: 96, height: 96)], quality: 40)).0.upToDate, 1)
    }

    func testIncrementalKeepsFreshThumbnailsAndRemakesStaleOrForced() throws {
        let library = try makeRotatedLibrary()
        let options = ThumbnailOptions(sizes: [.init(width: 64, height: 64), .init(width: 96, height: 96)])
        XCTAssertEqual(try update(library, options).0.made, 2)
        let thumb = "thumbnails/64/2024/05/01/IMG_0001.jpg.jpg"
        let firstTime = try library.modificationTime(thumb)

        let (again, _) = try update(library, options)
        XCTAssertEqual(again.made, 0)
        XCTAssertEqual(again.upToDate, 1)
        XCTAssertEqual(try library.modificationTime(thumb), firstTime)

        // An original newer than its thumbnails gets them remade.
        let future = Date().addingTimeInterval(60)
        try FileManager.default.setAttributes([.modificationDate: future], ofItemAtPath: library.root + "/" + photo)
        XCTAssertEqual(try update(library, options).0.made, 2)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)],
                                              ofItemAtPath: library.root + "/" + photo)
        XCTAssertEqual(try update(library, options).0.made, 0)

        var forced = options
        forced.force = true
        XCTAssertEqual(try update(library, forced).0.made, 2)

        // A thumbnail file the catalog forgot is recorded again from its header.
        try library.catalog.removeThumbnail(path: thumb)
        let (_, events) = try update(library, options)
        XCTAssertTrue(events.contains { if case .found(let record) = $0 { return record.path == thumb && record.width == 64 } else { return false } })
        XCTAssertNotNil(try library.catalog.allThumbnails().first { $0.path == thumb })

        // An unreadable thumbnail file the catalog does not know is remade, not trusted.
        try library.catalog.removeThumbnail(path: thumb)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: library.root + "/" + thumb))
        let (repaired, _) = try update(library, options)
        XCTAssertEqual(repaired.made, 1)
        XCTAssertEqual(try ImageFixtures.size(library.root + "/" + thumb).0, 64)
    }

    func testPruneRemovesThumbnailsOfOriginalsGoneFromTheCatalogOnly() throws {
        let library = try makeRotatedLibrary()
        let second = "originals/2024/06/02/IMG_0002.jpg"
        try ImageFixtures.solid(at: try library.prepare(second), width: 120, height: 80, color: "green")
        try library.add(second)
        let options = ThumbnailOptions(sizes: [.init(width: 64, height: 64)])
        XCTAssertEqual(try update(library, options).0.made, 2)
        // One original's file is gone; a stray thumbnail belongs to no catalogued original.
        try library.deleteOriginalFile(second)
        let stray = "thumbnails/64/2023/01/01/stray.jpg.jpg"
        _ = try library.prepare(stray)
        try FileManager.default.copyItem(atPath: library.root + "/thumbnails/64/2024/05/01/IMG_0001.jpg.jpg",
                                         toPath: library.root + "/" + stray)

        let (unpruned, _) = try update(library, options)
        XCTAssertEqual(unpruned.pruned, 0, "without --prune nothing is removed")
        XCTAssertEqual(unpruned.failed, 1, "the missing original is reported")
        XCTAssertTrue(library.exists("thumbnails/64/2024/06/02/IMG_0002.jpg.jpg"))

        let (summary, _) = try update(library, options, prune: true)
        XCTAssertEqual(summary.pruned, 1)
        XCTAssertTrue(library.exists("thumbnails/64/2024/06/02/IMG_0002.jpg.jpg"),
                      "still catalogued: its file may come back from a backup, and this preview may be all that is left")
        XCTAssertFalse(library.exists(stray))
        XCTAssertFalse(library.exists("thumbnails/64/2023"), "emptied folders go too")
        XCTAssertTrue(library.exists("thumbnails/64/2024/05/01/IMG_0001.jpg.jpg"))
        XCTAssertTrue(library.exists("thumbnails/CACHEDIR.TAG"))
        XCTAssertEqual(try library.catalog.allThumbnails().map(\.path),
                       ["thumbnails/64/2024/05/01/IMG_0001.jpg.jpg", "thumbnails/64/2024/06/02/IMG_0002.jpg.jpg"])
    }

    func testAKilledRunsTempFilesAreRemovedAndACutThumbnailIsRemade() throws {
        let library = try makeRotatedLibrary()
        let options = ThumbnailOptions(sizes: [.init(width: 64, height: 64)])
        XCTAssertEqual(try update(library, options).0.made, 1)
        let thumb = library.root + "/thumbnails/64/2024/05/01/IMG_0001.jpg.jpg"
        let leftover = library.root + "/thumbnails/64/2024/05/01/.tmp-0C0FFEE.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: leftover, contents: Data("half".utf8)))
        let latin1 = Array("thumbnails/64/2024/05/01/.tmp-caf".utf8) + [0xE9] + Array(".jpg".utf8)
        Damage.writeFile(named: latin1, in: library.root, contents: Data("half".utf8))
        // Cut short (a disk that lost its tail), yet newer than the original.
        let whole = try Data(contentsOf: URL(fileURLWithPath: thumb))
        try whole.prefix(100).write(to: URL(fileURLWithPath: thumb))

        let (summary, _) = try update(library, options)
        XCTAssertEqual(summary.leftoversRemoved, 2, "a name that is not UTF-8 too")
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover))
        XCTAssertEqual(ThumbnailLayout.leftovers(in: library.root).count, 0)
        XCTAssertEqual(summary.made, 1, "a thumbnail of another size than recorded is remade")
        XCTAssertEqual(try ImageFixtures.size(thumb).0, 64)
        XCTAssertEqual(try update(library, options).0.upToDate, 1)
    }

    func testADamagedOriginalKeepsTheThumbnailsMadeFromItsArchivedBytes() throws {
        let library = try makeRotatedLibrary()
        let options = ThumbnailOptions(sizes: [.init(width: 64, height: 64)])
        XCTAssertEqual(try update(library, options).0.made, 1)
        let thumb = library.root + "/thumbnails/64/2024/05/01/IMG_0001.jpg.jpg"
        let good = try Data(contentsOf: URL(fileURLWithPath: thumb))

        // An edit or bit rot of the same size: newer than the thumbnail, so it would be remade.
        let original = library.root + "/" + photo
        chmod(original, 0o644)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: original))
        for offset in bytes.count / 2..<bytes.count / 2 + 400 { bytes[offset] = 0x55 }
        try bytes.write(to: URL(fileURLWithPath: original))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: original)
        let (summary, events) = try update(library, options)
        XCTAssertEqual(summary.made, 0)
        XCTAssertEqual(summary.failed, 1)
        guard case .failed(_, .originalChanged(let path, _))? = events.first else { return XCTFail("\(events)") }
        XCTAssertEqual(path, photo)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: thumb)), good, "the good thumbnail is kept")

        // A size other than the archived one is refused even with no thumbnail to lose.
        try FileManager.default.removeItem(atPath: thumb)
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: original))
        let (cut, cutEvents) = try update(library, options)
        XCTAssertEqual(cut.failed, 1)
        guard case .failed(_, .originalChanged(_, let detail))? = cutEvents.first else { return XCTFail("\(cutEvents)") }
        XCTAssertTrue(detail.contains("archived with \(bytes.count)"), detail)
        XCTAssertFalse(FileManager.default.fileExists(atPath: thumb))
    }

    func testBadInputsFailByNameAndTheOthersGoOn() throws {
        let library = try makeRotatedLibrary()
        // A JPEG whose header declares 30000x30000 but holds 16x16 pixels of data:
        // a decode would fail differently; the header check must refuse it first.
        let bomb = "originals/2024/05/01/bomb.jpg"
        try ImageFixtures.solid(at: try library.prepare(bomb), width: 16, height: 16, color: "gray")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: library.root + "/" + bomb)))
        let sof = try XCTUnwrap((0..<bytes.count - 9).first { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) })
        bytes[sof + 5] = 0x75; bytes[sof + 6] = 0x30  // height 30000
        bytes[sof + 7] = 0x75; bytes[sof + 8] = 0x30  // width 30000
        try Data(bytes).write(to: URL(fileURLWithPath: library.root + "/" + bomb))
        try library.add(bomb)
        let garbage = "originals/2024/05/01/garbage.jpg"
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: try library.prepare(garbage)))
        try library.add(garbage)
        let truncated = "originals/2024/05/01/truncated.jpg"
        try ImageFixtures.solid(at: try library.prepare(truncated), width: 800, height: 600, color: "orange")
        let whole = try Data(contentsOf: URL(fileURLWithPath: library.root + "/" + truncated))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: library.root + "/" + truncated))
        try library.add(truncated)

        let (summary, events) = try update(library, ThumbnailOptions(sizes: [.init(width: 64, height: 64)], jobs: 2))
        XCTAssertEqual(summary.made, 1)
        XCTAssertEqual(summary.failed, 3)
        var failures: [String: ThumbnailError] = [:]
        for case .failed(let source, let error) in events { failures[source.path] = error }
        guard case .tooManyPixels(_, 30000, 30000, ThumbnailOptions.defaultMaxPixels)? = failures[bomb] else {
            return XCTFail("bomb: \(String(describing: failures[bomb]))")
        }
        for (path, error) in failures {
            XCTAssertTrue(error.description.hasPrefix(path + ":"), "message must name the file: \(error)")
        }
        XCTAssertNotNil(failures[garbage])
        XCTAssertNotNil(failures[truncated])
        XCTAssertTrue(library.exists("thumbnails/64/2024/05/01/IMG_0001.jpg.jpg"))
        XCTAssertFalse(library.exists("thumbnails/64/2024/05/01/truncated.jpg.jpg"))
    }

    /// An image whose decode would take more than the whole --max-memory budget (an interlaced
    /// PNG is decoded whole) is refused by name before any pixel is decoded; the others are
    /// made, never more of them at once than the budget holds.
    func testADecodeOverTheMemoryBudgetIsRefusedAndTheBudgetIsShared() throws {
        let library = try makeRotatedLibrary()
        let big = "originals/2024/05/01/big.png"
        try ImageFixtures.run("vips", ["black", try library.prepare(big) + "[interlace]", "6000", "4000", "--bands", "3"])
        try library.add(big)
        var others: [String] = []
        for index in 0..<4 {
            let path = "originals/2024/05/02/p\(index).png"
            try ImageFixtures.run("vips", ["black", try library.prepare(path) + "[interlace]", "1500", "\(1000 + index)", "--bands", "3"])
            try library.add(path)
            others.append(path)
        }
        // About 160 MB for big.png (its pixels and a band of lines), 26 MB for each of the others: two fit at once.
        let cost = ThumbnailMemoryEstimate.estimate(try XCTUnwrap(ThumbnailDecodeHeader.read(path: library.root + "/" + others[0])),
                                                    scale: 64.0 / 1500)
        let options = ThumbnailOptions(sizes: [.init(width: 64, height: 64)], jobs: 4, maxMemory: cost.bytes * 2 + cost.bytes / 2)
        let updater = ThumbnailUpdater(libraryRoot: library.root, catalog: library.catalog, options: options)
        var events: [ThumbnailEvent] = []
        let summary = try updater.run(prune: false) { events.append($0) }
        XCTAssertEqual(summary.made, 5)
        XCTAssertEqual(summary.failed, 1)
        var failures: [String: ThumbnailError] = [:]
        for case .failed(let source, let error) in events { failures[source.path] = error }
        guard case .overMemoryBudget(big, 6000, 4000, let estimate, options.maxMemory, let reason)? = failures[big] else {
            return XCTFail("big: \(String(describing: failures[big]))")
        }
        XCTAssertGreaterThanOrEqual(estimate, 6000 * 4000 * 3)
        XCTAssertTrue(reason.contains("interlaced"), reason)
        let message = failures[big]!.description
        XCTAssertTrue(message.hasPrefix(big + ": ") && message.contains("--max-memory"), message)
        XCTAssertFalse(library.exists("thumbnails/64/2024/05/01/big.png.jpg"))
        for path in others {
            XCTAssertTrue(library.exists("thumbnails/64/" + path.dropFirst("originals/".count) + ".jpg"), path)
        }
        XCTAssertGreaterThanOrEqual(updater.engine.budget.peakReserved, cost.bytes)
        XCTAssertLessThanOrEqual(updater.engine.budget.peakReserved, options.maxMemory, "never more at once than the budget")
    }

    /// Before, libvips aborted the whole process ("bad dimensions") on a 3×5000 strip: the
    /// JPEG shrink-on-load factor (4 or 8) left its short side no pixel, on every rerun.
    func testAStripNarrowerThanTheJPEGShrinkFactorIsThumbnailed() throws {
        let library = try TestLibrary(self)
        let path = "originals/2024/02/02/strip.jpg"
        _ = try ImageFixtures.run(ImageFixtures.convert, ["-size", "3x5000", "gradient:red-blue", try library.prepare(path)])
        try library.add(path)
        for format in [ThumbnailFormat.jpeg, .webp] {
            let (summary, _) = try update(library, ThumbnailOptions(sizes: [.init(width: 100, height: 100), .init(width: 256, height: 256)],
                                                                     format: format, force: true))
            XCTAssertEqual(summary.made, 2, "\(format)")
            let thumb = library.root + "/thumbnails/256/2024/02/02/strip.jpg." + format.fileExtension
            XCTAssertEqual(try ImageFixtures.size(thumb).1, 256, "\(format)")
            XCTAssertEqual(try ImageFixtures.size(thumb).0, 1, "never less than a pixel wide")
        }
    }

    func testEmbeddedICCProfileIsConvertedToSRGB() throws {
        let library = try TestLibrary(self)
        let path = "originals/2024/01/01/p3.jpg"
        let srgb = try library.prepare(path) + ".png"
        try ImageFixtures.run(ImageFixtures.convert, ["-size", "200x100", "xc:rgb(200,100,50)", srgb])
        try ImageFixtures.run("vips", ["icc_transform", srgb, library.root + "/" + path + "[Q=98]", "p3",
                                       "--input-profile", "srgb", "--embedded=false"])
        let stored = try ImageFixtures.pixel(library.root + "/" + path, x: 10, y: 10)
        XCTAssertGreaterThan(abs(stored[0] - 200) + abs(stored[2] - 50), 15, "fixture must differ in P3: \(stored)")
        try library.add(path)
        _ = try update(library, ThumbnailOptions(sizes: [.init(width: 50, height: 50)]))
        let thumb = library.root + "/thumbnails/50/2024/01/01/p3.jpg.jpg"
        let pixel = try ImageFixtures.pixel(thumb, x: 25, y: 12)
        XCTAssertEqual(Double(pixel[0]), 200, accuracy: 5, "\(pixel)")
        XCTAssertEqual(Double(pixel[1]), 100, accuracy: 5, "\(pixel)")
        XCTAssertEqual(Double(pixel[2]), 50, accuracy: 6, "\(pixel)")
        XCTAssertNil(try ImageFixtures.tags(thumb)["ICC_Profile:ProfileDescription"], "metadata stripped")
    }

    func testCoverFillsTheBoxAndWebPIsWritten() throws {
        let library = try makeRotatedLibrary()
        let options = ThumbnailOptions(sizes: [.init(width: 100, height: 100), .init(width: 300, height: 120)],
                                       format: .webp, fit: .cover)
        XCTAssertEqual(try update(library, options).0.made, 2)
        let square = library.root + "/thumbnails/100/2024/05/01/IMG_0001.jpg.webp"
        let wide = library.root + "/thumbnails/300x120/2024/05/01/IMG_0001.jpg.webp"
        XCTAssertEqual(try ImageFixtures.size(square).0, 100)
        XCTAssertEqual(try ImageFixtures.size(square).1, 100)
        XCTAssertEqual(try ImageFixtures.size(wide).0, 300)
        XCTAssertEqual(try ImageFixtures.size(wide).1, 120)
        let magic = try Data(contentsOf: URL(fileURLWithPath: wide)).prefix(12)
        XCTAssertEqual(String(decoding: magic.suffix(4), as: UTF8.self), "WEBP")
        // The centre crop of the wide box keeps both halves: red above, blue below.
        XCTAssertGreaterThan(try ImageFixtures.pixel(wide, x: 150, y: 10)[0], 180)
        XCTAssertGreaterThan(try ImageFixtures.pixel(wide, x: 150, y: 110)[2], 180)
    }

    func testOtherFormatsDecodeAndUntrustedLoadersAreRefused() throws {
        let library = try TestLibrary(self)
        for ext in ["png", "gif", "tif", "webp", "bmp"] {
            let path = "originals/2024/07/01/pic.\(ext)"
            try ImageFixtures.solid(at: try library.prepare(path), width: 300, height: 200, color: "red")
            try library.add(path)
        }
        // A fully transparent PNG: a JPEG thumbnail shows it on white.
        let clear = "originals/2024/07/01/clear.png"
        try ImageFixtures.run(ImageFixtures.convert, ["-size", "300x200", "xc:none", try library.prepare(clear)])
        try library.add(clear)

        let (summary, events) = try update(library, ThumbnailOptions(sizes: [.init(width: 100, height: 100)]))
        XCTAssertEqual(summary.made, 5)
        for ext in ["png", "gif", "tif", "webp"] {
            let thumb = library.root + "/thumbnails/100/2024/07/01/pic.\(ext).jpg"
            XCTAssertEqual(try ImageFixtures.size(thumb).0, 100, ext)
            XCTAssertGreaterThan(try ImageFixtures.pixel(thumb, x: 50, y: 30)[0], 200, ext)
        }
        let white = try ImageFixtures.pixel(library.root + "/thumbnails/100/2024/07/01/clear.png.jpg", x: 50, y: 30)
        XCTAssertFalse(white.isEmpty)
        XCTAssertTrue(white.allSatisfy { $0 >= 250 }, "transparent parts go on white, not black: \(white)")
        // BMP is only readable through ImageMagick, a loader libvips marks untrusted.
        var failures: [String] = []
        for case .failed(let source, let error) in events {
            failures.append(source.path)
            XCTAssertTrue(error.description.hasPrefix(source.path + ":"), "\(error)")
        }
        XCTAssertEqual(failures, ["originals/2024/07/01/pic.bmp"])
    }
}
