import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// Properties every filter of the catalog must have, checked over the whole registry, plus the
/// Core Image's runtime defaults (CIFilter attributes), written out by hand.
final class CatalogTests: XCTestCase {
    /// Core Image's runtime defaults, one line per parameter.
    let specDefaults: [(String, String, FilterValue)] = [
        ("CISepiaTone", "inputIntensity", .number(1)),
        ("CIColorControls", "inputSaturation", .number(1)), ("CIColorControls", "inputBrightness", .number(0)),
        ("CIColorControls", "inputContrast", .number(1)),
        ("CIExposureAdjust", "inputEV", .number(0)), ("CIGammaAdjust", "inputPower", .number(1)),
        ("CIColorMonochrome", "inputColor", .color(red: 0.6, green: 0.45, blue: 0.3, alpha: 1)),
        ("CIColorMonochrome", "inputIntensity", .number(1)),
        ("CIVibrance", "inputAmount", .number(0)), ("CIHueAdjust", "inputAngle", .number(0)),
        ("CIVignette", "inputIntensity", .number(0)), ("CIVignette", "inputRadius", .number(1)),
        ("CIVignetteEffect", "inputCenter", .vector([150, 150])), ("CIVignetteEffect", "inputRadius", .number(150)),
        ("CIVignetteEffect", "inputIntensity", .number(1)), ("CIVignetteEffect", "inputFalloff", .number(0.5)),
        ("CIGaussianBlur", "inputRadius", .number(10)), ("CIBoxBlur", "inputRadius", .number(10)),
        ("CIUnsharpMask", "inputRadius", .number(2.5)), ("CIUnsharpMask", "inputIntensity", .number(0.5)),
        ("CISharpenLuminance", "inputSharpness", .number(0.4)), ("CISharpenLuminance", "inputRadius", .number(1.69)),
        ("CIColorPosterize", "inputLevels", .number(6)),
        ("CIPixellate", "inputCenter", .vector([150, 150])), ("CIPixellate", "inputScale", .number(8)),
        ("CILanczosScaleTransform", "inputScale", .number(1)), ("CILanczosScaleTransform", "inputAspectRatio", .number(1)),
        ("CIToneCurve", "inputPoint0", .vector([0, 0])), ("CIToneCurve", "inputPoint1", .vector([0.25, 0.25])),
        ("CIToneCurve", "inputPoint2", .vector([0.5, 0.5])), ("CIToneCurve", "inputPoint3", .vector([0.75, 0.75])),
        ("CIToneCurve", "inputPoint4", .vector([1, 1])),
        ("CIHighlightShadowAdjust", "inputHighlightAmount", .number(1)),
        ("CIHighlightShadowAdjust", "inputShadowAmount", .number(0)), ("CIHighlightShadowAdjust", "inputRadius", .number(0)),
        ("CINoiseReduction", "inputNoiseLevel", .number(0.02)), ("CINoiseReduction", "inputSharpness", .number(0.4)),
        ("CITemperatureAndTint", "inputNeutral", .vector([6500, 0])),
        ("CITemperatureAndTint", "inputTargetNeutral", .vector([6500, 0])),
        ("CIWhitePointAdjust", "inputColor", .color(red: 1, green: 1, blue: 1, alpha: 1)),
        ("CIConstantColorGenerator", "inputColor", .color(red: 1, green: 0, blue: 0, alpha: 1)),
    ]

    /// Core Image's hard minimums.
    let specMinimums: [(String, String, Double)] = [
        ("CIColorControls", "inputSaturation", 0), ("CIColorControls", "inputContrast", 0),
        ("CIGaussianBlur", "inputRadius", 0), ("CIBoxBlur", "inputRadius", 1), ("CIPixellate", "inputScale", 1),
    ]

    /// The catalog issue 3 asks for (Core Image names, then Medley's own).
    let required = [
        "CIColorControls", "CIExposureAdjust", "CIGammaAdjust", "CIColorMatrix", "CIHueAdjust", "CIVibrance",
        "CIWhitePointAdjust", "CITemperatureAndTint", "CIToneCurve", "CIHighlightShadowAdjust", "CISepiaTone",
        "CIColorMonochrome", "CIColorInvert", "CIColorPosterize", "CIMaximumComponent", "CIMinimumComponent",
        "CIFalseColor", "CIPhotoEffectMono", "CIPhotoEffectNoir", "CIPhotoEffectTonal", "CIPhotoEffectChrome",
        "CIPhotoEffectFade", "CIPhotoEffectInstant", "CIPhotoEffectProcess", "CIPhotoEffectTransfer", "CIVignette",
        "CIVignetteEffect", "CIGaussianBlur", "CIBoxBlur", "CIUnsharpMask", "CISharpenLuminance", "CINoiseReduction",
        "CIPixellate", "CILanczosScaleTransform", "CICrop", "CIAffineTransform", "CISourceOverCompositing",
        "CIMultiplyBlendMode", "CIScreenBlendMode", "CIOverlayBlendMode", "CIConstantColorGenerator", "resize", "autoOrient",
        // h16-blend: every blend and compositing mode, masks and mix, point-wise colour functions.
        "CIAdditionCompositing", "CIColorBlendMode", "CIColorBurnBlendMode", "CIColorDodgeBlendMode", "CIDarkenBlendMode",
        "CIDifferenceBlendMode", "CIDivideBlendMode", "CIExclusionBlendMode", "CIHardLightBlendMode", "CIHueBlendMode",
        "CILightenBlendMode", "CILinearBurnBlendMode", "CILinearDodgeBlendMode", "CILinearLightBlendMode",
        "CILuminosityBlendMode", "CIMaximumCompositing", "CIMinimumCompositing", "CIMultiplyCompositing",
        "CIPinLightBlendMode", "CISaturationBlendMode", "CISoftLightBlendMode", "CISourceAtopCompositing",
        "CISourceInCompositing", "CISourceOutCompositing", "CISubtractBlendMode", "CIVividLightBlendMode",
        "CIBlendWithMask", "CIBlendWithAlphaMask", "CIBlendWithRedMask", "CIBlendWithBlueMask", "CIMix",
        "CIColorClamp", "CIColorPolynomial", "CIColorCrossPolynomial", "CIColorThreshold", "CIDither",
        "CILinearToSRGBToneCurve", "CISRGBToneCurveToLinear", "CIThermal", "CIXRay", "CIColorMap", "CIPalettize", "CIColorThresholdOtsu",
        // Issue 16, geometry part: halftones, geometry, distortions, generators.
        "CIDotScreen", "CILineScreen", "CICircularScreen", "CIHatchedScreen", "CICMYKHalftone",
        "CIPerspectiveCorrection", "CIPerspectiveTransform", "CIStraightenFilter", "CIAffineClamp", "CIAffineTile",
        "CIBicubicScaleTransform", "CIBumpDistortion", "CIPinchDistortion", "CITwirlDistortion", "CIVortexDistortion",
        "CIHoleDistortion", "CICircleSplashDistortion", "CILinearGradient", "CISmoothLinearGradient", "CIRadialGradient",
        "CICheckerboardGenerator", "CIStripesGenerator", "CIRandomGenerator", "CIRoundedRectangleGenerator",
        "CIQRCodeGenerator", "CICode128BarcodeGenerator",
        // Issue 16: convolutions, rank and morphology, blurs, stylize.
        "CIConvolution3X3", "CIConvolution5X5", "CIConvolution7X7", "CIConvolution9Horizontal", "CIConvolution9Vertical",
        "CIConvolutionRGB3X3", "CIConvolutionRGB5X5", "CIConvolutionRGB7X7", "CIConvolutionRGB9Horizontal",
        "CIConvolutionRGB9Vertical", "CIMedianFilter", "CIMorphologyMaximum", "CIMorphologyMinimum", "CIMorphologyGradient",
        "CIMorphologyRectangleMaximum", "CIMorphologyRectangleMinimum", "CIDiscBlur", "CIMotionBlur", "CIZoomBlur",
        "CIBokehBlur", "CIBloom", "CIGloom", "CIComicEffect", "CICrystallize", "CIPointillize", "CIEdges", "CIEdgeWork",
        "CILineOverlay", "CIHexagonalPixellate", "CISpotLight", "CISpotColor",
        "CITextImageGenerator",
        "CIColorCube", "CIColorCubeWithColorSpace", "CIColorCubesMixedWithMask",
    ]

    func testTheCatalogIsComplete() {
        let missing = required.filter { FilterRegistry.attributes(of: $0) == nil }
        XCTAssertEqual(missing, [], "filters still to write")
    }

    func testDefaultsAndMinimumsEqualTheSpecTable() {
        for (filter, key, value) in specDefaults {
            guard let attributes = FilterRegistry.attributes(of: filter) else { continue }  // reported by the test above
            XCTAssertEqual(attributes.parameter(key)?.defaultValue, value, "\(filter).\(key)")
        }
        for (filter, key, minimum) in specMinimums {
            XCTAssertEqual(FilterRegistry.attributes(of: filter)?.parameter(key)?.minimum, minimum, "\(filter).\(key)")
        }
    }

    func testEveryDeclarationIsComplete() {
        for name in FilterRegistry.names {
            let attributes = FilterRegistry.attributes(of: name)!
            XCTAssertFalse(attributes.displayName.isEmpty, name)
            XCTAssertFalse(attributes.summary.isEmpty, name)
            XCTAssertFalse(attributes.reference.isEmpty, "\(name) names the source of its maths")
            XCTAssertFalse(attributes.categories.isEmpty, name)
            for parameter in attributes.parameters {
                XCTAssertFalse(parameter.description.isEmpty, "\(name).\(parameter.name)")
                if let low = parameter.sliderMinimum, let high = parameter.sliderMaximum {
                    XCTAssertLessThan(low, high, "\(name).\(parameter.name) slider range")
                }
                if let value = parameter.defaultValue {
                    XCTAssertNoThrow(try Filter.checked(value, forKey: parameter.name, of: attributes),
                                     "\(name).\(parameter.name): the default passes its own checks")
                }
            }
        }
    }

    func testValuesOutsideHardBoundsAreRejected() throws {
        for name in FilterRegistry.names {
            let filter = try XCTUnwrap(Filter(name: name))
            for parameter in filter.attributes.parameters where parameter.type.isNumeric {
                if let low = parameter.minimum {
                    XCTAssertThrowsError(try filter.setValue(.number(low - 1), forKey: parameter.name), "\(name).\(parameter.name)")
                }
                if let high = parameter.maximum {
                    XCTAssertThrowsError(try filter.setValue(.number(high + 1), forKey: parameter.name), "\(name).\(parameter.name)")
                }
            }
            XCTAssertThrowsError(try filter.setValue(.number(1), forKey: "inputNoSuchKey"), name)
        }
    }

    /// Filters whose every parameter declares an identity value must then leave pixels alone
    /// (and plan no pass at all).
    func testIdentityValuesLeaveTheImageUnchanged() throws {
        let image = Render.swatches(bands: 4)
        var checked: [String] = []
        for name in FilterRegistry.names {
            let attributes = FilterRegistry.attributes(of: name)!
            let settable = attributes.parameters.filter { $0.type != .image }
            guard attributes.imageKeys == ["inputImage"], !settable.isEmpty,
                  settable.allSatisfy({ $0.identity != nil }) else { continue }
            var values: [String: FilterValue] = [:]
            for parameter in settable { values[parameter.name] = parameter.identity }
            let recipe = try Render.filter(name, values)
            let plan = RenderPlan(recipe)
            if case .source = plan.root {} else {
                // Some identities are computed, not skipped: the pixels must still come back.
                XCTAssertTrue(plan.root.isPointOnly, "\(name): identity should not resample or blur")
            }
            if plan.root.isPointOnly {
                let out = Render.pixels(recipe, image.pixels, width: image.width, height: image.height, bands: 4)
                let worst = zip(out, image.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 99
                XCTAssertLessThanOrEqual(worst, 1, name)
            }
            checked.append(name)
        }
        XCTAssertGreaterThanOrEqual(checked.count, 15, "identity checked for: \(checked)")
    }
}
