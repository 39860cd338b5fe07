import Foundation
import MedleyTags
import XCTest
import MedleyTestSupport

/// A failed write throws a TagIOError and leaves the file and its folder as they were.
final class TagWriteFailureTests: TagCase {
    let tags = MediaTags(values: ["title": "T"], artwork: nil)

    func assertFails(_ path: String, ext: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try listing()
        let original = FileManager.default.fileExists(atPath: path) ? try bytes(path) : nil
        XCTAssertThrowsError(try TagIO.write(tags, toFileAt: path, container: ext), file: file, line: line) { error in
            XCTAssertTrue(error is TagIOError, "\(error)", file: file, line: line)
        }
        XCTAssertEqual(try listing(), before, "something was left behind", file: file, line: line)
        if let original { XCTAssertEqual(try bytes(path), original, "the file changed", file: file, line: line) }
    }

    func testMissingFolder() throws {
        try assertFails(work + "/missing/a.mp3", ext: "mp3")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/missing"))
    }

    func testMissingFile() throws {
        try assertFails(work + "/none.flac", ext: "flac")
    }

    func testCorruptFiles() throws {
        let noise = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        for ext in ["m4a", "mp3", "flac", "ogg", "opus", "wav", "aiff", "caf"] {
            let path = work + "/noise." + ext
            try Data(noise).write(to: URL(fileURLWithPath: path))
            try assertFails(path, ext: ext)
        }
    }

    func testTruncatedFiles() throws {
        for (name, codec, extra) in [("a.m4a", "aac", ["-movflags", "+faststart"]), ("a.flac", "flac", []), ("a.ogg", "libvorbis", []),
                                     ("a.wav", "pcm_s16le", []), ("a.caf", "pcm_s16le", [])] {
            let path = try tone(name, codec: codec, extra: extra)
            // Cut inside the headers: the first 200 bytes only.
            try Data(try bytes(path).prefix(200)).write(to: URL(fileURLWithPath: path))
            try assertFails(path, ext: String(name.split(separator: ".").last!))
        }
    }

    /// A file that is not what its extension says is refused, not mangled.
    func testWrongContainer() throws {
        let path = try tone("a.flac")
        try assertFails(path, ext: "mp3")
        try assertFails(path, ext: "m4a")
        try assertFails(path, ext: "wav")
    }

    func testUnknownContainer() throws {
        let path = try tone("a.wav", codec: "pcm_s16le")
        try assertFails(path, ext: "xyz")
    }

    /// Truncated and byte-flipped tag areas: reading and writing throw or succeed, never trap,
    /// and a failed write leaves the file as it was.
    func testDamagedFilesNeverCrash() throws {
        let cover = try image("cover.png", width: 16, height: 16)
        let tagged = MediaTags(values: ["title": "Café ☕", "artist": "A", "albumTrackNumber": "2", "lyrics": "L"],
                               artwork: Artwork(data: cover, mimeType: "image/png"))
        for (name, codec, extra) in [("m4a", "aac", ["-movflags", "+faststart"]), ("mp3", "libmp3lame", []), ("flac", "flac", []),
                                     ("ogg", "libvorbis", []), ("opus", "libopus", []), ("wav", "pcm_s16le", []),
                                     ("aiff", "pcm_s16be", []), ("caf", "pcm_s16le", [])] {
            let source = try tone("source." + name, codec: codec, seconds: 1, extra: extra)
            try TagIO.write(tagged, toFileAt: source, container: name)
            let original = try bytes(source)
            var variants: [[UInt8]] = stride(from: 0, to: min(original.count, 6000), by: 131).map { Array(original.prefix($0)) }
            for index in stride(from: 0, to: min(original.count, 6000), by: 61) {
                for value: UInt8 in [0xFF, original[index] ^ 0x80] {
                    var damaged = original
                    damaged[index] = value
                    variants.append(damaged)
                }
            }
            let path = work + "/damaged." + name
            for variant in variants {
                try Data(variant).write(to: URL(fileURLWithPath: path))
                _ = try? TagIO.read(path: path)
                do {
                    try TagIO.write(tagged, toFileAt: path, container: name)
                } catch {
                    XCTAssertTrue(error is TagIOError, "\(name): \(error)")
                    XCTAssertTrue(try bytes(path) == variant, "\(name): a failed write changed the file")
                }
            }
            XCTAssertEqual(try listing().filter { $0.contains("medley-tags") }, [], name)
            try FileManager.default.removeItem(atPath: path)
        }
    }

    func testReadingNoiseThrows() throws {
        let path = work + "/noise.bin"
        try Data(repeating: 0x42, count: 100).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try TagIO.read(path: path)) { XCTAssertTrue($0 is TagIOError) }
        XCTAssertThrowsError(try TagIO.read(path: work + "/none.mp3")) { XCTAssertTrue($0 is TagIOError) }
    }

    /// A failed system call keeps its errno (ENOENT for a missing file, ENOSPC from /dev/full,
    /// which refuses every write as a full disk does) besides its words, which name the file and
    /// the C library's reason.
    func testFailedSystemCallsKeepTheirErrno() throws {
        XCTAssertThrowsError(try TagIO.read(path: work + "/none.mp3")) { error in
            XCTAssertEqual((error as? TagIOError)?.errno, ENOENT)
            XCTAssertEqual((error as? TagIOError)?.reason, "cannot open \(self.work!)/none.mp3: No such file or directory")
        }
        XCTAssertThrowsError(try TagIO.read(path: work + "/noise.bin")) { XCTAssertEqual(($0 as? TagIOError)?.errno, ENOENT) }
        let source = try tone("a.flac", seconds: 1)
        XCTAssertThrowsError(try TagIO.write(tags, from: source, into: "/dev/full", container: "flac")) { error in
            XCTAssertEqual((error as? TagIOError)?.errno, ENOSPC, "\(error)")
            XCTAssertTrue((error as? TagIOError)?.reason.hasPrefix("cannot write the tags of \(source): ") == true, "\(error)")
        }
        let damaged = work + "/damaged.flac"
        try Data(repeating: 0x42, count: 100).write(to: URL(fileURLWithPath: damaged))
        XCTAssertThrowsError(try TagIO.read(path: damaged)) { XCTAssertNil(($0 as? TagIOError)?.errno, "the bytes are at fault") }
    }
}
