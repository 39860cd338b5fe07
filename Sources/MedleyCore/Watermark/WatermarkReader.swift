import MedleyFilters
import MedleyYAML

/// Reading a job's `watermark:` mapping, and the text template of a graph's CITextImageGenerator.
extension SchemaReader {
    static let watermarkKeys = ["image", "text", "font", "size", "color", "gravity", "offset", "width", "opacity",
                                "tile", "spacing"]
    /// The font a text watermark uses unless it names one (fonts-dejavu-core).
    static let defaultWatermarkFont = "DejaVu Sans"

    /// `watermark: { image: logos/logo.png, gravity: southeast, offset: [10, 10], width: "15%", opacity: 0.5 }`
    /// or `{ text: "© {exif.Artist}", font: DejaVu Sans, size: 24, color: [1, 1, 1] }`.
    func watermark(_ node: YAMLNode, maxPixels: Int) -> Watermark? {
        guard let fields = mapping(node, keys: Self.watermarkKeys, what: "watermark") else { return nil }
        var ok = true
        let mark: Watermark.Mark?
        switch (fields["image"], fields["text"]) {
        case (let imageNode?, nil):
            for key in ["font", "size", "color"] {
                if let extra = fields[key] {
                    sink.error(extra, "watermark.\(key) is for a text watermark; this one is an image",
                               suggestion: "remove '\(key)', or use 'text:' instead of 'image:'")
                    ok = false
                }
            }
            if let asset = assetFile(imageNode, what: "watermark.image"),
               checkAssetImage(asset, at: imageNode.mark, what: "watermark.image", maxPixels: maxPixels) {
                mark = .image(asset)
            } else {
                mark = nil
            }
        case (nil, let textNode?):
            mark = watermarkText(textNode, fields: fields).map(Watermark.Mark.text)
        case (_?, let textNode?):
            sink.error(textNode, "a watermark is either an 'image' or a 'text', not both",
                       suggestion: "use two jobs, or a graph with a CITextImageGenerator node")
            return nil
        case (nil, nil):
            sink.error(node, "the watermark has neither 'image' nor 'text'",
                       suggestion: "add 'image: logos/logo.png' or 'text: \"© {exif.Artist}\"'")
            return nil
        }
        if mark == nil { ok = false }

        var gravity = Watermark.Gravity.southeast
        if let gravityNode = fields["gravity"], let word = string(gravityNode, what: "watermark.gravity") {
            let names = Watermark.Gravity.allCases.map(\.rawValue)
            if let known = Watermark.Gravity(rawValue: word == "center" ? "centre" : word) {
                gravity = known
            } else {
                sink.error(gravityNode, "watermark.gravity is one of \(names.joined(separator: ", ")), not '\(word)'",
                           suggestion: DiagnosticSink.didYouMean(word, in: names) ?? "e.g. 'southeast' for the bottom-right corner")
                ok = false
            }
        }
        var offset: (x: Watermark.Length, y: Watermark.Length)? = (.pixels(0), .pixels(0))
        if let offsetNode = fields["offset"] { offset = lengthPair(offsetNode, what: "watermark.offset", allowNegative: true) }
        var spacing: (x: Watermark.Length, y: Watermark.Length)? = (.pixels(0), .pixels(0))
        if let spacingNode = fields["spacing"] { spacing = lengthPair(spacingNode, what: "watermark.spacing", allowNegative: false) }
        if offset == nil || spacing == nil { ok = false }
        var width: Watermark.Length?
        if let widthNode = fields["width"] {
            width = length(widthNode, what: "watermark.width", allowNegative: false)
            switch width {
            case nil:
                ok = false
            case .pixels(let n)? where n <= 0, .percent(let n)? where n <= 0:
                sink.error(widthNode, "watermark.width must be more than 0, not \(FilterValue.format(n))"); ok = false
            case .percent(let p)? where p > 100:
                sink.error(widthNode, "watermark.width of \(FilterValue.format(p))% is wider than the image",
                           suggestion: "at most \"100%\""); ok = false
            default:
                break
            }
        }
        var opacity = 1.0
        if let opacityNode = fields["opacity"] {
            if let n = number(opacityNode, what: "watermark.opacity") {
                if (0...1).contains(n) { opacity = n } else {
                    sink.error(opacityNode, "watermark.opacity = \(FilterValue.format(n)) is out of range: it must be ≥ 0 and ≤ 1",
                               suggestion: "0.5 is half transparent, 1 opaque"); ok = false
                }
            } else { ok = false }
        }
        var tile = false
        if let tileNode = fields["tile"] {
            if let b = boolean(tileNode, what: "watermark.tile") { tile = b } else { ok = false }
        }
        if fields["spacing"] != nil, !tile, let spacingNode = fields["spacing"] {
            sink.error(spacingNode, "watermark.spacing is the gap between tiles, but the watermark is not tiled",
                       suggestion: "add 'tile: true', or remove 'spacing'"); ok = false
        }
        guard ok, let mark, let offset, let spacing else { return nil }
        return Watermark(mark: mark, gravity: gravity, offset: offset, width: width, opacity: opacity, tile: tile,
                         spacing: spacing)
    }

    /// A text watermark's template, font, size and colour.
    private func watermarkText(_ textNode: YAMLNode, fields: [String: YAMLNode]) -> TextImage? {
        guard let template = textTemplate(textNode, what: "watermark.text") else { return nil }
        var font = Self.defaultWatermarkFont
        if let fontNode = fields["font"], let name = fontName(fontNode, what: "watermark.font") { font = name }
        else if fields["font"] != nil { return nil }
        var size = 24.0
        if let sizeNode = fields["size"] {
            guard let n = number(sizeNode, what: "watermark.size") else { return nil }
            guard n >= 1, n <= ParameterLimit.fontSize.maximum else {
                sink.error(sizeNode, "watermark.size = \(FilterValue.format(n)) must be ≥ 1 and ≤ \(FilterValue.format(ParameterLimit.fontSize.maximum)) pixels",
                           suggestion: ParameterLimit.fontSize.reason)
                return nil
            }
            size = n
        }
        var color = SIMD4<Double>(1, 1, 1, 1)
        if let colorNode = fields["color"] {
            guard case .sequence(let items, _) = colorNode, items.count == 3 || items.count == 4 else {
                sink.error(colorNode, "watermark.color takes [r, g, b] or [r, g, b, a] with components 0…1, found \(colorNode.kindDescription)")
                return nil
            }
            var parts: [Double] = []
            for item in items {
                guard let n = number(item, what: "watermark.color"), (0...1).contains(n) else {
                    sink.error(item, "watermark.color components are numbers from 0 to 1")
                    return nil
                }
                parts.append(n)
            }
            color = SIMD4(parts[0], parts[1], parts[2], parts.count == 4 ? parts[3] : 1)
        }
        return TextImage(template: template, font: font, pixelSize: size, color: color)
    }

    /// A template of the item's properties for drawn text, checked now.
    func textTemplate(_ node: YAMLNode, what: String) -> NameTemplate? {
        guard let text = string(node, what: what) else { return nil }
        guard text.count <= TextImage.maximumCharacters * 4 else {
            sink.error(node, "\(what) is \(text.count) characters long", suggestion: "at most \(TextImage.maximumCharacters) characters are drawn")
            return nil
        }
        do {
            return try NameTemplate(text, knownProperties: ItemProperties.templateNames)
        } catch let error as TemplateError {
            sink.error(at: Self.mark(in: node, offset: error.offset), "\(what): \(error.message)",
                       suggestion: error.suggestion.map { "did you mean '{\($0)}'?" })
        } catch {
            sink.error(node, "\(what): \(error)")
        }
        return nil
    }

    /// A fontconfig family name: letters, digits, spaces and a few marks (it becomes part of a Pango
    /// font description, whose own syntax — sizes, commas — it must not carry).
    func fontName(_ node: YAMLNode, what: String) -> String? {
        guard let name = string(node, what: what) else { return nil }
        let allowed = name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || " -_.".unicodeScalars.contains($0) }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 100, allowed,
              !(name.last?.isNumber ?? false) else {
            sink.error(node, "\(what) '\(name)' is not a font family name",
                       suggestion: "a family like 'DejaVu Sans' or 'DejaVu Serif Bold' (the size is a separate key)")
            return nil
        }
        return name
    }

    private func number(_ node: YAMLNode, what: String) -> Double? {
        guard case .scalar(let text, true, _) = node, let n = Self.number(text) else {
            sink.error(node, "\(what) must be a number, found \(node.kindDescription)")
            return nil
        }
        return n
    }

    /// `12` (pixels) or `"5%"` (of the image's side).
    private func length(_ node: YAMLNode, what: String, allowNegative: Bool) -> Watermark.Length? {
        guard case .scalar(let text, let plain, _) = node else {
            sink.error(node, "\(what) takes pixels (12) or a percentage (\"5%\"), found \(node.kindDescription)")
            return nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let value: Watermark.Length?
        if trimmed.hasSuffix("%"), let n = Self.number(String(trimmed.dropLast())) {
            value = .percent(n)
        } else if plain, let n = Self.number(trimmed) {
            value = .pixels(n)
        } else {
            value = nil
        }
        guard let value else {
            sink.error(node, "\(what) takes pixels (12) or a percentage (\"5%\"), not '\(text)'")
            return nil
        }
        let n: Double
        switch value { case .pixels(let p): n = p; case .percent(let p): n = p }
        guard abs(n) <= Watermark.maximumSide, allowNegative || n >= 0 else {
            sink.error(node, "\(what) = '\(text)' must be \(allowNegative ? "" : "≥ 0 and ")within ±\(FilterValue.format(Watermark.maximumSide))")
            return nil
        }
        return value
    }

    /// `[x, y]`, each pixels or a percentage.
    private func lengthPair(_ node: YAMLNode, what: String, allowNegative: Bool) -> (x: Watermark.Length, y: Watermark.Length)? {
        guard case .sequence(let items, _) = node, items.count == 2 else {
            sink.error(node, "\(what) takes [x, y], each pixels or a percentage like \"2%\", found \(node.kindDescription)")
            return nil
        }
        guard let x = length(items[0], what: what, allowNegative: allowNegative),
              let y = length(items[1], what: what, allowNegative: allowNegative) else { return nil }
        return (x, y)
    }
}
