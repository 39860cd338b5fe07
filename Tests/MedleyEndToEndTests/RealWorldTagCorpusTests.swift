import Foundation
import XCTest

/// The tag differential over the tagger matrix's --subset (fixtures/realworld/make-tags.sh: files
/// tagged by mid3v2/mutagen, id3v2, eyeD3, kid3-cli, ffmpeg, vorbiscomment, metaflac,
/// AtomicParsley and exiftool): `medley probe` equals mutagen field by field, and a transcode
/// keeps every tag mutagen reads or warns about it (fixtures/realworld/check-tags.py). The
/// focused tests pin the bugs the full matrix found; their expected values come from mutagen.
final class RealWorldTagCorpusTests: EndToEndCase {
    /// The subset, built once for the class.
    nonisolated(unsafe) static var corpus: String?
    nonisolated(unsafe) static var buildError: String?

    override class func setUp() {
        super.setUp()
        let folder = NSTemporaryDirectory() + "medley-tag-corpus-\(UUID().uuidString)"
        do {
            let made = try Tool.run(Tool.fixtures + "/realworld/make-tags.sh", [folder, "--subset"])
            if made.status == 0 { corpus = folder } else { buildError = made.stderr }
        } catch {
            buildError = "\(error)"
        }
    }

    override class func tearDown() {
        if let corpus { try? FileManager.default.removeItem(atPath: corpus) }
        super.tearDown()
    }

    func checker(_ extra: [String]) throws -> Tool.Result {
        let corpus = try XCTUnwrap(Self.corpus, Self.buildError ?? "no corpus")
        return try Tool.run("/usr/bin/python3", [Tool.fixtures + "/realworld/check-tags.py", corpus + "/tags", "--medley", Tool.medley] + extra)
    }

    /// The files the checker's totals row counts.
    func totals(_ output: String) -> [Int] {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("| **total** |") }) else { return [] }
        return line.split(separator: "|").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    func testProbeEqualsMutagenOnEveryFileOfTheSubset() throws {
        let result = try checker([])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let counts = totals(result.stdout)
        XCTAssertGreaterThanOrEqual(counts.first ?? 0, 28, result.stdout)
        XCTAssertEqual(counts.first, counts.dropFirst().first, "every file agrees: \(result.stdout)")
    }

    func testTranscodesKeepOrWarnAboutEveryTag() throws {
        let result = try checker(["--transcode", "m4a,mp3,flac,ogg"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("### transcode"), result.stdout)
    }

    // MARK: Bugs the matrix found

    /// Runs a mutagen script (Debian's /usr/bin/python3) with the file's path as its argument.
    func mutagen(_ script: String, _ path: String) throws -> String {
        let result = try Tool.run("/usr/bin/python3", ["-c", script, path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func probe(_ path: String) throws -> [String: Any] {
        let result = try Tool.medley(["probe", "--json", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])
        return try XCTUnwrap(list.first)
    }

    func mp3(_ name: String) throws -> String {
        let path = work + "/in/" + name
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let made = try Tool.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5:sample_rate=22050",
                                           "-c:a", "libmp3lame", "-b:a", "32k", "-write_id3v2", "0", path])
        XCTAssertEqual(made.status, 0, made.stderr)
        return path
    }

    func transcode(to format: String, ext: String) throws -> [String: Any] {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: t
                ingest: { from: [\(work!)/in] }
                transcode: { AVFormatIDKey: \(format) }
                export: { to: \(work!)/out, name: "{stem}.\(ext)" }
            """)
        let run = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let text = try String(contentsOfFile: work + "/out/.medley/manifest-t.jsonl", encoding: .utf8)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.split(separator: "\n")[0].utf8)) as? [String: Any])
    }

    /// An APEv2 tag after the audio (foobar2000, MP3Gain) was neither read nor carried: a transcode
    /// dropped its fields silently. Now it fills what the ID3v2 tag lacks.
    func testAPEv2TagOfAnMP3IsReadAndCarried() throws {
        let path = try mp3("ape.mp3")
        _ = try mutagen("""
            import sys
            from mutagen.id3 import ID3, TIT2
            from mutagen.apev2 import APEv2
            t = ID3(); t.add(TIT2(encoding=3, text=["Front"])); t.save(sys.argv[1])
            a = APEv2(); a["Artist"] = "Ape Artist"; a["Track"] = "4/9"; a["REPLAYGAIN_TRACK_GAIN"] = "-7.00 dB"; a.save(sys.argv[1])
            """, path)
        let reference = try mutagen("import sys\nfrom mutagen.apev2 import APEv2\na = APEv2(sys.argv[1])\nprint(a['Artist'], a['REPLAYGAIN_TRACK_GAIN'], sep='|')", path)
        XCTAssertEqual(reference, "Ape Artist|-7.00 dB")
        let properties = try probe(path)
        XCTAssertEqual(properties["title"] as? String, "Front")
        XCTAssertEqual(properties["artist"] as? String, "Ape Artist")
        XCTAssertEqual(properties["albumTrackNumber"] as? Int, 4)
        XCTAssertEqual(properties["albumTrackCount"] as? Int, 9)
        XCTAssertEqual(properties["tag.REPLAYGAIN_TRACK_GAIN"] as? String, "-7.00 dB")
        _ = try transcode(to: "kAudioFormatFLAC", ext: "flac")
        let output = try mutagen("import sys, mutagen\nf = mutagen.File(sys.argv[1])\nprint(f['ARTIST'][0], f['TRACKNUMBER'][0], f['REPLAYGAIN_TRACK_GAIN'][0], sep='|')",
                                 work + "/out/ape.flac")
        XCTAssertEqual(output, "Ape Artist|4|-7.00 dB")
    }

    /// A podcast (MP4 stik 21 / ID3 PCST) was transcoded into plain music: the item's mediaType
    /// never reached the writer. Now the mark is carried.
    func testPodcastMarkSurvivesATranscode() throws {
        let path = try mp3("episode.mp3")
        _ = try mutagen("""
            import sys
            from mutagen.id3 import ID3, TIT2, TALB, PCST
            t = ID3(); t.add(TIT2(encoding=3, text=["Episode"])); t.add(TALB(encoding=3, text=["Show"])); t.add(PCST(value=1)); t.save(sys.argv[1])
            """, path)
        XCTAssertEqual(try probe(path)["mediaType"] as? String, "podcast")
        _ = try transcode(to: "kAudioFormatMPEG4AAC", ext: "m4a")
        let output = try mutagen("import sys, mutagen\nf = mutagen.File(sys.argv[1])\nprint(f.tags.get('stik'), f.tags.get('pcst'), f.tags['©alb'][0])",
                                 work + "/out/episode.m4a")
        XCTAssertEqual(output, "[21] True Show")
    }

    /// ffmpeg writes `-metadata comment=` into an MP3 as TXXX:comment; Medley read it as an extra
    /// tag, so a FLAC output had no COMMENT. Now it is the comment, as ffmpeg reads it back.
    func testFFmpegsTXXXCommentIsTheComment() throws {
        let path = try mp3("ff.mp3")
        let tagged = work + "/in/ffc.mp3"
        XCTAssertEqual(try Tool.run("ffmpeg", ["-v", "error", "-y", "-i", path, "-c", "copy", "-metadata", "comment=from ffmpeg", tagged]).status, 0)
        try FileManager.default.removeItem(atPath: path)
        XCTAssertEqual(try mutagen("import sys, mutagen\nprint(mutagen.File(sys.argv[1]).tags['TXXX:comment'].text[0])", tagged), "from ffmpeg")
        let properties = try probe(tagged)
        XCTAssertEqual(properties["comments"] as? String, "from ffmpeg")
        XCTAssertNil(properties["tag.COMMENT"])
    }

    /// AIFF's "(c) " chunk (ffmpeg writes a copyright there) was not read; now it is COPYRIGHT.
    func testAIFFCopyrightChunkIsRead() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let path = work + "/in/c.aiff"
        XCTAssertEqual(try Tool.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=0.2", "-metadata", "copyright=2016 Rights", path]).status, 0)
        let chunk = try mutagen("""
            import sys
            d = open(sys.argv[1], 'rb').read(); i = d.index(b'(c) '); n = int.from_bytes(d[i+4:i+8], 'big'); print(d[i+8:i+8+n].split(b'\\x00')[0].decode())
            """, path)
        XCTAssertEqual(chunk, "2016 Rights")
        XCTAssertEqual(try probe(path)["tag.COPYRIGHT"] as? String, chunk)
    }

    /// Frames Medley has no field for (a podcast's description TDES, its feed WFED, a second
    /// comment) vanished in a transcode without a word. Now probe names them and the item warns.
    func testTagsMedleyDoesNotModelAreNamedAndWarned() throws {
        let path = try mp3("frames.mp3")
        _ = try mutagen("""
            import sys
            from mutagen.id3 import ID3, TIT2, TDES, COMM
            t = ID3(); t.add(TIT2(encoding=3, text=["T"])); t.add(TDES(encoding=3, text=["About it"]))
            t.add(COMM(encoding=3, lang="eng", desc="", text=["first"])); t.add(COMM(encoding=3, lang="deu", desc="zwei", text=["second"]))
            t.save(sys.argv[1])
            """, path)
        XCTAssertEqual(try mutagen("import sys, mutagen\nprint(sorted(mutagen.File(sys.argv[1]).tags.keys()))", path),
                       "['COMM::eng', 'COMM:zwei:deu', 'TDES', 'TIT2']")
        let properties = try probe(path)
        XCTAssertEqual(properties["comments"] as? String, "first")
        let named = try XCTUnwrap(properties["tagsNotCarried"] as? String)
        XCTAssertTrue(named.contains("TDES") && named.contains("COMM (description \"zwei\")"), named)
        let entry = try transcode(to: "kAudioFormatFLAC", ext: "flac")
        let warnings = (entry["warnings"] as? [String] ?? []).joined(separator: " | ")
        XCTAssertTrue(warnings.contains("not carried") && warnings.contains("TDES"), warnings)
    }

    /// ID3v2.3's original release year (TORY, eyeD3 --orig-release-date) was not read; mutagen
    /// reads it as v2.4's TDOR, which Medley carries as ORIGINALDATE.
    func testID3v23OriginalYearIsOriginalDate() throws {
        let path = try mp3("tory.mp3")
        let made = try Tool.run("eyeD3", ["-Q", "--no-config", "--to-v2.3", "-t", "Old", "--orig-release-date", "1970", path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let reference = try mutagen("import sys, mutagen\nprint(mutagen.File(sys.argv[1]).tags['TDOR'].text[0])", path)
        XCTAssertEqual(reference, "1970")
        XCTAssertEqual(try probe(path)["tag.ORIGINALDATE"] as? String, reference)
    }

    /// Tags beyond the named properties (docs/metadata.md) are shown by probe as tag.<FIELD> and usable in `where` and names.
    func testExtraTagsInProbeWhereAndNames() throws {
        let path = try mp3("isrc.mp3")
        _ = try mutagen("""
            import sys
            from mutagen.id3 import ID3, TIT2, TSRC
            t = ID3(); t.add(TIT2(encoding=3, text=["T"])); t.add(TSRC(encoding=3, text=["USRC17607839"])); t.save(sys.argv[1])
            """, path)
        XCTAssertEqual(try probe(path)["tag.ISRC"] as? String, "USRC17607839")
        _ = try mp3("other.mp3")
        let yaml = try pipeline("""
            version: 1
            jobs:
              - name: w
                ingest: { from: [\(work!)/in] }
                where: { tag.ISRC: { exists: true } }
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                export: { to: \(work!)/out, name: "{tag.ISRC}.flac" }
            """)
        let run = try Tool.medley(["run", yaml, "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["USRC17607839.flac"])
    }
}
