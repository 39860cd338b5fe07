import Foundation
import MedleyTags
import MedleyTestSupport
import XCTest

/// The tag tests' readers: mutagen (Debian's python3-mutagen), ffprobe and exiftool read the tags
/// back (ffmpeg and sox make the audio, through `Peer.run`/`Peer.must`). Expected values are
/// written out in the tests, never taken from TagIO's own output.
extension Peer {
    /// What mutagen finds in a file: its raw frame/atom/field names and values, and pictures.
    struct Dump {
        let type: String
        /// "2.4" or "2.3" for ID3.
        let version: String?
        /// Raw names (ID3 HashKey such as "COMM::eng", MP4 atom such as "©nam", Vorbis field name) → values.
        let fields: [String: [String]]
        let pictures: [(mime: String, type: Int, data: [UInt8], width: Int, height: Int)]
    }

    private static let dumpScript = #"""
import sys, json, base64, mutagen
from mutagen.id3 import ID3
from mutagen.flac import Picture
f = mutagen.File(sys.argv[1])
out = {"type": type(f).__name__, "version": None, "fields": {}, "pictures": []}
def add(k, v): out["fields"].setdefault(k, []).append(v)
def pic(mime, kind, data, w=0, h=0): out["pictures"].append({"mime": mime, "type": int(kind), "data": data.hex(), "width": w, "height": h})
tags = f.tags
if tags is None:
    pass
elif isinstance(tags, ID3):
    out["version"] = "%d.%d" % tags.version[:2]
    for key, frame in tags.items():
        if frame.FrameID == "APIC": pic(frame.mime, frame.type, frame.data)
        elif frame.FrameID == "PCST": add(key, str(frame.value))
        elif frame.FrameID in ("COMM", "USLT"): add(key, frame.text if isinstance(frame.text, str) else "\u0000".join(frame.text))
        else: add(key, "\u0000".join(str(t) for t in frame.text))
elif type(f).__name__ in ("MP4",):
    for key, values in tags.items():
        for v in (values if isinstance(values, list) else [values]):
            if key == "covr": pic(str(int(v.imageformat)), 3, bytes(v))
            elif isinstance(v, tuple): add(key, "%d/%d" % v)
            elif isinstance(v, bool): add(key, "1" if v else "0")
            else: add(key, str(v))
else:
    for key, value in tags:
        if key.upper() == "METADATA_BLOCK_PICTURE":
            p = Picture(base64.b64decode(value)); pic(p.mime, p.type, p.data, p.width, p.height)
        add(key, value)
    for p in getattr(f, "pictures", []): pic(p.mime, p.type, p.data, p.width, p.height)
print(json.dumps(out))
"""#

    static func mutagen(_ path: String) throws -> Dump {
        let result = try must(python, ["-c", dumpScript, path])
        let json = try JSONSerialization.jsonObject(with: result.data) as! [String: Any]
        let pictures = (json["pictures"] as! [[String: Any]]).map { p in
            (mime: p["mime"] as! String, type: p["type"] as! Int, data: hexBytes(p["data"] as! String),
             width: p["width"] as! Int, height: p["height"] as! Int)
        }
        return Dump(type: json["type"] as! String, version: json["version"] as? String,
                    fields: json["fields"] as! [String: [String]], pictures: pictures)
    }

    static func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// ffprobe's format tags (container metadata as FFmpeg reads it).
    static func ffprobeTags(_ path: String) throws -> [String: String] {
        let result = try must("ffprobe", ["-v", "error", "-show_format", "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: result.data) as! [String: Any]
        return (json["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
    }

    /// ffprobe's duration of the file in seconds.
    static func duration(_ path: String) throws -> Double {
        let result = try must("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        return Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// MD5 of the first audio stream decoded to PCM by ffmpeg, with decode errors as failures.
    static func decodedMD5(_ path: String) throws -> String {
        let result = try must("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "md5", "-"])
        XCTAssertEqual(result.stderr, "", "decoding \(path)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// exiftool's tags of one group ("RIFF", "AIFF"), by tag name.
    static func exiftool(_ path: String, group: String) throws -> [String: String] {
        let result = try must("exiftool", ["-j", "-\(group):all", "-charset", "RIFF=UTF8", "-charset", "UTF8", path])
        let json = try JSONSerialization.jsonObject(with: result.data) as! [[String: Any]]
        var tags: [String: String] = [:]
        for (key, value) in json.first ?? [:] where key != "SourceFile" { tags[key] = "\(value)" }
        return tags
    }
}

/// A scratch folder per test with audio made by ffmpeg and cover images.
class TagCase: XCTestCase {
    var work: String!

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "medley-tags-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: work)
    }

    /// A 440 Hz tone in `name`, encoded by ffmpeg with `codec` (nil: the extension's default).
    func tone(_ name: String, codec: String? = nil, seconds: Int = 2, extra: [String] = []) throws -> String {
        let path = work + "/" + name
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds):sample_rate=48000", "-ac", "2"]
        if let codec { arguments += ["-c:a", codec] }
        try Peer.must("ffmpeg", arguments + extra + [path])
        return path
    }

    /// A noisy JPEG (about 200 KB, so it spans several Ogg pages) or a small PNG, made by ffmpeg.
    func image(_ name: String, width: Int = 400, height: Int = 400) throws -> [UInt8] {
        let path = work + "/" + name
        let source = name.hasSuffix(".png") ? "testsrc=size=\(width)x\(height)" : "nullsrc=size=\(width)x\(height),geq=random(1)*255:128:128"
        try Peer.must("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "1", "-q:v", "2", path])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Files in the scratch folder, to prove no temporary file was left behind.
    func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: work).sorted() }
}
