/// Core Image's category names, so declarations spell them once.
enum Category {
    static let colorAdjustment = "CICategoryColorAdjustment"
    static let colorEffect = "CICategoryColorEffect"
    static let blur = "CICategoryBlur"
    static let sharpen = "CICategorySharpen"
    static let stylize = "CICategoryStylize"
    static let geometryAdjustment = "CICategoryGeometryAdjustment"
    static let compositeOperation = "CICategoryCompositeOperation"
    static let generator = "CICategoryGenerator"
    static let halftoneEffect = "CICategoryHalftoneEffect"
    static let distortionEffect = "CICategoryDistortionEffect"
    static let tileEffect = "CICategoryTileEffect"
    static let gradient = "CICategoryGradient"
    static let video = "CICategoryVideo"
    static let stillImage = "CICategoryStillImage"
    static let interlaced = "CICategoryInterlaced"
    static let nonSquarePixels = "CICategoryNonSquarePixels"
    static let highDynamicRange = "CICategoryHighDynamicRange"
    static let builtIn = "CICategoryBuiltIn"
    static let xmpSerializable = "CICategoryXMPSerializable"

    /// The categories most built-in filters carry after their main one.
    static let common = [video, stillImage, interlaced, nonSquarePixels, builtIn]
    /// The categories Core Image's generators carry after their main one.
    static let generated = [video, stillImage, highDynamicRange, builtIn]
}
