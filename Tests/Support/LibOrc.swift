import Foundation

/// The liborc this process loaded (with libvips), read from the loader's mappings — not from Medley's
/// own check (CVipsShim/medley_start.c), which `VipsVectorPathTests` holds against this.
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

    /// Whether that liborc frees compiled code without its global lock (before 0.4.34: orc commit
    /// e48fa54), so that Medley runs libvips with its vector paths off.
    public static var freesCodeUnlocked: Bool { microVersion.map { $0 < 34 } ?? false }

    /// What every program a test starts gets in its environment: libvips' vector paths off when Medley
    /// turns them off, so a peer's libvips (vipsthumbnail, pyvips) computes with the arithmetic
    /// Medley's does — its plain C paths round differently from its liborc ones (by up to 7 levels
    /// in a thumbnail's reduction).
    public static var peerEnvironment: [String: String] { freesCodeUnlocked ? ["VIPS_NOVECTOR": "1"] : [:] }
}
