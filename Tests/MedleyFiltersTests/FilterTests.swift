import MedleyFilters
import MedleyKernels
import XCTest

final class FilterTests: XCTestCase {
    func testSepiaDeclarationMatchesCoreImagesRuntimeValues() throws {
        // Core Image: inputIntensity default 1, identity 0, min 0, max 1, slider 0…1.
        let attributes = try XCTUnwrap(FilterRegistry.attributes(of: "CISepiaTone"))
        let intensity = try XCTUnwrap(attributes.parameter("inputIntensity"))
        XCTAssertEqual(intensity.defaultValue, .number(1))
        XCTAssertEqual(intensity.identity, .number(0))
        XCTAssertEqual(intensity.minimum, 0)
        XCTAssertEqual(intensity.maximum, 1)
        XCTAssertEqual(intensity.sliderMinimum, 0)
        XCTAssertEqual(intensity.sliderMaximum, 1)
        XCTAssertEqual(intensity.type, .scalar)
        XCTAssertEqual(attributes.displayName, "Sepia Tone")
        XCTAssertEqual(attributes.categories.first, "CICategoryColorEffect")
        XCTAssertEqual(attributes.imageKeys, ["inputImage"])
    }

    func testCreateSetDefaultsSetValueOutputImage() throws {
        XCTAssertNil(Filter(name: "CISepiaTones"))
        let filter = try XCTUnwrap(Filter(name: "CISepiaTone"))
        XCTAssertNil(filter.value(forKey: "inputIntensity"))
        filter.setDefaults()
        XCTAssertEqual(filter.value(forKey: "inputIntensity"), .number(1))
        XCTAssertNil(filter.outputImage, "no output until inputImage is set")
        try filter.setValue(.number(0.25), forKey: "inputIntensity")
        try filter.setValue(.image(.source("input")), forKey: "inputImage")
        guard case .colorMatrix(let matrix, .source("input"))? = filter.outputImage else {
            return XCTFail("expected one colour matrix over the input")
        }
        // mix(I, M, 0.25) computed by hand for the first row: 0.75·[1 0 0] + 0.25·[.3588 .7044 .1368]
        XCTAssertEqual(matrix.rows[0].x, 0.75 + 0.25 * 0.3588, accuracy: 1e-6)
        XCTAssertEqual(matrix.rows[0].y, 0.25 * 0.7044, accuracy: 1e-6)
        XCTAssertEqual(matrix.rows[2].z, 0.75 + 0.25 * 0.0912, accuracy: 1e-6)
    }

    func testValuesAreCheckedAgainstTheDeclaration() throws {
        let filter = try XCTUnwrap(Filter(name: "CISepiaTone"))
        XCTAssertThrowsError(try filter.setValue(.number(1.5), forKey: "inputIntensity")) { error in
            XCTAssertEqual(error as? FilterError, .outOfRange(filter: "CISepiaTone", key: "inputIntensity",
                                                              value: 1.5, minimum: 0, maximum: 1))
        }
        XCTAssertThrowsError(try filter.setValue(.number(0.5), forKey: "inputIntensty")) { error in
            XCTAssertEqual(error as? FilterError, .unknownKey(filter: "CISepiaTone", key: "inputIntensty",
                                                              suggestion: "inputIntensity"))
        }
        XCTAssertThrowsError(try filter.setValue(.vector([1, 2]), forKey: "inputIntensity"))
    }

    func testConsecutiveColourMatricesFuseIntoOnePass() throws {
        let first = try XCTUnwrap(Filter(name: "CISepiaTone"))
        first.setDefaults()
        try first.setValue(.image(.source("input")), forKey: "inputImage")
        let second = try XCTUnwrap(Filter(name: "CISepiaTone"))
        second.setDefaults()
        try second.setValue(.number(0.5), forKey: "inputIntensity")
        try second.setValue(.image(try XCTUnwrap(first.outputImage)), forKey: "inputImage")

        let plan = RenderPlan(try XCTUnwrap(second.outputImage))
        guard case .points(_, .source("input")) = plan.root else { return XCTFail("one pass over the input") }
        XCTAssertEqual(plan.steps.count, 1)
        guard case .colorMatrix(let fused) = plan.steps[0] else { return XCTFail() }
        // By hand: S = sepia, second = 0.5·I + 0.5·S, fused = second · S; entry [0][0]:
        // 0.5·S00 + 0.5·(S00·S00 + S01·S10 + S02·S20)
        let s: [[Float]] = [[0.3588, 0.7044, 0.1368], [0.2990, 0.5870, 0.1140], [0.2392, 0.4696, 0.0912]]
        let expected = 0.5 * s[0][0] + 0.5 * (s[0][0] * s[0][0] + s[0][1] * s[1][0] + s[0][2] * s[2][0])
        XCTAssertEqual(fused.rows[0].x, expected, accuracy: 1e-5)
    }

    func testIdentityParametersLeaveNoPass() throws {
        let filter = try XCTUnwrap(Filter(name: "CISepiaTone"))
        filter.setDefaults()
        try filter.setValue(.number(0), forKey: "inputIntensity")
        try filter.setValue(.image(.source("input")), forKey: "inputImage")
        XCTAssertTrue(RenderPlan(try XCTUnwrap(filter.outputImage)).steps.isEmpty)
    }

    func testDescribeJSONUsesCoreImageKeys() throws {
        let json = try XCTUnwrap(FilterRegistry.attributes(of: "CISepiaTone")).json.rendered()
        XCTAssertTrue(json.contains("\"CIAttributeFilterName\":\"CISepiaTone\""))
        XCTAssertTrue(json.contains("\"inputIntensity\":{\"CIAttributeClass\":\"NSNumber\",\"CIAttributeType\":\"CIAttributeTypeScalar\""))
        XCTAssertTrue(json.contains("\"CIAttributeDefault\":1,\"CIAttributeIdentity\":0,\"CIAttributeMin\":0,\"CIAttributeMax\":1"))
        // inputImage declares no default: the key must be absent, as in Core Image.
        let image = try XCTUnwrap(json.range(of: "\"inputImage\":{")).upperBound
        let imageEntry = json[image...].prefix { $0 != "}" }
        XCTAssertFalse(imageEntry.contains("CIAttributeDefault"))
    }

    func testCategoryLookupAndSuggestions() {
        let effects = FilterRegistry.names(inCategory: "ColorEffect")
        XCTAssertTrue(effects.contains("CISepiaTone"))
        XCTAssertFalse(effects.contains("CIExposureAdjust"))
        for name in effects {
            XCTAssertTrue(FilterRegistry.attributes(of: name)!.categories.contains("CICategoryColorEffect"), name)
        }
        // The blur category grows with the catalog: the names are sorted, hold these, and nothing else's.
        let blurs = FilterRegistry.names(inCategory: "CICategoryBlur")
        XCTAssertEqual(blurs, blurs.sorted())
        for name in ["CIBoxBlur", "CIGaussianBlur", "CINoiseReduction", "CIDiscBlur", "CIMedianFilter"] {
            XCTAssertTrue(blurs.contains(name), name)
        }
        XCTAssertFalse(blurs.contains("CISepiaTone"))
        XCTAssertFalse(blurs.contains("CIUnsharpMask"), "sharpening is its own category")
        XCTAssertEqual(FilterRegistry.names(inCategory: "NoSuchCategory"), [])
        XCTAssertEqual(FilterRegistry.suggestion(for: "CISepiaTon"), "CISepiaTone")
        XCTAssertEqual(FilterRegistry.suggestion(for: "sepiatone"), "CISepiaTone")
        XCTAssertEqual(FilterRegistry.suggestion(for: "CIGausianBlur"), "CIGaussianBlur")
        XCTAssertNil(FilterRegistry.suggestion(for: "CIWarpDriveEngage"))  // far from every name (CIQRCodeGenerator now exists)
        XCTAssertEqual(editDistance("kitten", "sitting"), 3)
    }
}
