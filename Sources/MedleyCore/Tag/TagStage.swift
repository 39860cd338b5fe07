import Foundation

/// The `tag:` stage (docs/pipelines.md, "tag"): derives tag values from the path (`from_path:`), assigns them from
/// templates (`set:`), and exports or embeds cover art (`artwork:`).
///
/// `apply` runs `from_path` first, then `set`, so `set` can use what the path gave. Every `set` template
/// is rendered against the properties as they were before `set` (after `from_path`), so the order of
/// its keys does not matter (`{title: "{artist}", artist: "{title}"}` swaps them).
public struct TagStage: Sendable {
    /// What `set:` assigns to one property.
    public enum Assignment: Sendable {
        /// A name template rendered as text (``NameTemplate/renderText(_:)``), then read as the property's kind;
        /// a template that is one property of that kind (`{discNumber}`) passes its value as it is.
        case template(NameTemplate)
        /// `"{-}"`: remove the property.
        case clear
    }

    /// `artwork:`.
    public enum ArtworkAction: Sendable {
        /// `{export: TEMPLATE}`: write the embedded cover art to a file named by the template.
        case export(NameTemplate)
        /// `{embed: FILE}`: embed this JPEG or PNG file (an absolute path) as the cover art.
        case embed(path: String)
    }

    /// Tag properties Medley can write (docs/metadata.md, "Containers and fields"); the rest are read from the file.
    public static let writableProperties = [
        "title", "artist", "albumArtist", "albumTitle", "genre", "composer", "comments", "lyrics", "userGrouping",
        "albumTrackNumber", "albumTrackCount", "discNumber", "discCount", "beatsPerMinute", "isCompilation",
        "releaseDate", "podcastTitle",
    ] + imageProperties

    /// What `set` can write into an image's metadata (`MetadataWrite.writable`: EXIF, IPTC and
    /// XMP fields each is written to; `title` is shared with audio).
    public static let imageProperties = ["creator", "copyright", "keywords", "rating", "label", "caption", "dateTaken", "lens"]

    public let fromPath: PathPattern?
    public let assignments: [(property: String, value: Assignment)]
    public let artwork: ArtworkAction?
    /// `replayGain: track | album`: ReplayGain 2.0 values written into every audio output's tags.
    public var replayGain: ReplayGainTags?
    /// `shiftDates: "+1:00:00"`: an image's dates moved, as exiftool's `-AllDates+=` (the
    /// properties now, the output's EXIF dates when it is written).
    public var shiftDates: DateShift?
    /// `sidecar: true`: an `.xmp` sidecar written beside each image output (`photo.jpg.xmp`).
    public var sidecar = false

    public init(fromPath: PathPattern? = nil, assignments: [(property: String, value: Assignment)] = [],
                artwork: ArtworkAction? = nil) {
        self.fromPath = fromPath
        self.assignments = assignments
        self.artwork = artwork
    }

    /// Applies `from_path` then `set` to an item's properties. `relativePath` is the item's path below its
    /// ingest root (its extension is ignored). Values are stored by kind: text as `.text`, integers as
    /// `.integer`, booleans as `.integer(1/0)`, dates as the ISO 8601 `.text` written.
    ///
    /// A path that does not fit `from_path` leaves the properties as they were, as beets does, and
    /// is returned as a warning for the item; `set` still applies.
    ///
    /// - Returns: the item's warnings (a path that does not fit `from_path`).
    /// - Throws: ``TagError`` when a template has no value for an item and no fallback, or when a rendered
    ///   value does not read as its property's kind. An empty result (only from an empty fallback such as
    ///   `{comments|""}`) clears the property, like `"{-}"`.
    @discardableResult
    public func apply(to properties: inout [(name: String, value: TemplateValue)], relativePath: String) throws -> [String] {
        var warnings: [String] = []
        if let fromPath {
            if let found = fromPath.match(relativePath) {
                for (name, value) in found { Self.store(value, as: name, in: &properties) }
            } else {
                let path = PathPattern.componentsWithoutExtension(relativePath).joined(separator: "/")
                warnings.append("tag.from_path: '\(path)' does not fit \"\(fromPath.text)\"; its tags are left as they were")
            }
        }
        let before = properties
        let lookup: (String) -> TemplateValue? = { name in before.first { $0.name == name }?.value }
        var results: [(String, TemplateValue?)] = []
        for (name, assignment) in assignments {
            guard case .template(let template) = assignment else {
                results.append((name, nil))
                continue
            }
            let kind = ItemProperties.kind(of: name) ?? .text
            // `{discNumber}` into `albumTrackNumber`: the value as it is, not its text read back.
            if let found = template.soleValue(lookup), let value = Self.value(found, kind: kind) {
                results.append((name, value))
                continue
            }
            let text: String
            do {
                text = try template.renderText(lookup)
            } catch let error as TemplateError {
                throw TagError(property: name, message: "tag.set.\(name): \(error.message)")
            }
            if text.allSatisfy(\.isWhitespace) {
                results.append((name, nil))
                continue
            }
            guard let value = Self.value(text, kind: kind, lenient: true) else {
                throw TagError(property: name,
                               message: "tag.set.\(name): '\(text)' is not \(SchemaReader.kindPhrase(kind))")
            }
            results.append((name, value))
        }
        for (name, value) in results { Self.store(value, as: name, in: &properties) }
        if let shiftDates { shift(&properties, by: shiftDates) }
        return warnings
    }

    /// `dateTaken` and the EXIF dates exiftool's AllDates names, moved (what `where` saw is as read;
    /// templates and the output see the shifted dates).
    func shift(_ properties: inout [(name: String, value: TemplateValue)], by shift: DateShift) {
        for index in properties.indices where DateShift.properties.contains(properties[index].name) || properties[index].name == "dateTaken" {
            guard case .text(let text) = properties[index].value, let moved = shift.shifted(property: text) else { continue }
            properties[index].value = .text(moved)
        }
    }

    /// Sets (replacing the first entry of that name, dropping any others) or removes a property.
    static func store(_ value: TemplateValue?, as name: String, in properties: inout [(name: String, value: TemplateValue)]) {
        guard let index = properties.firstIndex(where: { $0.name == name }) else {
            if let value { properties.append((name, value)) }
            return
        }
        properties.removeAll { $0.name == name }
        if let value { properties.insert((name, value), at: index) }
    }

    /// A property's value as it is, when it already has `kind` and reads as that kind's text
    /// would (a whole number ≥ 0, a boolean's 1 or 0, text); nil when only its text can be read
    /// as `kind` (``value(_:kind:lenient:)``).
    static func value(_ value: TemplateValue, kind: ItemProperties.Kind) -> TemplateValue? {
        switch (value, kind) {
        case (.integer(let integer), .integer) where integer >= 0: return value
        case (.integer(let integer), .boolean) where integer == 0 || integer == 1: return value
        case (.text, .text): return value
        default: return nil
        }
    }

    /// Text read as a property's kind, or nil when it does not read. `lenient` (rendered `set` values)
    /// ignores surrounding whitespace; a path field's text must be exact ("3 " is not a track number).
    static func value(_ text: String, kind: ItemProperties.Kind, lenient: Bool) -> TemplateValue? {
        let trimmed = lenient ? text.trimmingCharacters(in: .whitespacesAndNewlines) : text
        switch kind {
        case .text:
            return .text(text)
        case .integer:
            guard trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let integer = Int(trimmed) else { return nil }
            return .integer(integer)
        case .number:
            guard let number = Double(trimmed), number.isFinite else { return nil }
            return .number(number)
        case .boolean:
            return WhereValue.boolean(trimmed).map { .integer($0 ? 1 : 0) }
        case .date:
            return DatePeriod(iso8601: trimmed) != nil ? .text(trimmed) : nil
        }
    }
}

/// A tag stage could not be applied to one item (a per-item failure, never a run-wide one).
public struct TagError: Error, Equatable, CustomStringConvertible {
    /// The `set` property concerned; nil for a `from_path` mismatch.
    public let property: String?
    public let message: String

    public init(property: String?, message: String) {
        self.property = property
        self.message = message
    }

    public var description: String { message }
}
