import Foundation
import MedleyTags
import XCTest
import MedleyTestSupport

/// TagIO.read on files tagged by other writers: the ffmpeg command line and mutagen.
final class TagReadTests: TagCase {
    /// ffmpeg's generic metadata names, which each muxer maps to its container's fields.
    let common = [
        "title": "Café ☕ 日本", "artist": "Ärtist", "album_artist": "Album Ärtist", "album": "Albüm", "genre": "Jazz",
        "composer": "Cömposer", "track": "3/12", "disc": "1/2", "date": "2024-05-01",
    ]
    let expected = [
        "title": "Café ☕ 日本", "artist": "Ärtist", "albumArtist": "Album Ärtist", "albumTitle": "Albüm", "genre": "Jazz",
        "composer": "Cömposer", "albumTrackNumber": "3", "albumTrackCount": "12", "discNumber": "1", "discCount": "2",
        "releaseDate": "2024-05-01",
    ]

    /// Retags `source` with the ffmpeg CLI (`-metadata`, and the cover as an attached picture).
    func ffmpegTagged(_ source: String, _ name: String, metadata: [String: String], cover: String? = nil, extra: [String] = []) throws -> String {
        let path = work + "/" + name
        var arguments = ["-v", "error", "-y", "-i", source]
        if let cover { arguments += ["-i", cover, "-map", "0", "-map", "1", "-disposition:v", "attached_pic"] }
        arguments += ["-c", "copy"]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { arguments += ["-metadata", "\(key)=\(value)"] }
        try Peer.must("ffmpeg", arguments + extra + [path])
        return path
    }

    func coverFile() throws -> (path: String, bytes: [UInt8]) {
        let bytes = try image("cover.jpg", width: 120, height: 90)
        return (work + "/cover.jpg", bytes)
    }

    func testM4ATaggedByFFmpeg() throws {
        let cover = try coverFile()
        let source = try tone("source.m4a", codec: "aac")
        var metadata = common
        metadata.merge(["comment": "Cömment", "lyrics": "Lyr\nics", "grouping": "Gröup", "compilation": "1", "tmpo": "120", "media_type": "21"]) { $1 }
        let path = try ffmpegTagged(source, "tagged.m4a", metadata: metadata, cover: cover.path)
        let tags = try TagIO.read(path: path)
        var want = expected
        want.merge(["comments": "Cömment", "lyrics": "Lyr\nics", "userGrouping": "Gröup", "isCompilation": "1",
                    "beatsPerMinute": "120", "mediaKind": "podcast"]) { $1 }
        XCTAssertEqual(tags.values, want)
        XCTAssertEqual(tags.artwork, Artwork(data: cover.bytes, mimeType: "image/jpeg"))
    }

    func testMP3TaggedByFFmpegAsID3v24AndV23() throws {
        let cover = try coverFile()
        let source = try tone("source.mp3", codec: "libmp3lame")
        var metadata = common
        metadata["grouping"] = "Gröup"
        for version in ["4", "3"] {
            let path = try ffmpegTagged(source, "tagged\(version).mp3", metadata: metadata, cover: cover.path, extra: ["-id3v2_version", version])
            XCTAssertEqual(try Peer.mutagen(path).version, "2.\(version)")
            let tags = try TagIO.read(path: path)
            var want = expected
            // ffmpeg maps grouping to TIT1 in v2.4 and to TXXX:grouping in v2.3 (mutagen's
            // "TXXX:grouping"), which ffprobe reads back as grouping: the one tag table reads
            // both as the grouping.
            want["userGrouping"] = "Gröup"
            if version == "3" { XCTAssertEqual(try Peer.mutagen(path).fields["TXXX:grouping"], ["Gröup"]) }
            XCTAssertEqual(tags.values, want, "ID3v2.\(version)")
            XCTAssertEqual(tags.artwork, Artwork(data: cover.bytes, mimeType: "image/jpeg"), "ID3v2.\(version)")
        }
    }

    /// mutagen writes ID3v2.3 with UTF-16 text, COMM, USLT, APIC, TYER+TDAT and iTunes' TCMP/PCST.
    func testMP3TaggedByMutagenAsID3v23() throws {
        let path = try tone("tagged.mp3", codec: "libmp3lame")
        let cover = try image("cover.png", width: 32, height: 16)
        let script = #"""
import sys
from mutagen.id3 import ID3, TIT2, TPE1, TCON, TRCK, COMM, USLT, APIC, TCMP, PCST, TBPM, TIT1, TPOS
t = ID3()
t.add(TIT2(encoding=1, text="Café ☕ 日本"))
t.add(TPE1(encoding=0, text="Ärtist"))
t.add(TCON(encoding=1, text="(8)"))
t.add(TRCK(encoding=0, text="7/9"))
t.add(TPOS(encoding=0, text="2"))
t.add(TBPM(encoding=0, text="98"))
t.add(TIT1(encoding=1, text="Gröup"))
t.add(COMM(encoding=1, lang="eng", desc="iTunNORM", text=" 0000 0000"))
t.add(COMM(encoding=1, lang="eng", desc="", text="Cömment 日本"))
t.add(USLT(encoding=1, lang="eng", desc="", text="Lyr\nics ☕"))
t.add(TCMP(encoding=0, text="1"))
t.add(PCST(value=1))
t.add(APIC(encoding=1, mime="image/png", type=3, desc="Cövér", data=open(sys.argv[2], "rb").read()))
t.add(__import__("mutagen.id3", fromlist=["TYER"]).TYER(encoding=0, text="2019"))
t.add(__import__("mutagen.id3", fromlist=["TDAT"]).TDAT(encoding=0, text="0703"))
t.save(sys.argv[1], v2_version=3)
"""#
        try Peer.must(Peer.python, ["-c", script, path, work + "/cover.png"])
        XCTAssertEqual(try Peer.mutagen(path).version, "2.3")
        let tags = try TagIO.read(path: path)
        XCTAssertEqual(tags.values, [
            "title": "Café ☕ 日本", "artist": "Ärtist", "genre": "Jazz", "albumTrackNumber": "7", "albumTrackCount": "9",
            "discNumber": "2", "beatsPerMinute": "98", "userGrouping": "Gröup", "comments": "Cömment 日本",
            "lyrics": "Lyr\nics ☕", "isCompilation": "1", "mediaKind": "podcast", "releaseDate": "2019-03-07",
        ])
        XCTAssertEqual(tags.artwork, Artwork(data: cover, mimeType: "image/png"))
    }

    func testVorbisCommentsTaggedByFFmpeg() throws {
        let cover = try coverFile()
        var metadata = common
        metadata.merge(["comment": "Cömment", "LYRICS": "Lyr\nics", "GROUPING": "Gröup", "COMPILATION": "1", "BPM": "120"]) { $1 }
        var want = expected
        want.merge(["comments": "Cömment", "lyrics": "Lyr\nics", "userGrouping": "Gröup", "isCompilation": "1", "beatsPerMinute": "120"]) { $1 }
        for (name, codec) in [("flac", "flac"), ("ogg", "libvorbis"), ("opus", "libopus")] {
            let source = try tone("source.\(name)", codec: codec)
            // ffmpeg 5.1 writes attached pictures into FLAC only.
            let path = try ffmpegTagged(source, "tagged.\(name)", metadata: metadata, cover: name == "flac" ? cover.path : nil)
            let tags = try TagIO.read(path: path)
            XCTAssertEqual(tags.values, want, name)
            XCTAssertEqual(tags.artwork, name == "flac" ? Artwork(data: cover.bytes, mimeType: "image/jpeg") : nil, name)
        }
    }

    /// mutagen's METADATA_BLOCK_PICTURE in an Ogg Vorbis file.
    func testOggPictureWrittenByMutagen() throws {
        let path = try tone("a.ogg", codec: "libvorbis")
        let cover = try image("cover.jpg")
        let script = #"""
import sys, base64
from mutagen.oggvorbis import OggVorbis
from mutagen.flac import Picture
f = OggVorbis(sys.argv[1])
p = Picture(); p.type = 3; p.mime = "image/jpeg"; p.data = open(sys.argv[2], "rb").read()
f["METADATA_BLOCK_PICTURE"] = [base64.b64encode(p.write()).decode("ascii")]
f["TITLE"] = ["Pïcture"]
f["TRACKNUMBER"] = ["05"]
f.save()
"""#
        try Peer.must(Peer.python, ["-c", script, path, work + "/cover.jpg"])
        let tags = try TagIO.read(path: path)
        XCTAssertEqual(tags.values, ["title": "Pïcture", "albumTrackNumber": "5"])
        XCTAssertEqual(tags.artwork, Artwork(data: cover, mimeType: "image/jpeg"))
    }

    func testWAVInfoTaggedByFFmpeg() throws {
        let source = try tone("source.wav", codec: "pcm_s16le")
        let path = try ffmpegTagged(source, "tagged.wav", metadata: [
            "title": "Café ☕", "artist": "Ärtist", "album": "Albüm", "genre": "Jazz", "comment": "Cömment", "date": "2024", "track": "4",
        ])
        XCTAssertEqual(try TagIO.read(path: path).values, [
            "title": "Café ☕", "artist": "Ärtist", "albumTitle": "Albüm", "genre": "Jazz", "comments": "Cömment",
            "releaseDate": "2024", "albumTrackNumber": "4",
        ])
    }

    /// A WAV of no samples whose LIST/INFO follows its data chunk: the size 0 is taken at its word when the RIFF
    /// form's own size is known (only a form of unknown size makes an audio chunk of 0 run to the end of the file).
    func testAnEmptyWAVKeepsTheInfoListAfterItsDataChunk() throws {
        var bytes: [UInt8] = []
        func u32(_ value: Int) { bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func u16(_ value: Int) { bytes += (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let info = Array("INFO".utf8) + Array("INAM".utf8) + [6, 0, 0, 0] + Array("Empty".utf8) + [0]
        bytes += Array("RIFF".utf8); u32(4 + (8 + 16) + 8 + (8 + info.count))
        bytes += Array("WAVEfmt ".utf8); u32(16); u16(1); u16(1); u32(8000); u32(16000); u16(2); u16(16)
        bytes += Array("data".utf8); u32(0)
        bytes += Array("LIST".utf8); u32(info.count); bytes += info
        let path = work + "/empty.wav"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try Peer.exiftool(path, group: "RIFF")["Title"], "Empty", "exiftool finds the title")
        let tags = try TagIO.read(path: path)
        XCTAssertEqual(tags.values["title"], "Empty")
        XCTAssertEqual(tags.warnings, [])
    }

    func testAIFFTaggedByFFmpegWithID3Chunk() throws {
        let cover = try coverFile()
        let source = try tone("source.aiff", codec: "pcm_s16be")
        let path = try ffmpegTagged(source, "tagged.aiff", metadata: common, cover: cover.path, extra: ["-write_id3v2", "1"])
        let tags = try TagIO.read(path: path)
        XCTAssertEqual(tags.values, expected)
        XCTAssertEqual(tags.artwork, Artwork(data: cover.bytes, mimeType: "image/jpeg"))
    }

    func testAIFFTextChunksTaggedByFFmpeg() throws {
        let source = try tone("source.aiff", codec: "pcm_s16be")
        let path = try ffmpegTagged(source, "tagged.aif", metadata: ["title": "Name ☕", "author": "Äuthor", "comment": "Annö"])
        XCTAssertEqual(try TagIO.read(path: path).values, ["title": "Name ☕", "artist": "Äuthor", "comments": "Annö"])
    }

    func testCAFTaggedByFFmpeg() throws {
        let source = try tone("source.caf", codec: "pcm_s16le")
        let path = try ffmpegTagged(source, "tagged.caf", metadata: [
            "title": "Café ☕", "artist": "Ärtist", "album": "Albüm", "genre": "Jazz", "composer": "Cömposer",
            "track number": "6", "year": "2021", "comments": "Cömment", "tempo": "101",
        ])
        XCTAssertEqual(try TagIO.read(path: path).values, [
            "title": "Café ☕", "artist": "Ärtist", "albumTitle": "Albüm", "genre": "Jazz", "composer": "Cömposer",
            "albumTrackNumber": "6", "releaseDate": "2021", "comments": "Cömment", "beatsPerMinute": "101",
        ])
    }

    /// docs/library.md, "Properties" (mediaType): a genre of Podcast marks a podcast where nothing else says.
    func testGenrePodcastMeansPodcast() throws {
        let source = try tone("source.flac")
        let path = try ffmpegTagged(source, "tagged.flac", metadata: ["genre": "Podcast"])
        XCTAssertEqual(try TagIO.read(path: path).values, ["genre": "Podcast", "mediaKind": "podcast"])
    }

    func testUntaggedFilesReadEmpty() throws {
        for (name, codec) in [("a.wav", "pcm_s16le"), ("a.aiff", "pcm_s16be"), ("a.caf", "pcm_s16le")] {
            let path = try tone(name, codec: codec, extra: ["-fflags", "+bitexact"])
            XCTAssertEqual(try TagIO.read(path: path), MediaTags(), name)
        }
    }

    /// 100,000 nested `meta` headers (8 bytes each) are not recursed into, which would overflow the
    /// stack: under moov, whose children must parse, the file is refused as damaged; under udta,
    /// whose children may be opaque, they are kept as bytes and the file reads as untagged.
    func testDeeplyNestedMP4AtomsAreRefusedNotRecursedInto() throws {
        func header(_ size: Int, _ type: String) -> [UInt8] {
            [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8)
        }
        let depth = 100_000
        let ftyp = header(20, "ftyp") + Array("M4A ".utf8) + [0, 0, 0, 0] + Array("M4A ".utf8)
        let metas = (0..<depth).flatMap { header(8 * (depth - $0), "meta") }
        let underMoov = work + "/moov-meta.m4a", underUdta = work + "/udta-meta.m4a"
        try Data(ftyp + header(8 + 8 * depth, "moov") + metas).write(to: URL(fileURLWithPath: underMoov))
        try Data(ftyp + header(16 + 8 * depth, "moov") + header(8 + 8 * depth, "udta") + metas)
            .write(to: URL(fileURLWithPath: underUdta))
        XCTAssertThrowsError(try TagIO.read(path: underMoov)) { error in
            XCTAssertEqual("\(error)", "cannot read the tags of \(underMoov): MP4 atoms nested more than 32 deep")
        }
        XCTAssertEqual(try TagIO.read(path: underUdta), MediaTags())
    }

    /// A number tag too big for any container ("1e300" beats per minute, carried from another file)
    /// is reported as not written; reading it as an Int used to trap.
    func testANumberTagBeyondAnyIntegerIsReportedNotWritten() throws {
        let path = try tone("a.mp3", codec: "libmp3lame")
        var tags = MediaTags()
        tags["beatsPerMinute"] = "1e300"
        tags["title"] = "t"
        XCTAssertEqual(try TagIO.write(tags, toFileAt: path, container: "mp3"), ["beatsPerMinute"])
        XCTAssertEqual(try TagIO.read(path: path).values, ["title": "t"])
    }

    /// An M4A whose moov also holds udta atoms nested 200,000 deep (1.6 MB of headers): the parser stops
    /// descending at 32 levels, keeps the rest as bytes, and reads the title; it used to recurse past the stack.
    func testAtomsNestedDeeperThanAnyFileAreNotDescended() throws {
        let source = try tone("source.m4a", codec: "aac")
        let tagged = try ffmpegTagged(source, "tagged.m4a", metadata: ["title": "Deep"])
        var bytes = try self.bytes(tagged)
        // Top-level atoms: find moov and insert the chain at its end, growing its size.
        var offset = 0, moov: (start: Int, size: Int)?
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == "moov" { moov = (offset, size) }
            guard size >= 8 else { break }
            offset += size
        }
        let found = try XCTUnwrap(moov)
        let depth = 200_000
        var chain: [UInt8] = []
        chain.reserveCapacity(8 * depth)
        for level in 0..<depth {
            let size = 8 * (depth - level)
            chain += [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            chain += Array("udta".utf8)
        }
        bytes.insert(contentsOf: chain, at: found.start + found.size)
        let grown = found.size + chain.count
        bytes.replaceSubrange(found.start..<found.start + 4,
                              with: [UInt8(grown >> 24 & 0xFF), UInt8(grown >> 16 & 0xFF), UInt8(grown >> 8 & 0xFF), UInt8(grown & 0xFF)])
        let deep = work + "/deep.m4a"
        try Data(bytes).write(to: URL(fileURLWithPath: deep))
        XCTAssertEqual(try TagIO.read(path: deep)["title"], "Deep")
    }
}
