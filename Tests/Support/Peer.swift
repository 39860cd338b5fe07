import Foundation

/// The peer tools of the unit-test targets (ffmpeg, ffprobe, sox, mutagen, exiftool…), run through
/// `ProcessRunner` with its time limit. Each target adds its own readers in an extension.
public enum Peer {
    /// What a peer printed, and how it ended.
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        public let data: Data
    }

    /// A peer that had to succeed did not; the test that called it fails with these words.
    public struct Failed: Error, CustomStringConvertible {
        public let command: [String]
        public let status: Int32
        public let stderr: String
        public var description: String { "\(command.joined(separator: " ")) failed (\(status)): \(stderr)" }
    }

    /// Runs a program found on PATH (or by absolute path) to completion (killed, and
    /// `ProcessRunner.TimedOut` thrown, if it hangs past the runner's time limit).
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String]) throws -> Result {
        let output = try ProcessRunner.run(executable, arguments)
        return Result(status: output.status, stdout: String(decoding: output.stdout, as: UTF8.self),
                      stderr: String(decoding: output.stderr, as: UTF8.self), data: output.stdout)
    }

    /// Runs a program and throws `Failed` (failing the calling test) unless it exits with 0.
    @discardableResult
    public static func must(_ executable: String, _ arguments: [String]) throws -> Result {
        let result = try run(executable, arguments)
        guard result.status == 0 else { throw Failed(command: [executable] + arguments, status: result.status, stderr: result.stderr) }
        return result
    }

    /// Debian's python3, which has python3-mutagen and numpy (a pyenv python on PATH may not).
    public static let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
}
