import CSystemShim
import CVipsShim

/// How the process's memory is managed by the C libraries underneath Medley.
public enum ProcessMemory {
    /// Caps glibc's malloc arenas (each reserves 64 MB of address space, eight per core by default), so under an
    /// address-space limit memory goes to images rather than to reservations no one uses. Call before threads
    /// start allocating. Returns whether the C library took the setting.
    @discardableResult
    public static func limitMallocArenas(_ count: Int) -> Bool {
        medley_limit_malloc_arenas(Int32(clamping: count)) != 0
    }

    /// Bytes above which libvips decodes an image that needs random access into a temporary file rather
    /// than memory.
    public static var vipsDiscThreshold: Int {
        Int(clamping: medley_vips_disc_threshold())
    }
}
