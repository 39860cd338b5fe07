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
            guard let text = tags[name], !text.isEmpty else { continue }
            switch ItemProperties.kind(of: name) {
            case .integer?, .boolean?:
                if let number = Int(text.trimmingCharacters(in: .whitespaces)) { values.append((name, .integer(number))) }
            default:
                values.append((name, .text(text)))
            }
        }
        values.append(("artwork", .integer(tags.artwork == nil ? 0 : 1)))
        values += extraValues(tags)
        return values
    }

    /// The tags outside SPEC §4 (ExtraTags) as `tag.<FIELD>`, named by their Vorbis field in upper
    /// case ("tag.ISRC", "tag.REPLAYGAIN_TRACK_GAIN") as a movie's container tags are named, so
    /// probe shows them and `where` and templates can use them; several values joined with "; ",
    /// as `values` joins those of a SPEC §4 key.
    static func extraValues(_ tags: MediaTags) -> [(name: String, value: TemplateValue)] {
        tags.extra.sorted { $0.key < $1.key }.compactMap { field, list in
            list.isEmpty ? nil : ("tag." + field, .text(list.joined(separator: "; ")))
        }
    }

    /// The tag properties of `values` (after the tag stage) as tags to write, with `artwork`, and
    /// the tags outside SPEC §4 and the lists of values of `read` (the input's), which the tag
    /// stage does not change (`MediaTags.all` drops a list whose property was changed).
    static func tags(from values: [(name: String, value: TemplateValue)], artwork: Artwork?, read: MediaTags = MediaTags()) -> MediaTags {
        var tags = MediaTags(artwork: artwork)
        tags.extra = read.extra
        tags.lists = read.lists
        for (name, value) in values where MediaTags.names.contains(name) {
            tags[name] = value.text
        }
        // The item's `mediaType` is the tags' `mediaKind` (a podcast or an audiobook is marked in the
        // output as in the input; music needs no mark).
        if case .text(let kind)? = values.first(where: { $0.name == "mediaType" })?.value, kind == "podcast" || kind == "audioBook" {
            tags["mediaKind"] = kind
        }
        // A podcast title that is the album (as read) is already stored as the album.
        if tags["podcastTitle"] == tags["albumTitle"] { tags["podcastTitle"] = nil }
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
