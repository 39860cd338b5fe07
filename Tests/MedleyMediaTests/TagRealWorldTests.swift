import Foundation
import MedleyMedia
import XCTest

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
}
