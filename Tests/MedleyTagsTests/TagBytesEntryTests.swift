import Foundation
import MedleyTags
import XCTest
import MedleyTestSupport

/// TagIO's entry points over bytes in memory (what fuzz targets call): files tagged by ffmpeg read
/// from their bytes, bytes written read back by mutagen and decoded by ffmpeg, and every prefix of
/// a file handed to every parser without a trap. Expected values are the ones given to ffmpeg or
/// written, never TagIO's own output.
final class TagBytesEntryTests: TagCase {
    /// A short tone in `name` (its extension picks ffmpeg's muxer) with a title and an artist.
    func tagged(_ name: String, codec: String? = nil, extra: [String] = []) throws -> [UInt8] {
        let path = try tone(name, codec: codec, seconds: 1,
                            extra: ["-metadata", "title=Bÿtes ☕", "-metadata", "artist=Mémoire"] + extra)
        return try bytes(path)
    }

    func testBytesAreReadAsTheFileTheyCameFrom() throws {
        for (name, codec, container) in [("a.flac", nil, "flac"), ("a.mp3", "libmp3lame", "mp3"), ("a.m4a", "aac", "m4a"),
                                         ("a.ogg", "libvorbis", "ogg"), ("a.wav", nil, "wav")] as [(String, String?, String)] {
            let file = try tagged(name, codec: codec, extra: name.hasSuffix(".wav") ? ["-write_id3v2", "1"] : [])
            let want = ["title": "Bÿtes ☕", "artist": "Mémoire"]
            XCTAssertEqual(try TagIO.read(bytes: file).values.filter { want[$0.key] != nil }, want, name)
            XCTAssertEqual(try TagIO.read(bytes: file, container: container).values.filter { want[$0.key] != nil }, want, name)
        }
    }

    func testBytesThatAreNoAudioFileAreRefusedByName() {
        XCTAssertThrowsError(try TagIO.read(bytes: Array("not audio at all".utf8))) {
            XCTAssertEqual(($0 as? TagIOError)?.reason, "not an audio file whose tags Medley reads")
        }
        XCTAssertThrowsError(try TagIO.read(bytes: [], container: "txt")) { XCTAssertTrue($0 is TagIOError) }
        XCTAssertThrowsError(try TagIO.write(MediaTags(), toBytes: [], container: "txt")) { XCTAssertTrue($0 is TagIOError) }
    }

    /// Bytes written in memory, saved, are a file mutagen reads the tags of and ffmpeg decodes to
    /// the same samples as the untagged source.
    func testWrittenBytesAreAFilePeersRead() throws {
        for (name, codec, version) in [("w.flac", nil, ID3Version.v2_4), ("w.mp3", "libmp3lame", .v2_3), ("w.m4a", "aac", .v2_4)]
                as [(String, String?, ID3Version)] {
            let source = try tone(name, codec: codec, seconds: 1)
            let md5 = try Peer.decodedMD5(source)
            let ext = (name as NSString).pathExtension
            let (written, report) = try TagIO.write(MediaTags(values: ["title": "In Memory", "podcastTitle": "P"]),
                                                    toBytes: try bytes(source), container: ext, id3: version)
            XCTAssertEqual(report.unsupported, ["podcastTitle"], name)
            let path = work + "/out-" + name
            try Data(written).write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(try Peer.decodedMD5(path), md5, "\(name): the audio changed")
            let dump = try Peer.mutagen(path)
            switch ext {
            case "flac": XCTAssertEqual(dump.fields["TITLE"], ["In Memory"])
            case "mp3":
                XCTAssertEqual(dump.version, "2.3")
                XCTAssertEqual(dump.fields["TIT2"], ["In Memory"])
            default: XCTAssertEqual(dump.fields["©nam"], ["In Memory"])
            }
        }
    }

    /// Every prefix of a tagged file (a file cut short anywhere) given to every parser: each returns
    /// or throws a TagIOError; none traps, and none throws anything else.
    func testEveryPrefixOfAFileIsReadOrRefusedByEveryParser() throws {
        let files = [try tagged("p.flac"), try tagged("p.mp3", codec: "libmp3lame"), try tagged("p.ogg", codec: "libopus")]
        for file in files {
            for length in stride(from: 0, through: min(file.count, 6000), by: 13) {
                let prefix = Array(file.prefix(length))
                for container in ["flac", "mp3", "m4a", "ogg", "wav", "aiff", "caf"] {
                    do { _ = try TagIO.read(bytes: prefix, container: container) } catch { XCTAssertTrue(error is TagIOError, "\(error)") }
                }
                do { _ = try TagIO.read(bytes: prefix) } catch { XCTAssertTrue(error is TagIOError, "\(error)") }
            }
        }
    }
}
