import Foundation
import MedleyMedia
import MedleyTestSupport
import XCTest

/// MP3 lengths counted from frame headers built here by the ISO 11172-3 formulas: a Layer III
/// frame at 128 kb/s and 44.1 kHz is ⌊144 · 128000 / 44100⌋ = 417 bytes (418 padded) and holds
/// 1152 samples.
final class MPEGFrameScanTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "medley-mpeg-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    /// MPEG-1 Layer III, 128 kb/s, 44.1 kHz, mono, no CRC; `padded` sets the padding bit.
    func frame(padded: Bool = false, fill: UInt8 = 0x55) -> [UInt8] {
        [0xFF, 0xFB, padded ? 0x92 : 0x90, 0xC4] + [UInt8](repeating: fill, count: (padded ? 418 : 417) - 4)
    }

    func write(_ bytes: [UInt8]) throws -> String {
        let path = folder + "/x.mp3"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testFramesBetweenID3v2AndID3v1AndAPETagsAreCounted() throws {
        let frames = (0..<20).flatMap { frame(padded: $0 % 3 == 0) }
        // ID3v2.4 with a 100-byte body (syncsafe 0x00 0x00 0x00 0x64), holding bytes that look like a frame sync.
        let id3v2 = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0x64] + [UInt8](repeating: 0xFF, count: 100)
        // An APE tag: 40 bytes of items and the 32-byte footer (size counts items + footer), no header.
        let apeItems = [UInt8](repeating: 0xFF, count: 40)
        let apeFooter = Array("APETAGEX".utf8) + [0xD0, 0x07, 0, 0] + [72, 0, 0, 0] + [1, 0, 0, 0] + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        let id3v1 = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
        let counted = try XCTUnwrap(MPEGFrameScan.count(ofFileAt: try write(id3v2 + frames + apeItems + apeFooter + id3v1)))
        XCTAssertEqual(counted.frames, 20 * 1152)
        XCTAssertEqual(counted.sampleRate, 44100)
    }

    func testJunkBetweenFramesIsSkippedToTheNextFrame() throws {
        let junk = [UInt8](repeating: 0x00, count: 37) + [0xFF, 0xFB, 0x00]  // a sync with a bad bit-rate index
        let counted = try XCTUnwrap(MPEGFrameScan.count(ofFileAt: try write(frame() + frame() + junk + frame() + frame())))
        XCTAssertEqual(counted.frames, 4 * 1152)
    }

    func testTheXingHeaderFrameHoldsNoAudio() throws {
        // Mono MPEG-1: the Xing tag follows 17 bytes of side information after the 4-byte header;
        // flags 0 (no fields) and no LAME tag: FFmpeg decodes the frames after it, untrimmed.
        var first = frame(fill: 0)
        first.replaceSubrange(21..<29, with: Array("Xing".utf8) + [0, 0, 0, 0])
        XCTAssertEqual(try XCTUnwrap(MPEGFrameScan.count(ofFileAt: try write(first + frame() + frame()))).frames, 2 * 1152)
        XCTAssertNil(MPEGFrameScan.count(ofFileAt: try write([UInt8](repeating: 0x11, count: 1000))), "no frames")
        XCTAssertNil(MPEGFrameScan.count(ofFileAt: try write([])))
    }

    /// A LAME tag (LAME's "Info Tag" layout: after the Xing fields, a 9-byte version string, 12
    /// bytes, then delay and padding as two 12-bit numbers) with a delay of 576 and a padding of
    /// 1000 over 10 stated frames: 10 · 1152 − 576 − 1000 samples play (the decoder's 529-sample
    /// delay is skipped at the start and given back at the end, as libavformat does).
    func testALAMETagsDelayAndPaddingAreDropped() throws {
        var first = frame(fill: 0)
        let flags: [UInt8] = [0, 0, 0, 1]   // frames only
        let version = Array("LAME3.100".utf8)
        let delayAndPadding: [UInt8] = [UInt8(576 >> 4), UInt8((576 & 0xF) << 4 | 1000 >> 8), UInt8(1000 & 0xFF)]
        let tag = Array("Info".utf8) + flags + [0, 0, 0, 10] + version + [UInt8](repeating: 0, count: 12) + delayAndPadding
        first.replaceSubrange(21..<21 + tag.count, with: tag)
        let frames = (0..<10).flatMap { _ in frame() }
        XCTAssertEqual(try XCTUnwrap(MPEGFrameScan.count(ofFileAt: try write(first + frames))).frames, 10 * 1152 - 576 - 1000)
        // A padding shorter than the decoder's delay: nothing is cut at the end, the start loses delay + 529.
        let short: [UInt8] = [UInt8(576 >> 4), UInt8((576 & 0xF) << 4 | 100 >> 8), UInt8(100 & 0xFF)]
        first.replaceSubrange(21 + tag.count - 3..<21 + tag.count, with: short)
        XCTAssertEqual(try XCTUnwrap(MPEGFrameScan.count(ofFileAt: try write(first + frames))).frames, 10 * 1152 - 576 - 529)
    }
}
