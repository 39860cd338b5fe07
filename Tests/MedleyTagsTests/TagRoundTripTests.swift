import Foundation
import MedleyTags
import XCTest
import MedleyTestSupport

/// TagIO.write into files ffmpeg made, then read back by mutagen (raw frame/atom/field names),
/// ffprobe and exiftool. Expected names and values are written out here from docs/metadata.md, "Containers and fields", and the
/// formats' specifications.
final class TagRoundTripTests: TagCase {
    /// 300 characters of mixed scripts.
    static let longTitle = String(repeating: "Café ☕ 日本 ", count: 25)

    static let values: [String: String] = [
        "title": longTitle, "artist": "Café ☕ 日本", "albumArtist": "Ünïcödé & Friends", "albumTitle": "Album \"quoted\" / slash",
        "genre": "Jazz", "composer": "Jöhann 巴赫", "comments": "Line one\nLine two — dash", "lyrics": "La la la\n日本 da\n\nend",
        "userGrouping": "Group ☕", "albumTrackNumber": "3", "albumTrackCount": "12", "discNumber": "1", "discCount": "2",
        "beatsPerMinute": "128", "isCompilation": "1", "releaseDate": "2024-05-01", "mediaKind": "podcast",
        "podcastTitle": "My Podcast",
    ]

    func hostile(_ artwork: [UInt8], mime: String = "image/jpeg") -> MediaTags {
        MediaTags(values: Self.values, artwork: Artwork(data: artwork, mimeType: mime))
    }

    /// Writes `tags`, checks what was reported, that nothing is left beside the file, that the
    /// audio decodes to the same samples and duration, that permissions survive, and that
    /// TagIO.read gives back everything not reported.
    func writeAndCheck(_ path: String, ext: String, _ tags: MediaTags, unsupported: [String], tolerance: Double) throws {
        let before = try listing()
        let md5 = try Peer.decodedMD5(path)
        let duration = try Peer.duration(path)
        chmod(path, 0o640)

        let reported = try TagIO.write(tags, toFileAt: path, container: ext)

        XCTAssertEqual(reported, unsupported, ext)
        XCTAssertEqual(try listing(), before, "a temporary file was left behind")
        XCTAssertEqual(try Peer.decodedMD5(path), md5, "\(ext): the audio changed")
        XCTAssertEqual(try Peer.duration(path), duration, accuracy: tolerance, ext)
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o640, "\(ext): permissions")

        var expected = tags
        for key in unsupported {
            if key == "artwork" { expected.artwork = nil } else { expected[key] = nil }
        }
        let read = try TagIO.read(path: path)
        XCTAssertEqual(read.values, expected.values, ext)
        XCTAssertEqual(read.artwork, expected.artwork, "\(ext): artwork")
    }

    /// The ID3v2.4 frames mutagen should find for `values` (MP3, and the ID3 chunk of WAV and AIFF).
    func checkID3(_ dump: Peer.Dump, artwork: [UInt8], mime: String, file: StaticString = #filePath, line: UInt = #line) {
        let v = Self.values
        XCTAssertEqual(dump.version, "2.4", file: file, line: line)
        XCTAssertEqual(dump.fields, [
            "TIT2": [v["title"]!], "TPE1": [v["artist"]!], "TPE2": [v["albumArtist"]!], "TALB": [v["albumTitle"]!],
            "TCON": ["Jazz"], "TCOM": [v["composer"]!], "TIT1": [v["userGrouping"]!], "TRCK": ["3/12"], "TPOS": ["1/2"],
            "TDRC": ["2024-05-01"], "TBPM": ["128"], "TCMP": ["1"], "PCST": ["1"],
            "COMM::eng": [v["comments"]!], "USLT::eng": [v["lyrics"]!],
        ], file: file, line: line)
        XCTAssertEqual(dump.pictures.count, 1, file: file, line: line)
        XCTAssertEqual(dump.pictures.first?.mime, mime, file: file, line: line)
        XCTAssertEqual(dump.pictures.first?.type, 3, "front cover", file: file, line: line)
        XCTAssertTrue(dump.pictures.first?.data == artwork, "artwork bytes", file: file, line: line)
    }

    /// The Vorbis comment fields mutagen should find (FLAC, Ogg Vorbis, Opus), apart from pictures.
    func checkVorbis(_ dump: Peer.Dump, artwork: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let v = Self.values
        var fields = dump.fields
        if dump.type != "FLAC" {
            XCTAssertEqual(fields.removeValue(forKey: "METADATA_BLOCK_PICTURE")?.count, 1, file: file, line: line)
        }
        XCTAssertEqual(fields, [
            "TITLE": [v["title"]!], "ARTIST": [v["artist"]!], "ALBUMARTIST": [v["albumArtist"]!], "ALBUM": [v["albumTitle"]!],
            "GENRE": ["Jazz"], "COMPOSER": [v["composer"]!], "GROUPING": [v["userGrouping"]!], "DATE": ["2024-05-01"],
            "BPM": ["128"], "COMMENT": [v["comments"]!], "LYRICS": [v["lyrics"]!], "TRACKNUMBER": ["3"], "TRACKTOTAL": ["12"],
            "DISCNUMBER": ["1"], "DISCTOTAL": ["2"], "COMPILATION": ["1"],
        ], file: file, line: line)
        XCTAssertEqual(dump.pictures.count, 1, file: file, line: line)
        guard let picture = dump.pictures.first else { return }
        XCTAssertEqual(picture.mime, "image/jpeg", file: file, line: line)
        XCTAssertEqual(picture.type, 3, file: file, line: line)
        XCTAssertEqual(picture.width, 400, file: file, line: line)
        XCTAssertEqual(picture.height, 400, file: file, line: line)
        XCTAssertTrue(picture.data == artwork, "artwork bytes", file: file, line: line)
    }

    // MARK: MP4

    func checkMP4(_ path: String, artwork: [UInt8]) throws {
        let v = Self.values
        let dump = try Peer.mutagen(path)
        XCTAssertEqual(dump.type, "MP4")
        XCTAssertEqual(dump.fields, [
            "©nam": [v["title"]!], "©ART": [v["artist"]!], "aART": [v["albumArtist"]!], "©alb": [v["albumTitle"]!],
            "©gen": ["Jazz"], "©wrt": [v["composer"]!], "©grp": [v["userGrouping"]!], "©cmt": [v["comments"]!],
            "©lyr": [v["lyrics"]!], "©day": ["2024-05-01"], "trkn": ["3/12"], "disk": ["1/2"], "tmpo": ["128"],
            "cpil": ["1"], "stik": ["21"], "pcst": ["1"],
        ])
        XCTAssertEqual(dump.pictures.map(\.mime), ["13"], "covr holds one JPEG (data type 13)")
        XCTAssertTrue(dump.pictures.first?.data == artwork, "artwork bytes")
    }

    func testM4AWithMoovAtTheEnd() throws {
        let path = try tone("a.m4a", codec: "aac")
        let artwork = try image("cover.jpg")
        try writeAndCheck(path, ext: "m4a", hostile(artwork), unsupported: ["podcastTitle"], tolerance: 1024.0 / 48000)
        try checkMP4(path, artwork: artwork)
    }

    /// moov before mdat: the chunk offsets must move with moov's new size.
    func testM4AWithMoovFirst() throws {
        let path = try tone("a.m4a", codec: "aac", extra: ["-movflags", "+faststart"])
        let artwork = try image("cover.jpg")
        try writeAndCheck(path, ext: "m4a", hostile(artwork), unsupported: ["podcastTitle"], tolerance: 1024.0 / 48000)
        try checkMP4(path, artwork: artwork)
        // Smaller again: the offsets move back.
        try writeAndCheck(path, ext: "m4a", MediaTags(values: ["title": "Second"]), unsupported: [], tolerance: 1024.0 / 48000)
        XCTAssertEqual(try Peer.mutagen(path).fields, ["©nam": ["Second"]])
    }

    func testALACInM4A() throws {
        let path = try tone("a.m4a", codec: "alac", extra: ["-movflags", "+faststart"])
        let tags = MediaTags(values: ["title": "Lossless", "mediaKind": "audioBook", "albumTrackCount": "9"])
        try writeAndCheck(path, ext: "m4a", tags, unsupported: [], tolerance: 0.001)
        XCTAssertEqual(try Peer.mutagen(path).fields, ["©nam": ["Lossless"], "stik": ["2"], "trkn": ["0/9"]])
    }

    // MARK: MP3

    func testMP3() throws {
        let path = try tone("a.mp3", codec: "libmp3lame", extra: ["-metadata", "title=old", "-metadata", "comment=old"])
        let artwork = try image("cover.jpg")
        try writeAndCheck(path, ext: "mp3", hostile(artwork), unsupported: ["podcastTitle"], tolerance: 1152.0 / 48000)
        checkID3(try Peer.mutagen(path), artwork: artwork, mime: "image/jpeg")

        try writeAndCheck(path, ext: "mp3", MediaTags(values: ["artist": "Only", "mediaKind": "audioBook"]),
                          unsupported: ["mediaKind"], tolerance: 1152.0 / 48000)
        XCTAssertEqual(try Peer.mutagen(path).fields, ["TPE1": ["Only"]])
    }

    // MARK: Vorbis comments

    func testFLAC() throws {
        let path = try tone("a.flac", extra: ["-metadata", "title=old"])
        let artwork = try image("cover.jpg")
        try writeAndCheck(path, ext: "flac", hostile(artwork), unsupported: ["mediaKind", "podcastTitle"], tolerance: 0.001)
        let dump = try Peer.mutagen(path)
        XCTAssertEqual(dump.type, "FLAC")
        checkVorbis(dump, artwork: artwork)
    }

    /// ogginfo (vorbis-tools) or opusinfo (opus-tools) checks page CRCs, sequence numbers and headers.
    func checkOggStructure(_ path: String, tool: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let report = try Peer.must(tool, [path])
        let text = report.stdout + report.stderr
        XCTAssertFalse(text.contains("WARNING") || text.contains("ERROR") || text.contains("Hole in data"), text, file: file, line: line)
    }

    func testOggVorbis() throws {
        let path = try tone("a.ogg", codec: "libvorbis", seconds: 20)
        try checkOggStructure(path, tool: "ogginfo")
        let artwork = try image("cover.jpg")
        try writeAndCheck(path, ext: "ogg", hostile(artwork), unsupported: ["mediaKind", "podcastTitle"], tolerance: 2048.0 / 48000)
        try checkOggStructure(path, tool: "ogginfo")
        let dump = try Peer.mutagen(path)
        XCTAssertEqual(dump.type, "OggVorbis")
        checkVorbis(dump, artwork: artwork)
        // Back to one header page: every later page is renumbered down.
        try writeAndCheck(path, ext: "ogg", MediaTags(values: ["title": "Short"]), unsupported: [], tolerance: 2048.0 / 48000)
        try checkOggStructure(path, tool: "ogginfo")
        XCTAssertEqual(try Peer.mutagen(path).fields, ["TITLE": ["Short"]])
    }

    func testOpus() throws {
        let path = try tone("a.opus", codec: "libopus", seconds: 20)
        let artwork = try image("cover.jpg")
        try writeAndCheck(path, ext: "opus", hostile(artwork), unsupported: ["mediaKind", "podcastTitle"], tolerance: 0.020)
        try checkOggStructure(path, tool: "opusinfo")
        let dump = try Peer.mutagen(path)
        XCTAssertEqual(dump.type, "OggOpus")
        checkVorbis(dump, artwork: artwork)
        try writeAndCheck(path, ext: "opus", MediaTags(values: ["artist": "Short"]), unsupported: [], tolerance: 0.020)
        try checkOggStructure(path, tool: "opusinfo")
        XCTAssertEqual(try Peer.mutagen(path).fields, ["ARTIST": ["Short"]])
    }

    // MARK: Chunked containers

    func testWAV() throws {
        let path = try tone("a.wav", codec: "pcm_s16le", extra: ["-metadata", "title=old"])
        let artwork = try image("cover.png", width: 64, height: 48)
        try writeAndCheck(path, ext: "wav", hostile(artwork, mime: "image/png"), unsupported: ["podcastTitle"], tolerance: 0.001)
        let dump = try Peer.mutagen(path)
        XCTAssertEqual(dump.type, "WAVE")
        checkID3(dump, artwork: artwork, mime: "image/png")
        // The LIST/INFO chunk, as exiftool reads it.
        let info = try Peer.exiftool(path, group: "RIFF")
        XCTAssertEqual(info["Title"], Self.longTitle)
        XCTAssertEqual(info["Artist"], "Café ☕ 日本")
        XCTAssertEqual(info["Product"], Self.values["albumTitle"])
        XCTAssertEqual(info["Genre"], "Jazz")
        XCTAssertEqual(info["Comment"], Self.values["comments"])
        XCTAssertEqual(info["DateCreated"], "2024:05:01") // exiftool's date style for ICRD "2024-05-01"
        XCTAssertEqual(info["TrackNumber"], "3")
    }

    func testWAVSupportsWhatIsDocumented() {
        let all = Set(MediaTags.names + ["artwork"])
        XCTAssertEqual(all.subtracting(TagIO.supported(container: "wav")), ["podcastTitle"])
        XCTAssertEqual(all.subtracting(TagIO.supported(container: "aiff")), ["podcastTitle"])
        XCTAssertEqual(all.subtracting(TagIO.supported(container: "mp3")), ["podcastTitle"])
        XCTAssertEqual(all.subtracting(TagIO.supported(container: "m4a")), ["podcastTitle"])
        XCTAssertEqual(all.subtracting(TagIO.supported(container: "flac")), ["podcastTitle", "mediaKind"])
        XCTAssertEqual(TagIO.supported(container: "opus"), TagIO.supported(container: "ogg"))
        XCTAssertEqual(TagIO.supported(container: "aif"), TagIO.supported(container: "aiff"))
        XCTAssertEqual(TagIO.supported(container: "caf"), [
            "title", "artist", "albumTitle", "genre", "composer", "albumTrackNumber", "releaseDate", "comments", "beatsPerMinute",
        ])
        XCTAssertEqual(TagIO.supported(container: "xyz"), [])
    }

    func testAIFF() throws {
        let path = work + "/a.aiff"
        try Peer.must("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", path, "synth", "2", "sine", "440"])
        let artwork = try image("cover.jpg")
        try writeAndCheck(path, ext: "aiff", hostile(artwork), unsupported: ["podcastTitle"], tolerance: 0.001)
        let dump = try Peer.mutagen(path)
        XCTAssertEqual(dump.type, "AIFF")
        checkID3(dump, artwork: artwork, mime: "image/jpeg")
        // NAME/AUTH/ANNO are Mac OS Roman (exiftool decodes them so): what it cannot spell is only in the ID3 chunk.
        var native = try Peer.exiftool(path, group: "AIFF")
        XCTAssertNil(native["Name"])
        XCTAssertNil(native["Author"])
        XCTAssertEqual(native["Annotation"], Self.values["comments"])

        try writeAndCheck(path, ext: "aif", MediaTags(values: ["title": "Café Crème – «Ÿ»", "artist": "Ünïcödé"]),
                          unsupported: [], tolerance: 0.001)
        native = try Peer.exiftool(path, group: "AIFF")
        XCTAssertEqual(native["Name"], "Café Crème – «Ÿ»")
        XCTAssertEqual(native["Author"], "Ünïcödé")
        XCTAssertNil(native["Annotation"])
        XCTAssertEqual(try Peer.mutagen(path).fields, ["TIT2": ["Café Crème – «Ÿ»"], "TPE1": ["Ünïcödé"]])
    }

    func testCAF() throws {
        let path = try tone("a.caf", codec: "pcm_s16le", extra: ["-metadata", "title=old", "-metadata", "copyright=old"])
        let artwork = try image("cover.jpg")
        let unsupported = ["albumArtist", "albumTrackCount", "artwork", "discCount", "discNumber", "isCompilation", "lyrics",
                           "mediaKind", "podcastTitle", "userGrouping"]
        try writeAndCheck(path, ext: "caf", hostile(artwork), unsupported: unsupported, tolerance: 0.001)
        let v = Self.values
        XCTAssertEqual(try Peer.ffprobeTags(path), [
            "title": v["title"]!, "artist": v["artist"]!, "album": v["albumTitle"]!, "genre": "Jazz", "composer": v["composer"]!,
            "track number": "3", "year": "2024-05-01", "comments": v["comments"]!, "tempo": "128",
        ])
    }

    /// Writing through a symbolic link tags the file it points to and keeps the link.
    func testWritesThroughASymbolicLink() throws {
        let path = try tone("a.flac")
        let link = work + "/link.flac"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        try TagIO.write(MediaTags(values: ["title": "Linked"]), toFileAt: link, container: "flac")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), path)
        XCTAssertEqual(try Peer.mutagen(path).fields["TITLE"], ["Linked"])
        XCTAssertEqual(try listing(), ["a.flac", "link.flac"])
    }
}
