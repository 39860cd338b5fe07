import Foundation
import XCTest

/// Runs the peer tools (ffmpeg, ffprobe) that make and check this target's media. MedleyTagsTests
/// has its own `Peer` with the tag readers besides; test targets cannot share a file.
enum Peer {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        let data: Data
    }

    /// Runs a program found on PATH (or by absolute path) to completion.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let errDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errBox.data = err.fileHandleForReading.readDataToEndOfFile()
            errDone.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errDone.wait()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errBox.data, as: UTF8.self), data: outData)
    }

    /// Runs a program and fails the test unless it exits with 0.
    @discardableResult
    static func must(_ executable: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        let result = try run(executable, arguments)
        guard result.status == 0 else {
            XCTFail("\(executable) \(arguments.joined(separator: " ")) failed: \(result.stderr)", file: file, line: line)
            throw NSError(domain: executable, code: Int(result.status))
        }
        return result
    }
}
