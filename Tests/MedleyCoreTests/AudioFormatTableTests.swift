import Foundation
import MedleyMedia
@testable import MedleyCore
import XCTest

/// `AudioFormatTable`, the one codec table, against sources outside it: Core Audio's
/// `kAudioFormat*` codes (CoreAudioTypes.h: four characters read as a big-endian UInt32,
/// written out here as numbers), the encoders and muxers this ffmpeg lists, and the table of
/// docs/audio.md ("Containers"): default extensions and containers as the audio stage plans them.
final class AudioFormatTableTests: XCTestCase {
    typealias FormatID = TranscodeSettings.FormatID

    func testCodesAreCoreAudios() {
        let codes: [FormatID: UInt32] = [
            .linearPCM: 1_819_304_813, .mpeg4AAC: 1_633_772_320, .appleLossless: 1_634_492_771, .flac: 1_718_378_851,
            .opus: 1_869_641_075, .mpegLayer3: 778_924_083, .appleIMA4: 1_768_775_988, .uLaw: 1_970_037_111, .aLaw: 1_634_492_791,
        ]
        XCTAssertEqual(Set(codes.keys), Set(FormatID.allCases))
        for (format, code) in codes {
            XCTAssertEqual(format.rawCode, code, format.rawValue)
            XCTAssertEqual(FormatID(text: String(code)), format, format.rawValue)
            XCTAssertEqual(FormatID(text: format.fourCC), format, format.rawValue)
        }
    }

    /// ffmpeg's `-encoders` / `-muxers` listing: a line per entry, its flags, then its name.
    func listed(_ option: String) throws -> Set<String> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-hide_banner", option]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Set(text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            return words.count >= 2 ? String(words[1]) : nil
        })
    }

    func testEveryFFmpegWriterIsOneThisFFmpegHas() throws {
        let encoders = try listed("-encoders"), muxers = try listed("-muxers")
        for format in FormatID.allCases {
            for writer in AudioFormatTable.row(format).ffmpeg {
                XCTAssertTrue(encoders.contains(writer.codec), "\(format.rawValue): \(writer.codec)")
                XCTAssertTrue(muxers.contains(writer.muxer), "\(format.rawValue): \(writer.muxer)")
            }
        }
    }

    /// Each format's default extension (docs/audio.md, "Containers"), the containers it is written in and by whom, and
    /// the words of a refusal.
    func testPlansByFormatAndExtension() throws {
        let folder = NSTemporaryDirectory() + "medley-format-table-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/tone.wav"
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=48000",
                          "-ac", "2", "-c:a", "pcm_s16le", source]
        try make.run()
        make.waitUntilExit()
        let info = try AudioReader(path: source).info

        func plan(_ format: FormatID, _ ext: String) -> String {
            var settings = TranscodeSettings()
            settings.format = format
            let stage = AudioStage(settings: settings, metering: false)
            var warnings: [String] = []
            do {
                switch try stage.plan(for: info, ext: ext, warnings: &warnings) {
                case .ffmpeg(let output, _): return "ffmpeg \(output.muxer) \(output.codec)"
                case .sndfile(let output): return "libsndfile \(output.container)"
                }
            } catch {
                return (error as? ItemFailure)?.reason ?? "\(error)"
            }
        }
        let defaults: [FormatID: String] = [.linearPCM: "caf", .mpeg4AAC: "m4a", .appleLossless: "m4a", .flac: "flac", .opus: "ogg",
                                            .mpegLayer3: "mp3", .appleIMA4: "caf", .uLaw: "caf", .aLaw: "caf"]
        for format in FormatID.allCases {
            var settings = TranscodeSettings()
            settings.format = format
            XCTAssertEqual(AudioStage(settings: settings, metering: false).defaultExtension, defaults[format], format.rawValue)
        }
        let expected: [(FormatID, String, String)] = [
            (.mpeg4AAC, "m4a", "ffmpeg ipod aac"), (.mpeg4AAC, "mp4", "ffmpeg ipod aac"), (.mpeg4AAC, "aac", "ffmpeg ipod aac"),
            (.mpeg4AAC, "wav", "kAudioFormatMPEG4AAC cannot be written as .wav; use .m4a"),
            (.appleLossless, "m4a", "ffmpeg ipod alac"), (.appleLossless, "caf", "libsndfile caf"),
            (.appleLossless, "mp3", "kAudioFormatAppleLossless cannot be written as .mp3; use .m4a"),
            (.opus, "ogg", "ffmpeg ogg libopus"), (.opus, "opus", "ffmpeg ogg libopus"),
            (.opus, "oga", "kAudioFormatOpus cannot be written as .oga; use .ogg"),
            (.mpegLayer3, "mp3", "ffmpeg mp3 libmp3lame"), (.mpegLayer3, "m4a", "kAudioFormatMPEGLayer3 cannot be written as .m4a; use .mp3"),
            (.appleIMA4, "caf", "ffmpeg caf adpcm_ima_qt"), (.appleIMA4, "wav", "kAudioFormatAppleIMA4 cannot be written as .wav; use .caf"),
            (.flac, "flac", "libsndfile flac"), (.flac, "ogg", "kAudioFormatFLAC cannot be written as .ogg; use .flac"),
            (.linearPCM, "wave", "libsndfile wav"), (.linearPCM, "aifc", "libsndfile aiff"), (.linearPCM, "caf", "libsndfile caf"),
            (.linearPCM, "m4a", "kAudioFormatLinearPCM cannot be written as .m4a; use .caf"),
            (.uLaw, "wav", "libsndfile wav"), (.aLaw, "aif", "libsndfile aiff"),
        ]
        for (format, ext, want) in expected {
            XCTAssertEqual(plan(format, ext), want, "\(format.rawValue) as .\(ext)")
        }
    }

    /// `export.id3` applies to the formats whose outputs carry an ID3 tag: MP3, and PCM as WAV or AIFF.
    func testID3FormatsAreMP3AndPCM() {
        XCTAssertEqual(Set(FormatID.allCases.filter { AudioFormatTable.row($0).id3 }), [.mpegLayer3, .linearPCM, .uLaw, .aLaw])
    }
}
