import Foundation
import XCTest

/// Files that other readers read and Medley refused or read short (issue 31, items 7–9), made
/// here with the field's tools (ffmpeg, oggenc, metaflac, mutagen, lame): `medley probe` and
/// transcodes against mutagen's reading of the same file, field by field, and MP3 lengths
/// against ffmpeg's decoded sample count. No expected value comes from Medley.
final class ReadWhatOthersReadTests: EndToEndCase {
    /// Runs a mutagen script (Debian's /usr/bin/python3) with the file's path as its argument.
    func mutagen(_ script: String, _ path: String) throws -> String {
        let result = try Tool.run("/usr/bin/python3", ["-c", script, path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// mutagen's title, artist, album and genre of a file, "|"-joined (Vorbis comments case-insensitively).
    func mutagenFour(_ path: String) throws -> String {
        try mutagen("""
            import sys, mutagen
            f = mutagen.File(sys.argv[1])
            t = f.tags
            def get(*names):
                for n in names:
                    try:
                        v = t[n]
                    except (KeyError, ValueError):
                        continue
                    return str(v[0] if isinstance(v, list) else v.text[0])
                return ""
            print("|".join([get("title", "TIT2", "\\xa9nam"), get("artist", "TPE1", "\\xa9ART"), get("album", "TALB", "\\xa9alb"),
                            get("genre", "TCON", "\\xa9gen")]))
            """, path)
    }

    func probe(_ path: String) throws -> [String: Any] {
        let result = try Tool.medley(["probe", "--json", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])
        return try XCTUnwrap(list.first)
    }

    func medleyFour(_ properties: [String: Any]) -> String {
        ["title", "artist", "albumTitle", "genre"].map { properties[$0] as? String ?? "" }.joined(separator: "|")
    }

    func make(_ executable: String, _ arguments: [String]) throws {
        let made = try Tool.run(executable, arguments)
        XCTAssertEqual(made.status, 0, "\(executable) \(arguments): \(made.stderr)")
    }

    func flac(_ name: String) throws -> String {
        let path = work + "/" + name
        try make("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "flac", path])
        return path
    }

    // MARK: FLAC and Vorbis comments

    /// metaflac with lower- and mixed-case field names and a padding block, mutagen with lower
    /// case: the Vorbis spec's names are case-insensitive, and Medley reads what mutagen reads.
    func testFLACFieldNamesInAnyCaseAndPadding() throws {
        let lower = try flac("lower.flac"), mixed = try flac("mixed.flac"), byMutagen = try flac("mutagen.flac")
        try make("metaflac", ["--remove-all-tags", "--set-tag=title=T1", "--set-tag=artist=A1", "--set-tag=album=B1",
                              "--set-tag=genre=G1", "--add-padding=70000", lower])
        try make("metaflac", ["--remove-all-tags", "--set-tag=Title=T1", "--set-tag=Artist=A1", "--set-tag=Album=B1",
                              "--set-tag=Genre=G1", mixed])
        _ = try mutagen("""
            import sys, mutagen.flac
            f = mutagen.flac.FLAC(sys.argv[1]); f['title'] = 'T1'; f['artist'] = 'A1'; f['album'] = 'B1'; f['genre'] = 'G1'
            f.tags.vendor = 'an odd vendor \\u00e9'; f.save()
            """, byMutagen)
        for path in [lower, mixed, byMutagen] {
            XCTAssertEqual(try mutagenFour(path), "T1|A1|B1|G1", path)
            XCTAssertEqual(medleyFour(try probe(path)), try mutagenFour(path), path)
        }
    }

    /// FLAC in Ogg (ffmpeg writes it into .oga): its comments are the VORBIS_COMMENT metadata
    /// block in the stream's second packet; Medley read no tags from it ("holds no Vorbis or
    /// Opus stream") where mutagen's OggFLAC reads them.
    func testFLACInOggIsRead() throws {
        let source = try flac("source.flac")
        let oga = work + "/flac.oga"
        try make("ffmpeg", ["-v", "error", "-i", source, "-c:a", "flac", "-metadata", "title=T1", "-metadata", "artist=A1",
                            "-metadata", "album=B1", "-metadata", "genre=G1", oga])
        XCTAssertEqual(try mutagen("import sys, mutagen\nprint(type(mutagen.File(sys.argv[1])).__name__)", oga), "OggFLAC")
        let properties = try probe(oga)
        XCTAssertEqual(medleyFour(properties), try mutagenFour(oga))
        XCTAssertNil(properties["warnings"])
    }

    /// A FLAC with an ID3v2 tag in front (some taggers add one): libFLAC, FFmpeg and mutagen skip
    /// it and read a FLAC; Medley called it an MP3.
    func testFLACBehindAnID3TagIsAFLAC() throws {
        let path = try flac("id3.flac")
        try make("metaflac", ["--set-tag=TITLE=T1", "--set-tag=ARTIST=A1", "--set-tag=ALBUM=B1", "--set-tag=GENRE=G1", path])
        let body = try Data(contentsOf: URL(fileURLWithPath: path))
        // ID3v2.4 with one TIT2 frame and padding, syncsafe size 0x00 0x00 0x08 0x00.
        var tag = Data("ID3".utf8) + Data([4, 0, 0, 0, 0, 0x08, 0x00])
        tag += Data("TIT2".utf8) + Data([0, 0, 0, 5, 0, 0, 3]) + Data("ID3T".utf8)
        tag += Data(count: 0x400 - 15)
        try (tag + body).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try mutagen("import sys, mutagen\nprint(type(mutagen.File(sys.argv[1])).__name__)", path), "FLAC")
        let properties = try probe(path)
        XCTAssertEqual(properties["format"] as? String, "flac")
        XCTAssertEqual(medleyFour(properties), try mutagenFour(path))
    }

    /// Two VORBIS_COMMENT blocks (the format allows one): libFLAC's metaflac and mutagen read the
    /// first; so does Medley, and it names what the second holds in a warning.
    func testASecondCommentBlockIsNamedInAWarning() throws {
        let path = try flac("two.flac")
        _ = try mutagen("""
            import sys, struct
            d = open(sys.argv[1], 'rb').read()
            off = 4; blocks = []
            while True:
                h = d[off]; n = int.from_bytes(d[off + 1:off + 4], 'big'); blocks.append((h & 0x7f, d[off + 4:off + 4 + n])); off += 4 + n
                if h & 0x80: break
            def vc(vendor, fields):
                b = struct.pack('<I', len(vendor)) + vendor + struct.pack('<I', len(fields))
                for f in fields: b += struct.pack('<I', len(f)) + f
                return b
            blocks = [b for b in blocks if b[0] not in (1, 4)] + [(4, vc(b'one', [b'TITLE=T1', b'ARTIST=A1'])), (4, vc(b'two', [b'ALBUM=B1']))]
            out = b'fLaC'
            for i, (t, b) in enumerate(blocks): out += bytes([t | (0x80 if i == len(blocks) - 1 else 0)]) + len(b).to_bytes(3, 'big') + b
            open(sys.argv[1], 'wb').write(out + d[off:])
            """, path)
        XCTAssertEqual(try mutagenFour(path), "T1|A1||")
        let properties = try probe(path)
        XCTAssertEqual(medleyFour(properties), "T1|A1||")
        XCTAssertEqual(properties["warnings"] as? String,
                       "the FLAC file has 2 VORBIS_COMMENT blocks; only the first was read, as libFLAC and mutagen read it (the others hold ALBUM)")
    }

    /// A metadata block of a reserved type (7–126) before the comments: libFLAC's metaflac and
    /// mutagen skip it and read the comments; Medley took STREAMINFO's length for wrong and read
    /// no tags at all.
    func testAReservedBlockTypeIsSkipped() throws {
        let path = try flac("reserved.flac")
        try make("metaflac", ["--set-tag=TITLE=T1", "--set-tag=ARTIST=A1", "--set-tag=ALBUM=B1", "--set-tag=GENRE=G1", path])
        _ = try mutagen("""
            import sys
            d = open(sys.argv[1], 'rb').read()
            off = 4; blocks = []
            while True:
                h = d[off]; n = int.from_bytes(d[off + 1:off + 4], 'big'); blocks.append((h & 0x7f, d[off + 4:off + 4 + n])); off += 4 + n
                if h & 0x80: break
            blocks = [blocks[0], (9, bytes(16))] + [b for b in blocks[1:] if b[0] == 4]
            out = b'fLaC'
            for i, (t, b) in enumerate(blocks): out += bytes([t | (0x80 if i == len(blocks) - 1 else 0)]) + len(b).to_bytes(3, 'big') + b
            open(sys.argv[1], 'wb').write(out + d[off:])
            """, path)
        XCTAssertEqual(try Tool.run("metaflac", ["--show-tag=TITLE", path]).stdout, "TITLE=T1\n")
        XCTAssertEqual(try mutagenFour(path), "T1|A1|B1|G1")
        let properties = try probe(path)
        XCTAssertEqual(medleyFour(properties), "T1|A1|B1|G1")
        XCTAssertNil(properties["warnings"])
    }

    // MARK: Audio that cannot be decoded

    /// An Ogg Vorbis file whose setup header is damaged: FFmpeg refuses its audio, mutagen reads
    /// its comments. probe shows them with the decoder's reason; a transcode fails that item alone.
    func testTagsOfAFileWhoseAudioCannotBeDecoded() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let wav = work + "/source.wav", good = work + "/in/good.ogg", bad = work + "/in/bad.ogg"
        try make("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", wav])
        try make("oggenc", ["-Q", "-t", "T1", "-a", "A1", "-l", "B1", "-G", "G1", "-o", good, wav])
        try FileManager.default.copyItem(atPath: good, toPath: bad)
        _ = try mutagen("""
            import sys
            d = bytearray(open(sys.argv[1], 'rb').read())
            i = d.find(b'\\x05vorbis')
            d[i + 7:i + 207] = b'\\xaa' * 200
            table = []
            for n in range(256):
                r = n << 24
                for _ in range(8): r = ((r << 1) ^ 0x04C11DB7) if r & 0x80000000 else r << 1
                table.append(r & 0xffffffff)
            p = 0
            while p < len(d):
                lacing = d[p + 27:p + 27 + d[p + 26]]; length = 27 + len(lacing) + sum(lacing)
                if p <= i < p + length:
                    page = d[p:p + length]; page[22:26] = b'\\0\\0\\0\\0'; c = 0
                    for x in page: c = ((c << 8) ^ table[((c >> 24) ^ x) & 0xff]) & 0xffffffff
                    d[p + 22:p + 26] = c.to_bytes(4, 'little')
                p += length
            open(sys.argv[1], 'wb').write(d)
            """, bad)
        XCTAssertNotEqual(try Tool.run("ffmpeg", ["-v", "error", "-i", bad, "-f", "null", "-"]).status, 0, "ffmpeg refuses the audio")
        XCTAssertEqual(try mutagenFour(bad), "T1|A1|B1|G1")
        let properties = try probe(bad)
        XCTAssertEqual(medleyFour(properties), "T1|A1|B1|G1")
        let warning = try XCTUnwrap(properties["warnings"] as? String)
        XCTAssertTrue(warning.hasPrefix("the audio cannot be decoded ("), warning)
        XCTAssertTrue(warning.hasSuffix("); only the tags were read"), warning)
        XCTAssertNil(properties["playbackDuration"])
        let run = try Tool.medley(["run", "-i", work + "/in", "-o", work + "/out", "--transcode", "flac", "--failed-items-ok"])
        XCTAssertTrue(run.stdout.contains("1 succeeded, 1 failed") || run.stderr.contains("1 succeeded, 1 failed"), run.stdout + run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/out/good.flac"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/bad.flac"))
    }

    // MARK: ID3

    /// POPM frames that mutagen skips (an empty body, an e-mail with no terminator) between the
    /// text frames: every other frame is read, as mutagen reads it.
    func testMalformedPOPMFramesAreSkipped() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let audio = work + "/audio.mp3"
        try make("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "libmp3lame", "-write_id3v2", "0", audio])
        for (name, popm) in [("empty", "b''"), ("noterminator", "b'foo@example.com'")] {
            let path = work + "/in/\(name).mp3"
            try FileManager.default.copyItem(atPath: audio, toPath: path)
            _ = try mutagen("""
                import sys
                def syncsafe(n): return bytes([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f])
                def frame(fid, body): return fid.encode() + syncsafe(len(body)) + b'\\0\\0' + body
                def text(fid, s): return frame(fid, b'\\x03' + s.encode())
                frames = text('TIT2', 'T1') + text('TPE1', 'A1') + frame('POPM', \(popm)) + text('TALB', 'B1') + text('TCON', 'G1') + text('TCOM', 'C1')
                body = frames + b'\\0' * 64
                d = open(sys.argv[1], 'rb').read()
                open(sys.argv[1], 'wb').write(b'ID3\\x04\\0\\0' + syncsafe(len(body)) + body + d)
                """, path)
            XCTAssertEqual(try mutagenFour(path), "T1|A1|B1|G1", name)
            let properties = try probe(path)
            XCTAssertEqual(medleyFour(properties), try mutagenFour(path), name)
            XCTAssertEqual(properties["composer"] as? String,
                           try mutagen("import sys, mutagen\nprint(mutagen.File(sys.argv[1])['TCOM'].text[0])", path), name)
        }
    }

    /// A POPM frame whose size runs past the tag: mutagen reads the frames before it (and takes
    /// the rest of the tag for the POPM's count); Medley read the frames after it but lost the
    /// one before, blaming TPE1 for the POPM's size. Now the POPM alone is skipped: every frame
    /// mutagen reads is read, and the ones after the POPM (written here) too.
    func testAnOversizedPOPMLosesOnlyItself() throws {
        let path = work + "/oversized.mp3"
        try make("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "libmp3lame", "-write_id3v2", "0", path])
        _ = try mutagen("""
            import sys
            def syncsafe(n): return bytes([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f])
            def frame(fid, body, size=None): return fid.encode() + syncsafe(len(body) if size is None else size) + b'\\0\\0' + body
            def text(fid, s): return frame(fid, b'\\x03' + s.encode())
            frames = text('TIT2', 'T1') + text('TPE1', 'A1') + frame('POPM', b'a@b\\x00\\xff\\x00\\x00\\x00\\x01', size=0x3fff)
            frames += text('TALB', 'B1') + text('TCON', 'G1') + text('TCOM', 'C1')
            body = frames + b'\\0' * 64
            d = open(sys.argv[1], 'rb').read()
            open(sys.argv[1], 'wb').write(b'ID3\\x04\\0\\0' + syncsafe(len(body)) + body + d)
            """, path)
        XCTAssertEqual(try mutagenFour(path), "T1|A1||")
        let properties = try probe(path)
        XCTAssertEqual(medleyFour(properties), "T1|A1|B1|G1")
        XCTAssertEqual(properties["composer"] as? String, "C1")
        let warning = try XCTUnwrap(properties["warnings"] as? String)
        XCTAssertTrue(warning.hasPrefix("ID3v2 frame POPM at byte "), warning)
    }

    /// ID3 TXXX frames named like standard fields (TXXX:Composer, as some taggers write it): the
    /// composer reached MP3 and M4A outputs as a user field but FLAC not at all. One table now:
    /// each output has it in its standard field, as mutagen reads the outputs.
    func testTXXXComposerReachesEveryOutput() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let path = work + "/in/src.mp3"
        try make("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "libmp3lame", "-write_id3v2", "0", path])
        _ = try mutagen("""
            import sys
            from mutagen.id3 import ID3, TIT2, TXXX
            t = ID3(); t.add(TIT2(encoding=3, text='T1'))
            for desc, value in [('Composer', 'C1'), ('GENRE', 'G1'), ('BPM', '120'), ('Album Artist', 'AA1'), ('Lyricist', 'L1')]:
                t.add(TXXX(encoding=3, desc=desc, text=value))
            t.save(sys.argv[1])
            """, path)
        XCTAssertEqual(try mutagen("import sys, mutagen\nprint(mutagen.File(sys.argv[1])['TXXX:Composer'].text[0])", path), "C1")
        for (format, ext) in [("flac", "flac"), ("mp3", "mp3"), ("m4a", "m4a")] {
            let run = try Tool.medley(["run", "-i", work + "/in", "-o", work + "/out-" + ext, "--transcode", format, "-q"])
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let read = """
            import sys, mutagen
            f = mutagen.File(sys.argv[1]); t = f.tags
            keys = {'FLAC': ['composer', 'genre', 'bpm', 'albumartist', 'lyricist'],
                    'MP3': ['TCOM', 'TCON', 'TBPM', 'TPE2', 'TEXT'],
                    'MP4': ['\\xa9wrt', '\\xa9gen', 'tmpo', 'aART', '----:com.apple.iTunes:LYRICIST']}[type(f).__name__]
            def one(v):
                v = v[0] if isinstance(v, list) else v.text[0]
                return v.decode() if isinstance(v, bytes) else str(v)
            print('|'.join(one(t[k]) for k in keys))
            """
        for ext in ["flac", "mp3", "m4a"] {
            XCTAssertEqual(try mutagen(read, work + "/out-\(ext)/src.\(ext)"), "C1|G1|120|AA1|L1", ext)
        }
    }

    // MARK: MP4 and MP3

    /// An M4A whose ftyp (or every top-level atom) has a 64-bit size (`size == 1` and a largesize):
    /// its brands are 8 bytes further on. mutagen and ffprobe read it as MP4; Medley read the
    /// brand from the largesize and called the file an "mp4" movie container at best.
    func testMP4With64BitAtomSizes() throws {
        let source = work + "/source.m4a"
        try make("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "aac", "-metadata", "title=T1",
                            "-metadata", "artist=A1", "-metadata", "album=B1", "-metadata", "genre=G1", source])
        let path = work + "/large.m4a"
        _ = try mutagen("""
            import sys, struct
            d = open(sys.argv[1], 'rb').read()
            atoms = []; off = 0
            while off < len(d):
                n, t = struct.unpack('>I4s', d[off:off + 8]); atoms.append((t, d[off + 8:off + n])); off += n
            shift = 8 * [t for t, b in atoms].index(b'mdat') + 8
            out = b''
            for t, b in atoms:
                if t == b'moov':
                    b = bytearray(b); i = 0
                    while (i := b.find(b'stco', i)) >= 0:
                        for k in range(struct.unpack('>I', b[i + 8:i + 12])[0]):
                            p = i + 12 + 4 * k; b[p:p + 4] = struct.pack('>I', struct.unpack('>I', b[p:p + 4])[0] + shift)
                        i += 4
                    b = bytes(b)
                out += struct.pack('>I4sQ', 1, t, len(b) + 16) + b
            open(sys.argv[1].replace('source', 'large'), 'wb').write(out)
            """, source)
        XCTAssertEqual(try mutagen("import sys, mutagen\nprint(type(mutagen.File(sys.argv[1])).__name__)", path), "MP4")
        XCTAssertEqual(try Tool.run("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"]).status, 0)
        let properties = try probe(path)
        XCTAssertEqual(properties["mediaType"] as? String, "music")
        XCTAssertEqual(properties["format"] as? String, "m4a")
        XCTAssertEqual(medleyFour(properties), try mutagenFour(path))

        // `size == 0`: the last atom (mdat after a faststart moov) runs to the end of the file.
        let faststart = work + "/faststart.m4a"
        try make("ffmpeg", ["-v", "error", "-i", source, "-c", "copy", "-movflags", "+faststart", faststart])
        _ = try mutagen("""
            import sys, struct
            d = bytearray(open(sys.argv[1], 'rb').read()); off = 0; last = 0
            while off < len(d):
                last = off; off += struct.unpack('>I', d[off:off + 4])[0]
            assert d[last + 4:last + 8] == b'mdat'
            d[last:last + 4] = b'\\0\\0\\0\\0'
            open(sys.argv[1], 'wb').write(d)
            """, faststart)
        XCTAssertEqual(try Tool.run("ffmpeg", ["-v", "error", "-i", faststart, "-f", "null", "-"]).status, 0)
        let toTheEnd = try probe(faststart)
        XCTAssertEqual(toTheEnd["format"] as? String, "m4a")
        XCTAssertEqual(medleyFour(toTheEnd), try mutagenFour(faststart))
    }

    /// A LAME-tagged MP3 of exactly 2.000 s (ffmpeg's libmp3lame) reads 2.0 s, as ffmpeg decodes
    /// it (88,200 samples at 44.1 kHz); it was 2.038 s with the encoder's delay and padding.
    func testA2SecondMP3Is2Seconds() throws {
        let path = work + "/two.mp3"
        try make("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=2:sample_rate=44100", "-c:a", "libmp3lame", path])
        let decoded = try Tool.run("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-"])
        XCTAssertEqual(decoded.data.count / 2, 88200)
        XCTAssertEqual(try probe(path)["playbackDuration"] as? Double, 2.0)
    }
}
