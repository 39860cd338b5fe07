import Foundation
import MedleyCore
import XCTest

/// `playlist:` parsing and validation at FILE:LINE:COL (columns counted by hand).
final class PlaylistStageTests: PipelineTextCase {
    func testAValidPlaylistBecomesATypedModel() throws {
        let playlist = try XCTUnwrap(try job("""
            version: 1
            jobs:
              - name: podcasts
                ingest: { from: [photos] }
                export: { to: out/aac }
                playlist: { to: out/aac/talks.m3u8, order: shuffle, seed: 7, dedupe: true }
            """).playlist)
        XCTAssertEqual(playlist, PlaylistStage(to: folder + "/out/aac/talks.m3u8", order: .shuffle, seed: 7, dedupe: true))
        let plain = try XCTUnwrap(try job(oneJob("playlist: { to: out/list.M3U }")).playlist)
        XCTAssertEqual(plain, PlaylistStage(to: folder + "/out/list.M3U", order: .ingest, seed: nil, dedupe: false))
    }

    func testMistakes() {
        let found = diagnostics("""
            version: 1
            jobs:
              - name: j
                ingest: { from: [photos] }
                export: { to: out }
                playlist: { to: out/list.txt, order: shufle, seed: 7 }
              - name: k
                ingest: { from: [photos] }
                export: { to: out2 }
                playlist: { to: out2/list.m3u8, order: title, seed: 7 }
              - name: l
                ingest: { from: [photos] }
                export: { to: out3 }
                playlist: { to: elsewhere/list.m3u, seed: -1 }
              - name: m
                ingest: { from: [photos] }
                export: { to: out4 }
                playlist: { to: out4/list.m3u8, ordr: shuffle, dedupe: maybe }
              - name: n
                ingest: { from: [photos] }
                playlist: { to: out/list.m3u8 }
            """)
        assertDiagnostics(found, [
            "p.yaml:6:21: error: playlist.to must name an .m3u8 or .m3u file, not 'out/list.txt'",
            "p.yaml:6:42: error: unknown playlist order 'shufle'; did you mean 'shuffle'?",
            "p.yaml:10:57: error: playlist.seed only applies to order: shuffle; add 'order: shuffle' or remove the seed",
            "p.yaml:14:21: error: playlist.to must be inside the job's export folder",
            "p.yaml:14:47: error: playlist.seed must be a whole number ≥ 0, found '-1'",
            "p.yaml:18:37: error: unknown key 'ordr' in playlist; did you mean 'order'?",
            "p.yaml:18:60: error: playlist.dedupe must be true or false, found 'maybe'",
            "p.yaml:21:15: error: a playlist lists the job's exported files, but the job has no 'export'",
        ])
    }
}
