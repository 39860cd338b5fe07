import Foundation
import MedleyTags
import XCTest
import MedleyTestSupport

/// Readers store a value in the type the container holds it in (`TagValue`), so a writer gets a
/// track number as a number and a compilation mark as a flag, never text to parse again. The
/// files are tagged by ffmpeg with "track=3/12", "disc=1/2" and "compilation=1"; ffmpeg stores
/// them as ID3 text frames (TRCK, TPOS, TCMP), MP4 binary items (trkn, disk, cpil) and Vorbis
/// comments, and each reads back as the same integers and flag.
final class TagValueTypeTests: TagCase {
    func testNumbersAndTheCompilationMarkAreReadTyped() throws {
        let metadata = ["-metadata", "track=3/12", "-metadata", "disc=1/2", "-metadata", "compilation=1", "-metadata", "title=T"]
        for (name, codec) in [("a.mp3", "libmp3lame"), ("a.m4a", "aac"), ("a.flac", nil)] as [(String, String?)] {
            let tags = try TagIO.read(bytes: try bytes(try tone(name, codec: codec, seconds: 1, extra: metadata)))
            XCTAssertEqual(tags.entries["albumTrackNumber"], .integer(3), name)
            XCTAssertEqual(tags.entries["albumTrackCount"], .integer(12), name)
            XCTAssertEqual(tags.entries["discNumber"], .integer(1), name)
            XCTAssertEqual(tags.entries["discCount"], .integer(2), name)
            XCTAssertEqual(tags.entries["isCompilation"], .flag(true), name)
            XCTAssertEqual(tags.entries["title"], .text("T"), name)
        }
    }

    /// Typed values are written by each container's own encoding: ID3 "3/12" and "1", MP4's
    /// 16-bit pair and boolean byte, read back by mutagen.
    func testTypedValuesAreWrittenAsTheContainerStoresThem() throws {
        let tags = MediaTags(entries: ["albumTrackNumber": .integer(3), "albumTrackCount": .integer(12), "isCompilation": .flag(true),
                                       "beatsPerMinute": .integer(128), "artist": .texts(["Ann", "Bob"])])
        let mp3 = try tone("b.mp3", codec: "libmp3lame", seconds: 1)
        XCTAssertEqual(try TagIO.write(tags, toFileAt: mp3, container: "mp3"), [])
        let id3 = try Peer.mutagen(mp3).fields
        XCTAssertEqual(id3["TRCK"], ["3/12"])
        XCTAssertEqual(id3["TCMP"], ["1"])
        XCTAssertEqual(id3["TBPM"], ["128"])
        XCTAssertEqual(id3["TPE1"], ["Ann\u{0}Bob"])
        let m4a = try tone("b.m4a", codec: "aac", seconds: 1)
        XCTAssertEqual(try TagIO.write(tags, toFileAt: m4a, container: "m4a"), [])
        let mp4 = try Peer.mutagen(m4a).fields
        XCTAssertEqual(mp4["trkn"], ["3/12"], "mutagen's (3, 12), as the dump shows a pair")
        XCTAssertEqual(mp4["cpil"], ["1"], "mutagen's True")
        XCTAssertEqual(mp4["tmpo"], ["128"])
        XCTAssertEqual(mp4["©ART"], ["Ann", "Bob"])
    }
}
