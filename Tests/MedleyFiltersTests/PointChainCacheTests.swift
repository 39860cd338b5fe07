import MedleyFilters
import MedleyKernels
import XCTest

/// A job compiles each point chain once per working space and image size (compiling the five-filter
/// chain into tables took about 2.7 ms an image — 44 % of a batch of 64 × 64 JPEGs), and the kernels it
/// shares hold no state from one image to the next.
final class PointChainCacheTests: XCTestCase {
    func fiveFilterChain() throws -> PointChain {
        var recipe = FilterImage.source("input")
        recipe = try Render.filter("CIExposureAdjust", ["inputEV": .number(0.3)], over: recipe)
        recipe = try Render.filter("CIColorControls", ["inputSaturation": .number(1.1), "inputContrast": .number(1.05)], over: recipe)
        recipe = try Render.filter("CISepiaTone", ["inputIntensity": .number(0.5)], over: recipe)
        recipe = try Render.filter("CIGammaAdjust", ["inputPower": .number(0.9)], over: recipe)
        recipe = try Render.filter("CIColorMatrix", ["inputRVector": .vector([0.9, 0.05, 0, 0])], over: recipe)
        let steps = RenderPlan(recipe).steps
        XCTAssertEqual(steps.count, 1)
        guard case .pointChain(let chain)? = steps.first else {
            XCTFail("one point chain")
            throw XCTSkip("no chain")
        }
        return chain
    }

    func same(_ a: any RowKernel, _ b: any RowKernel) -> Bool { (a as AnyObject) === (b as AnyObject) }

    func testImagesOfOneSizeShareOneCompiledKernel() throws {
        let chain = try fiveFilterChain()
        let first = chain.kernel(transfer: .sRGB, imageWidth: 640, imageHeight: 480)
        XCTAssertTrue(first is CompiledChainKernel, "the five-filter chain compiles into tables")
        XCTAssertTrue(same(first, chain.kernel(transfer: .sRGB, imageWidth: 640, imageHeight: 480)), "made once")
        XCTAssertFalse(same(first, chain.kernel(transfer: .sRGB, imageWidth: 641, imageHeight: 480)), "another size, another kernel")
        XCTAssertFalse(same(first, chain.kernel(transfer: .none, imageWidth: 640, imageHeight: 480)), "another working space")
    }

    func testTheKeptKernelsAreBounded() throws {
        let chain = try fiveFilterChain()
        let first = chain.kernel(transfer: .sRGB, imageWidth: 64, imageHeight: 64)
        for width in 65..<(65 + 16) { _ = chain.kernel(transfer: .sRGB, imageWidth: width, imageHeight: 64) }
        XCTAssertFalse(same(first, chain.kernel(transfer: .sRGB, imageWidth: 64, imageHeight: 64)),
                       "after 16 more sizes the first is made again: a job over many sizes keeps at most 16")
    }

    /// A shared kernel renders a row as a kernel made for it alone does, after rendering other rows.
    func testASharedKernelCarriesNothingFromOneImageToTheNext() throws {
        let width = 300
        var generator = SystemRandomNumberGenerator()
        let rows = (0..<4).map { _ in (0..<(width * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let shared = try fiveFilterChain().kernel(transfer: .sRGB, imageWidth: width, imageHeight: 4)
        var sharedOutputs: [[UInt8]] = []
        for (y, row) in rows.enumerated() {
            var out = [UInt8](repeating: 0, count: row.count)
            row.withUnsafeBytes { src in
                out.withUnsafeMutableBytes { dst in
                    shared.apply(row: src.baseAddress!, to: dst.baseAddress!, width: width, bands: 3, inputBytes: 1,
                                 outputBytes: 1, x: 0, y: y)
                }
            }
            sharedOutputs.append(out)
        }
        for (y, row) in rows.enumerated().reversed() {
            let alone = try fiveFilterChain().kernel(transfer: .sRGB, imageWidth: width, imageHeight: 4)
            var out = [UInt8](repeating: 0, count: row.count)
            row.withUnsafeBytes { src in
                out.withUnsafeMutableBytes { dst in
                    alone.apply(row: src.baseAddress!, to: dst.baseAddress!, width: width, bands: 3, inputBytes: 1,
                                outputBytes: 1, x: 0, y: y)
                }
            }
            XCTAssertEqual(out, sharedOutputs[y], "row \(y)")
        }
    }
}
