extension ParameterLimit {
    /// The longest reach of a disc or motion blur: each tile reads a margin this wide all round.
    static let blurReach = ParameterLimit(
        1000, because: "each tile reads the blur's reach on every side, and a longer one needs hundreds of MB per tile")

    /// The widest bokeh: its cost per pixel is the disc's area (π·r² taps).
    static let bokehRadius = ParameterLimit(
        64, because: "a bokeh disc costs π·r² multiplications per pixel, and a wider one takes minutes per image")
}
