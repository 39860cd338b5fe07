import Foundation
@testable import MedleyCore
@testable import MedleyMedia
import XCTest

/// Which tracks a re-encode keeps (HandBrake's language lists), the subtitle files a movie has
/// beside it and the names of those written beside its output, and the new `transcode:` keys as
/// read — each expected value written out here by hand.
final class MovieTrackChoiceTests: XCTestCase {
    /// A DVD-style rip: video 0; audio 1 eng (default), 2 fre, 3 eng commentary; subtitles 4 eng,
    /// 5 fra forced (text), 6 ger (PGS); a font; a timecode data track.
    let rip: [MovieStream] = [
        stream(0, .video, "h264"),
        stream(1, .audio, "ac3", "eng", isDefault: true), stream(2, .audio, "ac3", "fre"), stream(3, .audio, "aac", "eng"),
        stream(4, .subtitle, "subrip", "eng", text: true), stream(5, .subtitle, "ass", "fra", forced: true, text: true),
        stream(6, .subtitle, "hdmv_pgs_subtitle", "ger"),
        stream(7, .attachment, "ttf"), stream(8, .data, "bin_data"),
    ]

    static func stream(_ index: Int, _ kind: MovieStream.Kind, _ codec: String, _ language: String = "", isDefault: Bool = false,
                       forced: Bool = false, text: Bool = false) -> MovieStream {
        MovieStream(index: index, kind: kind, codec: codec, language: language, title: "", isDefault: isDefault, isForced: forced,
                    isHearingImpaired: false, isAttachedPicture: false, isText: text, channels: 2)
    }

    func testEverythingIsKeptByDefaultAndDataStreamsAreNamed() {
        let chosen = MovieTracks().choose(from: rip, video: 0)
        XCTAssertEqual(chosen.audio, [1, 2, 3])
        XCTAssertEqual(chosen.subtitles, [4, 5, 6])
        XCTAssertEqual(chosen.attachments, [7])
        XCTAssertEqual(chosen.warnings, ["data stream 8 (bin_data) not kept: Medley does not carry data streams"])
    }

    func testLanguageListsMatchEveryCodeOfALanguage() {
        // fr (639-1), fra (639-2/T) and fre (639-2/B) are one language; list order first, then file order.
        var tracks = MovieTracks(audio: .languages(["fr", "en"]), subtitles: .languages(["fre", "de"]))
        var chosen = tracks.choose(from: rip, video: 0)
        XCTAssertEqual(chosen.audio, [2, 1, 3])
        XCTAssertEqual(chosen.subtitles, [5, 6], "fre finds fra; de finds ger")
        // Nothing in the list: the main (default) audio track stays, with a warning.
        tracks.audio = .languages(["jpn"])
        tracks.subtitles = .languages(["jpn"])
        chosen = tracks.choose(from: rip, video: 0)
        XCTAssertEqual(chosen.audio, [1])
        XCTAssertEqual(chosen.subtitles, [])
        XCTAssertEqual(chosen.warnings, ["no audio track in jpn (the movie has eng, fre); kept audio stream 1 (ac3, eng)",
                                         "no subtitle track in jpn (the movie has eng, fra, ger)",
                                         "data stream 8 (bin_data) not kept: Medley does not carry data streams"])
    }

    func testFirstNoneAndBurn() {
        var tracks = MovieTracks(audio: .first, subtitles: .none)
        var chosen = tracks.choose(from: rip, video: 0)
        XCTAssertEqual(chosen.audio, [1])
        XCTAssertEqual(chosen.subtitles, [])
        tracks = MovieTracks()
        tracks.burn = .forced
        chosen = tracks.choose(from: rip, video: 0)
        XCTAssertEqual(chosen.burn?.index, 5)
        XCTAssertEqual(chosen.subtitles, [4, 6], "a burned track is not also kept")
        // A picture subtitle cannot go through libass: kept as a track, said.
        tracks.burn = .language("de")
        chosen = tracks.choose(from: rip, video: 0)
        XCTAssertNil(chosen.burn)
        XCTAssertEqual(chosen.subtitles, [4, 5, 6])
        XCTAssertTrue(chosen.warnings.contains { $0.hasPrefix("subtitle stream 6 (hdmv_pgs_subtitle, ger) not burned in") }, "\(chosen.warnings)")
    }

    func testSubtitleFileNamesBesideTheMovie() {
        XCTAssertEqual(SubtitleFiles.describe("film.srt", stem: "film")?.language, "")
        XCTAssertEqual(SubtitleFiles.describe("film.en.srt", stem: "film")?.language, "eng")
        let forced = SubtitleFiles.describe("film.nl.forced.vtt", stem: "film")
        XCTAssertEqual(forced?.language, "nld")
        XCTAssertEqual(forced?.flags, [.forced])
        XCTAssertEqual(SubtitleFiles.describe("film.fre.sdh.ass", stem: "film")?.flags, [.hearingImpaired])
        XCTAssertNil(SubtitleFiles.describe("film.txt", stem: "film"))
        XCTAssertNil(SubtitleFiles.describe("filmography.srt", stem: "film"))
        XCTAssertNil(SubtitleFiles.describe("film.directors.cut.srt", stem: "film"), "not a language")
        XCTAssertNil(SubtitleFiles.describe("film.", stem: "film"))
        var taken = Set<String>()
        XCTAssertEqual(SubtitleFiles.name(stem: "film", stream: rip[5], position: 1, format: .srt, taken: &taken), "film.fra.forced.srt")
        XCTAssertEqual(SubtitleFiles.name(stem: "film", stream: rip[4], position: 0, format: .srt, taken: &taken), "film.eng.srt")
        XCTAssertEqual(SubtitleFiles.name(stem: "film", stream: rip[4], position: 2, format: .srt, taken: &taken), "film.eng.3.srt",
                       "a second English track is numbered")
    }

    func testTargetSizeLeavesRoomForTheSound() throws {
        // 700 MB over 90 minutes beside two AAC tracks at 160 kb/s: 700e6·8·0.99/5400 − 320,000 b/s.
        let rate = try Movie.videoBitRate(forSize: 700_000_000, duration: 5400,
                                            sound: .encode(codec: .aac, bitRate: 160_000, sampleRate: nil, channels: 2), tracks: 2, streams: [])
        XCTAssertEqual(Double(rate), 700e6 * 8 * 0.99 / 5400 - 320_000, accuracy: 1)
        XCTAssertThrowsError(try Movie.videoBitRate(forSize: 1_000_000, duration: 5400, sound: .encode(codec: .aac, bitRate: 160_000, sampleRate: nil, channels: 2),
                                                     tracks: 2, streams: []))
    }
}
