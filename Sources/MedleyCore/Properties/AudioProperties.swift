import Foundation
import MedleyKernels
import MedleyMedia
import MedleyTags

/// The properties of an audio item that Medley reads today (tags arrive with the media library).
struct AudioProperties {
    var values: [(name: String, value: TemplateValue)]
    /// Music unless the tags (or an .m4b container) say podcast or audiobook.
    let mediaType: MediaType

    init(file: IngestedFile, persistentID: UInt64, info: AudioStreamInfo, format: String, tags: MediaTags) {
        // Tag readers file an item only as music, podcast or audioBook (`MediaTags.mediaKind`).
        mediaType = tags["mediaKind"].flatMap(MediaType.init(rawValue:)) ?? (format == "m4b" ? .audioBook : .music)
        values = ItemProperties.fileFacts(file, persistentID: persistentID, mediaType: mediaType) + [
            ("format", .text(format)),
            ("codec", .text(info.encoding)),
            ("sampleRate", .integer(info.sampleRate)),
            ("channels", .integer(info.channels)),
            ("playbackDuration", .number((info.duration * 1000).rounded() / 1000)),
        ]
        values += Self.tagValues(tags)
        // iTunes files a podcast's title as the album of its episodes.
        if tags["mediaKind"] == "podcast", tags["podcastTitle"] == nil, let album = tags["albumTitle"] {
            values.append(("podcastTitle", .text(album)))
        }
    }

    /// Tags as typed properties: numbers as integers, `isCompilation` and `artwork` (present or
    /// not) as 1/0.
    static func tagValues(_ tags: MediaTags) -> [(name: String, value: TemplateValue)] {
        var values: [(name: String, value: TemplateValue)] = []
        for name in MediaTags.names where name != "mediaKind" {
            if let value = tags.entries[name].flatMap({ property($0, kind: ItemProperties.kind(of: name)) }) { values.append((name, value)) }
        }
        values.append(("artwork", .integer(tags.artwork == nil ? 0 : 1)))
        values += extraValues(tags)
        return values
    }

    /// A tag's value as a property of `kind`, or nil when it has none (empty text; text a number or
    /// flag property cannot read). Integers and flags carry over as they are; only text that a
    /// file held for a number ("3 ") is read as one, here, where it enters the properties.
    static func property(_ value: TagValue, kind: ItemProperties.Kind?) -> TemplateValue? {
        switch (value, kind) {
        case (.integer(let integer), _): return .integer(integer)
        case (.flag(let flag), _): return .integer(flag ? 1 : 0)
        case (.text(let text), .integer?), (.text(let text), .boolean?):
            return Int(text.trimmingCharacters(in: .whitespaces)).map(TemplateValue.integer)
        case (.text(let text), _): return text.isEmpty ? nil : .text(text)
        case (.texts(let list), _): return .text(list.joined(separator: "; "))
        }
    }

    /// A property as the tag value a writer stores: integers as integers (1/0 of a boolean as a
    /// flag), text as text. The inverse of ``property(_:kind:)``.
    static func tagValue(_ value: TemplateValue, kind: ItemProperties.Kind?) -> TagValue {
        switch (value, kind) {
        case (.integer(let integer), .boolean?) where integer == 0 || integer == 1: return .flag(integer == 1)
        case (.integer(let integer), _): return .integer(integer)
        case (.text(let text), _), (.path(let text), _): return .text(text)
        case (.number, _): return .text(value.text)
        }
    }

    /// The tags beyond the named properties (docs/metadata.md; ExtraTags) as `tag.<FIELD>`, named by their Vorbis field in upper
    /// case ("tag.ISRC", "tag.REPLAYGAIN_TRACK_GAIN") as a movie's container tags are named, so
    /// probe shows them and `where` and templates can use them; several values joined with "; ",
    /// as `values` joins those of a named property.
    static func extraValues(_ tags: MediaTags) -> [(name: String, value: TemplateValue)] {
        tags.extra.sorted { $0.key < $1.key }.compactMap { field, list in
            list.isEmpty ? nil : ("tag." + field, .text(list.joined(separator: "; ")))
        }
    }

    /// The tag properties of `values` (after the tag stage) as tags to write, with `artwork`, and
    /// the tags beyond the named properties (docs/metadata.md) and the lists of values of `read` (the input's), which the tag
    /// stage does not change (a list whose property was changed is written as the one new value).
    static func tags(from values: [(name: String, value: TemplateValue)], artwork: Artwork?, read: MediaTags = MediaTags()) -> MediaTags {
        var tags = MediaTags(artwork: artwork)
        tags.extra = read.extra
        for (name, value) in values where MediaTags.names.contains(name) {
            let kind = ItemProperties.kind(of: name)
            // Several values read stay several while the tag stage left their property as read.
            if case .texts? = read.entries[name], read.entries[name].flatMap({ property($0, kind: kind) }) == value {
                tags.entries[name] = read.entries[name]
            } else {
                tags.entries[name] = tagValue(value, kind: kind)
            }
        }
        // The item's `mediaType` is the tags' `mediaKind` (a podcast or an audiobook is marked in the
        // output as in the input; music needs no mark).
        if case .text(let kind)? = values.first(where: { $0.name == "mediaType" })?.value, kind == "podcast" || kind == "audioBook" {
            tags.entries["mediaKind"] = .text(kind)
        }
        // A podcast title that is the album (as read) is already stored as the album.
        if tags["podcastTitle"] == tags["albumTitle"] { tags.entries["podcastTitle"] = nil }
        return tags
    }

    subscript(name: String) -> TemplateValue? { values.first { $0.name == name }?.value }

    /// Metering as AVAudioPlayer reports it, one entry per channel.
    static func metering(_ meter: Meter) -> [(name: String, value: TemplateValue)] {
        (0..<meter.peak.count).flatMap { channel -> [(name: String, value: TemplateValue)] in
            [("peakPower.\(channel)", .number((meter.peakPower(channel: channel) * 100).rounded() / 100)),
             ("averagePower.\(channel)", .number((meter.averagePower(channel: channel) * 100).rounded() / 100))]
        }
    }
}
