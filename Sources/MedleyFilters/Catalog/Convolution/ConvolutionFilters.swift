import MedleyKernels

/// Core Image's matrix convolutions: `inputWeights` (a CIVector of columns × rows numbers, row-major,
/// the first row on top) and `inputBias`. `CIConvolution…` convolves premultiplied RGBA and adds the
/// bias to every channel; `CIConvolutionRGB…` convolves red, green and blue only and leaves alpha
/// alone. Edges are extended (clamped), as Core Image samples a clamped image.
protocol ConvolutionFilter: FilterDefinition {
    static var name: String { get }
    static var displayName: String { get }
    static var columns: Int { get }
    static var rows: Int { get }
    static var alpha: ConvolutionAlpha { get }
}

extension ConvolutionFilter {
    static var identity: [Double] {
        (0..<columns * rows).map { $0 == columns * rows / 2 ? 1 : 0 }
    }

    static var shape: String { rows == 1 ? "\(columns)-tap horizontal" : (columns == 1 ? "\(rows)-tap vertical" : "\(columns)x\(rows) matrix") }

    static var attributes: FilterAttributes {
        let n = columns * rows
        let what = alpha == .premultiplied ? "premultiplied RGBA, the bias added to all four channels; an image "
            + "without alpha stays opaque (only its colour is convolved)" : "red, green and blue as stored, alpha unchanged"
        return FilterAttributes(
            name: name, displayName: displayName,
            categories: [Category.stylize, Category.video, Category.stillImage, Category.builtIn],
            summary: alpha == .premultiplied
                ? "Modifies pixel values by performing a \(shape) convolution."
                : "Modifies RGB pixel values by performing a \(shape) convolution; the alpha channel is not modified.",
            reference: "Apple's definition: out(x, y) = bias + Σ w[j·\(columns) + i] · in(x + i − \(columns / 2), y + j − \(rows / 2)) "
                + "(correlation, first row on top) on \(what); edges extended",
            parameters: [
                .inputImage,
                ParameterAttributes(
                    name: "inputWeights", type: .vector, displayName: "Weights",
                    description: "A vector containing the \(n) weights of the convolution kernel.",
                    defaultValue: .vector(identity), identity: .vector(identity)),
                ParameterAttributes(
                    name: "inputBias", type: .scalar, displayName: "Bias",
                    description: alpha == .premultiplied ? "A value that is added to the RGBA components of the output pixel."
                        : "A value that is added to the RGB components of the output pixel.",
                    defaultValue: .number(0), identity: .number(0)),
            ])
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let weights = inputs.vector("inputWeights") ?? identity
        let bias = inputs.float("inputBias", 0)
        if weights == identity && bias == 0 { return image }
        return .region(MatrixConvolutionKernel.matrix(weights.map { Float($0) }, columns: columns, rows: rows,
                                                      bias: bias, alpha: alpha), of: image)
    }
}

enum Convolution3X3: ConvolutionFilter {
    static let name = "CIConvolution3X3", displayName = "3 by 3 Convolution"
    static let columns = 3, rows = 3, alpha = ConvolutionAlpha.premultiplied
}

enum Convolution5X5: ConvolutionFilter {
    static let name = "CIConvolution5X5", displayName = "5 by 5 Convolution"
    static let columns = 5, rows = 5, alpha = ConvolutionAlpha.premultiplied
}

enum Convolution7X7: ConvolutionFilter {
    static let name = "CIConvolution7X7", displayName = "7 by 7 Convolution"
    static let columns = 7, rows = 7, alpha = ConvolutionAlpha.premultiplied
}

enum Convolution9Horizontal: ConvolutionFilter {
    static let name = "CIConvolution9Horizontal", displayName = "9 Horizontal Convolution"
    static let columns = 9, rows = 1, alpha = ConvolutionAlpha.premultiplied
}

enum Convolution9Vertical: ConvolutionFilter {
    static let name = "CIConvolution9Vertical", displayName = "9 Vertical Convolution"
    static let columns = 1, rows = 9, alpha = ConvolutionAlpha.premultiplied
}

enum ConvolutionRGB3X3: ConvolutionFilter {
    static let name = "CIConvolutionRGB3X3", displayName = "3 by 3 RGB Convolution"
    static let columns = 3, rows = 3, alpha = ConvolutionAlpha.kept
}

enum ConvolutionRGB5X5: ConvolutionFilter {
    static let name = "CIConvolutionRGB5X5", displayName = "5 by 5 RGB Convolution"
    static let columns = 5, rows = 5, alpha = ConvolutionAlpha.kept
}

enum ConvolutionRGB7X7: ConvolutionFilter {
    static let name = "CIConvolutionRGB7X7", displayName = "7 by 7 RGB Convolution"
    static let columns = 7, rows = 7, alpha = ConvolutionAlpha.kept
}

enum ConvolutionRGB9Horizontal: ConvolutionFilter {
    static let name = "CIConvolutionRGB9Horizontal", displayName = "9 Horizontal RGB Convolution"
    static let columns = 9, rows = 1, alpha = ConvolutionAlpha.kept
}

enum ConvolutionRGB9Vertical: ConvolutionFilter {
    static let name = "CIConvolutionRGB9Vertical", displayName = "9 Vertical RGB Convolution"
    static let columns = 1, rows = 9, alpha = ConvolutionAlpha.kept
}

/// Matrix convolutions, rank filters and morphology.
enum ConvolutionGroup {
    static let filters: [FilterDefinition.Type] = [
        Convolution3X3.self, Convolution5X5.self, Convolution7X7.self,
        Convolution9Horizontal.self, Convolution9Vertical.self,
        ConvolutionRGB3X3.self, ConvolutionRGB5X5.self, ConvolutionRGB7X7.self,
        ConvolutionRGB9Horizontal.self, ConvolutionRGB9Vertical.self,
        MedianFilter.self, MorphologyMaximum.self, MorphologyMinimum.self, MorphologyGradient.self,
        MorphologyRectangleMaximum.self, MorphologyRectangleMinimum.self,
    ]
}
