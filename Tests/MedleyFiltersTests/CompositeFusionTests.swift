import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// A composite one of whose sides is generated pixel by pixel (a constant colour, a gradient) and
/// whose other side has the input's extent is point-wise: the optimiser makes it part of the one
/// fused pass, and the stored-sample path renders it. Expected values: the W3C formulas, here.
final class CompositeFusionTests: XCTestCase {
    let grey = FilterValue.color(red: 0.7353569830524495, green: 0.5, blue: 0.2, alpha: 1)

    func blend(_ name: String, background: FilterImage, over input: FilterImage = .source("input")) throws -> FilterImage {
        try Render.filter(name, ["inputBackgroundImage": .image(background)], over: input)
    }

    func testACompositeWithAGeneratedColourIsOnePassWithTheFiltersAroundIt() throws {
        let colour = try Render.filter("CIConstantColorGenerator", ["inputColor": grey])
        let toned = try Render.filter("CISepiaTone", ["inputIntensity": .number(0.5)])
        let blended = try blend("CIMultiplyBlendMode", background: colour, over: toned)
        let plan = RenderPlan(try Render.filter("CIGammaAdjust", ["inputPower": .number(1.2)], over: blended))
        XCTAssertTrue(plan.root.isPointOnly, "\(plan.root)")
        XCTAssertEqual(plan.steps.count, 1, "sepia, the multiply and the gamma in one pass")
        // Either side may be the generated one.
        let swapped = try Render.filter("CIScreenBlendMode", ["inputBackgroundImage": .image(.source("input"))], over: colour)
        XCTAssertTrue(RenderPlan(swapped).root.isPointOnly)
    }

    func testACompositeOfTwoImagesOrOfAnotherExtentIsNotFused() throws {
        let mirror = try Render.filter("CIAffineTransform", ["inputTransform": .vector([-1, 0, 0, 1, 0, 0])])
        XCTAssertFalse(RenderPlan(try blend("CIMultiplyBlendMode", background: mirror)).root.isPointOnly)
        // A cropped foreground over a colour keeps the colour's (the input's) extent, not the crop's.
        let colour = try Render.filter("CIConstantColorGenerator", ["inputColor": grey])
        let cropped = try Render.filter("CICrop", ["inputRectangle": .vector([0, 0, 4, 4])])
        XCTAssertFalse(RenderPlan(try blend("CISourceOverCompositing", background: colour, over: cropped)).root.isPointOnly)
    }

    func testFusedMultiplyAndSourceOverFollowTheFormulas() throws {
        let (pixels, width, height) = Render.swatches(bands: 4)
        let colour = try Render.filter("CIConstantColorGenerator", ["inputColor": grey])
        // The constant is a CIColor (sRGB-encoded components), used in linear light.
        let c = [0.7353569830524495, 0.5, 0.2].map(SRGB.toLinear)
        let multiplied = Render.pixels(try blend("CIMultiplyBlendMode", background: colour), pixels,
                                       width: width, height: height, bands: 4)
        let over = Render.pixels(try blend("CISourceOverCompositing", background: colour), pixels,
                                 width: width, height: height, bands: 4)
        for p in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Double(pixels[p + 3]) / 255
            for k in 0..<3 {
                let source = SRGB.linear(pixels[p + k])
                // W3C with an opaque backdrop: co = αs·B(cb, cs) + (1 − αs)·cb, result alpha 1.
                let multiply = alpha * (c[k] * source) + (1 - alpha) * c[k]
                let sourceOver = alpha * source + (1 - alpha) * c[k]
                XCTAssertEqual(Double(multiplied[p + k]), SRGB.stored(multiply), accuracy: 1, "multiply pixel \(p / 4)")
                XCTAssertEqual(Double(over[p + k]), SRGB.stored(sourceOver), accuracy: 1, "source over pixel \(p / 4)")
            }
            XCTAssertEqual(multiplied[p + 3], 255)
            XCTAssertEqual(over[p + 3], 255)
        }
    }
}
