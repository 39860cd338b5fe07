extension ParameterLimit {
    /// The largest structuring element: the cost per pixel grows with its radius (or its width plus height).
    static let morphologySize = ParameterLimit(
        1000, because: "the cost per pixel grows with the structuring element's size, and a larger one would take minutes per image")
}
