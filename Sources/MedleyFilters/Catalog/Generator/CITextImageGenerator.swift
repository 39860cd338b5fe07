/// CITextImageGenerator: an image of a line of text, as big as the text (Core Image's extent is
/// the text's bounding box, at the origin). In Medley the text is a template of the item's
/// properties (`"© {exif.Artist}"`), so the image is drawn per item by the renderer (Pango through
/// libvips' `vips_text`): the recipe names the graph node to draw (`.source("text:<node>")`), and
/// this definition only declares the inputs. `inputColor` is Medley's own (Core Image's text is
/// black unless an attributed string says otherwise).
enum TextImageGenerator: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CITextImageGenerator",
        displayName: "Text Image Generator",
        categories: [Category.generator, Category.video, Category.stillImage, Category.builtIn],
        summary: "Generate an image from a string and font information.",
        reference: "Apple's CITextImageGenerator inputs; drawn by Pango (vips_text) at 72 dpi, one point per pixel × inputScaleFactor",
        parameters: [
            ParameterAttributes(
                name: "inputText", type: .text, displayName: "Text",
                description: "The text to render: a template of the item's properties, like \"© {exif.Artist}\".",
                defaultValue: .text("")),
            ParameterAttributes(
                name: "inputFontName", type: .text, displayName: "Font Name",
                description: "The name of the font to use for the generated text (a fontconfig family; the nearest installed font is used).",
                defaultValue: .text("HelveticaNeue")),
            ParameterAttributes(
                name: "inputFontSize", type: .scalar, displayName: "Font Size",
                description: "The size of the font to use for the generated text.",
                defaultValue: .number(12), minimum: 9, sliderMinimum: 9, sliderMaximum: 128,
                limit: .fontSize),
            ParameterAttributes(
                name: "inputScaleFactor", type: .scalar, displayName: "Scale Factor",
                description: "The scale of the font to use for the generated text.",
                defaultValue: .number(1), minimum: 0, sliderMinimum: 1, sliderMaximum: 4,
                limit: .textScale),
            ParameterAttributes(
                name: "inputColor", type: .color, displayName: "Color",
                description: "Medley's own: the colour of the text.",
                defaultValue: .color(red: 0, green: 0, blue: 0, alpha: 1)),
        ])

    /// The source a graph's text node becomes (`ImageGraph.recipe`); outside a graph there is no
    /// node to name, and the renderer draws nothing for it.
    static let sourcePrefix = "text:"

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        .source(sourcePrefix)
    }
}

extension ParameterLimit {
    /// The largest font size (pixels): the text is drawn whole into memory, at most 200 characters.
    public static let fontSize = ParameterLimit(
        400, because: "text is drawn whole into memory, and larger glyphs make images of hundreds of MB")

    /// The largest scale of a text image.
    public static let textScale = ParameterLimit(
        4, because: "text is drawn whole into memory, and a larger scale makes images of hundreds of MB")
}
