import Foundation
@testable import MedleyMedia
import XCTest
import MedleyTestSupport

/// Real-world movies (tracker issue 14): damaged data after a keyframe, phone clips' container
/// tags, files cut short. Clips are made here with ffmpeg/libx264; expected values come from
/// ffprobe and `ffmpeg -ss` on the undamaged clip.
final class MovieDamageTests: XCTestCase {
    var work = ""

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "medley-movie-damage-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: work)
    }

    /// 6 s of testsrc2 at 25 fps, 320×240, libx264 with a keyframe every 2 s (0, 2, 4 s).
    func makeClip(_ path: String, extra: [String] = []) throws {
        try Peer.must("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "6",
                                 "-c:v", "libx264", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0",
                                 "-pix_fmt", "yuv420p"] + extra + [path])
    }

    /// (time, byte offset, size, keyframe) of every video packet, in file order, from ffprobe.
    func packets(_ path: String) throws -> [(time: Double, position: Int, size: Int, key: Bool)] {
        let result = try Peer.must("ffprobe", ["-v", "error", "-select_streams", "v", "-show_packets",
                                               "-show_entries", "packet=pts_time,pos,size,flags", "-of", "json", path])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.data) as? [String: Any])
        return try XCTUnwrap(json["packets"] as? [[String: Any]]).map { packet in
            (Double(packet["pts_time"] as? String ?? "") ?? -1, Int(packet["pos"] as? String ?? "") ?? -1,
             Int(packet["size"] as? String ?? "") ?? 0, (packet["flags"] as? String ?? "").hasPrefix("K"))
        }
    }

    func ffmpegFrame(_ path: String, at seconds: Double) throws -> [UInt8] {
        [UInt8](try Peer.must("ffmpeg", ["-v", "error", "-ss", String(seconds), "-i", path, "-frames:v", "1",
                                         "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).data)
    }

    /// format_tags as ffprobe prints them, less the fields that describe the file (brands, encoder).
    func formatTags(_ path: String) throws -> [String: String] {
        let result = try Peer.must("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", path])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.data) as? [String: Any])
        let tags = ((json["format"] as? [String: Any])?["tags"] as? [String: String]) ?? [:]
        return tags.filter { !["major_brand", "minor_version", "compatible_brands", "encoder"].contains($0.key) }
    }

    // MARK: - damaged data

    /// Bytes scrambled inside the first P-frame after the 2 s keyframe: every frame from there to
    /// the 4 s keyframe is predicted from damaged data. Each poster is either the undamaged clip's
    /// frame (PSNR ≥ 40 dB) or an error naming the corruption — never a success with garbage.
    func testDamagedFramesAreRefusedNotExported() throws {
        let clean = work + "/clean.mp4", damaged = work + "/damaged.mp4"
        try makeClip(clean)
        let list = try packets(clean)
        let key = try XCTUnwrap(list.firstIndex { $0.key && abs($0.time - 2) < 0.001 })
        let victim = list[key + 1]
        XCTAssertFalse(victim.key)
        XCTAssertGreaterThan(victim.size, 600)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clean)))
        for i in (victim.position + 100)..<(victim.position + victim.size - 100) { bytes[i] = bytes[i] &* 7 &+ 13 }
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        // The damage shows: FFmpeg's own CLI exports a wrong picture at 3 s.
        XCTAssertLessThan(try psnr(try ffmpegFrame(damaged, at: 3), try ffmpegFrame(clean, at: 3)), 40)

        var refused: [Double] = []
        for time in [0.5, 1.96, 2.04, 2.2, 3.0, 3.8, 3.96, 4.0, 4.5, 5.5] {
            do {
                let frame = try Movie.frame(path: damaged, at: time)
                XCTAssertGreaterThanOrEqual(try psnr(frame.rgb, try ffmpegFrame(clean, at: time)), 40, "poster at \(time) s")
            } catch let error as MediaError {
                XCTAssertTrue(error.reason.contains("corrupt"), "\(time) s: \(error.reason)")
                refused.append(time)
            }
        }
        // Before the damage and from the next keyframe on, the frames are whole.
        XCTAssertEqual(refused, [2.04, 2.2, 3.0, 3.8, 3.96])
    }

    /// The re-encode of a damaged clip succeeds and says how many frames the decoder concealed.
    func testReencodeCountsConcealedFrames() throws {
        let clean = work + "/clean.mp4", damaged = work + "/damaged.mp4"
        try makeClip(clean)
        let victim = try packets(clean).first { !$0.key && $0.time > 2 && $0.size > 600 }!
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clean)))
        for i in (victim.position + 100)..<(victim.position + victim.size - 100) { bytes[i] = bytes[i] &* 7 &+ 13 }
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        XCTAssertEqual(try Movie.transcode(path: clean, to: work + "/a.mp4", preset: .typeLow).damagedFrames, 0)
        XCTAssertGreaterThanOrEqual(try Movie.transcode(path: damaged, to: work + "/b.mp4", preset: .typeLow).damagedFrames, 1)
    }

    // MARK: - container tags

    /// A phone clip's tags (make, model, com.apple.quicktime.*, an ISO 6709 location with a
    /// leading zero) survive a re-encode byte for byte, as ffprobe reads them.
    func testPhoneTagsAreCarriedVerbatim() throws {
        let phone = work + "/phone.mov", output = work + "/out.mp4"
        try makeClip(phone, extra: [
            "-metadata", "make=Apple", "-metadata", "model=iPhone 12 Pro",
            "-metadata", "com.apple.quicktime.make=Apple", "-metadata", "com.apple.quicktime.model=iPhone 12 Pro",
            "-metadata", "com.apple.quicktime.software=17.4.1",
            "-metadata", "com.apple.quicktime.location.ISO6709=+48.8577+002.2950+035.000/",
            "-metadata", "location=+081.120/", "-metadata", "title=Tour Eiffel é",
            "-metadata", "creation_time=2024-05-01T10:00:00.000000Z", "-movflags", "use_metadata_tags"])
        let source = try formatTags(phone)
        XCTAssertEqual(source["location"], "+081.120/")
        XCTAssertEqual(source["com.apple.quicktime.make"], "Apple")
        let result = try Movie.transcode(path: phone, to: output, preset: .typeLow)
        XCTAssertEqual(try formatTags(output), source)
        XCTAssertEqual(result.tagsNotKept, [])
    }

    /// What a re-encode did not keep is named per tag; the muxer's own `encoder` is not a loss.
    func testTagsNotKeptAreNamedOneByOne() {
        let source = [MovieTag(key: "make", value: "Apple"), MovieTag(key: "location", value: "+081.120/"),
                      MovieTag(key: "title", value: "Same"), MovieTag(key: "encoder", value: "Lavf58")]
        let written = [MovieTag(key: "location", value: "+81.119995/"), MovieTag(key: "title", value: "Same"),
                       MovieTag(key: "encoder", value: "Lavf59.27.100")]
        XCTAssertEqual(Movie.tagsNotKept(from: source, in: written),
                       ["make (MP4 cannot hold it)", "location (written as \"+81.119995/\", not \"+081.120/\")"])
    }

    /// Tags the MP4 atoms hold (title, artist, date) stay in those atoms: no keys list is written.
    func testPlainTagsStayInTheirAtoms() throws {
        let plain = work + "/plain.mp4", output = work + "/out.mp4"
        try makeClip(plain, extra: ["-metadata", "title=Plain", "-metadata", "artist=Someone", "-metadata", "date=2024"])
        try Movie.transcode(path: plain, to: output, preset: .typeLow)
        XCTAssertEqual(try formatTags(output), try formatTags(plain))
        let atoms = try Peer.must("exiftool", ["-a", "-G1", "-s", "-Title", "-Artist", "-ContentCreateDate", output]).stdout
        XCTAssertTrue(atoms.contains("[ItemList]") && atoms.contains("Plain"), atoms)
        XCTAssertFalse(atoms.contains("[Keys]"), atoms)
    }

    // MARK: - cut short

    /// moov first, then a third of the media data: the index declares 6 s that are not there, and
    /// the re-encode fails saying how much it decoded of what the container declares.
    func testTruncatedMovieFailsTheReencode() throws {
        let whole = work + "/whole.mp4", cut = work + "/cut.mp4", output = work + "/out.mp4"
        try makeClip(whole, extra: ["-movflags", "+faststart"])
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: cut))
        let declared = try Peer.must("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", cut])
        XCTAssertEqual(declared.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "6.000000")
        // Where the pictures stop: the last frame FFmpeg decodes from the cut, plus its 1/25 s.
        let frames = try Peer.must("ffprobe", ["-v", "error", "-select_streams", "v", "-show_frames",
                                               "-show_entries", "frame=pts_time", "-of", "csv=p=0", cut]).stdout
        let last = frames.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.max() ?? 0
        XCTAssertGreaterThan(last, 1)
        XCTAssertThrowsError(try Movie.transcode(path: cut, to: output, preset: .typeLow)) { error in
            let reason = (error as? MediaError)?.reason ?? ""
            XCTAssertTrue(reason.hasPrefix("truncated: ") && reason.hasSuffix(" s decoded of the 6.000 s the container declares"), reason)
            let decoded = Double(reason.dropFirst("truncated: ".count).prefix { $0 != " " }) ?? -1
            // Within two frames: ffprobe also shows the picture of a packet the cut goes through.
            XCTAssertEqual(decoded, last + 0.04, accuracy: 0.081, reason)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        XCTAssertNoThrow(try Movie.transcode(path: whole, to: output, preset: .typeLow))
    }
}
