import MedleyKernels

/// CIMaximumComponent and CIMinimumComponent: a grey image from each pixel's largest or smallest
/// colour component, as Apple documents (`max(r, g, b)`, `min(r, g, b)`), in the working space.
protocol ComponentFilter: FilterDefinition {
    /// true: max(r, g, b); false: min(r, g, b).
    static var largest: Bool { get }
}

extension ComponentFilter {
    static var attributes: FilterAttributes {
        let word = largest ? "max" : "min"
        return FilterAttributes(
            name: largest ? "CIMaximumComponent" : "CIMinimumComponent",
            displayName: largest ? "Maximum Component" : "Minimum Component",
            categories: [Category.colorEffect] + Category.common + [Category.highDynamicRange],
            summary: "Returns a grayscale image from \(word)(r,g,b).",
            reference: "Apple: out = \(word)(r, g, b) in all three channels, in linear light",
            parameters: [
                ParameterAttributes(name: "inputImage", type: .image, displayName: "Image",
                                    description: "The image to process."),
            ])
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .point(ComponentOperation(largest: largest), of: image)
    }
}

struct ComponentOperation: PointOperation {
    let largest: Bool
    func apply(_ block: PixelBlock) {
        block.forEachVector { r, g, b, _ in
            let grey = largest ? pointwiseMax(pointwiseMax(r, g), b) : pointwiseMin(pointwiseMin(r, g), b)
            r = grey
            g = grey
            b = grey
        }
    }
}

enum MaximumComponent: ComponentFilter { static let largest = true }
enum MinimumComponent: ComponentFilter { static let largest = false }
