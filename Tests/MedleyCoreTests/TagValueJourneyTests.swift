import Foundation
@testable import MedleyCore
import MedleyTags
import XCTest

/// A FLAC's tags from its bytes to the tag writer keep their type: the path a transcode or a
/// re-tag takes (read → properties → `tag:` stage → tags to write), with no value turned into
/// text and parsed back on the way.
final class TagValueJourneyTests: PipelineTextCase {
    /// A FLAC file with a STREAMINFO block (its contents unread here) and a last VORBIS_COMMENT
    /// block holding `fields`, laid out by hand from the FLAC format (big-endian 24-bit block
    /// lengths) and the Vorbis comment header (little-endian 32-bit lengths).
    func flac(_ fields: [String]) -> [UInt8] {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var comment = le32(6) + Array("vendor".utf8) + le32(fields.count)
        for field in fields { comment += le32(field.utf8.count) + Array(field.utf8) }
        let streamInfo = [UInt8](repeating: 0, count: 34)
        return Array("fLaC".utf8) + [0x00, 0, 0, 34] + streamInfo
            + [0x84, UInt8(comment.count >> 16), UInt8(comment.count >> 8 & 0xFF), UInt8(comment.count & 0xFF)] + comment
    }

    func testATrackPairAFlagAndAListReachTheWriterTyped() throws {
        let read = try TagIO.read(bytes: flac(["TRACKNUMBER=3/12", "COMPILATION=1", "BPM=128", "ARTIST=Ann", "ARTIST=Bob",
                                               "TITLE=Song"]), container: "flac")
        XCTAssertEqual(read.entries["albumTrackNumber"], .integer(3), "\"3/12\" is track 3…")
        XCTAssertEqual(read.entries["albumTrackCount"], .integer(12), "…of 12")
        XCTAssertEqual(read.entries["isCompilation"], .flag(true))
        XCTAssertEqual(read.entries["beatsPerMinute"], .integer(128))
        XCTAssertEqual(read.entries["artist"], .texts(["Ann", "Bob"]))

        var properties = AudioProperties.tagValues(read)
        let stage = try XCTUnwrap(try job(oneJob("tag: { set: { discNumber: \"{albumTrackNumber}\", title: \"{title} (live)\" } }")).tag)
        try stage.apply(to: &properties, relativePath: "a/b.flac")
        let written = AudioProperties.tags(from: properties, artwork: nil, read: read)

        XCTAssertEqual(written.entries["albumTrackNumber"], .integer(3))
        XCTAssertEqual(written.entries["albumTrackCount"], .integer(12))
        XCTAssertEqual(written.entries["discNumber"], .integer(3), "a set: of one property passes its number")
        XCTAssertEqual(written.entries["isCompilation"], .flag(true))
        XCTAssertEqual(written.entries["beatsPerMinute"], .integer(128))
        XCTAssertEqual(written.entries["artist"], .texts(["Ann", "Bob"]), "an unchanged list stays a list")
        XCTAssertEqual(written.entries["title"], .text("Song (live)"))

        // And the writer stores them as Vorbis fields, one per value (the fields found in the bytes).
        let (bytes, report) = try TagIO.write(written, toBytes: flac(["TITLE=old"]), container: "flac")
        XCTAssertEqual(report.unsupported, [])
        for field in ["TRACKNUMBER=3", "TRACKTOTAL=12", "DISCNUMBER=3", "COMPILATION=1", "BPM=128", "ARTIST=Ann", "ARTIST=Bob",
                      "TITLE=Song (live)"] {
            let entry = Array(field.utf8)
            let lengthFirst = [UInt8(entry.count), 0, 0, 0] + entry
            XCTAssertTrue((0...(bytes.count - lengthFirst.count)).contains { Array(bytes[$0..<$0 + lengthFirst.count]) == lengthFirst },
                          "\(field) is a whole field of the written comment block")
        }
    }

    /// A number the file holds as text that is not a plain number stays text until the properties
    /// read it, once; a changed list is written as the one new value.
    func testTextThatIsNotAPlainNumberIsReadOnceAndAChangedListIsOneValue() throws {
        let read = try TagIO.read(bytes: flac(["BPM= 120", "ARTIST=Ann", "ARTIST=Bob"]), container: "flac")
        XCTAssertEqual(read.entries["beatsPerMinute"], .text(" 120"), "as the file has it (probe shows it so)")
        var properties = AudioProperties.tagValues(read)
        XCTAssertEqual(properties.first { $0.name == "beatsPerMinute" }?.value, .integer(120))
        let stage = try XCTUnwrap(try job(oneJob("tag: { set: { artist: \"Cy\" } }")).tag)
        try stage.apply(to: &properties, relativePath: "a/b.flac")
        let written = AudioProperties.tags(from: properties, artwork: nil, read: read)
        XCTAssertEqual(written.entries["beatsPerMinute"], .integer(120))
        XCTAssertEqual(written.entries["artist"], .text("Cy"))
        XCTAssertEqual(written.all("artist"), ["Cy"])
    }
}
