import Foundation

/// Runs a program to completion for a test, with a time limit: the one way tests start the peer
/// tools (ImageMagick, vips, ffmpeg, sox, exiftool, mutagen, Chromium, podman, Slurm) and medley
/// itself when they only need its result. The limit is a hang guard, not a speed check: far above
/// what any call takes on a slow machine, it stops one hung program from eating CI's time.
public enum ProcessRunner {
    /// What a program did.
    public struct Output: Sendable {
        public let status: Int32
        /// `.uncaughtSignal` when the program crashed or was killed (then `status` is the signal).
        public let reason: Process.TerminationReason
        public let stdout: Data
        public let stderr: Data
    }

    /// The program did not end within its time limit; it and its process group were killed.
    public struct TimedOut: Error, CustomStringConvertible {
        public let command: [String]
        public let seconds: TimeInterval
        public let stderr: String
        public var description: String {
            "\(command.joined(separator: " ")) did not end within \(Int(seconds)) s and was killed; its standard error: \(stderr)"
        }
    }

    /// The limit of a call that gives none: 15 minutes, some hundred times what the slowest call
    /// of the suite (building the container image) needs.
    public static let defaultTimeLimit: TimeInterval = 900

    /// Runs `executable` (an absolute path, or a name looked up on PATH) with `arguments`, reading
    /// both pipes while it runs so a full pipe cannot block it. After `timeLimit` seconds the
    /// program's process group (Foundation starts each child in a group of its own) is killed and
    /// `TimedOut` thrown.
    public static func run(_ executable: String, _ arguments: [String], in folder: String? = nil,
                           environment: [String: String] = [:],
                           timeLimit: TimeInterval = defaultTimeLimit) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()

        let killed = Flag()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem {
            guard process.isRunning else { return }
            killed.set()
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: watchdog)

        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let errDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errBox.data = err.fileHandleForReading.readDataToEndOfFile()
            errDone.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        errDone.wait()
        if killed.isSet {
            throw TimedOut(command: [executable] + arguments, seconds: timeLimit,
                           stderr: String(decoding: errBox.data.suffix(2000), as: UTF8.self))
        }
        return Output(status: process.terminationStatus, reason: process.terminationReason,
                      stdout: outData, stderr: errBox.data)
    }

    /// A flag set once from the watchdog's thread and read after the process ended.
    private final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.lock(); value = true; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    }
}
