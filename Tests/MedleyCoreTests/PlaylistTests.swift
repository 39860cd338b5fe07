import Foundation
import XCTest
@testable import MedleyCore

final class PlaylistTests: XCTestCase {
    func entry(_ index: Int, _ path: String, id: String? = nil, duration: Double? = 61.6, title: String? = nil,
               artist: String? = nil, album: String? = nil, disc: Int? = nil, track: Int? = nil) -> PlaylistEntry {
        PlaylistEntry(path: path, ingestIndex: index, persistentID: id, duration: duration, title: title, artist: artist,
                      albumTitle: album, discNumber: disc, albumTrackNumber: track)
    }

    func testM3U8LinesArePathsRelativeToThePlaylist() {
        let entries = [
            entry(1, "/out/aac/Zoë/Mixed Bag/2-03 Café.m4a", title: "Café", artist: "Zoë"),
            entry(0, "/out/aac/untagged.m4a", duration: nil),
        ]
        let text = Playlist.render(entries, order: .ingest, seed: 0, dedupe: false, playlistPath: "/out/aac/all.m3u8")
        XCTAssertEqual(text, """
            #EXTM3U
            #EXTINF:-1,untagged
            untagged.m4a
            #EXTINF:62,Zoë - Café
            Zoë/Mixed Bag/2-03 Café.m4a

            """)
        let elsewhere = Playlist.render(entries, order: .ingest, seed: 0, dedupe: false, playlistPath: "/out/lists/x.m3u8")
        XCTAssertTrue(elsewhere.contains("\n../aac/untagged.m4a\n"), elsewhere)
        XCTAssertTrue(elsewhere.contains("\n../aac/Zoë/Mixed Bag/2-03 Café.m4a\n"), elsewhere)
    }

    func testRelativePaths() {
        XCTAssertEqual(Playlist.relativePath(of: "/a/b/c.m4a", from: "/a/b"), "c.m4a")
        XCTAssertEqual(Playlist.relativePath(of: "/a/b/c.m4a", from: "/a"), "b/c.m4a")
        XCTAssertEqual(Playlist.relativePath(of: "/a/b/c.m4a", from: "/a/x/y"), "../../b/c.m4a")
        XCTAssertEqual(Playlist.relativePath(of: "/a/b", from: "/a/b"), "../b", "a file named like the folder")
    }

    func testTagTextCannotBreakTheFormat() {
        let text = Playlist.render([entry(0, "/o/x.m4a", title: "line\nbreak\r#EXTINF:9,evil", artist: "a\tb")],
                                   order: .ingest, seed: 0, dedupe: false, playlistPath: "/o/p.m3u8")
        XCTAssertEqual(text.split(separator: "\n").count, 3, text)
        XCTAssertTrue(text.contains("#EXTINF:62,a b - line break #EXTINF:9,evil\n"), text)
    }

    func testOrdersByTitleAlbumAndArtistWithTrackTieBreaks() {
        let entries = [
            entry(0, "/o/1.m4a", title: "beta", artist: "Zed", album: "B", disc: 1, track: 2),
            entry(1, "/o/2.m4a", title: "Alpha", artist: "amy", album: "B", disc: 1, track: 1),
            entry(2, "/o/3.m4a", title: "gamma", artist: "Amy", album: "A", disc: 2, track: 1),
            entry(3, "/o/4.m4a", title: nil, artist: nil, album: nil),
            entry(4, "/o/5.m4a", title: "track 10", artist: "Zed", album: "A", disc: 1, track: 1),
            entry(5, "/o/6.m4a", title: "track 9", artist: "Zed", album: "A", disc: 1, track: 3),
        ]
        func order(_ o: PlaylistStage.Order) -> [Int] {
            Playlist.arrange(entries, order: o, seed: 0).map(\.ingestIndex)
        }
        // Case-insensitive, numbers compared as numbers ("track 9" < "track 10"), missing last.
        XCTAssertEqual(order(.title), [1, 0, 2, 5, 4, 3])
        // Album, then disc, then track.
        XCTAssertEqual(order(.album), [4, 5, 2, 1, 0, 3])
        // Artist (amy = Amy), then album, then disc/track.
        XCTAssertEqual(order(.artist), [2, 1, 4, 5, 0, 3])
        XCTAssertEqual(order(.ingest), [0, 1, 2, 3, 4, 5])
    }

    func testShuffleIsASeededPermutation() {
        let entries = (0..<20).map { entry($0, "/o/\($0).m4a") }
        let a = Playlist.arrange(entries, order: .shuffle, seed: 7).map(\.ingestIndex)
        let again = Playlist.arrange(entries, order: .shuffle, seed: 7).map(\.ingestIndex)
        let other = Playlist.arrange(entries, order: .shuffle, seed: 8).map(\.ingestIndex)
        XCTAssertEqual(a, again, "same seed, same order")
        XCTAssertNotEqual(a, other, "another seed, another order")
        XCTAssertNotEqual(a, Array(0..<20), "shuffled")
        XCTAssertEqual(a.sorted(), Array(0..<20), "every item exactly once")
        XCTAssertEqual(Playlist.arrange([], order: .shuffle, seed: 1).count, 0)
    }

    func testSplitMix64KnownValues() {
        // Published first outputs of SplitMix64 for seed 0 (e.g. the reference in Vigna's xoshiro page).
        var generator = SplitMix64(seed: 0)
        XCTAssertEqual(generator.next(), 0xE220_A839_7B1D_CDAF)
        XCTAssertEqual(generator.next(), 0x6E78_9E6A_A1B9_65F4)
    }

    func testDedupeKeepsTheFirstOfEachPersistentID() {
        let entries = [
            entry(2, "/o/c.m4a", id: "A"), entry(0, "/o/a.m4a", id: "A"), entry(1, "/o/b.m4a", id: "B"),
            entry(3, "/o/d.m4a", id: nil),
        ]
        let text = Playlist.render(entries, order: .ingest, seed: 0, dedupe: true, playlistPath: "/o/p.m3u8")
        XCTAssertEqual(text.components(separatedBy: "\n").filter { $0.hasSuffix(".m4a") }, ["a.m4a", "b.m4a", "d.m4a"])
    }

    /// A mixed job's manifest: audio and re-encoded movies go into the playlist, in ingest order;
    /// images, movie posters, failed and excluded items do not.
    func testOnlyAudioAndMoviesArePlaylisted() {
        func line(_ input: String, _ type: String, _ output: String?, _ status: String = "succeeded") -> String {
            let out = output.map { ",\"output\":\"\($0)\"" } ?? ""
            return "{\"input\":\"/in/\(input)\",\"mediaType\":\"\(type)\",\"status\":\"\(status)\"\(out)}"
        }
        let lines = [
            line("d.flac", "music", "/out/d.m4a"),
            line("a.jpg", "image", "/out/a.jpg"),
            line("b.mov", "movie", "/out/b.mp4"),
            line("c.mov", "movie", "/out/c.png"),
            line("e.mp3", "podcast", "/out/e.m4a"),
            line("f.m4b", "audioBook", "/out/f.m4a"),
            line("g.wav", "music", "/out/g.m4a", "failed"),
            line("h.wav", "music", nil, "excluded"),
            line("i.webp", "image", "/out/i.WEBP"),
        ]
        let entries = Playlist.entries(fromManifestLines: lines)
        XCTAssertEqual(entries.sorted { $0.ingestIndex < $1.ingestIndex }.map(\.path),
                       ["/out/b.mp4", "/out/d.m4a", "/out/e.m4a", "/out/f.m4a"])
    }
}

