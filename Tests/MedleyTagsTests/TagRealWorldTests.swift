import Foundation
import MedleyTags
import XCTest
import MedleyTestSupport

/// Tags of files as real encoders and taggers leave them: headers paged the old way, damaged
/// frames and blocks. What Medley keeps is compared with what mutagen, ogginfo and ffmpeg read.
final class TagRealWorldTests: TagCase {
    /// fixtures/tools/ogg-share-header-page.py, which re-pages an Ogg Vorbis file so that the
    /// comment and setup headers and the first audio packets share one page (CRCs recomputed).
    static let sharedHeaderPage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/tools/ogg-share-header-page.py").path

    static let framingWarning = "Terminal header page contains additional packets or has non-zero granulepos"

    /// An Ogg Vorbis file made by libvorbis (through ffmpeg) with `metadata`, re-paged so its
    /// first audio packets share the last header page; ogginfo flags it.
    func sharedPageVorbis(_ name: String, metadata: [String: String]) throws -> String {
        let framed = work + "/framed-" + name
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=2:sample_rate=48000", "-ac", "2",
                         "-c:a", "libvorbis"]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { arguments += ["-metadata", "\(key)=\(value)"] }
        try Peer.must("ffmpeg", arguments + [framed])
        let path = work + "/" + name
        try Peer.must(Peer.python, [Self.sharedHeaderPage, framed, path])
        XCTAssertTrue(try Peer.run("ogginfo", [path]).stdout.contains(Self.framingWarning), "the file is paged the old way")
        XCTAssertEqual(try Peer.decodedMD5(path), try Peer.decodedMD5(framed), "the same audio")
        return path
    }

    func testVorbisWhoseAudioSharesTheLastHeaderPageIsReadAndRewrittenAsValidOgg() throws {
        let path = try sharedPageVorbis("shared.ogg", metadata: ["title": "Tïtle", "artist": "Ärtist", "album": "Albüm"])
        let audio = try Peer.decodedMD5(path)
        let peer = try Peer.mutagen(path)
        XCTAssertEqual(peer.fields["title"], ["Tïtle"])
        let tags = try TagIO.read(path: path)
        XCTAssertEqual(tags.values, ["title": "Tïtle", "artist": "Ärtist", "albumTitle": "Albüm"])
        XCTAssertEqual(tags.warnings, [])

        // Rewriting moves the audio packets onto a page of their own: ogginfo finds nothing wrong.
        let cover = try image("cover.jpg") // about 200 KB: the comment header spans many pages
        let rejected = try TagIO.write(MediaTags(values: ["title": "New Tïtle", "albumTrackNumber": "4"],
                                                 artwork: Artwork(data: cover, mimeType: "image/jpeg")),
                                       toFileAt: path, container: "ogg")
        XCTAssertEqual(rejected, [])
        let check = try Peer.run("ogginfo", [path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertFalse(check.stdout.contains("WARNING"), check.stdout)
        XCTAssertFalse(check.stdout.contains("ERROR"), check.stdout)
        let written = try Peer.mutagen(path)
        XCTAssertEqual(written.fields["TITLE"], ["New Tïtle"])
        XCTAssertEqual(written.fields["TRACKNUMBER"], ["4"])
        XCTAssertEqual(written.pictures.first?.data, cover)
        XCTAssertEqual(try Peer.decodedMD5(path), audio, "the audio packets are unchanged")
        XCTAssertEqual(try Peer.duration(path), 2.0, accuracy: 0.001, "granule positions kept")
    }

    // MARK: Damaged tags: skip what is damaged, keep the rest, warn

    /// The frames of an ID3v2.4 tag as ffmpeg writes it (syncsafe sizes, no flags), and the audio after it.
    func id3v24Frames(_ bytes: [UInt8]) -> (frames: [(id: String, payload: [UInt8])], audio: [UInt8]) {
        let size = bytes[6..<10].reduce(0) { $0 << 7 | Int($1) }
        var frames: [(String, [UInt8])] = []
        var at = 10
        while at + 10 <= 10 + size, bytes[at] != 0 {
            let length = bytes[at + 4..<at + 8].reduce(0) { $0 << 7 | Int($1) }
            frames.append((String(decoding: bytes[at..<at + 4], as: UTF8.self), Array(bytes[at + 10..<at + 10 + length])))
            at += 10 + length
        }
        return (frames, Array(bytes[(10 + size)...]))
    }

    /// An ID3v2.4 tag of raw frames: each (ID, declared size, payload as written).
    func id3v24Tag(_ frames: [(id: String, size: Int, payload: [UInt8])]) -> [UInt8] {
        func syncsafe(_ value: Int) -> [UInt8] { [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)] }
        var body: [UInt8] = []
        for frame in frames { body += Array(frame.id.utf8) + syncsafe(frame.size) + [0, 0] + frame.payload }
        return [0x49, 0x44, 0x33, 4, 0, 0] + syncsafe(body.count) + body
    }

    let id3Metadata = ["title": "Tïtle", "artist": "Ärtist", "album": "Albüm", "composer": "Cömposer", "genre": "Jazz", "track": "5"]

    /// A TCOM frame whose text encoding byte is 9 (ID3 defines 0–3) and a POPM frame whose size
    /// runs 200 bytes past its data, into the frames after it: both are skipped with a warning
    /// and every other frame is kept. mutagen drops the TCOM frame as well; after the POPM frame
    /// it reads the following frames as the POPM's data and loses them, so what Medley keeps
    /// there is checked against mutagen's reading of the undamaged file.
    func testDamagedID3FramesAreSkippedAndTheRestKept() throws {
        let made = try tone("made.mp3", codec: "libmp3lame", extra: id3Metadata.sorted { $0.key < $1.key }.flatMap { ["-metadata", "\($0.key)=\($0.value)"] })
        let original = try Peer.mutagen(made)
        XCTAssertEqual(original.version, "2.4")
        let (frames, audio) = id3v24Frames(try bytes(made))
        XCTAssertEqual(Set(frames.map(\.id)), Set(original.fields.keys), "the test's frame walker finds mutagen's frames")

        // TCOM with encoding 9.
        var badEncoding = frames.map { (id: $0.id, size: $0.payload.count, payload: $0.payload) }
        let composer = try XCTUnwrap(badEncoding.firstIndex { $0.id == "TCOM" })
        badEncoding[composer].payload[0] = 9
        let encodingPath = work + "/encoding.mp3"
        try Data(id3v24Tag(badEncoding) + audio).write(to: URL(fileURLWithPath: encodingPath))
        let peer = try Peer.mutagen(encodingPath)
        XCTAssertNil(peer.fields["TCOM"], "mutagen skips the frame")
        XCTAssertEqual(peer.fields["TALB"], ["Albüm"], "and keeps the rest")
        let kept = try TagIO.read(path: encodingPath)
        XCTAssertEqual(kept.values, ["title": "Tïtle", "artist": "Ärtist", "albumTitle": "Albüm", "genre": "Jazz", "albumTrackNumber": "5"])
        XCTAssertEqual(kept.warnings, ["ID3v2 frame TCOM has text encoding 9, which ID3 does not define; skipped"])

        // A POPM frame (email, rating, play count) that claims 200 bytes more than it holds, first in the tag.
        let popm = Array("a@b.c".utf8) + [0, 196, 0, 0, 0, 3]
        let overrun = [(id: "POPM", size: popm.count + 200, payload: popm)]
            + frames.map { (id: $0.id, size: $0.payload.count, payload: $0.payload) }
        let overrunPath = work + "/overrun.mp3"
        try Data(id3v24Tag(overrun) + audio).write(to: URL(fileURLWithPath: overrunPath))
        let all = try TagIO.read(path: overrunPath)
        XCTAssertEqual(all.values, ["title": "Tïtle", "artist": "Ärtist", "albumTitle": "Albüm", "composer": "Cömposer",
                                    "genre": "Jazz", "albumTrackNumber": "5"])
        XCTAssertEqual(original.fields["TIT2"], ["Tïtle"])
        XCTAssertEqual(original.fields["TCOM"], ["Cömposer"])
        XCTAssertEqual(all.warnings, ["ID3v2 frame POPM at byte 10 has a wrong size; skipped \(10 + popm.count) bytes to the next frame"])
    }

    /// ID3v1.1 at the end (TAG, 30-byte title/artist/album, year, 28-byte comment, 0, track,
    /// genre) fills what the ID3v2 tag lacks; the v2 title wins. mutagen merges them the same way.
    func testID3v1FillsWhatTheID3v2TagLacks() throws {
        let made = try tone("v2.mp3", codec: "libmp3lame", extra: ["-metadata", "title=V2 Title"])
        func field(_ text: String, _ width: Int) -> [UInt8] { Array(text.utf8) + Array(repeating: 0, count: width - text.utf8.count) }
        let v1 = Array("TAG".utf8) + field("V1 Title", 30) + field("V1 Artist", 30) + field("V1 Album", 30) + Array("1999".utf8)
            + field("V1 comment", 28) + [0, 7, 17]
        let path = work + "/both.mp3"
        try Data(try bytes(made) + v1).write(to: URL(fileURLWithPath: path))
        let peer = try Peer.mutagen(path)
        XCTAssertEqual(peer.fields["TIT2"], ["V2 Title"])
        XCTAssertEqual(peer.fields["TPE1"], ["V1 Artist"])
        XCTAssertEqual(peer.fields["TALB"], ["V1 Album"])
        XCTAssertEqual(peer.fields["TDRC"], ["1999"])
        XCTAssertEqual(peer.fields["TRCK"], ["7"])
        XCTAssertEqual(peer.fields["TCON"], ["Rock"])
        let tags = try TagIO.read(path: path)
        XCTAssertEqual(tags.values, ["title": "V2 Title", "artist": "V1 Artist", "albumTitle": "V1 Album", "releaseDate": "1999",
                                     "comments": "V1 comment", "albumTrackNumber": "7", "genre": "Rock"])
        XCTAssertEqual(tags.warnings, [])
    }

    /// ffmpeg's FLAC: STREAMINFO (34 bytes), VORBIS_COMMENT (96), PADDING (8192, last). A comment
    /// block length 7 too long or 7 too short is measured by the comment's own lengths; a
    /// PADDING length that ends nowhere keeps the blocks before it. mutagen reads all the
    /// comments in each case; Medley does too, and warns. Rewriting the last file would need
    /// to know where the audio starts: it fails, saying why.
    func testFLACBlockWithAWrongLengthKeepsTheComments() throws {
        let made = try tone("made.flac", codec: "flac", extra: ["-metadata", "title=Tïtle", "-metadata", "artist=Ärtist", "-metadata", "album=Albüm"])
        var original = try bytes(made)
        XCTAssertEqual(Array(original[42..<46]), [4, 0, 0, 96], "the VORBIS_COMMENT block of 96 bytes")
        XCTAssertEqual(Array(original[142..<146]), [0x81, 0, 0x20, 0], "the last block: PADDING of 8192 bytes")
        let want = ["title": "Tïtle", "artist": "Ärtist", "albumTitle": "Albüm"]
        for (name, at, length, warning) in [
            ("long", 43, 103, "FLAC metadata block 2 (VORBIS_COMMENT) says it is 103 bytes long but holds 96; read as 96"),
            ("short", 43, 89, "FLAC metadata block 2 (VORBIS_COMMENT) says it is 89 bytes long but holds 96; read as 96"),
            ("padding", 143, 9000, "FLAC metadata block 3 (PADDING) says it is 9000 bytes long, which does not end where a block "
                + "or the audio starts; it and any blocks after it were not read"),
        ] {
            var damaged = original
            damaged[at..<at + 3] = [UInt8(length >> 16), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            let path = work + "/\(name).flac"
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let peer = try Peer.mutagen(path)
            XCTAssertEqual(peer.fields["title"], ["Tïtle"], name)
            XCTAssertEqual(peer.fields["album"], ["Albüm"], name)
            let tags = try TagIO.read(path: path)
            XCTAssertEqual(tags.values, want, name)
            XCTAssertEqual(tags.warnings, [warning], name)
        }
        XCTAssertThrowsError(try TagIO.write(MediaTags(values: ["title": "x"]), toFileAt: work + "/padding.flac", container: "flac")) {
            XCTAssertTrue("\($0)".contains("where the audio starts is unknown"), "\($0)")
        }
        original = try bytes(work + "/long.flac")
        XCTAssertNoThrow(try TagIO.write(MediaTags(values: ["title": "New"]), toFileAt: work + "/long.flac", container: "flac"))
        XCTAssertEqual(try Peer.mutagen(work + "/long.flac").fields["TITLE"], ["New"])
        XCTAssertEqual(try Peer.decodedMD5(work + "/long.flac"), try Peer.decodedMD5(made), "the rewrite repairs the block")
    }

    /// A WAV (ffmpeg: LIST/INFO before the data chunk) with a chunk at the end that says it is
    /// 1000 bytes long and holds 20: the INFO tags are kept (ffprobe reads the same), the rest is
    /// a warning; rewriting needs every chunk whole, so it fails, saying why.
    func testWAVChunkRunningPastTheEndKeepsTheTagsBeforeIt() throws {
        let made = try tone("made.wav", codec: "pcm_s16le", extra: ["-metadata", "title=Tïtle", "-metadata", "artist=Ärtist"])
        var damaged = try bytes(made)
        damaged += Array("junk".utf8) + [0xE8, 0x03, 0, 0] + [UInt8](repeating: 7, count: 20)
        let riff = damaged.count - 8
        damaged[4..<8] = [UInt8(riff & 0xFF), UInt8(riff >> 8 & 0xFF), UInt8(riff >> 16 & 0xFF), UInt8(riff >> 24)]
        let path = work + "/damaged.wav"
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        let peer = try Peer.ffprobeTags(path)
        XCTAssertEqual(peer["title"], "Tïtle")
        XCTAssertEqual(peer["artist"], "Ärtist")
        let tags = try TagIO.read(path: path)
        XCTAssertEqual(tags.values["title"], "Tïtle")
        XCTAssertEqual(tags.values["artist"], "Ärtist")
        XCTAssertEqual(tags.warnings, ["the junk chunk says it is 1000 bytes long, but the file ends 20 bytes into it; "
                                       + "tag chunks after it, if any, were not read"])
        XCTAssertThrowsError(try TagIO.write(MediaTags(values: ["title": "x"]), toFileAt: path, container: "wav")) {
            XCTAssertEqual("\($0)", "cannot write the tags of \(path): the junk chunk says it is 1000 bytes long, but the file ends 20 bytes into it")
        }
    }

    /// Vorbis comments tagged by mutagen with ten TITLE values and two TRACKNUMBERs: the titles
    /// are all kept (joined for the property, every one written back as its own field); the
    /// track number keeps the first and says so.
    func testRepeatedVorbisFieldsAreKeptOrReported() throws {
        let path = try tone("many.flac", codec: "flac")
        let titles = (1...10).map { "Title \($0)" }
        let script = #"""
import sys
from mutagen.flac import FLAC
f = FLAC(sys.argv[1]); f.delete()
f["TITLE"] = ["Title %d" % n for n in range(1, 11)]
f["TRACKNUMBER"] = ["3", "4"]
f["ISRC"] = ["USRC17607839", "GBAYE0601498"]
f.save()
"""#
        try Peer.must(Peer.python, ["-c", script, path])
        XCTAssertEqual(try Peer.mutagen(path).fields["TITLE"], titles)
        let tags = try TagIO.read(path: path)
        XCTAssertEqual(tags.values, ["title": titles.joined(separator: "; "), "albumTrackNumber": "3"])
        XCTAssertEqual(tags.lists["title"], titles)
        XCTAssertEqual(tags.extra["ISRC"], ["USRC17607839", "GBAYE0601498"])
        XCTAssertEqual(tags.warnings, ["TRACKNUMBER has 2 values (3, 4); only the first, 3, was read"])
        let copy = try tone("copy.ogg", codec: "libvorbis")
        XCTAssertEqual(try TagIO.write(tags, toFileAt: copy, container: "ogg"), [])
        let written = try Peer.mutagen(copy)
        XCTAssertEqual(written.fields["TITLE"], titles)
        XCTAssertEqual(written.fields["ISRC"], ["USRC17607839", "GBAYE0601498"])
        let mp3 = try tone("copy.mp3", codec: "libmp3lame")
        XCTAssertEqual(try TagIO.write(tags, toFileAt: mp3, container: "mp3"), [])
        XCTAssertEqual(try Peer.mutagen(mp3).fields["TIT2"], [titles.joined(separator: "\u{0}")], "ID3v2.4: NUL-separated")
        XCTAssertEqual(try Peer.mutagen(mp3).fields["TSRC"], ["USRC17607839\u{0}GBAYE0601498"])
        // A title changed by the tag stage is one value again.
        var changed = tags
        changed["title"] = "One"
        XCTAssertEqual(changed.all("title"), ["One"])
    }

    /// The same in CAF: a chunk at the end that says it is 1000 bytes long and holds 20; the info
    /// chunk before it is read (ffprobe reads the same title).
    func testCAFChunkRunningPastTheEndKeepsTheInfoBeforeIt() throws {
        let made = try tone("made.caf", codec: "pcm_s16be", extra: ["-metadata", "title=Tïtle"])
        let path = work + "/damaged.caf"
        try Data(try bytes(made) + Array("free".utf8) + [0, 0, 0, 0, 0, 0, 0x03, 0xE8] + [UInt8](repeating: 0, count: 20))
            .write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try Peer.ffprobeTags(path)["title"], "Tïtle")
        let tags = try TagIO.read(path: path)
        XCTAssertEqual(tags.values["title"], "Tïtle")
        XCTAssertEqual(tags.warnings, ["the CAF free chunk says it is 1000 bytes long, but the file ends 20 bytes into it; "
                                       + "an info chunk after it, if any, was not read"])
        XCTAssertThrowsError(try TagIO.write(MediaTags(values: ["title": "x"]), toFileAt: path, container: "caf"))
    }

    /// A FLAC whose comment block says it holds 6 comments and holds 4 (vendor, then the count):
    /// the 4 are kept (mutagen reads them from the undamaged file; on this one it gives up
    /// entirely), and the warning says what ran past the block.
    func testVorbisCommentCountPastTheBlockKeepsTheCommentsBefore() throws {
        let made = try tone("made.flac", codec: "flac", extra: ["-metadata", "title=Tïtle", "-metadata", "artist=Ärtist"])
        let original = try Peer.mutagen(made)
        XCTAssertEqual(original.fields["title"], ["Tïtle"])
        XCTAssertEqual(original.fields["artist"], ["Ärtist"])
        let count = original.fields.values.reduce(0) { $0 + $1.count }
        var damaged = try bytes(made)
        XCTAssertEqual(damaged[42] & 0x7F, 4, "ffmpeg writes the comment block second")
        let vendor = Int(damaged[46]) | Int(damaged[47]) << 8
        let at = 46 + 4 + vendor
        XCTAssertEqual(Int(damaged[at]), count, "the count mutagen finds")
        damaged[at] = UInt8(count + 2)
        let path = work + "/count.flac"
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        XCTAssertNotEqual(try Peer.run(Peer.python, ["-c", "import mutagen, sys; mutagen.File(sys.argv[1])", path]).status, 0)
        let tags = try TagIO.read(path: path)
        XCTAssertEqual(tags.values, ["title": "Tïtle", "artist": "Ärtist"])
        XCTAssertEqual(tags.warnings, ["Vorbis comment \(count + 1) of \(count + 2) runs past the end of the comment block; "
                                       + "it and the 1 after it were not read"])
    }
}
