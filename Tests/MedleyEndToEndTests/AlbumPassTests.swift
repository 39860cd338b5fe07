import Foundation
@testable import MedleyCore
import XCTest

/// Album mode's measurement pass (issue 17, deliverable 3), run in-process with the job's album
/// grouping switched on (so a test can choose any grouping; the YAML keys that switch it on,
/// `normalize: {album: true}` and `tag: {replayGain: album}`, are tested through `medley run` in
/// AlbumNormalizationRunTests, ReplayGainRunTests and the kill tests here). Expected album loudness comes from
/// ffmpeg's `ebur128` filter over the album's tracks concatenated (ffmpeg's `concat` filter), and
/// track and album membership from the tags metaflac wrote, never from Medley's own numbers.
final class AlbumPassTests: EndToEndCase {
    /// ffmpeg prints loudness to 0.1 LU, so ±0.05 of rounding on top of the two implementations'
    /// difference (both filter with BS.1770's K-weighting; ffmpeg measures at 48 kHz): the issue's 0.1 LU.
    static let loudnessTolerance = 0.1
    /// True peak: libebur128 and ffmpeg oversample 4× with different interpolation filters, which
    /// read an inter-sample peak up to a few tenths of a dB apart; 0.3 dB.
    static let truePeakTolerance = 0.3

    // MARK: fixtures

    /// A 48 kHz stereo FLAC of `seconds` of pink noise (or a 1 kHz sine) at `volume`, tagged by
    /// metaflac with `tags` (ALBUM, ALBUMARTIST, …).
    @discardableResult
    func track(_ name: String, seconds: Double = 3, volume: Double, sine: Bool = false, tags: [String: String] = [:]) throws -> String {
        let path = work + "/in/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: path)
        let made = try Tool.run("sox", ["-R", "-n", "-r", "48000", "-c", "2", "-b", "24", path, "synth", String(seconds),
                                        sine ? "sine" : "pinknoise"] + (sine ? ["1000"] : []) + ["vol", String(volume)])
        XCTAssertEqual(made.status, 0, made.stderr)
        if !tags.isEmpty {
            let tagged = try Tool.run("metaflac", tags.sorted { $0.key < $1.key }.map { "--set-tag=\($0.key)=\($0.value)" } + [path])
            XCTAssertEqual(tagged.status, 0, tagged.stderr)
        }
        return path
    }

    /// ffmpeg's `ebur128` summary of the files played one after another: integrated LUFS and true peak dBTP.
    func ffmpegLoudness(_ paths: [String]) throws -> (integrated: Double, truePeak: Double) { try EBUR128.summary(paths) }

    /// ffmpeg's momentary loudness (LUFS, to 0.1) of every 400 ms block of a file, one each 100 ms
    /// (`ebur128=framelog=verbose`): the gating blocks of BS.1770. Its first three lines are the
    /// window still filling (at 0.1, 0.2, 0.3 s), not blocks.
    func ffmpegBlocks(_ path: String) throws -> [Double] {
        let result = try Tool.run("ffmpeg", ["-nostats", "-hide_banner", "-loglevel", "verbose", "-i", path,
                                             "-af", "ebur128=framelog=verbose", "-f", "null", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let values = try result.stderr.split(separator: "\n").filter { $0.contains(" M:") && $0.contains(" t:") }.map { line -> Double in
            let after = try XCTUnwrap(line.components(separatedBy: " M:").last)
            return try XCTUnwrap(Double(after.split(separator: " ").first ?? ""), String(line))
        }
        return Array(values.dropFirst(3))
    }

    /// The album's loudness by BS.1770-4's gating written out here, over the gating blocks of all
    /// its tracks pooled (ffmpeg's blocks of each file): the blocks above the absolute gate
    /// (−70 LUFS), then those above the relative gate (10 LU below their mean power).
    func pooledLoudness(_ paths: [String]) throws -> Double {
        let blocks = try paths.flatMap { try ffmpegBlocks($0) }
        func power(_ loudness: Double) -> Double { pow(10, (loudness + 0.691) / 10) }
        func loudness(_ blocks: [Double]) -> Double { -0.691 + 10 * log10(blocks.map(power).reduce(0, +) / Double(blocks.count)) }
        let absolute = blocks.filter { $0 > -70 }
        let relative = loudness(absolute) - 10
        return loudness(absolute.filter { $0 > relative })
    }

    /// The pipeline every test runs: FLAC out (48 kHz stereo in, the same out: the measured signal
    /// is the file's), one item per file.
    func albumPipeline(extra: String = "", transcode: String = "AVFormatIDKey: kAudioFormatFLAC") throws -> String {
        try pipeline("""
            version: 1
            jobs:
              - name: album
                ingest: { from: [in] }
                transcode: { \(transcode) }
            \(extra)
                export: { to: out, name: "{relpath}/{stem}.flac" }
            """)
    }

    /// Runs the pipeline in this process with album mode on (grouped by `grouping`).
    @discardableResult
    func run(_ path: String, grouping: String = AlbumGrouping.defaultText, shard: (index: Int, count: Int)? = nil,
             events: String? = nil, concurrency: Int = 2, started: ((PipelineRunner) -> Void)? = nil) throws -> RunSummary {
        let runner = try PipelineRunner(pipeline: try albumMode(path, grouping: grouping), options: options(shard, events, concurrency))
        started?(runner)
        return try runner.run()
    }

    func albumMode(_ path: String, grouping: String) throws -> Pipeline {
        let pipeline = try PipelineReader.load(path: path)
        var job = try XCTUnwrap(pipeline.jobs.first)
        var loudness = LoudnessNormalization()
        loudness.album = AlbumGrouping(text: grouping, template: try NameTemplate(grouping, knownProperties: []))
        job.transcode?.loudness = loudness
        XCTAssertNotNil(job.albumGrouping)
        return Pipeline(file: pipeline.file, directory: pipeline.directory, jobs: [job])
    }

    func options(_ shard: (index: Int, count: Int)?, _ events: String?, _ concurrency: Int) -> RunOptions {
        var options = RunOptions()
        options.quiet = true
        options.concurrency = concurrency
        options.shard = shard
        options.eventsPath = events
        return options
    }

    /// The manifest's records by item (relative path).
    func manifest(_ shard: (index: Int, count: Int)? = nil) throws -> [String: [String: Any]] {
        let name = "manifest-album" + (shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? "") + ".jsonl"
        let text = try String(contentsOfFile: work + "/out/.medley/" + name, encoding: .utf8)
        var records: [String: [String: Any]] = [:]
        for line in text.split(separator: "\n") {
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            records[try XCTUnwrap(record["item"] as? String)] = record
        }
        return records
    }

    func events(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func album(of record: [String: Any]?) throws -> [String: Any] {
        try XCTUnwrap(record?["album"] as? [String: Any], "no album in \(String(describing: record))")
    }

    // MARK: tests

    /// Three tracks 6 dB apart (each above the relative gate, so each counts): the album's loudness
    /// is that of the three played one after another (ffmpeg over their concatenation), neither
    /// the loudest track's nor the mean of the tracks' values.
    func testAlbumLoudnessIsTheLoudnessOfItsTracksConcatenated() throws {
        let tags = ["ALBUM": "Levels", "ALBUMARTIST": "Sox"]
        // Tracks long enough that the few blocks spanning two tracks in the concatenation (which
        // pooling has not) weigh under 0.05 LU.
        let paths = [try track("a.flac", seconds: 20, volume: 0.5, tags: tags),
                     try track("b.flac", seconds: 40, volume: 0.25, tags: tags),
                     try track("c.flac", seconds: 30, volume: 0.125, tags: tags)]
        let summary = try run(try albumPipeline(), events: work + "/events.jsonl")
        XCTAssertEqual(summary.failed, 0)

        let expected = try ffmpegLoudness(paths), pooled = try pooledLoudness(paths)
        let records = try manifest()
        XCTAssertEqual(records.count, 3)
        for name in ["a.flac", "b.flac", "c.flac"] {
            let album = try album(of: records[name])
            XCTAssertEqual(album["group"] as? String, "Sox/Levels", name)
            XCTAssertEqual(album["tracks"] as? Double, 3, name)
            XCTAssertEqual(try XCTUnwrap(album["integrated"] as? Double), expected.integrated, accuracy: Self.loudnessTolerance, name)
            XCTAssertEqual(try XCTUnwrap(album["integrated"] as? Double), pooled, accuracy: Self.loudnessTolerance, name)
            XCTAssertEqual(try XCTUnwrap(album["truePeak"] as? Double), expected.truePeak, accuracy: Self.truePeakTolerance, name)
        }
        // Not the mean of the tracks' loudness (what beets' users found wrong), nor the loudest
        // track's: by the durations and levels, the pooled power is 0.354 of the loudest track's
        // (−4.5 dB), the mean of the tracks' values −6 dB, so 1.5 LU apart.
        let trackValues = try paths.map { try ffmpegLoudness([$0]).integrated }
        let mean = trackValues.reduce(0, +) / 3
        let integrated = try XCTUnwrap(try album(of: records["a.flac"])["integrated"] as? Double)
        XCTAssertGreaterThan(abs(integrated - mean), 1, "album \(integrated) LUFS, mean of tracks \(mean) LUFS")
        XCTAssertGreaterThan(abs(integrated - trackValues[0]), 3, "album \(integrated) LUFS, loudest track \(trackValues[0]) LUFS")
        // Measured once, before any track was written.
        let log = try events(work + "/events.jsonl")
        let measured = log.firstIndex { $0["event"] as? String == "albumMeasured" }
        let firstStarted = log.firstIndex { $0["event"] as? String == "itemStarted" }
        XCTAssertNotNil(measured)
        XCTAssertLessThan(try XCTUnwrap(measured), try XCTUnwrap(firstStarted))
        XCTAssertEqual(log.filter { $0["event"] as? String == "albumMeasured" }.count, 1)
    }

    /// Two albums are measured apart; a track without album tags is an album of its own.
    func testTwoAlbumsAreSeparateAndATrackWithoutAlbumTagsIsItsOwn() throws {
        let first = ["ALBUM": "One", "ALBUMARTIST": "X"], second = ["ALBUM": "Two", "ARTIST": "Y"]
        let one = [try track("one/1.flac", volume: 0.4, tags: first), try track("one/2.flac", volume: 0.2, tags: first)]
        // Grouped by the artist when there is no album artist ({albumArtist|artist}); a folder of its own is no album.
        let two = [try track("mixed/3.flac", volume: 0.1, tags: second), try track("two/4.flac", seconds: 5, volume: 0.05, tags: second)]
        let loose = try track("one/loose.flac", volume: 0.2, tags: ["ALBUMARTIST": "X"])
        XCTAssertEqual(try run(try albumPipeline()).failed, 0)

        let records = try manifest()
        let expectedOne = try pooledLoudness(one), expectedTwo = try pooledLoudness(two), expectedLoose = try pooledLoudness([loose])
        for (item, group, tracks, expected) in [("one/1.flac", "X/One", 2.0, expectedOne), ("one/2.flac", "X/One", 2, expectedOne),
                                                ("mixed/3.flac", "Y/Two", 2, expectedTwo), ("two/4.flac", "Y/Two", 2, expectedTwo),
                                                ("one/loose.flac", "/one/loose.flac", 1, expectedLoose)] {
            let album = try album(of: records[item])
            XCTAssertEqual(album["group"] as? String, group, item)
            XCTAssertEqual(album["tracks"] as? Double, tracks, item)
            XCTAssertEqual(try XCTUnwrap(album["integrated"] as? Double), expected, accuracy: Self.loudnessTolerance, item)
        }
        XCTAssertGreaterThan(abs(expectedOne - expectedTwo), 1, "the fixture's albums differ")
    }

    /// A track that cannot be decoded (cut in half) is left out of its album's loudness, which each
    /// of the album's other tracks says; the track itself fails in the write pass, with its reason.
    func testATrackThatCannotBeMeasuredIsLeftOutOfItsAlbumAndSaidSo() throws {
        let tags = ["ALBUM": "Cut", "ALBUMARTIST": "W"]
        let good = [try track("1.flac", volume: 0.3, tags: tags), try track("2.flac", volume: 0.2, tags: tags)]
        let cut = try track("3.flac", seconds: 4, volume: 0.5, tags: tags)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: cut))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        XCTAssertEqual(try run(try albumPipeline()).failed, 1)
        let records = try manifest()
        XCTAssertEqual(records["3.flac"]?["status"] as? String, "failed")
        let expected = try pooledLoudness(good)
        for item in ["1.flac", "2.flac"] {
            let album = try album(of: records[item])
            XCTAssertEqual(album["tracks"] as? Double, 2, item)
            XCTAssertEqual(try XCTUnwrap(album["integrated"] as? Double), expected, accuracy: Self.loudnessTolerance, item)
            let warnings = (records[item]?["warnings"] as? [String] ?? []).joined(separator: "\n")
            XCTAssertTrue(warnings.contains("album loudness measured without 3.flac"), "\(item): \(warnings)")
        }
    }

    /// A dry run writes nothing, so it measures nothing new; after a real run it lists the albums
    /// the run state knows and every track as unchanged.
    func testADryRunMeasuresNothingAndReadsTheAlbumsItKnows() throws {
        let tags = ["ALBUM": "Dry", "ALBUMARTIST": "V"]
        try track("1.flac", volume: 0.3, tags: tags)
        try track("2.flac", volume: 0.2, tags: tags)
        let path = try albumPipeline()
        func dryRun(_ events: String) throws -> RunSummary {
            var settings = options(nil, events, 2)
            settings.dryRun = true
            return try PipelineRunner(pipeline: try albumMode(path, grouping: AlbumGrouping.defaultText), options: settings).run()
        }
        XCTAssertEqual(try dryRun(work + "/dry.jsonl").failed, 0)
        XCTAssertEqual(try events(work + "/dry.jsonl").filter { $0["event"] as? String == "albumMeasured" }.count, 0)
        XCTAssertEqual(Tool.files(under: work + "/out").filter { $0.hasSuffix(".flac") }, [])
        XCTAssertEqual(try run(path).failed, 0)
        let summary = try dryRun(work + "/dry2.jsonl")
        let log = try events(work + "/dry2.jsonl")
        XCTAssertEqual(log.filter { $0["event"] as? String == "albumMeasured" }.map { $0["reused"] as? Bool }, [true])
        XCTAssertEqual(summary.jobs.first?.counts.unchanged, 2)
    }

    /// `where` and the tag stage shape albums as they shape the write pass: a track `where` leaves
    /// out is no member, and a group set by the tag stage counts.
    func testWhereAndTheTagStageDecideMembership() throws {
        let kept = [try track("a/1.flac", volume: 0.3), try track("a/2.flac", volume: 0.15)]
        try track("a/skip.flac", seconds: 5, volume: 0.9)
        let path = try albumPipeline(extra: """
                where: { playbackDuration: { lt: 4 } }
                tag: { from_path: "{albumTitle}/{title}" }
            """)
        XCTAssertEqual(try run(path, grouping: "{albumTitle}").failed, 0)
        let records = try manifest()
        XCTAssertEqual(records["a/skip.flac"]?["status"] as? String, "excluded")
        let expected = try pooledLoudness(kept)
        for item in ["a/1.flac", "a/2.flac"] {
            let album = try album(of: records[item])
            XCTAssertEqual(album["group"] as? String, "a", item)
            XCTAssertEqual(album["tracks"] as? Double, 2, item)
            XCTAssertEqual(try XCTUnwrap(album["integrated"] as? Double), expected, accuracy: Self.loudnessTolerance, item)
        }
    }

    /// Sharded, every shard reads every file's tags and takes whole albums: the shards' shares are
    /// disjoint, their union is everything, each album lies in one shard, measured over all its tracks.
    func testShardsTakeWholeAlbums() throws {
        var albums: [String: [String]] = [:]
        for a in 0..<6 {
            let tags = ["ALBUM": "Album \(a)", "ALBUMARTIST": "Artist"]
            for t in 0..<3 {
                // Flat names: by path alone the tracks of one album would scatter over the shards.
                let name = "t\(a)-\(t).flac"
                try track(name, seconds: 1, volume: [0.4, 0.2, 0.1][t] / Double(a + 1), tags: tags)
                albums["Artist/Album \(a)", default: []].append(name)
            }
        }
        let byPath = albums.values.filter { Set($0.map { Sharding.shard(of: $0, count: 2) }).count > 1 }
        XCTAssertFalse(byPath.isEmpty, "the fixture must have an album that sharding by path would split")

        let path = try albumPipeline()
        var shareOf: [String: Int] = [:]
        for k in 1...2 {
            XCTAssertEqual(try run(path, shard: (k, 2)).failed, 0)
            for (item, record) in try manifest((k, 2)) {
                XCTAssertNil(shareOf[item], "\(item) in two shards")
                shareOf[item] = k
                XCTAssertEqual(record["status"] as? String, "succeeded", item)
            }
        }
        XCTAssertEqual(Set(shareOf.keys), Set(albums.values.joined()), "the union is the whole set")
        XCTAssertEqual(Set(shareOf.values), [1, 2], "both shards have work")
        for k in 1...2 {
            let records = try manifest((k, 2))
            for (group, tracks) in albums where tracks.contains(where: { shareOf[$0] == k }) {
                XCTAssertEqual(Set(tracks.map { shareOf[$0] }), [k], "album \(group) lies in one shard")
                let expected = try pooledLoudness(tracks.map { work + "/in/" + $0 })
                for item in tracks {
                    let album = try album(of: records[item])
                    XCTAssertEqual(album["group"] as? String, group)
                    XCTAssertEqual(album["tracks"] as? Double, 3)
                    XCTAssertEqual(try XCTUnwrap(album["integrated"] as? Double), expected,
                                   accuracy: Self.loudnessTolerance, item)
                }
            }
        }
    }

    /// A rerun with nothing changed measures nothing and redoes nothing; a changed track has its
    /// album measured again and the album's other tracks redone, and no other album touched.
    func testUnchangedAlbumsAreNotMeasuredAgainAndAChangedTrackRedoesItsAlbum() throws {
        let a = ["ALBUM": "A", "ALBUMARTIST": "Z"], b = ["ALBUM": "B", "ALBUMARTIST": "Z"]
        try track("a1.flac", volume: 0.3, tags: a)
        try track("a2.flac", volume: 0.03, tags: a)
        let b1 = try track("b1.flac", volume: 0.2, tags: b)
        let b2 = try track("b2.flac", volume: 0.2, tags: b)
        let path = try albumPipeline()
        XCTAssertEqual(try run(path).failed, 0)

        let again = work + "/again.jsonl"
        XCTAssertEqual(try run(path, events: again).failed, 0)
        var log = try events(again)
        let albums = log.filter { $0["event"] as? String == "albumMeasured" }
        XCTAssertEqual(albums.count, 2)
        XCTAssertTrue(albums.allSatisfy { $0["reused"] as? Bool == true }, "\(albums)")
        XCTAssertEqual(log.filter { $0["event"] as? String == "itemSkipped" }.count, 4)
        XCTAssertEqual(log.filter { $0["event"] as? String == "itemFinished" }.count, 0)

        // B's second track 20 dB louder: B measured again (one measurement), both of its tracks redone.
        try track("b2.flac", seconds: 4, volume: 0.9, tags: b)
        let changed = work + "/changed.jsonl"
        XCTAssertEqual(try run(path, events: changed).failed, 0)
        log = try events(changed)
        let measured = log.filter { $0["event"] as? String == "albumMeasured" }
        XCTAssertEqual(measured.filter { $0["reused"] as? Bool == false }.map { $0["group"] as? String }, ["Z/B"])
        XCTAssertEqual(measured.filter { $0["reused"] as? Bool == true }.map { $0["group"] as? String }, ["Z/A"])
        let finished = Set(log.filter { $0["event"] as? String == "itemFinished" }.compactMap { $0["input"] as? String })
        XCTAssertEqual(finished.map { ($0 as NSString).lastPathComponent }.sorted(), ["b1.flac", "b2.flac"])
        let expected = try pooledLoudness([b1, b2])
        let records = try manifest()
        for item in ["b1.flac", "b2.flac"] {
            XCTAssertEqual(try XCTUnwrap(try album(of: records[item])["integrated"] as? Double), expected,
                           accuracy: Self.loudnessTolerance, item)
        }
    }

    /// Real audio other people's encoders made (Debian's sound-theme-freedesktop, Vorbis at
    /// 44.1 kHz stereo), grouped into one album by the tag stage: decoded, pooled, as ffmpeg
    /// measures the files played one after another.
    func testAnAlbumOfRealWorldVorbisFilesAsFFmpegMeasuresIt() throws {
        let corpus = RealWorldAudioCorpusTests.corpus
        XCTAssertEqual(corpus.status, 0, corpus.stderr)
        let folder = corpus.path + "/sound-theme-freedesktop/usr/share/sounds/freedesktop/stereo/"
        let names = ["complete.oga", "trash-empty.oga", "phone-incoming-call.oga", "dialog-warning.oga", "message.oga"]
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        for name in names { try FileManager.default.copyItem(atPath: folder + name, toPath: work + "/in/" + name) }
        let path = try albumPipeline(extra: """
                tag: { set: { albumTitle: "Freedesktop", albumArtist: "freedesktop.org" } }
            """)
        XCTAssertEqual(try run(path).failed, 0)
        // Sound-theme clips are short (0.5–1.5 s): the blocks that span two clips when they are
        // concatenated would weigh several tenths of an LU, so the reference pools each file's blocks.
        let inputs = names.map { work + "/in/" + $0 }
        let expected = try pooledLoudness(inputs)
        let peak = try inputs.map { try ffmpegLoudness([$0]).truePeak }.max() ?? 0
        let records = try manifest()
        XCTAssertEqual(records.count, names.count)
        for name in names {
            let album = try album(of: records[name])
            XCTAssertEqual(album["group"] as? String, "freedesktop.org/Freedesktop")
            XCTAssertEqual(album["tracks"] as? Double, Double(names.count))
            XCTAssertEqual(try XCTUnwrap(album["integrated"] as? Double), expected, accuracy: Self.loudnessTolerance, name)
            XCTAssertEqual(try XCTUnwrap(album["truePeak"] as? Double), peak, accuracy: Self.truePeakTolerance, name)
        }
    }

    // MARK: interrupted runs

    /// A run stopped during the album pass (after its first album, by its events) and run again
    /// ends as an uninterrupted run: the album measured before the stop is reused, the rest measured.
    func testARunStoppedDuringTheAlbumPassEndsCorrectWhenRunAgain() throws {
        let path = try interruptedFixture()
        let reference = try uninterruptedReference(path)
        let stopped = try runStopping(path, at: "albumMeasured")
        XCTAssertTrue(stopped.interrupted)
        let again = work + "/again.jsonl"
        XCTAssertEqual(try run(path, events: again).failed, 0)
        let measured = try events(again).filter { $0["event"] as? String == "albumMeasured" }
        XCTAssertEqual(measured.count, 3)
        XCTAssertGreaterThanOrEqual(measured.filter { $0["reused"] as? Bool == true }.count, 1, "the album measured before the stop")
        try assertOutputs(match: reference)
    }

    /// A run stopped during the write pass (after its first output) and run again: every album is
    /// known, nothing is measured, the outputs written before the stop are kept, the rest written.
    func testARunStoppedDuringTheWritePassEndsCorrectWhenRunAgain() throws {
        let path = try interruptedFixture()
        let reference = try uninterruptedReference(path)
        let stopped = try runStopping(path, at: "itemFinished")
        XCTAssertTrue(stopped.interrupted)
        let again = work + "/again.jsonl"
        XCTAssertEqual(try run(path, events: again).failed, 0)
        let log = try events(again)
        let measured = log.filter { $0["event"] as? String == "albumMeasured" }
        XCTAssertEqual(measured.count, 3)
        XCTAssertTrue(measured.allSatisfy { $0["reused"] as? Bool == true }, "every album was measured before the first write")
        XCTAssertGreaterThanOrEqual(log.filter { $0["event"] as? String == "itemSkipped" }.count, 1)
        try assertOutputs(match: reference)
    }

    /// `albums` albums of `tracks` tracks.
    func interruptedFixture(albums: Int = 3, tracks: Int = 2, seconds: Double = 2) throws -> String {
        for a in 0..<albums {
            let tags = ["ALBUM": "Album \(a)", "ALBUMARTIST": "Q"]
            for t in 1...tracks {
                try track("\(a)-\(t).flac", seconds: seconds, volume: t == 1 ? 0.3 / Double(a + 1) : 0.1, tags: tags)
            }
        }
        // Album mode from the pipeline itself (as `albumMode` sets it), so the killed `medley run`
        // and the in-process runs share the job's settings.
        return try albumPipeline(transcode: "AVFormatIDKey: kAudioFormatFLAC, normalize: { loudness: -16LUFS, truePeak: -1dBTP, album: true }")
    }

    /// The manifest's album values of a clean run into a scratch export, then that export removed.
    func uninterruptedReference(_ path: String, items: Int = 6) throws -> [String: String] {
        XCTAssertEqual(try run(path).failed, 0)
        let reference = try manifest().mapValues { try JSONSerialization.data(withJSONObject: try album(of: $0), options: .sortedKeys) }
            .mapValues { String(decoding: $0, as: UTF8.self) }
        try FileManager.default.removeItem(atPath: work + "/out")
        XCTAssertEqual(reference.count, items)
        return reference
    }

    /// Killed (SIGKILL) during the album pass, after its first album, then run again: every
    /// output as an uninterrupted run leaves it, the album measured before the kill not measured again.
    func testARunKilledDuringTheAlbumPassEndsCorrectWhenRunAgain() throws {
        let path = try interruptedFixture(albums: 4, tracks: 3, seconds: 1)
        let reference = try uninterruptedReference(path, items: 12)
        try runKilled(path, atThe: 1, "albumMeasured")
        let again = work + "/again.jsonl"
        XCTAssertEqual(try run(path, events: again).failed, 0)
        let measured = try events(again).filter { $0["event"] as? String == "albumMeasured" }
        XCTAssertEqual(measured.count, 4)
        XCTAssertGreaterThanOrEqual(measured.filter { $0["reused"] as? Bool == true }.count, 1, "the album saved before the kill")
        try assertOutputs(match: reference)
    }

    /// Killed during the write pass, after its second output, then run again: nothing measured
    /// again, the outputs finished before the kill kept, the rest written, none half-written.
    func testARunKilledDuringTheWritePassEndsCorrectWhenRunAgain() throws {
        let path = try interruptedFixture(albums: 4, tracks: 3, seconds: 1)
        let reference = try uninterruptedReference(path, items: 12)
        try runKilled(path, atThe: 2, "itemFinished")
        let again = work + "/again.jsonl"
        XCTAssertEqual(try run(path, events: again).failed, 0)
        let log = try events(again)
        let measured = log.filter { $0["event"] as? String == "albumMeasured" }
        XCTAssertEqual(measured.count, 4)
        XCTAssertTrue(measured.allSatisfy { $0["reused"] as? Bool == true }, "every album was saved before the first write")
        XCTAssertGreaterThanOrEqual(log.filter { $0["event"] as? String == "itemSkipped" }.count, 2)
        try assertOutputs(match: reference)
    }

    /// Starts `medley run` on the pipeline (one item at a time), its events through a pipe of one
    /// page, and kills it (SIGKILL) when the `count`-th `event` arrives. The fixtures leave more than
    /// a page of events after that point, so the child is still running (blocked on the pipe)
    /// when it is killed, whatever the machine's speed.
    func runKilled(_ path: String, atThe count: Int, _ event: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.medley)
        process.arguments = ["run", path, "--events", "-", "--jobs", "1", "--quiet"]
        let events = Pipe()
        process.standardOutput = events
        process.standardError = FileHandle.nullDevice
        let pageSize = fcntl(events.fileHandleForWriting.fileDescriptor, 1031, 4096)  // F_SETPIPE_SZ
        XCTAssertGreaterThan(pageSize, 0)
        try process.run()
        try? events.fileHandleForWriting.close()
        var buffer = Data(), seen = 0, killed = false
        reading: while true {
            let chunk = events.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer = Data(buffer[buffer.index(after: newline)...])
                XCTAssertFalse(line.contains("\"jobFinished\""), "the child finished before the kill")
                if line.hasPrefix("{"), line.contains("\"\(event)\"") {
                    seen += 1
                    if seen == count {
                        kill(process.processIdentifier, SIGKILL)
                        killed = true
                        break reading
                    }
                }
            }
        }
        process.waitUntilExit()
        XCTAssertTrue(killed, "no \(count) \(event) events")
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(process.terminationStatus, SIGKILL)
    }

    /// Every item succeeded (or was kept unchanged) with the album values of the clean run, and its
    /// output decodes (sox) to as many frames as its input.
    func assertOutputs(match reference: [String: String]) throws {
        let records = try manifest()
        XCTAssertEqual(Set(records.keys), Set(reference.keys))
        for (item, record) in records {
            XCTAssertTrue(["succeeded", "skipped"].contains(record["status"] as? String ?? ""), "\(item): \(record)")
            let album = String(decoding: try JSONSerialization.data(withJSONObject: try album(of: record), options: .sortedKeys), as: UTF8.self)
            XCTAssertEqual(album, reference[item], item)
            let output = try XCTUnwrap(record["output"] as? String)
            let frames = try Tool.run("soxi", ["-s", output]).stdout, source = try Tool.run("soxi", ["-s", work + "/in/" + item]).stdout
            XCTAssertEqual(frames, source, item)
        }
        XCTAssertEqual(((try? FileManager.default.contentsOfDirectory(atPath: work + "/out/.medley/tmp")) ?? []).filter { !$0.hasPrefix(".") }, [],
                       "no temporary left behind")
    }

    /// Runs the pipeline with its events written into a FIFO this test reads, and asks the runner
    /// to stop (as SIGINT does) when the first `event` arrives. The FIFO is one page, so the run
    /// cannot get far ahead of the reader whatever the machine's speed.
    func runStopping(_ path: String, at event: String) throws -> RunSummary {
        let fifo = work + "/events.fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        final class Box: @unchecked Sendable {
            var runner: PipelineRunner?
            var summary: Result<RunSummary, Error>?
            let lock = NSLock()
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let pipeline = try albumMode(path, grouping: AlbumGrouping.defaultText)
        let settings = options(nil, fifo, 1)
        Thread.detachNewThread {
            // Opening the FIFO for writing waits for the reader below.
            let result = Result(catching: { () throws -> RunSummary in
                let runner = try PipelineRunner(pipeline: pipeline, options: settings)
                box.lock.lock()
                box.runner = runner
                box.lock.unlock()
                return try runner.run()
            })
            // Released, so its event log closes the FIFO (the reader's end of file).
            box.lock.lock()
            box.runner = nil
            box.summary = result
            box.lock.unlock()
            done.signal()
        }
        let reader = try XCTUnwrap(FileHandle(forReadingAtPath: fifo))
        _ = fcntl(reader.fileDescriptor, 1031, 4096)  // F_SETPIPE_SZ: one page
        var buffer = Data(), stopped = false, finished = false
        while !finished {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer = Data(buffer[buffer.index(after: newline)...])
                if line.contains("\"jobFinished\"") { finished = true }
                if !stopped, line.contains("\"\(event)\"") {
                    stopped = true
                    box.lock.lock()
                    box.runner?.stop()
                    box.lock.unlock()
                }
            }
        }
        done.wait()
        XCTAssertTrue(stopped, "no \(event) event")
        return try XCTUnwrap(box.summary).get()
    }
}
