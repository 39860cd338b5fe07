import Foundation

/// The liborc this process loaded (with libvips), read from the loader's mappings — not from Medley:
/// `VipsVectorPathTests` uses it to know whether libvips' liborc calls must reach Medley's lock.
public enum LibOrc {
    /// The micro version N of liborc 0.4.N mapped into this process (its file is
    /// `liborc-0.4.so.0.N.0`), or nil when none is (libvips 8.15 and later use highway instead).
    public static let microVersion: Int? = {
        // Read to its end: a /proc file says it is empty, so a read of its stated size gets nothing.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return nil }
        defer { try? handle.close() }
        let maps = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
        guard let found = maps.range(of: #"liborc-0\.4\.so\.0\.[0-9]+\.[0-9]+"#, options: .regularExpression) else { return nil }
        let parts = maps[found].split(separator: ".")
        return parts.count > 4 ? Int(parts[4]) : nil
    }()
}
