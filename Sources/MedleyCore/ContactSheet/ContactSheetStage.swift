import MedleyMedia
import MedleyYAML

/// The `contactSheet:` stage (docs/contact-sheets.md): the job's exported images as thumbnails in
/// a grid, one sheet per group — the job, each folder, or pages of N items — laid out as
/// ImageMagick's `montage -geometry WxH+G+G -tile Cx` lays out its tiles.
public struct ContactSheetStage: Sendable, Equatable {
    /// How items are grouped into sheets.
    public enum Grouping: Sendable, Equatable {
        /// Every item of the job (in pages of `pageLimit` when there are more).
        case job
        /// The items of each folder below the ingest root (in pages of `pageLimit`).
        case folder
        /// Pages of this many items, in order of relative path.
        case items(Int)
    }

    /// A sheet holds at most this many cells; a larger `per: job` or `per: folder` group is paged.
    public static let pageLimit = 2_500

    public var columns: Int = 6
    /// The box each thumbnail is fitted into (shrunk or enlarged, as `montage -geometry WxH`).
    public var cellWidth: Int = 256
    public var cellHeight: Int = 256
    /// Pixels of background around each thumbnail's box on every side (`montage`'s `+G+G`).
    public var gap: Int = 4
    /// 0…255 per sRGB channel.
    public var background: [Double] = [255, 255, 255]
    /// The label drawn under each thumbnail (nil: none).
    public var label: NameTemplate?
    public var labelSize: Int = 12
    public var labelColour: [Double] = [0, 0, 0]
    public var per: Grouping = .job
    public var format: ImageFormat = .jpeg
    public var quality: Int = 85
    /// The sheet's path below the export root without its extension: `{job}`, `{folder}`, `{page}`.
    public var name: String = "{folder}/contact-sheet-{page}"

    /// The band under each thumbnail that holds its label (none without a label).
    public var labelBand: Int { label == nil ? 0 : labelSize * 3 / 2 + 2 }
    public var tileWidth: Int { cellWidth + 2 * gap }
    public var tileHeight: Int { cellHeight + 2 * gap + labelBand }

    /// Everything that changes a sheet's pixels: a sheet made with other options is redone.
    var signature: String {
        "\(columns) \(cellWidth)x\(cellHeight)+\(gap) \(background) \(label?.text ?? "-") \(labelSize) \(labelColour) \(format) \(quality)"
    }

    public static func == (a: ContactSheetStage, b: ContactSheetStage) -> Bool {
        a.signature == b.signature && a.per == b.per && a.name == b.name
    }
}

extension SchemaReader {
    static let contactSheetKeys = ["columns", "thumbnail", "gap", "background", "label", "labelSize", "labelColor",
                                   "per", "format", "quality", "name"]

    /// `contactSheet: { columns: 6, thumbnail: 256, gap: 4, label: "{stem}", per: folder }`. The job must export.
    func contactSheet(_ node: YAMLNode, hasExport: Bool) -> ContactSheetStage? {
        guard let fields = mapping(node, keys: Self.contactSheetKeys, what: "contactSheet") else { return nil }
        var stage = ContactSheetStage()
        var ok = true
        if !hasExport {
            sink.error(node, "a contact sheet is made from the job's exported images, but the job has no 'export'",
                       suggestion: "add 'export: { to: out }'")
            ok = false
        }
        func whole(_ key: String, _ range: ClosedRange<Int>, in node: YAMLNode? = nil) -> Int? {
            guard let valueNode = node ?? fields[key] else { return nil }
            guard let value = integer(valueNode, what: "contactSheet.\(key)") else { ok = false; return nil }
            guard range.contains(value) else {
                sink.error(valueNode, "contactSheet.\(key) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
                ok = false
                return nil
            }
            return value
        }
        if let columns = whole("columns", 1...1_000) { stage.columns = columns }
        if let gap = whole("gap", 0...1_000) { stage.gap = gap }
        if let size = whole("labelSize", 4...200) { stage.labelSize = size }
        if let quality = whole("quality", 1...100) { stage.quality = quality }
        if let thumbnail = fields["thumbnail"] {
            if case .mapping = thumbnail, let box = mapping(thumbnail, keys: ["width", "height"], what: "contactSheet.thumbnail") {
                guard let w = box["width"], let h = box["height"] else {
                    sink.error(thumbnail, "contactSheet.thumbnail needs both 'width' and 'height'", suggestion: "like { width: 320, height: 240 }")
                    return nil
                }
                if let width = whole("thumbnail.width", 1...4_096, in: w) { stage.cellWidth = width }
                if let height = whole("thumbnail.height", 1...4_096, in: h) { stage.cellHeight = height }
            } else if case .mapping = thumbnail {
                ok = false
            } else if let side = whole("thumbnail", 1...4_096) {
                stage.cellWidth = side
                stage.cellHeight = side
            }
        }
        if let colour = fields["background"] { if let value = sheetColour(colour, what: "contactSheet.background") { stage.background = value } else { ok = false } }
        if let colour = fields["labelColor"] { if let value = sheetColour(colour, what: "contactSheet.labelColor") { stage.labelColour = value } else { ok = false } }
        if let labelNode = fields["label"] {
            if let template = textTemplate(labelNode, what: "contactSheet.label") { stage.label = template } else { ok = false }
        }
        if let perNode = fields["per"] {
            if case .scalar(let text, true, _) = perNode, let count = Int(text) {
                if (1...ContactSheetStage.pageLimit).contains(count) { stage.per = .items(count) } else {
                    sink.error(perNode, "contactSheet.per takes from 1 to \(ContactSheetStage.pageLimit) items a sheet, not \(count)")
                    ok = false
                }
            } else if let text = string(perNode, what: "contactSheet.per") {
                switch text {
                case "job": stage.per = .job
                case "folder": stage.per = .folder
                default:
                    sink.error(perNode, "unknown contactSheet.per '\(text)'",
                               suggestion: DiagnosticSink.didYouMean(text, in: ["job", "folder"]) ?? "job, folder, or a number of items a sheet")
                    ok = false
                }
            } else {
                ok = false
            }
        }
        if let formatNode = fields["format"], let text = string(formatNode, what: "contactSheet.format") {
            let names = ["jpeg", "png", "webp", "tiff"]
            if names.contains(text), let format = ImageFormat(rawValue: text) { stage.format = format } else {
                sink.error(formatNode, "contactSheet.format '\(text)' is not one Medley writes sheets in",
                           suggestion: DiagnosticSink.didYouMean(text, in: names) ?? "one of \(names.joined(separator: ", "))")
                ok = false
            }
        } else if fields["format"] != nil {
            ok = false
        }
        if let nameNode = fields["name"], let text = string(nameNode, what: "contactSheet.name") {
            let parts = text.split(separator: "/", omittingEmptySubsequences: true)
            if text.hasPrefix("/") || parts.isEmpty || parts.contains(where: { $0 == ".." || $0 == "." || $0 == ".medley" }) {
                sink.error(nameNode, "contactSheet.name must be a relative path inside the export folder, without '.', '..' or .medley",
                           suggestion: "like sheets/{folder}-{page}")
                ok = false
            } else if stage.per != .job, !text.contains("{page}") && !(stage.per == .folder && text.contains("{folder}")) {
                sink.error(nameNode, "contactSheet.name '\(text)' would give every sheet the same name",
                           suggestion: stage.per == .folder ? "put {folder} (and {page}) in it" : "put {page} in it")
                ok = false
            } else {
                stage.name = text
            }
        } else if fields["name"] != nil {
            ok = false
        }
        return ok ? stage : nil
    }

    /// `'#RRGGBB'` or `[r, g, b]` with components 0…1, as 0…255 values.
    func sheetColour(_ node: YAMLNode, what: String) -> [Double]? {
        if case .sequence(let items, _) = node, items.count == 3 {
            let parts = items.compactMap { item -> Double? in
                guard case .scalar(let text, _, _) = item, let n = Self.number(text), (0...1).contains(n) else { return nil }
                return n * 255
            }
            if parts.count == 3 { return parts }
        } else if case .scalar(let text, _, _) = node, text.hasPrefix("#"), text.count == 7, let value = UInt32(text.dropFirst(), radix: 16) {
            return [Double(value >> 16 & 0xFF), Double(value >> 8 & 0xFF), Double(value & 0xFF)]
        }
        sink.error(node, "\(what) takes '#RRGGBB' or [r, g, b] with components 0…1, found \(node.kindDescription)")
        return nil
    }
}
