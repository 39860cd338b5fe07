import MedleyKernels

/// What Core Image's colour-cube filters declare alike, and how their NSData cubes become tables.
///
/// Core Image's cube data is "32-bit floating-point RGBA linear premultiplied" entries, red index
/// fastest, then green, then blue (Apple's `cubeData` discussion); inputCubeDimension is a count,
/// 2…128. Medley reads the data as a list of 4·N³ numbers and stores each entry unpremultiplied
/// (RGB ÷ A, alpha as a multiplier of the pixel's alpha), since its pixels are unpremultiplied.
enum ColorCubeParameters {
    static let categories = [Category.colorEffect] + Category.common

    /// The identity cube of dimension 2 (Core Image's default for inputCubeData).
    static let identityData: [Double] = [0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1,
                                         0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1]

    static let dimension = ParameterAttributes(
        name: "inputCubeDimension", type: .count, displayName: "Cube Dimension",
        description: "The dimension of the color cube.",
        defaultValue: .number(2), identity: .number(2), minimum: 2, maximum: 128)

    static func data(_ name: String = "inputCubeData", displayName: String = "Cube Data") -> ParameterAttributes {
        ParameterAttributes(
            name: name, type: .data, displayName: displayName,
            description: "Data containing a 3-dimensional color table of floating-point premultiplied RGBA values. "
                + "The cells are organized in a standard ordering. The columns and rows of the data are indexed by "
                + "red and green, respectively. Each data plane is followed by the next higher plane in the data, "
                + "with planes indexed by blue.",
            defaultValue: .vector(identityData), identity: .vector(identityData))
    }

    static let extrapolate = ParameterAttributes(
        name: "inputExtrapolate", type: .boolean, displayName: "Extrapolate",
        description: "If true, then the color cube will be extrapolated if the input image contains RGB component "
            + "values outside the range 0.0 to 1.0.",
        defaultValue: .boolean(false), identity: .boolean(false))

    /// The names of the spaces Medley can honour: its pixels have sRGB primaries, linear or encoded.
    /// Other spaces (Display P3, Rec. 2020, …) need a primaries conversion Medley does not make.
    static let colorSpaces = ["sRGB", "linearSRGB"]

    static let colorSpace = ParameterAttributes(
        name: "inputColorSpace", type: .choice, displayName: "Color Space",
        description: "The CGColorSpace that defines the RGB values in the color table: sRGB (kCGColorSpaceSRGB, "
            + "encoded values) or linearSRGB (kCGColorSpaceLinearSRGB). Unset, the table applies in the working "
            + "space. Medley refuses other spaces (Display P3, Rec. 2020): its pixels have sRGB primaries and it "
            + "converts no others.",
        choices: colorSpaces)

    /// Medley's own: how the cube is read between entries.
    static let interpolation = ParameterAttributes(
        name: "interpolation", type: .choice, displayName: "Interpolation",
        description: "How the table is read between its entries (Medley): tetrahedral (as Resolve, OpenColorIO and "
            + "ffmpeg's lut3d interp=tetrahedral) or trilinear (a GPU texture's sampling, as Core Image does).",
        defaultValue: .text(LookupInterpolation.tetrahedral.rawValue), identity: .text(LookupInterpolation.tetrahedral.rawValue),
        choices: LookupInterpolation.allCases.map(\.rawValue))

    /// Medley's own: how much of the table's result to keep.
    static let intensity = ParameterAttributes(
        name: "intensity", type: .scalar, displayName: "Intensity",
        description: "How much of the table's result is mixed with the input (Medley): 0 leaves the image as it is, "
            + "1 applies the table fully; mixed in the values the table reads.",
        defaultValue: .number(1), identity: .number(0), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1)

    /// The working-space conversion a cube in `colorSpace` needs (nil: the working space itself).
    static func encoding(colorSpace: String?, workingSpace: Transfer) -> LookupEncoding {
        switch (colorSpace, workingSpace) {
        case ("sRGB"?, .sRGB): return .encodeSRGB
        case ("linearSRGB"?, .none): return .decodeSRGB
        default: return .working
        }
    }

    /// The interpolation chosen (tetrahedral unless set).
    static func interpolation(_ inputs: FilterInputs) -> LookupInterpolation {
        inputs.text("interpolation").flatMap(LookupInterpolation.init(rawValue:)) ?? .tetrahedral
    }

    /// The cube dimension set (2…128, checked when set).
    static func dimension(_ inputs: FilterInputs) -> Int {
        let n = inputs.number("inputCubeDimension") ?? 2
        return n >= 2 && n <= 128 ? Int(n) : 2
    }

    /// Why `key`'s data does not make a cube of the dimension set, or nil.
    static func dataProblem(_ inputs: FilterInputs, key: String) -> String? {
        let n = dimension(inputs)
        let count = inputs.vector(key)?.count ?? identityData.count
        let needed = 4 * n * n * n
        guard count != needed else { return nil }
        return "\(key) has \(count) numbers, but a cube of inputCubeDimension \(n) needs 4 × \(n)³ = \(needed) "
            + "(red, green, blue, alpha for each entry, red fastest, then green, then blue)"
    }

    /// The table `key`'s data makes at the dimension set; nil when the count does not fit.
    static func table(_ inputs: FilterInputs, key: String) -> ColorLookupTable? {
        let n = dimension(inputs)
        let data = inputs.vector(key) ?? identityData
        guard data.count == 4 * n * n * n else { return nil }
        var entries: [SIMD4<Float>] = []
        entries.reserveCapacity(n * n * n)
        for i in stride(from: 0, to: data.count, by: 4) {
            let alpha = Float(data[i + 3])
            let scale: Float = alpha > 0 ? 1 / alpha : 0
            entries.append(SIMD4(Float(data[i]) * scale, Float(data[i + 1]) * scale, Float(data[i + 2]) * scale, alpha))
        }
        return ColorLookupTable(shape: .cube, size: n, entries: entries)
    }
}
