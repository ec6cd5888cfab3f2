import Foundation
import XCTest
@testable import ShoeboxKit

/// The memory a decode is expected to take, from the header alone, for each way
/// libvips decodes: whole (interlaced PNG, progressive JPEG's coefficients, HEIF...),
/// shrunk on load (baseline JPEG, WebP) or streamed (PNG, TIFF).
final class ThumbnailMemoryEstimateTests: XCTestCase {
    private let mib: Int64 = 1 << 20

    private func header(_ loader: String, _ width: Int, _ height: Int, bands: Int = 3, bytes: Int = 1, interlaced: Bool = false,
                        chroma: String = "") -> ThumbnailDecodeHeader {
        ThumbnailDecodeHeader(width: width, height: height, bands: bands, bytesPerSample: bytes, loader: loader,
                              interlaced: interlaced, chromaSubsample: chroma)
    }

    func testAnInterlacedPNGCostsTheWholeImage() {
        let png = header("pngload", 11_000, 11_000, bands: 4, bytes: 2, interlaced: true)
        let cost = ThumbnailMemoryEstimate.estimate(png, scale: 1024.0 / 11_000)
        XCTAssertGreaterThanOrEqual(cost.bytes, 11_000 * 11_000 * 8, "every 16-bit RGBA pixel is held")
        XCTAssertLessThan(cost.bytes, 11_000 * 11_000 * 8 + 400 * mib)
        XCTAssertTrue(cost.reason.contains("interlaced"), cost.reason)
        let eightBit = ThumbnailMemoryEstimate.estimate(header("pngload", 11_000, 11_000, bands: 4, interlaced: true), scale: 0.1)
        XCTAssertLessThan(eightBit.bytes, cost.bytes * 6 / 10, "8-bit holds half the bytes")
    }

    func testAPlainPNGOrTIFFIsStreamedSoItsCostFollowsTheWidthNotTheHeight() {
        for loader in ["pngload", "tiffload"] {
            let tall = ThumbnailMemoryEstimate.estimate(header(loader, 11_000, 40_000, bands: 4, bytes: 2), scale: 0.02)
            let short = ThumbnailMemoryEstimate.estimate(header(loader, 11_000, 10_000, bands: 4, bytes: 2), scale: 0.02)
            XCTAssertEqual(tall.bytes, short.bytes, loader)
            XCTAssertLessThan(tall.bytes, 11_000 * 10_000 * 8 / 3, "\(loader): a band of lines, not the image")
            let narrow = ThumbnailMemoryEstimate.estimate(header(loader, 5_500, 10_000, bands: 4, bytes: 2), scale: 0.02)
            XCTAssertLessThan(narrow.bytes, short.bytes * 6 / 10, loader)
            XCTAssertTrue(tall.reason.contains("stream"), tall.reason)
        }
    }

    func testAProgressiveJPEGCostsItsFullSizeCoefficientsWhateverTheShrink() {
        let progressive = header("jpegload", 12_000, 12_000, interlaced: true, chroma: "4:2:0")
        let small = ThumbnailMemoryEstimate.estimate(progressive, scale: 256.0 / 12_000)
        let large = ThumbnailMemoryEstimate.estimate(progressive, scale: 1)
        // 144 M pixels, 1.5 components (4:2:0), two bytes a coefficient: 432 MB.
        XCTAssertGreaterThanOrEqual(small.bytes, 432_000_000)
        XCTAssertLessThan(small.bytes, 560_000_000)
        XCTAssertGreaterThan(large.bytes, small.bytes, "a full-size decode streams full-size lines besides")
        XCTAssertTrue(small.reason.contains("progressive"), small.reason)
        let full = ThumbnailMemoryEstimate.estimate(header("jpegload", 12_000, 12_000, interlaced: true, chroma: "4:4:4"),
                                                    scale: 256.0 / 12_000)
        XCTAssertGreaterThanOrEqual(full.bytes, 864_000_000, "4:4:4 keeps three full planes")
    }

    func testABaselineJPEGCostsItsShrunkSize() {
        let baseline = header("jpegload", 12_000, 12_000, chroma: "4:2:0")
        let shrunk = ThumbnailMemoryEstimate.estimate(baseline, scale: 1024.0 / 12_000)
        XCTAssertLessThan(shrunk.bytes, 40 * mib, "decoded at 1/8: 1500 pixels wide")
        let whole = ThumbnailMemoryEstimate.estimate(baseline, scale: 1)
        XCTAssertGreaterThan(whole.bytes, 12_000 * 3 * 3_000, "unshrunk, a band of full-width lines")
        let progressive = ThumbnailMemoryEstimate.estimate(header("jpegload", 12_000, 12_000, interlaced: true, chroma: "4:2:0"),
                                                           scale: 1024.0 / 12_000)
        XCTAssertGreaterThan(progressive.bytes, shrunk.bytes * 10)
    }

    func testKeptPixelsAndOtherFormatsAreCounted() {
        let png = header("pngload", 4_000, 3_000)
        let alone = ThumbnailMemoryEstimate.estimate(png, scale: 0.25)
        XCTAssertEqual(ThumbnailMemoryEstimate.estimate(png, scale: 0.25, keptPixels: 1_000_000).bytes, alone.bytes + 4_000_000)
        let heif = ThumbnailMemoryEstimate.estimate(header("heifload", 8_000, 6_000), scale: 0.1)
        XCTAssertGreaterThanOrEqual(heif.bytes, 8_000 * 6_000 * 3, "decoded whole")
        XCTAssertTrue(heif.reason.contains("HEIF"), heif.reason)
        let webp = ThumbnailMemoryEstimate.estimate(header("webpload", 12_000, 12_000), scale: 1024.0 / 12_000)
        XCTAssertLessThan(webp.bytes, 80 * mib, "scaled on load")
    }

    /// The header facts the estimate needs, read from real files.
    func testHeadersSayWhatTheEstimateNeeds() throws {
        try VipsRuntime.start()
        let folder = try makeTemporaryDirectory(self).path
        let cases: [(String, String, Bool)] = [
            ("progressive.jpg", "[interlace]", true), ("baseline.jpg", "", false),
            ("interlaced.png", "[interlace]", true), ("plain.png", "", false),
        ]
        for (name, options, interlaced) in cases {
            try ImageFixtures.run("vips", ["black", folder + "/" + name + options, "320", "200", "--bands", "3"])
            let read = try XCTUnwrap(ThumbnailDecodeHeader.read(path: folder + "/" + name), name)
            XCTAssertEqual(read.interlaced, interlaced, name)
            XCTAssertEqual(read.width, 320, name)
            XCTAssertEqual(read.height, 200, name)
            XCTAssertEqual(read.bands, 3, name)
            XCTAssertEqual(read.bytesPerSample, 1, name)
            XCTAssertEqual(read.loader, name.hasSuffix(".jpg") ? "jpegload" : "pngload", name)
            XCTAssertGreaterThan(read.fileBytes, 0, name)
            if name.hasSuffix(".jpg") { XCTAssertEqual(read.chromaSubsample, "4:2:0", name) }
        }
        try ImageFixtures.run("vips", ["colourspace", folder + "/plain.png", folder + "/deep.png", "rgb16"])
        XCTAssertEqual(ThumbnailDecodeHeader.read(path: folder + "/deep.png")?.bytesPerSample, 2)
        XCTAssertNil(ThumbnailDecodeHeader.read(path: folder + "/missing.png"))
    }
}

final class ThumbnailMemoryBudgetTests: XCTestCase {
    func testAReservationWaitsUntilEnoughIsReleasedAndWaitersKeepTheirOrder() throws {
        let budget = ThumbnailMemoryBudget(total: 100)
        try budget.reserve(70)
        let waiting = DispatchSemaphore(value: 0)
        budget.onWait = { waiting.signal() }
        let order = LockedBox<[String]>([])
        // The order the budget grants them (its threads may append their names either way round).
        let granted = LockedBox<[Int64]>([])
        budget.onGrant = { bytes in granted.update { $0.append(bytes) } }
        let bigDone = DispatchSemaphore(value: 0), smallDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do { try budget.reserve(60) } catch { XCTFail("\(error)") }
            order.update { $0.append("big") }
            bigDone.signal()
        }
        waiting.wait()
        Thread.detachNewThread {
            do { try budget.reserve(20) } catch { XCTFail("\(error)") }  // would fit now, but the big one came first
            order.update { $0.append("small") }
            smallDone.signal()
        }
        waiting.wait()
        XCTAssertEqual(order.current, [], "neither fits beside the first 70 in turn")
        budget.release(70)
        bigDone.wait()
        smallDone.wait()
        XCTAssertEqual(granted.current, [60, 20], "the big one, waiting first, is served first")
        XCTAssertEqual(Set(order.current), ["big", "small"])
        XCTAssertEqual(budget.peakReserved, 80)
        budget.release(60)
        budget.release(20)
    }

    func testCancelWakesAWaitingReservationWhichTakesNothing() throws {
        let budget = ThumbnailMemoryBudget(total: 100)
        try budget.reserve(90)
        let waiting = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        budget.onWait = { waiting.signal() }
        let outcome = LockedBox<String>("")
        Thread.detachNewThread {
            do {
                try budget.reserve(50)
                outcome.update { $0 = "reserved" }
            } catch is ThumbnailMemoryBudget.Cancelled {
                outcome.update { $0 = "cancelled" }
            } catch {
                outcome.update { $0 = "\(error)" }
            }
            done.signal()
        }
        waiting.wait()
        budget.cancel()
        done.wait()
        XCTAssertEqual(outcome.current, "cancelled")
        XCTAssertEqual(budget.peakReserved, 90, "the cancelled one took nothing")
        XCTAssertThrowsError(try budget.reserve(1), "after cancel, at once")
    }
}
