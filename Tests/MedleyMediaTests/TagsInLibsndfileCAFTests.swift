import Foundation
import MedleyMedia
import MedleyTags
import XCTest
import MedleyTestSupport

/// MedleyTags writing into a CAF from Medley's own libsndfile writer, as the transcode stage makes
/// it (the tag module's own tests, in MedleyTagsTests, use files ffmpeg made). ffmpeg and ffprobe
/// check the audio and the tags; the expected tags are the ones written.
final class TagsInLibsndfileCAFTests: XCTestCase {
    var work: String!

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "medley-caf-tags-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: work) }

    func decodedMD5(_ path: String) throws -> String {
        let result = try Peer.must("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "md5", "-"])
        XCTAssertEqual(result.stderr, "", "decoding \(path)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func duration(_ path: String) throws -> Double {
        let result = try Peer.must("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        return Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    func ffprobeTags(_ path: String) throws -> [String: String] {
        let result = try Peer.must("ffprobe", ["-v", "error", "-show_format", "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: result.data) as? [String: Any]
        return (json?["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
    }

    func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: work).sorted() }

    /// CAF from Medley's own libsndfile writer, as the transcode stage makes it: the tags are
    /// written with nothing reported, nothing left beside the file, the same decoded audio,
    /// duration and permissions, and read back by TagIO and ffprobe.
    func testCAFFromLibsndfile() throws {
        let path = work + "/b.caf"
        let writer = try AudioWriter(path: path, format: AudioOutputFormat(container: .caf, encoding: .pcm(bits: 16), sampleRate: 44100, channels: 1))
        var samples = (0..<44100).map { Float(sin(Double($0) * 2 * .pi * 440 / 44100) * 0.5) }
        try samples.withUnsafeMutableBufferPointer { try writer.write($0.baseAddress!, frames: $0.count) }
        try writer.close()
        samples.removeAll()

        let tags = MediaTags(values: ["title": "T", "artist": "A"])
        let before = try listing()
        let md5 = try decodedMD5(path)
        let seconds = try duration(path)
        chmod(path, 0o640)

        XCTAssertEqual(try TagIO.write(tags, toFileAt: path, container: "caf"), [])
        XCTAssertEqual(try listing(), before, "a temporary file was left behind")
        XCTAssertEqual(try decodedMD5(path), md5, "the audio changed")
        XCTAssertEqual(try duration(path), seconds, accuracy: 0.001)
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o640, "permissions")
        let read = try TagIO.read(path: path)
        XCTAssertEqual(read.values, tags.values)
        XCTAssertNil(read.artwork)
        XCTAssertEqual(try ffprobeTags(path), ["title": "T", "artist": "A"])
    }
}
