import Foundation
import MedleyMedia
import XCTest

/// Every adapter keeps the cause of its errors. Every writer that can meet a full disk hands the
/// errno on: `/dev/full` fails every write with ENOSPC (the kernel's null_lseek lets it be opened
/// and seeked like a file), so each adapter's error must be classed `.diskFull` by its cause —
/// whatever its words. Decoders class content they cannot read as corrupt data.
final class AdapterErrorCauseTests: XCTestCase {
    private func failure(_ body: () throws -> Void) -> MediaError? {
        do { try body() } catch let error as MediaError { return error } catch { XCTFail("not a MediaError: \(error)") }
        return nil
    }

    /// FFmpeg's muxer reports AVERROR(ENOSPC), on the encoder's own thread or the caller's.
    func testFFmpegEncodingToAFullDiskIsADiskFullByItsErrno() throws {
        for thread in [true, false] {
            let error = failure {
                let format = FFmpegOutputFormat(muxer: "ipod", codec: "alac", sampleRate: 44100, channels: 2, bitsPerSample: 16)
                let writer = try FFmpegAudioWriter(path: "/dev/full", format: format, encoderThread: thread)
                let block = [Float](repeating: 0.25, count: 4096 * 2)
                for _ in 0..<200 { try block.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: 4096) } }
                try writer.close()
            }
            XCTAssertEqual(error?.library, .ffmpeg)
            XCTAssertEqual(error?.cause, .system(errno: ENOSPC), "\(String(describing: error))")
            XCTAssertEqual(error?.failureClass, .diskFull)
        }
    }

    /// libsndfile says SF_ERR_SYSTEM; the errno read right after the failed call is the cause.
    func testLibsndfileWritingToAFullDiskIsADiskFullByItsErrno() throws {
        let error = failure {
            let writer = try AudioWriter(path: "/dev/full", format: AudioOutputFormat(container: .wav, encoding: .pcm(bits: 16),
                                                                                    sampleRate: 44100, channels: 1))
            let block = [Float](repeating: 0.25, count: 65536)
            for _ in 0..<20 { try block.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: 65536) } }
            try writer.close()
        }
        XCTAssertEqual(error?.library, .libsndfile)
        XCTAssertEqual(error?.cause, .system(errno: ENOSPC), "\(String(describing: error))")
        XCTAssertEqual(error?.failureClass, .diskFull)
    }

    /// libvips writes from its own threads and passes the errno on as words only: its adapter
    /// turns the system's words back into ENOSPC (the one place text is read), so the class holds.
    func testALibvipsSaveToAFullDiskIsADiskFull() throws {
        let image = try VipsImage.fromPixels([UInt8](repeating: 128, count: 512 * 512 * 3), width: 512, height: 512, bands: 3)
        let error = failure { try image.save(to: "/dev/full", format: .png, quality: nil, strip: true) }
        XCTAssertEqual(error?.library, .libvips)
        XCTAssertEqual(error?.operation, "save")
        XCTAssertEqual(error?.failureClass, .diskFull, "\(String(describing: error))")
    }

    /// A decoder that cannot read the content says so by its cause; a file that is not there says ENOENT.
    func testUndecodableContentIsCorruptDataAndAMissingFileIsNotFound() throws {
        let work = NSTemporaryDirectory() + "medley-corrupt-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let junk = work + "/junk.jpg"
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: junk))
        XCTAssertEqual(failure { _ = try VipsImage.open(junk, access: .sequential) }?.failureClass, .corruptData)
        XCTAssertEqual(failure { _ = try VipsImage.open(work + "/missing.jpg", access: .sequential) }?.failureClass, .notFound)
        XCTAssertEqual(failure { _ = try AudioReader(path: junk) }?.failureClass, .corruptData)
        // As .m4a (as .jpg FFmpeg takes it for a picture with no audio stream: not corrupt, just no sound).
        let m4a = work + "/junk.m4a"
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: m4a))
        let ffmpeg = failure { _ = try FFmpegAudioReader(path: m4a) }
        XCTAssertEqual(ffmpeg?.failureClass, .corruptData, "\(String(describing: ffmpeg))")
    }
}
