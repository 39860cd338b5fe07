import Foundation
import MedleyFilters
import MedleyMedia

/// Text drawn per item: a template of the item's properties (`"© {exif.Artist} {exif.DateTimeOriginal:yyyy}"`)
/// rendered as text, escaped for Pango's markup, bounded, and drawn by libvips (`vips_text`). Used by
/// the `watermark:` step's `text:` and by graph nodes of `CITextImageGenerator`.
public struct TextImage: Sendable {
    /// The template, parsed at validation against the property names.
    public let template: NameTemplate
    /// A fontconfig family ("DejaVu Sans", "Noto Serif Bold"); the nearest installed font is used.
    public let font: String
    /// The em size in pixels.
    public let pixelSize: Double
    /// sRGB-encoded red, green, blue and alpha, 0…1.
    public let color: SIMD4<Double>

    /// The most characters a rendered text may have; longer values (a hostile tag) are cut, with a warning.
    public static let maximumCharacters = 200
    /// Text images beyond this many pixels (estimated before drawing) fail the item.
    public static let maximumPixels = 50_000_000

    /// The item's text, drawn as 8-bit sRGB + alpha, and the item's warnings.
    func draw(_ property: (String) -> TemplateValue?) throws -> (image: VipsImage, warnings: [String]) {
        var text: String
        do {
            text = try template.renderText(property)
        } catch let error as TemplateError {
            throw ItemFailure(.stage, "text '\(template.text)': \(error.message)")
        }
        var warnings: [String] = []
        text = Self.printable(text)
        if text.count > Self.maximumCharacters {
            warnings.append("the text '\(text.prefix(40))…' has \(text.count) characters; only the first \(Self.maximumCharacters) are drawn")
            text = String(text.prefix(Self.maximumCharacters))
        }
        guard !text.allSatisfy(\.isWhitespace) else {
            throw ItemFailure(.stage, "text '\(template.text)' is empty for this item; nothing to draw")
        }
        let size = pixelSize.rounded()
        guard size >= 1, size <= 10_000 else {
            throw ItemFailure(.unsupported, "text of \(FilterValue.format(pixelSize)) pixels cannot be drawn")
        }
        // A generous bound before drawing (a glyph is at most about an em wide, a line 1.5 em high).
        let lines = Double(text.split(separator: "\n", omittingEmptySubsequences: false).count)
        let longest = Double(text.split(separator: "\n").map(\.count).max() ?? 0)
        let estimate = longest * size * 1.5 * lines * size * 1.5
        guard estimate <= Double(Self.maximumPixels) else {
            throw ItemFailure(.limit, "text of \(text.count) characters at \(Int(size)) pixels would be an image of about \(Int(estimate / 1e6)) MP, over the \(Self.maximumPixels / 1_000_000) MP Medley draws")
        }
        do {
            return (try VipsImage.text(markup: Self.markup(text), font: font, pixelSize: Int(size), rgba: color), warnings)
        } catch let error as MediaError {
            throw ItemFailure(error, context: "cannot draw the text")
        }
    }

    /// Text as Pango markup that shows it literally: `&`, `<`, `>`, quotes become entities.
    static func markup(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Control characters other than newline and tab become spaces: Pango's markup parser rejects
    /// them (and a NUL would end the C string).
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            let value = scalar.value
            let control = value < 0x20 || (0x7F...0x9F).contains(value) || value == 0xFFFE || value == 0xFFFF
            return control && scalar != "\n" && scalar != "\t" ? " " : scalar
        }))
    }
}

